static char help[] = "MatSOR() of a petscspmv type against MATAIJ's (point SOR: inodes off, as PETSc runs it for aijcusparse),\n"
                     "and PCMG's interpolation of several fields on a DMDA of the type against PETSc's MAIJ.\n"
                     "  -type <brc>  petscspmv type to test\n"
                     "  -n <24>      grid points per direction of the test operators\n";

#include <petscspmv.h>
#include <petscdmda.h>

/* A nonsymmetric 2D 5-point operator with a few long-range couplings (both triangles) and dof fields
   coupled densely at each grid point (ex19's Jacobian has 4), diagonally dominant */
static PetscErrorCode CreateOperator(MatType type, PetscInt n, PetscInt dof, Mat *A)
{
  PetscInt rstart, rend, N = n * n * dof;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 6 * dof, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 6 * dof, NULL, 6 * dof, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt p = row / dof, f = row % dof, i = p / n, j = p % n;
    PetscInt       nb[6], nn = 0;

    nb[nn++] = p;
    if (i > 0) nb[nn++] = p - n;
    if (i < n - 1) nb[nn++] = p + n;
    if (j > 0) nb[nn++] = p - 1;
    if (j < n - 1) nb[nn++] = p + 1;
    if (p % 7 == 0) nb[nn++] = (p * 31 + 5) % (n * n);
    for (PetscInt k = 0; k < nn; k++)
      for (PetscInt g = 0; g < dof; g++) {
        const PetscInt col = nb[k] * dof + g;
        PetscScalar    v   = k == 0 ? (g == f ? 6.0 * dof + (row % 5) * 0.1 : 0.3 + 0.1 * g) : -1.0 - 0.05 * ((row + k + g) % 4);

        if (k && nb[k] == p) continue;
        PetscCall(MatSetValues(*A, 1, &row, 1, &col, &v, ADD_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x from MatSOR() of A and of Aref from the same x0 and b, entry by entry within 1e-12 of the largest */
static PetscErrorCode CheckSOR(Mat A, Mat Aref, Vec b, Vec x0, Vec x, Vec xref, MatSORType flag, PetscReal omega, PetscReal fshift, PetscInt its, PetscInt lits, const char *what)
{
  Vec       d;
  PetscReal err, ref;

  PetscFunctionBegin;
  PetscCall(VecCopy(x0, x));
  PetscCall(VecCopy(x0, xref));
  PetscCall(MatSOR(A, b, omega, flag, fshift, its, lits, x));
  PetscCall(MatSOR(Aref, b, omega, flag, fshift, its, lits, xref));
  PetscCall(VecDuplicate(xref, &d));
  PetscCall(VecCopy(x, d));
  PetscCall(VecAXPY(d, -1.0, xref));
  PetscCall(VecNorm(d, NORM_INFINITY, &err));
  PetscCall(VecNorm(xref, NORM_INFINITY, &ref));
  PetscCall(VecDestroy(&d));
  PetscCheck(ref > 0 && err <= 1e-12 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatSOR %s, flag %d, omega %g, fshift %g, its %" PetscInt_FMT ", lits %" PetscInt_FMT ": max error %g of %g", what, (int)flag, (double)omega, (double)fshift, its, lits, (double)err, (double)ref);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every flag PETSc's SOR takes on this number of processes, zero and nonzero initial guesses, omega,
   fshift, its and lits, on vectors of A (CUDA with a GPU) and on host vectors */
static PetscErrorCode CheckAllFlags(Mat A, Mat Aref, PetscRandom rnd, const char *what)
{
  const MatSORType local[] = {SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP, SOR_LOCAL_SYMMETRIC_SWEEP, SOR_EISENSTAT}, global[] = {SOR_FORWARD_SWEEP, SOR_BACKWARD_SWEEP, SOR_SYMMETRIC_SWEEP};
  const PetscReal  omegas[] = {1.0, 1.3}, shifts[] = {0.0, 0.5};
  const PetscInt   itlits[][2] = {
      {1, 1},
      {2, 3}
  };
  PetscMPIInt size;
  PetscInt    m;
  Vec         v[2][4]; /* A's vectors, host vectors: b, x0, x, xref */
  char        label[256];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatCreateVecs(A, &v[0][1], &v[0][0]));
  for (int k = 2; k < 4; k++) PetscCall(VecDuplicate(v[0][0], &v[0][k]));
  for (int k = 0; k < 4; k++) {
    PetscCall(VecCreate(PETSC_COMM_WORLD, &v[1][k]));
    PetscCall(VecSetSizes(v[1][k], m, PETSC_DECIDE));
    PetscCall(VecSetType(v[1][k], VECSTANDARD));
  }
  for (int h = 0; h < 2; h++) {
    PetscCall(VecSetRandom(v[h][0], rnd));
    PetscCall(VecSetRandom(v[h][1], rnd));
  }
  for (int h = 0; h < 2; h++)
    for (int g = 0; g < (size == 1 ? 2 : 1); g++)
      for (size_t f = 0; f < (g ? sizeof(global) : sizeof(local)) / sizeof(MatSORType); f++)
        for (int z = 0; z < 2; z++)
          for (int o = 0; o < 2; o++)
            for (int s = 0; s < 2; s++)
              for (int t = 0; t < 2; t++) {
                MatSORType flag = g ? global[f] : local[f];

                if (flag == SOR_EISENSTAT && (z || t)) continue; /* PETSc's Eisenstat takes one iteration and no zero guess flag */
                if (flag == SOR_EISENSTAT && size > 1) continue; /* MPIAIJ's fails where the blocks have no inodes (docs/limits.md) */
                if (z) flag = (MatSORType)(flag | SOR_ZERO_INITIAL_GUESS);
                PetscCall(PetscSNPrintf(label, sizeof(label), "%s, %s vectors", what, h ? "host" : "the matrix's"));
                PetscCall(CheckSOR(A, Aref, v[h][0], v[h][1], v[h][2], v[h][3], flag, omegas[o], shifts[s], itlits[t][0], itlits[t][1], label));
              }
  /* SOR_APPLY_UPPER (one process: MPIAIJ's applies the diagonal block's) */
  PetscCall(CheckSOR(A, Aref, v[0][0], v[0][1], v[0][2], v[0][3], SOR_APPLY_UPPER, 1.2, 0.0, 1, 1, what));
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < 4; k++) PetscCall(VecDestroy(&v[h][k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckOperator(MatType type, PetscInt n, PetscInt dof, PetscRandom rnd)
{
  Mat      A, Aref, M[2];
  Vec      l;
  char     what[128];
  PetscInt rstart, rend;
  int      failed;

  PetscFunctionBegin;
  PetscCall(CreateOperator(type, n, dof, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(CreateOperator(MATAIJ, n, dof, &Aref));
  /* point SOR for both: on a GPU our matrix is aijcusparse, which turns inodes off (PETSc's host SOR
     of it is point SOR); without one it is AIJ, whose inode SOR sweeps blocks */
  for (int k = 0; k < 2; k++) PetscCall(MatSetOption(k ? Aref : A, MAT_USE_INODES, PETSC_FALSE));
  M[0] = A, M[1] = Aref;
  PetscCall(PetscSNPrintf(what, sizeof(what), "%" PetscInt_FMT "^2 grid, %" PetscInt_FMT " fields", n, dof));
  PetscCall(CheckAllFlags(A, Aref, rnd, what));
  /* values changed on the device (our MatScale(), MatShift()), then new values of the same pattern from the host */
  for (int k = 0; k < 2; k++) PetscCall(MatScale(M[k], -2.5));
  PetscCall(CheckAllFlags(A, Aref, rnd, "after MatScale"));
  for (int k = 0; k < 2; k++) PetscCall(MatShift(M[k], 3.0));
  PetscCall(CheckAllFlags(A, Aref, rnd, "after MatShift"));
  PetscCall(MatCreateVecs(Aref, NULL, &l));
  PetscCall(VecSetRandom(l, rnd));
  PetscCall(VecShift(l, 1.0));
  for (int k = 0; k < 2; k++) PetscCall(MatDiagonalScale(M[k], l, NULL));
  PetscCall(VecDestroy(&l));
  PetscCall(CheckAllFlags(A, Aref, rnd, "after MatDiagonalScale"));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) { /* a new Jacobian: every entry set again from the host */
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc, c[64];
    PetscScalar        v[64];

    PetscCall(MatGetRow(Aref, row, &nc, &cols, &vals));
    PetscCheck(nc <= 64, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row too long for the test");
    for (PetscInt k = 0; k < nc; k++) {
      c[k] = cols[k];
      v[k] = cols[k] == row ? 2.0 * vals[k] + 1.0 : 0.5 * vals[k] + 0.01 * (PetscReal)(k % 3);
    }
    PetscCall(MatRestoreRow(Aref, row, &nc, &cols, &vals));
    for (int k = 0; k < 2; k++) PetscCall(MatSetValues(M[k], 1, &row, nc, c, v, INSERT_VALUES));
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatAssemblyBegin(M[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[k], MAT_FINAL_ASSEMBLY));
  }
  PetscCall(CheckAllFlags(A, Aref, rnd, "new values of the same pattern"));

  /* a zero diagonal: PETSc's error without a shift */
  if (rstart < rend) {
    const PetscScalar zero = 0.0;

    PetscCall(MatSetValues(A, 1, &rstart, 1, &rstart, &zero, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  {
    Vec            b, x;
    PetscErrorCode ierr;

    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatSOR(A, b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, x);
    PetscCall(PetscPopErrorHandler());
    failed = ierr == PETSC_ERR_ARG_INCOMP ? 1 : 0;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    PetscCheck(failed, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "A zero diagonal did not give PETSc's error (%d)", (int)ierr);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCMG's interpolation on a DMDA of several fields: with the DM's type one of ours it is an explicit
   matrix of that type (PETSc's would be a MAIJ of a host AIJ); its products and transpose products
   (the restriction) equal those of PETSc's MAIJ on an AIJ DMDA */
static PetscErrorCode CheckInterpolation(MatType type, PetscRandom rnd)
{
  DM        dac[2], daf[2];
  Mat       P[2];
  Vec       xc, xf, y[2], z[2];
  MatType   ptype;
  PetscBool maij, ours;
  PetscReal err, ref;

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 9, 9, PETSC_DECIDE, PETSC_DECIDE, 4, 1, NULL, NULL, &dac[k]));
    PetscCall(DMSetMatType(dac[k], k ? MATAIJ : type));
    PetscCall(DMSetUp(dac[k]));
    PetscCall(DMRefine(dac[k], PETSC_COMM_WORLD, &daf[k]));
    PetscCall(DMCreateInterpolation(dac[k], daf[k], &P[k], NULL));
  }
  PetscCall(MatGetType(P[0], &ptype));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)P[0], &maij, MATSEQMAIJ, MATMPIMAIJ, ""));
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)P[0], &ours, MATSEQAIJ, MATMPIAIJ, ""));
  PetscCheck(!maij && ours, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The 4-field interpolation on a DMDA of type %s is %s, not an explicit matrix of that type", type, ptype);
  PetscCall(MatCreateVecs(P[1], &xc, &xf));
  PetscCall(VecSetRandom(xc, rnd));
  PetscCall(VecSetRandom(xf, rnd));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDuplicate(xf, &y[k]));
    PetscCall(VecDuplicate(xc, &z[k]));
    PetscCall(MatMult(P[k], xc, y[k]));
    PetscCall(MatMultTranspose(P[k], xf, z[k]));
  }
  for (int t = 0; t < 2; t++) {
    Vec *v = t ? z : y;

    PetscCall(VecNorm(v[1], NORM_INFINITY, &ref));
    PetscCall(VecAXPY(v[0], -1.0, v[1]));
    PetscCall(VecNorm(v[0], NORM_INFINITY, &err));
    PetscCheck(err <= 1e-13 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "4-field interpolation of %s: %s differs by %g of %g from MAIJ's", type, t ? "the restriction" : "the interpolation", (double)err, (double)ref);
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&y[k]));
    PetscCall(VecDestroy(&z[k]));
    PetscCall(MatDestroy(&P[k]));
    PetscCall(DMDestroy(&daf[k]));
    PetscCall(DMDestroy(&dac[k]));
  }
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&xf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC;
  PetscInt    n        = 24;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(CheckOperator(type, n, 1, rnd));
  PetscCall(CheckOperator(type, n / 2, 4, rnd));
  PetscCall(CheckInterpolation(type, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatSOR of %s equals MATAIJ's; its 4-field DMDA interpolation is explicit and equals MAIJ's\n", type));
  PetscCall(PetscFinalize());
  return 0;
}

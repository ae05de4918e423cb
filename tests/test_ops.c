static char help[] = "Every value-changing AIJ operation, then every product, against MATAIJ.\n"
                     "  -type <brc>  petscspmv type to test\n"
                     "  -n <30>      grid points per direction of the test operator\n";

#include <petscspmv.h>
#include "check.h"

/* the scalars of the value changes: complex in complex builds, so an imaginary part dropped on the way
   to a kernel is seen */
#if defined(PETSC_USE_COMPLEX)
  #define TestScalar(re, im) PetscCMPLX(re, im)
#else
  #define TestScalar(re, im) (re)
#endif

/* A nonsymmetric 2D 5-point operator with a few long-range couplings: rows of different lengths */
static PetscErrorCode FillOperator(Mat A, PetscInt n)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt    i = row / n, j = row % n, cols[8], nc = 0;
    PetscScalar v[8];

    cols[nc] = row, v[nc++] = 4.0 + (row % 5) * 0.1;
    if (i > 0) cols[nc] = row - n, v[nc++] = -1.0;
    if (i < n - 1) cols[nc] = row + n, v[nc++] = -1.2;
    if (j > 0) cols[nc] = row - 1, v[nc++] = -0.9;
    if (j < n - 1) cols[nc] = row + 1, v[nc++] = -1.1;
    if (row % 7 == 0) cols[nc] = (row * 31 + 5) % (n * n), v[nc++] = 0.25;
    PetscCall(MatSetValues(A, 1, &row, nc, cols, v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateOperator(MatType type, PetscInt n, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 6, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 6, NULL, 2, NULL));
  PetscCall(FillOperator(*A, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows coupled only within their process (3 k of them): an MPI matrix whose off-diagonal blocks have
   no columns, where PETSc's graph of blocks takes its entry-by-entry path. oneway: each row also reads
   the next process's first row, so the first process receives ghost values and sends none, the last
   sends and receives none */
static PetscErrorCode CreateDecoupled(MatType type, PetscInt k, PetscBool oneway, Mat *A)
{
  PetscInt rstart, rend, N;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, 3 * k, 3 * k, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 1, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetSize(*A, &N, NULL));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt off[5] = {0, -1, 1, -3, 3};

    if (oneway && rend < N) {
      const PetscScalar v = -0.5;

      PetscCall(MatSetValues(*A, 1, &row, 1, &rend, &v, INSERT_VALUES));
    }

    for (int e = 0; e < 5; e++) {
      const PetscInt col = row + off[e];
      /* scaled by the diagonal, 0.175-0.225: none equal to the 0.2 filter, which rounding would decide */
      const PetscScalar v = e ? -1.05 - 0.1 * (PetscReal)((row + e) % 4) : 6.0;

      if (col >= rstart && col < rend) PetscCall(MatSetValues(*A, 1, &row, 1, &col, &v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetDiagonal() of A, into A's own vectors (CUDA ones with a GPU), against MATAIJ's to a few
   roundings of each entry (values changed on the device may round differently). Asked before any
   product brings the device copy up to date: A's first use after a change on the host */
static PetscErrorCode CheckDiagonal(Mat A, Mat Aref, const char *step)
{
  Vec       d, dref, e, bound;
  PetscReal worst;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, NULL, &d));
  PetscCall(MatCreateVecs(Aref, NULL, &dref));
  PetscCall(Poison(d));
  PetscCall(MatGetDiagonal(A, d));
  PetscCall(MatGetDiagonal(Aref, dref));
  PetscCall(VecDuplicate(dref, &e));
  PetscCall(VecDuplicate(dref, &bound));
  PetscCall(VecCopy(d, e)); /* d may live on the GPU */
  PetscCall(VecAXPY(e, -1.0, dref));
  PetscCall(VecAbs(e));
  PetscCall(VecCopy(dref, bound));
  PetscCall(VecAbs(bound));
  PetscCall(VecScale(bound, 32 * PETSC_MACHINE_EPSILON));
  PetscCall(VecShift(bound, PETSC_SMALL * PETSC_MACHINE_EPSILON));
  PetscCall(VecPointwiseDivide(e, e, bound));
  PetscCall(VecNorm(e, NORM_INFINITY, &worst));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&dref));
  PetscCall(VecDestroy(&e));
  PetscCall(VecDestroy(&bound));
  /* written so that NaN fails */
  PetscCheck(worst <= 1.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MatGetDiagonal differs from MATAIJ's: an entry is off by %g times its rounding bound", step, (double)worst);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Check(Mat A, Mat Aref, PetscRandom rnd, const char *step)
{
  PetscFunctionBegin;
  PetscCall(CheckDiagonal(A, Aref, step));
  PetscCall(MatSpmvCheckLayout(A));
  PetscCall(CheckProducts(A, Aref, rnd, step));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s\n", step));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the SeqAIJ block that MatSeqAIJGetArray() may touch: A itself, or its diagonal block */
static PetscErrorCode LocalBlock(Mat A, Mat *B)
{
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, B, NULL, NULL));
  else *B = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G and Gref have the same pattern in every local row and values equal to rounding */
static PetscErrorCode CheckGraph(Mat G, Mat Gref, const char *step)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(Gref, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt    *c, *cref;
    const PetscScalar *v, *vref;
    PetscInt           nc, ncref;

    PetscCall(MatGetRow(G, row, &nc, &c, &v));
    PetscCall(MatGetRow(Gref, row, &ncref, &cref, &vref));
    PetscCheck(nc == ncref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " has %" PetscInt_FMT " entries, MATAIJ's graph %" PetscInt_FMT, step, row, nc, ncref);
    for (PetscInt k = 0; k < nc; k++) {
      PetscCheck(c[k] == cref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " entry %" PetscInt_FMT " in column %" PetscInt_FMT ", MATAIJ's graph in %" PetscInt_FMT, step, row, k, c[k], cref[k]);
      PetscCheck(PetscAbsScalar(v[k] - vref[k]) <= 1e-5 * PetscAbsScalar(vref[k]) + PETSC_SMALL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: G(%" PetscInt_FMT ", %" PetscInt_FMT ") = %g, MATAIJ's graph %g", step, row, c[k], (double)PetscRealPart(v[k]), (double)PetscRealPart(vref[k]));
    }
    PetscCall(MatRestoreRow(G, row, &nc, &c, &v));
    PetscCall(MatRestoreRow(Gref, row, &ncref, &cref, &vref));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatCreateGraph() with every combination GAMG passes (symmetrize, scale, filter), block sizes 1
   and 3, against MATAIJ's graph; A itself (ours, or a product's result: not ours) is left as it was */
static PetscErrorCode CheckGraphs(Mat A, Mat Aref, PetscBool ours, PetscRandom rnd)
{
  const PetscReal filters[] = {-1.0, 0.0, 0.2};
  char            step[128];

  PetscFunctionBegin;
  for (PetscInt bs = 1; bs <= 3; bs += 2) {
    Mat       B = A, Bref = Aref;
    PetscInt  mloc;
    PetscBool fits;

    PetscCall(MatGetLocalSize(A, &mloc, NULL));
    fits = (PetscBool)(mloc % bs == 0);
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
    if (!fits) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skipped MatCreateGraph with block size %" PetscInt_FMT ": the local sizes are not multiples of it (-n)\n", bs));
      continue;
    }
    if (bs > 1) { /* the same values in a matrix of block size 3 (PETSc collapses each block) */
      PetscCall(MatConvert(A, MATSAME, MAT_INITIAL_MATRIX, &B));
      PetscCall(MatConvert(Aref, MATSAME, MAT_INITIAL_MATRIX, &Bref));
      PetscCall(MatSetBlockSize(B, bs));
      PetscCall(MatSetBlockSize(Bref, bs));
    }
    for (int sym = 0; sym < 2; sym++)
      for (int scale = 0; scale < 2; scale++)
        for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(filters); f++) {
          Mat G, Gref;

          PetscCall(PetscSNPrintf(step, sizeof(step), "MatCreateGraph(symmetrize %d, scale %d, filter %g), block size %" PetscInt_FMT, sym, scale, (double)filters[f], bs));
          PetscCall(MatCreateGraph(B, (PetscBool)sym, (PetscBool)scale, filters[f], 0, NULL, &G));
          PetscCall(MatCreateGraph(Bref, (PetscBool)sym, (PetscBool)scale, filters[f], 0, NULL, &Gref));
          PetscCall(CheckGraph(G, Gref, step));
          PetscCall(MatDestroy(&G));
          PetscCall(MatDestroy(&Gref));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s\n", step));
        }
    if (bs > 1) {
      PetscCall(MatDestroy(&B));
      PetscCall(MatDestroy(&Bref));
    }
  }
  if (ours) PetscCall(Check(A, Aref, rnd, "after the graphs"));
  else PetscCall(CheckProducts(A, Aref, rnd, "after the graphs"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC;
  PetscInt    n        = 30, rstart, rend;
  Mat         A, Aref, X, M[2];
  Vec         l, r;
  PetscRandom rnd;
  PetscBool   same;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));

  PetscCall(CreateOperator(type, n, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(CreateOperator(MATAIJ, n, &Aref));
  M[0] = A, M[1] = Aref;
  PetscCall(Check(A, Aref, rnd, "built with MatSetType and MatSetValues"));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatCreateVecs(Aref, &r, &l));
  PetscCall(VecSetRandom(l, rnd));
  PetscCall(VecSetRandom(r, rnd));

  for (int k = 0; k < 2; k++) { /* values at existing positions */
    for (PetscInt row = rstart; row < rend; row += 3) {
      PetscScalar v = 0.5 + row % 3;
      PetscCall(MatSetValues(M[k], 1, &row, 1, &row, &v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(M[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[k], MAT_FINAL_ASSEMBLY));
  }
  PetscCall(Check(A, Aref, rnd, "MatSetValues + assembly"));
  for (int k = 0; k < 2; k++) PetscCall(MatScale(M[k], TestScalar(2.5, 0.5)));
  PetscCall(Check(A, Aref, rnd, "MatScale"));
  /* a scale folded into the layout (no refresh) compounds with the next, and gives way to a refresh */
  for (int k = 0; k < 2; k++) PetscCall(MatScale(M[k], -0.5));
  for (int k = 0; k < 2; k++) PetscCall(MatScale(M[k], 3.0));
  PetscCall(Check(A, Aref, rnd, "MatScale twice"));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatScale(M[k], 0.25));
    if (rend > rstart) {
      PetscScalar v = 7.0;
      PetscCall(MatSetValues(M[k], 1, &rstart, 1, &rstart, &v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(M[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[k], MAT_FINAL_ASSEMBLY));
  }
  PetscCall(Check(A, Aref, rnd, "MatScale then MatSetValues"));
  for (int k = 0; k < 2; k++) PetscCall(MatShift(M[k], TestScalar(1.5, -0.25)));
  PetscCall(Check(A, Aref, rnd, "MatShift"));
  for (int k = 0; k < 2; k++) PetscCall(MatDiagonalScale(M[k], l, r));
  PetscCall(Check(A, Aref, rnd, "MatDiagonalScale"));
  PetscCall(CheckGraphs(A, Aref, PETSC_TRUE, rnd));
  { /* processes without off-diagonal columns; then coupled one way (a process that receives ghost
       values and sends none, one that sends and receives none): graphs and products */
    Mat D, Dref;

    PetscCall(CreateDecoupled(type, 20, PETSC_FALSE, &D));
    PetscCall(CreateDecoupled(MATAIJ, 20, PETSC_FALSE, &Dref));
    PetscCall(CheckGraphs(D, Dref, PETSC_TRUE, rnd));
    PetscCall(Check(D, Dref, rnd, "processes without off-diagonal columns"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dref));
    PetscCall(CreateDecoupled(type, 20, PETSC_TRUE, &D));
    PetscCall(CreateDecoupled(MATAIJ, 20, PETSC_TRUE, &Dref));
    PetscCall(Check(D, Dref, rnd, "processes coupled one way"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&Dref));
  }
  { /* a product's result (with a GPU an aijcusparse matrix, as GAMG's first coarse operator: on one
       process its graph is ours, on the device) */
    Mat C, Cref;

    PetscCall(MatMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
    PetscCall(MatMatMult(Aref, Aref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Cref));
    PetscCall(CheckGraphs(C, Cref, PETSC_FALSE, rnd));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cref));
  }
  { /* with vectors of A's type (CUDA ones with a GPU: scaled on the device), both sides, then each alone */
    Vec ld, rd;

    PetscCall(MatCreateVecs(A, &rd, &ld));
    PetscCall(VecCopy(l, ld));
    PetscCall(VecCopy(r, rd));
    PetscCall(MatDiagonalScale(A, ld, rd));
    PetscCall(MatDiagonalScale(Aref, l, r));
    PetscCall(Check(A, Aref, rnd, "MatDiagonalScale with A's vectors"));
    PetscCall(MatDiagonalScale(A, ld, NULL));
    PetscCall(MatDiagonalScale(Aref, l, NULL));
    PetscCall(Check(A, Aref, rnd, "MatDiagonalScale with A's vectors, left only"));
    PetscCall(MatDiagonalScale(A, NULL, rd));
    PetscCall(MatDiagonalScale(Aref, NULL, r));
    PetscCall(Check(A, Aref, rnd, "MatDiagonalScale with A's vectors, right only"));
    PetscCall(VecDestroy(&ld));
    PetscCall(VecDestroy(&rd));
  }
  for (int k = 0; k < 2; k++) PetscCall(MatDiagonalSet(M[k], l, INSERT_VALUES));
  PetscCall(Check(A, Aref, rnd, "MatDiagonalSet"));
  {
    PetscInt rows[3] = {rstart, (rstart + rend) / 2, rend - 1};
    for (int k = 0; k < 2; k++) PetscCall(MatZeroRows(M[k], rend > rstart ? 3 : 0, rows, 3.0, NULL, NULL));
    PetscCall(Check(A, Aref, rnd, "MatZeroRows"));
    for (int k = 0; k < 2; k++) {
      PetscCall(MatSetOption(M[k], MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
      rows[0] = rstart + 1;
      PetscCall(MatZeroRows(M[k], rend > rstart + 1 ? 1 : 0, rows, 0.0, NULL, NULL));
    }
    PetscCall(Check(A, Aref, rnd, "MatZeroRows keeping the pattern"));
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatSetOption(M[k], MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
    PetscCall(MatStoreValues(M[k]));
    PetscCall(MatScale(M[k], -3.0));
  }
  PetscCall(Check(A, Aref, rnd, "MatScale after MatStoreValues"));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatRetrieveValues(M[k]));
    PetscCall(MatSetOption(M[k], MAT_NEW_NONZERO_LOCATIONS, PETSC_TRUE));
  }
  PetscCall(Check(A, Aref, rnd, "MatRetrieveValues"));

  PetscCall(CreateOperator(MATAIJ, n, &X));
  PetscCall(MatScale(X, 0.3));
  for (int k = 0; k < 2; k++) PetscCall(MatAXPY(M[k], TestScalar(0.7, 0.3), X, SUBSET_NONZERO_PATTERN));
  PetscCall(Check(A, Aref, rnd, "MatAXPY"));
  { /* X of A's type whose off-diagonal block is empty (GAMG's tentative prolongator from our aggregates
       on several processes): ours adds the diagonal blocks on the device */
    Mat      D[2];
    PetscInt rstart, rend;

    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    for (int k = 0; k < 2; k++) {
      PetscCall(MatCreate(PETSC_COMM_WORLD, &D[k]));
      PetscCall(MatSetSizes(D[k], rend - rstart, rend - rstart, n * n, n * n));
      PetscCall(MatSetType(D[k], k ? MATAIJ : type));
      PetscCall(MatSeqAIJSetPreallocation(D[k], 2, NULL));
      PetscCall(MatMPIAIJSetPreallocation(D[k], 2, NULL, 0, NULL));
      for (PetscInt r = rstart; r < rend; r++) {
        PetscCall(MatSetValue(D[k], r, r, 1.0 + 0.01 * r, INSERT_VALUES));
        if (r + 1 < rend && r % n < n - 1) PetscCall(MatSetValue(D[k], r, r + 1, -0.5, INSERT_VALUES)); /* within the diagonal block, in A's pattern */
      }
      PetscCall(MatAssemblyBegin(D[k], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(D[k], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAXPY(M[k], TestScalar(-0.4, 0.1), D[k], SUBSET_NONZERO_PATTERN));
    }
    PetscCall(Check(A, Aref, rnd, "MatAXPY of a block-diagonal matrix"));
    for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&D[k]));
  }
  for (int k = 0; k < 2; k++) { /* X of Y's type and pattern: aijcusparse's cuBLAS AXPY, or ours past its count */
    Mat Y;

    PetscCall(MatDuplicate(M[k], MAT_COPY_VALUES, &Y));
    PetscCall(MatAXPY(M[k], TestScalar(0.5, -0.2), Y, SAME_NONZERO_PATTERN));
    PetscCall(MatDestroy(&Y));
  }
  PetscCall(Check(A, Aref, rnd, "MatAXPY of a copy, SAME_NONZERO_PATTERN"));
  for (int k = 0; k < 2; k++) PetscCall(MatScale(M[k], 0.0));
  PetscCall(Check(A, Aref, rnd, "MatScale by 0"));
  for (int k = 0; k < 2; k++) PetscCall(MatCopy(X, M[k], SAME_NONZERO_PATTERN));
  PetscCall(Check(A, Aref, rnd, "MatCopy from MATAIJ"));
  for (int k = 0; k < 2; k++) {
    Mat          B;
    PetscScalar *a;
    MatInfo      info;

    PetscCall(LocalBlock(M[k], &B));
    PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
    PetscCall(MatSeqAIJGetArray(B, &a));
    for (PetscInt i = 0; i < (PetscInt)info.nz_used; i++) a[i] = a[i] * 1.25 + (PetscReal)(i % 5);
    PetscCall(MatSeqAIJRestoreArray(B, &a));
  }
  PetscCall(Check(A, Aref, rnd, "MatSeqAIJGetArray/RestoreArray"));
  for (int k = 0; k < 2; k++) {
    Mat          B;
    PetscScalar *a;
    MatInfo      info;

    PetscCall(LocalBlock(M[k], &B));
    PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
    PetscCall(MatSeqAIJGetArrayWrite(B, &a));
    for (PetscInt i = 0; i < (PetscInt)info.nz_used; i++) a[i] = 1.0 + (PetscReal)(i % 11);
    PetscCall(MatSeqAIJRestoreArrayWrite(B, &a));
  }
  PetscCall(Check(A, Aref, rnd, "MatSeqAIJGetArrayWrite/RestoreArrayWrite"));
  for (int k = 0; k < 2; k++) { /* new nonzero locations: the structure changes */
    PetscCall(MatSetOption(M[k], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    for (PetscInt row = rstart; row < rend; row += 5) {
      PetscInt    col = (row * 17 + 3) % (n * n);
      PetscScalar v   = -0.75;
      PetscCall(MatSetValues(M[k], 1, &row, 1, &col, &v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(M[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[k], MAT_FINAL_ASSEMBLY));
  }
  PetscCall(Check(A, Aref, rnd, "new nonzero pattern"));
  /* a setting made by a call, not an option: MatAXPY's new matrix (MatHeaderMerge) must keep it */
  PetscCall(MatSpmvSetColumnOrder(A, MAT_SPMV_COLUMN_ORDER_NATURAL));
  for (int k = 0; k < 2; k++) { /* twice in a row: the second replaces insides nothing has used yet */
    PetscCall(MatAXPY(M[k], -1.0, X, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(M[k], -0.5, X, DIFFERENT_NONZERO_PATTERN));
  }
  PetscCall(Check(A, Aref, rnd, "MatAXPY with a different pattern"));
  {
    MatSpmvColumnOrder order;

    PetscCall(MatSpmvGetColumnOrder(A, &order));
    PetscCheck(order == MAT_SPMV_COLUMN_ORDER_NATURAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatAXPY with a different pattern lost the column order MatSpmvSetColumnOrder() set: %s", MatSpmvColumnOrders[order]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok MatAXPY with a different pattern keeps MatSpmvSetColumnOrder()'s order\n"));
    for (int t = 0; t < 2; t++) { /* an in-place transpose also replaces A's insides; twice gives A back */
      for (int k = 0; k < 2; k++) PetscCall(MatTranspose(M[k], MAT_INPLACE_MATRIX, &M[k]));
      PetscCall(Check(A, Aref, rnd, t ? "in-place MatTranspose, twice" : "in-place MatTranspose"));
      PetscCall(MatSpmvGetColumnOrder(A, &order));
      PetscCheck(order == MAT_SPMV_COLUMN_ORDER_NATURAL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "An in-place MatTranspose lost the column order MatSpmvSetColumnOrder() set: %s", MatSpmvColumnOrders[order]);
    }
  }
  { /* MatAXPY's new matrix replaced A's insides (MatHeaderMerge): products with A must still work.
       Compared by MatMult with the result's own vectors (tests/test_compose checks every product of
       the results, with host vectors too) */
    Mat       AtA, AtAref;
    Vec       x, y, xref, yref;
    PetscReal err, nrm;

    PetscCall(MatTransposeMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &AtA));
    PetscCall(MatTransposeMatMult(Aref, Aref, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &AtAref));
    PetscCall(MatCreateVecs(AtAref, &xref, &yref));
    PetscCall(MatCreateVecs(AtA, &x, &y));
    PetscCall(VecSetRandom(xref, rnd));
    PetscCall(VecCopy(xref, x));
    PetscCall(MatMult(AtAref, xref, yref));
    PetscCall(MatMult(AtA, x, y));
    PetscCall(VecAXPY(y, -1.0, yref));
    PetscCall(VecNorm(y, NORM_INFINITY, &err));
    PetscCall(VecNorm(yref, NORM_INFINITY, &nrm));
    PetscCheck(err <= 1e-10 * nrm, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "A^T A after MatAXPY with a different pattern differs from MATAIJ's by %g (|A^T A x| = %g)", (double)err, (double)nrm);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok A^T A after MatAXPY with a different pattern\n"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&xref));
    PetscCall(VecDestroy(&yref));
    PetscCall(MatDestroy(&AtA));
    PetscCall(MatDestroy(&AtAref));
  }
  for (int k = 0; k < 2; k++) PetscCall(MatZeroEntries(M[k]));
  PetscCall(Check(A, Aref, rnd, "MatZeroEntries"));
  for (int k = 0; k < 2; k++) PetscCall(FillOperator(M[k], n));
  PetscCall(Check(A, Aref, rnd, "refilled after MatZeroEntries"));
  { /* MatShift where a row has no diagonal entry: the entry is inserted (the host's function) */
    Mat      S[2];
    PetscInt lo, hi, N;

    for (int k = 0; k < 2; k++) {
      PetscCall(MatCreate(PETSC_COMM_WORLD, &S[k]));
      PetscCall(MatSetSizes(S[k], PETSC_DECIDE, PETSC_DECIDE, 40, 40));
      PetscCall(MatSetType(S[k], k ? MATAIJ : type));
      PetscCall(MatSeqAIJSetPreallocation(S[k], 3, NULL));
      PetscCall(MatMPIAIJSetPreallocation(S[k], 3, NULL, 3, NULL));
      PetscCall(MatGetOwnershipRange(S[k], &lo, &hi));
      PetscCall(MatGetSize(S[k], &N, NULL));
      for (PetscInt row = lo; row < hi; row++) { /* row 7 has no diagonal entry */
        PetscInt    cols[2] = {row, (row + 1) % N};
        PetscScalar v[2]    = {4.0, -1.0};

        PetscCall(MatSetValues(S[k], 1, &row, row == 7 ? 1 : 2, row == 7 ? cols + 1 : cols, row == 7 ? v + 1 : v, INSERT_VALUES));
      }
      PetscCall(MatAssemblyBegin(S[k], MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(S[k], MAT_FINAL_ASSEMBLY));
    }
    PetscCall(Check(S[0], S[1], rnd, "a row without its diagonal entry"));
    for (int k = 0; k < 2; k++) PetscCall(MatShift(S[k], 2.0));
    PetscCall(Check(S[0], S[1], rnd, "MatShift inserting a diagonal entry"));
    for (int k = 0; k < 2; k++) PetscCall(MatShift(S[k], -0.5));
    PetscCall(Check(S[0], S[1], rnd, "MatShift again, every diagonal entry there"));
    for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&S[k]));
  }
  {
    Mat     D, C;
    MatType ta, td;

    PetscCall(MatGetType(A, &ta));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
    PetscCall(MatGetType(D, &td));
    PetscCall(PetscObjectTypeCompare((PetscObject)D, ta, &same));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatDuplicate gave %s, not %s", td, ta);
    PetscCall(Check(D, Aref, rnd, "MatDuplicate"));
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)C, MATAIJ, &same));
    PetscCall(CheckProducts(C, Aref, rnd, "MatConvert to MATAIJ"));
    PetscCall(MatConvert(D, MATAIJ, MAT_INPLACE_MATRIX, &D));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)D, &same, MATSEQAIJ, MATMPIAIJ, ""));
    PetscCall(MatGetType(D, &td));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "In-place MatConvert to MATAIJ gave %s", td);
    PetscCall(CheckProducts(D, Aref, rnd, "in-place MatConvert to MATAIJ"));
    PetscCall(MatConvert(D, type, MAT_INPLACE_MATRIX, &D));
    PetscCall(PetscObjectTypeCompare((PetscObject)D, ta, &same));
    PetscCall(MatGetType(D, &td));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "In-place MatConvert back gave %s", td);
    PetscCall(Check(D, Aref, rnd, "in-place MatConvert from MATAIJ"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&C));
  }
  /* bound to the CPU, values changed there, unbound: the device copy must not be used as it was */
  for (int k = 0; k < 2; k++) PetscCall(MatBindToCPU(M[k], PETSC_TRUE));
  PetscCall(CheckProducts(A, Aref, rnd, "bound to the CPU"));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatScale(M[k], 1.75));
    if (rend > rstart) {
      PetscScalar v = 2.0;
      PetscCall(MatSetValues(M[k], 1, &rstart, 1, &rstart, &v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(M[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatBindToCPU(M[k], PETSC_FALSE));
  }
  PetscCall(Check(A, Aref, rnd, "values changed while bound to the CPU, then unbound"));
  /* zeros made on the host, values then changed on the device (MatScale): MatEliminateZeros must
     compact current values, and the device pattern must follow */
  {
    PetscInt rows[2] = {rstart, rend - 1};
    for (int k = 0; k < 2; k++) {
      PetscCall(MatSetOption(M[k], MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
      PetscCall(MatZeroRows(M[k], rend - rstart > 1 ? 2 : 0, rows, 5.0, NULL, NULL));
    }
  }
  PetscCall(Check(A, Aref, rnd, "zeros kept in the pattern"));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatScale(M[k], -1.25));
    PetscCall(MatEliminateZeros(M[k], PETSC_TRUE));
  }
  PetscCall(Check(A, Aref, rnd, "MatEliminateZeros after a MatScale"));
  { /* the transpose is a matrix of A's type, first and reused */
    Mat     T, Tref;
    MatType ta, tt;

    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatTranspose(Aref, MAT_INITIAL_MATRIX, &Tref));
    PetscCall(MatGetType(A, &ta));
    PetscCall(MatGetType(T, &tt));
    PetscCall(PetscObjectTypeCompare((PetscObject)T, ta, &same));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatTranspose gave %s, not %s", tt, ta);
    PetscCall(Check(T, Tref, rnd, "MatTranspose"));
    for (int k = 0; k < 2; k++) PetscCall(MatScale(M[k], 0.5));
    PetscCall(MatTranspose(A, MAT_REUSE_MATRIX, &T));
    PetscCall(MatTranspose(Aref, MAT_REUSE_MATRIX, &Tref));
    PetscCall(Check(T, Tref, rnd, "MatTranspose reused after a change of values"));
    PetscCall(MatDestroy(&T));
    PetscCall(MatDestroy(&Tref));
  }
  { /* COO assembly: the type's blocks come from MatSetPreallocationCOO(), values from MatSetValuesCOO() */
    Mat          C;
    PetscInt    *ci, *cj, ncoo = 0, nz;
    PetscScalar *cv;
    MatInfo      info;

    PetscCall(MatGetInfo(Aref, MAT_LOCAL, &info));
    PetscCall(PetscMalloc3((PetscInt)info.nz_used, &ci, (PetscInt)info.nz_used, &cj, (PetscInt)info.nz_used, &cv));
    for (PetscInt row = rstart; row < rend; row++) {
      const PetscInt    *cols;
      const PetscScalar *vals;

      PetscCall(MatGetRow(Aref, row, &nz, &cols, &vals));
      for (PetscInt k = 0; k < nz; k++) ci[ncoo] = row, cj[ncoo] = cols[k], cv[ncoo++] = vals[k];
      PetscCall(MatRestoreRow(Aref, row, &nz, &cols, &vals));
    }
    PetscCall(MatCreate(PETSC_COMM_WORLD, &C));
    PetscCall(MatSetSizes(C, rend - rstart, rend - rstart, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(C, type));
    PetscCall(MatSetPreallocationCOO(C, ncoo, ci, cj));
    PetscCall(MatSetValuesCOO(C, cv, INSERT_VALUES));
    PetscCall(Check(C, Aref, rnd, "COO assembly"));
    for (PetscInt k = 0; k < ncoo; k++) cv[k] *= -2.0;
    PetscCall(MatSetValuesCOO(C, cv, INSERT_VALUES));
    PetscCall(MatScale(Aref, -2.0));
    PetscCall(Check(C, Aref, rnd, "MatSetValuesCOO again"));
    PetscCall(MatDestroy(&C));
    PetscCall(PetscFree3(ci, cj, cv));
  }
  {
    MatType ta;
    PetscCall(MatGetType(A, &ta));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all operations passed for %s\n", ta));
  }
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

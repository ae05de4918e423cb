static char help[] = "MatSOR benchmark: one symmetric sweep (PCSOR's, zero initial guess) by each matrix type, per sweep,\n"
                     "checked against MATAIJ's point SOR. aijcusparse's is PETSc's host SOR with the copies it makes.\n"
                     "  -matrix <lap2d|lap3d|ex19|fem3d>  2D 5-point, 3D 7-point, 2D 5-point with 4 coupled fields (SNES ex19's\n"
                     "                  Jacobian), 3D 27-point (a Q1 finite-element operator)\n"
                     "  -n <N>          grid points per direction (lap2d 1025, lap3d 128, ex19 513, fem3d 96)\n"
                     "  -types <list>   comma-separated types (default aij,aijcusparse,brc); aij: PETSc's CPU SOR (inodes as\n"
                     "                  PETSc uses them: block sweeps for ex19)\n"
                     "  -reps <20>      timed sweeps per type\n";

#include <petscspmv.h>
#include <petsctime.h>
#include "stencil.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

/* values between vectors of different types (host, CUDA) */
static PetscErrorCode CopyValues(Vec from, Vec to)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetArrayRead(from, &a));
  PetscCall(VecGetArrayWrite(to, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayWrite(to, &b));
  PetscCall(VecRestoreArrayRead(from, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Sync(Vec x)
{
  PetscReal norm;

  PetscFunctionBegin;
  PetscCall(VecNorm(x, NORM_1, &norm)); /* waits for the device */
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char         matrix[32] = "lap2d", list[256] = "aij,aijcusparse,brc", *types[16];
  PetscInt     n = -1, reps = 20, m, *ai, *aj, ntypes = 16, dim = 2, dof = 1;
  PetscScalar *aa;
  PetscBool    box = PETSC_FALSE, set;
  Mat          Aref;
  Vec          b, xref;
  PetscRandom  rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", types, &ntypes, &set));
  if (!set) {
    char *s = list;

    ntypes = 0;
    for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) PetscCall(PetscStrallocpy(t, &types[ntypes++]));
  }
  if (!strcmp(matrix, "lap2d")) n = n > 0 ? n : 1025;
  else if (!strcmp(matrix, "lap3d")) dim = 3, n = n > 0 ? n : 128;
  else if (!strcmp(matrix, "ex19")) dof = 4, n = n > 0 ? n : 513;
  else if (!strcmp(matrix, "fem3d")) dim = 3, box = PETSC_TRUE, n = n > 0 ? n : 96;
  else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Unknown -matrix %s: give lap2d, lap3d, ex19 or fem3d", matrix);
  PetscCall(StencilCSR(dim, n, box, dof, &m, &ai, &aj, &aa));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, ai, aj, aa, &Aref));
  PetscCall(MatSetOption(Aref, MAT_USE_INODES, PETSC_FALSE)); /* the reference: point SOR */
  PetscCall(MatCreateVecs(Aref, &xref, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(MatSOR(Aref, b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, xref));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s n=%" PetscInt_FMT ": %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros; one symmetric SOR sweep, zero initial guess\n", matrix, n, m, ai[m]));
  for (PetscInt t = 0; t < ntypes; t++) {
    Mat            A;
    Vec            bt, x, d;
    PetscLogDouble t0, t1;
    PetscReal      err, ref;

    PetscCall(MatConvert(Aref, types[t], MAT_INITIAL_MATRIX, &A));
    if (!strcmp(types[t], "aij")) PetscCall(MatSetOption(A, MAT_USE_INODES, PETSC_TRUE));
    PetscCall(MatCreateVecs(A, &x, &bt));
    PetscCall(CopyValues(b, bt));
    PetscCall(MatSOR(A, bt, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, x)); /* plans, loads the kernels */
    PetscCall(Sync(x));
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < reps; r++) PetscCall(MatSOR(A, bt, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, x));
    PetscCall(Sync(x));
    PetscCall(PetscTime(&t1));
    PetscCall(VecDuplicate(xref, &d));
    PetscCall(CopyValues(x, d));
    PetscCall(VecAXPY(d, -1.0, xref));
    PetscCall(VecNorm(d, NORM_INFINITY, &err));
    PetscCall(VecNorm(xref, NORM_INFINITY, &ref));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %-12s %9.3f ms per sweep   max difference from point SOR %.2e%s\n", types[t], 1e3 * (t1 - t0) / (double)reps, (double)(err / ref), !strcmp(types[t], "aij") && dof > 1 ? " (inode block sweeps)" : ""));
    PetscCall(VecDestroy(&d));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&bt));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree(types[t]));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&Aref));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscFree(aa));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

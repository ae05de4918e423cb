static char help[] = "GAMG's products on its own hierarchy: each level's P^T A P and A P by cuSPARSE's SpGEMM (aijcusparse\n"
                     "operands) and by petscspmv's device SpGEMM (the operator as brc), first product (symbolic + numeric)\n"
                     "and numeric alone (MAT_REUSE_MATRIX), the results compared.\n"
                     "  -matrix <lap3d|elast3d>  3D 7-point Laplacian, or 3D 27-point operator of 3 coupled fields with block\n"
                     "                  size 3 and rigid-body near null space (an elasticity-like hierarchy)\n"
                     "  -n <N>          grid points per direction (lap3d 160, elast3d 48)\n"
                     "  -reps <5>       numeric phases timed (the median printed)\n";

#include <petscspmv.h>
#include <petscksp.h>
#include <petsctime.h>
#include <petscdevice.h>
#include "stencil.h"

static PetscErrorCode Sync(void)
{
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CmpDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* seconds of the first product (symbolic + numeric) and the median numeric phase; *C the result */
static PetscErrorCode TimeProduct(Mat A, Mat P, MatProductType type, PetscInt reps, double *first, double *numeric, Mat *C)
{
  PetscLogDouble t0, t1, t[64];

  PetscFunctionBegin;
  PetscCall(Sync());
  PetscCall(PetscTime(&t0));
  if (type == MATPRODUCT_PtAP) PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, C));
  else PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, C));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  *first = t1 - t0;
  reps   = PetscMin(reps, 64);
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(PetscTime(&t0));
    if (type == MATPRODUCT_PtAP) PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, C));
    else PetscCall(MatMatMult(A, P, MAT_REUSE_MATRIX, PETSC_DETERMINE, C));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    t[r] = t1 - t0;
  }
  qsort(t, (size_t)reps, sizeof(double), CmpDouble);
  *numeric = reps ? t[reps / 2] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |C - Cref| / max |Cref| */
static PetscErrorCode Compare(Mat C, Mat Cref, PetscReal *rel)
{
  Mat       D;
  PetscReal err, ref;

  PetscFunctionBegin;
  PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatAXPY(D, -1.0, Cref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_MAX, &err));
  PetscCall(MatNorm(Cref, NORM_MAX, &ref));
  PetscCall(MatDestroy(&D));
  *rel = ref > 0 ? err / ref : err;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char         matrix[16] = "lap3d";
  PetscBool    elast;
  PetscInt     n = 0, reps = 5, m, *ai, *aj, dof, nlev;
  PetscScalar *aa;
  Mat          A0, A;
  KSP          ksp;
  PC           pc;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscStrcmp(matrix, "elast3d", &elast));
  if (!n) n = elast ? 48 : 160;
  dof = elast ? 3 : 1;
  PetscCall(StencilCSR(3, n, elast, dof, &m, &ai, &aj, &aa));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, ai, aj, aa, &A0));
  PetscCall(MatSetBlockSize(A0, dof));
  PetscCall(MatConvert(A0, MATBRC, MAT_INITIAL_MATRIX, &A));
  if (elast) { /* rigid-body modes from the grid's coordinates */
    Vec          coords;
    PetscScalar *c;
    MatNullSpace ns;

    PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &coords));
    PetscCall(VecSetBlockSize(coords, 3));
    PetscCall(VecGetArray(coords, &c));
    for (PetscInt p = 0; p < m / 3; p++) {
      c[3 * p]     = (PetscScalar)(p % n);
      c[3 * p + 1] = (PetscScalar)((p / n) % n);
      c[3 * p + 2] = (PetscScalar)(p / (n * n));
    }
    PetscCall(VecRestoreArray(coords, &c));
    PetscCall(MatNullSpaceCreateRigidBody(coords, &ns));
    PetscCall(MatSetNearNullSpace(A, ns));
    PetscCall(MatNullSpaceDestroy(&ns));
    PetscCall(VecDestroy(&coords));
  }
  /* GAMG's hierarchy with PETSc's defaults */
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCMGGetLevels(pc, &nlev));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s n %" PetscInt_FMT ": %" PetscInt_FMT " rows, %" PetscInt_FMT " levels; seconds, cuSPARSE (aijcusparse operands) / petscspmv (brc operator)\n", matrix, n, m, nlev));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "level  rows      P cols   C entries | PtAP first           numeric             | A P first            numeric             | rel. diff\n"));
  for (PetscInt l = nlev - 1; l > 0; l--) {
    Mat            Al, Pl, Ac, Pc, Ao, C[2][2];
    KSP            smoother;
    double         first[2][2], num[2][2];
    PetscReal      rel[2];
    MatInfo        info;
    PetscInt       rows, cols;
    MatProductType types[2] = {MATPRODUCT_PtAP, MATPRODUCT_AB};

    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetOperators(smoother, &Al, NULL));
    PetscCall(PCMGGetInterpolation(pc, l, &Pl));
    /* plain aijcusparse copies (no petscspmv hooks): cuSPARSE's products; the operator as brc: ours */
    PetscCall(MatConvert(Al, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ac));
    PetscCall(MatConvert(Pl, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Pc));
    PetscCall(MatConvert(Ac, MATBRC, MAT_INITIAL_MATRIX, &Ao));
    for (int t = 0; t < 2; t++) {
      PetscCall(TimeProduct(Ac, Pc, types[t], reps, &first[t][0], &num[t][0], &C[t][0]));
      PetscCall(TimeProduct(Ao, Pc, types[t], reps, &first[t][1], &num[t][1], &C[t][1]));
      PetscCall(Compare(C[t][1], C[t][0], &rel[t]));
    }
    PetscCall(MatGetInfo(C[0][1], MAT_LOCAL, &info));
    PetscCall(MatGetLocalSize(Al, &rows, NULL));
    PetscCall(MatGetLocalSize(Pl, NULL, &cols));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%5" PetscInt_FMT "  %-9" PetscInt_FMT " %-8" PetscInt_FMT " %-9.0f | %.4f / %.4f %5.1fx | %.4f / %.4f %5.1fx | %.4f / %.4f %5.1fx | %.4f / %.4f %5.1fx | %.1e %.1e\n", l, rows, cols, info.nz_used, first[0][0], first[0][1], first[0][0] / first[0][1], num[0][0], num[0][1], num[0][0] / num[0][1], first[1][0], first[1][1], first[1][0] / first[1][1], num[1][0], num[1][1], num[1][0] / num[1][1], (double)rel[0], (double)rel[1]));
    for (int t = 0; t < 2; t++)
      for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&C[t][k]));
    PetscCall(MatDestroy(&Ao));
    PetscCall(MatDestroy(&Pc));
    PetscCall(MatDestroy(&Ac));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&A0));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscFree(aa));
  PetscCall(PetscFinalize());
  return 0;
}

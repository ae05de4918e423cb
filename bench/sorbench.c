static char help[] = "MatSOR benchmark: one symmetric sweep (PCSOR's, zero initial guess) by each matrix type, per sweep,\n"
                     "checked against MATAIJ's point SOR. aijcusparse's is PETSc's host SOR with the copies it makes.\n"
                     "  -matrix <lap2d|lap3d|ex19|fem3d>  2D 5-point, 3D 7-point, 2D 5-point with 4 coupled fields (SNES ex19's\n"
                     "                  Jacobian), 3D 27-point (a Q1 finite-element operator)\n"
                     "  -n <N>          grid points per direction (lap2d 1025, lap3d 128, ex19 513, fem3d 96)\n"
                     "  -types <list>   comma-separated types (default aij,aijcusparse,brc); aij: PETSc's CPU SOR (inodes as\n"
                     "                  PETSc uses them: block sweeps for ex19)\n"
                     "  -reps <20>      timed sweeps per type\n"
                     "  -sweep          instead: 2D 5- and 9-point, 3D 7- and 27-point stencils, 1-4 unknowns a node, 33^2 to\n"
                     "                  4097^2 and 17^3 to 257^3 (up to -max_nonzeros, default 1.2e8), brc with CUDA vectors: per\n"
                     "                  size a MatSOR() call of a symmetric sweep on the device (-petscspmv_sor_device 1), on the host\n"
                     "                  with the copies its vectors make (-petscspmv_sor_device 0) and by the default's choice, with\n"
                     "                  the cost model's prediction; one line each, for bench/sor-fit.py\n";

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

/* one MatSOR() call as a smoother makes it: b fresh on the device (a residual), x read there after
   (the next product): the copies of the host path are counted */
static PetscErrorCode SmootherCall(Mat A, Vec b, Vec x)
{
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)b, VECSEQCUDA, &cuda));
#if defined(PETSC_HAVE_CUDA)
  PetscScalar *a;

  if (cuda) {
    PetscCall(VecCUDAGetArray(b, &a));
    PetscCall(VecCUDARestoreArray(b, &a));
  }
#endif
  PetscCall(MatSOR(A, b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, x));
#if defined(PETSC_HAVE_CUDA)
  if (cuda) {
    PetscCall(VecCUDAGetArray(x, &a));
    PetscCall(VecCUDARestoreArray(x, &a));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ms per call of A (type brc, options prefix pre: its -petscspmv_sor_device), at least 2 calls and 0.1 s
   after an untimed one (plan, kernels); the path's line of -mat_view in view */
static PetscErrorCode TimeSOR(Mat Aref, const char *pre, Vec b0, double *ms, char *view, size_t len)
{
  Mat            A;
  Vec            b, x;
  PetscLogDouble t0, t1;
  PetscInt       reps                   = 0;
  PetscErrorCode (*f)(Mat, PetscViewer) = NULL;

  PetscFunctionBegin;
  PetscCall(MatConvert(Aref, "brc", MAT_INITIAL_MATRIX, &A));
  PetscCall(MatSetOptionsPrefix(A, pre));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(CopyValues(b0, b));
  PetscCall(SmootherCall(A, b, x));
  PetscCall(Sync(x));
  PetscCall(PetscTime(&t0));
  do {
    PetscCall(SmootherCall(A, b, x));
    PetscCall(Sync(x));
    PetscCall(PetscTime(&t1));
    reps++;
  } while (reps < 2 || (t1 - t0 < 0.1 && reps < 200));
  *ms     = 1e3 * (t1 - t0) / (double)reps;
  view[0] = 0;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSpmvSORView_C", &f));
  if (f) {
    PetscViewer v;

    PetscCall(PetscViewerStringOpen(PETSC_COMM_SELF, view, len, &v));
    PetscCall((*f)(A, v));
    PetscCall(PetscViewerDestroy(&v));
    for (char *c = view; *c; c++)
      if (*c == '\n') *c = ' ';
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Sweep(PetscReal maxnnz)
{
  const struct {
    const char *name;
    PetscInt    dim;
    PetscBool   box;
  } stencils[4] = {
    {"2d5",  2, PETSC_FALSE},
    {"2d9",  2, PETSC_TRUE },
    {"3d7",  3, PETSC_FALSE},
    {"3d27", 3, PETSC_TRUE }
  };
  const PetscInt n2[] = {33, 65, 129, 257, 513, 1025, 2049, 4097}, n3[] = {17, 33, 65, 129, 257};

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-dev_petscspmv_sor_device", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-host_petscspmv_sor_device", "0"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "One MatSOR() call of a symmetric sweep (zero guess) on brc, CUDA vectors, b fresh on the device and x read there after: ms per call\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-5s %3s %5s %10s %11s %9s %9s %9s %-7s %6s  %s\n", "grid", "dof", "n", "rows", "nonzeros", "device", "host", "default", "chose", "loss", "the default's reason"));
  for (int s = 0; s < 4; s++)
    for (PetscInt dof = 1; dof <= 4; dof++) {
      const PetscInt *ns = stencils[s].dim == 2 ? n2 : n3, nn = stencils[s].dim == 2 ? 8 : 5;

      for (PetscInt k = 0; k < nn; k++) {
        const PetscInt n   = ns[k];
        const double   pts = stencils[s].dim == 2 ? (double)n * n : (double)n * n * n;
        PetscInt       m, *ai, *aj;
        PetscScalar   *aa;
        Mat            Aref;
        Vec            b;
        PetscRandom    rnd;
        double         tdev, thost, tauto;
        char           vdev[512], vhost[512], vauto[512];
        PetscBool      ondev;

        if (pts * dof * dof * (stencils[s].box ? (stencils[s].dim == 2 ? 9 : 27) : 2 * stencils[s].dim + 1) > maxnnz) continue;
        PetscCall(StencilCSR(stencils[s].dim, n, stencils[s].box, dof, &m, &ai, &aj, &aa));
        PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, ai, aj, aa, &Aref));
        PetscCall(MatCreateVecs(Aref, NULL, &b));
        PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
        PetscCall(VecSetRandom(b, rnd));
        PetscCall(TimeSOR(Aref, "dev_", b, &tdev, vdev, sizeof(vdev)));
        PetscCall(TimeSOR(Aref, "host_", b, &thost, vhost, sizeof(vhost)));
        PetscCall(TimeSOR(Aref, NULL, b, &tauto, vauto, sizeof(vauto)));
        ondev = (PetscBool)!strncmp(vauto, "MatSOR() on the device", 22);
        /* loss: the default's path's time over the faster path's (each path timed on its own matrix) */
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-5s %3" PetscInt_FMT " %5" PetscInt_FMT " %10" PetscInt_FMT " %11" PetscInt_FMT " %9.3f %9.3f %9.3f %-7s %5.0f%%  %s\n", stencils[s].name, dof, n, m, ai[m], tdev, thost, tauto, ondev ? "device" : "host", 100.0 * ((ondev ? tdev : thost) / PetscMin(tdev, thost) - 1.0), vauto));
        PetscCall(PetscRandomDestroy(&rnd));
        PetscCall(VecDestroy(&b));
        PetscCall(MatDestroy(&Aref));
        PetscCall(PetscFree(ai));
        PetscCall(PetscFree(aj));
        PetscCall(PetscFree(aa));
      }
    }
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
  PetscCall(PetscOptionsHasName(NULL, NULL, "-sweep", &set));
  if (set) {
    PetscReal maxnnz = 1.2e8;

    PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_nonzeros", &maxnnz, NULL));
    PetscCall(Sweep(maxnnz));
    PetscCall(PetscFinalize());
    return 0;
  }
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

static char help[] = "GAMG's products on its own hierarchy: each level's P^T A P and A P by cuSPARSE's SpGEMM (aijcusparse\n"
                     "operands) and by petscspmv's device SpGEMM (the operator as brc): symbolic phase, first numeric phase,\n"
                     "numeric phase alone (the median of -reps, new values of the same pattern), peak device memory over the\n"
                     "symbolic and first numeric phases (a thread polling cudaMemGetInfo()), the results compared.\n"
                     "  -matrix <lap3d|elast3d>  3D 7-point Laplacian, or 3D 27-point operator of 3 coupled fields with block\n"
                     "                  size 3 and rigid-body near null space (an elasticity-like hierarchy)\n"
                     "  -n <N>          grid points per direction (lap3d 160, elast3d 48)\n"
                     "  -reps <5>       numeric phases timed (the median printed)\n";

#include <petscspmv.h>
#include <petscksp.h>
#include <petsctime.h>
#include "stencil.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include <pthread.h>
  #include <unistd.h>

#endif

#if defined(PETSC_HAVE_CUDA)
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

/* the least free device memory seen while it runs (every 100 us) */
typedef struct {
  volatile int run;
  int          device;
  size_t       minfree;
  pthread_t    thread;
} MemPoll;

static void *MemPollLoop(void *arg)
{
  MemPoll *p = (MemPoll *)arg;

  (void)cudaSetDevice(p->device);
  while (p->run) {
    size_t free, total;

    if (cudaMemGetInfo(&free, &total) == cudaSuccess && free < p->minfree) p->minfree = free;
    usleep(100);
  }
  return NULL;
}

static PetscErrorCode MemPollStart(MemPoll *p, size_t *free0)
{
  size_t total;

  PetscFunctionBegin;
  PetscCall(Sync());
  PetscCallCUDA(cudaGetDevice(&p->device));
  PetscCallCUDA(cudaMemGetInfo(free0, &total));
  p->minfree = *free0;
  p->run     = 1;
  PetscCheck(!pthread_create(&p->thread, NULL, MemPollLoop, p), PETSC_COMM_SELF, PETSC_ERR_SYS, "pthread_create() failed");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MemPollStop(MemPoll *p, size_t free0, double *peakmib)
{
  size_t free, total;

  PetscFunctionBegin;
  PetscCall(Sync());
  p->run = 0;
  PetscCheck(!pthread_join(p->thread, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "pthread_join() failed");
  PetscCallCUDA(cudaMemGetInfo(&free, &total));
  if (free < p->minfree) p->minfree = free;
  *peakmib = (double)(free0 - p->minfree) / 1048576.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one product's phases: seconds of the symbolic phase, the first numeric phase and the median of reps
   numeric phases, and the device memory it took at its peak (MiB, over the first two); *C the result */
typedef struct {
  double symbolic, first, numeric, peak;
} ProductTimes;

static PetscErrorCode TimeProduct(Mat A, Mat P, MatProductType type, PetscInt reps, ProductTimes *pt, Mat *C)
{
  PetscLogDouble t0, t1, t2, t[64];
  MemPoll        poll;
  size_t         free0;

  PetscFunctionBegin;
  PetscCall(MatProductCreate(A, P, NULL, C));
  PetscCall(MatProductSetType(*C, type));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MemPollStart(&poll, &free0));
  PetscCall(PetscTime(&t0));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  PetscCall(MatProductNumeric(*C));
  PetscCall(Sync());
  PetscCall(PetscTime(&t2));
  PetscCall(MemPollStop(&poll, free0, &pt->peak));
  pt->symbolic = t1 - t0;
  pt->first    = t2 - t1;
  reps         = PetscMin(reps, 64);
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(MatScale(A, 1.0 + 1e-3 * (PetscReal)(r % 2 ? -1 : 1))); /* new values, the same pattern */
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(MatProductNumeric(*C));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    t[r] = t1 - t0;
  }
  if (reps % 2) PetscCall(MatScale(A, 1.0 / (1.0 + 1e-3))); /* A as it was */
  qsort(t, (size_t)reps, sizeof(double), CmpDouble);
  pt->numeric = reps ? t[reps / 2] : 0;
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

#endif

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
#if !defined(PETSC_HAVE_CUDA)
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "spgemmbench compares products on a GPU: this PETSc has no CUDA\n"));
  PetscCall(PetscFinalize());
  return 0;
#else
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
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "level  rows      P cols   C entries  product: symbolic, first numeric, numeric alone (s), peak MiB: cuSPARSE / ours (ratio)   rel. diff\n"));
  for (PetscInt l = nlev - 1; l > 0; l--) {
    Mat            Al, Pl, Ac, Pc, Ao, C[2];
    KSP            smoother;
    ProductTimes   pt[2];
    PetscReal      rel = 0;
    MatInfo        info;
    PetscInt       rows, cols;
    MatProductType types[2] = {MATPRODUCT_PtAP, MATPRODUCT_AB};

    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetOperators(smoother, &Al, NULL));
    PetscCall(PCMGGetInterpolation(pc, l, &Pl));
    PetscCall(MatGetLocalSize(Al, &rows, NULL));
    PetscCall(MatGetLocalSize(Pl, NULL, &cols));
    /* plain aijcusparse copies (no petscspmv hooks): cuSPARSE's products; the operator as brc: ours */
    PetscCall(MatConvert(Al, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ac));
    PetscCall(MatConvert(Pl, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Pc));
    PetscCall(MatConvert(Ac, MATBRC, MAT_INITIAL_MATRIX, &Ao));
    for (int t = 0; t < 2; t++) {
      PetscCall(TimeProduct(Ac, Pc, types[t], reps, &pt[0], &C[0]));
      PetscCall(TimeProduct(Ao, Pc, types[t], reps, &pt[1], &C[1]));
      PetscCall(Compare(C[1], C[0], &rel));
      PetscCall(MatGetInfo(C[1], MAT_LOCAL, &info));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%5" PetscInt_FMT "  %-9" PetscInt_FMT " %-8" PetscInt_FMT " %-10.0f %-5s %.4f / %.4f (%.1fx), %.4f / %.4f (%.1fx), %.4f / %.4f (%.1fx), %.0f / %.0f   %.1e\n", l, rows, cols, info.nz_used, types[t] == MATPRODUCT_PtAP ? "PtAP" : "AP",
                            pt[0].symbolic, pt[1].symbolic, pt[0].symbolic / pt[1].symbolic, pt[0].first, pt[1].first, pt[0].first / pt[1].first, pt[0].numeric, pt[1].numeric, pt[0].numeric / pt[1].numeric, pt[0].peak, pt[1].peak, (double)rel));
      for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&C[k]));
    }
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
#endif
}

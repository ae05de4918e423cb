static char help[] = "Bad input gets a clear PETSc error, and the matrix stays intact.\n"
                     "  -type <brc>  petscspmv type to test\n";

#include <petscspmv.h>
#include "check.h"

static PetscErrorCode Laplacian(MatType type, PetscInt n, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[3] = {i, i - 1, i + 1}, nc = 1 + (i > 0) + (i < n - 1);
    PetscScalar v[3] = {2.0 + i % 3, -1.0, -1.0};
    if (i == 0) c[1] = i + 1;
    PetscCall(MatSetValues(*A, 1, &i, nc, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The call must fail with the given error class; its message goes to the log for the reader */
#define EXPECT_ERROR(call, code) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCheck(ierr_ == (code), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s returned %d, expected %d", #call, (int)ierr_, (int)(code)); \
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s fails with error %d\n", #call, (int)ierr_)); \
  } while (0)

static PetscErrorCode SetFromOptionsWith(Mat A, const char *opt, const char *val)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, opt, val));
  ierr = MatSetFromOptions(A);
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscFunctionReturn(ierr);
}

/* After rejected settings, a valid option gives A exactly the layout of a fresh matrix given the
   same setting through its setter: the rejected values were not stored */
static PetscErrorCode CheckValidOptionAfterRejected(Mat A, Mat Aref, MatType type, const char *opt, const char *val, PetscErrorCode (*setter)(Mat, PetscInt), PetscInt setval, PetscRandom rnd)
{
  Mat            F;
  PetscInt       ns, nsf;
  PetscLogDouble b, bf;

  PetscFunctionBegin;
  PetscCall(SetFromOptionsWith(A, opt, val));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &F));
  PetscCall(setter(F, setval));
  PetscCall(MatSpmvGetStorage(A, &ns, &b));
  PetscCall(MatSpmvGetStorage(F, &nsf, &bf));
  PetscCheck(ns == nsf && b == bf, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Rejected settings changed the layout: %" PetscInt_FMT " slots, expected %" PetscInt_FMT, ns, nsf);
  PetscCall(CheckProducts(A, Aref, rnd, "after a valid option"));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n x n tridiagonal plus one full row (row 0) */
static PetscErrorCode OneLongRow(MatType type, PetscInt n, Mat *A)
{
  PetscInt rstart, rend, mloc = PETSC_DECIDE, N = n, *dnz, *onz;

  PetscFunctionBegin;
  PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &mloc, &N));
  PetscCallMPI(MPI_Scan(&mloc, &rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart = rend - mloc;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, mloc, mloc, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(PetscMalloc2(rend - rstart, &dnz, rend - rstart, &onz));
  for (PetscInt i = rstart; i < rend; i++) { /* the long row's entries in and out of the diagonal block */
    dnz[i - rstart] = i ? 3 : rend - rstart;
    onz[i - rstart] = i ? 2 : n - (rend - rstart);
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[3] = {i - 1, i, i + 1};
    PetscScalar v[3] = {-1.0, 2.5 + i % 4, -1.1};

    if (i == 0) continue;
    PetscCall(MatSetValues(*A, 1, &i, i < n - 1 ? 3 : 2, c, v, INSERT_VALUES));
  }
  if (rstart == 0 && rend > 0) {
    PetscInt     zero = 0, *c;
    PetscScalar *v;

    PetscCall(PetscMalloc2(n, &c, n, &v));
    for (PetscInt j = 0; j < n; j++) c[j] = j, v[j] = 1.0 + (j % 7) * 0.25;
    PetscCall(MatSetValues(*A, 1, &zero, n, c, v, INSERT_VALUES));
    PetscCall(PetscFree2(c, v));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc memory in use (tracked only with -malloc_debug; 0 otherwise, and the check is void) */
static PetscErrorCode MemoryInUse(PetscLogDouble *bytes)
{
  PetscBool debug;

  PetscFunctionBegin;
  *bytes = 0;
  PetscCall(PetscMallocGetDebug(&debug, NULL, NULL));
  if (debug) PetscCall(PetscMallocGetCurrentUsage(bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ELLR pads every row to the longest: a long row among short ones must be refused with
   PETSC_ERR_SUP at the first product, before anything is allocated, leaking nothing and leaving
   the matrix usable (its transpose, whose rows are short, still multiplies); a larger
   -mat_ellr_max_padding then lets it through. On two processes the long row is on the first only:
   both must refuse. A long column is not refused: A^T's layout goes to ipcsr. */
static PetscErrorCode TestELLRPadding(PetscRandom rnd)
{
  Mat            E, Eref, Huge;
  Vec            x, y, xt, yt;
  PetscLogDouble before, after;
  PetscBool      debug;
  PetscInt       rstart;

  PetscFunctionBegin;
  PetscCall(PetscMallocGetDebug(&debug, NULL, NULL));
  PetscCall(OneLongRow(MATELLR, 2000, &E));
  PetscCall(OneLongRow(MATAIJ, 2000, &Eref));
  PetscCall(MatCreateVecs(E, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatGetOwnershipRange(E, &rstart, NULL));
  for (int k = 0; k < 2; k++) { /* the second time the same way: nothing kept from the first */
    PetscCall(MemoryInUse(&before));
    EXPECT_ERROR(MatMult(E, x, y), PETSC_ERR_SUP);
    EXPECT_ERROR(MatMultAdd(E, x, y, y), PETSC_ERR_SUP);
    PetscCall(MemoryInUse(&after));
    /* the first time, a process without the long row keeps the layouts it could build */
    PetscCheck(after == before || (k == 0 && rstart > 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A refused ELLR layout leaked %g bytes", after - before);
  }
  if (debug) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok nothing leaked by the refused builds (-malloc_debug)\n"));
  /* A^T has short rows: its products work while A's are refused */
  PetscCall(MatCreateVecs(E, &yt, &xt));
  PetscCall(VecSet(xt, 1.0));
  PetscCall(MatMultTranspose(E, xt, yt));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt));
  /* raised through the options, the setter, then back to the default: refused again */
  PetscCall(SetFromOptionsWith(E, "-mat_ellr_max_padding", "1000"));
  PetscCall(MatSpmvCheckLayout(E));
  PetscCall(CheckProducts(E, Eref, rnd, "after -mat_ellr_max_padding 1000"));
  PetscCall(MatELLRSetMaxPadding(E, 3.0));
  EXPECT_ERROR(MatMult(E, x, y), PETSC_ERR_SUP);
  PetscCall(MatELLRSetMaxPadding(E, 1000.0));
  PetscCall(CheckProducts(E, Eref, rnd, "after MatELLRSetMaxPadding(E, 1000)"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&E));

  /* the long row as a long column: A's rows are short, A^T's layout (which the user did not choose
     ELLR for) would be refused and goes to ipcsr instead; both products right */
  PetscCall(MatTranspose(Eref, MAT_INPLACE_MATRIX, &Eref));
  PetscCall(MatConvert(Eref, MATELLR, MAT_INITIAL_MATRIX, &E));
  PetscCall(MatSpmvCheckLayout(E));
  PetscCall(CheckProducts(E, Eref, rnd, "a long column: A^T given to ipcsr"));
  { /* MatTranspose() of it has the long row: a new ELLR matrix PETSc derived, given to ipcsr too */
    Mat T, Tref;

    PetscCall(MatTranspose(E, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatTranspose(Eref, MAT_INITIAL_MATRIX, &Tref));
    PetscCall(MatSpmvCheckLayout(T));
    PetscCall(CheckProducts(T, Tref, rnd, "MatTranspose of a long column: a derived operator given to ipcsr"));
    PetscCall(MatDestroy(&T));
    PetscCall(MatDestroy(&Tref));
  }
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&Eref));

  /* the case scaled down: one row of 200000 entries in 200000 rows would ask for 4e10
     slots (640 GB of values and indices); refused at once, even under a limit too large for the
     32-bit indices */
  PetscCall(OneLongRow(MATELLR, 200000, &Huge));
  PetscCall(MatCreateVecs(Huge, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatGetOwnershipRange(Huge, &rstart, NULL));
  PetscCall(MemoryInUse(&before));
  EXPECT_ERROR(MatMult(Huge, x, y), PETSC_ERR_SUP);
  PetscCall(MatELLRSetMaxPadding(Huge, 1e6));
  EXPECT_ERROR(MatMult(Huge, x, y), PETSC_ERR_SUP);
  PetscCall(MemoryInUse(&after));
  PetscCheck(after == before || rstart > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A refused ELLR layout leaked %g bytes", after - before);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&Huge));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC;
  Mat         A, Aref, Plain;
  PetscRandom rnd;
  PetscBool   isbrc, iscmrs, gpu = PETSC_FALSE;
  PetscBool   isargcsr, isipcsr, isellr, isspmv;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(Laplacian(type, 500, &A));
  PetscCall(Laplacian(MATAIJ, 500, &Aref));
  PetscCall(Laplacian(MATAIJ, 50, &Plain));
  PetscCall(CheckProducts(A, Aref, rnd, "before"));

  PetscCall(PetscStrcmp(type, MATBRC, &isbrc));
  if (isbrc) {
    EXPECT_ERROR(MatBRCSetBlockHeight(A, 3), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatBRCSetBlockHeight(A, 512), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatBRCSetBlockWidth(A, -2), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatBRCSetCoarsening(A, 5000), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatBRCSetSortWindow(A, -2), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatBRCSetBlockWidth(Plain, 8), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_brc_b1", "24"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_brc_b2_max", "0"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_brc_coarsen", "-1"), PETSC_ERR_ARG_OUTOFRANGE);
  }
  PetscCall(PetscStrcmp(type, MATCMRS, &iscmrs));
  if (iscmrs) {
    EXPECT_ERROR(MatCMRSSetHeight(A, 0), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatCMRSSetHeight(A, 17), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatCMRSSetHeight(Plain, 2), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_cmrs_height", "32"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_cmrs_lanes", "12"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_cmrs_modulo", "6"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_cmrs_kernel", "fancy"), PETSC_ERR_USER);
    EXPECT_ERROR(MatCMRSSetKernel(A, (MatCMRSKernel)5), PETSC_ERR_ARG_OUTOFRANGE);
  }
  PetscCall(PetscStrcmp(type, MATARGCSR, &isargcsr));
  if (isargcsr) {
    EXPECT_ERROR(MatARGCSRSetChunkSize(A, -1), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatARGCSRSetBlockSize(A, 0), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatARGCSRSetBlockSize(A, 48), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatARGCSRSetBlockSize(A, 2048), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatARGCSRSetChunkSize(Plain, 4), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_argcsr_chunk", "-3"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_argcsr_block", "100"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_argcsr_block", "16"), PETSC_ERR_ARG_OUTOFRANGE);
  }
  PetscCall(PetscStrcmp(type, MATIPCSR, &isipcsr));
  if (isipcsr) {
    EXPECT_ERROR(MatIPCSRSetKernel(A, (MatIPCSRKernel)5), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatIPCSRSetKernel(A, (MatIPCSRKernel)-1), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatIPCSRSetSharedSize(A, -8), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatIPCSRSetSharedSize(A, (PetscInt)sizeof(PetscScalar) - 1), PETSC_ERR_ARG_OUTOFRANGE); /* less than one entry */
    EXPECT_ERROR(MatIPCSRSetSharedSize(A, 232449), PETSC_ERR_ARG_OUTOFRANGE);                            /* more than a block has */
    EXPECT_ERROR(MatIPCSRSetFragmentSize(A, 0), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatIPCSRSetFragmentSize(A, 8193), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatIPCSRSetKernel(Plain, MAT_IPCSR_KERNEL_CSRM), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(MatIPCSRSetSharedSize(Plain, 4096), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(MatIPCSRSetFragmentSize(Plain, 512), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ipcsr_kernel", "fancy"), PETSC_ERR_USER);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ipcsr_shared", "-1"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ipcsr_shared", "3"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ipcsr_shared", "1000000"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ipcsr_fragment", "0"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ipcsr_fragment", "10000"), PETSC_ERR_ARG_OUTOFRANGE);
  }
  if (isbrc) EXPECT_ERROR(MatIPCSRSetFragmentSize(A, 512), PETSC_ERR_ARG_WRONG); /* a petscspmv matrix of another format */
  PetscCall(PetscStrcmp(type, MATELLR, &isellr));
  if (isellr) {
    Mat Other;

    EXPECT_ERROR(MatELLRSetThreadsPerRow(A, 3), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetThreadsPerRow(A, 64), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetThreadsPerRow(A, -1), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetBlockSize(A, 0), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetBlockSize(A, 100), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetBlockSize(A, 2048), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetMaxPadding(A, 0.5), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetMaxPadding(A, -3.0), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetThreadsPerRow(Plain, 2), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(MatELLRSetMaxPadding(Plain, 10.0), PETSC_ERR_ARG_WRONG);
    PetscCall(Laplacian(MATBRC, 50, &Other)); /* another petscspmv type */
    EXPECT_ERROR(MatELLRSetBlockSize(Other, 64), PETSC_ERR_ARG_WRONG);
    EXPECT_ERROR(MatELLRSetMaxPadding(Other, 10.0), PETSC_ERR_ARG_WRONG);
    PetscCall(MatDestroy(&Other));
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ellr_t", "12"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ellr_t", "64"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ellr_block", "48"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ellr_block", "2048"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ellr_max_padding", "0.9"), PETSC_ERR_ARG_OUTOFRANGE);
  }
  PetscCall(PetscStrcmp(type, MATSPMV, &isspmv));
  if (isspmv) {
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_spmv_formats", "brc,fancy"), PETSC_ERR_ARG_UNKNOWN_TYPE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_spmv_formats", "spmv"), PETSC_ERR_ARG_UNKNOWN_TYPE); /* not a candidate of itself */
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_brc_b1", "3"), PETSC_ERR_ARG_OUTOFRANGE);            /* each candidate's options are checked */
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_ellr_t", "12"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatBRCSetBlockHeight(A, 3), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(MatELLRSetMaxPadding(A, 0.5), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_spmv_tune_reps", "0"), PETSC_ERR_ARG_OUTOFRANGE);
    EXPECT_ERROR(SetFromOptionsWith(A, "-mat_spmv_tune_max_time", "-1"), PETSC_ERR_ARG_OUTOFRANGE);
  }
  EXPECT_ERROR(MatSpmvSetColumnOrder(Plain, MAT_SPMV_COLUMN_ORDER_FREQUENCY), PETSC_ERR_ARG_WRONG);
  EXPECT_ERROR(MatSpmvSetColumnOrder(A, (MatSpmvColumnOrder)5), PETSC_ERR_ARG_OUTOFRANGE);
  EXPECT_ERROR(MatSpmvSetBackend(Plain, MAT_SPMV_BACKEND_HOST), PETSC_ERR_ARG_WRONG);
  EXPECT_ERROR(MatSpmvSetBackend(A, (MatSpmvBackend)7), PETSC_ERR_ARG_OUTOFRANGE);
  PetscCall(CheckProducts(A, Aref, rnd, "after rejected settings"));
  if (isbrc) PetscCall(CheckValidOptionAfterRejected(A, Aref, MATBRC, "-mat_brc_b2", "2", MatBRCSetBlockWidth, 2, rnd));
  if (isargcsr) {
    PetscCall(CheckValidOptionAfterRejected(A, Aref, MATARGCSR, "-mat_argcsr_block", "64", MatARGCSRSetBlockSize, 64, rnd));
    /* the largest chunk size is valid: the split threshold chunk x block must not overflow */
    PetscCall(MatARGCSRSetChunkSize(A, PETSC_INT_MAX));
    PetscCall(CheckProducts(A, Aref, rnd, "with the largest chunk size"));
    PetscCall(MatARGCSRSetChunkSize(A, 0));
    PetscCall(CheckProducts(A, Aref, rnd, "back to the automatic chunk size"));
  }
  if (isipcsr) {
    PetscCall(CheckValidOptionAfterRejected(A, Aref, MATIPCSR, "-mat_ipcsr_shared", "64", MatIPCSRSetSharedSize, 64, rnd));
    /* both kernels, the smallest budget (one entry: every row of the Laplacian split) and the largest fragment */
    PetscCall(MatIPCSRSetKernel(A, MAT_IPCSR_KERNEL_IPCSR));
    PetscCall(MatIPCSRSetSharedSize(A, (PetscInt)sizeof(PetscScalar)));
    PetscCall(CheckProducts(A, Aref, rnd, "with a budget of one entry"));
    PetscCall(MatIPCSRSetKernel(A, MAT_IPCSR_KERNEL_CSRM));
    PetscCall(MatIPCSRSetFragmentSize(A, 8192));
    PetscCall(CheckProducts(A, Aref, rnd, "with the largest fragment"));
    PetscCall(MatIPCSRSetKernel(A, MAT_IPCSR_KERNEL_AUTO));
    PetscCall(MatIPCSRSetSharedSize(A, 16384));
    PetscCall(MatIPCSRSetFragmentSize(A, 1024));
    PetscCall(CheckProducts(A, Aref, rnd, "back to the defaults"));
    PetscCall(MatIPCSRSetSharedSize(A, 0));
    PetscCall(CheckProducts(A, Aref, rnd, "with the paper's shared-memory formula"));
  }
  if (isellr) {
    PetscCall(CheckValidOptionAfterRejected(A, Aref, MATELLR, "-mat_ellr_t", "4", MatELLRSetThreadsPerRow, 4, rnd));
    PetscCall(TestELLRPadding(rnd));
  }
  if (!gpu) {
    /* a GPU run asked for where there is none */
    Vec x, y;

    PetscCall(MatSpmvSetBackend(A, MAT_SPMV_BACKEND_CUDA));
    PetscCall(MatCreateVecs(Aref, &x, &y));
    PetscCall(VecSet(x, 1.0));
    EXPECT_ERROR(MatMult(A, x, y), PETSC_ERR_SUP_SYS);
    PetscCall(MatSpmvSetBackend(A, MAT_SPMV_BACKEND_AUTO));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(CheckProducts(A, Aref, rnd, "after a CUDA run was refused"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all bad inputs rejected for %s\n", type));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(MatDestroy(&Plain));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

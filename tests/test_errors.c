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

int main(int argc, char **argv)
{
  char        type[64] = MATBRC;
  Mat         A, Aref, Plain;
  PetscRandom rnd;
  PetscBool   isbrc, iscmrs, gpu = PETSC_FALSE;
  PetscBool   isargcsr, isipcsr;

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
    EXPECT_ERROR(MatBRCSetSortWindow(A, -1), PETSC_ERR_ARG_OUTOFRANGE);
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
    PetscCall(MatIPCSRSetSharedSize(A, 0));
    PetscCall(MatIPCSRSetFragmentSize(A, 1024));
    PetscCall(CheckProducts(A, Aref, rnd, "back to the defaults"));
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

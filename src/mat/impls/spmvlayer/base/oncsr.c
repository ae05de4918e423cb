/*
  Matrices made on host CSR arrays they then own (MatCreateSeqAIJWithArrays() and
  MatCreateMPIAIJWithSplitArrays() leave the arrays to their caller): the arrays composed with the
  matrix, freed with it. What the device makes as a CSR (GAMG's graph, its tentative prolongator)
  comes to PETSc this way: one copy to the host, no insertion row by row.
*/
#include "../spmvbase.h"
#if defined(__linux__)
  #include <sys/mman.h>
  #if defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
    #define MATSPMV_LAZY_ZEROS
  #endif
#endif

/* the making of a host matrix from a device CSR (its page-locked arrays, the copies, PETSc's assembly)
   and, inside it, the page-locking of new host memory (the cache had no block to give): each an event,
   so that -log_view parts GAMG's set-up's host round trips from the device work */
static PetscLogEvent MATSPMV_AIJFromDevice;

PetscErrorCode MatSpmvRegisterOnCSREvents(void)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("MatSpmvAIJFromDev", MAT_CLASSID, &MATSPMV_AIJFromDevice));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscLogEventRegister("MatSpmvPinnedNew", MAT_CLASSID, &MATSPMV_PinnedNew));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_no_inode for the matrices made until MatSpmvNoInodeEnd(), unless the user gave it: the inode
   search is a pass over every row, which aijcusparse off the CPU never uses (on GAMG's P0 of a 3D
   Laplacian it was more than half of the matrix's making) */
PetscErrorCode MatSpmvNoInodeBegin(PetscBool *given)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_no_inode", given));
  if (!*given) PetscCall(PetscOptionsSetValue(NULL, "-mat_no_inode", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvNoInodeEnd(PetscBool given)
{
  PetscFunctionBegin;
  if (!given) PetscCall(PetscOptionsClearValue(NULL, "-mat_no_inode"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvOnCSRDestroy(PetscCtxRt ctx)
{
  MatSpmvHostCSR *csr = *(MatSpmvHostCSR **)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree3(csr->i, csr->j, csr->a));
  PetscCall(PetscFree(csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X owns the arrays h: with the sequential matrix that reads them, which may outlive an MPI matrix
   (MatGetDiagonalBlock() taken by a sub-solver) */
static PetscErrorCode MatSpmvOnCSRCompose(Mat X, const MatSpmvHostCSR *h)
{
  MatSpmvHostCSR *csr;

  PetscFunctionBegin;
  PetscCall(PetscNew(&csr));
  *csr = *h;
  PetscCall(PetscObjectContainerCompose((PetscObject)X, "MatSpmvOnCSR", csr, MatSpmvOnCSRDestroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCreateAIJOnCSR(MPI_Comm comm, PetscInt m, PetscInt n, const MatSpmvHostCSR *diag, const MatSpmvHostCSR *offdiag, Mat *A)
{
  PetscFunctionBegin;
  if (offdiag) {
    Mat Ad, Ao;

    PetscCall(MatCreateMPIAIJWithSplitArrays(comm, m, n, PETSC_DETERMINE, PETSC_DETERMINE, diag->i, diag->j, diag->a, offdiag->i, offdiag->j, offdiag->a, A));
    PetscCall(MatMPIAIJGetSeqAIJ(*A, &Ad, &Ao, NULL));
    PetscCall(MatSpmvOnCSRCompose(Ad, diag));
    PetscCall(MatSpmvOnCSRCompose(Ao, offdiag));
  } else {
    PetscCall(MatCreateSeqAIJWithArrays(comm, m, n, diag->i, diag->j, diag->a, A));
    PetscCall(MatSpmvOnCSRCompose(*A, diag));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* a matrix's host arrays made from the device: i and j in a page-locked block, the values in the block
   (copied down, or small) or in zero memory mapped lazily (values kept on the device) */
typedef struct {
  void  *block, *lazy;
  size_t lazybytes;
} MatSpmvOnPinnedCSR;

static PetscErrorCode MatSpmvOnPinnedCSRDestroy(PetscCtxRt ctx)
{
  MatSpmvOnPinnedCSR *h = *(MatSpmvOnPinnedCSR **)ctx;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAHostFree(h->block));
  #if defined(MATSPMV_LAZY_ZEROS)
  if (h->lazy) PetscCheck(!munmap(h->lazy, h->lazybytes), PETSC_COMM_SELF, PETSC_ERR_SYS, "munmap() of a matrix's host values failed");
  #endif
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bytes of zeros whose pages the system gives only when touched, on transparent huge pages where it
   gives them (a read of an untouched one maps its shared zero page), or NULL: the host values of a
   matrix whose values live on the device, which PETSc reads only if a host operation asks for them
   (aijcusparse then copies them down). Page-locking them instead, to copy them down and up again,
   cost 0.049-0.060 s for 230 MiB on an H200 host, against 0.016-0.017 s for aijcusparse's upload from
   such zeros (timed cudaMemcpy()s, s261) */
static void *MatSpmvLazyZeros(size_t bytes)
{
  #if defined(MATSPMV_LAZY_ZEROS)
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  if (p == MAP_FAILED) return NULL;
    #if defined(MADV_HUGEPAGE)
  (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it, pages of 4 KiB (0.064-0.070 s for 230 MiB) */
    #endif
  return p;
  #else
  (void)bytes;
  return NULL;
  #endif
}

  #define MATSPMV_LAZY_MIN ((size_t)2 << 20) /* smaller value arrays stay in the block, zeroed there */

/* A sequential host CSR copied from the device CSR D: i and j in one block of pinned host memory the
   matrix owns, so the CSR comes down and goes up again (aijcusparse's first device use) at the
   device's rates, not pageable memory's. Its values: D's copied into the block, or, with D's NULL,
   zero (the caller writes them on the device: MatSpmvCUSPARSESetValues() or a product's numeric
   phase), in lazily mapped zeros from MATSPMV_LAZY_MIN bytes on. Its assembly skips the search for
   inodes (-mat_no_inode, unless the user gave it): aijcusparse off the CPU does not use them, and
   on a 4M-row product result it was two thirds of the assembly (0.08 of 0.12 s, H100 host) */
static PetscErrorCode MatSpmvCreateAIJFromDeviceArrays(const MatSpmvDeviceCSR *D, PetscBool lazy, void *stream, Mat *A)
{
  const PetscInt      m = D->m, n = D->n, nnz = D->nnz;
  const int          *d_i = D->i, *d_j = D->j;
  const PetscScalar  *d_a    = D->a;
  const size_t        vbytes = (size_t)PetscMax(nnz, 1) * sizeof(PetscScalar);
  const size_t        joff   = (((size_t)m + 1) * sizeof(PetscInt) + 63) / 64 * 64; /* j and the values 64-byte aligned */
  const size_t        aoff   = joff + ((size_t)PetscMax(nnz, 1) * sizeof(PetscInt) + 63) / 64 * 64;
  MatSpmvOnPinnedCSR *h;
  PetscScalar        *a;
  PetscInt           *i, *j;
  PetscBool           given;
  PetscErrorCode      ierr;
  PetscLogDouble      t[4];

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A device pattern of int indices for 64-bit PetscInt");
  PetscCall(PetscNew(&h));
  if (!d_a && lazy && vbytes >= MATSPMV_LAZY_MIN) h->lazy = MatSpmvLazyZeros(vbytes);
  h->lazybytes = h->lazy ? vbytes : 0;
  PetscCall(PetscTime(&t[0]));
  ierr = MatSpmvCUDAHostAlloc(&h->block, h->lazy ? aoff : aoff + vbytes);
  if (ierr) PetscCall(MatSpmvOnPinnedCSRDestroy((PetscCtxRt)&h));
  PetscCall(ierr);
  PetscCall(PetscTime(&t[1]));
  i = (PetscInt *)h->block;
  j = (PetscInt *)((char *)h->block + joff);
  a = h->lazy ? (PetscScalar *)h->lazy : (PetscScalar *)((char *)h->block + aoff);
  PetscCall(MatSpmvCUDACopyToHost(i, d_i, (m + 1) * sizeof(int), stream));
  PetscCall(MatSpmvCUDACopyToHost(j, d_j, nnz * sizeof(int), stream));
  if (d_a) PetscCall(MatSpmvCUDACopyToHost(a, d_a, nnz * sizeof(PetscScalar), stream));
  else if (lazy && !h->lazy) PetscCall(PetscArrayzero(a, nnz));
  PetscCall(PetscLogGpuToCpu((m + 1 + nnz) * sizeof(int) + (d_a ? nnz * sizeof(PetscScalar) : 0)));
  PetscCall(PetscTime(&t[2]));
  PetscCall(MatSpmvNoInodeBegin(&given));
  ierr = MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, n, i, j, a, A);
  PetscCall(MatSpmvNoInodeEnd(given));
  if (ierr) PetscCall(MatSpmvOnPinnedCSRDestroy((PetscCtxRt)&h));
  PetscCall(ierr);
  PetscCall(PetscObjectContainerCompose((PetscObject)*A, "MatSpmvOnCSR", h, MatSpmvOnPinnedCSRDestroy));
  PetscCall(PetscTime(&t[3]));
  PetscCall(PetscInfo(*A, "Made from the device: %" PetscInt_FMT " rows, %" PetscInt_FMT " entries, %.4f s (page-locked block %.4f, copies %.4f, AIJ %.4f), values %s\n", m, nnz, t[3] - t[0], t[1] - t[0], t[2] - t[1], t[3] - t[2], d_a ? "copied down" : (h->lazy ? "zeros mapped lazily" : (lazy ? "zeros" : "unset"))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A B and A^T B results (GAMG's smoothing reads their values on the device only) keep their host values
   as lazy zeros; P^T A P's and R A R^T's (GAMG reads the next operator's host values: with lazy zeros
   aijcusparse's copy down into pageable memory took 0.04 s of KSP ex45 160^3's set-up, s262) and a
   matrix that is no product's result do not */
PetscErrorCode MatSpmvProductHostValuesLazy(Mat C, PetscBool *lazy)
{
  MatProductType type;

  PetscFunctionBegin;
  PetscCall(MatProductGetType(C, &type));
  *lazy = (PetscBool)(type == MATPRODUCT_AB || type == MATPRODUCT_AtB || type == MATPRODUCT_ABt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCreateAIJFromDevice(const MatSpmvDeviceCSR *D, PetscBool lazy, void *stream, Mat *A)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATSPMV_AIJFromDevice, 0, 0, 0, 0));
  ierr = MatSpmvCreateAIJFromDeviceArrays(D, lazy, stream, A);
  PetscCall(PetscLogEventEnd(MATSPMV_AIJFromDevice, 0, 0, 0, 0)); /* ended on an error too: a caller may fall back */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCreateMPIAIJFromDevice(MPI_Comm comm, PetscInt N, const MatSpmvDeviceCSR *diag, const MatSpmvDeviceCSR *off, const int *d_garray, PetscBool lazy, void *stream, Mat *A)
{
  Mat            Ad = NULL, Ao = NULL;
  PetscInt      *garray = NULL;
  PetscErrorCode ierr;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(MatSpmvCreateAIJFromDevice(diag, lazy, stream, &Ad));
  PetscCall(PetscMalloc1(off ? PetscMax(off->n, 1) : 1, &garray)); /* never NULL: NULL asks MPIAIJ for its host hash */
  if (off) {
    PetscCall(MatSpmvCreateAIJFromDevice(off, lazy, stream, &Ao));
    PetscCall(MatSpmvCUDACopyToHost(garray, d_garray, sizeof(int) * (size_t)off->n, stream));
    PetscCall(PetscLogGpuToCpu(sizeof(int) * (double)off->n));
  } else { /* no off-diagonal entries */
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, diag->m, 0, 0, NULL, &Ao));
    PetscCall(MatAssemblyBegin(Ao, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Ao, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscTime(&t0));
  ierr = MatCreateMPIAIJWithSeqAIJ(comm, PETSC_DETERMINE, N, Ad, Ao, garray, A);
  if (ierr) { /* nothing owns them yet */
    PetscCall(MatDestroy(&Ad));
    PetscCall(MatDestroy(&Ao));
    PetscCall(PetscFree(garray));
  }
  PetscCall(ierr);
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(*A, "MPIAIJ of the blocks made from the device: %.4f s\n", t1 - t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MatSpmvCSRCopyToHost(const MatSpmvDeviceCSR *D, void *stream, PetscInt **i, PetscInt **j, PetscScalar **a)
{
  const PetscInt     m = D->m, nnz = D->nnz;
  const int         *d_i = D->i, *d_j = D->j;
  const PetscScalar *d_a = D->a;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(m + 1, i, PetscMax(nnz, 1), j, PetscMax(nnz, 1), a));
#if defined(PETSC_HAVE_CUDA)
  if (sizeof(PetscInt) == sizeof(int)) {
    PetscCall(MatSpmvCUDACopyToHost(*i, d_i, (m + 1) * sizeof(int), stream));
    PetscCall(MatSpmvCUDACopyToHost(*j, d_j, nnz * sizeof(int), stream));
  } else { /* 64-bit PetscInt: the device CSR has aijcusparse's int indices */
    int *i32;

    PetscCall(PetscMalloc1(PetscMax(m + 1, nnz), &i32));
    PetscCall(MatSpmvCUDACopyToHost(i32, d_i, (m + 1) * sizeof(int), stream));
    for (PetscInt k = 0; k <= m; k++) (*i)[k] = i32[k];
    PetscCall(MatSpmvCUDACopyToHost(i32, d_j, nnz * sizeof(int), stream));
    for (PetscInt k = 0; k < nnz; k++) (*j)[k] = i32[k];
    PetscCall(PetscFree(i32));
  }
  PetscCall(MatSpmvCUDACopyToHost(*a, d_a, nnz * sizeof(PetscScalar), stream));
  PetscCall(MatSpmvCUDASynchronize(stream));
  PetscCall(PetscLogGpuToCpu((m + 1 + nnz) * sizeof(int) + nnz * sizeof(PetscScalar)));
#else
  (void)d_i, (void)d_j, (void)d_a, (void)stream;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "A device CSR without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

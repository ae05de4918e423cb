/*
  GAMG's tentative prolongator P0 from the aggregates our coarsening kept on the device:
  P0 and the coarse near-null space made there (device/tentative.cu), then P0 a matrix of the level
  operator's type as PETSc's prolongator makes it. On several processes each process's aggregates hold
  its own rows, so P0 is its diagonal block alone (columns: the local aggregates'). The host CSR is
  handed to PETSc as it is (MatSpmvCreateAIJFromDevice(), MatSpmvCreateMPIAIJFromDevice() on several
  processes: no row-by-row insertion, which cost 0.2 s of 4M rows), then converted in place to the
  operator's type.
*/
#include "spmvgamgimpl.h"
#include "../../../../mat/impls/spmvlayer/spmvbase.h"

PetscErrorCode PCGAMGSpmvTentativeFromDevice(Mat A, PetscInt n, PetscInt nagg, const PetscInt *d_work, PetscInt ncols, const PetscReal *data, PetscReal **cdata, Mat *P)
{
  PetscFunctionBegin;
  *P     = NULL;
  *cdata = NULL;
#if defined(PETSC_HAVE_CUDA)
  {
    const PetscInt *d_agg = d_work, *d_aggptr = d_agg + 2 * n, *d_members = d_aggptr + n + 1; /* coarsen.c's layout */
    PetscInt        bs, rows, nmembers, nnz;
    PetscScalar    *d_pv;
    PetscReal      *d_data, *d_cdata;
    int            *d_pi, *d_pj;
    void           *stream;
    MatType         mtype;
    PetscMPIInt     size;
    PetscBool       bound, pinned;
    PetscInt       *pi, *pj;
    PetscScalar    *pv;
    MPI_Comm        comm = PetscObjectComm((PetscObject)A);

    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(MatGetBlockSize(A, &bs));
    PetscCall(MatGetLocalSize(A, &rows, NULL));
    PetscCheck(rows == n * bs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GAMG's level of %" PetscInt_FMT " local rows (block size %" PetscInt_FMT ") is not the graph of %" PetscInt_FMT " nodes the aggregates were made on", rows, bs, n);
    PetscCall(MatSpmvCUDAGetStream(&stream));
    nmembers = 0;
    if (nagg) PetscCall(MatSpmvCUDACopyToHost(&nmembers, d_aggptr + nagg, sizeof(PetscInt), stream)); /* the nodes in an aggregate */
    nnz = nmembers * bs * ncols;
    PetscCheck(nnz < PETSC_INT32_MAX && rows < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "P0 of %" PetscInt_FMT " local entries is too large for the device prolongator: use -petscspmv_gamg_prolongator 0", nnz);
    PetscCall(MatSpmvCUDAMalloc((void **)&d_data, sizeof(PetscReal) * (size_t)PetscMax(rows * ncols, 1)));
    PetscCall(MatSpmvCUDAMalloc((void **)&d_cdata, sizeof(PetscReal) * (size_t)PetscMax(ncols * ncols * nagg, 1)));
    PetscCall(MatSpmvCUDAMalloc((void **)&d_pi, sizeof(int) * (size_t)(rows + 1)));
    PetscCall(MatSpmvCUDAMalloc((void **)&d_pj, sizeof(int) * (size_t)PetscMax(nnz, 1)));
    PetscCall(MatSpmvCUDAMalloc((void **)&d_pv, sizeof(PetscScalar) * (size_t)PetscMax(nnz, 1)));
    if (rows) PetscCall(MatSpmvCUDACopyToDevice(d_data, data, sizeof(PetscReal) * (size_t)rows * ncols, stream));
    PetscCall(PetscLogCpuToGpu(sizeof(PetscReal) * (size_t)rows * ncols));
    {
      const MatSpmvGAMGNearNull B    = {n, bs, ncols, d_data};
      const MatSpmvGAMGMembers  aggs = {nagg, d_agg, d_aggptr, d_members};
      const MatSpmvGAMGP0Device P0   = {d_pi, d_pj, d_pv, d_cdata};

      PetscCall(MatSpmvGAMGTentativeDevice(&B, &aggs, &P0, stream));
    }

    /* P0 comes down into a page-locked block it owns (one copy at the device's rate, and its first
       device use uploads it at that rate too: ex45 160^3's set-up 0.69 vs 0.76 s, ex56 -ne 48 0.27 vs
       0.29 by the medians of 4, H200 s155); on several processes as the diagonal block of an empty
       ghost map (no host pass of MPIAIJ's over the rows to find none) */
    PetscCall(MatBoundToCPU(A, &bound));
    pinned = (PetscBool)(!bound && sizeof(PetscInt) == sizeof(int));
    {
      const MatSpmvDeviceCSR P0csr = {rows, nagg * ncols, nnz, d_pi, d_pj, d_pv};

      if (pinned && size > 1) PetscCall(MatSpmvCreateMPIAIJFromDevice(comm, PETSC_DETERMINE, &P0csr, NULL, NULL, PETSC_FALSE, stream, P));
      else if (pinned) PetscCall(MatSpmvCreateAIJFromDevice(&P0csr, PETSC_FALSE, stream, P)); /* both copies wait for theirs */
      else PetscCall(MatSpmvCSRCopyToHost(&P0csr, stream, &pi, &pj, &pv));
    }
    PetscCall(PetscMalloc1(PetscMax(ncols * ncols * nagg, 1), cdata));
    PetscCall(MatSpmvCUDACopyToHost(*cdata, d_cdata, sizeof(PetscReal) * (size_t)ncols * ncols * nagg, stream));
    PetscCall(PetscLogGpuToCpu(sizeof(PetscReal) * (size_t)ncols * ncols * nagg));
    PetscCall(MatSpmvCUDAFree(d_pv));
    PetscCall(MatSpmvCUDAFree(d_pj));
    PetscCall(MatSpmvCUDAFree(d_pi));
    PetscCall(MatSpmvCUDAFree(d_cdata));
    PetscCall(MatSpmvCUDAFree(d_data));

    /* P0 as agg.c makes it: A's type, block sizes (bs, ncols), bound to the CPU where A is */
    if (!pinned) {
      const MatSpmvHostCSR diag = {pi, pj, pv};
      MatSpmvHostCSR       offdiag;
      PetscBool            given = PETSC_TRUE;

      if (size > 1) PetscCall(PetscCalloc3(rows + 1, &offdiag.i, 1, &offdiag.j, 1, &offdiag.a)); /* no off-diagonal entries */
      if (!bound) PetscCall(MatSpmvNoInodeBegin(&given));                                        /* P0 lives on the device */
      PetscCall(MatSpmvCreateAIJOnCSR(comm, rows, nagg * ncols, &diag, size > 1 ? &offdiag : NULL, P));
      PetscCall(MatSpmvNoInodeEnd(given));
    }
    PetscCall(MatSetBlockSizes(*P, bs, ncols));
    PetscCall(MatGetType(A, &mtype));
    PetscCall(MatConvert(*P, mtype, MAT_INPLACE_MATRIX, P));
    if (bound) {
      PetscCall(MatBindToCPU(*P, PETSC_TRUE));
      PetscCall(MatSetBindingPropagates(*P, PETSC_TRUE));
    }
  }
#else
  (void)A, (void)n, (void)nagg, (void)d_work, (void)ncols, (void)data;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Aggregates on the device without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

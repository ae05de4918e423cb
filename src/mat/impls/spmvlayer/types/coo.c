/*
  MPI product results assembled from their COO entries on the device. PETSc's MPI products
  (MatProductSymbolic_MPIAIJBACKEND()) gather each process's entries of the result (its local
  products' and those the other processes send) into MatSetPreallocationCOO(), and their values into
  MatSetValuesCOO() at every numeric phase. MPIAIJ's preallocation sorts the entries on the host: with
  the local products on our SpGEMM, most of what was left of GAMG's set-up on two processes
  (docs/gamg.md). Here they are sorted on the device (device/coo.cu), the result is made on the block
  CSRs found (no insertion row by row) and put in C's place as our SpGEMM's results are, and each
  MatSetValuesCOO() sums the repeats into the blocks' device values with one kernel. Entries in other
  processes' rows or out of range (callers other than PETSc's products), 64-bit indices and
  -petscspmv_mpi_coo 0 keep aijcusparse's functions (-info says so).
*/
#include "../spmvimpl.h"

PetscBool MatSpmvMPICOO = PETSC_TRUE; /* -petscspmv_mpi_coo (read by the package) */

/* the device sort (with its upload of the entries) and the making of the MPI matrix on its blocks, each
   an event (inside PETSc's MatSetPreallCOO) */
static PetscLogEvent MATSPMV_COOSort, MATSPMV_COOMake;

PetscErrorCode MatSpmvRegisterCOOEvents(void)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("MatSpmvCOOSort", MAT_CLASSID, &MATSPMV_COOSort));
  PetscCall(PetscLogEventRegister("MatSpmvCOOMake", MAT_CLASSID, &MATSPMV_COOMake));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h> /* PetscGetMemType() */
/* aijcusparse's, saved from the first MPI result given ours (the same for every one) */
static PetscErrorCode (*MatSpmvCOOPreallocationBase)(Mat, PetscCount, PetscInt[], PetscInt[]) = NULL;
static PetscErrorCode (*MatSpmvCOOValuesBase)(Mat, const PetscScalar[], InsertMode)           = NULL;

  #define MATSPMV_COO_KEY "MatSpmvCOODevice"

static PetscErrorCode MatSpmvCOODeviceDestroy(PetscCtxRt ctx)
{
  MatSpmvCOODevice *coo = *(MatSpmvCOODevice **)ctx;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDACOODestroy(coo));
  PetscCall(PetscFree(coo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetPreallocationCOO_SpmvMPIResult(Mat, PetscCount, PetscInt[], PetscInt[]);
static PetscErrorCode MatSetValuesCOO_SpmvMPIResult(Mat, const PetscScalar[], InsertMode);

/* C's COO functions aijcusparse's again (its entries are not for ours) */
static PetscErrorCode MatSpmvCOORestoreBase(Mat C)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSetPreallocationCOO_C", MatSpmvCOOPreallocationBase));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSetValuesCOO_C", MatSpmvCOOValuesBase));
  PetscCall(PetscObjectCompose((PetscObject)C, MATSPMV_COO_KEY, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the MPI matrix of the blocks the build found, C's sizes, its values zero, made on the ghost map found on
   the device (the patterns copied once into pinned host memory): the host values zeros mapped lazily
   where MatSpmvProductHostValuesLazy() says so, else zeroed in the pinned memory */
static PetscErrorCode MatSpmvCOOCreateMPIAIJ(Mat C, const MatSpmvCOODevice *coo, void *stream, Mat *T)
{
  const MatSpmvDeviceCSR diag = {coo->m, C->cmap->n, coo->nd, coo->di, coo->dj, NULL}, off = {coo->m, coo->ng, coo->no, coo->oi, coo->oj, NULL};
  PetscBool              lazy;
  Mat                    X[2];
  PetscScalar           *a;

  PetscFunctionBegin;
  PetscCall(MatSpmvProductHostValuesLazy(C, &lazy));
  PetscCall(MatSpmvCreateMPIAIJFromDevice(PetscObjectComm((PetscObject)C), C->cmap->N, &diag, &off, coo->garray, lazy, stream, T));
  if (!lazy) {
    PetscCall(MatMPIAIJGetSeqAIJ(*T, &X[0], &X[1], NULL));
    for (int b = 0; b < 2; b++) {
      PetscCall(MatSeqAIJGetArrayWrite(X[b], &a));
      PetscCall(PetscArrayzero(a, b ? coo->no : coo->nd));
      PetscCall(MatSeqAIJRestoreArrayWrite(X[b], &a));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* T, made on C's entries, takes C's place: C keeps its product (whose symbolic phase is running), the
   phase functions PETSc gave it, its prefix, name and block sizes */
static PetscErrorCode MatSpmvCOOReplace(Mat C, Mat *T)
{
  Mat_Product *product            = C->product;
  PetscErrorCode (*symbolic)(Mat) = C->ops->productsymbolic, (*numeric)(Mat) = C->ops->productnumeric;
  char    *prefix = NULL, *name = NULL;
  PetscInt rbs = C->rmap->bs, cbs = C->cmap->bs;

  PetscFunctionBegin;
  if (rbs > 1 || cbs > 1) PetscCall(MatSetBlockSizes(*T, rbs, cbs));
  PetscCall(PetscStrallocpy(((PetscObject)C)->prefix, &prefix));
  PetscCall(PetscStrallocpy(((PetscObject)C)->name, &name));
  C->product = NULL;
  PetscCall(MatHeaderReplace(C, T));
  C->product              = product;
  C->ops->productsymbolic = symbolic;
  C->ops->productnumeric  = numeric;
  PetscCall(MatSetOptionsPrefix(C, prefix));
  if (name) PetscCall(PetscObjectSetName((PetscObject)C, name));
  PetscCall(PetscFree(prefix));
  PetscCall(PetscFree(name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C made on the n COO entries (host arrays, or device ones where device); *done false, nothing made, where
   some process's entries are not ours to take (64-bit indices, entries outside a process's rows or out of
   range) */
static PetscErrorCode MatSpmvCOOPreallocate(Mat C, PetscCount n, const PetscInt coo_i[], const PetscInt coo_j[], PetscBool device, PetscBool *done)
{
  MPI_Comm          comm = PetscObjectComm((PetscObject)C);
  PetscInt          m, rstart;
  int               ours = sizeof(PetscInt) == sizeof(int) && n < PETSC_INT32_MAX;
  PetscBool         given, inrange = PETSC_FALSE;
  MatSpmvCOODevice *coo = NULL;
  Mat               T;
  void             *stream;
  PetscLogDouble    t0, t1, t2, t3;
  PetscErrorCode    ierr;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLayoutSetUp(C->rmap));
  PetscCall(PetscLayoutSetUp(C->cmap));
  m      = C->rmap->n;
  rstart = C->rmap->rstart;
  if (ours) { /* sorted on the device, which also checks that every entry is in range */
    const MatSpmvCOOEntries e = {n, m, rstart, C->cmap->rstart, C->cmap->rend, C->cmap->N, coo_i, coo_j, device};

    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscNew(&coo));
    PetscCall(PetscLogEventBegin(MATSPMV_COOSort, C, 0, 0, 0));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDACOOBuild(&e, coo, &inrange, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(MATSPMV_COOSort, C, 0, 0, 0));
    ours = inrange;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ours, 1, MPI_INT, MPI_LAND, comm)); /* the assemblies are collective */
  if (!ours) {
    if (coo) PetscCall(MatSpmvCOODeviceDestroy((PetscCtxRt)&coo));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogEventBegin(MATSPMV_COOMake, C, 0, 0, 0));
  PetscCall(MatSpmvNoInodeBegin(&given));
  ierr = MatSpmvCOOCreateMPIAIJ(C, coo, stream, &T);
  PetscCall(MatSpmvNoInodeEnd(given));
  if (ierr) PetscCall(MatSpmvCOODeviceDestroy((PetscCtxRt)&coo));
  PetscCall(ierr);
  PetscCall(MatSpmvCUDACOOFreePattern(coo));
  PetscCall(PetscObjectContainerCompose((PetscObject)T, MATSPMV_COO_KEY, coo, MatSpmvCOODeviceDestroy)); /* T's, then C's */
  PetscCall(PetscTime(&t2));
  PetscCall(MatConvert(T, MATMPIAIJCUSPARSE, MAT_INPLACE_MATRIX, &T));
  PetscCall(MatSpmvCOOReplace(C, &T));
  /* new entries allowed, as in PETSc's COO results (a MatShift() of a missing diagonal inserts it) */
  PetscCall(MatSetOption(C, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_SpmvMPIResult));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSetValuesCOO_C", MatSetValuesCOO_SpmvMPIResult));
  PetscCall(PetscLogEventEnd(MATSPMV_COOMake, C, 0, 0, 0));
  PetscCall(PetscTime(&t3));
  PetscCall(PetscInfo(C, "MatSetPreallocationCOO() on the device: %" PetscCount_FMT " entries%s, %" PetscInt_FMT " distinct (%" PetscInt_FMT " in the diagonal block), ghost map on the device (%" PetscInt_FMT " columns), %.4f s (sort %.4f, MPIAIJ made %.4f, converted %.4f)\n", n, device ? " from the device" : "",
                      coo->nu, coo->nd, coo->ng, t3 - t0, t1 - t0, t2 - t1, t3 - t2));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetPreallocationCOO_SpmvMPIResult(Mat C, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatSpmvCOOPreallocate(C, n, coo_i, coo_j, PETSC_FALSE, &done));
  if (!done) {
    PetscCall(PetscInfo(C, "MatSetPreallocationCOO() by aijcusparse's (entries outside a process's rows or out of range, or 64-bit indices)\n"));
    PetscCall(MatSpmvCOORestoreBase(C));
    PetscCall((*MatSpmvCOOPreallocationBase)(C, n, coo_i, coo_j));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a block's device values for the COO sums (none where it has no entries: aijcusparse keeps no device
   CSR of an empty block); its device CSR made first where it has none yet (aijcusparse's write access
   does not make it) */
static PetscErrorCode MatSpmvCOOBlockValues(Mat X, PetscInt nnz, InsertMode imode, PetscScalar **a)
{
  PetscFunctionBegin;
  *a = NULL;
  if (!nnz) PetscFunctionReturn(PETSC_SUCCESS);
  if (imode == INSERT_VALUES) {
    PetscCall(MatSpmvCUSPARSEUpload(X));
    PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(X, a));
  } else PetscCall(MatSeqAIJCUSPARSEGetArray(X, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvCOOBlockValuesEnd(Mat X, PetscInt nnz, InsertMode imode, PetscScalar **a)
{
  PetscFunctionBegin;
  if (!nnz) PetscFunctionReturn(PETSC_SUCCESS);
  if (imode == INSERT_VALUES) PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(X, a));
  else PetscCall(MatSeqAIJCUSPARSERestoreArray(X, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetValuesCOO_SpmvMPIResult(Mat C, const PetscScalar v[], InsertMode imode)
{
  MatSpmvCOODevice  *coo = NULL;
  Mat                Ad, Ao;
  PetscScalar       *da = NULL, *oa = NULL, *dv = NULL;
  const PetscScalar *vv = v;
  PetscMemType       mtype;
  void              *stream;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)C, MATSPMV_COO_KEY, (PetscCtxRt)&coo));
  if (!coo) { /* preallocated by aijcusparse's */
    PetscCall((*MatSpmvCOOValuesBase)(C, v, imode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(imode == INSERT_VALUES || imode == ADD_VALUES, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_OUTOFRANGE, "MatSetValuesCOO(): give INSERT_VALUES or ADD_VALUES");
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(PetscGetMemType(v, &mtype));
  if (PetscMemTypeHost(mtype) && coo->n) {
    PetscCall(MatSpmvCUDAMalloc((void **)&dv, sizeof(PetscScalar) * (size_t)coo->n));
    PetscCall(MatSpmvCUDACopyToDevice(dv, v, sizeof(PetscScalar) * (size_t)coo->n, stream));
    PetscCall(PetscLogCpuToGpu(sizeof(PetscScalar) * (double)coo->n));
    vv = dv;
  }
  PetscCall(MatMPIAIJGetSeqAIJ(C, &Ad, &Ao, NULL));
  for (int b = 0; b < 2; b++) { /* the positions are those of the pattern made at the preallocation */
    MatInfo info;

    PetscCall(MatGetInfo(b ? Ao : Ad, MAT_LOCAL, &info));
    PetscCheck((PetscInt)info.nz_used == (b ? coo->no : coo->nd), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO(): the matrix's nonzero pattern changed since MatSetPreallocationCOO() (new entries inserted): call MatSetPreallocationCOO() again");
  }
  PetscCall(MatSpmvCOOBlockValues(Ad, coo->nd, imode, &da));
  PetscCall(MatSpmvCOOBlockValues(Ao, coo->no, imode, &oa));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatSpmvCUDACOOValues(coo, vv, (PetscBool)(imode == ADD_VALUES), da, oa, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MatSpmvCOOBlockValuesEnd(Ad, coo->nd, imode, &da));
  PetscCall(MatSpmvCOOBlockValuesEnd(Ao, coo->no, imode, &oa));
  PetscCall(MatSpmvCUDAFree(dv));
  C->offloadmask = PETSC_OFFLOAD_GPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* C, an MPI aijcusparse result of its sizes (type set, not preallocated), made on n COO entries in device
   arrays of its local rows and global columns (the layer's MPI products, types/mpiproduct.c); its values
   then by MatSetValuesCOO() in the entries' order (device values). An entry out of range is an error */
PetscErrorCode MatSpmvCOOPreallocateOnDevice(Mat C, PetscCount n, const int *d_i, const int *d_j)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool done;

    PetscCheck(sizeof(PetscInt) == sizeof(int), PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "Device COO entries with 64-bit PetscInt");
    PetscCall(MatSpmvSetCOOOps_MPIResult(C));
    PetscCall(MatSpmvCOOPreallocate(C, n, (const PetscInt *)d_i, (const PetscInt *)d_j, PETSC_TRUE, &done));
    PetscCheck(done, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "An MPI product's COO entries out of range");
    C->preallocated = PETSC_TRUE;
    C->nonzerostate++;
  }
#else
  (void)C, (void)n, (void)d_i, (void)d_j;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Device COO entries without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C, an MPI aijcusparse result whose product phase is about to run, takes our COO assembly (where
   -petscspmv_mpi_coo and CUDA) */
PetscErrorCode MatSpmvSetCOOOps_MPIResult(Mat C)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscErrorCode (*prealloc)(Mat, PetscCount, PetscInt[], PetscInt[]) = NULL;
    PetscErrorCode (*values)(Mat, const PetscScalar[], InsertMode)      = NULL;
    PetscBool cusparse;

    PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIAIJCUSPARSE, &cusparse));
    if (!MatSpmvMPICOO || !cusparse || sizeof(PetscInt) != sizeof(int)) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscObjectQueryFunction((PetscObject)C, "MatSetPreallocationCOO_C", &prealloc));
    PetscCall(PetscObjectQueryFunction((PetscObject)C, "MatSetValuesCOO_C", &values));
    if (!prealloc || !values || prealloc == MatSetPreallocationCOO_SpmvMPIResult) PetscFunctionReturn(PETSC_SUCCESS);
    MatSpmvCOOPreallocationBase = prealloc;
    MatSpmvCOOValuesBase        = values;
    PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_SpmvMPIResult));
    PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSetValuesCOO_C", MatSetValuesCOO_SpmvMPIResult));
  }
#else
  (void)C;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

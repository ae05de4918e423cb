/*
  MPIAIJ-derived types: an MPIAIJ (with a GPU: MPIAIJCUSPARSE) whose diagonal and off-diagonal
  blocks are the format's SeqAIJ-derived type. This type makes sure the blocks are of the right
  type, whatever created them (preallocation, hash-mode MatSetUp, COO assembly, disassembly), and
  carries the options; its products are the base's (MPIAIJCUSPARSE's: the ghost scatter into a
  device ghost vector around the diagonal block's product) except where MPI is not CUDA-aware:
  there the ghost exchange runs on a stream of its own beside that product (ghost.c).
*/
#include "../spmvimpl.h"

/* parameters or backend changed (collective calls): the blocks' layouts are built together again */
static inline void MatSpmvMPIAgreeAgain(Mat A)
{
  Mat_MPIAIJSpmv *sp = MatSpmvMPI(A);

  sp->agreed[0] = sp->agreed[1] = PETSC_FALSE;
}

/* the base's functions, in A->spptr (which MPIAIJ leaves to its subclasses): also there while
   MatHeaderMerge() has set A's composed objects aside */
static inline MatSpmvBaseOps *MatSpmvMPIBase(Mat A)
{
  return (MatSpmvBaseOps *)A->spptr;
}

/* Convert plain SeqAIJ blocks and give every block the parameters of A */
static PetscErrorCode MatSpmvMPIUpdateBlocks(Mat A, PetscBool push)
{
  Mat_MPIAIJSpmv *sp;
  Mat             blk[2];
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  if (!A->preallocated) PetscFunctionReturn(PETSC_SUCCESS);
  if (sp->data != A->data) { /* new insides (MatHeaderMerge()), their blocks made with the defaults */
    PetscCall(PetscInfo(A, "%s: new blocks under the same matrix: its settings go to them\n", sp->format->mpitype));
    sp->data      = A->data;
    sp->agreed[0] = sp->agreed[1] = PETSC_FALSE;
    push                          = PETSC_TRUE;
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  for (int b = 0; b < 2; b++) {
    PetscBool plain, ours;

    if (!blk[b]) continue;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)blk[b], &plain, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
    if (plain) {
      PetscCall(MatConvert_SeqAIJ_SeqAIJSpmv(blk[b], sp->format->seqtype, MAT_INPLACE_MATRIX, &blk[b]));
      push = PETSC_TRUE;
    }
    PetscCall(PetscObjectTypeCompare((PetscObject)blk[b], sp->format->seqtype, &ours));
    PetscCheck(ours, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "Block of %s has type %s", sp->format->mpitype, ((PetscObject)blk[b])->type_name);
    /* the off-diagonal block, and the blocks of a product's result, are operators the user did not choose a format for */
    if (b == 1 || A->product || sp->derived) MatSpmvSeq(blk[b])->derived = PETSC_TRUE;
    if (b == 1) MatSpmvSeq(blk[b])->offdiag = PETSC_TRUE;
    PetscCall(MatSpmvAllowLayouts_SeqAIJSpmv(blk[b], sp->allow));
    if (!push) {
      PetscCall(MatSpmvUpdateSettings_SeqAIJSpmv(blk[b]));
      continue;
    }
    PetscCall(MatSpmvAdoptParams_SeqAIJSpmv(blk[b], sp->params, sp->backend, sp->colorder));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvMPIOptionsParse(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_MPIAIJSpmv *sp;
  PetscBool       changed;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  PetscCall(MatSpmvParseOptions(sp->format, PetscOptionsObject, &sp->backend, &sp->colorder, sp->params, &changed)); /* the blocks are synced below */
  sp->paramsset = PETSC_TRUE;
  MatSpmvMPIAgreeAgain(A);
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options in a block titled with the format (-help prints each (prefix, title) once) */
static PetscErrorCode MatSpmvMPIReadOptions(Mat A)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, sp->format->title, "Mat");
  PetscCall(MatSpmvMPIOptionsParse(A, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Programs that never call MatSetFromOptions() still get -mat_<fmt>_* honoured at the first product */
static PetscErrorCode MatSpmvMPILazyOptions(Mat A)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  if (!sp->paramsset) PetscCall(MatSpmvMPIReadOptions(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A format may refuse a block's structure (ELLR's padding limit, 32-bit sizes). Refused inside
   MatMult_MPIAIJ, the product would stop on one process after its ghost scatter started, leaving
   the scatter in use and the other processes waiting. So after every change of the nonzero pattern
   or of the parameters, all processes build their blocks' layouts for op(A) before the product and
   agree on the outcome: every process then stops with an error, or none does. They also agree on
   whether any block has a layout: where none has (every block still waits), the products are exactly
   aijcusparse's, ghost exchange included. */
static PetscErrorCode MatSpmvMPIBuildBlocks(Mat A, MatSpmvOp t)
{
  Mat_MPIAIJSpmv *sp;
  PetscErrorCode  ierr = PETSC_SUCCESS;
  Mat             blk[2];
  const PetscInt *garray;
  int             mine[2], worst[2];

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  if (sp->agreed[t] && sp->agreedstate[t] == A->nonzerostate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  for (int b = 0; b < 2 && !ierr; b++)
    if (blk[b]) ierr = MatSpmvUpdateLayout_SeqAIJSpmv(blk[b], t);
  mine[0] = (int)ierr;
  mine[1] = 0;
  for (int b = 0; b < 2 && !ierr; b++)
    if (blk[b] && !MatSpmvUsesBase_SeqAIJSpmv(blk[b], t)) mine[1] = 1;
  PetscCallMPI(MPIU_Allreduce(mine, worst, 2, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscCall(ierr); /* this process's own error, with its message */
  PetscCheck(!worst[0], PETSC_COMM_SELF, (PetscErrorCode)worst[0], "Another process could not build its %s layout of %s (error %d): see its message", sp->format->name, t ? "A^T" : "A", worst[0]);
  sp->layouts[t]     = (PetscBool)worst[1];
  sp->agreed[t]      = PETSC_TRUE;
  sp->agreedstate[t] = A->nonzerostate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parallel products of op(A) at its nonzero pattern, the same count on every process (products
   are collective; MPIAIJ's assembly sums the nonzero state over the processes): from
   -petscspmv_layout_min_products of them the blocks of all processes build their layouts together
   (seq.c says why a layout waits). A product with host vectors (x, z, y; their types are the same on
   every process), which aijcusparse's products get wrong, builds them at once */
static PetscErrorCode MatSpmvMPICount(Mat A, MatSpmvOp t, Vec x, Vec z, Vec y)
{
  Mat_MPIAIJSpmv *sp = MatSpmvMPI(A);
  PetscBool       allow, takes = PETSC_TRUE;

  PetscFunctionBegin;
  if (sp->countstate != A->nonzerostate || sp->countdata != A->data) {
    sp->nproducts[0] = sp->nproducts[1] = 0;
    sp->allow[0] = sp->allow[1] = PETSC_FALSE;
    sp->countstate              = A->nonzerostate;
    sp->countdata               = A->data;
  }
  if (!sp->allow[t] && MatSpmvMPIBase(A)->cusparse) PetscCall(MatSpmvCUSPARSETakesVecs(x, z, y, &takes));
  if (!takes && sp->nproducts[t] < MatSpmvLayoutMinProducts) {
    PetscCall(PetscInfo(A, "%s: a product of %s with host vectors, which aijcusparse's products get wrong: the blocks build their layouts now\n", sp->format->name, t ? "A^T" : "A"));
    sp->nproducts[t] = MatSpmvLayoutMinProducts;
  }
  allow = (PetscBool)(sp->nproducts[t] >= MatSpmvLayoutMinProducts);
  if (allow != sp->allow[t]) {
    PetscCall(PetscInfo(A, "%s: %" PetscInt_FMT " products of %s through aijcusparse's at this nonzero pattern (-petscspmv_layout_min_products): the blocks build their layouts\n", sp->format->name, sp->nproducts[t], t ? "A^T" : "A"));
    sp->allow[t]  = allow;
    sp->agreed[t] = PETSC_FALSE;
  }
  sp->nproducts[t]++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_MPIAIJSpmv(Mat A, Vec x, Vec y)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPILazyOptions(A));
  PetscCall(MatSpmvMPICount(A, 0, x, NULL, y));
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscCall(MatSpmvMPIBuildBlocks(A, 0));
  done = PETSC_FALSE;
  if (MatSpmvMPI(A)->layouts[0]) PetscCall(MatSpmvGhostsMult(A, &MatSpmvMPI(A)->ghosts, x, NULL, y, &done));
  if (!done) PetscCall(MatSpmvMPIBase(A)->mult(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_MPIAIJSpmv(Mat A, Vec x, Vec z, Vec y)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPILazyOptions(A));
  PetscCall(MatSpmvMPICount(A, 0, x, z, y));
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscCall(MatSpmvMPIBuildBlocks(A, 0));
  done = PETSC_FALSE;
  if (MatSpmvMPI(A)->layouts[0]) PetscCall(MatSpmvGhostsMult(A, &MatSpmvMPI(A)->ghosts, x, z, y, &done));
  if (!done) PetscCall(MatSpmvMPIBase(A)->multadd(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_MPIAIJSpmv(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvMPILazyOptions(A));
  PetscCall(MatSpmvMPICount(A, 1, x, NULL, y));
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscCall(MatSpmvMPIBuildBlocks(A, 1));
  PetscCall(MatSpmvMPIBase(A)->multtranspose(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_MPIAIJSpmv(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvMPILazyOptions(A));
  PetscCall(MatSpmvMPICount(A, 1, x, z, y));
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscCall(MatSpmvMPIBuildBlocks(A, 1));
  PetscCall(MatSpmvMPIBase(A)->multtransposeadd(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatAssemblyEnd_MPIAIJSpmv(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvMPIBase(A)->assemblyend(A, mode));
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMPIAIJSetPreallocation_MPIAIJSpmv(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  PetscFunctionBegin;
  PetscCall(MatSpmvMPIBase(A)->preallocation(A, d_nz, d_nnz, o_nz, o_nnz));
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetPreallocationCOO_MPIAIJSpmv(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  PetscFunctionBegin;
  PetscCall(MatSpmvMPIBase(A)->setpreallocationcoo(A, n, coo_i, coo_j));
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ's MatEliminateZeros() compacts both blocks' host CSR in place with SeqAIJ's function, not
   theirs: the blocks' values are brought to the host first and their device copies marked stale after */
static PetscErrorCode MatEliminateZeros_MPIAIJSpmv(Mat A, PetscBool keep)
{
  Mat              blk[2];
  const PetscInt  *garray;
  PetscObjectState before[2], after;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  for (int b = 0; b < 2; b++) {
    PetscCall(MatSpmvUpdateHostValues(blk[b]));
    PetscCall(MatGetNonzeroState(blk[b], &before[b]));
  }
  PetscCall(MatSpmvMPIBase(A)->eliminatezeros(A, keep));
  for (int b = 0; b < 2; b++) {
    PetscCall(MatGetNonzeroState(blk[b], &after));
    if (after != before[b] && MatSpmvMPIBase(A)->cusparse) blk[b]->offloadmask = PETSC_OFFLOAD_CPU;
  }
  MatSpmvMPIAgreeAgain(A); /* the blocks' patterns changed under the same nonzero state of A */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPIAIJ's transpose makes a matrix of our type: an operator PETSc derived, whose blocks a format
   that refuses their patterns gives way on (ELLR's padding, as for the blocks of a product) */
static PetscErrorCode MatTranspose_MPIAIJSpmv(Mat A, MatReuse reuse, Mat *B)
{
  Mat_MPIAIJSpmv *bsp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIBase(A)->transpose(A, reuse, B));
  if (reuse != MAT_INITIAL_MATRIX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvMPIGetData(*B, &bsp));
  if (bsp) bsp->derived = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_MPIAIJSpmv(Mat A, PetscOptionItems PetscOptionsObject)
{
  PetscFunctionBegin;
  if (MatSpmvMPIBase(A)->setfromoptions) PetscCall(MatSpmvMPIBase(A)->setfromoptions(A, PetscOptionsObject));
  PetscCall(MatSpmvMPIReadOptions(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvSetBackend_MPIAIJSpmv(Mat A, MatSpmvBackend backend)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  sp->backend = backend;
  MatSpmvMPIAgreeAgain(A);
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvSetColumnOrder_MPIAIJSpmv(Mat A, MatSpmvColumnOrder colorder)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  sp->colorder = colorder;
  MatSpmvMPIAgreeAgain(A);
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetColumnOrder_MPIAIJSpmv(Mat A, MatSpmvColumnOrder *colorder)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  *colorder = sp->colorder;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetBackend_MPIAIJSpmv(Mat A, MatSpmvBackend *backend)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  *backend = sp->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetParams_MPIAIJSpmv(Mat A, MatSpmvFormat **format, void **params)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  *format = sp->format;
  *params = sp->params;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvParamsChanged_MPIAIJSpmv(Mat A)
{
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  sp->paramsset = PETSC_TRUE;
  MatSpmvMPIAgreeAgain(A);
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvCheckLayout_MPIAIJSpmv(Mat A)
{
  Mat             Ad, Ao;
  const PetscInt *garray;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscUseMethod(Ad, "MatSpmvCheckLayout_C", (Mat), (Ad));
  PetscUseMethod(Ao, "MatSpmvCheckLayout_C", (Mat), (Ao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetStorage_MPIAIJSpmv(Mat A, PetscInt *nslots, PetscLogDouble *bytes)
{
  Mat             blk[2];
  const PetscInt *garray;
  PetscInt        ns = 0;
  PetscLogDouble  nb = 0;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscCall(MatSpmvMPIBuildBlocks(A, 0)); /* a refused layout stops every process */
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  for (int b = 0; b < 2; b++) {
    PetscInt       s;
    PetscLogDouble by;

    PetscUseMethod(blk[b], "MatSpmvGetStorage_C", (Mat, PetscInt *, PetscLogDouble *), (blk[b], &s, &by));
    ns += s;
    nb += by;
  }
  if (nslots) *nslots = ns;
  if (bytes) *bytes = nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_MPIAIJSpmv(Mat A, PetscViewer viewer)
{
  Mat_MPIAIJSpmv   *sp;
  PetscBool         isascii;
  PetscViewerFormat format;
  Mat               blk[2];
  const PetscInt   *garray;
  PetscMPIInt       rank;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  PetscCall(MatSpmvMPIBase(A)->view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvMPIUpdateBlocks(A, PETSC_FALSE));
  PetscCall(MatSpmvMPIBuildBlocks(A, 0)); /* a refused layout stops every process, not the synchronized printing */
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s) blocks, per process:\n", sp->format->title, sp->format->name));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  for (int b = 0; b < 2; b++) {
    PetscInt       nslots;
    PetscLogDouble bytes;
    MatInfo        info;

    PetscUseMethod(blk[b], "MatSpmvGetStorage_C", (Mat, PetscInt *, PetscLogDouble *), (blk[b], &nslots, &bytes));
    PetscCall(MatGetInfo(blk[b], MAT_LOCAL, &info));
    PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] %s block: %.0f nonzeros in %" PetscInt_FMT " slots, %.2f bytes per nonzero\n", rank, b ? "off-diagonal" : "diagonal", info.nz_used, nslots, info.nz_used > 0 ? bytes / info.nz_used : 0.0));
  }
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const MatSpmvMPIComposedNames[] =
  {"MatProductSetFromOptions_anytype_C", "MatSpmvSetBackend_C",      "MatSpmvGetBackend_C",        "MatSpmvSetColumnOrder_C", "MatSpmvGetColumnOrder_C", "MatSpmvGetParams_C", "MatSpmvParamsChanged_C", "MatSpmvCheckLayout_C", "MatSpmvGetStorage_C",
   "MatMPIAIJSetPreallocation_C",        "MatSetPreallocationCOO_C", "MatMPIAIJGetLocalMatMerge_C"};

static PetscErrorCode MatSpmvMPIDataDestroy(PetscCtxRt ctx)
{
  Mat_MPIAIJSpmv *sp = *(Mat_MPIAIJSpmv **)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(sp->params));
  PetscCall(MatSpmvGhostsDestroy(&sp->ghosts));
  PetscCall(PetscFree(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvMPIStrip(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvComposeConverters(B, MatSpmvMPI(B)->format, PETSC_TRUE, NULL, NULL));
  PetscCall(PetscObjectContainerCompose((PetscObject)B, MATSPMV_MPI_DATA, NULL, NULL)); /* frees the data */
  B->spptr = NULL;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(MatSpmvMPIComposedNames); k++) PetscCall(PetscObjectComposeFunction((PetscObject)B, MatSpmvMPIComposedNames[k], NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_MPIAIJSpmv(Mat A)
{
  MatSpmvBaseOps *base = MatSpmvMPIBase(A);
  Mat_MPIAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATSPMV_MPI_DATA, (PetscCtxRt)&sp));
  /* No container: MatHeaderMerge() set A's composed objects aside to put them back over the new
     insides, our data with them; only the base's goes */
  if (sp) PetscCall(MatSpmvMPIStrip(A));
  PetscCall(base->destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_MPIAIJSpmv(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_MPIAIJSpmv *sp, *msp;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &sp));
  PetscCall(MatSpmvMPIBase(A)->duplicate(A, op, M));
  PetscCall(MatSpmvMPIGetData(*M, &msp));
  PetscCheck(msp && msp->format == sp->format, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Duplicate lost the %s type", sp->format->mpitype);
  PetscCall(PetscMemcpy(msp->params, sp->params, sp->format->paramsize));
  msp->paramsset = sp->paramsset;
  msp->backend   = sp->backend;
  msp->colorder  = sp->colorder;
  PetscCall(MatSpmvMPIUpdateBlocks(*M, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Back to the base (mpiaijcusparse with a GPU, mpiaij without), or on to mpiaij */
static PetscErrorCode MatConvert_MPIAIJSpmv_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             B = *newmat, blk[2];
  const PetscInt *garray;
  MatSpmvBaseOps *base = MatSpmvMPIBase(A);
  PetscBool       tocusparse;

  PetscFunctionBegin;
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvMPIStrip(B));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIAIJSetPreallocation_C", base->preallocation));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", base->setpreallocationcoo));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIAIJGetLocalMatMerge_C", base->getlocalmatmerge));
  B->ops->mult                  = base->mult;
  B->ops->multadd               = base->multadd;
  B->ops->multtranspose         = base->multtranspose;
  B->ops->multtransposeadd      = base->multtransposeadd;
  B->ops->destroy               = base->destroy;
  B->ops->duplicate             = base->duplicate;
  B->ops->setfromoptions        = base->setfromoptions;
  B->ops->assemblyend           = base->assemblyend;
  B->ops->view                  = base->view;
  B->ops->eliminatezeros        = base->eliminatezeros;
  B->ops->transpose             = base->transpose;
  B->ops->creategraph           = base->creategraph;
  B->ops->productsetfromoptions = base->productsetfromoptions;
  if (B->preallocated) {
    PetscCall(MatMPIAIJGetSeqAIJ(B, &blk[0], &blk[1], &garray));
    for (int b = 0; b < 2; b++)
      if (blk[b]) PetscCall(MatConvert(blk[b], base->cusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ, MAT_INPLACE_MATRIX, &blk[b]));
  }
  if (!base->cusparse) {
    PetscCall(PetscFree(B->defaultvectype));
    PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  }
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, base->cusparse ? MATMPIAIJCUSPARSE : MATMPIAIJ));
  PetscCall(PetscStrcmpAny(type, &tocusparse, MATMPIAIJCUSPARSE, MATAIJCUSPARSE, ""));
  if (base->cusparse && !tocusparse) PetscCall(MatConvert(B, MATMPIAIJ, MAT_INPLACE_MATRIX, &B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_MPIAIJ_MPIAIJSpmv(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             B = *newmat;
  Mat_MPIAIJSpmv *sp;
  MatSpmvFormat  *format;
  PetscBool       same, isaij, iscusparse, usecusparse;

  PetscFunctionBegin;
  PetscCall(MatSpmvFormatFind(type, &format));
  PetscCheck(format, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s is not a petscspmv type", type);
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)B, format->mpitype, &same));
  if (same) {
    *newmat = B;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIAIJ, &isaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIAIJCUSPARSE, &iscusparse));
  PetscCheck(isaij || iscusparse, PetscObjectComm((PetscObject)B), PETSC_ERR_SUP, "Cannot convert a %s matrix to %s in place: convert it to MATMPIAIJ first", ((PetscObject)B)->type_name, format->mpitype);
  PetscCall(MatSpmvUseCUSPARSEBase(&usecusparse));
  if (usecusparse && isaij) { /* with a GPU the base is aijcusparse: device ghost vector and scatter */
    PetscCall(MatConvert(B, MATMPIAIJCUSPARSE, MAT_INPLACE_MATRIX, &B));
    iscusparse = PETSC_TRUE;
  }
  PetscCall(MatSpmvSaveBaseOps(B));

  PetscCall(PetscNew(&sp));
  sp->format = format;
  sp->base   = iscusparse ? &MatSpmvBaseMPICUSPARSE : &MatSpmvBaseMPI;
  PetscCall(PetscMalloc(format->paramsize, &sp->params));
  PetscCall(PetscMemcpy(sp->params, format->paramsdefault, format->paramsize));
  sp->backend = MAT_SPMV_BACKEND_AUTO;
  sp->data    = B->data;
  B->spptr    = sp->base;
  PetscCall(PetscObjectContainerCompose((PetscObject)B, MATSPMV_MPI_DATA, sp, MatSpmvMPIDataDestroy));

  B->ops->mult             = MatMult_MPIAIJSpmv;
  B->ops->multadd          = MatMultAdd_MPIAIJSpmv;
  B->ops->multtranspose    = MatMultTranspose_MPIAIJSpmv;
  B->ops->multtransposeadd = MatMultTransposeAdd_MPIAIJSpmv;
  B->ops->destroy          = MatDestroy_MPIAIJSpmv;
  B->ops->duplicate        = MatDuplicate_MPIAIJSpmv;
  B->ops->setfromoptions   = MatSetFromOptions_MPIAIJSpmv;
  B->ops->assemblyend      = MatAssemblyEnd_MPIAIJSpmv;
  B->ops->view             = MatView_MPIAIJSpmv;
  B->ops->eliminatezeros   = MatEliminateZeros_MPIAIJSpmv;
  B->ops->transpose        = MatTranspose_MPIAIJSpmv;
  PetscCall(MatSpmvSetGraphOps_MPIAIJSpmv(B, sp->base));
  PetscCall(MatSpmvSetValueOps_MPIAIJSpmv(B, sp->base)); /* MatAXPY() of a block-diagonal X on the device (values.c) */
  /* MatSOR with host vectors staged (spmvsor/) */
  if (sp->base->cusparse && MatSpmvDeviceOperations.setsormpi) PetscCall(MatSpmvDeviceOperations.setsormpi(B, sp->base->sor));

  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIAIJSetPreallocation_C", MatMPIAIJSetPreallocation_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_MPIAIJSpmv));
  if (sp->base->cusparse) B->ops->productsetfromoptions = MatProductSetFromOptions_MPIAIJSpmv;
  if (sp->base->getlocalmatmerge) PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatMPIAIJGetLocalMatMerge_C", MatMPIAIJGetLocalMatMerge_MPIAIJSpmv));
  PetscCall(MatSpmvComposeConverters(B, format, PETSC_TRUE, MatConvert_MPIAIJSpmv_MPIAIJ, MatConvert_MPIAIJ_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvSetBackend_C", MatSpmvSetBackend_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetBackend_C", MatSpmvGetBackend_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvSetColumnOrder_C", MatSpmvSetColumnOrder_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetColumnOrder_C", MatSpmvGetColumnOrder_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetParams_C", MatSpmvGetParams_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvParamsChanged_C", MatSpmvParamsChanged_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvCheckLayout_C", MatSpmvCheckLayout_MPIAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetStorage_C", MatSpmvGetStorage_MPIAIJSpmv));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, format->mpitype));
  PetscCall(MatSpmvMPIUpdateBlocks(B, PETSC_TRUE));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_MPIAIJSpmv(Mat A, MatSpmvFormat *format)
{
  PetscBool usecusparse;

  PetscFunctionBegin;
  PetscCall(MatSpmvUseCUSPARSEBase(&usecusparse));
  PetscCall(MatSetType(A, usecusparse ? MATMPIAIJCUSPARSE : MATMPIAIJ));
  PetscCall(MatConvert_MPIAIJ_MPIAIJSpmv(A, format->mpitype, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

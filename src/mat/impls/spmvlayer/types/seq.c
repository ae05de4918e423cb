/*
  SeqAIJ-derived GPU matrix types: how PETSc sees a matrix of any petscspmv format. Its state and
  type (convert, duplicate, destroy), options and backend, the four products and the operations we
  override (scale, binding to the CPU, store/retrieve values, eliminate zeros, transpose, view),
  the MatSpmv getters and setters, and the layout checks of the tests.

  With a GPU the base is SeqAIJCUSPARSE: aijcusparse keeps the CSR on the device and runs every
  operation it has there (scale, AXPY, COO assembly, products, factors and triangular solves);
  we replace its four matrix-vector products. Without one the base is SeqAIJ. A format layout
  of A (and of A^T, built on the first transpose product) is built lazily at the top of each
  product and kept current by a fingerprint: a structure change rebuilds the layout, a
  values-only change refreshes the slot values through the stored slot -> CSR map (one gather
  on the device from aijcusparse's device values: nothing crosses PCIe when they are current).
  The layouts: the engine (operator.c and below) builds them, keeps them current and runs the products.
*/
#include <petscdevice.h> /* PetscDeviceInitialize(): the module preload runs on PETSc's device */
#include "../spmvimpl.h"

static PetscErrorCode MatSpmvSetBackend_SeqAIJSpmv(Mat, MatSpmvBackend);
static PetscErrorCode MatSpmvSetColumnOrder_SeqAIJSpmv(Mat, MatSpmvColumnOrder);
static PetscErrorCode MatMult_SeqAIJSpmv(Mat, Vec, Vec);
static PetscErrorCode MatSpmvParamsChanged_SeqAIJSpmv(Mat);

/* Options of the format and the backend, under the matrix's prefix; layouts are dropped only if something changed */
static PetscErrorCode MatSpmvOptionsParse(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqAIJSpmv    *sp       = MatSpmvSeq(A);
  MatSpmvBackend     backend  = sp->backend;
  MatSpmvColumnOrder colorder = sp->colorder;
  PetscBool          changed;

  PetscFunctionBegin;
  PetscCall(MatSpmvParseOptions(sp->format, PetscOptionsObject, &backend, &colorder, sp->params, &changed));
  PetscCall(MatSpmvSetBackend_SeqAIJSpmv(A, backend));
  PetscCall(MatSpmvSetColumnOrder_SeqAIJSpmv(A, colorder));
  if (changed) PetscCall(MatSpmvReset(sp));
  sp->paramsset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options in a block of their own, titled with the format: -help prints each (prefix, title)
   once, and the "Matrix (Mat) options" block is usually printed for another matrix before ours
   (by MatSetFromOptions(); DMCreateMatrix()'s matrices have their options read at the first product) */
static PetscErrorCode MatSpmvReadOptions(Mat A)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, sp->format->title, "Mat");
  PetscCall(MatSpmvOptionsParse(A, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_SeqAIJSpmv(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (sp->base->setfromoptions) PetscCall(sp->base->setfromoptions(A, PetscOptionsObject));
  PetscCall(MatSpmvReadOptions(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Programs that never call MatSetFromOptions() still get -mat_<fmt>_* honoured at the first product */
static PetscErrorCode MatSpmvLazyOptions(Mat A, Mat_SeqAIJSpmv *sp)
{
  PetscFunctionBegin;
  if (!sp->paramsset) PetscCall(MatSpmvReadOptions(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvResolveBackend(Mat A, Mat_SeqAIJSpmv *sp)
{
  PetscBool gpu = PETSC_FALSE;

  PetscFunctionBegin;
  if (sp->resolved) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  if (sp->backend != MAT_SPMV_BACKEND_HOST) PetscCall(MatSpmvCUDAAvailable(&gpu));
#endif
  PetscCheck(gpu || sp->backend != MAT_SPMV_BACKEND_CUDA, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "-mat_%s_backend cuda was asked for but no CUDA GPU is visible%s; use -mat_%s_backend auto or host to run the host reference kernel", sp->format->name,
#if defined(PETSC_HAVE_CUDA)
             "",
#else
             " (PETSc was built without CUDA)",
#endif
             sp->format->name);
  if (!gpu && sp->backend == MAT_SPMV_BACKEND_AUTO) {
    static PetscBool said = PETSC_FALSE;
    if (!said) PetscCall(PetscInfo(A, "No CUDA GPU visible: %s products run the host reference kernel\n", sp->format->name));
    said = PETSC_TRUE;
  }
  sp->ondevice = gpu;
  sp->resolved = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A block of an MPI matrix takes the parallel matrix's parameters (its own options are not read) */
PetscErrorCode MatSpmvAdoptParams_SeqAIJSpmv(Mat A, const void *params, MatSpmvBackend backend, MatSpmvColumnOrder colorder)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  PetscBool       same;

  PetscFunctionBegin;
  PetscCall(PetscMemcmp(sp->params, params, sp->format->paramsize, &same));
  if (!same) {
    PetscCall(PetscMemcpy(sp->params, params, sp->format->paramsize));
    PetscCall(MatSpmvReset(sp));
  }
  sp->paramsset = PETSC_TRUE;
  PetscCall(MatSpmvSetBackend_SeqAIJSpmv(A, backend));
  PetscCall(MatSpmvSetColumnOrder_SeqAIJSpmv(A, colorder));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On the GPU a layout is built for op(A) only once op(A) has taken -petscspmv_layout_min_products
   products through aijcusparse's own at its nonzero pattern (its values may change: a refresh is one
   gather). A build costs as much as a few hundred products' gain (docs/results.md, "Never slower
   than aijcusparse"), and multigrid levels, GAMG's coarse operators and interpolations, or a matrix
   of a few Newton steps get fewer products than that: they stay exactly aijcusparse, while a Krylov
   solve's operator gets its layout early in its first solve. A block of an MPI matrix waits for its parent,
   which counts the parallel products and tells all processes' blocks together. A backend asked for
   (-mat_<fmt>_backend cuda) builds at once */
static PetscErrorCode MatSpmvCountPattern(Mat A, Mat_SeqAIJSpmv *sp)
{
  PetscObjectState nzstate;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, &nzstate));
  if (sp->countstate == nzstate && sp->countdata == A->data) PetscFunctionReturn(PETSC_SUCCESS);
  if (sp->countstate != MATSPMV_NOSTATE && !sp->mpiblock) PetscCall(MatSpmvReset(sp)); /* a new pattern waits again */
  sp->nbase[0] = sp->nbase[1] = 0;
  sp->countstate              = nzstate;
  sp->countdata               = A->data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options and backend settled: errors surface here, before MatMult_MPIAIJ starts its scatter */
static PetscErrorCode MatSpmvUpdateSettings(Mat A, Mat_SeqAIJSpmv *sp)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvLazyOptions(A, sp));
  PetscCall(MatSpmvResolveBackend(A, sp));
  if (sp->ondevice && A->assembled) PetscCall(MatSpmvCountPattern(A, sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvUpdateSettings_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvUpdateSettings(A, MatSpmvSeq(A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* op(A) still takes aijcusparse's products (after MatSpmvUpdateSettings_SeqAIJSpmv()) */
static PetscBool MatSpmvWaits(Mat_SeqAIJSpmv *sp, MatSpmvOp t)
{
  if (!sp->ondevice || sp->backend != MAT_SPMV_BACKEND_AUTO || !sp->base->cusparse) return PETSC_FALSE;
  if (sp->declined[t]) return PETSC_TRUE;
  if (sp->mpiblock) return (PetscBool)!sp->allowed[t];
  return (PetscBool)(!sp->L[t] && sp->nbase[t] < MatSpmvLayoutMinProducts);
}

/* The base's own products for op(A): AIJ's without a GPU and no backend asked for (faster on a CPU
   than the formats' reference kernels; -mat_<fmt>_backend host runs those), aijcusparse's while op(A)
   waits for its layout */
static PetscBool MatSpmvUsesBaseProducts(Mat_SeqAIJSpmv *sp, MatSpmvOp t)
{
  return (PetscBool)(sp->resolved && ((!sp->ondevice && sp->backend == MAT_SPMV_BACKEND_AUTO) || MatSpmvWaits(sp, t)));
}

/* Whether op(A)'s products are its base's, no layout (bound to the CPU, no GPU, or waiting): after
   MatSpmvUpdateSettings_SeqAIJSpmv() */
PetscBool MatSpmvUsesBase_SeqAIJSpmv(Mat A, MatSpmvOp t)
{
  return (PetscBool)(A->ops->mult != MatMult_SeqAIJSpmv || MatSpmvUsesBaseProducts(MatSpmvSeq(A), t));
}

/* A block of an MPI matrix: its parent allows the layouts of A and A^T on all processes at once */
PetscErrorCode MatSpmvAllowLayouts_SeqAIJSpmv(Mat A, const PetscBool allow[2])
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  sp->mpiblock   = PETSC_TRUE;
  sp->allowed[0] = allow[0];
  sp->allowed[1] = allow[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout for op(A) brought up to date ahead of a product (MPI: before its ghost scatter
   starts); nothing for a block bound to the CPU, whose products are SeqAIJ's, or one still waiting */
PetscErrorCode MatSpmvUpdateLayout_SeqAIJSpmv(Mat A, MatSpmvOp t)
{
  Mat_SeqAIJSpmv *sp;
  MatSpmvLayout   L;

  PetscFunctionBegin;
  if (A->ops->mult != MatMult_SeqAIJSpmv) PetscFunctionReturn(PETSC_SUCCESS);
  sp = MatSpmvSeq(A);
  PetscCall(MatSpmvUpdateSettings(A, sp));
  if (MatSpmvUsesBaseProducts(sp, t)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvUpdate(A, sp, t, &L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(A) x (+ z) by the base's own product (aijcusparse's transpose-add run in place) */
static PetscErrorCode MatSpmvBaseProduct(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvOp t, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  if (t == 0 && !z) PetscCall(sp->base->mult(A, x, y));
  else if (t == 0) PetscCall(sp->base->multadd(A, x, z, y));
  else if (!z) PetscCall(sp->base->multtranspose(A, x, y));
  else if (sp->base->cusparse) PetscCall(MatSpmvCUSPARSEMultTransposeAdd(sp->base->multtransposeadd, A, x, z, y));
  else PetscCall(sp->base->multtransposeadd(A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's product of op(A) with host vectors, which it gets wrong (docs/limits.md): through
   CUDA work vectors kept with A (a declined layout's products) */
static PetscErrorCode MatSpmvMultStaged(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvOp t, Vec x, Vec z, Vec y)
{
  Vec wx, wy;

  PetscFunctionBegin;
  PetscCall(MatSpmvGetDeviceWorkVec(A, t ? "MatSpmvStagedXT" : "MatSpmvStagedX", t ? A->rmap : A->cmap, &wx));
  PetscCall(MatSpmvGetDeviceWorkVec(A, t ? "MatSpmvStagedYT" : "MatSpmvStagedY", t ? A->cmap : A->rmap, &wy));
  PetscCall(VecCopy(x, wx));
  if (z) PetscCall(VecCopy(z, wy));
  PetscCall(MatSpmvBaseProduct(A, sp, t, wx, z ? wy : NULL, wy));
  PetscCall(VecCopy(wy, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(A) x (+ z); t = 0: op(A) = A, t = 1: op(A) = A^T. Without a GPU and a backend asked for,
   AIJ's own products; on the GPU aijcusparse's until op(A) has earned its layout, or takes host
   vectors, which aijcusparse's products get wrong (ours stage them: the layout is built at once) */
static PetscErrorCode MatSpmvMult(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvOp t, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvUpdateSettings(A, sp));
  if (!sp->mpiblock && MatSpmvWaits(sp, t) && !sp->declined[t]) {
    PetscBool takes;

    PetscCall(MatSpmvCUSPARSETakesVecs(x, z, y, &takes));
    if (!takes) {
      PetscCall(PetscInfo(A, "%s: a product of %s with host vectors, which aijcusparse's products get wrong: its layout now\n", sp->format->name, t ? "A^T" : "A"));
      sp->nbase[t] = MatSpmvLayoutMinProducts;
    } else {
      MatInfo info;

      PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
      if (info.nz_used > (PetscLogDouble)PETSC_INT32_MAX) {
        PetscCall(PetscInfo(A, "%s: %.0f nonzeros, past which aijcusparse's products fail (docs/limits.md): its layout now\n", sp->format->name, (double)info.nz_used));
        sp->nbase[t] = MatSpmvLayoutMinProducts;
      }
    }
  }
  if (!MatSpmvUsesBaseProducts(sp, t)) { /* the layout made current (built, rebuilt, its values updated), or declined (then aijcusparse's products stay) */
    MatSpmvLayout L;

    PetscCall(MatSpmvUpdate(A, sp, t, &L));
  }
  if (sp->declined[t]) {
    PetscBool takes;

    PetscCall(MatSpmvCUSPARSETakesVecs(x, z, y, &takes));
    if (!takes) {
      PetscCall(MatSpmvMultStaged(A, sp, t, x, z, y));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (MatSpmvUsesBaseProducts(sp, t)) {
    PetscCall(MatSpmvBaseProduct(A, sp, t, x, z, y));
    if (sp->ondevice && !sp->mpiblock && ++sp->nbase[t] == MatSpmvLayoutMinProducts)
      PetscCall(PetscInfo(A, "%s: %" PetscInt_FMT " products of %s through aijcusparse's at this nonzero pattern (-petscspmv_layout_min_products): the next builds its layout\n", sp->format->name, sp->nbase[t], t ? "A^T" : "A"));
  } else PetscCall(MatSpmvApply(A, sp, t, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_SeqAIJSpmv(Mat A, Vec x, Vec y)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (MatSpmvLayoutCurrent(A, sp, MATSPMV_OP_A)) PetscCall(MatSpmvApply(A, sp, MATSPMV_OP_A, x, NULL, y));
  else PetscCall(MatSpmvMult(A, sp, MATSPMV_OP_A, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqAIJSpmv(Mat A, Vec x, Vec z, Vec y)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (MatSpmvLayoutCurrent(A, sp, MATSPMV_OP_A)) PetscCall(MatSpmvApply(A, sp, MATSPMV_OP_A, x, z, y));
  else PetscCall(MatSpmvMult(A, sp, MATSPMV_OP_A, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_SeqAIJSpmv(Mat A, Vec x, Vec y)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (MatSpmvLayoutCurrent(A, sp, MATSPMV_OP_AT)) PetscCall(MatSpmvApply(A, sp, MATSPMV_OP_AT, x, NULL, y));
  else PetscCall(MatSpmvMult(A, sp, MATSPMV_OP_AT, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_SeqAIJSpmv(Mat A, Vec x, Vec z, Vec y)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (MatSpmvLayoutCurrent(A, sp, MATSPMV_OP_AT)) PetscCall(MatSpmvApply(A, sp, MATSPMV_OP_AT, x, z, y));
  else PetscCall(MatSpmvMult(A, sp, MATSPMV_OP_AT, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatRetrieveValues() changes the host values without bumping the object state (nor, on
   aijcusparse, marking the device copy stale) */
static PetscErrorCode MatRetrieveValues_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  PetscCall(sp->base->retrievevalues(A));
  if (sp->base->cusparse) A->offloadmask = PETSC_OFFLOAD_CPU;
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatStoreValues_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  PetscCall(MatSpmvUpdateHostValues(A));
  PetscCall(sp->base->storevalues(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The base scales its CSR values (on the device with aijcusparse). A layout holding the values
   from before keeps them and multiplies its products by the factor: a MatScale() costs no refresh
   (a gather of every value) at the next product. MatScale() raises the state by one right after
   this returns, so the layout is marked as holding the values of that state. */
static PetscErrorCode MatScale_SeqAIJSpmv(Mat A, PetscScalar a)
{
  Mat_SeqAIJSpmv  *sp    = MatSpmvSeq(A);
  const PetscReal  range = PetscPowReal(PETSC_MAX_REAL, 0.25); /* far from overflow and underflow in the products */
  PetscObjectState before, after;
  PetscBool        fold[2];

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &before));
  for (int t = 0; t < 2; t++) {
    MatSpmvLayout L = sp->L[t];

    fold[t] = PETSC_FALSE;
    if (L && !L->borrowed && sp->state[t] == before && a != (PetscScalar)0.0) {
      PetscReal s = PetscAbsScalar(L->scale * a);

      fold[t] = (PetscBool)(s <= range && s >= 1.0 / range);
    }
  }
  PetscCall(MatSpmvScaleValues(A, a)); /* the base's, or ours past cuBLAS's 32-bit count */
  PetscCall(PetscObjectStateGet((PetscObject)A, &after));
  for (int t = 0; t < 2; t++) {
    if (!fold[t]) continue;
    sp->L[t]->scale *= a;
    sp->state[t] = after + 1;
    PetscCall(PetscInfo(A, "MatScale() folded into the %s layout's products: no refresh\n", t ? "A^T" : "A"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's, from its device copy: uploaded first where the host's is newer, since aijcusparse
   then reads the diagonal on the host into the device vector, several times slower than the upload,
   which the first product needs anyway (docs/results.md, KSP ex45's first Jacobi application) */
static PetscErrorCode MatGetDiagonal_SeqAIJSpmv(Mat A, Vec v)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUSPARSEUpload(A));
  PetscCall(MatSpmvSeq(A)->base->getdiagonal(A, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The four products, MatScale(), MatShift(), MatDiagonalScale(), MatCreateGraph() and MatGetDiagonal(): ours unless A is bound to the CPU (then SeqAIJ's, as aijcusparse does) */
static PetscErrorCode MatSpmvSetProducts(Mat A)
{
  PetscFunctionBegin;
  if (MatSpmvSeq(A)->base->cusparse) A->ops->getdiagonal = MatGetDiagonal_SeqAIJSpmv;
  A->ops->scale            = MatScale_SeqAIJSpmv;
  A->ops->mult             = MatMult_SeqAIJSpmv;
  A->ops->multadd          = MatMultAdd_SeqAIJSpmv;
  A->ops->multtranspose    = MatMultTranspose_SeqAIJSpmv;
  A->ops->multtransposeadd = MatMultTransposeAdd_SeqAIJSpmv;
  /* aijcusparse's MatMultHermitianTransposeAdd() asks cuSPARSE for the conjugate transpose, refused for a real
     matrix, and keeps y's old contents when y is not z; both of its Hermitian products take only CUDA vectors
     (docs/limits.md): in real arithmetic they are the transpose's, ours; in complex PETSc's conjugates around
     our MatMultTranspose() */
  if (MatSpmvSeq(A)->base->cusparse) {
    A->ops->multhermitiantranspose    = PetscDefined(USE_COMPLEX) ? NULL : MatMultTranspose_SeqAIJSpmv;
    A->ops->multhermitiantransposeadd = PetscDefined(USE_COMPLEX) ? NULL : MatMultTransposeAdd_SeqAIJSpmv;
  }
  PetscCall(MatSpmvSetValueOps_SeqAIJSpmv(A)); /* MatShift, MatDiagonalScale on the device (values.c) */
  PetscCall(MatSpmvSetGraphOps_SeqAIJSpmv(A)); /* MatCreateGraph on the device (graph.c) */
  /* MatSOR on the device (spmvsor/) */
  if (MatSpmvSeq(A)->base->cusparse && MatSpmvDeviceOperations.setsor) PetscCall(MatSpmvDeviceOperations.setsor(A, MatSpmvSeq(A)->base->sor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBindToCPU_SeqAIJSpmv(Mat A, PetscBool flg)
{
  Mat_SeqAIJSpmv  *sp = MatSpmvSeq(A);
  PetscObjectState state;

  PetscFunctionBegin;
  /* aijcusparse's binding swaps in its device functions or SeqAIJ's host ones (binding brings the values to the host) */
  PetscCall(MatSpmvBaseSeqCUSPARSE.bindtocpu(A, flg));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (flg) {
    sp->bound      = PETSC_TRUE;
    sp->boundstate = state;
  } else {
    /* SeqAIJ's functions changed the host values while A was bound without telling aijcusparse,
       whose device copy would be used again as it was */
    if (sp->bound && state != sp->boundstate && A->offloadmask != PETSC_OFFLOAD_UNALLOCATED) {
      A->offloadmask = PETSC_OFFLOAD_CPU;
      PetscCall(PetscInfo(A, "Values changed while bound to the CPU: the device copy is refreshed at its next use\n"));
    }
    sp->bound = PETSC_FALSE;
    PetscCall(MatSpmvSetProducts(A));
    PetscCall(MatSpmvSetProductHooks_SeqAIJSpmv(A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's MatEliminateZeros() compacts the host CSR in place: it must see current values, and
   aijcusparse must know its device CSR is stale after (its assembly does not upload) */
static PetscErrorCode MatEliminateZeros_SeqAIJSpmv(Mat A, PetscBool keep)
{
  Mat_SeqAIJSpmv  *sp = MatSpmvSeq(A);
  PetscObjectState before, after;

  PetscFunctionBegin;
  PetscCall(MatSpmvUpdateHostValues(A));
  PetscCall(MatGetNonzeroState(A, &before));
  PetscCall(sp->base->eliminatezeros(A, keep));
  PetscCall(MatGetNonzeroState(A, &after));
  if (sp->base->cusparse && after != before) A->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's MatTranspose() with MAT_REUSE_MATRIX writes the host values of B in place: on the
   aijcusparse base its device copy must be marked stale */
static PetscErrorCode MatTranspose_SeqAIJSpmv(Mat A, MatReuse reuse, Mat *B)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A), *bsp;

  PetscFunctionBegin;
  PetscCall(sp->base->transpose(A, reuse, B));
  if (reuse == MAT_INPLACE_MATRIX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvSeqGetData(*B, &bsp));
  if (!bsp) PetscFunctionReturn(PETSC_SUCCESS);
  /* a new transpose is an operator PETSc derived: a format that refuses its pattern gives way */
  if (reuse == MAT_INITIAL_MATRIX) bsp->derived = PETSC_TRUE;
  else if (bsp->base->cusparse && (*B)->offloadmask != PETSC_OFFLOAD_UNALLOCATED) (*B)->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SeqAIJSpmv(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJSpmv   *sp = MatSpmvSeq(A);
  PetscBool         isascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(sp->base->view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscTryMethod(A, "MatSpmvSORView_C", (Mat, PetscViewer), (A, viewer)); /* composed by the device SOR at A's first MatSOR() */
  if (MatSpmvFormatOnly) PetscCall(PetscViewerASCIIPrintf(viewer, "petscspmv: the SpMV format only (-petscspmv_format_only): factors, MatSOR(), sparse products and GAMG's set-up are aijcusparse's and PETSc's\n"));
  if (A->assembled && !A->factortype) {
    MatSpmvLayout L;

    PetscCall(MatSpmvUpdateSettings(A, sp));
    if (MatSpmvUsesBaseProducts(sp, 0) && !sp->ondevice) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s): no GPU visible, products are AIJ's (-mat_%s_backend host runs the format's reference kernel)\n", sp->format->title, sp->format->name, sp->format->name));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (sp->declined[0]) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s): no layout, products are aijcusparse's: %s\n", sp->format->title, sp->format->name, sp->declinedwhy[0]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (MatSpmvUsesBaseProducts(sp, 0)) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s): products are aijcusparse's until the matrix has taken %" PetscInt_FMT " of them at its nonzero pattern (-petscspmv_layout_min_products; %" PetscInt_FMT " so far), then the format's\n",
                                       sp->format->title, sp->format->name, MatSpmvLayoutMinProducts, sp->nbase[0]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(MatSpmvUpdate(A, sp, MATSPMV_OP_A, &L));
    if (!L) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s): no layout, products are aijcusparse's: %s\n", sp->format->title, sp->format->name, sp->declinedwhy[0]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s), backend %s, base %s\n", sp->format->title, sp->format->name, sp->ondevice ? "CUDA" : "host reference", sp->base->cusparse ? "aijcusparse" : "aij"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "slots %" PetscInt_FMT " for %" PetscInt_FMT " nonzeros: padding ratio %.3f, %.2f bytes per nonzero stored (CSR: %.2f)%s\n", L->nslots, L->nnz, L->nnz ? (double)L->nslots / (double)L->nnz : 1.0,
                                     L->nnz ? (double)((L->borrowed ? 0 : L->nslots * sizeof(PetscScalar)) + L->indexbytes) / (double)L->nnz : 0.0,
                                     L->nnz ? (double)(L->nnz * (sizeof(PetscScalar) + sizeof(int)) + (L->ym + 1) * sizeof(int)) / (double)L->nnz : 0.0, L->borrowed ? ", values shared with aijcusparse" : ""));
    if (L->crow) PetscCall(PetscViewerASCIIPrintf(viewer, "rows with entries only: %" PetscInt_FMT " of %" PetscInt_FMT "\n", L->m, L->ym));
    if (L->format != sp->format) PetscCall(PetscViewerASCIIPrintf(viewer, "format %s: %s\n", L->format->name, L->why));
    if (L->colorder == MAT_SPMV_COLUMN_ORDER_FREQUENCY)
      PetscCall(PetscViewerASCIIPrintf(viewer, "columns renumbered by frequency (column order %s): the 1%% most frequent hold %.1f%% of the nonzeros; each product gathers x into that order\n", MatSpmvColumnOrders[sp->colorder], 100.0 * (double)L->hotshare));
    else if (L->colorder == MAT_SPMV_COLUMN_ORDER_RCM)
      PetscCall(PetscViewerASCIIPrintf(viewer, "columns renumbered by reverse Cuthill-McKee (column order %s): groups of %d rows spanning %d columns or more hold %.1f%% of the nonzeros, far ones (k-th columns spanning as much) %.1f%% in the natural order; each product gathers x into that order%s\n", MatSpmvColumnOrders[sp->colorder], MATSPMV_SPAN_ROWS, MATSPMV_SPAN16,
                                       100.0 * (double)L->wideshare[1], 100.0 * (double)L->wideshare[0], L->rowsrcm ? "; the rows are stored in that order too" : ""));
    else {
      if (L->hotshare >= 0)
        PetscCall(PetscViewerASCIIPrintf(viewer, "natural column order: the 1%% most frequent columns hold %.1f%% of the nonzeros, less than the %.0f%% that renumbering asks\n", 100.0 * (double)L->hotshare, 100.0 * MATSPMV_HOT_SHARE));
      if (L->wideshare[0] >= 0 && L->wideshare[1] >= 0)
        PetscCall(PetscViewerASCIIPrintf(viewer, "natural column order: groups of %d rows whose k-th columns span %d or more hold %.1f%% of the nonzeros, at most %.1f%% in reverse Cuthill-McKee order (renumbered when at most half)\n", MATSPMV_SPAN_ROWS, MATSPMV_SPAN16,
                                         100.0 * (double)L->wideshare[0], 100.0 * (double)L->wideshare[1]));
    }
    PetscCall(L->format->view(L, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const MatSpmvComposedNames[] = {"MatSpmvSetBackend_C", "MatSpmvGetBackend_C", "MatSpmvSetColumnOrder_C", "MatSpmvGetColumnOrder_C", "MatSpmvGetParams_C", "MatSpmvParamsChanged_C", "MatSpmvCheckLayout_C", "MatSpmvGetStorage_C"};

static PetscErrorCode MatSpmvSeqDataDestroy(PetscCtxRt ctx)
{
  Mat_SeqAIJSpmv *sp = *(Mat_SeqAIJSpmv **)ctx;

  PetscFunctionBegin;
  PetscCall(MatSpmvReset(sp));
  PetscCall(PetscFree(sp->params));
  PetscCall(PetscFree(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Give B the base's functions back and drop everything the conversion added */
static PetscErrorCode MatSpmvSeqStrip(Mat B)
{
  Mat_SeqAIJSpmv *sp   = MatSpmvSeq(B);
  MatSpmvBaseOps *base = sp->base;

  PetscFunctionBegin;
  PetscCall(MatSpmvComposeConverters(B, sp->format, PETSC_FALSE, NULL, NULL));
  PetscCall(MatSpmvClearProductHooks_SeqAIJSpmv(B));
  B->ops->productsetfromoptions = base->productsetfromoptions;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(MatSpmvComposedNames); k++) PetscCall(PetscObjectComposeFunction((PetscObject)B, MatSpmvComposedNames[k], NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatRetrieveValues_C", base->retrievevalues));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatStoreValues_C", base->storevalues));
  B->ops->mult             = base->mult;
  B->ops->multadd          = base->multadd;
  B->ops->multtranspose    = base->multtranspose;
  B->ops->multtransposeadd = base->multtransposeadd;
  B->ops->destroy          = base->destroy;
  B->ops->duplicate        = base->duplicate;
  B->ops->setfromoptions   = base->setfromoptions;
  B->ops->view             = base->view;
  B->ops->scale            = base->scale;
  B->ops->shift            = base->shift;
  B->ops->diagonalscale    = base->diagonalscale;
  B->ops->eliminatezeros   = base->eliminatezeros;
  B->ops->transpose        = base->transpose;
  B->ops->creategraph      = base->creategraph;
  B->ops->getdiagonal      = base->getdiagonal;
  if (base->cusparse) {
    B->ops->bindtocpu = base->bindtocpu;
    /* aijcusparse's own functions for the binding B is in (products, composed product hooks) */
    PetscCall(base->bindtocpu(B, B->boundtocpu));
  }
  PetscCall(PetscObjectContainerCompose((PetscObject)B, MATSPMV_SEQ_DATA, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (sp) {
    PetscErrorCode (*destroy)(Mat) = sp->base->destroy;

    PetscCall(MatSpmvSeqStrip(A));
    PetscCall((*destroy)(A));
  } else {
    /* MatHeaderMerge() destroys A's data with its composed objects set aside, and gives them back
       after: our state stays (the fingerprint sees the new data) and only the base's data goes */
    PetscCall((A->ops->bindtocpu == MatBindToCPU_SeqAIJSpmv ? MatSpmvBaseSeqCUSPARSE.destroy : MatSpmvBaseSeq.destroy)(A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Back to the base (seqaijcusparse with a GPU, seqaij without), or on to seqaij */
static PetscErrorCode MatConvert_SeqAIJSpmv_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat       B = *newmat;
  PetscBool tocusparse;

  PetscFunctionBegin;
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
  if (reuse != MAT_REUSE_MATRIX) {
    PetscBool cusparse = MatSpmvSeq(B)->base->cusparse;

    PetscCall(MatSpmvSeqStrip(B));
    if (!cusparse) {
      PetscCall(PetscFree(B->defaultvectype));
      PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
    }
    PetscCall(PetscObjectChangeTypeName((PetscObject)B, cusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ));
    PetscCall(PetscStrcmpAny(type, &tocusparse, MATSEQAIJCUSPARSE, MATAIJCUSPARSE, ""));
    if (cusparse && !tocusparse) PetscCall(MatConvert(B, MATSEQAIJ, MAT_INPLACE_MATRIX, &B));
  }
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDuplicate_SeqAIJSpmv(Mat A, MatDuplicateOption op, Mat *M)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A), *msp;
  PetscBool       ours;

  PetscFunctionBegin;
  /* the base's duplicate creates the copy with our type name; aijcusparse's then makes it
     seqaijcusparse again, and we convert it back */
  PetscCall(sp->base->duplicate(A, op, M));
  PetscCall(PetscObjectTypeCompare((PetscObject)*M, sp->format->seqtype, &ours));
  if (!ours) PetscCall(MatConvert_SeqAIJ_SeqAIJSpmv(*M, sp->format->seqtype, MAT_INPLACE_MATRIX, M));
  msp = MatSpmvSeq(*M);
  PetscCheck(msp && msp->format == sp->format, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Duplicate lost the %s type", sp->format->name);
  PetscCall(PetscMemcpy(msp->params, sp->params, sp->format->paramsize));
  msp->paramsset = sp->paramsset;
  msp->backend   = sp->backend;
  msp->colorder  = sp->colorder;
  msp->resolved  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvSetBackend_SeqAIJSpmv(Mat A, MatSpmvBackend backend)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (backend == sp->backend) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvReset(sp));
  sp->backend  = backend;
  sp->resolved = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetBackend_SeqAIJSpmv(Mat A, MatSpmvBackend *backend)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  *backend = sp->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvSetColumnOrder_SeqAIJSpmv(Mat A, MatSpmvColumnOrder colorder)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (colorder == sp->colorder) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvReset(sp));
  sp->colorder = colorder;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetColumnOrder_SeqAIJSpmv(Mat A, MatSpmvColumnOrder *colorder)
{
  PetscFunctionBegin;
  *colorder = MatSpmvSeq(A)->colorder;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetParams_SeqAIJSpmv(Mat A, MatSpmvFormat **format, void **params)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  *format = sp->format;
  *params = sp->params;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGetStorage_SeqAIJSpmv(Mat A, PetscInt *nslots, PetscLogDouble *bytes)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  MatSpmvLayout   L;

  PetscFunctionBegin;
  PetscCall(MatSpmvUpdateSettings(A, sp));
  PetscCall(MatSpmvUpdate(A, sp, MATSPMV_OP_A, &L));
  if (nslots) *nslots = L ? L->nslots : 0; /* declined: no layout */
  if (bytes) *bytes = L ? (PetscLogDouble)L->nslots * sizeof(PetscScalar) + (PetscLogDouble)L->indexbytes : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Layout invariants, for tests (check.c), with the options read as for a product */
static PetscErrorCode MatSpmvCheckLayout_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvUpdateSettings_SeqAIJSpmv(A));
  PetscCall(MatSpmvCheckLayouts(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatConvert_SeqAIJ_SeqAIJSpmv(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat             B = *newmat;
  Mat_SeqAIJSpmv *sp;
  MatSpmvFormat  *format;
  PetscBool       same, isaij, iscusparse, usecusparse;

  PetscFunctionBegin;
  PetscCall(MatSpmvFormatFind(type, &format));
  PetscCheck(format, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s is not a petscspmv type", type);
  PetscCall(MatSpmvUseCUSPARSEBase(&usecusparse));
  if (usecusparse && reuse != MAT_REUSE_MATRIX) { /* the device code loads during the copy below (PETSc's device chosen first) */
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
    PetscCall(MatSpmvPreloadDeviceCode(format));
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)B, format->seqtype, &same));
  if (same) {
    *newmat = B;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJ, &isaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJCUSPARSE, &iscusparse));
  PetscCheck(isaij || iscusparse, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot convert a %s matrix to %s in place: convert it to MATSEQAIJ first", ((PetscObject)B)->type_name, format->seqtype);
  PetscCheck(!B->factortype, PETSC_COMM_SELF, PETSC_ERR_SUP, "A factored matrix cannot become %s", format->seqtype);
  if (usecusparse && isaij) { /* with a GPU the base is aijcusparse */
    PetscCall(MatConvert(B, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &B));
    iscusparse = PETSC_TRUE;
  }
  PetscCall(MatSpmvSaveBaseOps(B));

  /* aijcusparse's duplicate hands back a copy of ours renamed seqaijcusparse: its data stays */
  PetscCall(MatSpmvSeqGetData(B, &sp));
  if (sp) PetscCheck(sp->format == format, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot convert a matrix that was %s to %s in place: convert it to MATSEQAIJ first", sp->format->seqtype, format->seqtype);
  else {
    PetscCall(PetscNew(&sp));
    sp->format = format;
    PetscCall(PetscMalloc(format->paramsize, &sp->params));
    PetscCall(PetscMemcpy(sp->params, format->paramsdefault, format->paramsize));
    sp->backend    = MAT_SPMV_BACKEND_AUTO;
    sp->colorder   = MAT_SPMV_COLUMN_ORDER_AUTO;
    sp->countstate = MATSPMV_NOSTATE;
    PetscCall(PetscObjectContainerCompose((PetscObject)B, MATSPMV_SEQ_DATA, sp, MatSpmvSeqDataDestroy));
  }
  PetscCall(MatSpmvReset(sp)); /* MatDuplicate copies nonzerostate: the fingerprint starts from an impossible one */
  sp->base     = iscusparse ? &MatSpmvBaseSeqCUSPARSE : &MatSpmvBaseSeq;
  sp->resolved = PETSC_FALSE;

  if (!iscusparse || !B->boundtocpu) PetscCall(MatSpmvSetProducts(B)); /* bound aijcusparse keeps SeqAIJ's */
  B->ops->destroy        = MatDestroy_SeqAIJSpmv;
  B->ops->duplicate      = MatDuplicate_SeqAIJSpmv;
  B->ops->setfromoptions = MatSetFromOptions_SeqAIJSpmv;
  B->ops->view           = MatView_SeqAIJSpmv;
  B->ops->eliminatezeros = MatEliminateZeros_SeqAIJSpmv;
  B->ops->transpose      = MatTranspose_SeqAIJSpmv;
  if (iscusparse) B->ops->bindtocpu = MatBindToCPU_SeqAIJSpmv;
  PetscCall(MatSpmvSetProductHooks_SeqAIJSpmv(B));

  PetscCall(MatSpmvComposeConverters(B, format, PETSC_FALSE, MatConvert_SeqAIJSpmv_SeqAIJ, MatConvert_SeqAIJ_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvSetBackend_C", MatSpmvSetBackend_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetBackend_C", MatSpmvGetBackend_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvSetColumnOrder_C", MatSpmvSetColumnOrder_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetColumnOrder_C", MatSpmvGetColumnOrder_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetParams_C", MatSpmvGetParams_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvParamsChanged_C", MatSpmvParamsChanged_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvCheckLayout_C", MatSpmvCheckLayout_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvGetStorage_C", MatSpmvGetStorage_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatRetrieveValues_C", MatRetrieveValues_SeqAIJSpmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatStoreValues_C", MatStoreValues_SeqAIJSpmv));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, format->seqtype));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCreate_SeqAIJSpmv(Mat A, MatSpmvFormat *format)
{
  PetscBool usecusparse;

  PetscFunctionBegin;
  PetscCall(MatSpmvUseCUSPARSEBase(&usecusparse));
  PetscCall(MatSetType(A, usecusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ));
  PetscCall(MatConvert_SeqAIJ_SeqAIJSpmv(A, format->seqtype, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the format's parameters changed through the API, the layouts must be rebuilt */
static PetscErrorCode MatSpmvParamsChanged_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  PetscCall(MatSpmvReset(sp));
  sp->paramsset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SeqAIJ-derived GPU matrix types: the plumbing shared by every petscspmv format.

  With a GPU the base is SeqAIJCUSPARSE: aijcusparse keeps the CSR on the device and runs every
  operation it has there (scale, AXPY, COO assembly, products, factors and triangular solves);
  we replace its four matrix-vector products. Without one the base is SeqAIJ. A format layout
  of A (and of A^T, built on the first transpose product) is built lazily at the top of each
  product and kept current by a fingerprint: a structure change rebuilds the layout, a
  values-only change refreshes the slot values through the stored slot -> CSR map (one gather
  on the device from aijcusparse's device values: nothing crosses PCIe when they are current).
*/
#include "aijspmvimpl.h"

#define MATSPMV_SEQ_DATA "MatSpmvSeqData"

PetscErrorCode MatSpmvSeqGetData(Mat A, Mat_SeqAIJSpmv **sp)
{
  PetscFunctionBegin;
  *sp = NULL;
  PetscCall(PetscObjectContainerQuery((PetscObject)A, MATSPMV_SEQ_DATA, (PetscCtxRt)sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every function below is installed only on our matrices: the data is there */
static inline Mat_SeqAIJSpmv *MatSpmvSeq(Mat A)
{
  Mat_SeqAIJSpmv *sp = NULL;

  (void)PetscObjectContainerQuery((PetscObject)A, MATSPMV_SEQ_DATA, (PetscCtxRt)&sp);
  return sp;
}

static const PetscObjectState MATSPMV_NOSTATE = -1; /* no real state has this value */

static PetscErrorCode MatSpmvSetBackend_SeqAIJSpmv(Mat, MatSpmvBackend);
static PetscErrorCode MatSpmvSetColumnOrder_SeqAIJSpmv(Mat, MatSpmvColumnOrder);
static PetscErrorCode MatMult_SeqAIJSpmv(Mat, Vec, Vec);
static PetscErrorCode MatSpmvParamsChanged_SeqAIJSpmv(Mat);

static PetscErrorCode MatSpmvLayoutDestroy(Mat_SeqAIJSpmv *sp, MatSpmvLayout *L)
{
  PetscFunctionBegin;
  if (!*L) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*L)->format) PetscCall((*L)->format->destroy(*L));
  PetscCall(PetscFree((*L)->slot2csr));
  PetscCall(PetscFree((*L)->val));
  PetscCall(PetscFree((*L)->crow));
  PetscCall(PetscFree((*L)->colperm));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree((*L)->d_colperm));
  PetscCall(MatSpmvCUDAFree((*L)->d_colj));
  if (!(*L)->borrowed) PetscCall(MatSpmvCUDAFree((*L)->d_val));
  PetscCall(MatSpmvCUDAFree((*L)->d_slot2csr));
  PetscCall(MatSpmvCUDAFree((*L)->d_crow));
  PetscCall(MatSpmvCUDAFree((*L)->d_ci));
#endif
  PetscCall(PetscFree(*L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvReset(Mat_SeqAIJSpmv *sp)
{
  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    PetscCall(MatSpmvLayoutDestroy(sp, &sp->L[t]));
    sp->state[t] = MATSPMV_NOSTATE;
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(sp->d_csrval));
  PetscCall(MatSpmvCUDAFree(sp->d_x));
  PetscCall(MatSpmvCUDAFree(sp->d_y));
  PetscCall(MatSpmvCUDAFree(sp->d_c));
  PetscCall(MatSpmvCUDAFree(sp->d_xp));
#endif
  PetscCall(PetscFree(sp->c));
  PetscCall(PetscFree(sp->xp));
  sp->d_xp         = NULL;
  sp->d_xpn        = 0;
  sp->xpn          = 0;
  sp->d_csrval     = NULL;
  sp->d_x          = NULL;
  sp->d_y          = NULL;
  sp->d_c          = NULL;
  sp->d_xn         = 0;
  sp->d_yn         = 0;
  sp->d_cn         = 0;
  sp->cn           = 0;
  sp->d_csrstate   = MATSPMV_NOSTATE;
  sp->nonzerostate = MATSPMV_NOSTATE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options of the format and the backend, under the matrix's prefix; layouts are dropped only if something changed */
static PetscErrorCode MatSpmvOptionsParse(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  char            opt[64];
  MatSpmvBackend     backend  = sp->backend;
  MatSpmvColumnOrder colorder = sp->colorder;
  PetscBool          changed;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_backend", sp->format->name));
  PetscCall(PetscOptionsEnum(opt, "Where products run: auto (GPU if visible), cuda, host (reference kernel)", "MatSpmvSetBackend", MatSpmvBackends, (PetscEnum)backend, (PetscEnum *)&backend, NULL));
  PetscCall(MatSpmvSetBackend_SeqAIJSpmv(A, backend));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mat_%s_column_order", sp->format->name));
  PetscCall(PetscOptionsEnum(opt, "Column numbering of the layouts: auto (frequency where a few columns hold many nonzeros), natural, frequency", "MatSpmvSetColumnOrder", MatSpmvColumnOrders, (PetscEnum)colorder, (PetscEnum *)&colorder, NULL));
  PetscCall(MatSpmvSetColumnOrder_SeqAIJSpmv(A, colorder));
  PetscCall(MatSpmvParseParams_Private(sp->format, PetscOptionsObject, sp->params, &changed));
  if (changed) PetscCall(MatSpmvReset(sp));
  sp->paramsset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_SeqAIJSpmv(Mat A, PetscOptionItems PetscOptionsObject)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (sp->base->setfromoptions) PetscCall(sp->base->setfromoptions(A, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, sp->format->title);
  PetscCall(MatSpmvOptionsParse(A, PetscOptionsObject));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Programs that never call MatSetFromOptions() still get -mat_<fmt>_* honoured at the first product */
static PetscErrorCode MatSpmvLazyOptions(Mat A)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  if (sp->paramsset) PetscFunctionReturn(PETSC_SUCCESS);
  PetscObjectOptionsBegin((PetscObject)A);
  PetscCall(MatSpmvOptionsParse(A, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvResolveBackend(Mat A)
{
  Mat_SeqAIJSpmv *sp  = MatSpmvSeq(A);
  PetscBool       gpu = PETSC_FALSE;

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

/* Options and backend settled: errors surface here, before MatMult_MPIAIJ starts its scatter */
PetscErrorCode MatSpmvPrepare_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvLazyOptions(A));
  PetscCall(MatSpmvResolveBackend(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row offsets of A^T: A's column counts, summed (PetscFree *ti) */
static PetscErrorCode MatSpmvTransposeRows(const MatSpmvCSR *csr, PetscInt **ti)
{
  PetscFunctionBegin;
  PetscCall(PetscCalloc1(csr->n + 1, ti));
  for (PetscInt k = 0; k < csr->nnz; k++) (*ti)[csr->j[k] + 1]++;
  for (PetscInt c = 0; c < csr->n; c++) (*ti)[c + 1] += (*ti)[c];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CSR of A^T with, for each of its positions, the position in A's CSR it came from */
static PetscErrorCode MatSpmvTransposeCSR(const MatSpmvCSR *csr, PetscInt **ti, PetscInt **tj, PetscInt **perm)
{
  PetscInt *cnt;

  PetscFunctionBegin;
  PetscCall(MatSpmvTransposeRows(csr, ti));
  PetscCall(PetscMalloc1(csr->nnz, tj));
  PetscCall(PetscMalloc1(csr->nnz, perm));
  PetscCall(PetscMalloc1(csr->n, &cnt));
  for (PetscInt c = 0; c < csr->n; c++) cnt[c] = (*ti)[c];
  for (PetscInt r = 0; r < csr->m; r++) {
    for (PetscInt k = csr->i[r]; k < csr->i[r + 1]; k++) {
      PetscInt p = cnt[csr->j[k]]++;
      (*tj)[p]   = r;
      (*perm)[p] = k;
    }
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Most rows empty (MPI off-diagonal blocks): the format stores only the rows with entries, whose
   CSR (same column and value positions) is *ccsr, and the layer scatters its products. Formats
   that go through all rows (strips, padding to the longest row) would otherwise spend their time
   and memory on empty rows. */
static PetscErrorCode MatSpmvCompressRows(const MatSpmvCSR *csr, MatSpmvCSR *ccsr, PetscInt **crow, PetscInt **ci)
{
  PetscInt mc = 0;

  PetscFunctionBegin;
  *ccsr = *csr;
  *crow = *ci = NULL;
  for (PetscInt r = 0; r < csr->m; r++) mc += csr->i[r + 1] > csr->i[r] ? 1 : 0;
  if (mc == 0 || mc > csr->m / 2) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(mc, crow));
  PetscCall(PetscMalloc1(mc + 1, ci));
  mc = 0;
  for (PetscInt r = 0; r < csr->m; r++) {
    if (csr->i[r + 1] == csr->i[r]) continue;
    (*crow)[mc] = r;
    (*ci)[mc++] = csr->i[r];
  }
  (*ci)[mc] = csr->i[csr->m];
  ccsr->m   = mc;
  ccsr->i   = *ci;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The column numbering of one operator's layout, decided once for all the candidates of a
   selecting format: frequency order when asked, or (auto) when the operator has at least
   MATSPMV_HOT_MIN_COLUMNS columns and its 1% most frequent columns hold at least
   MATSPMV_HOT_SHARE of its nonzeros. Measured on the H200 (examples/results/irregular-h200/):
   Graph500 R-MAT, whose 1% most frequent columns hold 52% of the nonzeros, runs 15% faster with
   argcsr and 19% with brc (x gather included, rows sorted by their new columns: unsorted gained
   only 8% and 16%); the power-law and circuit matrices (2%) and the
   stencils (1%) gain nothing and would pay the gather; ipcsr lost 5% on R-MAT (its format says
   naturalcolumns). */
#define MATSPMV_HOT_MIN_COLUMNS 262144 /* fewer: x (2 MB) stays close to the SMs anyway */
#define MATSPMV_HOT_SHARE       0.25

typedef struct {
  PetscBool renumber;
  PetscReal hotshare; /* -1: not counted */
  PetscInt *perm;     /* host order (NULL until needed when made on the device) */
  int      *d_perm;   /* device order, when made there */
} MatSpmvColumnPlan;

static PetscErrorCode MatSpmvColumnPlanDestroy(MatSpmvColumnPlan *plan)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(plan->perm));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(plan->d_perm));
#endif
  plan->d_perm = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether op(A)'s layouts are built from aijcusparse's device CSR */
static PetscBool MatSpmvDeviceCSR(Mat_SeqAIJSpmv *sp, int t)
{
  return (PetscBool)(t == 0 && sp->ondevice && sp->base->cusparse && sizeof(PetscInt) == sizeof(int));
}

static PetscErrorCode MatSpmvColumnPlanMake(Mat A, int t, const MatSpmvCSR *csr, MatSpmvColumnPlan *plan)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  const PetscInt  n  = t ? csr->m : csr->n; /* the operator's columns */
  PetscInt        hot = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  plan->hotshare = -1;
  if (sp->colorder == MAT_SPMV_COLUMN_ORDER_NATURAL || !csr->nnz) PetscFunctionReturn(PETSC_SUCCESS);
  if (sp->colorder == MAT_SPMV_COLUMN_ORDER_AUTO && (n < MATSPMV_HOT_MIN_COLUMNS || sp->format->naturalcolumns)) PetscFunctionReturn(PETSC_SUCCESS);
  if (MatSpmvDeviceCSR(sp, t)) { /* counted and sorted on the device: no host pass over the nonzeros */
#if defined(PETSC_HAVE_CUDA)
    const int *d_i, *d_j;
    void      *stream;

    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(MatSpmvCUDAColumnFrequency(n, csr->nnz, d_j, &plan->d_perm, &hot, stream));
#endif
  } else { /* counting sort of the columns by their counts, most first, stable */
    PetscInt       *ti = NULL, *start, maxc = 0;
    const PetscInt *oi; /* op(A)'s column counts are the row lengths of op(A)^T: A^T's rows, or A's own */

    if (t) oi = csr->i;
    else {
      PetscCall(MatSpmvTransposeRows(csr, &ti));
      oi = ti;
    }
    for (PetscInt c = 0; c < n; c++) maxc = PetscMax(maxc, oi[c + 1] - oi[c]);
    PetscCall(PetscCalloc1(maxc + 2, &start));
    for (PetscInt c = 0; c < n; c++) start[maxc - (oi[c + 1] - oi[c]) + 1]++;
    for (PetscInt b = 0; b <= maxc; b++) start[b + 1] += start[b];
    PetscCall(PetscMalloc1(n, &plan->perm));
    for (PetscInt c = 0; c < n; c++) plan->perm[start[maxc - (oi[c + 1] - oi[c])]++] = c;
    for (PetscInt k = 0; k < PetscMax(1, n / 100); k++) hot += oi[plan->perm[k] + 1] - oi[plan->perm[k]];
    PetscCall(PetscFree(start));
    PetscCall(PetscFree(ti));
  }
  plan->hotshare = (PetscReal)hot / (PetscReal)csr->nnz;
  plan->renumber = (PetscBool)(sp->colorder == MAT_SPMV_COLUMN_ORDER_FREQUENCY || plan->hotshare >= MATSPMV_HOT_SHARE);
  if (!plan->renumber) PetscCall(MatSpmvColumnPlanDestroy(plan));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout of A on the device from aijcusparse's device CSR, with the format's own kernels: no
   host loop over the nonzeros, nothing uploaded. Used on the GPU path when the format has one. */
static PetscErrorCode MatSpmvBuildDevice(Mat A, const MatSpmvCSR *csr, const MatSpmvColumnPlan *plan, MatSpmvLayout L)
{
  MatSpmvCSR  pattern = {csr->m, csr->n, csr->nnz, csr->i, NULL, csr->renumbered};
  const int  *d_i, *d_j;
  int        *d_pos = NULL;
  void       *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
  PetscCall(MatSpmvCUDAGetStream(&stream));
  if (L->crow) { /* the compressed row offsets (O(rows with entries), made on the host with the pattern) */
    PetscCall(MatSpmvCUDAUploadInt(&L->d_ci, csr->i, csr->m + 1));
    PetscCall(PetscLogCpuToGpu((csr->m + 1) * sizeof(int)));
    d_i = L->d_ci;
  }
  if (plan->renumber) { /* the format reads the renumbered columns, each row sorted; one that keeps CSR order reads them in place */
    PetscCall(MatSpmvCUDARenumberColumns(L->n, csr->m, csr->nnz, d_i, plan->d_perm, d_j, &L->d_colj, &d_pos, stream));
    d_j = L->d_colj;
  }
  PetscCall(L->format->builddevice(L->params, &pattern, d_i, d_j, L, stream));
  if (L->identity) { /* the format keeps CSR order and made no slot map */
    PetscCheck(L->nslots == L->nnz && !L->d_slot2csr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: an identity layout has one slot per nonzero and no slot map", L->format->name);
  } else {
    PetscCall(MatSpmvCUDAIsIdentity(L->nslots == L->nnz ? L->nslots : 0, L->d_slot2csr, &L->identity, stream));
    L->identity = (PetscBool)(L->identity && L->nslots == L->nnz);
  }
  if (plan->renumber) { /* the slots name positions of the sorted rows: to positions of A's CSR */
    if (L->identity) {
      L->d_slot2csr = d_pos;
      d_pos         = NULL;
      L->identity   = PETSC_FALSE;
    } else {
      PetscCall(MatSpmvCUDAComposeMap(L->nslots, L->d_slot2csr, d_pos, stream));
      PetscCall(MatSpmvCUDAFree(L->d_colj)); /* the format made its own copy of the columns */
      L->d_colj = NULL;
    }
    PetscCall(MatSpmvCUDAFree(d_pos));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fill the new layout L of A (t = 0) or A^T (t = 1) from the current structure, in format with params,
   its columns numbered as plan says */
static PetscErrorCode MatSpmvBuildLayout(Mat A, int t, const MatSpmvCSR *csr, MatSpmvFormat *format, const void *params, MatSpmvColumnPlan *plan, MatSpmvLayout L)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  PetscBool       ondevicebuild;
  PetscInt       *ti = NULL, *tj = NULL, *perm = NULL, *ci = NULL, *jr = NULL, *pos = NULL;
  MatSpmvCSR      tcsr = {csr->n, csr->m, csr->nnz, NULL, NULL, PETSC_FALSE}, ccsr;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  L->scale = 1.0;
  L->ym    = t ? csr->n : csr->m;
  L->n     = t ? csr->m : csr->n;
  L->nnz   = csr->nnz;
  if (t == 1) {
    PetscCall(MatSpmvTransposeCSR(csr, &ti, &tj, &perm));
    tcsr.i = ti;
    tcsr.j = tj;
  }
  PetscCall(MatSpmvCompressRows(t ? &tcsr : csr, &ccsr, &L->crow, &ci));
  L->m = ccsr.m;
  L->format   = format;
  L->params   = params;
  L->hotshare = plan->hotshare;
  /* the format's device build needs aijcusparse's 32-bit device CSR */
  ondevicebuild = (PetscBool)(MatSpmvDeviceCSR(sp, t) && L->format->builddevice);
  if (plan->renumber && !ondevicebuild && !plan->perm) { /* a device plan for a host build */
#if defined(PETSC_HAVE_CUDA)
    PetscCall(MatSpmvCUDADownloadInt(&plan->perm, plan->d_perm, L->n));
#endif
  }
  if (plan->renumber && !ondevicebuild) { /* the format builds from renumbered columns, jr[k] = inv[j[k]], each row sorted */
    PetscInt *inv;

    PetscCall(PetscMalloc1(L->n, &inv));
    PetscCall(PetscMalloc2(ccsr.nnz, &jr, ccsr.nnz, &pos));
    for (PetscInt k = 0; k < L->n; k++) inv[plan->perm[k]] = k;
    for (PetscInt k = 0; k < ccsr.nnz; k++) {
      jr[k]  = inv[ccsr.j[k]];
      pos[k] = k;
    }
    for (PetscInt r = 0; r < ccsr.m; r++) PetscCall(PetscSortIntWithArray(ccsr.i[r + 1] - ccsr.i[r], jr + ccsr.i[r], pos + ccsr.i[r]));
    PetscCall(PetscFree(inv));
    ccsr.j = jr;
  }
  if (plan->renumber && plan->perm) { /* the host order (a device plan for a device build has none: downloaded for layout checks only) */
    PetscCall(PetscMalloc1(L->n, &L->colperm));
    PetscCall(PetscArraycpy(L->colperm, plan->perm, L->n));
  }
  ccsr.renumbered = plan->renumber;
  if (ondevicebuild) {
#if defined(PETSC_HAVE_CUDA)
    ierr           = MatSpmvBuildDevice(A, &ccsr, plan, L);
    L->devicebuilt = PETSC_TRUE;
#else
    ierr = PETSC_ERR_PLIB;
#endif
  } else {
    ierr = L->format->build(L->params, &ccsr, L);
    if (!ierr && pos) /* positions of the sorted renumbered rows to those of the operator's CSR */
      for (PetscInt s = 0; s < L->nslots; s++)
        if (L->slot2csr[s] >= 0) L->slot2csr[s] = pos[L->slot2csr[s]];
    if (!ierr && t == 1)
      for (PetscInt s = 0; s < L->nslots; s++)
        if (L->slot2csr[s] >= 0) L->slot2csr[s] = perm[L->slot2csr[s]];
  }
  /* the work arrays are freed even if the format refuses the structure */
  PetscCall(PetscFree2(jr, pos));
  PetscCall(PetscFree(ci));
  PetscCall(PetscFree(ti));
  PetscCall(PetscFree(tj));
  PetscCall(PetscFree(perm));
  PetscCall(ierr);
  if (!ondevicebuild) {
    L->identity = (PetscBool)(L->nslots == L->nnz);
    for (PetscInt s = 0; s < L->nslots && L->identity; s++) L->identity = (PetscBool)(L->slot2csr[s] == s);
  }
  /* device kernels index with 32-bit integers */
  PetscCheck(L->nslots <= PETSC_INT32_MAX && L->ym < PETSC_INT32_MAX && L->n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s stores %" PetscInt_FMT " slots for a %" PetscInt_FMT " x %" PetscInt_FMT " matrix: more than 32-bit indices address; split the matrix over more MPI processes or use MATAIJ", L->format->name, L->nslots, L->ym, L->n);
  if (sp->ondevice) {
#if defined(PETSC_HAVE_CUDA)
    /* on aijcusparse an identity layout reads the base's device values in place */
    L->borrowed = (PetscBool)(sp->base->cusparse && L->identity);
    if (L->borrowed && ondevicebuild) { /* its slot map is not needed */
      PetscCall(MatSpmvCUDAFree(L->d_slot2csr));
      L->d_slot2csr = NULL;
    }
    if (!L->borrowed) PetscCall(MatSpmvCUDAMalloc((void **)&L->d_val, L->nslots * sizeof(PetscScalar)));
    if (!ondevicebuild) { /* the host arrays' bytes: a format may store them smaller on the device */
      const size_t bytes = L->indexbytes;

      PetscCall(L->format->upload(L));
      PetscCall(PetscLogCpuToGpu(bytes));
    }
    if (L->crow) {
      PetscCall(MatSpmvCUDAUploadInt(&L->d_crow, L->crow, L->m));
      PetscCall(PetscLogCpuToGpu(L->m * sizeof(int)));
    }
    if (plan->renumber && plan->d_perm) {
      void *stream;

      PetscCall(MatSpmvCUDAGetStream(&stream));
      PetscCall(MatSpmvCUDAMalloc((void **)&L->d_colperm, L->n * sizeof(int)));
      PetscCall(MatSpmvCUDACopyOnDevice(L->d_colperm, plan->d_perm, L->n * sizeof(int), stream));
    } else if (plan->renumber) {
      PetscCall(MatSpmvCUDAUploadInt(&L->d_colperm, plan->perm, L->n));
      PetscCall(PetscLogCpuToGpu(L->n * sizeof(int)));
    }
#endif
  } else PetscCall(PetscMalloc1(L->nslots, &L->val));
  if (L->crow) L->indexbytes += L->m * sizeof(int); /* the stored rows' operator rows */
  if (plan->renumber) L->indexbytes += L->n * sizeof(int); /* the column order */
  PetscCall(PetscInfo(A, "%s layout of %s built on the %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros in %" PetscInt_FMT " slots%s%s\n", L->format->name, t ? "A^T" : "A", ondevicebuild ? "device" : "host", L->ym, L->n, L->nnz, L->nslots, L->crow ? ", rows with entries only" : "", plan->renumber ? ", columns by frequency" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new layout of op(A) in format: NULL in *L, and the format's error code in *ierr, when the format
   refuses the structure (a size past 32-bit indices, ELLR's padding limit); the half-built layout is
   then freed. quiet: the refusal is expected to be handled (another candidate follows), not printed */
static PetscErrorCode MatSpmvTryBuild(Mat A, int t, const MatSpmvCSR *csr, MatSpmvFormat *format, const void *params, MatSpmvColumnPlan *plan, PetscBool quiet, MatSpmvLayout *L, PetscErrorCode *ierr)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  PetscCall(PetscNew(L));
  if (quiet) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = MatSpmvBuildLayout(A, t, csr, format, params, plan, *L);
  if (quiet) PetscCall(PetscPopErrorHandler());
  if (*ierr) {
    const char *msg = NULL;

    if (quiet) {
      (void)PetscErrorMessage(*ierr, NULL, &msg);
      PetscCall(PetscInfo(A, "%s refused the %s of this matrix: %s\n", format->name, t ? "transpose" : "pattern", msg ? msg : ""));
    }
    PetscCall(MatSpmvLayoutDestroy(sp, L));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row offsets of op(A)'s pattern, which a selecting format reads (A's own for t = 0; A^T's,
   counted from A's columns, for t = 1: PetscFree *ti) */
static PetscErrorCode MatSpmvOperatorRows(const MatSpmvCSR *csr, int t, MatSpmvCSR *op, PetscInt **ti)
{
  PetscFunctionBegin;
  *ti = NULL;
  *op = *csr;
  if (t == 1) {
    PetscCall(MatSpmvTransposeRows(csr, ti));
    op->m = csr->n;
    op->n = csr->m;
    op->i = *ti;
  }
  op->j = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x in the layout's column order: x itself, or gathered into a work array when the columns are renumbered */
static PetscErrorCode MatSpmvGatherColumnsHost(Mat_SeqAIJSpmv *sp, MatSpmvLayout L, const PetscScalar **x)
{
  PetscFunctionBegin;
  if (!L->colperm) PetscFunctionReturn(PETSC_SUCCESS);
  if (sp->xpn < L->n) {
    PetscCall(PetscFree(sp->xp));
    PetscCall(PetscMalloc1(L->n, &sp->xp));
    sp->xpn = L->n;
  }
  for (PetscInt k = 0; k < L->n; k++) sp->xp[k] = (*x)[L->colperm[k]];
  *x = sp->xp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvGatherColumnsDevice(Mat_SeqAIJSpmv *sp, MatSpmvLayout L, PetscScalar **dx, void *stream)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (L->d_colperm && L->n) {
    if (sp->d_xpn < L->n) {
      PetscCall(MatSpmvCUDAFree(sp->d_xp));
      PetscCall(MatSpmvCUDAMalloc((void **)&sp->d_xp, L->n * sizeof(PetscScalar)));
      sp->d_xpn = L->n;
    }
    PetscCall(MatSpmvCUDAGather(L->n, L->d_colperm, *dx, sp->d_xp, stream));
    *dx = sp->d_xp;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvRefresh(Mat, MatSpmvLayout, PetscObjectState *);

/* Microseconds per product of the filled layout L, from reps products after an untimed one; on the
   device, with its kernels on scratch vectors (the stored rows only, as the format writes them) */
static PetscErrorCode MatSpmvTimeLayout(Mat A, MatSpmvLayout L, PetscInt reps, PetscLogDouble *us)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  PetscLogDouble  t0 = 0, t1 = 0;

  PetscFunctionBegin;
  if (sp->ondevice) {
#if defined(PETSC_HAVE_CUDA)
    PetscScalar *dx, *dy;
    void        *stream;

    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(MatSpmvCUDAMalloc((void **)&dx, L->n * sizeof(PetscScalar)));
    PetscCall(MatSpmvCUDAMalloc((void **)&dy, L->m * sizeof(PetscScalar)));
    PetscCall(MatSpmvCUDAZero(dx, L->n, stream)); /* the memory traffic of a product does not depend on x */
    for (PetscInt k = -1; k < reps; k++) { /* an untimed product first */
      PetscScalar *dxl = dx;

      if (k == 0) {
        PetscCall(MatSpmvCUDASynchronize(stream));
        PetscCall(PetscTime(&t0));
      }
      PetscCall(MatSpmvGatherColumnsDevice(sp, L, &dxl, stream));
      PetscCall(L->format->multdevice(L, dxl, NULL, dy, stream));
    }
    PetscCall(MatSpmvCUDASynchronize(stream));
    PetscCall(PetscTime(&t1));
    PetscCall(MatSpmvCUDAFree(dx));
    PetscCall(MatSpmvCUDAFree(dy));
#endif
  } else {
    PetscScalar *x, *y;

    PetscCall(PetscCalloc1(L->n, &x));
    PetscCall(PetscMalloc1(L->m, &y));
    for (PetscInt k = -1; k < reps; k++) { /* an untimed product first */
      const PetscScalar *xl = x;

      if (k == 0) PetscCall(PetscTime(&t0));
      PetscCall(MatSpmvGatherColumnsHost(sp, L, &xl));
      PetscCall(L->format->multhost(L, xl, NULL, y));
    }
    PetscCall(PetscTime(&t1));
    PetscCall(PetscFree(x));
    PetscCall(PetscFree(y));
  }
  *us = (t1 - t0) * 1e6 / (PetscLogDouble)PetscMax(reps, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Build the layout of A (t = 0) or A^T (t = 1) in A's format, or in one of the candidates its
   selecting format offers for this operator: the first that accepts the structure, or, when the
   selecting format asks for tuning, the fastest of those timed. A structure no candidate accepts
   leaves A without a layout, so the next product tries again (after, say, a parameter change) */
static PetscErrorCode MatSpmvBuild(Mat A, int t, const MatSpmvCSR *csr)
{
  Mat_SeqAIJSpmv  *sp                                  = MatSpmvSeq(A);
  MatSpmvFormat   *cand[MATSPMV_MAX_CANDIDATES]       = {sp->format};
  const void      *candparams[MATSPMV_MAX_CANDIDATES] = {sp->params};
  PetscInt         ncand = 1, timed = 0;
  MatSpmvTune      tune  = {0, 0};
  MatSpmvLayout    L = NULL, Lc;
  PetscObjectState state = MATSPMV_NOSTATE, cstate;
  PetscLogDouble   start, now, us = 0, best = PETSC_MAX_REAL;
  PetscErrorCode   ierr = PETSC_SUCCESS;
  MatSpmvColumnPlan plan;
  char             why[sizeof(((MatSpmvLayout)NULL)->why)] = "", times[sizeof(why)] = "";

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(sp->format->event_build, A, 0, 0, 0));
  PetscCall(MatSpmvColumnPlanMake(A, t, csr, &plan));
  if (sp->format->select) {
    MatSpmvCSR op;
    PetscInt  *ti;

    PetscCall(MatSpmvOperatorRows(csr, t, &op, &ti));
    op.renumbered = plan.renumber;
    ierr = sp->format->select(sp->params, &op, &ncand, cand, candparams, &tune, why, sizeof(why));
    PetscCall(PetscFree(ti));
    PetscCall(ierr);
    PetscCheck(ncand >= 1 && ncand <= MATSPMV_MAX_CANDIDATES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s offered %" PetscInt_FMT " candidate formats, not 1 to %d", sp->format->name, ncand, MATSPMV_MAX_CANDIDATES);
    if (ncand == 1) tune.reps = 0; /* nothing to compare */
  }
  /* an operator the user did not choose the format for (A^T's layout, an operator PETSc derived):
     one that pads nothing is the last candidate. The user's own A may still be refused */
  if (sp->derived || t == 1) {
    MatSpmvFormat *fallback;
    PetscBool      offered = PETSC_FALSE;

    PetscCall(MatSpmvFormatFind(MATSPMV_FALLBACK_FORMAT, &fallback));
    for (PetscInt c = 0; c < ncand; c++) offered = (PetscBool)(offered || cand[c] == fallback);
    if (fallback && !offered && ncand < MATSPMV_MAX_CANDIDATES) {
      cand[ncand]       = fallback;
      candparams[ncand] = fallback->paramsdefault;
      ncand++;
      if (!why[0]) PetscCall(PetscSNPrintf(why, sizeof(why), "%s refused this %s, which PETSc derived from the user's matrix; %s pads nothing", sp->format->name, t ? "transpose" : "operator", fallback->name));
    }
  }
  PetscCall(PetscTime(&start));
  for (PetscInt c = 0; c < ncand; c++) {
    if (L && !tune.reps) break; /* the first candidate that builds */
    PetscCall(PetscTime(&now));
    if (L && (now - start) * 1e3 > tune.maxtime) { /* tuning: out of time, the rest untried */
      PetscCall(PetscInfo(A, "Tuning %s out of its %g ms: %" PetscInt_FMT " of %" PetscInt_FMT " candidates timed\n", t ? "A^T" : "A", (double)tune.maxtime, timed, ncand));
      break;
    }
    PetscCall(MatSpmvTryBuild(A, t, csr, cand[c], candparams[c], &plan, (PetscBool)(c < ncand - 1 || L), &Lc, &ierr));
    if (!Lc) {
      if (c == ncand - 1 && !L) break; /* the last candidate's error is the user's */
      ierr = PETSC_SUCCESS;
      PetscCall(PetscStrlcat(times, times[0] ? ", " : "", sizeof(times)));
      PetscCall(PetscStrlcat(times, cand[c]->name, sizeof(times)));
      PetscCall(PetscStrlcat(times, " refused", sizeof(times)));
      continue;
    }
    if (!tune.reps) {
      L = Lc;
      break;
    }
    /* tuning: the values filled as for a product, then timed; only the fastest layout is kept */
    cstate = MATSPMV_NOSTATE;
    PetscCall(MatSpmvRefresh(A, Lc, &cstate));
    PetscCall(MatSpmvTimeLayout(A, Lc, tune.reps, &us));
    timed++;
    PetscCall(PetscInfo(A, "Tuning %s: %s %.1f us per product\n", t ? "A^T" : "A", cand[c]->name, (double)us));
    {
      char one[64];

      PetscCall(PetscSNPrintf(one, sizeof(one), "%s%s %.0f us", times[0] ? ", " : "", cand[c]->name, (double)us));
      PetscCall(PetscStrlcat(times, one, sizeof(times)));
    }
    if (us < best) {
      PetscCall(MatSpmvLayoutDestroy(sp, &L));
      L     = Lc;
      state = cstate;
      best  = us;
    } else PetscCall(MatSpmvLayoutDestroy(sp, &Lc));
  }
  PetscCall(MatSpmvColumnPlanDestroy(&plan));
  if (!L) {
    PetscCall(PetscLogEventEnd(sp->format->event_build, A, 0, 0, 0));
    PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No candidate format built a layout and none gave an error");
    PetscCall(ierr);
  }
  if (sp->format->select || L->format != sp->format) {
    if (times[0]) PetscCall(PetscSNPrintf(L->why, sizeof(L->why), "%s; %s%s", why, tune.reps ? "timed: " : "", times));
    else PetscCall(PetscStrncpy(L->why, why, sizeof(L->why)));
  }
  sp->L[t]     = L;
  sp->state[t] = state;
  PetscCall(PetscLogEventEnd(sp->format->event_build, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host copies of a device-built layout (layout checks only) */
static PetscErrorCode MatSpmvLayoutDownload(Mat_SeqAIJSpmv *sp, MatSpmvLayout L)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (L->d_colperm && !L->colperm) PetscCall(MatSpmvCUDADownloadInt(&L->colperm, L->d_colperm, L->n));
#endif
  if (!L->devicebuilt || L->slot2csr) PetscFunctionReturn(PETSC_SUCCESS);
#if defined(PETSC_HAVE_CUDA)
  if (L->d_slot2csr) PetscCall(MatSpmvCUDADownloadInt(&L->slot2csr, L->d_slot2csr, L->nslots));
  else { /* an identity map */
    PetscCall(PetscMalloc1(L->nslots, &L->slot2csr));
    for (PetscInt s = 0; s < L->nslots; s++) L->slot2csr[s] = s;
  }
  PetscCall(L->format->download(L));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* slot values from the CSR values (padding: zero) */
static void MatSpmvGatherHost(MatSpmvLayout L, const PetscScalar *aa, PetscScalar *val)
{
  for (PetscInt s = 0; s < L->nslots; s++) val[s] = L->slot2csr[s] >= 0 ? aa[L->slot2csr[s]] : 0.0;
}

/* Bring the layout of A (t = 0) or A^T (t = 1) up to date with A */
static PetscErrorCode MatSpmvUpdate(Mat A, int t, MatSpmvLayout *Lout)
{
  Mat_SeqAIJSpmv  *sp = MatSpmvSeq(A);
  PetscObjectState nzstate;
  const PetscInt  *ai, *aj;
  PetscInt         m;
  PetscBool        done;
  MatSpmvCSR       csr;

  PetscFunctionBegin;
  PetscCall(MatSpmvLazyOptions(A));
  PetscCall(MatSpmvResolveBackend(A));
  PetscCall(MatGetNonzeroState(A, &nzstate));
  /* the pattern is always current on the host (aijcusparse only moves values) */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ() gave no CSR for a %s matrix", ((PetscObject)A)->type_name);
  csr.m   = A->rmap->n;
  csr.n   = A->cmap->n;
  csr.nnz = ai ? ai[csr.m] : 0;
  csr.i   = ai;
  csr.j   = aj;
  if (nzstate != sp->nonzerostate || csr.m != sp->m || csr.n != sp->n || csr.nnz != sp->nnz || A->data != sp->data) {
    PetscCall(MatSpmvReset(sp));
    sp->data         = A->data; /* MatHeaderMerge() swaps in new data under the same state */
    sp->nonzerostate = nzstate;
    sp->m            = csr.m;
    sp->n            = csr.n;
    sp->nnz          = csr.nnz;
  }
  if (!sp->L[t]) PetscCall(MatSpmvBuild(A, t, &csr));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  *Lout = sp->L[t];
  PetscCall(MatSpmvRefresh(A, sp->L[t], &sp->state[t]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bring the values of layout L, last filled at object state *lstate, up to date with A */
static PetscErrorCode MatSpmvRefresh(Mat A, MatSpmvLayout L, PetscObjectState *lstate)
{
  Mat_SeqAIJSpmv  *sp = MatSpmvSeq(A);
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (sp->ondevice && sp->base->cusparse) {
#if defined(PETSC_HAVE_CUDA)
    PetscScalar *d_a;
    PetscMemType mtype;

    if (L->borrowed) { /* the values are aijcusparse's: only make sure they are on the device */
      PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &d_a, &mtype));
      L->d_val     = d_a;
      *lstate = state;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (*lstate == state) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscLogEventBegin(sp->format->event_refresh, A, 0, 0, 0));
    /* aijcusparse brings its device values up to date (an upload only if the host changed them) */
    PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &d_a, &mtype));
    PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijcusparse base gave host values");
    if (!L->d_slot2csr && L->nslots) {
      PetscCall(MatSpmvCUDAUploadInt(&L->d_slot2csr, L->slot2csr, L->nslots));
      PetscCall(PetscLogCpuToGpu(L->nslots * sizeof(int)));
    }
    {
      void *stream;

      PetscCall(MatSpmvCUDAGetStream(&stream));
      PetscCall(MatSpmvCUDAGather(L->nslots, L->d_slot2csr, d_a, L->d_val, stream));
    }
    L->scale     = 1.0;
    *lstate = state;
    PetscCall(PetscLogEventEnd(sp->format->event_refresh, A, 0, 0, 0));
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (*lstate == state) PetscFunctionReturn(PETSC_SUCCESS);

  PetscCall(PetscLogEventBegin(sp->format->event_refresh, A, 0, 0, 0));
  {
    const PetscScalar *aa;

    PetscCall(MatSeqAIJGetArrayRead(A, &aa)); /* host values, brought back from the device if needed */
    if (sp->ondevice) {
#if defined(PETSC_HAVE_CUDA)
      void *stream;

      PetscCall(MatSpmvCUDAGetStream(&stream));
      if (L->identity) { /* the layout keeps CSR order: the values are a straight copy */
        PetscCall(MatSpmvCUDACopyToDevice(L->d_val, aa, L->nslots * sizeof(PetscScalar), stream));
        PetscCall(PetscLogCpuToGpu(L->nslots * sizeof(PetscScalar)));
      } else if (*lstate == MATSPMV_NOSTATE) { /* first fill after a build: gather on the host, one upload */
        PetscScalar *val;

        PetscCall(PetscMalloc1(L->nslots, &val));
        MatSpmvGatherHost(L, aa, val);
        PetscCall(MatSpmvCUDACopyToDevice(L->d_val, val, L->nslots * sizeof(PetscScalar), stream));
        PetscCall(PetscLogCpuToGpu(L->nslots * sizeof(PetscScalar)));
        PetscCall(PetscFree(val));
      } else { /* values changed, pattern kept: upload the CSR values, gather on the device */
        if (!L->d_slot2csr && L->nslots) {
          PetscCall(MatSpmvCUDAUploadInt(&L->d_slot2csr, L->slot2csr, L->nslots));
          PetscCall(PetscLogCpuToGpu(L->nslots * sizeof(int)));
        }
        if (sp->d_csrstate != state) {
          if (!sp->d_csrval) PetscCall(MatSpmvCUDAMalloc((void **)&sp->d_csrval, sp->nnz * sizeof(PetscScalar)));
          PetscCall(MatSpmvCUDACopyToDevice(sp->d_csrval, aa, sp->nnz * sizeof(PetscScalar), stream));
          PetscCall(PetscLogCpuToGpu(sp->nnz * sizeof(PetscScalar)));
          sp->d_csrstate = state;
        }
        PetscCall(MatSpmvCUDAGather(L->nslots, L->d_slot2csr, sp->d_csrval, L->d_val, stream));
      }
#endif
    } else {
      if (L->identity) PetscCall(PetscArraycpy(L->val, aa, L->nslots));
      else MatSpmvGatherHost(L, aa, L->val);
    }
    PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  }
  L->scale     = 1.0;
  *lstate = state;
  PetscCall(PetscLogEventEnd(sp->format->event_refresh, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* No GPU and no backend asked for: AIJ's own products, faster on a CPU than the formats' reference
   kernels (-mat_<fmt>_backend host runs those) */
static PetscBool MatSpmvUsesBaseProducts(Mat_SeqAIJSpmv *sp)
{
  return (PetscBool)(sp->resolved && !sp->ondevice && sp->backend == MAT_SPMV_BACKEND_AUTO);
}

/* The layout for op(A) brought up to date ahead of a product (MPI: before its ghost scatter
   starts); nothing for a block bound to the CPU, whose products are SeqAIJ's */
PetscErrorCode MatSpmvUpdateLayout_SeqAIJSpmv(Mat A, int t)
{
  MatSpmvLayout L;

  PetscFunctionBegin;
  if (A->ops->mult != MatMult_SeqAIJSpmv) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvPrepare_SeqAIJSpmv(A));
  if (MatSpmvUsesBaseProducts(MatSpmvSeq(A))) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvUpdate(A, t, &L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(A) x (+ z); t = 0: op(A) = A, t = 1: op(A) = A^T */
static PetscErrorCode MatSpmvApply(Mat A, int t, Vec x, Vec z, Vec y)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  MatSpmvLayout   L;

  PetscFunctionBegin;
  PetscCall(MatSpmvPrepare_SeqAIJSpmv(A));
  if (MatSpmvUsesBaseProducts(sp)) {
    if (t == 0 && !z) PetscCall(sp->base->mult(A, x, y));
    else if (t == 0) PetscCall(sp->base->multadd(A, x, z, y));
    else if (!z) PetscCall(sp->base->multtranspose(A, x, y));
    else PetscCall(sp->base->multtransposeadd(A, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvUpdate(A, t, &L));
  PetscCall(PetscLogEventBegin(t ? sp->format->event_multT : sp->format->event_mult, A, x, y, 0));
  if (!sp->ondevice) {
    const PetscScalar *px, *pxl, *pz = NULL;
    PetscScalar       *py;

    PetscCall(VecGetArrayRead(x, &px));
    if (z == y) {
      PetscCall(VecGetArray(y, &py));
      pz = py;
    } else {
      if (z) PetscCall(VecGetArrayRead(z, &pz));
      PetscCall(VecGetArrayWrite(y, &py));
    }
    pxl = px;
    PetscCall(MatSpmvGatherColumnsHost(sp, L, &pxl));
    if (L->crow) { /* the stored rows' products into a buffer, then into their rows of y */
      if (sp->cn < L->m) {
        PetscCall(PetscFree(sp->c));
        PetscCall(PetscMalloc1(L->m, &sp->c));
        sp->cn = L->m;
      }
      PetscCall(L->format->multhost(L, pxl, NULL, sp->c));
      if (!z) PetscCall(PetscArrayzero(py, L->ym));
      else if (pz != py) PetscCall(PetscArraycpy(py, pz, L->ym));
      for (PetscInt k = 0; k < L->m; k++) py[L->crow[k]] += sp->c[k];
    } else PetscCall(L->format->multhost(L, pxl, pz, py));
    PetscCall(PetscLogFlops(2.0 * L->nnz - (z ? 0 : L->ym)));
    PetscCall(VecRestoreArrayRead(x, &px));
    if (z == y) PetscCall(VecRestoreArray(y, &py));
    else {
      if (z) PetscCall(VecRestoreArrayRead(z, &pz));
      PetscCall(VecRestoreArrayWrite(y, &py));
    }
  } else {
#if defined(PETSC_HAVE_CUDA)
    const PetscScalar *px, *pz = NULL, *hz = NULL;
    PetscScalar       *py, *dx, *dy;
    PetscMemType       xmt, ymt, zmt = PETSC_MEMTYPE_HOST;
    void              *stream;

    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(VecGetArrayReadAndMemType(x, &px, &xmt));
    if (z == y) PetscCall(VecGetArrayAndMemType(y, &py, &ymt));
    else {
      if (z) PetscCall(VecGetArrayReadAndMemType(z, &pz, &zmt));
      PetscCall(VecGetArrayWriteAndMemType(y, &py, &ymt));
    }
    /* host vectors go through device staging buffers */
    dx = (PetscScalar *)px;
    if (PetscMemTypeHost(xmt) && L->n) {
      if (sp->d_xn < L->n) {
        PetscCall(MatSpmvCUDAFree(sp->d_x));
        PetscCall(MatSpmvCUDAMalloc((void **)&sp->d_x, L->n * sizeof(PetscScalar)));
        sp->d_xn = L->n;
      }
      dx = sp->d_x;
      PetscCall(MatSpmvCUDACopyToDevice(dx, px, L->n * sizeof(PetscScalar), stream));
      PetscCall(PetscLogCpuToGpu(L->n * sizeof(PetscScalar)));
    }
    dy = py;
    if (PetscMemTypeHost(ymt) && L->ym) {
      if (sp->d_yn < L->ym) {
        PetscCall(MatSpmvCUDAFree(sp->d_y));
        PetscCall(MatSpmvCUDAMalloc((void **)&sp->d_y, L->ym * sizeof(PetscScalar)));
        sp->d_yn = L->ym;
      }
      dy = sp->d_y;
    }
    /* z on the host, or y staged with y == z: z is first copied into y's device array */
    if (z == y) hz = PetscMemTypeHost(ymt) ? py : NULL;
    else if (z && PetscMemTypeHost(zmt)) hz = pz;
    if (hz && L->ym) {
      PetscCall(MatSpmvCUDACopyToDevice(dy, hz, L->ym * sizeof(PetscScalar), stream));
      PetscCall(PetscLogCpuToGpu(L->ym * sizeof(PetscScalar)));
    }
    if (z) pz = hz ? dy : (z == y ? dy : pz);
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvGatherColumnsDevice(sp, L, &dx, stream));
    if (L->crow) { /* the stored rows' products into a buffer, then into their rows of y */
      if (sp->d_cn < L->m) {
        PetscCall(MatSpmvCUDAFree(sp->d_c));
        PetscCall(MatSpmvCUDAMalloc((void **)&sp->d_c, L->m * sizeof(PetscScalar)));
        sp->d_cn = L->m;
      }
      PetscCall(L->format->multdevice(L, dx, NULL, sp->d_c, stream));
      if (!z) PetscCall(MatSpmvCUDAZero(dy, L->ym, stream));
      else PetscCall(MatSpmvCUDACopyOnDevice(dy, pz, L->ym * sizeof(PetscScalar), stream));
      PetscCall(MatSpmvCUDAAddRows(L->m, L->d_crow, sp->d_c, dy, stream));
    } else PetscCall(L->format->multdevice(L, dx, pz, dy, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * L->nnz - (z ? 0 : L->ym)));
    if (dy != py && L->ym) {
      PetscCall(MatSpmvCUDACopyToHost(py, dy, L->ym * sizeof(PetscScalar), stream));
      PetscCall(PetscLogGpuToCpu(L->ym * sizeof(PetscScalar)));
    }
    PetscCall(VecRestoreArrayReadAndMemType(x, &px));
    if (z == y) PetscCall(VecRestoreArrayAndMemType(y, &py));
    else {
      if (z) PetscCall(VecRestoreArrayReadAndMemType(z, &pz));
      PetscCall(VecRestoreArrayWriteAndMemType(y, &py));
    }
#endif
  }
  PetscCall(PetscLogEventEnd(t ? sp->format->event_multT : sp->format->event_mult, A, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_SeqAIJSpmv(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvApply(A, 0, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SeqAIJSpmv(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvApply(A, 0, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_SeqAIJSpmv(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvApply(A, 1, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_SeqAIJSpmv(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvApply(A, 1, x, z, y));
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

/* MatStoreValues() reads the host values: on aijcusparse they may live only on the device */
PetscErrorCode MatSpmvSyncHostValues(Mat A)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatStoreValues_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
  PetscCall(MatSpmvSyncHostValues(A));
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
  PetscCall(sp->base->scale(A, a));
  PetscCall(PetscObjectStateGet((PetscObject)A, &after));
  for (int t = 0; t < 2; t++) {
    if (!fold[t]) continue;
    sp->L[t]->scale *= a;
    sp->state[t] = after + 1;
    PetscCall(PetscInfo(A, "MatScale() folded into the %s layout's products: no refresh\n", t ? "A^T" : "A"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The four products and MatScale(): ours unless A is bound to the CPU (then SeqAIJ's, as aijcusparse does) */
static PetscErrorCode MatSpmvSetProducts(Mat A)
{
  PetscFunctionBegin;
  A->ops->scale            = MatScale_SeqAIJSpmv;
  A->ops->mult             = MatMult_SeqAIJSpmv;
  A->ops->multadd          = MatMultAdd_SeqAIJSpmv;
  A->ops->multtranspose    = MatMultTranspose_SeqAIJSpmv;
  A->ops->multtransposeadd = MatMultTransposeAdd_SeqAIJSpmv;
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
  PetscCall(MatSpmvSyncHostValues(A));
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
  if (reuse != MAT_REUSE_MATRIX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvSeqGetData(*B, &bsp));
  if (bsp && bsp->base->cusparse && (*B)->offloadmask != PETSC_OFFLOAD_UNALLOCATED) (*B)->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvSetDerived_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(A, &sp));
  PetscCheck(sp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Not a petscspmv matrix");
  sp->derived = PETSC_TRUE;
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
  if (A->assembled && !A->factortype) {
    MatSpmvLayout L;

    PetscCall(MatSpmvPrepare_SeqAIJSpmv(A));
    if (MatSpmvUsesBaseProducts(sp)) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s): no GPU visible, products are AIJ's (-mat_%s_backend host runs the format's reference kernel)\n", sp->format->title, sp->format->name, sp->format->name));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(MatSpmvUpdate(A, 0, &L));
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s), backend %s, base %s\n", sp->format->title, sp->format->name, sp->ondevice ? "CUDA" : "host reference", sp->base->cusparse ? "aijcusparse" : "aij"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "slots %" PetscInt_FMT " for %" PetscInt_FMT " nonzeros: padding ratio %.3f, %.2f bytes per nonzero stored (CSR: %.2f)%s\n", L->nslots, L->nnz, L->nnz ? (double)L->nslots / (double)L->nnz : 1.0,
                                     L->nnz ? (double)((L->borrowed ? 0 : L->nslots * sizeof(PetscScalar)) + L->indexbytes) / (double)L->nnz : 0.0, L->nnz ? (double)(L->nnz * (sizeof(PetscScalar) + sizeof(int)) + (L->ym + 1) * sizeof(int)) / (double)L->nnz : 0.0, L->borrowed ? ", values shared with aijcusparse" : ""));
    if (L->crow) PetscCall(PetscViewerASCIIPrintf(viewer, "rows with entries only: %" PetscInt_FMT " of %" PetscInt_FMT "\n", L->m, L->ym));
    if (L->format != sp->format) PetscCall(PetscViewerASCIIPrintf(viewer, "format %s: %s\n", L->format->name, L->why));
    if (L->colperm || L->d_colperm) PetscCall(PetscViewerASCIIPrintf(viewer, "columns renumbered by frequency (column order %s): the 1%% most frequent hold %.1f%% of the nonzeros; each product gathers x into that order\n", MatSpmvColumnOrders[sp->colorder], 100.0 * (double)L->hotshare));
    else if (L->hotshare >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "natural column order: the 1%% most frequent columns hold %.1f%% of the nonzeros, less than the %.0f%% that renumbering asks\n", 100.0 * (double)L->hotshare, 100.0 * MATSPMV_HOT_SHARE));
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
  B->ops->eliminatezeros   = base->eliminatezeros;
  B->ops->transpose        = base->transpose;
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
  MatSpmvLayout L;

  PetscFunctionBegin;
  PetscCall(MatSpmvUpdate(A, 0, &L));
  if (nslots) *nslots = L->nslots;
  if (bytes) *bytes = (PetscLogDouble)L->nslots * sizeof(PetscScalar) + (PetscLogDouble)L->indexbytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Layout invariants, for tests: every nonzero in exactly one slot at its row and column,
   padding slots hold zeros at a valid column, slot values (times the folded scale) equal the CSR values */
static PetscErrorCode MatSpmvCheckLayout_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv    *sp = MatSpmvSeq(A);
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt          *row, *col, *seen, *rowof, mrows;
  PetscScalar       *val;
  PetscBool          done;

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    MatSpmvLayout L;

    PetscCall(MatSpmvUpdate(A, t, &L));
    PetscCall(MatSpmvLayoutDownload(sp, L));
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mrows, &ai, &aj, &done));
    PetscCall(MatSeqAIJGetArrayRead(A, &aa));
    PetscCall(PetscMalloc3(L->nslots, &row, L->nslots, &col, L->nslots, &val));
    PetscCall(PetscCalloc1(L->nnz, &seen));
    PetscCall(PetscMalloc1(L->nnz, &rowof));
    for (PetscInt r = 0; r < A->rmap->n; r++)
      for (PetscInt k = ai[r]; k < ai[r + 1]; k++) rowof[k] = r;
    if (sp->ondevice) {
#if defined(PETSC_HAVE_CUDA)
      void *stream;

      PetscCall(MatSpmvCUDAGetStream(&stream));
      PetscCall(MatSpmvCUDACopyToHost(val, L->d_val, L->nslots * sizeof(PetscScalar), stream));
#endif
    } else PetscCall(PetscArraycpy(val, L->val, L->nslots));
    PetscCall(L->format->slotrowcol(L, row, col));
    for (PetscInt s = 0; s < L->nslots && L->crow; s++) { /* stored rows to the operator's */
      PetscCheck(row[s] >= -1 && row[s] < L->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " has stored row %" PetscInt_FMT, sp->format->name, t ? "^T" : "", s, row[s]);
      if (row[s] >= 0) row[s] = L->crow[row[s]];
    }
    for (PetscInt s = 0; s < L->nslots; s++) {
      PetscInt k = L->slot2csr[s], r, c;

      PetscCheck(col[s] >= 0 && col[s] < PetscMax(L->n, 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " has column %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", sp->format->name, t ? "^T" : "", s, col[s], L->n);
      if (L->colperm && L->n) col[s] = L->colperm[col[s]]; /* the layout's column numbering to the operator's */
      PetscCheck(row[s] >= -1 && row[s] < L->ym, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " has row %" PetscInt_FMT, sp->format->name, t ? "^T" : "", s, row[s]);
      if (k < 0) {
        PetscCheck(val[s] == (PetscScalar)0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: padding slot %" PetscInt_FMT " holds a nonzero", sp->format->name, t ? "^T" : "", s);
        continue;
      }
      PetscCheck(k < L->nnz && !seen[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: CSR position %" PetscInt_FMT " stored %s", sp->format->name, t ? "^T" : "", k, k < L->nnz ? "twice" : "out of range");
      seen[k] = 1;
      r = rowof[k];
      c = aj[k];
      if (t) {
        PetscInt tmp = r;
        r            = c;
        c            = tmp;
      }
      PetscCheck(row[s] == r && col[s] == c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " at (%" PetscInt_FMT ", %" PetscInt_FMT ") holds the entry (%" PetscInt_FMT ", %" PetscInt_FMT ")", sp->format->name, t ? "^T" : "", s, row[s], col[s], r, c);
      /* with scales folded in, the values of the scaled CSR to the rounding of a few products */
      if (L->scale == (PetscScalar)1.0) PetscCheck(val[s] == aa[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " holds a stale value", sp->format->name, t ? "^T" : "", s);
      else PetscCheck(PetscAbsScalar(L->scale * val[s] - aa[k]) <= 16 * PETSC_MACHINE_EPSILON * PetscAbsScalar(aa[k]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: slot %" PetscInt_FMT " times the folded scale is not the CSR value", sp->format->name, t ? "^T" : "", s);
    }
    for (PetscInt k = 0; k < L->nnz; k++) PetscCheck(seen[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s%s: CSR position %" PetscInt_FMT " is in no slot", sp->format->name, t ? "^T" : "", k);
    PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mrows, &ai, &aj, &done));
    PetscCall(PetscFree3(row, col, val));
    PetscCall(PetscFree(seen));
    PetscCall(PetscFree(rowof));
  }
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
  PetscCall(MatSpmvUseCUSPARSEBase(&usecusparse));
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
    sp->backend  = MAT_SPMV_BACKEND_AUTO;
    sp->colorder = MAT_SPMV_COLUMN_ORDER_AUTO;
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

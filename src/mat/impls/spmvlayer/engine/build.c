/*
  Building the layout of one product operator (A, or A^T for the transpose products) in one format
  from the CSR pattern: the transpose's CSR, the compressed rows of mostly empty blocks, the column
  numbering (by frequency where a few columns hold many nonzeros, reverse Cuthill-McKee where rows
  spread over many columns), and the format's host build or its device build from aijcusparse's
  device CSR. Choosing among a selecting format's candidates: select.c.
*/
#include "../spmvimpl.h"

PetscLogEvent MATSPMV_RowStats, MATSPMV_FrequencyPlan, MATSPMV_RCMPlan, MATSPMV_Layout;

PetscErrorCode MatSpmvRegisterBuildEvents(void)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("MatSpmvRowStats", MAT_CLASSID, &MATSPMV_RowStats));
  PetscCall(PetscLogEventRegister("MatSpmvFreqPlan", MAT_CLASSID, &MATSPMV_FrequencyPlan));
  PetscCall(PetscLogEventRegister("MatSpmvRCMPlan", MAT_CLASSID, &MATSPMV_RCMPlan));
  PetscCall(PetscLogEventRegister("MatSpmvLayout", MAT_CLASSID, &MATSPMV_Layout));
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
static PetscErrorCode MatSpmvCompressRows(const MatSpmvCSR *csr, PetscInt nonempty, MatSpmvCSR *ccsr, PetscInt **crow, PetscInt **ci) /* nonempty: the rows with entries, or -1 */
{
  PetscInt mc = 0;

  PetscFunctionBegin;
  *ccsr = *csr;
  *crow = *ci = NULL;
  if (nonempty > csr->m / 2) PetscFunctionReturn(PETSC_SUCCESS); /* counted already: no host pass */
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

PetscErrorCode MatSpmvColumnPlanDestroy(MatSpmvColumnPlan *plan)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(plan->perm));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(plan->d_perm));
#endif
  plan->d_perm   = NULL;
  plan->renumber = PETSC_FALSE;
  plan->order    = MAT_SPMV_COLUMN_ORDER_NATURAL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether A's layouts, and A^T's from A^T's CSR made there, are built from aijcusparse's device CSR */
static PetscBool MatSpmvBuildsFromDeviceCSR(Mat_SeqAIJSpmv *sp)
{
  return (PetscBool)(sp->ondevice && sp->base->cusparse && sizeof(PetscInt) == sizeof(int));
}

/* The device modules of the layer and of format (every format's for a selecting one) loaded in the
   background from now on (a matrix of ours made on aijcusparse: its host assembly comes next) */
PetscErrorCode MatSpmvPreloadDeviceCode(MatSpmvFormat *format)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    MatSpmvFormat *const *formats = &format;
    const void           *kernels[1 + MATSPMV_MAX_CANDIDATES];
    PetscInt              n = 0, nformats = 1;

    if (format->select) PetscCall(MatSpmvGetFormats(&nformats, &formats));
    kernels[n++] = MatSpmvCUDALayerKernel();
    for (PetscInt f = 0; f < nformats && n < 1 + MATSPMV_MAX_CANDIDATES; f++)
      if (formats[f]->devicekernel) kernels[n++] = formats[f]->devicekernel();
    PetscCall(MatSpmvCUDAPreload(n, kernels));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before a device build: the modules loading in the background loaded, so that they do not contend
   with aijcusparse's upload of the CSR (they slowed it as much as they saved, measured) */
PetscErrorCode MatSpmvPrepareDeviceBuild(Mat A, MatSpmvOp t)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (MatSpmvBuildsFromDeviceCSR(sp)) PetscCall(MatSpmvCUDAPreloadWait());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lengths of op(A)'s rows (t = 0: A's; t = 1: A^T's, counted from A's columns; from A's device CSR
   where it is there), once per build: the RCM decision, the compressed rows and a selecting format read them */
PetscErrorCode MatSpmvRowLengthStats(Mat A, MatSpmvOp t, const MatSpmvCSR *csr, MatSpmvRowStats *stats)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  MatSpmvCSR      op;
  PetscInt       *ti;
  PetscReal       var = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(stats, sizeof(*stats)));
  if (MatSpmvBuildsFromDeviceCSR(sp)) {
#if defined(PETSC_HAVE_CUDA)
    const int *d_i, *d_j;
    void      *stream;

    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j)); /* the CSR upload (aijcusparse's event) outside ours */
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogEventBegin(MATSPMV_RowStats, A, 0, 0, 0));
    if (t) PetscCall(MatSpmvCUDAColumnLengthStats(csr->n, csr->nnz, d_j, stats, stream));
    else PetscCall(MatSpmvCUDARowLengthStats(csr->m, d_i, stats, stream));
    PetscCall(PetscLogEventEnd(MATSPMV_RowStats, A, 0, 0, 0));
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(MATSPMV_RowStats, A, 0, 0, 0));
  PetscCall(MatSpmvOperatorRows(csr, t, &op, &ti));
  for (PetscInt r = 0; r < op.m; r++) {
    const PetscInt len = op.i[r + 1] - op.i[r];

    stats->nonempty += len > 0 ? 1 : 0;
    stats->longest = PetscMax(stats->longest, len);
    stats->sum += (PetscReal)len;
    stats->sumsq += (PetscReal)len * (PetscReal)len;
  }
  if (stats->nonempty) {
    stats->mean = (PetscReal)op.nnz / (PetscReal)stats->nonempty;
    for (PetscInt r = 0; r < op.m; r++) {
      const PetscReal len = (PetscReal)(op.i[r + 1] - op.i[r]);

      if (len > 0) var += (len - stats->mean) * (len - stats->mean);
    }
    stats->stddev = PetscSqrtReal(var / (PetscReal)stats->nonempty);
  }
  PetscCall(PetscFree(ti));
  PetscCall(PetscLogEventEnd(MATSPMV_RowStats, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Columns by frequency, most first: where the 1% most frequent hold MATSPMV_HOT_SHARE of the nonzeros (auto) */
static PetscErrorCode MatSpmvColumnPlanFrequency(Mat A, MatSpmvOp t, const MatSpmvCSR *csr, MatSpmvColumnPlan *plan)
{
  Mat_SeqAIJSpmv *sp  = MatSpmvSeq(A);
  const PetscInt  n   = t ? csr->m : csr->n; /* the operator's columns */
  PetscInt        hot = 0;

  PetscFunctionBegin;
  if (MatSpmvBuildsFromDeviceCSR(sp)) { /* counted and sorted on the device: no host pass (A^T's column counts are A's row lengths) */
#if defined(PETSC_HAVE_CUDA)
    const int *d_i, *d_j;
    void      *stream;

    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j)); /* the CSR upload (aijcusparse's event) outside ours */
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogEventBegin(MATSPMV_FrequencyPlan, A, 0, 0, 0));
    {
      const MatSpmvDeviceCSR pattern = {csr->m, csr->n, csr->nnz, d_i, d_j, NULL};

      PetscCall(MatSpmvCUDAColumnFrequency(&pattern, (PetscBool)(t != 0), sp->colorder == MAT_SPMV_COLUMN_ORDER_FREQUENCY ? 0 : MATSPMV_HOT_SHARE, &plan->d_perm, &hot, stream));
    }
#endif
  } else { /* counting sort of the columns by their counts, most first, stable */
    PetscInt       *ti = NULL, *start, maxc = 0;
    const PetscInt *oi; /* op(A)'s column counts are the row lengths of op(A)^T: A^T's rows, or A's own */

    PetscCall(PetscLogEventBegin(MATSPMV_FrequencyPlan, A, 0, 0, 0));

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
  if (plan->renumber) plan->order = MAT_SPMV_COLUMN_ORDER_FREQUENCY;
  else PetscCall(MatSpmvColumnPlanDestroy(plan));
  PetscCall(PetscLogEventEnd(MATSPMV_FrequencyPlan, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Columns in reverse Cuthill-McKee order of the square A's graph: asked for, or (auto) where far
   groups of rows (MatSpmvWideShare()) hold over MATSPMV_SPAN_SHARE of the nonzeros and RCM at least
   halves that share. Made from A's pattern for A^T's layout too (the same graph) */
static PetscErrorCode MatSpmvColumnPlanRCM(Mat A, MatSpmvOp t, const MatSpmvCSR *csr, MatSpmvFormat *format, MatSpmvColumnPlan *plan)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  PetscInt       *inv;
  PetscLogDouble  t0, t1, t2, t3;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  if (MatSpmvBuildsFromDeviceCSR(sp)) { /* measured on A's device CSR (also for A^T's layout): no host pass over the nonzeros */
#if defined(PETSC_HAVE_CUDA)
    const int      *d_i, *d_j;
    void           *stream;
    MatSpmvRowStats stats;

    if (csr->stats) stats = *csr->stats;
    else PetscCall(MatSpmvRowLengthStats(A, 0, csr, &stats));
    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(MatSpmvCUDAWideShare(csr->m, d_i, d_j, stats.longest, &plan->wideshare[0], stream));
#endif
  } else PetscCall(MatSpmvWideShare(csr, NULL, NULL, &plan->wideshare[0]));
  if (sp->colorder == MAT_SPMV_COLUMN_ORDER_AUTO && plan->wideshare[0] <= MATSPMV_SPAN_SHARE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t1));
  PetscCall(MatSpmvOrderRCM(A, csr, &plan->perm));
  PetscCall(PetscTime(&t2));
  PetscCall(PetscMalloc1(csr->n, &inv));
  for (PetscInt k = 0; k < csr->n; k++) inv[plan->perm[k]] = k;
  PetscCall(MatSpmvWideShare(csr, format->maprows ? plan->perm : NULL, inv, &plan->wideshare[1])); /* the format's rows follow the columns */
  PetscCall(PetscFree(inv));
  PetscCall(PetscTime(&t3));
  plan->renumber = (PetscBool)(sp->colorder == MAT_SPMV_COLUMN_ORDER_RCM || plan->wideshare[1] <= 0.5 * plan->wideshare[0]);
  PetscCall(PetscInfo(A, "Groups of %d rows whose k-th columns span %d or more (far) hold %.1f%% of the nonzeros, at most %.1f%% in RCM order: %s (host: %.0f ms to measure, %.0f ms for RCM, %.0f ms to measure it)\n", MATSPMV_SPAN_ROWS, MATSPMV_SPAN16,
                      100.0 * (double)plan->wideshare[0], 100.0 * (double)plan->wideshare[1], plan->renumber ? "RCM order" : "natural order", 1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2)));
  if (!plan->renumber) {
    PetscCall(MatSpmvColumnPlanDestroy(plan));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  plan->order = MAT_SPMV_COLUMN_ORDER_RCM;
  if (MatSpmvBuildsFromDeviceCSR(sp)) { /* a device build renumbers the device CSR with it */
#if defined(PETSC_HAVE_CUDA)
    PetscCall(MatSpmvCUDAUploadInt(&plan->d_perm, plan->perm, csr->n));
    PetscCall(PetscLogCpuToGpu(csr->n * sizeof(int)));
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The frequency order, decided before a selecting format chooses (its rules read it) */
PetscErrorCode MatSpmvColumnPlanMake(Mat A, MatSpmvOp t, const MatSpmvCSR *csr, MatSpmvColumnPlan *plan)
{
  Mat_SeqAIJSpmv          *sp    = MatSpmvSeq(A);
  const MatSpmvColumnOrder order = sp->colorder;
  const PetscInt           n     = t ? csr->m : csr->n; /* the operator's columns */

  PetscFunctionBegin;
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  plan->hotshare     = -1;
  plan->wideshare[0] = plan->wideshare[1] = -1;
  plan->order                             = MAT_SPMV_COLUMN_ORDER_NATURAL;
  if (!csr->nnz) PetscFunctionReturn(PETSC_SUCCESS);
  if (order == MAT_SPMV_COLUMN_ORDER_FREQUENCY || (order == MAT_SPMV_COLUMN_ORDER_AUTO && n >= MATSPMV_HOT_MIN_COLUMNS && !sp->format->naturalcolumns)) PetscCall(MatSpmvColumnPlanFrequency(A, t, csr, plan));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The RCM order, decided for the format that builds the layout (a selecting format's first choice):
   asked for, or (auto) for a format with short column offsets on a square operator of regular rows
   (standard deviation of the nonempty rows' lengths at most their mean: the meshes RCM bands, not
   the power-law and circuit graphs, whose RCM cost seconds for nothing; docs/results.md,
   "FEM operators: 16-bit offsets per slot column and the RCM order") */
PetscErrorCode MatSpmvColumnPlanBand(Mat A, MatSpmvOp t, const MatSpmvCSR *csr, MatSpmvFormat *format, MatSpmvColumnPlan *plan)
{
  Mat_SeqAIJSpmv          *sp    = MatSpmvSeq(A);
  const MatSpmvColumnOrder order = sp->colorder;

  PetscFunctionBegin;
  if (plan->renumber || !csr->nnz || (order != MAT_SPMV_COLUMN_ORDER_RCM && order != MAT_SPMV_COLUMN_ORDER_AUTO)) PetscFunctionReturn(PETSC_SUCCESS);
  if (csr->m != csr->n || sp->offdiag) {
    if (order == MAT_SPMV_COLUMN_ORDER_RCM) PetscCall(PetscInfo(A, "Column order rcm: a %" PetscInt_FMT " x %" PetscInt_FMT " %s keeps its order (no graph)\n", csr->m, csr->n, sp->offdiag ? "off-diagonal block" : "operator, not square,"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (order == MAT_SPMV_COLUMN_ORDER_AUTO) {
    MatSpmvRowStats stats;

    if (csr->n < MATSPMV_SPAN16 || !format->compactcolumns) PetscFunctionReturn(PETSC_SUCCESS);
    /* past 2^31 - 1 nonzeros the columns stay 32-bit (brc's 64-bit layout does not compress them) */
    if (csr->nnz > PETSC_INT32_MAX) PetscFunctionReturn(PETSC_SUCCESS);
    if (csr->stats) stats = *csr->stats;
    else PetscCall(MatSpmvRowLengthStats(A, 0, csr, &stats)); /* A's rows, also for A^T's layout */
    if (stats.stddev > stats.mean) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(MATSPMV_RCMPlan, A, 0, 0, 0));
  PetscCall(MatSpmvColumnPlanRCM(A, t, csr, format, plan));
  PetscCall(PetscLogEventEnd(MATSPMV_RCMPlan, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout of op(A) on the device from its device CSR (d_i, d_j: aijcusparse's, or A^T's made from
   it), with the format's own kernels: no host loop over the nonzeros, nothing uploaded. Used on the
   GPU path when the format has one. */
static PetscErrorCode MatSpmvBuildDevice(const MatSpmvCSR *csr, const int *d_i, const int *d_j, const MatSpmvColumnPlan *plan, MatSpmvLayout L)
{
  MatSpmvCSR pattern = {csr->m, csr->n, csr->nnz, csr->i, NULL, csr->colorder, csr->stats}; /* compressed or permuted rows: the same lengths */
  int       *d_pos   = NULL;
  void      *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  if (L->crow || L->rowsrcm) { /* the compressed or permuted row offsets (O(rows), made on the host with the pattern) */
    PetscCall(MatSpmvCUDAUploadInt(&L->d_ci, csr->i, csr->m + 1));
    PetscCall(PetscLogCpuToGpu((csr->m + 1) * sizeof(int)));
    if (L->crow) d_i = L->d_ci;
  }
  if (plan->renumber) { /* the format reads the renumbered columns, each row sorted; one that keeps CSR order reads them in place */
    const MatSpmvDeviceCSR opA = {csr->m, L->n, csr->nnz, d_i, d_j, NULL};

    PetscCall(MatSpmvCUDARenumberColumns(&opA, plan->d_perm, L->rowsrcm ? plan->d_perm : NULL, L->d_ci, &L->d_colj, &d_pos, stream));
    d_j = L->d_colj;
  }
  if (L->rowsrcm) d_i = L->d_ci;
  PetscCall(L->format->builddevice(L->params, &pattern, d_i, d_j, L, stream));
  if (L->rowsrcm) PetscCall(L->format->maprows(L, NULL, plan->d_perm, stream)); /* stored row r is operator row perm[r] */
  if (L->identity) {                                                            /* the format keeps CSR order and made no slot map */
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
static PetscErrorCode MatSpmvBuildLayout(Mat A, MatSpmvOp t, const MatSpmvCSR *csr, MatSpmvFormat *format, const void *params, MatSpmvColumnPlan *plan, MatSpmvLayout L)
{
  Mat_SeqAIJSpmv *sp = MatSpmvSeq(A);
  PetscBool       ondevicebuild;
  PetscInt       *ti = NULL, *tj = NULL, *perm = NULL, *ci = NULL, *jr = NULL, *pos = NULL, *pi = NULL;
  const int      *d_i = NULL, *d_j = NULL;
  int            *d_ti = NULL, *d_tj = NULL, *d_tpos = NULL;
  MatSpmvCSR      tcsr = {csr->n, csr->m, csr->nnz, NULL, NULL, MAT_SPMV_COLUMN_ORDER_NATURAL}, ccsr;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  L->scale = 1.0;
  L->ym    = t ? csr->n : csr->m;
  L->n     = t ? csr->m : csr->n;
  L->nnz   = csr->nnz;
  /* the format's device build needs aijcusparse's 32-bit device CSR (A^T's is made from it) */
  ondevicebuild = (PetscBool)(MatSpmvBuildsFromDeviceCSR(sp) && format->builddevice);
  if (ondevicebuild) PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
  if (t == 1 && ondevicebuild) { /* A^T's CSR on the device; its row offsets on the host too, for the pattern */
#if defined(PETSC_HAVE_CUDA)
    const MatSpmvDeviceCSR pattern = {csr->m, csr->n, csr->nnz, d_i, d_j, NULL};
    void                  *stream;

    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(MatSpmvCUDATransposeCSR(&pattern, &d_ti, &d_tj, &d_tpos, stream));
    PetscCall(MatSpmvCUDADownloadInt(&ti, d_ti, csr->n + 1));
    d_i = d_ti;
    d_j = d_tj;
#endif
    tcsr.i = ti;
  } else if (t == 1) {
    PetscCall(MatSpmvTransposeCSR(csr, &ti, &tj, &perm));
    tcsr.i = ti;
    tcsr.j = tj;
  }
  PetscCall(MatSpmvCompressRows(t ? &tcsr : csr, !t && csr->stats ? csr->stats->nonempty : -1, &ccsr, &L->crow, &ci));
  L->m            = ccsr.m;
  L->format       = format;
  L->params       = params;
  L->hotshare     = plan->hotshare;
  L->colorder     = plan->order;
  L->wideshare[0] = plan->wideshare[0];
  L->wideshare[1] = plan->wideshare[1];
  /* rows in the RCM order of the columns too, where the format can write them back to y's order:
     neighbouring stored rows then read nearby columns */
  L->rowsrcm = (PetscBool)(plan->order == MAT_SPMV_COLUMN_ORDER_RCM && L->format->maprows && !L->crow);
  if (plan->renumber && !ondevicebuild && !plan->perm) { /* a device plan for a host build */
#if defined(PETSC_HAVE_CUDA)
    PetscCall(MatSpmvCUDADownloadInt(&plan->perm, plan->d_perm, L->n));
#endif
  }
  if (L->rowsrcm) { /* the permuted row offsets: row r is row perm[r] */
    PetscCall(PetscMalloc1(ccsr.m + 1, &pi));
    pi[0] = 0;
    for (PetscInt r = 0; r < ccsr.m; r++) pi[r + 1] = pi[r] + ccsr.i[plan->perm[r] + 1] - ccsr.i[plan->perm[r]];
  }
  if (plan->renumber && !ondevicebuild) { /* the format builds from renumbered columns, jr[k] = inv[j[k]], each row sorted */
    PetscInt *inv;

    PetscCall(PetscMalloc1(L->n, &inv));
    PetscCall(PetscMalloc2(ccsr.nnz, &jr, ccsr.nnz, &pos));
    for (PetscInt k = 0; k < L->n; k++) inv[plan->perm[k]] = k;
    for (PetscInt r = 0; r < ccsr.m; r++) {
      const PetscInt from = L->rowsrcm ? plan->perm[r] : r, to = L->rowsrcm ? pi[r] : ccsr.i[r];

      for (PetscInt q = 0; q < ccsr.i[from + 1] - ccsr.i[from]; q++) {
        jr[to + q]  = inv[ccsr.j[ccsr.i[from] + q]];
        pos[to + q] = ccsr.i[from] + q;
      }
    }
    if (L->rowsrcm) ccsr.i = pi;
    for (PetscInt r = 0; r < ccsr.m; r++) PetscCall(PetscSortIntWithArray(ccsr.i[r + 1] - ccsr.i[r], jr + ccsr.i[r], pos + ccsr.i[r]));
    PetscCall(PetscFree(inv));
    ccsr.j = jr;
  } else if (L->rowsrcm) ccsr.i = pi; /* the device build permutes its own columns */
  if (plan->renumber && plan->perm) { /* the host order (a device plan for a device build has none: downloaded for layout checks only) */
    PetscCall(PetscMalloc1(L->n, &L->colperm));
    PetscCall(PetscArraycpy(L->colperm, plan->perm, L->n));
  }
  ccsr.colorder = plan->order;
  if (ondevicebuild) {
#if defined(PETSC_HAVE_CUDA)
    ierr = PETSC_SUCCESS;
    if (plan->renumber && !plan->d_perm) ierr = MatSpmvCUDAUploadInt(&plan->d_perm, plan->perm, L->n); /* a host plan (A^T's frequency order) */
    if (!ierr) ierr = MatSpmvBuildDevice(&ccsr, d_i, d_j, plan, L);
    if (!ierr && t == 1 && format->readscsr) { /* the layout reads A^T's CSR: kept with it */
      L->d_tcsr[0] = d_ti;
      L->d_tcsr[1] = d_tj;
      d_ti = d_tj = NULL;
    }
    if (!ierr && t == 1) { /* the slots name positions of A^T's CSR: to positions of A's */
      if (L->identity) {
        L->d_slot2csr = d_tpos;
        d_tpos        = NULL;
        L->identity   = PETSC_FALSE;
      } else {
        void *stream;

        ierr = MatSpmvCUDAGetStream(&stream);
        if (!ierr) ierr = MatSpmvCUDAComposeMap(L->nslots, L->d_slot2csr, d_tpos, stream);
      }
    }
    L->devicebuilt = PETSC_TRUE;
#else
    ierr = PETSC_ERR_PLIB;
#endif
  } else {
    ierr = L->format->build(L->params, &ccsr, L);
    if (!ierr && L->rowsrcm) ierr = L->format->maprows(L, plan->perm, NULL, NULL); /* stored row r is operator row perm[r] */
    if (!ierr && pos)                                                              /* positions of the sorted renumbered rows to those of the operator's CSR */
      for (PetscInt s = 0; s < L->nslots; s++)
        if (L->slot2csr[s] >= 0) L->slot2csr[s] = pos[L->slot2csr[s]];
    if (!ierr && t == 1)
      for (PetscInt s = 0; s < L->nslots; s++)
        if (L->slot2csr[s] >= 0) L->slot2csr[s] = perm[L->slot2csr[s]];
  }
  /* the work arrays are freed even if the format refuses the structure */
  PetscCall(PetscFree2(jr, pos));
  PetscCall(PetscFree(pi));
  PetscCall(PetscFree(ci));
  PetscCall(PetscFree(ti));
  PetscCall(PetscFree(tj));
  PetscCall(PetscFree(perm));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(d_ti));
  PetscCall(MatSpmvCUDAFree(d_tj));
  PetscCall(MatSpmvCUDAFree(d_tpos));
#endif
  PetscCall(ierr);
  if (!ondevicebuild) {
    L->identity = (PetscBool)(L->nslots == L->nnz);
    for (PetscInt s = 0; s < L->nslots && L->identity; s++) L->identity = (PetscBool)(L->slot2csr[s] == s);
  }
  /* device kernels index rows and columns with 32-bit integers, slots too unless the format takes 64-bit offsets */
  PetscCheck((L->nslots <= PETSC_INT32_MAX || L->format->slots64) && L->ym < PETSC_INT32_MAX && L->n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s stores %" PetscInt_FMT " slots for a %" PetscInt_FMT " x %" PetscInt_FMT " matrix: more than 32-bit indices address; split the matrix over more MPI processes or use MATAIJ",
             L->format->name, L->nslots, L->ym, L->n);
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
  if (L->crow) L->indexbytes += L->m * sizeof(int);        /* the stored rows' operator rows */
  if (plan->renumber) L->indexbytes += L->n * sizeof(int); /* the column order */
  PetscCall(PetscInfo(A, "%s layout of %s built on the %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros in %" PetscInt_FMT " slots%s%s\n", L->format->name, t ? "A^T" : "A", ondevicebuild ? "device" : "host", L->ym, L->n, L->nnz, L->nslots, L->crow ? ", rows with entries only" : "", plan->renumber ? (plan->order == MAT_SPMV_COLUMN_ORDER_RCM ? (L->rowsrcm ? ", rows and columns in RCM order" : ", columns in RCM order") : ", columns by frequency") : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new layout of op(A) in format: NULL in *L, and the format's error code in *ierr, when the format
   refuses the structure (a size past 32-bit indices, ELLR's padding limit); the half-built layout is
   then freed. quiet: the refusal is expected to be handled (another candidate follows), not printed */
PetscErrorCode MatSpmvTryBuild(Mat A, MatSpmvOp t, const MatSpmvCSR *csr, MatSpmvFormat *format, const void *params, MatSpmvColumnPlan *plan, PetscBool quiet, MatSpmvLayout *L, PetscErrorCode *ierr)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(L));
  if (quiet) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(PetscLogEventBegin(MATSPMV_Layout, A, 0, 0, 0));
  *ierr = MatSpmvBuildLayout(A, t, csr, format, params, plan, *L);
  PetscCall(PetscLogEventEnd(MATSPMV_Layout, A, 0, 0, 0));
  if (quiet) PetscCall(PetscPopErrorHandler());
  if (*ierr) {
    const char *msg = NULL;

    if (quiet) {
      (void)PetscErrorMessage(*ierr, NULL, &msg);
      PetscCall(PetscInfo(A, "%s refused the %s of this matrix: %s\n", format->name, t ? "transpose" : "pattern", msg ? msg : ""));
    }
    PetscCall(MatSpmvLayoutDestroy(L));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row offsets of op(A)'s pattern, which a selecting format reads (A's own for t = 0; A^T's,
   counted from A's columns, for t = 1: PetscFree *ti) */
PetscErrorCode MatSpmvOperatorRows(const MatSpmvCSR *csr, MatSpmvOp t, MatSpmvCSR *op, PetscInt **ti)
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

/*
  MATELLR: ELLPACK-R and ELLR-T (Yin, Zhang, Xu, Hu, He, JATIT 2012, sections 3.2 and 5.3, after
  Vazquez et al.).

  ELLPACK stores every row padded to the longest row, column-major, so that consecutive threads
  (rows) read consecutive memory; ELLPACK-R adds RL, the row lengths, so that a thread stops at
  its row's end instead of multiplying the padding. ELLR-T gives each row T threads (a power of two
  up to 32), thread t summing entries t, t + T, ... of the row, stored so that the T threads of a
  row and the rows after it read consecutive slots; the T partial sums are combined by warp
  shuffles (the paper's shared-memory reduction relies on implicit warp synchrony). Empty rows
  hold no slots (the off-diagonal blocks of MPI matrices are mostly empty rows). Padding to the
  longest row can explode on irregular matrices: the build refuses, before allocating anything,
  when it would exceed -mat_ellr_max_padding times the nonzeros.
*/
#include "ellrimpl.h"

/* T automatic, 128 threads per block (the paper's best), at most 3 slots per nonzero */
static const MatELLRParams MatELLRParamsDefault = {0, 128, 3.0};

static PetscErrorCode MatSpmvFormatSetFromOptions_ELLR(PetscOptionItems PetscOptionsObject, void *params)
{
  MatELLRParams *p = (MatELLRParams *)params;
  PetscBool      set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsRangeInt("-mat_ellr_t", "Threads per row (ELLR-T): 1, 2, 4, 8, 16 or 32; 0 picks it from the mean row length", "MatELLRSetThreadsPerRow", p->T, &p->T, &set, 0, MATELLR_MAX_T));
  PetscCheck(!(p->T & (p->T - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellr_t %" PetscInt_FMT " must be 1, 2, 4, 8, 16 or 32, or 0 for automatic", p->T);
  PetscCall(PetscOptionsRangeInt("-mat_ellr_block", "Threads per CUDA block, a multiple of 32 up to 1024", "MatELLRSetBlockSize", p->block, &p->block, &set, 32, MATELLR_MAX_BLOCK));
  PetscCheck(p->block % 32 == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_ellr_block %" PetscInt_FMT " must be a multiple of 32 from 32 to %d, e.g. 128", p->block, MATELLR_MAX_BLOCK);
  PetscCall(PetscOptionsBoundedReal("-mat_ellr_max_padding", "Largest allowed (nonempty rows x longest row) / nonzeros; a matrix padding more stops with an error", "MatELLRSetMaxPadding", p->maxpadding, &p->maxpadding, &set, 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatBuild_ELLR(const void *params, const MatSpmvCSR *csr, MatSpmvLayout L)
{
  MatELLRLayout  plan, *el;
  PetscInt       K = 0, mr = 0, nslots;
  const PetscInt m = csr->m;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt len = csr->i[r + 1] - csr->i[r];

    K = PetscMax(K, len);
    if (len) mr++;
  }
  PetscCall(MatELLRPlan((const MatELLRParams *)params, m, mr, csr->nnz, K, &plan, &nslots));
  PetscCall(PetscNew(&el));
  *el       = plan;
  L->fmt    = el;
  L->nslots = nslots;
  PetscCall(PetscMalloc1(mr, &el->rl));
  if (el->nempty) PetscCall(PetscMalloc1(mr, &el->rowidx));
  PetscCall(PetscMalloc1(el->nempty, &el->empty));
  PetscCall(PetscMalloc1(nslots, &el->col));
  PetscCall(PetscMalloc1(nslots, &L->slot2csr));
  for (PetscInt s = 0; s < nslots; s++) {
    el->col[s]     = 0;
    L->slot2csr[s] = -1;
  }
  for (PetscInt r = 0, i = 0, e = 0; r < m; r++) {
    const PetscInt len = csr->i[r + 1] - csr->i[r], ldT = el->ld * el->T;

    if (!len) {
      el->empty[e++] = r;
      continue;
    }
    el->rl[i] = len;
    if (el->rowidx) el->rowidx[i] = r;
    for (PetscInt n = 0; n < len; n++) { /* entry n of layout row i */
      const PetscInt s = (n / el->T) * ldT + i * el->T + n % el->T;

      el->col[s]     = csr->j[csr->i[r] + n];
      L->slot2csr[s] = csr->i[r] + n;
    }
    i++;
  }
  L->indexbytes = sizeof(int) * ((size_t)mr * (el->rowidx ? 2 : 1) + el->nempty + nslots);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatSlotRowCol_ELLR(MatSpmvLayout L, PetscInt *row, PetscInt *col)
{
  MatELLRLayout *el  = (MatELLRLayout *)L->fmt;
  const PetscInt ldT = el->ld * el->T;

  PetscFunctionBegin;
  for (PetscInt s = 0; s < L->nslots; s++) { /* slots of rounding rows past the layout rows belong to no row */
    const PetscInt i = (s % ldT) / el->T;

    row[s] = i < el->mr ? (el->rowidx ? el->rowidx[i] : i) : -1;
    col[s] = el->col[s];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host reference kernel, the device kernel's arithmetic: thread t of layout row i sums entries t,
   t + T, ... below rl[i]; the T partial sums are combined as the shuffle butterfly leaves them in
   thread 0 (step o adds partial t + o into t, o = T/2, ..., 1), scaled, and z added; empty rows
   get z (or 0) */
static PetscErrorCode MatSpmvFormatMultHost_ELLR(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  MatELLRLayout *el = (MatELLRLayout *)L->fmt;
  const PetscInt T = el->T, ldT = el->ld * el->T;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < el->nempty; e++) y[el->empty[e]] = z ? z[el->empty[e]] : 0.0;
  for (PetscInt i = 0; i < el->mr; i++) {
    const PetscInt row = el->rowidx ? el->rowidx[i] : i;
    PetscScalar    part[MATELLR_MAX_T], sum;

    for (PetscInt t = 0; t < T; t++) {
      part[t] = 0;
      for (PetscInt n = t, s = i * T + t; n < el->rl[i]; n += T, s += ldT) part[t] += L->val[s] * x[el->col[s]];
    }
    for (PetscInt o = T / 2; o > 0; o /= 2)
      for (PetscInt t = 0; t < o; t++) part[t] += part[t + o];
    sum    = part[0] * L->scale;
    y[row] = z ? z[row] + sum : sum;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatDestroy_ELLR(MatSpmvLayout L)
{
  MatELLRLayout *el = (MatELLRLayout *)L->fmt;

  PetscFunctionBegin;
  if (!el) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(el->rl));
  PetscCall(PetscFree(el->rowidx));
  PetscCall(PetscFree(el->empty));
  PetscCall(PetscFree(el->col));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAFree(el->d_rl));
  PetscCall(MatSpmvCUDAFree(el->d_rowidx));
  PetscCall(MatSpmvCUDAFree(el->d_empty));
  PetscCall(MatSpmvCUDAFree(el->d_col));
#endif
  PetscCall(PetscFree(L->fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFormatView_ELLR(MatSpmvLayout L, PetscViewer viewer)
{
  MatELLRLayout *el     = (MatELLRLayout *)L->fmt;
  const double   padded = (double)el->mr * el->K;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "row lengths: %" PetscInt_FMT " nonempty rows of mean length %.2f, longest %" PetscInt_FMT "; %" PetscInt_FMT " empty rows (no slots)\n", el->mr, (double)el->mean, el->K, el->nempty));
  if (el->T == el->Tasked) PetscCall(PetscViewerASCIIPrintf(viewer, "T = %" PetscInt_FMT " threads per row (%s), %" PetscInt_FMT " threads per block\n", el->T, el->Tauto ? "automatic" : "set", el->block));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "T = %" PetscInt_FMT " threads per row (%" PetscInt_FMT " %s, more than the longest row needs), %" PetscInt_FMT " threads per block\n", el->T, el->Tasked, el->Tauto ? "automatic" : "set", el->block));
  PetscCall(
    PetscViewerASCIIPrintf(viewer, "rows padded to the longest: %" PetscInt_FMT " x %" PetscInt_FMT " = %.0f slots, padding ratio %.3f (limit -mat_ellr_max_padding %.2f)\n", el->mr, el->K, padded, L->nnz ? padded / (double)L->nnz : 1.0, (double)el->maxpadding));
  PetscCall(PetscViewerASCIIPrintf(viewer, "stored as %" PetscInt_FMT " slabs of %" PetscInt_FMT " rows (rounded up for alignment) x %" PetscInt_FMT " threads\n", el->steps, el->ld, el->T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MatSpmvFormat MatSpmvFormat_ELLR = {
  .name           = "ellr",
  .aijname        = MATAIJELLR,
  .seqtype        = MATSEQAIJELLR,
  .mpitype        = MATMPIAIJELLR,
  .title          = "ELLPACK-R / ELLR-T (ELLR)",
  .paramsize      = sizeof(MatELLRParams),
  .paramsdefault  = &MatELLRParamsDefault,
  .setfromoptions = MatSpmvFormatSetFromOptions_ELLR,
  .build          = MatSpmvFormatBuild_ELLR,
  .slotrowcol     = MatSpmvFormatSlotRowCol_ELLR,
  .multhost       = MatSpmvFormatMultHost_ELLR,
#if defined(PETSC_HAVE_CUDA)
  .upload       = MatSpmvFormatUpload_ELLR,
  .multdevice   = MatSpmvFormatMultDevice_ELLR,
  .builddevice  = MatSpmvFormatBuildDevice_ELLR,
  .devicekernel = MatSpmvFormatDeviceKernel_ELLR,
  .download     = MatSpmvFormatDownload_ELLR,
#endif
  .destroy   = MatSpmvFormatDestroy_ELLR,
  .view      = MatSpmvFormatView_ELLR,
  .createseq = MatCreate_SeqAIJELLR,
  .creatempi = MatCreate_MPIAIJELLR,
};

MATSPMV_DEFINE_CREATE(ELLR, MatSpmvFormat_ELLR)

/*@
  MatELLRSetThreadsPerRow - sets T, the GPU threads that share each row of a `MATELLR` matrix (ELLR-T)

  Logically Collective

  Input Parameters:
+ A - a `MATELLR` matrix
- T - 1, 2, 4, 8, 16 or 32, or 0 (the default) to pick it from the mean row length

  Options Database Key:
. -mat_ellr_t <T> - threads per row

  Notes:
  Thread t of a row sums the row's entries t, t + T, t + 2T, ...; the T partial sums are combined
  with warp shuffles. T = 1 is ELLPACK-R. The automatic choice is the largest power of two up to
  32 that leaves each thread at least 64 entries of a row of mean length (1 below 128). T is never taken larger
  than the longest row rounded up to a power of two.

  Level: advanced

.seealso: `MATELLR`, `MatELLRSetBlockSize()`, `MatELLRSetMaxPadding()`
@*/
PetscErrorCode MatELLRSetThreadsPerRow(Mat A, PetscInt T)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, T, 2);
  PetscCheck(T >= 0 && T <= MATELLR_MAX_T && !(T & (T - 1)), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "ELLR threads per row %" PetscInt_FMT " must be 1, 2, 4, 8, 16 or 32, or 0 for automatic", T);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_ELLR, offsetof(MatELLRParams, T), T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatELLRSetBlockSize - sets the threads per CUDA block of the `MATELLR` kernel

  Logically Collective

  Input Parameters:
+ A     - a `MATELLR` matrix
- block - a multiple of 32 from 32 to 1024; 128 (the paper's choice) by default

  Options Database Key:
. -mat_ellr_block <block> - threads per block

  Level: advanced

.seealso: `MATELLR`, `MatELLRSetThreadsPerRow()`
@*/
PetscErrorCode MatELLRSetBlockSize(Mat A, PetscInt block)
{
  PetscFunctionBegin;
  PetscValidLogicalCollectiveInt(A, block, 2);
  PetscCheck(block >= 32 && block <= MATELLR_MAX_BLOCK && block % 32 == 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "ELLR block size %" PetscInt_FMT " must be a multiple of 32 from 32 to %d, e.g. 128", block, MATELLR_MAX_BLOCK);
  PetscCall(MatSpmvSetParam_Private(A, &MatSpmvFormat_ELLR, offsetof(MatELLRParams, block), block));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatELLRSetMaxPadding - sets how much padding a `MATELLR` layout may hold: the build stops with
  `PETSC_ERR_SUP` when (nonempty rows x longest row) exceeds this times the nonzeros

  Logically Collective

  Input Parameters:
+ A     - a `MATELLR` matrix
- ratio - at least 1; 3 by default

  Options Database Key:
. -mat_ellr_max_padding <ratio> - the largest padding ratio

  Note:
  ELLPACK pads every row to the longest one: a single row of 200000 entries in a matrix of 2
  million rows would ask for 4 x 10^11 slots. The check runs before anything is allocated; such
  matrices suit `MATBRC` or `MATARGCSR`, which do not pad to the longest row. Empty rows hold no
  slots and do not count. With MPI each process checks its diagonal and off-diagonal blocks (and,
  for the transpose products, their transposes); a refusal on one process stops the product on all.

  Level: advanced

.seealso: `MATELLR`, `MatELLRSetThreadsPerRow()`
@*/
PetscErrorCode MatELLRSetMaxPadding(Mat A, PetscReal ratio)
{
  void *p;

  PetscFunctionBegin;
  PetscValidLogicalCollectiveReal(A, ratio, 2);
  PetscCheck(ratio >= 1, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "ELLR maximal padding ratio %g must be at least 1 (nonempty rows x longest row is never below the nonzeros), e.g. 3", (double)ratio);
  PetscCall(MatSpmvGetFormatParams_Private(A, &MatSpmvFormat_ELLR, &p));
  ((MatELLRParams *)p)->maxpadding = ratio;
  PetscCall(MatSpmvParamsChanged_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

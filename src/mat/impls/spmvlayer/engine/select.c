/*
  The layout of one operator in the matrix's format, or in one of the candidates a selecting format
  (spmv) offers for it: the first that builds, or the fastest of those timed when the selecting format
  asks for tuning; derived operators fall back to a format that pads nothing. Above build.c (one
  layout) and apply.c (its values and products, for the timing).
*/
#include "../spmvimpl.h"

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
    for (PetscInt k = -1; k < reps; k++) {        /* an untimed product first */
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

/* op(A) keeps aijcusparse's products at this nonzero pattern (its layout, if any, freed), and why */
static PetscErrorCode MatSpmvDeclineLayout(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvOp t, const char *why)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvLayoutDestroy(&sp->L[t]));
  sp->state[t]    = MATSPMV_NOSTATE;
  sp->declined[t] = PETSC_TRUE;
  PetscCall(PetscStrncpy(sp->declinedwhy[t], why, sizeof(sp->declinedwhy[t])));
  PetscCall(PetscInfo(A, "%s: no layout of %s (%s): its products stay aijcusparse's at this nonzero pattern\n", sp->format->name, t ? "A^T" : "A", sp->declinedwhy[t]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MATSPMV_COMPARE_REPS 10 /* timed products of each, after an untimed one */

/* A layout built lazily (no backend asked for, aijcusparse underneath) against aijcusparse's own
   product of op(A), both timed on scratch vectors: where cuSPARSE is faster (irregular rows the format
   gains nothing on), the layout is declined and op(A) keeps aijcusparse's products, said by -info and
   -mat_view. The two give the same products; ~20 of each, once per nonzero pattern */
static PetscErrorCode MatSpmvCompareBase(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvOp t)
{
#if defined(PETSC_HAVE_CUDA)
  MatSpmvLayout  L = sp->L[t];
  PetscLogDouble ours, base, t0 = 0, t1;
  Vec            x, y;
  void          *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvUpdateValues(A, sp, L, &sp->state[t]));
  PetscCall(MatSpmvTimeLayout(A, L, MATSPMV_COMPARE_REPS, &ours));
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, t ? A->rmap->n : A->cmap->n, &x));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, t ? A->cmap->n : A->rmap->n, &y));
  PetscCall(VecZeroEntries(x)); /* a product's memory traffic does not depend on x */
  for (PetscInt k = -1; k < MATSPMV_COMPARE_REPS; k++) {
    if (k == 0) {
      PetscCall(MatSpmvCUDASynchronize(stream));
      PetscCall(PetscTime(&t0));
    }
    if (t) PetscCall(sp->base->multtranspose(A, x, y));
    else PetscCall(sp->base->mult(A, x, y));
  }
  PetscCall(MatSpmvCUDASynchronize(stream));
  PetscCall(PetscTime(&t1));
  base = (t1 - t0) * 1e6 / MATSPMV_COMPARE_REPS;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  if (ours > base) {
    char why[128];

    PetscCall(PetscSNPrintf(why, sizeof(why), "aijcusparse's product measured faster, %.1f us against the layout's %.1f us", (double)base, (double)ours));
    PetscCall(MatSpmvDeclineLayout(A, sp, t, why));
  } else PetscCall(PetscInfo(A, "%s: the layout of %s takes %.1f us a product, aijcusparse's %.1f us: the layout's products\n", sp->format->name, t ? "A^T" : "A", (double)ours, (double)base));
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
}

/* Build the layout of A (t = 0) or A^T (t = 1) in A's format, or in one of the candidates its
   selecting format offers for this operator: the first that accepts the structure, or, when the
   selecting format asks for tuning, the fastest of those timed. A structure no candidate accepts
   leaves A without a layout, so the next product tries again (after, say, a parameter change) */
PetscErrorCode MatSpmvSelectLayout(Mat A, MatSpmvOp t, const MatSpmvCSR *csr0)
{
  MatSpmvRowStats   stats;
  MatSpmvCSR        counted = *csr0; /* A's CSR with its rows' statistics (t = 0) */
  const MatSpmvCSR *csr;
  Mat_SeqAIJSpmv   *sp                                 = MatSpmvSeq(A);
  MatSpmvFormat    *cand[MATSPMV_MAX_CANDIDATES]       = {sp->format};
  const void       *candparams[MATSPMV_MAX_CANDIDATES] = {sp->params};
  PetscInt          ncand = 1, timed = 0;
  /* a layout nobody asked for by name (lazy, on aijcusparse) may be declined: aijcusparse's products stay */
  const PetscBool   declinable = (PetscBool)(sp->ondevice && sp->backend == MAT_SPMV_BACKEND_AUTO && sp->base->cusparse);
  MatSpmvTune       tune       = {0, 0};
  MatSpmvLayout     L          = NULL, Lc;
  PetscObjectState  state      = MATSPMV_NOSTATE, cstate;
  PetscLogDouble    start, now, us = 0, best = PETSC_MAX_REAL;
  PetscErrorCode    ierr = PETSC_SUCCESS;
  MatSpmvColumnPlan plan;
  char              why[sizeof(((MatSpmvLayout)NULL)->why)] = "", times[sizeof(why)] = "";

  PetscFunctionBegin;
  /* the formats' device kernels index rows and columns with 32-bit integers, and slots too unless the
     format takes 64-bit offsets (a selecting format's candidates are sorted out below): a matrix past
     them is refused before any pass over it (a host build of billions of slots would only be refused
     after it) */
  if (sp->ondevice && ((csr0->nnz > PETSC_INT32_MAX && !sp->format->slots64 && !sp->format->select) || csr0->m >= PETSC_INT32_MAX || csr0->n >= PETSC_INT32_MAX)) {
    char msg[sizeof(sp->declinedwhy[0])];

    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%" PetscInt_FMT " nonzeros in %" PetscInt_FMT " x %" PetscInt_FMT ": past the 2^31 - 1 slots %s's 32-bit device indices address", csr0->nnz, csr0->m, csr0->n, sp->format->name));
    if (declinable) {
      PetscCall(MatSpmvDeclineLayout(A, sp, t, msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %s; use brc (64-bit slot offsets) or split the matrix over more MPI processes", sp->format->name, msg);
  }
  PetscCall(PetscLogEventBegin(sp->format->event_build, A, 0, 0, 0));
  PetscCall(MatSpmvPrepareDeviceBuild(A, t));
  /* op(A)'s rows: A's for the column plan and the compressed rows; A^T's (an O(nonzeros) count)
     only for a selecting format's choice */
  if (!t || sp->format->select) PetscCall(MatSpmvRowLengthStats(A, t, csr0, &stats));
  if (!t) counted.stats = &stats;
  csr = &counted;
  PetscCall(MatSpmvColumnPlanMake(A, t, csr, &plan));
  if (sp->format->select) {
    MatSpmvCSR op;
    PetscInt  *ti;

    PetscCall(MatSpmvOperatorRows(csr, t, &op, &ti));
    op.colorder = plan.order;
    op.stats    = &stats;
    ierr        = sp->format->select(sp->params, &op, &ncand, cand, candparams, &tune, why, sizeof(why));
    PetscCall(PetscFree(ti));
    PetscCall(ierr);
    PetscCheck(ncand >= 1 && ncand <= MATSPMV_MAX_CANDIDATES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s offered %" PetscInt_FMT " candidate formats, not 1 to %d", sp->format->name, ncand, MATSPMV_MAX_CANDIDATES);
    if (ncand == 1) tune.reps = 0; /* nothing to compare */
  }
  if (sp->ondevice && csr0->nnz > PETSC_INT32_MAX) { /* only candidates that address 64-bit slots */
    PetscInt kept = 0;

    for (PetscInt c = 0; c < ncand; c++)
      if (cand[c]->slots64) cand[kept] = cand[c], candparams[kept] = candparams[c], kept++;
    if (!kept) {
      PetscCall(MatSpmvColumnPlanDestroy(&plan));
      PetscCall(PetscLogEventEnd(sp->format->event_build, A, 0, 0, 0));
      PetscCheck(declinable, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt_FMT " nonzeros, past the 2^31 - 1 slots of the formats it chose among: use brc (64-bit slot offsets)", sp->format->name, csr0->nnz);
      PetscCall(MatSpmvDeclineLayout(A, sp, t, "past 2^31 - 1 nonzeros, no candidate format with 64-bit slot offsets"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (kept < ncand) PetscCall(PetscStrlcat(why, ", past 2^31 - 1 nonzeros only formats with 64-bit slot offsets", sizeof(why)));
    ncand = kept;
  }
  PetscCall(MatSpmvColumnPlanBand(A, t, csr, cand[0], &plan));
  if (sp->format->select && plan.order == MAT_SPMV_COLUMN_ORDER_RCM) PetscCall(PetscStrlcat(why, ", columns in RCM order", sizeof(why)));
  /* an operator the user did not choose the format for (A^T's layout, an operator PETSc derived):
     one that pads nothing is the last candidate. The user's own A may still be refused */
  if (sp->derived || t == 1) {
    MatSpmvFormat *fallback;
    PetscBool      offered = PETSC_FALSE;

    PetscCall(MatSpmvFormatFind(MATSPMV_FALLBACK_FORMAT, &fallback));
    for (PetscInt c = 0; c < ncand; c++) offered = (PetscBool)(offered || cand[c] == fallback);
    if (fallback && !offered && ncand < MATSPMV_MAX_CANDIDATES && (fallback->slots64 || csr0->nnz <= PETSC_INT32_MAX)) {
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
    PetscCall(MatSpmvTryBuild(A, t, csr, cand[c], candparams[c], &plan, (PetscBool)(c < ncand - 1 || L || declinable), &Lc, &ierr));
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
    PetscCall(MatSpmvUpdateValues(A, sp, Lc, &cstate));
    PetscCall(MatSpmvTimeLayout(A, Lc, tune.reps, &us));
    timed++;
    PetscCall(PetscInfo(A, "Tuning %s: %s %.1f us per product\n", t ? "A^T" : "A", cand[c]->name, (double)us));
    {
      char one[64];

      PetscCall(PetscSNPrintf(one, sizeof(one), "%s%s %.0f us", times[0] ? ", " : "", cand[c]->name, (double)us));
      PetscCall(PetscStrlcat(times, one, sizeof(times)));
    }
    if (us < best) {
      PetscCall(MatSpmvLayoutDestroy(&L));
      L     = Lc;
      state = cstate;
      best  = us;
    } else PetscCall(MatSpmvLayoutDestroy(&Lc));
  }
  PetscCall(MatSpmvColumnPlanDestroy(&plan));
  if (!L) {
    PetscCall(PetscLogEventEnd(sp->format->event_build, A, 0, 0, 0));
    PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No candidate format built a layout and none gave an error");
    if (declinable && (ierr == PETSC_ERR_SUP || ierr == PETSC_ERR_MEM || ierr == PETSC_ERR_GPU_RESOURCE)) {
      const char *msg = NULL;

      (void)PetscErrorMessage(ierr, NULL, &msg);
      PetscCall(MatSpmvDeclineLayout(A, sp, t, msg ? msg : "refused"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(ierr);
  }
  if (sp->format->select || L->format != sp->format) {
    if (times[0]) PetscCall(PetscSNPrintf(L->why, sizeof(L->why), "%s; %s%s", why, tune.reps ? "timed: " : "", times));
    else PetscCall(PetscStrncpy(L->why, why, sizeof(L->why)));
  }
  sp->L[t]     = L;
  sp->state[t] = state;
  PetscCall(PetscLogEventEnd(sp->format->event_build, A, 0, 0, 0));
  /* past 2^31 - 1 nonzeros aijcusparse's products fail (docs/limits.md): nothing to compare with */
  if (declinable && L->nnz && L->nnz <= PETSC_INT32_MAX) PetscCall(MatSpmvCompareBase(A, sp, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

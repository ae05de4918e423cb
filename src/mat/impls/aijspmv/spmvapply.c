/*
  The layouts of a SeqAIJ-derived petscspmv matrix at product time: the fingerprint that rebuilds
  a layout when the structure changed (spmvlayout.c builds it), the refresh of its slot values when
  only the values changed (one gather through the slot -> CSR map: on the device from aijcusparse's
  device values), x gathered into a renumbered column order, and the products themselves, on the
  host or the device (host vectors staged, compressed rows scattered into y).
*/
#include "aijspmvimpl.h"

PetscErrorCode MatSpmvReset(Mat_SeqAIJSpmv *sp)
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

/* x in the layout's column order: x itself, or gathered into a work array when the columns are renumbered */
PetscErrorCode MatSpmvGatherColumnsHost(Mat_SeqAIJSpmv *sp, MatSpmvLayout L, const PetscScalar **x)
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

PetscErrorCode MatSpmvGatherColumnsDevice(Mat_SeqAIJSpmv *sp, MatSpmvLayout L, PetscScalar **dx, void *stream)
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

/* slot values from the CSR values (padding: zero) */
static void MatSpmvGatherHost(MatSpmvLayout L, const PetscScalar *aa, PetscScalar *val)
{
  for (PetscInt s = 0; s < L->nslots; s++) val[s] = L->slot2csr[s] >= 0 ? aa[L->slot2csr[s]] : 0.0;
}

/* Bring the layout of A (t = 0) or A^T (t = 1) up to date with A */
PetscErrorCode MatSpmvUpdate(Mat A, int t, MatSpmvLayout *Lout)
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
PetscErrorCode MatSpmvRefresh(Mat A, MatSpmvLayout L, PetscObjectState *lstate)
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
PetscBool MatSpmvUsesBaseProducts(Mat_SeqAIJSpmv *sp)
{
  return (PetscBool)(sp->resolved && !sp->ondevice && sp->backend == MAT_SPMV_BACKEND_AUTO);
}

/* y = op(A) x (+ z); t = 0: op(A) = A, t = 1: op(A) = A^T */
PetscErrorCode MatSpmvApply(Mat A, int t, Vec x, Vec z, Vec y)
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

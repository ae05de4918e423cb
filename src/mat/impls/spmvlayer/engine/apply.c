/*
  The values and products of one layout: its slot values refreshed from the matrix's CSR values when
  only the values changed (one gather through the slot -> CSR map: on the device from aijcusparse's
  device values), x gathered into a renumbered column order, and the product on host or device arrays
  (compressed rows scattered into y).
*/
#include "../spmvimpl.h"

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

#if defined(PETSC_HAVE_CUDA)
/* The slot values gathered from CSR values on the device; the slot map is uploaded at its first use,
   with 64-bit CSR positions in a layout of 64-bit slot offsets */
static PetscErrorCode MatSpmvLayoutGatherDevice(MatSpmvLayout L, const PetscScalar *d_csrval, void *stream)
{
  PetscFunctionBegin;
  #if defined(PETSC_USE_64BIT_INDICES)
  if (MatSpmvLayoutSlots64(L)) { /* PetscInt's CSR positions as they are */
    if (!L->d_slot2csr64) {
      PetscCall(MatSpmvCUDAUpload((void **)&L->d_slot2csr64, L->slot2csr, (size_t)L->nslots * sizeof(long long)));
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)L->nslots * sizeof(long long)));
    }
    PetscCall(MatSpmvCUDAGather64(L->nslots, L->d_slot2csr64, d_csrval, L->d_val, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  #endif
  if (!L->d_slot2csr && L->nslots) {
    PetscCall(MatSpmvCUDAUploadInt(&L->d_slot2csr, L->slot2csr, L->nslots));
    PetscCall(PetscLogCpuToGpu(L->nslots * sizeof(int)));
  }
  PetscCall(MatSpmvCUDAGather(L->nslots, L->d_slot2csr, d_csrval, L->d_val, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Bring the values of layout L, last filled at object state *lstate, up to date with A */
PetscErrorCode MatSpmvUpdateValues(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvLayout L, PetscObjectState *lstate)
{
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (sp->ondevice && sp->base->cusparse) {
#if defined(PETSC_HAVE_CUDA)
    PetscScalar *d_a;
    PetscMemType mtype;

    if (L->borrowed) { /* the values are aijcusparse's: only make sure they are on the device */
      PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &d_a, &mtype));
      L->d_val = d_a;
      *lstate  = state;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (*lstate == state) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(PetscLogEventBegin(sp->format->event_refresh, A, 0, 0, 0));
    /* aijcusparse brings its device values up to date (an upload only if the host changed them) */
    PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &d_a, &mtype));
    PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "aijcusparse base gave host values");
    {
      void *stream;

      PetscCall(MatSpmvCUDAGetStream(&stream));
      PetscCall(MatSpmvLayoutGatherDevice(L, d_a, stream));
    }
    L->scale = 1.0;
    *lstate  = state;
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
        if (sp->d_csrstate != state) {
          if (!sp->d_csrval) PetscCall(MatSpmvCUDAMalloc((void **)&sp->d_csrval, sp->nnz * sizeof(PetscScalar)));
          PetscCall(MatSpmvCUDACopyToDevice(sp->d_csrval, aa, sp->nnz * sizeof(PetscScalar), stream));
          PetscCall(PetscLogCpuToGpu(sp->nnz * sizeof(PetscScalar)));
          sp->d_csrstate = state;
        }
        PetscCall(MatSpmvLayoutGatherDevice(L, sp->d_csrval, stream));
      }
#endif
    } else {
      if (L->identity) PetscCall(PetscArraycpy(L->val, aa, L->nslots));
      else MatSpmvGatherHost(L, aa, L->val);
    }
    PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  }
  L->scale = 1.0;
  *lstate  = state;
  PetscCall(PetscLogEventEnd(sp->format->event_refresh, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = L x (+ z, NULL allowed; z may be y) on host arrays: x gathered into the layout's column order,
   a compressed layout's stored rows multiplied into a buffer, then added into their rows of y */
PetscErrorCode MatSpmvLayoutMultHost(Mat_SeqAIJSpmv *sp, MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvGatherColumnsHost(sp, L, &x));
  if (L->crow) {
    if (sp->cn < L->m) {
      PetscCall(PetscFree(sp->c));
      PetscCall(PetscMalloc1(L->m, &sp->c));
      sp->cn = L->m;
    }
    PetscCall(L->format->multhost(L, x, NULL, sp->c));
    if (!z) PetscCall(PetscArrayzero(y, L->ym));
    else if (z != y) PetscCall(PetscArraycpy(y, z, L->ym));
    for (PetscInt k = 0; k < L->m; k++) y[L->crow[k]] += sp->c[k];
  } else PetscCall(L->format->multhost(L, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same on device arrays, on the given cudaStream_t (dx may be replaced by the gathered x) */
PetscErrorCode MatSpmvLayoutMultDevice(Mat_SeqAIJSpmv *sp, MatSpmvLayout L, PetscScalar *dx, const PetscScalar *dz, PetscScalar *dy, void *stream)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvGatherColumnsDevice(sp, L, &dx, stream));
  if (L->crow) {
    if (sp->d_cn < L->m) {
      PetscCall(MatSpmvCUDAFree(sp->d_c));
      PetscCall(MatSpmvCUDAMalloc((void **)&sp->d_c, L->m * sizeof(PetscScalar)));
      sp->d_cn = L->m;
    }
    PetscCall(L->format->multdevice(L, dx, NULL, sp->d_c, stream));
    if (!dz) PetscCall(MatSpmvCUDAZero(dy, L->ym, stream));
    else PetscCall(MatSpmvCUDACopyOnDevice(dy, dz, L->ym * sizeof(PetscScalar), stream));
    PetscCall(MatSpmvCUDAAddRows(L->m, L->d_crow, sp->d_c, dy, stream));
  } else PetscCall(L->format->multdevice(L, dx, dz, dy, stream));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  A matrix's layouts at product time: the fingerprint that rebuilds a layout when the structure changed
  (select.c builds it), the refresh of its values when only they changed (apply.c), and the product
  y = op(A) x (+ z) on PETSc vectors: host or device, host vectors staged through device buffers.
  The caller (the type) has read the options and resolved the backend.
*/
#include "../spmvimpl.h"

/* Bring the layout of A (t = 0) or A^T (t = 1) up to date with A (sp: A's data) */
PetscErrorCode MatSpmvUpdate(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvOp t, MatSpmvLayout *Lout)
{
  PetscObjectState nzstate;
  const PetscInt  *ai, *aj;
  PetscInt         m;
  PetscBool        done;
  MatSpmvCSR       csr;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, &nzstate));
  /* a layout built at this nonzero state and data is current but for its values: PETSc raises the
     nonzero state at every change of the pattern, MatHeaderMerge() swaps in new data */
  if (!sp->L[t] || nzstate != sp->nonzerostate || A->data != sp->data) {
    /* the pattern is always current on the host (aijcusparse only moves values) */
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ() gave no CSR for a %s matrix", ((PetscObject)A)->type_name);
    csr.m   = A->rmap->n;
    csr.n   = A->cmap->n;
    csr.nnz = ai ? ai[csr.m] : 0;
    csr.i   = ai;
    csr.j   = aj;
    /* as stored; MatSpmvSelectLayout() plans the order and counts the rows */
    csr.colorder = MAT_SPMV_COLUMN_ORDER_NATURAL;
    csr.stats    = NULL;
    if (nzstate != sp->nonzerostate || csr.m != sp->m || csr.n != sp->n || csr.nnz != sp->nnz || A->data != sp->data) {
      PetscCall(MatSpmvReset(sp));
      sp->data         = A->data; /* MatHeaderMerge() swaps in new data under the same state */
      sp->nonzerostate = nzstate;
      sp->m            = csr.m;
      sp->n            = csr.n;
      sp->nnz          = csr.nnz;
    }
    if (!sp->L[t] && !sp->declined[t]) PetscCall(MatSpmvSelectLayout(A, t, &csr));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  }
  *Lout = sp->L[t];
  if (!*Lout) { /* declined (select.c): the caller keeps aijcusparse's products */
    PetscCheck(sp->declined[t], PETSC_COMM_SELF, PETSC_ERR_PLIB, "No layout and none declined");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvUpdateValues(A, sp, sp->L[t], &sp->state[t]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(A) x (+ z) through op(A)'s current layout (MatSpmvUpdate() made it so); t = 0: op(A) = A, t = 1:
   op(A) = A^T; host vectors staged through device buffers */
PetscErrorCode MatSpmvApply(Mat A, Mat_SeqAIJSpmv *sp, MatSpmvOp t, Vec x, Vec z, Vec y)
{
  const MatSpmvLayout L = sp->L[t];

  PetscFunctionBegin;
  PetscCheck(L, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product without a layout: the type keeps aijcusparse's there");
  PetscCall(PetscLogEventBegin(t ? sp->format->event_multT : sp->format->event_mult, A, x, y, 0));
  if (!sp->ondevice) {
    const PetscScalar *px, *pz = NULL;
    PetscScalar       *py;

    PetscCall(VecGetArrayRead(x, &px));
    if (z == y) {
      PetscCall(VecGetArray(y, &py));
      pz = py;
    } else {
      if (z) PetscCall(VecGetArrayRead(z, &pz));
      PetscCall(VecGetArrayWrite(y, &py));
    }
    PetscCall(MatSpmvLayoutMultHost(sp, L, px, pz, py));
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
    PetscCall(MatSpmvLayoutMultDevice(sp, L, dx, z ? pz : NULL, dy, stream));
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

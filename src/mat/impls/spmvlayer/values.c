/*
  Changes of values on aijcusparse's device CSR for our sequential types: MatShift() and
  MatDiagonalScale(), which aijcusparse leaves to SeqAIJ's host functions (the values copied to the
  host, changed there, uploaded again at the next use). A row without its diagonal entry (MatShift
  then inserts one), host vectors, or a matrix bound to the CPU take the base's function.
*/
#include "spmvimpl.h"

static PetscErrorCode MatShift_SeqAIJSpmv(Mat A, PetscScalar alpha)
{
  Mat_SeqAIJSpmv *sp     = MatSpmvSeq(A);
  PetscBool       device = PETSC_FALSE, shifted = PETSC_FALSE;
  const PetscInt  ndiag = PetscMin(A->rmap->n, A->cmap->n);

  PetscFunctionBegin;
  PetscCall(MatSpmvDeviceCSRUsable(A, &device));
  if (device) {
#if defined(PETSC_HAVE_CUDA)
    const int   *d_i, *d_j;
    PetscScalar *d_a;
    void        *stream;

    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
    PetscCall(MatSpmvCUSPARSEGetArray(A, &d_a));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDAShift(ndiag, d_i, d_j, alpha, d_a, &shifted, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSpmvCUSPARSERestoreArray(A, &d_a));
    if (shifted) PetscCall(PetscLogGpuFlops((PetscLogDouble)ndiag));
#endif
    if (!shifted) PetscCall(PetscInfo(A, "MatShift(): a row has no diagonal entry, which SeqAIJ's host function inserts\n"));
  }
  if (!shifted) PetscCall(sp->base->shift(A, alpha));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDiagonalScale_SeqAIJSpmv(Mat A, Vec l, Vec r)
{
  Mat_SeqAIJSpmv    *sp     = MatSpmvSeq(A);
  PetscBool          device = PETSC_FALSE;
  PetscMemType       lmt = PETSC_MEMTYPE_DEVICE, rmt = PETSC_MEMTYPE_DEVICE;
  const PetscScalar *lv = NULL, *rv = NULL;

  PetscFunctionBegin;
  PetscCall(MatSpmvDeviceCSRUsable(A, &device));
  if (device && l) PetscCall(VecGetArrayReadAndMemType(l, &lv, &lmt));
  if (device && r) PetscCall(VecGetArrayReadAndMemType(r, &rv, &rmt));
  if (device && PetscMemTypeDevice(lmt) && PetscMemTypeDevice(rmt)) {
#if defined(PETSC_HAVE_CUDA)
    const int   *d_i, *d_j;
    PetscScalar *d_a;
    void        *stream;
    MatInfo      info;

    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
    PetscCall(MatSpmvCUSPARSEGetArray(A, &d_a));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDADiagonalScale(A->rmap->n, d_i, d_j, lv, rv, d_a, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSpmvCUSPARSERestoreArray(A, &d_a));
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    PetscCall(PetscLogGpuFlops(info.nz_used * ((l ? 1 : 0) + (r ? 1 : 0))));
#endif
    device = PETSC_TRUE;
  } else device = PETSC_FALSE;
  if (lv) PetscCall(VecRestoreArrayReadAndMemType(l, &lv));
  if (rv) PetscCall(VecRestoreArrayReadAndMemType(r, &rv));
  if (!device) PetscCall(sp->base->diagonalscale(A, l, r)); /* host vectors: SeqAIJ's */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours on the aijcusparse base (a bound matrix takes the base's inside) */
PetscErrorCode MatSpmvSetValueOps_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  if (!MatSpmvSeq(A)->base->cusparse) PetscFunctionReturn(PETSC_SUCCESS);
  A->ops->shift         = MatShift_SeqAIJSpmv;
  A->ops->diagonalscale = MatDiagonalScale_SeqAIJSpmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

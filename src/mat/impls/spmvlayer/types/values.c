/*
  Changes of values on aijcusparse's device CSR for our sequential types: MatShift() and
  MatDiagonalScale(), which aijcusparse (PETSc 3.25) leaves to SeqAIJ's host functions (the values
  copied to the host, changed there, uploaded again at the next use). A row without its diagonal
  entry (MatShift then inserts one) or a matrix bound to the CPU take the base's function. Also
  MatScale() and MatAXPY() past 2^31 values, where aijcusparse's cuBLAS calls stop.
*/
#include "../spmvimpl.h"

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

#if defined(PETSC_HAVE_CUDA)
/* a scaling vector of MatDiagonalScale() read on the device: its device array, or a device copy of its host one */
typedef struct {
  Vec                v;
  const PetscScalar *array;  /* as VecGetArrayReadAndMemType() gave it */
  void              *staged; /* the device copy of a host array */
} MatSpmvScaling;

static PetscErrorCode MatSpmvScalingGet(Vec v, MatSpmvScaling *s, const PetscScalar **d_v)
{
  PetscMemType mtype;
  PetscInt     n;

  PetscFunctionBegin;
  s->v = v, s->array = NULL, s->staged = NULL, *d_v = NULL;
  if (!v) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayReadAndMemType(v, &s->array, &mtype));
  if (PetscMemTypeDevice(mtype)) *d_v = s->array;
  else {
    PetscCall(VecGetLocalSize(v, &n));
    PetscCall(MatSpmvCUDAUpload(&s->staged, s->array, (size_t)n * sizeof(PetscScalar)));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(PetscScalar)));
    *d_v = (const PetscScalar *)s->staged;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvScalingRestore(MatSpmvScaling *s)
{
  PetscFunctionBegin;
  if (s->staged) PetscCall(MatSpmvCUDAFree(s->staged)); /* cudaFree waits for the kernel that read it */
  if (s->v) PetscCall(VecRestoreArrayReadAndMemType(s->v, &s->array));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* v where aijcusparse takes it (a CUDA vector, or NULL), else its values in A's CUDA work vector of
   layout map under key: aijcusparse's MatDiagonalScale() reads its vectors' device arrays, and reads
   a host one, such as an MPI matrix's ghost vector, as garbage */
static PetscErrorCode MatSpmvScalingOnDevice(Mat A, Vec v, const char *key, PetscLayout map, Vec *w)
{
  PetscBool cuda;

  PetscFunctionBegin;
  *w = v;
  if (!v) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUSPARSETakesVecs(v, NULL, NULL, &cuda));
  if (cuda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvGetDeviceWorkVec(A, key, map, w));
  PetscCall(VecCopy(v, *w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host vectors are staged to the device (m + n values) rather than handed to the base: SeqAIJ's
   host function (PETSc 3.25) moves every value of A to the host and back, and with aijcusparse's
   device function (PETSc 3.26) host vectors give wrong values on 2 processes (docs/limits.md) */
static PetscErrorCode MatDiagonalScale_SeqAIJSpmv(Mat A, Vec l, Vec r)
{
  Mat_SeqAIJSpmv *sp     = MatSpmvSeq(A);
  PetscBool       device = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatSpmvDeviceCSRUsable(A, &device));
  if (!device) { /* the base's: aijcusparse's (64-bit indices) on device vectors */
    Vec lw = l, rw = r;

    if (sp->base->cusparse) {
      PetscCall(MatSpmvScalingOnDevice(A, l, "MatSpmvScalingLeft", A->rmap, &lw));
      PetscCall(MatSpmvScalingOnDevice(A, r, "MatSpmvScalingRight", A->cmap, &rw));
    }
    PetscCall(sp->base->diagonalscale(A, lw, rw));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(PETSC_HAVE_CUDA)
  {
    const int         *d_i, *d_j;
    const PetscScalar *d_l, *d_r;
    PetscScalar       *d_a;
    void              *stream;
    MatSpmvScaling     ls, rs;
    MatInfo            info;

    PetscCall(MatSpmvScalingGet(l, &ls, &d_l));
    PetscCall(MatSpmvScalingGet(r, &rs, &d_r));
    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
    PetscCall(MatSpmvCUSPARSEGetArray(A, &d_a));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDADiagonalScale(A->rmap->n, d_i, d_j, d_l, d_r, d_a, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSpmvCUSPARSERestoreArray(A, &d_a));
    PetscCall(MatSpmvScalingRestore(&ls));
    PetscCall(MatSpmvScalingRestore(&rs));
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    PetscCall(PetscLogGpuFlops(info.nz_used * ((l ? 1 : 0) + (r ? 1 : 0))));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether A holds more values than cuBLAS counts (32 bits): aijcusparse's MatScale() and MatAXPY()
   stop there ("too big for BLAS/LAPACK"; 64-bit indices, past 2^31 nonzeros), ours change its device values */
PetscInt MatSpmvBLASCountMax = PETSC_INT_MAX; /* -petscspmv_blas_count_max (read by the package): tests lower cuBLAS's count */

static PetscErrorCode MatSpmvValuesPastBLAS(Mat A, PetscCount *nz, PetscBool *past)
{
  MatInfo info;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  *nz   = (PetscCount)info.nz_used;
  *past = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  *past = (PetscBool)(MatSpmvSeq(A)->base->cusparse && !A->boundtocpu && *nz > PetscMin((PetscCount)PETSC_BLAS_INT_MAX, (PetscCount)MatSpmvBLASCountMax));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = a y (x NULL) or y += a x on aijcusparse's device values of Y (and X) */
static PetscErrorCode MatSpmvScaleDeviceValues(Mat Y, PetscCount nz, PetscScalar a, Mat X)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscScalar       *ya;
    const PetscScalar *xa = NULL;
    void              *stream;

    if (X) PetscCall(MatSpmvCUSPARSEGetValues(X, &xa));
    PetscCall(MatSpmvCUSPARSEGetArray(Y, &ya));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDAScaleValues(nz, a, xa, ya, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((X ? 2.0 : 1.0) * (PetscLogDouble)nz));
    PetscCall(MatSpmvCUSPARSERestoreArray(Y, &ya));
    if (X) PetscCall(MatSpmvCUSPARSERestoreValues(X, &xa));
  }
#else
  (void)Y, (void)nz, (void)a, (void)X;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The base's MatScale(), or past cuBLAS's count ours on aijcusparse's device values */
PetscErrorCode MatSpmvScaleValues(Mat A, PetscScalar a)
{
  PetscCount nz;
  PetscBool  past;

  PetscFunctionBegin;
  PetscCall(MatSpmvValuesPastBLAS(A, &nz, &past));
  if (!past) PetscCall(MatSpmvSeq(A)->base->scale(A, a));
  else {
    PetscCall(PetscInfo(A, "MatScale() of %" PetscCount_FMT " values, past cuBLAS's 32-bit count: ours on the device\n", nz));
    PetscCall(MatSpmvScaleDeviceValues(A, nz, a, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X with SUBSET_NONZERO_PATTERN on the device CSRs, entry by entry through Y's columns. aijcusparse's
   (csrgeam) reads the device row offsets of a matrix with compressed rows (many empty rows: GAMG's
   A P0 with -pc_gamg_threshold 0.1) as full ones, out of bounds (docs/limits.md). Other structures, a
   matrix bound to the CPU or on the host, or an X whose pattern is not within Y's: aijcusparse's */
static PetscErrorCode MatAXPY_SeqAIJSpmvDevice(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscBool ok[2] = {PETSC_FALSE, PETSC_FALSE}, xseq, subset = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATSEQAIJ, &xseq));
  if (str == SUBSET_NONZERO_PATTERN && xseq) {
    PetscCall(MatSpmvDeviceCSRUsable(Y, &ok[0]));
    PetscCall(MatSpmvDeviceCSRUsable(X, &ok[1]));
  }
#if defined(PETSC_HAVE_CUDA)
  if (ok[0] && ok[1]) {
    MatSpmvDeviceCSR xcsr = {X->rmap->n, X->cmap->n, 0, NULL, NULL, NULL}, ycsr = {Y->rmap->n, Y->cmap->n, 0, NULL, NULL, NULL};
    PetscScalar     *ya;
    MatInfo          info;
    void            *stream;

    PetscCall(MatGetInfo(X, MAT_LOCAL, &info));
    xcsr.nnz = (PetscInt)info.nz_used;
    PetscCall(MatSpmvCUSPARSEGetValues(X, &xcsr.a));
    PetscCall(MatSpmvCUSPARSEGetIJ(X, &xcsr.i, &xcsr.j));
    PetscCall(MatSpmvCUSPARSEGetArray(Y, &ya));
    PetscCall(MatSpmvCUSPARSEGetIJ(Y, &ycsr.i, &ycsr.j));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDAAXPYSubset(&xcsr, &ycsr, a, ya, &subset, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * info.nz_used));
    PetscCall(MatSpmvCUSPARSERestoreArray(Y, &ya));
    PetscCall(MatSpmvCUSPARSERestoreValues(X, &xcsr.a));
    if (!subset) PetscCall(PetscInfo(Y, "X's pattern is not within Y's: aijcusparse's MatAXPY\n"));
  }
#endif
  if (!subset && str == SAME_NONZERO_PATTERN && xseq) { /* past cuBLAS's count: X of Y's type and size */
    PetscCount ynz, xnz;
    PetscBool  ypast, xpast, same;

    PetscCall(MatSpmvValuesPastBLAS(Y, &ynz, &ypast));
    PetscCall(PetscObjectTypeCompare((PetscObject)X, ((PetscObject)Y)->type_name, &same));
    if (ypast && same) {
      PetscCall(MatSpmvValuesPastBLAS(X, &xnz, &xpast));
      if (xpast && xnz == ynz) {
        PetscCall(PetscInfo(Y, "MatAXPY() of %" PetscCount_FMT " values, past cuBLAS's 32-bit count: ours on the device\n", ynz));
        PetscCall(MatSpmvScaleDeviceValues(Y, ynz, a, X));
        subset = PETSC_TRUE; /* done */
      }
    }
  }
  if (!subset) {
    MatSpmvAlias alias;

    PetscCall(MatSpmvAliasBegin(&alias, Y, X, NULL, NULL)); /* aijcusparse's getters check their operands' names */
    PetscCall(MatSpmvAliasEnd(&alias, (*MatSpmvBaseSeqCUSPARSE.axpy)(Y, a, X, str)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours on the aijcusparse base (a bound matrix takes the base's inside) */
PetscErrorCode MatSpmvSetValueOps_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  if (MatSpmvFormatOnly) PetscFunctionReturn(PETSC_SUCCESS); /* -petscspmv_format_only: aijcusparse's */
  if (!MatSpmvSeq(A)->base->cusparse) PetscFunctionReturn(PETSC_SUCCESS);
  A->ops->shift         = MatShift_SeqAIJSpmv;
  A->ops->diagonalscale = MatDiagonalScale_SeqAIJSpmv;
  if (MatSpmvBaseSeqCUSPARSE.axpy) A->ops->axpy = MatAXPY_SeqAIJSpmvDevice;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y += a X on several processes where X's off-diagonal block holds no entry on any process and
   SUBSET_NONZERO_PATTERN says Y's pattern holds X's (GAMG's smoothing of a tentative prolongator made
   from our aggregates, which hold their process's rows: P0 - w D^-1 A P0): the diagonal blocks' AXPY,
   ours on the device. MPIAIJ's takes SUBSET_NONZERO_PATTERN row by row on the host
   (MatAXPY_Basic(): 1.2 s of KSP ex45 200^3 GAMG's set-up on 2 GPUs). Otherwise MPIAIJ's. Y and X
   both ours or aijcusparse results of our products (MatAXPY() calls it where their functions agree) */
static PetscErrorCode MatAXPY_MPIAIJSpmv(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscMPIInt local = 0, all = 0;
  Mat         Yd, Xd, Xo;
  PetscBool   xmpi;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(((PetscObject)X)->type_name, MATMPIAIJ, &xmpi));
  if (str == SUBSET_NONZERO_PATTERN && xmpi && X->rmap->rstart == Y->rmap->rstart && X->cmap->rstart == Y->cmap->rstart && X->rmap->n == Y->rmap->n && X->cmap->n == Y->cmap->n) {
    MatInfo info;

    PetscCall(MatMPIAIJGetSeqAIJ(X, NULL, &Xo, NULL));
    PetscCall(MatGetInfo(Xo, MAT_LOCAL, &info));
    local = info.nz_used == 0;
  }
  PetscCallMPI(MPIU_Allreduce(&local, &all, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)Y)));
  if (!all) {
    PetscCall(MatSpmvBaseMPICUSPARSE.axpy(Y, a, X, str));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatMPIAIJGetSeqAIJ(Y, &Yd, NULL, NULL));
  PetscCall(MatMPIAIJGetSeqAIJ(X, &Xd, NULL, NULL));
  /* ours on the blocks, not MatAXPY(): the blocks are aijcusparse's, whose MatAXPY() took 0.11-0.15 s
     for GAMG's 4 calls where ours takes 0.005 s (KSP ex45 160^3, 2 processes on one H200) */
  PetscCall(MatAXPY_SeqAIJSpmvDevice(Yd, a, Xd, SUBSET_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours on the aijcusparse base */
PetscErrorCode MatSpmvSetValueOps_MPIAIJSpmv(Mat A, MatSpmvBaseOps *base)
{
  PetscFunctionBegin;
  if (MatSpmvFormatOnly) PetscFunctionReturn(PETSC_SUCCESS); /* -petscspmv_format_only: aijcusparse's */
  if (base->cusparse && base->axpy) A->ops->axpy = MatAXPY_MPIAIJSpmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C, an aijcusparse result of a product of ours: its AXPY with ours (and other such results) by the
   functions above; one whose function another package replaced is left alone */
PetscErrorCode MatSpmvSetValueOps_AIJCUSPARSEResult(Mat C)
{
  PetscBool mpi, seq;

  PetscFunctionBegin;
  if (MatSpmvFormatOnly) PetscFunctionReturn(PETSC_SUCCESS); /* -petscspmv_format_only: aijcusparse's */
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIAIJCUSPARSE, &mpi));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &seq));
  if (mpi && MatSpmvBaseMPICUSPARSE.axpy && C->ops->axpy == MatSpmvBaseMPICUSPARSE.axpy) C->ops->axpy = MatAXPY_MPIAIJSpmv;
  if (seq && MatSpmvBaseSeqCUSPARSE.axpy && C->ops->axpy == MatSpmvBaseSeqCUSPARSE.axpy) C->ops->axpy = MatAXPY_SeqAIJSpmvDevice;
  PetscFunctionReturn(PETSC_SUCCESS);
}

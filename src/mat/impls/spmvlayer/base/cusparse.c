/*
  aijcusparse access for our matrices. aijcusparse's product and factor kernels and its getters check
  that their operands are named MATSEQAIJCUSPARSE (some always, some in debug builds only). Our
  matrices are aijcusparse matrices in every respect but the four matrix-vector products, so around
  each call into that code our operands carry the name MATSEQAIJCUSPARSE and get their names back
  after (an "alias"), also when the call fails. Also: host values brought up to date before AIJ code
  reads them in place, and solves on device vectors for host ones.
*/
#include "../spmvimpl.h"

/* the name our matrix carries under an alias: its base's */
static MatType MatSpmvBaseName(Mat_SeqAIJSpmv *sp)
{
  return sp->base->cusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ;
}

PetscErrorCode MatSpmvAliasName(Mat X, MatType *name)
{
  Mat_SeqAIJSpmv *sp;
  Mat_MPIAIJSpmv *mp;

  PetscFunctionBegin;
  *name = NULL;
  PetscCall(MatSpmvSeqGetData(X, &sp));
  if (sp) *name = MatSpmvBaseName(sp);
  else {
    PetscCall(MatSpmvMPIGetData(X, &mp));
    if (mp) *name = mp->base->cusparse ? MATMPIAIJCUSPARSE : MATMPIAIJ;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Name our matrices among mats after their base (MATSEQAIJCUSPARSE, or MATSEQAIJ on a machine
   without a GPU) until MatSpmvAliasEnd(). On the host base this keeps AIJ's code from meeting two of
   our types at once: it makes B^T of B's type, then MatSetType()s it to A's, which for two sibling
   types is not a conversion but a new empty matrix */
PetscErrorCode MatSpmvAliasBegin(MatSpmvAlias *alias, Mat A, Mat B, Mat C, Mat D)
{
  Mat mats[4] = {A, B, C, D};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(alias, sizeof(*alias)));
  for (int k = 0; k < 4; k++) {
    MatType   base = NULL;
    PetscBool dup  = PETSC_FALSE, named;

    if (!mats[k]) continue;
    for (int l = 0; l < k; l++) dup = (PetscBool)(dup || mats[l] == mats[k]);
    if (dup) continue;
    PetscCall(MatSpmvAliasName(mats[k], &base));
    if (!base) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)mats[k], base, &named));
    if (named) continue; /* inside an outer alias */
    /* the own name is set aside, not freed: a MatType the caller holds from MatGetType() stays valid */
    alias->mat[k]                     = mats[k];
    alias->name[k]                    = ((PetscObject)mats[k])->type_name;
    ((PetscObject)mats[k])->type_name = NULL;
    PetscCall(PetscObjectChangeTypeName((PetscObject)mats[k], base));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Give the names back, then return ierr, the wrapped call's error (the names come back either way) */
PetscErrorCode MatSpmvAliasEnd(MatSpmvAlias *alias, PetscErrorCode ierr)
{
  PetscFunctionBegin;
  for (int k = 0; k < 4; k++) {
    if (!alias->mat[k]) continue;
    PetscCall(PetscFree(((PetscObject)alias->mat[k])->type_name)); /* the alias, or a name set in between */
    ((PetscObject)alias->mat[k])->type_name = alias->name[k];
  }
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's device CSR values of A (ours or aijcusparse), in the host CSR's order */
PetscErrorCode MatSpmvCUSPARSEGetValues(Mat A, const PetscScalar **v)
{
  MatSpmvAlias   alias;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
#if defined(PETSC_HAVE_CUDA)
  ierr = MatSeqAIJCUSPARSEGetArrayRead(A, v);
#else
  ierr = PETSC_ERR_SUP;
#endif
  PetscCall(MatSpmvAliasEnd(&alias, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUSPARSERestoreValues(Mat A, const PetscScalar **v)
{
  MatSpmvAlias   alias;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
#if defined(PETSC_HAVE_CUDA)
  ierr = MatSeqAIJCUSPARSERestoreArrayRead(A, v);
#else
  ierr = PETSC_ERR_SUP;
#endif
  PetscCall(MatSpmvAliasEnd(&alias, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's upload of A's newer host CSR (ours or aijcusparse's), now: nothing where the
   device's is current, A is bound to the CPU or not assembled */
PetscErrorCode MatSpmvCUSPARSEUpload(Mat A)
{
  PetscBool          device;
  const PetscScalar *d_a;

  PetscFunctionBegin;
  if (A->boundtocpu || (A->offloadmask != PETSC_OFFLOAD_CPU && A->offloadmask != PETSC_OFFLOAD_UNALLOCATED) || !A->preallocated || !A->assembled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvValuesOnDevice(A, &device));
  if (!device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUSPARSEGetValues(A, &d_a));
  PetscCall(MatSpmvCUSPARSERestoreValues(A, &d_a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X's aijcusparse device CSR as a MatSpmvDeviceCSR (its values only where values: a symbolic phase
   reads none). aijcusparse keeps no device CSR of a block without entries: with empty_rows, such a
   block's row offsets are empty_rows (X's rows + 1 zeros on the device) and nothing is asked of it */
PetscErrorCode MatSpmvCUSPARSEGetCSR(Mat X, PetscBool values, const int *empty_rows, MatSpmvDeviceCSR *csr)
{
  MatInfo info;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(X, MAT_LOCAL, &info));
  csr->m   = X->rmap->n;
  csr->n   = X->cmap->n;
  csr->nnz = (PetscInt)info.nz_used;
  csr->i = csr->j = NULL;
  csr->a          = NULL;
  if (!csr->nnz && empty_rows) {
    csr->i = empty_rows;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (values) PetscCall(MatSpmvCUSPARSEGetValues(X, &csr->a)); /* uploads newer host values first */
  PetscCall(MatSpmvCUSPARSEGetIJ(X, &csr->i, &csr->j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUSPARSERestoreCSR(Mat X, MatSpmvDeviceCSR *csr)
{
  PetscFunctionBegin;
  if (csr->a) PetscCall(MatSpmvCUSPARSERestoreValues(X, &csr->a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's explicit transpose of X (its MAT_FORM_EXPLICIT_TRANSPOSE set) formed now, by a
   transposed product with a zero vector: aijcusparse forms it at the first one */
PetscErrorCode MatSpmvCUSPARSEFormTranspose(Mat X)
{
  Vec x, y;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(X, &x, &y));
  PetscCall(VecZeroEntries(y));
  PetscCall(MatMultTranspose(X, y, x));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's device CSR indices of A (row offsets uncompressed); 32-bit PetscInt only: with 64-bit
   indices aijcusparse keeps 64-bit ones, and the callers take the host paths (MatSpmvDeviceCSRUsable()) */
PetscErrorCode MatSpmvCUSPARSEGetIJ(Mat A, const int **i, const int **j)
{
  MatSpmvAlias   alias;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
#if defined(PETSC_HAVE_CUDA) && defined(PETSC_USE_64BIT_INDICES)
  (void)i;
  (void)j;
  ierr = PETSC_ERR_PLIB; /* no caller reaches it */
#elif defined(PETSC_HAVE_CUDA)
  ierr = MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, i, j);
#else
  ierr = PETSC_ERR_SUP;
#endif
  PetscCall(MatSpmvAliasEnd(&alias, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether A's values live with aijcusparse (a factor of A is then built and solved on the GPU) */
PetscErrorCode MatSpmvValuesOnDevice(Mat A, PetscBool *device)
{
  Mat_SeqAIJSpmv *sp;
  PetscBool       avail = PETSC_FALSE;

  PetscFunctionBegin;
  *device = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAAvailable(&avail));
#endif
  if (!avail) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvSeqGetData(A, &sp));
  if (sp) *device = sp->base->cusparse;
  else PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, device));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether our kernels may read and change A's values in place in aijcusparse's device CSR, whose
   indices are int: A's values are kept there (MatSpmvValuesOnDevice()), A is not bound to the CPU,
   and PetscInt is int */
PetscErrorCode MatSpmvDeviceCSRUsable(Mat A, PetscBool *usable)
{
  PetscFunctionBegin;
  *usable = PETSC_FALSE;
  if (A->boundtocpu || sizeof(PetscInt) != sizeof(int)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvValuesOnDevice(A, usable));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatStoreValues() reads the host values: on aijcusparse they may live only on the device */
PetscErrorCode MatSpmvUpdateHostValues(Mat A)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's device CSR values of A for writing: it uploads newer host values first, and on
   restore counts the device copy as the current one (its transpose and diagonal stale) */
PetscErrorCode MatSpmvCUSPARSEGetArray(Mat A, PetscScalar **v)
{
  MatSpmvAlias   alias;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
#if defined(PETSC_HAVE_CUDA)
  ierr = MatSeqAIJCUSPARSEGetArray(A, v);
#else
  ierr = PETSC_ERR_SUP;
#endif
  PetscCall(MatSpmvAliasEnd(&alias, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUSPARSERestoreArray(Mat A, PetscScalar **v)
{
  MatSpmvAlias   alias;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
#if defined(PETSC_HAVE_CUDA)
  ierr = MatSeqAIJCUSPARSERestoreArray(A, v);
#else
  ierr = PETSC_ERR_SUP;
#endif
  PetscCall(MatSpmvAliasEnd(&alias, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's nnz device values set to d_a's (device), on stream: A, an aijcusparse matrix of ours made on host
   arrays, uploads its pattern at the first call (and the host's values, which these replace) */
PetscErrorCode MatSpmvCUSPARSESetValues(Mat A, PetscInt nnz, const PetscScalar *d_a, void *stream)
{
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUSPARSEGetArray(A, &v));
  PetscCall(MatSpmvCUDACopyOnDevice(v, d_a, sizeof(PetscScalar) * (size_t)nnz, stream));
  PetscCall(MatSpmvCUSPARSERestoreArray(A, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's CUDA work vector of layout map composed under key, made at the first use (A holds it): where a
   device-only operation meets host vectors, they are staged through such vectors */
PetscErrorCode MatSpmvGetDeviceWorkVec(Mat A, const char *key, PetscLayout map, Vec *w)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)A, key, (PetscObject *)w));
  if (*w) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecCreate(PetscObjectComm((PetscObject)A), w));
  PetscCall(VecSetLayout(*w, map));
  PetscCall(VecSetType(*w, VECCUDA));
  PetscCall(PetscObjectCompose((PetscObject)A, key, (PetscObject)*w));
  PetscCall(VecDestroy(w));
  PetscCall(PetscObjectQuery((PetscObject)A, key, (PetscObject *)w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's (and MATSOLVERSPMVFACTOR's) triangular solves read and write device arrays only (a host
   vector gives a wrong result): host vectors go through device work vectors kept with the factor */
PetscErrorCode MatSpmvSolveStaged(Mat F, Vec b, Vec x, PetscErrorCode (*solve)(Mat, Vec, Vec))
{
  PetscBool bdev, xdev;
  Vec       wb, wx;

  PetscFunctionBegin;
  PetscCheck(solve, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Lost the factor's solve");
  PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &bdev, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &xdev, VECSEQCUDA, VECMPICUDA, ""));
  if (bdev && xdev) {
    PetscCall((*solve)(F, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvGetDeviceWorkVec(F, "MatSpmvSolveWorkB", F->rmap, &wb));
  PetscCall(MatSpmvGetDeviceWorkVec(F, "MatSpmvSolveWorkX", F->rmap, &wx));
  PetscCall(VecCopy(b, wb));
  PetscCall((*solve)(F, wb, wx));
  PetscCall(VecCopy(wx, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- transpose solves by a second factorization ----
   aijcusparse's ILU(0) (CUDA >= 12.1.1) updates only its forward solves' analysis after a second
   numeric factorization: its MatSolveTranspose() then solves with the first factorization's values
   (PETSc 3.25.4; docs/limits.md). MATSOLVERSPMVFACTOR's solves run forward only. Both then apply the
   transpose solve of a second, fresh factorization of A by a package PETSc has, with the factor's
   orderings and settings, made at the first transpose solve after each numeric factorization */
typedef struct {
  Mat              A, Ft;    /* A of the last numeric factorization (a reference), the second factor or NULL */
  IS               row, col; /* the symbolic phase's orderings (NULL: natural) */
  MatFactorInfo    sinfo;    /* the symbolic phase's settings (levels, fill) */
  MatFactorInfo    info;     /* the numeric phase's (shifts, pivot tolerance) */
  PetscObjectState astate;   /* A's state at the numeric factorization */
  PetscInt         numerics; /* numeric factorizations since the symbolic phase */
  PetscBool        current;  /* Ft factors A's values of the last numeric factorization */
} MatSpmvTransposeFactor;

static PetscErrorCode MatSpmvTransposeFactorDestroy(PetscCtxRt ctx)
{
  MatSpmvTransposeFactor *tf = *(MatSpmvTransposeFactor **)ctx;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&tf->A));
  PetscCall(MatDestroy(&tf->Ft));
  PetscCall(ISDestroy(&tf->row));
  PetscCall(ISDestroy(&tf->col));
  PetscCall(PetscFree(tf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvTransposeFactorGet(Mat F, PetscBool create, MatSpmvTransposeFactor **tf)
{
  PetscFunctionBegin;
  *tf = NULL;
  PetscCall(PetscObjectContainerQuery((PetscObject)F, "MatSpmvTransposeFactor", (PetscCtxRt)tf));
  if (!*tf && create) {
    PetscCall(PetscNew(tf));
    PetscCall(PetscObjectContainerCompose((PetscObject)F, "MatSpmvTransposeFactor", *tf, MatSpmvTransposeFactorDestroy));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F's symbolic phase: its orderings (NULL: natural) and settings; the numeric count starts again */
PetscErrorCode MatSpmvTransposeFactorSymbolic(Mat F, IS row, IS col, const MatFactorInfo *info)
{
  MatSpmvTransposeFactor *tf;

  PetscFunctionBegin;
  PetscCall(MatSpmvTransposeFactorGet(F, PETSC_TRUE, &tf));
  if (row) PetscCall(PetscObjectReference((PetscObject)row));
  if (col) PetscCall(PetscObjectReference((PetscObject)col));
  PetscCall(ISDestroy(&tf->row));
  PetscCall(ISDestroy(&tf->col));
  PetscCall(MatDestroy(&tf->Ft));
  tf->row      = row;
  tf->col      = col;
  tf->sinfo    = *info;
  tf->numerics = 0;
  tf->current  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F's numeric phase factored A with info */
PetscErrorCode MatSpmvTransposeFactorNumeric(Mat F, Mat A, const MatFactorInfo *info)
{
  MatSpmvTransposeFactor *tf;

  PetscFunctionBegin;
  PetscCall(MatSpmvTransposeFactorGet(F, PETSC_TRUE, &tf));
  PetscCall(PetscObjectReference((PetscObject)A));
  PetscCall(MatDestroy(&tf->A));
  tf->A    = A;
  tf->info = *info;
  tf->numerics++;
  tf->current = PETSC_FALSE;
  PetscCall(PetscObjectStateGet((PetscObject)A, &tf->astate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* numeric factorizations of F since its symbolic phase (0 when none was recorded) */
PetscErrorCode MatSpmvTransposeFactorNumerics(Mat F, PetscInt *numerics)
{
  MatSpmvTransposeFactor *tf;

  PetscFunctionBegin;
  PetscCall(MatSpmvTransposeFactorGet(F, PETSC_FALSE, &tf));
  *numerics = tf ? tf->numerics : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = F^T \ b by the ILU factor of the same A, orderings and settings by package pkg, made afresh
   at the first transpose solve after each numeric factorization of F */
PetscErrorCode MatSpmvTransposeFactorSolve(Mat F, MatSolverType pkg, Vec b, Vec x)
{
  MatSpmvTransposeFactor *tf;

  PetscFunctionBegin;
  PetscCall(MatSpmvTransposeFactorGet(F, PETSC_FALSE, &tf));
  PetscCheck(tf && tf->A, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSolveTranspose() before the numeric factorization");
  PetscCheck(F->factortype == MAT_FACTOR_LU || F->factortype == MAT_FACTOR_ILU, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Transpose solves by a second factorization are for LU and ILU factors");
  if (!tf->current) {
    PetscObjectState state;
    IS               row = tf->row, col = tf->col, nrow = NULL, ncol = NULL;

    PetscCall(PetscObjectStateGet((PetscObject)tf->A, &state));
    if (state != tf->astate) PetscCall(PetscInfo(F, "The matrix changed after its factorization: the transpose solves factor its current values\n"));
    PetscCall(PetscInfo(F, "MatSolveTranspose(): A factored again by %s's %s for the transpose solves\n", pkg, MatFactorTypes[F->factortype]));
    if (!row) {
      PetscCall(MatGetOrdering(tf->A, MATORDERINGNATURAL, &nrow, &ncol));
      row = nrow;
      col = ncol;
    }
    PetscCall(MatDestroy(&tf->Ft)); /* a new factor: a refactored one may keep stale transpose data */
    PetscCall(MatGetFactor(tf->A, pkg, F->factortype, &tf->Ft));
    if (F->factortype == MAT_FACTOR_LU) PetscCall(MatLUFactorSymbolic(tf->Ft, tf->A, row, col, &tf->sinfo));
    else PetscCall(MatILUFactorSymbolic(tf->Ft, tf->A, row, col, &tf->sinfo));
    PetscCall(MatLUFactorNumeric(tf->Ft, tf->A, &tf->info));
    PetscCall(ISDestroy(&nrow));
    PetscCall(ISDestroy(&ncol));
    tf->current = PETSC_TRUE;
  }
  PetscCall(MatSolveTranspose(tf->Ft, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Our SeqAIJ types on the aijcusparse base: aijcusparse's device matrix-matrix products, its
  factorizations and its cuSPARSE triangular solves, for matrices whose type name is ours.

  aijcusparse's product and factor kernels check that their operands are named
  MATSEQAIJCUSPARSE (some always, some in debug builds only). Our matrices are aijcusparse
  matrices in every respect but the four matrix-vector products, so around each call into those
  kernels we let our operands carry the name MATSEQAIJCUSPARSE and give their names back after
  (an "alias"). The hooks are: the product's setfromoptions/symbolic/numeric, and the factor's
  creation/symbolic/numeric; each saves the function it wraps as a composed function of the
  product or factor matrix.
*/
#include "aijspmvimpl.h"

typedef struct {
  Mat   mat[3];
  char *name[3];
} MatSpmvAlias;

/* Name our aijcusparse-based matrices among A, B, C MATSEQAIJCUSPARSE until MatSpmvAliasEnd() */
static PetscErrorCode MatSpmvAliasBegin(MatSpmvAlias *alias, Mat A, Mat B, Mat C)
{
  Mat mats[3] = {A, B, C};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(alias, sizeof(*alias)));
  for (int k = 0; k < 3; k++) {
    Mat_SeqAIJSpmv *sp;
    PetscBool       dup = PETSC_FALSE, named;

    if (!mats[k]) continue;
    for (int l = 0; l < k; l++) dup = (PetscBool)(dup || mats[l] == mats[k]);
    if (dup) continue;
    PetscCall(MatSpmvSeqGetData(mats[k], &sp));
    if (!sp || !sp->base->cusparse) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)mats[k], MATSEQAIJCUSPARSE, &named));
    if (named) continue; /* inside an outer alias */
    alias->mat[k] = mats[k];
    PetscCall(PetscStrallocpy(((PetscObject)mats[k])->type_name, &alias->name[k]));
    PetscCall(PetscObjectChangeTypeName((PetscObject)mats[k], MATSEQAIJCUSPARSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvAliasEnd(MatSpmvAlias *alias)
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    if (!alias->mat[k]) continue;
    PetscCall(PetscObjectChangeTypeName((PetscObject)alias->mat[k], alias->name[k]));
    PetscCall(PetscFree(alias->name[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUSPARSEGetIJ(Mat A, const int **i, const int **j)
{
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, i, j));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "PETSc was built without CUDA");
#endif
  PetscCall(MatSpmvAliasEnd(&alias));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------- matrix-matrix products (GAMG's Galerkin products, MatMatMult, ...) ---------------- */

static PetscErrorCode MatProductNumeric_SeqAIJSpmv(Mat C)
{
  Mat_Product *p = C->product;
  PetscErrorCode (*numeric)(Mat);
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)C, "MatSpmvProductNumeric_C", &numeric));
  PetscCheck(numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Lost the numeric phase of the product");
  PetscCall(MatSpmvAliasBegin(&alias, p->A, p->B, p->C));
  PetscCall((*numeric)(C));
  PetscCall(MatSpmvAliasEnd(&alias));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_SeqAIJSpmv(Mat C)
{
  Mat_Product *p = C->product;
  PetscErrorCode (*symbolic)(Mat);
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)C, "MatSpmvProductSymbolic_C", &symbolic));
  PetscCheck(symbolic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Lost the symbolic phase of the product");
  PetscCall(MatSpmvAliasBegin(&alias, p->A, p->B, p->C));
  PetscCall((*symbolic)(C));
  PetscCall(MatSpmvAliasEnd(&alias));
  if (C->ops->productnumeric && C->ops->productnumeric != MatProductNumeric_SeqAIJSpmv) {
    PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSpmvProductNumeric_C", C->ops->productnumeric));
    C->ops->productnumeric = MatProductNumeric_SeqAIJSpmv;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse chooses the product's implementation (device when every sparse operand is on the
   device, its CPU fallback otherwise); we only wrap what it chose */
static PetscErrorCode MatProductSetFromOptions_SeqAIJSpmv(Mat C)
{
  Mat_Product *p = C->product;
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, p->A, p->B, p->C));
  PetscCall(MatSpmvBaseSeqCUSPARSE.productsetfromoptions(C));
  PetscCall(MatSpmvAliasEnd(&alias));
  if (C->ops->productsymbolic && C->ops->productsymbolic != MatProductSymbolic_SeqAIJSpmv) {
    PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatSpmvProductSymbolic_C", C->ops->productsymbolic));
    C->ops->productsymbolic = MatProductSymbolic_SeqAIJSpmv;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatProductSetFromOptions() looks these up when the operands' types differ */
static PetscErrorCode MatSpmvComposeProductHooks(Mat A, const char *ours, PetscErrorCode (*f)(Mat))
{
  const char *others[] = {MATSEQAIJCUSPARSE, MATSEQDENSE, MATSEQDENSECUDA};
  char        name[256];

  PetscFunctionBegin;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(others); k++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", ours, others[k]));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, f));
    /* under an alias our operand is named seqaijcusparse: aijcusparse's own hooks must be ours too
       (aijcusparse's bindtocpu puts its own back when A stops being ours) */
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", MATSEQAIJCUSPARSE, others[k]));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, f));
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s_C", MATSEQAIJCUSPARSE, ours));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's device operations for our type: products, binding; the four products are the caller's */
PetscErrorCode MatSpmvSetDeviceOps_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(A, &sp));
  if (A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS); /* SeqAIJ's host functions stay */
  A->ops->productsetfromoptions = MatProductSetFromOptions_SeqAIJSpmv;
  PetscCall(MatSpmvComposeProductHooks(A, sp->format->seqtype, MatProductSetFromOptions_SeqAIJSpmv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A stops being ours: remove the hooks (aijcusparse's own are reinstalled by its bindtocpu) */
PetscErrorCode MatSpmvClearDeviceOps_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(A, &sp));
  PetscCall(MatSpmvComposeProductHooks(A, sp->format->seqtype, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------- factors: aijcusparse's ILU/ICC/LU/Cholesky with cuSPARSE triangular solves ---------------- */

/* aijcusparse's triangular solves read and write device arrays only (a host vector gives a
   wrong result): host vectors go through device work vectors kept with the factor */
static PetscErrorCode MatSpmvSolveStaged(Mat F, Vec b, Vec x, const char *key)
{
  PetscErrorCode (*solve)(Mat, Vec, Vec);
  PetscBool bdev, xdev;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, key, &solve));
  PetscCheck(solve, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Lost the factor's solve");
  PetscCall(PetscObjectTypeCompareAny((PetscObject)b, &bdev, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &xdev, VECSEQCUDA, VECMPICUDA, ""));
  if (bdev && xdev) PetscCall((*solve)(F, b, x));
  else {
    Vec w[2];

    for (int k = 0; k < 2; k++) {
      const char *name = k ? "MatSpmvSolveWorkX" : "MatSpmvSolveWorkB";

      PetscCall(PetscObjectQuery((PetscObject)F, name, (PetscObject *)&w[k]));
      if (!w[k]) {
        PetscCall(VecCreate(PETSC_COMM_SELF, &w[k]));
        PetscCall(VecSetSizes(w[k], F->rmap->n, F->rmap->n));
        PetscCall(VecSetType(w[k], VECSEQCUDA));
        PetscCall(PetscObjectCompose((PetscObject)F, name, (PetscObject)w[k]));
        PetscCall(VecDestroy(&w[k]));
        PetscCall(PetscObjectQuery((PetscObject)F, name, (PetscObject *)&w[k]));
      }
    }
    PetscCall(VecCopy(b, w[0]));
    PetscCall((*solve)(F, w[0], w[1]));
    PetscCall(VecCopy(w[1], x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_SeqAIJSpmv(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvSolveStaged(F, b, x, "MatSpmvSolve_C"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_SeqAIJSpmv(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvSolveStaged(F, b, x, "MatSpmvSolveTranspose_C"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after a numeric phase: wrap the solves it chose */
static PetscErrorCode MatSpmvWrapSolves(Mat F)
{
  PetscFunctionBegin;
  if (F->ops->solve && F->ops->solve != MatSolve_SeqAIJSpmv) {
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatSpmvSolve_C", F->ops->solve));
    F->ops->solve = MatSolve_SeqAIJSpmv;
  }
  if (F->ops->solvetranspose && F->ops->solvetranspose != MatSolveTranspose_SeqAIJSpmv) {
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatSpmvSolveTranspose_C", F->ops->solvetranspose));
    F->ops->solvetranspose = MatSolveTranspose_SeqAIJSpmv;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_SeqAIJSpmv(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *);
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatSpmvLUFactorNumeric_C", &numeric));
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL));
  PetscCall((*numeric)(F, A, info));
  PetscCall(MatSpmvAliasEnd(&alias));
  PetscCall(MatSpmvWrapSolves(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_SeqAIJSpmv(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *);
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatSpmvCholeskyFactorNumeric_C", &numeric));
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL));
  PetscCall((*numeric)(F, A, info));
  PetscCall(MatSpmvAliasEnd(&alias));
  PetscCall(MatSpmvWrapSolves(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after a symbolic phase: wrap the numeric phase it chose */
static PetscErrorCode MatSpmvWrapFactorNumeric(Mat F)
{
  PetscFunctionBegin;
  if (F->ops->lufactornumeric && F->ops->lufactornumeric != MatLUFactorNumeric_SeqAIJSpmv) {
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatSpmvLUFactorNumeric_C", F->ops->lufactornumeric));
    F->ops->lufactornumeric = MatLUFactorNumeric_SeqAIJSpmv;
  }
  if (F->ops->choleskyfactornumeric && F->ops->choleskyfactornumeric != MatCholeskyFactorNumeric_SeqAIJSpmv) {
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatSpmvCholeskyFactorNumeric_C", F->ops->choleskyfactornumeric));
    F->ops->choleskyfactornumeric = MatCholeskyFactorNumeric_SeqAIJSpmv;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MATSPMV_LU_SYMBOLIC(NAME, KEY) \
  static PetscErrorCode NAME(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info) \
  { \
    PetscErrorCode (*symbolic)(Mat, Mat, IS, IS, const MatFactorInfo *); \
    MatSpmvAlias alias; \
\
    PetscFunctionBegin; \
    PetscCall(PetscObjectQueryFunction((PetscObject)F, KEY, &symbolic)); \
    PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL)); \
    PetscCall((*symbolic)(F, A, row, col, info)); \
    PetscCall(MatSpmvAliasEnd(&alias)); \
    PetscCall(MatSpmvWrapFactorNumeric(F)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
#define MATSPMV_CHOLESKY_SYMBOLIC(NAME, KEY) \
  static PetscErrorCode NAME(Mat F, Mat A, IS perm, const MatFactorInfo *info) \
  { \
    PetscErrorCode (*symbolic)(Mat, Mat, IS, const MatFactorInfo *); \
    MatSpmvAlias alias; \
\
    PetscFunctionBegin; \
    PetscCall(PetscObjectQueryFunction((PetscObject)F, KEY, &symbolic)); \
    PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL)); \
    PetscCall((*symbolic)(F, A, perm, info)); \
    PetscCall(MatSpmvAliasEnd(&alias)); \
    PetscCall(MatSpmvWrapFactorNumeric(F)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
MATSPMV_LU_SYMBOLIC(MatLUFactorSymbolic_SeqAIJSpmv, "MatSpmvLUFactorSymbolic_C")
MATSPMV_LU_SYMBOLIC(MatILUFactorSymbolic_SeqAIJSpmv, "MatSpmvILUFactorSymbolic_C")
MATSPMV_CHOLESKY_SYMBOLIC(MatCholeskyFactorSymbolic_SeqAIJSpmv, "MatSpmvCholeskyFactorSymbolic_C")
MATSPMV_CHOLESKY_SYMBOLIC(MatICCFactorSymbolic_SeqAIJSpmv, "MatSpmvICCFactorSymbolic_C")

/* MATSOLVERCUSPARSE for our types: aijcusparse's factor of A (its device ILU(0)/ICC(0) when it
   takes them, else PETSc's host factorization copied to the device), solved by cuSPARSE
   (host vectors staged through device ones).
   A matrix on the SeqAIJ base (no GPU) gets PETSc's own host factor. */
static PetscErrorCode MatGetFactor_SeqAIJSpmv_CUSPARSE(Mat A, MatFactorType ftype, Mat *F)
{
  Mat_SeqAIJSpmv *sp;
  MatSolverFn    *create = NULL;
  MatSpmvAlias    alias;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(A, &sp));
  if (!sp || !sp->base->cusparse) {
    PetscCall(MatSolverTypeGet(MATSOLVERPETSC, MATSEQAIJ, ftype, NULL, NULL, &create));
    PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_SUP, "No PETSc factor of type %s for %s", MatFactorTypes[ftype], ((PetscObject)A)->type_name);
    PetscCall((*create)(A, ftype, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSolverTypeGet(MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, ftype, NULL, NULL, &create));
  PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_SUP, "aijcusparse has no %s factor", MatFactorTypes[ftype]);
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL));
  PetscCall((*create)(A, ftype, F));
  PetscCall(MatSpmvAliasEnd(&alias));
#define MATSPMV_WRAP(op, key, fn) \
  if ((*F)->ops->op) { \
    PetscCall(PetscObjectComposeFunction((PetscObject)*F, key, (*F)->ops->op)); \
    (*F)->ops->op = fn; \
  }
  MATSPMV_WRAP(lufactorsymbolic, "MatSpmvLUFactorSymbolic_C", MatLUFactorSymbolic_SeqAIJSpmv)
  MATSPMV_WRAP(ilufactorsymbolic, "MatSpmvILUFactorSymbolic_C", MatILUFactorSymbolic_SeqAIJSpmv)
  MATSPMV_WRAP(choleskyfactorsymbolic, "MatSpmvCholeskyFactorSymbolic_C", MatCholeskyFactorSymbolic_SeqAIJSpmv)
  MATSPMV_WRAP(iccfactorsymbolic, "MatSpmvICCFactorSymbolic_C", MatICCFactorSymbolic_SeqAIJSpmv)
#undef MATSPMV_WRAP
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With a GPU, PCFactor's default (MatGetFactor() without a solver type) finds this exact
   registration before the prefix match that would give SeqAIJ's host factor */
PetscErrorCode MatSpmvRegisterFactors(MatSpmvFormat *fmt)
{
  PetscBool usecusparse;

  PetscFunctionBegin;
  PetscCall(MatSpmvUseCUSPARSEBase(&usecusparse));
  if (!usecusparse) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_LU, MatGetFactor_SeqAIJSpmv_CUSPARSE));
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_CHOLESKY, MatGetFactor_SeqAIJSpmv_CUSPARSE));
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_ILU, MatGetFactor_SeqAIJSpmv_CUSPARSE));
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_ICC, MatGetFactor_SeqAIJSpmv_CUSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

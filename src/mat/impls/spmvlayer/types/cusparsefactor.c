/*
  MATSOLVERCUSPARSE for our sequential types: aijcusparse's factorizations (its device ILU(0)/ICC(0)
  when it takes them, else PETSc's host factorization copied to the device) and cuSPARSE's triangular
  solves, for matrices whose type name is ours: each phase runs with our operand aliased to
  seqaijcusparse and wraps the next phase it chose; host vectors are staged through device ones.
*/
#include "../spmvimpl.h"

/* aijcusparse's solve (F's own, kept under key at the numeric phase) on staged device vectors */
static PetscErrorCode MatSpmvSolveCUSPARSE(Mat F, Vec b, Vec x, const char *key)
{
  PetscErrorCode (*solve)(Mat, Vec, Vec) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, key, &solve));
  PetscCall(MatSpmvSolveStaged(F, b, x, solve));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_SeqAIJSpmv(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvSolveCUSPARSE(F, b, x, "MatSpmvSolve_C"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's ILU(0) keeps the first numeric factorization's transpose-solve analysis (PETSc
   3.25.4 with CUDA >= 12.1.1; docs/limits.md): after a second numeric factorization of an LU or ILU
   factor, its transpose solves come from a fresh factorization (cusparse.c) */
static PetscErrorCode MatSolveTranspose_SeqAIJSpmv(Mat F, Vec b, Vec x)
{
  PetscInt numerics;

  PetscFunctionBegin;
  PetscCall(MatSpmvTransposeFactorNumerics(F, &numerics));
  if (numerics > 1 && (F->factortype == MAT_FACTOR_LU || F->factortype == MAT_FACTOR_ILU)) PetscCall(MatSpmvTransposeFactorSolve(F, MATSOLVERCUSPARSE, b, x));
  else PetscCall(MatSpmvSolveCUSPARSE(F, b, x, "MatSpmvSolveTranspose_C"));
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
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
  PetscCall(MatSpmvAliasEnd(&alias, (*numeric)(F, A, info)));
  PetscCall(MatSpmvWrapSolves(F));
  PetscCall(MatSpmvTransposeFactorNumeric(F, A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCholeskyFactorNumeric_SeqAIJSpmv(Mat F, Mat A, const MatFactorInfo *info)
{
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *);
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatSpmvCholeskyFactorNumeric_C", &numeric));
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
  PetscCall(MatSpmvAliasEnd(&alias, (*numeric)(F, A, info)));
  PetscCall(MatSpmvWrapSolves(F));
  PetscCall(MatSpmvTransposeFactorNumeric(F, A, info));
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

/* aijcusparse's device ILU(0) and ICC(0) (cuSPARSE's csrilu02 and csric02) apply no pivot shift: they
   never read info->shifttype (PETSc 3.25.4 and 3.26.1), so a zero pivot the user asked to shift gives
   inf or NaN. Where the device factorization would drop the shift, the settings given to aijcusparse
   ask for PETSc's host factorization, whose factors aijcusparse copies to the device for cuSPARSE's
   solves (info->factoronhost): ILU with any shift, ICC with a nonzero or in-blocks shift. ICC's
   positive-definite shift, PCICC's default, changes nothing unless a pivot is not positive, so
   aijcusparse's device ICC(0) keeps it (MATSOLVERSPMVFACTOR, the default package, hands such a matrix to the
   host factorization when it meets the pivot) */
static PetscErrorCode MatSpmvCUSPARSEFactorInfo(Mat F, const MatFactorInfo *info, MatFactorInfo *use)
{
  const PetscBool shift = (PetscBool)(info->shifttype != (PetscReal)MAT_SHIFT_NONE && !(F->factortype == MAT_FACTOR_ICC && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE));

  PetscFunctionBegin;
  *use = *info;
  if (shift && (F->factortype == MAT_FACTOR_ILU || F->factortype == MAT_FACTOR_ICC) && !info->factoronhost) {
    use->factoronhost = PETSC_TRUE;
    PetscCall(PetscInfo(F, "%s with pivot shift %s: factored on the host (PETSc's, which applies it) and solved by cuSPARSE; aijcusparse's device factorization would drop the shift\n", MatFactorTypes[F->factortype], MatFactorShiftTypes[(int)info->shifttype]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MATSPMV_LU_SYMBOLIC(NAME, KEY) \
  static PetscErrorCode NAME(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info) \
  { \
    PetscErrorCode (*symbolic)(Mat, Mat, IS, IS, const MatFactorInfo *); \
    MatSpmvAlias  alias; \
    MatFactorInfo use; \
\
    PetscFunctionBegin; \
    PetscCall(PetscObjectQueryFunction((PetscObject)F, KEY, &symbolic)); \
    PetscCall(MatSpmvCUSPARSEFactorInfo(F, info, &use)); \
    PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL)); \
    PetscCall(MatSpmvAliasEnd(&alias, (*symbolic)(F, A, row, col, &use))); \
    PetscCall(MatSpmvWrapFactorNumeric(F)); \
    PetscCall(MatSpmvTransposeFactorSymbolic(F, row, col, &use)); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
#define MATSPMV_CHOLESKY_SYMBOLIC(NAME, KEY) \
  static PetscErrorCode NAME(Mat F, Mat A, IS perm, const MatFactorInfo *info) \
  { \
    PetscErrorCode (*symbolic)(Mat, Mat, IS, const MatFactorInfo *); \
    MatSpmvAlias  alias; \
    MatFactorInfo use; \
\
    PetscFunctionBegin; \
    PetscCall(PetscObjectQueryFunction((PetscObject)F, KEY, &symbolic)); \
    PetscCall(MatSpmvCUSPARSEFactorInfo(F, info, &use)); \
    PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL)); \
    PetscCall(MatSpmvAliasEnd(&alias, (*symbolic)(F, A, perm, &use))); \
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
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
  PetscCall(MatSpmvAliasEnd(&alias, (*create)(A, ftype, F)));
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

/* The default package declined the factorization (MATSOLVERSPMVFACTOR's symbolic phase says why): F
   becomes cuSPARSE's factor of A, its symbolic phase done, in place (PCFactor keeps F) */
static PetscErrorCode MatSpmvFactorToCUSPARSE(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info, const char *why)
{
  Mat G;

  PetscFunctionBegin;
  PetscCall(PetscInfo(A, "PCFactor's default package for %s hands the %s factorization to cusparse: %s (-pc_factor_mat_solver_type spmvfactor insists)\n", ((PetscObject)A)->type_name, MatFactorTypes[F->factortype], why));
  PetscCall(MatGetFactor_SeqAIJSpmv_CUSPARSE(A, F->factortype, &G));
  if (F->factortype == MAT_FACTOR_ICC) PetscCall(MatICCFactorSymbolic(G, A, row, info));
  else PetscCall(MatILUFactorSymbolic(G, A, row, col, info));
  PetscCall(MatHeaderReplace(F, &G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCFactor's default ILU and ICC for our types (MatGetFactor() with no solver type): MATSOLVERSPMVFACTOR,
   which hands the factorization to cuSPARSE's where it does not take the settings or cuSPARSE's
   was measured faster (its symbolic phase decides; -info says which and why) */
static PetscErrorCode MatGetFactor_SeqAIJSpmv_Default(Mat A, MatFactorType ftype, Mat *F)
{
  MatSolverFn *create = NULL;

  PetscFunctionBegin;
  PetscCall(MatSolverTypeGet(MATSOLVERSPMVFACTOR, ((PetscObject)A)->type_name, ftype, NULL, NULL, &create));
  if (!create || MatSpmvFormatOnly) { /* the package is not registered, or -petscspmv_format_only: cuSPARSE's */
    PetscCall(MatGetFactor_SeqAIJSpmv_CUSPARSE(A, ftype, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall((*create)(A, ftype, F));
  PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatSpmvFactorFallback_C", MatSpmvFactorToCUSPARSE));
  (*F)->canuseordering = PETSC_TRUE; /* an ordering the user asks for reaches the symbolic phase, which then declines */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With a GPU. PCFactor's default (MatGetFactor() without a solver type) takes the first package
   registered with our exact type name: cuSPARSE's, registered by PETSc before ours, whose entry
   gives LU and Cholesky to aijcusparse and ILU and ICC to the default above. An explicit solver type
   takes the first entry whose name our type begins with: for cusparse the entry under the type name
   less its last letter, registered first, which gives cuSPARSE's factors of every kind (an entry
   under the full name would answer first, and send ILU to MATSOLVERSPMVFACTOR) */
PetscErrorCode MatSpmvRegisterFactors(MatSpmvFormat *fmt)
{
  PetscBool usecusparse;
  char      prefix[64];

  PetscFunctionBegin;
  PetscCall(MatSpmvUseCUSPARSEBase(&usecusparse));
  if (!usecusparse) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrncpy(prefix, fmt->seqtype, sizeof(prefix)));
  prefix[strlen(prefix) - 1] = 0;
  for (MatFactorType t = MAT_FACTOR_LU; t <= MAT_FACTOR_ICC; t = (MatFactorType)(t + 1)) PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, prefix, t, MatGetFactor_SeqAIJSpmv_CUSPARSE));
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_LU, MatGetFactor_SeqAIJSpmv_CUSPARSE));
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_CHOLESKY, MatGetFactor_SeqAIJSpmv_CUSPARSE));
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_ILU, MatGetFactor_SeqAIJSpmv_Default));
  PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, fmt->seqtype, MAT_FACTOR_ICC, MatGetFactor_SeqAIJSpmv_Default));
  PetscFunctionReturn(PETSC_SUCCESS);
}

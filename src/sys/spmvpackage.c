/*
  Package registration of petscspmv: the format registry, the saved PETSc base functions,
  and the entry points PETSc calls (-dll_append) or applications call (PetscSpmvInitializePackage).
*/
#include "../mat/impls/aijspmv/aijspmvimpl.h"

/* One line per format */
PETSC_INTERN MatSpmvFormat MatSpmvFormat_BRC, MatSpmvFormat_CMRS, MatSpmvFormat_ARGCSR, MatSpmvFormat_IPCSR, MatSpmvFormat_ELLR, MatSpmvFormat_SPMV;
static MatSpmvFormat *const MatSpmvFormats[] = {&MatSpmvFormat_BRC, &MatSpmvFormat_CMRS, &MatSpmvFormat_ARGCSR, &MatSpmvFormat_IPCSR, &MatSpmvFormat_ELLR, &MatSpmvFormat_SPMV};

const char *const MatSpmvBackends[] = {"auto", "cuda", "host", "MatSpmvBackend", "MAT_SPMV_BACKEND_", NULL};
const char *const MatSpmvColumnOrders[] = {"auto", "natural", "frequency", "rcm", "MatSpmvColumnOrder", "MAT_SPMV_COLUMN_ORDER_", NULL};

MatSpmvBaseOps   MatSpmvBaseSeq, MatSpmvBaseMPI, MatSpmvBaseSeqCUSPARSE, MatSpmvBaseMPICUSPARSE;
static PetscBool MatSpmvBaseSaved[4];
PetscInt         MatSpmvProductMinRows = PETSC_INT_MAX;
static PetscBool PetscSpmvPackageInitialized = PETSC_FALSE;

PetscErrorCode MatSpmvUseCUSPARSEBase(PetscBool *use)
{
  PetscFunctionBegin;
  *use = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAAvailable(use));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Functions of a pristine base matrix, saved the first time one is converted */
PetscErrorCode MatSpmvSaveBaseOps(Mat A)
{
  const char *const names[4] = {MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE};
  MatSpmvBaseOps   *bases[4] = {&MatSpmvBaseSeq, &MatSpmvBaseMPI, &MatSpmvBaseSeqCUSPARSE, &MatSpmvBaseMPICUSPARSE};
  int               k;
  PetscBool         match = PETSC_FALSE, seq;

  PetscFunctionBegin;
  for (k = 0; k < 4 && !match; k++) PetscCall(PetscObjectTypeCompare((PetscObject)A, names[k], &match));
  PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Base functions come from MATSEQAIJ, MATMPIAIJ or their aijcusparse types, not %s", ((PetscObject)A)->type_name);
  k--;
  if (MatSpmvBaseSaved[k]) PetscFunctionReturn(PETSC_SUCCESS);
  seq = (PetscBool)(k % 2 == 0);
  {
    MatSpmvBaseOps *b = bases[k];

    b->cusparse              = (PetscBool)(k >= 2);
    b->bindtocpu             = A->ops->bindtocpu;
    b->productsetfromoptions = A->ops->productsetfromoptions;
    b->mult                = A->ops->mult;
    b->multadd             = A->ops->multadd;
    b->multtranspose       = A->ops->multtranspose;
    b->multtransposeadd    = A->ops->multtransposeadd;
    b->destroy             = A->ops->destroy;
    b->duplicate           = A->ops->duplicate;
    b->setfromoptions      = A->ops->setfromoptions;
    b->view                = A->ops->view;
    b->assemblyend         = A->ops->assemblyend;
    b->scale               = A->ops->scale;
    b->eliminatezeros      = A->ops->eliminatezeros;
    b->transpose           = A->ops->transpose;
    if (seq) {
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatRetrieveValues_C", &b->retrievevalues));
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatStoreValues_C", &b->storevalues));
    } else {
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &b->preallocation));
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetPreallocationCOO_C", &b->setpreallocationcoo));
      PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJGetLocalMatMerge_C", &b->getlocalmatmerge));
    }
  }
  MatSpmvBaseSaved[k] = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SeqAIJ's functions, saved from a pristine MATSEQAIJ made for the purpose when no matrix was
   converted from one yet (on a GPU machine our matrices start from aijcusparse) */
PetscErrorCode MatSpmvGetBaseSeq(MatSpmvBaseOps **base)
{
  PetscFunctionBegin;
  if (!MatSpmvBaseSaved[0]) {
    Mat A;

    PetscCall(MatCreate(PETSC_COMM_SELF, &A));
    PetscCall(MatSetType(A, MATSEQAIJ));
    PetscCall(MatSpmvSaveBaseOps(A));
    PetscCall(MatDestroy(&A));
  }
  *base = &MatSpmvBaseSeq;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format of a type name: root ("brc", "aijbrc"), sequential or parallel */
PetscErrorCode MatSpmvFormatFind(MatType type, MatSpmvFormat **format)
{
  PetscFunctionBegin;
  *format = NULL;
  for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(MatSpmvFormats); f++) {
    MatSpmvFormat *fmt = MatSpmvFormats[f];
    PetscBool      match;

    PetscCall(PetscStrcmpAny(type, &match, fmt->name, fmt->aijname, fmt->seqtype, fmt->mpitype, ""));
    if (match) *format = fmt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvGetFormats(PetscInt *n, MatSpmvFormat *const **formats)
{
  PetscFunctionBegin;
  *n       = (PetscInt)PETSC_STATIC_ARRAY_LENGTH(MatSpmvFormats);
  *formats = MatSpmvFormats;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvRegisterFormat(MatSpmvFormat *fmt)
{
  char NAME[16], ev[32];

  PetscFunctionBegin;
  PetscCall(MatRegisterRootName(fmt->name, fmt->seqtype, fmt->mpitype));
  PetscCall(MatRegisterRootName(fmt->aijname, fmt->seqtype, fmt->mpitype));
  PetscCall(MatRegister(fmt->seqtype, fmt->createseq));
  PetscCall(MatRegister(fmt->mpitype, fmt->creatempi));
  PetscCall(PetscStrncpy(NAME, fmt->name, sizeof(NAME)));
  PetscCall(PetscStrtoupper(NAME));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sBuild", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_build));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sRefresh", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_refresh));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sMult", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_mult));
  PetscCall(PetscSNPrintf(ev, sizeof(ev), "Mat%sMultT", NAME));
  PetscCall(PetscLogEventRegister(ev, MAT_CLASSID, &fmt->event_multT));
  PetscCall(MatSpmvRegisterFactors(fmt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert() finds converters composed on the source or the target: compose ours under every
   name a user may ask for (root, aij root, concrete type), from and to AIJ and aijcusparse;
   NULL functions remove them */
PetscErrorCode MatSpmvComposeConverters(Mat B, MatSpmvFormat *f, PetscBool mpi, PetscErrorCode (*toBase)(Mat, MatType, MatReuse, Mat *), PetscErrorCode (*fromBase)(Mat, MatType, MatReuse, Mat *))
{
  const char *bases[2] = {mpi ? MATMPIAIJ : MATSEQAIJ, mpi ? MATMPIAIJCUSPARSE : MATSEQAIJCUSPARSE}, *ourtype = mpi ? f->mpitype : f->seqtype;
  char        name[128];

  PetscFunctionBegin;
  for (int b = 0; b < 2; b++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", ourtype, bases[b]));
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, toBase));
    for (int k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", bases[b], k == 0 ? f->name : (k == 1 ? f->aijname : ourtype)));
      PetscCall(PetscObjectComposeFunction((PetscObject)B, name, fromBase));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscSpmvFinalizePackage - called by `PetscFinalize()`; resets the package so it may be initialized again

  Level: developer

.seealso: `PetscSpmvInitializePackage()`
@*/
PetscErrorCode PetscSpmvFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscSpmvPackageInitialized = PETSC_FALSE;
  PetscCall(PetscArrayzero(MatSpmvBaseSaved, 4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscSpmvInitializePackage - registers the petscspmv matrix types (`MATBRC`, ...), their log events
  and options. Programs that link libpetscspmv call it after `PetscInitialize()`; stock programs load
  the library with `-dll_append /path/to/libpetscspmv.so`, which calls it for them.

  Level: beginner

.seealso: `MATBRC`, `PetscSpmvFinalizePackage()`
@*/
PetscErrorCode PetscSpmvInitializePackage(void)
{
  PetscFunctionBegin;
  if (PetscSpmvPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscSpmvPackageInitialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(MatSpmvFormats); f++) PetscCall(MatSpmvRegisterFormat(MatSpmvFormats[f]));
  PetscCall(MatSpmvRegisterSpmvFactor());
  MatSpmvProductMinRows = PETSC_INT_MAX;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "petscspmv matrix-matrix products", "Mat");
  PetscCall(PetscOptionsInt("-mat_spmv_product_min_rows", "Results of sparse products with one of our matrices as A take its type from this many rows (default: never, but for PCMG's MAIJ chains)", "MatMatMult", MatSpmvProductMinRows, &MatSpmvProductMinRows, NULL));
  PetscOptionsEnd();
  PetscCall(PetscRegisterFinalize(PetscSpmvFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Called by PETSc for -dll_append .../libpetscspmv.so: the name follows the library's basename */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscspmv(void)
{
  PetscFunctionBegin;
  PetscCall(PetscSpmvInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatSpmvUseMethod() with an error that tells the user what to do */
#define MatSpmvUseMethod(A, name, types, args) \
  do { \
    PetscErrorCode(*f_) types; \
    MatType t_; \
    PetscCall(PetscObjectQueryFunction((PetscObject)(A), name, &f_)); \
    PetscCall(MatGetType(A, &t_)); \
    PetscCheck(f_, PetscObjectComm((PetscObject)(A)), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not a petscspmv type: create it with -mat_type brc (or MatSetType(A, MATBRC)) or convert it with MatConvert()", t_ ? t_ : "(not set)"); \
    PetscCall((*f_)args); \
  } while (0)

/*@
  MatSpmvSetBackend - chooses where the products of a petscspmv matrix run

  Logically Collective

  Input Parameters:
+ A       - a `MATBRC` (or other petscspmv) matrix
- backend - `MAT_SPMV_BACKEND_AUTO` (GPU when visible), `MAT_SPMV_BACKEND_CUDA` or `MAT_SPMV_BACKEND_HOST`

  Options Database Key:
. -mat_<format>_backend <auto,cuda,host> - for example `-mat_brc_backend host`

  Level: intermediate

.seealso: `MatSpmvGetBackend()`, `MatSpmvBackend`
@*/
PetscErrorCode MatSpmvSetBackend(Mat A, MatSpmvBackend backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, backend, 2);
  PetscCheck(backend >= MAT_SPMV_BACKEND_AUTO && backend <= MAT_SPMV_BACKEND_HOST, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown backend %d: use auto, cuda or host", (int)backend);
  MatSpmvUseMethod(A, "MatSpmvSetBackend_C", (Mat, MatSpmvBackend), (A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvSetColumnOrder - chooses how a petscspmv matrix numbers the columns of its layouts

  Logically Collective

  Input Parameters:
+ A     - a petscspmv matrix
- order - `MAT_SPMV_COLUMN_ORDER_AUTO` (default), `MAT_SPMV_COLUMN_ORDER_NATURAL`, `MAT_SPMV_COLUMN_ORDER_FREQUENCY` or `MAT_SPMV_COLUMN_ORDER_RCM`

  Options Database Key:
. -mat_<format>_column_order <auto,natural,frequency,rcm> - for example `-mat_brc_column_order frequency`

  Level: intermediate

  Note:
  With the frequency order each product first gathers x into the layout's column order (one read
  and one write of x); it pays where a few columns hold many of the nonzeros, as in graphs with
  power-law degrees, whose products then read the x entries they share from fewer cache lines.
  auto takes it when the 1% most frequent columns of an operator with at least 262144 columns hold
  a quarter of its nonzeros or more, except for `MATIPCSR`, which was measured slower renumbered.

  With the rcm order the columns of a square operator follow PETSc's reverse Cuthill-McKee order
  (`MATORDERINGRCM`) of its graph, so that neighbouring rows read nearby columns: `MATBRC` then keeps
  its column indices as 16-bit offsets in FEM operators whose DMPlex or partitioned numbering spreads
  them over more than 65536 columns. For `MATBRC` and `MATSPMV`, auto takes it when groups of 32 rows
  spanning 65536 columns or more hold over 5% of the nonzeros and RCM at least halves that share;
  the order is computed on the host when the layout is built (the first product, and again after a
  change of the nonzero pattern). A non-square operator (an MPI off-diagonal block) keeps its order.

  The choice is made per operator (A, A^T, each MPI block) when its layout is built;
  `-mat_view ::ascii_info` shows it.

.seealso: `MatSpmvGetColumnOrder()`, `MatSpmvColumnOrder`, `MatSpmvSetBackend()`
@*/
PetscErrorCode MatSpmvSetColumnOrder(Mat A, MatSpmvColumnOrder order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, order, 2);
  PetscCheck(order >= MAT_SPMV_COLUMN_ORDER_AUTO && order <= MAT_SPMV_COLUMN_ORDER_RCM, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown column order %d: use auto, natural, frequency or rcm", (int)order);
  MatSpmvUseMethod(A, "MatSpmvSetColumnOrder_C", (Mat, MatSpmvColumnOrder), (A, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvGetColumnOrder - how a petscspmv matrix is asked to number the columns of its layouts

  Not Collective

  Input Parameter:
. A - a petscspmv matrix

  Output Parameter:
. order - as set by `MatSpmvSetColumnOrder()` or `-mat_<format>_column_order`

  Level: intermediate

.seealso: `MatSpmvSetColumnOrder()`
@*/
PetscErrorCode MatSpmvGetColumnOrder(Mat A, MatSpmvColumnOrder *order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(order, 2);
  MatSpmvUseMethod(A, "MatSpmvGetColumnOrder_C", (Mat, MatSpmvColumnOrder *), (A, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvGetBackend - where the products of a petscspmv matrix are asked to run

  Not Collective

  Input Parameter:
. A - a petscspmv matrix

  Output Parameter:
. backend - the requested backend

  Level: intermediate

.seealso: `MatSpmvSetBackend()`
@*/
PetscErrorCode MatSpmvGetBackend(Mat A, MatSpmvBackend *backend)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  MatSpmvUseMethod(A, "MatSpmvGetBackend_C", (Mat, MatSpmvBackend *), (A, backend));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvCheckLayout - checks the invariants of the format layouts of A and A^T against the CSR
  master copy: every nonzero stored exactly once at its row and column with its current value,
  padding slots zero. Errors with `PETSC_ERR_PLIB` on a violation. Meant for tests.

  Collective

  Input Parameter:
. A - an assembled petscspmv matrix

  Level: developer

.seealso: `MATBRC`
@*/
PetscErrorCode MatSpmvCheckLayout(Mat A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  MatSpmvUseMethod(A, "MatSpmvCheckLayout_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvGetParams_Private(Mat A, MatSpmvFormat **format, void **params)
{
  PetscFunctionBegin;
  MatSpmvUseMethod(A, "MatSpmvGetParams_C", (Mat, MatSpmvFormat **, void **), (A, format, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvParamsChanged_Private(Mat A)
{
  PetscFunctionBegin;
  MatSpmvUseMethod(A, "MatSpmvParamsChanged_C", (Mat), (A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpmvGetStorage - the storage of a petscspmv matrix's format layout (of A, not A^T)

  Collective

  Input Parameter:
. A - an assembled petscspmv matrix

  Output Parameters:
+ nslots - value slots, padding included (local)
- bytes  - bytes of values and index arrays (local)

  Level: intermediate

.seealso: `MATBRC`
@*/
PetscErrorCode MatSpmvGetStorage(Mat A, PetscInt *nslots, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  MatSpmvUseMethod(A, "MatSpmvGetStorage_C", (Mat, PetscInt *, PetscLogDouble *), (A, nslots, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameters of format fmt in A: A's own when A is of that format, fmt's share of them when
   A's type selects among the formats (spmv); for the formats' public setters */
PetscErrorCode MatSpmvGetFormatParams_Private(Mat A, MatSpmvFormat *fmt, void **params)
{
  MatSpmvFormat *f;
  MatType        t;

  PetscFunctionBegin;
  PetscCall(MatSpmvGetParams_Private(A, &f, params));
  PetscCall(MatGetType(A, &t));
  PetscCheck(f == fmt || f->subparams, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Matrix of type %s is not %s: set its type with MatSetType() or -mat_type %s", t, fmt->seqtype, fmt->name);
  if (f != fmt) PetscCall(f->subparams(*params, fmt, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Store one integer parameter of fmt's parameters (range-checked by the caller) and drop the
   layouts built with the old value; for the formats' public setters */
PetscErrorCode MatSpmvSetParam_Private(Mat A, MatSpmvFormat *fmt, size_t offset, PetscInt value)
{
  void *p;

  PetscFunctionBegin;
  PetscCall(MatSpmvGetFormatParams_Private(A, fmt, &p));
  *(PetscInt *)((char *)p + offset) = value;
  PetscCall(MatSpmvParamsChanged_Private(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvParseParams_Private(MatSpmvFormat *fmt, PetscOptionItems PetscOptionsObject, void *params, PetscBool *changed)
{
  void          *parsed;
  PetscBool      same;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMalloc(fmt->paramsize, &parsed));
  PetscCall(PetscMemcpy(parsed, params, fmt->paramsize));
  ierr = fmt->setfromoptions(PetscOptionsObject, parsed);
  if (ierr) { /* a rejected value: the copy goes, params stay as they were */
    PetscCall(PetscFree(parsed));
    PetscCall(ierr);
  }
  PetscCall(PetscMemcmp(parsed, params, fmt->paramsize, &same));
  if (!same) PetscCall(PetscMemcpy(params, parsed, fmt->paramsize));
  PetscCall(PetscFree(parsed));
  *changed = (PetscBool)!same;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Our SeqAIJ types on the aijcusparse base: aijcusparse's device matrix-matrix products, its
  factorizations and its cuSPARSE triangular solves, for matrices whose type name is ours.

  aijcusparse's product and factor kernels check that their operands are named
  MATSEQAIJCUSPARSE (some always, some in debug builds only). Our matrices are aijcusparse
  matrices in every respect but the four matrix-vector products, so around each call into those
  kernels we let our operands carry the name MATSEQAIJCUSPARSE and give their names back after
  (an "alias"), also when the call fails.
*/
#include "aijspmvimpl.h"

/* the name our matrix carries under an alias: its base's */
static MatType MatSpmvBaseName(Mat_SeqAIJSpmv *sp)
{
  return sp->base->cusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ;
}

/* the base's name of X if it is one of ours, sequential or parallel, else NULL */
static PetscErrorCode MatSpmvAliasName(Mat X, MatType *name)
{
  Mat_SeqAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(X, &sp));
  if (sp) *name = MatSpmvBaseName(sp);
  else PetscCall(MatSpmvMPIGetBaseName(X, name));
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
    alias->mat[k] = mats[k];
    PetscCall(PetscStrallocpy(((PetscObject)mats[k])->type_name, &alias->name[k]));
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
    PetscCall(PetscObjectChangeTypeName((PetscObject)alias->mat[k], alias->name[k]));
    PetscCall(PetscFree(alias->name[k]));
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

PetscErrorCode MatSpmvCUSPARSEGetIJ(Mat A, const int **i, const int **j)
{
  MatSpmvAlias   alias;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
#if defined(PETSC_HAVE_CUDA)
  ierr = MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, i, j);
#else
  ierr = PETSC_ERR_SUP;
#endif
  PetscCall(MatSpmvAliasEnd(&alias, ierr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------- matrix-matrix products (GAMG's Galerkin products, MatMatMult, ...) ----------------

  Where PETSc hands our matrices to a product (src/mat/interface/matproduct.c):
  1. MatProductSetFromOptions(C) picks the implementation: A's productsetfromoptions when the
     sparse operands share it (all our types do), else a composed MatProductSetFromOptions_<A>_<B>_C
     found on A or B, else MatProductSetFromOptions_anytype_C. Ours is installed as all three, so
     every mix of operands reaches it: our types among themselves, aijcusparse, host AIJ, dense, MAIJ.
  2. The phases it chose, C->ops->productsymbolic and productnumeric. PETSc's generic compositions
     move them between matrices: MatProductSymbolic/Numeric_ABC_Basic (PtAP, RARt, ABC) run an inner
     product's phases on the outer C with the inner C->product swapped in, and the Unsafe ones set
     C up again for another product type. A wrapper can therefore keep nothing on C: the phase it
     wraps is encoded in the wrapper's own pointer (one trampoline per distinct phase function),
     and the operands it aliases are those of whichever C->product is current when it runs.
  3. The result: see MatSpmvRunPhase() (measured: the base's type, but for PCMG's chains of MAIJ).
*/

/* AIJ's host product code reads the operands' CSR values in place: bring device values to the host
   first (ours, aijcusparse's; the blocks of MPI ones) */
static PetscErrorCode MatSpmvSyncHostOperand(Mat X)
{
  Mat_SeqAIJSpmv *sp;
  PetscBool       mpi, cusparse;

  PetscFunctionBegin;
  if (!X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATMPIAIJ, &mpi));
  if (mpi) {
    Mat             blk[2];
    const PetscInt *garray;

    PetscCall(MatMPIAIJGetSeqAIJ(X, &blk[0], &blk[1], &garray));
    for (int b = 0; b < 2; b++) PetscCall(MatSpmvSyncHostOperand(blk[b]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvSeqGetData(X, &sp));
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &cusparse));
  if (sp && sp->base->cusparse) PetscCall(MatSpmvSyncHostValues(X));
  else if (cusparse) {
    const PetscScalar *v;

    PetscCall(MatSeqAIJGetArrayRead(X, &v)); /* aijcusparse's copies to the host */
    PetscCall(MatSeqAIJRestoreArrayRead(X, &v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A product on the host wrote C's host values: not all of AIJ's tell an aijcusparse C (A B^T does not) */
static PetscErrorCode MatSpmvMarkHostWritten(Mat C)
{
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)C, MATMPIAIJ, &mpi));
  if (mpi && C->preallocated) {
    Mat             blk[2];
    const PetscInt *garray;

    PetscCall(MatMPIAIJGetSeqAIJ(C, &blk[0], &blk[1], &garray));
    for (int b = 0; b < 2; b++)
      if (blk[b] && blk[b]->offloadmask != PETSC_OFFLOAD_UNALLOCATED) blk[b]->offloadmask = PETSC_OFFLOAD_CPU;
  } else if (C->offloadmask != PETSC_OFFLOAD_UNALLOCATED) C->offloadmask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the sparse operands all live on the device (aijcusparse then runs the product there) */
static PetscErrorCode MatSpmvProductOnDevice(Mat_Product *p, PetscBool *dev)
{
  Mat mats[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : NULL};

  PetscFunctionBegin;
  *dev = PETSC_TRUE;
  for (int k = 0; k < 3 && *dev; k++) {
    MatType   base = NULL;
    PetscBool dense, cusparse;

    if (!mats[k]) continue;
    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)mats[k], &dense, MATSEQDENSE, MATMPIDENSE, ""));
    if (dense) continue;
    PetscCall(MatSpmvAliasName(mats[k], &base));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)mats[k], &cusparse, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
    if (base) PetscCall(PetscStrcmpAny(base, &cusparse, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
    *dev = (PetscBool)(cusparse && !mats[k]->boundtocpu);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's A^T B and A B^T form the explicit transpose of the transposed operand in their
   symbolic phase and read it in every numeric phase without refreshing it (PETSc 3.25): after a
   change of values they multiply with the old ones (aijcusparse's own matrices alike; the 2-rank
   PtAP multiplies by P_loc^T so). A stale transpose (transupdated off) is formed again by the
   symbolic phase of a throwaway T^T E, E one column with one entry: the public way to aijcusparse's
   csr2csc. Not MatMultTranspose: aijcusparse leaves the cuSPARSE handle of a merged P_loc in host
   pointer mode, where its products crash */
PetscErrorCode MatSpmvRefreshTranspose(Mat T)
{
  Mat         E, D;
  PetscInt    m = T->rmap->n, zero = 0;
  PetscScalar one = 1.0;

  PetscFunctionBegin;
  if (T->transupdated || !m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(T, "Refreshing aijcusparse's explicit transpose, stale after a change of values\n"));
  PetscCall(MatCreate(PETSC_COMM_SELF, &E));
  PetscCall(MatSetSizes(E, m, 1, m, 1));
  PetscCall(MatSetType(E, MATSEQAIJCUSPARSE));
  PetscCall(MatSeqAIJSetPreallocation(E, 1, NULL));
  PetscCall(MatSetValues(E, 1, &zero, 1, &zero, &one, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(E, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(E, MAT_FINAL_ASSEMBLY));
  PetscCall(MatProductCreate(T, E, NULL, &D));
  PetscCall(MatProductSetType(D, MATPRODUCT_AtB));
  PetscCall(MatProductSetFromOptions(D));
  PetscCall(MatProductSymbolic(D));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f(C), for a product on the device; a numeric phase (the symbolic ones form their transposes, and
   have no product data yet) after the explicit transpose aijcusparse multiplies with is refreshed:
   A's for A^T B, B's for A B^T and for the products composed of them (P^T (A P) for PtAP,
   (R A) R^T for RARt, whose inner products may be aijcusparse's own, out of our reach) */
static PetscErrorCode MatSpmvRunDevicePhase(Mat C, PetscErrorCode (*f)(Mat))
{
  Mat_Product *p = C->product;
  Mat          T = NULL, other = NULL;
  PetscBool    sparse[2] = {PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  switch (p->type) {
  case MATPRODUCT_AtB:
    T     = p->A;
    other = p->B;
    break;
  case MATPRODUCT_ABt:
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
    T     = p->B;
    other = p->A;
    break;
  default:
    break;
  }
  if (T && other && p->data) {
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)T, MATSEQAIJ, &sparse[0]));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)other, MATSEQAIJ, &sparse[1]));
  }
  if (sparse[0] && sparse[1]) PetscCall(MatSpmvRefreshTranspose(T));
  PetscCall((*f)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvWrapPhase(PetscErrorCode (**)(Mat));

/* one phase of a product, f, with our operands aliased; after it, the numeric phase it chose is
   wrapped too, and a new result of a product whose A is ours may get A's type (below) */
static PetscErrorCode MatSpmvRunPhase(Mat C, PetscErrorCode (*f)(Mat))
{
  Mat_Product    *p = C->product;
  Mat_SeqAIJSpmv *asp, *bsp;
  MatSpmvAlias    alias;
  PetscBool       dev, base;

  PetscFunctionBegin;
  PetscCheck(p, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product phase without a product");
  PetscCall(MatSpmvProductOnDevice(p, &dev));
  if (!dev)
    for (int k = 0; k < 3; k++) PetscCall(MatSpmvSyncHostOperand(k == 0 ? p->A : (k == 1 ? p->B : p->C)));
  PetscCall(MatSpmvAliasBegin(&alias, p->A, p->B, p->C, C));
  PetscCall(MatSpmvAliasEnd(&alias, dev ? MatSpmvRunDevicePhase(C, f) : (*f)(C)));
  if (!dev) PetscCall(MatSpmvMarkHostWritten(C));
  PetscCall(MatSpmvWrapPhase(&C->ops->productnumeric));
  PetscCall(MatSpmvSeqGetData(p->A, &asp));
  if (!asp) { /* an MPI product: its own rule */
    PetscCall(MatSpmvMPIProductResult(C, p->A, p->B, dev));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MatSpmvBaseName(asp), &base));
  PetscCall(MatSpmvSeqGetData(p->B, &bsp));
  if (base && MatSpmvProductResultTakesType(asp->base->cusparse, dev, C->rmap->n, (PetscBool)(asp->frommaij || (bsp && bsp->frommaij)))) {
    PetscCall(MatConvert_SeqAIJ_SeqAIJSpmv(C, asp->format->seqtype, MAT_INPLACE_MATRIX, &C));
    PetscCall(MatSpmvSetDerived_SeqAIJSpmv(C));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The trampolines: MatSpmvPhase<k> runs the k-th distinct phase function seen */
#define MATSPMV_MAX_PHASES 32
static PetscErrorCode (*MatSpmvPhaseInner[MATSPMV_MAX_PHASES])(Mat);
#define MATSPMV_PHASE(k) \
  static PetscErrorCode MatSpmvPhase##k(Mat C) \
  { \
    PetscFunctionBegin; \
    PetscCall(MatSpmvRunPhase(C, MatSpmvPhaseInner[k])); \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }
MATSPMV_PHASE(0)
MATSPMV_PHASE(1)
MATSPMV_PHASE(2)
MATSPMV_PHASE(3)
MATSPMV_PHASE(4)
MATSPMV_PHASE(5)
MATSPMV_PHASE(6)
MATSPMV_PHASE(7)
MATSPMV_PHASE(8)
MATSPMV_PHASE(9)
MATSPMV_PHASE(10)
MATSPMV_PHASE(11)
MATSPMV_PHASE(12)
MATSPMV_PHASE(13)
MATSPMV_PHASE(14)
MATSPMV_PHASE(15)
MATSPMV_PHASE(16)
MATSPMV_PHASE(17)
MATSPMV_PHASE(18)
MATSPMV_PHASE(19)
MATSPMV_PHASE(20)
MATSPMV_PHASE(21)
MATSPMV_PHASE(22)
MATSPMV_PHASE(23)
MATSPMV_PHASE(24)
MATSPMV_PHASE(25)
MATSPMV_PHASE(26)
MATSPMV_PHASE(27)
MATSPMV_PHASE(28)
MATSPMV_PHASE(29)
MATSPMV_PHASE(30)
MATSPMV_PHASE(31)
static PetscErrorCode (*const MatSpmvPhaseWrapper[MATSPMV_MAX_PHASES])(Mat) = {MatSpmvPhase0,  MatSpmvPhase1,  MatSpmvPhase2,  MatSpmvPhase3,  MatSpmvPhase4,  MatSpmvPhase5,  MatSpmvPhase6,  MatSpmvPhase7,
                                                                               MatSpmvPhase8,  MatSpmvPhase9,  MatSpmvPhase10, MatSpmvPhase11, MatSpmvPhase12, MatSpmvPhase13, MatSpmvPhase14, MatSpmvPhase15,
                                                                               MatSpmvPhase16, MatSpmvPhase17, MatSpmvPhase18, MatSpmvPhase19, MatSpmvPhase20, MatSpmvPhase21, MatSpmvPhase22, MatSpmvPhase23,
                                                                               MatSpmvPhase24, MatSpmvPhase25, MatSpmvPhase26, MatSpmvPhase27, MatSpmvPhase28, MatSpmvPhase29, MatSpmvPhase30, MatSpmvPhase31};

/* *f becomes the trampoline of *f (nothing for NULL or a trampoline) */
static PetscErrorCode MatSpmvWrapPhase(PetscErrorCode (**f)(Mat))
{
  int k;

  PetscFunctionBegin;
  if (!*f) PetscFunctionReturn(PETSC_SUCCESS);
  for (k = 0; k < MATSPMV_MAX_PHASES; k++)
    if (*f == MatSpmvPhaseWrapper[k]) PetscFunctionReturn(PETSC_SUCCESS);
  for (k = 0; k < MATSPMV_MAX_PHASES && MatSpmvPhaseInner[k] && MatSpmvPhaseInner[k] != *f; k++);
  PetscCheck(k < MATSPMV_MAX_PHASES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d distinct product phases met: raise MATSPMV_MAX_PHASES", MATSPMV_MAX_PHASES);
  MatSpmvPhaseInner[k] = *f;
  *f                   = MatSpmvPhaseWrapper[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* setfromoptions (the base's choice of implementation) with our operands aliased, then its symbolic
   phase wrapped: for our sequential and MPI types alike */
PetscErrorCode MatSpmvProductSetFromOptionsAliased(Mat C, PetscErrorCode (*setfromoptions)(Mat))
{
  Mat_Product *p = C->product;
  MatSpmvAlias alias;

  PetscFunctionBegin;
  PetscCall(MatSpmvAliasBegin(&alias, p->A, p->B, p->C, NULL));
  PetscCall(MatSpmvAliasEnd(&alias, (*setfromoptions)(C)));
  PetscCall(MatSpmvWrapPhase(&C->ops->productsymbolic));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MAIJ operand (PCMG's interpolation on a DMDA with several fields) becomes a matrix of A's type in
   place, as PETSc's own MPIAIJ x MPIMAIJ product makes it MPIAIJ and MatCreateMAIJ() makes it
   aijcusparse for aijcusparse operators; the product is then set up again */
static PetscErrorCode MatSpmvProductConvertMAIJ(Mat C, PetscBool *converted)
{
  Mat_Product *p = C->product;
  Mat          ops[2] = {p->A, p->B}, other;
  PetscBool    maij;

  PetscFunctionBegin;
  *converted = PETSC_FALSE;
  for (int k = 0; k < 2; k++) {
    Mat_SeqAIJSpmv *sp;

    PetscCall(PetscObjectTypeCompare((PetscObject)ops[k], MATSEQMAIJ, &maij));
    if (!maij) continue;
    other = ops[1 - k];
    PetscCall(MatSpmvSeqGetData(other, &sp));
    if (!sp) continue;
    PetscCall(PetscInfo(C, "Converting the %s operand from MAIJ to %s for the product\n", k ? "second" : "first", sp->format->seqtype));
    PetscCall(MatConvert(ops[k], sp->base->cusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ, MAT_INPLACE_MATRIX, &ops[k]));
    PetscCall(MatConvert(ops[k], sp->format->seqtype, MAT_INPLACE_MATRIX, &ops[k]));
    PetscCall(MatSpmvSeqGetData(ops[k], &sp));
    sp->frommaij = PETSC_TRUE;
    *converted = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse chooses the product's implementation when A is on the device (device when every
   sparse operand is, its CPU fallback otherwise), SeqAIJ when A is on the host; we wrap its phases */
static PetscErrorCode MatProductSetFromOptions_SeqAIJSpmv(Mat C)
{
  Mat_Product    *p = C->product;
  PetscBool       converted, acusparse;
  Mat_SeqAIJSpmv *asp;
  PetscErrorCode (*setfromoptions)(Mat) = MatSpmvBaseSeqCUSPARSE.productsetfromoptions;

  PetscFunctionBegin;
  PetscCall(MatSpmvProductConvertMAIJ(C, &converted));
  if (converted) {
    PetscCall(MatProductSetFromOptions(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvSeqGetData(p->A, &asp));
  PetscCall(PetscObjectTypeCompare((PetscObject)p->A, MATSEQAIJCUSPARSE, &acusparse));
  acusparse = (PetscBool)((acusparse || (asp && asp->base->cusparse)) && !p->A->boundtocpu);
  if (!acusparse) { /* AIJ's: its sparse x dense products are composed with the dense B, the others are its productsetfromoptions */
    PetscBool dense;

    setfromoptions = NULL;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)p->B, MATSEQDENSE, &dense));
    if (dense && p->type != MATPRODUCT_ABC) PetscCall(PetscObjectQueryFunction((PetscObject)p->B, "MatProductSetFromOptions_seqaij_seqdense_C", &setfromoptions));
    if (!setfromoptions) {
      MatSpmvBaseOps *host;

      PetscCall(MatSpmvGetBaseSeq(&host));
      setfromoptions = host->productsetfromoptions;
    }
  }
  PetscCall(MatSpmvProductSetFromOptionsAliased(C, setfromoptions));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatProductSetFromOptions() looks these up when the operands' productsetfromoptions differ */
static PetscErrorCode MatSpmvComposeProductHooks(Mat A, PetscErrorCode (*f)(Mat))
{
  /* under an alias our operand is named seqaijcusparse: aijcusparse's own hooks must be ours too */
  const char *names[] = {"MatProductSetFromOptions_anytype_C", "MatProductSetFromOptions_seqaijcusparse_seqaijcusparse_C", "MatProductSetFromOptions_seqaijcusparse_seqdense_C", "MatProductSetFromOptions_seqaijcusparse_seqdensecuda_C"};

  PetscFunctionBegin;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(names); k++) PetscCall(PetscObjectComposeFunction((PetscObject)A, names[k], f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Our product hooks (either base); while bound to the CPU, SeqAIJ's products stay */
PetscErrorCode MatSpmvSetProductHooks_SeqAIJSpmv(Mat A)
{
  Mat_SeqAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(A, &sp));
  if (sp->base->cusparse && A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS); /* SeqAIJ's host functions stay */
  A->ops->productsetfromoptions = MatProductSetFromOptions_SeqAIJSpmv;
  PetscCall(MatSpmvComposeProductHooks(A, MatProductSetFromOptions_SeqAIJSpmv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A stops being ours: remove the hooks (the caller gives back the base's productsetfromoptions) */
PetscErrorCode MatSpmvClearProductHooks_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvComposeProductHooks(A, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------- factors: aijcusparse's ILU/ICC/LU/Cholesky with cuSPARSE triangular solves ---------------- */

/* aijcusparse's (and MATSOLVERSPMV's) triangular solves read and write device arrays only (a host
   vector gives a wrong result): host vectors go through device work vectors kept with the factor */
PetscErrorCode MatSpmvSolveStaged(Mat F, Vec b, Vec x, const char *key)
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
  PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL));
  PetscCall(MatSpmvAliasEnd(&alias, (*numeric)(F, A, info)));
  PetscCall(MatSpmvWrapSolves(F));
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
    PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL)); \
    PetscCall(MatSpmvAliasEnd(&alias, (*symbolic)(F, A, row, col, info))); \
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
    PetscCall(MatSpmvAliasBegin(&alias, A, NULL, NULL, NULL)); \
    PetscCall(MatSpmvAliasEnd(&alias, (*symbolic)(F, A, perm, info))); \
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

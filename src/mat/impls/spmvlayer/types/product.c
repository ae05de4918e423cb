/*
  Matrix-matrix products with our operands (GAMG's Galerkin products, PCMG, MatMatMult, ...), for the
  sequential and MPI types: aijcusparse's device products, or AIJ's host ones, run with our operands
  aliased to the base's name; the result's type and operations; the explicit transposes aijcusparse
  leaves stale.
*/
#include "../spmvimpl.h"
#include <petsc/private/hashmap.h>

PetscInt MatSpmvProductMinRows  = PETSC_INT_MAX;              /* -petscspmv_product_min_rows (read by the package) */
PetscInt MatSpmvPtAPHostMinRows = MATSPMV_PTAP_HOST_MIN_ROWS; /* -petscspmv_ptap_host_min_rows */

static PetscBool MatSpmvIsMPIAIJCUSPARSEResult(Mat);

/* whether f is a phase of the device SpGEMM (which keeps its own transposes current) */
static PetscBool MatSpmvIsSpGEMMPhase(PetscErrorCode (*f)(Mat))
{
  return (PetscBool)(MatSpmvDeviceOperations.isproductphase && MatSpmvDeviceOperations.isproductphase(f));
}

/* Whether a new result (still the base's type) of a product whose A is ours takes A's type, for
   sequential and MPI results alike. Never after a host product into an aijcusparse matrix: it
   wrote host values aijcusparse is not told of. Measured with GAMG's defaults (docs/design.md,
   "How it works: our types on the aijcusparse base"): its smoothed prolongator and coarse
   operators in our formats made the solve slower than left to aijcusparse. So results stay the
   base's type, unless -petscspmv_product_min_rows asks for ours from that many rows, or an operand
   was a MAIJ interpolation we converted (PCMG): the next level's MAIJ then meets one of ours,
   which converts it */
static PetscBool MatSpmvProductResultTakesType(PetscBool cusparsebase, PetscBool dev, PetscInt rows, PetscBool frommaij)
{
  if (cusparsebase && !dev) return PETSC_FALSE;
  return (PetscBool)(rows >= MatSpmvProductMinRows || frommaij);
}

/* C, of a base type, becomes our type in place through the converter that the types compose with
   every matrix of theirs (A, an operand of ours), as MatConvert() would find it */
static PetscErrorCode MatSpmvProductResultConvert(Mat A, Mat C, MatType type)
{
  PetscErrorCode (*convert)(Mat, MatType, MatReuse, Mat *) = NULL;
  char name[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", ((PetscObject)C)->type_name, type));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, name, &convert));
  PetscCheck(convert, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No converter %s on the product's operand", name);
  PetscCall((*convert)(C, type, MAT_INPLACE_MATRIX, &C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Where PETSc hands our matrices to a product (src/mat/interface/matproduct.c):
  1. MatProductSetFromOptions(C) picks the implementation: A's productsetfromoptions when the
     sparse operands share it (all our types do), else a composed MatProductSetFromOptions_<A>_<B>_C
     found on A or B, else MatProductSetFromOptions_anytype_C. Ours is installed as all three, so
     every mix of operands reaches it: our types among themselves, aijcusparse, host AIJ, dense, MAIJ.
  2. The phases it chose, C->ops->productsymbolic and productnumeric. PETSc's generic compositions
     move them between matrices: MatProductSymbolic/Numeric_ABC_Basic (PtAP, RARt, ABC) run an inner
     product's phases on the outer C with the inner C->product swapped in, and the Unsafe ones set
     C up again for another product type. A wrapper can therefore keep nothing on C: the phase it
     wraps is recorded under the product (C->product, which moves with the phase pointer), and the
     operands it aliases are those of whichever C->product is current when it runs.
  3. The result: see MatSpmvRunPhase() (measured: the base's type, but for PCMG's chains of MAIJ).
*/

/* AIJ's host product code reads the operands' CSR values in place: bring device values to the host
   first (ours, aijcusparse's; the blocks of MPI ones) */
static PetscErrorCode MatSpmvUpdateHostOperand(Mat X)
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
    for (int b = 0; b < 2; b++) PetscCall(MatSpmvUpdateHostOperand(blk[b]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvSeqGetData(X, &sp));
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &cusparse));
  if (sp && sp->base->cusparse) PetscCall(MatSpmvUpdateHostValues(X));
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
   pointer mode, where its products crash. The throwaway product names an algorithm other than the
   default: our SpGEMM (T ours or a result has our product hooks) would take it and form its own
   transpose, not aijcusparse's; aijcusparse's ignores the name */
PetscErrorCode MatSpmvUpdateTranspose(Mat T)
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
  PetscCall(MatProductSetAlgorithm(D, "cusparse"));
  PetscCall(MatProductSetFromOptions(D));
  PetscCall(MatProductSymbolic(D));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's explicit transpose of P, an aijcusparse matrix with MAT_FORM_EXPLICIT_TRANSPOSE (GAMG's
   prolongators), formed by a product with P^T on zero vectors, which forms it (csr2csc) when it is
   stale: cheaper than MatSpmvUpdateTranspose()'s throwaway sparse product (a matrix of P's rows and
   cuSPARSE's SpGEMM set-up, once per level). Not for a merged P_loc (see there). Ours: their
   products with P^T take their own layouts, no transpose of aijcusparse's is read */
static PetscErrorCode MatSpmvFormExplicitTranspose(Mat P)
{
  PetscBool       cusparse;
  Mat_SeqAIJSpmv *sp;

  PetscFunctionBegin;
  PetscCall(MatSpmvSeqGetData(P, &sp)); /* ours carry aijcusparse's name under the product's alias */
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJCUSPARSE, &cusparse));
  if (sp || !cusparse || P->boundtocpu || !P->rmap->n || !P->cmap->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(P, "Forming aijcusparse's explicit transpose of P (MAT_FORM_EXPLICIT_TRANSPOSE) after our product\n"));
  PetscCall(MatSpmvCUSPARSEFormTranspose(P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inner product of a parallel P^T A P that PETSc's device backend forms for the rows other
   processes own, P_loc^T (A_off P_oth) (MatProductSymbolic_MPIAIJBACKEND(): its third, prefix
   "backend_p2_"), is refused by cuSPARSE's SpGEMM from about 150^3 unknowns of KSP ex45 on 2
   processes (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES on one process while the others wait in the
   product's collective set-up: docs/limits.md). Its operand A_off P_oth has rows only at the process
   boundaries, so from -petscspmv_ptap_host_min_rows rows of A on its largest process (the size
   cuSPARSE's work estimate grows with) PETSc's host product takes it, asked for by that product's
   own options unless the user gave them: at 1.37 M rows a process (140^3 on 2) the host's was faster
   than cuSPARSE's, at 0.69 M (on 4) slower. Below the threshold it stays on the device (with two
   processes on one GPU the host product made the set-up of the 12^3 case stop in 1 of 6 runs, as
   the device's did before MatSpmvRunDevicePhase()'s wait). The largest process's rows come from
   the layout every process holds, so all take the same path. Where P is ours or one of our results,
   its P_loc takes our product hooks and our SpGEMM (memory bounded by its output) takes this product
   on the device: nothing is asked. set: before the symbolic phase; !set: after it, the options
   taken back. C's type is not set yet: A's tells whether it is parallel */
static PetscErrorCode MatSpmvPtAPOffProcessOnHost(Mat C, PetscBool set, PetscBool added[2])
{
  static const char *const names[2] = {"mattransposematmult_backend_cpu", "mat_product_algorithm_backend_cpu"};
  const char              *prefix;
  char                     name[256];
  PetscBool                mpi;
  PetscMPIInt              size;

  PetscFunctionBegin;
  if (set) {
    Mat             A = C->product->A;
    const PetscInt *range;
    PetscInt        maxrows = 0;
    Mat_MPIAIJSpmv *psp;

    added[0] = added[1] = PETSC_FALSE;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)C), &size));
    if (!mpi || size == 1 || C->product->type != MATPRODUCT_PtAP) PetscFunctionReturn(PETSC_SUCCESS);
    /* P ours or a result: its P_loc takes our hooks, and our SpGEMM takes that product on the device */
    PetscCall(MatSpmvMPIGetData(C->product->B, &psp));
    if (MatSpmvDeviceOperations.productsetfromoptions && ((psp && psp->base->cusparse) || MatSpmvIsMPIAIJCUSPARSEResult(C->product->B))) {
      PetscCall(PetscInfo(C, "P^T A P of a %s on %d processes: its off-process product by petscspmv's SpGEMM on the device\n", ((PetscObject)A)->type_name, size));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscLayoutGetRanges(A->rmap, &range));
    for (PetscMPIInt r = 0; r < size; r++) maxrows = PetscMax(maxrows, range[r + 1] - range[r]);
    PetscCall(PetscInfo(C, "P^T A P of a %s of %" PetscInt_FMT " rows on %d processes, at most %" PetscInt_FMT " on one: its off-process product on the %s (-petscspmv_ptap_host_min_rows %" PetscInt_FMT ")\n", ((PetscObject)A)->type_name, A->rmap->N, size, maxrows, maxrows >= MatSpmvPtAPHostMinRows ? "host" : "device", MatSpmvPtAPHostMinRows));
    if (maxrows < MatSpmvPtAPHostMinRows) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetOptionsPrefix(C, &prefix));
  for (int k = 0; k < 2; k++) {
    PetscBool given;

    PetscCall(PetscSNPrintf(name, sizeof(name), "-%sbackend_p2_%s", prefix ? prefix : "", names[k]));
    if (set) {
      PetscCall(PetscOptionsHasName(NULL, NULL, name, &given));
      if (!given) PetscCall(PetscOptionsSetValue(NULL, name, "1"));
      else PetscCall(PetscInfo(C, "%s given: kept\n", name));
      added[k] = (PetscBool)!given;
    } else if (added[k]) PetscCall(PetscOptionsClearValue(NULL, name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether C, a new result of PETSc's MPI product of two aijcusparse matrices (ours aliased), stays an
   aijcusparse matrix (MatSpmvMPIProductResult() may give it our type after the phase): then C is given its
   sizes and that type now, as MatProductSymbolic_MPIAIJBACKEND() gives them (MatProductCreate() leaves C
   untyped, and a type set inside the phase composes aijcusparse's functions over any composed before) */
static PetscErrorCode MatSpmvMPIResultBase(Mat C, PetscBool *base)
{
  Mat_Product    *p = C->product;
  Mat             A = p->A, B = p->B;
  Mat_MPIAIJSpmv *asp = NULL, *bsp = NULL;
  MatProductType  type        = p->type;
  PetscBool       cusparse[2] = {PETSC_FALSE, PETSC_FALSE};
  PetscInt        m, n, M, N;

  PetscFunctionBegin;
  *base = PETSC_FALSE;
  if (((PetscObject)C)->type_name || !B || p->C) PetscFunctionReturn(PETSC_SUCCESS);
  if (type == MATPRODUCT_AtB && A->symmetric == PETSC_BOOL3_TRUE) type = MATPRODUCT_AB; /* as PETSc's */
  if (type != MATPRODUCT_AB && type != MATPRODUCT_AtB && type != MATPRODUCT_PtAP) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJCUSPARSE, &cusparse[0]));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIAIJCUSPARSE, &cusparse[1]));
  if (!cusparse[0] || !cusparse[1] || A->boundtocpu || B->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvMPIGetData(A, &asp));
  PetscCall(MatSpmvMPIGetData(B, &bsp));
  if (MatSpmvProductMinRows != PETSC_INT_MAX || (asp && (asp->frommaij || (bsp && bsp->frommaij)))) PetscFunctionReturn(PETSC_SUCCESS);
  if (type == MATPRODUCT_AB) m = A->rmap->n, n = B->cmap->n, M = A->rmap->N, N = B->cmap->N;
  else if (type == MATPRODUCT_AtB) m = A->cmap->n, n = B->cmap->n, M = A->cmap->N, N = B->cmap->N;
  else m = n = B->cmap->n, M = N = B->cmap->N;
  {
    PetscErrorCode (*symbolic)(Mat) = C->ops->productsymbolic; /* MatSetType() clears the operations */

    PetscCall(MatSetSizes(C, m, n, M, N));
    PetscCall(MatSetType(C, MATMPIAIJCUSPARSE));
    C->ops->productsymbolic = symbolic;
  }
  *base = PETSC_TRUE;
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
  PetscBool    sparse[2] = {PETSC_FALSE, PETSC_FALSE}, symbolic, cusparse;

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
  if (T && other && p->data && !MatSpmvIsSpGEMMPhase(f)) { /* our SpGEMM keeps its own transposes current */
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)T, MATSEQAIJ, &sparse[0]));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)other, MATSEQAIJ, &sparse[1]));
  }
  if (sparse[0] && sparse[1]) {
    /* host values newer than the device's (MatShift(), MatDiagonalScale() run on the host) reach the
       device first: only then does aijcusparse mark the transpose stale */
    PetscCall(MatSpmvCUSPARSEUpload(T));
    PetscCall(MatSpmvUpdateTranspose(T));
  }
  symbolic = (PetscBool)!p->data;
#if defined(PETSC_HAVE_CUDA)
  /* the device idle before aijcusparse's phase: with two processes on one GPU, cuSPARSE's SpGEMM in
     GAMG's set-up on spmv matrices otherwise spun forever (PETSc 3.26, KSP ex45 12^3: 3 of 3 runs;
     none after this wait; cause not known: docs/limits.md). A phase is milliseconds, the wait microseconds */
  PetscCall(MatSpmvCUDASynchronizeDevice());
#endif
  if (symbolic) {
    PetscBool added[2], base, ours = PETSC_FALSE;

    PetscCall(MatSpmvPtAPOffProcessOnHost(C, PETSC_TRUE, added));
    PetscCall(MatSpmvMPIResultBase(C, &base));
    if (base) PetscCall(MatSpmvSetCOOOps_MPIResult(C));               /* PETSc's MPI products assemble C from COO entries */
    if (base) PetscCall(MatSpmvMPIProductSymbolicOnDevice(C, &ours)); /* or ours makes it on the device */
    if (!ours) PetscCall((*f)(C));
    PetscCall(MatSpmvPtAPOffProcessOnHost(C, PETSC_FALSE, added));
  } else {
    PetscBool sparsec;

    PetscCall((*f)(C));
    /* aijcusparse's numeric SpGEMM writes C's values on the device but leaves an explicit transpose
       of C (formed by an earlier C^T B or P^T A P with P = C) marked current: the next one multiplies
       by C's old values (PETSc 3.26.1; docs/limits.md). Marked stale as aijcusparse's own
       MatSeqAIJCUSPARSEGetArray() marks it, through which our SpGEMM writes */
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)C, MATSEQAIJ, &sparsec));
    if (sparsec && !MatSpmvIsSpGEMMPhase(f)) C->transupdated = PETSC_FALSE;
  }
  /* P's (R's) explicit transpose, which GAMG asks aijcusparse to keep for the restriction
     (MAT_FORM_EXPLICIT_TRANSPOSE) and cuSPARSE's P^T A P forms in its symbolic phase, formed after
     ours too: else the first solve's MatMultTranspose() forms it (KSP ex56 -ne 48: 0.022 vs 0.013 s
     of MatMultTranspose in the solve, H100) */
  if (!symbolic && MatSpmvIsSpGEMMPhase(f) && (p->type == MATPRODUCT_PtAP || p->type == MATPRODUCT_RARt) && p->B->form_explicit_transpose && !p->B->transupdated) PetscCall(MatSpmvFormExplicitTranspose(p->B));
  /* aijcusparse's sparse symbolic phase computes C's values on the device but, unless both operands'
     values were on host and device alike, leaves C marked unallocated, its host values unset: the
     next phase that reads C (the outer product of PtAP, RARt and ABC in MatProductSymbolic_ABC_Basic())
     then uploads those host values over the computed ones and multiplies with them (PETSc 3.25;
     docs/limits.md). The device values are C's */
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &cusparse));
  if (symbolic && cusparse && C->preallocated && C->offloadmask == PETSC_OFFLOAD_UNALLOCATED) {
    PetscCall(PetscInfo(C, "The symbolic product's values are on the device: marked so\n"));
    C->offloadmask = PETSC_OFFLOAD_GPU;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvWrapPhase(Mat, int);
static PetscErrorCode MatSpmvSetProductOps_AIJCUSPARSEResult(Mat);
static PetscBool      MatSpmvIsAIJCUSPARSEResult(Mat);

/* GAMG's levels smoothed by SOR (-mg_levels_pc_type sor): MatSOR() of an aijcusparse result (on several
   processes, of its diagonal block, which MPIAIJ's sweeps) on the device, as our types' */
static PetscErrorCode MatSpmvSetSOROps_AIJCUSPARSEResult(Mat C)
{
  PetscBool seq, mpi;
  Mat       Cd = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIAIJCUSPARSE, &mpi));
  if (seq) Cd = C;
  else if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, NULL, NULL));
  if (Cd && MatSpmvDeviceOperations.setsor && MatSpmvBaseSeqCUSPARSE.sor && Cd->ops->sor == MatSpmvBaseSeqCUSPARSE.sor) PetscCall(MatSpmvDeviceOperations.setsor(Cd, MatSpmvBaseSeqCUSPARSE.sor));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A sequential aijcusparse result of our products keeps the device paths of our types: GAMG's next
   graph, the smoothing of P0 on several processes, SOR smoothers, and its own products (GAMG's coarser
   Galerkin products) by our SpGEMM */
static PetscErrorCode MatSpmvSetAIJCUSPARSEResultOps(Mat C)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvSetGraphOps_AIJCUSPARSEResult(C));
  PetscCall(MatSpmvSetValueOps_AIJCUSPARSEResult(C));
  PetscCall(MatSpmvSetSOROps_AIJCUSPARSEResult(C));
  PetscCall(MatSpmvSetProductOps_AIJCUSPARSEResult(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new result (named after the base under the alias) of a product whose A is ours takes A's type
   where MatSpmvProductResultTakesType() says so */
static PetscErrorCode MatSpmvMPIProductResult(Mat C, Mat A, Mat B, PetscBool dev)
{
  Mat_MPIAIJSpmv *asp, *bsp;
  PetscBool       base;

  PetscFunctionBegin;
  PetscCall(MatSpmvMPIGetData(A, &asp));
  if (!asp) { /* a product of an MPI result (GAMG's coarser levels on several processes): a result too */
    if (MatSpmvIsMPIAIJCUSPARSEResult(A)) PetscCall(MatSpmvSetAIJCUSPARSEResultOps(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvMPIGetData(B, &bsp));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, asp->base->cusparse ? MATMPIAIJCUSPARSE : MATMPIAIJ, &base));
  if (base && MatSpmvProductResultTakesType(asp->base->cusparse, dev, C->rmap->n, (PetscBool)(asp->frommaij || (bsp && bsp->frommaij)))) PetscCall(MatSpmvProductResultConvert(A, C, asp->format->mpitype));
  else if (base && asp->base->cusparse) PetscCall(MatSpmvSetAIJCUSPARSEResultOps(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Results that stay aijcusparse matrices multiply host vectors wrongly on the GPU (y = 0: aijcusparse
  writes y's device copy, which a host vector never reads back; docs/limits.md), and dense CUDA
  results read them the same way; aijcusparse's y = C^T x + z adds y's old contents where y is not z.
  Their products (and the Hermitian ones) are wrapped: device vectors go to the base's function
  (composed on C), the transpose products with z computed in place, host vectors through device
  vectors of C's own, kept on C.
*/
/* the products of a result: with "add" odd, the transposes from MATSPMV_RESULT_MULT_TRANSPOSE */
typedef enum {
  MATSPMV_RESULT_MULT,
  MATSPMV_RESULT_MULT_ADD,
  MATSPMV_RESULT_MULT_TRANSPOSE,
  MATSPMV_RESULT_MULT_TRANSPOSE_ADD,
  MATSPMV_RESULT_MULT_HERMITIAN_TRANSPOSE,
  MATSPMV_RESULT_MULT_HERMITIAN_TRANSPOSE_ADD
} MatSpmvResultOp;
/* the base's product of each MatSpmvResultOp, composed with the result */
static const char *const MatSpmvResultMultKeys[] =
  {"MatSpmvResultMult_C", "MatSpmvResultMultAdd_C", "MatSpmvResultMultTranspose_C", "MatSpmvResultMultTransposeAdd_C", "MatSpmvResultMultHermitianTranspose_C", "MatSpmvResultMultHermitianTransposeAdd_C"};

static PetscErrorCode MatSpmvVecCopyValues(Vec from, Vec to)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetArrayRead(from, &a));
  PetscCall(VecGetArrayWrite(to, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayWrite(to, &b));
  PetscCall(VecRestoreArrayRead(from, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = op(C) x (+ z) */
static PetscErrorCode MatSpmvResultApply(Mat C, MatSpmvResultOp op, Vec x, Vec z, Vec y)
{
  const PetscBool transpose                     = (PetscBool)(op >= MATSPMV_RESULT_MULT_TRANSPOSE);
  PetscErrorCode (*mult)(Mat, Vec, Vec)         = NULL;
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec) = NULL;
  PetscBool dev;
  Vec       xw, yw;

  PetscFunctionBegin;
  /* aijcusparse's Hermitian transpose-add asks cuSPARSE for the conjugate transpose, refused for a real matrix (docs/limits.md) */
  if (!PetscDefined(USE_COMPLEX) && op >= MATSPMV_RESULT_MULT_HERMITIAN_TRANSPOSE) op = (MatSpmvResultOp)(op - 2);
  if (op % 2) PetscCall(PetscObjectQueryFunction((PetscObject)C, MatSpmvResultMultKeys[op], &multadd));
  else PetscCall(PetscObjectQueryFunction((PetscObject)C, MatSpmvResultMultKeys[op], &mult));
  PetscCheck(mult || multadd, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "The product result lost the base's %s", MatSpmvResultMultKeys[op]);
  PetscCall(MatSpmvCUSPARSETakesVecs(x, z, y, &dev));
  if (dev) {
    if (multadd && transpose) PetscCall(MatSpmvCUSPARSEMultTransposeAdd(multadd, C, x, z, y));
    else if (multadd) PetscCall((*multadd)(C, x, z, y));
    else PetscCall((*mult)(C, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* x of C's column layout (C^T: row), y of the other */
  PetscCall(MatSpmvGetDeviceWorkVec(C, transpose ? "MatSpmvResultLeftVec" : "MatSpmvResultRightVec", transpose ? C->rmap : C->cmap, &xw));
  PetscCall(MatSpmvGetDeviceWorkVec(C, transpose ? "MatSpmvResultRightVec" : "MatSpmvResultLeftVec", transpose ? C->cmap : C->rmap, &yw));
  PetscCall(MatSpmvVecCopyValues(x, xw));
  if (multadd) {
    PetscCall(MatSpmvVecCopyValues(z, yw));
    PetscCall((*multadd)(C, xw, yw, yw));
  } else PetscCall((*mult)(C, xw, yw));
  PetscCall(MatSpmvVecCopyValues(yw, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_SpmvResult(Mat C, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvResultApply(C, MATSPMV_RESULT_MULT, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultAdd_SpmvResult(Mat C, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvResultApply(C, MATSPMV_RESULT_MULT_ADD, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTranspose_SpmvResult(Mat C, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvResultApply(C, MATSPMV_RESULT_MULT_TRANSPOSE, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultTransposeAdd_SpmvResult(Mat C, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvResultApply(C, MATSPMV_RESULT_MULT_TRANSPOSE_ADD, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultHermitianTranspose_SpmvResult(Mat C, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvResultApply(C, MATSPMV_RESULT_MULT_HERMITIAN_TRANSPOSE, x, NULL, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMultHermitianTransposeAdd_SpmvResult(Mat C, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvResultApply(C, MATSPMV_RESULT_MULT_HERMITIAN_TRANSPOSE_ADD, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C, an aijcusparse or dense CUDA result, gets the wrappers (once: a numeric phase after the symbolic one finds them) */
static PetscErrorCode MatSpmvResultStageHostVectors(Mat C)
{
  PetscBool cusparse;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)C, &cusparse, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, MATSEQDENSECUDA, MATMPIDENSECUDA, ""));
  if (!cusparse || C->ops->mult == MatMult_SpmvResult || !C->ops->mult) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectComposeFunction((PetscObject)C, MatSpmvResultMultKeys[MATSPMV_RESULT_MULT], C->ops->mult));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, MatSpmvResultMultKeys[MATSPMV_RESULT_MULT_ADD], C->ops->multadd));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, MatSpmvResultMultKeys[MATSPMV_RESULT_MULT_TRANSPOSE], C->ops->multtranspose));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, MatSpmvResultMultKeys[MATSPMV_RESULT_MULT_TRANSPOSE_ADD], C->ops->multtransposeadd));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, MatSpmvResultMultKeys[MATSPMV_RESULT_MULT_HERMITIAN_TRANSPOSE], C->ops->multhermitiantranspose));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, MatSpmvResultMultKeys[MATSPMV_RESULT_MULT_HERMITIAN_TRANSPOSE_ADD], C->ops->multhermitiantransposeadd));
  C->ops->mult = MatMult_SpmvResult;
  if (C->ops->multadd) C->ops->multadd = MatMultAdd_SpmvResult;
  if (C->ops->multtranspose) C->ops->multtranspose = MatMultTranspose_SpmvResult;
  if (C->ops->multtransposeadd) C->ops->multtransposeadd = MatMultTransposeAdd_SpmvResult;
  if (C->ops->multhermitiantranspose) C->ops->multhermitiantranspose = MatMultHermitianTranspose_SpmvResult;
  if (C->ops->multhermitiantransposeadd) C->ops->multhermitiantransposeadd = MatMultHermitianTransposeAdd_SpmvResult;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one phase of a product, f, with our operands aliased; after it, the numeric phase it chose is
   wrapped too, and a new result of a product whose A is ours may get A's type (below) */
typedef struct {
  Mat C;
  PetscErrorCode (*f)(Mat);
} MatSpmvPhaseCall;

static PetscErrorCode MatSpmvRunDevicePhaseCall(void *ctx)
{
  MatSpmvPhaseCall *call = (MatSpmvPhaseCall *)ctx;

  PetscFunctionBegin;
  PetscCall(MatSpmvRunDevicePhase(call->C, call->f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a device phase, a thrust exception under it (aijcusparse's own phases and transpose products) made a PETSc error */
static PetscErrorCode MatSpmvRunDevicePhaseCaught(Mat C, PetscErrorCode (*f)(Mat))
{
  MatSpmvPhaseCall call = {C, f};

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDACatch(MatSpmvRunDevicePhaseCall, &call, "a matrix product's phase"));
#else
  PetscCall(MatSpmvRunDevicePhaseCall(&call));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
    for (int k = 0; k < 3; k++) PetscCall(MatSpmvUpdateHostOperand(k == 0 ? p->A : (k == 1 ? p->B : p->C)));
  PetscCall(MatSpmvAliasBegin(&alias, p->A, p->B, p->C, C));
  PetscCall(MatSpmvAliasEnd(&alias, dev ? MatSpmvRunDevicePhaseCaught(C, f) : (*f)(C)));
  if (!dev) PetscCall(MatSpmvMarkHostWritten(C));
  PetscCall(MatSpmvWrapPhase(C, 1));
  PetscCall(MatSpmvSeqGetData(p->A, &asp));
  if (!asp && MatSpmvIsAIJCUSPARSEResult(p->A)) { /* a product of a result (GAMG's coarser levels): a result too */
    PetscCall(MatSpmvSetAIJCUSPARSEResultOps(C));
    PetscCall(MatSpmvResultStageHostVectors(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!asp) { /* an MPI product: its own rule */
    PetscCall(MatSpmvMPIProductResult(C, p->A, p->B, dev));
    PetscCall(MatSpmvResultStageHostVectors(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)C, asp->base->cusparse ? MATSEQAIJCUSPARSE : MATSEQAIJ, &base));
  PetscCall(MatSpmvSeqGetData(p->B, &bsp));
  if (base && MatSpmvProductResultTakesType(asp->base->cusparse, dev, C->rmap->n, (PetscBool)(asp->frommaij || (bsp && bsp->frommaij)))) {
    Mat_SeqAIJSpmv *csp;

    PetscCall(MatSpmvProductResultConvert(p->A, C, asp->format->seqtype));
    PetscCall(MatSpmvSeqGetData(C, &csp));
    PetscCheck(csp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The product's result did not become %s", asp->format->seqtype);
    csp->derived = PETSC_TRUE;
  } else if (base && asp->base->cusparse) PetscCall(MatSpmvSetAIJCUSPARSEResultOps(C));
  PetscCall(MatSpmvResultStageHostVectors(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The phases our two wrappers run, per product: recorded when a wrapper is installed on C, under
   C->product, and looked up under C->product when it runs. PETSc moves a product's Mat_Product together
   with its phase pointers (MatProductNumeric_ABC_Basic() puts the inner product's Mat_Product and phase on
   the outer C), so a phase finds its own record at any nesting. PETSc frees a Mat_Product without telling
   us: a record is kept until the package's end, and one whose address a new product takes is written over
   when that product's wrapper is installed, before it can run. PETSc's hash map on the address, one per
   phase (symbolic, numeric) */
typedef PetscErrorCode (*MatSpmvPhaseFn)(Mat);
PETSC_HASH_MAP(HMapSpmvPhase, const Mat_Product *, MatSpmvPhaseFn, PetscHashPointer, PetscHashEqual, NULL)
static PetscHMapSpmvPhase MatSpmvPhases[2] = {NULL, NULL};

/* the package's end: no product outlives it */
PetscErrorCode MatSpmvForgetProductPhases(void)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) PetscCall(PetscHMapSpmvPhaseDestroy(&MatSpmvPhases[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the recorded phase (0 symbolic, 1 numeric) of C's current product, with our operands aliased */
static PetscErrorCode MatSpmvRunRecordedPhase(Mat C, int which)
{
  MatSpmvPhaseFn f = NULL;

  PetscFunctionBegin;
  PetscCheck(C->product, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product phase without a product");
  if (MatSpmvPhases[which]) PetscCall(PetscHMapSpmvPhaseGet(MatSpmvPhases[which], C->product, &f));
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No %s phase recorded for this product", which ? "numeric" : "symbolic");
  PetscCall(MatSpmvRunPhase(C, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_SpmvPhase(Mat C)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvRunRecordedPhase(C, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_SpmvPhase(Mat C)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvRunRecordedPhase(C, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C's phase (0 symbolic, 1 numeric) recorded for its current product and replaced by our wrapper
   (nothing for NULL or a wrapper) */
static PetscErrorCode MatSpmvWrapPhase(Mat C, int which)
{
  MatSpmvPhaseFn *f = which ? &C->ops->productnumeric : &C->ops->productsymbolic;

  PetscFunctionBegin;
  if (!*f || *f == MatProductSymbolic_SpmvPhase || *f == MatProductNumeric_SpmvPhase) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(C->product, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product phase without a product");
  if (!MatSpmvPhases[which]) PetscCall(PetscHMapSpmvPhaseCreate(&MatSpmvPhases[which]));
  PetscCall(PetscHMapSpmvPhaseSet(MatSpmvPhases[which], C->product, *f));
  *f = which ? MatProductNumeric_SpmvPhase : MatProductSymbolic_SpmvPhase;
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
  PetscCall(MatSpmvWrapPhase(C, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A MAIJ operand (PCMG's interpolation on a DMDA with several fields) becomes a matrix of A's type in
   place, as PETSc's own MPIAIJ x MPIMAIJ product makes it MPIAIJ and MatCreateMAIJ() makes it
   aijcusparse for aijcusparse operators; the product is then set up again */
static PetscErrorCode MatSpmvProductConvertMAIJ(Mat C, PetscBool *converted)
{
  Mat_Product *p      = C->product;
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
    *converted   = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sparse products on the device by our SpGEMM where it takes them, else aijcusparse's choice */
static PetscErrorCode MatProductSetFromOptions_SpGEMMOrCUSPARSE(Mat C)
{
  PetscBool taken = PETSC_FALSE;

  PetscFunctionBegin;
  if (MatSpmvDeviceOperations.productsetfromoptions) PetscCall(MatSpmvDeviceOperations.productsetfromoptions(C, &taken));
  if (!taken) PetscCall((*MatSpmvBaseSeqCUSPARSE.productsetfromoptions)(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse chooses the product's implementation when A is on the device (device when every
   sparse operand is, its CPU fallback otherwise; our SpGEMM before it), SeqAIJ when A is on the host;
   we wrap its phases */
static PetscErrorCode MatProductSetFromOptions_SeqAIJSpmv(Mat C)
{
  Mat_Product    *p = C->product;
  PetscBool       converted, acusparse;
  Mat_SeqAIJSpmv *asp;
  PetscErrorCode (*setfromoptions)(Mat) = MatProductSetFromOptions_SpGEMMOrCUSPARSE;

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

/* whether X is an aijcusparse result of our products (our product hooks on aijcusparse's matrix) */
static PetscBool MatSpmvIsAIJCUSPARSEResult(Mat X)
{
  return (PetscBool)(X && X->ops->productsetfromoptions == MatProductSetFromOptions_SeqAIJSpmv && MatSpmvBaseSeqCUSPARSE.productsetfromoptions && ((PetscObject)X)->type_name && !strcmp(((PetscObject)X)->type_name, MATSEQAIJCUSPARSE));
}

static PetscErrorCode MatProductSetFromOptions_MPIAIJCUSPARSEResult(Mat);
static PetscErrorCode MatMPIAIJGetLocalMatMerge_MPIAIJCUSPARSEResult(Mat, MatReuse, IS *, Mat *);

/* whether X is an MPI aijcusparse result of our products */
static PetscBool MatSpmvIsMPIAIJCUSPARSEResult(Mat X)
{
  return (PetscBool)(X && X->ops->productsetfromoptions == MatProductSetFromOptions_MPIAIJCUSPARSEResult && ((PetscObject)X)->type_name && !strcmp(((PetscObject)X)->type_name, MATMPIAIJCUSPARSE));
}

/* C, an aijcusparse result, takes our product hooks (once; not where another package replaced
   aijcusparse's): its products with other device matrices then reach our SpGEMM. An MPI result's
   products are PETSc's MPI products of its blocks and of its merged local rows (P_loc of P^T A P,
   whose P_loc^T (A_off P_oth) cuSPARSE refuses at large sizes): those take the hooks too, and the
   results of its own products are results again (GAMG's coarser levels) */
static PetscErrorCode MatSpmvSetProductOps_AIJCUSPARSEResult(Mat C)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIAIJCUSPARSE, &mpi));
  if (C->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  if (seq && MatSpmvBaseSeqCUSPARSE.productsetfromoptions && C->ops->productsetfromoptions == MatSpmvBaseSeqCUSPARSE.productsetfromoptions) {
    C->ops->productsetfromoptions = MatProductSetFromOptions_SeqAIJSpmv;
    PetscCall(MatSpmvComposeProductHooks(C, MatProductSetFromOptions_SeqAIJSpmv));
  } else if (mpi && MatSpmvBaseMPICUSPARSE.productsetfromoptions && C->ops->productsetfromoptions == MatSpmvBaseMPICUSPARSE.productsetfromoptions) {
    Mat Cd, Co;

    PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, &Co, NULL));
    PetscCall(MatSpmvSetProductOps_AIJCUSPARSEResult(Cd));
    if (Co) PetscCall(MatSpmvSetProductOps_AIJCUSPARSEResult(Co));
    C->ops->productsetfromoptions = MatProductSetFromOptions_MPIAIJCUSPARSEResult;
    /* when the other operand's productsetfromoptions differs, PETSc looks these up on A first */
    PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatProductSetFromOptions_mpiaijcusparse_mpiaijcusparse_C", MatProductSetFromOptions_MPIAIJCUSPARSEResult));
    if (MatSpmvBaseMPICUSPARSE.getlocalmatmerge) PetscCall(PetscObjectComposeFunction((PetscObject)C, "MatMPIAIJGetLocalMatMerge_C", MatMPIAIJGetLocalMatMerge_MPIAIJCUSPARSEResult));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------- MPI products ---------------- */

/* whether every operand of a product (ops[2] NULL but for ABC) is an MPIAIJ matrix of any kind */
static PetscErrorCode MatSpmvProductOperandsMPIAIJ(const Mat ops[3], PetscBool *sparse)
{
  PetscFunctionBegin;
  *sparse = PETSC_TRUE;
  for (int k = 0; k < 3 && *sparse; k++) {
    if (!ops[k]) continue;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)ops[k], MATMPIAIJ, sparse));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's productsetfromoptions (aijcusparse base), and MatProductSetFromOptions_anytype_C for operands that
   do not share one. A MAIJ operand (PCMG's interpolation on a DMDA with several fields) becomes a
   matrix of our type in place, as MPIAIJ's own MPIAIJ x MPIMAIJ product makes it MPIAIJ, and the
   product is set up again. Sparse operands go to the base's choice with ours named after the base:
   MPIAIJBACKEND's device product needs the operands' names equal (ours with aijcusparse, or two of
   our types), else MPIAIJ's host product, whose operands are brought to the host in each phase */
PetscErrorCode MatProductSetFromOptions_MPIAIJSpmv(Mat C)
{
  Mat_Product    *p      = C->product;
  Mat             ops[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : NULL};
  Mat_MPIAIJSpmv *sp[2], *ours = NULL;
  PetscBool       maij[2], sparse;

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    PetscCall(MatSpmvMPIGetData(ops[k], &sp[k]));
    PetscCall(PetscObjectTypeCompare((PetscObject)ops[k], MATMPIMAIJ, &maij[k]));
  }
  for (int k = 0; k < 2; k++) {
    if (!maij[k] || !sp[1 - k]) continue;
    PetscCall(PetscInfo(C, "Converting the %s operand from MAIJ to %s for the product\n", k ? "second" : "first", sp[1 - k]->format->mpitype));
    PetscCall(MatConvert(ops[k], sp[1 - k]->base->cusparse ? MATMPIAIJCUSPARSE : MATMPIAIJ, MAT_INPLACE_MATRIX, &ops[k]));
    PetscCall(MatConvert(ops[k], sp[1 - k]->format->mpitype, MAT_INPLACE_MATRIX, &ops[k]));
    PetscCall(MatSpmvMPIGetData(ops[k], &sp[k]));
    sp[k]->frommaij = PETSC_TRUE;
    PetscCall(MatProductSetFromOptions(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvProductOperandsMPIAIJ(ops, &sparse));
  ours = sp[0] ? sp[0] : sp[1];
  if (!sparse || !ours) PetscFunctionReturn(PETSC_SUCCESS); /* not ours to choose: PETSc goes on to its own fallbacks (sparse x dense by columns, ...) */
  PetscCall(MatSpmvProductSetFromOptionsAliased(C, ours->base->productsetfromoptions));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's merge of the diagonal and off-diagonal blocks into one local matrix (P_loc of the
   2-rank PtAP and A^T B, on the device), whose explicit transpose aijcusparse's A^T B multiplies
   with: reused, the merge leaves that transpose stale (PETSc 3.25). One that was current before is
   formed again (A^T A of a merged A is aijcusparse's own product, out of our hooks' reach) */
static PetscErrorCode MatSpmvLocalMatMerge(Mat A, PetscErrorCode (*merge)(Mat, MatReuse, IS *, Mat *), MatReuse scall, IS *glob, Mat *A_loc)
{
  PetscBool       current = (PetscBool)(scall == MAT_REUSE_MATRIX && (*A_loc)->transupdated);
  Mat             blk[2];
  const PetscInt *garray;
  MatSpmvAlias    alias;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], &garray));
  PetscCall(MatSpmvAliasBegin(&alias, blk[0], blk[1], NULL, NULL)); /* a result's blocks are aijcusparse's own: none taken */
  PetscCall(MatSpmvAliasEnd(&alias, merge(A, scall, glob, A_loc)));
  if (current) PetscCall(MatSpmvUpdateTranspose(*A_loc));
  if (scall == MAT_INITIAL_MATRIX) PetscCall(MatSpmvSetProductOps_AIJCUSPARSEResult(*A_loc)); /* P_loc^T (A_off P_oth): ours */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours: their blocks named after the base during the merge */
PetscErrorCode MatMPIAIJGetLocalMatMerge_MPIAIJSpmv(Mat A, MatReuse scall, IS *glob, Mat *A_loc)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvLocalMatMerge(A, MatSpmvMPI(A)->base->getlocalmatmerge, scall, glob, A_loc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the same merge of an MPI result */
static PetscErrorCode MatMPIAIJGetLocalMatMerge_MPIAIJCUSPARSEResult(Mat A, MatReuse scall, IS *glob, Mat *A_loc)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvLocalMatMerge(A, MatSpmvBaseMPICUSPARSE.getlocalmatmerge, scall, glob, A_loc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an MPI result's products: MPIAIJCUSPARSE's choice (its device product of the blocks, which reach
   our SpGEMM) with the phases wrapped, so that the result is a result too; a dense operand goes to
   MPIAIJCUSPARSE's choice as it is */
static PetscErrorCode MatProductSetFromOptions_MPIAIJCUSPARSEResult(Mat C)
{
  Mat_Product *p      = C->product;
  Mat          ops[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : NULL};
  PetscBool    sparse;

  PetscFunctionBegin;
  PetscCall(MatSpmvProductOperandsMPIAIJ(ops, &sparse));
  if (sparse) PetscCall(MatSpmvProductSetFromOptionsAliased(C, MatSpmvBaseMPICUSPARSE.productsetfromoptions));
  else PetscCall(MatSpmvBaseMPICUSPARSE.productsetfromoptions(C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

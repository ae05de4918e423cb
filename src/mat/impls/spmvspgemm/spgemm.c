/*
  The device SpGEMM's plumbing (see spmvspgemmimpl.h): which products it takes, the product data
  (explicit transposes, the inner product of P^T A P and R A R^T, the plans), C made an aijcusparse
  matrix on the pattern found, the numeric phases. What it does not take stays with aijcusparse's
  choice (cuSPARSE's SpGEMM or AIJ's host code), said with -info.
*/
#include "spmvspgemmimpl.h"

static PetscBool MatSpmvSpGEMMUse       = PETSC_TRUE;
static PetscInt  MatSpmvSpGEMMSharedMax = 8192;
static PetscInt  MatSpmvSpGEMMBatch     = 1 << 26;

static PetscErrorCode MatSpmvSpGEMMSetFromOptions(Mat, PetscBool *);
static PetscBool      MatSpmvSpGEMMIsPhase(PetscErrorCode (*)(Mat));

/* the phases' own events: PETSc's MPI products call their local products' phases without an event of
   their own, so their time would otherwise show as the MPI product's */
static PetscLogEvent MATSPMV_SpGEMMSymbolic, MATSPMV_SpGEMMNumeric;

#if defined(PETSC_HAVE_CUDA)
/* C = A B of two device CSRs for the layer's MPI products (types/mpiproduct.c): C's pattern stays the plan's */
static PetscErrorCode MatSpmvSpGEMMDeviceSymbolic(const MatSpmvDeviceCSR *A, const MatSpmvDeviceCSR *B, void **plan, MatSpmvDeviceCSR *C)
{
  MatSpmvSpGEMMOptions opt = {MatSpmvSpGEMMSharedMax, MatSpmvSpGEMMBatch};
  MatSpmvSpGEMMPlan   *pl;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATSPMV_SpGEMMSymbolic, 0, 0, 0, 0));
  PetscCall(PetscNew(&pl));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatSpmvCUDASpGEMMSymbolic(A, B, &opt, pl));
  PetscCall(PetscLogGpuTimeEnd());
  C->m   = pl->m;
  C->n   = pl->n;
  C->nnz = pl->nnz;
  C->i   = pl->ci;
  C->j   = pl->cj;
  C->a   = NULL;
  *plan  = pl;
  PetscCall(PetscLogEventEnd(MATSPMV_SpGEMMSymbolic, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvSpGEMMDeviceNumeric(void *plan, const MatSpmvDeviceCSR *A, const MatSpmvDeviceCSR *B, PetscScalar *c)
{
  MatSpmvSpGEMMPlan *pl = (MatSpmvSpGEMMPlan *)plan;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATSPMV_SpGEMMNumeric, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(MatSpmvCUDASpGEMMNumeric(pl, A, B, pl->ci, pl->cj, c));
  PetscCall(PetscLogGpuFlops(2.0 * pl->products));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(MATSPMV_SpGEMMNumeric, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvSpGEMMDeviceDestroy(void **plan)
{
  MatSpmvSpGEMMPlan *pl = (MatSpmvSpGEMMPlan *)*plan;

  PetscFunctionBegin;
  if (!pl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDASpGEMMPlanReset(pl));
  PetscCall(PetscFree(pl));
  *plan = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* its options, events, and the layer's table entries while it is on (-petscspmv_spgemm, CUDA): called by the package */
PETSC_INTERN PetscErrorCode MatSpmvSpGEMMRegister(void)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("MatSpmvSpGEMMSym", MAT_CLASSID, &MATSPMV_SpGEMMSymbolic));
  PetscCall(PetscLogEventRegister("MatSpmvSpGEMMNum", MAT_CLASSID, &MATSPMV_SpGEMMNumeric));
  MatSpmvSpGEMMUse       = PETSC_TRUE;
  MatSpmvSpGEMMSharedMax = 8192;
  MatSpmvSpGEMMBatch     = 1 << 26;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "petscspmv sparse products on the device", "Mat");
  PetscCall(PetscOptionsBool("-petscspmv_spgemm", "Sparse products (A B, A^T B, A B^T, P^T A P, R A R^T) of matrices on the device by petscspmv's SpGEMM (else aijcusparse's choice: cuSPARSE)", "MatProductSetFromOptions", MatSpmvSpGEMMUse, &MatSpmvSpGEMMUse, NULL));
  PetscCall(PetscOptionsInt("-petscspmv_spgemm_shared_max", "Slots of the largest shared-memory hash table (a power of 2, 32 to 8192); rows that do not fit take global tables", "MatProductSymbolic", MatSpmvSpGEMMSharedMax, &MatSpmvSpGEMMSharedMax, NULL));
  PetscCall(PetscOptionsInt("-petscspmv_spgemm_batch", "Slots of global hash tables (4 bytes each) the symbolic phase holds at once", "MatProductSymbolic", MatSpmvSpGEMMBatch, &MatSpmvSpGEMMBatch, NULL));
  PetscOptionsEnd();
  PetscCheck(MatSpmvSpGEMMSharedMax >= 32 && MatSpmvSpGEMMSharedMax <= 8192 && !(MatSpmvSpGEMMSharedMax & (MatSpmvSpGEMMSharedMax - 1)), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_spgemm_shared_max %" PetscInt_FMT ": give a power of 2 from 32 to 8192", MatSpmvSpGEMMSharedMax);
  PetscCheck(MatSpmvSpGEMMBatch >= 32, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-petscspmv_spgemm_batch %" PetscInt_FMT ": give at least 32 slots", MatSpmvSpGEMMBatch);
  MatSpmvDeviceOperations.productsetfromoptions = PetscDefined(HAVE_CUDA) && MatSpmvSpGEMMUse ? MatSpmvSpGEMMSetFromOptions : NULL;
  MatSpmvDeviceOperations.isproductphase        = PetscDefined(HAVE_CUDA) && MatSpmvSpGEMMUse ? MatSpmvSpGEMMIsPhase : NULL;
#if defined(PETSC_HAVE_CUDA)
  MatSpmvDeviceOperations.spgemmsymbolic = MatSpmvSpGEMMUse ? MatSpmvSpGEMMDeviceSymbolic : NULL;
  MatSpmvDeviceOperations.spgemmnumeric  = MatSpmvSpGEMMUse ? MatSpmvSpGEMMDeviceNumeric : NULL;
  MatSpmvDeviceOperations.spgemmdestroy  = MatSpmvSpGEMMUse ? MatSpmvSpGEMMDeviceDestroy : NULL;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* an explicit transpose of a matrix's device CSR, and where each entry came from */
typedef struct {
  PetscInt     m, n, nnz; /* of the transpose */
  int         *i, *j, *pos;
  PetscScalar *a;
} MatSpmvSpGEMMTranspose;

typedef struct {
  MatProductType         type;
  MatSpmvSpGEMMTranspose t;          /* of A (A^T B), B (A B^T), P, R */
  MatSpmvSpGEMMPlan      inner;      /* A P of P^T A P, A R^T of R A R^T */
  PetscScalar           *innera;     /* its values */
  MatSpmvSpGEMMPlan      outer;      /* C's */
  Mat                    op[2];      /* the operands at the symbolic phase, or since their last check (MatProductReplaceMats() may change them); referenced, so no new matrix takes their address */
  PetscObjectState       nz[2];      /* and their nonzero states */
  PetscInt               size[2][3]; /* and their rows, columns and entries */
  unsigned long long     fp[2];      /* and their patterns' fingerprints */
  PetscBool              numeric;    /* a numeric phase ran */
} MatSpmvSpGEMMProduct;

static PetscErrorCode MatSpmvSpGEMMProductDestroy(PetscCtxRt ctx)
{
  MatSpmvSpGEMMProduct *d = *(MatSpmvSpGEMMProduct **)ctx;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAFree(d->t.i));
  PetscCall(MatSpmvCUDAFree(d->t.j));
  PetscCall(MatSpmvCUDAFree(d->t.pos));
  PetscCall(MatSpmvCUDAFree(d->t.a));
  PetscCall(MatSpmvCUDAFree(d->innera));
  PetscCall(MatSpmvCUDASpGEMMPlanReset(&d->inner));
  PetscCall(MatSpmvCUDASpGEMMPlanReset(&d->outer));
  for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&d->op[k]));
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static MatSpmvDeviceCSR MatSpmvSpGEMMTransposeView(const MatSpmvSpGEMMTranspose *t)
{
  MatSpmvDeviceCSR csr = {t->m, t->n, t->nnz, t->i, t->j, t->a};
  return csr;
}

static MatSpmvDeviceCSR MatSpmvSpGEMMPlanView(const MatSpmvSpGEMMPlan *p, const PetscScalar *a)
{
  MatSpmvDeviceCSR csr = {p->m, p->n, p->nnz, p->ci, p->cj, a};
  return csr;
}

/* the transpose's pattern (symbolic) from x's */
static PetscErrorCode MatSpmvSpGEMMTransposeSymbolic(const MatSpmvDeviceCSR *x, MatSpmvSpGEMMTranspose *t)
{
  void *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  t->m   = x->n;
  t->n   = x->m;
  t->nnz = x->nnz;
  PetscCall(MatSpmvCUDATransposeCSR(x, &t->i, &t->j, &t->pos, stream));
  PetscCall(MatSpmvCUDAMalloc((void **)&t->a, t->nnz * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the transpose's values, gathered from x's */
static PetscErrorCode MatSpmvSpGEMMTransposeNumeric(const MatSpmvDeviceCSR *x, MatSpmvSpGEMMTranspose *t)
{
  void *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(MatSpmvCUDAGather(t->nnz, t->pos, x->a, t->a, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C becomes an aijcusparse matrix on the plan's pattern (copied to the host once, as aijcusparse's own
   symbolic phase does; PETSc's public calls give no way to hand aijcusparse a device CSR, so its first
   use uploads it again): made on pinned host arrays it owns, then put in C's place; C keeps its
   product, prefix and name. Its values are set by the numeric phase; the host's are zeros mapped lazily
   where MatSpmvProductHostValuesLazy() says so, else left unset in the pinned memory (aijcusparse copies
   them down there at the device's rate) */
static PetscErrorCode MatSpmvSpGEMMCreateResult(Mat C, MatSpmvSpGEMMPlan *plan, PetscInt rbs, PetscInt cbs)
{
  Mat          T;
  Mat_Product *product = C->product;
  char        *prefix = NULL, *name = NULL;
  void        *stream;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  {
    const MatSpmvDeviceCSR pattern = {plan->m, plan->n, plan->nnz, plan->ci, plan->cj, NULL};
    PetscBool              lazy;

    PetscCall(MatSpmvProductHostValuesLazy(C, &lazy));
    PetscCall(MatSpmvCreateAIJFromDevice(&pattern, lazy, stream, &T));
  }
  PetscCall(MatConvert(T, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &T));
  if (rbs > 1 && plan->m % rbs == 0 && cbs > 0 && plan->n % cbs == 0) PetscCall(MatSetBlockSizes(T, rbs, cbs));
  PetscCall(PetscStrallocpy(((PetscObject)C)->prefix, &prefix));
  PetscCall(PetscStrallocpy(((PetscObject)C)->name, &name));
  C->product = NULL;
  PetscCall(MatHeaderReplace(C, &T));
  C->product = product;
  PetscCall(MatSetOptionsPrefix(C, prefix));
  if (name) PetscCall(PetscObjectSetName((PetscObject)C, name));
  PetscCall(PetscFree(prefix));
  PetscCall(PetscFree(name));
  C->offloadmask = PETSC_OFFLOAD_CPU; /* the pattern is the host's: the first numeric phase uploads it */
  /* C's device pattern is aijcusparse's from now on */
  PetscCall(MatSpmvCUDAFree(plan->ci));
  PetscCall(MatSpmvCUDAFree(plan->cj));
  plan->ci = plan->cj = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_SpmvSpGEMM(Mat C)
{
  Mat_Product          *p = C->product;
  MatSpmvSpGEMMProduct *d;
  Mat                   A = p->A, B = p->B;
  PetscScalar          *c;
  PetscLogDouble        t0, t1, t2;
  const int            *ci, *cj;
  MatSpmvDeviceCSR      x[2], t, in;

  PetscFunctionBegin;
  PetscCheck(p->data, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The product's symbolic phase has not run");
  PetscCall(PetscLogEventBegin(MATSPMV_SpGEMMNumeric, C, A, B, 0));
  d = (MatSpmvSpGEMMProduct *)p->data;
  PetscCall(MatSpmvCUSPARSEGetCSR(A, PETSC_TRUE, NULL, &x[0]));
  PetscCall(MatSpmvCUSPARSEGetCSR(B, PETSC_TRUE, NULL, &x[1]));
  for (int k = 0; k < 2; k++) {
    Mat                X  = k ? B : A;
    unsigned long long fp = 0;
    PetscBool          same;

    if (X == d->op[k] && X->nonzerostate == d->nz[k]) continue;
    /* a new operand (MatProductReplaceMats()) or a new nonzero state: only the same pattern goes on */
    same = (PetscBool)(x[k].m == d->size[k][0] && x[k].n == d->size[k][1] && x[k].nnz == d->size[k][2]);
    if (same) {
      PetscCall(MatSpmvCUDASpGEMMFingerprint(&x[k], &fp));
      same = (PetscBool)(fp == d->fp[k]);
    }
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The product's operand %c has another nonzero pattern than at the symbolic phase: call MatProductSymbolic() again (or MatMatMult() and the like with MAT_INITIAL_MATRIX)", k ? 'B' : 'A');
    PetscCall(PetscObjectReference((PetscObject)X));
    PetscCall(MatDestroy(&d->op[k]));
    d->op[k] = X;
    d->nz[k] = X->nonzerostate;
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (d->type != MATPRODUCT_AB) PetscCall(MatSpmvSpGEMMTransposeNumeric(&x[d->type == MATPRODUCT_AtB ? 0 : 1], &d->t));
  t = MatSpmvSpGEMMTransposeView(&d->t);
  if (d->type == MATPRODUCT_PtAP) PetscCall(MatSpmvCUDASpGEMMNumeric(&d->inner, &x[0], &x[1], d->inner.ci, d->inner.cj, d->innera));
  if (d->type == MATPRODUCT_RARt) PetscCall(MatSpmvCUDASpGEMMNumeric(&d->inner, &x[0], &t, d->inner.ci, d->inner.cj, d->innera));
  in = MatSpmvSpGEMMPlanView(&d->inner, d->innera);
  PetscCall(PetscTime(&t0));
  PetscCall(MatSpmvCUSPARSEGetArray(C, &c)); /* the first uploads C's pattern */
  PetscCall(MatSpmvCUSPARSEGetIJ(C, &ci, &cj));
  PetscCall(PetscTime(&t1));
  switch (d->type) {
  case MATPRODUCT_AB:
    PetscCall(MatSpmvCUDASpGEMMNumeric(&d->outer, &x[0], &x[1], ci, cj, c));
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatSpmvCUDASpGEMMNumeric(&d->outer, &t, &x[1], ci, cj, c));
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatSpmvCUDASpGEMMNumeric(&d->outer, &x[0], &t, ci, cj, c));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatSpmvCUDASpGEMMNumeric(&d->outer, &t, &in, ci, cj, c));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatSpmvCUDASpGEMMNumeric(&d->outer, &x[1], &in, ci, cj, c));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product type %s", MatProductTypes[d->type]);
  }
  PetscCall(MatSpmvCUSPARSERestoreArray(C, &c));
  PetscCall(MatSpmvCUSPARSERestoreCSR(A, &x[0]));
  PetscCall(MatSpmvCUSPARSERestoreCSR(B, &x[1]));
  PetscCall(PetscLogGpuFlops(2.0 * (d->inner.products + d->outer.products)));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscTime(&t2));
  if (!d->numeric) PetscCall(PetscInfo(C, "%s's first numeric phase: C's upload %.4f s, the rest %.4f s\n", MatProductTypes[d->type], t1 - t0, t2 - t1));
  d->numeric = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(MATSPMV_SpGEMMNumeric, C, A, B, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_SpmvSpGEMM(Mat C)
{
  Mat_Product          *p = C->product;
  Mat                   A = p->A, B = p->B;
  MatSpmvSpGEMMProduct *d;
  MatSpmvDeviceCSR      x[2], t, in;
  MatSpmvSpGEMMOptions  opt = {MatSpmvSpGEMMSharedMax, MatSpmvSpGEMMBatch};
  PetscInt              rbs = 1, cbs = 1;
  PetscLogDouble        t0, t1, t2;

  PetscFunctionBegin;
  PetscCheck(!p->data, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product data not empty");
  PetscCall(PetscLogEventBegin(MATSPMV_SpGEMMSymbolic, C, A, B, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscNew(&d));
  d->type = p->type;
  PetscCall(MatSpmvCUSPARSEGetCSR(A, PETSC_FALSE, NULL, &x[0]));
  PetscCall(MatSpmvCUSPARSEGetCSR(B, PETSC_FALSE, NULL, &x[1]));
  for (int k = 0; k < 2; k++) {
    Mat X = k ? B : A;

    PetscCall(MatSpmvCUDASpGEMMFingerprint(&x[k], &d->fp[k]));
    PetscCall(PetscObjectReference((PetscObject)X));
    d->op[k]      = X;
    d->nz[k]      = X->nonzerostate;
    d->size[k][0] = x[k].m;
    d->size[k][1] = x[k].n;
    d->size[k][2] = x[k].nnz;
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (p->type != MATPRODUCT_AB) PetscCall(MatSpmvSpGEMMTransposeSymbolic(&x[p->type == MATPRODUCT_AtB ? 0 : 1], &d->t));
  t = MatSpmvSpGEMMTransposeView(&d->t);
  switch (p->type) {
  case MATPRODUCT_AB:
    PetscCall(MatSpmvCUDASpGEMMSymbolic(&x[0], &x[1], &opt, &d->outer));
    rbs = A->rmap->bs, cbs = B->cmap->bs;
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatSpmvCUDASpGEMMSymbolic(&t, &x[1], &opt, &d->outer));
    rbs = A->cmap->bs, cbs = B->cmap->bs;
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatSpmvCUDASpGEMMSymbolic(&x[0], &t, &opt, &d->outer));
    rbs = A->rmap->bs, cbs = B->rmap->bs;
    break;
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt: /* P^T (A P), R (A R^T) */
    PetscCall(MatSpmvCUDASpGEMMSymbolic(&x[0], p->type == MATPRODUCT_PtAP ? &x[1] : &t, &opt, &d->inner));
    PetscCall(MatSpmvCUDAMalloc((void **)&d->innera, d->inner.nnz * sizeof(PetscScalar)));
    in = MatSpmvSpGEMMPlanView(&d->inner, NULL);
    PetscCall(MatSpmvCUDASpGEMMSymbolic(p->type == MATPRODUCT_PtAP ? &t : &x[1], &in, &opt, &d->outer));
    rbs = cbs = p->type == MATPRODUCT_PtAP ? B->cmap->bs : B->rmap->bs;
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Product type %s", MatProductTypes[p->type]);
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscTime(&t1));
  PetscCall(MatSpmvSpGEMMCreateResult(C, &d->outer, rbs, cbs));
  PetscCall(PetscTime(&t2));
  PetscCall(PetscInfo(C, "%s by the device SpGEMM: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " entries, %.0f products%s; %" PetscInt_FMT " rows in %" PetscInt_FMT " batches of global tables, work memory %.1f MiB; device %.4f s, C made on the host %.4f s\n", MatProductTypes[p->type],
                      d->outer.m, d->outer.n, d->outer.nnz, d->outer.products + d->inner.products, d->inner.m ? " (with the inner product's)" : "", d->outer.globalrows + d->inner.globalrows, d->outer.batches + d->inner.batches,
                      (double)PetscMax(d->outer.peakbytes, d->inner.peakbytes) / 1048576.0, t1 - t0, t2 - t1));
  C->product->data       = d; /* PETSc destroys it with the product */
  C->product->destroy    = MatSpmvSpGEMMProductDestroy;
  C->ops->productnumeric = MatProductNumeric_SpmvSpGEMM;
  PetscCall(PetscLogEventEnd(MATSPMV_SpGEMMSymbolic, C, A, B, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* whether f is a phase of ours (MatSpmvRunPhase() then skips aijcusparse's transpose refresh) */
static PetscBool MatSpmvSpGEMMIsPhase(PetscErrorCode (*f)(Mat))
{
#if defined(PETSC_HAVE_CUDA)
  return (PetscBool)(f == MatProductSymbolic_SpmvSpGEMM || f == MatProductNumeric_SpmvSpGEMM);
#else
  (void)f;
  return PETSC_FALSE;
#endif
}

/* whether X is a sparse matrix whose CSR aijcusparse keeps on the device with int indices */
static PetscErrorCode MatSpmvSpGEMMOperand(Mat X, PetscBool *ok)
{
  PetscBool seq;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)X, MATSEQAIJ, &seq));
  if (!seq || X->factortype != MAT_FACTOR_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvDeviceCSRUsable(X, ok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CPU backend asked for this product (aijcusparse's options, which it reads again after us) */
static PetscErrorCode MatSpmvSpGEMMCPUAsked(Mat C, PetscBool *cpu)
{
  Mat_Product *p = C->product;
  const char  *prefix, *api = NULL;
  char         name[256];

  PetscFunctionBegin;
  *cpu = PETSC_FALSE;
  PetscCall(MatGetOptionsPrefix(C, &prefix));
  if (p->api_user) {
    switch (p->type) {
    case MATPRODUCT_AB:
      api = "matmatmult";
      break;
    case MATPRODUCT_AtB:
      api = "mattransposematmult";
      break;
    case MATPRODUCT_ABt:
      api = "matmattransposemult";
      break;
    case MATPRODUCT_PtAP:
      api = "matptap";
      break;
    case MATPRODUCT_RARt:
      api = "matrart";
      break;
    default:
      break;
    }
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s_backend_cpu", prefix ? prefix : "", api ? api : "mat_product_algorithm"));
  PetscCall(PetscOptionsGetBool(((PetscObject)C)->options, NULL, name, cpu, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Our SpGEMM takes C's product (*taken; its symbolic phase then set) where: -petscspmv_spgemm, a GPU,
   A B, A^T B, A B^T, P^T A P or R A R^T of two sequential sparse matrices whose CSR aijcusparse keeps on
   the device (int indices), PETSc's default algorithm and no CPU backend asked for */
static PetscErrorCode MatSpmvSpGEMMSetFromOptions(Mat C, PetscBool *taken)
{
  Mat_Product *p = C->product;
  PetscBool    ok[2], def, cpu;
  const char  *why = NULL;

  PetscFunctionBegin;
  *taken = PETSC_FALSE;
  if (!MatSpmvSpGEMMUse || !p) PetscFunctionReturn(PETSC_SUCCESS);
  switch (p->type) {
  case MATPRODUCT_AB:
  case MATPRODUCT_AtB:
  case MATPRODUCT_ABt:
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
    break;
  default:
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvSpGEMMOperand(p->A, &ok[0]));
  PetscCall(MatSpmvSpGEMMOperand(p->B, &ok[1]));
  if (!ok[0] || !ok[1]) PetscFunctionReturn(PETSC_SUCCESS); /* not sparse on the device: not ours to say */
  PetscCall(PetscStrcmp(p->alg, MATPRODUCTALGORITHMDEFAULT, &def));
  PetscCall(MatSpmvSpGEMMCPUAsked(C, &cpu));
#if !defined(PETSC_HAVE_CUDA)
  why = "a build without CUDA";
#endif
  if (!def) why = "an algorithm other than the default";
  else if (cpu) why = "the CPU backend asked for";
  if (why) {
    PetscCall(PetscInfo(C, "%s of device matrices left to aijcusparse's choice: %s\n", MatProductTypes[p->type], why));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(PETSC_HAVE_CUDA)
  C->ops->productsymbolic = MatProductSymbolic_SpmvSpGEMM;
  *taken                  = PETSC_TRUE;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

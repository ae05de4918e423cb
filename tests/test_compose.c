static char help[] = "Matrix-matrix products with a petscspmv matrix, against MATAIJ: every product type, every kind of\n"
                     "second operand, first products and products reused after a change of values.\n"
                     "  -type <brc>    petscspmv type of A\n"
                     "  -other <ellr>  another petscspmv type, for mixed products\n"
                     "  -gpu <0>       1: the GPU is used (aijcusparse and densecuda operands, results of A's type)\n"
                     "  -n <12>        grid points per direction of A's grid (A has 2 n^2 rows: two fields per point)\n"
                     "  -operand_products <1>  0: only the products after each change of values (as aijcusparse's own defects are shown)\n";

#include <petscspmv.h>
#include "check.h"

typedef enum {
  OPERAND_SAME,        /* A's type */
  OPERAND_OTHER,       /* another of our types */
  OPERAND_AIJCUSPARSE, /* GPU only */
  OPERAND_AIJ,         /* host AIJ */
  OPERAND_MAIJ,        /* a scalar interpolation applied to two fields, as PCMG's on a DMDA */
  OPERAND_DENSE,
  OPERAND_DENSECUDA, /* GPU only */
  OPERAND_KINDS
} OperandKind;
static const char *const    OperandNames[] = {"same type", "other type", "aijcusparse", "host aij", "maij", "dense", "densecuda"};
static const MatProductType ProductTypes[] = {MATPRODUCT_AB, MATPRODUCT_AtB, MATPRODUCT_ABt, MATPRODUCT_PtAP, MATPRODUCT_RARt, MATPRODUCT_ABC};

/* entry (i, j) of a deterministic sparse pattern: about 4 entries per row, values in [0.5, 1.5) */
static PetscErrorCode FillSparse(Mat B, PetscInt seed)
{
  PetscInt rstart, rend, N;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(B, &rstart, &rend));
  PetscCall(MatGetSize(B, NULL, &N));
  for (PetscInt i = rstart; i < rend; i++) {
    for (PetscInt k = 0; k < 4; k++) {
      PetscInt    j = (i * (3 + seed) + k * (7 + 2 * seed) + seed * k * k) % N;
      PetscScalar v = 0.5 + (PetscReal)((i * 13 + j * 7 + seed) % 17) / 17.0;
      PetscCall(MatSetValues(B, 1, &i, 1, &j, &v, ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator: a 2D 5-point stencil on two coupled fields (block size 2), diagonally dominant */
static PetscErrorCode FillOperator(Mat A, PetscInt n)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt    p = row / 2, f = row % 2, i = p / n, j = p % n, cols[7], nc = 0;
    PetscScalar v[7];

    cols[nc] = row, v[nc++] = 6.0 + 0.1 * (row % 3);
    cols[nc] = 2 * p + 1 - f, v[nc++] = -0.5;
    if (i > 0) cols[nc] = row - 2 * n, v[nc++] = -1.0;
    if (i < n - 1) cols[nc] = row + 2 * n, v[nc++] = -1.1;
    if (j > 0) cols[nc] = row - 2, v[nc++] = -0.9;
    if (j < n - 1) cols[nc] = row + 2, v[nc++] = -1.2;
    PetscCall(MatSetValues(A, 1, &row, nc, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateSparse(MatType type, PetscInt M, PetscInt N, PetscInt seed, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, B));
  PetscCall(MatSetSizes(*B, PETSC_DECIDE, PETSC_DECIDE, M, N));
  PetscCall(MatSetType(*B, type));
  PetscCall(MatSeqAIJSetPreallocation(*B, 8, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*B, 8, NULL, 8, NULL));
  PetscCall(MatSetOption(*B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(FillSparse(*B, seed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateDense(MatType type, PetscInt M, PetscInt N, PetscInt seed, Mat *B)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreateDense(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, M, N, NULL, B));
  PetscCall(MatGetOwnershipRange(*B, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++)
    for (PetscInt j = 0; j < N; j++) {
      PetscScalar v = (PetscReal)((i * 5 + j * 3 + seed) % 11) / 11.0 - 0.3;
      PetscCall(MatSetValues(*B, 1, &i, 1, &j, &v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(*B, type, MAT_INPLACE_MATRIX, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An operand of kind and global size M x N, and its reference (MATAIJ, or MATDENSE) */
static PetscErrorCode CreateOperand(OperandKind kind, const char *type, const char *other, PetscInt M, PetscInt N, PetscInt seed, Mat *B, Mat *Bref)
{
  PetscFunctionBegin;
  switch (kind) {
  case OPERAND_MAIJ: { /* fields interleaved: the scalar (M/2 x N/2) operator applied to each */
    Mat S, Sref;

    PetscCall(CreateSparse(MATAIJ, M / 2, N / 2, seed, &S));
    PetscCall(CreateSparse(MATAIJ, M / 2, N / 2, seed, &Sref));
    PetscCall(MatCreateMAIJ(S, 2, B));
    PetscCall(MatCreateMAIJ(Sref, 2, &S));
    PetscCall(MatConvert(S, MATAIJ, MAT_INITIAL_MATRIX, Bref));
    PetscCall(MatDestroy(&S));
    PetscCall(MatDestroy(&Sref));
  } break;
  case OPERAND_DENSE:
  case OPERAND_DENSECUDA:
    PetscCall(CreateDense(kind == OPERAND_DENSE ? MATDENSE : MATDENSECUDA, M, N, seed, B));
    PetscCall(CreateDense(MATDENSE, M, N, seed, Bref));
    break;
  default:
    PetscCall(CreateSparse(kind == OPERAND_SAME ? type : (kind == OPERAND_OTHER ? other : (kind == OPERAND_AIJCUSPARSE ? MATAIJCUSPARSE : MATAIJ)), M, N, seed, B));
    PetscCall(CreateSparse(MATAIJ, M, N, seed, Bref));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the product through the user API (the one GAMG and PCMG call), first or reused */
static PetscErrorCode Product(MatProductType ptype, Mat A, Mat B, Mat C, MatReuse reuse, Mat *D)
{
  PetscFunctionBegin;
  switch (ptype) {
  case MATPRODUCT_AB:
    PetscCall(MatMatMult(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatTransposeMatMult(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatMatTransposeMult(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatPtAP(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatRARt(A, B, reuse, PETSC_DETERMINE, D));
    break;
  case MATPRODUCT_ABC:
    PetscCall(MatMatMatMult(A, B, C, reuse, PETSC_DETERMINE, D));
    break;
  default:
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_SUP, "No such product");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D x, D^T x, D x + z and D^T x + z (the result not z, poisoned first) against Dref's, relative to
   |Dref| (|x| + |z|) (products of products: a looser bound than one product's), with D's own vectors
   and with host ones (MATAIJ's): aijcusparse results get host vectors and D^T x + z wrong unless
   wrapped (docs/limits.md) */
static PetscErrorCode CheckResult(Mat D, Mat Dref, PetscRandom rnd, const char *what)
{
  static const char *const ops[] = {"D x", "D^T x", "D x + z", "D^T x + z"};

  PetscFunctionBegin;
  for (int k = 0; k < 8; k++) {
    const int t = k % 2, add = (k / 2) % 2, host = k / 4;
    Vec       x, y, z, xr, yr, zr;
    PetscReal err, scale, xn, zn = 0;

    PetscCall(MatCreateVecs(host ? Dref : D, t ? &y : &x, t ? &x : &y));
    PetscCall(MatCreateVecs(Dref, t ? &yr : &xr, t ? &xr : &yr));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(VecDuplicate(yr, &zr));
    PetscCall(VecSetRandom(xr, rnd));
    PetscCall(VecSetRandom(zr, rnd));
    PetscCall(VecCopy(xr, x));
    PetscCall(VecCopy(zr, z));
    PetscCall(Poison(y));
    if (add) {
      PetscCall((t ? MatMultTransposeAdd : MatMultAdd)(D, x, z, y));
      PetscCall((t ? MatMultTransposeAdd : MatMultAdd)(Dref, xr, zr, yr));
      PetscCall(VecNorm(zr, NORM_INFINITY, &zn));
    } else {
      PetscCall((t ? MatMultTranspose : MatMult)(D, x, y));
      PetscCall((t ? MatMultTranspose : MatMult)(Dref, xr, yr));
    }
    PetscCall(MatNorm(Dref, t ? NORM_1 : NORM_INFINITY, &scale));
    PetscCall(VecNorm(xr, NORM_INFINITY, &xn));
    PetscCall(VecAXPY(yr, -1.0, y));
    PetscCall(VecNorm(yr, NORM_INFINITY, &err));
    /* written so that NaN fails */
    PetscCheck(err <= 1e3 * PETSC_MACHINE_EPSILON * (scale * xn + zn), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s%s differs from MATAIJ's by %g (|D| |x| + |z| = %g)", what, ops[2 * add + t], host ? " with host vectors" : "", (double)err, (double)(scale * xn + zn));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&xr));
    PetscCall(VecDestroy(&yr));
    PetscCall(VecDestroy(&zr));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether D is a petscspmv matrix (the test also runs with -type aij, PETSc alone, for reference) */
static PetscBool IsSpmv(Mat D)
{
  void (*f)(void) = NULL;

  (void)PetscObjectQueryFunction((PetscObject)D, "MatSpmvGetParams_C", &f);
  return (PetscBool)(f != NULL);
}

/* the products PETSc implements for a second operand of this kind */
static PetscBool Supported(MatProductType ptype, OperandKind kind, PetscBool gpu, PetscMPIInt size)
{
  /* PETSc 3.25's MPIAIJ A B^T fails when reused (MATAIJ alike: MatGetBrowsOfAoCols() sizes) */
  if (ptype == MATPRODUCT_ABt && size > 1) return PETSC_FALSE;
  if ((kind == OPERAND_AIJCUSPARSE || kind == OPERAND_DENSECUDA) && !gpu) return PETSC_FALSE;
  if (kind == OPERAND_MAIJ) return (PetscBool)(ptype == MATPRODUCT_PtAP);
  if (kind == OPERAND_DENSE || kind == OPERAND_DENSECUDA) return (PetscBool)(ptype == MATPRODUCT_AB || ptype == MATPRODUCT_AtB);
  return PETSC_TRUE;
}

/* A product's operands and their MATAIJ (MATDENSE) references: A, the 2D operator (N x N) of type,
   B of kind, and C for ABC; D, Dref the results */
typedef struct {
  Mat A, Aref, B, Bref, C, Cref, D, Dref;
} Operands;

/* no operands but A (the operator, of type) and its reference */
static PetscErrorCode OperandsCreateA(const char *type, PetscInt n, PetscInt N, Operands *o)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  PetscCall(CreateSparse(type, N, N, 0, &o->A));
  PetscCall(MatZeroEntries(o->A));
  PetscCall(FillOperator(o->A, n));
  PetscCall(CreateSparse(MATAIJ, N, N, 0, &o->Aref));
  PetscCall(MatZeroEntries(o->Aref));
  PetscCall(FillOperator(o->Aref, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OperandsCreate(MatProductType ptype, OperandKind kind, const char *type, const char *other, PetscInt n, PetscInt N, PetscInt K, Operands *o)
{
  /* B's shape: N x K for AB, AtB, PtAP; K x N for ABt, RARt; N x N for ABC (then C is N x K) */
  const PetscInt bm = (ptype == MATPRODUCT_ABt || ptype == MATPRODUCT_RARt) ? K : N;
  const PetscInt bn = (ptype == MATPRODUCT_ABt || ptype == MATPRODUCT_RARt || ptype == MATPRODUCT_ABC) ? N : K;

  PetscFunctionBegin;
  PetscCall(OperandsCreateA(type, n, N, o));
  PetscCall(CreateOperand(kind, type, other, bm, bn, 1, &o->B, &o->Bref));
  if (ptype == MATPRODUCT_ABC) PetscCall(CreateOperand(kind, type, other, N, K, 2, &o->C, &o->Cref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OperandsDestroy(Operands *o)
{
  Mat *all[] = {&o->A, &o->Aref, &o->B, &o->Bref, &o->C, &o->Cref, &o->D, &o->Dref};

  PetscFunctionBegin;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(all); k++) PetscCall(MatDestroy(all[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* our operands' own products after they took part in a product (GAMG and PCMG multiply with P after
   the Galerkin product), checked like a result */
static PetscErrorCode CheckOperands(Operands *o, PetscRandom rnd, const char *what)
{
  Mat  ops[] = {o->A, o->B, o->C}, refs[] = {o->Aref, o->Bref, o->Cref};
  char which[300];

  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    if (!ops[k] || !IsSpmv(ops[k])) continue;
    PetscCall(PetscSNPrintf(which, sizeof(which), "%s: operand %c after the product", what, "ABC"[k]));
    PetscCall(CheckResult(ops[k], refs[k], rnd, which));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the product of kind ptype, first or reused, of A's operands and of the references */
static PetscErrorCode ProductBoth(MatProductType ptype, MatReuse reuse, Operands *o)
{
  PetscFunctionBegin;
  PetscCall(Product(ptype, o->A, o->B, o->C, reuse, &o->D));
  PetscCall(Product(ptype, o->Aref, o->Bref, o->Cref, reuse, &o->Dref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GAMG's tentative prolongator: P (N x K) of A's type made as agg.c makes it (its
   type from A, bound to the CPU and released before preallocation, one entry per row: the row's
   aggregate), then the Galerkin product P^T A P; P's own products after it (restriction and
   interpolation) and the coarse operator against MATAIJ's */
static PetscErrorCode CheckTentativeProlongator(const char *type, PetscInt n, PetscInt N, PetscInt K, PetscRandom rnd, PetscInt *tested)
{
  Operands o; /* B: P, D: P^T A P */
  PetscInt rstart, rend;
  char     what[128];

  PetscFunctionBegin;
  PetscCall(OperandsCreateA(type, n, N, &o));
  for (int k = 0; k < 2; k++) {
    Mat *P = k ? &o.Bref : &o.B;

    PetscCall(MatCreate(PETSC_COMM_WORLD, P));
    PetscCall(MatSetSizes(*P, PETSC_DECIDE, PETSC_DECIDE, N, K));
    PetscCall(MatSetType(*P, k ? MATAIJ : type));
    PetscCall(MatBindToCPU(*P, PETSC_FALSE));
    PetscCall(MatSeqAIJSetPreallocation(*P, 1, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*P, 1, NULL, 1, NULL));
    PetscCall(MatGetOwnershipRange(*P, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt    j = (i * K) / N;
      PetscScalar v = 1.0 / PetscSqrtReal((PetscReal)(N / K)) + 0.01 * (PetscReal)(i % 5);

      PetscCall(MatSetValues(*P, 1, &i, 1, &j, &v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(ProductBoth(MATPRODUCT_PtAP, MAT_INITIAL_MATRIX, &o));
  PetscCall(PetscSNPrintf(what, sizeof(what), "GAMG's tentative prolongator of type %s", type));
  PetscCall(CheckResult(o.B, o.Bref, rnd, what));
  PetscCall(PetscSNPrintf(what, sizeof(what), "the Galerkin product with GAMG's tentative prolongator of type %s", type));
  PetscCall(CheckResult(o.D, o.Dref, rnd, what));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s, and the prolongator's own products after it\n", what));
  (*tested)++;
  PetscCall(OperandsDestroy(&o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* aijcusparse's reused A^T B and A B^T read the explicit transpose the first product formed, never
   refreshed (PETSc 3.25): ours refresh it, aijcusparse's own (-type aijcusparse) do not; with a host
   AIJ or dense operand the product is AIJ's */
static PetscBool StaleTransposeReused(PetscBool gpu, Mat A, MatProductType ptype, OperandKind kind)
{
  return (PetscBool)(gpu && !IsSpmv(A) && (ptype == MATPRODUCT_AtB || ptype == MATPRODUCT_ABt) && kind != OPERAND_AIJ && kind != OPERAND_DENSE && kind != OPERAND_DENSECUDA);
}

/* The changes of values a user makes between products, each on the device when A is there: A's
   values become a function of the old ones, the pattern stays */
typedef enum {
  CHANGE_SCALE,
  CHANGE_SHIFT,
  CHANGE_AXPY,
  CHANGE_DIAGONALSCALE,
  CHANGE_COO,
  CHANGE_KINDS
} ChangeKind;
static const char *const ChangeNames[] = {"MatScale", "MatShift", "MatAXPY", "MatDiagonalScale", "MatSetValuesCOO"};

/* A's entries, as COO triples on this process (the rows it owns); PetscFree3 */
static PetscErrorCode GetCOO(Mat A, PetscCount *ncoo, PetscInt **ci, PetscInt **cj, PetscScalar **cv)
{
  PetscInt rstart, rend, k = 0, nz = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt ncols;

    PetscCall(MatGetRow(A, i, &ncols, NULL, NULL));
    nz += ncols;
    PetscCall(MatRestoreRow(A, i, &ncols, NULL, NULL));
  }
  PetscCall(PetscMalloc3(nz, ci, nz, cj, nz, cv));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           ncols;

    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    for (PetscInt q = 0; q < ncols; q++, k++) {
      (*ci)[k] = i;
      (*cj)[k] = cols[q];
      (*cv)[k] = vals[q];
    }
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
  }
  *ncoo = nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's values changed by one of the changes; the same call on A and on its MATAIJ reference gives the same matrix */
static PetscErrorCode ChangeValues(Mat A, ChangeKind change)
{
  PetscFunctionBegin;
  switch (change) {
  case CHANGE_SCALE:
    PetscCall(MatScale(A, 1.5));
    break;
  case CHANGE_SHIFT:
    PetscCall(MatShift(A, 0.75));
    break;
  case CHANGE_AXPY: {
    Mat X;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &X));
    PetscCall(MatScale(X, 0.25));
    PetscCall(MatAXPY(A, 2.0, X, SAME_NONZERO_PATTERN)); /* A = 1.5 A */
    PetscCall(MatDestroy(&X));
  } break;
  case CHANGE_DIAGONALSCALE: {
    Vec      l, r;
    PetscInt lo, hi;

    PetscCall(MatCreateVecs(A, &r, &l));
    PetscCall(VecGetOwnershipRange(l, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
      PetscCall(VecSetValue(l, i, 1.0 + 0.01 * (PetscReal)(i % 5), INSERT_VALUES));
      PetscCall(VecSetValue(r, i, 2.0 - 0.02 * (PetscReal)(i % 3), INSERT_VALUES));
    }
    PetscCall(VecAssemblyBegin(l));
    PetscCall(VecAssemblyEnd(l));
    PetscCall(VecAssemblyBegin(r));
    PetscCall(VecAssemblyEnd(r));
    PetscCall(MatDiagonalScale(A, l, r));
    PetscCall(VecDestroy(&l));
    PetscCall(VecDestroy(&r));
  } break;
  case CHANGE_COO: { /* the entries doubled through COO (A was preallocated for it: SetUpCOO()): MatSetValuesCOO() writes device values */
    PetscCount   ncoo = 0;
    PetscInt    *ci, *cj;
    PetscScalar *cv;

    PetscCall(GetCOO(A, &ncoo, &ci, &cj, &cv));
    for (PetscCount k = 0; k < ncoo; k++) cv[k] *= 2.0;
    PetscCall(MatSetValuesCOO(A, cv, INSERT_VALUES));
    PetscCall(PetscFree3(ci, cj, cv));
  } break;
  default:
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_SUP, "No such change");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A assembled again through COO with its own entries, once, as a COO user's matrix is: later changes
   of CHANGE_COO only set values */
static PetscErrorCode SetUpCOO(Mat A)
{
  PetscCount   ncoo = 0;
  PetscInt    *ci, *cj;
  PetscScalar *cv;

  PetscFunctionBegin;
  PetscCall(GetCOO(A, &ncoo, &ci, &cj, &cv));
  PetscCall(MatSetPreallocationCOO(A, ncoo, ci, cj));
  PetscCall(MatSetValuesCOO(A, cv, INSERT_VALUES));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's values on the device, as after the products of a solve (the change then runs there) */
static PetscErrorCode UseOnDevice(Mat A)
{
  Vec x, y;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CheckResult(), a failure counted and printed (all cases then run: which changes and products fail is the finding) */
static PetscErrorCode CheckCounted(Mat D, Mat Dref, PetscRandom rnd, const char *what, PetscInt *failed)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = CheckResult(D, Dref, rnd, what);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *msg = NULL;

    (void)PetscErrorMessage(ierr, NULL, &msg);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED %s: %s\n", what, msg ? msg : ""));
    (*failed)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every change of values, made after A was used on the device, before every product type's first
   product and again before its reuse: B of A's type, as GAMG's and PCMG's operands */
static PetscErrorCode CheckChangesBeforeProducts(const char *type, PetscInt n, PetscInt N, PetscInt K, PetscRandom rnd, PetscBool gpu, PetscMPIInt size, PetscInt *tested, PetscInt *failed)
{
  PetscFunctionBegin;
  for (int change = 0; change < CHANGE_KINDS; change++) {
    for (size_t p = 0; p < PETSC_STATIC_ARRAY_LENGTH(ProductTypes); p++) {
      const MatProductType ptype = ProductTypes[p];
      Operands             o;
      char                 what[256];

      if (!Supported(ptype, OPERAND_SAME, gpu, size)) continue;
      PetscCall(OperandsCreate(ptype, OPERAND_SAME, type, type, n, N, K, &o));
      if (change == CHANGE_COO) {
        PetscCall(SetUpCOO(o.A));
        PetscCall(SetUpCOO(o.Aref));
      }
      PetscCall(UseOnDevice(o.A));
      PetscCall(ChangeValues(o.A, (ChangeKind)change));
      PetscCall(ChangeValues(o.Aref, (ChangeKind)change));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s with A %s after %s on A", MatProductTypes[ptype], type, ChangeNames[change]));
      PetscCall(ProductBoth(ptype, MAT_INITIAL_MATRIX, &o));
      PetscCall(CheckCounted(o.D, o.Dref, rnd, what, failed));
      /* the same change again, then the product reused */
      if (!StaleTransposeReused(gpu, o.A, ptype, OPERAND_SAME)) {
        PetscCall(UseOnDevice(o.A));
        PetscCall(ChangeValues(o.A, (ChangeKind)change));
        PetscCall(ChangeValues(o.Aref, (ChangeKind)change));
        PetscCall(ProductBoth(ptype, MAT_REUSE_MATRIX, &o));
        PetscCall(PetscStrlcat(what, ", and reused after another", sizeof(what)));
        PetscCall(CheckCounted(o.D, o.Dref, rnd, what, failed));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "done %s\n", what));
      (*tested)++;
      PetscCall(OperandsDestroy(&o));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC, other[64] = MATELLR;
  PetscInt    n = 12, N, K, tested = 0, failed = 0;
  PetscRandom rnd;
  PetscBool   gpu = PETSC_FALSE, operands = PETSC_TRUE;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-other", other, sizeof(other), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  N = 2 * n * n;
  K = 2 * ((n * n) / 3); /* the coarse size of P (N x K): even, for the MAIJ operand */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu", &gpu, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  PetscCall(PetscOptionsGetBool(NULL, NULL, "-operand_products", &operands, NULL));
  for (size_t p = 0; p < PETSC_STATIC_ARRAY_LENGTH(ProductTypes) && operands; p++) {
    MatProductType ptype = ProductTypes[p];

    for (int kind = 0; kind < OPERAND_KINDS; kind++) {
      Operands  o;
      char      what[256];
      PetscBool ours, sparse;
      MatType   dtype, atype, now;

      if (!Supported(ptype, (OperandKind)kind, gpu, size)) continue;
      PetscCall(OperandsCreate(ptype, (OperandKind)kind, type, other, n, N, K, &o));
      PetscCall(MatGetType(o.A, &atype)); /* held across the products, as a caller may: it must stay valid */
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s with A %s, other operands %s", MatProductTypes[ptype], type, OperandNames[kind]));

      PetscCall(ProductBoth(ptype, MAT_INITIAL_MATRIX, &o));
      PetscCall(CheckResult(o.D, o.Dref, rnd, what));
      PetscCall(CheckOperands(&o, rnd, what));
      /* a product with the MAIJ interpolation converted to A's type gives A's type (PCMG's next level
         needs one of ours to convert its MAIJ); other results stay aijcusparse's, measured faster */
      PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)o.D, &sparse, MATSEQAIJ, MATMPIAIJ, ""));
      PetscCall(PetscObjectTypeCompare((PetscObject)o.D, atype, &ours));
      PetscCall(MatGetType(o.D, &dtype));
      if (gpu && sparse && kind == OPERAND_MAIJ) PetscCheck(ours, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the result has type %s, not A's %s", what, dtype, atype);
      if (ours && IsSpmv(o.D)) PetscCall(MatSpmvCheckLayout(o.D));

      /* the values change, the pattern stays: the product is reused */
      PetscCall(MatScale(o.A, 1.5));
      PetscCall(MatScale(o.Aref, 1.5));
      PetscCall(MatShift(o.A, 0.25));
      PetscCall(MatShift(o.Aref, 0.25));
      if (kind != OPERAND_MAIJ) { /* the MAIJ operand became a matrix of A's type: scaled the same */
        PetscCall(MatScale(o.B, -0.5));
        PetscCall(MatScale(o.Bref, -0.5));
      }
      if (StaleTransposeReused(gpu, o.A, ptype, (OperandKind)kind)) {
        PetscCall(PetscStrlcat(what, " (not reused: aijcusparse's stale transpose)", sizeof(what)));
      } else {
        PetscCall(ProductBoth(ptype, MAT_REUSE_MATRIX, &o));
        PetscCall(PetscStrlcat(what, ", reused after a change of values", sizeof(what)));
        PetscCall(CheckResult(o.D, o.Dref, rnd, what));
        if (ours && IsSpmv(o.D)) PetscCall(MatSpmvCheckLayout(o.D));
      }
      PetscCall(MatGetType(o.A, &now));
      PetscCheck(now == atype, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: A's type name was reallocated by the products (a MatType held from MatGetType() would point to freed memory)", what);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s (result %s)\n", what, dtype));
      tested++;
      PetscCall(OperandsDestroy(&o));
    }
  }
  PetscCall(CheckTentativeProlongator(type, n, N, K, rnd, &tested));
  PetscCall(CheckChangesBeforeProducts(type, n, N, K, rnd, gpu, size, &tested, &failed));
  PetscCheck(!failed, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " products after changes of values differ from MATAIJ's (FAILED above)", failed);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " products passed for %s\n", tested, type));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}

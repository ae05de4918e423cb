static char help[] = "MATSOLVERSPMVFACTOR: ILU(k) and ICC(k) solves (k = 0, 1, 2; also MatMatSolve) of a matrix of -type (ours, aijcusparse or aij) match\n"
                     "PETSc's own (MATSOLVERPETSC on MATAIJ) on the shared matrices and generated ones (long chains,\n"
                     "diagonal-only rows, block sizes 1 to 8), again after the values change; zero pivots are\n"
                     "reported as factor errors and unsupported settings refused; solves approximated by block-Jacobi\n"
                     "sweeps (-petscspmv_factor_trsv jacobi) reach exactly as deep as their sweeps.\n"
                     "  -type <t> -dir <tests/matrices> -vec_type <seq|cuda>\n";

#include <petscspmv.h>
#include <dirent.h>
#include "matrixmarket.h" /* util/: MatLoadMatrixMarket() */

/* x = F \ b with b (any type) copied into a vector of vtype, x of vtype */
/* seconds since the program started, printed with each check: where a run's time goes (no limit is
   checked: speed is the benchmarks' business) */
static PetscLogDouble StartTime;

static double Elapsed(void)
{
  PetscLogDouble now;

  (void)PetscTime(&now);
  return (double)(now - StartTime);
}

static PetscErrorCode SolveInType(Mat F, Vec b, VecType vtype, PetscBool transpose, Vec *x)
{
  Vec      bt;
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(VecCreate(PETSC_COMM_SELF, x));
  PetscCall(VecSetSizes(*x, n, n));
  PetscCall(VecSetType(*x, vtype));
  PetscCall(VecDuplicate(*x, &bt));
  PetscCall(VecCopy(b, bt));
  if (transpose) PetscCall(MatSolveTranspose(F, bt, *x));
  else PetscCall(MatSolve(F, bt, *x));
  PetscCall(VecDestroy(&bt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = F \ b and x = F^T \ b (PCApplyTranspose: BiCG, CGNE, KSPLSQR) for PETSc's ILU(0) of Aref and
   ours of A (types converted from Aref): the same up to rounding, which grows with the length of
   the dependency chains: sqrt(eps) relative */
static PetscErrorCode CompareSolves(Mat Aref, Mat A, Mat Fref, Mat F, VecType vtype, const char *name, const char *when)
{
  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    Vec       b, x, xref;
    PetscReal err, ref;

    PetscCall(MatCreateVecs(Aref, &xref, &b));
    PetscCall(VecSetRandom(b, NULL));
    if (t) PetscCall(MatSolveTranspose(Fref, b, xref));
    else PetscCall(MatSolve(Fref, b, xref));
    PetscCall(SolveInType(F, b, vtype, (PetscBool)t, &x));
    PetscCall(VecAXPY(x, -1.0, xref)); /* VecAXPY copies across types */
    PetscCall(VecNorm(x, NORM_INFINITY, &err));
    PetscCall(VecNorm(xref, NORM_INFINITY, &ref));
    PetscCheck(err <= PetscSqrtReal(PETSC_MACHINE_EPSILON) * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (%s%s): |x - x_petsc| = %g, |x_petsc| = %g", name, when, t ? ", transpose solve" : "", (double)err, (double)ref);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok %s (%s%s): |x - x_petsc| / |x_petsc| = %.2e [%.1f s]\n", name, when, t ? ", transpose solve" : "", (double)(err / (ref > 0 ? ref : 1)), Elapsed()));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&xref));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X = F \ B and X = F^T \ B for 3 right-hand sides at once (MatMatSolve: PCMatApply of block Krylov
   methods), dense matrices of vtype's memory, against PETSc's solves of each column */
static PetscErrorCode CompareMatSolves(Mat Aref, Mat Fref, Mat F, VecType vtype, const char *name)
{
  PetscBool cuda;
  PetscInt  n;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(vtype, VECCUDA, &cuda));
  PetscCall(MatGetLocalSize(Aref, &n, NULL));
  for (int t = 0; t < 2; t++) {
    Mat       B, X;
    PetscReal worst = 0;

    PetscCall(MatCreateDense(PETSC_COMM_SELF, n, 3, n, 3, NULL, &B));
    PetscCall(MatSetRandom(B, NULL));
    if (cuda) PetscCall(MatConvert(B, MATDENSECUDA, MAT_INPLACE_MATRIX, &B));
    PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
    if (t) PetscCall(MatMatSolveTranspose(F, B, X));
    else PetscCall(MatMatSolve(F, B, X));
    for (PetscInt j = 0; j < 3; j++) {
      Vec       b, x, xref, diff;
      PetscReal err, ref;

      PetscCall(MatCreateVecs(Aref, &xref, &diff));
      PetscCall(MatDenseGetColumnVecRead(B, j, &b));
      PetscCall(VecCopy(b, diff)); /* as a host vector, for PETSc's solve */
      PetscCall(MatDenseRestoreColumnVecRead(B, j, &b));
      if (t) PetscCall(MatSolveTranspose(Fref, diff, xref));
      else PetscCall(MatSolve(Fref, diff, xref));
      PetscCall(MatDenseGetColumnVecRead(X, j, &x));
      PetscCall(VecCopy(x, diff));
      PetscCall(MatDenseRestoreColumnVecRead(X, j, &x));
      PetscCall(VecAXPY(diff, -1.0, xref));
      PetscCall(VecNorm(diff, NORM_INFINITY, &err));
      PetscCall(VecNorm(xref, NORM_INFINITY, &ref));
      PetscCheck(err <= PetscSqrtReal(PETSC_MACHINE_EPSILON) * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatMatSolve%s column %" PetscInt_FMT ": |x - x_petsc| = %g, |x_petsc| = %g", name, t ? "Transpose" : "", j, (double)err, (double)ref);
      worst = PetscMax(worst, err / (ref > 0 ? ref : 1));
      PetscCall(VecDestroy(&xref));
      PetscCall(VecDestroy(&diff));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok %s (MatMatSolve%s, 3 columns): |x - x_petsc| / |x_petsc| <= %.2e\n", name, t ? "Transpose" : "", (double)worst));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&X));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(k), or ICC(k) with PCICC's positive-definite shift or none; the factor's options prefix (or NULL) */
static PetscErrorCode FactorLevels(Mat A, MatSolverType solver, MatFactorType ftype, PetscInt levels, MatFactorShiftType shift, const char *prefix, Mat *F)
{
  MatFactorInfo info;
  IS            row, col;

  PetscFunctionBegin;
  PetscCall(MatFactorInfoInitialize(&info));
  info.fill      = 1.0;
  info.levels    = (PetscReal)levels;
  info.shifttype = (PetscReal)shift;
  PetscCall(MatGetOrdering(A, MATORDERINGNATURAL, &row, &col));
  PetscCall(MatGetFactor(A, solver, ftype, F));
  PetscCall(MatSetOptionsPrefix(*F, prefix));
  if (ftype == MAT_FACTOR_ICC) {
    PetscCall(MatICCFactorSymbolic(*F, A, row, &info));
    PetscCall(MatCholeskyFactorNumeric(*F, A, &info));
  } else {
    PetscCall(MatILUFactorSymbolic(*F, A, row, col, &info));
    PetscCall(MatLUFactorNumeric(*F, A, &info));
  }
  PetscCall(ISDestroy(&row));
  PetscCall(ISDestroy(&col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(0), ICC(0) */
static PetscErrorCode Factor(Mat A, MatSolverType solver, MatFactorType ftype, MatFactorShiftType shift, const char *prefix, Mat *F)
{
  PetscFunctionBegin;
  PetscCall(FactorLevels(A, solver, ftype, 0, shift, prefix, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours against PETSc's with k levels of fill, then both again after the values change (a new Newton step) */
static PetscErrorCode TestLevels(Mat Aref, MatType type, VecType vtype, MatFactorType ftype, PetscInt levels, MatFactorShiftType shift, const char *matname)
{
  Mat           A, F, Fref;
  MatFactorInfo info;
  MatSolverType solver;
  char          name[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s(%" PetscInt_FMT ")%s, %s", ftype == MAT_FACTOR_ICC ? "ICC" : "ILU", levels, shift == MAT_SHIFT_POSITIVE_DEFINITE ? " positive-definite shift" : "", matname));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(FactorLevels(Aref, MATSOLVERPETSC, ftype, levels, shift, NULL, &Fref));
  PetscCall(FactorLevels(A, MATSOLVERSPMVFACTOR, ftype, levels, shift, NULL, &F));
  PetscCall(MatFactorGetSolverType(F, &solver));
  PetscCheck(!strcmp(solver, MATSOLVERSPMVFACTOR), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: factored by %s", name, solver);
  PetscCall(CompareSolves(Aref, A, Fref, F, vtype, name, "first factorization"));
  PetscCall(CompareMatSolves(Aref, Fref, F, vtype, name));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels    = (PetscReal)levels;
  info.shifttype = (PetscReal)shift;
  for (int k = 0; k < 2; k++) {
    Mat M = k ? A : Aref;

    PetscCall(MatScale(M, 0.5));
    PetscCall(MatShift(M, 3.0));
    if (ftype == MAT_FACTOR_ICC) PetscCall(MatCholeskyFactorNumeric(k ? F : Fref, M, &info));
    else PetscCall(MatLUFactorNumeric(k ? F : Fref, M, &info));
  }
  PetscCall(CompareSolves(Aref, A, Fref, F, vtype, name, "values changed, factored again"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Fref));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuSPARSE's ILU(k) of our types (-pc_factor_mat_solver_type cusparse, or where the default package
   hands over): solves and transpose solves against PETSc's, also after the values change and the
   factor is factored again (aijcusparse's own ILU(0) keeps its first transpose analysis there) */
static PetscErrorCode TestCUSPARSE(Mat Aref, MatType type, VecType vtype, PetscInt levels, const char *matname)
{
  Mat           A, F, Fref;
  MatFactorInfo info;
  PetscBool     available;
  char          name[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "cusparse's ILU(%" PetscInt_FMT ") of %s, %s", levels, type, matname));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatGetFactorAvailable(A, MATSOLVERCUSPARSE, MAT_FACTOR_ILU, &available));
  if (!available) { /* no GPU: cuSPARSE's package is not there */
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FactorLevels(Aref, MATSOLVERPETSC, MAT_FACTOR_ILU, levels, MAT_SHIFT_NONE, NULL, &Fref));
  PetscCall(FactorLevels(A, MATSOLVERCUSPARSE, MAT_FACTOR_ILU, levels, MAT_SHIFT_NONE, NULL, &F));
  PetscCall(CompareSolves(Aref, A, Fref, F, vtype, name, "first factorization"));
  PetscCall(MatFactorInfoInitialize(&info));
  info.levels = (PetscReal)levels;
  for (int round = 0; round < 2; round++) {
    for (int k = 0; k < 2; k++) {
      Mat M = k ? A : Aref;

      PetscCall(MatScale(M, 0.5));
      PetscCall(MatShift(M, 3.0));
      PetscCall(MatLUFactorNumeric(k ? F : Fref, M, &info));
    }
    PetscCall(CompareSolves(Aref, A, Fref, F, vtype, name, round ? "values changed twice" : "values changed, factored again"));
  }
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Fref));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestOne(Mat Aref, MatType type, VecType vtype, MatFactorType ftype, MatFactorShiftType shift, const char *matname)
{
  PetscFunctionBegin;
  PetscCall(TestLevels(Aref, type, vtype, ftype, 0, shift, matname));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MaxRowLength(Mat A, PetscInt *longest)
{
  PetscInt m;

  PetscFunctionBegin;
  *longest = 0;
  PetscCall(MatGetSize(A, &m, NULL));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt ncols;

    PetscCall(MatGetRow(A, i, &ncols, NULL, NULL));
    *longest = PetscMax(*longest, ncols);
    PetscCall(MatRestoreRow(A, i, &ncols, NULL, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A + (row sum of |A| + 1) I: every diagonal entry present and strictly dominant (ILU(0) pivots stay
   away from zero), block size bs */
static PetscErrorCode DiagonallyDominant(Mat A, PetscInt bs, Mat *B)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 0, NULL, B));
  {
    PetscInt *nnz;

    PetscCall(PetscMalloc1(n, &nnz));
    for (PetscInt i = 0; i < n; i++) {
      PetscInt ncols;

      PetscCall(MatGetRow(A, i, &ncols, NULL, NULL));
      nnz[i] = PetscMin(ncols + 1, n);
      PetscCall(MatRestoreRow(A, i, &ncols, NULL, NULL));
    }
    PetscCall(MatSeqAIJSetPreallocation(*B, 0, nnz));
    PetscCall(PetscFree(nnz));
  }
  PetscCall(MatSetBlockSize(*B, bs));
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           ncols;
    PetscScalar        d = 1.0;

    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++) d += PetscAbsScalar(vals[k]);
    PetscCall(MatSetValues(*B, 1, &i, ncols, cols, vals, ADD_VALUES));
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
    PetscCall(MatSetValue(*B, i, i, d, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a 2D grid of m x m points with bs unknowns each, coupled fully within a point and to the four
   neighbours' same unknowns (ex19's pattern for bs = 4) */
static PetscErrorCode GridMatrix(PetscInt m, PetscInt bs, Mat *A)
{
  const PetscInt n = m * m * bs;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, bs + 4, NULL, A));
  PetscCall(MatSetBlockSize(*A, bs));
  for (PetscInt p = 0; p < m * m; p++) {
    const PetscInt px = p % m, py = p / m, nb[4] = {px > 0 ? p - 1 : -1, px < m - 1 ? p + 1 : -1, py > 0 ? p - m : -1, py < m - 1 ? p + m : -1};

    for (PetscInt c = 0; c < bs; c++) {
      const PetscInt row = p * bs + c;

      for (PetscInt d = 0; d < bs; d++) PetscCall(MatSetValue(*A, row, p * bs + d, c == d ? 4.0 + bs : -0.3 - 0.1 * d, INSERT_VALUES));
      for (int k = 0; k < 4; k++)
        if (nb[k] >= 0) PetscCall(MatSetValue(*A, row, nb[k] * bs + c, -1.0 + 0.05 * k, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lower bidiagonal plus diagonal-only rows every `every` rows (rows with nothing to wait for) */
static PetscErrorCode ChainMatrix(PetscInt n, PetscInt every, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 2, NULL, A));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(MatSetValue(*A, i, i, 2.0 + (i % 3) * 0.25, INSERT_VALUES));
    if (i > 0 && (every == 0 || i % every)) PetscCall(MatSetValue(*A, i, i - 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an arrow: diagonal, first row and column full (ICC's upper triangle) and last row and column
   full (ILU's L): rows far longer than the GPU factorization holds in shared memory */
static PetscErrorCode ArrowMatrix(PetscInt n, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 4, NULL, A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 4, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(MatSetValue(*A, i, i, 4.0 * n, INSERT_VALUES));
    if (i) {
      PetscCall(MatSetValue(*A, 0, i, -1.0 - 0.001 * i, INSERT_VALUES));
      PetscCall(MatSetValue(*A, i, 0, -1.0 - 0.001 * i, INSERT_VALUES));
    }
    if (i < n - 1) {
      PetscCall(MatSetValue(*A, n - 1, i, 0.5 + 0.002 * i, INSERT_VALUES));
      PetscCall(MatSetValue(*A, i, n - 1, 0.5 + 0.002 * i, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -petscspmv_factor_trsv jacobi with as many sweeps as rows (at least the levels of units): PETSc's exact
   solve; with 2 sweeps: the same approximation as MATSOLVERSPMVFACTOR's host reference on MATAIJ (on the
   GPU, device sweeps against host ones) */
static PetscErrorCode TestJacobi(Mat Aref, MatType type, VecType vtype, MatFactorType ftype, const char *matname)
{
  Mat      A, F, Fref;
  PetscInt n;
  char     name[PETSC_MAX_PATH_LEN], sweeps[32];

  PetscFunctionBegin;
  PetscCall(MatGetSize(Aref, &n, NULL));
  PetscCall(PetscSNPrintf(sweeps, sizeof(sweeps), "%" PetscInt_FMT, n));
  PetscCall(PetscOptionsSetValue(NULL, "-jacx_petscspmv_factor_trsv", "jacobi"));
  PetscCall(PetscOptionsSetValue(NULL, "-jacx_petscspmv_factor_trsv_sweeps", sweeps));
  PetscCall(PetscOptionsSetValue(NULL, "-jac2_petscspmv_factor_trsv", "jacobi"));
  PetscCall(PetscOptionsSetValue(NULL, "-jac2_petscspmv_factor_trsv_sweeps", "2"));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(Factor(Aref, MATSOLVERPETSC, ftype, MAT_SHIFT_NONE, NULL, &Fref));
  PetscCall(Factor(A, MATSOLVERSPMVFACTOR, ftype, MAT_SHIFT_NONE, "jacx_", &F));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s(0) by %s block-Jacobi sweeps, %s", ftype == MAT_FACTOR_ICC ? "ICC" : "ILU", sweeps, matname));
  PetscCall(CompareSolves(Aref, A, Fref, F, vtype, name, "against PETSc's exact solve"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Fref));
  PetscCall(Factor(Aref, MATSOLVERSPMVFACTOR, ftype, MAT_SHIFT_NONE, "jac2_", &Fref));
  PetscCall(Factor(A, MATSOLVERSPMVFACTOR, ftype, MAT_SHIFT_NONE, "jac2_", &F));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s(0) by 2 block-Jacobi sweeps, %s", ftype == MAT_FACTOR_ICC ? "ICC" : "ILU", matname));
  PetscCall(CompareSolves(Aref, A, Fref, F, vtype, name, "against the host reference on aij"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Fref));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What s sweeps reach: on a lower bidiagonal chain in units of u rows (U is diagonal), the initial
   block-diagonal solve and s sweeps give the exact x on the first (s + 1) u rows and not on the row
   after them */
static PetscErrorCode TestJacobiDepth(MatType type, VecType vtype)
{
  Mat Aref, A, F, Fref;

  PetscFunctionBegin;
  PetscCall(ChainMatrix(1000, 0, &Aref));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(Factor(Aref, MATSOLVERPETSC, MAT_FACTOR_ILU, MAT_SHIFT_NONE, NULL, &Fref));
  for (PetscInt u = 1; u <= 3; u += 2)
    for (PetscInt s = 0; s <= 5; s += 5) {
      char               val[32];
      Vec                b, x, xref;
      const PetscScalar *xv, *rv;
      PetscReal          ref;
      const PetscInt     depth = (s + 1) * u;

      PetscCall(PetscOptionsSetValue(NULL, "-jacd_petscspmv_factor_trsv", "jacobi"));
      PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, s));
      PetscCall(PetscOptionsSetValue(NULL, "-jacd_petscspmv_factor_trsv_sweeps", val));
      PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, u));
      PetscCall(PetscOptionsSetValue(NULL, "-jacd_petscspmv_factor_trsv_unit", val));
      PetscCall(Factor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "jacd_", &F));
      PetscCall(MatCreateVecs(Aref, &xref, &b));
      PetscCall(VecSetRandom(b, NULL));
      PetscCall(MatSolve(Fref, b, xref));
      PetscCall(SolveInType(F, b, vtype, PETSC_FALSE, &x));
      PetscCall(VecNorm(xref, NORM_INFINITY, &ref));
      PetscCall(VecGetArrayRead(x, &xv));
      PetscCall(VecGetArrayRead(xref, &rv));
      for (PetscInt r = 0; r < depth; r++)
        PetscCheck(PetscAbsScalar(xv[r] - rv[r]) <= 100 * PETSC_MACHINE_EPSILON * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "units of %" PetscInt_FMT ", %" PetscInt_FMT " sweeps: row %" PetscInt_FMT " not exact (%g, PETSc %g)", u, s, r, (double)PetscRealPart(xv[r]), (double)PetscRealPart(rv[r]));
      PetscCheck(PetscAbsScalar(xv[depth] - rv[depth]) > PetscSqrtReal(PETSC_MACHINE_EPSILON) * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "units of %" PetscInt_FMT ", %" PetscInt_FMT " sweeps: row %" PetscInt_FMT " exact, beyond the sweeps' reach", u, s, depth);
      PetscCall(VecRestoreArrayRead(x, &xv));
      PetscCall(VecRestoreArrayRead(xref, &rv));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok units of %" PetscInt_FMT " rows, %" PetscInt_FMT " block-Jacobi sweeps: the first %" PetscInt_FMT " rows of a chain exact, row %" PetscInt_FMT " not\n", u, s, depth, depth));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&xref));
      PetscCall(MatDestroy(&F));
    }
  PetscCall(MatDestroy(&Fref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -petscspmv_factor_trsv isai: on a lower bidiagonal chain (U diagonal) M_L's row i is e_i - l_i e_{i-1}, so
   x_i = (b_i + b_{i-1} / a_{i-1,i-1}) / a_ii exactly; on dense diagonal blocks the approximate
   inverses are the blocks' exact ones (PETSc's solve); on a grid the device's equal the host's;
   ICC is refused (not symmetric) */
static PetscErrorCode TestISAI(MatType type, VecType vtype)
{
  Mat                Aref, A, F, Fref;
  Vec                b, x;
  const PetscScalar *bv, *xv;
  PetscReal          err = 0, ref = 0;
  PetscErrorCode     ierr;
  MatFactorInfo      info;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-isai_petscspmv_factor_trsv", "isai"));
  PetscCall(ChainMatrix(1000, 0, &Aref));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(Factor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "isai_", &F));
  PetscCall(MatCreateVecs(Aref, NULL, &b));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(SolveInType(F, b, vtype, PETSC_FALSE, &x));
  PetscCall(VecGetArrayRead(b, &bv));
  PetscCall(VecGetArrayRead(x, &xv));
  for (PetscInt i = 0; i < 1000; i++) {
    const PetscReal   d = 2.0 + (i % 3) * 0.25, dprev = 2.0 + ((i + 2) % 3) * 0.25;
    const PetscScalar want = (bv[i] + (i ? bv[i - 1] / dprev : 0.0)) / d;

    err = PetscMax(err, PetscAbsScalar(xv[i] - want));
    ref = PetscMax(ref, PetscAbsScalar(want));
  }
  PetscCall(VecRestoreArrayRead(b, &bv));
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCheck(err <= 100 * PETSC_MACHINE_EPSILON * ref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ISAI on a chain: |x - x_expected| = %g, |x_expected| = %g", (double)err, (double)ref);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok ISAI on a bidiagonal chain: x = M_U M_L b as derived by hand, |x - x_expected| / |x_expected| = %.2e\n", (double)(err / ref)));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));

  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 300, 300, 5, NULL, &Aref)); /* 60 dense 5 x 5 blocks */
  for (PetscInt i = 0; i < 300; i++)
    for (PetscInt j = i - i % 5; j < i - i % 5 + 5; j++) PetscCall(MatSetValue(Aref, i, j, i == j ? 8.0 : -1.0 - 0.1 * (j - i) + 0.01 * (i % 7), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(Aref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(Factor(Aref, MATSOLVERPETSC, MAT_FACTOR_ILU, MAT_SHIFT_NONE, NULL, &Fref));
  PetscCall(Factor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "isai_", &F));
  PetscCall(CompareSolves(Aref, A, Fref, F, vtype, "ILU(0) by ISAI, dense diagonal blocks", "against PETSc's exact solve"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Fref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));

  PetscCall(GridMatrix(24, 4, &Aref));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(Factor(Aref, MATSOLVERSPMVFACTOR, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "isai_", &Fref));
  PetscCall(Factor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "isai_", &F));
  PetscCall(CompareSolves(Aref, A, Fref, F, vtype, "ILU(0) by ISAI, grid of points with 4 unknowns", "against the host reference on aij"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Fref));
  PetscCall(MatGetFactor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ICC, &F));
  PetscCall(MatSetOptionsPrefix(F, "isai_"));
  PetscCall(MatFactorInfoInitialize(&info));
  info.fill = 1.0;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatICCFactorSymbolic(F, A, NULL, &info);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ICC with ISAI not refused (error %d)", (int)ierr);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok ICC with ISAI refused\n"));
  PetscCall(MatDestroy(&F));
  /* the spelling before 1.1 (deprecated, with a warning) still selects ISAI: ICC refused again */
  PetscCall(PetscOptionsSetValue(NULL, "-old_mat_spmv_trsv", "isai"));
  PetscCall(MatGetFactor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ICC, &F));
  PetscCall(MatSetOptionsPrefix(F, "old_"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatICCFactorSymbolic(F, A, NULL, &info);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-old_mat_spmv_trsv isai (deprecated spelling) not applied: ICC with ISAI not refused (error %d)", (int)ierr);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok the deprecated -mat_spmv_trsv still read as -petscspmv_factor_trsv\n"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PCFactor's default package (MatGetFactor() with no solver type) with the pivot shifts a user can ask
   for gives PETSc's factor: ILU(0) with a nonzero shift on a zero first pivot, and ICC(0) with PCICC's
   default positive-definite shift on a pivot that is not positive. With a GPU the default for our types
   is MATSOLVERSPMVFACTOR, which hands both to cuSPARSE's package factored on the host (aijcusparse's device
   factorizations apply no shift: inf or NaN); without one it is PETSc's own. */
static PetscErrorCode TestDefaultShifts(MatType type, VecType vtype)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    const MatFactorType      ftype = k ? MAT_FACTOR_ICC : MAT_FACTOR_ILU;
    const MatFactorShiftType shift = k ? MAT_SHIFT_POSITIVE_DEFINITE : MAT_SHIFT_NONZERO;
    Mat                      G, Aref, A, F[2];
    MatSolverType            pkg;
    MatFactorError           err;
    char                     name[128];

    PetscCall(GridMatrix(16, 1, &G));
    PetscCall(DiagonallyDominant(G, 1, &Aref));
    PetscCall(MatDestroy(&G));
    PetscCall(MatSetValue(Aref, k ? 5 : 0, k ? 5 : 0, k ? -1.0 : 0.0, INSERT_VALUES)); /* ILU: a zero first pivot; ICC: a negative one */
    PetscCall(MatAssemblyBegin(Aref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Aref, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
    for (int which = 0; which < 2; which++) {
      MatFactorInfo info;
      IS            row, col;
      Mat           M = which ? A : Aref;

      PetscCall(MatFactorInfoInitialize(&info));
      info.fill        = 1.0;
      info.shifttype   = (PetscReal)shift;
      info.shiftamount = 1e-2;
      info.zeropivot   = 1e-12;
      PetscCall(MatGetOrdering(M, MATORDERINGNATURAL, &row, &col));
      PetscCall(MatGetFactor(M, which ? NULL : MATSOLVERPETSC, ftype, &F[which]));
      if (k) {
        PetscCall(MatICCFactorSymbolic(F[which], M, row, &info));
        PetscCall(MatCholeskyFactorNumeric(F[which], M, &info));
      } else {
        PetscCall(MatILUFactorSymbolic(F[which], M, row, col, &info));
        PetscCall(MatLUFactorNumeric(F[which], M, &info));
      }
      PetscCall(ISDestroy(&row));
      PetscCall(ISDestroy(&col));
      PetscCall(MatFactorGetError(F[which], &err));
      PetscCheck(err == MAT_FACTOR_NOERROR, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s's %s with pivot shift %s failed (error %d)", which ? type : "MATAIJ", MatFactorTypes[ftype], MatFactorShiftTypes[shift], (int)err);
    }
    PetscCall(MatFactorGetSolverType(F[1], &pkg));
    PetscCall(PetscSNPrintf(name, sizeof(name), "default package (%s) %s(0) with pivot shift %s", pkg, MatFactorTypes[ftype], MatFactorShiftTypes[shift]));
    PetscCall(CompareSolves(Aref, A, F[0], F[1], vtype, name, "grid with a bad pivot"));
    for (int which = 0; which < 2; which++) PetscCall(MatDestroy(&F[which]));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Aref));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bad input: a zero pivot is a factor error (PCSetUp reports it), a missing diagonal entry, more
   levels of fill and another ordering are refused with PETSc errors */
static PetscErrorCode TestRefusals(MatType type)
{
  Mat            Aref, A, F;
  MatFactorInfo  info;
  MatFactorError err;
  PetscErrorCode ierr;
  IS             rperm, cperm;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 4, 4, 2, NULL, &Aref));
  for (PetscInt i = 0; i < 4; i++) { /* [[0 1] [1 0]] blocks: zero diagonal entries stored */
    PetscCall(MatSetValue(Aref, i, i, 0.0, INSERT_VALUES));
    PetscCall(MatSetValue(Aref, i, i ^ 1, 1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(Aref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aref, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(Factor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ILU, MAT_SHIFT_NONE, NULL, &F));
  PetscCall(MatFactorGetError(F, &err));
  PetscCheck(err == MAT_FACTOR_NUMERIC_ZEROPIVOT, PETSC_COMM_SELF, PETSC_ERR_PLIB, "zero pivot not reported (error %d)", (int)err);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok zero pivot reported as MAT_FACTOR_NUMERIC_ZEROPIVOT\n"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));

  { /* ICC with PCICC's default shift on [[1 2] [2 1]] blocks: the second pivot, -3, needs the shift we do not apply */
    Mat B;

    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 4, 4, 2, NULL, &B));
    for (PetscInt i = 0; i < 4; i++) {
      PetscCall(MatSetValue(B, i, i, 1.0, INSERT_VALUES));
      PetscCall(MatSetValue(B, i, i ^ 1, 2.0, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(B, type, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatDestroy(&B));
    PetscCall(Factor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ICC, MAT_SHIFT_POSITIVE_DEFINITE, NULL, &F));
    PetscCall(MatFactorGetError(F, &err));
    PetscCheck(err == MAT_FACTOR_NUMERIC_ZEROPIVOT, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ICC pivot that needs a shift not reported (error %d)", (int)err);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok ICC(0) pivot that needs a positive-definite shift reported as MAT_FACTOR_NUMERIC_ZEROPIVOT\n"));
    PetscCall(MatDestroy(&F));
    PetscCall(MatDestroy(&A));
  }

  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, 4, 3, -1, &rperm)); /* reversed */
  PetscCall(ISCreateStride(PETSC_COMM_SELF, 4, 3, -1, &cperm));
  for (int k = 1; k < 5; k++) {
    const char *what[] = {NULL, "a reversed ordering", "pivot shifts", NULL, "ICC in a reversed ordering"};

    if (!what[k]) continue;
    PetscCall(MatFactorInfoInitialize(&info));
    info.fill = 1.0;
    if (k == 2) info.shifttype = (PetscReal)MAT_SHIFT_NONZERO;
    PetscCall(MatGetFactor(A, MATSOLVERSPMVFACTOR, k < 3 ? MAT_FACTOR_ILU : MAT_FACTOR_ICC, &F));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    if (k < 3) ierr = MatILUFactorSymbolic(F, A, k == 1 ? rperm : NULL, k == 1 ? cperm : NULL, &info);
    else ierr = MatICCFactorSymbolic(F, A, k == 4 ? rperm : NULL, &info);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s not refused (error %d)", what[k], (int)ierr);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok %s refused\n", what[k]));
    PetscCall(MatDestroy(&F));
  }
  PetscCall(ISDestroy(&rperm));
  PetscCall(ISDestroy(&cperm));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));

  { /* row 5 has no diagonal entry */
    Mat B;

    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 8, 8, 2, NULL, &B));
    for (PetscInt i = 0; i < 8; i++) {
      if (i != 5) PetscCall(MatSetValue(B, i, i, 2.0, INSERT_VALUES));
      if (i > 0) PetscCall(MatSetValue(B, i, i - 1, -1.0, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(B, type, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(MatGetFactor(A, MATSOLVERSPMVFACTOR, MAT_FACTOR_ILU, &F));
  PetscCall(MatFactorInfoInitialize(&info));
  info.fill = 1.0;
  ierr      = MatILUFactorSymbolic(F, A, NULL, NULL, &info);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_MAT_LU_ZRPVT, PETSC_COMM_SELF, PETSC_ERR_PLIB, "missing diagonal entry not refused (error %d)", (int)ierr);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ok missing diagonal entry refused\n"));
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     type[64] = MATBRC, dir[PETSC_MAX_PATH_LEN] = "tests/matrices";
  char     vtype[64] = VECSEQ;
  PetscInt count = 0, chain = 1000000, maxbs = 8;
  DIR     *d;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscTime(&StartTime));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "test_factor options", NULL);
  PetscCall(PetscOptionsString("-type", "matrix type factored", NULL, type, type, sizeof(type), NULL));
  PetscCall(PetscOptionsString("-dir", "directory of .mtx files", NULL, dir, dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsString("-vec_type", "vectors of the solves", NULL, vtype, vtype, sizeof(vtype), NULL));
  PetscCall(PetscOptionsInt("-chain", "rows of the bidiagonal matrix", NULL, chain, &chain, NULL));
  PetscCall(PetscOptionsInt("-grid_max_unknowns", "grids of points with 1, 2, 3, 4 and 8 unknowns up to this many (fewer under compute-sanitizer)", NULL, maxbs, &maxbs, NULL));
  PetscOptionsEnd();

  for (PetscInt bs = 1; bs <= maxbs; bs++) {
    Mat  A;
    char name[64];

    if (bs > 4 && bs != 8) continue;
    PetscCall(GridMatrix(bs == 4 ? 48 : 16, bs, &A));
    PetscCall(PetscSNPrintf(name, sizeof(name), "grid of points with %" PetscInt_FMT " unknowns", bs));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ILU, MAT_SHIFT_NONE, name));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ICC, MAT_SHIFT_NONE, name));
    for (PetscInt k = 1; k <= 2; k++) {
      PetscCall(TestLevels(A, type, vtype, MAT_FACTOR_ILU, k, MAT_SHIFT_NONE, name));
      PetscCall(TestLevels(A, type, vtype, MAT_FACTOR_ICC, k, MAT_SHIFT_NONE, name));
    }
    if (strcmp(type, MATSEQAIJCUSPARSE) && strcmp(type, MATAIJCUSPARSE)) { /* ours (aij: PETSc's own factor) */
      PetscCall(TestCUSPARSE(A, type, vtype, 0, name));
      PetscCall(TestCUSPARSE(A, type, vtype, 1, name));
    }
    if (bs != 4) { /* a few thousand rows: as many sweeps as rows stay cheap */
      PetscCall(TestJacobi(A, type, vtype, MAT_FACTOR_ILU, name));
      PetscCall(TestJacobi(A, type, vtype, MAT_FACTOR_ICC, name));
    }
    PetscCall(MatDestroy(&A));
    count++;
  }
  {
    Mat A;

    PetscCall(ChainMatrix(chain, 0, &A));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "bidiagonal (one chain of all rows)"));
    PetscCall(MatTranspose(A, MAT_INPLACE_MATRIX, &A)); /* ICC reads the upper triangle: the same chain, symmetric */
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ICC, MAT_SHIFT_POSITIVE_DEFINITE, "tridiagonal (one chain of all rows)"));
    PetscCall(MatDestroy(&A));
    PetscCall(ChainMatrix(1000, 7, &A));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "bidiagonal with diagonal-only rows"));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ICC, MAT_SHIFT_NONE, "bidiagonal with diagonal-only rows (lower triangle, ignored by ICC)"));
    PetscCall(MatDestroy(&A));
    PetscCall(ChainMatrix(1000, 1, &A));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "diagonal"));
    PetscCall(MatDestroy(&A));
    PetscCall(ArrowMatrix(600, &A));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ILU, MAT_SHIFT_NONE, "arrow (rows of 600 entries)"));
    PetscCall(TestOne(A, type, vtype, MAT_FACTOR_ICC, MAT_SHIFT_NONE, "arrow (rows of 600 entries)"));
    PetscCall(MatDestroy(&A));
    count += 4;
  }
  d = opendir(dir);
  PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", dir);
  for (struct dirent *ent; (ent = readdir(d));) {
    size_t   len = strlen(ent->d_name);
    char     path[PETSC_MAX_PATH_LEN];
    Mat      A, B;
    PetscInt m, n, longest;

    if (len < 5 || strcmp(ent->d_name + len - 4, ".mtx")) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, ent->d_name));
    PetscCall(MatLoadMatrixMarket(PETSC_COMM_SELF, path, MATAIJ, &A));
    PetscCall(MatGetSize(A, &m, &n));
    if (m == n) {
      PetscCall(DiagonallyDominant(A, 1, &B));
      PetscCall(TestOne(B, type, vtype, MAT_FACTOR_ILU, MAT_SHIFT_NONE, ent->d_name));
      PetscCall(TestOne(B, type, vtype, MAT_FACTOR_ICC, MAT_SHIFT_NONE, ent->d_name));
      PetscCall(MaxRowLength(B, &longest));
      if (longest <= 64) { /* not the arrows of dense rows (arrow, rajat01), which fill most of the matrix from level 1 on */
        PetscCall(TestLevels(B, type, vtype, MAT_FACTOR_ILU, 1, MAT_SHIFT_NONE, ent->d_name));
        PetscCall(TestLevels(B, type, vtype, MAT_FACTOR_ICC, 1, MAT_SHIFT_NONE, ent->d_name));
      }
      PetscCall(MatDestroy(&B));
      count++;
    }
    PetscCall(MatDestroy(&A));
  }
  closedir(d);
  PetscCall(TestJacobiDepth(type, vtype));
  PetscCall(TestISAI(type, vtype));
  PetscCall(TestRefusals(type));
  if (strcmp(type, MATSEQAIJCUSPARSE) && strcmp(type, MATAIJCUSPARSE)) PetscCall(TestDefaultShifts(type, vtype)); /* aijcusparse's own drops the shifts (docs/limits.md) */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "all %" PetscInt_FMT " matrices passed for %s with %s vectors\n", count, type, vtype));
  PetscCall(PetscFinalize());
  return 0;
}

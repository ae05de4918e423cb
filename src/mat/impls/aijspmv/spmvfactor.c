/*
  The solver package MATSOLVERSPMV ("spmv"): ILU(k) and ICC(k) whose numeric factorization and
  triangular solves run on the GPU without level synchronization (spmvfactor.h, spmvtrsv.cu), for
  our sequential types and aijcusparse. cuSPARSE's solves (aijcusparse's factor) synchronize once per
  dependency level: about two thousand levels per triangle on SNES ex19's Jacobian. Without a GPU
  (a matrix on the AIJ base, or SeqAIJ) the same algorithm runs on the host, sequentially.

  Selected with -pc_factor_mat_solver_type spmv (-sub_pc_factor_mat_solver_type spmv under block
  Jacobi or ASM).
*/
#include "spmvfactor.h"

/* how MatSolve() applies the factors: exactly, by block-Jacobi sweeps over units, or by incomplete
   sparse approximate inverses of L and U (approximations: they change the preconditioner, not the
   factors) */
typedef enum {
  MATSPMV_TRSV_EXACT,
  MATSPMV_TRSV_JACOBI,
  MATSPMV_TRSV_ISAI
} MatSpmvTrsvType;
static const char *const MatSpmvTrsvTypes[] = {"exact", "jacobi", "isai", "MatSpmvTrsvType", "MATSPMV_TRSV_", NULL};

typedef struct {
  PetscInt         n, nnz, unit, nunits;
  PetscInt         fill;                      /* k of ILU(k)/ICC(k) */
  PetscInt         annz;                      /* A's nonzeros (ICC: the factor mirrors A's upper triangle) */
  PetscInt        *vmap;                      /* ICC: the entry of A's values behind each factor entry; NULL: A's own pattern */
  PetscInt        *i, *j, *diag, *lin, *uout; /* see MatSpmvTriDevice */
  PetscInt         levels[2];                 /* levels of units in L and in U */
  PetscInt        *order[2];                  /* units by level in L, in U */
  MatSpmvTrsvType  trsv;
  PetscInt         sweeps;                    /* jacobi: sweeps per triangle after the first block-diagonal solve */
  PetscScalar     *a, *idiag, *work, *m;      /* the factor on the host (host matrices only), 2 n of room for the sweeps, ISAI's inverses */
  PetscBool        device;
  MatSpmvTriDevice d;
} Mat_SpmvFactor;

static PetscErrorCode MatFactorGetSolverType_Spmv(Mat F, MatSolverType *type)
{
  PetscFunctionBegin;
  *type = MATSOLVERSPMV;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFactorReset(Mat_SpmvFactor *f)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(f->i));
  PetscCall(PetscFree(f->j));
  PetscCall(PetscFree3(f->diag, f->lin, f->uout));
  PetscCall(PetscFree(f->vmap));
  PetscCall(PetscFree2(f->order[0], f->order[1]));
  PetscCall(PetscFree4(f->a, f->idiag, f->work, f->m));
#if defined(PETSC_HAVE_CUDA)
  if (f->device) PetscCall(MatSpmvCUDATriDestroy(&f->d));
#endif
  f->device = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SpmvFactor(Mat F)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;

  PetscFunctionBegin;
  PetscCall(MatSpmvFactorReset(f));
  PetscCall(PetscFree(F->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatSpmvFactorSolveDevice_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether A's values live with aijcusparse (the factor is then built and solved on the GPU) */
static PetscErrorCode MatSpmvFactorOnDevice(Mat A, PetscBool *device)
{
  Mat_SeqAIJSpmv *sp;
  PetscBool       avail;

  PetscFunctionBegin;
  *device = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(MatSpmvCUDAAvailable(&avail));
  if (!avail) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvSeqGetData(A, &sp));
  if (sp) *device = sp->base->cusparse;
  else PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, device));
#else
  (void)sp;
  (void)avail;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the level of each unit of `unit` consecutive rows in L (upper: in U): 1 + the highest level of the
   units its entries outside the unit point to; returns the number of levels. The levels are also
   kept per row, so an entry's is one load, not a division by the unit and a load. */
static PetscErrorCode MatSpmvFactorLevels(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscInt *diag, PetscInt unit, PetscBool upper, PetscInt *level, PetscInt *nlevels)
{
  const PetscInt nunits = (n + unit - 1) / unit;
  PetscInt      *rowlevel;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &rowlevel));
  *nlevels = 0;
  for (PetscInt v = 0; v < nunits; v++) { /* in a dependency order: L forward, U backward */
    const PetscInt u = upper ? nunits - 1 - v : v, r0 = u * unit, r1 = PetscMin(r0 + unit, n);
    PetscInt       l = 0;

    for (PetscInt r = r0; r < r1; r++) {
      if (upper)
        for (PetscInt p = ai[r + 1] - 1; p > diag[r] && aj[p] >= r1; p--) l = PetscMax(l, rowlevel[aj[p]]);
      else
        for (PetscInt p = ai[r]; p < diag[r] && aj[p] < r0; p++) l = PetscMax(l, rowlevel[aj[p]]);
    }
    level[u] = l + 1;
    for (PetscInt r = r0; r < r1; r++) rowlevel[r] = l + 1;
    *nlevels = PetscMax(*nlevels, l + 1);
  }
  PetscCall(PetscFree(rowlevel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the units of L (upper: of U) sorted by their levels (stable counting sort) */
static PetscErrorCode MatSpmvFactorOrder(const Mat_SpmvFactor *f, PetscBool upper, const PetscInt *level, PetscInt nlevels, PetscInt *order)
{
  PetscInt *start;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nlevels + 1, &start));
  for (PetscInt u = 0; u < f->nunits; u++) start[level[u]]++;
  for (PetscInt l = 1; l <= nlevels; l++) start[l] += start[l - 1];
  for (PetscInt v = f->nunits - 1; v >= 0; v--) {
    const PetscInt u = upper ? f->nunits - 1 - v : v;
    order[--start[level[u]]] = u;
  }
  PetscCall(PetscFree(start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows per unit: the candidate (1, 2, 4, 8 and the block size) with the fewest levels in L, the
   smaller on a tie; *level (room for n) returns that candidate's levels in L. Each level costs a
   dependency's latency; a larger unit only adds work inside the warp. Grouping consecutive rows
   folds chains (a grid line's rows) into one level even without a block size: MPIAIJCUSPARSE's
   diagonal blocks carry none. */
static PetscErrorCode MatSpmvFactorChooseUnit(Mat_SpmvFactor *f, PetscInt bs, PetscInt *unit, PetscInt **level, PetscInt *nlevels)
{
  PetscInt candidates[5] = {1, 2, 4, 8, bs}, *trial;

  PetscFunctionBegin;
  *nlevels = PETSC_INT_MAX;
  PetscCall(PetscMalloc1(f->n, &trial));
  for (int k = 0; k < 5; k++) {
    const PetscInt c = candidates[k];
    PetscInt       n;

    if (c < 1 || c > MATSPMV_TRI_MAX_UNIT || (k == 4 && (c == 1 || c == 2 || c == 4 || c == 8))) continue;
    PetscCall(MatSpmvFactorLevels(f->n, f->i, f->j, f->diag, c, PETSC_FALSE, trial, &n));
    if (n < *nlevels || (n == *nlevels && c < *unit)) {
      PetscInt *keep = *level;

      *nlevels = n;
      *unit    = c;
      *level   = trial;
      trial    = keep;
    }
  }
  PetscCall(PetscFree(trial));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what both factorizations refuse: fill, drop tolerances, orderings; ILU shifts nothing, ICC accepts
   PCICC's default positive-definite shift as long as no pivot needs it (the numeric phase reports
   one that would as a zero pivot) */
static PetscErrorCode MatSpmvFactorCheckInfo(Mat F, IS row, IS col, const MatFactorInfo *info)
{
  const char *name = F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU";
  PetscBool   identity;

  PetscFunctionBegin;
  PetscCheck(info->levels >= 0 && info->levels == (PetscInt)info->levels, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s(k) needs a whole number of levels k >= 0, not %g", name, (double)info->levels);
  PetscCheck(!info->usedt, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmv has no drop-tolerance ILU: use -pc_factor_mat_solver_type petsc");
  PetscCheck(info->shifttype == (PetscReal)MAT_SHIFT_NONE || (F->factortype == MAT_FACTOR_ICC && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE), PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmv does not shift pivots: use -pc_factor_shift_type none, or -pc_factor_mat_solver_type petsc for %s", MatFactorShiftTypes[(int)info->shifttype]);
  for (int k = 0; k < 2; k++) {
    IS is = k ? col : row;

    if (!is) continue;
    PetscCall(ISIdentity(is, &identity));
    PetscCheck(identity, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmv factors in the natural ordering: use -pc_factor_mat_ordering_type natural");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's pattern in f->i, f->j (rows sorted) is set: diagonal, unit, ranges, level orders, device */
static PetscErrorCode MatSpmvFactorSetUp(Mat F, Mat A)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;
  const PetscInt  n = f->n;
  PetscInt        bs, unit = 0, *level;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt p = f->i[r];

    while (p < f->i[r + 1] && f->j[p] < r) p++;
    PetscCheck(p < f->i[r + 1] && f->j[p] == r, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Row %" PetscInt_FMT " has no diagonal entry: %s(%" PetscInt_FMT ") needs one in every row (insert explicit zeros, or MatShift())", r, F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU", f->fill);
    f->diag[r] = p;
  }
  PetscOptionsBegin(PetscObjectComm((PetscObject)F), ((PetscObject)F)->prefix, "MATSOLVERSPMV triangular solves", "Mat");
  PetscCall(PetscOptionsRangeInt("-mat_spmv_trsv_unit", "Consecutive rows solved together by one warp (0: the candidate with the fewest levels)", "MATSOLVERSPMV", unit, &unit, NULL, 0, MATSPMV_TRI_MAX_UNIT));
  PetscCall(PetscOptionsEnum("-mat_spmv_trsv", "Triangular solves: exact, or approximated by block-Jacobi sweeps over units or by incomplete sparse approximate inverses", "MATSOLVERSPMV", MatSpmvTrsvTypes, (PetscEnum)f->trsv, (PetscEnum *)&f->trsv, NULL));
  PetscCall(PetscOptionsBoundedInt("-mat_spmv_trsv_sweeps", "Block-Jacobi sweeps per triangle after the block-diagonal solve (-mat_spmv_trsv jacobi)", "MATSOLVERSPMV", f->sweeps, &f->sweeps, NULL, 0));
  PetscOptionsEnd();
  PetscCheck(!(F->factortype == MAT_FACTOR_ICC && f->trsv == MATSPMV_TRSV_ISAI), PETSC_COMM_SELF, PETSC_ERR_SUP, "-mat_spmv_trsv isai is for ILU: the approximate inverses of L and of U = D L^T are not each other's transposes, and CG needs a symmetric preconditioner; use -mat_spmv_trsv jacobi with ICC");
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscMalloc1(n, &level));
  if (!unit) PetscCall(MatSpmvFactorChooseUnit(f, bs, &unit, &level, &f->levels[0]));
  else PetscCall(MatSpmvFactorLevels(n, f->i, f->j, f->diag, unit, PETSC_FALSE, level, &f->levels[0]));
  f->unit   = unit;
  f->nunits = (n + unit - 1) / unit;
  for (PetscInt r = 0; r < n; r++) { /* the unit's own rows: [lin, diag) in L, (diag, uout) in U */
    const PetscInt r0 = r - r % unit, r1 = PetscMin(r0 + unit, n);
    PetscInt       p  = f->diag[r];

    while (p > f->i[r] && f->j[p - 1] >= r0) p--;
    f->lin[r] = p;
    p         = f->diag[r] + 1;
    while (p < f->i[r + 1] && f->j[p] < r1) p++;
    f->uout[r] = p;
  }
  PetscCall(PetscMalloc2(f->nunits, &f->order[0], f->nunits, &f->order[1]));
  PetscCall(MatSpmvFactorOrder(f, PETSC_FALSE, level, f->levels[0], f->order[0])); /* L's levels from above */
  PetscCall(MatSpmvFactorLevels(n, f->i, f->j, f->diag, unit, PETSC_TRUE, level, &f->levels[1]));
  PetscCall(MatSpmvFactorOrder(f, PETSC_TRUE, level, f->levels[1], f->order[1]));
  PetscCall(PetscFree(level));
  PetscCall(MatSpmvFactorOnDevice(A, &f->device));
#if defined(PETSC_HAVE_CUDA)
  if (f->device) PetscCall(MatSpmvCUDATriCreate(&f->d, n, f->nnz, f->unit, f->i, f->j, f->diag, f->lin, f->uout, f->order, f->vmap));
#endif
  if (!f->device) PetscCall(PetscMalloc4(f->nnz, &f->a, n, &f->idiag, 2 * n, &f->work, f->nnz, &f->m));
  PetscCall(PetscInfo(F, "%s(%" PetscInt_FMT ") of %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros (%" PetscInt_FMT " in the matrix), units of %" PetscInt_FMT " rows: %" PetscInt_FMT " (L) and %" PetscInt_FMT " (U) levels of units, on the %s, %s solves\n", F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU", f->fill, n, f->nnz, f->annz, f->unit, f->levels[0], f->levels[1], f->device ? "GPU" : "host", MatSpmvTrsvTypes[f->trsv]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSpmvFactorGetRows(Mat A, PetscInt *n, const PetscInt **ai, const PetscInt **aj)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, n, ai, aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the rows of %s", ((PetscObject)A)->type_name);
  PetscCheck(*n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Incomplete factorization needs a square matrix, not %" PetscInt_FMT " x %" PetscInt_FMT, *n, A->cmap->n);
  PetscCheck((*ai)[*n] < PETSC_INT32_MAX && *n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmv takes fewer than 2^31 rows and nonzeros per process (here %" PetscInt_FMT " and %" PetscInt_FMT "): use more processes", *n, (*ai)[*n]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(k)'s pattern from the factor's (ICC(k): from the mirrored pattern, whose fill is symmetric
   again): an entry of the pattern has level 0, one that elimination creates through row k < r
   level lev(r, k) + lev(k, c) + 1 (the least over such k), as PETSc's ILU(k) and ICC(k) count;
   entries up to level f->fill are kept. Row by row, each a sorted linked list of its columns
   merged with the U part of every row k it meets in increasing k. vmap becomes the source of
   each entry's value (-1: fill, zero). */
static PetscErrorCode MatSpmvFactorFill(Mat_SpmvFactor *f)
{
  const PetscInt n = f->n;
  PetscInt      *ni, *nj, *nlev, *nmap, *udiag, *next, *lev, *src, cap = 2 * f->i[n] + n, nnz = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &ni));
  PetscCall(PetscMalloc1(cap, &nj)); /* each grows on its own */
  PetscCall(PetscMalloc1(cap, &nlev));
  PetscCall(PetscMalloc1(cap, &nmap));
  PetscCall(PetscMalloc4(n, &udiag, n, &next, n, &lev, n, &src)); /* per column of the row: next column (n: none), level (-1: absent), source */
  for (PetscInt c = 0; c < n; c++) lev[c] = -1;
  ni[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt head = n, cnt = f->i[r + 1] - f->i[r];

    for (PetscInt p = f->i[r + 1] - 1; p >= f->i[r]; p--) { /* the row's own entries, level 0 */
      const PetscInt c = f->j[p];

      next[c] = head;
      head    = c;
      lev[c]  = 0;
      src[c]  = f->vmap ? f->vmap[p] : p;
    }
    for (PetscInt k = head; k < r; k = next[k]) { /* fill entries inserted after k are met later */
      PetscInt at = k;

      for (PetscInt q = udiag[k] + 1; q < ni[k + 1]; q++) { /* row k's U part, increasing columns */
        const PetscInt c = nj[q], l = lev[k] + nlev[q] + 1;

        if (l > f->fill) continue;
        if (lev[c] < 0) {
          while (next[at] < c) at = next[at];
          next[c]  = next[at];
          next[at] = c;
          lev[c]   = l;
          src[c]   = -1;
          cnt++;
        } else lev[c] = PetscMin(lev[c], l);
        at = c;
      }
    }
    if ((PetscInt64)nnz + cnt > cap) {
      PetscCheck((PetscInt64)nnz + cnt < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmv takes fewer than 2^31 nonzeros per process: ILU(%" PetscInt_FMT ") fills beyond that by row %" PetscInt_FMT "; use fewer levels or more processes", f->fill, r);
      cap = (PetscInt)PetscMin(2 * ((PetscInt64)nnz + cnt), (PetscInt64)PETSC_INT32_MAX - 1);
      PetscCall(PetscRealloc(cap * sizeof(PetscInt), &nj));
      PetscCall(PetscRealloc(cap * sizeof(PetscInt), &nlev));
      PetscCall(PetscRealloc(cap * sizeof(PetscInt), &nmap));
    }
    udiag[r] = nnz - 1; /* the last entry with column <= r (the diagonal, checked at the set-up) */
    for (PetscInt c = head; c < n; c = next[c]) {
      if (c <= r) udiag[r] = nnz;
      nj[nnz]     = c;
      nlev[nnz]   = lev[c];
      nmap[nnz++] = src[c];
      lev[c]      = -1;
    }
    ni[r + 1] = nnz;
  }
  PetscCall(PetscFree4(udiag, next, lev, src));
  PetscCall(PetscFree(f->i));
  PetscCall(PetscFree(f->j));
  PetscCall(PetscFree(f->vmap));
  f->i    = ni;
  f->j    = nj;
  f->vmap = nmap;
  f->nnz  = nnz;
  PetscCall(PetscFree(nlev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factor's pattern: A's (ILU), or A's upper triangle and its mirror image (ICC reads the upper
   triangle only, as PETSc's: the ILU(k) of a symmetric matrix is its incomplete L D L^T, U = D L^T),
   vmap then naming the entry of A's values behind each factor entry */
static PetscErrorCode MatSpmvFactorSymbolic(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  Mat_SpmvFactor *f   = (Mat_SpmvFactor *)F->data;
  const PetscBool icc = (PetscBool)(F->factortype == MAT_FACTOR_ICC);
  const PetscInt *ai, *aj;
  PetscInt        n, nr, *next = NULL;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatSpmvFactorCheckInfo(F, row, col, info));
  PetscCall(MatSpmvFactorReset(f));
  PetscCall(MatSpmvFactorGetRows(A, &n, &ai, &aj));
  f->n    = n;
  f->annz = ai[n];
  f->nnz  = ai[n];
  if (icc) {
    PetscCall(PetscCalloc1(n + 1, &next));
    for (PetscInt r = 0; r < n; r++) /* row r: column r's upper entries mirrored, then row r's own */
      for (PetscInt p = ai[r]; p < ai[r + 1]; p++) {
        if (aj[p] > r) next[aj[p] + 1]++;
        if (aj[p] >= r) next[r + 1]++;
      }
    for (PetscInt r = 0; r < n; r++) next[r + 1] += next[r];
    f->nnz = next[n];
    PetscCheck(f->nnz < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmv takes fewer than 2^31 nonzeros per process (here %" PetscInt_FMT " in the symmetric pattern): use more processes", f->nnz);
  }
  PetscCall(PetscMalloc1(n + 1, &f->i));
  PetscCall(PetscMalloc1(f->nnz, &f->j));
  if (icc) {
    PetscCall(PetscMalloc1(f->nnz, &f->vmap));
    PetscCall(PetscArraycpy(f->i, next, n + 1));
    for (PetscInt r = 0; r < n; r++) /* mirrored entries land in increasing r: rows stay sorted */
      for (PetscInt p = ai[r]; p < ai[r + 1]; p++)
        if (aj[p] > r) {
          f->j[next[aj[p]]]      = r;
          f->vmap[next[aj[p]]++] = p;
        }
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt p = ai[r]; p < ai[r + 1]; p++)
        if (aj[p] >= r) {
          f->j[next[r]]      = aj[p];
          f->vmap[next[r]++] = p;
        }
    PetscCall(PetscFree(next));
  } else {
    PetscCall(PetscArraycpy(f->i, ai, n + 1));
    PetscCall(PetscArraycpy(f->j, aj, f->nnz));
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done)); /* sets nr to 0 */
  f->fill = (PetscInt)info->levels;
  if (f->fill) PetscCall(MatSpmvFactorFill(f));
  PetscCall(PetscMalloc3(n, &f->diag, n, &f->lin, n, &f->uout));
  PetscCall(MatSpmvFactorSetUp(F, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatILUFactorSymbolic_SpmvFactor(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvFactorSymbolic(F, A, row, col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_SpmvFactor(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvFactorSymbolic(F, A, perm, perm, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the host reference: a sequential ILU(k) (on the factor's pattern) in the same order as the device's; a pivot counts as
   zero when its magnitude (positive: its real part) is at most zeropivot */
static PetscErrorCode MatSpmvILUHost(Mat_SpmvFactor *f, const PetscScalar *aval, PetscReal zeropivot, PetscBool positive, PetscInt *zeropivotrow)
{
  PetscFunctionBegin;
  *zeropivotrow = -1;
  if (f->vmap)
    for (PetscInt k = 0; k < f->nnz; k++) f->a[k] = f->vmap[k] >= 0 ? aval[f->vmap[k]] : 0.0; /* -1: fill */
  else PetscCall(PetscArraycpy(f->a, aval, f->nnz));
  for (PetscInt r = 0; r < f->n; r++) {
    const PetscInt re = f->i[r + 1];
    PetscScalar    piv;

    for (PetscInt p = f->i[r]; p < f->diag[r]; p++) {
      const PetscInt    k = f->j[p];
      const PetscScalar l = f->a[p] * f->idiag[k];
      PetscInt          s = p + 1;

      f->a[p] = l;
      for (PetscInt q = f->diag[k] + 1; q < f->i[k + 1]; q++) { /* both rows sorted: merge */
        while (s < re && f->j[s] < f->j[q]) s++;
        if (s < re && f->j[s] == f->j[q]) f->a[s] -= l * f->a[q];
      }
    }
    piv = f->a[f->diag[r]];
    if ((positive ? PetscRealPart(piv) : PetscAbsScalar(piv)) <= zeropivot && *zeropivotrow < 0) *zeropivotrow = r;
    f->idiag[r] = 1.0 / piv;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's entry (k, c) in row k's range [lo, hi), or 0 */
static PetscScalar MatSpmvFactorEntry(const Mat_SpmvFactor *f, PetscInt lo, PetscInt hi, PetscInt c)
{
  PetscInt loc;

  PetscCallAbort(PETSC_COMM_SELF, PetscFindInt(c, hi - lo, f->j + lo, &loc));
  return loc >= 0 ? f->a[lo + loc] : 0.0;
}

/* ISAI on the host, as MatSpmvISAIKernel(): per row r, M_L's row on L's pattern J solves
   L(J, J)^T m = e_r, M_U's on U's pattern U(J, J)^T m = e_r */
static PetscErrorCode MatSpmvISAIHost(Mat_SpmvFactor *f)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < f->n; r++) {
    const PetscInt rs = f->i[r], rd = f->diag[r], re = f->i[r + 1];

    for (PetscInt p = rd - 1; p >= rs; p--) {
      PetscScalar v = f->a[p];

      for (PetscInt q = p + 1; q < rd; q++) v += f->m[q] * MatSpmvFactorEntry(f, f->i[f->j[q]], f->diag[f->j[q]], f->j[p]);
      f->m[p] = -v;
    }
    f->m[rd] = f->idiag[r];
    for (PetscInt p = rd + 1; p < re; p++) {
      PetscScalar v = 0.0;

      for (PetscInt q = rd; q < p; q++) v += f->m[q] * MatSpmvFactorEntry(f, f->diag[f->j[q]], f->i[f->j[q] + 1], f->j[p]);
      f->m[p] = -v * f->idiag[f->j[p]];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatLUFactorNumeric_SpmvFactor(Mat F, Mat A, const MatFactorInfo *info)
{
  Mat_SpmvFactor *f        = (Mat_SpmvFactor *)F->data;
  const PetscBool positive = (PetscBool)(info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE);
  PetscInt        zerorow, nnz = 0;
  MatInfo         ainfo;

  PetscFunctionBegin;
  PetscCall(MatGetInfo(A, MAT_LOCAL, &ainfo));
  nnz = (PetscInt)ainfo.nz_used;
  PetscCheck(A->rmap->n == f->n && nnz == f->annz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The matrix has %" PetscInt_FMT " rows and %" PetscInt_FMT " nonzeros, its symbolic factorization %" PetscInt_FMT " and %" PetscInt_FMT ": call the symbolic factorization again after a change of nonzero pattern", A->rmap->n, nnz, f->n, f->annz);
  if (f->device) {
#if defined(PETSC_HAVE_CUDA)
    const PetscScalar *v;

    PetscCall(MatSpmvCUSPARSEGetValues(A, &v));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(MatSpmvCUDAILU(&f->d, v, info->zeropivot, positive, &zerorow));
    if (f->trsv == MATSPMV_TRSV_ISAI) PetscCall(MatSpmvCUDAISAISetUp(&f->d));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSpmvCUSPARSERestoreValues(A, &v));
#endif
  } else {
    const PetscScalar *v;

    PetscCall(MatSeqAIJGetArrayRead(A, &v));
    PetscCall(MatSpmvILUHost(f, v, info->zeropivot, positive, &zerorow));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
    if (f->trsv == MATSPMV_TRSV_ISAI) PetscCall(MatSpmvISAIHost(f));
  }
  F->factorerrortype = MAT_FACTOR_NOERROR;
  if (zerorow >= 0) {
    if (positive) PetscCall(PetscInfo(F, "Pivot in row %" PetscInt_FMT " not positive: ICC with a positive-definite shift needs the shift, which -pc_factor_mat_solver_type spmv does not apply (use -pc_factor_mat_solver_type petsc)\n", zerorow));
    else PetscCall(PetscInfo(F, "Zero pivot in row %" PetscInt_FMT " (magnitude at most %g)\n", zerorow, (double)info->zeropivot));
    F->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
    F->factorerror_zeropivot_value = 0.0;
    F->factorerror_zeropivot_row   = zerorow;
  }
  F->assembled    = PETSC_TRUE;
  F->preallocated = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of one MatSolve(): both triangles once, or once per sweep */
static PetscLogDouble MatSpmvFactorSolveFlops(const Mat_SpmvFactor *f)
{
  return (f->trsv == MATSPMV_TRSV_JACOBI ? f->sweeps + 1 : 1) * (2.0 * f->nnz - f->n);
}

/* on device vectors (MatSpmvSolveStaged() brings host ones) */
static PetscErrorCode MatSolveDevice_SpmvFactor(Mat F, Vec b, Vec x)
{
#if defined(PETSC_HAVE_CUDA)
  Mat_SpmvFactor    *f = (Mat_SpmvFactor *)F->data;
  const PetscScalar *bv;
  PetscScalar       *xv;
#endif

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(VecCUDAGetArrayRead(b, &bv));
  PetscCall(VecCUDAGetArrayWrite(x, &xv));
  PetscCall(PetscLogGpuTimeBegin());
  if (f->trsv == MATSPMV_TRSV_EXACT) PetscCall(MatSpmvCUDATriSolve(&f->d, bv, xv));
  else if (f->trsv == MATSPMV_TRSV_JACOBI) PetscCall(MatSpmvCUDATriSweeps(&f->d, f->sweeps, bv, xv));
  else PetscCall(MatSpmvCUDAISAISolve(&f->d, bv, xv));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayRead(b, &bv));
  PetscCall(VecCUDARestoreArrayWrite(x, &xv));
  PetscCall(PetscLogGpuFlops(MatSpmvFactorSolveFlops(f)));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "Built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one block-Jacobi sweep of L x = b (upper: U x = b) on the host, as MatSpmvTriSweepKernel(): per
   unit, xout = (the unit's block)^{-1} (b - (entries outside the unit) xin), by substitution inside
   the unit; xin NULL: zero */
static void MatSpmvSweepHost(const Mat_SpmvFactor *f, PetscBool upper, const PetscScalar *b, const PetscScalar *xin, PetscScalar *xout)
{
  for (PetscInt u = 0; u < f->nunits; u++) {
    const PetscInt r0 = u * f->unit, r1 = PetscMin(r0 + f->unit, f->n);

    for (PetscInt k = 0; k < r1 - r0; k++) {
      const PetscInt r = upper ? r1 - 1 - k : r0 + k;
      PetscScalar    s = b[r];

      if (upper) {
        for (PetscInt p = f->diag[r] + 1; p < f->uout[r]; p++) s -= f->a[p] * xout[f->j[p]];
        for (PetscInt p = f->uout[r]; xin && p < f->i[r + 1]; p++) s -= f->a[p] * xin[f->j[p]];
        xout[r] = s * f->idiag[r];
      } else {
        for (PetscInt p = f->i[r]; xin && p < f->lin[r]; p++) s -= f->a[p] * xin[f->j[p]];
        for (PetscInt p = f->lin[r]; p < f->diag[r]; p++) s -= f->a[p] * xout[f->j[p]];
        xout[r] = s;
      }
    }
  }
}

/* the exact solves on the host: L y = b (unit diagonal), then U x = y, in place in x */
static void MatSpmvTriSolveHost(const Mat_SpmvFactor *f, const PetscScalar *b, PetscScalar *x)
{
  for (PetscInt r = 0; r < f->n; r++) {
    PetscScalar s = b[r];

    for (PetscInt p = f->i[r]; p < f->diag[r]; p++) s -= f->a[p] * x[f->j[p]];
    x[r] = s;
  }
  for (PetscInt r = f->n - 1; r >= 0; r--) {
    PetscScalar s = x[r];

    for (PetscInt p = f->diag[r] + 1; p < f->i[r + 1]; p++) s -= f->a[p] * x[f->j[p]];
    x[r] = s * f->idiag[r];
  }
}

/* -mat_spmv_trsv jacobi on the host: L into work, then U into x, each the block-diagonal solve and
   f->sweeps sweeps; the last sweep writes the result, the others alternate with work + n */
static void MatSpmvTriSweepsHost(const Mat_SpmvFactor *f, const PetscScalar *b, PetscScalar *x)
{
  for (int upper = 0; upper < 2; upper++) {
    const PetscScalar *rhs = upper ? f->work : b, *in = NULL;
    PetscScalar       *result = upper ? x : f->work, *other = f->work + f->n;

    for (PetscInt k = 0; k <= f->sweeps; k++) {
      PetscScalar *out = (f->sweeps - k) % 2 ? other : result;

      MatSpmvSweepHost(f, (PetscBool)upper, rhs, in, out);
      in = out;
    }
  }
}

/* -mat_spmv_trsv isai on the host: y = M_L b into work, x = M_U y */
static void MatSpmvISAISolveHost(const Mat_SpmvFactor *f, const PetscScalar *b, PetscScalar *x)
{
  PetscScalar *y = f->work;

  for (PetscInt r = 0; r < f->n; r++) {
    PetscScalar s = b[r];

    for (PetscInt p = f->i[r]; p < f->diag[r]; p++) s += f->m[p] * b[f->j[p]];
    y[r] = s;
  }
  for (PetscInt r = 0; r < f->n; r++) {
    PetscScalar s = 0.0;

    for (PetscInt p = f->diag[r]; p < f->i[r + 1]; p++) s += f->m[p] * y[f->j[p]];
    x[r] = s;
  }
}

static PetscErrorCode MatSolve_SpmvFactor(Mat F, Vec b, Vec x)
{
  Mat_SpmvFactor    *f = (Mat_SpmvFactor *)F->data;
  const PetscScalar *bv;
  PetscScalar       *xv;

  PetscFunctionBegin;
  if (f->device) {
    PetscCall(MatSpmvSolveStaged(F, b, x, "MatSpmvFactorSolveDevice_C"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(b, &bv));
  PetscCall(VecGetArrayWrite(x, &xv));
  switch (f->trsv) {
  case MATSPMV_TRSV_EXACT:
    MatSpmvTriSolveHost(f, bv, xv);
    break;
  case MATSPMV_TRSV_JACOBI:
    MatSpmvTriSweepsHost(f, bv, xv);
    break;
  case MATSPMV_TRSV_ISAI:
    MatSpmvISAISolveHost(f, bv, xv);
    break;
  }
  PetscCall(VecRestoreArrayRead(b, &bv));
  PetscCall(VecRestoreArrayWrite(x, &xv));
  PetscCall(PetscLogFlops(MatSpmvFactorSolveFlops(f)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_SpmvFactor(Mat F, MatInfoType flag, MatInfo *info)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size        = (PetscLogDouble)f->unit;
  info->nz_allocated      = (PetscLogDouble)f->nnz;
  info->nz_used           = (PetscLogDouble)f->nnz;
  info->fill_ratio_given  = 1.0;
  info->fill_ratio_needed = f->annz ? (PetscLogDouble)f->nnz / f->annz : 1.0; /* ILU(k)'s fill */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SpmvFactor(Mat F, PetscViewer viewer)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;
  PetscBool       ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "spmv %s(%" PetscInt_FMT "): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, solved in units of %" PetscInt_FMT " rows without level synchronization, %s\n", F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU", f->fill, f->n, f->nnz, f->unit, f->device ? "on the GPU" : "host reference"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  dependency levels of units (taken in level order): %" PetscInt_FMT " in L, %" PetscInt_FMT " in U (%" PetscInt_FMT " units)\n", f->levels[0], f->levels[1], f->nunits));
  if (f->trsv == MATSPMV_TRSV_JACOBI) PetscCall(PetscViewerASCIIPrintf(viewer, "  triangular solves approximated: the units' block-diagonal solve and %" PetscInt_FMT " block-Jacobi sweep(s) per triangle\n", f->sweeps));
  if (f->trsv == MATSPMV_TRSV_ISAI) PetscCall(PetscViewerASCIIPrintf(viewer, "  triangular solves approximated: incomplete sparse approximate inverses of L and U on their patterns (a product each)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatGetFactor() for MATSOLVERSPMV: a factor matrix of its own (the umfpack pattern) */
static PetscErrorCode MatGetFactor_SeqAIJ_Spmv(Mat A, MatFactorType ftype, Mat *F)
{
  Mat             B;
  Mat_SpmvFactor *f;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmv gives ILU(k) and ICC(k) factors only: use -pc_type ilu or icc");
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->n, A->cmap->n));
  PetscCall(PetscStrallocpy("spmvfactor", &((PetscObject)B)->type_name));
  PetscCall(MatSetUp(B));
  PetscCall(PetscNew(&f));
  f->sweeps = 2;
  B->data                   = f;
  B->ops->getinfo           = MatGetInfo_SpmvFactor;
  B->ops->ilufactorsymbolic = MatILUFactorSymbolic_SpmvFactor;
  B->ops->lufactornumeric   = MatLUFactorNumeric_SpmvFactor;
  B->ops->iccfactorsymbolic = MatICCFactorSymbolic_SpmvFactor;
  B->ops->choleskyfactornumeric = MatLUFactorNumeric_SpmvFactor;
  B->ops->solve             = MatSolve_SpmvFactor;
  B->ops->destroy           = MatDestroy_SpmvFactor;
  B->ops->view              = MatView_SpmvFactor;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_Spmv));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSpmvFactorSolveDevice_C", MatSolveDevice_SpmvFactor));
  B->factortype   = ftype;
  B->assembled    = PETSC_TRUE; /* -ksp_view */
  B->preallocated = PETSC_TRUE;
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERSPMV, &B->solvertype));
  B->canuseordering = PETSC_FALSE; /* natural ordering: PCFactor passes none */
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[ftype]));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For -pc_factor_mat_solver_type spmv, MatGetFactor() takes the handler of the longest registered
   type its matrix type begins with: SeqAIJ's covers ours, aijcusparse and SeqAIJ. PCFactor's
   default (no solver type) looks for exact type names first, so this changes no default. */
PetscErrorCode MatSpmvRegisterSpmvFactor(void)
{
  PetscFunctionBegin;
  PetscCall(MatSolverTypeRegister(MATSOLVERSPMV, MATSEQAIJ, MAT_FACTOR_ILU, MatGetFactor_SeqAIJ_Spmv));
  PetscCall(MatSolverTypeRegister(MATSOLVERSPMV, MATSEQAIJ, MAT_FACTOR_ICC, MatGetFactor_SeqAIJ_Spmv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

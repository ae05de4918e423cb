/*
  MATSOLVERSPMVFACTOR's symbolic phase (see spmvfactorimpl.h): the factor's pattern (A's, ICC's mirrored upper
  triangle, ILU(k)/ICC(k)'s fill), its diagonal, the unit size, the dependency levels of the units and
  the orders in which warps take them, where the factor lives (the GPU, or the host where its levels make
  the GPU's solve the slower), and the upload of all of it when the factor lives on the GPU.
*/
#include "spmvfactorimpl.h"

/* the first position in [lo, hi) of the sorted columns j whose column is at least c (hi: none): a
   binary search, since the rows of the factor's pattern and of A are sorted */
static inline PetscInt MatSpmvFactorFirstAtLeast(const PetscInt *j, PetscInt lo, PetscInt hi, PetscInt c)
{
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;

    if (j[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* the level of each unit of `unit` consecutive rows in L (upper: in U): 1 + the highest level of the
   units its entries outside the unit point to; returns the number of levels. The levels are also
   kept per row, so an entry's is one load, not a division by the unit and a load. Stops as soon as
   a level passes `limit` (then *nlevels > limit and level[] is incomplete). */
static PetscErrorCode MatSpmvFactorLevels(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscInt *diag, PetscInt unit, PetscBool upper, PetscInt limit, PetscInt *level, PetscInt *nlevels)
{
  const PetscInt nunits = (n + unit - 1) / unit;
  PetscInt      *rowlevel;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &rowlevel));
  *nlevels = 0;
  for (PetscInt v = 0; v < nunits; v++) { /* in a dependency order: L forward, U backward */
    const PetscInt u = upper ? nunits - 1 - v : v, r0 = u * unit, r1 = PetscMin(r0 + unit, n);
    PetscInt       l = 0;

    if (upper) /* rows and entries backward: one descending stream through A */
      for (PetscInt r = r1 - 1; r >= r0; r--)
        for (PetscInt p = ai[r + 1] - 1; p > diag[r] && aj[p] >= r1; p--) l = PetscMax(l, rowlevel[aj[p]]);
    else
      for (PetscInt r = r0; r < r1; r++)
        for (PetscInt p = ai[r]; p < diag[r] && aj[p] < r0; p++) l = PetscMax(l, rowlevel[aj[p]]);
    level[u] = l + 1;
    for (PetscInt r = r0; r < r1; r++) rowlevel[r] = l + 1;
    *nlevels = PetscMax(*nlevels, l + 1);
    if (*nlevels > limit) break;
  }
  PetscCall(PetscFree(rowlevel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows per unit: the candidate (8, the block size, 4, 2, 1) whose solve is estimated fastest, the
   smaller on a tie; *level (room for n) returns that candidate's levels in L. A level costs a
   dependency's latency plus its units' work, which a warp does row after row: levels x (1 + (unit - 1)
   x w / MATSPMV_UNIT_ENTRIES), w the entries per row of L. Fitted on the H200 to KSP ex56 -ne 47's
   ICC(0) (w = 40; units of 1/2/3/4/8 rows: 990/636/330/459/300 levels, 3.1/3.2/4.7/4.5/6.3 us per level
   and triangle): it takes the block size 3 there (MatSolve 0.40 s, 8-row units 0.48 s) and 8-row
   units on SNES ex19 (w = 10) and the 2D Laplacian (w = 2), as the fewest levels did. Grouping
   consecutive rows folds chains (a grid line's rows) into one level even without a block size:
   MPIAIJCUSPARSE's diagonal blocks carry none. A later candidate's count stops once it cannot win. */
static PetscErrorCode MatSpmvFactorChooseUnit(Mat_SpmvFactor *f, PetscInt bs, PetscInt *unit, PetscInt **level, PetscInt *nlevels)
{
  const PetscInt candidates[5] = {8, bs, 4, 2, 1};
  PetscReal      best = PETSC_MAX_REAL, perrow = 0;
  PetscInt      *trial;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < f->n; r++) perrow += (PetscReal)(f->diag[r] - f->i[r]);
  if (f->n) perrow /= (PetscReal)f->n;
  *nlevels = PETSC_INT_MAX;
  PetscCall(PetscMalloc1(f->n, &trial));
  for (int k = 0; k < 5; k++) {
    const PetscInt  c      = candidates[k];
    const PetscReal factor = 1.0 + (PetscReal)(c - 1) * perrow / MATSPMV_UNIT_ENTRIES;
    PetscInt        n, limit;

    if (c < 1 || c > MATSPMV_TRI_MAX_UNIT || (k == 1 && (c == 1 || c == 2 || c == 4 || c == 8))) continue;
    limit = best < PETSC_MAX_REAL ? (PetscInt)PetscMin((PetscReal)PETSC_INT_MAX, best / factor) + 1 : PETSC_INT_MAX;
    PetscCall(MatSpmvFactorLevels(f->n, f->i, f->j, f->diag, c, PETSC_FALSE, limit, trial, &n));
    if ((PetscReal)n * factor < best || ((PetscReal)n * factor == best && c < *unit)) {
      PetscInt *keep = *level;

      best     = (PetscReal)n * factor;
      *nlevels = n;
      *unit    = c;
      *level   = trial;
      trial    = keep;
    }
  }
  PetscCall(PetscFree(trial));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The settings this package does not take: drop tolerances, levels that are not a whole number,
   pivot shifts (ILU shifts nothing; ICC accepts PCICC's default positive-definite shift as long as no
   pivot needs it: the numeric phase reports one that would as a zero pivot) and orderings other
   than natural. why: the first one met ("" if none), hint: what the user can do, code: its error */
static PetscErrorCode MatSpmvFactorRefuses(Mat F, IS row, IS col, const MatFactorInfo *info, char *why, size_t len, const char **hint, PetscErrorCode *code)
{
  PetscBool identity;

  PetscFunctionBegin;
  why[0] = 0;
  *hint  = "";
  *code  = PETSC_ERR_SUP;
  if (info->levels < 0 || info->levels != (PetscInt)info->levels) {
    PetscCall(PetscSNPrintf(why, len, "%s with %g levels", F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU", (double)info->levels));
    *hint = "give a whole number of levels k >= 0";
    *code = PETSC_ERR_ARG_OUTOFRANGE;
  } else if (info->usedt) {
    PetscCall(PetscSNPrintf(why, len, "drop tolerances"));
    *hint = "use -pc_factor_mat_solver_type petsc";
  } else if (!(info->shifttype == (PetscReal)MAT_SHIFT_NONE || (F->factortype == MAT_FACTOR_ICC && info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE))) {
    PetscCall(PetscSNPrintf(why, len, "pivot shift %s", MatFactorShiftTypes[(int)info->shifttype]));
    *hint = "use -pc_factor_shift_type none, or -pc_factor_mat_solver_type petsc";
  }
  for (int k = 0; k < 2 && !why[0]; k++) {
    IS is = k ? col : row;

    if (!is) continue;
    PetscCall(ISIdentity(is, &identity));
    if (!identity) {
      PetscCall(PetscSNPrintf(why, len, "an ordering other than natural"));
      *hint = "use -pc_factor_mat_ordering_type natural";
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* asked for explicitly, the package stops with an error on a setting it does not take */
static PetscErrorCode MatSpmvFactorCheckInfo(Mat F, IS row, IS col, const MatFactorInfo *info)
{
  char           why[128];
  const char    *hint;
  PetscErrorCode code;

  PetscFunctionBegin;
  PetscCall(MatSpmvFactorRefuses(F, row, col, info, why, sizeof(why), &hint, &code));
  PetscCheck(!why[0], PETSC_COMM_SELF, code, "-pc_factor_mat_solver_type spmvfactor does not take %s: %s", why, hint);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f->i, f->j: a copy of the pattern ai, aj of f->n rows and f->nnz entries, the factor's own */
static PetscErrorCode MatSpmvFactorCopyPattern(Mat_SpmvFactor *f, const PetscInt *ai, const PetscInt *aj)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(f->n + 1, &f->i));
  PetscCall(PetscMalloc1(f->nnz, &f->j));
  PetscCall(PetscArraycpy(f->i, ai, f->n + 1));
  PetscCall(PetscArraycpy(f->j, aj, f->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A factor of a matrix on the GPU stays there unless its exact solves would be the slower: each level
   of units waits for the one before, so a chain of dependencies (a 1D problem's, a banded matrix's:
   SNES ex3's tridiagonal Jacobian, 125000 levels of 8-row units per triangle at 1M rows) takes the GPU
   0.27 s a solve and its numeric kernel 3.8 s, where PETSc's host factorization and solves took the
   whole SNESSolve in 0.68 s (one H200). Where auto's estimate of the host's solve, vectors copied each
   way, is at most half the GPU's, or the host is asked for, the factor becomes a host one: its pattern
   copied from A's (or the device-made ICC map copied down), then computed and applied by the host
   reference (host.c). Approximate solves (jacobi, isai) do not wait on levels: they stay. */
static PetscErrorCode MatSpmvFactorChoosePlace(Mat F)
{
  Mat_SpmvFactor *f     = (Mat_SpmvFactor *)F->data;
  const PetscReal tdev  = MATSPMV_DEVICE_SOLVE_SECONDS_PER_LEVEL * (PetscReal)(f->levels[0] + f->levels[1]);
  const PetscReal thost = MATSPMV_HOST_SOLVE_SECONDS_PER_NONZERO * (PetscReal)f->nnz + MATSPMV_HOST_SOLVE_SECONDS_PER_ROW * (PetscReal)f->n + MATSPMV_HOST_SOLVE_SECONDS;

  PetscFunctionBegin;
  if (!f->device || f->place == MATSPMV_SOLVE_DEVICE) PetscFunctionReturn(PETSC_SUCCESS);
  if (f->place == MATSPMV_SOLVE_AUTO && (f->trsv != MATSPMV_TRSV_EXACT || 2.0 * thost > tdev)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(F, "The factor on the host (%s): exact solves estimated %.3g ms on the GPU (%" PetscInt_FMT " + %" PetscInt_FMT " levels of units) against %.3g ms on the host\n", f->place == MATSPMV_SOLVE_HOST ? "-petscspmv_factor_solve host" : "its dependency levels", 1e3 * tdev, f->levels[0], f->levels[1], 1e3 * thost));
  if (f->borrowed) { /* A's pattern, read in place: the host factor keeps its own */
    const PetscInt *ai = f->i, *aj = f->j;

    f->i = f->j = NULL; /* never A's arrays freed by a reset after a failed copy */
    f->borrowed = PETSC_FALSE;
    PetscCall(MatSpmvFactorCopyPattern(f, ai, aj));
  }
  f->d_ai = f->d_aj = NULL;
#if defined(PETSC_HAVE_CUDA)
  if (f->d_vmap) { /* ICC's map made on the device: the host reference gathers A's values through it */
    PetscCall(MatSpmvCUDADownloadInt(&f->vmap, f->d_vmap, f->nnz));
    PetscCall(MatSpmvCUDAFree(f->d_vmap));
    f->d_vmap = NULL;
  }
#endif
  f->device = PETSC_FALSE;
  f->onhost = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's pattern in f->i, f->j (rows sorted) is set, in tpattern seconds: diagonal, unit, ranges,
   level orders, place (MatSpmvFactorChoosePlace()), device */
static PetscErrorCode MatSpmvFactorSetUp(Mat F, Mat A, PetscLogDouble tpattern)
{
  Mat_SpmvFactor *f = (Mat_SpmvFactor *)F->data;
  const PetscInt  n = f->n;
  PetscInt        bs, unit = 0, *level;
  PetscLogDouble  t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < n; r++) {
    const PetscInt p = MatSpmvFactorFirstAtLeast(f->j, f->i[r], f->i[r + 1], r);

    PetscCheck(p < f->i[r + 1] && f->j[p] == r, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Row %" PetscInt_FMT " has no diagonal entry: %s(%" PetscInt_FMT ") needs one in every row (insert explicit zeros, or MatShift())", r, F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU", f->fill);
    f->diag[r] = p;
  }
  PetscCall(MatSpmvFactorSetFromOptions(F, &unit));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(PetscMalloc1(n, &level));
  if (!unit) PetscCall(MatSpmvFactorChooseUnit(f, bs, &unit, &level, &f->levels[0]));
  else PetscCall(MatSpmvFactorLevels(n, f->i, f->j, f->diag, unit, PETSC_FALSE, PETSC_INT_MAX, level, &f->levels[0]));
  f->unit   = unit;
  f->nunits = (n + unit - 1) / unit;
  for (PetscInt r = 0; r < n; r++) { /* the unit's own rows: [lin, diag) in L, (diag, uout) in U */
    const PetscInt r0 = r - r % unit, r1 = PetscMin(r0 + unit, n);
    PetscInt       p = f->diag[r];

    while (p > f->i[r] && f->j[p - 1] >= r0) p--;
    f->lin[r] = p;
    p         = f->diag[r] + 1;
    while (p < f->i[r + 1] && f->j[p] < r1) p++;
    f->uout[r] = p;
  }
  PetscCall(PetscMalloc2(f->nunits, &f->order[0], f->nunits, &f->order[1]));
  PetscCall(MatSpmvUnitsByLevel(f->nunits, PETSC_FALSE, level, f->levels[0], f->order[0])); /* L's levels from above */
  PetscCall(MatSpmvFactorLevels(n, f->i, f->j, f->diag, unit, PETSC_TRUE, PETSC_INT_MAX, level, &f->levels[1]));
  PetscCall(MatSpmvUnitsByLevel(f->nunits, PETSC_TRUE, level, f->levels[1], f->order[1]));
  PetscCall(PetscFree(level));
  PetscCall(MatSpmvFactorChoosePlace(F));
  PetscCall(PetscTime(&t1));
#if defined(PETSC_HAVE_CUDA)
  if (f->device) PetscCall(MatSpmvCUDATriCreate(f, n));
#endif
  if (!f->device) PetscCall(PetscMalloc4(f->nnz, &f->a, n, &f->idiag, 2 * n, &f->work, f->nnz, &f->m));
  PetscCall(PetscTime(&t2));
  PetscCall(PetscInfo(F, "%s(%" PetscInt_FMT ") of %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros (%" PetscInt_FMT " in the matrix), units of %" PetscInt_FMT " rows: %" PetscInt_FMT " (L) and %" PetscInt_FMT " (U) levels of units, on the %s, %s solves (host: %.0f ms for the pattern, %.0f ms for units and levels, %.0f ms to upload%s)\n", F->factortype == MAT_FACTOR_ICC ? "ICC" : "ILU", f->fill, n, f->nnz, f->annz, f->unit, f->levels[0], f->levels[1], f->device ? "GPU" : "host", MatSpmvTrsvTypes[f->trsv], 1e3 * tpattern, 1e3 * (t1 - t0), 1e3 * (t2 - t1), f->d_ai ? "; the pattern is A's device CSR's" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFactorGetRows(Mat A, PetscInt *n, const PetscInt **ai, const PetscInt **aj)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, n, ai, aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot get the rows of %s", ((PetscObject)A)->type_name);
  PetscCheck(*n == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Incomplete factorization needs a square matrix, not %" PetscInt_FMT " x %" PetscInt_FMT, *n, A->cmap->n);
  PetscCheck((*ai)[*n] < PETSC_INT32_MAX && *n < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmvfactor takes fewer than 2^31 rows and nonzeros per process (here %" PetscInt_FMT " and %" PetscInt_FMT "): use more processes", *n, (*ai)[*n]);
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
      PetscCheck((PetscInt64)nnz + cnt < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmvfactor takes fewer than 2^31 nonzeros per process: ILU(%" PetscInt_FMT ") fills beyond that by row %" PetscInt_FMT "; use fewer levels or more processes", f->fill, r);
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

/* As PCFactor's default package of our types (MatSpmvFactorFallback_C composed by the layer), the
   reason to hand the factorization to cuSPARSE's, or "" to keep it: settings this package does not
   take (drop tolerances, pivot shifts, orderings other than natural), and rows of more than
   MATSPMV_DEFAULT_MAX_ROW nonzeros on average: ours was measured up to KSP ex56's 81 (ICC(0) KSPSolve
   0.37-0.39x cuSPARSE's, ICC(1) 0.53x; a 2D Laplacian's ICC(1) 0.50x, ICC(2) 0.37x: docs/results.md,
   "The exact solves' values as their own flags"), longer rows never */
#define MATSPMV_DEFAULT_MAX_ROW 96
static PetscErrorCode MatSpmvFactorDefaultDeclines(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info, char *why, size_t len)
{
  const char    *hint;
  PetscErrorCode code;
  MatInfo        minfo;
  PetscReal      mean;

  PetscFunctionBegin;
  PetscCall(MatSpmvFactorRefuses(F, row, col, info, why, len, &hint, &code));
  if (why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetInfo(A, MAT_LOCAL, &minfo));
  mean = A->rmap->n ? (PetscReal)minfo.nz_used / (PetscReal)A->rmap->n : 0;
  if (mean > MATSPMV_DEFAULT_MAX_ROW) PetscCall(PetscSNPrintf(why, len, "%.0f nonzeros per row on average (more than %d: longer rows than this package was measured on)", (double)mean, MATSPMV_DEFAULT_MAX_ROW));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ICC's pattern of a structurally symmetric A (a mesh's or a stencil's matrix) is A's own, each entry
   below the diagonal taking its value from its mirror image above. vmap (room for A's nonzeros)
   gets those positions, and the upper entries their own. A row's lower entries are met in
   increasing columns, so a cursor per row places them: one pass over the upper triangles and no new
   pattern (whose fresh pages cost more than the rest). *symmetric is false, vmap incomplete, where a
   mirrored entry finds no entry of A in its place or a lower entry has no mirror image. upper[r]:
   row r's first entry in a column >= r. */
static PetscErrorCode MatSpmvFactorMirrorInPlace(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscInt *upper, PetscInt *vmap, PetscBool *symmetric)
{
  PetscInt *cursor;

  PetscFunctionBegin;
  *symmetric = PETSC_TRUE;
  PetscCall(PetscMalloc1(n, &cursor));
  PetscCall(PetscArraycpy(cursor, ai, n));
  for (PetscInt c = 0; c < n && *symmetric; c++)
    for (PetscInt p = upper[c]; p < ai[c + 1]; p++) {
      const PetscInt r = aj[p];

      vmap[p] = p;
      if (r == c) continue;
      if (cursor[r] >= upper[r] || aj[cursor[r]] != c) {
        *symmetric = PETSC_FALSE;
        break;
      }
      vmap[cursor[r]++] = p;
    }
  for (PetscInt r = 0; r < n && *symmetric; r++) *symmetric = (PetscBool)(cursor[r] == upper[r]);
  PetscCall(PetscFree(cursor));
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
  PetscInt        n, nr, *next = NULL, *upper = NULL;
  PetscBool       done, symmetric = PETSC_FALSE;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  { /* PCFactor's default: this package, or cuSPARSE's where it declines (F becomes cuSPARSE's factor) */
    MatSpmvFactorFallbackFn fallback;
    char                    why[160];

    PetscCall(MatSpmvFactorGetFallback(F, &fallback));
    if (fallback) {
      PetscCall(MatSpmvFactorDefaultDeclines(F, A, row, col, info, why, sizeof(why)));
      if (why[0]) {
        PetscCall((*fallback)(F, A, row, col, info, why));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      PetscCall(PetscInfo(A, "MATSOLVERSPMVFACTOR, PCFactor's default package for %s, takes the %s factorization\n", ((PetscObject)A)->type_name, MatFactorTypes[F->factortype]));
    }
  }
  PetscCall(MatSpmvFactorCheckInfo(F, row, col, info));
  PetscCall(PetscTime(&t0));
  PetscCall(MatSpmvFactorReset(f));
  PetscCall(MatSpmvValuesOnDevice(A, &f->device)); /* the factor is then built and solved on the GPU */
  PetscCall(MatSpmvFactorGetRows(A, &n, &ai, &aj));
  f->n    = n;
  f->annz = ai[n];
  f->nnz  = ai[n];
  f->fill = (PetscInt)info->levels;
#if defined(PETSC_HAVE_CUDA)
  if (f->device && !f->fill) { /* A's pattern is on the device: the factor's pattern (ILU(0), ICC(0) of a symmetric pattern) is copied there, ICC's map made there */
    PetscBool usable;

    PetscCall(MatSpmvDeviceCSRUsable(A, &usable));
    if (usable) PetscCall(MatSpmvCUSPARSEGetIJ(A, &f->d_ai, &f->d_aj));
    if (usable && icc) {
      PetscCall(MatSpmvCUDAFactorMirror(n, f->annz, f->d_ai, f->d_aj, &f->d_vmap));
      symmetric = (PetscBool)(f->d_vmap != NULL);
    }
  }
#endif
  if (icc && !symmetric) { /* only the upper triangles are read: each row's first upper entry by a binary search */
    PetscCall(PetscMalloc1(n, &upper));
    for (PetscInt r = 0; r < n; r++) upper[r] = MatSpmvFactorFirstAtLeast(aj, ai[r], ai[r + 1], r);
    PetscCall(PetscMalloc1(f->annz, &f->vmap));
    PetscCall(MatSpmvFactorMirrorInPlace(n, ai, aj, upper, f->vmap, &symmetric));
    if (!symmetric) PetscCall(PetscFree(f->vmap));
  }
  if (icc && !symmetric) {    /* the pattern of the upper triangle and its mirror image */
    f->d_ai = f->d_aj = NULL; /* not A's */
    PetscCall(PetscCalloc1(n + 1, &next));
    for (PetscInt r = 0; r < n; r++) { /* row r: column r's upper entries mirrored, then row r's own */
      next[r + 1] += ai[r + 1] - upper[r];
      for (PetscInt p = upper[r]; p < ai[r + 1]; p++)
        if (aj[p] > r) next[aj[p] + 1]++;
    }
    for (PetscInt r = 0; r < n; r++) next[r + 1] += next[r];
    f->nnz = next[n];
    PetscCheck(f->nnz < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_factor_mat_solver_type spmvfactor takes fewer than 2^31 nonzeros per process (here %" PetscInt_FMT " in the symmetric pattern): use more processes", f->nnz);
    PetscCall(PetscMalloc1(n + 1, &f->i));
    PetscCall(PetscMalloc1(f->nnz, &f->j));
    PetscCall(PetscMalloc1(f->nnz, &f->vmap));
    PetscCall(PetscArraycpy(f->i, next, n + 1));
    for (PetscInt r = 0; r < n; r++) /* mirrored entries land in increasing r: rows stay sorted */
      for (PetscInt p = upper[r]; p < ai[r + 1]; p++)
        if (aj[p] > r) {
          f->j[next[aj[p]]]      = r;
          f->vmap[next[aj[p]]++] = p;
        }
    for (PetscInt r = 0; r < n; r++) { /* then the row's own upper entries, in one piece */
      const PetscInt len = ai[r + 1] - upper[r];

      PetscCall(PetscArraycpy(f->j + next[r], aj + upper[r], len));
      for (PetscInt k = 0; k < len; k++) f->vmap[next[r] + k] = upper[r] + k;
    }
    PetscCall(PetscFree(next));
  } else if (f->device && !f->fill) { /* A's own pattern, read in place until it is on the device */
    f->i        = (PetscInt *)ai;
    f->j        = (PetscInt *)aj;
    f->borrowed = PETSC_TRUE;
  } else {
    f->d_ai = f->d_aj = NULL; /* a copy for the host, or with fill */
    PetscCall(MatSpmvFactorCopyPattern(f, ai, aj));
  }
  PetscCall(PetscFree(upper));
  if (f->fill) PetscCall(MatSpmvFactorFill(f));
  PetscCall(PetscMalloc3(n, &f->diag, n, &f->lin, n, &f->uout));
  PetscCall(PetscTime(&t1));
  PetscCall(MatSpmvFactorSetUp(F, A, t1 - t0));
  MatSpmvFactorReturnPattern(f);                                                    /* the device has the pattern; the host solves are not used */
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done)); /* sets nr to 0 */
  PetscCall(MatSpmvTransposeFactorSymbolic(F, NULL, NULL, info));                   /* ILU's transpose solves: natural ordering */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatILUFactorSymbolic_SpmvFactor(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvFactorSymbolic(F, A, row, col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatICCFactorSymbolic_SpmvFactor(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvFactorSymbolic(F, A, perm, perm, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

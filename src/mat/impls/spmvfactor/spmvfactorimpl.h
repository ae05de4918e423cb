#pragma once
/*
  The solver package "spmvfactor" (MATSOLVERSPMVFACTOR): ILU(k) and ICC(k) factors whose numeric
  factorization and triangular solves run without level synchronization.

  The factor M = L + U - I has A's CSR pattern (ICC: A's upper triangle and its mirror image;
  L unit lower, U upper), with ILU(k)/ICC(k) the fill of levels up to k added. Rows are taken in units
  of `unit` consecutive rows, one warp per unit: the size among 1, 2, 4, 8 and A's block size whose solve is
  estimated fastest, levels x the units' work (ex19: 8, two grid points; a five-point Laplacian: 8
  rows of a grid line, whose chain then costs one level instead of eight; KSP ex56: its 3-row
  blocks), or -petscspmv_factor_trsv_unit. A unit
  waits only on the units its entries outside the unit point to: in the factorization through one
  completion flag per unit, in the solves on the x values themselves (pending until stored, see
  trsv.cu); inside a unit the warp applies the inverse of the unit's diagonal block. Warps take units
  from an atomic counter in order of dependency level (1 + the highest level of the units a unit
  waits on; U's levels counted from the last row), so a warp only ever waits on units already
  taken by running warps: no deadlock at any occupancy. In level order the warps resident at a
  time work on a few consecutive levels; in the natural order they would hold a band of rows with
  few units ready, and the solves were slower than cuSPARSE's (docs/results.md,
  "ILU(0) and ICC(0) by MATSOLVERSPMVFACTOR next to cuSPARSE's"). Flags hold the number of the launch
  that completed them, so nothing is reset between factorizations.

  The package's files: factor.c (Mat plumbing, registration), settings.c (options, reset, the hand-over
  to cuSPARSE's package), symbolic.c (pattern, fill, levels, units, orders, place), host.c (the host reference,
  also the factor of a matrix on the GPU whose dependency levels put it on the host),
  ilu.cu (the numeric factorization's kernels, and cuSPARSE's csrilu02 as the other device numeric
  phase), trsv.cu (the factor's device arrays and the solves). From the shared layer it
  uses only spmvbase.h (device services, aijcusparse access) and, in its .cu files, spmvkernels.h and spmvsyncfree.h.
*/
#include <petsc/private/matimpl.h>
#include <petscspmv.h> /* MATSOLVERSPMVFACTOR */
#include "../spmvlayer/spmvbase.h"

/* ILU: a pivot row this many times longer than the rest of the row it eliminates from is searched
   for that row's columns instead of walked (an arrow matrix's dense row: O(n) rows would each walk
   it), in the host reference and the device kernel alike */
#define MATSPMV_ILU_LONG_PIVOT 16

#define MATSPMV_TRI_WARPS    4  /* warps per thread block */
#define MATSPMV_TRI_SLEEP_NS 32 /* between polls of a flag: spare L2 (no sleep: slower on a Laplacian; docs/results.md, "ILU(0) and ICC(0) by MATSOLVERSPMVFACTOR next to cuSPARSE's") */
#define MATSPMV_TRI_MAX_UNIT 8  /* rows per unit: each lane of a warp holds at most 2 coefficients of a block inverse */

/* row ranges of the factor's pattern, per row r of unit [r0, r0 + unit):
     L outside the unit [i[r], lin[r]), L inside [lin[r], diag[r]), the diagonal diag[r],
     U inside (diag[r], uout[r]), U outside [uout[r], i[r + 1]) */
typedef struct {
  PetscInt n, nnz, unit, nunits;
  int      chunk; /* entries a lane of the exact solves reads at once (4 or 8) */
  /* device arrays (int indices: sizes checked at the symbolic phase) */
  int                *i, *j, *diag, *lin, *uout;
  int                *order[2];  /* units in the order warps take them: by level in L, in U */
  int                *vmap;      /* entry of A's values behind each factor entry (ICC, fill: -1), or NULL: A's pattern */
  PetscScalar        *a, *idiag; /* factor values, inverse pivots */
  PetscScalar        *binv[2];   /* per unit, row by row: inverse of its diagonal block of L, of U */
  int                *flags;     /* per unit: the number of the factorization launch that completed it */
  unsigned long long *counter;   /* units handed out, over all launches */
  int                *status;    /* first zero pivot's row + 1 (0: none) */
  PetscScalar        *y;         /* L's solution, U's right-hand side */
  PetscScalar        *t;         /* the sweeps' other iterate */
  PetscScalar        *m;         /* ISAI: the approximate inverses of L (below the diagonal; its diagonal is 1) and of U, on the factor's pattern, or NULL */
  void               *cusparse;  /* cuSPARSE's csrilu02 (handle, descriptor, analysis, buffer), or NULL */
  int                 launch;    /* number of the last launch */
  unsigned long long  taken;     /* counter value before the next launch */
} MatSpmvTriDevice;

/* how MatSolve() applies the factors: exactly, by block-Jacobi sweeps over units, or by incomplete
   sparse approximate inverses of L and U (approximations: they change the preconditioner, not the
   factors) */
typedef enum {
  MATSPMV_TRSV_EXACT,
  MATSPMV_TRSV_JACOBI,
  MATSPMV_TRSV_ISAI
} MatSpmvTrsvType;
PETSC_INTERN const char *const MatSpmvTrsvTypes[]; /* settings.c */

/* where the numeric phase of a factor on the GPU runs: this package's kernel, cuSPARSE's csrilu02
   (ILU(0) on A's own pattern: the factor's layout is its CSR), or the host reference, whose values
   are then uploaded. The kernel follows the dependency chain row by row inside a unit: on a 2D
   grid in natural order with few rows per level (TS ADR ex5's Jacobian, 575 levels of 8-row units)
   it took ~20 ms where cuSPARSE's level-scheduled csrilu02 takes ~2 ms (docs/results.md). auto
   measures the kernel at the first numeric phase, then cuSPARSE's and the host's once each where
   they can take the factor (the host only where the best so far is slower than the host could be),
   then keeps the fastest for the factor's pattern */
typedef enum {
  MATSPMV_NUMERIC_AUTO,
  MATSPMV_NUMERIC_DEVICE,
  MATSPMV_NUMERIC_CUSPARSE,
  MATSPMV_NUMERIC_HOST
} MatSpmvNumericType;
PETSC_INTERN const char *const MatSpmvNumericTypes[]; /* settings.c */

/* where the factor of a matrix on the GPU lives (-petscspmv_factor_solve): auto (the GPU, or the host where
   a chain of dependency levels makes the GPU's exact solve the slower: MatSpmvFactorChoosePlace()), the
   GPU, or the host (its numeric phase and solves there, the vectors copied each way) */
typedef enum {
  MATSPMV_SOLVE_AUTO,
  MATSPMV_SOLVE_DEVICE,
  MATSPMV_SOLVE_HOST
} MatSpmvSolvePlace;
PETSC_INTERN const char *const MatSpmvSolvePlaces[]; /* settings.c */

/* the estimates behind auto's place: the GPU's exact solve waits about a microsecond for each level of
   units, one after the other (SNES ex3's tridiagonal Jacobian of 1M rows, one H200: 0.27 s a solve over 2 x
   125000 levels); the host's takes a few ns a factor nonzero (PETSc's MatSolve there: 5-10 ms for 3M)
   and copies both vectors through pageable memory, with a fixed cost for the copies' latencies and
   the synchronizations they bring (set high: a small factor with few levels stays on the GPU). The
   host is taken where its estimate is at most half the GPU's */
#define MATSPMV_DEVICE_SOLVE_SECONDS_PER_LEVEL 1.0e-6
#define MATSPMV_HOST_SOLVE_SECONDS_PER_NONZERO 3.0e-9
#define MATSPMV_HOST_SOLVE_SECONDS_PER_ROW     3.2e-9
#define MATSPMV_HOST_SOLVE_SECONDS             5.0e-5

/* half the least time per factor nonzero a host numeric phase and its upload have taken (8-16 ns on
   TS ADR ex5, SNES ex5 and ex19's ILU(0), one H100 host): a device phase faster than this is kept
   without trying the host */
#define MATSPMV_HOST_NUMERIC_SECONDS_PER_NONZERO 4.0e-9

typedef struct {
  PetscInt           n, nnz, unit, nunits;
  PetscInt           fill;                      /* k of ILU(k)/ICC(k) */
  PetscInt           annz;                      /* A's nonzeros (ICC: the factor mirrors A's upper triangle) */
  PetscInt          *vmap;                      /* ICC: the entry of A's values behind each factor entry; NULL: A's own pattern */
  PetscInt          *i, *j, *diag, *lin, *uout; /* see MatSpmvTriDevice */
  PetscInt           levels[2];                 /* levels of units in L and in U */
  PetscInt          *order[2];                  /* units by level in L, in U */
  MatSpmvTrsvType    trsv;
  PetscInt           sweeps;               /* jacobi: sweeps per triangle after the first block-diagonal solve */
  PetscScalar       *a, *idiag, *work, *m; /* the factor on the host (host matrices; a factor placed there), 2 n of room for the sweeps, ISAI's inverses */
  PetscBool          device;
  MatSpmvSolvePlace  place;       /* -petscspmv_factor_solve */
  PetscBool          onhost;      /* a matrix on the GPU whose factor auto or the option put on the host */
  MatSpmvNumericType numeric;     /* a factor on the GPU: where its numeric phase runs (-petscspmv_factor_numeric) */
  PetscLogDouble     tnumeric[4]; /* seconds of the last numeric phase at each MatSpmvNumericType but auto (0: not measured) */
  PetscScalar       *pinned;      /* a factor on the GPU factored on the host: its values and inverse pivots (page-locked; a, idiag point into it) */
  PetscBool          borrowed;    /* i, j are A's own (the symbolic phase of a factor on the device reads them in place) */
  const int         *d_ai, *d_aj; /* A's device CSR pattern, when it is the factor's (until the factor's device arrays are made) */
  int               *d_vmap;      /* ICC: vmap made on the device (then vmap is NULL), until the factor's device arrays take it */
  MatSpmvTriDevice   d;
} Mat_SpmvFactor;

/* ---- the Mat plumbing (factor.c) ---- */

/* ---- the settings (settings.c) ---- */
PETSC_INTERN PetscErrorCode MatSpmvFactorReset(Mat_SpmvFactor *);
/* gives A's pattern back (f->i, f->j no longer point into it); nothing where f owns its own */
static inline void MatSpmvFactorReturnPattern(Mat_SpmvFactor *f)
{
  if (!f->borrowed) return;
  f->i        = NULL;
  f->j        = NULL;
  f->d_ai     = NULL;
  f->d_aj     = NULL;
  f->borrowed = PETSC_FALSE;
}
/* As PCFactor's default package, the layer's hand-over of F to cuSPARSE's package (F replaced in place,
   its symbolic phase done; the last argument says why, for -info); NULL where spmv was asked for */
typedef PetscErrorCode (*MatSpmvFactorFallbackFn)(Mat, Mat, IS, IS, const MatFactorInfo *, const char *);
PETSC_INTERN PetscErrorCode MatSpmvFactorGetFallback(Mat, MatSpmvFactorFallbackFn *);
/* the solver's options (F's prefix): *unit from -petscspmv_factor_trsv_unit, f->trsv, f->sweeps */
PETSC_INTERN PetscErrorCode MatSpmvFactorSetFromOptions(Mat, PetscInt *);

/* ---- the symbolic phase (symbolic.c) ---- */
PETSC_INTERN PetscErrorCode MatILUFactorSymbolic_SpmvFactor(Mat, Mat, IS, IS, const MatFactorInfo *);
PETSC_INTERN PetscErrorCode MatICCFactorSymbolic_SpmvFactor(Mat, Mat, IS, const MatFactorInfo *);
/* A's host rows (MatGetRowIJ(), checked: square, sizes in 32 bits); MatRestoreRowIJ() gives them back */
PETSC_INTERN PetscErrorCode MatSpmvFactorGetRows(Mat, PetscInt *, const PetscInt **, const PetscInt **);

/* ---- the host reference (host.c) ---- */
PETSC_INTERN PetscErrorCode MatSpmvILUHost(Mat_SpmvFactor *, const PetscScalar *, PetscReal, PetscBool, PetscInt *);
PETSC_INTERN PetscErrorCode MatSpmvISAIHost(Mat_SpmvFactor *);
PETSC_INTERN void           MatSpmvTriSolveHost(const Mat_SpmvFactor *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void           MatSpmvTriSweepsHost(const Mat_SpmvFactor *, const PetscScalar *, PetscScalar *);
PETSC_INTERN void           MatSpmvISAISolveHost(const Mat_SpmvFactor *, const PetscScalar *, PetscScalar *);

/* ---- the device side: trsv.cu (the factor's device arrays, the solves), ilu.cu (the numeric phase) ---- */
/* ilu.cu: the factorization's kernels loaded ahead of the first numeric phase; cuSPARSE's csrilu02 state freed */
PETSC_INTERN PetscErrorCode MatSpmvCUDAILUPreload(void);
PETSC_INTERN PetscErrorCode MatSpmvCUDAILUCuSPARSEDestroy(MatSpmvTriDevice *);
/* f->d, the factor of n rows on the device from the host symbolic phase's arrays of f; the pattern
   copied on the device from A's device CSR where f->d_ai, f->d_aj are set, the device-made map of
   values f->d_vmap taken over where set */
PETSC_INTERN PetscErrorCode MatSpmvCUDATriCreate(Mat_SpmvFactor *, PetscInt);
/* ICC's map of values (vmap) of a structurally symmetric A from its device CSR (n rows, nnz
   entries), in a new device array; NULL where A's pattern is not symmetric */
PETSC_INTERN PetscErrorCode MatSpmvCUDAFactorMirror(PetscInt, PetscInt, const int *, const int *, int **);
PETSC_INTERN PetscErrorCode MatSpmvCUDATriDestroy(MatSpmvTriDevice *);
/* ILU on the factor's pattern of A's device CSR values (gathered through vmap where set, fill zero): M's values and inverse pivots;
   *zeropivotrow is the first row whose pivot has magnitude (positive: real part) <= zeropivot, or -1 */
PETSC_INTERN PetscErrorCode MatSpmvCUDAILU(MatSpmvTriDevice *, const PetscScalar *, PetscReal, PetscBool, PetscInt *);
/* cuSPARSE's ILU(0) of A's device CSR values on the factor's pattern, which must be A's (no vmap): its analysis
   (once), then the factorization, the inverse pivots and the units' block inverses; as MatSpmvCUDAILU() */
PETSC_INTERN PetscErrorCode MatSpmvCUDAILUCuSPARSESetUp(MatSpmvTriDevice *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAILUCuSPARSE(MatSpmvTriDevice *, const PetscScalar *, PetscReal, PetscBool, PetscInt *);
/* the factor's values and inverse pivots computed on the host (the host reference's layout, which is the
   device's) copied to the device, the units' block inverses made from them; returns when done */
PETSC_INTERN PetscErrorCode MatSpmvCUDATriSetValues(MatSpmvTriDevice *, const PetscScalar *, const PetscScalar *);
/* x = U^{-1} L^{-1} b, device arrays */
PETSC_INTERN PetscErrorCode MatSpmvCUDATriSolve(MatSpmvTriDevice *, const PetscScalar *, PetscScalar *);
/* x = U^{-1} L^{-1} b approximated: per triangle, x = (block inverse of the units) b, then `sweeps`
   block-Jacobi sweeps (-petscspmv_factor_trsv jacobi) */
PETSC_INTERN PetscErrorCode MatSpmvCUDATriSweeps(MatSpmvTriDevice *, PetscInt, const PetscScalar *, PetscScalar *);
/* the incomplete sparse approximate inverses of L and U on their own patterns (-petscspmv_factor_trsv isai),
   from the factor's values; then x = M_U M_L b, two products */
PETSC_INTERN PetscErrorCode MatSpmvCUDAISAISetUp(MatSpmvTriDevice *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAISAISolve(MatSpmvTriDevice *, const PetscScalar *, PetscScalar *);

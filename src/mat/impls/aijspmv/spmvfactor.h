#pragma once
/*
  The solver package "spmv" (MATSOLVERSPMV): ILU(k) and ICC(k) factors whose numeric
  factorization and triangular solves run without level synchronization.

  The factor M = L + U - I has A's CSR pattern (ICC: A's upper triangle and its mirror image;
  L unit lower, U upper), with ILU(k)/ICC(k) the fill of levels up to k added. Rows are taken in units
  of `unit` consecutive rows, one warp per unit: the size among 1, 2, 4, 8 and A's block size with
  the fewest dependency levels (ex19: 4, a grid point's unknowns; a five-point Laplacian: 8 rows of
  a grid line, whose chain then costs one level instead of eight), or -mat_spmv_trsv_unit. A unit
  waits only on the units its entries outside the unit point to, through one completion flag per
  unit; inside a unit the warp applies the inverse of the unit's diagonal block. Warps take units
  from an atomic counter in order of dependency level (1 + the highest level of the units a unit
  waits on; U's levels counted from the last row), so a warp only ever waits on units already
  taken by running warps: no deadlock at any occupancy. In level order the warps resident at a
  time work on a few consecutive levels; in the natural order they would hold a band of rows with
  few units ready (SNES ex19 256 x 256 on the H200: 10.3 ms per solve in the natural order,
  against cuSPARSE's 7.2). Flags hold the number of the launch that completed them, so nothing is
  reset between solves.
*/
#include "aijspmvimpl.h"

#define MATSPMV_TRI_MAX_UNIT 8 /* rows per unit: each lane of a warp holds at most 2 coefficients of a block inverse */

/* row ranges of the factor's pattern, per row r of unit [r0, r0 + unit):
     L outside the unit [i[r], lin[r]), L inside [lin[r], diag[r]), the diagonal diag[r],
     U inside (diag[r], uout[r]), U outside [uout[r], i[r + 1]) */
typedef struct {
  PetscInt n, nnz, unit, nunits;
  /* device arrays (int indices: sizes checked at the symbolic phase) */
  int                *i, *j, *diag, *lin, *uout;
  int                *order[2];  /* units in the order warps take them: by level in L, in U */
  int                *vmap;      /* entry of A's values behind each factor entry (ICC, fill: -1), or NULL: A's pattern */
  PetscScalar        *a, *idiag; /* factor values, inverse pivots */
  PetscScalar        *binv[2];   /* per unit, row by row: inverse of its diagonal block of L, of U */
  int                *flags;     /* per unit: the launch number that completed it */
  unsigned long long *counter;   /* units handed out, over all launches */
  int                *status;    /* first zero pivot's row + 1 (0: none) */
  PetscScalar        *y;         /* L's solution, U's right-hand side */
  PetscScalar        *t;         /* the sweeps' other iterate */
  PetscScalar        *m;         /* ISAI: the approximate inverses of L (below the diagonal; its diagonal is 1) and of U, on the factor's pattern, or NULL */
  int                 launch;    /* number of the last launch */
  unsigned long long  taken;     /* counter value before the next launch */
} MatSpmvTriDevice;

PETSC_INTERN PetscErrorCode MatSpmvCUDATriCreate(MatSpmvTriDevice *, PetscInt, PetscInt, PetscInt, const PetscInt *, const PetscInt *, const PetscInt *, const PetscInt *, const PetscInt *, PetscInt *const[2], const PetscInt *);
PETSC_INTERN PetscErrorCode MatSpmvCUDATriDestroy(MatSpmvTriDevice *);
/* ILU on the factor's pattern of A's device CSR values (gathered through vmap where set, fill zero): M's values and inverse pivots;
   *zeropivotrow is the first row whose pivot has magnitude (positive: real part) <= zeropivot, or -1 */
PETSC_INTERN PetscErrorCode MatSpmvCUDAILU(MatSpmvTriDevice *, const PetscScalar *, PetscReal, PetscBool, PetscInt *);
/* x = U^{-1} L^{-1} b, device arrays */
PETSC_INTERN PetscErrorCode MatSpmvCUDATriSolve(MatSpmvTriDevice *, const PetscScalar *, PetscScalar *);
/* x = U^{-1} L^{-1} b approximated: per triangle, x = (block inverse of the units) b, then `sweeps`
   block-Jacobi sweeps (-mat_spmv_trsv jacobi) */
PETSC_INTERN PetscErrorCode MatSpmvCUDATriSweeps(MatSpmvTriDevice *, PetscInt, const PetscScalar *, PetscScalar *);
/* the incomplete sparse approximate inverses of L and U on their own patterns (-mat_spmv_trsv isai),
   from the factor's values; then x = M_U M_L b, two products */
PETSC_INTERN PetscErrorCode MatSpmvCUDAISAISetUp(MatSpmvTriDevice *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAISAISolve(MatSpmvTriDevice *, const PetscScalar *, PetscScalar *);

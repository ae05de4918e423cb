#pragma once
/*
  Sparse matrix-matrix products on the device for the products PETSc's multigrid takes with our
  matrices (GAMG's smoothed prolongator A P, its Galerkin P^T A P, PCMG's -pc_mg_galerkin) and those
  a user calls: C = A B row by row (Gustavson), each product of transposes made an A B of explicit
  transposes (A^T B, A B^T; P^T A P = P^T (A P), R A R^T = R (A R^T)).

  Symbolic: each row's upper bound (the products a_ik b_kj it forms) bins the rows; a group of threads
  (a warp to a block) inserts a row's columns into a hash table in shared memory, counting them, then
  again writing them; a row whose columns do not fit its table goes to tables in global memory, in
  batches bounded by -petscspmv_spgemm_batch slots, so no buffer is sized by the intermediate products.
  The columns are then sorted within rows (CUB's segmented sort). Numeric: for the pattern found, each
  product's column is found by binary search in its row (loaded into shared memory where it fits) and
  its value added there; a new numeric phase (new values, same pattern) runs this alone.

  Counts are 64-bit where they can pass 2^31 (a row's and the total upper bound); C's entries must fit
  PetscInt and aijcusparse's int offsets, else a clear error. Sums are in no fixed order (atomics), as
  cuSPARSE's: the last bits of an entry may differ between runs.

  spgemm.c: the products' plumbing (which products it takes, the product data, C made an aijcusparse
  matrix); spgemm.cu: the kernels. Of the layer it uses only spmvbase.h.
*/
#include <petsc/private/matimpl.h>
#include "../spmvlayer/spmvbase.h"

#define MATSPMV_SPGEMM_BINS 6 /* row bins of each phase, the last the rows of global tables (symbolic) or global sums (numeric) */

/* what a symbolic phase leaves for the numeric ones */
typedef struct {
  PetscInt m, n, nnz;                    /* C: m x n, nnz entries */
  int     *ci, *cj;                      /* device: C's pattern, until the plumbing has given it to C (then NULL) */
  int     *rows;                         /* device: C's rows in numeric bin order */
  PetscInt bin[MATSPMV_SPGEMM_BINS + 2]; /* rows[bin[b]..bin[b+1]) in numeric bin b */
  PetscInt sub;                          /* threads per entry of the left operand (lanes that share a right row) */
  double   products;                     /* the sum of the rows' upper bounds: 2x the flops */
  PetscInt globalrows;                   /* rows whose columns went to global tables */
  PetscInt batches;                      /* their batches */
  size_t   peakbytes;                    /* largest device work memory the symbolic phase held at once */
} MatSpmvSpGEMMPlan;

typedef struct {
  PetscInt sharedmax; /* slots of the largest shared-memory hash table (power of 2, >= 32) */
  PetscInt batch;     /* slots of global tables at once */
} MatSpmvSpGEMMOptions;

/* ---- spgemm.cu ---- */
PETSC_INTERN PetscErrorCode MatSpmvCUDASpGEMMSymbolic(const MatSpmvDeviceCSR *, const MatSpmvDeviceCSR *, const MatSpmvSpGEMMOptions *, MatSpmvSpGEMMPlan *);
PETSC_INTERN PetscErrorCode MatSpmvCUDASpGEMMNumeric(const MatSpmvSpGEMMPlan *, const MatSpmvDeviceCSR *, const MatSpmvDeviceCSR *, const int *, const int *, PetscScalar *);
PETSC_INTERN PetscErrorCode MatSpmvCUDASpGEMMPlanReset(MatSpmvSpGEMMPlan *);
PETSC_INTERN PetscErrorCode MatSpmvCUDASpGEMMFingerprint(const MatSpmvDeviceCSR *, unsigned long long *);

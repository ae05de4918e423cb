#pragma once
/*
  MatSOR() on the device for matrices whose CSR aijcusparse keeps there (our sequential types, the
  blocks of our MPI types, aijcusparse results of our products): PETSc's point SOR (MatSOR_SeqAIJ(),
  which is what PETSc runs on the host for these matrices: aijcusparse turns inodes off), with its
  flags, omega, fshift, its and lits, in PETSc's natural row order, so the iterations are PETSc's.

  A sweep is a triangular solve: forward, row i takes
      x_i = (1 - omega) xold_i + idiag_i (b_i - sum_{j < i} a_ij x_j - sum_{j > i} a_ij xold_j),
  idiag_i = omega / (fshift + a_ii) (1 / a_ii where PETSc takes that: omega 1, fshift <= 0); backward the
  same from the last row. The zero initial guess drops xold. Rows go in units of up to 8 consecutive rows
  (cut also where a row does not depend on the one before it: grid lines), one warp each; a unit waits only on the units its entries before it (backward: after it) point to,
  on the x values themselves (pending until stored, as MATSOLVERSPMVFACTOR's solves); inside the unit the
  warp substitutes row by row through shuffles. Warps take units from an atomic counter in order of
  dependency level, so a warp waits only on units already taken (no deadlock at any occupancy). Each
  sweep writes a second buffer (the old values are read beside the new ones): two sweeps (a symmetric
  one) end where they started.

  Nothing of the matrix is copied: the kernels read aijcusparse's device CSR in place. Per nonzero
  pattern: the units' orders (host levels, uploaded); per values, omega and fshift: idiag.

  sor.c: the Mat plumbing (when the device takes a call, the plan, the sweeps of a call); sor.cu: the
  kernels. Of the layer it uses only spmvbase.h.
*/
#include <petsc/private/matimpl.h>
#include "../spmvlayer/spmvbase.h"

#define MATSPMV_SOR_MAX_UNIT 8 /* rows per unit: a lane then holds at most 2 of its row's entries inside the unit */

typedef struct {
  PetscInt n, nnz, unit, nunits; /* unit: most rows a unit holds */
  PetscInt levels[2];            /* dependency levels of the units: forward, backward */
  int     *start;                /* device: each unit's first row, and n */
  int     *order[2];             /* device: units in the order warps take them, forward and backward */
  /* idiag for these values, omega and fshift */
  PetscScalar       *idiag;
  PetscObjectState   valuestate;
  PetscReal          omega;
  PetscReal          fshift; /* MatSOR()'s shift is real (and a complex value by value would sit at another offset in C and CUDA) */
  PetscBool          idiagset;
  PetscScalar       *work;         /* device: the sweeps' second buffer */
  PetscScalar       *stage[2];     /* device: b and x of host vectors */
  int               *status;       /* device: first zero diagonal's row + 1 */
  void              *counter;      /* device: units handed out, over all launches */
  unsigned long long taken;        /* the counter's value before the next launch */
  PetscObjectState   nonzerostate; /* pattern the plan was made for */
  PetscBool          planned;
  PetscBool3         deviceopt; /* -petscspmv_sor_device: true or false forces the path, unset: by cost */
  PetscInt           unitopt;   /* -petscspmv_sor_unit, 0: chosen */
  PetscBool          optionsread, saidhost;
  /* the path of this pattern's sweeps, chosen when it is planned, and why */
  PetscBool      ondevice;
  PetscReal      costdevice, costhost; /* predicted microseconds of a symmetric sweep's call on each path */
  PetscInt       trial;                /* calls left of a trial of both paths (predictions too close to call), 0: none */
  PetscLogDouble trialtime[2];         /* its timed calls, device and host, seconds */
  char           why[320];
} Mat_SpmvSOR;

/* ---- sor.cu ---- */
PETSC_INTERN PetscErrorCode MatSpmvCUDASORCreate(Mat_SpmvSOR *, const PetscInt *, const PetscInt *, const PetscInt *);
PETSC_INTERN PetscErrorCode MatSpmvCUDASORDestroy(Mat_SpmvSOR *);
/* idiag from A's device CSR values, omega and fshift; *zerorow: the first row whose diagonal is zero, or -1 */
PETSC_INTERN size_t         MatSpmvCUDASORBytes(void); /* sizeof Mat_SpmvSOR as sor.cu sees it (must be C's) */
PETSC_INTERN PetscErrorCode MatSpmvCUDASORDiagonal(Mat_SpmvSOR *, const MatSpmvDeviceCSR *, PetscReal, PetscReal, PetscInt *, void *);
/* one sweep with idiag's omega: xnew from b and xold (NULL: the zero initial guess), forward or backward */
PETSC_INTERN PetscErrorCode MatSpmvCUDASORSweep(Mat_SpmvSOR *, const MatSpmvDeviceCSR *, PetscBool, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);

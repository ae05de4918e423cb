#pragma once
/* GAMG's set-up for our matrices (issue 51): the host reference of the coarsening, for now */
#include <petscmat.h>

#define MATCOARSENSPMVMIS "spmvmis"

/* The aggregates of the graph of n local rows (CSR ai, aj; the diagonal may be present) around a
   maximal independent set at distance 1 or 2: agg[i] the aggregate of row i (-1: isolated), roots[a]
   the root of aggregate a, *nagg their number. rstart: the first row's global index (the priorities') */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateHost(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscInt, PetscInt, PetscInt[], PetscInt[], PetscInt *);
/* MatCoarsen type "spmvmis" */
PETSC_INTERN PetscErrorCode MatCoarsenRegister_SpmvMIS(void);

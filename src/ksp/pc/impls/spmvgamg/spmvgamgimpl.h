#pragma once
/* GAMG's set-up for our matrices (issue 51): the coarsening, host reference (mis.c) and device (device/aggregate.cu) */
#include <petscmat.h>

#define MATCOARSENSPMVMIS "spmvmis"

/* what mis.c and device/aggregate.cu share, so that their priorities are the same bits */
#if defined(__CUDACC__)
  #define MATCOARSENSPMV_HOSTDEVICE __host__ __device__
#else
  #define MATCOARSENSPMV_HOSTDEVICE
#endif

/* A node's priority: splitmix64 of (global index, seed); ties (none in practice) go to the larger index */
static inline MATCOARSENSPMV_HOSTDEVICE uint64_t MatCoarsenSpmvHash(PetscInt gid, PetscInt seed)
{
  uint64_t z = (uint64_t)gid + 0x9e3779b97f4a7c15ULL * (uint64_t)(seed + 1);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* The aggregates of the graph of n local rows (CSR ai, aj; the diagonal may be present) around a
   maximal independent set at distance 1 or 2: agg[i] the aggregate of row i (-1: isolated), roots[a]
   the root of aggregate a, *nagg their number. rstart: the first row's global index (the priorities') */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateHost(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscInt, PetscInt, PetscInt[], PetscInt[], PetscInt *);
/* The same on the device (device/aggregate.cu), the same arrays for any graph: the arguments of
   MatCoarsenSpmvAggregateHost(), the CSR d_ai, d_aj and the results d_agg, d_roots (n entries each)
   device arrays, *nagg on the host; on PETSc's current stream, which it leaves synchronized */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateDevice(PetscInt, const PetscInt *, const PetscInt *, PetscInt, PetscInt, PetscInt, PetscInt *, PetscInt *, PetscInt *);
/* Each aggregate's members, its root first and then the others in increasing index, from the device
   arrays agg and roots of MatCoarsenSpmvAggregateDevice(): d_aggptr (nagg + 1 entries) and d_members
   (n entries: aggregate a's members at d_aggptr[a] to d_aggptr[a + 1] - 1, then the rows in no
   aggregate, increasing), device arrays the caller allocates: (n, nagg, d_agg, d_roots, d_aggptr, d_members) */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateMembersDevice(PetscInt, PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscInt *);
/* MatCoarsen type "spmvmis", and the distance a GAMG level asks of it */
PETSC_INTERN PetscErrorCode MatCoarsenRegister_SpmvMIS(void);
PETSC_INTERN PetscErrorCode MatCoarsenSpmvMISSetDistance(MatCoarsen, PetscInt);
/* PCGAMG with the coarsening above for our operators (gamg.c), and spmvmis; once, at the package's start */
PETSC_INTERN PetscErrorCode PCRegister_GAMGSpmv(void);

#pragma once
/* GAMG's set-up for our matrices: the coarsening, host reference (mis.c) and device
   (device/aggregate.cu), run by MatCoarsen spmvmis (coarsen.c); the tentative prolongator, host
   reference (tentative.c) and device (device/tentative.cu), made a matrix by prolongator.c */
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

/* Whether global node a's key is above b's (the priorities of nodes of any process, by their global
   index): the hash, then the index, as MatCoarsenSpmvAggregateHost() orders its rows */
static inline MATCOARSENSPMV_HOSTDEVICE PetscBool MatCoarsenSpmvAboveGlobal(PetscInt a, PetscInt b, PetscInt seed)
{
  const uint64_t pa = MatCoarsenSpmvHash(a, seed), pb = MatCoarsenSpmvHash(b, seed);

  return (PetscBool)(pa > pb || (pa == pb && a > b));
}

/* A graph's local part as the coarsening reads it, host or device arrays alike: the diagonal block's
   CSR ai, aj (n rows, local columns; the diagonal may be present); on several processes the
   off-diagonal block's bi, bj (n rows, columns the ng ghosts; NULL where ng is 0) and the ghost
   exchange sf (MatGetMultPetscSF(): n roots, the ng ghosts its leaves; the ghosts' global indices
   travel through it as the values exchanged), NULL and 0 on one process; rstart the first row's
   global index (the priorities') */
typedef struct {
  PetscSF         sf;
  PetscInt        n, ng, rstart;
  const PetscInt *ai, *aj, *bi, *bj;
} MatCoarsenSpmvGraph;

/* What an aggregation gives: agg[i] the aggregate of row i (-1: isolated), roots[a] the root of
   aggregate a (arrays of n entries the caller gives, host or device as the graph's), nagg their number,
   nnew those whose root is not in the independent set (new roots, for -info; set by the MPI device path), and
   inset (NULL: not wanted) whether each row is in the independent set */
typedef struct {
  PetscInt  *agg, *roots;
  PetscInt   nagg, nnew;
  PetscBool *inset;
} MatCoarsenSpmvAggregates;

/* The aggregates of the graph around a maximal independent set at distance 1 or 2 (seed: the hash's),
   one process (mis.c, the host reference) */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateHost(const MatCoarsenSpmvGraph *, PetscInt, PetscInt, MatCoarsenSpmvAggregates *);
/* The same on several processes, the graph an MPIAIJ matrix's (mis.c): the independent set is the
   one-process set of the global graph (the same rounds, ghost values exchanged through sf), the
   aggregates hold local rows only (mis.c says how rows next to other processes' roots join). On one
   process the arrays of MatCoarsenSpmvAggregateHost(). Collective on sf's communicator */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateMPIHost(const MatCoarsenSpmvGraph *, PetscInt, PetscInt, MatCoarsenSpmvAggregates *);
/* MatCoarsenSpmvAggregateHost() on the device (device/aggregate.cu): device arrays in the graph and
   the results; on PETSc's current stream, which it leaves synchronized */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateDevice(const MatCoarsenSpmvGraph *, PetscInt, PetscInt, MatCoarsenSpmvAggregates *);
/* MatCoarsenSpmvAggregateMPIHost() on the device (device/aggregate.cu), the same arrays for any graph
   and partition, device arrays in the graph and the results. The rounds exchange device values through
   sf (PetscSFBcastWithMemTypeBegin(), device to device: PETSc stages them through the host without
   CUDA-aware MPI) and read back one count a round (summed over the processes), the aggregation one
   pair a pass; on PETSc's current stream, which PetscSF's device packing also uses; returns with the
   stream synchronized. Collective on sf's communicator */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateMPIDevice(const MatCoarsenSpmvGraph *, PetscInt, PetscInt, MatCoarsenSpmvAggregates *);
/* Each aggregate's members, its root first and then the others in increasing index, from the device
   arrays agg and roots of MatCoarsenSpmvAggregateDevice(): d_aggptr (nagg + 1 entries) and d_members
   (n entries: aggregate a's members at d_aggptr[a] to d_aggptr[a + 1] - 1, then the rows in no
   aggregate, increasing), device arrays the caller allocates: (n, nagg, d_agg, d_roots, d_aggptr, d_members) */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvAggregateMembersDevice(PetscInt, PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscInt *);
/* MatCoarsen type "spmvmis" (coarsen.c), and the distance a GAMG level asks of it */
PETSC_INTERN PetscErrorCode MatCoarsenRegister_SpmvMIS(void);
PETSC_INTERN PetscErrorCode MatCoarsenSpmvMISSetDistance(MatCoarsen, PetscInt);
/* A device apply may keep its aggregates on the device instead of filling the lists; taken with
   (n, nagg, d_work): d_work = agg[n], roots[n], aggptr[n + 1], members[n] (NULL: the lists hold them) */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvMISSetKeepDevice(MatCoarsen, PetscBool);
PETSC_INTERN PetscErrorCode MatCoarsenSpmvMISTakeDevice(MatCoarsen, PetscInt *, PetscInt *, PetscInt **);
/* whether it takes the host reference (-mat_coarsen_spmvmis_host), which reads the graph on the host */
PETSC_INTERN PetscErrorCode MatCoarsenSpmvMISGetHost(MatCoarsen, PetscBool *);
/* P0 (A's type, block sizes A's and ncols) and the coarse near-null space (*cdata, PetscMalloc'd, PETSc's
   layout) from the aggregates kept on the device for A's n local nodes (d_work as
   MatCoarsenSpmvMISTakeDevice() gives it, nagg local aggregates) and A's level data (PETSc's layout);
   on several processes P0's diagonal block alone, its columns the local aggregates' (prolongator.c).
   Collective */
PETSC_INTERN PetscErrorCode PCGAMGSpmvTentativeFromDevice(Mat, PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscReal **, Mat *);

/* The tentative prolongator P0 of smoothed aggregation and the coarse near-null space, as PETSc's
   formProl0 (src/ksp/pc/impls/gamg/agg.c) makes them from the lists of the same aggregates (each
   list its root first, then the other members in increasing index; aggregates in increasing root
   index, which is how PETSc numbers the lists it is given at their roots). Exported (PETSC_EXTERN)
   for tests/test_gamg.c only: not a public API, not in petscspmv.h. */

/* The members of each aggregate: those of aggregate a are members[aggptr[a]], ...,
   members[aggptr[a + 1] - 1], its root roots[a] first, then the others in increasing index.
   agg[i]: the aggregate of node i < nloc (-1: none); aggptr has nagg + 1 entries, members as many as
   nodes in an aggregate */
PETSC_EXTERN PetscErrorCode MatSpmvGAMGAggregateMembers(PetscInt nloc, PetscInt nagg, const PetscInt agg[], const PetscInt roots[], PetscInt aggptr[], PetscInt members[]);

/* MatCoarsenSpmvAggregateMPIHost() on the MPIAIJ graph G (any number of processes; its blocks' CSR
   and MatGetMultPetscSF()): agg, roots (G's local rows each), nagg, inset as there, for the
   independent set's and the aggregates' checks (tests/test_gamg_mpi.c). Collective */
PETSC_EXTERN PetscErrorCode MatSpmvGAMGAggregateMPIHost(Mat G, PetscInt distance, PetscInt seed, PetscInt agg[], PetscInt roots[], PetscInt *nagg, PetscBool inset[]);

/* The same arrays by the device path (MatCoarsenSpmvAggregateMPIDevice()) on G, an MPIAIJ graph
   whose blocks are seqaijcusparse (MATMPIAIJCUSPARSE) not bound to the CPU: agg, roots, inset host
   arrays as there, *nnew the aggregates whose root is not in the independent set; PETSC_ERR_SUP
   without CUDA (tests/test_gamg_mpi.c -device). Collective */
PETSC_EXTERN PetscErrorCode MatSpmvGAMGAggregateMPIDevice(Mat G, PetscInt distance, PetscInt seed, PetscInt agg[], PetscInt roots[], PetscInt *nagg, PetscInt *nnew, PetscBool inset[]);

/* Host reference. B: nloc nodes of bs rows each; B->data: the ncols near-null vectors in PETSc's layout,
   data[c * nloc * bs + node * bs + r] (PC_GAMG's data on a level: data_cell_rows bs, data_cell_cols
   ncols); the nagg aggregates as above. Out, into the caller's arrays of *P0: P0, (nloc bs) x (nagg
   ncols), in CSR: pi[nloc bs + 1],
   and pj, pv of (nodes in an aggregate) bs ncols entries: a row of a node in aggregate a holds the
   columns a ncols + k, k < ncols, in order, zeros included (PETSc's MatSetValues keeps them), a row of
   a node in none is empty; cdata[ncols ncols nagg]: the coarse near-null space in PETSc's layout
   after formProl0, cdata[j * nagg * ncols + a * ncols + i] = R_a(i, j), zero below the diagonal
   (PETSc's next level reads it with data_cell_rows = data_cell_cols = ncols). Columns are local;
   real arithmetic (complex scalars get real values). */
typedef struct {
  PetscInt         nloc, bs, ncols;
  const PetscReal *data; /* host or device memory, as the function taking it says */
} MatSpmvGAMGNearNull;
typedef struct {
  PetscInt    *pi, *pj;
  PetscScalar *pv;
  PetscReal   *cdata;
} MatSpmvGAMGP0;
PETSC_EXTERN PetscErrorCode MatSpmvGAMGTentativeHost(const MatSpmvGAMGNearNull *B, PetscInt nagg, const PetscInt agg[], const PetscInt roots[], const MatSpmvGAMGP0 *P0);

/* Device version (device/tentative.cu), the same bits as the host reference where the host fuses no
   multiply-adds: the same inputs and outputs as device arrays, on stream (NULL: PETSc's). The
   aggregates *aggs as MatCoarsenSpmvAggregateMembersDevice() gives them: agg[nloc], aggptr[nagg + 1],
   members (MatSpmvGAMGAggregateMembers()'s order; entries past aggptr[nagg] are not read); P0's pi,
   pj of int, as aijcusparse's device CSR. One warp per aggregate; at most
   MATSPMVGAMG_DEVICE_MAX_COLS near-null vectors (a lane per column) and P0 of fewer than 2^31
   entries: otherwise a PETSC_ERR_SUP error, for the caller to take PETSc's prolongator.
   Real scalars only (PETSC_ERR_SUP with complex ones). Waits for one reduction (the largest
   aggregate) and, where that is too large for shared memory, for the kernel; otherwise returns with
   the kernels queued. */
#define MATSPMVGAMG_DEVICE_MAX_COLS 32
typedef struct {
  PetscInt        nagg;
  const PetscInt *agg, *aggptr, *members; /* device arrays */
} MatSpmvGAMGMembers;
typedef struct {
  int         *pi, *pj; /* device arrays, aijcusparse's int indices */
  PetscScalar *pv;
  PetscReal   *cdata;
} MatSpmvGAMGP0Device;
PETSC_EXTERN PetscErrorCode MatSpmvGAMGTentativeDevice(const MatSpmvGAMGNearNull *B, const MatSpmvGAMGMembers *aggs, const MatSpmvGAMGP0Device *P0, void *stream);

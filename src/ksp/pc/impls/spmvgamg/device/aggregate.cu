/*
  GAMG's coarsening on the device: mis.c's host reference (MatCoarsenSpmvAggregateHost)
  step for step, so that the aggregates are the same arrays for any graph. A thread per row: a graph's
  rows are short. Every kernel reads arrays that no thread of it writes, or only the element its own
  thread writes, as the host's loops compute each step from the one before (Jacobi, not Gauss-Seidel);
  a node's priority is recomputed where it is compared (a hash is cheaper than loading it).
  On several processes MatCoarsenSpmvAggregateMPIDevice() follows MatCoarsenSpmvAggregateMPIHost() the
  same way: each step that reads neighbours' values first brings the ghosts' through the graph's
  PetscSF, device to device, on the stream of the kernels; the host sees one count a round (summed
  over the processes) and one pair of counts a pass of the aggregation, which is local.
*/
#include <petscsf.h>
#include "../spmvgamgimpl.h"
#include "../../../../../mat/impls/spmvlayer/spmvbase.h"
#include "../../../../../mat/impls/spmvlayer/spmvkernels.h"
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

enum : unsigned char {
  MIS_UNDECIDED,
  MIS_ROOT,
  MIS_OUT,
  MIS_ISOLATED
};

/* the device's counters, copied to the host together */
enum {
  MIS_LEFT,       /* undecided nodes after a round */
  MIS_NAGG,       /* aggregates */
  MIS_MISSING,    /* rows with a neighbour in no aggregate (none, unless a bug) */
  MIS_NEW,        /* several processes: aggregates whose root is not in the independent set */
  MIS_CHANGED,    /* several processes: rows that joined an aggregate in a pass ... */
  MIS_UNASSIGNED, /* ... and out rows in none after it (read back together) */
  MIS_NCOUNTERS
};

/* One device allocation carved into pieces of 256-byte alignment (each cudaFree waits for the device):
   the bytes summed by MisPiece() of each piece, then the pieces taken in the same order */
static inline size_t MisPiece(size_t size)
{
  return 256 * ((size + 255) / 256);
}

struct MisArena {
  char  *base;
  size_t off;
  void  *take(size_t size)
  {
    void *p = base + off;

    off += MisPiece(size);
    return p;
  }
};

/* c (its priority pc) in place of best (pbest) where c's key is higher: priority, then index (c < 0: none) */
template <typename I>
__device__ __forceinline__ void MisTake(I c, uint64_t pc, I &best, uint64_t &pbest)
{
  if (c >= 0 && (best < 0 || pc > pbest || (pc == pbest && c > best))) {
    best  = c;
    pbest = pc;
  }
}

/* the key's node of each node j: j where it is undecided (the first max-propagation) ... */
template <typename I>
struct MisUndecided {
  const unsigned char *state;
  __device__ I         operator()(I j) const { return state[j] == MIS_UNDECIDED ? j : I(-1); }
};

/* ... or the node an earlier max-propagation found (the second, at distance 2) */
template <typename I>
struct MisFound {
  const I     *m;
  __device__ I operator()(I j) const { return m[j]; }
};

/* whether node j is a root once this round's are chosen: one already, or undecided with the highest key around it */
template <typename I>
struct MisRootNow {
  const unsigned char *state;
  const I             *m;
  __device__ bool      operator()(I j) const { return state[j] == MIS_ROOT || (state[j] == MIS_UNDECIDED && m[j] == j); }
};

/* whether node j is within distance 1 of a root (an earlier MisNearKernel's result, at distance 2) */
template <typename I>
struct MisNear {
  const unsigned char *near;
  __device__ bool      operator()(I j) const { return near[j] != 0; }
};

/* adds each thread's count to *total: a block's sum, then one atomic per block */
__device__ __forceinline__ void MisCount(unsigned long long mine, unsigned long long *total)
{
  using Reduce = cub::BlockReduce<unsigned long long, MATSPMV_THREADS>;
  __shared__ typename Reduce::TempStorage tmp;
  unsigned long long                      sum = Reduce(tmp).Sum(mine);

  if (threadIdx.x == 0 && sum) atomicAdd(total, sum);
}

/* state: isolated where the row has no entry off the diagonal, undecided otherwise */
template <typename I>
__global__ void MisInitKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, unsigned char *__restrict__ state)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bool other = false;

    for (I k = ai[i]; k < ai[i + 1] && !other; k++) other = aj[k] != i;
    state[i] = other ? MIS_UNDECIDED : MIS_ISOLATED;
  }
}

/* to[i] = the node of the highest key among from(j), j in i's closed neighbourhood (-1: none) */
template <typename I, typename From>
__global__ void MisMaxKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, From from, I rstart, PetscInt seed, I *__restrict__ to)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    I        best  = from(i), c;
    uint64_t pbest = best >= 0 ? MatCoarsenSpmvHash((PetscInt)(rstart + best), seed) : 0;

    for (I k = ai[i]; k < ai[i + 1]; k++)
      if ((c = from(aj[k])) >= 0) MisTake(c, MatCoarsenSpmvHash((PetscInt)(rstart + c), seed), best, pbest);
    to[i] = best;
  }
}

/* near[i] = whether near(j) for some j in i's closed neighbourhood (distance 2: the first step) */
template <typename I, typename Near>
__global__ void MisNearKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, Near near, unsigned char *__restrict__ out)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bool f = near(i);

    for (I k = ai[i]; k < ai[i + 1] && !f; k++) f = near(aj[k]);
    out[i] = f;
  }
}

/* The round's end: an undecided node whose key is the highest within the distance (m[i] == i) is a
   root, else out where near(j) for some j in its closed neighbourhood (near: a root within distance -
   1 of j); the new states in next, the undecided left counted into *left */
template <typename I, typename Near>
__global__ void MisDecideKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const unsigned char *__restrict__ state, const I *__restrict__ m, Near near, unsigned char *__restrict__ next, unsigned long long *__restrict__ left)
{
  unsigned long long undecided = 0;

  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned char s = state[i];

    if (s == MIS_UNDECIDED) {
      bool f = near(i);

      for (I k = ai[i]; k < ai[i + 1] && !f; k++) f = near(aj[k]);
      if (m[i] == i) s = MIS_ROOT;
      else if (f) s = MIS_OUT;
    }
    next[i] = s;
    undecided += s == MIS_UNDECIDED;
  }
  MisCount(undecided, left);
}

/* After the scan of the roots (agg[i]: the roots before i): a root's aggregate, roots[] and root[i]
   (the node's root, itself for a root, -1 for the others so far); the number of aggregates */
template <typename I>
__global__ void MisNumberKernel(I n, const unsigned char *__restrict__ state, I *__restrict__ agg, I *__restrict__ roots, I *__restrict__ root, unsigned long long *__restrict__ nagg)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const bool isroot = state[i] == MIS_ROOT;

    if (i == n - 1) *nagg = (unsigned long long)(agg[i] + isroot);
    if (isroot) roots[agg[i]] = i;
    else agg[i] = -1;
    root[i] = isroot ? i : I(-1);
  }
}

/* Pass 1: an out node adjacent to a root joins the adjacent root of the highest key. Only out nodes
   write (their agg and root), and they read only roots' */
template <typename I>
__global__ void MisJoinRootKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const unsigned char *__restrict__ state, I rstart, PetscInt seed, I *__restrict__ agg, I *__restrict__ root)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    I        best  = -1;
    uint64_t pbest = 0;

    if (state[i] != MIS_OUT) continue;
    for (I k = ai[i]; k < ai[i + 1]; k++) {
      const I j = aj[k];

      if (state[j] == MIS_ROOT) MisTake(j, MatCoarsenSpmvHash((PetscInt)(rstart + j), seed), best, pbest);
    }
    if (best >= 0) {
      root[i] = best;
      agg[i]  = agg[best];
    }
  }
}

/* Pass 2 (distance 2): an out node still in no aggregate joins the neighbouring aggregate whose root
   has the highest key, reading root[] as pass 1 left it (this kernel writes only agg, and reads only
   roots' agg) */
template <typename I>
__global__ void MisJoinNearKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const unsigned char *__restrict__ state, const I *__restrict__ root, I rstart, PetscInt seed, I *__restrict__ agg)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    I        best  = -1;
    uint64_t pbest = 0;

    if (state[i] != MIS_OUT || root[i] >= 0) continue;
    for (I k = ai[i]; k < ai[i + 1]; k++) {
      const I r = root[aj[k]];

      if (r >= 0) MisTake(r, MatCoarsenSpmvHash((PetscInt)(rstart + r), seed), best, pbest);
    }
    if (best >= 0) agg[i] = agg[best];
  }
}

/* rows with an entry off the diagonal left in no aggregate, counted into *missing */
template <typename I>
__global__ void MisMissingKernel(I n, const unsigned char *__restrict__ state, const I *__restrict__ agg, unsigned long long *__restrict__ missing)
{
  unsigned long long none = 0;

  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) none += state[i] != MIS_ISOLATED && agg[i] < 0;
  MisCount(none, missing);
}

template <typename I>
struct MisIsRoot {
  const unsigned char *state;
  __device__ I         operator()(I i) const { return state[i] == MIS_ROOT ? I(1) : I(0); }
};

template <typename I>
static PetscErrorCode MatCoarsenSpmvAggregateDevice_Private(I n, const I *ai, const I *aj, I rstart, PetscInt distance, PetscInt seed, I *agg, I *roots, PetscInt *nagg)
{
  const unsigned      grid = MatSpmvGrid(n);
  unsigned char      *state, *next, *near;
  I                  *m1, *m2;
  void               *work, *stream, *tmp = NULL;
  size_t              bytes, scan = 0;
  unsigned long long *count, host[MIS_NCOUNTERS];
  PetscInt            rounds = 0;
  cudaStream_t        s;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  {
    auto isroot = thrust::make_transform_iterator(thrust::counting_iterator<I>(0), MisIsRoot<I>{NULL});

    PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, scan, isroot, agg, n, s));
  }
  /* one allocation (each cudaFree waits for the device): the counters, two index arrays, three byte
     arrays, CUB's scan space, each at 256 bytes */
  bytes = MisPiece(MIS_NCOUNTERS * sizeof(unsigned long long)) + 2 * MisPiece(n * sizeof(I)) + 3 * MisPiece(n) + scan;
  PetscCall(MatSpmvCUDAMalloc(&work, bytes));
  {
    MisArena arena = {(char *)work, 0};

    count = (unsigned long long *)arena.take(MIS_NCOUNTERS * sizeof(unsigned long long));
    m1    = (I *)arena.take(n * sizeof(I));
    m2    = (I *)arena.take(n * sizeof(I));
    state = (unsigned char *)arena.take(n);
    next  = (unsigned char *)arena.take(n);
    near  = (unsigned char *)arena.take(n);
    tmp   = arena.take(scan);
  }
  PetscCallCUDA(cudaMemsetAsync(count, 0, MIS_NCOUNTERS * sizeof(unsigned long long), s));
  MisInitKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state);
  PetscCallCUDA(cudaGetLastError());
  /* rounds until no node is undecided: the count is the only copy to the host each round (a round
     on nodes all decided changes nothing, so the first round runs without asking) */
  do {
    const I *m = distance == 2 ? m1 : m2;

    PetscCheck(rounds++ <= n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The independent set is not complete after %" PetscInt_FMT " rounds on %" PetscInt_FMT " nodes: a bug, please report it (-mat_coarsen_spmvmis_host takes the host reference)", rounds - 1, (PetscInt)n);
    /* the highest key of an undecided node within the distance: two max-propagations at distance 2 */
    MisMaxKernel<I, MisUndecided<I>><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, MisUndecided<I>{state}, rstart, seed, m2);
    PetscCallCUDA(cudaGetLastError());
    if (distance == 2) {
      MisMaxKernel<I, MisFound<I>><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, MisFound<I>{m2}, rstart, seed, m1);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCallCUDA(cudaMemsetAsync(count + MIS_LEFT, 0, sizeof(unsigned long long), s));
    /* the round's roots, and out the undecided within the distance of a root */
    if (distance == 2) {
      MisNearKernel<I, MisRootNow<I>><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, MisRootNow<I>{state, m}, near);
      PetscCallCUDA(cudaGetLastError());
      MisDecideKernel<I, MisNear<I>><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state, m, MisNear<I>{near}, next, count + MIS_LEFT);
    } else {
      MisDecideKernel<I, MisRootNow<I>><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state, m, MisRootNow<I>{state, m}, next, count + MIS_LEFT);
    }
    PetscCallCUDA(cudaGetLastError());
    {
      unsigned char *t = state;

      state = next;
      next  = t;
    }
    PetscCall(MatSpmvCUDACopyToHost(&host[MIS_LEFT], count + MIS_LEFT, sizeof(unsigned long long), stream));
  } while (host[MIS_LEFT]);
  /* aggregates: roots numbered in index order (a scan), then the neighbours, at distance 2 the next ring */
  {
    auto isroot = thrust::make_transform_iterator(thrust::counting_iterator<I>(0), MisIsRoot<I>{state});

    PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, scan, isroot, agg, n, s));
  }
  MisNumberKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, state, agg, roots, m1, count + MIS_NAGG);
  PetscCallCUDA(cudaGetLastError());
  MisJoinRootKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state, rstart, seed, agg, m1);
  PetscCallCUDA(cudaGetLastError());
  if (distance == 2) {
    MisJoinNearKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state, m1, rstart, seed, agg);
    PetscCallCUDA(cudaGetLastError());
  }
  MisMissingKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, state, agg, count + MIS_MISSING);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvCUDACopyToHost(host, count, sizeof(host), stream));
  PetscCall(MatSpmvCUDAFree(work)); /* cudaFree waits for the work above */
  PetscCheck(!host[MIS_MISSING], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%llu rows with neighbours are in no aggregate: a bug, please report it (-mat_coarsen_spmvmis_host takes the host reference)", host[MIS_MISSING]);
  *nagg = (PetscInt)host[MIS_NAGG];
  PetscCall(PetscInfo(NULL, "%" PetscInt_FMT " aggregates of %" PetscInt_FMT " nodes at distance %" PetscInt_FMT " in %" PetscInt_FMT " rounds on the device\n", *nagg, (PetscInt)n, distance, rounds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCoarsenSpmvAggregateDevice(const MatCoarsenSpmvGraph *g, PetscInt distance, PetscInt seed, MatCoarsenSpmvAggregates *out)
{
  const PetscInt  n = g->n, rstart = g->rstart, *d_ai = g->ai, *d_aj = g->aj;
  PetscInt *const d_agg = out->agg, *const d_roots = out->roots, *const nagg = &out->nagg;

  PetscFunctionBegin;
  PetscCheck(distance == 1 || distance == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The independent set's distance is 1 or 2, not %" PetscInt_FMT, distance);
  *nagg = 0;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCoarsenSpmvAggregateDevice_Private<PetscInt>(n, d_ai, d_aj, rstart, distance, seed, d_agg, d_roots, nagg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- several processes: MatCoarsenSpmvAggregateMPIHost()'s rounds and rules, a thread per local row.
   Values of other processes' rows come through the graph's PetscSF into ghost[] (the off-diagonal
   block's columns); the values exchanged are global indices or flags (PetscInt, MPIU_INT). bi NULL:
   no ghost ---- */

/* state: isolated where the row has no entry off the diagonal in either block, undecided otherwise;
   from[i]: the row's global index where undecided, -1 otherwise (the first round's values) */
template <typename I>
__global__ void MisInitMPIKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, PetscInt rstart, unsigned char *__restrict__ state, PetscInt *__restrict__ from)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bool other = bi && bi[i + 1] > bi[i];

    for (I k = ai[i]; k < ai[i + 1] && !other; k++) other = aj[k] != i;
    state[i] = other ? MIS_UNDECIDED : MIS_ISOLATED;
    from[i]  = other ? rstart + i : -1;
  }
}

/* A max step of a round: the highest key among from[] (global indices, -1: none) over row i's
   closed neighbourhood, local columns and ghosts. Not last: into to[]. Last (the distance's): an
   undecided row that is its own maximum becomes a root, and to[i] = whether row i is a root (the
   start of the "near a root" steps). Writes only row i's state */
template <typename I, bool last>
__global__ void MisMaxMPIKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, const I *__restrict__ bj, const PetscInt *__restrict__ from, const PetscInt *__restrict__ ghost, PetscInt rstart, PetscInt seed, unsigned char *__restrict__ state, PetscInt *__restrict__ to)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    PetscInt best  = from[i], c;
    uint64_t pbest = best >= 0 ? MatCoarsenSpmvHash(best, seed) : 0;

    for (I k = ai[i]; k < ai[i + 1]; k++)
      if ((c = from[aj[k]]) >= 0) MisTake(c, MatCoarsenSpmvHash(c, seed), best, pbest);
    if (bi)
      for (I k = bi[i]; k < bi[i + 1]; k++)
        if ((c = ghost[bj[k]]) >= 0) MisTake(c, MatCoarsenSpmvHash(c, seed), best, pbest);
    if constexpr (last) {
      unsigned char s = state[i];

      if (s == MIS_UNDECIDED && best == rstart + i) state[i] = s = MIS_ROOT;
      to[i] = s == MIS_ROOT;
    } else to[i] = best;
  }
}

/* A "near a root" step: whether from[] (a flag) is set in row i's closed neighbourhood. Not last:
   into to[]. Last: an undecided row near a root is out; to[i] = the row's global index where still
   undecided (the next round's values), -1 otherwise; the undecided counted into *left */
template <typename I, bool last>
__global__ void MisNearMPIKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, const I *__restrict__ bj, const PetscInt *__restrict__ from, const PetscInt *__restrict__ ghost, PetscInt rstart, unsigned char *__restrict__ state, PetscInt *__restrict__ to, unsigned long long *__restrict__ left)
{
  unsigned long long undecided = 0;

  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bool f = from[i] != 0;

    for (I k = ai[i]; k < ai[i + 1] && !f; k++) f = from[aj[k]] != 0;
    if (bi)
      for (I k = bi[i]; k < bi[i + 1] && !f; k++) f = ghost[bj[k]] != 0;
    if constexpr (last) {
      unsigned char s = state[i];

      if (s == MIS_UNDECIDED && f) state[i] = s = MIS_OUT;
      to[i] = s == MIS_UNDECIDED ? rstart + i : -1;
      undecided += s == MIS_UNDECIDED;
    } else to[i] = f;
  }
  if constexpr (last) MisCount(undecided, left);
}

/* The aggregates' start: root[i] = i for a root, for an out row the adjacent local root of the
   highest key (-1: none), -1 for the others. Reads only the states */
template <typename I>
__global__ void MisLocalRootKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const unsigned char *__restrict__ state, PetscInt rstart, PetscInt seed, I *__restrict__ root)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    I        best  = state[i] == MIS_ROOT ? i : I(-1);
    uint64_t pbest = 0;

    if (state[i] == MIS_OUT)
      for (I k = ai[i]; k < ai[i + 1]; k++) {
        const I j = aj[k];

        if (state[j] == MIS_ROOT) MisTake(j, MatCoarsenSpmvHash(rstart + j, seed), best, pbest);
      }
    root[i] = best;
  }
}

/* A pass of the joining rounds: an out row in none (from[i] < 0) joins, among its local neighbours'
   aggregates, the one whose root has the highest key (to[], from[] as the pass found it: a row
   joining now is not seen by its neighbours until the next pass, as on the host); the rows that
   joined into *changed, the out rows still in none into *unassigned */
template <typename I>
__global__ void MisJoinLocalKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const unsigned char *__restrict__ state, PetscInt rstart, PetscInt seed, const I *__restrict__ from, I *__restrict__ to, unsigned long long *__restrict__ changed, unsigned long long *__restrict__ unassigned)
{
  unsigned long long joined = 0, none = 0;

  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    I r = from[i];

    if (state[i] == MIS_OUT && r < 0) {
      uint64_t pbest = 0;
      I        c;

      for (I k = ai[i]; k < ai[i + 1]; k++)
        if ((c = from[aj[k]]) >= 0) MisTake(c, MatCoarsenSpmvHash(rstart + c, seed), r, pbest);
      joined += r >= 0;
      none += r < 0;
    }
    to[i] = r;
  }
  MisCount(joined, changed);
  __syncthreads(); /* MisCount's shared space is used again */
  MisCount(none, unassigned);
}

/* After a pass that changed nothing: an out row in none whose key is the highest among its local
   neighbours in none becomes a root (to[i] = i); the others keep from[i] */
template <typename I>
__global__ void MisNewRootsKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const unsigned char *__restrict__ state, PetscInt rstart, PetscInt seed, const I *__restrict__ from, I *__restrict__ to)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    I r = from[i];

    if (state[i] == MIS_OUT && r < 0) {
      const uint64_t pi  = MatCoarsenSpmvHash(rstart + i, seed);
      bool           top = true;

      for (I k = ai[i]; k < ai[i + 1] && top; k++) {
        const I j = aj[k];

        if (j != i && state[j] == MIS_OUT && from[j] < 0) {
          const uint64_t pj = MatCoarsenSpmvHash(rstart + j, seed);

          top = !(pj > pi || (pj == pi && j > i));
        }
      }
      if (top) r = i;
    }
    to[i] = r;
  }
}

/* whether row i roots its aggregate (the scan numbering the aggregates) */
template <typename I>
struct MisOwnRoot {
  const I     *root;
  __device__ I operator()(I i) const { return root[i] == i ? I(1) : I(0); }
};

/* After the scan num[] of MisOwnRoot: agg[i] (the number of its root's aggregate, -1: none),
   roots[], and into count[] the number of aggregates, those with new roots (not in the independent
   set) and the rows with a neighbour in none (none, unless a bug); inset[i] (NULL: not wanted) */
template <typename I>
__global__ void MisNumberMPIKernel(I n, const unsigned char *__restrict__ state, const I *__restrict__ root, const I *__restrict__ num, I *__restrict__ agg, I *__restrict__ roots, PetscBool *__restrict__ inset, unsigned long long *__restrict__ count)
{
  unsigned long long fresh = 0, none = 0;

  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const I    r      = root[i];
    const bool isroot = r == i;

    if (i == n - 1) count[MIS_NAGG] = (unsigned long long)(num[i] + isroot);
    if (isroot) roots[num[i]] = i;
    agg[i] = r >= 0 ? num[r] : I(-1);
    fresh += isroot && state[i] != MIS_ROOT;
    none += state[i] != MIS_ISOLATED && r < 0;
    if (inset) inset[i] = state[i] == MIS_ROOT;
  }
  MisCount(fresh, count + MIS_NEW);
  __syncthreads(); /* MisCount's shared space is used again */
  MisCount(none, count + MIS_MISSING);
}

/* The ghosts' copies of their owners' values, device to device. PetscSF packs and unpacks on the
   current device context's stream (its link's, taken when the link is made), which is the stream
   MatSpmvCUDAGetStream() gives and these kernels run on: its packing follows our kernels and our
   next kernel follows its unpacking, so nothing waits here (without CUDA-aware MPI PETSc stages
   through the host and waits for that stream itself) */
static PetscErrorCode MisGhosts(PetscSF sf, const PetscInt *local, PetscInt *ghost)
{
  PetscFunctionBegin;
  if (!sf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFBcastWithMemTypeBegin(sf, MPIU_INT, PETSC_MEMTYPE_DEVICE, local, PETSC_MEMTYPE_DEVICE, ghost, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, local, ghost, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename I>
static PetscErrorCode MatCoarsenSpmvAggregateMPIDevice_Private(PetscSF sf, I n, const I *ai, const I *aj, PetscInt ng, const I *bi, const I *bj, PetscInt rstart, PetscInt distance, PetscInt seed, I *agg, I *roots, PetscInt *nagg, PetscInt *nnew, PetscBool *inset)
{
  const unsigned      grid = MatSpmvGrid(n);
  MPI_Comm            comm = PETSC_COMM_SELF;
  unsigned char      *state;
  PetscInt           *from, *to, *ghost, left, gleft = 0, rounds = 0, passes = 0;
  I                  *rfrom, *rto;
  void               *work, *stream, *tmp = NULL;
  size_t              bytes, scan = 0;
  unsigned long long *count, host[MIS_NCOUNTERS];
  cudaStream_t        s;

  PetscFunctionBegin;
  if (sf) PetscCall(PetscObjectGetComm((PetscObject)sf, &comm));
  PetscCall(MatSpmvCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  {
    auto own = thrust::make_transform_iterator(thrust::counting_iterator<I>(0), MisOwnRoot<I>{NULL});

    PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, scan, own, agg, n, s));
  }
  /* one allocation: the counters, two value arrays and the ghosts' (PetscInt, what the SF moves),
     two root arrays, the states, CUB's scan space, each at 256 bytes */
  bytes = MisPiece(MIS_NCOUNTERS * sizeof(unsigned long long)) + 2 * MisPiece(n * sizeof(PetscInt)) + MisPiece(ng * sizeof(PetscInt)) + 2 * MisPiece(n * sizeof(I)) + MisPiece(n) + scan;
  PetscCall(MatSpmvCUDAMalloc(&work, bytes));
  {
    MisArena arena = {(char *)work, 0};

    count = (unsigned long long *)arena.take(MIS_NCOUNTERS * sizeof(unsigned long long));
    from  = (PetscInt *)arena.take(n * sizeof(PetscInt));
    to    = (PetscInt *)arena.take(n * sizeof(PetscInt));
    ghost = (PetscInt *)arena.take(ng * sizeof(PetscInt));
    rfrom = (I *)arena.take(n * sizeof(I));
    rto   = (I *)arena.take(n * sizeof(I));
    state = (unsigned char *)arena.take(n);
    tmp   = arena.take(scan);
  }
  PetscCallCUDA(cudaMemsetAsync(count, 0, MIS_NCOUNTERS * sizeof(unsigned long long), s));
  MisInitMPIKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, bi, rstart, state, from);
  PetscCallCUDA(cudaGetLastError());
  /* rounds until no row of any process is undecided: 2 distance exchanges a round, the undecided
     count the only copy to the host, summed over the processes (the same on all: they run as many
     rounds). A round on rows all decided changes nothing, so the first runs without asking */
  do {
    const PetscInt before = gleft;

    for (PetscInt d = 0; d < distance; d++) { /* the highest undecided key within the distance */
      PetscInt *t = from;

      PetscCall(MisGhosts(sf, from, ghost));
      if (d + 1 < distance) MisMaxMPIKernel<I, false><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, bi, bj, from, ghost, rstart, seed, state, to);
      else MisMaxMPIKernel<I, true><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, bi, bj, from, ghost, rstart, seed, state, to);
      PetscCallCUDA(cudaGetLastError());
      from = to, to = t;
    }
    PetscCallCUDA(cudaMemsetAsync(count + MIS_LEFT, 0, sizeof(unsigned long long), s));
    for (PetscInt d = 0; d < distance; d++) { /* out: the undecided within the distance of a root of any process */
      PetscInt *t = from;

      PetscCall(MisGhosts(sf, from, ghost));
      if (d + 1 < distance) MisNearMPIKernel<I, false><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, bi, bj, from, ghost, rstart, state, to, count + MIS_LEFT);
      else MisNearMPIKernel<I, true><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, bi, bj, from, ghost, rstart, state, to, count + MIS_LEFT);
      PetscCallCUDA(cudaGetLastError());
      from = to, to = t;
    }
    PetscCall(MatSpmvCUDACopyToHost(&host[MIS_LEFT], count + MIS_LEFT, sizeof(unsigned long long), stream));
    left = (PetscInt)host[MIS_LEFT];
    PetscCallMPI(MPIU_Allreduce(&left, &gleft, 1, MPIU_INT, MPI_SUM, comm));
    /* a round decides at least the undecided row of the highest key: the same on every process */
    PetscCheck(!rounds++ || gleft < before, comm, PETSC_ERR_PLIB, "A round on the device decided none of the %" PetscInt_FMT " undecided rows: a bug, please report it (-mat_coarsen_spmvmis_host takes the host reference)", before);
  } while (gleft);
  /* aggregates of local rows, no exchange: next to local roots, then passes until none changes, new
     roots where rows are left in none and passes again; each pass's two counts read back together */
  MisLocalRootKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state, rstart, seed, rfrom);
  PetscCallCUDA(cudaGetLastError());
  for (;;) {
    I *t = rfrom;

    /* each pass that changes something puts a row in an aggregate, and so does each new-root step */
    PetscCheck(passes++ <= 2 * (PetscInt)n + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The aggregates of %" PetscInt_FMT " rows are not complete after %" PetscInt_FMT " passes on the device: a bug, please report it (-mat_coarsen_spmvmis_host takes the host reference)", (PetscInt)n, passes - 1);
    PetscCallCUDA(cudaMemsetAsync(count + MIS_CHANGED, 0, 2 * sizeof(unsigned long long), s));
    MisJoinLocalKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state, rstart, seed, rfrom, rto, count + MIS_CHANGED, count + MIS_UNASSIGNED);
    PetscCallCUDA(cudaGetLastError());
    rfrom = rto, rto = t;
    PetscCall(MatSpmvCUDACopyToHost(&host[MIS_CHANGED], count + MIS_CHANGED, 2 * sizeof(unsigned long long), stream));
    if (host[MIS_CHANGED]) continue;
    if (!host[MIS_UNASSIGNED]) break;
    t = rfrom;
    MisNewRootsKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, ai, aj, state, rstart, seed, rfrom, rto);
    PetscCallCUDA(cudaGetLastError());
    rfrom = rto, rto = t;
  }
  /* aggregates numbered by their roots' local index (a scan) */
  if (n) {
    auto own = thrust::make_transform_iterator(thrust::counting_iterator<I>(0), MisOwnRoot<I>{rfrom});

    PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, scan, own, rto, n, s));
    MisNumberMPIKernel<I><<<grid, MATSPMV_THREADS, 0, s>>>(n, state, rfrom, rto, agg, roots, inset, count);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(MatSpmvCUDACopyToHost(host, count, sizeof(host), stream));
  PetscCall(MatSpmvCUDAFree(work)); /* cudaFree waits for the work above */
  PetscCheck(!host[MIS_MISSING], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%llu rows with neighbours are in no aggregate: a bug, please report it (-mat_coarsen_spmvmis_host takes the host reference)", host[MIS_MISSING]);
  *nagg = (PetscInt)host[MIS_NAGG];
  *nnew = (PetscInt)host[MIS_NEW];
  PetscCall(PetscInfo(NULL, "%" PetscInt_FMT " aggregates of %" PetscInt_FMT " local rows (%" PetscInt_FMT " new roots) at distance %" PetscInt_FMT " in %" PetscInt_FMT " rounds and %" PetscInt_FMT " passes on the device\n", *nagg, (PetscInt)n, *nnew, distance, rounds, passes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCoarsenSpmvAggregateMPIDevice(const MatCoarsenSpmvGraph *g, PetscInt distance, PetscInt seed, MatCoarsenSpmvAggregates *out)
{
  PetscSF const   sf = g->sf;
  const PetscInt  n = g->n, ng = g->ng, rstart = g->rstart, *d_ai = g->ai, *d_aj = g->aj, *d_bi = g->bi, *d_bj = g->bj;
  PetscInt *const d_agg = out->agg, *const d_roots = out->roots, *const nagg = &out->nagg, *const nnew = &out->nnew;
  PetscBool *const d_inset = out->inset;

  PetscFunctionBegin;
  /* the host reference's checks, so that a wrong exchange fails the same way */
  PetscCheck(distance == 1 || distance == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The independent set's distance is 1 or 2, not %" PetscInt_FMT, distance);
  if (sf) {
    PetscInt nroots, minleaf, maxleaf;

    PetscCall(PetscSFGetGraph(sf, &nroots, NULL, NULL, NULL));
    PetscCall(PetscSFGetLeafRange(sf, &minleaf, &maxleaf));
    PetscCheck(nroots == n && maxleaf < ng, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The ghost exchange has %" PetscInt_FMT " roots and leaves up to %" PetscInt_FMT ", not the graph's %" PetscInt_FMT " rows and %" PetscInt_FMT " ghosts: pass the graph's MatGetMultPetscSF()", nroots, maxleaf, n, ng);
  } else PetscCheck(!ng, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " ghosts and no ghost exchange", ng);
  PetscCheck(!ng || (d_bi && d_bj), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "%" PetscInt_FMT " ghosts and no off-diagonal block: pass its device CSR", ng);
  PetscCall(MatCoarsenSpmvAggregateMPIDevice_Private<PetscInt>(sf, n, d_ai, d_aj, ng, d_bi, d_bj, rstart, distance, seed, d_agg, d_roots, nagg, nnew, d_inset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* key of row i: 2 a for the root of aggregate a, 2 a + 1 for its other members, 2 nagg for a row in none */
template <typename I, typename K>
__global__ void MisMemberKeysKernel(I n, I nagg, const I *__restrict__ agg, const I *__restrict__ roots, K *__restrict__ key, I *__restrict__ row)
{
  for (I i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const I a = agg[i];

    key[i] = a < 0 ? K(2) * K(nagg) : K(2) * K(a) + (roots[a] != i);
    row[i] = i;
  }
}

template <typename K>
struct MisTwice {
  __host__ __device__ K operator()(K a) const { return K(2) * a; }
};

template <typename I>
static PetscErrorCode MatCoarsenSpmvAggregateMembersDevice_Private(I n, I nagg, const I *agg, const I *roots, I *aggptr, I *members)
{
  using K             = typename cuda::std::make_unsigned<I>::type;
  K            maxkey = K(2) * K(nagg);
  int          bits   = 1;
  void        *stream, *tmp = NULL;
  size_t       bytes = 0;
  char        *work;
  K           *key, *key2;
  I           *row2;
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  while (bits < (int)(8 * sizeof(K)) && (maxkey >> bits)) bits++;
  {
    cub::DoubleBuffer<K> kb(NULL, NULL);
    cub::DoubleBuffer<I> vb(NULL, NULL);

    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, bytes, kb, vb, n, 0, bits, s));
  }
  /* one allocation: the keys and their other buffer, the rows' other buffer, then CUB's */
  PetscCall(MatSpmvCUDAMalloc((void **)&work, 2 * MisPiece(n * sizeof(K)) + MisPiece(n * sizeof(I)) + bytes));
  {
    MisArena arena = {work, 0};

    key  = (K *)arena.take(n * sizeof(K));
    key2 = (K *)arena.take(n * sizeof(K));
    row2 = (I *)arena.take(n * sizeof(I));
    tmp  = arena.take(bytes);
  }
  MisMemberKeysKernel<I, K><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, s>>>(n, nagg, agg, roots, key, members);
  PetscCallCUDA(cudaGetLastError());
  {
    /* a radix sort is stable: the rows of one key stay in increasing order */
    cub::DoubleBuffer<K> kb(key, key2);
    cub::DoubleBuffer<I> vb(members, row2);

    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, kb, vb, n, 0, bits, s));
    if (vb.Current() != members) PetscCallCUDA(cudaMemcpyAsync(members, vb.Current(), n * sizeof(I), cudaMemcpyDeviceToDevice, s));
    /* aggregate a starts at the first key 2 a or beyond; aggptr[nagg] at the rows in none */
    MatSpmvCallThrust(thrust::lower_bound(thrust::cuda::par.on(s), kb.Current(), kb.Current() + n, thrust::make_transform_iterator(thrust::counting_iterator<K>(0), MisTwice<K>{}), thrust::make_transform_iterator(thrust::counting_iterator<K>(K(nagg) + 1), MisTwice<K>{}), aggptr));
  }
  PetscCall(MatSpmvCUDAFree(work)); /* cudaFree waits for the work above */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatCoarsenSpmvAggregateMembersDevice(PetscInt n, PetscInt nagg, const PetscInt *d_agg, const PetscInt *d_roots, PetscInt *d_aggptr, PetscInt *d_members)
{
  PetscFunctionBegin;
  PetscCheck(nagg >= 0 && nagg <= n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " aggregates of %" PetscInt_FMT " rows: pass MatCoarsenSpmvAggregateDevice()'s count", nagg, n);
  if (!n) {
    void *stream;

    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCallCUDA(cudaMemsetAsync(d_aggptr, 0, sizeof(PetscInt), (cudaStream_t)stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatCoarsenSpmvAggregateMembersDevice_Private<PetscInt>(n, nagg, d_agg, d_roots, d_aggptr, d_members));
  PetscFunctionReturn(PETSC_SUCCESS);
}

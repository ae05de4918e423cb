/*
  BRC CUDA kernels. One thread per row of a block: the B1 threads of a block read B1 consecutive
  slots per column, so value and index loads are coalesced, and all threads of a block run the
  same trip count T. Rows split over blocks are pre-set to z (or 0) by a first launch, then summed
  with atomics; every other row is written once, with no atomics.
*/
#include "brcimpl.h"
#include "../spmvlayer/spmvkernels.h"
#include <climits>
#include <thrust/count.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/functional.h>
#include <thrust/transform_reduce.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

template <typename V, typename I>
__global__ void MatBRCInitKernel(I ninit, const I *__restrict__ rows, const V *__restrict__ z, V *__restrict__ y)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < ninit; k += gridDim.x * blockDim.x) {
    I r  = rows[k];
    y[r] = z ? z[r] : V(0);
  }
}

/* One lane's row of a block: T slots, the lane's at off + j * b1 + lane, slot s of slot column j
   reading x[col(s, j)]. With G > 1 every G slot columns from the first hold G consecutive columns
   in each lane (or padding after such a run: the run ending at the lane's last column, read again
   with zero values): one offset per run, read at its last slot; the sum keeps the slot order.
   O, the slots' offsets: I, or 64 bits in a layout of more than 2^31 - 1 slots */
template <typename V, typename I, int G = 1, typename Col, typename O>
__device__ __forceinline__ V MatBRCRowSum(O off, I T, I b1, I lane, const V *__restrict__ val, const V *__restrict__ x, Col col)
{
  V sum = V(0);

#pragma unroll 2
  for (I j = G - 1; j < T; j += G) {
    const O s = off + j * b1 + lane;

    if constexpr (G == 1) sum += MatSpmvLoadStream(&val[s]) * x[col(s, j)];
    else {
      const I c = col(s, j) - (G - 1);

#pragma unroll
      for (int i = 0; i < G; i++) sum += MatSpmvLoadStream(&val[s - (G - 1 - i) * b1]) * x[c + i];
    }
  }
  return sum;
}

/* a block's row sum with G from its run length (1: none), a branch uniform over the block */
template <typename V, typename I, typename Col, typename O>
__device__ __forceinline__ V MatBRCRowSumG(I G, O off, I T, I b1, I lane, const V *__restrict__ val, const V *__restrict__ x, Col col)
{
  switch (G) {
  case 2:
    return MatBRCRowSum<V, I, 2>(off, T, b1, lane, val, x, col);
  case 3:
    return MatBRCRowSum<V, I, 3>(off, T, b1, lane, val, x, col);
  case 4:
    return MatBRCRowSum<V, I, 4>(off, T, b1, lane, val, x, col);
  default:
    return MatBRCRowSum<V, I>(off, T, b1, lane, val, x, col);
  }
}

/* Each thread handles lane (tid % b1) of blocks tid / b1, + stride, ...: with coarsening fewer
   threads are launched and each goes through several blocks; blocksum(b, off, T, lane) is the
   lane's row sum in block b. Rows split over blocks (dst < -1) are added atomically, padding rows
   (dst == -1) dropped. z may alias y. B1 > 0 fixes the block height at compile time (shifts
   instead of divisions); B1 = 0 takes it from b1. */
template <typename V, typename I, int B1, typename BlockSum, typename O>
__device__ __forceinline__ void MatBRCBlocks(I nblocks, I b1_, const O *__restrict__ blockoff, const I *__restrict__ rowidx, const V alpha, const V *z, V *y, BlockSum blocksum)
{
  const I b1     = B1 > 0 ? (I)B1 : b1_;
  const I tid    = blockIdx.x * blockDim.x + threadIdx.x;
  const I lane   = tid % b1;
  const I stride = (gridDim.x * blockDim.x) / b1;

  for (I b = tid / b1; b < nblocks; b += stride) {
    const O off = blockoff[b];
    const I T   = (I)((blockoff[b + 1] - off) / b1);
    const I dst = rowidx[b * b1 + lane];
    const V sum = alpha * blocksum(b, off, T, b1, lane);

    if (dst >= 0) y[dst] = z ? z[dst] + sum : sum;
    else if (dst < -1) MatSpmvAtomicAdd(&y[-dst - 2], sum);
  }
}

/* 32-bit column indices; O: the slots' offsets (blockoff), 64-bit in a layout of more than 2^31 - 1 slots */
template <typename V, typename I, int B1, typename O = I>
__global__ void __launch_bounds__(256) MatBRCMultKernel(I nblocks, I b1_, const O *__restrict__ blockoff, const I *__restrict__ rowidx, const I *__restrict__ col, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y)
{
  MatBRCBlocks<V, I, B1>(nblocks, b1_, blockoff, rowidx, alpha, z, y, [=](I, O off, I T, I b1, I lane) { return MatBRCRowSum<V, I>(off, T, b1, lane, val, x, [=](O s, I) { return MatSpmvLoadStream(&col[s]); }); });
}

/* 16-bit column offsets: 10 instead of 12 bytes per nonzero in double precision, so a
   bandwidth-bound product reads 1/6 fewer bytes. colbase[b] says from what:
   - colbase[b] >= 0: the block's columns span fewer than MATBRC_SPAN16, offsets from its first column;
   - -(2k + 1): a wide block whose every slot column (the b1 slots j of its rows) spans fewer:
     offsets from that slot column's first column jbase[k + j] (one broadcast load per column);
   - -(2k + 2): a far block, its columns 32-bit at colwide[k + (s - its first slot)].
   The branch is uniform over the block's lanes. A narrow block's base is added to x's address once.
   runs (or NULL: none) gives each block's run length (MatBRCRowSum()), 1 outside runs */
template <typename V, typename I, int B1>
__global__ void __launch_bounds__(256) MatBRCMultKernel16(I nblocks, I b1_, const I *__restrict__ blockoff, const I *__restrict__ rowidx, const I *__restrict__ colbase, const unsigned short *__restrict__ col16, const I *__restrict__ jbase, const I *__restrict__ colwide, const I *__restrict__ runs, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y)
{
  MatBRCBlocks<V, I, B1>(nblocks, b1_, blockoff, rowidx, alpha, z, y, [=](I b, I off, I T, I b1, I lane) {
    const I cb = colbase[b], k = -cb - 1, G = runs ? runs[b] : 1;

    if (cb >= 0) return MatBRCRowSumG<V, I>(G, off, T, b1, lane, val, x + cb, [=](I s, I) { return (I)MatSpmvLoadStream(&col16[s]); });
    if (!(k & 1)) {
      const I *jb = jbase + (k >> 1);
      return MatBRCRowSumG<V, I>(G, off, T, b1, lane, val, x, [=](I s, I j) { return jb[j] + (I)MatSpmvLoadStream(&col16[s]); });
    }
    const I *cw = colwide + (k >> 1) - off;
    return MatBRCRowSum<V, I>(off, T, b1, lane, val, x, [=](I s, I) { return MatSpmvLoadStream(&cw[s]); });
  });
}

/* each block's first column and column span (a thread per block) */
__global__ void MatBRCBlockSpan(int nblocks, const int *__restrict__ blockoff, const int *__restrict__ col, int *__restrict__ base, int *__restrict__ span)
{
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < nblocks; b += gridDim.x * blockDim.x) {
    int lo = INT_MAX, hi = INT_MIN;

    for (int s = blockoff[b]; s < blockoff[b + 1]; s++) lo = min(lo, col[s]), hi = max(hi, col[s]);
    base[b] = blockoff[b + 1] > blockoff[b] ? lo : 0;
    span[b] = blockoff[b + 1] > blockoff[b] ? hi - lo + 1 : 0;
  }
}

/* each slot column's first column and span: slot column c holds slots c * b1 ... c * b1 + b1 - 1
   (blocks start at multiples of b1) */
__global__ void MatBRCSlotColumnSpan(int ncols, int b1, const int *__restrict__ col, int *__restrict__ jlo, int *__restrict__ jspan)
{
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < ncols; c += gridDim.x * blockDim.x) {
    int lo = INT_MAX, hi = INT_MIN;

    for (int s = c * b1; s < c * b1 + b1; s++) lo = min(lo, col[s]), hi = max(hi, col[s]);
    jlo[c]   = lo;
    jspan[c] = hi - lo + 1;
  }
}

/* the slots of block b when it is wide or far */
struct MatBRCWideSlots {
  const int           *blockoff, *kind;
  __device__ long long operator()(int b) const { return kind[b] ? (long long)(blockoff[b + 1] - blockoff[b]) : 0LL; }
};

/* per block: kind (0 narrow, 1 wide, 2 far), the slot column bases it needs (nj) and the 32-bit
   columns it keeps (nw) */
__global__ void MatBRCBlockKind(int nblocks, int b1, const int *__restrict__ blockoff, const int *__restrict__ span, const int *__restrict__ jspan, int *__restrict__ kind, int *__restrict__ nj, int *__restrict__ nw)
{
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b <= nblocks; b += gridDim.x * blockDim.x) {
    int k = 0;

    if (b == nblocks) { /* the exclusive scans' totals */
      nj[b] = nw[b] = 0;
      continue;
    }
    if (span[b] >= MATBRC_SPAN16) {
      k = 1;
      for (int c = blockoff[b] / b1; c < blockoff[b + 1] / b1 && k == 1; c++)
        if (jspan[c] >= MATBRC_SPAN16) k = 2;
    }
    kind[b] = k;
    nj[b]   = k == 1 ? (blockoff[b + 1] - blockoff[b]) / b1 : 0;
    nw[b]   = k == 2 ? blockoff[b + 1] - blockoff[b] : 0;
  }
}

/* narrow blocks: offsets from the block's first column; wide: from each slot column's, those first
   columns to jbase at joff[b]; far: the columns copied to colwide at woff[b]. A CUDA block per block */
__global__ void MatBRCColumnOffsets(int nblocks, int b1, const int *__restrict__ blockoff, const int *__restrict__ col, const int *__restrict__ kind, const int *__restrict__ jlo, const int *__restrict__ joff, const int *__restrict__ woff, int *__restrict__ base, unsigned short *__restrict__ col16, int *__restrict__ jbase, int *__restrict__ colwide)
{
  for (int b = blockIdx.x; b < nblocks; b += gridDim.x) {
    const int off = blockoff[b];

    if (kind[b] == 0)
      for (int s = off + threadIdx.x; s < blockoff[b + 1]; s += blockDim.x) col16[s] = (unsigned short)(col[s] - base[b]);
    else if (kind[b] == 1) {
      for (int s = off + threadIdx.x; s < blockoff[b + 1]; s += blockDim.x) col16[s] = (unsigned short)(col[s] - jlo[s / b1]);
      for (int j = threadIdx.x; j < (blockoff[b + 1] - off) / b1; j += blockDim.x) jbase[joff[b] + j] = jlo[off / b1 + j];
      if (!threadIdx.x) base[b] = -(2 * joff[b] + 1); /* no thread reads base[b] in this branch */
    } else {
      for (int s = off + threadIdx.x; s < blockoff[b + 1]; s += blockDim.x) colwide[woff[b] + s - off] = col[s];
      if (!threadIdx.x) base[b] = -(2 * woff[b] + 2);
    }
  }
}

/* Whether lane q of a block (slots off + j * b1 + lane, j < T) allows runs of G: in every G slot
   columns from the first, G consecutive columns, or padding (each column repeating the one before
   it; at the start only in a dummy lane), reading x at columns >= 0 */
__device__ bool MatBRCLaneRunsFit(int G, int off, int T, int b1, int lane, bool dummy, const int *__restrict__ col)
{
  if (T % G) return false;
  for (int t = 0; t < T; t += G) {
    const int last = col[off + (t + G - 1) * b1 + lane];
    bool      run = true, pad = t ? col[off + (t - 1) * b1 + lane] == last : dummy;

    for (int i = 0; i < G - 1; i++) {
      const int c = col[off + (t + i) * b1 + lane];

      run = run && c == last - (G - 1) + i;
      pad = pad && c == last;
    }
    if (!(run || pad) || last < G - 1) return false;
  }
  return true;
}

/* mask[b] (all bits set before): bit G cleared unless every lane of block b allows runs of G; far
   blocks (kind 2) allow none. A thread per lane */
__global__ void MatBRCLaneRuns(int nlanes, int b1, const int *__restrict__ blockoff, const int *__restrict__ rowidx, const int *__restrict__ col, const int *__restrict__ kind, int *__restrict__ mask)
{
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < nlanes; q += gridDim.x * blockDim.x) {
    const int b = q / b1, lane = q % b1, off = blockoff[b], T = (blockoff[b + 1] - off) / b1;
    int       bits = 0;

    if (kind[b] != 2)
      for (int G = 2; G <= MATBRC_RUN_MAX; G++)
        if (MatBRCLaneRunsFit(G, off, T, b1, lane, rowidx[q] == -1, col)) bits |= 1 << G;
    if (bits != ((1 << (MATBRC_RUN_MAX + 1)) - 4)) atomicAnd(&mask[b], bits);
  }
}

/* each block's run length: the largest G its lanes all allow, else 1 */
__global__ void MatBRCBlockRuns(int nblocks, int *__restrict__ runs)
{
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < nblocks; b += gridDim.x * blockDim.x) {
    int G = 1;

    for (int g = 2; g <= MATBRC_RUN_MAX; g++)
      if (runs[b] & (1 << g)) G = g;
    runs[b] = G;
  }
}

/* the slots of block b when its run length is G */
struct MatBRCRunSlots {
  const int           *blockoff, *runs;
  int                  G;
  __device__ long long operator()(int b) const { return runs[b] == G ? (long long)(blockoff[b + 1] - blockoff[b]) : 0LL; }
};

static inline int MatBRCGrid(PetscInt n)
{
  return (int)PetscMax(1, PetscMin((n + 255) / 256, 65536));
}

/* each block's run length from the 32-bit columns (d_runs; NULL when no block has runs) */
static PetscErrorCode MatBRCFindRuns(MatBRCLayout *brc, PetscInt total, const int *kind, cudaStream_t s)
{
  auto     pol    = thrust::cuda::par.on(s);
  PetscInt nslots = 0;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_runs, brc->nblocks * sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(brc->d_runs, 0xff, brc->nblocks * sizeof(int), s));
  MatBRCLaneRuns<<<MatBRCGrid(brc->nblocks * brc->b1), 256, 0, s>>>((int)(brc->nblocks * brc->b1), (int)brc->b1, brc->d_blockoff, brc->d_rowidx, brc->d_col, kind, brc->d_runs);
  PetscCallCUDA(cudaGetLastError());
  MatBRCBlockRuns<<<MatBRCGrid(brc->nblocks), 256, 0, s>>>((int)brc->nblocks, brc->d_runs);
  PetscCallCUDA(cudaGetLastError());
  for (int G = 2; G <= MATBRC_RUN_MAX; G++) {
    MatSpmvCallThrust(brc->runslots[G] = (PetscInt)thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)brc->nblocks), MatBRCRunSlots{brc->d_blockoff, brc->d_runs, G}, 0LL, thrust::plus<long long>()));
    nslots += brc->runslots[G];
  }
  if (!nslots) { /* the kernel's plain path, without the per-block load */
    PetscCall(MatSpmvCUDAFree(brc->d_runs));
    brc->d_runs = NULL;
  }
  PetscCall(PetscInfo(NULL, "BRC column runs: %" PetscInt_FMT " / %" PetscInt_FMT " / %" PetscInt_FMT " of %" PetscInt_FMT " slots in blocks with runs of 2 / 3 / 4 consecutive columns\n", brc->runslots[2], brc->runslots[3], brc->runslots[4], total));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 16-bit column offsets (MatBRCMultKernel16 says from what), when the far blocks that keep 32-bit
   columns are few enough (then d_col goes) */
PetscErrorCode MatBRCCompressColumns(MatSpmvLayout L, void *stream)
{
  MatBRCLayout *brc   = (MatBRCLayout *)L->fmt;
  cudaStream_t  s     = (cudaStream_t)stream;
  auto          pol   = thrust::cuda::par.on(s);
  const int     ncols = (int)(L->nslots / brc->b1);
  int          *span, *jlo, *jspan, *kind, *joff, *woff, tot[2] = {0, 0};

  PetscFunctionBegin;
  brc->col16     = PETSC_FALSE;
  brc->widest    = 0;
  brc->nwide     = 0;
  brc->wideslots = 0;
  brc->nfar      = 0;
  brc->farslots  = 0;
  brc->njbase    = 0;
  PetscCall(PetscArrayzero(brc->runslots, MATBRC_RUN_MAX + 1));
  PetscCall(MatSpmvCUDAFree(brc->d_runs));
  brc->d_runs = NULL;
  if (!brc->compress) PetscFunctionReturn(PETSC_SUCCESS);
  if (!brc->nblocks) {
    brc->col16 = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_colbase, brc->nblocks * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&span, brc->nblocks * sizeof(int)));
  MatBRCBlockSpan<<<MatBRCGrid(brc->nblocks), 256, 0, s>>>((int)brc->nblocks, brc->d_blockoff, brc->d_col, brc->d_colbase, span);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvCallThrust(brc->widest = thrust::reduce(pol, span, span + brc->nblocks, 0, thrust::maximum<int>()));
  if (brc->widest < MATBRC_SPAN16) { /* every block narrow */
    PetscCall(MatSpmvCUDAMalloc((void **)&kind, brc->nblocks * sizeof(int)));
    PetscCallCUDA(cudaMemsetAsync(kind, 0, brc->nblocks * sizeof(int), s));
    jlo = joff = woff = NULL;
  } else {
    PetscCall(MatSpmvCUDAMalloc((void **)&kind, (2 * (size_t)ncols + 3 * (size_t)brc->nblocks + 2) * sizeof(int))); /* one allocation: kind, joff, woff, jlo, jspan */
    joff  = kind + brc->nblocks;
    woff  = joff + brc->nblocks + 1;
    jlo   = woff + brc->nblocks + 1;
    jspan = jlo + ncols;
    MatBRCSlotColumnSpan<<<MatBRCGrid(ncols), 256, 0, s>>>(ncols, (int)brc->b1, brc->d_col, jlo, jspan);
    PetscCallCUDA(cudaGetLastError());
    MatBRCBlockKind<<<MatBRCGrid(brc->nblocks + 1), 256, 0, s>>>((int)brc->nblocks, (int)brc->b1, brc->d_blockoff, span, jspan, kind, joff, woff);
    PetscCallCUDA(cudaGetLastError());
    MatSpmvCallThrust(brc->nwide = (PetscInt)thrust::count_if(pol, kind, kind + brc->nblocks, [] __device__(int k) { return k > 0; }));
    MatSpmvCallThrust(brc->nfar = (PetscInt)thrust::count_if(pol, kind, kind + brc->nblocks, [] __device__(int k) { return k == 2; }));
    MatSpmvCallThrust(brc->wideslots = (PetscInt)thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)brc->nblocks), MatBRCWideSlots{brc->d_blockoff, kind}, 0LL, thrust::plus<long long>()));
    MatSpmvCallThrust(thrust::exclusive_scan(pol, joff, joff + brc->nblocks + 1, joff));
    MatSpmvCallThrust(thrust::exclusive_scan(pol, woff, woff + brc->nblocks + 1, woff));
    PetscCallCUDA(cudaMemcpyAsync(&tot[0], joff + brc->nblocks, sizeof(int), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaMemcpyAsync(&tot[1], woff + brc->nblocks, sizeof(int), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    brc->njbase   = tot[0];
    brc->farslots = tot[1];
  }
  /* a far block's slots keep their 32-bit columns and an unused 16-bit one: mostly far layouts were
     slower (DMPlex's Q2 operators when all their wide blocks kept 32-bit columns; docs/results.md,
     "brc: compressed column indices"), so only a quarter may be far */
  if ((double)brc->farslots <= MATBRC_WIDE_FRACTION * (double)L->nslots) {
    PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_col16, (size_t)L->nslots * sizeof(unsigned short)));
    PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_jbase, (size_t)brc->njbase * sizeof(int)));
    PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_colwide, (size_t)brc->farslots * sizeof(int)));
    MatBRCColumnOffsets<<<(unsigned)PetscMin(brc->nblocks, 65535), 128, 0, s>>>((int)brc->nblocks, (int)brc->b1, brc->d_blockoff, brc->d_col, kind, jlo, joff, woff, brc->d_colbase, brc->d_col16, brc->d_jbase, brc->d_colwide);
    PetscCallCUDA(cudaGetLastError());
    if (brc->runs) PetscCall(MatBRCFindRuns(brc, L->nslots, kind, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(MatSpmvCUDAFree(brc->d_col));
    brc->d_col    = NULL;
    brc->col16    = PETSC_TRUE;
    L->indexbytes = L->indexbytes - (size_t)L->nslots * (sizeof(int) - sizeof(unsigned short)) + (size_t)(brc->nblocks + brc->njbase + brc->farslots) * sizeof(int);
  } else { /* too many far blocks: 32-bit indices for all */
    PetscCall(MatSpmvCUDAFree(brc->d_colbase));
    brc->d_colbase = NULL;
  }
  for (int *a : {span, kind}) PetscCall(MatSpmvCUDAFree(a)); /* kind holds joff, woff, jlo and jspan in the wide case */
  PetscCall(PetscInfo(NULL, "BRC column indices: %s; %" PetscInt_FMT " of %" PetscInt_FMT " blocks (%" PetscInt_FMT " of %" PetscInt_FMT " slots) span %d columns or more, %" PetscInt_FMT " of them (%" PetscInt_FMT " slots) in some slot column\n", brc->col16 ? "16-bit offsets" : "32-bit",
                      brc->nwide, brc->nblocks, brc->wideslots, L->nslots, MATBRC_SPAN16, brc->nfar, brc->farslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rowidx: a written row r becomes map[r], a summed one -(r + 2) becomes -(map[r] + 2), a dummy -1 stays;
   initrows: r becomes map[r] */
__global__ void MatBRCMapRows(int nrowidx, int *__restrict__ rowidx, int ninit, int *__restrict__ initrows, const int *__restrict__ map)
{
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < nrowidx + ninit; q += gridDim.x * blockDim.x) {
    if (q < nrowidx) {
      const int dst = rowidx[q];

      if (dst >= 0) rowidx[q] = map[dst];
      else if (dst < -1) rowidx[q] = -(map[-dst - 2] + 2);
    } else initrows[q - nrowidx] = map[initrows[q - nrowidx]];
  }
}

PetscErrorCode MatBRCMapRowsDevice(MatSpmvLayout L, const int *d_rowmap, void *stream)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;
  const int     n   = (int)(brc->nblocks * brc->b1 + brc->ninit);

  PetscFunctionBegin;
  if (n) {
    MatBRCMapRows<<<MatBRCGrid(n), 256, 0, (cudaStream_t)stream>>>((int)(brc->nblocks * brc->b1), brc->d_rowidx, (int)brc->ninit, brc->d_initrows, d_rowmap);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatUpload_BRC(MatSpmvLayout L)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
#if defined(PETSC_USE_64BIT_INDICES)
  if (MatSpmvLayoutSlots64(L)) { /* 64-bit slot offsets (PetscInt's); the columns 32-bit, not compressed (below) */
    PetscCall(PetscInfo(NULL, "brc layout of %" PetscInt_FMT " slots: 64-bit slot offsets\n", L->nslots));
    PetscCall(MatSpmvCUDAUpload((void **)&brc->d_blockoff64, brc->blockoff, (size_t)(brc->nblocks + 1) * sizeof(long long)));
  } else
#endif
    PetscCall(MatSpmvCUDAUploadInt(&brc->d_blockoff, brc->blockoff, brc->nblocks + 1));
  PetscCall(MatSpmvCUDAUploadInt(&brc->d_rowidx, brc->rowidx, brc->nblocks * brc->b1));
  PetscCall(MatSpmvCUDAUploadInt(&brc->d_col, brc->col, L->nslots));
  PetscCall(MatSpmvCUDAUploadInt(&brc->d_initrows, brc->initrows, brc->ninit));
  if (!brc->d_blockoff64) {
    void *stream;

    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(MatBRCCompressColumns(L, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatMultDevice_BRC(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
{
  MatBRCLayout *brc     = (MatBRCLayout *)L->fmt;
  cudaStream_t  s       = (cudaStream_t)stream;
  const int     threads = 256;

  PetscFunctionBegin;
  if (brc->ninit) {
    int blocks = (int)PetscMin((brc->ninit + threads - 1) / threads, 65536);
    MatBRCInitKernel<PetscScalar, int><<<blocks, threads, 0, s>>>((int)brc->ninit, brc->d_initrows, z, y);
    PetscCallCUDA(cudaGetLastError());
  }
  if (brc->nblocks) {
    /* threads of one BRC block must not straddle two thread blocks: 256 is a multiple of b1 */
    PetscInt groups = (brc->nblocks + brc->rep - 1) / brc->rep;
    PetscInt nthr   = groups * brc->b1;
    int      blocks = (int)PetscMin((nthr + threads - 1) / threads, PETSC_INT32_MAX / threads);

    if (brc->d_blockoff64) {
      if (brc->b1 == 32) MatBRCMultKernel<PetscScalar, int, 32, long long><<<blocks, threads, 0, s>>>((int)brc->nblocks, 32, brc->d_blockoff64, brc->d_rowidx, brc->d_col, L->d_val, L->scale, x, z, y);
      else MatBRCMultKernel<PetscScalar, int, 0, long long><<<blocks, threads, 0, s>>>((int)brc->nblocks, (int)brc->b1, brc->d_blockoff64, brc->d_rowidx, brc->d_col, L->d_val, L->scale, x, z, y);
    } else if (brc->col16) {
      if (brc->b1 == 32) MatBRCMultKernel16<PetscScalar, int, 32><<<blocks, threads, 0, s>>>((int)brc->nblocks, 32, brc->d_blockoff, brc->d_rowidx, brc->d_colbase, brc->d_col16, brc->d_jbase, brc->d_colwide, brc->d_runs, L->d_val, L->scale, x, z, y);
      else MatBRCMultKernel16<PetscScalar, int, 0><<<blocks, threads, 0, s>>>((int)brc->nblocks, (int)brc->b1, brc->d_blockoff, brc->d_rowidx, brc->d_colbase, brc->d_col16, brc->d_jbase, brc->d_colwide, brc->d_runs, L->d_val, L->scale, x, z, y);
    } else if (brc->b1 == 32) MatBRCMultKernel<PetscScalar, int, 32><<<blocks, threads, 0, s>>>((int)brc->nblocks, 32, brc->d_blockoff, brc->d_rowidx, brc->d_col, L->d_val, L->scale, x, z, y);
    else MatBRCMultKernel<PetscScalar, int, 0><<<blocks, threads, 0, s>>>((int)brc->nblocks, (int)brc->b1, brc->d_blockoff, brc->d_rowidx, brc->d_col, L->d_val, L->scale, x, z, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- The layout built on the device (Algorithm 1 with the same order as MatSpmvFormatBuild_BRC) ---- */

#include <thrust/count.h>
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

struct MatBRCRowLen {
  const int              *ai;
  __host__ __device__ int operator()(int r) const { return ai[r + 1] - ai[r]; }
};
struct MatBRCRowLenSq {
  const int                 *ai;
  __host__ __device__ double operator()(int r) const
  {
    double l = ai[r + 1] - ai[r];
    return l * l;
  }
};
struct MatBRCRowInit { /* rows blocks do not write alone: empty and split rows */
  const int               *ai;
  int                      b2;
  __host__ __device__ bool operator()(int r) const
  {
    int l = ai[r + 1] - ai[r];
    return l == 0 || l > b2;
  }
};
struct MatBRCRowSplit {
  const int               *ai;
  int                      b2;
  __host__ __device__ bool operator()(int r) const { return ai[r + 1] - ai[r] > b2; }
};

/* pieces of each row (np[m] = 0 so the exclusive scan ends with the total) */
__global__ void MatBRCCountPieces(int m, const int *__restrict__ ai, int b2, int *__restrict__ np)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r <= m; r += gridDim.x * blockDim.x) {
    int l = r < m ? ai[r + 1] - ai[r] : 0;
    np[r] = l / b2 + (l % b2 ? 1 : 0);
  }
}

/* each row's pieces, in row order: sort key (window, longest first), first CSR position, length */
__global__ void MatBRCMakePieces(int m, const int *__restrict__ ai, const int *__restrict__ pofs, int b2, int W, int *__restrict__ key, int *__restrict__ id, int *__restrict__ prow, int *__restrict__ pstart, int *__restrict__ plen)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    int l = ai[r + 1] - ai[r], q = pofs[r], w = r / W, k;

    for (k = 0; k + b2 <= l; k += b2, q++) key[q] = w * (b2 + 1), id[q] = q, prow[q] = r, pstart[q] = ai[r] + k, plen[q] = b2;
    if (k < l) key[q] = w * (b2 + 1) + (b2 - (l - k)), id[q] = q, prow[q] = r, pstart[q] = ai[r] + k, plen[q] = l - k;
  }
}

/* each window's pieces rounded up to whole blocks (pw[nw] = 0 for the exclusive scan) */
__global__ void MatBRCWindowPadded(int m, int nw, int W, int b1, const int *__restrict__ pofs, int *__restrict__ pw)
{
  for (int w = blockIdx.x * blockDim.x + threadIdx.x; w <= nw; w += gridDim.x * blockDim.x) {
    int c = w < nw ? pofs[min(m, (w + 1) * W)] - pofs[w * W] : 0;
    pw[w] = (c + b1 - 1) / b1 * b1;
  }
}

/* sorted piece q goes to its window's blocks, after the window's earlier pieces */
__global__ void MatBRCPlacePieces(int P, int b2, int W, const int *__restrict__ skey, const int *__restrict__ sid, const int *__restrict__ pofs, const int *__restrict__ woff, const int *__restrict__ prow, const int *__restrict__ pstart, const int *__restrict__ plen, int *__restrict__ Prow, int *__restrict__ Pstart, int *__restrict__ Plen)
{
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < P; q += gridDim.x * blockDim.x) {
    int w = skey[q] / (b2 + 1), id = sid[q], pos = woff[w] + (q - pofs[w * W]);

    Prow[pos]   = prow[id];
    Pstart[pos] = pstart[id];
    Plen[pos]   = plen[id];
  }
}

/* slots per block: b1 x the block's first (longest) piece (bw[nblocks] = 0 for the scan) */
__global__ void MatBRCBlockSlots(int nblocks, int b1, const int *__restrict__ Plen, int *__restrict__ bw)
{
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b <= nblocks; b += gridDim.x * blockDim.x) bw[b] = b < nblocks ? b1 * Plen[b * b1] : 0;
}

/* columns and slot -> CSR map, column-major in each block; padding repeats the lane's last column,
   a dummy lane the column of the block's last real lane at its first entry (as MatSpmvFormatBuild_BRC) */
__global__ void MatBRCFill(int npad, int b1, int b2, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ blockoff, const int *__restrict__ Prow, const int *__restrict__ Pstart, const int *__restrict__ Plen, int *__restrict__ rowidx, int *__restrict__ col, int *__restrict__ slot2csr)
{
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < npad; q += gridDim.x * blockDim.x) {
    int b = q / b1, lane = q % b1, off = blockoff[b], T = (blockoff[b + 1] - off) / b1, len = Plen[q], start = Pstart[q], row = Prow[q], c = 0;

    rowidx[q] = row >= 0 ? (ai[row + 1] - ai[row] > b2 ? -(row + 2) : row) : -1;
    if (!len) {
      int p = q - 1;
      while (p > b * b1 && !Plen[p]) p--;
      c = aj[Pstart[p]];
    }
    for (int j = 0; j < T; j++) {
      int s = off + j * b1 + lane;
      if (j < len) {
        c           = aj[start + j];
        slot2csr[s] = start + j;
      } else slot2csr[s] = -1;
      col[s] = c;
    }
  }
}

PetscErrorCode MatSpmvFormatBuildDevice_BRC(const void *params, const MatSpmvCSR *pattern, const int *ai, const int *aj, MatSpmvLayout L, void *stream)
{
  const MatBRCParams *p   = (const MatBRCParams *)params;
  cudaStream_t        s   = (cudaStream_t)stream;
  auto                pol = thrust::cuda::par.on(s);
  MatBRCLayout       *brc;
  int                 m = (int)pattern->m, b1 = (int)p->b1, b2, W, nw, P, npad, nslots;
  int                *np = NULL, *key = NULL, *id = NULL, *prow = NULL, *pstart = NULL, *plen = NULL, *pw = NULL, *woff = NULL, *Prow = NULL, *Pstart = NULL, *Plen = NULL, *bw = NULL;
  double              sum = 0, sum2 = 0;

  PetscFunctionBegin;
  PetscCall(PetscNew(&brc));
  L->fmt = brc;
  /* statistics and parameters (each reduction returns one number to the host, as aijcusparse's own) */
  if (m && pattern->stats) { /* the layer counted them: the same whole numbers */
    sum        = (double)pattern->stats->sum;
    sum2       = (double)pattern->stats->sumsq;
    brc->maxnz = pattern->stats->longest;
  } else if (m) {
    MatSpmvCallThrust(sum = (double)thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), MatBRCRowLen{ai}, 0LL, thrust::plus<long long>()));
    MatSpmvCallThrust(sum2 = thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), MatBRCRowLenSq{ai}, 0.0, thrust::plus<double>()));
    MatSpmvCallThrust(brc->maxnz = thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), MatBRCRowLen{ai}, 0, thrust::maximum<int>()));
  } else sum = sum2 = 0;
  brc->mu       = m ? sum / m : 0;
  brc->sigma    = m ? PetscSqrtReal(PetscMax(sum2 / m - brc->mu * brc->mu, 0)) : 0;
  b2            = (int)(p->b2 > 0 ? p->b2 : PetscMin((PetscInt)PetscFloorReal(brc->mu + brc->sigma + 0.5), p->b2max));
  b2            = PetscMax(PetscMin(b2, (int)brc->maxnz), 1);
  W             = (int)PetscMin(MatBRCWindow(p, pattern, brc->mu, brc->sigma), (PetscInt)PETSC_INT32_MAX);
  nw            = m ? (m + W - 1) / W : 0;
  brc->b1       = b1;
  brc->b2       = b2;
  brc->rep      = p->coarsen > 0 ? p->coarsen : (brc->sigma > brc->mu ? 4 : 1);
  brc->window   = W;
  brc->compress = (PetscBool)(p->compress != 0);
  brc->runs     = (PetscBool)(p->runs != 0);
  PetscCheck(nw <= PETSC_INT32_MAX / (b2 + 1), PETSC_COMM_SELF, PETSC_ERR_SUP, "BRC sort keys of %d windows of width %d overflow 32 bits: use a larger -mat_brc_window", nw, b2);

  /* pieces, sorted by (window, length descending), stable: rows in order among equals */
  PetscCall(MatSpmvCUDAMalloc((void **)&np, (m + 1) * sizeof(int)));
  MatBRCCountPieces<<<MatBRCGrid(m + 1), 256, 0, s>>>(m, ai, b2, np);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvCallThrust(thrust::exclusive_scan(pol, np, np + m + 1, np)); /* np is now the pieces' offsets */
  PetscCallCUDA(cudaMemcpyAsync(&P, np + m, sizeof(int), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  /* one allocation for each group of temporaries: each cudaFree() waits for the device */
  PetscCall(MatSpmvCUDAMalloc((void **)&key, 5 * (size_t)P * sizeof(int)));
  id     = key ? key + P : NULL;
  prow   = key ? key + 2 * (size_t)P : NULL;
  pstart = key ? key + 3 * (size_t)P : NULL;
  plen   = key ? key + 4 * (size_t)P : NULL;
  if (m) {
    MatBRCMakePieces<<<MatBRCGrid(m), 256, 0, s>>>(m, ai, np, b2, W, key, id, prow, pstart, plen);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(MatSpmvCUDASortPairs(P, key, id, nw * (b2 + 1), stream));

  /* windows padded to whole blocks */
  PetscCall(MatSpmvCUDAMalloc((void **)&pw, (nw + 1) * sizeof(int)));
  MatBRCWindowPadded<<<MatBRCGrid(nw + 1), 256, 0, s>>>(m, nw, W, b1, np, pw);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvCallThrust(thrust::exclusive_scan(pol, pw, pw + nw + 1, pw));
  woff = pw;
  PetscCallCUDA(cudaMemcpyAsync(&npad, woff + nw, sizeof(int), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(MatSpmvCUDAMalloc((void **)&Prow, 3 * (size_t)npad * sizeof(int)));
  Pstart = Prow ? Prow + npad : NULL;
  Plen   = Prow ? Prow + 2 * (size_t)npad : NULL;
  if (npad) {
    PetscCallCUDA(cudaMemsetAsync(Prow, 0xff, npad * sizeof(int), s)); /* -1 */
    PetscCallCUDA(cudaMemsetAsync(Pstart, 0, npad * sizeof(int), s));
    PetscCallCUDA(cudaMemsetAsync(Plen, 0, npad * sizeof(int), s));
  }
  if (P) {
    MatBRCPlacePieces<<<MatBRCGrid(P), 256, 0, s>>>(P, b2, W, key, id, np, woff, prow, pstart, plen, Prow, Pstart, Plen);
    PetscCallCUDA(cudaGetLastError());
  }

  /* blocks of b1 pieces, width = their first piece */
  brc->nblocks = npad / b1;
  PetscCall(MatSpmvCUDAMalloc((void **)&bw, (brc->nblocks + 1) * sizeof(int)));
  MatBRCBlockSlots<<<MatBRCGrid(brc->nblocks + 1), 256, 0, s>>>((int)brc->nblocks, b1, Plen, bw);
  PetscCallCUDA(cudaGetLastError());
  { /* padding can take the slots past 32 bits, where the 32-bit scan below would wrap */
    long long total = 0;

    MatSpmvCallThrust(total = thrust::reduce(pol, bw, bw + brc->nblocks, 0LL, thrust::plus<long long>()));
    if (total > PETSC_INT32_MAX) {
      for (int *a : {np, key, pw, Prow, bw}) PetscCall(MatSpmvCUDAFree(a));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "BRC pads this matrix to %lld slots, more than 32-bit device indices address: split it over more MPI processes or use MATAIJCUSPARSE", total);
    }
  }
  MatSpmvCallThrust(thrust::exclusive_scan(pol, bw, bw + brc->nblocks + 1, bw));
  brc->d_blockoff = bw;
  PetscCallCUDA(cudaMemcpyAsync(&nslots, bw + brc->nblocks, sizeof(int), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  L->nslots = nslots;
  PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_rowidx, npad * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_col, (size_t)nslots * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&L->d_slot2csr, (size_t)nslots * sizeof(int)));
  if (npad) {
    MatBRCFill<<<MatBRCGrid(npad), 256, 0, s>>>(npad, b1, b2, ai, aj, bw, Prow, Pstart, Plen, brc->d_rowidx, brc->d_col, L->d_slot2csr);
    PetscCallCUDA(cudaGetLastError());
  }

  /* rows pre-set before the blocks run */
  if (m) {
    MatSpmvCallThrust(brc->ninit = thrust::count_if(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), MatBRCRowInit{ai, b2}));
    MatSpmvCallThrust(brc->nsplit = thrust::count_if(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), MatBRCRowSplit{ai, b2}));
    PetscCall(MatSpmvCUDAMalloc((void **)&brc->d_initrows, brc->ninit * sizeof(int)));
    if (brc->ninit) MatSpmvCallThrust(thrust::copy_if(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), brc->d_initrows, MatBRCRowInit{ai, b2}));
  }
  L->indexbytes = sizeof(int) * ((size_t)nslots + npad + brc->nblocks + 1 + brc->ninit);

  PetscCallCUDA(cudaStreamSynchronize(s));
  for (int *a : {np, key, pw, Prow}) PetscCall(MatSpmvCUDAFree(a)); /* key and Prow hold their groups */
  PetscCall(MatBRCCompressColumns(L, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatDownload_BRC(MatSpmvLayout L)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
  if (!brc->blockoff) PetscCall(MatSpmvCUDADownloadInt(&brc->blockoff, brc->d_blockoff, brc->nblocks + 1));
  if (!brc->rowidx) PetscCall(MatSpmvCUDADownloadInt(&brc->rowidx, brc->d_rowidx, brc->nblocks * brc->b1));
  if (!brc->col && brc->col16) { /* columns back from the base columns and offsets */
    unsigned short *c16;
    PetscInt       *base, *jbase = NULL, *wide = NULL;
    void           *stream;

    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscMalloc1(L->nslots, &brc->col));
    PetscCall(PetscMalloc1(L->nslots, &c16));
    PetscCall(MatSpmvCUDACopyToHost(c16, brc->d_col16, L->nslots * sizeof(unsigned short), stream));
    PetscCall(MatSpmvCUDADownloadInt(&base, brc->d_colbase, brc->nblocks));
    PetscCall(MatSpmvCUDADownloadInt(&jbase, brc->d_jbase, brc->njbase));
    PetscCall(MatSpmvCUDADownloadInt(&wide, brc->d_colwide, brc->farslots));
    for (PetscInt b = 0; b < brc->nblocks; b++) {
      const PetscInt off = brc->blockoff[b], k = -base[b] - 1;

      for (PetscInt sl = off; sl < brc->blockoff[b + 1]; sl++) {
        if (base[b] >= 0) brc->col[sl] = base[b] + c16[sl];
        else if (!(k % 2)) brc->col[sl] = jbase[k / 2 + (sl - off) / brc->b1] + c16[sl];
        else brc->col[sl] = wide[k / 2 + sl - off];
      }
    }
    PetscCall(PetscFree(c16));
    PetscCall(PetscFree(base));
    PetscCall(PetscFree(jbase));
    PetscCall(PetscFree(wide));
  } else if (!brc->col) PetscCall(MatSpmvCUDADownloadInt(&brc->col, brc->d_col, L->nslots));
  if (!brc->initrows) PetscCall(MatSpmvCUDADownloadInt(&brc->initrows, brc->d_initrows, brc->ninit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MATSPMV_DEVICE_KERNEL(BRC, MatBRCCountPieces)

/*
  IPCSR and CSR-M CUDA kernels on the CSR arrays (aijcusparse's, read in place), and the device
  build of the row blocks and fragment bounds in O(rows) with Thrust scans and small kernels.

  No implicit warp synchrony: exchanges through shared memory are behind __syncthreads(), the
  shuffles are the _sync ones over full warps, reached by every lane of the warp.
*/
#include "ipcsrimpl.h"
#include "../spmvlayer/spmvkernels.h"

#define MATIPCSR_QUAL __device__ static inline
#define MATIPCSR_IDX  int
#include "ipcsrrows.h"

/* y = z (or 0) on the rows split over several blocks, before their pieces add into them; z may be y */
template <typename V>
__global__ void MatIPCSRPresetKernel(int nsplit, const int *__restrict__ rows, const V *z, V *y)
{
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nsplit; k += gridDim.x * blockDim.x) {
    const int r = rows[k];

    y[r] = z ? z[r] : V(0);
  }
}

/* Butterfly sum over groups of `width` lanes (a power of two up to 32): every lane of the warp
   must call it; each group's lanes end with their group's sum (lane 0 of a group in the order the
   host reference uses) */
template <typename V>
__device__ __forceinline__ V MatIPCSRGroupSum(V v, int width)
{
  for (int o = width / 2; o > 0; o /= 2) v += MatSpmvShflXor(v, o);
  return v;
}

/*
  The IPCSR kernel (the paper's Algorithm 9): thread block b takes row block b = {first row,
  rows, first nonzero, end nonzero}.
  - One row, or a piece of a split row (Algorithm 8): the block's threads sum the row's entries
    strided (coalesced reads, no staging), then each warp by shuffles and warp 0 the warps' sums;
    a piece adds its sum atomically into y (preset to z or 0).
  - Several rows (Algorithm 7): the block loads its entries' products with x into shared memory
    with coalesced reads (the products of a block fit its budget by construction), then sums each
    row with tpr threads (the decision tree, MatIPCSRThreadsPerRow()): tpr = 1 is Algorithm 3's
    scalar reduction; otherwise each group of tpr lanes strides over its row and adds by shuffles
    (Algorithm 5's multiple scalar-style reduction).
  z may be y: a row not split is read and written by one thread.
*/
template <typename V>
__global__ void __launch_bounds__(MATIPCSR_THREADS) MatIPCSRMultKernel(const int4 *__restrict__ blocks, const int *__restrict__ ai, const int *__restrict__ aj, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y)
{
  extern __shared__ __align__(16) unsigned char MatIPCSRShared[]; /* raw bytes: complex V has constructors */
  V                                            *sh   = reinterpret_cast<V *>(MatIPCSRShared);
  const int4                                    blk  = blocks[blockIdx.x];
  const int                                     row0 = blk.x, nrows = blk.y, tid = threadIdx.x;
  /* unsigned: the strided indices stay below 2^31 + MATIPCSR_THREADS */
  const unsigned begin = (unsigned)blk.z, end = (unsigned)blk.w;

  if (nrows == 1 || nrows == MATIPCSR_PIECE) {
    V sum = V(0);

#pragma unroll 4
    for (unsigned k = begin + tid; k < end; k += MATIPCSR_THREADS) sum += MatSpmvLoadStream(&val[k]) * x[MatSpmvLoadStream(&aj[k])];
    sum = MatIPCSRGroupSum(sum, 32);
    if (!(tid & 31)) sh[tid >> 5] = sum;
    __syncthreads();
    if (tid < 32) {
      sum = tid < MATIPCSR_WARPS ? sh[tid] : V(0);
      sum = MatIPCSRGroupSum(sum, 32);
      if (!tid) {
        sum *= alpha;
        if (nrows == 1) y[row0] = z ? z[row0] + sum : sum;
        else MatSpmvAtomicAdd(&y[row0], sum);
      }
    }
    return;
  }

  /* stage the block's products in shared memory, coalesced */
#pragma unroll 4
  for (unsigned k = begin + tid; k < end; k += MATIPCSR_THREADS) sh[k - begin] = MatSpmvLoadStream(&val[k]) * x[MatSpmvLoadStream(&aj[k])];
  __syncthreads();

  const int tpr = MatIPCSRThreadsPerRow(nrows);
  if (tpr == 1) { /* Algorithm 3: a thread per row */
    for (int r = tid; r < nrows; r += MATIPCSR_THREADS) {
      const unsigned s = (unsigned)ai[row0 + r] - begin, e = (unsigned)ai[row0 + r + 1] - begin;
      V              sum = V(0);

      for (unsigned k = s; k < e; k++) sum += sh[k];
      sum *= alpha;
      y[row0 + r] = z ? z[row0 + r] + sum : sum;
    }
  } else { /* Algorithm 5: tpr threads per row; the loop runs alike on all threads (the shuffles) */
    const int lane = tid & (tpr - 1), group = tid / tpr, ngroups = MATIPCSR_THREADS / tpr;

    for (int base = 0; base < nrows; base += ngroups) {
      const int r   = base + group;
      V         sum = V(0);

      if (r < nrows) {
        const unsigned s = (unsigned)ai[row0 + r] - begin, e = (unsigned)ai[row0 + r + 1] - begin;

        for (unsigned k = s + lane; k < e; k += tpr) sum += sh[k];
      }
      sum = MatIPCSRGroupSum(sum, tpr);
      if (!lane && r < nrows) {
        sum *= alpha;
        y[row0 + r] = z ? z[row0 + r] + sum : sum;
      }
    }
  }
}

/*
  The CSR-M kernel (the paper's Table V): thread block f takes the fragment of nonzeros
  [f F, min((f + 1) F, nnz)), loads their products with x into shared memory with coalesced reads,
  then half-warps take its rows bound[2f] .. bound[2f+1] in turn (a cycle when there are more rows
  than half-warps), each summing its row's entries in the fragment by 16 strided lanes and a
  butterfly. A row wholly in the fragment is written; the partial sums of the fragment's first and
  last rows when they are shared with other fragments go to part[2f] and part[2f+1], for
  MatIPCSRCombineKernel. z may be y (each row written by one thread).
*/
template <typename V>
__global__ void __launch_bounds__(MATIPCSR_THREADS) MatIPCSRCSRMKernel(int nnz, int F, const int2 *__restrict__ bound, const int *__restrict__ ai, const int *__restrict__ aj, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y, V *__restrict__ part)
{
  extern __shared__ __align__(16) unsigned char MatIPCSRShared[];
  V                                            *sh = reinterpret_cast<V *>(MatIPCSRShared);
  const int                                     f = blockIdx.x, tid = threadIdx.x;
  const long long                               lo = (long long)f * F, hi = min(lo + F, (long long)nnz);
  const int2                                    b  = bound[f];
  const int                                     hw = tid / MATIPCSR_CSRM_LANES, lane = tid & (MATIPCSR_CSRM_LANES - 1), nhw = MATIPCSR_THREADS / MATIPCSR_CSRM_LANES;
  const unsigned                                len = (unsigned)(hi - lo);

#pragma unroll 4
  for (unsigned k = tid; k < len; k += MATIPCSR_THREADS) sh[k] = MatSpmvLoadStream(&val[lo + k]) * x[MatSpmvLoadStream(&aj[lo + k])];
  __syncthreads();
  for (int base = b.x; base <= b.y; base += nhw) { /* alike on all threads (the shuffles) */
    const int r   = base + hw;
    V         sum = V(0);
    long long rs = 0, re = 0;

    if (r <= b.y) {
      rs               = ai[r];
      re               = ai[r + 1];
      const unsigned s = (unsigned)(max(rs, lo) - lo), e = (unsigned)(min(re, hi) - lo);

      for (unsigned k = s + lane; k < e; k += MATIPCSR_CSRM_LANES) sum += sh[k];
    }
    sum = MatIPCSRGroupSum(sum, MATIPCSR_CSRM_LANES);
    if (!lane && r <= b.y) {
      if (rs >= lo && re <= hi) {
        sum *= alpha;
        y[r] = z ? z[r] + sum : sum;
      } else {
        if (r == b.x) part[2 * f] = sum;
        if (r == b.y) part[2 * f + 1] = sum;
      }
    }
  }
}

/* CSR-M's second step (the paper's Table VI): a thread per fragment; the fragment where a shared
   row starts adds the row's partial sums over the fragments it spans, in order (no atomics: the
   result does not depend on scheduling), and writes it */
template <typename V>
__global__ void MatIPCSRCombineKernel(int nfrag, int nnz, int F, const int *__restrict__ bound, const int *__restrict__ ai, const V alpha, const V *z, V *y, const V *__restrict__ part)
{
  for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < nfrag; f += gridDim.x * blockDim.x) {
    const int       r  = bound[2 * f + 1];
    const long long re = ai[r + 1];

    if (MatIPCSROwnsShared(f, nnz, ai, F, bound)) {
      V sum = part[2 * f + 1];

      for (int g = f + 1;; g++) {
        sum += part[2 * g];
        if (re <= min((long long)(g + 1) * F, (long long)nnz)) break;
      }
      sum *= alpha;
      y[r] = z ? z[r] + sum : sum;
    }
  }
}

static inline size_t MatIPCSRShmem(const MatIPCSRLayout *ip)
{
  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) return (size_t)PetscMax(ip->S, MATIPCSR_WARPS) * sizeof(PetscScalar); /* the budget; the warps' sums of a one-row block */
  return (size_t)ip->fragment * sizeof(PetscScalar);
}

/* The paper's shared memory per block, from this GPU's figures */
PetscErrorCode MatIPCSRDeviceShared(PetscInt *bytes)
{
  int dev, smem, threads, blocks, reserved = 0, optin;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  *bytes = (PetscInt)PetscMin(MatIPCSRSharedFormula(smem, threads, blocks, reserved), (long long)optin);
  *bytes = PetscMax(*bytes, (PetscInt)sizeof(PetscScalar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The kernel's dynamic shared memory must fit a block on this GPU; beyond the default 48 KB the
   kernel is allowed more (opt-in) */
static PetscErrorCode MatIPCSRPrepareLaunch(const MatIPCSRLayout *ip)
{
  const size_t bytes = MatIPCSRShmem(ip);
  int          dev, optin;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) {
    PetscCheck(bytes <= (size_t)optin, PETSC_COMM_SELF, PETSC_ERR_SUP, "IPCSR needs %zu bytes of shared memory per thread block, this GPU gives at most %d: lower -mat_ipcsr_shared (or 0 for the paper's formula)", bytes, optin);
    if (bytes > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(MatIPCSRMultKernel<PetscScalar>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  } else {
    PetscCheck(bytes <= (size_t)optin, PETSC_COMM_SELF, PETSC_ERR_SUP, "CSR-M fragments of %" PetscInt_FMT " nonzeros need %zu bytes of shared memory per thread block, this GPU gives at most %d: lower -mat_ipcsr_fragment", ip->fragment, bytes, optin);
    if (bytes > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(MatIPCSRCSRMKernel<PetscScalar>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A host-built layout (A^T, a host base, 64-bit PetscInt): our copies of the pattern go up too */
PetscErrorCode MatSpmvFormatUpload_IPCSR(MatSpmvLayout L)
{
  MatIPCSRLayout *ip = (MatIPCSRLayout *)L->fmt;
  int            *d_ai, *d_aj;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAUploadInt(&d_ai, ip->ai, ip->m + 1));
  PetscCall(MatSpmvCUDAUploadInt(&d_aj, ip->aj, ip->nnz));
  ip->d_ai       = d_ai;
  ip->d_aj       = d_aj;
  ip->borrowedij = PETSC_FALSE;
  PetscCall(MatSpmvCUDAUploadInt(&ip->d_blocks, ip->blocks, 4 * ip->nblocks)); /* cudaMalloc'ed: aligned for the int4 loads */
  PetscCall(MatSpmvCUDAUploadInt(&ip->d_split, ip->split, ip->nsplit));
  PetscCall(MatSpmvCUDAUploadInt(&ip->d_bound, ip->bound, 2 * ip->nfrag));
  PetscCall(MatSpmvCUDAMalloc((void **)&ip->d_part, 2 * ip->nfrag * sizeof(PetscScalar)));
  PetscCall(MatIPCSRPrepareLaunch(ip));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatMultDevice_IPCSR(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
{
  MatIPCSRLayout *ip    = (MatIPCSRLayout *)L->fmt;
  cudaStream_t    s     = (cudaStream_t)stream;
  const size_t    shmem = MatIPCSRShmem(ip);

  PetscFunctionBegin;
  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) {
    if (ip->nsplit) { /* before the pieces add into them */
      const int threads = 256, blocks = (int)PetscMin((ip->nsplit + threads - 1) / threads, 1024);

      MatIPCSRPresetKernel<PetscScalar><<<blocks, threads, 0, s>>>((int)ip->nsplit, ip->d_split, z, y);
      PetscCallCUDA(cudaGetLastError());
    }
    if (ip->nblocks) {
      MatIPCSRMultKernel<PetscScalar><<<(unsigned)ip->nblocks, MATIPCSR_THREADS, shmem, s>>>(reinterpret_cast<const int4 *>(ip->d_blocks), ip->d_ai, ip->d_aj, L->d_val, L->scale, x, z, y);
      PetscCallCUDA(cudaGetLastError());
    }
  } else if (ip->nfrag) {
    MatIPCSRCSRMKernel<PetscScalar><<<(unsigned)ip->nfrag, MATIPCSR_THREADS, shmem, s>>>((int)ip->nnz, (int)ip->fragment, reinterpret_cast<const int2 *>(ip->d_bound), ip->d_ai, ip->d_aj, L->d_val, L->scale, x, z, y, ip->d_part);
    PetscCallCUDA(cudaGetLastError());
    if (ip->nshared) { /* after the fragments' partial sums */
      const int threads = 256, blocks = (int)PetscMin((ip->nfrag + threads - 1) / threads, 65535);

      MatIPCSRCombineKernel<PetscScalar><<<blocks, threads, 0, s>>>((int)ip->nfrag, (int)ip->nnz, (int)ip->fragment, ip->d_bound, ip->d_ai, L->scale, z, y, ip->d_part);
      PetscCallCUDA(cudaGetLastError());
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- The device build: row blocks (ipcsr) or fragment bounds (csrm) from aijcusparse's row
   offsets, in O(rows) with scans and small kernels; the nonzeros are not read ---- */

#include <thrust/count.h>
#include <thrust/copy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

struct MatIPCSRRowStats {
  double sum2;
  int    max;
};
struct MatIPCSRRowStatsOf {
  const int                           *ai;
  __host__ __device__ MatIPCSRRowStats operator()(int r) const
  {
    const int l = ai[r + 1] - ai[r];

    return MatIPCSRRowStats{(double)l * l, l};
  }
};
struct MatIPCSRRowStatsAdd {
  __host__ __device__ MatIPCSRRowStats operator()(const MatIPCSRRowStats &a, const MatIPCSRRowStats &b) const { return MatIPCSRRowStats{a.sum2 + b.sum2, a.max > b.max ? a.max : b.max}; }
};

/* rows split over several blocks */
struct MatIPCSRRowSplit {
  const int               *ai;
  int                      S;
  __host__ __device__ bool operator()(int r) const { return ai[r + 1] - ai[r] > S; }
};

/* the statistics of MatIPCSRBlockStatsHost() */
struct MatIPCSRBlockStatsOf {
  const int4                            *blocks;
  __host__ __device__ MatIPCSRBlockStats operator()(int b) const
  {
    MatIPCSRBlockStats s = {
      {0, 0, 0, 0, 0, 0},
      0, 0, PETSC_INT_MAX, 0
    };
    const int nr = blocks[b].y;

    if (nr == MATIPCSR_PIECE) s.pieces = 1;
    else if (nr == 1) s.single = 1;
    else {
      const int tpr = MatIPCSRThreadsPerRow(nr);

      for (int k = 0; k < 6; k++)
        if (tpr == 1 << k) s.tpr[k] = 1;
      s.minrows = s.maxrows = nr;
    }
    return s;
  }
};
struct MatIPCSRBlockStatsAdd {
  __host__ __device__ MatIPCSRBlockStats operator()(const MatIPCSRBlockStats &a, const MatIPCSRBlockStats &b) const
  {
    MatIPCSRBlockStats s;

    for (int k = 0; k < 6; k++) s.tpr[k] = a.tpr[k] + b.tpr[k];
    s.single  = a.single + b.single;
    s.pieces  = a.pieces + b.pieces;
    s.minrows = a.minrows < b.minrows ? a.minrows : b.minrows;
    s.maxrows = a.maxrows > b.maxrows ? a.maxrows : b.maxrows;
    return s;
  }
};

/* rows per fragment and rows shared (counted at the fragment where they start) */
struct MatIPCSRFragStats {
  int maxrows, nshared;
};
struct MatIPCSRFragStatsOf {
  const int                   *bound, *ai;
  int                          nnz, F;
  __device__ MatIPCSRFragStats operator()(int f) const { return MatIPCSRFragStats{bound[2 * f + 1] - bound[2 * f] + 1, MatIPCSROwnsShared(f, nnz, ai, F, bound)}; }
};
struct MatIPCSRFragStatsAdd {
  __host__ __device__ MatIPCSRFragStats operator()(const MatIPCSRFragStats &a, const MatIPCSRFragStats &b) const { return MatIPCSRFragStats{a.maxrows > b.maxrows ? a.maxrows : b.maxrows, a.nshared + b.nshared}; }
};

static inline int MatIPCSRGrid(long long n)
{
  return (int)PetscMax(1, PetscMin((n + 255) / 256, 65535));
}

/* the steps of ipcsrrows.h, one thread per row or fragment */
__global__ void MatIPCSRRunStarts(int m, const int *__restrict__ ai, int own, int window, int *__restrict__ head)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) head[r] = MatIPCSRRunStart(r, ai, own, window);
}

/* nb[m] = 0 for the exclusive scan */
__global__ void MatIPCSRCountBlocks(int m, const int *__restrict__ ai, const int *__restrict__ head, int own, int S, long long *__restrict__ nb)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r <= m; r += gridDim.x * blockDim.x) nb[r] = r < m ? MatIPCSRBlocksAt(r, ai, head[r], own, S) : 0;
}

__global__ void MatIPCSRFillBlocks(int m, const int *__restrict__ ai, const int *__restrict__ head, const long long *__restrict__ boff, int own, int S, int *__restrict__ blocks)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) MatIPCSRFillRow(r, m, ai, head, boff[r], own, S, blocks);
}

__global__ void MatIPCSRBoundFirstKernel(int m, const int *__restrict__ ai, int F, int *__restrict__ bound)
{
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) MatIPCSRBoundFirst(r, ai, F, bound);
}

/* after MatIPCSRBoundFirstKernel: reads the next fragment's first row */
__global__ void MatIPCSRBoundLastKernel(int m, int nfrag, const int *__restrict__ ai, int F, int *__restrict__ bound)
{
  for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < nfrag; f += gridDim.x * blockDim.x) MatIPCSRBoundLast(f, m, nfrag, ai, F, bound);
}

PetscErrorCode MatSpmvFormatBuildDevice_IPCSR(const void *params, const MatSpmvCSR *pattern, const int *ai, const int *aj, MatSpmvLayout L, void *stream)
{
  cudaStream_t    s   = (cudaStream_t)stream;
  auto            pol = thrust::cuda::par.on(s);
  MatIPCSRLayout *ip;
  const int       m = (int)pattern->m;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ip));
  L->fmt  = ip;
  ip->m   = pattern->m;
  ip->nnz = pattern->nnz;
  /* the CSR is the layout: aijcusparse's arrays, kept (valid as long as this layout) and its values read in place */
  ip->d_ai       = ai;
  ip->d_aj       = aj;
  ip->borrowedij = PETSC_TRUE;
  L->nslots      = pattern->nnz;
  L->identity    = PETSC_TRUE;
  /* row-length statistics (one number back to the host, as aijcusparse's own reductions) */
  if (m) {
    MatIPCSRRowStats st = {0.0, 0};

    MatSpmvCallThrust(st = thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), MatIPCSRRowStatsOf{ai}, MatIPCSRRowStats{0.0, 0}, MatIPCSRRowStatsAdd{}));

    ip->maxlen = st.max;
    ip->mu     = (PetscReal)pattern->nnz / m;
    ip->sigma  = PetscSqrtReal(PetscMax(st.sum2 / m - ip->mu * ip->mu, 0));
  }
  {
    PetscInt gpushared;

    PetscCall(MatIPCSRDeviceShared(&gpushared));
    PetscCall(MatIPCSRSetup((const MatIPCSRParams *)params, gpushared, ip));
  }

  if (ip->kernel == MAT_IPCSR_KERNEL_IPCSR) {
    int       *head = NULL;
    long long *nb = NULL, nblocks = 0;

    if (m) {
      PetscCall(MatSpmvCUDAMalloc((void **)&head, m * sizeof(int)));
      PetscCall(MatSpmvCUDAMalloc((void **)&nb, (m + 1) * sizeof(long long)));
      MatIPCSRRunStarts<<<MatIPCSRGrid(m), 256, 0, s>>>(m, ai, (int)ip->own, (int)ip->window, head);
      PetscCallCUDA(cudaGetLastError());
      MatSpmvCallThrust(thrust::inclusive_scan(pol, head, head + m, head, thrust::maximum<int>())); /* each row's run head */
      MatIPCSRCountBlocks<<<MatIPCSRGrid(m + 1), 256, 0, s>>>(m, ai, head, (int)ip->own, (int)ip->S, nb);
      PetscCallCUDA(cudaGetLastError());
      MatSpmvCallThrust(thrust::exclusive_scan(pol, nb, nb + m + 1, nb)); /* first block of each row; nb[m] the blocks */
      PetscCallCUDA(cudaMemcpyAsync(&nblocks, nb + m, sizeof(long long), cudaMemcpyDeviceToHost, s));
      PetscCallCUDA(cudaStreamSynchronize(s));
    }
    PetscCheck(nblocks <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "IPCSR needs %lld thread blocks for this %d-row matrix, more than a CUDA grid holds: raise -mat_ipcsr_shared, use -mat_ipcsr_kernel csrm, or split the matrix over more MPI processes", nblocks, m);
    ip->nblocks = (PetscInt)nblocks;
    PetscCall(MatSpmvCUDAMalloc((void **)&ip->d_blocks, 4 * nblocks * sizeof(int)));
    if (nblocks) {
      MatIPCSRFillBlocks<<<MatIPCSRGrid(m), 256, 0, s>>>(m, ai, head, nb, (int)ip->own, (int)ip->S, ip->d_blocks);
      PetscCallCUDA(cudaGetLastError());
      const MatIPCSRBlockStatsOf of = {reinterpret_cast<const int4 *>(ip->d_blocks)};

      MatSpmvCallThrust(ip->bs = thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)nblocks), of,
                                                          MatIPCSRBlockStats{
                                                            {0, 0, 0, 0, 0, 0},
                                                            0, 0, PETSC_INT_MAX, 0
      },
                                                          MatIPCSRBlockStatsAdd{}));
      if (ip->bs.minrows == PETSC_INT_MAX) ip->bs.minrows = 0;
    }
    if (m) {
      MatSpmvCallThrust(ip->nsplit = thrust::count_if(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), MatIPCSRRowSplit{ai, (int)ip->S}));
      PetscCall(MatSpmvCUDAMalloc((void **)&ip->d_split, ip->nsplit * sizeof(int)));
      if (ip->nsplit) MatSpmvCallThrust(thrust::copy_if(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m), ip->d_split, MatIPCSRRowSplit{ai, (int)ip->S}));
    }
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(MatSpmvCUDAFree(head));
    PetscCall(MatSpmvCUDAFree(nb));
  } else {
    const int F = (int)ip->fragment;

    ip->nfrag = (PetscInt)MatIPCSRFragments(m, pattern->nnz, F);
    PetscCall(MatSpmvCUDAMalloc((void **)&ip->d_bound, 2 * ip->nfrag * sizeof(int)));
    PetscCall(MatSpmvCUDAMalloc((void **)&ip->d_part, 2 * ip->nfrag * sizeof(PetscScalar)));
    if (ip->nfrag) {
      MatIPCSRFragStats st;

      PetscCallCUDA(cudaMemsetAsync(ip->d_bound, 0, sizeof(int), s)); /* fragment 0 starts at row 0 */
      MatIPCSRBoundFirstKernel<<<MatIPCSRGrid(m), 256, 0, s>>>(m, ai, F, ip->d_bound);
      PetscCallCUDA(cudaGetLastError());
      MatIPCSRBoundLastKernel<<<MatIPCSRGrid(ip->nfrag), 256, 0, s>>>(m, (int)ip->nfrag, ai, F, ip->d_bound);
      PetscCallCUDA(cudaGetLastError());
      MatSpmvCallThrust(st = thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)ip->nfrag), MatIPCSRFragStatsOf{ip->d_bound, ai, (int)pattern->nnz, F}, MatIPCSRFragStats{0, 0}, MatIPCSRFragStatsAdd{}));
      ip->maxfrows = st.maxrows;
      ip->nshared  = st.nshared;
    }
    PetscCallCUDA(cudaStreamSynchronize(s));
  }
  PetscCall(MatIPCSRPrepareLaunch(ip));
  /* our own arrays only: the CSR is aijcusparse's */
  L->indexbytes = sizeof(int) * (4 * (size_t)ip->nblocks + ip->nsplit + 2 * ip->nfrag);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host copies of the pattern and of our arrays, for the layout checks */
PetscErrorCode MatSpmvFormatDownload_IPCSR(MatSpmvLayout L)
{
  MatIPCSRLayout *ip = (MatIPCSRLayout *)L->fmt;

  PetscFunctionBegin;
  if (!ip->ai) PetscCall(MatSpmvCUDADownloadInt(&ip->ai, ip->d_ai, ip->m + 1));
  if (!ip->aj) PetscCall(MatSpmvCUDADownloadInt(&ip->aj, ip->d_aj, ip->nnz));
  if (!ip->blocks) PetscCall(MatSpmvCUDADownloadInt(&ip->blocks, ip->d_blocks, 4 * ip->nblocks));
  if (!ip->split) PetscCall(MatSpmvCUDADownloadInt(&ip->split, ip->d_split, ip->nsplit));
  if (!ip->bound) PetscCall(MatSpmvCUDADownloadInt(&ip->bound, ip->d_bound, 2 * ip->nfrag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MATSPMV_DEVICE_KERNEL(IPCSR, MatIPCSRPresetKernel<PetscScalar>)

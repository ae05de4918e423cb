/*
  ARGCSR CUDA kernels: the paper's kernel, written for current GPUs.

  A grid of at most as many thread blocks as the device holds at once; block b takes the groups
  b, b + gridDim.x, ... in turn (one launch, no block retiring and starting per group, and the
  next group's info is loaded while the current one is summed). The group info is read by every
  thread (one 16-byte broadcast load, no shared memory and no barrier); each thread sums its
  chunk (consecutive threads read consecutive slots), loading MATARGCSR_UNROLL entries at once,
  up to the chunk size or its first -1 column; then each row sums its chunks' partial sums. A
  piece of a split row sums all the block's chunks and adds the result atomically into y, whose
  split rows a first launch sets to z (or 0). No implicit warp synchrony: every exchange through
  shared memory is behind a __syncthreads(), and the shuffles are the _sync ones over full warps.
*/
#include "argcsrimpl.h"
#include "../spmvlayer/spmvkernels.h"

#define MATARGCSR_UNROLL 4 /* entries of a chunk whose loads are in flight together */

/* y = z (or 0) on the split rows, before their pieces add into them; z may be y */
template <typename V>
__global__ void MatARGCSRPresetKernel(int nsplit, const int *__restrict__ rows, const V *z, V *y)
{
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nsplit; k += gridDim.x * blockDim.x) {
    const int r = rows[k];

    y[r] = z ? z[r] : V(0);
  }
}

/* The sum of the chunk starting at slot s: entries nt slots apart, up to chunk of them or the
   first -1 (the padding fills a chunk's end). MATARGCSR_UNROLL column indices (those below the
   chunk size) are loaded at once, then the values and x entries of those that are not padding:
   up to MATARGCSR_UNROLL - 1 padding indices more are read than one entry at a time would, for
   that many loads in flight per thread. The entries are added in order. */
template <typename V>
__device__ __forceinline__ V MatARGCSRChunkSum(const int *__restrict__ col, const V *__restrict__ val, const V *__restrict__ x, unsigned s, int chunk, unsigned nt)
{
  V sum = V(0);

  for (int e = 0; e < chunk; e += MATARGCSR_UNROLL, s += MATARGCSR_UNROLL * nt) {
    int c[MATARGCSR_UNROLL];
    V   a[MATARGCSR_UNROLL], b[MATARGCSR_UNROLL];

    /* all loads issued before the first product waits for them */
#pragma unroll
    for (int u = 0; u < MATARGCSR_UNROLL; u++) c[u] = e + u < chunk ? MatSpmvLoadStream(&col[s + u * nt]) : -1;
#pragma unroll
    for (int u = 0; u < MATARGCSR_UNROLL; u++) {
      a[u] = V(0);
      b[u] = V(0);
      if (c[u] >= 0) {
        a[u] = MatSpmvLoadStream(&val[s + u * nt]);
        b[u] = x[c[u]];
      }
    }
#pragma unroll
    for (int u = 0; u < MATARGCSR_UNROLL; u++)
      if (c[u] >= 0) sum += a[u] * b[u];
    if (c[MATARGCSR_UNROLL - 1] < 0) break; /* the chunk's end, or padding from here on */
  }
  return sum;
}

/* blockDim.x threads per group (a multiple of 32 up to 1024): blockDim.x partial sums and
   blockDim.x row ends in dynamic shared memory. gridDim.x <= ngroups. z may be y: a row that is
   not split is read and written by one thread, and a split row's z was read by the preset. */
template <typename V>
__global__ void __launch_bounds__(MATARGCSR_MAX_BLOCK) MatARGCSRMultKernel(int ngroups, const int4 *__restrict__ group, const int *__restrict__ rowend, const int *__restrict__ col, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y)
{
  extern __shared__ __align__(16) unsigned char MatARGCSRShared[]; /* raw bytes: complex V has constructors */
  V                                            *part = reinterpret_cast<V *>(MatARGCSRShared);
  int                                          *ends = reinterpret_cast<int *>(part + blockDim.x);
  const int                                     tid = threadIdx.x, nt = blockDim.x;
  int4                                          info = group[blockIdx.x]; /* first row, rows (MATARGCSR_PIECE: a piece of a split row), first slot, chunk size */

  /* unsigned: g + gridDim.x stays below 2^32 */
  for (unsigned g = blockIdx.x; g < (unsigned)ngroups; g += gridDim.x) {
    const int first = info.x, size = info.y, chunk = info.w;
    const int off   = info.z;
    int       begin = 0, end = 0;

    if (g + gridDim.x < (unsigned)ngroups) info = group[g + gridDim.x]; /* the next group's, in flight while this one is summed */
    if (tid < size) {                                                   /* thread tid sums row tid of the group: its chunks are threads [begin, end) */
      end   = rowend[first + tid];
      begin = tid ? rowend[first + tid - 1] : 0;
    }
    /* the chunk of this thread; unsigned: offsets stay below 2^31 + 1024 */
    V sum = MatARGCSRChunkSum(col, val, x, (unsigned)off + tid, chunk, nt);

    if (size == MATARGCSR_PIECE) { /* all chunks are row first's: each warp adds its own, then warp 0 the warps' sums */
      for (int o = 16; o > 0; o /= 2) sum += MatSpmvShflXor(sum, o);
      __syncthreads(); /* the previous group's partial sums are read */
      if (!(tid & 31)) part[tid >> 5] = sum;
      __syncthreads();
      if (tid < 32) {
        sum = tid < nt / 32 ? part[tid] : V(0);
        for (int o = 16; o > 0; o /= 2) sum += MatSpmvShflXor(sum, o);
        if (!tid) MatSpmvAtomicAdd(&y[first], alpha * sum);
      }
      continue;
    }
    __syncthreads(); /* the previous group's partial sums and row ends are read */
    part[tid] = sum;
    if (tid < size) ends[tid] = end;

    /* rows of few chunks: one thread adds them (the paper's loop); a group with a wider row adds
       all rows' chunks by a segmented tree instead, log2 of its widest row steps */
    V r = V(0);
    if (!__syncthreads_or(end - begin > MATARGCSR_SERIAL_SUM)) {
      for (int t = begin; t < end; t++) r += part[t];
    } else {
      int lo = 0, hi = size, j = 0, k = 0;

      while (lo < hi) { /* the row of this thread's chunk: the first whose end is past tid */
        const int mid = (lo + hi) / 2;

        if (ends[mid] > tid) hi = mid;
        else lo = mid + 1;
      }
      if (lo < size) { /* threads past the last row's chunks hold no chunk */
        const int b = lo ? ends[lo - 1] : 0;

        j = tid - b;
        k = ends[lo] - b;
      }
      /* step `o` adds chunk j + o of the row into chunk j for j a multiple of 2 o: no chunk is
         read and written in the same step; the barrier of the condition separates the steps */
      for (int o = 1; __syncthreads_or(k > o); o *= 2)
        if (!(j & (2 * o - 1)) && j + o < k) part[tid] += part[tid + o];
      if (end > begin) r = part[begin];
    }
    if (tid < size) {
      const int row = first + tid;

      r *= alpha;
      y[row] = z ? z[row] + r : r;
    }
  }
}

static inline size_t MatARGCSRShmem(const MatARGCSRLayout *ag)
{
  return (size_t)ag->block * (sizeof(PetscScalar) + sizeof(int));
}

PetscErrorCode MatSpmvFormatUpload_ARGCSR(MatSpmvLayout L)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;
  int              dev, nsm, perSM;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_group, ag->group, 4 * ag->ngroups)); /* cudaMalloc'ed: aligned for the int4 loads */
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_rowend, ag->rowend, L->m));
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_col, ag->col, L->nslots));
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_split, ag->split, ag->nsplit));
  /* the grid: as many blocks as the device runs at once */
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, MatARGCSRMultKernel<PetscScalar>, (int)ag->block, MatARGCSRShmem(ag)));
  ag->gridmax = PetscMax(perSM, 1) * PetscMax(nsm, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatMultDevice_ARGCSR(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;
  cudaStream_t     s  = (cudaStream_t)stream;
  unsigned         grid;

  PetscFunctionBegin;
  if (!ag->ngroups) PetscFunctionReturn(PETSC_SUCCESS);
  if (ag->nsplit) { /* before the pieces add into them */
    const int threads = 256, blocks = (int)PetscMin((ag->nsplit + threads - 1) / threads, 1024);

    MatARGCSRPresetKernel<PetscScalar><<<blocks, threads, 0, s>>>((int)ag->nsplit, ag->d_split, z, y);
    PetscCallCUDA(cudaGetLastError());
  }
  /* groups are fewer than 2^31 (at most one per row plus one per piece of at least block entries) */
  grid = (unsigned)(ag->gridmax > 0 ? PetscMin(ag->ngroups, (PetscInt)ag->gridmax) : ag->ngroups);
  MatARGCSRMultKernel<PetscScalar><<<grid, (unsigned)ag->block, MatARGCSRShmem(ag), s>>>((int)ag->ngroups, reinterpret_cast<const int4 *>(ag->d_group), ag->d_rowend, ag->d_col, L->d_val, L->scale, x, z, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- The layout built with the GPU: the groups are planned on the host from the row lengths
   (O(rows): the greedy grouping is sequential), the nonzeros are placed on the device ---- */

#include <thrust/fill.h>
#include <thrust/execution_policy.h>

/* one CUDA block per group: a thread per row deals the row round-robin over its chunks (as
   MatSpmvFormatBuild_ARGCSR); a piece of a split row is copied by the whole block */
__global__ void MatARGCSRFillKernel(int ngroups, int B, long long cap, const int *__restrict__ group, const int *__restrict__ rowend, const int *__restrict__ ai, const int *__restrict__ aj, int *__restrict__ col, int *__restrict__ slot2csr)
{
  for (int g = blockIdx.x; g < ngroups; g += gridDim.x) {
    const int first = group[4 * g], nr = group[4 * g + 1], off = group[4 * g + 2];

    if (nr == MATARGCSR_PIECE) {
      const int len = ai[first + 1] - ai[first], n = (int)((len + cap - 1) / cap), q = len / n, rem = len % n;
      int       p = 0;

      while (g - p - 1 >= 0 && group[4 * (g - p - 1)] == first && group[4 * (g - p - 1) + 1] == MATARGCSR_PIECE) p++; /* this group is piece p of the row */
      const int pos = ai[first] + p * q + min(p, rem), cnt = q + (p < rem ? 1 : 0);
      for (int k = threadIdx.x; k < cnt; k += blockDim.x) {
        col[off + k]      = aj[pos + k];
        slot2csr[off + k] = pos + k;
      }
      continue;
    }
    for (int k = threadIdx.x; k < nr; k += blockDim.x) {
      const int r = first + k, b = k ? rowend[r - 1] : 0, nt = rowend[r] - b, pos0 = ai[r], len = ai[r + 1] - pos0;

      for (int q = 0; q < len; q++) {
        const int s = off + (q / nt) * B + b + q % nt;
        col[s]      = aj[pos0 + q];
        slot2csr[s] = pos0 + q;
      }
    }
  }
}

PetscErrorCode MatSpmvFormatBuildDevice_ARGCSR(const void *params, const MatSpmvCSR *pattern, const int *ai, const int *aj, MatSpmvLayout L, void *stream)
{
  cudaStream_t     s = (cudaStream_t)stream;
  MatARGCSRLayout *ag;
  int              dev, nsm, perSM;

  PetscFunctionBegin;
  PetscCall(MatARGCSRPlanLayout((const MatARGCSRParams *)params, pattern, L));
  ag = (MatARGCSRLayout *)L->fmt;
  /* the plan's per-group and per-row arrays (O(rows)) go up; the per-nonzero ones are made here */
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_group, ag->group, 4 * ag->ngroups));
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_rowend, ag->rowend, L->m));
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_split, ag->split, ag->nsplit));
  PetscCall(PetscLogCpuToGpu(sizeof(int) * (4 * ag->ngroups + L->m + ag->nsplit)));
  PetscCall(MatSpmvCUDAMalloc((void **)&ag->d_col, L->nslots * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&L->d_slot2csr, L->nslots * sizeof(int)));
  if (L->nslots) { /* padding until filled: column -1 stops the thread */
    MatSpmvCallThrust(thrust::fill(thrust::cuda::par.on(s), ag->d_col, ag->d_col + L->nslots, -1));
    MatSpmvCallThrust(thrust::fill(thrust::cuda::par.on(s), L->d_slot2csr, L->d_slot2csr + L->nslots, -1));
  }
  if (ag->ngroups) {
    MatARGCSRFillKernel<<<(unsigned)PetscMin(ag->ngroups, 65535), 256, 0, s>>>((int)ag->ngroups, (int)ag->block, (long long)ag->splitlen, ag->d_group, ag->d_rowend, ai, aj, ag->d_col, L->d_slot2csr);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, MatARGCSRMultKernel<PetscScalar>, (int)ag->block, MatARGCSRShmem(ag)));
  ag->gridmax = PetscMax(perSM, 1) * PetscMax(nsm, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatDownload_ARGCSR(MatSpmvLayout L)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;

  PetscFunctionBegin;
  if (!ag->col) PetscCall(MatSpmvCUDADownloadInt(&ag->col, ag->d_col, L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MATSPMV_DEVICE_KERNEL(ARGCSR, MatARGCSRFillKernel)

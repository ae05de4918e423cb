/*
  The device SpGEMM's kernels (see spmvspgemmimpl.h): row upper bounds and bins, hash tables in
  shared and global memory (count, then fill), the segmented sort, the numeric sums.
*/
#include "spmvspgemmimpl.h"
#include "../spmvlayer/spmvkernels.h"
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/gather.h>
#include <thrust/scan.h>
#include <thrust/reduce.h>
#include <thrust/device_ptr.h>
#include <thrust/sequence.h>
#include <thrust/transform_reduce.h>
#include <thrust/functional.h>
#include <cub/device/device_segmented_sort.cuh>
#include <vector>

#define MATSPMV_SPGEMM_THREADS 256 /* threads per block of the hash and numeric kernels */
#define MATSPMV_SPGEMM_EMPTY   (-1)

/* The symbolic bins, by a row's upper bound ub (products it forms): ub <= 32, 256, 1024, 4096, more;
   threads per row and hash slots. A table holds at least ub slots up to the last bin, so only the last bin's rows (and any row where
   -petscspmv_spgemm_shared_max caps the slots) can overflow to global tables */
static const int MatSpmvSpGEMMSymG[MATSPMV_SPGEMM_BINS - 1] = {32, 32, 128, 256, 256};
static const int MatSpmvSpGEMMSymT[MATSPMV_SPGEMM_BINS - 1] = {64, 512, 2048, 8192, 8192};
/* The numeric bins, by a row's entries in C: 32 (and at most 64 products), 256, 512, 1024, 2048 of them in
   shared memory, for 8 (32 where B's rows are long), 32, 128, 256, 256 threads a row (256 for the second
   and third where their rows are too few to fill the device: MatSpmvCUDASpGEMMNumeric()); the last bin
   sums in global memory */

/* ub_r = sum over the entries a_rk of B's row k length (a row's bound fits int: it is clamped) */
template <typename I>
__global__ void MatSpmvSpGEMMBoundKernel(I m, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, long long *__restrict__ ub)
{
  const I lane = threadIdx.x % 32;

  for (I r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < m; r += gridDim.x * blockDim.x / 32) {
    long long s = 0;

    for (I p = ai[r] + lane; p < ai[r + 1]; p += 32) {
      const I k = aj[p];
      s += bi[k + 1] - bi[k];
    }
    for (int off = 16; off; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
    if (!lane) ub[r] = s;
  }
}

/* a row's symbolic bin from its bound (0: an empty row, no kernel) */
template <typename I>
__global__ void MatSpmvSpGEMMSymBinKernel(I m, const long long *__restrict__ ub, I *__restrict__ key, I *__restrict__ row)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const long long u = ub[r];

    key[r] = u == 0 ? 0 : u <= 32 ? 1 : u <= 256 ? 2 : u <= 1024 ? 3 : u <= 4096 ? 4 : 5; /* MatSpmvSpGEMMSymUB */
    row[r] = r;
  }
}

/* column c into the open-addressing table keys[0..T) (T a power of 2): true if there (or put there:
   then *cnt counts it and, with cjrow, it is written at the next position), false if the table is full */
template <typename I>
__device__ __forceinline__ bool MatSpmvSpGEMMInsert(I *keys, I T, I c, I *cnt, I *cjrow)
{
  I h = (I)(((unsigned)c * 2654435761u) & (unsigned)(T - 1));

  for (I probe = 0; probe < T; probe++) {
    const I old = atomicCAS(&keys[h], (I)MATSPMV_SPGEMM_EMPTY, c); /* a slot is set once: no plain read races with it */

    if (old == MATSPMV_SPGEMM_EMPTY) {
      const I pos = atomicAdd(cnt, (I)1);
      if (cjrow) cjrow[pos] = c;
      return true;
    }
    if (old == c) return true;
    h = (h + 1) & (T - 1);
  }
  return false;
}

/* The columns of row r of A B into a table: sub threads share an entry a_rk and stride B's row k */
template <typename I>
__device__ __forceinline__ bool MatSpmvSpGEMMRowInsert(I r, I t, I G, I sub, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, const I *__restrict__ bj, I *keys, I T, I *cnt, I *cjrow)
{
  bool ok = true;

  for (I p = ai[r] + t / sub; p < ai[r + 1] && ok; p += G / sub) {
    const I k = aj[p];

    for (I q = bi[k] + t % sub; q < bi[k + 1] && ok; q += sub) ok = MatSpmvSpGEMMInsert(keys, T, bj[q], cnt, cjrow);
  }
  return ok;
}

/* Shared tables: G threads a row, 256 / G rows a block, T slots each. Count (cj NULL): count[r] the
   row's columns, or -1 if its table was full. Fill: rows with skip[r] set are the global tables' */
template <typename I, int G>
__global__ void __launch_bounds__(MATSPMV_SPGEMM_THREADS) MatSpmvSpGEMMSharedKernel(I nrows, const I *__restrict__ rows, I T, I sub, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, const I *__restrict__ bj, I *__restrict__ count, const I *__restrict__ skip, const I *__restrict__ ci, I *__restrict__ cj)
{
  extern __shared__ __align__(16) unsigned char MatSpmvSpGEMMShared[];
  constexpr int                                 R    = MATSPMV_SPGEMM_THREADS / G;
  I                                            *keys = reinterpret_cast<I *>(MatSpmvSpGEMMShared) + (threadIdx.x / G) * T;
  I                                            *cnt  = reinterpret_cast<I *>(MatSpmvSpGEMMShared) + R * T;
  __shared__ int                                full[R];
  const I                                       g = threadIdx.x / G, t = threadIdx.x % G;
  const I                                       idx = blockIdx.x * R + g;
  const I                                       r   = idx < nrows ? rows[idx] : (I)-1;
  const bool                                    run = r >= 0 && !(skip && skip[r]);

  for (I s = t; s < T; s += G) keys[s] = MATSPMV_SPGEMM_EMPTY;
  if (!t) {
    cnt[g]  = 0;
    full[g] = 0;
  }
  __syncthreads();
  if (run && !MatSpmvSpGEMMRowInsert(r, t, (I)G, sub, ai, aj, bi, bj, keys, T, &cnt[g], cj ? cj + ci[r] : (I *)NULL)) atomicExch(&full[g], 1);
  __syncthreads();
  if (run && !t && !cj) count[r] = full[g] ? (I)-1 : cnt[g];
}

/* The first bin's rows (at most 32 products): a warp a row, no table. Each lane holds one product's
   column, a bitonic sort across the warp orders them and a ballot keeps the first of equal ones, so the
   row is counted, and then written, already sorted: no hash probes and no segmented sort (GAMG's A P0,
   P0 one entry a row, is all such rows; a table and a sort cost it twice cuSPARSE's time). */
template <typename I>
__global__ void __launch_bounds__(MATSPMV_SPGEMM_THREADS) MatSpmvSpGEMMWarpSortKernel(I nrows, const I *__restrict__ rows, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, const I *__restrict__ bj, I *__restrict__ count, const I *__restrict__ ci, I *__restrict__ cj)
{
  constexpr unsigned full = 0xffffffffu;
  constexpr I        none = (I)((1ull << (8 * sizeof(I) - 1)) - 1); /* the largest I: after every column */
  __shared__ I       buf[MATSPMV_SPGEMM_THREADS];
  const int          lane = threadIdx.x % 32;
  I                 *mine = buf + (threadIdx.x / 32) * 32;
  const I            idx  = (I)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32);
  I                  r, n = 0, v;

  if (idx >= nrows) return; /* a whole warp */
  r = rows[idx];
  for (I p0 = ai[r]; p0 < ai[r + 1]; p0 += 32) { /* the products to mine[0..n), B's rows in A's order */
    const I p   = p0 + lane;
    const I k   = p < ai[r + 1] ? aj[p] : (I)0;
    const I len = p < ai[r + 1] ? bi[k + 1] - bi[k] : (I)0;
    I       inc = len;

    for (int o = 1; o < 32; o *= 2) {
      const I y = __shfl_up_sync(full, inc, o);
      if (lane >= o) inc += y;
    }
    for (I q = 0; q < len; q++) mine[n + inc - len + q] = bj[bi[k] + q];
    n += __shfl_sync(full, inc, 31);
  }
  __syncwarp();
  v = lane < n ? mine[lane] : none;
  for (int k = 2; k <= 32; k *= 2) {
    for (int j = k / 2; j; j /= 2) {
      const I    o     = __shfl_xor_sync(full, v, j);
      const bool lower = !(lane & j), ascending = !(lane & k) || k == 32;

      v = lower == ascending ? (o < v ? o : v) : (o > v ? o : v);
    }
  }
  {
    const I        prev = __shfl_up_sync(full, v, 1);
    const bool     keep = v != none && (!lane || v != prev);
    const unsigned mask = __ballot_sync(full, keep);

    if (!cj) {
      if (!lane) count[r] = (I)__popc(mask);
    } else if (keep) cj[ci[r] + __popc(mask & ((1u << lane) - 1))] = v;
  }
}

/* Global tables: a block a row, the rows of a batch; row b's table at keys + off[b] of size[b] slots */
template <typename I>
__global__ void __launch_bounds__(MATSPMV_SPGEMM_THREADS) MatSpmvSpGEMMGlobalKernel(I nrows, const I *__restrict__ rows, const long long *__restrict__ off, const I *__restrict__ size, I sub, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ bi, const I *__restrict__ bj, I *keys, I *__restrict__ count, const I *__restrict__ ci, I *__restrict__ cj)
{
  __shared__ I cnt;

  for (I b = blockIdx.x; b < nrows; b += gridDim.x) {
    const I r = rows[b];

    if (!threadIdx.x) cnt = 0;
    __syncthreads();
    (void)MatSpmvSpGEMMRowInsert(r, (I)threadIdx.x, (I)MATSPMV_SPGEMM_THREADS, sub, ai, aj, bi, bj, keys + off[b], size[b], &cnt, cj ? cj + ci[r] : (I *)NULL); /* sized to hold the row */
    __syncthreads();
    if (!threadIdx.x && !cj) count[r] = cnt;
    __syncthreads();
  }
}

/* a row's numeric bin from its entries in C (0: none), capped at cmax in shared memory, and its bound:
   the first bin whose shared rows hold it (bin 1, short rows of few products, also needs a bound <= 64:
   eight threads a row where B's rows are short, MatSpmvCUDASpGEMMNumeric()), or the global sums' */
template <typename I>
__global__ void MatSpmvSpGEMMNumBinKernel(I m, const I *__restrict__ ci, const long long *__restrict__ ub, int cmax, I *__restrict__ key, I *__restrict__ row)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const I len = ci[r + 1] - ci[r];
    I       b   = 0;

    if (len > 0) {
      const int cap[MATSPMV_SPGEMM_BINS - 1] = {32, 256, 512, 1024, 2048}; /* MatSpmvSpGEMMNumCap */

      for (b = 1; b < MATSPMV_SPGEMM_BINS; b++)
        if (len <= min(cap[b - 1], cmax) && !(b == 1 && ub[r] > 64)) break;
    }
    key[r] = b;
    row[r] = r;
  }
}

/* Numeric: row r's columns in shared memory (Cap of them; Cap 0: C's own row, sums in global memory,
   zeroed before), each product's column by binary search, its value added */
template <typename S, typename I, int G, int Cap>
__global__ void __launch_bounds__(MATSPMV_SPGEMM_THREADS) MatSpmvSpGEMMNumericKernel(I nrows, const I *__restrict__ rows, I sub, const I *__restrict__ ai, const I *__restrict__ aj, const S *__restrict__ a, const I *__restrict__ bi, const I *__restrict__ bj, const S *__restrict__ b, const I *__restrict__ ci, const I *__restrict__ cj, S *__restrict__ c)
{
  constexpr int     R = MATSPMV_SPGEMM_THREADS / G;
  constexpr int     K = Cap > 0 ? Cap : 1;
  __shared__ I      scol[R][K];
  extern __shared__ __align__(16) unsigned char MatSpmvSpGEMMShared[];
  S                                            *sval = reinterpret_cast<S *>(MatSpmvSpGEMMShared) + (threadIdx.x / G) * K;
  const I                                       g = threadIdx.x / G, t = threadIdx.x % G;
  const I                                       idx = blockIdx.x * R + g;
  const I                                       r   = idx < nrows ? rows[idx] : (I)-1;
  const I                                       c0 = r >= 0 ? ci[r] : 0, len = r >= 0 ? ci[r + 1] - c0 : 0;
  const I                                      *cols = Cap > 0 ? (const I *)scol[g] : cj + c0;
  S                                            *vals = Cap > 0 ? sval : c + c0;

  if (Cap > 0)
    for (I s = t; s < len; s += G) {
      scol[g][s] = cj[c0 + s];
      sval[s]    = S(0);
    }
  __syncthreads();
  if (r >= 0)
    for (I p = ai[r] + t / sub; p < ai[r + 1]; p += G / sub) {
      const I k  = aj[p];
      const S av = a[p];

      for (I q = bi[k] + t % sub; q < bi[k + 1]; q += sub) {
        const I col = bj[q], pos = MatSpmvLowerBound(cols, (I)0, len, col);

        if (pos < len && cols[pos] == col) MatSpmvAtomicAdd(&vals[pos], av * b[q]); /* always: the pattern is the symbolic phase's */
      }
    }
  __syncthreads();
  if (Cap > 0)
    for (I s = t; s < len; s += G) c[c0 + s] = sval[s];
}

/* threads a left entry shares (a power of 2 <= 32): about B's mean row length */
static PetscInt MatSpmvSpGEMMSub(const MatSpmvDeviceCSR *B)
{
  PetscInt sub = 1;
  double   avg = B->m ? (double)B->nnz / (double)B->m : 0;

  while (sub < 32 && sub < avg) sub *= 2;
  return sub;
}

static inline unsigned MatSpmvSpGEMMGrid(PetscInt n, int per)
{
  return (unsigned)PetscMax(1, (n + per - 1) / per);
}

/* rows 0..m-1 sorted by their bin key (in place), and the bins' bounds bin[0..nb] on the host */
static PetscErrorCode MatSpmvSpGEMMSortBins(PetscInt m, int *key, int *row, int nb, PetscInt bin[], cudaStream_t s)
{
  auto pol = thrust::cuda::par.on(s);
  int  h[MATSPMV_SPGEMM_BINS + 2], *d;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDASortPairs(m, key, row, nb, s));
  PetscCall(MatSpmvCUDAMalloc((void **)&d, (nb + 2) * sizeof(int)));
  MatSpmvCallThrust(thrust::lower_bound(pol, thrust::device_ptr<int>(key), thrust::device_ptr<int>(key + m), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nb + 2), thrust::device_ptr<int>(d)));
  PetscCall(MatSpmvCUDACopyToHost(h, d, (nb + 2) * sizeof(int), s));
  PetscCall(MatSpmvCUDAFree(d));
  for (int k = 0; k <= nb + 1; k++) bin[k] = h[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int G>
static PetscErrorCode MatSpmvSpGEMMLaunchShared(PetscInt nrows, const int *rows, PetscInt T, PetscInt sub, const MatSpmvDeviceCSR *A, const MatSpmvDeviceCSR *B, int *count, const int *skip, const int *ci, int *cj, cudaStream_t s)
{
  constexpr int R     = MATSPMV_SPGEMM_THREADS / G;
  size_t        bytes = (R * T + R) * sizeof(int);

  PetscFunctionBegin;
  if (!nrows) PetscFunctionReturn(PETSC_SUCCESS);
  if (bytes > 48 * 1024) PetscCallCUDA(cudaFuncSetAttribute(MatSpmvSpGEMMSharedKernel<int, G>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  MatSpmvSpGEMMSharedKernel<int, G><<<MatSpmvSpGEMMGrid(nrows, R), MATSPMV_SPGEMM_THREADS, bytes, s>>>((int)nrows, rows, (int)T, (int)sub, A->i, A->j, B->i, B->j, count, skip, ci, cj);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows of global tables: in batches of at most opt->batch slots (a row larger than that alone) */
typedef struct {
  std::vector<int>       rows;
  std::vector<long long> off;  /* per row, from its batch's start */
  std::vector<int>       size; /* per row: a power of 2 >= 2 min(ub, n), so the row always fits */
  std::vector<PetscInt>  first;
  long long              slots = 0; /* largest batch */
} MatSpmvSpGEMMGlobalRows;

static PetscErrorCode MatSpmvSpGEMMGlobalPass(const MatSpmvSpGEMMGlobalRows *gr, PetscInt sub, const MatSpmvDeviceCSR *A, const MatSpmvDeviceCSR *B, int *count, const int *ci, int *cj, cudaStream_t s)
{
  int       *keys, *drows, *dsize;
  long long *doff;
  size_t     n = gr->rows.size();

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAMalloc((void **)&keys, gr->slots * sizeof(int)));
  PetscCall(MatSpmvCUDAUpload((void **)&drows, gr->rows.data(), n * sizeof(int)));
  PetscCall(MatSpmvCUDAUpload((void **)&doff, gr->off.data(), n * sizeof(long long)));
  PetscCall(MatSpmvCUDAUpload((void **)&dsize, gr->size.data(), n * sizeof(int)));
  for (size_t f = 0; f + 1 < gr->first.size(); f++) {
    const PetscInt  b0 = gr->first[f], nb = gr->first[f + 1] - b0;
    const long long slots = gr->off[gr->first[f + 1] - 1] + gr->size[gr->first[f + 1] - 1];

    PetscCallCUDA(cudaMemsetAsync(keys, 0xff, slots * sizeof(int), s)); /* MATSPMV_SPGEMM_EMPTY */
    MatSpmvSpGEMMGlobalKernel<int><<<(unsigned)PetscMin(nb, 65536), MATSPMV_SPGEMM_THREADS, 0, s>>>((int)nb, drows + b0, doff + b0, dsize + b0, (int)sub, A->i, A->j, B->i, B->j, keys, count, ci, cj);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(MatSpmvCUDAFree(dsize)); /* cudaFree waits for the kernels */
  PetscCall(MatSpmvCUDAFree(doff));
  PetscCall(MatSpmvCUDAFree(drows));
  PetscCall(MatSpmvCUDAFree(keys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct MatSpmvSpGEMMIsFull {
  __device__ bool operator()(int c) const { return c < 0; }
};

/* the rows whose shared tables were full (count -1), their table sizes and batches */
static PetscErrorCode MatSpmvSpGEMMFindGlobalRows(PetscInt m, PetscInt n, const int *count, const long long *ub, PetscInt batch, MatSpmvSpGEMMGlobalRows *gr, cudaStream_t s)
{
  auto      pol = thrust::cuda::par.on(s);
  int      *d, nover = 0;
  long long start = 0;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAMalloc((void **)&d, PetscMax(m, 1) * sizeof(int)));
  MatSpmvCallThrust(nover = (int)(thrust::copy_if(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)m), thrust::device_ptr<const int>(count), thrust::device_ptr<int>(d), MatSpmvSpGEMMIsFull()) - thrust::device_ptr<int>(d)));
  if (nover) {
    std::vector<long long> hub(nover);
    long long             *dub;

    gr->rows.resize(nover);
    PetscCall(MatSpmvCUDACopyToHost(gr->rows.data(), d, nover * sizeof(int), s));
    PetscCall(MatSpmvCUDAMalloc((void **)&dub, nover * sizeof(long long)));
    MatSpmvCallThrust(thrust::gather(pol, thrust::device_ptr<int>(d), thrust::device_ptr<int>(d + nover), thrust::device_ptr<const long long>(ub), thrust::device_ptr<long long>(dub)));
    PetscCall(MatSpmvCUDACopyToHost(hub.data(), dub, nover * sizeof(long long), s));
    PetscCall(MatSpmvCUDAFree(dub));
    gr->off.resize(nover);
    gr->size.resize(nover);
    for (int k = 0; k < nover; k++) {
      long long need = 2 * PetscMin(hub[k], (long long)n), size = 32;

      while (size < need) size *= 2;
      PetscCheck(size <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "A row of the product needs a hash table of %lld slots: more than a device table holds", size);
      if (k == 0 || start + size > batch) {
        gr->first.push_back(k);
        start = 0;
      }
      gr->off[k]  = start;
      gr->size[k] = (int)size;
      start += size;
      gr->slots = PetscMax(gr->slots, start);
    }
    gr->first.push_back(nover);
  }
  PetscCall(MatSpmvCUDAFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename I>
__global__ void MatSpmvSpGEMMMarkKernel(I n, const I *__restrict__ rows, I *__restrict__ mark)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) mark[rows[k]] = 1;
}

PetscErrorCode MatSpmvCUDASpGEMMSymbolic(const MatSpmvDeviceCSR *A, const MatSpmvDeviceCSR *B, const MatSpmvSpGEMMOptions *opt, MatSpmvSpGEMMPlan *plan)
{
  const PetscInt          m = A->m;
  cudaStream_t            s;
  void                   *stream;
  long long              *ub;
  int                    *key, *row, *count, *skip = NULL, *cj2;
  PetscInt                bin[MATSPMV_SPGEMM_BINS + 2];
  MatSpmvSpGEMMGlobalRows gr;
  long long               total    = 0;
  double                  products = 0;
  size_t                  held;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  s        = (cudaStream_t)stream;
  auto pol = thrust::cuda::par.on(s);
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  plan->m   = m;
  plan->n   = B->n;
  plan->sub = MatSpmvSpGEMMSub(B);
  PetscCall(MatSpmvCUDAMalloc((void **)&plan->ci, (m + 1) * sizeof(int)));
  if (!m) {
    PetscCallCUDA(cudaMemsetAsync(plan->ci, 0, sizeof(int), s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSpmvCUDAMalloc((void **)&ub, m * sizeof(long long)));
  PetscCall(MatSpmvCUDAMalloc((void **)&key, m * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&row, m * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&count, (m + 1) * sizeof(int)));
  held = m * (sizeof(long long) + 3 * sizeof(int));
  MatSpmvSpGEMMBoundKernel<int><<<MatSpmvSpGEMMGrid(32 * m, MATSPMV_SPGEMM_THREADS), MATSPMV_SPGEMM_THREADS, 0, s>>>((int)m, A->i, A->j, B->i, ub);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvCallThrust(products = (double)thrust::reduce(pol, thrust::device_ptr<long long>(ub), thrust::device_ptr<long long>(ub + m), 0LL));
  plan->products = products;
  PetscCallCUDA(cudaMemsetAsync(count, 0, (m + 1) * sizeof(int), s));
  MatSpmvSpGEMMSymBinKernel<int><<<MatSpmvSpGEMMGrid(m, MATSPMV_SPGEMM_THREADS), MATSPMV_SPGEMM_THREADS, 0, s>>>((int)m, ub, key, row);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvSpGEMMSortBins(m, key, row, MATSPMV_SPGEMM_BINS - 1, bin, s));

  /* count: shared tables, then the rows that did not fit in global ones */
  for (int pass = 0; pass < 2; pass++) {
    int *cj = pass ? plan->cj : NULL;

    for (int b = 1; b < MATSPMV_SPGEMM_BINS; b++) {
      const PetscInt nrows = bin[b + 1] - bin[b], T = PetscMin((PetscInt)MatSpmvSpGEMMSymT[b - 1], opt->sharedmax);
      const int     *rows = row + bin[b];

      if (b == 1) {
        if (nrows) {
          MatSpmvSpGEMMWarpSortKernel<int><<<MatSpmvSpGEMMGrid(nrows, MATSPMV_SPGEMM_THREADS / 32), MATSPMV_SPGEMM_THREADS, 0, s>>>((int)nrows, rows, A->i, A->j, B->i, B->j, count, plan->ci, cj);
          PetscCallCUDA(cudaGetLastError());
        }
        continue;
      }
      switch (MatSpmvSpGEMMSymG[b - 1]) {
      case 32:
        PetscCall(MatSpmvSpGEMMLaunchShared<32>(nrows, rows, T, plan->sub, A, B, count, skip, plan->ci, cj, s));
        break;
      case 128:
        PetscCall(MatSpmvSpGEMMLaunchShared<128>(nrows, rows, T, plan->sub, A, B, count, skip, plan->ci, cj, s));
        break;
      default:
        PetscCall(MatSpmvSpGEMMLaunchShared<256>(nrows, rows, T, plan->sub, A, B, count, skip, plan->ci, cj, s));
      }
    }
    if (!pass) {
      PetscCall(MatSpmvSpGEMMFindGlobalRows(m, B->n, count, ub, opt->batch, &gr, s));
      plan->globalrows = (PetscInt)gr.rows.size();
      plan->batches    = gr.first.size() ? (PetscInt)gr.first.size() - 1 : 0;
      PetscCall(MatSpmvSpGEMMGlobalPass(&gr, plan->sub, A, B, count, NULL, NULL, s));
      held = PetscMax(held, m * (sizeof(long long) + 3 * sizeof(int)) + gr.slots * sizeof(int));
      /* C's row offsets: the counts' prefix sums, checked against int first */
      MatSpmvCallThrust(total = thrust::reduce(pol, thrust::device_ptr<int>(count), thrust::device_ptr<int>(count + m), 0LL));
      PetscCheck(total <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The product has %lld entries: more than aijcusparse's int offsets hold; distribute it over more MPI processes", total);
      MatSpmvCallThrust(thrust::exclusive_scan(pol, thrust::device_ptr<int>(count), thrust::device_ptr<int>(count + m + 1), thrust::device_ptr<int>(plan->ci)));
      plan->nnz = (PetscInt)total;
      PetscCall(MatSpmvCUDAMalloc((void **)&plan->cj, PetscMax(total, 1) * sizeof(int)));
      /* fill: the same tables again, the counters now positions */
      if (gr.rows.size()) {
        int *drows;

        PetscCall(MatSpmvCUDAMalloc((void **)&skip, m * sizeof(int)));
        PetscCallCUDA(cudaMemsetAsync(skip, 0, m * sizeof(int), s));
        PetscCall(MatSpmvCUDAUpload((void **)&drows, gr.rows.data(), gr.rows.size() * sizeof(int)));
        MatSpmvSpGEMMMarkKernel<int><<<MatSpmvSpGEMMGrid(gr.rows.size(), MATSPMV_SPGEMM_THREADS), MATSPMV_SPGEMM_THREADS, 0, s>>>((int)gr.rows.size(), drows, skip);
        PetscCallCUDA(cudaGetLastError());
        PetscCall(MatSpmvCUDAFree(drows));
      }
    } else PetscCall(MatSpmvSpGEMMGlobalPass(&gr, plan->sub, A, B, count, plan->ci, plan->cj, s));
  }
  PetscCall(MatSpmvCUDAFree(skip));
  PetscCall(MatSpmvCUDAFree(count));

  /* columns sorted within rows (the first bin's rows are already) */
  if (total && bin[MATSPMV_SPGEMM_BINS] > bin[2]) {
    void  *tmp   = NULL;
    size_t bytes = 0;

    PetscCall(MatSpmvCUDAMalloc((void **)&cj2, total * sizeof(int)));
    {
      cub::DoubleBuffer<int> kb(plan->cj, cj2);

      PetscCallCUDA(cub::DeviceSegmentedSort::SortKeys(tmp, bytes, kb, (int)total, (int)m, plan->ci, plan->ci + 1, s));
      PetscCall(MatSpmvCUDAMalloc(&tmp, PetscMax(bytes, 1)));
      PetscCallCUDA(cub::DeviceSegmentedSort::SortKeys(tmp, bytes, kb, (int)total, (int)m, plan->ci, plan->ci + 1, s));
      held = PetscMax(held, m * (sizeof(long long) + 2 * sizeof(int)) + 2 * total * sizeof(int) + bytes);
      PetscCall(MatSpmvCUDAFree(tmp));
      if (kb.Current() != plan->cj) {
        PetscCall(MatSpmvCUDAFree(plan->cj));
        plan->cj = cj2;
      } else PetscCall(MatSpmvCUDAFree(cj2));
    }
  }

  /* the numeric bins */
  MatSpmvSpGEMMNumBinKernel<int><<<MatSpmvSpGEMMGrid(m, MATSPMV_SPGEMM_THREADS), MATSPMV_SPGEMM_THREADS, 0, s>>>((int)m, plan->ci, ub, (int)opt->sharedmax, key, row);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvSpGEMMSortBins(m, key, row, MATSPMV_SPGEMM_BINS, bin, s));
  for (int b = 0; b <= MATSPMV_SPGEMM_BINS + 1; b++) plan->bin[b] = bin[b];
  plan->rows      = row;
  plan->peakbytes = held;
  PetscCall(MatSpmvCUDAFree(key));
  PetscCall(MatSpmvCUDAFree(ub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int G, int Cap>
static PetscErrorCode MatSpmvSpGEMMLaunchNumeric(PetscInt nrows, const int *rows, PetscInt sub, const MatSpmvDeviceCSR *A, const MatSpmvDeviceCSR *B, const int *ci, const int *cj, PetscScalar *c, cudaStream_t s)
{
  constexpr int R     = MATSPMV_SPGEMM_THREADS / G;
  const size_t  bytes = Cap > 0 ? R * Cap * sizeof(PetscScalar) : 0;

  PetscFunctionBegin;
  if (!nrows) PetscFunctionReturn(PETSC_SUCCESS);
  if (bytes > 40 * 1024) PetscCallCUDA(cudaFuncSetAttribute(MatSpmvSpGEMMNumericKernel<PetscScalar, int, G, Cap>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  MatSpmvSpGEMMNumericKernel<PetscScalar, int, G, Cap><<<MatSpmvSpGEMMGrid(nrows, R), MATSPMV_SPGEMM_THREADS, bytes, s>>>((int)nrows, rows, (int)sub, A->i, A->j, A->a, B->i, B->j, B->a, ci, cj, c);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C's values (pattern ci, cj of the plan's symbolic phase) from A's and B's */
PetscErrorCode MatSpmvCUDASpGEMMNumeric(const MatSpmvSpGEMMPlan *plan, const MatSpmvDeviceCSR *A, const MatSpmvDeviceCSR *B, const int *ci, const int *cj, PetscScalar *c)
{
  cudaStream_t    s;
  void           *stream;
  const PetscInt  sub = plan->sub;
  const int      *row = plan->rows;
  const PetscInt *bin = plan->bin;
  int             dev, nsm;
  PetscInt        resident;

  PetscFunctionBegin;
  if (!plan->nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  if (bin[MATSPMV_SPGEMM_BINS + 1] > bin[MATSPMV_SPGEMM_BINS]) PetscCallCUDA(cudaMemsetAsync(c, 0, plan->nnz * sizeof(PetscScalar), s));
  /* rows of at most 64 products: 8 threads a row where a left entry needs at most 8 (a warp left three
     quarters idle on a 7-point row times P0's single entries) */
  if (sub <= 8) PetscCall(MatSpmvSpGEMMLaunchNumeric<8, 32>(bin[2] - bin[1], row + bin[1], sub, A, B, ci, cj, c, s));
  else PetscCall(MatSpmvSpGEMMLaunchNumeric<32, 32>(bin[2] - bin[1], row + bin[1], sub, A, B, ci, cj, c, s));
  /* too few rows of a bin to fill the device at its threads a row (a coarse level's P^T A P: 66 to 832
     rows of thousands of products each, one warp a row left most of the device idle): a block a row */
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  resident = (PetscInt)nsm * 2048;
  if ((bin[3] - bin[2]) * 32 < resident) PetscCall(MatSpmvSpGEMMLaunchNumeric<256, 256>(bin[3] - bin[2], row + bin[2], sub, A, B, ci, cj, c, s));
  else PetscCall(MatSpmvSpGEMMLaunchNumeric<32, 256>(bin[3] - bin[2], row + bin[2], sub, A, B, ci, cj, c, s));
  if ((bin[4] - bin[3]) * 128 < resident) PetscCall(MatSpmvSpGEMMLaunchNumeric<256, 512>(bin[4] - bin[3], row + bin[3], sub, A, B, ci, cj, c, s));
  else PetscCall(MatSpmvSpGEMMLaunchNumeric<128, 512>(bin[4] - bin[3], row + bin[3], sub, A, B, ci, cj, c, s));
  PetscCall(MatSpmvSpGEMMLaunchNumeric<256, 1024>(bin[5] - bin[4], row + bin[4], sub, A, B, ci, cj, c, s));
  PetscCall(MatSpmvSpGEMMLaunchNumeric<256, 2048>(bin[6] - bin[5], row + bin[5], sub, A, B, ci, cj, c, s));
  PetscCall(MatSpmvSpGEMMLaunchNumeric<256, 0>(bin[7] - bin[6], row + bin[6], sub, A, B, ci, cj, c, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a hash of entry k's row and column, summed over the entries: equal patterns give equal sums */
struct MatSpmvSpGEMMEntryHash {
  const int                    *j;
  __device__ unsigned long long operator()(int k) const
  {
    unsigned long long h = ((unsigned long long)(unsigned)k << 32) ^ (unsigned)j[k];

    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
  }
};

struct MatSpmvSpGEMMRowHash {
  const int                    *i;
  __device__ unsigned long long operator()(int r) const { return ((unsigned long long)(unsigned)i[r + 1] * 0x9e3779b97f4a7c15ULL) ^ (unsigned long long)r; }
};

/* A fingerprint of a device CSR's pattern (its row offsets and columns), to tell a replaced operand of
   another pattern from one of the same */
PetscErrorCode MatSpmvCUDASpGEMMFingerprint(const MatSpmvDeviceCSR *X, unsigned long long *fp)
{
  void              *stream;
  unsigned long long e = 0, r = 0;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAGetStream(&stream));
  auto pol = thrust::cuda::par.on((cudaStream_t)stream);
  if (X->nnz) MatSpmvCallThrust(e = thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)X->nnz), MatSpmvSpGEMMEntryHash{X->j}, 0ULL, thrust::plus<unsigned long long>()));
  if (X->m) MatSpmvCallThrust(r = thrust::transform_reduce(pol, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)X->m), MatSpmvSpGEMMRowHash{X->i}, 0ULL, thrust::plus<unsigned long long>()));
  *fp = e ^ (r * 0xc2b2ae3d27d4eb4fULL) ^ (unsigned long long)X->nnz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDASpGEMMPlanReset(MatSpmvSpGEMMPlan *plan)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAFree(plan->ci));
  PetscCall(MatSpmvCUDAFree(plan->cj));
  PetscCall(MatSpmvCUDAFree(plan->rows));
  PetscCall(PetscMemzero(plan, sizeof(*plan)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

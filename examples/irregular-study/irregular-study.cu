// irregular-study: standalone microbenchmark of y = A x on irregular sparse matrices
// (power-law row lengths, scattered columns) against cuSPARSE. No PETSc: it reads PETSc
// binary SeqAIJ files itself (big-endian: classid, M, N, nnz, row lengths, columns, values).
//
//   irregular-study [--long-threshold[=]L] FILE...   benchmark every variant on each file
//                                                    (L: long-short row threshold, default 256)
//   irregular-study --selftest-host FILE             host-only checks (no GPU needed)
//   irregular-study --write-test FILE [M [N]]        write a random power-law test matrix
//
// Variants (one output line each): cusparse-alg1 (baseline), cusparse-alg2, csr-vector,
// csr-vector-l1na, merge, csr-vector-colorder, csr-vector-colorder-l1na, merge-colorder,
// long-short, long-short-2s. See the kernels below for what each one tries.
//
// Values are double and indices int32 throughout; kernels are templated on both.

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

// ------------------------------------------------------------------------------------------
// Error checking
// ------------------------------------------------------------------------------------------

#define CUDA_CHECK(call)                                                                     \
  do {                                                                                       \
    cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d: CUDA error %s: %s\n", __FILE__, __LINE__,                      \
              cudaGetErrorName(err_), cudaGetErrorString(err_));                             \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define CUSPARSE_CHECK(call)                                                                 \
  do {                                                                                       \
    cusparseStatus_t st_ = (call);                                                           \
    if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: cuSPARSE error %d: %s\n", __FILE__, __LINE__, (int)st_,        \
              cusparseGetErrorString(st_));                                                  \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

// Kernel launches report configuration errors only through cudaGetLastError.
#define LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())

static void die(const char *msg, const char *what)
{
  fprintf(stderr, "irregular-study: %s: %s\n", what, msg);
  exit(1);
}

// ------------------------------------------------------------------------------------------
// Benchmark parameters
// ------------------------------------------------------------------------------------------

static const int    kWarmup    = 5;     // products before timing: clocks up, x/L2 warm, TLB
static const int    kTimed     = 50;    // products averaged per variant
static const double kTolerance = 1e-12; // relerr above this flags WRONG (double, any order)
static const int    kPetscMatClassid = 1211216; // MAT_FILE_CLASSID in petscmat.h

static const int kVecBlock   = 256; // csr-vector threads per block: 8 warps, full occupancy
static const int kLongBlock  = 256; // long-short: one block of this many threads per long row
static const int kMergeBlock = 128; // merge: CUB's SM90 tuning for double uses 128 threads
static const int kMergeItems = 7;   // merge: items per thread, CUB's value for double
static const int kGatherBlock = 256; // colorder x gather: any multiple of 32 saturates it

// ------------------------------------------------------------------------------------------
// Host CSR matrix and PETSc binary I/O
// ------------------------------------------------------------------------------------------

struct HostCSR {
  int                 M = 0, N = 0, nnz = 0;
  std::vector<int>    rowptr; // M+1
  std::vector<int>    cols;   // nnz
  std::vector<double> vals;   // nnz
};

// Elements per fread: 16 M elements (64-128 MB) keeps the syscall count low for 800 MB files.
static const size_t kReadChunk = size_t(1) << 24;

// T (int32_t or double) with its bytes reversed: PETSc binary files are big-endian.
template <typename T> static T byteswap(T v)
{
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values only");
  if constexpr (sizeof(T) == 4) {
    uint32_t u;
    memcpy(&u, &v, 4);
    u = __builtin_bswap32(u);
    memcpy(&v, &u, 4);
  } else {
    uint64_t u;
    memcpy(&u, &v, 8);
    u = __builtin_bswap64(u);
    memcpy(&v, &u, 8);
  }
  return v;
}

template <typename T> static void read_be(FILE *f, T *dst, size_t n, const char *path)
{
  for (size_t done = 0; done < n;) {
    size_t want = std::min(kReadChunk, n - done);
    if (fread(dst + done, sizeof(T), want, f) != want) die("file truncated", path);
    for (size_t i = done; i < done + want; ++i) dst[i] = byteswap(dst[i]);
    done += want;
  }
}

template <typename T> static void write_be(FILE *f, const T *src, size_t n, const char *path)
{
  std::vector<T> buf;
  for (size_t done = 0; done < n;) {
    size_t want = std::min(kReadChunk, n - done);
    buf.resize(want);
    for (size_t i = 0; i < want; ++i) buf[i] = byteswap(src[done + i]);
    if (fwrite(buf.data(), sizeof(T), want, f) != want) die("write failed", path);
    done += want;
  }
}

static HostCSR load_petsc_binary(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) die(strerror(errno), path);
  int32_t hdr[4];
  read_be(f, hdr, 4, path);
  if (hdr[0] != kPetscMatClassid) {
    char msg[128];
    snprintf(msg, sizeof msg, "not a PETSc binary matrix (classid %d, expected %d)", hdr[0], kPetscMatClassid);
    die(msg, path);
  }
  HostCSR A;
  A.M = hdr[1]; A.N = hdr[2]; A.nnz = hdr[3];
  if (A.M <= 0 || A.N <= 0 || A.nnz <= 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "bad or empty sizes M=%d N=%d nnz=%d (need all > 0; a 64-bit-index PETSc file?)",
             A.M, A.N, A.nnz);
    die(msg, path);
  }
  // The merge path has M + nnz items, indexed with int32.
  if ((long long)A.M + A.nnz >= INT_MAX) die("M + nnz does not fit in int32", path);
  // The file must hold at least header + row lengths + columns + values.
  if (fseeko(f, 0, SEEK_END) != 0) die("cannot seek", path);
  long long fsize = (long long)ftello(f);
  long long need  = 16LL + 4LL * A.M + 12LL * A.nnz;
  if (fsize < need) {
    char msg[160];
    snprintf(msg, sizeof msg, "file has %lld bytes, header says at least %lld", fsize, need);
    die(msg, path);
  }
  if (fseeko(f, 16, SEEK_SET) != 0) die("cannot seek", path);

  std::vector<int32_t> len(A.M);
  read_be(f, len.data(), A.M, path);
  A.rowptr.resize((size_t)A.M + 1);
  long long s = 0;
  A.rowptr[0] = 0;
  for (int i = 0; i < A.M; ++i) {
    if (len[i] < 0) die("negative row length", path);
    s += len[i];
    if (s > A.nnz) die("row lengths sum past nnz", path);
    A.rowptr[i + 1] = (int)s;
  }
  if (s != A.nnz) die("row lengths do not sum to nnz", path);
  A.cols.resize(A.nnz);
  read_be(f, A.cols.data(), A.nnz, path);
  for (int k = 0; k < A.nnz; ++k)
    if (A.cols[k] < 0 || A.cols[k] >= A.N) die("column index out of range", path);
  A.vals.resize(A.nnz);
  read_be(f, A.vals.data(), A.nnz, path);
  fclose(f);
  return A;
}

static void write_petsc_binary(const HostCSR &A, const char *path)
{
  FILE *f = fopen(path, "wb");
  if (!f) die(strerror(errno), path);
  int32_t hdr[4] = {kPetscMatClassid, A.M, A.N, A.nnz};
  write_be(f, hdr, 4, path);
  std::vector<int32_t> len(A.M);
  for (int i = 0; i < A.M; ++i) len[i] = A.rowptr[i + 1] - A.rowptr[i];
  write_be(f, len.data(), A.M, path);
  write_be(f, A.cols.data(), A.nnz, path);
  write_be(f, A.vals.data(), A.nnz, path);
  if (fclose(f) != 0) die("close failed", path);
}

// ------------------------------------------------------------------------------------------
// Host helpers: random numbers, reference product, statistics, column renumbering
// ------------------------------------------------------------------------------------------

static uint64_t splitmix64(uint64_t &s)
{
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// Uniform in [0,1) from the top 53 bits.
static double uniform01(uint64_t &s) { return (double)(splitmix64(s) >> 11) * 0x1.0p-53; }

static void host_spmv(const HostCSR &A, const double *x, double *y)
{
  for (int i = 0; i < A.M; ++i) {
    double sum = 0;
    for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) sum += A.vals[k] * x[A.cols[k]];
    y[i] = sum;
  }
}

// ||y - yref||_inf / ||yref||_inf; NaN anywhere (e.g. a row never written) gives +inf.
static double rel_error(const std::vector<double> &y, const std::vector<double> &yref)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    double e = fabs(y[i] - yref[i]);
    if (!(e <= num)) num = std::isnan(e) ? INFINITY : std::max(num, e);
    den = std::max(den, fabs(yref[i]));
  }
  return den > 0 ? num / den : num;
}

struct MatStats {
  double mean = 0, stddev = 0;
  int    maxlen = 0;
  double top1 = 0, top10 = 0; // fraction of nonzeros in the top 1% / 10% most frequent columns
  int    nlong = 0;           // rows longer than the long-short threshold
  double long_frac = 0;       // fraction of nonzeros in those rows
};

static MatStats matrix_stats(const HostCSR &A, const std::vector<int> &colcount, int long_threshold)
{
  MatStats st;
  st.mean = (double)A.nnz / A.M;
  double ss = 0;
  long long longnnz = 0;
  for (int i = 0; i < A.M; ++i) {
    int l = A.rowptr[i + 1] - A.rowptr[i];
    ss += (l - st.mean) * (l - st.mean);
    st.maxlen = std::max(st.maxlen, l);
    if (l > long_threshold) { ++st.nlong; longnnz += l; }
  }
  st.stddev    = sqrt(ss / A.M);
  st.long_frac = (double)longnnz / A.nnz;
  std::vector<int> c(colcount);
  std::sort(c.begin(), c.end(), std::greater<int>());
  // Top p% of columns: at least one column, rounded up.
  size_t n1 = std::max<size_t>(1, (size_t)ceil(0.01 * A.N));
  size_t n10 = std::max<size_t>(1, (size_t)ceil(0.10 * A.N));
  long long s = 0;
  for (size_t k = 0; k < c.size(); ++k) {
    s += c[k];
    if (k + 1 == n1) st.top1 = (double)s / A.nnz;
    if (k + 1 == n10) st.top10 = (double)s / A.nnz;
  }
  return st;
}

static std::vector<int> column_counts(const HostCSR &A)
{
  std::vector<int> cnt(A.N, 0);
  for (int k = 0; k < A.nnz; ++k) cnt[A.cols[k]]++;
  return cnt;
}

// Column renumbering by descending frequency (ties by original index): perm[k] = original
// column of new column k. Returns the matrix with renumbered columns, each row re-sorted.
// Then (A x)_i = (B xp)_i with xp[k] = x[perm[k]], only the summation order differs.
static HostCSR renumber_columns_perm(const HostCSR &A, const std::vector<int> &perm);

static HostCSR renumber_columns(const HostCSR &A, const std::vector<int> &colcount, std::vector<int> &perm)
{
  perm.resize(A.N);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) { return colcount[a] > colcount[b]; });
  return renumber_columns_perm(A, perm);
}

// First-touch order: columns numbered in the order rows first reference them (unreferenced
// columns last), so that rows processed close in time gather from nearby x entries.
static HostCSR renumber_columns_firsttouch(const HostCSR &A, std::vector<int> &perm)
{
  std::vector<char> seen(A.N, 0);
  perm.clear();
  perm.reserve(A.N);
  for (int k = 0; k < A.nnz; ++k)
    if (!seen[A.cols[k]]) { seen[A.cols[k]] = 1; perm.push_back(A.cols[k]); }
  for (int c = 0; c < A.N; ++c)
    if (!seen[c]) perm.push_back(c);
  return renumber_columns_perm(A, perm);
}

static HostCSR renumber_columns_perm(const HostCSR &A, const std::vector<int> &perm)
{
  std::vector<int> inv(A.N);
  for (int k = 0; k < A.N; ++k) inv[perm[k]] = k;
  HostCSR B;
  B.M = A.M; B.N = A.N; B.nnz = A.nnz;
  B.rowptr = A.rowptr;
  B.cols.resize(A.nnz);
  B.vals.resize(A.nnz);
  std::vector<std::pair<int, double>> row;
  for (int i = 0; i < A.M; ++i) {
    int b = A.rowptr[i], e = A.rowptr[i + 1];
    row.resize(e - b);
    for (int k = b; k < e; ++k) row[k - b] = {inv[A.cols[k]], A.vals[k]};
    std::sort(row.begin(), row.end(), [](const std::pair<int, double> &p, const std::pair<int, double> &q) {
      return p.first < q.first;
    });
    for (int k = b; k < e; ++k) { B.cols[k] = row[k - b].first; B.vals[k] = row[k - b].second; }
  }
  return B;
}

// ------------------------------------------------------------------------------------------
// Device load helpers
// ------------------------------------------------------------------------------------------

// Matrix streams (values, column indices) are read exactly once per product. Two ways to
// keep them from competing with x for cache:
//  - __ldcs: "cache streaming" (evict-first in L1 and L2).
//  - ld.global.nc.L1::no_allocate: read-only path without allocating an L1 line at all, so
//    L1 keeps only x (and rowptr); L2 behaviour is the default.
template <typename T> __device__ __forceinline__ T ld_l1na(const T *p);
template <> __device__ __forceinline__ double ld_l1na<double>(const double *p)
{
  double v;
  asm("ld.global.nc.L1::no_allocate.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}
template <> __device__ __forceinline__ float ld_l1na<float>(const float *p)
{
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
template <> __device__ __forceinline__ int ld_l1na<int>(const int *p)
{
  int v;
  asm("ld.global.nc.L1::no_allocate.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
template <> __device__ __forceinline__ long long ld_l1na<long long>(const long long *p)
{
  long long v;
  asm("ld.global.nc.L1::no_allocate.s64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

template <bool L1NA, typename T> __device__ __forceinline__ T ld_stream(const T *p)
{
  if constexpr (L1NA) return ld_l1na<T>(p);
  else return __ldcs(p);
}

// ------------------------------------------------------------------------------------------
// Kernels: csr-vector
// ------------------------------------------------------------------------------------------

// G threads per row; lanes stride through the row, then a shuffle tree reduces within the
// group. No thread returns early, so every lane reaches the full-mask shuffles. Rows longer
// than skip_len are left alone (long-short does them in another kernel).
template <typename V, typename I, int G, bool L1NA>
__global__ void __launch_bounds__(kVecBlock)
csr_vector_kernel(I M, const I *__restrict__ rowptr, const I *__restrict__ cols, const V *__restrict__ vals,
                  const V *__restrict__ x, V *__restrict__ y, I skip_len)
{
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G must be a power of two <= 32");
  const size_t t    = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t row  = t / G;
  const int    lane = threadIdx.x % G; // blockDim is a multiple of G, so this is t % G
  bool active = row < (size_t)M;
  I    start = 0, end = 0;
  if (active) {
    start = __ldg(&rowptr[row]);
    end   = __ldg(&rowptr[row + 1]);
    if (end - start > skip_len) { active = false; end = start; }
  }
  V sum = 0;
  for (I j = start + lane; j < end; j += G) sum += ld_stream<L1NA>(&vals[j]) * __ldg(&x[ld_stream<L1NA>(&cols[j])]);
  for (int off = G / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, G);
  if (active && lane == 0) y[row] = sum;
}

// Smallest power of two >= mean row length, at least 2 and capped at a warp.
static int choose_group(double mean)
{
  int g = 2;
  while (g < mean && g < 32) g *= 2;
  return g;
}

template <typename V, typename I, bool L1NA>
static void launch_csr_vector(int G, I M, const I *rowptr, const I *cols, const V *vals, const V *x, V *y,
                              I skip_len, cudaStream_t s)
{
  size_t threads = (size_t)M * G;
  size_t blocks  = (threads + kVecBlock - 1) / kVecBlock;
  if (blocks > (size_t)INT_MAX) die("too many rows for one grid", "csr-vector");
  switch (G) {
  case 2: csr_vector_kernel<V, I, 2, L1NA><<<(unsigned)blocks, kVecBlock, 0, s>>>(M, rowptr, cols, vals, x, y, skip_len); break;
  case 4: csr_vector_kernel<V, I, 4, L1NA><<<(unsigned)blocks, kVecBlock, 0, s>>>(M, rowptr, cols, vals, x, y, skip_len); break;
  case 8: csr_vector_kernel<V, I, 8, L1NA><<<(unsigned)blocks, kVecBlock, 0, s>>>(M, rowptr, cols, vals, x, y, skip_len); break;
  case 16: csr_vector_kernel<V, I, 16, L1NA><<<(unsigned)blocks, kVecBlock, 0, s>>>(M, rowptr, cols, vals, x, y, skip_len); break;
  case 32: csr_vector_kernel<V, I, 32, L1NA><<<(unsigned)blocks, kVecBlock, 0, s>>>(M, rowptr, cols, vals, x, y, skip_len); break;
  default: die("bad group size", "csr-vector");
  }
  LAUNCH_CHECK();
}

// ------------------------------------------------------------------------------------------
// Kernels: long rows (long-short) and the colorder x gather
// ------------------------------------------------------------------------------------------

// One block per long row: strided partial sums, warp shuffles, then warp 0 reduces the
// per-warp sums from shared memory.
template <typename V, typename I>
__global__ void __launch_bounds__(kLongBlock)
long_row_kernel(const I *__restrict__ long_rows, const I *__restrict__ rowptr, const I *__restrict__ cols,
                const V *__restrict__ vals, const V *__restrict__ x, V *__restrict__ y)
{
  constexpr int kWarps = kLongBlock / 32;
  __shared__ V  warp_sum[kWarps];
  const I       row   = long_rows[blockIdx.x];
  const I       start = rowptr[row], end = rowptr[row + 1];
  V             sum   = 0;
  for (I j = start + (I)threadIdx.x; j < end; j += kLongBlock) sum += __ldcs(&vals[j]) * __ldg(&x[__ldcs(&cols[j])]);
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < kWarps ? warp_sum[threadIdx.x] : V(0);
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (threadIdx.x == 0) y[row] = sum;
  }
}

template <typename V, typename I>
__global__ void gather_kernel(I n, const I *__restrict__ perm, const V *__restrict__ x, V *__restrict__ xp)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < (size_t)n) xp[k] = __ldg(&x[__ldcs(&perm[k])]);
}

// ------------------------------------------------------------------------------------------
// Kernels: merge-based (Merrill & Garland, SC'16; CUB DeviceSpmv)
// ------------------------------------------------------------------------------------------
//
// The merge path merges list A = row end offsets (rowptr[1..M]) with list B = the natural
// numbers 0..nnz-1 (nonzero indices): at point (i, j) the next step consumes nonzero j if
// j < rowptr[i+1], else it ends row i. Splitting the M + nnz steps evenly balances the work
// whatever the row lengths. A block owns TILE consecutive steps; each thread ITEMS of them.

template <typename I> struct Coord {
  I x; // rows ended so far (row index)
  I y; // nonzeros consumed so far (nonzero index)
};

// Point where diagonal `diag` crosses the merge path of row_end[0..a_len) and the nonzero
// indices nz_base .. nz_base+b_len. The same code runs on the host in --selftest-host.
template <typename I>
__host__ __device__ inline Coord<I> merge_path_search(I diag, const I *row_end, I nz_base, I a_len, I b_len)
{
  I lo = diag > b_len ? diag - b_len : 0;
  I hi = diag < a_len ? diag : a_len;
  while (lo < hi) {
    I pivot = lo + (hi - lo) / 2;
    if (row_end[pivot] <= nz_base + diag - pivot - 1) lo = pivot + 1;
    else hi = pivot;
  }
  return {lo, diag - lo};
}

// One thread's walk of n merge steps from c (tile-local coordinates). s_rowptr[k] is
// rowptr[row_base + k]; s_prod[k] is vals*x of nonzero nz_base + k. Rows are written through
// the sink: a plain store when this thread saw the whole row, an atomic add of the partial
// sum when the row is shared with neighbouring threads (y is zeroed first).
template <typename V, typename I, typename Sink>
__host__ __device__ inline void merge_walk(Coord<I> c, I n, I row_base, I nz_base, const I *s_rowptr,
                                           const V *s_prod, Sink &sink)
{
  I x = c.x, y = c.y;
  // Starting past the row's first nonzero means earlier threads hold part of this row.
  bool partial = nz_base + y > s_rowptr[x];
  bool has     = false; // consumed any nonzero of the current row
  V    sum     = 0;
  for (I it = 0; it < n; ++it) {
    if (nz_base + y < s_rowptr[x + 1]) {
      sum += s_prod[y];
      ++y;
      has = true;
    } else {
      if (!partial) sink.store(row_base + x, sum);
      else if (has) sink.add(row_base + x, sum);
      partial = false;
      has     = false;
      sum     = 0;
      ++x;
    }
  }
  if (has) sink.add(row_base + x, sum); // carry-out: the row continues in the next thread
}

template <typename V, typename I> struct DeviceSink {
  V *y;
  __device__ void store(I row, V v) { y[row] = v; }
  __device__ void add(I row, V v) { atomicAdd(&y[row], v); }
};

// Path coordinates of every tile boundary: coords[t] for t = 0..num_tiles. They depend only
// on rowptr, so they are computed once per matrix (outside the timing, as a format would at
// assembly; cusparse-alg2's preprocess is also outside). Their cost is reported separately.
template <typename I>
__global__ void merge_tile_search_kernel(I M, I nnz, const I *__restrict__ rowptr, I tile_items, I num_tiles,
                                         Coord<I> *__restrict__ coords)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t > (size_t)num_tiles) return;
  long long d    = (long long)t * tile_items;
  long long dmax = (long long)M + nnz;
  coords[t]      = merge_path_search<I>((I)(d < dmax ? d : dmax), rowptr + 1, 0, M, nnz);
}

// One block per tile. Stage vals*x of the tile's nonzeros and its rowptr slice in shared
// memory with coalesced, block-strided loads (CUB's approach), then each thread searches its
// own start inside the tile and walks ITEMS steps.
template <typename V, typename I, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
merge_kernel(I M, const I *__restrict__ rowptr, const I *__restrict__ cols, const V *__restrict__ vals,
             const V *__restrict__ x, V *__restrict__ y, const Coord<I> *__restrict__ coords)
{
  constexpr int TILE = BLOCK * ITEMS;
  __shared__ I  s_rowptr[TILE + 2]; // a tile ends at most TILE rows, plus the two bounding offsets
  __shared__ V  s_prod[TILE];
  const Coord<I> start = coords[blockIdx.x], stop = coords[blockIdx.x + 1];
  const I        tile_rows = stop.x - start.x, tile_nz = stop.y - start.y;
  for (I k = threadIdx.x; k < tile_nz; k += BLOCK) {
    const I j = start.y + k;
    s_prod[k] = __ldcs(&vals[j]) * __ldg(&x[__ldcs(&cols[j])]);
  }
  // rowptr[start.x .. start.x + tile_rows + 1]. Past the last row the walk has no nonzeros
  // left to compare, so clamping to rowptr[M] (= nnz) just keeps the entry well defined.
  for (I k = threadIdx.x; k < tile_rows + 2; k += BLOCK) s_rowptr[k] = __ldcs(&rowptr[min(start.x + k, M)]);
  __syncthreads();
  const I        tile_items = tile_rows + tile_nz;
  const I        d          = min((I)(threadIdx.x * ITEMS), tile_items);
  const Coord<I> c          = merge_path_search<I>(d, s_rowptr + 1, start.y, tile_rows, tile_nz);
  const I        n          = min((I)ITEMS, tile_items - d);
  DeviceSink<V, I> sink{y};
  merge_walk<V, I>(c, n, start.x, start.y, s_rowptr, s_prod, sink);
}

// ------------------------------------------------------------------------------------------
// Host emulation of the merge kernel (for --selftest-host): same search and walk code, one
// tile and one thread at a time, plus a check that no row gets both a store and an add
// (which on the GPU would be a race) or two stores.
// ------------------------------------------------------------------------------------------

// Raw pointers and __host__ __device__ so that merge_walk (host+device) may call it; only
// ever called on the host.
struct HostSink {
  double *y;
  int    *nstore, *nadd;
  __host__ __device__ void store(int row, double v) { y[row] = v; nstore[row]++; }
  __host__ __device__ void add(int row, double v) { y[row] += v; nadd[row]++; }
};

static bool emulate_merge(const HostCSR &A, const std::vector<double> &x, std::vector<double> &y, int block,
                          int items)
{
  const int  tile      = block * items;
  const long long total = (long long)A.M + A.nnz;
  const int  num_tiles = (int)((total + tile - 1) / tile);
  std::vector<Coord<int>> coords(num_tiles + 1);
  for (int t = 0; t <= num_tiles; ++t)
    coords[t] = merge_path_search<int>((int)std::min<long long>((long long)t * tile, total), A.rowptr.data() + 1, 0,
                                       A.M, A.nnz);
  y.assign(A.M, 0.0);
  std::vector<int> nstore(A.M, 0), nadd(A.M, 0);
  HostSink         sink{y.data(), nstore.data(), nadd.data()};
  std::vector<int>    s_rowptr(tile + 2);
  std::vector<double> s_prod(tile);
  bool ok = true;
  for (int t = 0; t < num_tiles; ++t) {
    Coord<int> start = coords[t], stop = coords[t + 1];
    int        tile_rows = stop.x - start.x, tile_nz = stop.y - start.y;
    if (tile_rows < 0 || tile_nz < 0 || tile_rows + tile_nz > tile) { ok = false; break; }
    for (int k = 0; k < tile_nz; ++k) s_prod[k] = A.vals[start.y + k] * x[A.cols[start.y + k]];
    for (int k = 0; k < tile_rows + 2; ++k) s_rowptr[k] = A.rowptr[std::min(start.x + k, A.M)];
    int tile_items = tile_rows + tile_nz;
    for (int th = 0; th < block; ++th) {
      int        d = std::min(th * items, tile_items);
      Coord<int> c = merge_path_search<int>(d, s_rowptr.data() + 1, start.y, tile_rows, tile_nz);
      int        n = std::min(items, tile_items - d);
      merge_walk<double, int>(c, n, start.x, start.y, s_rowptr.data(), s_prod.data(), sink);
    }
  }
  if (coords[num_tiles].x != A.M || coords[num_tiles].y != A.nnz) ok = false;
  for (int i = 0; i < A.M; ++i)
    if (nstore[i] > 1 || (nstore[i] && nadd[i])) {
      fprintf(stderr, "merge emulation: row %d stored %d times, added %d times\n", i, nstore[i], nadd[i]);
      ok = false;
      break;
    }
  return ok;
}

// ------------------------------------------------------------------------------------------
// Test matrix generator (--write-test)
// ------------------------------------------------------------------------------------------

// Power-law row lengths (Pareto, exponent 2: many rows of 1-3 nonzeros, a heavy tail), about
// 5% empty rows, power-law column popularity scattered over the index range by a random
// permutation (so hot columns are not contiguous until colorder renumbers them).
static HostCSR generate_powerlaw(int M, int N, uint64_t seed)
{
  const double kEmptyRowFrac = 0.05; // exercise empty rows
  const double kRowAlpha     = 1.2;  // Pareto shape: P(len > l) ~ l^-1.2, a heavy tail
  const double kColSkew      = 3.0;  // col ~ N * u^3: low indices (before scattering) are hot
  HostCSR      A;
  A.M = M; A.N = N;
  A.rowptr.assign((size_t)M + 1, 0);
  std::vector<int> colperm(N);
  std::iota(colperm.begin(), colperm.end(), 0);
  for (int k = N - 1; k > 0; --k) std::swap(colperm[k], colperm[splitmix64(seed) % (uint64_t)(k + 1)]);
  std::vector<int> row;
  for (int i = 0; i < M; ++i) {
    int len = 0;
    if (uniform01(seed) >= kEmptyRowFrac) {
      double l = pow(1.0 - uniform01(seed), -1.0 / kRowAlpha); // Pareto >= 1
      len      = (int)std::min<double>(l, N / 2);
    }
    row.clear();
    for (int k = 0; k < len; ++k) row.push_back(colperm[(int)(N * pow(uniform01(seed), kColSkew))]);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (int c : row) {
      A.cols.push_back(c);
      A.vals.push_back(2.0 * uniform01(seed) - 1.0);
    }
    A.rowptr[i + 1] = (int)A.cols.size();
  }
  A.nnz = (int)A.cols.size();
  return A;
}

// ------------------------------------------------------------------------------------------
// Benchmark driver
// ------------------------------------------------------------------------------------------

struct Timer {
  cudaEvent_t a, b;
  Timer() { CUDA_CHECK(cudaEventCreate(&a)); CUDA_CHECK(cudaEventCreate(&b)); }
  ~Timer() { cudaEventDestroy(a); cudaEventDestroy(b); }
};

// Mean microseconds of kTimed launches after kWarmup ones, all on stream s.
template <class F> static double time_us(cudaStream_t s, Timer &tm, F &&launch)
{
  for (int i = 0; i < kWarmup; ++i) launch();
  CUDA_CHECK(cudaEventRecord(tm.a, s));
  for (int i = 0; i < kTimed; ++i) launch();
  CUDA_CHECK(cudaEventRecord(tm.b, s));
  CUDA_CHECK(cudaEventSynchronize(tm.b));
  LAUNCH_CHECK();
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, tm.a, tm.b));
  return 1000.0 * ms / kTimed;
}

template <typename T> static T *to_device(const std::vector<T> &h)
{
  T *d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, std::max<size_t>(1, h.size()) * sizeof(T)));
  if (!h.empty()) CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

struct Report {
  std::string name;
  double      bytes;
  double      base_us = 0; // cusparse-alg1
  const std::vector<double> *yref;
  double     *d_y;
  int         M;
  cudaStream_t s;
  Timer      *tm;
  int         nwrong = 0;

  // Correctness from one product into a NaN-filled y (catches rows never written), then timing.
  template <class F> double run(const char *variant, F &&launch)
  {
    CUDA_CHECK(cudaMemsetAsync(d_y, 0xFF, (size_t)M * sizeof(double), s)); // all-ones bytes = NaN
    launch();
    LAUNCH_CHECK();
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<double> y(M);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, (size_t)M * sizeof(double), cudaMemcpyDeviceToHost));
    double err = rel_error(y, *yref);
    double us  = time_us(s, *tm, launch);
    if (base_us == 0) base_us = us;
    bool wrong = !(err <= kTolerance);
    nwrong += wrong;
    printf("%-24s %-26s %10.2f %8.3f %8.1f %10.2e%s\n", name.c_str(), variant, us, base_us / us,
           bytes / (us * 1e-6) / 1e9, err, wrong ? "  WRONG" : "");
    fflush(stdout);
    return us;
  }
};

static std::string base_name(const char *path)
{
  std::string s(path);
  size_t      slash = s.find_last_of('/');
  if (slash != std::string::npos) s = s.substr(slash + 1);
  size_t dot = s.find_last_of('.');
  if (dot != std::string::npos && dot > 0) s = s.substr(0, dot);
  return s;
}

static int bench_file(const char *path, int long_threshold)
{
  HostCSR A = load_petsc_binary(path);
  std::string name = base_name(path);
  std::vector<int> colcount = column_counts(A);
  MatStats st = matrix_stats(A, colcount, long_threshold);
  const int G = choose_group(st.mean);
  printf("# matrix %s: M %d N %d nnz %d | row length mean %.2f std %.2f max %d | nnz in top 1%% columns %.3f, "
         "top 10%% %.3f | rows > %d: %d (%.3f of nnz) | csr-vector G %d\n",
         name.c_str(), A.M, A.N, A.nnz, st.mean, st.stddev, st.maxlen, st.top1, st.top10, long_threshold, st.nlong,
         st.long_frac, G);

  // x random in [-1,1], reference product on the host.
  uint64_t seed = 12345;
  std::vector<double> x(A.N), yref(A.M);
  for (double &v : x) v = 2.0 * uniform01(seed) - 1.0;
  host_spmv(A, x.data(), yref.data());

  std::vector<int> perm;
  HostCSR B = renumber_columns(A, colcount, perm);
  std::vector<int> long_rows;
  for (int i = 0; i < A.M; ++i)
    if (A.rowptr[i + 1] - A.rowptr[i] > long_threshold) long_rows.push_back(i);

  // Device data.
  int    *d_rowptr = to_device(A.rowptr), *d_cols = to_device(A.cols), *d_cols2 = to_device(B.cols);
  double *d_vals = to_device(A.vals), *d_vals2 = to_device(B.vals), *d_x = to_device(x);
  int    *d_perm = to_device(perm), *d_long = to_device(long_rows);
  double *d_xp = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_xp, (size_t)A.N * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_y, (size_t)A.M * sizeof(double)));
  cudaStream_t s, s2;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  Timer tm;

  const double bytes = 12.0 * A.nnz + 4.0 * (A.M + 1) + 8.0 * ((double)A.M + A.N);
  Report rep{name, bytes, 0, &yref, d_y, A.M, s, &tm};
  printf("%-24s %-26s %10s %8s %8s %10s\n", "matrix", "variant", "time_us", "speedup", "GB/s", "relerr");

  // ---- cuSPARSE ----
  cusparseHandle_t h;
  CUSPARSE_CHECK(cusparseCreate(&h));
  CUSPARSE_CHECK(cusparseSetStream(h, s));
  cusparseDnVecDescr_t vx, vy;
  CUSPARSE_CHECK(cusparseCreateDnVec(&vx, A.N, d_x, CUDA_R_64F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&vy, A.M, d_y, CUDA_R_64F));
  const double alpha = 1.0, beta = 0.0;
  const cusparseSpMVAlg_t algs[2]  = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
  const char             *anames[2] = {"cusparse-alg1", "cusparse-alg2"};
  for (int a = 0; a < 2; ++a) {
    cusparseSpMatDescr_t mat; // one descriptor per algorithm: preprocess data hangs off it
    CUSPARSE_CHECK(cusparseCreateCsr(&mat, A.M, A.N, A.nnz, d_rowptr, d_cols, d_vals, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    size_t bufsize = 0;
    void  *buf     = nullptr;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy,
                                           CUDA_R_64F, algs[a], &bufsize));
    CUDA_CHECK(cudaMalloc(&buf, std::max<size_t>(bufsize, 1)));
    if (algs[a] == CUSPARSE_SPMV_CSR_ALG2)
      CUSPARSE_CHECK(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy,
                                             CUDA_R_64F, algs[a], buf));
    rep.run(anames[a], [&] {
      CUSPARSE_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F,
                                  algs[a], buf));
    });
    CUSPARSE_CHECK(cusparseDestroySpMat(mat));
    CUDA_CHECK(cudaFree(buf));
  }

  // ---- csr-vector ----
  const int no_skip = INT_MAX;
  rep.run("csr-vector", [&] { launch_csr_vector<double, int, false>(G, A.M, d_rowptr, d_cols, d_vals, d_x, d_y, no_skip, s); });
  rep.run("csr-vector-l1na", [&] { launch_csr_vector<double, int, true>(G, A.M, d_rowptr, d_cols, d_vals, d_x, d_y, no_skip, s); });

  // ---- merge ----
  const int tile      = kMergeBlock * kMergeItems;
  const int num_tiles = (int)(((long long)A.M + A.nnz + tile - 1) / tile);
  Coord<int> *d_coords = nullptr;
  CUDA_CHECK(cudaMalloc(&d_coords, ((size_t)num_tiles + 1) * sizeof(Coord<int>)));
  auto tile_search = [&] {
    const int threads = 256; // one thread per tile boundary; any multiple of 32
    merge_tile_search_kernel<int><<<(num_tiles + 1 + threads - 1) / threads, threads, 0, s>>>(
        A.M, A.nnz, d_rowptr, tile, num_tiles, d_coords);
    LAUNCH_CHECK();
  };
  const double search_us = time_us(s, tm, tile_search); // also leaves d_coords filled
  // y zeroed inside the timing: rows split between threads are finished with atomicAdd.
  auto merge = [&](const int *cols, const double *vals, const double *xv) {
    CUDA_CHECK(cudaMemsetAsync(d_y, 0, (size_t)A.M * sizeof(double), s));
    merge_kernel<double, int, kMergeBlock, kMergeItems><<<num_tiles, kMergeBlock, 0, s>>>(A.M, d_rowptr, cols, vals,
                                                                                        xv, d_y, d_coords);
    LAUNCH_CHECK();
  };
  rep.run("merge", [&] { merge(d_cols, d_vals, d_x); });

  // ---- colorder: gather x into the new column order, then the same kernels ----
  auto gather = [&] {
    gather_kernel<double, int><<<(A.N + kGatherBlock - 1) / kGatherBlock, kGatherBlock, 0, s>>>(A.N, d_perm, d_x, d_xp);
    LAUNCH_CHECK();
  };
  const double gather_us = time_us(s, tm, gather);
  rep.run("csr-vector-colorder", [&] {
    gather();
    launch_csr_vector<double, int, false>(G, A.M, d_rowptr, d_cols2, d_vals2, d_xp, d_y, no_skip, s);
  });
  rep.run("csr-vector-colorder-l1na", [&] {
    gather();
    launch_csr_vector<double, int, true>(G, A.M, d_rowptr, d_cols2, d_vals2, d_xp, d_y, no_skip, s);
  });
  rep.run("merge-colorder", [&] {
    gather();
    merge(d_cols2, d_vals2, d_xp);
  });

  // cuSPARSE itself on renumbered columns: what a column renumbering in front of the best kernel gives.
  // Degree order (as above) and first-touch order (columns numbered as rows first reach them).
  {
    std::vector<int> perm3;
    HostCSR C = renumber_columns_firsttouch(A, perm3);
    int    *d_cols3 = to_device(C.cols), *d_perm3 = to_device(perm3);
    double *d_vals3 = to_device(C.vals);
    cusparseDnVecDescr_t vxp;
    CUSPARSE_CHECK(cusparseCreateDnVec(&vxp, A.N, d_xp, CUDA_R_64F));
    const int  *colsets[2] = {d_cols2, d_cols3};
    double     *valsets[2] = {d_vals2, d_vals3};
    const int  *permsets[2] = {d_perm, d_perm3};
    const char *names[2]   = {"cusparse-alg1-colorder", "cusparse-alg1-firsttouch"};
    for (int o = 0; o < 2; ++o) {
      cusparseSpMatDescr_t mat;
      CUSPARSE_CHECK(cusparseCreateCsr(&mat, A.M, A.N, A.nnz, d_rowptr, (void *)colsets[o], valsets[o], CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
      size_t bufsize = 0;
      void  *buf     = nullptr;
      CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vxp, &beta, vy,
                                             CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &bufsize));
      CUDA_CHECK(cudaMalloc(&buf, std::max<size_t>(bufsize, 1)));
      rep.run(names[o], [&] {
        gather_kernel<double, int><<<(A.N + kGatherBlock - 1) / kGatherBlock, kGatherBlock, 0, s>>>(A.N, permsets[o], d_x, d_xp);
        LAUNCH_CHECK();
        CUSPARSE_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vxp, &beta, vy, CUDA_R_64F,
                                    CUSPARSE_SPMV_CSR_ALG1, buf));
      });
      CUSPARSE_CHECK(cusparseDestroySpMat(mat));
      CUDA_CHECK(cudaFree(buf));
    }
    CUSPARSE_CHECK(cusparseDestroyDnVec(vxp));
    for (void *p : {(void *)d_cols3, (void *)d_perm3, (void *)d_vals3}) CUDA_CHECK(cudaFree(p));
  }

  // ---- long-short: long rows one block each, the rest csr-vector (which skips long rows) ----
  const int nlong = (int)long_rows.size();
  rep.run("long-short", [&] {
    if (nlong) {
      long_row_kernel<double, int><<<nlong, kLongBlock, 0, s>>>(d_long, d_rowptr, d_cols, d_vals, d_x, d_y);
      LAUNCH_CHECK();
    }
    launch_csr_vector<double, int, false>(G, A.M, d_rowptr, d_cols, d_vals, d_x, d_y, long_threshold, s);
  });
  // Same, long rows on a second stream so the two kernels can overlap (fork/join by events).
  rep.run("long-short-2s", [&] {
    if (nlong) {
      CUDA_CHECK(cudaEventRecord(fork, s));
      CUDA_CHECK(cudaStreamWaitEvent(s2, fork, 0));
      long_row_kernel<double, int><<<nlong, kLongBlock, 0, s2>>>(d_long, d_rowptr, d_cols, d_vals, d_x, d_y);
      LAUNCH_CHECK();
    }
    launch_csr_vector<double, int, false>(G, A.M, d_rowptr, d_cols, d_vals, d_x, d_y, long_threshold, s);
    if (nlong) {
      CUDA_CHECK(cudaEventRecord(join, s2));
      CUDA_CHECK(cudaStreamWaitEvent(s, join, 0));
    }
  });

  printf("# %s: colorder x gather alone %.2f us (included in the colorder variants); merge tile search %.2f us "
         "(%d tiles of %d items, once per matrix, not in the merge timings); merge times include zeroing y\n",
         name.c_str(), gather_us, search_us, num_tiles, tile);
  fflush(stdout);

  CUSPARSE_CHECK(cusparseDestroyDnVec(vx));
  CUSPARSE_CHECK(cusparseDestroyDnVec(vy));
  CUSPARSE_CHECK(cusparseDestroy(h));
  CUDA_CHECK(cudaEventDestroy(fork));
  CUDA_CHECK(cudaEventDestroy(join));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaStreamDestroy(s2));
  for (void *p : {(void *)d_rowptr, (void *)d_cols, (void *)d_cols2, (void *)d_vals, (void *)d_vals2, (void *)d_x,
                  (void *)d_perm, (void *)d_long, (void *)d_xp, (void *)d_y, (void *)d_coords})
    CUDA_CHECK(cudaFree(p));
  return rep.nwrong;
}

// ------------------------------------------------------------------------------------------
// Host self-test
// ------------------------------------------------------------------------------------------

static int selftest_host(const char *path, int long_threshold)
{
  HostCSR A = load_petsc_binary(path);
  std::vector<int> colcount = column_counts(A);
  MatStats st = matrix_stats(A, colcount, long_threshold);
  printf("# selftest %s: M %d N %d nnz %d | row length mean %.2f std %.2f max %d | top 1%% cols %.3f, top 10%% %.3f "
         "| rows > %d: %d\n",
         path, A.M, A.N, A.nnz, st.mean, st.stddev, st.maxlen, st.top1, st.top10, long_threshold, st.nlong);
  int fails = 0;
  auto report = [&](const char *what, bool ok, double err) {
    printf("%-40s %s (relerr %.2e)\n", what, ok ? "ok" : "FAIL", err);
    fails += !ok;
  };

  uint64_t seed = 12345;
  std::vector<double> x(A.N), yref(A.M), y(A.M);
  for (double &v : x) v = 2.0 * uniform01(seed) - 1.0;
  host_spmv(A, x.data(), yref.data());

  // Column renumbering: perm is a permutation, counts non-increasing, rows sorted, same product.
  std::vector<int> perm;
  HostCSR B = renumber_columns(A, colcount, perm);
  std::vector<char> seen(A.N, 0);
  bool perm_ok = true;
  for (int k = 0; k < A.N; ++k) {
    if (perm[k] < 0 || perm[k] >= A.N || seen[perm[k]]) perm_ok = false;
    else seen[perm[k]] = 1;
    if (k > 0 && colcount[perm[k]] > colcount[perm[k - 1]]) perm_ok = false;
  }
  for (int i = 0; i < B.M && perm_ok; ++i)
    for (int k = B.rowptr[i] + 1; k < B.rowptr[i + 1]; ++k)
      if (B.cols[k] <= B.cols[k - 1]) perm_ok = false;
  report("colorder: perm valid, rows sorted", perm_ok, 0);
  std::vector<double> xp(A.N);
  for (int k = 0; k < A.N; ++k) xp[k] = x[perm[k]];
  host_spmv(B, xp.data(), y.data());
  double e = rel_error(y, yref);
  report("colorder: B * x[perm] == A * x", e <= kTolerance, e);

  // Merge kernel logic, emulated, on both matrices and a few tile shapes (small tiles force
  // rows across threads and tiles).
  const int shapes[][2] = {{kMergeBlock, kMergeItems}, {4, 3}, {2, 1}, {32, 5}};
  for (auto &sh : shapes) {
    char what[64];
    bool ok = emulate_merge(A, x, y, sh[0], sh[1]);
    e       = rel_error(y, yref);
    snprintf(what, sizeof what, "merge emulation block %d items %d", sh[0], sh[1]);
    report(what, ok && e <= kTolerance, e);
    ok = emulate_merge(B, xp, y, sh[0], sh[1]);
    e  = rel_error(y, yref);
    snprintf(what, sizeof what, "merge-colorder emulation block %d items %d", sh[0], sh[1]);
    report(what, ok && e <= kTolerance, e);
  }

  // Binary round trip: writing and re-reading gives the same matrix.
  std::string tmp = std::string(path) + ".roundtrip.tmp";
  write_petsc_binary(A, tmp.c_str());
  HostCSR A2 = load_petsc_binary(tmp.c_str());
  remove(tmp.c_str());
  bool same = A2.M == A.M && A2.N == A.N && A2.nnz == A.nnz && A2.rowptr == A.rowptr && A2.cols == A.cols &&
              memcmp(A2.vals.data(), A.vals.data(), A.vals.size() * sizeof(double)) == 0;
  report("binary write/read round trip", same, 0);

  printf("selftest %s\n", fails ? "FAILED" : "passed");
  return fails ? 1 : 0;
}

// ------------------------------------------------------------------------------------------

static void usage()
{
  fprintf(stderr,
          "usage: irregular-study [--long-threshold L] FILE...   (PETSc binary SeqAIJ, double, int32)\n"
          "       irregular-study [--long-threshold L] --selftest-host FILE\n"
          "       irregular-study --write-test FILE [M [N]]\n"
          "       irregular-study --write-renumbered IN OUT degree|firsttouch\n");
  exit(2);
}

int main(int argc, char **argv)
{
  int long_threshold = 8 * 32; // long-short: rows over 8 full warps of work get a whole block
  std::vector<const char *> files;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--long-threshold") && i + 1 < argc) {
      long_threshold = atoi(argv[++i]);
      if (long_threshold < 1) usage();
    } else if (!strncmp(argv[i], "--long-threshold=", 17)) { // one-word form, for run.sh
      long_threshold = atoi(argv[i] + 17);
      if (long_threshold < 1) usage();
    } else if (!strcmp(argv[i], "--selftest-host") && i + 1 < argc) {
      return selftest_host(argv[i + 1], long_threshold);
    } else if (!strcmp(argv[i], "--write-renumbered") && i + 3 < argc) {
      // IN OUT ORDER: IN with its columns renumbered (degree or firsttouch), for PETSc's own formats
      HostCSR A = load_petsc_binary(argv[i + 1]);
      std::vector<int> perm;
      HostCSR B = !strcmp(argv[i + 3], "firsttouch") ? renumber_columns_firsttouch(A, perm) : renumber_columns(A, column_counts(A), perm);
      write_petsc_binary(B, argv[i + 2]);
      printf("wrote %s: %s with columns in %s order\n", argv[i + 2], argv[i + 1], !strcmp(argv[i + 3], "firsttouch") ? "first-touch" : "degree");
      return 0;
    } else if (!strcmp(argv[i], "--write-test") && i + 1 < argc) {
      const char *out = argv[i + 1];
      int M = i + 2 < argc ? atoi(argv[i + 2]) : 20000; // default small enough for a quick host test
      int N = i + 3 < argc ? atoi(argv[i + 3]) : M * 3 / 4; // N != M by default
      if (M <= 0 || N <= 1) usage();
      HostCSR A = generate_powerlaw(M, N, 2024);
      write_petsc_binary(A, out);
      printf("wrote %s: M %d N %d nnz %d\n", out, A.M, A.N, A.nnz);
      return 0;
    } else if (argv[i][0] == '-') {
      usage();
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.empty()) usage();
  int wrong = 0;
  for (const char *f : files) wrong += bench_file(f, long_threshold);
  return wrong ? 1 : 0;
}

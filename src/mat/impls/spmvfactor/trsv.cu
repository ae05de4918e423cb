/*
  MATSOLVERSPMV's device side: ILU(k) numeric factorization and the two triangular solves, each one
  launch without level synchronization (see spmvfactorimpl.h). Values other warps wrote are read
  through L2 (__ldcg in the factorization, relaxed device-scope atomics in the solves): L1 is not
  coherent between SMs.
*/
#include "spmvfactorimpl.h"
#include "../spmvlayer/spmvsyncfree.h"

#define MATSPMV_TRI_WARPS 4 /* warps per thread block */

/* cuSPARSE's csrilu02 for PetscScalar */
#if defined(PETSC_USE_COMPLEX) && defined(PETSC_USE_REAL_SINGLE)
  #define MatSpmvCsrilu02(name) cusparseC##name
typedef cuComplex MatSpmvCuSPARSEScalar;
#elif defined(PETSC_USE_COMPLEX)
  #define MatSpmvCsrilu02(name) cusparseZ##name
typedef cuDoubleComplex MatSpmvCuSPARSEScalar;
#elif defined(PETSC_USE_REAL_SINGLE)
  #define MatSpmvCsrilu02(name) cusparseS##name
typedef float MatSpmvCuSPARSEScalar;
#else
  #define MatSpmvCsrilu02(name) cusparseD##name
typedef double MatSpmvCuSPARSEScalar;
#endif

typedef struct {
  cusparseHandle_t   handle;
  cusparseMatDescr_t descr;
  csrilu02Info_t     info;
  void              *buffer;
} MatSpmvCuSPARSEILU;

/* what a pivot is compared with zeropivot by: its magnitude, or (positive definite) its real part */
template <typename V>
__device__ __forceinline__ PetscReal MatSpmvPivotSize(V v, bool positive)
{
  if constexpr (cuda::std::is_same<V, float>::value || cuda::std::is_same<V, double>::value) return positive ? v : fabs(v);
  else return positive ? v.real() : hypot(v.real(), v.imag());
}

#define MATSPMV_TRI_SLEEP_NS 32 /* between polls of a flag: spare L2 (no sleep: slower on a Laplacian; docs/results.md, "ILU(0) and ICC(0) by MATSOLVERSPMV next to cuSPARSE's") */

__device__ __forceinline__ void MatSpmvWaitUnit(int *flags, int u, int launch)
{
  cuda::atomic_ref<int, cuda::thread_scope_device> f(flags[u]);

  while (f.load(cuda::memory_order_acquire) != launch) __nanosleep(MATSPMV_TRI_SLEEP_NS);
}

#ifndef MATSPMV_TRI_CHUNK
  #define MATSPMV_TRI_CHUNK 4 /* entries whose flags a lane checks at once */
#endif

/* until the units of the columns c[] (-1: none) are complete: their flags loaded side by side (one
   round trip for all, not one each), then one acquire fence for the x loads that follow */
template <typename I>
__device__ __forceinline__ void MatSpmvWaitUnits(int *flags, const I *c, I unit, int launch)
{
  bool ready;

  do {
    int f[MATSPMV_TRI_CHUNK];

    for (int k = 0; k < MATSPMV_TRI_CHUNK; k++) f[k] = c[k] >= 0 ? cuda::atomic_ref<int, cuda::thread_scope_device>(flags[c[k] / unit]).load(cuda::memory_order_relaxed) : launch;
    ready = true;
    for (int k = 0; k < MATSPMV_TRI_CHUNK; k++) ready = ready && f[k] == launch;
    if (!ready && MATSPMV_TRI_SLEEP_NS) __nanosleep(MATSPMV_TRI_SLEEP_NS);
  } while (!ready);
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
}

/* after every lane's stores: the unit is complete */
__device__ __forceinline__ void MatSpmvPublishUnit(int *flags, int u, int launch)
{
  __threadfence();
  __syncwarp();
  if ((threadIdx.x & 31) == 0) cuda::atomic_ref<int, cuda::thread_scope_device>(flags[u]).store(launch, cuda::memory_order_release);
}

/* the first position in [lo, hi) of the sorted cols whose column is >= c (hi: none) */
template <typename I>
__device__ __forceinline__ I MatSpmvLowerBound(const I *cols, I lo, I hi, I c)
{
  while (lo < hi) {
    const I mid = (lo + hi) / 2;
    if (cols[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

#define MATSPMV_ILU_ROW 128 /* rows of at most this many entries are factored in shared memory */

/* ILU on the factor's pattern (ILU(k): fill included), row by row in the IKJ order of a sequential factorization: for each L entry (k < r, in
   increasing k) l = a_rk / u_kk, then row r -= l * (row k of U), on the entries of r's pattern.
   A row that fits is held in the warp's shared memory while it is updated (columns and values:
   the search for each of row k's columns and the update stay on the SM; only row k is read
   through L2), after one wait for all the units its L entries point to; longer rows are updated
   in place through L2, waiting entry by entry. Holding rows in shared memory made the ICC
   factorization of KSP ex56 faster (docs/results.md,
   "ILU(0) and ICC(0) by MATSOLVERSPMV next to cuSPARSE's"). */
template <typename S, typename I>
__global__ void __launch_bounds__(32 * MATSPMV_TRI_WARPS) MatSpmvILUKernel(I n, I unit, I nunits, const I *__restrict__ order, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ diag, S *a, S *idiag, int *flags, unsigned long long *counter, unsigned long long taken, int launch, PetscReal zeropivot, bool positive, unsigned *status)
{
  __shared__ I scol[MATSPMV_TRI_WARPS][MATSPMV_ILU_ROW];
  __shared__ S sval[MATSPMV_TRI_WARPS][MATSPMV_ILU_ROW];
  const int    lane = threadIdx.x & 31;
  I *const     cols = scol[threadIdx.x / 32];
  S *const     vals = sval[threadIdx.x / 32];
  const I      u    = MatSpmvTakeUnit(counter, taken, nunits, order);

  if (u < 0) return;
  const I r0 = u * unit, r1 = min(r0 + unit, n);
  for (I r = r0; r < r1; r++) {
    const I rs = ai[r], re = ai[r + 1], rd = diag[r], len = re - rs;
    S       piv;

    if (len <= MATSPMV_ILU_ROW) {
      for (I p0 = rs + lane; p0 < rd; p0 += 32 * MATSPMV_TRI_CHUNK) { /* the units of the entries outside this unit */
        I c[MATSPMV_TRI_CHUNK];

        for (int k = 0; k < MATSPMV_TRI_CHUNK; k++) {
          const I p = p0 + 32 * k;
          c[k]      = p < rd && aj[p] < r0 ? aj[p] : -1;
        }
        MatSpmvWaitUnits(flags, c, unit, launch);
      }
      for (I k = lane; k < len; k += 32) {
        cols[k] = aj[rs + k];
        vals[k] = MatSpmvLoadL2(a + rs + k);
      }
      __syncwarp();
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device); /* the other lanes' waits */
      for (I p = 0; p < rd - rs; p++) {
        const I k = cols[p], qs = diag[k] + 1, qe = ai[k + 1];
        const S l = vals[p] * MatSpmvLoadL2(idiag + k);

        if (qe - qs > MATSPMV_ILU_LONG_PIVOT * (len - p - 1)) { /* a long pivot row (an arrow's dense one): row r's columns looked up in it */
          for (I t = p + 1 + lane; t < len; t += 32) {
            const I lo = MatSpmvLowerBound(aj, qs, qe, cols[t]);

            if (lo < qe && aj[lo] == cols[t]) vals[t] -= l * MatSpmvLoadL2(a + lo);
          }
        } else
          for (I q0 = qs + lane; q0 < qe; q0 += 64) { /* two of row k's entries per lane: their loads overlap */
            const I q1 = q0 + 32;
            const I c0 = aj[q0], c1 = q1 < qe ? aj[q1] : -1;
            const S v0 = MatSpmvLoadL2(a + q0), v1 = q1 < qe ? MatSpmvLoadL2(a + q1) : S(0);

            for (int h = 0; h < 2; h++) {
              const I c = h ? c1 : c0;
              I       lo;

              if (c < 0) break;
              lo = MatSpmvLowerBound(cols, p + 1, len, c);
              if (lo < len && cols[lo] == c) vals[lo] -= l * (h ? v1 : v0);
            }
          }
        __syncwarp(); /* the updates before the next entry's multiplier; vals[p] is read no more */
        if (lane == 0) vals[p] = l;
      }
      __syncwarp();
      piv = vals[rd - rs];
      for (I k = lane; k < len; k += 32) MatSpmvStoreL2(a + rs + k, vals[k]);
    } else {
      for (I p = rs; p < rd; p++) {
        const I k = aj[p];
        if (k < r0) MatSpmvWaitUnit(flags, k / unit, launch);
        const S l = MatSpmvLoadL2(a + p) * MatSpmvLoadL2(idiag + k);
        __syncwarp();
        if (lane == 0) MatSpmvStoreL2(a + p, l);
        const I qs = diag[k] + 1, qe = ai[k + 1];

        if (qe - qs > MATSPMV_ILU_LONG_PIVOT * (re - p - 1))
          for (I t = p + 1 + lane; t < re; t += 32) { /* row r's columns looked up in the long pivot row */
            const I lo = MatSpmvLowerBound(aj, qs, qe, aj[t]);

            if (lo < qe && aj[lo] == aj[t]) MatSpmvStoreL2(a + t, MatSpmvLoadL2(a + t) - l * MatSpmvLoadL2(a + lo));
          }
        else
          for (I q = qs + lane; q < qe; q += 32) {
            const I c = aj[q], lo = MatSpmvLowerBound(aj, p + 1, re, c);

            if (lo < re && aj[lo] == c) MatSpmvStoreL2(a + lo, MatSpmvLoadL2(a + lo) - l * MatSpmvLoadL2(a + q));
          }
        __syncwarp();
      }
      piv = MatSpmvLoadL2(a + rd);
    }
    if (lane == 0) {
      if (MatSpmvPivotSize(piv, positive) <= zeropivot) atomicMin(status, (unsigned)r);
      MatSpmvStoreL2(idiag + r, S(1) / piv);
    }
    __syncwarp(); /* row r's values and pivot before the unit's next rows read them */
  }
  MatSpmvPublishUnit(flags, u, launch);
}

/* The inverses of each unit's diagonal blocks of L (unit diagonal) and U, dense, row by row: the
   solves then finish a unit with one small product instead of a chain of dependent steps. One
   thread per unit. */
template <typename S, typename I>
__global__ void MatSpmvUnitInverseKernel(I n, I unit, I nunits, const I *__restrict__ aj, const I *__restrict__ lin, const I *__restrict__ uout, const S *__restrict__ a, S *__restrict__ linv, S *__restrict__ uinv)
{
  for (I u = blockIdx.x * blockDim.x + threadIdx.x; u < nunits; u += gridDim.x * blockDim.x) {
    S       B[MATSPMV_TRI_MAX_UNIT][MATSPMV_TRI_MAX_UNIT], X[MATSPMV_TRI_MAX_UNIT][MATSPMV_TRI_MAX_UNIT];
    const I r0 = u * unit, rows = min(unit, n - r0); /* the last unit may be short: identity below */

    for (I p = 0; p < unit; p++)
      for (I q = 0; q < unit; q++) B[p][q] = X[p][q] = S(0);
    for (I p = rows; p < unit; p++) B[p][p] = S(1);
    for (I p = 0; p < rows; p++)
      for (I k = lin[r0 + p]; k < uout[r0 + p]; k++) B[p][aj[k] - r0] = a[k];
    for (I c = 0; c < unit; c++) { /* L X = I, column by column */
      X[c][c] = S(1);
      for (I p = c + 1; p < unit; p++) {
        S s = S(0);
        for (I k = c; k < p; k++) s += B[p][k] * X[k][c];
        X[p][c] = -s;
      }
    }
    for (I p = 0; p < unit; p++)
      for (I q = 0; q < unit; q++) linv[(r0 + p) * unit + q] = X[p][q];
    for (I p = 0; p < unit; p++)
      for (I q = 0; q < unit; q++) X[p][q] = S(0);
    for (I c = unit - 1; c >= 0; c--) { /* U X = I */
      X[c][c] = S(1) / B[c][c];
      for (I p = c - 1; p >= 0; p--) {
        S s = S(0);
        for (I k = p + 1; k <= c; k++) s += B[p][k] * X[k][c];
        X[p][c] = -s / B[p][p];
      }
    }
    for (I p = 0; p < unit; p++)
      for (I q = 0; q < unit; q++) uinv[(r0 + p) * unit + q] = X[p][q];
  }
}

/* each lane's coefficients of its row of the unit's block inverse, loaded before any wait: lane
   t of row rr holds columns t, t + G, ... */
template <typename S, typename I>
__device__ __forceinline__ void MatSpmvUnitLoadInverse(const S *__restrict__ binv, I unit, I r, I t, I G, bool active, S w[MATSPMV_TRI_MAX_UNIT / 4])
{
  for (int k = 0; k < MATSPMV_TRI_MAX_UNIT / 4; k++) w[k] = active && t + k * G < unit ? binv[(size_t)r * unit + t + k * G] : S(0);
}

/* the unit's x = (block inverse) (b - e), e the G lanes' partial sums of each row's entries outside
   the unit; every lane gets its row's x */
template <typename S, typename I>
__device__ __forceinline__ S MatSpmvUnitApply(const S w[MATSPMV_TRI_MAX_UNIT / 4], S e, S br, I unit, I t, I G, bool active)
{
  S xr = S(0);

  for (I off = G / 2; off > 0; off /= 2) e += MatSpmvShflXor(e, (int)off);
  e = active ? br - e : S(0);
  for (int k = 0; k < MATSPMV_TRI_MAX_UNIT / 4; k++) {
    const I c = t + k * G;
    xr += w[k] * MatSpmvShfl(e, c < unit ? (int)(c * G) : 0);
  }
  for (I off = G / 2; off > 0; off /= 2) xr += MatSpmvShflXor(xr, (int)off);
  return xr;
}

/* x = L^{-1} b or U^{-1} b, x pending on entry. G lanes per row of the unit: the entries outside the
   unit (each lane reading its entries' x values until all are ready) for all rows at once, then the
   unit's x = (block inverse) (b - sum), every lane holding its coefficients of the inverse from before
   the waits. The first lane of each row stores its x, which completes the row. A lane reads Chunk
   entries at once: 4 or 8, as its rows need (MatSpmvTriChunk()). */
template <typename S, typename I, bool Upper, int Chunk>
__global__ void __launch_bounds__(32 * MATSPMV_TRI_WARPS) MatSpmvTriSolveKernel(I n, I unit, I nunits, I G, const I *__restrict__ order, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ lin, const I *__restrict__ uout, const S *__restrict__ a, const S *__restrict__ binv, const S *__restrict__ b, S *x, unsigned long long *counter, unsigned long long taken)
{
  const I u = MatSpmvTakeUnit(counter, taken, nunits, order);

  if (u < 0) return;
  const int  lane = threadIdx.x & 31;
  const I    r0 = u * unit, rows = min(unit, n - r0), rr = lane / G, t = lane % G, r = r0 + rr;
  const bool active = rr < rows;
  S          w[MATSPMV_TRI_MAX_UNIT / 4], e = S(0);

  MatSpmvUnitLoadInverse(binv, unit, r, t, G, active, w);
  if (active)
    for (I p0 = (Upper ? uout[r] : ai[r]) + t, pe = Upper ? ai[r + 1] : lin[r]; p0 < pe; p0 += G * Chunk) {
      I        c[Chunk];
      S        v[Chunk], xc[Chunk];
      unsigned waiting = 0; /* bit k: entry k's x not seen yet */

      for (int k = 0; k < Chunk; k++) {
        const I p = p0 + k * G;

        c[k]  = p < pe ? aj[p] : -1;
        v[k]  = p < pe ? a[p] : S(0);
        xc[k] = S(0);
        if (p < pe) waiting |= 1u << k;
      }
      for (;;) {
        for (int k = 0; k < Chunk; k++)
          if ((waiting >> k & 1) && MatSpmvLoadReady(x + c[k], xc[k])) waiting &= ~(1u << k);
        if (!waiting) break;
        __nanosleep(MATSPMV_TRI_SLEEP_NS);
      }
      for (int k = 0; k < Chunk; k++) e += v[k] * xc[k];
    }
  const S xr = MatSpmvUnitApply(w, e, active ? b[r] : S(0), unit, t, G, active);
  if (active && t == 0) MatSpmvStoreReady(x + r, xr);
}

/* One block-Jacobi sweep of L x = b or U x = b over units: xout = (block inverse) (b - (entries
   outside the unit) xin), xin NULL: zero. No unit waits on another: a product's cost, one launch.
   k sweeps after the first reproduce the exact solve on rows at most k levels deep. */
template <typename S, typename I, bool Upper>
__global__ void __launch_bounds__(32 * MATSPMV_TRI_WARPS) MatSpmvTriSweepKernel(I n, I unit, I nunits, I G, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ lin, const I *__restrict__ uout, const S *__restrict__ a, const S *__restrict__ binv, const S *__restrict__ b, const S *__restrict__ xin, S *__restrict__ xout)
{
  const int lane = threadIdx.x & 31;

  for (I u = (I)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32); u < nunits; u += (I)(gridDim.x * (size_t)blockDim.x / 32)) { /* the warp's units */
    const I    r0 = u * unit, rows = min(unit, n - r0), rr = lane / G, t = lane % G, r = r0 + rr;
    const bool active = rr < rows;
    S          w[MATSPMV_TRI_MAX_UNIT / 4], e = S(0), xr;

    MatSpmvUnitLoadInverse(binv, unit, r, t, G, active, w);
    if (active && xin)
      for (I p = (Upper ? uout[r] : ai[r]) + t, pe = Upper ? ai[r + 1] : lin[r]; p < pe; p += G) e += a[p] * xin[aj[p]];
    xr = MatSpmvUnitApply(w, e, active ? b[r] : S(0), unit, t, G, active);
    if (active && t == 0) xout[r] = xr;
  }
}

/* the entry (k, c) of the factor, searched in row k's range [lo, hi), or 0 */
template <typename S, typename I>
__device__ __forceinline__ S MatSpmvFactorEntry(const I *__restrict__ aj, const S *__restrict__ a, I lo, I hi, I c)
{
  const I p = MatSpmvLowerBound(aj, lo, hi, c);

  return p < hi && aj[p] == c ? a[p] : S(0);
}

/* ISAI, one thread per row r: M_L's row on L's pattern J solves L(J, J)^T m = e_r (back
   substitution from m_rr = 1), M_U's row on U's pattern solves U(J, J)^T m = e_r (forward from
   m_rr = 1 / u_rr); each coefficient of L(J, J) or U(J, J) found by a search in its row */
template <typename S, typename I>
__global__ void MatSpmvISAIKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ diag, const S *__restrict__ a, const S *__restrict__ idiag, S *m)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    const I rs = ai[r], rd = diag[r], re = ai[r + 1];

    for (I p = rd - 1; p >= rs; p--) { /* m_rj, j = aj[p], in decreasing j: - sum over k in J, k > j, of m_rk L(k, j) */
      const I j = aj[p];
      S       v = a[p]; /* k = r: m_rr L(r, j) */

      for (I q = p + 1; q < rd; q++) v += m[q] * MatSpmvFactorEntry(aj, a, ai[aj[q]], diag[aj[q]], j);
      m[p] = -v;
    }
    m[rd] = idiag[r];
    for (I p = rd + 1; p < re; p++) { /* m_rj, j = aj[p] > r, in increasing j: - sum over k in J, k < j, of m_rk U(k, j), over u_jj */
      const I j = aj[p];
      S       v = S(0);

      for (I q = rd; q < p; q++) v += m[q] * MatSpmvFactorEntry(aj, a, diag[aj[q]], ai[aj[q] + 1], j);
      m[p] = -v * idiag[j];
    }
  }
}

/* y = M_L b (upper: x = M_U b): a product on L's (U's) pattern, 8 lanes per row */
template <typename S, typename I, bool Upper>
__global__ void MatSpmvISAIApplyKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ diag, const S *__restrict__ m, const S *__restrict__ b, S *__restrict__ y)
{
  const I    t = threadIdx.x & 7, r = (I)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 8);
  const bool active = r < n;
  S          e      = S(0);

  if (active)
    for (I p = (Upper ? diag[r] : ai[r]) + t, pe = Upper ? ai[r + 1] : diag[r]; p < pe; p += 8) e += m[p] * b[aj[p]];
  for (int off = 4; off > 0; off /= 2) e += MatSpmvShflXor(e, off);
  if (active && t == 0) y[r] = Upper ? e : b[r] + e;
}

/* lanes per row: the unit's rows side by side in a warp */
static int MatSpmvTriLanesPerRow(const MatSpmvTriDevice *d)
{
  int G = 32;

  while (G > 1 && (32 / G) < d->unit) G /= 2;
  return G;
}

/* ICC's map of values for a structurally symmetric A, a warp per row r: vmap[k] = k on and above the
   diagonal, below it the position of the mirror image, which is where entry k of A^T came from
   (tpos) once A^T's pattern (ti, tj) is A's; *differs = 1 where it is not */
template <typename I>
__global__ void MatSpmvMirrorMapKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ ti, const I *__restrict__ tj, const I *__restrict__ tpos, I *__restrict__ vmap, int *differs)
{
  const I lane = threadIdx.x % 32;

  for (I r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < n; r += gridDim.x * blockDim.x / 32) {
    if (ti[r + 1] != ai[r + 1]) *differs = 1;
    for (I k = ai[r] + lane; k < ai[r + 1]; k += 32) {
      if (tj[k] != aj[k]) *differs = 1;
      vmap[k] = aj[k] >= r ? k : tpos[k];
    }
  }
}

PetscErrorCode MatSpmvCUDAFactorMirror(PetscInt n, PetscInt nnz, const int *d_i, const int *d_j, int **d_vmap)
{
  void        *stream;
  cudaStream_t s;
  int         *ti, *tj, *tpos, *flag, differs;

  PetscFunctionBegin;
  *d_vmap = NULL;
  if (!n || !nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  PetscCall(MatSpmvCUDATransposeCSR(n, n, nnz, d_i, d_j, &ti, &tj, &tpos, stream));
  PetscCall(MatSpmvCUDAMalloc((void **)d_vmap, nnz * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&flag, sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(flag, 0, sizeof(int), s));
  MatSpmvMirrorMapKernel<int><<<MatSpmvGrid(32 * PetscMin(n, PETSC_INT_MAX / 32)), MATSPMV_THREADS, 0, s>>>((int)n, d_i, d_j, ti, tj, tpos, *d_vmap, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&differs, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  PetscCall(MatSpmvCUDAFree(flag));
  PetscCall(MatSpmvCUDAFree(ti));
  PetscCall(MatSpmvCUDAFree(tj));
  PetscCall(MatSpmvCUDAFree(tpos));
  if (differs) {
    PetscCall(MatSpmvCUDAFree(*d_vmap));
    *d_vmap = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* entries a lane of the exact solves reads at once: 4, or 8 where some row has more than 4 per lane
   outside its unit (KSP ex56's rows of L: 40 entries on 8 lanes; 8 there took ex56's MatSolve from
   0.173 to 0.145 s, 4 on SNES ex19's short rows from 1.83 to 1.53 s: docs/results.md) */
static int MatSpmvTriChunk(const MatSpmvTriDevice *d, const PetscInt *i, const PetscInt *lin, const PetscInt *uout)
{
  const PetscInt G    = MatSpmvTriLanesPerRow(d);
  PetscInt       most = 0;

  for (PetscInt r = 0; r < d->n; r++) most = PetscMax(most, PetscMax(lin[r] - i[r], i[r + 1] - uout[r]));
  return (most + G - 1) / G > 4 ? 8 : 4;
}

PetscErrorCode MatSpmvCUDATriCreate(MatSpmvTriDevice *d, PetscInt n, PetscInt nnz, PetscInt unit, const PetscInt *i, const PetscInt *j, const PetscInt *diag, const PetscInt *lin, const PetscInt *uout, PetscInt *const order[2], const PetscInt *vmap, const int *d_ai, const int *d_aj, int **d_vmap)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(PetscMemzero(d, sizeof(*d)));
  d->n      = n;
  d->nnz    = nnz;
  d->unit   = unit;
  d->nunits = (n + unit - 1) / unit;
  d->chunk  = MatSpmvTriChunk(d, i, lin, uout);
  if (d_ai) { /* the pattern is A's, already on the device */
    PetscCall(MatSpmvCUDAMalloc((void **)&d->i, (n + 1) * sizeof(int)));
    PetscCall(MatSpmvCUDAMalloc((void **)&d->j, PetscMax(nnz, 1) * sizeof(int)));
    PetscCallCUDA(cudaMemcpyAsync(d->i, d_ai, (n + 1) * sizeof(int), cudaMemcpyDeviceToDevice, s));
    PetscCallCUDA(cudaMemcpyAsync(d->j, d_aj, nnz * sizeof(int), cudaMemcpyDeviceToDevice, s));
  } else {
    PetscCall(MatSpmvCUDAUploadInt(&d->i, i, n + 1));
    PetscCall(MatSpmvCUDAUploadInt(&d->j, j, nnz));
  }
  PetscCall(MatSpmvCUDAUploadInt(&d->diag, diag, n));
  PetscCall(MatSpmvCUDAUploadInt(&d->lin, lin, n));
  PetscCall(MatSpmvCUDAUploadInt(&d->uout, uout, n));
  for (int k = 0; k < 2; k++) PetscCall(MatSpmvCUDAUploadInt(&d->order[k], order[k], d->nunits));
  if (d_vmap && *d_vmap) { /* taken over */
    d->vmap = *d_vmap;
    *d_vmap = NULL;
  } else if (vmap) PetscCall(MatSpmvCUDAUploadInt(&d->vmap, vmap, nnz));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->a, nnz * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->idiag, n * sizeof(PetscScalar)));
  for (int k = 0; k < 2; k++) PetscCall(MatSpmvCUDAMalloc((void **)&d->binv[k], d->nunits * unit * unit * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->y, n * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->t, n * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->flags, PetscMax(d->nunits, 1) * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->counter, sizeof(unsigned long long)));
  PetscCall(MatSpmvCUDAMalloc((void **)&d->status, sizeof(int)));
  { /* the factorization kernels loaded now (CUDA loads a kernel at its first launch), not in the first numeric phase, whose time decides where the next ones run */
    cudaFuncAttributes attr;

    PetscCallCUDA(cudaFuncGetAttributes(&attr, MatSpmvILUKernel<PetscScalar, int>));
    PetscCallCUDA(cudaFuncGetAttributes(&attr, MatSpmvUnitInverseKernel<PetscScalar, int>));
  }
  /* on PETSc's stream (the factorization's flags must be zero before it waits on them, whatever the stream type) */
  PetscCallCUDA(cudaMemsetAsync(d->flags, 0, PetscMax(d->nunits, 1) * sizeof(int), s));
  PetscCallCUDA(cudaMemsetAsync(d->counter, 0, sizeof(unsigned long long), s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDATriDestroy(MatSpmvTriDevice *d)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAFree(d->i));
  PetscCall(MatSpmvCUDAFree(d->j));
  PetscCall(MatSpmvCUDAFree(d->diag));
  PetscCall(MatSpmvCUDAFree(d->lin));
  PetscCall(MatSpmvCUDAFree(d->uout));
  for (int k = 0; k < 2; k++) PetscCall(MatSpmvCUDAFree(d->order[k]));
  PetscCall(MatSpmvCUDAFree(d->vmap));
  PetscCall(MatSpmvCUDAFree(d->a));
  PetscCall(MatSpmvCUDAFree(d->idiag));
  for (int k = 0; k < 2; k++) PetscCall(MatSpmvCUDAFree(d->binv[k]));
  PetscCall(MatSpmvCUDAFree(d->y));
  PetscCall(MatSpmvCUDAFree(d->t));
  PetscCall(MatSpmvCUDAFree(d->m));
  PetscCall(MatSpmvCUDAFree(d->flags));
  PetscCall(MatSpmvCUDAFree(d->counter));
  PetscCall(MatSpmvCUDAFree(d->status));
  if (d->cusparse) {
    MatSpmvCuSPARSEILU *c = (MatSpmvCuSPARSEILU *)d->cusparse;

    PetscCallCUSPARSE(cusparseDestroyCsrilu02Info(c->info));
    PetscCallCUSPARSE(cusparseDestroyMatDescr(c->descr));
    PetscCallCUSPARSE(cusparseDestroy(c->handle));
    PetscCall(MatSpmvCUDAFree(c->buffer));
    PetscCall(PetscFree(d->cusparse));
  }
  PetscCall(PetscMemzero(d, sizeof(*d)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a new launch number (flags equal to it are complete in this launch) and its grid */
static PetscErrorCode MatSpmvTriNextLaunch(MatSpmvTriDevice *d, cudaStream_t s, unsigned *blocks)
{
  PetscFunctionBegin;
  if (d->launch == INT_MAX) { /* after 2^31 launches: start the numbering again */
    PetscCallCUDA(cudaMemsetAsync(d->flags, 0, PetscMax(d->nunits, 1) * sizeof(int), s));
    d->launch = 0;
  }
  d->launch++;
  *blocks = (unsigned)((d->nunits + MATSPMV_TRI_WARPS - 1) / MATSPMV_TRI_WARPS);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the end of every numeric phase on the device: the units' block inverses from the factor's values,
   then (where zeropivotrow is given) the first zero pivot's row the phase left in d->status; returns
   when done */
static PetscErrorCode MatSpmvTriFinishNumeric(MatSpmvTriDevice *d, cudaStream_t s, PetscInt *zeropivotrow)
{
  unsigned row = 0xffffffffu;

  PetscFunctionBegin;
  MatSpmvUnitInverseKernel<PetscScalar, int><<<(unsigned)((d->nunits + 127) / 128), 128, 0, s>>>((int)d->n, (int)d->unit, (int)d->nunits, d->j, d->lin, d->uout, d->a, d->binv[0], d->binv[1]);
  PetscCallCUDA(cudaGetLastError());
  if (zeropivotrow) PetscCallCUDA(cudaMemcpyAsync(&row, d->status, sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  if (zeropivotrow && row != 0xffffffffu) *zeropivotrow = (PetscInt)row;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAILU(MatSpmvTriDevice *d, const PetscScalar *acsr, PetscReal zeropivot, PetscBool positive, PetscInt *zeropivotrow)
{
  cudaStream_t s;
  unsigned     blocks;

  PetscFunctionBegin;
  *zeropivotrow = -1;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&s));
  if (d->vmap) PetscCall(MatSpmvCUDAGather(d->nnz, d->vmap, acsr, d->a, (void *)s)); /* -1: fill, zero */
  else PetscCallCUDA(cudaMemcpyAsync(d->a, acsr, d->nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  PetscCallCUDA(cudaMemsetAsync(d->status, 0xff, sizeof(int), s));
  PetscCall(MatSpmvTriNextLaunch(d, s, &blocks));
  MatSpmvILUKernel<PetscScalar, int>
    <<<blocks, 32 * MATSPMV_TRI_WARPS, 0, s>>>((int)d->n, (int)d->unit, (int)d->nunits, d->order[0], d->i, d->j, d->diag, d->a, d->idiag, d->flags, d->counter, d->taken, d->launch, zeropivot, (bool)positive, (unsigned *)d->status);
  PetscCallCUDA(cudaGetLastError());
  d->taken += (unsigned long long)blocks * MATSPMV_TRI_WARPS;
  PetscCall(MatSpmvTriFinishNumeric(d, s, zeropivotrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* inverse pivots of a factor whose values are complete, and the first row whose pivot is at most zeropivot (MatSpmvPivotSize()) */
template <typename S, typename I>
__global__ void MatSpmvPivotKernel(I n, const I *__restrict__ diag, const S *__restrict__ a, S *__restrict__ idiag, PetscReal zeropivot, bool positive, unsigned *status)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    const S piv = a[diag[r]];

    if (MatSpmvPivotSize(piv, positive) <= zeropivot) atomicMin(status, (unsigned)r);
    idiag[r] = S(1) / piv;
  }
}

PetscErrorCode MatSpmvCUDAILUCuSPARSESetUp(MatSpmvTriDevice *d)
{
  MatSpmvCuSPARSEILU *c;
  cudaStream_t        s;
  int                 bytes;

  PetscFunctionBegin;
  if (d->cusparse || !d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!d->vmap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cuSPARSE's ILU(0) takes the matrix's own pattern");
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(PetscNew(&c));
  d->cusparse = c;
  PetscCallCUSPARSE(cusparseCreate(&c->handle));
  PetscCallCUSPARSE(cusparseSetStream(c->handle, s));
  PetscCallCUSPARSE(cusparseCreateMatDescr(&c->descr));
  PetscCallCUSPARSE(cusparseSetMatIndexBase(c->descr, CUSPARSE_INDEX_BASE_ZERO));
  PetscCallCUSPARSE(cusparseSetMatType(c->descr, CUSPARSE_MATRIX_TYPE_GENERAL));
  PetscCallCUSPARSE(cusparseCreateCsrilu02Info(&c->info));
  PetscCallCUSPARSE(MatSpmvCsrilu02(csrilu02_bufferSize)(c->handle, (int)d->n, (int)d->nnz, c->descr, (MatSpmvCuSPARSEScalar *)d->a, d->i, d->j, c->info, &bytes));
  PetscCall(MatSpmvCUDAMalloc(&c->buffer, (size_t)bytes));
  PetscCallCUSPARSE(MatSpmvCsrilu02(csrilu02_analysis)(c->handle, (int)d->n, (int)d->nnz, c->descr, (const MatSpmvCuSPARSEScalar *)d->a, d->i, d->j, c->info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, c->buffer));
  /* one factorization of zeros (its zero pivots are not looked at): cuSPARSE's kernels loaded now
     (CUDA loads modules at their first launch), not in the first numeric phase, whose time decides */
  PetscCallCUDA(cudaMemsetAsync(d->a, 0, d->nnz * sizeof(PetscScalar), s));
  PetscCallCUSPARSE(MatSpmvCsrilu02(csrilu02)(c->handle, (int)d->n, (int)d->nnz, c->descr, (MatSpmvCuSPARSEScalar *)d->a, d->i, d->j, c->info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, c->buffer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAILUCuSPARSE(MatSpmvTriDevice *d, const PetscScalar *acsr, PetscReal zeropivot, PetscBool positive, PetscInt *zeropivotrow)
{
  MatSpmvCuSPARSEILU *c;
  cudaStream_t        s;

  PetscFunctionBegin;
  *zeropivotrow = -1;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAILUCuSPARSESetUp(d));
  c = (MatSpmvCuSPARSEILU *)d->cusparse;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCallCUSPARSE(cusparseSetStream(c->handle, s));
  PetscCallCUDA(cudaMemcpyAsync(d->a, acsr, d->nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, s));
  PetscCallCUSPARSE(MatSpmvCsrilu02(csrilu02)(c->handle, (int)d->n, (int)d->nnz, c->descr, (MatSpmvCuSPARSEScalar *)d->a, d->i, d->j, c->info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, c->buffer));
  PetscCallCUDA(cudaMemsetAsync(d->status, 0xff, sizeof(int), s));
  MatSpmvPivotKernel<PetscScalar, int><<<(unsigned)PetscMin((d->n + 255) / 256, 4096), 256, 0, s>>>((int)d->n, d->diag, d->a, d->idiag, zeropivot, (bool)positive, (unsigned *)d->status);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvTriFinishNumeric(d, s, zeropivotrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDATriSetValues(MatSpmvTriDevice *d, const PetscScalar *a, const PetscScalar *idiag)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCallCUDA(cudaMemcpyAsync(d->a, a, d->nnz * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
  PetscCallCUDA(cudaMemcpyAsync(d->idiag, idiag, d->n * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
  PetscCall(MatSpmvTriFinishNumeric(d, s, NULL)); /* the host's values are overwritten by the next numeric phase */
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int Chunk>
static PetscErrorCode MatSpmvCUDATriSolveChunk(MatSpmvTriDevice *d, const PetscScalar *b, PetscScalar *x)
{
  cudaStream_t   s;
  const unsigned blocks = (unsigned)((d->nunits + MATSPMV_TRI_WARPS - 1) / MATSPMV_TRI_WARPS);
  const int      G      = MatSpmvTriLanesPerRow(d);

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  MatSpmvTriPendingKernel<PetscScalar><<<(unsigned)PetscMin((d->n + 255) / 256, 4096), 256, 0, s>>>((int)d->n, d->y, x);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvTriSolveKernel<PetscScalar, int, false, Chunk><<<blocks, 32 * MATSPMV_TRI_WARPS, 0, s>>>((int)d->n, (int)d->unit, (int)d->nunits, G, d->order[0], d->i, d->j, d->lin, d->uout, d->a, d->binv[0], b, d->y, d->counter, d->taken);
  PetscCallCUDA(cudaGetLastError());
  d->taken += (unsigned long long)blocks * MATSPMV_TRI_WARPS;
  MatSpmvTriSolveKernel<PetscScalar, int, true, Chunk><<<blocks, 32 * MATSPMV_TRI_WARPS, 0, s>>>((int)d->n, (int)d->unit, (int)d->nunits, G, d->order[1], d->i, d->j, d->lin, d->uout, d->a, d->binv[1], d->y, x, d->counter, d->taken);
  PetscCallCUDA(cudaGetLastError());
  d->taken += (unsigned long long)blocks * MATSPMV_TRI_WARPS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDATriSolve(MatSpmvTriDevice *d, const PetscScalar *b, PetscScalar *x)
{
  PetscFunctionBegin;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  if (d->chunk > 4) PetscCall(MatSpmvCUDATriSolveChunk<8>(d, b, x));
  else PetscCall(MatSpmvCUDATriSolveChunk<4>(d, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDATriSweeps(MatSpmvTriDevice *d, PetscInt sweeps, const PetscScalar *b, PetscScalar *x)
{
  cudaStream_t s;
  const int    G      = MatSpmvTriLanesPerRow(d);
  const auto   blocks = (unsigned)PetscMin((d->nunits + MATSPMV_TRI_WARPS - 1) / MATSPMV_TRI_WARPS, 1 << 20);

  PetscFunctionBegin;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&s));
  for (int upper = 0; upper < 2; upper++) {
    const PetscScalar *rhs = upper ? d->y : b, *in = NULL;
    PetscScalar       *result = upper ? x : d->y;

    for (PetscInt k = 0; k <= sweeps; k++) { /* the last sweep writes the result, the others alternate with t */
      PetscScalar *out = (sweeps - k) % 2 ? d->t : result;

      if (upper) MatSpmvTriSweepKernel<PetscScalar, int, true><<<blocks, 32 * MATSPMV_TRI_WARPS, 0, s>>>((int)d->n, (int)d->unit, (int)d->nunits, G, d->i, d->j, d->lin, d->uout, d->a, d->binv[1], rhs, in, out);
      else MatSpmvTriSweepKernel<PetscScalar, int, false><<<blocks, 32 * MATSPMV_TRI_WARPS, 0, s>>>((int)d->n, (int)d->unit, (int)d->nunits, G, d->i, d->j, d->lin, d->uout, d->a, d->binv[0], rhs, in, out);
      PetscCallCUDA(cudaGetLastError());
      in = out;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAISAISetUp(MatSpmvTriDevice *d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&s));
  if (!d->m) PetscCall(MatSpmvCUDAMalloc((void **)&d->m, d->nnz * sizeof(PetscScalar)));
  MatSpmvISAIKernel<PetscScalar, int><<<(unsigned)PetscMin((d->n + 127) / 128, 1 << 20), 128, 0, s>>>((int)d->n, d->i, d->j, d->diag, d->a, d->idiag, d->m);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAISAISolve(MatSpmvTriDevice *d, const PetscScalar *b, PetscScalar *x)
{
  cudaStream_t   s;
  const unsigned blocks = (unsigned)((8 * (size_t)d->n + 255) / 256);

  PetscFunctionBegin;
  if (!d->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&s));
  MatSpmvISAIApplyKernel<PetscScalar, int, false><<<blocks, 256, 0, s>>>((int)d->n, d->i, d->j, d->diag, d->m, b, d->y);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvISAIApplyKernel<PetscScalar, int, true><<<blocks, 256, 0, s>>>((int)d->n, d->i, d->j, d->diag, d->m, d->y, x);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  MATSOLVERSPMVFACTOR's numeric factorization on the device (see spmvfactorimpl.h): ILU(k) on the factor's
  pattern in one launch without level synchronization (the factorization's flags; values other warps
  wrote read through L2 with __ldcg: L1 is not coherent between SMs), cuSPARSE's csrilu02 as the other
  device numeric phase, the inverse pivots and the units' block inverses, ICC's map of values. The
  solves are trsv.cu's.
*/
#include "spmvfactorimpl.h"
#include "../spmvlayer/spmvsyncfree.h"

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

#define MATSPMV_ILU_ROW 128 /* rows of at most this many entries are factored in shared memory */

/* ILU on the factor's pattern (ILU(k): fill included), row by row in the IKJ order of a sequential factorization: for each L entry (k < r, in
   increasing k) l = a_rk / u_kk, then row r -= l * (row k of U), on the entries of r's pattern.
   A row that fits is held in the warp's shared memory while it is updated (columns and values:
   the search for each of row k's columns and the update stay on the SM; only row k is read
   through L2), after one wait for all the units its L entries point to; longer rows are updated
   in place through L2, waiting entry by entry. Holding rows in shared memory made the ICC
   factorization of KSP ex56 faster (docs/results.md,
   "ILU(0) and ICC(0) by MATSOLVERSPMVFACTOR next to cuSPARSE's"). */
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
  {
    const MatSpmvDeviceCSR pattern = {n, n, nnz, d_i, d_j, NULL};

    PetscCall(MatSpmvCUDATransposeCSR(&pattern, &ti, &tj, &tpos, stream));
  }
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

/* the factorization's kernels loaded (CUDA loads a kernel at its first launch): MatSpmvCUDATriCreate() calls
   this so that the first numeric phase, whose time decides where the next ones run, does not pay it */
PetscErrorCode MatSpmvCUDAILUPreload(void)
{
  cudaFuncAttributes attr;

  PetscFunctionBegin;
  PetscCallCUDA(cudaFuncGetAttributes(&attr, MatSpmvILUKernel<PetscScalar, int>));
  PetscCallCUDA(cudaFuncGetAttributes(&attr, MatSpmvUnitInverseKernel<PetscScalar, int>));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cuSPARSE's csrilu02 state of the factor, if any, freed */
PetscErrorCode MatSpmvCUDAILUCuSPARSEDestroy(MatSpmvTriDevice *d)
{
  PetscFunctionBegin;
  if (d->cusparse) {
    MatSpmvCuSPARSEILU *c = (MatSpmvCuSPARSEILU *)d->cusparse;

    PetscCallCUSPARSE(cusparseDestroyCsrilu02Info(c->info));
    PetscCallCUSPARSE(cusparseDestroyMatDescr(c->descr));
    PetscCallCUSPARSE(cusparseDestroy(c->handle));
    PetscCall(MatSpmvCUDAFree(c->buffer));
    PetscCall(PetscFree(d->cusparse));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

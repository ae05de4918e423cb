/*
  MATSOLVERSPMVFACTOR's triangular solves on the device (see spmvfactorimpl.h), each one launch without level
  synchronization (values other warps wrote read with relaxed device-scope atomics: L1 is not coherent
  between SMs), the block-Jacobi sweeps and ISAI's approximate inverses; the factor's device arrays made
  and freed. The numeric factorization is ilu.cu's.
*/
#include "spmvfactorimpl.h"
#include "../spmvlayer/spmvsyncfree.h"

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

PetscErrorCode MatSpmvCUDATriCreate(Mat_SpmvFactor *f, PetscInt n)
{
  MatSpmvTriDevice *d   = &f->d;
  const PetscInt    nnz = f->nnz, unit = f->unit;
  const PetscInt   *i = f->i, *j = f->j, *diag = f->diag, *lin = f->lin, *uout = f->uout, *vmap = f->vmap;
  const int        *d_ai = f->d_ai, *d_aj = f->d_aj;
  int             **d_vmap = &f->d_vmap;
  PetscInt *const  *order  = f->order;
  cudaStream_t      s;

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
  /* the factorization kernels loaded now (CUDA loads a kernel at its first launch), not in the first numeric phase, whose time decides where the next ones run */
  PetscCall(MatSpmvCUDAILUPreload());
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
  PetscCall(MatSpmvCUDAILUCuSPARSEDestroy(d));

  PetscCall(PetscMemzero(d, sizeof(*d)));
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

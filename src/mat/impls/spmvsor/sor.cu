/*
  The SOR sweeps' kernels (see spmvsorimpl.h): idiag from the device CSR, and one sweep a launch
  without level synchronization.
*/
#include "spmvsorimpl.h"
#include "../spmvlayer/spmvsyncfree.h"

#define MATSPMV_SOR_WARPS    4  /* warps per thread block */
#define MATSPMV_SOR_SLEEP_NS 32 /* between polls of a pending x value */

/* idiag_r = 1 / a_rr (omega 1, fshift <= 0: MatSOR_SeqAIJ() drops the shift there) or omega / (fshift + a_rr);
   *status: the first row whose diagonal is zero where the first form is taken, + 1 */
template <typename S, typename I>
__global__ void MatSpmvSORDiagonalKernel(I n, const I *__restrict__ ai, const I *__restrict__ aj, const S *__restrict__ a, PetscReal omega, PetscReal fshift, bool plain, S *__restrict__ idiag, int *status)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    const I p = MatSpmvFindColumn(aj, ai[r], ai[r + 1], r); /* present: checked by the plan */
    const S d = p >= 0 ? a[p] : S(0);

    if (plain) {
      if (d == S(0)) atomicMin(status, (int)r + 1);
      idiag[r] = S(1) / d;
    } else idiag[r] = S(omega) / (S(fshift) + d);
  }
}

#define MATSPMV_SOR_CHUNK 8 /* entries a lane loads before it waits on any */

/* One sweep over the units (Backward: from the last), xnew pending on entry, xold not read with a
   zero initial guess (Zero). G lanes per row. A lane loads its row's data and a chunk of its entries
   (columns, values, the old x of those on the other side) before it waits: on the chain of dependent
   units every load issued after a wait adds its latency to each level. Entries outside the unit on
   the swept side wait for their new x; those inside it (at most 2 a lane: columns are sorted, unit x
   G = 32, unit <= 8) are kept for the substitution, which runs over the unit's rows in order with the
   row sums reduced by shuffles. */
template <typename S, typename I, bool Backward, bool Zero>
__global__ void __launch_bounds__(32 * MATSPMV_SOR_WARPS) MatSpmvSORSweepKernel(I nunits, I G, const I *__restrict__ start, const I *__restrict__ order, const I *__restrict__ ai, const I *__restrict__ aj, const S *__restrict__ a, const S *__restrict__ idiag, PetscReal omega, const S *__restrict__ b, const S *__restrict__ xold, S *xnew, unsigned long long *counter, unsigned long long taken)
{
  const I u = MatSpmvTakeUnit(counter, taken, nunits, order);

  if (u < 0) return;
  const int  lane = threadIdx.x & 31;
  const I    r0 = start[u], r1 = start[u + 1], rows = r1 - r0, rr = lane / G, t = lane % G, r = r0 + rr;
  const bool active = rr < rows;
  const I    pe     = active ? ai[r + 1] : 0;
  const S    id = active ? idiag[r] : S(0), br = active ? b[r] : S(0), xo = active && !Zero ? xold[r] : S(0);
  S          e = S(0), kv0 = S(0), kv1 = S(0), acc = S(0), xr = S(0);
  I          kc0 = -1, kc1 = -1;

  for (I p0 = (active ? ai[r] : 0) + t; p0 < pe; p0 += G * MATSPMV_SOR_CHUNK) {
    I        c[MATSPMV_SOR_CHUNK];
    S        v[MATSPMV_SOR_CHUNK], xv[MATSPMV_SOR_CHUNK];
    unsigned waiting = 0; /* bit k: entry k's new x not seen yet */

    for (int k = 0; k < MATSPMV_SOR_CHUNK; k++) {
      const I p = p0 + k * G;

      c[k]  = p < pe ? aj[p] : r;
      v[k]  = p < pe ? a[p] : S(0);
      xv[k] = S(0);
    }
    for (int k = 0; k < MATSPMV_SOR_CHUNK; k++) {
      if (c[k] == r) v[k] = S(0); /* the diagonal, or past the row */
      else if (Backward ? c[k] > r : c[k] < r) {
        if (c[k] >= r0 && c[k] < r1) { /* inside the unit: substituted below */
          if (kc0 < 0) kc0 = c[k] - r0, kv0 = v[k];
          else kc1 = c[k] - r0, kv1 = v[k];
          v[k] = S(0);
        } else waiting |= 1u << k;
      } else if (Zero) v[k] = S(0);
      else xv[k] = xold[c[k]];
    }
    while (waiting) {
      for (int k = 0; k < MATSPMV_SOR_CHUNK; k++)
        if ((waiting >> k & 1) && MatSpmvLoadReady(xnew + c[k], xv[k])) waiting &= ~(1u << k);
      if (waiting) __nanosleep(MATSPMV_SOR_SLEEP_NS);
    }
    for (int k = 0; k < MATSPMV_SOR_CHUNK; k++) e += v[k] * xv[k];
  }
  for (I off = G / 2; off > 0; off /= 2) e += MatSpmvShflXor(e, (int)off);
  const S base = S(1.0 - omega) * xo + id * (br - e);

  for (I s = 0; s < rows; s++) { /* row k's x is final once the rows it depends on inside the unit are */
    const I k   = Backward ? rows - 1 - s : s;
    S       sum = acc, xk;

    for (I off = G / 2; off > 0; off /= 2) sum += MatSpmvShflXor(sum, (int)off);
    xk = MatSpmvShfl(base - id * sum, (int)(k * G));
    if (rr == k) xr = xk;
    if (kc0 == k) acc += kv0 * xk;
    if (kc1 == k) acc += kv1 * xk;
  }
  if (active && t == 0) MatSpmvStoreReady(xnew + r, xr);
}

size_t MatSpmvCUDASORBytes(void)
{
  return sizeof(Mat_SpmvSOR);
}

PetscErrorCode MatSpmvCUDASORCreate(Mat_SpmvSOR *sor, const PetscInt *start, const PetscInt *forder, const PetscInt *border)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAUploadInt(&sor->start, start, sor->nunits + 1));
  PetscCall(MatSpmvCUDAUploadInt(&sor->order[0], forder, sor->nunits));
  PetscCall(MatSpmvCUDAUploadInt(&sor->order[1], border, sor->nunits));
  PetscCall(MatSpmvCUDAMalloc((void **)&sor->idiag, PetscMax(sor->n, 1) * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAMalloc((void **)&sor->work, PetscMax(sor->n, 1) * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAMalloc((void **)&sor->status, sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc(&sor->counter, sizeof(unsigned long long)));
  PetscCallCUDA(cudaMemset(sor->counter, 0, sizeof(unsigned long long)));
  sor->taken = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDASORDestroy(Mat_SpmvSOR *sor)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    PetscCall(MatSpmvCUDAFree(sor->order[k]));
    PetscCall(MatSpmvCUDAFree(sor->stage[k]));
    sor->order[k] = NULL;
    sor->stage[k] = NULL;
  }
  PetscCall(MatSpmvCUDAFree(sor->start));
  PetscCall(MatSpmvCUDAFree(sor->idiag));
  PetscCall(MatSpmvCUDAFree(sor->work));
  PetscCall(MatSpmvCUDAFree(sor->status));
  PetscCall(MatSpmvCUDAFree(sor->counter));
  sor->start = NULL;
  sor->idiag = sor->work = NULL;
  sor->status            = NULL;
  sor->counter           = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDASORDiagonal(Mat_SpmvSOR *sor, const MatSpmvDeviceCSR *A, PetscReal omega, PetscReal fshift, PetscInt *zerorow, void *stream)
{
  const int         *d_i = A->i, *d_j = A->j;
  const PetscScalar *d_a   = A->a;
  cudaStream_t       s     = (cudaStream_t)stream;
  const bool         plain = omega == 1.0 && fshift <= 0.0;
  int                status;

  PetscFunctionBegin;
  *zerorow = -1;
  if (!sor->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaMemsetAsync(sor->status, 0x7f, sizeof(int), s)); /* larger than any row + 1 */
  MatSpmvSORDiagonalKernel<PetscScalar, int><<<MatSpmvGrid(sor->n), MATSPMV_THREADS, 0, s>>>((int)sor->n, d_i, d_j, d_a, omega, fshift, plain, sor->idiag, sor->status);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvCUDACopyToHost(&status, sor->status, sizeof(int), stream)); /* waits for the kernel */
  if (status != 0x7f7f7f7f) *zerorow = status - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <bool Backward, bool Zero>
static PetscErrorCode MatSpmvSORLaunch(Mat_SpmvSOR *sor, const int *d_i, const int *d_j, const PetscScalar *d_a, PetscReal omega, const PetscScalar *b, const PetscScalar *xold, PetscScalar *xnew, cudaStream_t s)
{
  const unsigned blocks = (unsigned)((sor->nunits + MATSPMV_SOR_WARPS - 1) / MATSPMV_SOR_WARPS);
  const int      G      = 32 / (int)sor->unit;

  PetscFunctionBegin;
  MatSpmvSORSweepKernel<PetscScalar, int, Backward, Zero>
    <<<blocks, 32 * MATSPMV_SOR_WARPS, 0, s>>>((int)sor->nunits, G, sor->start, sor->order[Backward ? 1 : 0], d_i, d_j, d_a, sor->idiag, omega, b, xold, xnew, (unsigned long long *)sor->counter, sor->taken);
  PetscCallCUDA(cudaGetLastError());
  sor->taken += (unsigned long long)blocks * MATSPMV_SOR_WARPS; /* every warp takes one count */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDASORSweep(Mat_SpmvSOR *sor, const MatSpmvDeviceCSR *A, PetscBool backward, const PetscScalar *b, const PetscScalar *xold, PetscScalar *xnew, void *stream)
{
  const int         *d_i = A->i, *d_j = A->j;
  const PetscScalar *d_a   = A->a;
  const PetscReal    omega = sor->omega;
  cudaStream_t       s     = (cudaStream_t)stream;

  PetscFunctionBegin;
  if (!sor->n) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvPendingKernel<PetscScalar><<<(unsigned)PetscMin((sor->n + 255) / 256, 4096), 256, 0, s>>>((int)sor->n, xnew);
  PetscCallCUDA(cudaGetLastError());
  if (backward) {
    if (xold) PetscCall(MatSpmvSORLaunch<true, false>(sor, d_i, d_j, d_a, omega, b, xold, xnew, s));
    else PetscCall(MatSpmvSORLaunch<true, true>(sor, d_i, d_j, d_a, omega, b, xold, xnew, s));
  } else {
    if (xold) PetscCall(MatSpmvSORLaunch<false, false>(sor, d_i, d_j, d_a, omega, b, xold, xnew, s));
    else PetscCall(MatSpmvSORLaunch<false, true>(sor, d_i, d_j, d_a, omega, b, xold, xnew, s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

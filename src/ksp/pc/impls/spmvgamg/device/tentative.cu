/*
  GAMG's tentative prolongator P0 on the device: the host reference's (tentative.c) QR
  per aggregate, one warp per aggregate. The scalar steps are the shared ones of tentativeqr.h (the
  reflector's norm and sign on lane 0, in LAPACK's order); the steps whose results do not depend on
  how they are spread are spread over the lanes: lane c sums column c's w = C^T v (serially, in
  LAPACK's order), the lanes share the rows of the rank-1 updates, loads and stores. So each entry
  gets the same operations as on the host, and the same bits.

  The aggregate's block (rows padded to at least ncols) lives in shared memory, a slab per warp,
  when the largest block fits 48 KB; otherwise in a global scratch array, where each aggregate's
  place follows from aggptr alone (no scan). Either is read and written by the warp's lanes only,
  ordered by __syncwarp().
*/
#include "../spmvgamgimpl.h"
#include "../tentativeqr.h"
#include "../../../../../mat/impls/spmvlayer/spmvbase.h"
#include "../../../../../mat/impls/spmvlayer/spmvkernels.h"
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#if !defined(PETSC_USE_COMPLEX) /* PETSc's near-null data are real; complex scalars take PETSc's prolongator */

  #define MATSPMVGAMG_FULL_WARP 0xffffffffu

template <typename I>
__device__ __forceinline__ I MatSpmvGAMGWarpMax(I v)
{
  for (int off = 16; off > 0; off >>= 1) {
    const I o = __shfl_xor_sync(MATSPMVGAMG_FULL_WARP, v, off);

    v = o > v ? o : v;
  }
  return v;
}

/* The host's MatSpmvGAMGQRLarfLeft() by a warp: c = (I - tau v v^T) c, c m x n (n <= 32, leading
   dimension ld), v = (1, v[1], ..., v[m-1]); the same rows and columns skipped. Every lane calls it
   with the same arguments (tau is uniform) */
template <typename I>
__device__ void MatSpmvGAMGWarpLarfLeft(I m, I n, const PetscReal *v, PetscReal tau, PetscReal *c, I ld, int lane)
{
  I         lastv = 0, lastc, nz = 0;
  PetscReal w = 0;

  if (tau == 0) return;
  for (I i = lane; i < m; i += 32)
    if (i == 0 || v[i] != 0) lastv = i + 1;
  lastv = MatSpmvGAMGWarpMax(lastv);
  if (lane < n)
    for (I i = 0; i < lastv && !nz; i++) nz = c[i + lane * ld] != 0;
  lastc = MatSpmvGAMGWarpMax(nz ? (I)lane + 1 : I(0));
  if (lane < lastc) {
    PetscReal t = 0;

    for (I i = 0; i < lastv; i++) t = MatSpmvGAMGQRAdd(t, MatSpmvGAMGQRMul(c[i + lane * ld], i ? v[i] : 1));
    w = MatSpmvGAMGQRAdd(0, t);
  }
  __syncwarp(); /* every lane has read c before any lane writes it */
  for (I j = 0; j < lastc; j++) {
    const PetscReal wj = __shfl_sync(MATSPMVGAMG_FULL_WARP, w, (int)j);

    if (wj != 0) {
      const PetscReal t = MatSpmvGAMGQRMul(-tau, wj);

      for (I i = lane; i < lastv; i += 32) c[i + j * ld] = MatSpmvGAMGQRAdd(c[i + j * ld], MatSpmvGAMGQRMul(i ? v[i] : 1, t));
    }
  }
  __syncwarp();
}

/* A warp per aggregate a: its block W (md x n, column-major), QR as dgeqr2, R into cdata, Q as
   dorg2r, Q's first m rows into P0's rows of the members. With scratch NULL W is the warp's slab of
   slab reals in shared memory; otherwise W is at scratch + (aggptr[a] bs + a n) n. J: the
   aggregates' index type (the coarsening's PetscInt), I: P0's (aijcusparse's int) */
template <typename J, typename I>
__global__ void MatSpmvGAMGTentativeKernel(I nagg, I bs, I n, I ldd, const PetscReal *__restrict__ data, const J *__restrict__ aggptr, const J *__restrict__ members, const I *__restrict__ pi, I *__restrict__ pj, PetscScalar *__restrict__ pv, PetscReal *__restrict__ cdata, PetscReal *scratch, I slab)
{
  extern __shared__ __align__(16) unsigned char MatSpmvGAMGTentativeShared[];
  const int                                     lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;

  for (I a = (I)blockIdx.x * warps + warp; a < nagg; a += (I)gridDim.x * warps) { /* the same a in every lane */
    const I    first = (I)aggptr[a], m = ((I)aggptr[a + 1] - first) * bs, md = m > n ? m : n;
    PetscReal *W     = scratch ? scratch + ((size_t)first * bs + (size_t)a * n) * n : reinterpret_cast<PetscReal *>(MatSpmvGAMGTentativeShared) + (size_t)warp * slab;
    PetscReal  mytau = 0; /* lane k keeps reflector k's tau */

    for (I i = lane; i < md; i += 32) {
      if (i < m) {
        const size_t at = (size_t)members[first + i / bs] * bs + i % bs;

        for (I k = 0; k < n; k++) W[i + k * md] = data[(size_t)k * ldd + at];
      } else
        for (I k = 0; k < n; k++) W[i + k * md] = 0;
    }
    __syncwarp();
    for (I j = 0; j < n; j++) {
      PetscReal t = 0;

      if (lane == 0) MatSpmvGAMGQRLarfg(md - j, &W[j + j * md], &W[j + 1 + j * md], &t);
      t = __shfl_sync(MATSPMVGAMG_FULL_WARP, t, 0);
      if (lane == j) mytau = t;
      __syncwarp(); /* lane 0's reflector before the other lanes read it */
      if (j + 1 < n) MatSpmvGAMGWarpLarfLeft(md - j, n - j - 1, &W[j + j * md], t, &W[j + (j + 1) * md], md, lane);
    }
    for (I e = lane; e < n * n; e += 32) {
      const I i = e % n, j = e / n;

      cdata[(size_t)j * nagg * n + (size_t)a * n + i] = i <= j ? W[i + j * md] : 0;
    }
    __syncwarp(); /* R read before dorg2r overwrites it */
    for (I i = n - 1; i >= 0; i--) {
      const PetscReal t = __shfl_sync(MATSPMVGAMG_FULL_WARP, mytau, (int)i);

      if (i + 1 < n) MatSpmvGAMGWarpLarfLeft(md - i, n - i - 1, &W[i + i * md], t, &W[i + (i + 1) * md], md, lane);
      for (I r = lane; r < md; r += 32) W[r + i * md] = r > i ? MatSpmvGAMGQRMul(-t, W[r + i * md]) : (r == i ? 1 - t : 0);
      __syncwarp();
    }
    for (I i = lane; i < m; i += 32) {
      const I off = pi[(I)members[first + i / bs] * bs + i % bs];

      for (I k = 0; k < n; k++) {
        pj[off + k] = a * n + k;
        pv[off + k] = W[i + k * md];
      }
    }
    __syncwarp(); /* the slab is read before the next aggregate's block overwrites it */
  }
}

/* a row's entries in P0: n where its node is in an aggregate; 0 past the last row (the scan's total) */
template <typename J, typename I>
struct MatSpmvGAMGRowLength {
  const J *agg;
  I        bs, n, rows;

  __host__ __device__ I operator()(I row) const { return row < rows && agg[row / bs] >= 0 ? n : I(0); }
};

template <typename J, typename I>
struct MatSpmvGAMGAggregateSize {
  const J *aggptr;

  __host__ __device__ I operator()(I a) const { return (I)(aggptr[a + 1] - aggptr[a]); }
};

PetscErrorCode MatSpmvGAMGTentativeDevice(const MatSpmvGAMGNearNull *B, const MatSpmvGAMGMembers *aggs, const MatSpmvGAMGP0Device *P0, void *stream)
{
  const PetscInt   nloc = B->nloc, bs = B->bs, ncols = B->ncols, nagg = aggs->nagg;
  const PetscReal *d_data = B->data;
  const PetscInt  *d_agg = aggs->agg, *d_aggptr = aggs->aggptr, *d_members = aggs->members;
  int             *d_pi = P0->pi, *d_pj = P0->pj;
  PetscScalar     *d_pv    = P0->pv;
  PetscReal       *d_cdata = P0->cdata;
  const size_t     shmax   = 48 * 1024; /* shared memory a block gets without opting in */
  cudaStream_t     s;
  int              largest = 0, warps = 8;
  PetscReal       *scratch = NULL;
  size_t           slab;

  PetscFunctionBegin;
  PetscCheck(ncols >= 1 && ncols <= MATSPMVGAMG_DEVICE_MAX_COLS, PETSC_COMM_SELF, PETSC_ERR_SUP, "The device tentative prolongator takes 1 to %d near-null vectors (a lane each), not %" PetscInt_FMT ": use PETSc's prolongator", MATSPMVGAMG_DEVICE_MAX_COLS, ncols);
  PetscCheck(bs >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block size %" PetscInt_FMT " is not positive", bs);
  PetscCheck((PetscInt64)nloc * bs * ncols < PETSC_INT32_MAX && (PetscInt64)nagg * ncols * ncols < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The device tentative prolongator has 32-bit indices (aijcusparse's): %" PetscInt_FMT " rows of %" PetscInt_FMT " entries are too many, use PETSc's prolongator", nloc * bs, ncols);
  if (!stream) PetscCall(MatSpmvCUDAGetStream(&stream));
  s = (cudaStream_t)stream;
  {
    const int rows    = (int)(nloc * bs);
    auto      lengths = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), MatSpmvGAMGRowLength<PetscInt, int>{d_agg, (int)bs, (int)ncols, rows});

    MatSpmvCallThrust(thrust::exclusive_scan(thrust::cuda::par.on(s), lengths, lengths + rows + 1, d_pi));
  }
  if (!nagg) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvCallThrust(largest = thrust::transform_reduce(thrust::cuda::par.on(s), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)nagg), MatSpmvGAMGAggregateSize<PetscInt, int>{d_aggptr}, 0, thrust::maximum<int>()));
  slab = (size_t)PetscMax(largest * bs, ncols) * ncols;
  while (warps > 1 && warps * slab * sizeof(PetscReal) > shmax) warps /= 2;
  if (slab * sizeof(PetscReal) > shmax) { /* too large for shared memory: a global block per aggregate */
    PetscInt nmembers;

    PetscCall(MatSpmvCUDACopyToHost(&nmembers, d_aggptr + nagg, sizeof(PetscInt), stream));
    PetscCall(MatSpmvCUDAMalloc((void **)&scratch, ((size_t)nmembers * bs + (size_t)nagg * ncols) * ncols * sizeof(PetscReal)));
    warps = 8;
  }
  MatSpmvGAMGTentativeKernel<PetscInt, int><<<(unsigned)PetscMin((nagg + warps - 1) / warps, 65536), 32 * warps, scratch ? 0 : warps * slab * sizeof(PetscReal), s>>>((int)nagg, (int)bs, (int)ncols, (int)(nloc * bs), d_data, d_aggptr, d_members, d_pi, d_pj, d_pv, d_cdata, scratch, (int)slab);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvCUDAFree(scratch)); /* cudaFree waits for the kernel */
  PetscFunctionReturn(PETSC_SUCCESS);
}

#else

PetscErrorCode MatSpmvGAMGTentativeDevice(const MatSpmvGAMGNearNull *B, const MatSpmvGAMGMembers *aggs, const MatSpmvGAMGP0Device *P0, void *stream)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "The device tentative prolongator is for real scalars: with complex ones use PETSc's prolongator");
}

#endif

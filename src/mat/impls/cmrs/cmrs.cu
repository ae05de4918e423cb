/*
  CMRS CUDA kernels.

  Basic: a group of lanes (the paper: the whole warp) per strip. Each lane walks the strip's
  entries with the group's stride (coalesced) and keeps a partial sum per row of the strip in
  registers; a butterfly of shuffles then sums each row over the group and lane r writes row r.

  Modified (the paper's section 6.7): a warp per strip, whose entries the build arranged in
  rounds of 32 where lanes equal modulo M never share a row. Lane l adds into partial sum
  (l mod M, row) of the warp's M x height buffer in shared memory without conflicts inside a
  round; __syncwarp() orders the rounds (the paper relied on implicit warp synchrony).
*/
#include "cmrsimpl.h"
#include "../spmvlayer/spmvkernels.h"

template <typename V, int H, int LANES, bool PACKED>
__global__ void __launch_bounds__(256) MatCMRSMultKernel(int nstrips, int m, const int *__restrict__ stripptr, const int *__restrict__ colind, const int *__restrict__ rowinstrip, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y)
{
  /* a group of `lanes` threads (a power of two, at most 32) per strip, 32 / lanes strips per warp;
     the whole warp runs the same number of rounds so the full-mask shuffles are always legal */
  constexpr int lanes   = LANES;
  const int     lane    = threadIdx.x & (lanes - 1);
  const int     groups  = 32 / lanes;
  const int     warp    = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int     nwarps  = (gridDim.x * blockDim.x) >> 5;
  const int     ingroup = (threadIdx.x & 31) / lanes;

  for (int s0 = warp * groups; s0 < nstrips; s0 += nwarps * groups) {
    const int s = s0 + ingroup;
    V         acc[H];

#pragma unroll
    for (int k = 0; k < H; k++) acc[k] = V(0);
    if (s < nstrips) {
      const int end = stripptr[s + 1];

      for (int j = stripptr[s] + lane; j < end; j += lanes) {
        int c = MatSpmvLoadStream(&colind[j]), r;

        if (PACKED) {
          r = c & (MATCMRS_MAX_HEIGHT - 1);
          c >>= MATCMRS_BITS;
        } else r = MatSpmvLoadStream(&rowinstrip[j]);
        const V prod = MatSpmvLoadStream(&val[j]) * x[c];
#pragma unroll
        for (int k = 0; k < H; k++) /* a register per row: no local memory */
          if (r == k) acc[k] += prod;
      }
    }
    V mine = V(0);
#pragma unroll
    for (int k = 0; k < H; k++) {
      V v = acc[k];
#pragma unroll
      for (int off = lanes >> 1; off > 0; off >>= 1) v += MatSpmvShflXor(v, off); /* stays inside the group */
      if (lane == k) mine = v;
    }
    const int row = s * H + lane;
    mine *= alpha;
    if (s < nstrips && lane < H && row < m) y[row] = z ? z[row] + mine : mine;
  }
}

template <typename V, int M, bool PACKED>
__global__ void __launch_bounds__(128) MatCMRSMultModifiedKernel(int nstrips, int h, int m, const int *__restrict__ stripptr, const int *__restrict__ colind, const int *__restrict__ rowinstrip, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y)
{
  extern __shared__ __align__(16) unsigned char smem[];
  const int                                     stride = h + 1; /* one spare partial sum per lane class keeps the classes on different banks */
  V                                            *buf    = reinterpret_cast<V *>(smem) + (threadIdx.x >> 5) * M * stride;
  const int                                     lane   = threadIdx.x & 31;
  const int                                     nwarps = (gridDim.x * blockDim.x) >> 5;
  V                                            *mine   = buf + (lane % M) * stride;

  for (int s = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; s < nstrips; s += nwarps) {
    for (int k = lane; k < M * stride; k += 32) buf[k] = V(0);
    __syncwarp();
    const int end = stripptr[s + 1];
    for (int j = stripptr[s] + lane; j < end; j += 32) { /* whole rounds: every lane reaches the __syncwarp() */
      int c = MatSpmvLoadStream(&colind[j]), r;

      if (PACKED) {
        r = c & (MATCMRS_MAX_HEIGHT - 1);
        c >>= MATCMRS_BITS;
      } else r = MatSpmvLoadStream(&rowinstrip[j]);
      mine[r] += MatSpmvLoadStream(&val[j]) * x[c];
      __syncwarp();
    }
    const int row = s * h + lane;
    if (lane < h && row < m) {
      V sum = V(0);
#pragma unroll
      for (int k = 0; k < M; k++) sum += buf[k * stride + lane];
      sum *= alpha;
      y[row] = z ? z[row] + sum : sum;
    }
    __syncwarp(); /* the buffer is cleared for the next strip */
  }
}

PetscErrorCode MatSpmvFormatUpload_CMRS(MatSpmvLayout L)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAUploadInt(&cm->d_stripptr, cm->stripptr, cm->nstrips + 1));
  PetscCall(MatSpmvCUDAUploadInt(&cm->d_colind, cm->colind, L->nslots));
  if (!cm->packed) PetscCall(MatSpmvCUDAUploadInt(&cm->d_rowinstrip, cm->rowinstrip, L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int H, int LANES>
static void MatCMRSLaunchLanes(const MatCMRSLayout *cm, const MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, cudaStream_t s)
{
  const int      threads = 256;
  const PetscInt nthr    = (cm->nstrips + 32 / LANES - 1) / (32 / LANES) * 32;
  const int      blocks  = (int)PetscMin((nthr + threads - 1) / threads, 65536 * 8);

  if (cm->packed) MatCMRSMultKernel<PetscScalar, H, LANES, true><<<blocks, threads, 0, s>>>((int)cm->nstrips, (int)L->m, cm->d_stripptr, cm->d_colind, NULL, L->d_val, L->scale, x, z, y);
  else MatCMRSMultKernel<PetscScalar, H, LANES, false><<<blocks, threads, 0, s>>>((int)cm->nstrips, (int)L->m, cm->d_stripptr, cm->d_colind, cm->d_rowinstrip, L->d_val, L->scale, x, z, y);
}

template <int M>
static void MatCMRSLaunchModified(const MatCMRSLayout *cm, const MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, cudaStream_t s)
{
  const int    threads = 128, warps = threads / 32; /* the paper's block size */
  const int    blocks = (int)PetscMin((cm->nstrips + warps - 1) / warps, 65536 * 8);
  const size_t shared = sizeof(PetscScalar) * warps * M * (cm->height + 1);

  if (cm->packed) MatCMRSMultModifiedKernel<PetscScalar, M, true><<<blocks, threads, shared, s>>>((int)cm->nstrips, (int)cm->height, (int)L->m, cm->d_stripptr, cm->d_colind, NULL, L->d_val, L->scale, x, z, y);
  else MatCMRSMultModifiedKernel<PetscScalar, M, false><<<blocks, threads, shared, s>>>((int)cm->nstrips, (int)cm->height, (int)L->m, cm->d_stripptr, cm->d_colind, cm->d_rowinstrip, L->d_val, L->scale, x, z, y);
}

/* lanes is a power of two from 4 to 32 and at least H (the build makes sure) */
template <int H>
static void MatCMRSLaunch(const MatCMRSLayout *cm, const MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, cudaStream_t s)
{
  if (cm->lanes == 4 && H <= 4) MatCMRSLaunchLanes<H, (H <= 4 ? 4 : 32)>(cm, L, x, z, y, s);
  else if (cm->lanes == 8 && H <= 8) MatCMRSLaunchLanes<H, (H <= 8 ? 8 : 32)>(cm, L, x, z, y, s);
  else if (cm->lanes == 16) MatCMRSLaunchLanes<H, 16>(cm, L, x, z, y, s);
  else MatCMRSLaunchLanes<H, 32>(cm, L, x, z, y, s);
}

PetscErrorCode MatSpmvFormatMultDevice_CMRS(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;
  cudaStream_t   s  = (cudaStream_t)stream;

  PetscFunctionBegin;
  if (!cm->nstrips) PetscFunctionReturn(PETSC_SUCCESS);
  if (cm->kernel == MAT_CMRS_KERNEL_MODIFIED) {
    switch (cm->modulo) {
#define MATCMRS_CASE(M) \
  case M: \
    MatCMRSLaunchModified<M>(cm, L, x, z, y, s); \
    break;
      MATCMRS_CASE(2)
      MATCMRS_CASE(4)
      MATCMRS_CASE(8)
      MATCMRS_CASE(16)
      MATCMRS_CASE(32)
#undef MATCMRS_CASE
    default:
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CMRS modulo %" PetscInt_FMT " must be 2, 4, 8, 16 or 32", cm->modulo);
    }
    PetscCallCUDA(cudaGetLastError());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (cm->height) { /* the height is a compile-time constant of the kernel: its partial sums live in registers */
#define MATCMRS_CASE(H) \
  case H: \
    MatCMRSLaunch<H>(cm, L, x, z, y, s); \
    break;
    MATCMRS_CASE(1)
    MATCMRS_CASE(2)
    MATCMRS_CASE(3)
    MATCMRS_CASE(4)
    MATCMRS_CASE(5)
    MATCMRS_CASE(6)
    MATCMRS_CASE(7)
    MATCMRS_CASE(8)
    MATCMRS_CASE(9)
    MATCMRS_CASE(10)
    MATCMRS_CASE(11)
    MATCMRS_CASE(12)
    MATCMRS_CASE(13)
    MATCMRS_CASE(14)
    MATCMRS_CASE(15)
    MATCMRS_CASE(16)
#undef MATCMRS_CASE
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CMRS strip height %" PetscInt_FMT " must be from 1 to %d", cm->height, MATCMRS_MAX_HEIGHT);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- The layout built on the device: one thread per strip runs the host build's strip routine ---- */

#include <thrust/scan.h>
#include <thrust/transform_reduce.h>
#include <thrust/functional.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#define MATCMRS_QUAL    __device__ static inline
#define MATCMRS_IDX     int
#define MATCMRS_IDX_MAX INT_MAX
#define MATCMRS_MIN     min
#include "cmrsstrip.h"

struct MatCMRSRowDev2 { /* (row length - mean)^2 */
  const int                 *ai;
  double                     mu;
  __host__ __device__ double operator()(int r) const
  {
    double d = (ai[r + 1] - ai[r]) - mu;
    return d * d;
  }
};

/* slots of each strip (cnt[nstrips] = 0 for the exclusive scan), or the strips laid out */
__global__ void MatCMRSStripsKernel(MatCMRSStripArgs a, int nstrips, int *__restrict__ cnt, const int *__restrict__ stripptr)
{
  for (int s = blockIdx.x * blockDim.x + threadIdx.x; s <= nstrips; s += gridDim.x * blockDim.x) {
    if (stripptr) {
      if (s < nstrips) (void)MatCMRSStrip(&a, s, stripptr[s]);
    } else if (s == nstrips) cnt[s] = 0;
    else if (a.kernel == MAT_CMRS_KERNEL_BASIC) cnt[s] = a.ai[min((s + 1) * a.height, a.m)] - a.ai[s * a.height];
    else cnt[s] = MatCMRSStrip(&a, s, 0);
  }
}

PetscErrorCode MatSpmvFormatBuildDevice_CMRS(const void *params, const MatSpmvCSR *pattern, const int *ai, const int *aj, MatSpmvLayout L, void *stream)
{
  const PetscInt       m = pattern->m, n = pattern->n, nnz = pattern->nnz;
  const MatCMRSParams *p = (const MatCMRSParams *)params;
  cudaStream_t         s = (cudaStream_t)stream;
  MatCMRSLayout       *cm;
  MatCMRSStripArgs     a;
  int                  nslots, grid;

  PetscFunctionBegin;
  PetscCall(PetscNew(&cm));
  L->fmt    = cm;
  cm->mu    = m ? (PetscReal)nnz / m : 0;
  cm->sigma = 0;
  if (m) MatSpmvCallThrust(cm->sigma = PetscSqrtReal(thrust::transform_reduce(thrust::cuda::par.on(s), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>((int)m), MatCMRSRowDev2{ai, (double)cm->mu}, 0.0, thrust::plus<double>()) / m));
  PetscCall(MatCMRSChoose(p, m, n, nnz, cm));
  a    = {(int)cm->kernel, (int)cm->sorted, (int)cm->packed, (int)cm->height, (int)cm->modulo, (int)m, ai, aj, NULL, NULL, NULL};
  grid = (int)PetscMax(1, PetscMin((cm->nstrips + 1 + 127) / 128, 65536));

  PetscCall(MatSpmvCUDAMalloc((void **)&cm->d_stripptr, (cm->nstrips + 1) * sizeof(int)));
  MatCMRSStripsKernel<<<grid, 128, 0, s>>>(a, (int)cm->nstrips, cm->d_stripptr, NULL);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvCallThrust(thrust::exclusive_scan(thrust::cuda::par.on(s), cm->d_stripptr, cm->d_stripptr + cm->nstrips + 1, cm->d_stripptr));
  PetscCallCUDA(cudaMemcpyAsync(&nslots, cm->d_stripptr + cm->nstrips, sizeof(int), cudaMemcpyDeviceToHost, s)); /* the size, to allocate */
  PetscCallCUDA(cudaStreamSynchronize(s));
  L->nslots = nslots;
  PetscCall(MatSpmvCUDAMalloc((void **)&cm->d_colind, (size_t)nslots * sizeof(int)));
  if (!cm->packed) PetscCall(MatSpmvCUDAMalloc((void **)&cm->d_rowinstrip, (size_t)nslots * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&L->d_slot2csr, (size_t)nslots * sizeof(int)));
  a.colind     = cm->d_colind;
  a.rowinstrip = cm->d_rowinstrip;
  a.slot2csr   = L->d_slot2csr;
  if (cm->nstrips) {
    MatCMRSStripsKernel<<<grid, 128, 0, s>>>(a, (int)cm->nstrips, NULL, cm->d_stripptr);
    PetscCallCUDA(cudaGetLastError());
  }
  L->indexbytes = sizeof(int) * (cm->nstrips + 1 + (size_t)nslots * (cm->packed ? 1 : 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatDownload_CMRS(MatSpmvLayout L)
{
  MatCMRSLayout *cm = (MatCMRSLayout *)L->fmt;

  PetscFunctionBegin;
  if (!cm->stripptr) PetscCall(MatSpmvCUDADownloadInt(&cm->stripptr, cm->d_stripptr, cm->nstrips + 1));
  if (!cm->colind) PetscCall(MatSpmvCUDADownloadInt(&cm->colind, cm->d_colind, L->nslots));
  if (!cm->packed && !cm->rowinstrip) PetscCall(MatSpmvCUDADownloadInt(&cm->rowinstrip, cm->d_rowinstrip, L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MATSPMV_DEVICE_KERNEL(CMRS, MatCMRSStripsKernel)

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
#include "../aijspmv/aijspmvcuda.h"

template <typename V, int H, int LANES, bool PACKED>
__global__ void __launch_bounds__(256) MatCMRSMultKernel(int nstrips, int m, const int *__restrict__ stripptr, const int *__restrict__ colind, const int *__restrict__ rowinstrip, const V *__restrict__ val, const V *__restrict__ x, const V *z, V *y)
{
  /* a group of `lanes` threads (a power of two, at most 32) per strip, 32 / lanes strips per warp;
     the whole warp runs the same number of rounds so the full-mask shuffles are always legal */
  constexpr int lanes = LANES;
  const int     lane   = threadIdx.x & (lanes - 1);
  const int     groups = 32 / lanes;
  const int warp    = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int nwarps  = (gridDim.x * blockDim.x) >> 5;
  const int ingroup = (threadIdx.x & 31) / lanes;

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
    if (s < nstrips && lane < H && row < m) y[row] = z ? z[row] + mine : mine;
  }
}

template <typename V, int M, bool PACKED>
__global__ void __launch_bounds__(128) MatCMRSMultModifiedKernel(int nstrips, int h, int m, const int *__restrict__ stripptr, const int *__restrict__ colind, const int *__restrict__ rowinstrip, const V *__restrict__ val, const V *__restrict__ x, const V *z, V *y)
{
  extern __shared__ __align__(16) unsigned char smem[];
  const int stride = h + 1; /* one spare partial sum per lane class keeps the classes on different banks */
  V        *buf    = reinterpret_cast<V *>(smem) + (threadIdx.x >> 5) * M * stride;
  const int lane   = threadIdx.x & 31;
  const int nwarps = (gridDim.x * blockDim.x) >> 5;
  V        *mine   = buf + (lane % M) * stride;

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
      y[row] = z ? z[row] + sum : sum;
    }
    __syncwarp(); /* the buffer is cleared for the next strip */
  }
}

PetscErrorCode MatUpload_CMRS(MatSpmvLayout L)
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

  if (cm->packed) MatCMRSMultKernel<PetscScalar, H, LANES, true><<<blocks, threads, 0, s>>>((int)cm->nstrips, (int)L->m, cm->d_stripptr, cm->d_colind, NULL, L->d_val, x, z, y);
  else MatCMRSMultKernel<PetscScalar, H, LANES, false><<<blocks, threads, 0, s>>>((int)cm->nstrips, (int)L->m, cm->d_stripptr, cm->d_colind, cm->d_rowinstrip, L->d_val, x, z, y);
}

template <int M>
static void MatCMRSLaunchModified(const MatCMRSLayout *cm, const MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, cudaStream_t s)
{
  const int    threads = 128, warps = threads / 32; /* the paper's block size */
  const int    blocks  = (int)PetscMin((cm->nstrips + warps - 1) / warps, 65536 * 8);
  const size_t shared  = sizeof(PetscScalar) * warps * M * (cm->height + 1);

  if (cm->packed) MatCMRSMultModifiedKernel<PetscScalar, M, true><<<blocks, threads, shared, s>>>((int)cm->nstrips, (int)cm->height, (int)L->m, cm->d_stripptr, cm->d_colind, NULL, L->d_val, x, z, y);
  else MatCMRSMultModifiedKernel<PetscScalar, M, false><<<blocks, threads, shared, s>>>((int)cm->nstrips, (int)cm->height, (int)L->m, cm->d_stripptr, cm->d_colind, cm->d_rowinstrip, L->d_val, x, z, y);
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

PetscErrorCode MatMultDevice_CMRS(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
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
      MATCMRS_CASE(2) MATCMRS_CASE(4) MATCMRS_CASE(8) MATCMRS_CASE(16) MATCMRS_CASE(32)
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
    MATCMRS_CASE(1) MATCMRS_CASE(2) MATCMRS_CASE(3) MATCMRS_CASE(4) MATCMRS_CASE(5) MATCMRS_CASE(6) MATCMRS_CASE(7) MATCMRS_CASE(8)
    MATCMRS_CASE(9) MATCMRS_CASE(10) MATCMRS_CASE(11) MATCMRS_CASE(12) MATCMRS_CASE(13) MATCMRS_CASE(14) MATCMRS_CASE(15) MATCMRS_CASE(16)
#undef MATCMRS_CASE
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CMRS strip height %" PetscInt_FMT " must be from 1 to %d", cm->height, MATCMRS_MAX_HEIGHT);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

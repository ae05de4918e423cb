/*
  BRC CUDA kernels. One thread per row of a block: the B1 threads of a block read B1 consecutive
  slots per column, so value and index loads are coalesced, and all threads of a block run the
  same trip count T. Rows split over blocks are pre-set to z (or 0) by a first launch, then summed
  with atomics; every other row is written once, with no atomics.
*/
#include "brcimpl.h"
#include "../aijspmv/aijspmvcuda.h"

template <typename V, typename I>
__global__ void MatBRCInitKernel(I ninit, const I *__restrict__ rows, const V *__restrict__ z, V *__restrict__ y)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < ninit; k += gridDim.x * blockDim.x) {
    I r  = rows[k];
    y[r] = z ? z[r] : V(0);
  }
}

/* Each thread handles lane (tid % b1) of blocks tid / b1, + stride, ...: with coarsening fewer
   threads are launched and each goes through several blocks. z may alias y. B1 > 0 fixes the
   block height at compile time (shifts instead of divisions); B1 = 0 takes it from b1. */
template <typename V, typename I, int B1>
__global__ void __launch_bounds__(256) MatBRCMultKernel(I nblocks, I b1_, const I *__restrict__ blockoff, const I *__restrict__ rowidx, const I *__restrict__ col, const V *__restrict__ val, const V *__restrict__ x, const V *z, V *y)
{
  const I b1     = B1 > 0 ? (I)B1 : b1_;
  const I tid    = blockIdx.x * blockDim.x + threadIdx.x;
  const I lane   = tid % b1;
  const I stride = (gridDim.x * blockDim.x) / b1;

  for (I b = tid / b1; b < nblocks; b += stride) {
    const I off = blockoff[b], T = (blockoff[b + 1] - off) / b1;
    const I dst = rowidx[b * b1 + lane];
    V       sum = V(0);

#pragma unroll 4
    for (I j = 0; j < T; j++) {
      const I s = off + j * b1 + lane;
      sum += MatSpmvLoadStream(&val[s]) * x[MatSpmvLoadStream(&col[s])];
    }
    if (dst >= 0) y[dst] = z ? z[dst] + sum : sum;
    else if (dst < -1) MatSpmvAtomicAdd(&y[-dst - 2], sum);
  }
}

PetscErrorCode MatUpload_BRC(MatSpmvLayout L)
{
  MatBRCLayout *brc = (MatBRCLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAUploadInt(&brc->d_blockoff, brc->blockoff, brc->nblocks + 1));
  PetscCall(MatSpmvCUDAUploadInt(&brc->d_rowidx, brc->rowidx, brc->nblocks * brc->b1));
  PetscCall(MatSpmvCUDAUploadInt(&brc->d_col, brc->col, L->nslots));
  PetscCall(MatSpmvCUDAUploadInt(&brc->d_initrows, brc->initrows, brc->ninit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultDevice_BRC(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
{
  MatBRCLayout *brc     = (MatBRCLayout *)L->fmt;
  cudaStream_t  s       = (cudaStream_t)stream;
  const int     threads = 256;

  PetscFunctionBegin;
  if (brc->ninit) {
    int blocks = (int)PetscMin((brc->ninit + threads - 1) / threads, 65536);
    MatBRCInitKernel<PetscScalar, int><<<blocks, threads, 0, s>>>((int)brc->ninit, brc->d_initrows, z, y);
    PetscCallCUDA(cudaGetLastError());
  }
  if (brc->nblocks) {
    /* threads of one BRC block must not straddle two thread blocks: 256 is a multiple of b1 */
    PetscInt groups = (brc->nblocks + brc->rep - 1) / brc->rep;
    PetscInt nthr   = groups * brc->b1;
    int      blocks = (int)PetscMin((nthr + threads - 1) / threads, PETSC_INT32_MAX / threads);

    if (brc->b1 == 32) MatBRCMultKernel<PetscScalar, int, 32><<<blocks, threads, 0, s>>>((int)brc->nblocks, 32, brc->d_blockoff, brc->d_rowidx, brc->d_col, L->d_val, x, z, y);
    else MatBRCMultKernel<PetscScalar, int, 0><<<blocks, threads, 0, s>>>((int)brc->nblocks, (int)brc->b1, brc->d_blockoff, brc->d_rowidx, brc->d_col, L->d_val, x, z, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

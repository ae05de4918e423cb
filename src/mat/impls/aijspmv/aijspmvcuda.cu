/*
  Device services of the shared layer: memory, copies on PETSc's current stream, and the value
  refresh (a gather from the CSR values into the format's slots).
*/
#include "aijspmvimpl.h"
#include <petscdevice_cuda.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

PetscErrorCode MatSpmvCUDAAvailable(PetscBool *avail)
{
  static int ndevices = -1; /* the answer does not change during a run */

  PetscFunctionBegin;
  if (ndevices < 0) {
    /* no driver, a stub driver or no device all mean: no GPU, not an error */
    if (cudaGetDeviceCount(&ndevices) != cudaSuccess) ndevices = 0;
    (void)cudaGetLastError();
  }
  *avail = ndevices > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAGetStream(void **stream)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  *stream = (void *)s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAMalloc(void **ptr, size_t bytes)
{
  PetscFunctionBegin;
  *ptr = NULL;
  if (bytes) PetscCallCUDA(cudaMalloc(ptr, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAFree(void *ptr)
{
  PetscFunctionBegin;
  if (ptr) PetscCallCUDA(cudaFree(ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACopyToDevice(void *dst, const void *src, size_t bytes, void *stream)
{
  PetscFunctionBegin;
  if (bytes) PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACopyToHost(void *dst, const void *src, size_t bytes, void *stream)
{
  PetscFunctionBegin;
  if (bytes) {
    PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream));
    PetscCallCUDA(cudaStreamSynchronize((cudaStream_t)stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAUpload(void **dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAMalloc(dst, bytes));
  if (bytes) PetscCallCUDA(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename V, typename I>
__global__ void MatSpmvGatherKernel(I nslots, const I *__restrict__ slot2csr, const V *__restrict__ csrval, V *__restrict__ val)
{
  for (I s = blockIdx.x * blockDim.x + threadIdx.x; s < nslots; s += gridDim.x * blockDim.x) {
    I k    = slot2csr[s];
    val[s] = k >= 0 ? csrval[k] : V(0);
  }
}

PetscErrorCode MatSpmvCUDAGather(PetscInt nslots, const int *slot2csr, const PetscScalar *csrval, PetscScalar *val, void *stream)
{
  PetscFunctionBegin;
  if (nslots) {
    const int threads = 256;
    const int blocks  = (int)PetscMin((nslots + threads - 1) / threads, 65536);

    MatSpmvGatherKernel<PetscScalar, int><<<blocks, threads, 0, (cudaStream_t)stream>>>((int)nslots, slot2csr, csrval, val);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename V, typename I>
__global__ void MatSpmvAddRowsKernel(I n, const I *__restrict__ crow, const V *__restrict__ t, V *__restrict__ y)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) y[crow[k]] += t[k];
}

PetscErrorCode MatSpmvCUDAAddRows(PetscInt n, const int *crow, const PetscScalar *t, PetscScalar *y, void *stream)
{
  PetscFunctionBegin;
  if (n) {
    const int threads = 256;
    const int blocks  = (int)PetscMin((n + threads - 1) / threads, 65536);

    MatSpmvAddRowsKernel<PetscScalar, int><<<blocks, threads, 0, (cudaStream_t)stream>>>((int)n, crow, t, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAZero(PetscScalar *y, PetscInt n, void *stream)
{
  PetscFunctionBegin;
  if (n) PetscCallCUDA(cudaMemsetAsync(y, 0, n * sizeof(PetscScalar), (cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDASynchronize(void *stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaStreamSynchronize((cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACopyOnDevice(void *dst, const void *src, size_t bytes, void *stream)
{
  PetscFunctionBegin;
  if (bytes && dst != src) PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAIsIdentity(PetscInt n, const int *slot2csr, PetscBool *identity, void *stream)
{
  PetscFunctionBegin;
  *identity = n ? (PetscBool)thrust::equal(thrust::cuda::par.on((cudaStream_t)stream), slot2csr, slot2csr + n, thrust::counting_iterator<int>(0)) : PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDADownloadInt(PetscInt **h, const int *d, PetscInt n)
{
  int *tmp;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, h));
  PetscCall(PetscMalloc1(n, &tmp));
  if (n) PetscCallCUDA(cudaMemcpy(tmp, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (PetscInt k = 0; k < n; k++) (*h)[k] = tmp[k];
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

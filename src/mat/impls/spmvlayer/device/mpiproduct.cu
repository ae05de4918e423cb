/*
  Device services of the MPI products on the device (types/mpiproduct.c): a process's rows of an MPI
  matrix merged into one CSR with global columns (the diagonal block's then the off-diagonal block's,
  row by row), its values gathered again at each numeric phase, and a CSR's entries as COO (global
  rows, its columns as they are) for the device COO assembly. PETSc's MPIAIJBACKEND does the same on
  the host (MatMPIAIJGetLocalMatMerge(), its COO loops).
*/
#include "../spmvimpl.h"
#include "../spmvkernels.h"
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

/* each row's length in the merged CSR */
template <typename I>
__global__ void MatSpmvMergeLengthsKernel(I m, const I *__restrict__ di, const I *__restrict__ oi, I *__restrict__ len)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) len[r] = (di[r + 1] - di[r]) + (oi ? oi[r + 1] - oi[r] : 0);
}

/* row r's entries: the diagonal block's (columns + cstart), then the off-diagonal block's (garray's);
   src[k] says where entry k's value is: p >= 0 the diagonal block's value p, else the off-diagonal
   block's -1 - p */
template <typename I>
__global__ void MatSpmvMergeFillKernel(I m, const I *__restrict__ di, const I *__restrict__ dj, const I *__restrict__ oi, const I *__restrict__ oj, const I *__restrict__ garray, I cstart, const I *__restrict__ mi, I *__restrict__ mj, I *__restrict__ src)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    I q = mi[r];

    for (I p = di[r]; p < di[r + 1]; p++, q++) {
      mj[q]  = dj[p] + cstart;
      src[q] = p;
    }
    if (oi)
      for (I p = oi[r]; p < oi[r + 1]; p++, q++) {
        mj[q]  = garray[oj[p]];
        src[q] = -1 - p;
      }
  }
}

template <typename S, typename I>
__global__ void MatSpmvMergeValuesKernel(I n, const I *__restrict__ src, const S *__restrict__ da, const S *__restrict__ oa, S *__restrict__ ma)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    const I p = src[k];

    ma[k] = p >= 0 ? da[p] : oa[-1 - p];
  }
}

template <typename I>
__global__ void MatSpmvCSRToCOOKernel(I m, const I *__restrict__ ci, const I *__restrict__ cj, I rstart, I *__restrict__ rows, I *__restrict__ cols)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x)
    for (I p = ci[r]; p < ci[r + 1]; p++) {
      rows[p] = rstart + r;
      cols[p] = cj[p];
    }
}

PetscErrorCode MatSpmvCUDAMergeRows(const MatSpmvDeviceCSR *d, const MatSpmvDeviceCSR *o, const int *garray, PetscInt cstart, MatSpmvMergedRows *mr, void *stream)
{
  cudaStream_t s   = (cudaStream_t)stream;
  auto         pol = thrust::cuda::par.on(s);
  const int    m   = (int)d->m;
  int          nnz = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(mr, sizeof(*mr)));
  mr->m = m;
  PetscCall(MatSpmvCUDAMalloc((void **)&mr->i, sizeof(int) * (size_t)(m + 1)));
  PetscCallCUDA(cudaMemsetAsync(mr->i + m, 0, sizeof(int), s));
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvMergeLengthsKernel<int><<<MatSpmvGrid(m), MATSPMV_THREADS, 0, s>>>(m, d->i, o ? o->i : NULL, mr->i);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvCallThrust(thrust::exclusive_scan(pol, thrust::device_ptr<int>(mr->i), thrust::device_ptr<int>(mr->i + m + 1), thrust::device_ptr<int>(mr->i)));
  PetscCall(MatSpmvCUDACopyToHost(&nnz, mr->i + m, sizeof(int), stream));
  mr->nnz = nnz;
  PetscCall(MatSpmvCUDAMalloc((void **)&mr->j, sizeof(int) * (size_t)PetscMax(mr->nnz, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&mr->src, sizeof(int) * (size_t)PetscMax(mr->nnz, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&mr->a, sizeof(PetscScalar) * (size_t)PetscMax(mr->nnz, 1)));
  MatSpmvMergeFillKernel<int><<<MatSpmvGrid(m), MATSPMV_THREADS, 0, s>>>(m, d->i, d->j, o ? o->i : NULL, o ? o->j : NULL, garray, (int)cstart, mr->i, mr->j, mr->src);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAMergeValues(MatSpmvMergedRows *mr, const PetscScalar *da, const PetscScalar *oa, void *stream)
{
  PetscFunctionBegin;
  if (!mr->nnz) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvMergeValuesKernel<PetscScalar, int><<<MatSpmvGrid(mr->nnz), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((int)mr->nnz, mr->src, da, oa, mr->a);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAMergedRowsDestroy(MatSpmvMergedRows *mr)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAFree(mr->i));
  PetscCall(MatSpmvCUDAFree(mr->j));
  PetscCall(MatSpmvCUDAFree(mr->src));
  PetscCall(MatSpmvCUDAFree(mr->a));
  PetscCall(PetscMemzero(mr, sizeof(*mr)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACSRToCOO(const MatSpmvDeviceCSR *c, PetscInt rstart, int *rows, int *cols, void *stream)
{
  PetscFunctionBegin;
  if (!c->m || !c->nnz) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvCSRToCOOKernel<int><<<MatSpmvGrid(c->m), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((int)c->m, c->i, c->j, (int)rstart, rows, cols);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Device kernels of the COO assembly of MPI product results (types/coo.c): a process's entries
  (local rows, global columns, repeated) sorted by row and column with CUB's radix sort, the repeats
  merged, the distinct entries split into the diagonal block's CSR (local columns) and the off-diagonal
  block's (global columns); then, at each assembly of values, one kernel sums each distinct entry's
  repeats into its block's values. MPIAIJ's MatSetPreallocationCOO() does the sort on the host, and
  MatSetUpMultiply_MPIAIJ() the ghost map (the off-diagonal block's distinct columns, its columns
  rewritten to places among them) with a host hash: here both are made on the device.
*/
#include "../spmvimpl.h"
#include "../spmvkernels.h"
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/unique.h>
#include <cub/device/device_radix_sort.cuh>

/* entry k's key: its local row above its global column (both nonnegative, the column below 2^31); *outside
   set where an entry is not in rows rstart..rstart+m-1 and columns 0..N-1 (every writer writes 1) */
template <typename I>
__global__ void MatSpmvCOOKeysKernel(I n, const I *__restrict__ ci, const I *__restrict__ cj, I rstart, I m, I N, unsigned long long *__restrict__ key, I *__restrict__ perm, int *__restrict__ outside)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    const I r = ci[k] - rstart, c = cj[k];

    if (r < 0 || r >= m || c < 0 || c >= N) *outside = 1;
    key[k]  = ((unsigned long long)(unsigned)r << 32) | (unsigned long long)(unsigned)c;
    perm[k] = k;
  }
}

/* head[k] = 1 where the sorted entry k starts a distinct entry */
template <typename I>
__global__ void MatSpmvCOOHeadsKernel(I n, const unsigned long long *__restrict__ key, I *__restrict__ head)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) head[k] = (k == 0 || key[k] != key[k - 1]) ? 1 : 0;
}

/* each distinct entry u (uid[k] at its first sorted entry k): where its repeats start, its row and
   column, and whether it is in the diagonal block */
template <typename I>
__global__ void MatSpmvCOODistinctKernel(I n, const unsigned long long *__restrict__ key, const I *__restrict__ head, const I *__restrict__ uid, I cstart, I cend, I *__restrict__ jmap, I *__restrict__ urow, I *__restrict__ ucol, I *__restrict__ udiag)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    if (head[k]) {
      const I u = uid[k], c = (I)(key[k] & 0xffffffffull);

      jmap[u]  = k;
      urow[u]  = (I)(key[k] >> 32);
      ucol[u]  = c;
      udiag[u] = (cstart <= c && c < cend) ? 1 : 0;
    }
  }
}

/* distinct entry u to its block: the diagonal block's position dpos[u] (local column) or the
   off-diagonal block's u - dpos[u] (global column), encoded in target as p or -1 - p */
template <typename I>
__global__ void MatSpmvCOOSplitKernel(I nu, const I *__restrict__ urow, const I *__restrict__ ucol, const I *__restrict__ udiag, const I *__restrict__ dpos, I cstart, I *__restrict__ target, I *__restrict__ drow, I *__restrict__ dj, I *__restrict__ orow, I *__restrict__ oj)
{
  for (I u = blockIdx.x * blockDim.x + threadIdx.x; u < nu; u += gridDim.x * blockDim.x) {
    const I d = dpos[u];

    if (udiag[u]) {
      target[u] = d;
      drow[d]   = urow[u];
      dj[d]     = ucol[u] - cstart;
    } else {
      const I o = u - d;

      target[u] = -1 - o;
      orow[o]   = urow[u];
      oj[o]     = ucol[u];
    }
  }
}

/* the values: each distinct entry the sum of its repeats, inserted or added into its block */
template <typename S, typename I>
__global__ void MatSpmvCOOValuesKernel(I nu, const I *__restrict__ jmap, const I *__restrict__ perm, const I *__restrict__ target, const S *__restrict__ v, bool add, S *__restrict__ da, S *__restrict__ oa)
{
  for (I u = blockIdx.x * blockDim.x + threadIdx.x; u < nu; u += gridDim.x * blockDim.x) {
    const I t = target[u];
    S       s = S(0);
    S      *a = t >= 0 ? da + t : oa + (-1 - t);

    for (I k = jmap[u]; k < jmap[u + 1]; k++) s += v[perm[k]];
    *a = add ? *a + s : s;
  }
}

PetscErrorCode MatSpmvCUDACOOBuild(const MatSpmvCOOEntries *e, MatSpmvCOODevice *coo, PetscBool *inrange, void *stream)
{
  cudaStream_t        s   = (cudaStream_t)stream;
  auto                pol = thrust::cuda::par.on(s);
  const int           n = (int)e->n, m = (int)e->m;
  int                *ci, *cj, *perm, *head, *uid, *urow, *ucol, *udiag, *dpos, *drow, *orow, nu = 0, nd = 0, last[2] = {0, 0}, *outside, bad = 0;
  unsigned long long *key;
  int                 rowbits = 1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(coo, sizeof(*coo)));
  *inrange = PETSC_TRUE;
  coo->m   = m;
  coo->n   = n;
  if (n) { /* the keys, and whether every entry is in range (the check on the device: no host pass over the entries) */
    PetscCall(MatSpmvCUDAMalloc((void **)&outside, sizeof(int)));
    if (e->device) { /* read where they are */
      ci = (int *)e->i;
      cj = (int *)e->j;
    } else {
      PetscCall(MatSpmvCUDAMalloc((void **)&ci, sizeof(int) * (size_t)n));
      PetscCall(MatSpmvCUDAMalloc((void **)&cj, sizeof(int) * (size_t)n));
      PetscCall(MatSpmvCUDACopyToDevice(ci, e->i, sizeof(int) * (size_t)n, stream));
      PetscCall(MatSpmvCUDACopyToDevice(cj, e->j, sizeof(int) * (size_t)n, stream));
      PetscCall(PetscLogCpuToGpu(2.0 * sizeof(int) * n));
    }
    PetscCallCUDA(cudaMemsetAsync(outside, 0, sizeof(int), s));
    PetscCall(MatSpmvCUDAMalloc((void **)&key, sizeof(unsigned long long) * (size_t)n));
    PetscCall(MatSpmvCUDAMalloc((void **)&perm, sizeof(int) * (size_t)n));
    MatSpmvCOOKeysKernel<int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, s>>>(n, ci, cj, (int)e->rstart, m, (int)e->N, key, perm, outside);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(MatSpmvCUDACopyToHost(&bad, outside, sizeof(int), stream));
    PetscCall(MatSpmvCUDAFree(outside));
    if (!e->device) PetscCall(MatSpmvCUDAFree(ci));
    if (!e->device) PetscCall(MatSpmvCUDAFree(cj));
    if (bad) {
      *inrange = PETSC_FALSE;
      PetscCall(MatSpmvCUDAFree(key));
      PetscCall(MatSpmvCUDAFree(perm));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatSpmvCUDAMalloc((void **)&coo->di, sizeof(int) * (size_t)(m + 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&coo->oi, sizeof(int) * (size_t)(m + 1)));
  if (!n) {
    PetscCallCUDA(cudaMemsetAsync(coo->di, 0, sizeof(int) * (size_t)(m + 1), s));
    PetscCallCUDA(cudaMemsetAsync(coo->oi, 0, sizeof(int) * (size_t)(m + 1), s));
    PetscCall(MatSpmvCUDAMalloc((void **)&coo->jmap, sizeof(int)));
    PetscCallCUDA(cudaMemsetAsync(coo->jmap, 0, sizeof(int), s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* sorted by row, then column: only the bits a local row needs above the column's 32 */
  while (rowbits < 31 && ((m - 1) >> rowbits)) rowbits++;
  {
    unsigned long long *k2;
    int                *p2;
    void               *tmp   = NULL;
    size_t              bytes = 0;
    char               *work;
    const size_t        koff = ((sizeof(unsigned long long) * (size_t)n + 255) / 256) * 256, poff = koff + ((sizeof(int) * (size_t)n + 255) / 256) * 256;

    cub::DoubleBuffer<unsigned long long> kb(key, NULL);
    cub::DoubleBuffer<int>                vb(perm, NULL);

    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, kb, vb, n, 0, 32 + rowbits, s));
    PetscCall(MatSpmvCUDAMalloc((void **)&work, poff + bytes));
    k2  = (unsigned long long *)work;
    p2  = (int *)(work + koff);
    tmp = (void *)(work + poff);
    kb  = cub::DoubleBuffer<unsigned long long>(key, k2);
    vb  = cub::DoubleBuffer<int>(perm, p2);
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, kb, vb, n, 0, 32 + rowbits, s));
    if (kb.Current() != key) PetscCallCUDA(cudaMemcpyAsync(key, kb.Current(), sizeof(unsigned long long) * (size_t)n, cudaMemcpyDeviceToDevice, s));
    if (vb.Current() != perm) PetscCallCUDA(cudaMemcpyAsync(perm, vb.Current(), sizeof(int) * (size_t)n, cudaMemcpyDeviceToDevice, s));
    PetscCall(MatSpmvCUDAFree(work));
  }
  coo->perm = perm;
  /* the distinct entries */
  PetscCall(MatSpmvCUDAMalloc((void **)&head, sizeof(int) * (size_t)n));
  PetscCall(MatSpmvCUDAMalloc((void **)&uid, sizeof(int) * (size_t)n));
  MatSpmvCOOHeadsKernel<int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, s>>>(n, key, head);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvCallThrust(thrust::exclusive_scan(pol, thrust::device_ptr<int>(head), thrust::device_ptr<int>(head + n), thrust::device_ptr<int>(uid)));
  PetscCall(MatSpmvCUDACopyToHost(&last[0], uid + n - 1, sizeof(int), stream));
  PetscCall(MatSpmvCUDACopyToHost(&last[1], head + n - 1, sizeof(int), stream));
  nu = last[0] + last[1];
  PetscCall(MatSpmvCUDAMalloc((void **)&coo->jmap, sizeof(int) * (size_t)(nu + 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&urow, sizeof(int) * (size_t)nu));
  PetscCall(MatSpmvCUDAMalloc((void **)&ucol, sizeof(int) * (size_t)nu));
  PetscCall(MatSpmvCUDAMalloc((void **)&udiag, sizeof(int) * (size_t)nu));
  MatSpmvCOODistinctKernel<int><<<MatSpmvGrid(n), MATSPMV_THREADS, 0, s>>>(n, key, head, uid, (int)e->cstart, (int)e->cend, coo->jmap, urow, ucol, udiag);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSpmvCUDACopyToDevice(coo->jmap + nu, &n, sizeof(int), stream));
  PetscCall(MatSpmvCUDAFree(head));
  PetscCall(MatSpmvCUDAFree(uid));
  PetscCall(MatSpmvCUDAFree(key));
  /* split between the blocks, each in the sorted order: rows ascending, columns ascending in a row */
  PetscCall(MatSpmvCUDAMalloc((void **)&dpos, sizeof(int) * (size_t)nu));
  MatSpmvCallThrust(thrust::exclusive_scan(pol, thrust::device_ptr<int>(udiag), thrust::device_ptr<int>(udiag + nu), thrust::device_ptr<int>(dpos)));
  PetscCall(MatSpmvCUDACopyToHost(&last[0], dpos + nu - 1, sizeof(int), stream));
  PetscCall(MatSpmvCUDACopyToHost(&last[1], udiag + nu - 1, sizeof(int), stream));
  nd      = last[0] + last[1];
  coo->nu = nu;
  coo->nd = nd;
  coo->no = nu - nd;
  PetscCall(MatSpmvCUDAMalloc((void **)&coo->target, sizeof(int) * (size_t)nu));
  PetscCall(MatSpmvCUDAMalloc((void **)&drow, sizeof(int) * (size_t)PetscMax(nd, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&coo->dj, sizeof(int) * (size_t)PetscMax(nd, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&orow, sizeof(int) * (size_t)PetscMax(nu - nd, 1)));
  PetscCall(MatSpmvCUDAMalloc((void **)&coo->oj, sizeof(int) * (size_t)PetscMax(nu - nd, 1)));
  MatSpmvCOOSplitKernel<int><<<MatSpmvGrid(nu), MATSPMV_THREADS, 0, s>>>(nu, urow, ucol, udiag, dpos, (int)e->cstart, coo->target, drow, coo->dj, orow, coo->oj);
  PetscCallCUDA(cudaGetLastError());
  /* each block's row starts: the first of its entries in the row or after */
  MatSpmvCallThrust(thrust::lower_bound(pol, thrust::device_ptr<int>(drow), thrust::device_ptr<int>(drow + nd), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m + 1), thrust::device_ptr<int>(coo->di)));
  MatSpmvCallThrust(thrust::lower_bound(pol, thrust::device_ptr<int>(orow), thrust::device_ptr<int>(orow + (nu - nd)), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(m + 1), thrust::device_ptr<int>(coo->oi)));
  PetscCall(MatSpmvCUDAGhostMap(nu - nd, coo->oj, &coo->garray, &coo->ng, stream));
  PetscCall(MatSpmvCUDAFree(dpos));
  PetscCall(MatSpmvCUDAFree(drow));
  PetscCall(MatSpmvCUDAFree(orow));
  PetscCall(MatSpmvCUDAFree(urow));
  PetscCall(MatSpmvCUDAFree(ucol));
  PetscCall(MatSpmvCUDAFree(udiag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAGhostMap(PetscInt nnz, int *cols, int **garray, PetscInt *ng, void *stream)
{
  auto pol = thrust::cuda::par.on((cudaStream_t)stream);
  int *g, *place, n = 0;

  PetscFunctionBegin;
  *garray = NULL;
  *ng     = 0;
  if (!nnz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSpmvCUDAMalloc((void **)&g, sizeof(int) * (size_t)nnz));
  PetscCall(MatSpmvCUDAMalloc((void **)&place, sizeof(int) * (size_t)nnz));
  PetscCallCUDA(cudaMemcpyAsync(g, cols, sizeof(int) * (size_t)nnz, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
  MatSpmvCallThrust(thrust::sort(pol, thrust::device_ptr<int>(g), thrust::device_ptr<int>(g + nnz)); n = (int)(thrust::unique(pol, thrust::device_ptr<int>(g), thrust::device_ptr<int>(g + nnz)) - thrust::device_ptr<int>(g)));
  MatSpmvCallThrust(thrust::lower_bound(pol, thrust::device_ptr<int>(g), thrust::device_ptr<int>(g + n), thrust::device_ptr<int>(cols), thrust::device_ptr<int>(cols + nnz), thrust::device_ptr<int>(place)));
  PetscCallCUDA(cudaMemcpyAsync(cols, place, sizeof(int) * (size_t)nnz, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
  PetscCall(MatSpmvCUDAFree(place));
  *garray = g; /* nnz long, n used */
  *ng     = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block CSRs are the matrix's now: the device copies go */
PetscErrorCode MatSpmvCUDACOOFreePattern(MatSpmvCOODevice *coo)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAFree(coo->di));
  PetscCall(MatSpmvCUDAFree(coo->dj));
  PetscCall(MatSpmvCUDAFree(coo->oi));
  PetscCall(MatSpmvCUDAFree(coo->oj));
  PetscCall(MatSpmvCUDAFree(coo->garray));
  coo->di = coo->dj = coo->oi = coo->oj = coo->garray = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACOODestroy(MatSpmvCOODevice *coo)
{
  PetscFunctionBegin;
  PetscCall(MatSpmvCUDACOOFreePattern(coo));
  PetscCall(MatSpmvCUDAFree(coo->jmap));
  PetscCall(MatSpmvCUDAFree(coo->perm));
  PetscCall(MatSpmvCUDAFree(coo->target));
  coo->jmap = coo->perm = coo->target = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDACOOValues(const MatSpmvCOODevice *coo, const PetscScalar *v, PetscBool add, PetscScalar *da, PetscScalar *oa, void *stream)
{
  PetscFunctionBegin;
  if (!coo->nu) PetscFunctionReturn(PETSC_SUCCESS);
  MatSpmvCOOValuesKernel<PetscScalar, int><<<MatSpmvGrid(coo->nu), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((int)coo->nu, coo->jmap, coo->perm, coo->target, v, (bool)add, da, oa);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

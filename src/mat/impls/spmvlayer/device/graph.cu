/*
  Device kernels of the scalar graph GAMG coarsens (graph.c): a square CSR's absolute values, its
  transpose added (the union of the two patterns), scaled by the diagonal. PETSc makes the same graph
  on the host (MatCreateGraph_Simple_AIJ): a copy, a transpose, a sum of different patterns.
*/
#include "../spmvimpl.h"
#include "../spmvkernels.h"
#include <thrust/binary_search.h>
#include <thrust/reduce.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <cub/device/device_radix_sort.cuh>

#if !defined(PETSC_USE_COMPLEX) /* a graph's weights are real: complex scalars take PETSc's graph */

template <typename V>
__device__ __forceinline__ V MatSpmvGraphValue(V v, bool absval)
{
  return absval ? (v < V(0) ? -v : v) : v;
}

/* Row r of A + T: the merge of A's row r (columns aj, values av) and T's (columns tj, values av at
   positions tpos), both sorted. With gj NULL only the length is counted (into gi[r]). A thread per
   row: a graph's rows are short, and the merge is sequential in each row. */
template <typename V, typename I>
__global__ void MatSpmvGraphMergeKernel(I m, const I *__restrict__ ai, const I *__restrict__ aj, const I *__restrict__ ti, const I *__restrict__ tj, const I *__restrict__ tpos, const V *__restrict__ av, bool absval, I *__restrict__ gi, I *__restrict__ gj, V *__restrict__ gv)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    I a = ai[r], ae = ai[r + 1], t = ti[r], te = ti[r + 1], g = gj ? gi[r] : 0;

    while (a < ae || t < te) {
      const I ca = a < ae ? aj[a] : I(-1), ct = t < te ? tj[t] : I(-1);
      I       c;
      V       v = V(0);

      if (ct < 0 || (ca >= 0 && ca <= ct)) {
        c = ca;
        if (gj) v = MatSpmvGraphValue(av[a], absval);
        a++;
        if (ct == ca) {
          if (gj) v += MatSpmvGraphValue(av[tpos[t]], absval);
          t++;
        }
      } else {
        c = ct;
        if (gj) v = MatSpmvGraphValue(av[tpos[t]], absval);
        t++;
      }
      if (gj) {
        gj[g] = c;
        gv[g] = v;
      }
      g++;
    }
    if (!gj) gi[r] = g;
  }
}

/* s[r] = |g(r, r)|^(-1/2), 0 where the diagonal entry is zero or missing (VecReciprocal() keeps 0) */
template <typename V, typename I>
__global__ void MatSpmvGraphScalesKernel(I m, const I *__restrict__ gi, const I *__restrict__ gj, const V *__restrict__ gv, V *__restrict__ s)
{
  for (I r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    const I at = MatSpmvFindColumn(gj, gi[r], gi[r + 1], r);
    V       d  = at < 0 ? V(0) : gv[at];

    if (d < V(0)) d = -d;
    s[r] = d != V(0) ? V(1) / sqrt(d) : V(0);
  }
}

template <typename V, typename I>
__global__ void MatSpmvGraphCopyKernel(I nnz, const V *__restrict__ av, bool absval, V *__restrict__ gv)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) gv[k] = MatSpmvGraphValue(av[k], absval);
}

/* key[k] = (block row, block column) of entry k as one number, val[k] = |a[k]| */
template <typename V, typename I>
__global__ void MatSpmvGraphBlockKeysKernel(I nnz, I bs, long long nb, const I *__restrict__ row, const I *__restrict__ j, const V *__restrict__ a, long long *__restrict__ key, V *__restrict__ val)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) {
    key[k] = (long long)(row[k] / bs) * nb + j[k] / bs;
    val[k] = MatSpmvGraphValue(a[k], true);
  }
}

/* cj[k] = the block column of the k-th distinct key */
template <typename I>
__global__ void MatSpmvGraphBlockColumnsKernel(I n, long long nb, const long long *__restrict__ key, I *__restrict__ cj)
{
  for (I k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) cj[k] = (I)(key[k] % nb);
}

struct MatSpmvTimes {
  long long                     nb;
  __host__ __device__ long long operator()(int r) const { return r * nb; }
};

/* The m x m CSR collapsed to its m/bs x m/bs blocks: entry (I, J) the sum of |a| over the block's
   entries, as PETSc's MatCreateGraph_Simple_AIJ sums them (every strength index): new device arrays */
static PetscErrorCode MatSpmvCUDAGraphCollapse(PetscInt m, PetscInt bs, PetscInt nnz, const int *d_i, const int *d_j, const PetscScalar *d_a, int **ci, int **cj, PetscScalar **ca, PetscInt *cnnz, cudaStream_t s)
{
  const long long nb = m / bs;
  int            *row, bits = 1;
  long long      *key, *skey;
  PetscScalar    *val, *sval;
  void           *tmp   = NULL;
  size_t          bytes = 0;

  PetscFunctionBegin;
  while (bits < 63 && (1LL << bits) < nb * nb) bits++;
  PetscCall(MatSpmvCUDAMalloc((void **)&row, nnz * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&key, nnz * sizeof(long long)));
  PetscCall(MatSpmvCUDAMalloc((void **)&skey, nnz * sizeof(long long)));
  PetscCall(MatSpmvCUDAMalloc((void **)&val, nnz * sizeof(PetscScalar)));
  PetscCall(MatSpmvCUDAMalloc((void **)&sval, nnz * sizeof(PetscScalar)));
  MatSpmvEntryRowsKernel<int><<<MatSpmvGrid(32 * PetscMin(m, PETSC_INT_MAX / 32)), MATSPMV_THREADS, 0, s>>>((int)m, d_i, row);
  PetscCallCUDA(cudaGetLastError());
  MatSpmvGraphBlockKeysKernel<PetscScalar, int><<<MatSpmvGrid(nnz), MATSPMV_THREADS, 0, s>>>((int)nnz, (int)bs, nb, row, d_j, d_a, key, val);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, skey, val, sval, (int)nnz, 0, bits, s));
  PetscCall(MatSpmvCUDAMalloc(&tmp, PetscMax(bytes, 1)));
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, skey, val, sval, (int)nnz, 0, bits, s));
  /* the distinct keys and their sums, into the unsorted arrays (no longer needed) */
  MatSpmvCallThrust(*cnnz = thrust::reduce_by_key(thrust::cuda::par.on(s), skey, skey + nnz, sval, key, val).first - key);
  PetscCall(MatSpmvCUDAMalloc((void **)ci, (nb + 1) * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)cj, PetscMax(*cnnz, 1) * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)ca, PetscMax(*cnnz, 1) * sizeof(PetscScalar)));
  MatSpmvGraphBlockColumnsKernel<int><<<MatSpmvGrid(*cnnz), MATSPMV_THREADS, 0, s>>>((int)*cnnz, nb, key, *cj);
  PetscCallCUDA(cudaGetLastError());
  /* ci[r] = the first key of block row r or beyond */
  MatSpmvCallThrust(thrust::lower_bound(thrust::cuda::par.on(s), key, key + *cnnz, thrust::make_transform_iterator(thrust::counting_iterator<int>(0), MatSpmvTimes{nb}), thrust::make_transform_iterator(thrust::counting_iterator<int>((int)nb + 1), MatSpmvTimes{nb}), *ci));
  PetscCall(MatSpmvCUDACopyOnDevice(*ca, val, *cnnz * sizeof(PetscScalar), s));
  PetscCall(MatSpmvCUDAFree(tmp)); /* cudaFree waits for the work above */
  PetscCall(MatSpmvCUDAFree(sval));
  PetscCall(MatSpmvCUDAFree(val));
  PetscCall(MatSpmvCUDAFree(skey));
  PetscCall(MatSpmvCUDAFree(key));
  PetscCall(MatSpmvCUDAFree(row));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAGraphScales(const MatSpmvDeviceGraph *G, PetscScalar *d_s, void *stream)
{
  PetscFunctionBegin;
  if (G->m) {
    MatSpmvGraphScalesKernel<PetscScalar, int><<<MatSpmvGrid(G->m), MATSPMV_THREADS, 0, (cudaStream_t)stream>>>((int)G->m, G->i, G->j, G->a, d_s);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvCUDAGraph(const MatSpmvDeviceCSR *A, PetscInt bs, MatSpmvGraphKind kind, MatSpmvDeviceGraph *G, void *stream)
{
  cudaStream_t       s = (cudaStream_t)stream;
  const PetscInt     m = A->m, nnz = A->nnz;
  const int         *d_i = A->i, *d_j = A->j;
  const PetscScalar *d_a = A->a;

  PetscFunctionBegin;
  if (bs > 1) { /* the graph of the collapsed blocks, whose values are absolute already */
    int             *ci, *cj;
    PetscScalar     *ca;
    PetscInt         cnnz;
    MatSpmvGraphKind ckind = kind;

    PetscCall(MatSpmvCUDAGraphCollapse(m, bs, nnz, d_i, d_j, d_a, &ci, &cj, &ca, &cnnz, s));
    {
      const MatSpmvDeviceCSR C = {m / bs, m / bs, cnnz, ci, cj, ca};

      ckind.absval = PETSC_FALSE;
      PetscCall(MatSpmvCUDAGraph(&C, 1, ckind, G, stream));
    }
    PetscCall(MatSpmvCUDAFree(ca));
    PetscCall(MatSpmvCUDAFree(cj));
    PetscCall(MatSpmvCUDAFree(ci));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  G->m = m;
  PetscCall(MatSpmvCUDAMalloc((void **)&G->i, (m + 1) * sizeof(int)));
  if (kind.symmetrize) {
    int *ti, *tj, *tpos, nz = 0;

    PetscCall(MatSpmvCUDATransposeCSR(A, &ti, &tj, &tpos, stream));
    MatSpmvGraphMergeKernel<PetscScalar, int><<<MatSpmvGrid(m), MATSPMV_THREADS, 0, s>>>((int)m, d_i, d_j, ti, tj, tpos, d_a, kind.absval, G->i, NULL, NULL);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemsetAsync(G->i + m, 0, sizeof(int), s));
    MatSpmvCallThrust(thrust::exclusive_scan(thrust::cuda::par.on(s), G->i, G->i + m + 1, G->i));
    PetscCallCUDA(cudaMemcpyAsync(&nz, G->i + m, sizeof(int), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    G->nnz = nz;
    PetscCall(MatSpmvCUDAMalloc((void **)&G->j, PetscMax(nz, 1) * sizeof(int)));
    PetscCall(MatSpmvCUDAMalloc((void **)&G->a, PetscMax(nz, 1) * sizeof(PetscScalar)));
    MatSpmvGraphMergeKernel<PetscScalar, int><<<MatSpmvGrid(m), MATSPMV_THREADS, 0, s>>>((int)m, d_i, d_j, ti, tj, tpos, d_a, kind.absval, G->i, G->j, G->a);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(MatSpmvCUDAFree(tpos)); /* cudaFree waits for the merge */
    PetscCall(MatSpmvCUDAFree(tj));
    PetscCall(MatSpmvCUDAFree(ti));
  } else {
    G->nnz = nnz;
    PetscCall(MatSpmvCUDAMalloc((void **)&G->j, PetscMax(nnz, 1) * sizeof(int)));
    PetscCall(MatSpmvCUDAMalloc((void **)&G->a, PetscMax(nnz, 1) * sizeof(PetscScalar)));
    PetscCall(MatSpmvCUDACopyOnDevice(G->i, d_i, (m + 1) * sizeof(int), stream));
    PetscCall(MatSpmvCUDACopyOnDevice(G->j, d_j, nnz * sizeof(int), stream));
    if (nnz) {
      MatSpmvGraphCopyKernel<PetscScalar, int><<<MatSpmvGrid(nnz), MATSPMV_THREADS, 0, s>>>((int)nnz, d_a, kind.absval ? true : false, G->a);
      PetscCallCUDA(cudaGetLastError());
    }
  }
  if (kind.scale && m) {
    PetscScalar *d_s;

    PetscCall(MatSpmvCUDAMalloc((void **)&d_s, m * sizeof(PetscScalar)));
    PetscCall(MatSpmvCUDAGraphScales(G, d_s, stream));
    PetscCall(MatSpmvCUDADiagonalScale(m, G->i, G->j, d_s, d_s, G->a, stream));
    PetscCall(MatSpmvCUDAFree(d_s)); /* cudaFree waits for the scaling */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

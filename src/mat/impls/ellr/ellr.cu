/*
  ELLR-T CUDA kernel and the layout built on the device.

  T threads per row (T a template parameter: 1, 2, 4, 8, 16 or 32), consecutive threads of a block
  on consecutive (row, thread) pairs, so a warp covers 32 / T whole rows and, in each step, reads 32
  consecutive value and column slots. Thread t of row i sums entries t, t + T, ... below RL[i] (no
  padding is loaded); the T partial sums of a row, which lie in T aligned lanes of one warp, are
  combined by a butterfly of __shfl_xor_sync over the full warp (threads past the last row take
  part with a zero sum), and the row's first thread writes y. z may be y: each row of z is read
  and y written by that one thread.
*/
#include "ellrimpl.h"
#include "../spmvlayer/spmvkernels.h"

/* V: value type; I: index type of the arrays (int: 32-bit device indices), U its unsigned twin for
   thread and slot offsets; T: threads per row */
template <typename V, typename I, int T>
__global__ void __launch_bounds__(MATELLR_MAX_BLOCK) MatELLRMultKernel(I mr, I ldT, const I *__restrict__ rowidx, const I *__restrict__ rl, const I *__restrict__ col, const V *__restrict__ val, const V alpha, const V *__restrict__ x, const V *z, V *y)
{
  using U = typename cuda::std::make_unsigned<I>::type;
  /* the grid covers mr * T < 2^31 threads: U holds the thread index, and slot offsets (< 2^31)
     stay below 2^32 one step past the last */
  const U tid = (U)blockIdx.x * blockDim.x + threadIdx.x;
  const U i   = tid / T; /* layout row */
  const I t   = (I)(tid % T);
  V       sum = V(0);

  if (i < (U)mr) {
    const I len = rl[i];
    U       s   = i * T + t;

#pragma unroll 4
    for (I n = t; n < len; n += T, s += (U)ldT) sum += MatSpmvLoadStream(&val[s]) * x[MatSpmvLoadStream(&col[s])];
  }
  /* every lane of the warp is here (blockDim.x is a multiple of 32): butterfly over the T lanes of
     the row, each of which ends with the sum of the T partial sums */
#pragma unroll
  for (int o = T / 2; o > 0; o /= 2) sum += MatSpmvShflXor(sum, o);
  if (t == 0 && i < (U)mr) {
    const I row = rowidx ? rowidx[i] : (I)i;

    sum *= alpha;
    y[row] = z ? z[row] + sum : sum;
  }
}

/* y = z (or 0) on the empty rows, which hold no slot; z may be y */
template <typename V, typename I>
__global__ void MatELLREmptyKernel(I nempty, const I *__restrict__ rows, const V *z, V *y)
{
  using U = typename cuda::std::make_unsigned<I>::type; /* k stays below 2^32 one stride past nempty */

  for (U k = (U)blockIdx.x * blockDim.x + threadIdx.x; k < (U)nempty; k += (U)gridDim.x * blockDim.x) {
    const I r = rows[k];

    y[r] = z ? z[r] : V(0);
  }
}

template <int T>
static PetscErrorCode MatELLRLaunch(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, cudaStream_t s)
{
  MatELLRLayout *el      = (MatELLRLayout *)L->fmt;
  const unsigned threads = (unsigned)el->block;
  const unsigned blocks  = (unsigned)(((PetscInt64)el->mr * T + threads - 1) / threads); /* mr * T <= ld * T < 2^31 (MatELLRPlan) */

  PetscFunctionBegin;
  MatELLRMultKernel<PetscScalar, int, T><<<blocks, threads, 0, s>>>((int)el->mr, (int)(el->ld * T), el->d_rowidx, el->d_rl, el->d_col, L->d_val, L->scale, x, z, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatMultDevice_ELLR(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
{
  MatELLRLayout *el = (MatELLRLayout *)L->fmt;
  cudaStream_t   s  = (cudaStream_t)stream;

  PetscFunctionBegin;
  if (el->nempty) {
    const int threads = 256, blocks = (int)PetscMin((el->nempty + threads - 1) / threads, 65536);

    MatELLREmptyKernel<PetscScalar, int><<<blocks, threads, 0, s>>>((int)el->nempty, el->d_empty, z, y);
    PetscCallCUDA(cudaGetLastError());
  }
  if (!el->mr) PetscFunctionReturn(PETSC_SUCCESS);
  switch (el->T) {
  case 1:
    PetscCall(MatELLRLaunch<1>(L, x, z, y, s));
    break;
  case 2:
    PetscCall(MatELLRLaunch<2>(L, x, z, y, s));
    break;
  case 4:
    PetscCall(MatELLRLaunch<4>(L, x, z, y, s));
    break;
  case 8:
    PetscCall(MatELLRLaunch<8>(L, x, z, y, s));
    break;
  case 16:
    PetscCall(MatELLRLaunch<16>(L, x, z, y, s));
    break;
  case 32:
    PetscCall(MatELLRLaunch<32>(L, x, z, y, s));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "ELLR layout with %" PetscInt_FMT " threads per row", el->T);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatUpload_ELLR(MatSpmvLayout L)
{
  MatELLRLayout *el = (MatELLRLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAUploadInt(&el->d_rl, el->rl, el->mr));
  if (el->rowidx) PetscCall(MatSpmvCUDAUploadInt(&el->d_rowidx, el->rowidx, el->mr));
  PetscCall(MatSpmvCUDAUploadInt(&el->d_empty, el->empty, el->nempty));
  PetscCall(MatSpmvCUDAUploadInt(&el->d_col, el->col, L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- The layout built on the device from aijcusparse's CSR (the same layout as MatSpmvFormatBuild_ELLR) ---- */

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/functional.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

struct MatELLRRowLen {
  const int              *ai;
  __host__ __device__ int operator()(int r) const { return ai[r + 1] - ai[r]; }
};
struct MatELLRRowEmpty {
  const int               *ai;
  __host__ __device__ bool operator()(int r) const { return ai[r + 1] == ai[r]; }
};
struct MatELLRRowNonempty {
  const int               *ai;
  __host__ __device__ bool operator()(int r) const { return ai[r + 1] > ai[r]; }
};

/* one thread per slot (coalesced writes): slot s is entry n = k * T + t of layout row i, with
   k = s / ldT, i = (s % ldT) / T, t = s % T; padding past a row's end or past the last layout row
   gets column 0 and no CSR position */
__global__ void MatELLRFillKernel(int nslots, int mr, int T, int ldT, const int *__restrict__ rowidx, const int *__restrict__ ai, const int *__restrict__ aj, int *__restrict__ col, int *__restrict__ slot2csr)
{
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < nslots; s += (long long)gridDim.x * blockDim.x) {
    const int k = (int)(s / ldT), rem = (int)(s % ldT), i = rem / T, n = k * T + rem % T;
    int       c = 0, p = -1;

    if (i < mr) {
      const int r = rowidx ? rowidx[i] : i;

      if (n < ai[r + 1] - ai[r]) {
        p = ai[r] + n;
        c = aj[p];
      }
    }
    col[s]      = c;
    slot2csr[s] = p;
  }
}

static inline unsigned MatELLRGrid(PetscInt n)
{
  return (unsigned)PetscMax(1, PetscMin((n + 255) / 256, 65536));
}

PetscErrorCode MatSpmvFormatBuildDevice_ELLR(const void *params, const MatSpmvCSR *pattern, const int *ai, const int *aj, MatSpmvLayout L, void *stream)
{
  cudaStream_t                   s   = (cudaStream_t)stream;
  auto                           pol = thrust::cuda::par.on(s);
  const int                      m   = (int)pattern->m;
  thrust::counting_iterator<int> first(0), last(m);
  MatELLRLayout                  plan, *el;
  PetscInt                       nslots, mr = 0;
  int                            K = 0;

  PetscFunctionBegin;
  /* the longest row and the nonempty rows by reductions on the device (a number each back to the
     host); the padding and size checks then run before any allocation */
  if (m) {
    MatSpmvCallThrust(K = thrust::transform_reduce(pol, first, last, MatELLRRowLen{ai}, 0, thrust::maximum<int>()));
    MatSpmvCallThrust(mr = thrust::count_if(pol, first, last, MatELLRRowNonempty{ai}));
  }
  PetscCall(MatELLRPlan((const MatELLRParams *)params, m, mr, pattern->nnz, K, &plan, &nslots));
  PetscCall(PetscNew(&el));
  *el       = plan;
  L->fmt    = el;
  L->nslots = nslots;
  PetscCall(MatSpmvCUDAMalloc((void **)&el->d_rl, mr * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&el->d_empty, el->nempty * sizeof(int)));
  if (el->nempty) { /* the layout rows are the nonempty rows, in order */
    PetscCall(MatSpmvCUDAMalloc((void **)&el->d_rowidx, mr * sizeof(int)));
    if (mr) MatSpmvCallThrust(thrust::copy_if(pol, first, last, el->d_rowidx, MatELLRRowNonempty{ai}));
    MatSpmvCallThrust(thrust::copy_if(pol, first, last, el->d_empty, MatELLRRowEmpty{ai}));
    if (mr) MatSpmvCallThrust(thrust::transform(pol, el->d_rowidx, el->d_rowidx + mr, el->d_rl, MatELLRRowLen{ai}));
  } else if (mr) MatSpmvCallThrust(thrust::transform(pol, first, last, el->d_rl, MatELLRRowLen{ai}));
  PetscCall(MatSpmvCUDAMalloc((void **)&el->d_col, nslots * sizeof(int)));
  PetscCall(MatSpmvCUDAMalloc((void **)&L->d_slot2csr, nslots * sizeof(int)));
  if (nslots) {
    MatELLRFillKernel<<<MatELLRGrid(nslots), 256, 0, s>>>((int)nslots, (int)mr, (int)el->T, (int)(el->ld * el->T), el->d_rowidx, ai, aj, el->d_col, L->d_slot2csr);
    PetscCallCUDA(cudaGetLastError());
  }
  L->indexbytes = sizeof(int) * ((size_t)mr * (el->d_rowidx ? 2 : 1) + el->nempty + nslots);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSpmvFormatDownload_ELLR(MatSpmvLayout L)
{
  MatELLRLayout *el = (MatELLRLayout *)L->fmt;

  PetscFunctionBegin;
  if (!el->rl) PetscCall(MatSpmvCUDADownloadInt(&el->rl, el->d_rl, el->mr));
  if (!el->rowidx && el->d_rowidx) PetscCall(MatSpmvCUDADownloadInt(&el->rowidx, el->d_rowidx, el->mr));
  if (!el->empty) PetscCall(MatSpmvCUDADownloadInt(&el->empty, el->d_empty, el->nempty));
  if (!el->col) PetscCall(MatSpmvCUDADownloadInt(&el->col, el->d_col, L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MATSPMV_DEVICE_KERNEL(ELLR, MatELLRFillKernel)

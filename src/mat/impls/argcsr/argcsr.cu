/*
  ARGCSR CUDA kernel: the paper's kernel, one thread block per group, written for current GPUs.
  The group info goes to shared memory; each thread sums its chunk (consecutive threads read
  consecutive slots) up to the chunk size or its first -1 column; then each row sums its chunks'
  partial sums. No implicit warp synchrony: every exchange through shared memory is behind a
  __syncthreads().
*/
#include "argcsrimpl.h"
#include "../aijspmv/aijspmvcuda.h"

/* blockDim.x threads per group (a multiple of 32 up to 1024): blockDim.x partial sums and
   blockDim.x row ends in dynamic shared memory */
template <typename V>
__global__ void __launch_bounds__(MATARGCSR_MAX_BLOCK) MatARGCSRMultKernel(const int *__restrict__ group, const int *__restrict__ rowend, const int *__restrict__ col, const V *__restrict__ val, const V *__restrict__ x, const V *z, V *y)
{
  extern __shared__ __align__(16) unsigned char MatARGCSRShared[]; /* raw bytes: complex V has constructors */
  __shared__ int info[4];                                          /* first row, rows, first slot, chunk size */
  V             *part = reinterpret_cast<V *>(MatARGCSRShared);
  int           *ends = reinterpret_cast<int *>(part + blockDim.x);
  const int      tid  = threadIdx.x, nt = blockDim.x;
  int            begin = 0, end = 0;

  if (tid < 4) info[tid] = group[4 * (size_t)blockIdx.x + tid];
  __syncthreads();
  const int first = info[0], size = info[1], chunk = info[3];
  if (tid < size) { /* thread tid sums row tid of the group: its chunks are threads [begin, end) */
    end       = rowend[first + tid];
    begin     = tid ? rowend[first + tid - 1] : 0;
    ends[tid] = end;
  }

  /* the chunk of this thread; unsigned: offsets stay below 2^31 + 1024 */
  V sum = V(0);
  for (unsigned e = 0, s = (unsigned)info[2] + tid; e < (unsigned)chunk; e++, s += nt) {
    const int c = MatSpmvLoadStream(&col[s]);

    if (c < 0) break; /* padding to the end of the chunk */
    sum += MatSpmvLoadStream(&val[s]) * x[c];
  }
  part[tid] = sum;

  /* rows of few chunks: one thread adds them (the paper's loop); a group with a wider row adds
     all rows' chunks by a segmented tree instead, log2 of its widest row steps */
  V r = V(0);
  if (!__syncthreads_or(end - begin > MATARGCSR_SERIAL_SUM)) {
    for (int t = begin; t < end; t++) r += part[t];
  } else {
    int lo = 0, hi = size, j = 0, k = 0;

    while (lo < hi) { /* the row of this thread's chunk: the first whose end is past tid */
      const int mid = (lo + hi) / 2;

      if (ends[mid] > tid) hi = mid;
      else lo = mid + 1;
    }
    if (lo < size) { /* threads past the last row's chunks hold no chunk */
      const int b = lo ? ends[lo - 1] : 0;

      j = tid - b;
      k = ends[lo] - b;
    }
    /* step `off` adds chunk j + off of the row into chunk j for j a multiple of 2 off: no chunk is
       read and written in the same step; the barrier of the condition separates the steps */
    for (int off = 1; __syncthreads_or(k > off); off *= 2)
      if (!(j & (2 * off - 1)) && j + off < k) part[tid] += part[tid + off];
    if (end > begin) r = part[begin];
  }
  if (tid < size) {
    const int row = first + tid;

    y[row] = z ? z[row] + r : r;
  }
}

PetscErrorCode MatUpload_ARGCSR(MatSpmvLayout L)
{
  MatARGCSRLayout *ag = (MatARGCSRLayout *)L->fmt;

  PetscFunctionBegin;
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_group, ag->group, 4 * ag->ngroups));
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_rowend, ag->rowend, L->m));
  PetscCall(MatSpmvCUDAUploadInt(&ag->d_col, ag->col, L->nslots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultDevice_ARGCSR(MatSpmvLayout L, const PetscScalar *x, const PetscScalar *z, PetscScalar *y, void *stream)
{
  MatARGCSRLayout *ag    = (MatARGCSRLayout *)L->fmt;
  const size_t     shmem = ag->block * (sizeof(PetscScalar) + sizeof(int));

  PetscFunctionBegin;
  if (!ag->ngroups) PetscFunctionReturn(PETSC_SUCCESS);
  /* one thread block per group: at most one per row, and the layer keeps rows below 2^31 */
  MatARGCSRMultKernel<PetscScalar><<<(unsigned)ag->ngroups, (unsigned)ag->block, shmem, (cudaStream_t)stream>>>(ag->d_group, ag->d_rowend, ag->d_col, L->d_val, x, z, y);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

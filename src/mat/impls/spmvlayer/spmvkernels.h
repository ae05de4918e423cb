#pragma once
/* Device-side helpers shared by the layer's and the formats' kernels */
#include <petscdevice_cuda.h>
#include <cuda/std/type_traits>
#include <exception>
#include <new>
#include <cstring>

/* A thrust call that fails (a CUDA error, device memory exhausted) throws thrust::system_error or
   std::bad_alloc, both std::exception: it becomes a PETSc error here, since an exception crossing
   PETSc's C frames would abort the program; out of memory is PETSC_ERR_MEM, which a caller may
   answer with a fallback. -petscspmv_fail_device_alloc counts the call as an allocation (its
   temporary storage) */
#define MatSpmvCallThrust(...) \
  do { \
    bool        _oom  = false; \
    const char *_what = NULL; \
    try { \
      if (MatSpmvCUDAAllocFails()) throw std::bad_alloc(); \
      __VA_ARGS__; \
    } catch (const std::bad_alloc &ex) { \
      _oom = true, _what = ex.what(); \
    } catch (const std::exception &ex) { \
      _what = ex.what(); \
      _oom  = strstr(_what, "out of memory") != NULL; \
    } \
    if (_what) { \
      (void)cudaGetLastError(); /* out of memory is not sticky: the device goes on */ \
      PetscCheck(!_oom, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of device memory in a thrust call (%s)%s: spread the problem over more GPUs (MPI processes) or free device memory", _what, MatSpmvFailDeviceAlloc > 0 ? ", or made to fail by -petscspmv_fail_device_alloc" : ""); \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "Thrust error on the GPU: %s", _what); \
    } \
  } while (0)

#define MATSPMV_THREADS 256 /* threads per block of the layer's element-wise kernels */

/* blocks for n items, at most 65536 (the grid-stride loops take the rest) */
static inline unsigned MatSpmvGrid(PetscInt n)
{
  return (unsigned)PetscMax(1, PetscMin((n + MATSPMV_THREADS - 1) / MATSPMV_THREADS, 65536));
}

/* row[k] = the row of entry k; a warp per row */
template <typename I>
__global__ void MatSpmvEntryRowsKernel(I m, const I *__restrict__ i, I *__restrict__ row)
{
  const I lane = threadIdx.x % 32;

  for (I r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < m; r += gridDim.x * blockDim.x / 32)
    for (I k = i[r] + lane; k < i[r + 1]; k += 32) row[k] = r;
}

/* the position of column c among the ascending columns j[lo], ..., j[hi - 1], or -1 */
template <typename I>
__host__ __device__ __forceinline__ I MatSpmvFindColumn(const I *j, I lo, I hi, I c)
{
  for (hi--; lo <= hi;) {
    const I mid = lo + (hi - lo) / 2;

    if (j[mid] == c) return mid;
    if (j[mid] < c) lo = mid + 1;
    else hi = mid - 1;
  }
  return I(-1);
}

/* the first position in [lo, hi) of the sorted cols whose column is >= c (hi: none) */
template <typename I>
__device__ __forceinline__ I MatSpmvLowerBound(const I *cols, I lo, I hi, I c)
{
  while (lo < hi) {
    const I mid = (lo + hi) / 2;
    if (cols[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* y += v for rows shared by several threads; complex values add their two parts */
template <typename V>
__device__ __forceinline__ void MatSpmvAtomicAdd(V *y, V v)
{
  if constexpr (cuda::std::is_same<V, float>::value || cuda::std::is_same<V, double>::value) {
    atomicAdd(y, v);
  } else {
    using R = decltype(v.real());
    atomicAdd(reinterpret_cast<R *>(y), v.real());
    atomicAdd(reinterpret_cast<R *>(y) + 1, v.imag());
  }
}

/* v from lane (lane ^ off) of the warp; complex values move their two parts */
template <typename V>
__device__ __forceinline__ V MatSpmvShflXor(V v, int off)
{
  if constexpr (cuda::std::is_same<V, float>::value || cuda::std::is_same<V, double>::value) {
    return __shfl_xor_sync(0xffffffffu, v, off);
  } else {
    return V(__shfl_xor_sync(0xffffffffu, v.real(), off), __shfl_xor_sync(0xffffffffu, v.imag(), off));
  }
}

/* v from lane src of the warp */
template <typename V>
__device__ __forceinline__ V MatSpmvShfl(V v, int src)
{
  if constexpr (cuda::std::is_same<V, float>::value || cuda::std::is_same<V, double>::value) {
    return __shfl_sync(0xffffffffu, v, src);
  } else {
    return V(__shfl_sync(0xffffffffu, v.real(), src), __shfl_sync(0xffffffffu, v.imag(), src));
  }
}

/* Matrix entries are read once per product: load them with the evict-first (streaming) hint so
   they do not push the gathered x vector out of L2 */
template <typename T>
__device__ __forceinline__ T MatSpmvLoadStream(const T *p)
{
  if constexpr (cuda::std::is_same<T, float>::value || cuda::std::is_same<T, double>::value || cuda::std::is_same<T, int>::value || cuda::std::is_same<T, unsigned short>::value) {
    return __ldcs(p);
  } else if constexpr (sizeof(T) == sizeof(double2)) {
    double2 v = __ldcs(reinterpret_cast<const double2 *>(p));
    return *reinterpret_cast<T *>(&v);
  } else if constexpr (sizeof(T) == sizeof(float2)) {
    float2 v = __ldcs(reinterpret_cast<const float2 *>(p));
    return *reinterpret_cast<T *>(&v);
  } else {
    return *p;
  }
}

/* Values other SMs write during a kernel (a triangular solve's x): read and written through L2,
   since L1 is not coherent between SMs */
template <typename T>
__device__ __forceinline__ T MatSpmvLoadL2(const T *p)
{
  if constexpr (cuda::std::is_same<T, float>::value || cuda::std::is_same<T, double>::value) {
    return __ldcg(p);
  } else if constexpr (sizeof(T) == sizeof(double2)) {
    double2 v = __ldcg(reinterpret_cast<const double2 *>(p));
    return *reinterpret_cast<T *>(&v);
  } else {
    float2 v = __ldcg(reinterpret_cast<const float2 *>(p));
    return *reinterpret_cast<T *>(&v);
  }
}

template <typename T>
__device__ __forceinline__ void MatSpmvStoreL2(T *p, T v)
{
  if constexpr (cuda::std::is_same<T, float>::value || cuda::std::is_same<T, double>::value) {
    __stcg(p, v);
  } else if constexpr (sizeof(T) == sizeof(double2)) {
    __stcg(reinterpret_cast<double2 *>(p), *reinterpret_cast<double2 *>(&v));
  } else {
    __stcg(reinterpret_cast<float2 *>(p), *reinterpret_cast<float2 *>(&v));
  }
}

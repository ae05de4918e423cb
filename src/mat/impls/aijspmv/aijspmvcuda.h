#pragma once
/* Device-side helpers shared by the formats' kernels */
#include <petscdevice_cuda.h>
#include <cuda/std/type_traits>

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


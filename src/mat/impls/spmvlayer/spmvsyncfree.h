#pragma once
/* Device helpers of the kernels that run a chain of dependent rows in one launch without level
   synchronization (MATSOLVERSPMVFACTOR's triangular solves, the SOR sweeps): units handed to warps in
   order, and values that are their own completion flags */
#include "spmvkernels.h"
#include <cuda/atomic>

/* the warp's unit: the next one in order handed out in this launch (all lanes get it), or -1 */
template <typename I>
__device__ __forceinline__ I MatSpmvTakeUnit(unsigned long long *counter, unsigned long long taken, I nunits, const I *__restrict__ order)
{
  I u = -1;

  if ((threadIdx.x & 31) == 0) {
    const unsigned long long t = atomicAdd(counter, 1ULL) - taken;
    if (t < (unsigned long long)nunits) u = order[t];
  }
  return __shfl_sync(0xffffffffu, u, 0);
}

/* The exact solves' x values are their own completion flags: before a solve every x holds a
   signalling NaN, which no arithmetic yields (a NaN result is quiet), until its row's lane stores the
   value. A waiting lane reads the value it needs and learns that it is ready in one load through L2;
   with a flag per unit it took a flag load, an acquire fence and then the value's load, and the
   producer a fence and a release store after its values (docs/results.md, "The exact solves' values as
   their own flags"). Relaxed device-scope atomics on the value's words: each word is read or written
   whole, and nothing else rides on the order (a complex value is ready once both parts are). */
template <typename R>
using MatSpmvWordOf = typename cuda::std::conditional<sizeof(R) == sizeof(unsigned long long), unsigned long long, unsigned>::type;

/* the real type of a scalar: its own, or its parts' */
template <typename S>
struct MatSpmvRealOf {
  using type = cuda::std::remove_cv_t<cuda::std::remove_reference_t<decltype(S().real())>>;
};
template <>
struct MatSpmvRealOf<float> {
  using type = float;
};
template <>
struct MatSpmvRealOf<double> {
  using type = double;
};

template <typename W>
__device__ __forceinline__ W MatSpmvPendingWord()
{
  if constexpr (sizeof(W) == 8) return 0x7FF5A5A5A5A5A5A5ULL; /* exponent all ones, quiet bit clear, payload not zero */
  else return 0x7FA5A5A5u;
}

template <typename R>
__device__ __forceinline__ bool MatSpmvLoadReadyReal(const R *p, R &v)
{
  using W      = MatSpmvWordOf<R>;
  const W word = cuda::atomic_ref<W, cuda::thread_scope_device>(*reinterpret_cast<W *>(const_cast<R *>(p))).load(cuda::memory_order_relaxed);

  memcpy(&v, &word, sizeof(W));
  return word != MatSpmvPendingWord<W>();
}

template <typename R>
__device__ __forceinline__ void MatSpmvStoreReadyReal(R *p, R v)
{
  using W = MatSpmvWordOf<R>;
  W word;

  memcpy(&word, &v, sizeof(W));
  if (word == MatSpmvPendingWord<W>()) word |= W(1) << (sizeof(W) == 8 ? 51 : 22); /* never from arithmetic; should it come, stored quiet */
  cuda::atomic_ref<W, cuda::thread_scope_device>(*reinterpret_cast<W *>(p)).store(word, cuda::memory_order_relaxed);
}

/* *p once its row is complete: true and the value, else false */
template <typename S>
__device__ __forceinline__ bool MatSpmvLoadReady(const S *p, S &v)
{
  if constexpr (cuda::std::is_same<S, float>::value || cuda::std::is_same<S, double>::value) return MatSpmvLoadReadyReal(p, v);
  else {
    using R    = decltype(v.real());
    const R *q = reinterpret_cast<const R *>(p);
    R        re, im;

    if (!MatSpmvLoadReadyReal(q, re) || !MatSpmvLoadReadyReal(q + 1, im)) return false;
    v = S(re, im);
    return true;
  }
}

template <typename S>
__device__ __forceinline__ void MatSpmvStoreReady(S *p, S v)
{
  if constexpr (cuda::std::is_same<S, float>::value || cuda::std::is_same<S, double>::value) MatSpmvStoreReadyReal(p, v);
  else {
    using R = decltype(v.real());
    MatSpmvStoreReadyReal(reinterpret_cast<R *>(p), v.real());
    MatSpmvStoreReadyReal(reinterpret_cast<R *>(p) + 1, v.imag());
  }
}

/* every word of y[0..n) and x[0..n) pending */
template <typename S>
__global__ void MatSpmvTriPendingKernel(int n, S *y, S *x)
{
  using W            = MatSpmvWordOf<typename MatSpmvRealOf<S>::type>;
  const size_t words = (size_t)n * sizeof(S) / sizeof(W);

  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < words; k += gridDim.x * (size_t)blockDim.x) {
    reinterpret_cast<W *>(y)[k] = MatSpmvPendingWord<W>();
    reinterpret_cast<W *>(x)[k] = MatSpmvPendingWord<W>();
  }
}

/* every word of x[0..n) pending */
template <typename S>
__global__ void MatSpmvPendingKernel(int n, S *x)
{
  using W            = MatSpmvWordOf<typename MatSpmvRealOf<S>::type>;
  const size_t words = (size_t)n * sizeof(S) / sizeof(W);

  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < words; k += gridDim.x * (size_t)blockDim.x) reinterpret_cast<W *>(x)[k] = MatSpmvPendingWord<W>();
}

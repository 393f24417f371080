// Index helpers of the window and normalisation kernels (nn.cu, batch_norm.cu,
// conv_pool.cu). Internal to each including file (an unnamed namespace).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>

namespace opgen {
namespace cuda {
namespace {

// Unsigned for 64-bit-free index math where the tensor is small enough: divisions by
// runtime values cost several times more in 64 bits.
template <typename Index> __device__ inline Index GlobalThread() {
  return static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
}
template <typename Index> __device__ inline Index GridStride() {
  return static_cast<Index>(gridDim.x) * blockDim.x;
}
inline bool Fits32(int64_t n) { return n <= std::numeric_limits<int32_t>::max(); }

// Whether a window kernel's indices fit 32 bits: `largest` (the biggest element count)
// plus every size, stride, dilation and padding it combines, summed without wrapping (a
// ksize, stride or dilation near 2^63 must not look small once the sum wraps).
inline bool WindowFits32(int64_t largest, std::initializer_list<int64_t> parts) {
  int64_t sum = largest;
  for (int64_t v : parts)
    if (v < 0 || __builtin_add_overflow(sum, v, &sum)) return false;
  return Fits32(sum);
}

}  // namespace
}  // namespace cuda
}  // namespace opgen

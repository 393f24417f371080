// Device arithmetic shared by the gradient kernels' CUDA files: wrapping integer
// addition and multiplication (as the CPU's WrappingAdd / WrappingMul) and exp / log /
// fabs on the compute type.
#pragma once

#include <type_traits>

#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {
namespace grad {

template <typename C> __device__ inline C Add(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::common_type_t<std::make_unsigned_t<C>, unsigned>;
    return static_cast<C>(static_cast<U>(x) + static_cast<U>(y));
  } else {
    return x + y;
  }
}
template <typename C> __device__ inline C Mul(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::common_type_t<std::make_unsigned_t<C>, unsigned>;
    return static_cast<C>(static_cast<U>(x) * static_cast<U>(y));
  } else {
    return x * y;
  }
}
template <typename C> __device__ inline C Exp(C x) {
  if constexpr (std::is_same_v<C, float>) return expf(x);
  else return exp(x);
}
template <typename C> __device__ inline C Log(C x) {
  if constexpr (std::is_same_v<C, float>) return logf(x);
  else return log(x);
}
template <typename C> __device__ inline C Abs(C x) {
  if constexpr (std::is_same_v<C, float>) return fabsf(x);
  else return fabs(x);
}

}  // namespace grad
}  // namespace cuda
}  // namespace opgen

// Adds one tensor into another of the same dtype and shape, element by element: how the
// backward pass sums partial gradients held in containers (AddN of TensorLists, writes to
// one index of a gradient TensorArray). Number types only, as TensorFlow's own sums.
#pragma once

#include <complex>
#include <cstdint>

#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace tensor_add_internal {

template <typename T>
void AddInto(TF_Tensor* sum, const TF_Tensor* addend) {
  T* out = static_cast<T*>(TF_TensorData(sum));
  const T* in = static_cast<const T*>(TF_TensorData(addend));
  const int64_t n = TF_TensorElementCount(sum);
  for (int64_t k = 0; k < n; ++k) out[k] = WrappingAdd(out[k], in[k]);
}

template <typename T>
void AddFloat16Into(TF_Tensor* sum, const TF_Tensor* addend) {
  T* out = static_cast<T*>(TF_TensorData(sum));
  const T* in = static_cast<const T*>(TF_TensorData(addend));
  const int64_t n = TF_TensorElementCount(sum);
  for (int64_t k = 0; k < n; ++k) out[k] = Narrow<T>(Widen(out[k]) + Widen(in[k]));
}

}  // namespace tensor_add_internal

// False, adding nothing, for a dtype that is not a number (the caller says so). The
// shapes must already agree.
inline bool AddTensorInto(TF_Tensor* sum, const TF_Tensor* addend) {
  using namespace tensor_add_internal;  // NOLINT: the two adders above
  switch (TF_TensorType(sum)) {
    case TF_FLOAT: AddInto<float>(sum, addend); return true;
    case TF_DOUBLE: AddInto<double>(sum, addend); return true;
    case TF_HALF: AddFloat16Into<Half>(sum, addend); return true;
    case TF_BFLOAT16: AddFloat16Into<BFloat16>(sum, addend); return true;
    case TF_INT8: AddInto<int8_t>(sum, addend); return true;
    case TF_INT16: AddInto<int16_t>(sum, addend); return true;
    case TF_INT32: AddInto<int32_t>(sum, addend); return true;
    case TF_INT64: AddInto<int64_t>(sum, addend); return true;
    case TF_UINT8: AddInto<uint8_t>(sum, addend); return true;
    case TF_UINT16: AddInto<uint16_t>(sum, addend); return true;
    case TF_UINT32: AddInto<uint32_t>(sum, addend); return true;
    case TF_UINT64: AddInto<uint64_t>(sum, addend); return true;
    case TF_COMPLEX64: AddInto<std::complex<float>>(sum, addend); return true;
    case TF_COMPLEX128: AddInto<std::complex<double>>(sum, addend); return true;
    default: return false;
  }
}

}  // namespace cpu
}  // namespace opgen

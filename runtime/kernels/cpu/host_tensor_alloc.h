// Host tensors that kernels keep for themselves (list and array elements, table
// values), whose shapes can come from a caller's attrs or operands: the bytes are
// counted without overflow, and a shape past int64 is an allocation failure
// (nullptr), as an allocation too big for memory is.
#ifndef OPGEN_RUNTIME_KERNELS_CPU_HOST_TENSOR_ALLOC_H_
#define OPGEN_RUNTIME_KERNELS_CPU_HOST_TENSOR_ALLOC_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "../kernel_api_util.h"
#include "tensorflow/c/tf_tensor.h"

namespace opgen {
namespace cpu {

// A new uninitialized host tensor of `dtype` and `dims`; nullptr where its bytes pass
// int64 or the allocation fails.
inline TF_Tensor* NewHostTensor(TF_DataType dtype, const std::vector<int64_t>& dims) {
  const int64_t n = kernels::CheckedNumElements(dims);
  int64_t bytes = 0;
  if (n < 0 || __builtin_mul_overflow(n, static_cast<int64_t>(TF_DataTypeSize(dtype)), &bytes)) return nullptr;
  return TF_AllocateTensor(dtype, dims.data(), static_cast<int>(dims.size()), static_cast<size_t>(bytes));
}

// NewHostTensor, filled with zero bytes (every number type's zero).
inline TF_Tensor* NewZeroHostTensor(TF_DataType dtype, const std::vector<int64_t>& dims) {
  TF_Tensor* t = NewHostTensor(dtype, dims);
  if (t != nullptr && TF_TensorByteSize(t) != 0) std::memset(TF_TensorData(t), 0, TF_TensorByteSize(t));
  return t;
}

}  // namespace cpu
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_CPU_HOST_TENSOR_ALLOC_H_

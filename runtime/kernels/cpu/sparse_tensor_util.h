// Shared by the SparseTensor kernel files (sparse_tensor.cc, sparse_combine.cc): outputs
// of int64 indices and of values picked from an input by position.
#pragma once

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../../src/string_tensor.h"
#include "dtypes.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace sparse {

// Sums happen in float for the 16-bit floats, modulo 2^bits for integers.
template <typename T> using Acc = std::conditional_t<kIsFloat16<T>, float, Arithmetic<T>>;

// Output `i` of `n` values: values[from[j]], or the scalar `fill` where from[j] < 0.
inline void GatherValues(TF_OpKernelContext* ctx, int i, const TF_Tensor* values,
                         const TF_Tensor* fill, const std::vector<int64_t>& from) {
  const std::vector<int64_t> dims{static_cast<int64_t>(from.size())};
  const TF_DataType type = TF_TensorType(values);
  if (type == TF_STRING) {
    TensorPtr out(NewStringTensor(dims));
    bool ok = out != nullptr;
    if (ok) {
      TF_TString* y = MutableStringElements(out.get());
      const TF_TString* x = StringElements(values);
      for (size_t j = 0; j < from.size() && ok; ++j)
        ok = AssignString(&y[j], StringElement(from[j] < 0 ? StringElements(fill) : &x[from[j]]));
    }
    if (!ok) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for strings");
    TF_Status* s = ThreadStatus();
    TF_SetOutput(ctx, i, out.get(), s);
    if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
    return;
  }
  TensorPtr out = kernels::AllocateOutput(ctx, i, type, dims);
  if (!out) return;
  const size_t width = TF_DataTypeSize(type);
  char* y = static_cast<char*>(TF_TensorData(out.get()));
  const char* x = static_cast<const char*>(TF_TensorData(values));
  for (size_t j = 0; j < from.size(); ++j)
    std::memcpy(y + j * width,
                from[j] < 0 ? static_cast<const char*>(TF_TensorData(fill)) : x + from[j] * width,
                width);
}

inline void SetIndices(TF_OpKernelContext* ctx, int i, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& values) {
  TensorPtr out = AllocateOutput<int64_t>(ctx, i, dims);
  if (out && !values.empty()) std::memcpy(Data<int64_t>(out), values.data(), values.size() * 8);
}

// TensorFlow's checks of a SparseTensor's three parts (indices [n, rank], values [n],
// shape [rank]); false after reporting the failure.
inline bool CheckSparseTensor(TF_OpKernelContext* ctx, const TF_Tensor* indices,
                              const TF_Tensor* values, const TF_Tensor* shape) {
  std::string error;
  if (TF_NumDims(indices) != 2)
    error = "Sparse indices must be rank 2 but is rank " + std::to_string(TF_NumDims(indices));
  else if (TF_NumDims(values) != 1)
    error = "Sparse values must be rank 1 but is rank " + std::to_string(TF_NumDims(values));
  else if (TF_NumDims(shape) != 1)
    error = "Sparse shape must be rank 1 but is rank " + std::to_string(TF_NumDims(shape));
  else if (TF_Dim(indices, 0) != TF_Dim(values, 0))
    error = "Number of elements in indices (" + std::to_string(TF_Dim(indices, 0)) +
            ") and values (" + std::to_string(TF_Dim(values, 0)) + ") do not match";
  else if (TF_Dim(indices, 1) != TF_Dim(shape, 0))
    error = "Index rank (" + std::to_string(TF_Dim(indices, 1)) + ") and shape rank (" +
            std::to_string(TF_Dim(shape, 0)) + ") do not match";
  if (error.empty()) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, error);
  return false;
}

// Runs kernel F, reporting a working buffer that sizes from the operands (dense shapes,
// row counts) made impossible as ResourceExhausted rather than a fault.
template <void (*F)(void*, TF_OpKernelContext*)>
void Guarded(void* attrs, TF_OpKernelContext* ctx) {
  try {
    F(attrs, ctx);
  } catch (const std::bad_alloc&) {
    Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a buffer the operands' shapes size");
  } catch (const std::length_error&) {
    Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a buffer the operands' shapes size");
  }
}

// -1, 0 or 1 as index row a sorts before, with or after row b (row-major order).
inline int CompareRows(const int64_t* a, const int64_t* b, int64_t rank) {
  for (int64_t d = 0; d < rank; ++d)
    if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
  return 0;
}

}  // namespace sparse
}  // namespace cpu
}  // namespace opgen

// Kernels that only change or describe a tensor's shape: Reshape, ExpandDims, Squeeze
// (the output shares the input's buffer through TF_TensorBitcastFrom, wherever it lives)
// and Shape, ShapeN, Size, Rank, BroadcastArgs (host outputs; the input's elements are never read). The same
// code serves the CPU kernels and the CUDA plugin's: nothing is copied on either.
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Sets output 0 to input 0's buffer (`input`) seen with `dims`.
inline void SetReshapedOutput(TF_OpKernelContext* ctx, const TensorPtr& input,
                              const std::vector<int64_t>& dims) {
  TF_Status* s = ThreadStatus();
  TF_Tensor* view = nullptr;
  TF_GetInput(ctx, 0, &view, s);  // a second handle on the input's buffer, to re-shape
  if (TF_GetCode(s) == TF_OK)
    TF_TensorBitcastFrom(input.get(), TF_TensorType(input.get()), view, dims.data(),
                         static_cast<int>(dims.size()), s);
  if (TF_GetCode(s) == TF_OK) TF_SetOutput(ctx, 0, view, s);
  if (view != nullptr) TF_DeleteTensor(view);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

inline void ReshapeCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0), shape_t = Input(ctx, 1);
  if (!input || !shape_t) return;
  std::vector<int64_t> shape = IndexValues(shape_t.get());
  const int64_t n = TF_TensorElementCount(input.get());
  int64_t known = 1, unknown_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown_at >= 0) {
        Fail(ctx, TF_INVALID_ARGUMENT, "Reshape: only one dimension can be -1, got " + ShapeString(shape));
        return;
      }
      unknown_at = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Reshape: size " + std::to_string(shape[i]) + " must be >= -1");
      return;
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      known = -1;  // past int64: more than any tensor holds
      break;
    }
  }
  if (unknown_at >= 0 && known > 0 && n % known == 0) shape[unknown_at] = n / known;
  // No values and a 0 among the given sizes: -1 cannot be solved from the counts.
  // TensorFlow solves it from the non-zero sizes on both sides ((0,3) to [-1,0] gives
  // (3,0)); so does this.
  if (unknown_at >= 0 && known == 0 && n == 0) {
    int64_t in_nonzero = 1, out_nonzero = 1;
    for (int64_t d : Dims(input.get()))
      if (d != 0 && in_nonzero > 0 && __builtin_mul_overflow(in_nonzero, d, &in_nonzero))
        in_nonzero = -1;
    for (size_t i = 0; i < shape.size(); ++i)
      if (static_cast<int64_t>(i) != unknown_at && shape[i] != 0 && out_nonzero > 0 &&
          __builtin_mul_overflow(out_nonzero, shape[i], &out_nonzero))
        out_nonzero = -1;  // past int64: no input can match it
    if (in_nonzero > 0 && out_nonzero > 0 && in_nonzero % out_nonzero == 0)
      shape[unknown_at] = in_nonzero / out_nonzero;
    else
      known = -1;  // reported below
  }
  if (known < 0 || CheckedNumElements(shape) != n || (unknown_at >= 0 && known == 0 && n != 0)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Input to reshape is a tensor with " + std::to_string(n) +
             " values, but the requested shape " + ShapeString(IndexValues(shape_t.get())) +
             " does not fit them");
    return;
  }
  SetReshapedOutput(ctx, input, shape);
}

inline void ExpandDimsCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0), dim_t = Input(ctx, 1);
  if (!input || !dim_t) return;
  std::vector<int64_t> dims = Dims(input.get());
  std::vector<int64_t> dim = IndexValues(dim_t.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (dim.size() != 1 || dim[0] < -rank - 1 || dim[0] > rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "ExpandDims: dim must be a scalar in [" +
                                       std::to_string(-rank - 1) + ", " + std::to_string(rank) + "]");
    return;
  }
  int64_t at = dim[0] < 0 ? dim[0] + rank + 1 : dim[0];
  dims.insert(dims.begin() + at, 1);
  SetReshapedOutput(ctx, input, dims);
}

struct SqueezeAttrs { std::vector<int64_t> axes; };

inline void* CreateSqueeze(TF_OpKernelConstruction* ctx) {
  auto* attrs = new SqueezeAttrs();
  StatusPtr s = NewStatus();
  int32_t size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "squeeze_dims", &size, &total, s.get());
  if (TF_GetCode(s.get()) == TF_OK && size > 0) {
    attrs->axes.resize(size);
    TF_OpKernelConstruction_GetAttrInt64List(ctx, "squeeze_dims", attrs->axes.data(), size, s.get());
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void DeleteSqueeze(void* p) { delete static_cast<SqueezeAttrs*>(p); }

inline void SqueezeCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  std::vector<int64_t> dims = Dims(input.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> drop(rank, false);
  const auto& axes = static_cast<SqueezeAttrs*>(state)->axes;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Squeeze: dimension " + std::to_string(a) +
                                         " out of range for rank " + std::to_string(rank));
      return;
    }
    int64_t d = a < 0 ? a + rank : a;
    if (dims[d] != 1) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Can not squeeze dim[" + std::to_string(d) +
                                         "], expected a dimension of 1, got " + std::to_string(dims[d]));
      return;
    }
    drop[d] = true;
  }
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!(axes.empty() ? dims[d] == 1 : drop[d])) out.push_back(dims[d]);
  SetReshapedOutput(ctx, input, out);
}

// Shape, Size and Rank: Out (int32_t or int64_t) is the output's element type; the
// output is host memory on every device.
template <typename Out>
struct DescribeKernels {
  static constexpr TF_DataType kOutType = std::is_same_v<Out, int32_t> ? TF_INT32 : TF_INT64;
  static void Shape(void*, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    std::vector<int64_t> dims = Dims(input.get());
    TensorPtr output = AllocateOutput(ctx, 0, kOutType, {static_cast<int64_t>(dims.size())});
    if (!output) return;
    for (size_t i = 0; i < dims.size(); ++i) Data<Out>(output)[i] = static_cast<Out>(dims[i]);
  }
  static void Size(void*, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    TensorPtr output = AllocateOutput(ctx, 0, kOutType, {});
    if (output) *Data<Out>(output) = static_cast<Out>(TF_TensorElementCount(input.get()));
  }
  // ShapeN: Shape of each of the N inputs.
  static void ShapeN(void*, TF_OpKernelContext* ctx) {
    for (int i = 0; i < TF_NumInputs(ctx); ++i) {
      TensorPtr input = Input(ctx, i);
      if (!input) return;
      const std::vector<int64_t> dims = Dims(input.get());
      if (!FitsOut(ctx, "ShapeN", dims)) return;
      TensorPtr output = AllocateOutput(ctx, i, kOutType, {static_cast<int64_t>(dims.size())});
      if (!output) return;
      for (size_t d = 0; d < dims.size(); ++d) Data<Out>(output)[d] = static_cast<Out>(dims[d]);
    }
  }
  // False after reporting it when a dimension does not fit an int32 output.
  static bool FitsOut(TF_OpKernelContext* ctx, const char* op, const std::vector<int64_t>& dims) {
    for (int64_t d : dims)
      if (d > std::numeric_limits<Out>::max()) {
        Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": shape " + ShapeString(dims) +
                                           " does not fit the output type int32");
        return false;
      }
    return true;
  }
  static void Rank(void*, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    TensorPtr output = AllocateOutput(ctx, 0, kOutType, {});
    if (output) *Data<Out>(output) = static_cast<Out>(TF_NumDims(input.get()));
  }
};

// BroadcastArgs(s0, s1): the shape two operands of shapes s0 and s1 broadcast to, as
// numpy broadcasts (host memory on every device).
template <typename T>
void BroadcastArgsCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr s0 = Input(ctx, 0), s1 = Input(ctx, 1);
  if (!s0 || !s1) return;
  for (int i = 0; i < 2; ++i) {
    const TF_Tensor* s = i == 0 ? s0.get() : s1.get();
    if (TF_NumDims(s) != 1) {
      Fail(ctx, TF_INVALID_ARGUMENT, "In[" + std::to_string(i) + "] must be a vector." +
                                         ShapeString(Dims(s)));
      return;
    }
  }
  const std::vector<int64_t> a = IndexValues(s0.get()), b = IndexValues(s1.get());
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t k = 0; k < rank; ++k) {  // aligned at the last dimension
    const int64_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "Incompatible shapes: " + ShapeString(a) + " vs. " + ShapeString(b));
      return;
    }
    out[k] = x == 1 ? y : x;
  }
  TensorPtr r = AllocateOutput(ctx, 0, TF_TensorType(s0.get()), {static_cast<int64_t>(rank)});
  if (!r) return;
  for (size_t k = 0; k < rank; ++k) Data<T>(r)[k] = static_cast<T>(out[k]);
}

}  // namespace kernels
}  // namespace opgen

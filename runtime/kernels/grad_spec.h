// Host-side plans of the ops gradient graphs use, shared by the CPU kernels
// (cpu/math_grad.cc) and the CUDA plugin (cuda/math_grad.cu): BroadcastGradientArgs'
// whole computation (its operands are shapes, in host memory on every device) and the
// operand check of the fused element-wise gradients (SigmoidGrad, TanhGrad, ...).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// The axes of the broadcast shape of `s0` and `s1` that each operand's gradient sums
// over, increasing (TensorFlow's BCast without dim merging: equal shapes give none; else
// an axis where both shapes, padded with leading 1s, are 1 goes to both lists). false with `error` for shapes that
// do not broadcast.
inline bool BroadcastGradientAxes(const std::vector<int64_t>& s0, const std::vector<int64_t>& s1,
                                  std::vector<int64_t>* r0, std::vector<int64_t>* r1,
                                  std::string* error) {
  const size_t rank = std::max(s0.size(), s1.size());
  r0->clear();
  r1->clear();
  if (s0 == s1) return true;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = i + s0.size() < rank ? 1 : s0[i + s0.size() - rank];
    const int64_t b = i + s1.size() < rank ? 1 : s1[i + s1.size() - rank];
    const int64_t axis = static_cast<int64_t>(i);
    if (a == 1 && b == 1) {
      r0->push_back(axis);
      r1->push_back(axis);
    } else if (a == b) {
      continue;
    } else if (a == 1) {
      r0->push_back(axis);
    } else if (b == 1) {
      r1->push_back(axis);
    } else {
      *error = "Incompatible shapes: " + ShapeString(s0) + " vs. " + ShapeString(s1);
      return false;
    }
  }
  return true;
}

// BroadcastGradientArgs' kernel on any device: its inputs and outputs are in host memory.
template <typename Index>
void BroadcastGradientArgsCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr s0 = Input(ctx, 0), s1 = Input(ctx, 1);
  if (!s0 || !s1) return;
  for (const TF_Tensor* s : {s0.get(), s1.get()}) {
    if (TF_NumDims(s) != 1) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "s0 and s1 must be vectors, got shape " + ShapeString(Dims(s)));
      return;
    }
  }
  std::vector<int64_t> r0, r1;
  std::string error;
  if (!BroadcastGradientAxes(IndexValues(s0.get()), IndexValues(s1.get()), &r0, &r1, &error)) {
    Fail(ctx, TF_INVALID_ARGUMENT, error);
    return;
  }
  constexpr TF_DataType kType = sizeof(Index) == 4 ? TF_INT32 : TF_INT64;
  int out = 0;
  for (const std::vector<int64_t>* r : {&r0, &r1}) {
    TensorPtr t = AllocateOutput(ctx, out++, kType, {static_cast<int64_t>(r->size())});
    if (!t) return;
    std::copy(r->begin(), r->end(), Data<Index>(t));
  }
}

// The fused gradients read `y` and `dy` element by element: TensorFlow asks only for as
// many elements in both (the output takes y's shape).
inline bool CheckGradOperands(TF_OpKernelContext* ctx, const std::vector<int64_t>& y,
                              const std::vector<int64_t>& dy) {
  if (NumElements(y) == NumElements(dy)) return true;
  Fail(ctx, TF_INVALID_ARGUMENT,
       "The two arguments to a cwise op must have same number of elements, got " +
           std::to_string(NumElements(y)) + " and " + std::to_string(NumElements(dy)));
  return false;
}

}  // namespace kernels
}  // namespace opgen

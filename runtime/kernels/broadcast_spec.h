// numpy's broadcasting of operand shapes and the element-wise ops' shape errors, on the
// host: shared by the CPU kernels and the CUDA plugin's (element-wise ops, and
// BatchMatMulV2's batch dims in matmul_spec.h).
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// numpy's rule: align trailing dims; each pair must be equal or contain a 1. `*out` is
// written only on success, so it may be `&a` or `&b`.
inline bool BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                           std::vector<int64_t>* out) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    result[i] = da == 1 ? db : da;
  }
  *out = std::move(result);
  return true;
}

// The failure of operands (two or three) that do not broadcast together.
inline void FailIncompatibleShapes(TF_OpKernelContext* ctx,
                                   const std::vector<std::vector<int64_t>>& dims) {
  const std::string shapes = dims.size() == 2
                                 ? ShapeString(dims[0]) + " vs. " + ShapeString(dims[1])
                                 : ShapeString(dims[0]) + ", " + ShapeString(dims[1]) + " and " +
                                       ShapeString(dims[2]);
  Fail(ctx, TF_INVALID_ARGUMENT, "Incompatible shapes: " + shapes);
}

// Equal's and NotEqual's incompatible_shape_error attr. True (also where it is missing
// or unreadable): operands that do not broadcast are an error. False: they compare
// unequal as wholes, giving one bool (TensorFlow's semantics).
inline bool IncompatibleShapeError(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  TF_Bool raise = 1;
  if (TF_OpKernelConstruction_HasAttr(ctx, "incompatible_shape_error", s.get()))
    TF_OpKernelConstruction_GetAttrBool(ctx, "incompatible_shape_error", &raise, s.get());
  return TF_GetCode(s.get()) != TF_OK || raise != 0;
}

}  // namespace kernels
}  // namespace opgen

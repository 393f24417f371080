// The operand checks and output shapes of Split, SplitV, OneHot, BroadcastTo, Cumsum /
// Cumprod, TopKV2, Select (v1) and LeakyRelu's attr, on the host: shared by the CPU
// kernels and the CUDA plugin's, which differ only in the data movement. Index operands
// (split_dim, size_splits, depth, k, axis, shape) are host memory on every device.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <algorithm>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// An axis in [-rank, rank) made non-negative; false after reporting "<op>: <what> ..."
// when it is out of range or the operand is not a scalar.
inline bool ScalarAxis(TF_OpKernelContext* ctx, const TF_Tensor* t, int64_t rank, const char* op,
                       const char* what, int64_t* axis) {
  const std::vector<int64_t> v = IndexValues(t);
  if (TF_NumDims(t) != 0 || v.size() != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + what + " must be a scalar, got shape " +
                                       ShapeString(Dims(t)));
    return false;
  }
  if (v[0] < -rank || v[0] >= rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + what + " " + std::to_string(v[0]) +
                                       " is out of range for a tensor of rank " +
                                       std::to_string(rank) + " (expected [" +
                                       std::to_string(-rank) + ", " + std::to_string(rank) + "))");
    return false;
  }
  *axis = v[0] < 0 ? v[0] + rank : v[0];
  return true;
}

// ---- Split / SplitV ------------------------------------------------------------------

// `value` seen as [outer, dim, inner]; piece i takes sizes[i] rows of dim, starting at
// the sum of the sizes before it.
struct SplitPlan {
  TensorPtr value;
  std::vector<int64_t> dims;
  int64_t axis = 0, outer = 1, inner = 1;
  std::vector<int64_t> sizes;
};

inline void SplitGeometry(SplitPlan* plan) {
  OuterInner(plan->dims, plan->axis, &plan->outer, &plan->inner);
}

// Split(split_dim, value).
inline bool PlanSplit(TF_OpKernelContext* ctx, SplitPlan* plan) {
  TensorPtr axis_t = Input(ctx, 0);
  plan->value = Input(ctx, 1);
  if (!axis_t || !plan->value) return false;
  plan->dims = Dims(plan->value.get());
  const int64_t rank = static_cast<int64_t>(plan->dims.size());
  if (!ScalarAxis(ctx, axis_t.get(), rank, "Split", "split_dim", &plan->axis)) return false;
  const int64_t n = TF_NumOutputs(ctx), dim = plan->dims[plan->axis];
  if (dim % n != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Split: number of ways to split should evenly divide the split dimension, but got "
         "split_dim " + std::to_string(plan->axis) + " (size = " + std::to_string(dim) +
             ") and num_split " + std::to_string(n));
    return false;
  }
  plan->sizes.assign(n, dim / n);
  SplitGeometry(plan);
  return true;
}

// SplitV(value, size_splits, split_dim): one size may be -1, taking the rest.
inline bool PlanSplitV(TF_OpKernelContext* ctx, SplitPlan* plan) {
  plan->value = Input(ctx, 0);
  TensorPtr sizes_t = Input(ctx, 1), axis_t = Input(ctx, 2);
  if (!plan->value || !sizes_t || !axis_t) return false;
  plan->dims = Dims(plan->value.get());
  const int64_t rank = static_cast<int64_t>(plan->dims.size());
  if (!ScalarAxis(ctx, axis_t.get(), rank, "SplitV", "split_dim", &plan->axis)) return false;
  const int64_t n = TF_NumOutputs(ctx), dim = plan->dims[plan->axis];
  std::vector<int64_t> sizes;
  if (TF_TensorType(sizes_t.get()) == TF_INT8) {
    const int8_t* p = static_cast<const int8_t*>(TF_TensorData(sizes_t.get()));
    sizes.assign(p, p + TF_TensorElementCount(sizes_t.get()));
  } else {
    sizes = IndexValues(sizes_t.get());
  }
  if (TF_NumDims(sizes_t.get()) != 1 || static_cast<int64_t>(sizes.size()) != n) {
    Fail(ctx, TF_INVALID_ARGUMENT, "SplitV: size_splits must be a vector of num_split = " +
                                       std::to_string(n) + " sizes, got shape " +
                                       ShapeString(Dims(sizes_t.get())));
    return false;
  }
  int64_t total = 0, rest = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (sizes[i] == -1 && rest < 0) {
      rest = i;
    } else if (sizes[i] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           sizes[i] == -1 ? "SplitV: size_splits may hold at most one -1: " + ShapeString(sizes)
                          : "SplitV: size_splits entry " + std::to_string(i) + " is negative: " +
                                ShapeString(sizes));
      return false;
    } else {
      total += sizes[i];
    }
  }
  if (rest >= 0 ? total > dim : total != dim) {
    Fail(ctx, TF_INVALID_ARGUMENT, "SplitV: size_splits " + ShapeString(sizes) +
                                       " do not add up to the size " + std::to_string(dim) +
                                       " of split_dim " + std::to_string(plan->axis));
    return false;
  }
  if (rest >= 0) sizes[rest] = dim - total;
  plan->sizes = std::move(sizes);
  SplitGeometry(plan);
  return true;
}

// ---- OneHot --------------------------------------------------------------------------

struct OneHotAttrs { int64_t axis = -1; };
inline void* CreateOneHot(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new OneHotAttrs;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "axis", &attrs->axis, s.get());
  if (TF_GetCode(s.get()) == TF_OK && attrs->axis < -1)
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 ("OneHot: axis must be -1 or a dimension index, not " +
                  std::to_string(attrs->axis)).c_str());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void DeleteOneHot(void* p) { delete static_cast<OneHotAttrs*>(p); }

// Output [prefix, depth, suffix]: element (p, d, s) is on where indices[p, s] == d.
struct OneHotPlan {
  TensorPtr indices, on, off;
  int64_t prefix = 1, depth = 0, suffix = 1;
  std::vector<int64_t> out_dims;
};

inline bool PlanOneHot(TF_OpKernelContext* ctx, const OneHotAttrs& attrs, OneHotPlan* plan) {
  plan->indices = Input(ctx, 0);
  TensorPtr depth_t = Input(ctx, 1);
  plan->on = Input(ctx, 2);
  plan->off = Input(ctx, 3);
  if (!plan->indices || !depth_t || !plan->on || !plan->off) return false;
  const std::vector<int64_t> dims = Dims(plan->indices.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (TF_NumDims(depth_t.get()) != 0 || TF_NumDims(plan->on.get()) != 0 ||
      TF_NumDims(plan->off.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "OneHot: depth, on_value and off_value must be scalars");
    return false;
  }
  const int64_t depth = IndexValues(depth_t.get())[0];
  if (depth < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "OneHot: depth must be non-negative, got: " + std::to_string(depth));
    return false;
  }
  if (attrs.axis > rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "OneHot: axis " + std::to_string(attrs.axis) +
                                       " is out of range for indices of rank " + std::to_string(rank));
    return false;
  }
  const int64_t axis = attrs.axis == -1 ? rank : attrs.axis;
  plan->depth = depth;
  plan->prefix = 1;
  plan->suffix = 1;
  for (int64_t d = 0; d < axis; ++d) plan->prefix *= dims[d];
  for (int64_t d = axis; d < rank; ++d) plan->suffix *= dims[d];
  plan->out_dims = dims;
  plan->out_dims.insert(plan->out_dims.begin() + axis, depth);
  return CheckShapeSize(ctx, "OneHot", plan->out_dims);
}

// ---- BroadcastTo ---------------------------------------------------------------------

// The input's element stride per output dim (0 where broadcast).
struct BroadcastToPlan {
  TensorPtr input;
  std::vector<int64_t> out_dims, strides;
};

inline bool PlanBroadcastTo(TF_OpKernelContext* ctx, BroadcastToPlan* plan) {
  plan->input = Input(ctx, 0);
  TensorPtr shape_t = Input(ctx, 1);
  if (!plan->input || !shape_t) return false;
  if (TF_NumDims(shape_t.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "BroadcastTo: shape must be a vector, got shape " +
                                       ShapeString(Dims(shape_t.get())));
    return false;
  }
  const std::vector<int64_t> in = Dims(plan->input.get());
  plan->out_dims = IndexValues(shape_t.get());
  if (!CheckShapeSize(ctx, "BroadcastTo", plan->out_dims)) return false;
  const size_t rank = plan->out_dims.size();
  if (in.size() > rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "BroadcastTo: rank of input " + ShapeString(in) +
                                       " is greater than the rank of shape " +
                                       ShapeString(plan->out_dims));
    return false;
  }
  plan->strides.assign(rank, 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t i = in.size() - 1 - k, o = rank - 1 - k;
    if (in[i] != 1 && in[i] != plan->out_dims[o]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "BroadcastTo: input " + ShapeString(in) +
                                         " is not compatible with shape " +
                                         ShapeString(plan->out_dims));
      return false;
    }
    plan->strides[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return true;
}

// ---- Cumsum / Cumprod ----------------------------------------------------------------

struct CumulativeAttrs { bool exclusive = false, reverse = false; };
inline void* CreateCumulative(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new CumulativeAttrs;
  attrs->exclusive = BoolAttr(ctx, "exclusive", s.get());
  if (TF_GetCode(s.get()) == TF_OK) attrs->reverse = BoolAttr(ctx, "reverse", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void DeleteCumulative(void* p) { delete static_cast<CumulativeAttrs*>(p); }

// x as [outer, len, inner]; the scan runs along len.
struct CumulativePlan {
  TensorPtr x;
  std::vector<int64_t> dims;
  int64_t outer = 1, len = 1, inner = 1;
};

inline bool PlanCumulative(TF_OpKernelContext* ctx, const char* op, CumulativePlan* plan) {
  plan->x = Input(ctx, 0);
  TensorPtr axis_t = Input(ctx, 1);
  if (!plan->x || !axis_t) return false;
  plan->dims = Dims(plan->x.get());
  int64_t axis = 0;
  const int64_t rank = static_cast<int64_t>(plan->dims.size());
  if (rank == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": x must have rank >= 1, got a scalar");
    return false;
  }
  if (!ScalarAxis(ctx, axis_t.get(), rank, op, "axis", &axis)) return false;
  OuterInner(plan->dims, axis, &plan->outer, &plan->inner);
  plan->len = plan->dims[axis];
  return true;
}

// ---- TopKV2 --------------------------------------------------------------------------

// input as [rows, cols]; each row keeps its k largest.
struct TopKPlan {
  TensorPtr input;
  int64_t rows = 1, cols = 0, k = 0;
  std::vector<int64_t> out_dims;
};

inline bool PlanTopK(TF_OpKernelContext* ctx, TopKPlan* plan) {
  plan->input = Input(ctx, 0);
  TensorPtr k_t = Input(ctx, 1);
  if (!plan->input || !k_t) return false;
  const std::vector<int64_t> dims = Dims(plan->input.get());
  if (dims.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "TopKV2: input must have rank >= 1, got a scalar");
    return false;
  }
  int64_t k = 0;
  if (TF_NumDims(k_t.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "TopKV2: k must be a scalar, got shape " + ShapeString(Dims(k_t.get())));
    return false;
  }
  if (TF_TensorType(k_t.get()) == TF_INT16) k = *static_cast<const int16_t*>(TF_TensorData(k_t.get()));
  else k = IndexValues(k_t.get())[0];
  plan->cols = dims.back();
  if (k < 0 || k > plan->cols) {
    Fail(ctx, TF_INVALID_ARGUMENT, k < 0 ? "TopKV2: k must be non-negative, got " + std::to_string(k)
                                         : "TopKV2: input must have at least k=" + std::to_string(k) +
                                               " columns, has " + std::to_string(plan->cols));
    return false;
  }
  plan->k = k;
  plan->rows = NumElements(dims) / std::max<int64_t>(plan->cols, 1);
  if (plan->cols == 0) plan->rows = NumElements(std::vector<int64_t>(dims.begin(), dims.end() - 1));
  plan->out_dims = dims;
  plan->out_dims.back() = k;
  return true;
}

// ---- Select (v1) ---------------------------------------------------------------------

// `t`, `e` of one shape; condition a scalar (`inner` = all), the same shape (`inner` =
// 1), or a vector over the first dimension (`inner` = the elements of one row).
struct SelectV1Plan {
  TensorPtr condition, t, e;
  std::vector<int64_t> dims;
  int64_t n = 0, inner = 1;
  bool scalar = false;
};

inline bool PlanSelectV1(TF_OpKernelContext* ctx, SelectV1Plan* plan) {
  plan->condition = Input(ctx, 0);
  plan->t = Input(ctx, 1);
  plan->e = Input(ctx, 2);
  if (!plan->condition || !plan->t || !plan->e) return false;
  const std::vector<int64_t> c = Dims(plan->condition.get());
  plan->dims = Dims(plan->t.get());
  if (Dims(plan->e.get()) != plan->dims) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Select: 't' and 'e' must have the same shapes: " +
                                       ShapeString(plan->dims) + " vs. " +
                                       ShapeString(Dims(plan->e.get())));
    return false;
  }
  plan->n = NumElements(plan->dims);
  if (c.empty()) {
    plan->scalar = true;
    plan->inner = plan->n;
  } else if (c == plan->dims) {
    plan->inner = 1;
  } else if (c.size() == 1 && plan->dims.size() > 1 && c[0] == plan->dims[0]) {
    plan->inner = plan->dims[0] ? plan->n / plan->dims[0] : 1;
  } else {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Select: condition " + ShapeString(c) + " must be a scalar, a vector over the first "
         "dimension of t, or shaped as t " + ShapeString(plan->dims));
    return false;
  }
  return true;
}

// ---- Cast ----------------------------------------------------------------------------

// `Truncate`: narrowing float32 to bfloat16 rounds toward zero instead of to nearest
// even. TensorFlow 2.21 honours it there only (float64 to bfloat16 still rounds);
// ../cast_spec.h TruncatedBfloat16Bits.
struct CastAttrs { bool truncate = false; };
inline void* CreateCast(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new CastAttrs;
  TF_Bool truncate = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, "Truncate", &truncate, s.get());
  attrs->truncate = TF_GetCode(s.get()) == TF_OK && truncate;  // absent: the default, false
  return attrs;
}
inline void DeleteCast(void* p) { delete static_cast<CastAttrs*>(p); }

// ---- LeakyRelu -----------------------------------------------------------------------

struct LeakyReluAttrs { float alpha = 0.2f; };
inline void* CreateLeakyRelu(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new LeakyReluAttrs;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "alpha", &attrs->alpha, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void DeleteLeakyRelu(void* p) { delete static_cast<LeakyReluAttrs*>(p); }

}  // namespace kernels
}  // namespace opgen

// ConcatV2's, Pack's and Unpack's inputs checked and their output shapes worked out, on
// the host: shared by the CPU kernels and the CUDA plugin's, which differ only in the copy.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// The pieces a join reads, the (non-negative) axis they are joined along, and the
// output's shape.
struct JoinPlan {
  std::vector<TensorPtr> pieces;
  int64_t axis = 0;
  std::vector<int64_t> out_dims;
};

// ConcatV2(values: N tensors, axis: a host scalar), or with `axis_first` the TF1-era
// Concat(concat_dim, values). False after reporting the failure.
inline bool PlanConcat(TF_OpKernelContext* ctx, JoinPlan* plan, bool axis_first = false) {
  const int n = TF_NumInputs(ctx) - 1, first = axis_first ? 1 : 0;
  for (int i = first; i < first + n; ++i) {
    plan->pieces.push_back(Input(ctx, i));
    if (!plan->pieces.back()) return false;
  }
  TensorPtr axis_t = Input(ctx, axis_first ? 0 : n);
  if (!axis_t) return false;
  const std::vector<int64_t> dims = Dims(plan->pieces[0].get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  const std::vector<int64_t> axis = IndexValues(axis_t.get());
  if (axis.size() != 1 || axis[0] < -rank || axis[0] >= rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "ConcatV2: axis must be a scalar in [" + std::to_string(-rank) +
                                       ", " + std::to_string(rank) + ")");
    return false;
  }
  const int64_t a = axis[0] < 0 ? axis[0] + rank : axis[0];
  std::vector<int64_t> out_dims = dims;
  out_dims[a] = 0;
  for (const TensorPtr& piece : plan->pieces) {
    const std::vector<int64_t> pd = Dims(piece.get());
    bool fits = pd.size() == dims.size();
    for (int64_t d = 0; fits && d < rank; ++d) fits = d == a || pd[d] == dims[d];
    if (!fits) {
      Fail(ctx, TF_INVALID_ARGUMENT, "ConcatV2: shapes " + ShapeString(dims) + " and " +
                                         ShapeString(pd) + " differ outside axis " + std::to_string(a));
      return false;
    }
    if (__builtin_add_overflow(out_dims[a], pd[a], &out_dims[a])) {  // empty pieces can be that long
      Fail(ctx, TF_INVALID_ARGUMENT, "ConcatV2: the sizes along axis " + std::to_string(a) + " pass int64");
      return false;
    }
  }
  plan->axis = a;
  plan->out_dims = std::move(out_dims);
  return true;
}

// ParallelConcat(values: N tensors of shape [1, ...]): the values stacked along dimension
// 0, as ConcatV2 along 0. (The shape attr is checked by the shape function.)
inline bool PlanParallelConcat(TF_OpKernelContext* ctx, JoinPlan* plan) {
  const int n = TF_NumInputs(ctx);
  for (int i = 0; i < n; ++i) {
    plan->pieces.push_back(Input(ctx, i));
    if (!plan->pieces.back()) return false;
  }
  const std::vector<int64_t> dims = Dims(plan->pieces[0].get());
  for (const TensorPtr& piece : plan->pieces) {
    const std::vector<int64_t> pd = Dims(piece.get());
    if (pd.empty() || pd[0] != 1 || pd != dims) {
      Fail(ctx, TF_INVALID_ARGUMENT, "ParallelConcat: each value must have shape " +
                                         ShapeString(dims.empty() ? std::vector<int64_t>{1} : dims) +
                                         " with a first dimension of 1, got " + ShapeString(pd));
      return false;
    }
  }
  plan->axis = 0;
  plan->out_dims = dims;
  plan->out_dims[0] = n;
  return true;
}

// Pack's and Unpack's "axis" attr, read once per kernel (the kernel's state).
struct AxisAttr { int64_t axis = 0; };
inline void* CreateAxisAttr(TF_OpKernelConstruction* ctx) {
  auto* attr = new AxisAttr();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrInt64(ctx, "axis", &attr->axis, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attr;
}
inline void DeleteAxisAttr(void* p) { delete static_cast<AxisAttr*>(p); }

// Pack(values: N tensors of one shape; attr axis). The output has a new dimension of
// size N at `axis`. False after reporting the failure.
inline bool PlanPack(TF_OpKernelContext* ctx, const AxisAttr& attr, JoinPlan* plan) {
  const int n = TF_NumInputs(ctx);
  for (int i = 0; i < n; ++i) {
    plan->pieces.push_back(Input(ctx, i));
    if (!plan->pieces.back()) return false;
  }
  const std::vector<int64_t> dims = Dims(plan->pieces[0].get());
  const int64_t rank = static_cast<int64_t>(dims.size()) + 1;
  int64_t axis = attr.axis;
  if (axis < -rank || axis >= rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Pack: axis " + std::to_string(axis) + " out of range for rank " +
                                       std::to_string(rank));
    return false;
  }
  if (axis < 0) axis += rank;
  for (const TensorPtr& piece : plan->pieces) {
    if (Dims(piece.get()) != dims) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Pack: shapes of all inputs must match: " + ShapeString(dims) +
                                         " vs. " + ShapeString(Dims(piece.get())));
      return false;
    }
  }
  plan->axis = axis;
  plan->out_dims = dims;
  plan->out_dims.insert(plan->out_dims.begin() + axis, n);
  return true;
}

// Unpack(value; attrs num, axis): output i is the value's slice i along `axis`, which
// has TF_NumOutputs entries. The value seen as [outer, num, inner].
struct UnpackPlan {
  TensorPtr value;
  int64_t axis = 0;  // non-negative
  int num = 0;
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> out_dims;  // the value's shape without `axis`
};

// False after reporting the failure.
inline bool PlanUnpack(TF_OpKernelContext* ctx, const AxisAttr& attr, UnpackPlan* plan) {
  TensorPtr value = Input(ctx, 0);
  if (!value) return false;
  const std::vector<int64_t> dims = Dims(value.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t axis = attr.axis;
  if (axis < -rank || axis >= rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Unpack: axis " + std::to_string(axis) + " out of range for rank " +
                                       std::to_string(rank));
    return false;
  }
  if (axis < 0) axis += rank;
  const int num = TF_NumOutputs(ctx);
  if (dims[axis] != num) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Unpack: input has " + std::to_string(dims[axis]) +
                                       " entries along axis " + std::to_string(axis) + ", but num is " +
                                       std::to_string(num));
    return false;
  }
  OuterInner(dims, axis, &plan->outer, &plan->inner);
  plan->out_dims = dims;
  plan->out_dims.erase(plan->out_dims.begin() + axis);
  plan->value = std::move(value);
  plan->axis = axis;
  plan->num = num;
  return true;
}

}  // namespace kernels
}  // namespace opgen

// The ops that make a tensor of given values: Const's value attr and Fill's operands
// checked, on the host: shared by the CPU kernels and the CUDA plugin's.
#pragma once

#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// Const's `value` attr, checked against its `dtype` attr at construction; the caller
// owns it. Nullptr after reporting the failure. kShared: the graph's copy of the value,
// never to be written (the CPU kernel outputs it as it is); else a copy of its own.
template <bool kShared = false>
TF_Tensor* ReadConstValue(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  TF_Tensor* value = nullptr;
  TF_DataType dtype = TF_FLOAT;
  if constexpr (kShared)
    OPGEN_OpKernelConstructionGetAttrTensorShared(ctx, "value", &value, s.get());
  else
    TF_OpKernelConstruction_GetAttrTensor(ctx, "value", &value, s.get());
  if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrType(ctx, "dtype", &dtype, s.get());
  if (TF_GetCode(s.get()) == TF_OK && TF_TensorType(value) != dtype) {
    const std::string message = std::string("type mismatch between value (") +
                                DTypeName(TF_TensorType(value)) + ") and attr 'dtype' (" +
                                DTypeName(dtype) + ")";
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, message.c_str());
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_DeleteTensor(value);
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return value;
}

// Fill(dims, value): every element of the output, of shape `dims`, is the scalar value.
// Empty(shape): the output's dims; the kernels zero it (TensorFlow leaves it unset unless
// `init`: zeros are one of the values it may hold, and reproducible).
inline bool PlanEmpty(TF_OpKernelContext* ctx, std::vector<int64_t>* dims) {
  TensorPtr shape_t = Input(ctx, 0);
  if (!shape_t) return false;
  if (TF_NumDims(shape_t.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "shape must be a vector of int32, got shape " +
                                       ShapeString(Dims(shape_t.get())));
    return false;
  }
  *dims = IndexValues(shape_t.get());
  for (int64_t d : *dims) {
    if (d < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Dimension " + std::to_string(d) + " must be >= 0");
      return false;
    }
  }
  return CheckShapeSize(ctx, "Empty", *dims);
}

struct FillPlan {
  TensorPtr value;
  std::vector<int64_t> dims;
};

// False after reporting the failure.
inline bool PlanFill(TF_OpKernelContext* ctx, FillPlan* plan) {
  TensorPtr dims_t = Input(ctx, 0), value = Input(ctx, 1);
  if (!dims_t || !value) return false;
  if (TF_NumDims(dims_t.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Fill: dims must be a vector, got shape " + ShapeString(Dims(dims_t.get())));
    return false;
  }
  std::vector<int64_t> dims = IndexValues(dims_t.get());
  // A scalar; TensorFlow's kernel also takes a vector of one element (its legacy form).
  if (TF_NumDims(value.get()) != 0 &&
      !(TF_NumDims(value.get()) == 1 && TF_TensorElementCount(value.get()) == 1)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Fill: value must be a scalar, got shape " + ShapeString(Dims(value.get())));
    return false;
  }
  for (int64_t d : dims) {
    if (d < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Fill: dims must be non-negative, got " + ShapeString(dims));
      return false;
    }
  }
  if (!CheckShapeSize(ctx, "Fill", dims)) return false;
  plan->value = std::move(value);
  plan->dims = std::move(dims);
  return true;
}

}  // namespace kernels
}  // namespace opgen

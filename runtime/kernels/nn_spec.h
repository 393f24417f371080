// The attrs and input checks of BiasAdd, FusedBatchNormV3 and Softmax / LogSoftmax, on
// the host: shared by the CPU kernels and the CUDA plugin's, which differ only in the
// arithmetic.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// ---- BiasAdd ------------------------------------------------------------------------

// The kernel's state: whether data_format puts channels first (NCHW).
struct BiasAddAttrs { bool channels_first = false; };

inline void* CreateBiasAdd(TF_OpKernelConstruction* ctx) {
  auto* attrs = new BiasAddAttrs();
  StatusPtr s = NewStatus();
  attrs->channels_first = StringAttr(ctx, "data_format", s.get()) == "NCHW";
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void DeleteBiasAdd(void* p) { delete static_cast<BiasAddAttrs*>(p); }

// BiasAdd(value, bias): the value seen as [rows, channels, inner]; element i gets
// bias[(i / inner) % channels].
struct BiasAddPlan {
  TensorPtr value, bias;
  std::vector<int64_t> dims;  // the value's and the output's shape
  int64_t channels = 0, inner = 1;
};

// False after reporting the failure.
inline bool PlanBiasAdd(TF_OpKernelContext* ctx, const BiasAddAttrs& attrs, BiasAddPlan* plan) {
  TensorPtr value = Input(ctx, 0), bias = Input(ctx, 1);
  if (!value || !bias) return false;
  const std::vector<int64_t> dims = Dims(value.get()), bdims = Dims(bias.get());
  const size_t channel_axis = attrs.channels_first ? 1 : dims.size() - 1;
  if (dims.size() < 2 || bdims.size() != 1 || bdims[0] != dims[channel_axis]) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Must provide as many biases as the channel dimension of the input: value " +
             ShapeString(dims) + ", bias " + ShapeString(bdims));
    return false;
  }
  int64_t outer;
  OuterInner(dims, static_cast<int64_t>(channel_axis), &outer, &plan->inner);
  plan->channels = dims[channel_axis];
  plan->value = std::move(value);
  plan->bias = std::move(bias);
  plan->dims = dims;
  return true;
}

// ---- FusedBatchNormV3 -----------------------------------------------------------------

// The kernel's state: both layouts, channels last (NHWC, NDHWC) or first (NCHW, NCDHW),
// as TensorFlow's CPU and GPU kernels take them.
struct BatchNormAttrs {
  float epsilon = 1e-4f;
  float exponential_avg_factor = 1.0f;
  bool is_training = true;
  bool channels_first = false;  // NCHW / NCDHW: x seen as [outer, c, inner]
};

inline void* CreateBatchNorm(TF_OpKernelConstruction* ctx) {
  auto* attrs = new BatchNormAttrs();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrFloat(ctx, "epsilon", &attrs->epsilon, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrFloat(ctx, "exponential_avg_factor",
                                         &attrs->exponential_avg_factor, s.get());
  std::string format;
  if (TF_GetCode(s.get()) == TF_OK) format = StringAttr(ctx, "data_format", s.get());
  attrs->channels_first = format.size() > 1 && format[1] == 'C';
  if (TF_GetCode(s.get()) == TF_OK) attrs->is_training = BoolAttr(ctx, "is_training", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return attrs;
}
inline void DeleteBatchNorm(void* p) { delete static_cast<BatchNormAttrs*>(p); }

// FusedBatchNorm*(x, scale, offset, mean, variance) on x seen as [outer, c, inner]
// (inner == 1 channels last; rows == outer * inner values per channel). In training,
// mean and variance may be empty (no running statistics yet).
struct BatchNormPlan {
  TensorPtr x, scale, offset, mean, variance;
  std::vector<int64_t> dims;  // x's and y's shape
  int64_t c = 0, rows = 0, outer = 0, inner = 1;
  bool has_mean = false, has_variance = false;  // one value per channel
};

// False after reporting the failure.
inline bool PlanBatchNorm(TF_OpKernelContext* ctx, const BatchNormAttrs& attrs, BatchNormPlan* plan) {
  TensorPtr x = Input(ctx, 0), scale = Input(ctx, 1), offset = Input(ctx, 2), mean = Input(ctx, 3),
            variance = Input(ctx, 4);
  if (!x || !scale || !offset || !mean || !variance) return false;
  const std::vector<int64_t> dims = Dims(x.get());
  const size_t channel_axis = attrs.channels_first ? 1 : (dims.empty() ? 0 : dims.size() - 1);
  const int64_t c = dims.size() < 2 ? 0 : dims[channel_axis];
  const bool has_mean = TF_TensorElementCount(mean.get()) == c;
  const bool has_variance = TF_TensorElementCount(variance.get()) == c;
  bool vectors = true;  // the per-channel operands, each of rank 1
  for (const TensorPtr* t : {&scale, &offset, &mean, &variance}) vectors = vectors && TF_NumDims(t->get()) == 1;
  if (dims.size() < 2 || !vectors || TF_TensorElementCount(scale.get()) != c ||
      TF_TensorElementCount(offset.get()) != c ||
      (!attrs.is_training && (!has_mean || !has_variance))) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "FusedBatchNormV3: scale, offset, mean and variance need one value per channel of x " +
             ShapeString(dims));
    return false;
  }
  plan->x = std::move(x);
  plan->scale = std::move(scale);
  plan->offset = std::move(offset);
  plan->mean = std::move(mean);
  plan->variance = std::move(variance);
  plan->dims = dims;
  plan->c = c;
  OuterInner(dims, static_cast<int64_t>(channel_axis), &plan->outer, &plan->inner);
  plan->rows = plan->outer * plan->inner;
  plan->has_mean = has_mean;
  plan->has_variance = has_variance;
  return true;
}

// ---- Softmax, LogSoftmax ----------------------------------------------------------------

// Softmax(logits) over the last dim: `rows` rows of `depth` values; the output has the
// logits' shape.
struct SoftmaxPlan {
  TensorPtr logits;
  std::vector<int64_t> dims;
  int64_t depth = 0, rows = 0;
};

// False after reporting the failure.
inline bool PlanSoftmax(TF_OpKernelContext* ctx, SoftmaxPlan* plan) {
  TensorPtr logits = Input(ctx, 0);
  if (!logits) return false;
  const std::vector<int64_t> dims = Dims(logits.get());
  if (dims.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "logits must have rank >= 1, got a scalar");
    return false;
  }
  plan->depth = dims.back();
  plan->rows = plan->depth == 0 ? 0 : NumElements(dims) / plan->depth;
  plan->logits = std::move(logits);
  plan->dims = dims;
  return true;
}

}  // namespace kernels
}  // namespace opgen

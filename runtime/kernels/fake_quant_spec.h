// FakeQuantWithMinMax{Args,Vars,VarsPerChannel} and their gradients: the attrs, the input
// checks and TensorFlow's nudging of [min, max] onto the quantized grid, shared by the CPU
// kernels and the CUDA plugin's. Each channel's range is nudged where it is used (on the
// device for the CUDA kernels: min and max are device inputs there, as in TensorFlow).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct FakeQuantAttrs {
  float min = -6.0f, max = 6.0f;  // the Args ops' attrs
  int quant_min = 0, quant_max = 255;
};

// Reads num_bits and narrow_range (and, with `args`, min and max); refuses them with
// TensorFlow's messages.
inline FakeQuantAttrs* CreateFakeQuant(TF_OpKernelConstruction* ctx, bool args) {
  auto* a = new FakeQuantAttrs();
  StatusPtr s = NewStatus();
  int64_t num_bits = 8;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "num_bits", &num_bits, s.get());
  bool narrow = false;
  if (TF_GetCode(s.get()) == TF_OK) narrow = BoolAttr(ctx, "narrow_range", s.get());
  if (args && TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrFloat(ctx, "min", &a->min, s.get());
  if (args && TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrFloat(ctx, "max", &a->max, s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    if (num_bits < 2 || num_bits > 16) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "num_bits must be between 2 and 16, inclusive");
    } else if (args && !(a->min < a->max)) {
      // std::to_string prints 1.000000; TensorFlow prints floats shortest (1).
      auto str = [](float v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
        return std::string(buf);
      };
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("min has to be smaller than max, was: " + str(a->min) + " >= " + str(a->max)).c_str());
    }
    a->quant_min = narrow ? 1 : 0;
    a->quant_max = (1 << num_bits) - 1;
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void* CreateFakeQuantArgs(TF_OpKernelConstruction* ctx) { return CreateFakeQuant(ctx, true); }
inline void* CreateFakeQuantVars(TF_OpKernelConstruction* ctx) { return CreateFakeQuant(ctx, false); }
inline void DeleteFakeQuant(void* p) { delete static_cast<FakeQuantAttrs*>(p); }

// [min, max] moved so that zero is exactly representable, and the step between levels.
struct NudgedRange {
  float min, max, scale;
};

OPGEN_HD inline NudgedRange Nudge(float min, float max, int quant_min, int quant_max) {
  const float qmin = static_cast<float>(quant_min), qmax = static_cast<float>(quant_max);
  const float scale = (max - min) / (qmax - qmin);
  const float zero_from_min = qmin - min / scale;
  float zero;
  if (zero_from_min < qmin) zero = qmin;
  else if (zero_from_min > qmax) zero = qmax;
  else zero = static_cast<float>(static_cast<unsigned>(roundf(zero_from_min)));
  return {(qmin - zero) * scale, (qmax - zero) * scale, scale};
}

// x clamped into the nudged range and rounded to its nearest level (ties up).
OPGEN_HD inline float FakeQuantValue(float x, const NudgedRange& n) {
  const float clamped = fmaxf(fminf(x, n.max), n.min);
  return floorf((clamped - n.min) * (1.0f / n.scale) + 0.5f) * n.scale + n.min;
}

// The Vars ops' forward with min == max == 0: every output is 0 (TensorFlow's special case).
OPGEN_HD inline bool BothZero(float min, float max) { return min == 0.0f && max == 0.0f; }

// Per channel of the last dimension (`channels` 1 for the scalar-range ops): the operand
// as [rows, channels]. `grad` names the gradient ops, which take gradients then inputs.
struct FakeQuantPlan {
  TensorPtr inputs, gradients, min, max;
  std::vector<int64_t> dims;
  int64_t rows = 0, channels = 1;
};

// kind: 0 Args, 1 Vars, 2 VarsPerChannel. False after reporting the failure.
inline bool PlanFakeQuant(TF_OpKernelContext* ctx, int kind, bool grad, FakeQuantPlan* p) {
  const int first = grad ? 1 : 0;
  p->inputs = Input(ctx, first);
  if (!p->inputs) return false;
  p->dims = Dims(p->inputs.get());
  if (grad) {
    p->gradients = Input(ctx, 0);
    if (!p->gradients) return false;
    if (Dims(p->gradients.get()) != p->dims) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           kind == 0 ? "Inputs to operation FakeQuantWithMinMaxArgsGradient of type "
                       "FakeQuantWithMinMaxArgsGradient must have the same size and shape.  Input 0: " +
                           ShapeString(Dims(p->gradients.get())) + " != input 1: " + ShapeString(p->dims)
                     : std::string("gradient and input must be the same size"));
      return false;
    }
  }
  const int64_t n = NumElements(p->dims);
  if (kind == 2) {
    if (p->dims.empty()) {  // TensorFlow dies on a CHECK here
      Fail(ctx, TF_INVALID_ARGUMENT, "inputs must be at least 1-D (the last dimension is the channel)");
      return false;
    }
    p->channels = p->dims.back();
  }
  p->rows = p->channels > 0 ? n / p->channels : 0;
  if (kind == 0) return true;
  p->min = Input(ctx, first + 1);
  p->max = Input(ctx, first + 2);
  if (!p->min || !p->max) return false;
  const char* names[] = {"min", "max"};
  const TensorPtr* ranges[] = {&p->min, &p->max};
  for (int i = 0; i < 2; ++i) {
    const std::vector<int64_t> d = Dims(ranges[i]->get());
    if (kind == 1 && !d.empty()) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string("`") + names[i] + "` must be rank 0 but is rank " +
                                         std::to_string(d.size()));
      return false;
    }
    if (kind == 2 && (d.size() != 1 || d[0] != p->channels)) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(names[i]) + " has incorrect size, expected " +
                                         std::to_string(p->channels) + " was " +
                                         (d.size() == 1 ? std::to_string(d[0]) : ShapeString(d)));
      return false;
    }
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen

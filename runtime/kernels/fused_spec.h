// The attrs of the optimizer's fused ops (_OpgenFusedConv2D, _OpgenFusedMatMul), on the
// host: shared by the CPU kernels and the CUDA plugin's. The convolution or product is
// Conv2D's / MatMul's (window_spec.h, matmul_spec.h); this adds the epilogue: a bias
// (input 2, one value per output channel) and an activation.
#pragma once

#include <string>

#include "cpu/conv2d_float.h"  // the Activation enum (plain C++, no CPU code)
#include "kernel_api_util.h"
#include "matmul_spec.h"
#include "window_spec.h"

namespace opgen {
namespace kernels {

using cpu::Activation;

// The `activation` attr's names, in the order of cpu::Activation.
inline bool ActivationFromName(const std::string& name, Activation* out) {
  static const char* const kNames[] = {"None",    "Relu", "Relu6",     "Elu",      "LeakyRelu",
                                       "Sigmoid", "Swish", "Tanh", "GeluExact", "GeluTanh"};
  for (int i = 0; i < static_cast<int>(sizeof(kNames) / sizeof(kNames[0])); ++i) {
    if (name == kNames[i]) {
      *out = static_cast<Activation>(i);
      return true;
    }
  }
  return false;
}

struct FusedEpilogueAttrs {
  Activation activation = Activation::kNone;
  float alpha = 0.2f;
};

// Reads `activation` and `leakyrelu_alpha`; false after failing the construction.
inline bool ReadFusedEpilogue(TF_OpKernelConstruction* ctx, FusedEpilogueAttrs* out) {
  StatusPtr s = NewStatus();
  const std::string name = StringAttr(ctx, "activation", s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrFloat(ctx, "leakyrelu_alpha", &out->alpha, s.get());
  if (TF_GetCode(s.get()) == TF_OK && !ActivationFromName(name, &out->activation))
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, ("unknown fused activation '" + name + "'").c_str());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return false;
  }
  return true;
}

// _OpgenFusedConv2D's state: Conv2D's window and the epilogue.
struct FusedConvAttrs {
  Window2D window;
  FusedEpilogueAttrs epilogue;
  bool constant_filter = false;  // _OpgenFusedConv2D's: the filter input is a Const
};

inline void ReadFusedConv(TF_OpKernelConstruction* ctx, const char* device, FusedConvAttrs* attrs) {
  Window2D* w = CreateWindow(ctx, true, device);
  attrs->window = *w;
  DeleteWindow(w);
  if (!ReadFusedEpilogue(ctx, &attrs->epilogue)) return;
  StatusPtr s = NewStatus();
  if (TF_OpKernelConstruction_HasAttr(ctx, "constant_filter", s.get())) {
    TF_Bool value = 0;
    TF_OpKernelConstruction_GetAttrBool(ctx, "constant_filter", &value, s.get());
    attrs->constant_filter = value != 0;
  }
}

inline void* CreateFusedConv(TF_OpKernelConstruction* ctx, const char* device) {
  auto* attrs = new FusedConvAttrs();
  ReadFusedConv(ctx, device, attrs);
  return attrs;
}
inline void DeleteFusedConv(void* p) { delete static_cast<FusedConvAttrs*>(p); }

// _OpgenFusedMatMul's state: MatMul's transposes and the epilogue.
struct FusedMatMulAttrs {
  MatMulAttrs matmul;
  FusedEpilogueAttrs epilogue;
};

inline void* CreateFusedMatMul(TF_OpKernelConstruction* ctx) {
  auto* attrs = new FusedMatMulAttrs();
  auto* m = static_cast<MatMulAttrs*>(CreateMatMul(ctx));
  attrs->matmul = *m;
  DeleteMatMulAttrs(m);
  ReadFusedEpilogue(ctx, &attrs->epilogue);
  return attrs;
}
inline void DeleteFusedMatMul(void* p) { delete static_cast<FusedMatMulAttrs*>(p); }

// The bias (input 2): a vector of `channels` values. False after reporting the failure.
inline bool CheckFusedBias(TF_OpKernelContext* ctx, int64_t channels, TensorPtr* bias) {
  *bias = Input(ctx, 2);
  if (!*bias) return false;
  const std::vector<int64_t> bd = Dims(bias->get());
  if (bd.size() != 1 || bd[0] != channels) {
    Fail(ctx, TF_INVALID_ARGUMENT, "the fused bias must have one value per output channel (" +
                                       std::to_string(channels) + "), got " + ShapeString(bd));
    return false;
  }
  return true;
}

// _OpgenFusedConv2DWithResidual's residual (input 3): shaped as the output. False after
// reporting the failure.
inline bool CheckFusedResidual(TF_OpKernelContext* ctx, const std::vector<int64_t>& out_dims,
                               TensorPtr* residual) {
  *residual = Input(ctx, 3);
  if (!*residual) return false;
  const std::vector<int64_t> rd = Dims(residual->get());
  if (rd != out_dims) {
    Fail(ctx, TF_INVALID_ARGUMENT, "the fused residual must have the output's shape " +
                                       ShapeString(out_dims) + ", got " + ShapeString(rd));
    return false;
  }
  return true;
}

// _OpgenFusedScaleShift: act(x * scale + offset) with `scale` and `offset` of one shape,
// [C] or [1, ..., 1, C] (an inference BatchNorm that precedes a convolution, as in
// DenseNet, or stands alone). Broadcast as Mul and Add broadcast them: the output is x
// with ones prepended up to their rank, its last dimension C (x's last dimension is C,
// or 1 and repeated).
struct ScaleShiftPlan {
  TensorPtr x, scale, offset;
  std::vector<int64_t> out_dims;
  int64_t channels = 0;  // C
  bool repeat_x = false;  // x's last dimension is 1 (or x is a scalar): one value per row
};

// The kernels' state: the epilogue attrs.
inline void* CreateFusedScaleShift(TF_OpKernelConstruction* ctx) {
  auto* attrs = new FusedEpilogueAttrs();
  ReadFusedEpilogue(ctx, attrs);
  return attrs;
}
inline void DeleteFusedScaleShift(void* p) { delete static_cast<FusedEpilogueAttrs*>(p); }

// False after reporting the failure.
inline bool PlanScaleShift(TF_OpKernelContext* ctx, ScaleShiftPlan* p) {
  p->x = Input(ctx, 0);
  p->scale = Input(ctx, 1);
  p->offset = Input(ctx, 2);
  if (!p->x || !p->scale || !p->offset) return false;
  const std::vector<int64_t> xd = Dims(p->x.get()), sd = Dims(p->scale.get());
  bool per_channel = !sd.empty() && sd == Dims(p->offset.get());
  for (size_t i = 0; per_channel && i + 1 < sd.size(); ++i) per_channel = sd[i] == 1;
  if (!per_channel) {
    Fail(ctx, TF_INVALID_ARGUMENT, "scale and offset must both be [C] or [1, ..., 1, C], got " +
                                       ShapeString(sd) + " and " + ShapeString(Dims(p->offset.get())));
    return false;
  }
  p->channels = sd.back();
  const int64_t x_last = xd.empty() ? 1 : xd.back();
  if (x_last != p->channels && x_last != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Incompatible shapes: " + ShapeString(xd) + " vs. " + ShapeString(sd));
    return false;
  }
  p->repeat_x = x_last != p->channels;
  p->out_dims.assign(sd.size() > xd.size() ? sd.size() - xd.size() : 0, 1);
  p->out_dims.insert(p->out_dims.end(), xd.begin(), xd.end());
  if (p->out_dims.empty()) p->out_dims.push_back(1);
  p->out_dims.back() = p->channels;
  return true;
}

}  // namespace kernels
}  // namespace opgen

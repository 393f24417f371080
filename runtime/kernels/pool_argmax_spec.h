// MaxPoolV2 / MaxPoolGradV2 / MaxPoolGradGradV2 (ksize and strides as tensors) and
// MaxPoolWithArgmax / MaxPoolGradWithArgmax: their window checks with TensorFlow's
// messages, the argmax search, and the argmax scatter's checks, shared by the CPU kernels
// and the CUDA plugin's. The V2 ops run MaxPool's (Grad)(Grad) kernels on a Window2D made
// from their tensors (WithTensorWindow).
#pragma once

#include <string>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"
#include "window_spec.h"

namespace opgen {
namespace kernels {

// TensorFlow's checks of a max-pool window (4 values each, NHWC); sets `s` on failure.
inline void CheckMaxPoolWindow(const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                               TF_Status* s) {
  if (ksize.size() != 4) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "Sliding window ksize field must specify 4 dimensions");
  } else if (strides.size() != 4) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "Sliding window stride field must specify 4 dimensions");
  } else if (ksize[0] != 1 || strides[0] != 1) {
    TF_SetStatus(s, TF_UNIMPLEMENTED, "Pooling is not yet supported on the batch dimension.");
  } else if (ksize[3] != 1 || strides[3] != 1) {
    // TensorFlow pools across depth alone on the CPU (a window of 1x1 spatially); opgen not.
    TF_SetStatus(s, TF_UNIMPLEMENTED,
                 "MaxPooling supports exactly one of pooling across depth or pooling across "
                 "width/height; opgen pools across width/height only");
  } else {
    for (int d = 1; d <= 2; ++d) {
      if (ksize[d] <= 0) {
        TF_SetStatus(s, TF_INVALID_ARGUMENT, "Sliding window ksize must be positive.");
        return;
      }
      if (strides[d] <= 0) {
        TF_SetStatus(s, TF_INVALID_ARGUMENT,
                     ("Stride must be > 0, but got " + std::to_string(strides[d])).c_str());
        return;
      }
    }
  }
}

// ---- MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2 --------------------------------------

struct PoolV2Attrs {
  std::string padding;
};

inline void* CreatePoolV2(TF_OpKernelConstruction* ctx, const char* op) {
  auto* a = new PoolV2Attrs();
  StatusPtr s = NewStatus();
  a->padding = StringAttr(ctx, "padding", s.get());
  std::string format;
  if (TF_GetCode(s.get()) == TF_OK) format = StringAttr(ctx, "data_format", s.get());
  if (TF_GetCode(s.get()) == TF_OK && format != "NHWC")
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 (std::string(op) + ": only data_format NHWC is implemented, got " + format).c_str());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void* CreateMaxPoolV2(TF_OpKernelConstruction* ctx) { return CreatePoolV2(ctx, "MaxPoolV2"); }
inline void* CreateMaxPoolGradV2(TF_OpKernelConstruction* ctx) { return CreatePoolV2(ctx, "MaxPoolGradV2"); }
inline void* CreateMaxPoolGradGradV2(TF_OpKernelConstruction* ctx) {
  return CreatePoolV2(ctx, "MaxPoolGradGradV2");
}
inline void DeletePoolV2(void* p) { delete static_cast<PoolV2Attrs*>(p); }

// The window of ksize and strides, the op's last two inputs (host memory, int32).
inline bool WindowFromInputs(TF_OpKernelContext* ctx, const PoolV2Attrs& a, Window2D* w) {
  const int n = TF_NumInputs(ctx);
  TensorPtr ksize = Input(ctx, n - 2), strides = Input(ctx, n - 1);
  if (!ksize || !strides) return false;
  if (TF_NumDims(ksize.get()) != 1 || TF_NumDims(strides.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "ksize and strides must be 1-D, got shapes " +
                                       ShapeString(Dims(ksize.get())) + " and " + ShapeString(Dims(strides.get())));
    return false;
  }
  w->ksize = IndexValues(ksize.get());
  w->strides = IndexValues(strides.get());
  w->padding = a.padding;
  StatusPtr s = NewStatus();
  CheckMaxPoolWindow(w->ksize, w->strides, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    Fail(ctx, TF_GetCode(s.get()), TF_Message(s.get()));
    return false;
  }
  return true;
}

// Runs MaxPool's kernel `compute` (whose state is a Window2D) with the tensors' window.
template <void (*kCompute)(void*, TF_OpKernelContext*)>
void WithTensorWindow(void* state, TF_OpKernelContext* ctx) {
  Window2D w;
  if (!WindowFromInputs(ctx, *static_cast<PoolV2Attrs*>(state), &w)) return;
  kCompute(&w, ctx);
}

// ---- MaxPoolWithArgmax, MaxPoolGradWithArgmax -----------------------------------------

struct ArgmaxAttrs {
  Window2D w;
  bool include_batch = false;
};

inline void* CreateArgmaxPool(TF_OpKernelConstruction* ctx) {
  auto* a = new ArgmaxAttrs();
  StatusPtr s = NewStatus();
  a->w.ksize = IntListAttr(ctx, "ksize", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->w.strides = IntListAttr(ctx, "strides", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->w.padding = StringAttr(ctx, "padding", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->include_batch = BoolAttr(ctx, "include_batch_in_index", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    if (a->w.ksize.size() == 4 && (a->w.ksize[1] <= 0 || a->w.ksize[2] <= 0))
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("ksize must be a positive int32 value, got:" +
                    std::to_string(a->w.ksize[1] <= 0 ? a->w.ksize[1] : a->w.ksize[2])).c_str());
    else
      CheckMaxPoolWindow(a->w.ksize, a->w.strides, s.get());
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteArgmaxPool(void* p) { delete static_cast<ArgmaxAttrs*>(p); }

// The pool of `input` (4-D): its geometry into `plan`; false after reporting the failure.
inline bool PlanArgmaxPool(TF_OpKernelContext* ctx, const ArgmaxAttrs& a, const char* op, WindowPlan* plan) {
  plan->op = op;
  TensorPtr input = Input(ctx, 0);
  if (!input) return false;
  const std::vector<int64_t> id = Dims(input.get());
  if (id.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "tensor_in must be 4-dimensional (" + std::to_string(id.size()) + ")");
    return false;
  }
  plan->input = std::move(input);
  plan->batch = id[0];
  plan->ih = id[1];
  plan->iw = id[2];
  plan->ic = plan->oc = id[3];
  plan->kh = a.w.ksize[1];
  plan->kw = a.w.ksize[2];
  return PlanOutput(ctx, a.w, plan);
}

// The first largest element of the window at output [b, y, x, c] (later ones take over
// only when strictly larger; a NaN when it comes first): its flat offset in the input,
// and the offset within the image (what argmax holds without the batch).
struct ArgmaxGeometry {
  int64_t ih, iw, c, oh, ow, kh, kw, sh, sw, pt, pl;
};

template <typename C, typename Read>
OPGEN_HD inline int64_t WindowArgmax(const ArgmaxGeometry& g, int64_t b, int64_t y, int64_t x, int64_t ch,
                                     Read in, C* best_out) {
  const int64_t r0 = y * g.sh - g.pt, q0 = x * g.sw - g.pl;
  int64_t best_at = -1;
  C best = C(0);
  for (int64_t r = r0 > 0 ? r0 : 0; r < r0 + g.kh && r < g.ih; ++r)
    for (int64_t q = q0 > 0 ? q0 : 0; q < q0 + g.kw && q < g.iw; ++q) {
      const int64_t at = ((b * g.ih + r) * g.iw + q) * g.c + ch;
      const C v = in(at);
      if (best_at < 0 || v > best) {
        best = v;
        best_at = at;
      }
    }
  *best_out = best;
  return best_at;
}

// MaxPoolGradWithArgmax(input, grad, argmax): grad and argmax shaped as the pool of
// input. False after reporting the failure.
inline bool PlanGradWithArgmax(TF_OpKernelContext* ctx, const ArgmaxAttrs& a, WindowPlan* plan,
                               TensorPtr* grad, TensorPtr* argmax) {
  TensorPtr input = Input(ctx, 0);
  *grad = Input(ctx, 1);
  *argmax = Input(ctx, 2);
  if (!input || !*grad || !*argmax) return false;
  const std::vector<int64_t> id = Dims(input.get());
  if (id.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "tensor_in_shape must have 2 spatial dimensions. " +
                                       std::to_string(id.size()) + " 0");
    return false;
  }
  if (!PlanArgmaxPool(ctx, a, "MaxPoolGradWithArgmax", plan)) return false;
  for (const auto& [t, name] : {std::make_pair(grad, "grad"), std::make_pair(argmax, "argmax")}) {
    const std::vector<int64_t> d = Dims(t->get());
    if (d != plan->out_dims) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string("Expected ") + name + " shape to be " +
                                         ShapeString(plan->out_dims) + ", but got " + ShapeString(d));
      return false;
    }
  }
  return true;
}

// Where grad element i (of image b) goes: argmax[i], plus the image's offset without
// include_batch_in_index; -1 for an index outside the image (the whole batch with
// include_batch_in_index), which TensorFlow's kernel aborts on.
inline int64_t ArgmaxTarget(int64_t argmax, int64_t b, int64_t per_image, int64_t total, bool include_batch) {
  if (include_batch) return argmax >= 0 && argmax < total ? argmax : -1;
  return argmax >= 0 && argmax < per_image ? argmax + b * per_image : -1;
}

inline void FailArgmaxIndex(TF_OpKernelContext* ctx, int64_t argmax, int64_t limit) {
  Fail(ctx, TF_INVALID_ARGUMENT, "Invalid argmax index " + std::to_string(argmax) +
                                     ": it must be in [0, " + std::to_string(limit) + ")");
}

}  // namespace kernels
}  // namespace opgen

// MaxPool3D and AvgPool3D: attrs, input checks, output sizes and each output's window,
// shared by the CPU kernels and the CUDA plugin's (NDHWC only; windows and strides over
// batch and channels refused as unimplemented). Padded positions take no part: a max
// is over the window's positions inside the volume, an average divides by their count.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct Pool3DAttrs {
  std::vector<int64_t> ksize, strides;
  bool same = false;  // padding SAME (else VALID)
};

inline void* CreatePool3D(TF_OpKernelConstruction* ctx, const char* device) {
  auto* a = new Pool3DAttrs();
  StatusPtr s = NewStatus();
  a->ksize = IntListAttr(ctx, "ksize", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->strides = IntListAttr(ctx, "strides", s.get());
  std::string padding, format;
  if (TF_GetCode(s.get()) == TF_OK) padding = StringAttr(ctx, "padding", s.get());
  if (TF_GetCode(s.get()) == TF_OK) format = StringAttr(ctx, "data_format", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    a->same = padding == "SAME";
    if (format != "NDHWC") {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   (std::string("3-D pooling: only data_format NDHWC is implemented on the ") + device).c_str());
    } else if (a->ksize.size() != 5 || a->strides.size() != 5) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "3-D pooling: ksize and strides need 5 entries");
    } else if (a->ksize[0] != 1 || a->ksize[4] != 1 || a->strides[0] != 1 || a->strides[4] != 1) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   "3-D pooling: windows and strides over the batch or channel dimension are not supported");
    }
    for (int d = 1; d <= 3 && TF_GetCode(s.get()) == TF_OK; ++d)
      if (a->ksize[d] <= 0 || a->strides[d] <= 0)
        TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                     ("3-D pooling: ksize and strides must be positive, got ksize " +
                      ShapeString(a->ksize) + ", strides " + ShapeString(a->strides)).c_str());
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeletePool3D(void* p) { delete static_cast<Pool3DAttrs*>(p); }

// The geometry of one call, in plain values a device kernel can take by value.
struct Pool3DGeometry {
  int64_t batch, c, in[3], out[3], k[3], stride[3], pad[3];
};

// The input positions [*lo, *hi) that output position o's window covers along dim d.
OPGEN_HD inline void Pool3DSpan(const Pool3DGeometry& g, int d, int64_t o, int64_t* lo, int64_t* hi) {
  const int64_t start = o * g.stride[d] - g.pad[d];
  *lo = start > 0 ? start : 0;
  *hi = start + g.k[d] < g.in[d] ? start + g.k[d] : g.in[d];
}

struct Pool3DPlan {
  TensorPtr input;
  Pool3DGeometry g;
  std::vector<int64_t> out_dims;
};

inline bool PlanPool3D(TF_OpKernelContext* ctx, const Pool3DAttrs& a, const char* op, Pool3DPlan* plan) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return false;
  const std::vector<int64_t> id = Dims(input.get());
  if (id.size() != 5) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input must be 5-D, got " + ShapeString(id));
    return false;
  }
  Pool3DGeometry& g = plan->g;
  g.batch = id[0];
  g.c = id[4];
  for (int d = 0; d < 3; ++d) {
    const int64_t in = id[d + 1], k = a.ksize[d + 1], s = a.strides[d + 1];
    g.in[d] = in;
    g.k[d] = k;
    g.stride[d] = s;
    if (a.same) {
      g.out[d] = in / s + (in % s != 0);
      const int64_t total = (g.out[d] - 1) * s + k - in;
      g.pad[d] = total > 0 ? total / 2 : 0;
    } else {
      if (in < k) {
        Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": a window of " + ShapeString(a.ksize) +
                                           " does not fit in the input " + ShapeString(id));
        return false;
      }
      g.out[d] = (in - k) / s + 1;
      g.pad[d] = 0;
    }
  }
  plan->out_dims = {g.batch, g.out[0], g.out[1], g.out[2], g.c};
  plan->input = std::move(input);
  return true;
}

}  // namespace kernels
}  // namespace opgen

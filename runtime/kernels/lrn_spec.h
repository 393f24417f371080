// LRN and LRNGrad (local response normalisation across the depth of NHWC images): the
// attrs, input checks and per-element sums, shared by the CPU kernels and the CUDA
// plugin's. Each row of depth D is normalised on its own:
//   N_d = bias + alpha * sum(x_k^2 for |k - d| <= depth_radius),  y_d = x_d * N_d^-beta
// and the gradient gathers, for input d, the outputs i whose window holds d:
//   dx_d = sum_i g_i * ([i == d] * N_i^-beta - 2 * alpha * beta * x_d * y_i / N_i).
#pragma once

#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct LrnAttrs {
  int64_t depth_radius = 5;
  float bias = 1.0f, alpha = 1.0f, beta = 0.5f;
};

inline void* CreateLrn(TF_OpKernelConstruction* ctx) {
  auto* a = new LrnAttrs();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrInt64(ctx, "depth_radius", &a->depth_radius, s.get());
  if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrFloat(ctx, "bias", &a->bias, s.get());
  if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrFloat(ctx, "alpha", &a->alpha, s.get());
  if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrFloat(ctx, "beta", &a->beta, s.get());
  // TensorFlow's bounds check refuses a negative radius with this message too.
  if (TF_GetCode(s.get()) == TF_OK && (a->depth_radius < 0 || a->depth_radius > INT_MAX))
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 ("depth_radius = " + std::to_string(a->depth_radius) + " larger than int max").c_str());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteLrn(void* p) { delete static_cast<LrnAttrs*>(p); }

// LRN(input) or LRNGrad(input_grads, input_image, output_image): all [.., depth] rows.
struct LrnPlan {
  TensorPtr x, grads, y;
  std::vector<int64_t> dims;
  int64_t rows = 0, depth = 0;
};

inline bool PlanLrn(TF_OpKernelContext* ctx, bool grad, LrnPlan* p) {
  if (grad) {
    p->grads = Input(ctx, 0);
    p->x = Input(ctx, 1);
    p->y = Input(ctx, 2);
    if (!p->grads || !p->x || !p->y) return false;
  } else {
    p->x = Input(ctx, 0);
    if (!p->x) return false;
  }
  p->dims = Dims(p->x.get());
  if (grad && (Dims(p->grads.get()).size() != 4 || p->dims.size() != 4 || Dims(p->y.get()).size() != 4)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "inputs must be 4-dimensional");
    return false;
  }
  if (!grad && p->dims.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "in must be 4-dimensional");
    return false;
  }
  if (grad && (Dims(p->grads.get()) != p->dims || Dims(p->y.get()) != p->dims)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input_grads, input_image, and out_image should have the same shape");
    return false;
  }
  p->depth = p->dims[3];
  p->rows = p->dims[0] * p->dims[1] * p->dims[2];  // 4 dims of an existing tensor: no overflow
  return true;
}

// The window [begin, end) of depth index d.
OPGEN_HD inline void LrnWindow(int64_t d, int64_t radius, int64_t depth, int64_t* begin, int64_t* end) {
  *begin = d > radius ? d - radius : 0;
  *end = depth - d > radius ? d + radius + 1 : depth;
}

// N_d of the row starting at element `row`; Read(i) widens element i.
template <typename C, typename Read>
OPGEN_HD inline C LrnNorm(Read x, int64_t row, int64_t d, int64_t depth, const LrnAttrs& a) {
  int64_t begin, end;
  LrnWindow(d, a.depth_radius, depth, &begin, &end);
  C sum = C(0);
  for (int64_t k = begin; k < end; ++k) {
    const C v = x(row + k);
    sum += v * v;
  }
  return static_cast<C>(a.bias) + static_cast<C>(a.alpha) * sum;
}

// dx_d from the norms N_i of the row (norm(i) reads the one of element row + i).
template <typename C, typename Read, typename ReadNorm>
OPGEN_HD inline C LrnGradAt(Read grads, Read x, Read y, ReadNorm norm, int64_t row, int64_t d,
                            int64_t depth, const LrnAttrs& a) {
  int64_t begin, end;
  LrnWindow(d, a.depth_radius, depth, &begin, &end);
  const C beta = static_cast<C>(a.beta), two_alpha_beta = C(2) * static_cast<C>(a.alpha) * beta;
  const C xd = x(row + d);
  C acc = C(0);
  for (int64_t i = begin; i < end; ++i) {
    const C n = norm(row + i);
    C term = -two_alpha_beta * xd * y(row + i) / n;
    if (i == d) term += static_cast<C>(powf(static_cast<float>(n), -static_cast<float>(beta)));
    acc += term * grads(row + i);
  }
  return acc;
}

}  // namespace kernels
}  // namespace opgen

// MaxPoolWithArgmax and MaxPoolGradWithArgmax on the CPU, every real type and int32 or
// int64 indices: the window search is ../pool_argmax_spec.h's (shared with the CUDA twin,
// ../cuda/pool_argmax.cu); the gradient adds each grad at its argmax, image by image in
// grad's order (the whole batch in order with include_batch_in_index, whose indices may
// cross images).
#include <algorithm>
#include <cstring>
#include <vector>

#include "../pool_argmax_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::ArgmaxAttrs;
using kernels::ArgmaxGeometry;

ArgmaxGeometry GeometryOf(const kernels::WindowPlan& p, const kernels::Window2D& w) {
  return {p.ih, p.iw, p.ic, p.oh, p.ow, p.kh, p.kw, w.strides[1], w.strides[2], p.pt, p.pl};
}

template <typename T, typename I>
void MaxPoolWithArgmaxCompute(void* state, TF_OpKernelContext* ctx) {
  const ArgmaxAttrs& a = *static_cast<ArgmaxAttrs*>(state);
  kernels::WindowPlan p;
  if (!kernels::PlanArgmaxPool(ctx, a, "MaxPoolWithArgmax", &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims), argmax = AllocateOutput<I>(ctx, 1, p.out_dims);
  if (!out || !argmax) return;
  const ArgmaxGeometry g = GeometryOf(p, a.w);
  const T* in = Data<T>(p.input);
  T* y = Data<T>(out);
  I* idx = Data<I>(argmax);
  const int64_t per_image = p.ih * p.iw * p.ic;
  const bool include_batch = a.include_batch;
  using C = ComputeType<T>;
  const auto read = [in](int64_t i) { return static_cast<C>(Widen(in[i])); };
  ParallelFor(NumElements(p.out_dims), [&](int64_t first, int64_t last) {
    for (int64_t e = first; e < last; ++e) {
      const int64_t c = e % g.c, x = e / g.c % g.ow, yy = e / (g.c * g.ow) % g.oh, b = e / (g.c * g.ow * g.oh);
      C best;
      const int64_t at = kernels::WindowArgmax<C>(g, b, yy, x, c, read, &best);
      y[e] = Narrow<T>(best);
      idx[e] = static_cast<I>(include_batch ? at : at - b * per_image);
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(p.kh * p.kw, 1)));
}

template <typename T, typename I>
void MaxPoolGradWithArgmaxCompute(void* state, TF_OpKernelContext* ctx) {
  const ArgmaxAttrs& a = *static_cast<ArgmaxAttrs*>(state);
  kernels::WindowPlan p;
  TensorPtr grad, argmax;
  if (!kernels::PlanGradWithArgmax(ctx, a, &p, &grad, &argmax)) return;
  const std::vector<int64_t> in_dims{p.batch, p.ih, p.iw, p.ic};
  TensorPtr out = AllocateOutput<T>(ctx, 0, in_dims);
  if (!out) return;
  const int64_t per_image = p.ih * p.iw * p.ic, total = NumElements(in_dims);
  const int64_t per_grad = p.oh * p.ow * p.oc;
  const I* idx = Data<I>(argmax);
  // Every index first, so that a bad one fails before anything is written.
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = b * per_grad; i < (b + 1) * per_grad; ++i)
      if (kernels::ArgmaxTarget(idx[i], b, per_image, total, a.include_batch) < 0)
        return kernels::FailArgmaxIndex(ctx, static_cast<int64_t>(idx[i]), a.include_batch ? total : per_image);
  using C = ComputeType<T>;
  std::vector<C> acc;
  const T* g = Data<T>(grad);
  T* dx = Data<T>(out);
  const auto scatter = [&](int64_t b0, int64_t b1, C* sums, int64_t base) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t i = b * per_grad; i < (b + 1) * per_grad; ++i)
        sums[kernels::ArgmaxTarget(idx[i], b, per_image, total, a.include_batch) - base] += Widen(g[i]);
  };
  if (a.include_batch) {  // indices may cross images: one pass over the batch in order
    acc.assign(total, C(0));
    scatter(0, p.batch, acc.data(), 0);
    for (int64_t i = 0; i < total; ++i) dx[i] = Narrow<T>(acc[i]);
    return;
  }
  ParallelFor(p.batch, [&](int64_t first, int64_t last) {
    std::vector<C> sums(per_image);
    for (int64_t b = first; b < last; ++b) {
      std::fill(sums.begin(), sums.end(), C(0));
      scatter(b, b + 1, sums.data(), b * per_image);
      for (int64_t i = 0; i < per_image; ++i) dx[b * per_image + i] = Narrow<T>(sums[i]);
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(per_image, 1)));
}

template <typename I, typename... Ts>
void RegisterArgmax(Types<Ts...>, TF_DataType index, TF_Status* status) {
  (RegisterKernel(kDevice, {"MaxPoolWithArgmax", {{"T", DtypeOf<Ts>::value}, {"Targmax", index}}, {},
                            MaxPoolWithArgmaxCompute<Ts, I>, kernels::CreateArgmaxPool,
                            kernels::DeleteArgmaxPool}, status), ...);
  if (index != TF_INT64) return;  // TensorFlow's gradient kernels take int64 argmax only
  (RegisterKernel(kDevice, {"MaxPoolGradWithArgmax", {{"T", DtypeOf<Ts>::value}, {"Targmax", index}}, {},
                            MaxPoolGradWithArgmaxCompute<Ts, I>, kernels::CreateArgmaxPool,
                            kernels::DeleteArgmaxPool}, status), ...);
}

}  // namespace

void RegisterPoolArgmaxKernels(TF_Status* status) {
  RegisterArgmax<int32_t>(RealTypes(), TF_INT32, status);
  RegisterArgmax<int64_t>(RealTypes(), TF_INT64, status);
}

}  // namespace cpu
}  // namespace opgen

// ResizeBilinearGrad, ResizeNearestNeighborGrad and ResizeBicubicGrad on NHWC images: each
// pixel of the original image gathers the gradients of the resized pixels that read it,
// with the forward ops' sampling (../resize_spec.h, ../conv_grad_spec.h,
// ../resize_cubic_area_spec.h, shared with the CUDA twin).
// The bilinear terms are computed in float, as TensorFlow does; the 16-bit types add them
// in float and round once (TensorFlow adds in the 16-bit type).
#include <algorithm>
#include <vector>

#include "../conv_grad_spec.h"
#include "../resize_cubic_area_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::ResizeAttrs;

template <typename T>
struct Read {
  const T* p;
  ComputeType<T> operator()(int64_t i) const { return Widen(p[i]); }
};

template <typename T, bool kBilinear>
struct ResizeGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizeGradPlan p;
    if (!kernels::PlanResizeGrad(ctx, a, kBilinear, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    T* out = Data<T>(output);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t ch = e % p.c, sx = (e / p.c) % p.iw, sy = (e / (p.c * p.iw)) % p.ih;
        const int64_t b = e / (p.c * p.iw * p.ih);
        if constexpr (kBilinear) {
          const Read<float> grad{Data<float>(p.grads)};
          out[e] = Narrow<T>(kernels::ResizeBilinearGradAt<ComputeType<T>>(
              p.oh, p.ow, p.ih, p.iw, p.c, p.scale_h, p.scale_w, a.half_pixel_centers, b, sy, sx, ch, grad));
        } else {
          const Read<T> grad{Data<T>(p.grads)};
          out[e] = Narrow<T>(kernels::ResizeNearestGradAt<ComputeType<T>>(
              p.oh, p.ow, p.ih, p.iw, p.c, p.scale_h, p.scale_w, a.align_corners, a.half_pixel_centers,
              b, sy, sx, ch, grad));
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(p.oh + p.ow, 1)));
  }
};

// Bicubic: the resized rows' and columns' taps worked out once per call.
struct TapTable {
  const kernels::CubicTaps* taps;
  const kernels::CubicTaps& operator()(int64_t i) const { return taps[i]; }
};

template <typename T>
struct BicubicGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizeGradPlan p;
    if (!kernels::PlanResizeGrad(ctx, a, true, &p, "ResizeBicubicGrad")) return;
    p.scale_h = kernels::BicubicGradScale(p.ih, p.oh, a.align_corners);
    p.scale_w = kernels::BicubicGradScale(p.iw, p.ow, a.align_corners);
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    std::vector<kernels::CubicTaps> ys(p.oh), xs(p.ow);
    for (int64_t y = 0; y < p.oh; ++y) ys[y] = kernels::CubicTapsAt(y, p.scale_h, p.ih, a.half_pixel_centers);
    for (int64_t x = 0; x < p.ow; ++x) xs[x] = kernels::CubicTapsAt(x, p.scale_w, p.iw, a.half_pixel_centers);
    const TapTable yt{ys.data()}, xt{xs.data()};
    const Read<float> grad{Data<float>(p.grads)};
    T* out = Data<T>(output);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t ch = e % p.c, sx = (e / p.c) % p.iw, sy = (e / (p.c * p.iw)) % p.ih;
        const int64_t b = e / (p.c * p.iw * p.ih);
        out[e] = Narrow<T>(kernels::ResizeBicubicGradAt<ComputeType<T>>(p.oh, p.ow, p.c, b, sy, sx, ch, yt, xt,
                                                                        grad));
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(p.oh + 4 * p.ow, 1)));
  }
};

template <typename T> using BilinearGradKernel = ResizeGradKernel<T, true>;
template <typename T> using NearestGradKernel = ResizeGradKernel<T, false>;

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute,
       kernels::CreateResize, kernels::DeleteResize}, status), ...);
}

}  // namespace

// The types the OpDefs allow (TensorFlow's CPU kernels cover them all).
void RegisterImageGradKernels(TF_Status* status) {
  RegisterWith<BilinearGradKernel>("ResizeBilinearGrad", FloatTypes(), status);
  RegisterWith<NearestGradKernel>("ResizeNearestNeighborGrad",
                                  Types<uint8_t, int8_t, int32_t, Half, float, double, BFloat16>(), status);
  RegisterWith<BicubicGradKernel>("ResizeBicubicGrad", Types<float, double>(), status);
}

}  // namespace cpu
}  // namespace opgen

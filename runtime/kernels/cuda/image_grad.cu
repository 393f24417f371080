// ResizeBilinearGrad, ResizeNearestNeighborGrad and ResizeBicubicGrad on the GPU: one
// thread per pixel of the original image gathering ../conv_grad_spec.h's and
// ../resize_cubic_area_spec.h's per-element sums (no atomics), with the CPU kernels' checks
// and errors. Twin of ../cpu/image_grad.cc.
#include "../conv_grad_spec.h"
#include "../resize_cubic_area_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::ResizeAttrs;

template <typename T, bool kBilinear>
struct ResizeGradElement {
  int64_t batch, ih, iw, c, oh, ow;
  float scale_h, scale_w;
  bool align, half_pixel;
  const void* grads;
  T* out;
  __device__ void operator()(int64_t e) const {
    const int64_t ch = e % c, sx = (e / c) % iw, sy = (e / (c * iw)) % ih, b = e / (c * iw * ih);
    if (kBilinear) {
      const Read<float> g{static_cast<const float*>(grads)};
      using C = typename ComputeType<T>::type;
      out[e] = Narrow<T>(kernels::ResizeBilinearGradAt<C>(oh, ow, ih, iw, c, scale_h, scale_w, half_pixel,
                                                          b, sy, sx, ch, g));
    } else {
      const Read<T> g{static_cast<const T*>(grads)};
      using C = typename ComputeType<T>::type;
      out[e] = Narrow<T>(kernels::ResizeNearestGradAt<C>(oh, ow, ih, iw, c, scale_h, scale_w, align,
                                                         half_pixel, b, sy, sx, ch, g));
    }
  }
};

template <typename T, bool kBilinear>
struct ResizeGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizeGradPlan p;
    if (!kernels::PlanResizeGrad(ctx, a, kBilinear, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const ResizeGradElement<T, kBilinear> f{p.batch, p.ih, p.iw, p.c, p.oh, p.ow, p.scale_h, p.scale_w,
                                            a.align_corners, a.half_pixel_centers,
                                            TF_TensorData(p.grads.get()), Data<T>(output)};
    LaunchForEach(ctx, NumElements(p.out_dims), f,
                  kBilinear ? "ResizeBilinearGrad" : "ResizeNearestNeighborGrad");
  }
};
// Bicubic: each thread works out the taps of the rows and columns it scans.
struct CubicTapsFn {
  float scale;
  int64_t size;
  bool half_pixel;
  __host__ __device__ kernels::CubicTaps operator()(int64_t o) const {
    return kernels::CubicTapsAt(o, scale, size, half_pixel);
  }
};

template <typename T>
struct BicubicGradElement {
  int64_t ih, iw, c, oh, ow;
  CubicTapsFn ytaps, xtaps;
  const float* grads;
  T* out;
  __device__ void operator()(int64_t e) const {
    const int64_t ch = e % c, sx = (e / c) % iw, sy = (e / (c * iw)) % ih, b = e / (c * iw * ih);
    const Read<float> g{grads};
    out[e] = kernels::ResizeBicubicGradAt<T>(oh, ow, c, b, sy, sx, ch, ytaps, xtaps, g);
  }
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
    if (!output) return;
    const BicubicGradElement<T> f{p.ih, p.iw, p.c, p.oh, p.ow,
                                  {p.scale_h, p.ih, a.half_pixel_centers}, {p.scale_w, p.iw, a.half_pixel_centers},
                                  Data<float>(p.grads), Data<T>(output)};
    LaunchForEach(ctx, NumElements(p.out_dims), f, "ResizeBicubicGrad");
  }
};

template <typename T> using BilinearGradKernel = ResizeGradKernel<T, true>;
template <typename T> using NearestGradKernel = ResizeGradKernel<T, false>;

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, std::vector<const char*> host, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, host, &Kernel<Ts>::Compute,
       kernels::CreateResize, kernels::DeleteResize}, status), ...);
}

}  // namespace

// The types the OpDefs allow, as on the CPU; ResizeNearestNeighborGrad's size on the host.
void RegisterImageGradKernels(TF_Status* status) {
  RegisterWith<BilinearGradKernel>("ResizeBilinearGrad", {},
                                   Types<float, double, __half, __nv_bfloat16>(), status);
  RegisterWith<NearestGradKernel>("ResizeNearestNeighborGrad", {"size"},
                                  Types<uint8_t, int8_t, int32_t, __half, float, double, __nv_bfloat16>(),
                                  status);
  RegisterWith<BicubicGradKernel>("ResizeBicubicGrad", {}, Types<float, double>(), status);
}

}  // namespace cuda
}  // namespace opgen

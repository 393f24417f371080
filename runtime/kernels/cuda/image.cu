// ResizeBilinear and ResizeNearestNeighbor on the GPU: the CPU kernels' checks and
// sampling math (../resize_spec.h), one thread per output value. `size` stays in host
// memory, where the plan reads it.
#include <vector>

#include "../resize_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::ResizeAttrs;

struct ResizeArgs {
  int64_t ih, iw, c, oh, ow;
  float scale_h, scale_w;
  bool align_corners, half_pixel;
};

ResizeArgs MakeArgs(const kernels::ResizePlan& p, const ResizeAttrs& a) {
  return {p.ih, p.iw, p.c, p.oh, p.ow, p.scale_h, p.scale_w, a.align_corners, a.half_pixel_centers};
}

template <typename T> __device__ inline float ToFloat(T v) { return static_cast<float>(Widen(v)); }

template <typename T>
__global__ void BilinearKernel(const T* in, float* out, int64_t total, ResizeArgs g) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = n % g.c, pixel = n / g.c;
    const int64_t x = pixel % g.ow, rest = pixel / g.ow;
    const int64_t y = rest % g.oh, b = rest / g.oh;
    int64_t y_lo, y_hi, x_lo, x_hi;
    float yl, xl;
    kernels::BilinearTap(y, g.scale_h, g.ih, g.half_pixel, &y_lo, &y_hi, &yl);
    kernels::BilinearTap(x, g.scale_w, g.iw, g.half_pixel, &x_lo, &x_hi, &xl);
    const T* top = in + (b * g.ih + y_lo) * g.iw * g.c + k;
    const T* bottom = in + (b * g.ih + y_hi) * g.iw * g.c + k;
    // Rounded after each step, as the CPU kernel (no fused multiply-add).
    const float tl = ToFloat(top[x_lo * g.c]), tr = ToFloat(top[x_hi * g.c]);
    const float bl = ToFloat(bottom[x_lo * g.c]), br = ToFloat(bottom[x_hi * g.c]);
    const float t = __fadd_rn(tl, __fmul_rn(__fsub_rn(tr, tl), xl));
    const float u = __fadd_rn(bl, __fmul_rn(__fsub_rn(br, bl), xl));
    out[n] = __fadd_rn(t, __fmul_rn(__fsub_rn(u, t), yl));
  }
}

template <typename T>
__global__ void NearestKernel(const T* in, T* out, int64_t total, ResizeArgs g) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = n % g.c, pixel = n / g.c;
    const int64_t x = pixel % g.ow, rest = pixel / g.ow;
    const int64_t y = rest % g.oh, b = rest / g.oh;
    const int64_t sy = kernels::NearestTap(y, g.scale_h, g.ih, g.align_corners, g.half_pixel);
    const int64_t sx = kernels::NearestTap(x, g.scale_w, g.iw, g.align_corners, g.half_pixel);
    out[n] = in[((b * g.ih + sy) * g.iw + sx) * g.c + k];
  }
}

template <typename T, bool kBilinear>
struct ResizeOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizePlan p;
    if (!kernels::PlanResize(ctx, a, kBilinear ? "ResizeBilinear" : "ResizeNearestNeighbor", &p)) return;
    TensorPtr output = kBilinear ? AllocateOutput<float>(ctx, 0, p.out_dims) : AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    if constexpr (kBilinear)
      BilinearKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(Data<T>(p.images), Data<float>(output),
                                                                    total, MakeArgs(p, a));
    else
      NearestKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(Data<T>(p.images), Data<T>(output),
                                                                   total, MakeArgs(p, a));
    CheckLaunch(ctx, kBilinear ? "ResizeBilinear" : "ResizeNearestNeighbor");
  }
};
template <typename T> using BilinearOp = ResizeOp<T, true>;
template <typename T> using NearestOp = ResizeOp<T, false>;

template <template <typename> class Kernel, typename... Ts>
void RegisterResize(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {"size"}, &Kernel<Ts>::Compute,
                       kernels::CreateResize, kernels::DeleteResize},
            status),
   ...);
}

using ResizeTypes = Types<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t, __nv_bfloat16, __half,
                          float, double>;

}  // namespace

// The CPU kernels' registrations (kernels/cpu/image.cc).
void RegisterImageKernels(TF_Status* status) {
  RegisterResize<BilinearOp>("ResizeBilinear", ResizeTypes(), status);
  RegisterResize<NearestOp>("ResizeNearestNeighbor", ResizeTypes(), status);
}

}  // namespace cuda
}  // namespace opgen

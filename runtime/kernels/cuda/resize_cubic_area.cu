// ResizeBicubic and ResizeArea on the GPU: the CPU kernels' checks and sampling math
// (../resize_cubic_area_spec.h), one thread per output value. `size` stays in host
// memory, where the plan reads it.
#include "../resize_cubic_area_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::ResizeAttrs;

struct Geometry {
  int64_t ih, iw, c, oh, ow;
  float scale_h, scale_w;
  bool half_pixel;
};

template <typename T> __device__ inline float ToFloat(T v) { return static_cast<float>(Widen(v)); }

template <typename T>
__global__ void BicubicKernel(const T* in, float* out, int64_t total, Geometry g) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = n % g.c, pixel = n / g.c;
    const int64_t x = pixel % g.ow, rest = pixel / g.ow;
    const int64_t y = rest % g.oh, b = rest / g.oh;
    const kernels::CubicTaps xs = kernels::CubicTapsAt(x, g.scale_w, g.iw, g.half_pixel);
    const kernels::CubicTaps ys = kernels::CubicTapsAt(y, g.scale_h, g.ih, g.half_pixel);
    // Along y in each of the four columns, then along x, as the CPU kernel.
    float column[4];
    for (int q = 0; q < 4; ++q) {
      const T* src = in + (b * g.ih * g.iw + xs.index[q]) * g.c + k;
      float v[4];
      for (int r = 0; r < 4; ++r) v[r] = ToFloat(src[ys.index[r] * g.iw * g.c]);
      column[q] = kernels::Cubic1D(ys.weight, v);
    }
    out[n] = kernels::Cubic1D(xs.weight, column);
  }
}

template <typename T>
__global__ void AreaKernel(const T* in, float* out, int64_t total, Geometry g) {
  const float norm = 1.0f / (g.scale_h * g.scale_w);
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = n % g.c, pixel = n / g.c;
    const int64_t x = pixel % g.ow, rest = pixel / g.ow;
    const int64_t y = rest % g.oh, b = rest / g.oh;
    int64_t y0, y1, x0, x1;
    kernels::AreaSpan(y, g.scale_h, &y0, &y1);
    kernels::AreaSpan(x, g.scale_w, &x0, &x1);
    float sum = 0;
    for (int64_t i = y0; i < y1; ++i) {
      const T* src = in + (b * g.ih + kernels::AreaIndex(i, g.ih)) * g.iw * g.c + k;
      float h = 0;
      for (int64_t j = x0; j < x1; ++j)
        h = __fadd_rn(h, __fmul_rn(ToFloat(src[kernels::AreaIndex(j, g.iw) * g.c]),
                                   kernels::AreaWeight(x, g.scale_w, j)));
      sum = __fadd_rn(sum, __fmul_rn(h, kernels::AreaWeight(y, g.scale_h, i)));
    }
    out[n] = __fmul_rn(sum, norm);
  }
}

template <typename T, bool kBicubic>
struct ResizeOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const char* op = kBicubic ? "ResizeBicubic" : "ResizeArea";
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizePlan p;
    if (!kernels::PlanResize(ctx, a, op, &p)) return;
    TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    const Geometry g{p.ih, p.iw, p.c, p.oh, p.ow, p.scale_h, p.scale_w, a.half_pixel_centers};
    if constexpr (kBicubic)
      BicubicKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(Data<T>(p.images), Data<float>(output), total, g);
    else
      AreaKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(Data<T>(p.images), Data<float>(output), total, g);
    CheckLaunch(ctx, op);
  }
};
template <typename T> using BicubicOp = ResizeOp<T, true>;
template <typename T> using AreaOp = ResizeOp<T, false>;

template <template <typename> class Kernel, typename... Ts>
void RegisterResize(const char* op, void* (*create)(TF_OpKernelConstruction*), Types<Ts...>,
                    TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {"size"}, &Kernel<Ts>::Compute, create,
       kernels::DeleteResize}, status), ...);
}

using ResizeTypes = Types<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t, __nv_bfloat16, __half,
                          float, double>;

}  // namespace

// The CPU kernels' registrations (kernels/cpu/resize_cubic_area.cc).
void RegisterResizeCubicAreaKernels(TF_Status* status) {
  RegisterResize<BicubicOp>("ResizeBicubic", kernels::CreateResize, ResizeTypes(), status);
  RegisterResize<AreaOp>("ResizeArea", kernels::CreateResizeArea, ResizeTypes(), status);
}

}  // namespace cuda
}  // namespace opgen

// ResizeBilinear (always float output, computed in float as TensorFlow does) and
// ResizeNearestNeighbor on NHWC images. Where each output pixel samples the input comes
// from ../resize_spec.h, shared with the CUDA plugin; here the loops, with the column
// taps worked out once per call and threads over output rows.
#include <vector>

#include "../resize_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::ResizeAttrs;

template <typename T>
float AsFloat(T v) {
  if constexpr (kIsFloat16<T>) return static_cast<float>(v);
  else return static_cast<float>(v);
}

template <typename T>
struct ResizeBilinearKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizePlan p;
    if (!kernels::PlanResize(ctx, a, "ResizeBilinear", &p)) return;
    TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    const int64_t c = p.c;
    std::vector<int64_t> x_lo(p.ow), x_hi(p.ow);
    std::vector<float> x_lerp(p.ow);
    for (int64_t x = 0; x < p.ow; ++x)
      kernels::BilinearTap(x, p.scale_w, p.iw, a.half_pixel_centers, &x_lo[x], &x_hi[x], &x_lerp[x]);
    const T* in = Data<T>(p.images);
    float* out = Data<float>(output);
    ParallelFor(p.batch * p.oh, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / p.oh, y = row % p.oh;
        int64_t y_lo, y_hi;
        float y_lerp;
        kernels::BilinearTap(y, p.scale_h, p.ih, a.half_pixel_centers, &y_lo, &y_hi, &y_lerp);
        const T* top = in + (b * p.ih + y_lo) * p.iw * c;
        const T* bottom = in + (b * p.ih + y_hi) * p.iw * c;
        float* o = out + row * p.ow * c;
        for (int64_t x = 0; x < p.ow; ++x) {
          const float xl = x_lerp[x];
          const T *tl = top + x_lo[x] * c, *tr = top + x_hi[x] * c;
          const T *bl = bottom + x_lo[x] * c, *br = bottom + x_hi[x] * c;
          for (int64_t k = 0; k < c; ++k) {
            const float t = AsFloat(tl[k]) + (AsFloat(tr[k]) - AsFloat(tl[k])) * xl;
            const float u = AsFloat(bl[k]) + (AsFloat(br[k]) - AsFloat(bl[k])) * xl;
            o[x * c + k] = t + (u - t) * y_lerp;
          }
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(p.ow * c, 1)));
  }
};

template <typename T>
struct ResizeNearestKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizePlan p;
    if (!kernels::PlanResize(ctx, a, "ResizeNearestNeighbor", &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    const int64_t c = p.c;
    std::vector<int64_t> xs(p.ow);
    for (int64_t x = 0; x < p.ow; ++x)
      xs[x] = kernels::NearestTap(x, p.scale_w, p.iw, a.align_corners, a.half_pixel_centers);
    const T* in = Data<T>(p.images);
    T* out = Data<T>(output);
    ParallelFor(p.batch * p.oh, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / p.oh, y = row % p.oh;
        const int64_t sy = kernels::NearestTap(y, p.scale_h, p.ih, a.align_corners, a.half_pixel_centers);
        const T* src = in + (b * p.ih + sy) * p.iw * c;
        T* o = out + row * p.ow * c;
        for (int64_t x = 0; x < p.ow; ++x)
          for (int64_t k = 0; k < c; ++k) o[x * c + k] = src[xs[x] * c + k];
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(p.ow * c, 1)));
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterResize(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute,
       kernels::CreateResize, kernels::DeleteResize}, status),
   ...);
}

// The types the OpDefs allow (TensorFlow's CPU kernels cover them all).
using ResizeTypes = Types<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t, BFloat16, Half, float, double>;

}  // namespace

void RegisterImageKernels(TF_Status* status) {
  RegisterResize<ResizeBilinearKernel>("ResizeBilinear", ResizeTypes(), status);
  RegisterResize<ResizeNearestKernel>("ResizeNearestNeighbor", ResizeTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

// ResizeBicubic and ResizeArea on NHWC images (float output; Keras' Resizing layer with
// "bicubic" and "area"). Where each output pixel samples the input, and how much:
// ../resize_cubic_area_spec.h, shared with the CUDA plugin; here the loops, with the
// column taps worked out once per call and threads over output rows.
#include <algorithm>
#include <vector>

#include "../resize_cubic_area_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::ResizeAttrs;

template <typename T>
struct ResizeBicubicKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizePlan p;
    if (!kernels::PlanResize(ctx, a, "ResizeBicubic", &p)) return;
    TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    std::vector<kernels::CubicTaps> xs(p.ow);
    for (int64_t x = 0; x < p.ow; ++x)
      xs[x] = kernels::CubicTapsAt(x, p.scale_w, p.iw, a.half_pixel_centers);
    const int64_t c = p.c;
    const T* in = Data<T>(p.images);
    float* out = Data<float>(output);
    ParallelFor(p.batch * p.oh, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / p.oh, y = row % p.oh;
        const kernels::CubicTaps ys = kernels::CubicTapsAt(y, p.scale_h, p.ih, a.half_pixel_centers);
        float* o = out + row * p.ow * c;
        for (int64_t x = 0; x < p.ow; ++x)
          for (int64_t k = 0; k < c; ++k) {
            // Along y in each of the four columns, then along x (TensorFlow's order,
            // which decides where infinities and NaNs come out).
            float column[4];
            for (int q = 0; q < 4; ++q) {
              const T* src = in + (b * p.ih * p.iw + xs[x].index[q]) * c + k;
              float v[4];
              for (int r = 0; r < 4; ++r) v[r] = static_cast<float>(src[ys.index[r] * p.iw * c]);
              column[q] = kernels::Cubic1D(ys.weight, v);
            }
            o[x * c + k] = kernels::Cubic1D(xs[x].weight, column);
          }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(16 * p.ow * c, 1)));
  }
};

template <typename T>
struct ResizeAreaKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ResizeAttrs& a = *static_cast<ResizeAttrs*>(state);
    kernels::ResizePlan p;
    if (!kernels::PlanResize(ctx, a, "ResizeArea", &p)) return;
    TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    const float norm = 1.0f / (p.scale_h * p.scale_w);
    const int64_t c = p.c;
    const T* in = Data<T>(p.images);
    float* out = Data<float>(output);
    ParallelFor(p.batch * p.oh, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / p.oh, y = row % p.oh;
        int64_t y0, y1;
        kernels::AreaSpan(y, p.scale_h, &y0, &y1);
        float* o = out + row * p.ow * c;
        for (int64_t x = 0; x < p.ow; ++x) {
          int64_t x0, x1;
          kernels::AreaSpan(x, p.scale_w, &x0, &x1);
          for (int64_t k = 0; k < c; ++k) {
            float sum = 0;  // along x in each row, then the rows weighted
            for (int64_t i = y0; i < y1; ++i) {
              const T* src = in + (b * p.ih + kernels::AreaIndex(i, p.ih)) * p.iw * c + k;
              float h = 0;
              for (int64_t j = x0; j < x1; ++j)
                h += static_cast<float>(src[kernels::AreaIndex(j, p.iw) * c]) *
                     kernels::AreaWeight(x, p.scale_w, j);
              sum += h * kernels::AreaWeight(y, p.scale_h, i);
            }
            o[x * c + k] = sum * norm;
          }
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(4 * p.ow * c, 1)));
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterResize(const char* op, void* (*create)(TF_OpKernelConstruction*), Types<Ts...>,
                    TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create,
       kernels::DeleteResize}, status), ...);
}

// The types the OpDefs allow (TensorFlow's CPU kernels cover them all).
using ResizeTypes = Types<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t, BFloat16, Half, float, double>;

}  // namespace

void RegisterResizeCubicAreaKernels(TF_Status* status) {
  RegisterResize<ResizeBicubicKernel>("ResizeBicubic", kernels::CreateResize, ResizeTypes(), status);
  RegisterResize<ResizeAreaKernel>("ResizeArea", kernels::CreateResizeArea, ResizeTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

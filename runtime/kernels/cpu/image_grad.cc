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

// Bicubic: for each original row (column), the resized rows (columns) whose taps read
// it, with each tap's weight, in resized order then tap order. Walking a row's uses, then
// a column's, adds the terms in TensorFlow's scatter order (../resize_cubic_area_spec.h's
// ResizeBicubicGradAt, which the CUDA twin runs, scans for the same terms instead).
struct TapUse {
  int64_t o;
  float weight;
};
struct TapUses {
  std::vector<int64_t> start;  // the uses of original index i: [start[i], start[i + 1])
  std::vector<TapUse> uses;
};

TapUses InvertTaps(int64_t resized, int64_t original, float scale, bool half_pixel) {
  std::vector<std::vector<TapUse>> per(original);
  for (int64_t o = 0; o < resized; ++o) {
    const kernels::CubicTaps taps = kernels::CubicTapsAt(o, scale, original, half_pixel);
    for (int k = 0; k < 4; ++k) per[taps.index[k]].push_back({o, taps.weight[k]});
  }
  TapUses t;
  t.start.push_back(0);
  for (const auto& list : per) {
    t.uses.insert(t.uses.end(), list.begin(), list.end());
    t.start.push_back(static_cast<int64_t>(t.uses.size()));
  }
  return t;
}

// The end of the run of uses from `a` that share one resized index.
int64_t RunEnd(const TapUses& t, int64_t a, int64_t end) {
  int64_t b = a + 1;
  while (b < end && t.uses[b].o == t.uses[a].o) ++b;
  return b;
}

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
    const TapUses rows = InvertTaps(p.oh, p.ih, p.scale_h, a.half_pixel_centers);
    const TapUses cols = InvertTaps(p.ow, p.iw, p.scale_w, a.half_pixel_centers);
    const float* grads = Data<float>(p.grads);
    T* out = Data<T>(output);
    using C = ComputeType<T>;
    const int64_t c = p.c;
    ParallelFor(p.batch * p.ih * p.iw, [&](int64_t first, int64_t last) {
      std::vector<C> acc(c);
      for (int64_t pixel = first; pixel < last; ++pixel) {
        const int64_t sx = pixel % p.iw, sy = (pixel / p.iw) % p.ih, b = pixel / (p.iw * p.ih);
        std::fill(acc.begin(), acc.end(), C(0));
        const int64_t y_end = rows.start[sy + 1], x_end = cols.start[sx + 1];
        for (int64_t ya = rows.start[sy]; ya < y_end;) {
          const int64_t yb = RunEnd(rows, ya, y_end);
          for (int64_t xa = cols.start[sx]; xa < x_end;) {
            const int64_t xb = RunEnd(cols, xa, x_end);
            const float* g = grads + ((b * p.oh + rows.uses[ya].o) * p.ow + cols.uses[xa].o) * c;
            for (int64_t r = ya; r < yb; ++r)
              for (int64_t q = xa; q < xb; ++q) {
                const float wy = rows.uses[r].weight, wx = cols.uses[q].weight;
                for (int64_t ch = 0; ch < c; ++ch) acc[ch] += static_cast<C>(g[ch]) * wy * wx;
              }
            xa = xb;
          }
          ya = yb;
        }
        for (int64_t ch = 0; ch < c; ++ch) out[pixel * c + ch] = Narrow<T>(acc[ch]);
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(16 * c, 1)));
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

// MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad on NDHWC volumes (the gradients of
// Keras' MaxPooling3D / AveragePooling3D), float and bfloat16 as TensorFlow's CPU kernels.
// Each element gathers its sum (../pool3d_spec.h's steps, shared with the CUDA twin) in the
// order TensorFlow's kernels scatter it, rounding to the element type after each step as
// they do, so float results are TensorFlow's bit for bit; MaxPool3DGrad and AvgPool3DGrad
// walk a pixel's windows once for all its channels. Threads over pixels.
#include <algorithm>
#include <utility>
#include <vector>

#include "../pool3d_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

void* CreatePool3DGrad(TF_OpKernelConstruction* ctx) { return kernels::CreatePool3D(ctx, "CPU"); }

template <typename T>
struct Read {
  const T* p;
  ComputeType<T> operator()(int64_t i) const { return Widen(p[i]); }
};
template <typename T>
struct Round {
  ComputeType<T> operator()(ComputeType<T> v) const { return Widen(Narrow<T>(v)); }
};

// Pixels per thread chunk: each costs about a window's worth of steps per channel.
int64_t Grain(const kernels::Pool3DGeometry& g, int64_t per_pixel) {
  const int64_t window = std::max<int64_t>(g.k[0] * g.k[1] * g.k[2], 1);
  return std::max<int64_t>(1, kParallelThreshold / (std::min<int64_t>(window, 64) * std::max<int64_t>(per_pixel, 1)));
}

// One input pixel's windows, all channels at once (each channel's steps in TensorFlow's
// order, as the per-element sums of ../pool3d_spec.h take them).
template <typename T, bool kMax>
struct PixelSums {
  using C = ComputeType<T>;
  const kernels::Pool3DGeometry& g;
  const T *in, *pooled, *grad;  // in: this pixel's channels
  C* acc;
  void operator()(int64_t o, int64_t oz, int64_t oy, int64_t ox) {
    if constexpr (kMax) {
      for (int64_t ch = 0; ch < g.c; ++ch)
        acc[ch] = kernels::MaxPool3DGradStep(acc[ch], Widen(in[ch]), Widen(pooled[o + ch]), Widen(grad[o + ch]),
                                             Round<T>());
    } else {
      const C scale = kernels::AvgPool3DGradScale<C>(g, oz, oy, ox, Round<T>());
      for (int64_t ch = 0; ch < g.c; ++ch)
        acc[ch] = kernels::AvgPool3DGradStep(acc[ch], Widen(grad[o + ch]), scale, Round<T>());
    }
  }
};

enum class Kind { kMaxGrad, kAvgGrad, kMaxGradGrad };

template <typename T, Kind kKind>
struct Pool3DGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const auto& a = *static_cast<kernels::Pool3DAttrs*>(state);
    kernels::Pool3DGradPlan p;
    const bool ok = kKind == Kind::kAvgGrad ? kernels::PlanAvgPool3DGrad(ctx, a, &p)
                                            : kernels::PlanMaxPool3DGrad(ctx, a, kKind == Kind::kMaxGradGrad, &p);
    if (!ok) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const kernels::Pool3DGeometry g = p.g;
    using C = ComputeType<T>;
    const T* grad = Data<T>(p.grad);
    const T* in = kKind == Kind::kAvgGrad ? nullptr : Data<T>(p.in);
    const T* pooled = kKind == Kind::kAvgGrad ? nullptr : Data<T>(p.pooled);
    T* out = Data<T>(output);
    if constexpr (kKind == Kind::kMaxGradGrad) {
      // A pixel's window once for all its channels.
      const Read<T> ri{in};
      ParallelFor(total / g.c, [&](int64_t first, int64_t last) {
        for (int64_t pixel = first; pixel < last; ++pixel) {
          const kernels::Pool3DIndex at = kernels::Pool3DIndexOf(pixel * g.c, g.out, g.c);
          int64_t lo[3], hi[3];
          kernels::Pool3DWindow(g, at.pos, lo, hi);
          for (int64_t ch = 0; ch < g.c; ++ch) {
            const int64_t e = pixel * g.c + ch;
            const int64_t i = kernels::MaxPool3DFirstMatch<C>(g, at.b, lo, hi, ch, ri, Widen(pooled[e]));
            out[e] = i < 0 ? Narrow<T>(C(0)) : grad[i];
          }
        }
      }, Grain(g, g.c));
    } else {
      ParallelFor(total / g.c, [&](int64_t first, int64_t last) {
        std::vector<C> acc(g.c);
        for (int64_t pixel = first; pixel < last; ++pixel) {
          std::fill(acc.begin(), acc.end(), C(0));
          PixelSums<T, kKind == Kind::kMaxGrad> sums{g, in ? in + pixel * g.c : nullptr, pooled, grad, acc.data()};
          kernels::ForEachPool3DWindowOf(g, kernels::Pool3DIndexOf(pixel * g.c, g.in, g.c), sums);
          for (int64_t ch = 0; ch < g.c; ++ch) out[pixel * g.c + ch] = Narrow<T>(acc[ch]);
        }
      }, Grain(g, g.c));
    }
  }
};

// MaxPool3DGrad's orig_input and orig_output (TInput) are of grad's type, as in TensorFlow.
template <Kind kKind, typename... Ts>
void RegisterPool3DGrad(const char* op, Types<Ts...>, TF_Status* status) {
  auto constraints = [](TF_DataType t) {
    std::vector<std::pair<const char*, TF_DataType>> c{{"T", t}};
    if (kKind == Kind::kMaxGrad) c.push_back({"TInput", t});
    return c;
  };
  (RegisterKernel(kDevice, {op, constraints(DtypeOf<Ts>::value), {}, &Pool3DGradKernel<Ts, kKind>::Compute,
       CreatePool3DGrad, kernels::DeletePool3D}, status), ...);
}

}  // namespace

// TensorFlow's CPU registrations: float and bfloat16 (MaxPool3DGrad with TInput = T).
void RegisterPool3DGradKernels(TF_Status* status) {
  RegisterPool3DGrad<Kind::kMaxGrad>("MaxPool3DGrad", Types<float, BFloat16>(), status);
  RegisterPool3DGrad<Kind::kAvgGrad>("AvgPool3DGrad", Types<float, BFloat16>(), status);
  RegisterPool3DGrad<Kind::kMaxGradGrad>("MaxPool3DGradGrad", Types<float, BFloat16>(), status);
}

}  // namespace cpu
}  // namespace opgen

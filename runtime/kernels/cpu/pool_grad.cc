// MaxPoolGrad, MaxPoolGradGrad and AvgPoolGrad on NHWC data, on all cores. AvgPoolGrad: each
// input element gathers the gradient of the windows it fed (../conv_grad_spec.h, shared with
// the CUDA twin); MaxPoolGrad: each window adds its gradient at its maximum (the same sums). MaxPool's
// gradient goes to the first maximum of each window in row-major order, as TensorFlow's
// CPU kernel chooses it (orig_output is not read). AvgPoolGrad windows that tile the input
// (2x2/2) take a path of their own, row by row. The attrs are MaxPool's
// (../window_spec.h; NCHW refused as TensorFlow's CPU kernels do).
#include <algorithm>
#include <vector>

#include "../conv_grad_spec.h"
#include "../pool_argmax_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::DeleteWindow;
using kernels::GradGeometry;
using kernels::Window2D;
void* CreatePoolWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, false, "CPU"); }

template <typename T>
struct Read {
  const T* p;
  ComputeType<T> operator()(int64_t i) const { return Widen(p[i]); }
};

// AvgPoolGrad where the windows tile the input (stride = window, no padding before: the
// usual 2x2/2 pooling): each input element lies in at most one window, so it takes that
// window's grad over the window's (clipped) size, row by row, with none of the general
// path's per-element window search. Same arithmetic as AvgPoolGradAt (0 + grad / count).
template <typename T>
void TilingAvgPoolGrad(const GradGeometry& g, const T* grad, T* out) {
  using C = ComputeType<T>;
  const int64_t row_size = g.iw * g.ic;
  ParallelFor(g.batch * g.ih, [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const int64_t b = row / g.ih, y = row % g.ih / g.sh;
      T* dst = out + row * row_size;
      int64_t rb = 0, re = 0;
      if (y < g.oh) kernels::PoolSpan(y, g.sh, 0, g.kh, g.ih, &rb, &re);
      for (int64_t sx = 0; sx < g.iw; ++sx) {
        const int64_t x = sx / g.sw;
        T* px = dst + sx * g.ic;
        int64_t cb = 0, ce = 0;
        if (x < g.ow) kernels::PoolSpan(x, g.sw, 0, g.kw, g.iw, &cb, &ce);
        const int64_t count = (re - rb) * (ce - cb);
        if (y >= g.oh || x >= g.ow || count <= 0) {   // in no window: no gradient
          for (int64_t ch = 0; ch < g.ic; ++ch) px[ch] = Narrow<T>(C(0));
          continue;
        }
        const T* src = grad + ((b * g.oh + y) * g.ow + x) * g.oc;
        const C size = static_cast<C>(count);
        for (int64_t ch = 0; ch < g.ic; ++ch) px[ch] = Narrow<T>(C(0) + Widen(src[ch]) / size);
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(row_size, 1)));
}

// MaxPoolGrad by windows: each window finds its first maximum once and adds its grad
// there, rather than each input element rescanning every window that covers it. Units
// of work are (image, block of channels), so no two threads write one element; each
// element receives its windows' grads in the same (row-major window) order as the
// per-element formula, so the sums are the same bit for bit.
template <typename T>
void MaxPoolGradByWindows(const GradGeometry& g, const T* in, const T* grad, T* out) {
  using C = ComputeType<T>;
  constexpr int64_t kBlock = 16;
  const int64_t blocks = (g.ic + kBlock - 1) / kBlock, plane = g.ih * g.iw;
  const int64_t per_unit = std::max<int64_t>(1, plane * std::min(g.ic, kBlock) * 4);
  ParallelFor(g.batch * blocks, [&](int64_t first, int64_t last) {
    std::vector<C> acc(plane * kBlock);
    C best[kBlock];
    int64_t at[kBlock];
    for (int64_t unit = first; unit < last; ++unit) {
      const int64_t b = unit / blocks, c0 = (unit % blocks) * kBlock;
      const int64_t nc = std::min(kBlock, g.ic - c0);
      std::fill(acc.begin(), acc.begin() + plane * nc, C(0));
      const T* image = in + b * plane * g.ic + c0;
      for (int64_t y = 0; y < g.oh; ++y) {
        int64_t rb, re;
        kernels::PoolSpan(y, g.sh, g.pt, g.kh, g.ih, &rb, &re);
        for (int64_t x = 0; x < g.ow; ++x) {
          int64_t cb, ce;
          kernels::PoolSpan(x, g.sw, g.pl, g.kw, g.iw, &cb, &ce);
          if (rb >= re || cb >= ce) continue;  // an empty window takes no gradient
          // The window's first element starts each channel's maximum; a later one takes
          // over only when strictly larger (so a NaN wins only when first). Selects, not
          // branches: which element wins is data, and mispredicts cost more than the work.
          const T* px0 = image + (rb * g.iw + cb) * g.ic;
          for (int64_t c = 0; c < nc; ++c) {
            best[c] = Widen(px0[c]);
            at[c] = rb * g.iw + cb;
          }
          for (int64_t r = rb; r < re; ++r)
            for (int64_t q = (r == rb ? cb + 1 : cb); q < ce; ++q) {
              const T* px = image + (r * g.iw + q) * g.ic;
              const int64_t here = r * g.iw + q;
              for (int64_t c = 0; c < nc; ++c) {
                const C v = Widen(px[c]);
                const bool take = best[c] < v;
                best[c] = take ? v : best[c];
                at[c] = take ? here : at[c];
              }
            }
          const T* dy = grad + ((b * g.oh + y) * g.ow + x) * g.oc + c0;
          for (int64_t c = 0; c < nc; ++c) acc[at[c] * nc + c] += Widen(dy[c]);
        }
      }
      T* dst = out + b * plane * g.ic + c0;
      for (int64_t i = 0; i < plane; ++i)
        for (int64_t c = 0; c < nc; ++c) dst[i * g.ic + c] = Narrow<T>(acc[i * nc + c]);
    }
  }, std::max<int64_t>(1, kParallelThreshold / per_unit));
}

template <typename T, bool kMax>
struct PoolGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanPoolGrad(ctx, w, kMax, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const GradGeometry g = kernels::GeometryOf(p, w);
    if constexpr (kMax) {
      MaxPoolGradByWindows<T>(g, Data<T>(p.input), Data<T>(p.filter), Data<T>(output));
      return;
    }
    const Read<T> grad{Data<T>(p.filter)};
    T* out = Data<T>(output);
    if (g.pt == 0 && g.pl == 0 && g.sh == g.kh && g.sw == g.kw) {
      TilingAvgPoolGrad(g, Data<T>(p.filter), out);
      return;
    }
    const int64_t per = std::min<int64_t>(g.kh * g.kw, 64);  // windows per element, roughly
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t ch = e % g.ic, sx = (e / g.ic) % g.iw, sy = (e / (g.ic * g.iw)) % g.ih;
        const int64_t b = e / (g.ic * g.iw * g.ih);
        out[e] = Narrow<T>(kernels::AvgPoolGradAt<ComputeType<T>>(g, b, sy, sx, ch, grad));
      }
    }, std::max<int64_t>(1, kParallelThreshold / per));
  }
};

// MaxPoolGradGrad: each output element reads grad where its window holds its value.
template <typename T>
struct MaxPoolGradGradKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    TensorPtr orig_output;
    if (!kernels::PlanMaxPoolGradGrad(ctx, w, &p, &orig_output)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const GradGeometry g = kernels::GeometryOf(p, w);
    const Read<T> grad{Data<T>(p.filter)}, in{Data<T>(p.input)}, pooled{Data<T>(orig_output)};
    T* out = Data<T>(output);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t ch = e % g.oc, x = (e / g.oc) % g.ow, y = (e / (g.oc * g.ow)) % g.oh;
        const int64_t b = e / (g.oc * g.ow * g.oh);
        out[e] = Narrow<T>(kernels::MaxPoolGradGradAt(g, b, y, x, ch, pooled(e), in, grad));
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(std::min<int64_t>(g.kh * g.kw, 64), 1)));
  }
};

template <typename T> using MaxPoolGradKernel = PoolGradKernel<T, true>;
template <typename T> using AvgPoolGradKernel = PoolGradKernel<T, false>;

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute,
       CreatePoolWindow, DeleteWindow}, status), ...);
}

// MaxPoolGradV2 / MaxPoolGradGradV2: the kernels above on the tensors' window.
template <template <typename> class Kernel, typename... Ts>
void RegisterV2(const char* op, kernels::CreateFn create, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {"ksize", "strides"},
                            &kernels::WithTensorWindow<&Kernel<Ts>::Compute>, create, kernels::DeletePoolV2},
                  status), ...);
}

}  // namespace

// TensorFlow's CPU registrations: MaxPoolGrad(Grad) on every real type its OpDef allows,
// AvgPoolGrad on the floats.
void RegisterPoolGradKernels(TF_Status* status) {
  RegisterWith<MaxPoolGradKernel>("MaxPoolGrad", RealTypes(), status);
  RegisterWith<MaxPoolGradGradKernel>("MaxPoolGradGrad", RealTypes(), status);
  RegisterWith<AvgPoolGradKernel>("AvgPoolGrad", FloatTypes(), status);
  RegisterV2<MaxPoolGradKernel>("MaxPoolGradV2", kernels::CreateMaxPoolGradV2, RealTypes(), status);
  RegisterV2<MaxPoolGradGradKernel>("MaxPoolGradGradV2", kernels::CreateMaxPoolGradGradV2, RealTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

// MaxPoolGrad, MaxPoolGradGrad and AvgPoolGrad on NHWC data: each input element gathers the gradient of
// the windows it fed (../conv_grad_spec.h, shared with the CUDA twin), on all cores. MaxPool's
// gradient goes to the first maximum of each window in row-major order, as TensorFlow's
// CPU kernel chooses it (orig_output is not read). The attrs are MaxPool's
// (../window_spec.h; NCHW refused as TensorFlow's CPU kernels do).
#include <algorithm>
#include <vector>

#include "../conv_grad_spec.h"
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
    const Read<T> grad{Data<T>(p.filter)};
    const Read<T> in{kMax ? Data<T>(p.input) : nullptr};
    T* out = Data<T>(output);
    // Windows per element times their size, roughly (stride-1 windows overlap most).
    const int64_t per = std::min<int64_t>(g.kh * g.kw, 64) * (kMax ? std::min<int64_t>(g.kh * g.kw, 64) : 1);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t ch = e % g.ic, sx = (e / g.ic) % g.iw, sy = (e / (g.ic * g.iw)) % g.ih;
        const int64_t b = e / (g.ic * g.iw * g.ih);
        if constexpr (kMax)
          out[e] = Narrow<T>(kernels::MaxPoolGradAt<ComputeType<T>>(g, b, sy, sx, ch, in, grad));
        else
          out[e] = Narrow<T>(kernels::AvgPoolGradAt<ComputeType<T>>(g, b, sy, sx, ch, grad));
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(per, 1)));
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

}  // namespace

// TensorFlow's CPU registrations: MaxPoolGrad(Grad) on every real type its OpDef allows,
// AvgPoolGrad on the floats.
void RegisterPoolGradKernels(TF_Status* status) {
  RegisterWith<MaxPoolGradKernel>("MaxPoolGrad", RealTypes(), status);
  RegisterWith<MaxPoolGradGradKernel>("MaxPoolGradGrad", RealTypes(), status);
  RegisterWith<AvgPoolGradKernel>("AvgPoolGrad", FloatTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

// Dilation2D, Dilation2DBackpropInput and Dilation2DBackpropFilter on the CPU, every real
// type: one element per unit of work with ../dilation_spec.h's rules (shared with the
// CUDA twin, ../cuda/dilation.cu); the backprops gather, so the sums are in output order
// on any number of threads.
#include <algorithm>
#include <limits>
#include <vector>

#include "../dilation_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::DilationAttrs;
using kernels::DilationGeometry;

template <typename T>
struct Read {
  const T* p;
  ComputeType<T> operator()(int64_t i) const { return Widen(p[i]); }
};

// T's lowest value in the compute type (half and bfloat16 have no numeric_limits).
template <typename T>
ComputeType<T> Lowest() {
  if constexpr (std::is_same_v<T, Half>) return -65504.0f;
  else if constexpr (std::is_same_v<T, BFloat16>) return -3.38953139e38f;
  else return std::numeric_limits<T>::lowest();
}

// mode 0: Dilation2D; 1: the input's gradient; 2: the filter's.
template <typename T, int kMode>
void DilationCompute(void* state, TF_OpKernelContext* ctx) {
  const DilationAttrs& a = *static_cast<DilationAttrs*>(state);
  DilationGeometry g;
  TensorPtr input, filter, dy;
  if (!kernels::PlanDilation(ctx, a, kMode != 0, &g, &input, &filter, &dy)) return;
  const std::vector<int64_t> dims = kMode == 0   ? std::vector<int64_t>{g.batch, g.oh, g.ow, g.depth}
                                    : kMode == 1 ? Dims(input.get())
                                                 : Dims(filter.get());
  TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
  const int64_t total = NumElements(dims);
  if (!out || total == 0) return;
  using C = ComputeType<T>;
  const C lowest = Lowest<T>();
  const Read<T> in{Data<T>(input)}, f{Data<T>(filter)}, grad{kMode != 0 ? Data<T>(dy) : nullptr};
  T* o = Data<T>(out);
  const int64_t d = g.depth;
  const int64_t per = std::max<int64_t>(1, g.fh * g.fw * (kMode == 2 ? g.batch * g.oh * g.ow : 1));
  ParallelFor(total, [&](int64_t first, int64_t last) {
    for (int64_t e = first; e < last; ++e) {
      const int64_t c = e % d;
      if constexpr (kMode == 0) {
        const int64_t x = e / d % g.ow, y = e / (d * g.ow) % g.oh, b = e / (d * g.ow * g.oh);
        int64_t ah, aw, ti, tj;
        o[e] = Narrow<T>(kernels::DilationMax<C>(g, b, y, x, c, lowest, in, f, &ah, &aw, &ti, &tj));
      } else if constexpr (kMode == 1) {
        const int64_t w = e / d % g.iw, h = e / (d * g.iw) % g.ih, b = e / (d * g.iw * g.ih);
        o[e] = Narrow<T>(kernels::DilationBackpropInputAt<C>(g, b, h, w, c, lowest, in, f, grad));
      } else {
        const int64_t j = e / d % g.fw, i = e / (d * g.fw);
        o[e] = Narrow<T>(kernels::DilationBackpropFilterAt<C>(g, i, j, c, lowest, in, f, grad));
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / per));
}

template <typename... Ts>
void RegisterDilation(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Dilation2D", {{"T", DtypeOf<Ts>::value}}, {}, DilationCompute<Ts, 0>,
                            kernels::CreateDilation, kernels::DeleteDilation}, status), ...);
  (RegisterKernel(kDevice, {"Dilation2DBackpropInput", {{"T", DtypeOf<Ts>::value}}, {}, DilationCompute<Ts, 1>,
                            kernels::CreateDilation, kernels::DeleteDilation}, status), ...);
  (RegisterKernel(kDevice, {"Dilation2DBackpropFilter", {{"T", DtypeOf<Ts>::value}}, {}, DilationCompute<Ts, 2>,
                            kernels::CreateDilation, kernels::DeleteDilation}, status), ...);
}

}  // namespace

void RegisterDilationKernels(TF_Status* status) { RegisterDilation(RealTypes(), status); }

}  // namespace cpu
}  // namespace opgen

// Dilation2D, Dilation2DBackpropInput and Dilation2DBackpropFilter on the GPU, every real
// type: one thread per output element with ../dilation_spec.h's rules (the backprops
// gather, without atomics). Twin of ../cpu/dilation.cc.
#include <limits>
#include <type_traits>
#include <vector>

#include "../dilation_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::DilationAttrs;
using kernels::DilationGeometry;

template <typename T>
typename ComputeType<T>::type Lowest() {
  if constexpr (std::is_same<T, __half>::value) return -65504.0f;
  else if constexpr (std::is_same<T, __nv_bfloat16>::value) return -3.38953139e38f;
  else return std::numeric_limits<T>::lowest();
}

template <typename T, int kMode>
struct DilationElement {
  DilationGeometry g;
  typename ComputeType<T>::type lowest;
  Read<T> in, f, grad;
  T* out;
  __device__ void operator()(int64_t e) const {
    using C = typename ComputeType<T>::type;
    const int64_t d = g.depth, c = e % d;
    if (kMode == 0) {
      const int64_t x = e / d % g.ow, y = e / (d * g.ow) % g.oh, b = e / (d * g.ow * g.oh);
      int64_t ah, aw, ti, tj;
      out[e] = Narrow<T>(kernels::DilationMax<C>(g, b, y, x, c, lowest, in, f, &ah, &aw, &ti, &tj));
    } else if (kMode == 1) {
      const int64_t w = e / d % g.iw, h = e / (d * g.iw) % g.ih, b = e / (d * g.iw * g.ih);
      out[e] = Narrow<T>(kernels::DilationBackpropInputAt<C>(g, b, h, w, c, lowest, in, f, grad));
    } else {
      const int64_t j = e / d % g.fw, i = e / (d * g.fw);
      out[e] = Narrow<T>(kernels::DilationBackpropFilterAt<C>(g, i, j, c, lowest, in, f, grad));
    }
  }
};

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
  if (!out) return;
  const DilationElement<T, kMode> f{g, Lowest<T>(), {Data<T>(input)}, {Data<T>(filter)},
                                    {kMode != 0 ? Data<T>(dy) : nullptr}, Data<T>(out)};
  LaunchForEach(ctx, NumElements(dims), f, "Dilation2D");
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

using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

}  // namespace

void RegisterDilationKernels(TF_Status* status) { RegisterDilation(RealTypes(), status); }

}  // namespace cuda
}  // namespace opgen

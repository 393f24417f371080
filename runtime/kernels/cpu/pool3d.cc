// MaxPool3D and AvgPool3D on NDHWC volumes (Keras' MaxPooling3D / AveragePooling3D).
// Attrs, checks and windows: ../pool3d_spec.h, shared with the CUDA plugin; here the
// loops, threads over output rows.
#include <algorithm>
#include <vector>

#include "../pool3d_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

void* CreatePool3D(TF_OpKernelConstruction* ctx) { return kernels::CreatePool3D(ctx, "CPU"); }

template <typename T, bool kMax>
struct Pool3DKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::Pool3DPlan p;
    if (!kernels::PlanPool3D(ctx, *static_cast<kernels::Pool3DAttrs*>(state),
                             kMax ? "MaxPool3D" : "AvgPool3D", &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    const kernels::Pool3DGeometry g = p.g;
    const T* x = Data<T>(p.input);
    T* y = Data<T>(output);
    using Acc = ComputeType<T>;
    ParallelFor(g.batch * g.out[0] * g.out[1], [&](int64_t begin, int64_t end) {
      std::vector<Acc> acc(g.c);
      for (int64_t row = begin; row < end; ++row) {
        const int64_t oy = row % g.out[1], oz = (row / g.out[1]) % g.out[0];
        const int64_t b = row / (g.out[1] * g.out[0]);
        int64_t z0, z1, y0, y1, x0, x1;
        kernels::Pool3DSpan(g, 0, oz, &z0, &z1);
        kernels::Pool3DSpan(g, 1, oy, &y0, &y1);
        for (int64_t ox = 0; ox < g.out[2]; ++ox) {
          kernels::Pool3DSpan(g, 2, ox, &x0, &x1);
          std::fill(acc.begin(), acc.end(), kMax ? Lowest<T>() : Acc(0));
          for (int64_t z = z0; z < z1; ++z)
            for (int64_t yy = y0; yy < y1; ++yy)
              for (int64_t xx = x0; xx < x1; ++xx) {
                const T* v = x + (((b * g.in[0] + z) * g.in[1] + yy) * g.in[2] + xx) * g.c;
                for (int64_t k = 0; k < g.c; ++k) {
                  const Acc w = Widen(v[k]);
                  if constexpr (kMax) acc[k] = acc[k] < w ? w : acc[k];  // as MaxPool's kernel
                  else acc[k] += w;
                }
              }
          T* o = y + (row * g.out[2] + ox) * g.c;
          const Acc count = static_cast<Acc>((z1 - z0) * (y1 - y0) * (x1 - x0));
          for (int64_t k = 0; k < g.c; ++k) o[k] = Narrow<T>(kMax ? acc[k] : acc[k] / count);
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(g.out[2] * g.c, 1)));
  }
};

template <bool kMax, typename... Ts>
void RegisterPool3D(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Pool3DKernel<Ts, kMax>::Compute,
       CreatePool3D, kernels::DeletePool3D}, status), ...);
}

}  // namespace

// TensorFlow's CPU registrations: float and bfloat16 (its OpDefs allow half, and double
// for AvgPool3D, which only its GPU kernels take).
void RegisterPool3DKernels(TF_Status* status) {
  RegisterPool3D<true>("MaxPool3D", Types<float, BFloat16>(), status);
  RegisterPool3D<false>("AvgPool3D", Types<float, BFloat16>(), status);
}

}  // namespace cpu
}  // namespace opgen

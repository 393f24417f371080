// MaxPool3D and AvgPool3D on the GPU: the CPU kernels' checks and windows
// (../pool3d_spec.h), one thread per output value.
#include <limits>
#include <type_traits>

#include "../pool3d_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

void* CreatePool3D(TF_OpKernelConstruction* ctx) { return kernels::CreatePool3D(ctx, "GPU"); }

template <typename T> __device__ inline typename ComputeType<T>::type Lowest3D() {
  if constexpr (std::is_same_v<T, __half>) return -65504.0f;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return -3.38953139e38f;
  else return std::numeric_limits<T>::lowest();
}

// Max starts from the type's lowest value and skips NaN as the CPU's acc < v does.
template <typename T, bool kMax>
__global__ void Pool3DKernel(const T* in, T* out, int64_t total, kernels::Pool3DGeometry g) {
  using C = typename ComputeType<T>::type;
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = n % g.c, pixel = n / g.c;
    const int64_t ox = pixel % g.out[2], r1 = pixel / g.out[2];
    const int64_t oy = r1 % g.out[1], r2 = r1 / g.out[1];
    const int64_t oz = r2 % g.out[0], b = r2 / g.out[0];
    int64_t z0, z1, y0, y1, x0, x1;
    kernels::Pool3DSpan(g, 0, oz, &z0, &z1);
    kernels::Pool3DSpan(g, 1, oy, &y0, &y1);
    kernels::Pool3DSpan(g, 2, ox, &x0, &x1);
    C acc = kMax ? Lowest3D<T>() : C(0);
    for (int64_t z = z0; z < z1; ++z)
      for (int64_t y = y0; y < y1; ++y)
        for (int64_t x = x0; x < x1; ++x) {
          const C v = Widen(in[(((b * g.in[0] + z) * g.in[1] + y) * g.in[2] + x) * g.c + k]);
          if (kMax) acc = acc < v ? v : acc;
          else acc += v;
        }
    if (!kMax) acc /= static_cast<C>((z1 - z0) * (y1 - y0) * (x1 - x0));
    out[n] = Narrow<T>(acc);
  }
}

template <typename T, bool kMax>
struct Pool3DOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const char* op = kMax ? "MaxPool3D" : "AvgPool3D";
    kernels::Pool3DPlan p;
    if (!kernels::PlanPool3D(ctx, *static_cast<kernels::Pool3DAttrs*>(state), op, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    Pool3DKernel<T, kMax><<<BlocksFor(total), kThreads, 0, stream>>>(Data<T>(p.input), Data<T>(output),
                                                                     total, p.g);
    CheckLaunch(ctx, op);
  }
};

template <bool kMax, typename... Ts>
void RegisterPool3D(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Pool3DOp<Ts, kMax>::Compute,
       CreatePool3D, kernels::DeletePool3D}, status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/pool3d.cc).
void RegisterPool3DKernels(TF_Status* status) {
  RegisterPool3D<true>("MaxPool3D", Types<float, __nv_bfloat16>(), status);
  RegisterPool3D<false>("AvgPool3D", Types<float, __nv_bfloat16>(), status);
}

}  // namespace cuda
}  // namespace opgen

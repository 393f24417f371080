// PopulationCount, ApproximateEqual and Cross on the GPU (twin of ../cpu/math_family.cc):
// checks and messages are ../math_family_spec.h's, results the CPU kernels'.
#include <type_traits>
#include <vector>

#include "../math_family_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

template <typename T> using Wide = typename ComputeType<T>::type;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
__global__ void PopCountKernel(const T* __restrict__ x, uint8_t* __restrict__ y, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = static_cast<uint8_t>(__popcll(static_cast<unsigned long long>(
        static_cast<std::make_unsigned_t<T>>(x[i]))));
}

template <typename T>
struct PopulationCountKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr x = Input(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x.get());
    TensorPtr y = AllocateOutput<uint8_t>(ctx, 0, dims);
    const int64_t n = NumElements(dims);
    if (!y || n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    PopCountKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(Data<T>(x), Data<uint8_t>(y), n);
    CheckLaunch(ctx, "PopulationCount");
  }
};

template <typename T>
__global__ void ApproxEqualKernel(const T* __restrict__ x, const T* __restrict__ y, T tolerance,
                                  bool* __restrict__ z, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    z[i] = fabs(x[i] - y[i]) < tolerance;
}

template <typename T>
void ApproximateEqualCompute(void* state, TF_OpKernelContext* ctx) {
  const T tolerance = static_cast<T>(static_cast<kernels::ApproximateEqualAttrs*>(state)->tolerance);
  TensorPtr x, y;
  std::vector<int64_t> dims;
  if (!kernels::PlanApproximateEqual(ctx, &x, &y, &dims)) return;
  TensorPtr z = AllocateOutput<bool>(ctx, 0, dims);
  const int64_t n = NumElements(dims);
  if (!z || n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  ApproxEqualKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(Data<T>(x), Data<T>(y), tolerance,
                                                              Data<bool>(z), n);
  CheckLaunch(ctx, "ApproximateEqual");
}

// a1 * b2 - a2 * b1, each step rounded to T; integers wrap (unsigned arithmetic).
template <typename T>
__device__ __forceinline__ T CrossTerm(T a1, T b2, T a2, T b1) {
  if constexpr (kIsInteger<T>) {
    using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a1) * static_cast<U>(b2)) -
                          static_cast<U>(static_cast<U>(a2) * static_cast<U>(b1)));
  } else {
    const T p = Narrow<T>(static_cast<Wide<T>>(Widen(a1) * Widen(b2)));
    const T q = Narrow<T>(static_cast<Wide<T>>(Widen(a2) * Widen(b1)));
    return Narrow<T>(static_cast<Wide<T>>(Widen(p) - Widen(q)));
  }
}

template <typename T>
__global__ void CrossRowsKernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                                int64_t rows) {
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* u = a + 3 * r;
    const T* v = b + 3 * r;
    T* w = c + 3 * r;
    w[0] = CrossTerm(u[1], v[2], u[2], v[1]);
    w[1] = CrossTerm(u[2], v[0], u[0], v[2]);
    w[2] = CrossTerm(u[0], v[1], u[1], v[0]);
  }
}

template <typename T>
struct CrossKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    kernels::CrossPlan p;
    if (!kernels::PlanCross(ctx, &p)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, p.dims);
    if (!out || p.rows == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    CrossRowsKernel<T><<<BlocksFor(p.rows), kThreads, 0, stream>>>(Data<T>(p.a), Data<T>(p.b),
                                                                   Data<T>(out), p.rows);
    CheckLaunch(ctx, "Cross");
  }
};

using Ints = Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;

}  // namespace

void RegisterMathFamilyKernels(TF_Status* status) {
  RegisterForTypes<PopulationCountKernel>(kDevice, "PopulationCount", Ints(), status);
  RegisterKernel(kDevice, {"ApproximateEqual", {{"T", TF_FLOAT}}, {}, &ApproximateEqualCompute<float>,
                           kernels::CreateApproximateEqual, kernels::DeleteApproximateEqual}, status);
  RegisterKernel(kDevice, {"ApproximateEqual", {{"T", TF_DOUBLE}}, {}, &ApproximateEqualCompute<double>,
                           kernels::CreateApproximateEqual, kernels::DeleteApproximateEqual}, status);
  RegisterForTypes<CrossKernel>(kDevice, "Cross",
                                kernels::Concat<Types<float, double, __half, __nv_bfloat16>, Ints>(),
                                status);
}

}  // namespace cuda
}  // namespace opgen

// BiasAdd on the GPU, with the CPU kernel's attr and shape checks and errors
// (../nn_spec.h). Twin of ../cpu/nn.cc (Softmax and LogSoftmax: reduction.cu, as on the CPU).
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../nn_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {
namespace {

// ---- BiasAdd -----------------------------------------------------------------------------

// The attrs and input checks of BiasAdd and FusedBatchNormV3 are the CPU kernels' own
// code (../nn_spec.h); here the arithmetic.
using kernels::BatchNormAttrs;
using kernels::BiasAddAttrs;

// x + y wrapping on integer overflow, as the CPU's WrappingAdd.
template <typename T> __device__ inline T WrappingAdd(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
  } else {
    return Narrow<T>(Widen(x) + Widen(y));
  }
}

// Element i gets the bias of its channel, (i / inner) % channels.
template <typename T, typename Index>
__global__ void BiasAddKernel(const T* x, const T* bias, T* y, Index n, Index channels,
                              Index inner) {
  for (Index i = GlobalThread<Index>(); i < n; i += GridStride<Index>())
    y[i] = WrappingAdd(x[i], bias[(i / inner) % channels]);
}

template <typename T>
struct BiasAddKernelOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::BiasAddPlan p;
    if (!kernels::PlanBiasAdd(ctx, *static_cast<BiasAddAttrs*>(state), &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
    const int64_t n = NumElements(p.dims);
    if (!output || n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    const int64_t channels = p.channels, inner = p.inner;
    const T* x = Data<T>(p.value);
    const T* b = Data<T>(p.bias);
    T* y = Data<T>(output);
    if (Fits32(n))
      BiasAddKernel<T, uint32_t><<<BlocksFor(n), kThreads, 0, stream>>>(
          x, b, y, static_cast<uint32_t>(n), static_cast<uint32_t>(channels),
          static_cast<uint32_t>(inner));
    else
      BiasAddKernel<T, int64_t><<<BlocksFor(n), kThreads, 0, stream>>>(x, b, y, n, channels, inner);
    CheckLaunch(ctx, "BiasAdd");
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterWithState(const char* op, Types<Ts...>, CreateFn create, DeleteFn destroy,
                       TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create, destroy},
            status),
   ...);
}

using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

// BiasAddV1: BiasAdd without data_format (the channel is the last dimension).
void* CreateBiasAddV1(TF_OpKernelConstruction*) { return new kernels::BiasAddAttrs(); }

}  // namespace

void RegisterNnKernels(TF_Status* status) {
  RegisterWithState<BiasAddKernelOp>("BiasAdd", RealTypes(), kernels::CreateBiasAdd,
                                     kernels::DeleteBiasAdd, status);
  RegisterWithState<BiasAddKernelOp>("BiasAddV1", RealTypes(), CreateBiasAddV1, kernels::DeleteBiasAdd,
                                     status);
}

}  // namespace cuda
}  // namespace opgen

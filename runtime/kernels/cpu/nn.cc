// BiasAdd (Softmax and LogSoftmax, reductions over the last axis: reduction.cc, as in
// its CUDA twin).
#include <algorithm>

#include "../nn_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// The attrs and input checks of BiasAdd: ../nn_spec.h, shared with the CUDA plugin;
// here the arithmetic. FusedBatchNorm*: batch_norm.cc.
using kernels::BiasAddAttrs;

template <typename T>
struct BiasAddKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::BiasAddPlan p;
    if (!kernels::PlanBiasAdd(ctx, *static_cast<BiasAddAttrs*>(state), &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
    const int64_t n = NumElements(p.dims);
    if (!output || n == 0) return;
    const int64_t channels = p.channels, inner = p.inner;
    const T* x = Data<T>(p.value);
    const T* b = Data<T>(p.bias);
    T* y = Data<T>(output);
    const int64_t rows = n / (channels * inner);
    ParallelFor(rows * channels, [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {  // r: one run of `inner` values of one channel
        const T bias = b[r % channels];
        for (int64_t i = r * inner; i < (r + 1) * inner; ++i)
          y[i] = Narrow<T>(WrappingAdd(Widen(x[i]), Widen(bias)));
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(inner, 1)));
  }
};

// BiasAddV1: BiasAdd without data_format (the channel is the last dimension).
void* CreateBiasAddV1(TF_OpKernelConstruction*) { return new BiasAddAttrs(); }

template <typename... Ts>
void RegisterBiasAdd(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"BiasAdd", {{"T", DtypeOf<Ts>::value}}, {}, &BiasAddKernel<Ts>::Compute,
       kernels::CreateBiasAdd, kernels::DeleteBiasAdd}, status),
   ...);
  (RegisterKernel(kDevice, {"BiasAddV1", {{"T", DtypeOf<Ts>::value}}, {}, &BiasAddKernel<Ts>::Compute,
       CreateBiasAddV1, kernels::DeleteBiasAdd}, status),
   ...);
}

}  // namespace

void RegisterNnKernels(TF_Status* status) {
  RegisterBiasAdd(RealTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

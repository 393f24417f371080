// Neural-network kernels: Softmax and LogSoftmax over the last axis, BiasAdd.
#include <algorithm>
#include <cmath>

#include "../nn_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// One pass for the max, one for the sum of exponentials, one to write: numerically
// stable for large logits.
template <bool kLog>
struct Softmax {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      kernels::SoftmaxPlan p;
      if (!kernels::PlanSoftmax(ctx, &p)) return;
      TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
      if (!output) return;
      const int64_t depth = p.depth, rows = p.rows;
      const T* in = Data<T>(p.logits);
      T* out = Data<T>(output);
      using C = ComputeType<T>;
      ParallelFor(rows, [=](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const T* x = in + r * depth;
          T* y = out + r * depth;
          C max = Widen(x[0]);
          for (int64_t i = 1; i < depth; ++i) max = Widen(x[i]) > max ? Widen(x[i]) : max;
          C sum = 0;
          for (int64_t i = 0; i < depth; ++i) sum += std::exp(Widen(x[i]) - max);
          if constexpr (kLog) {
            const C log_sum = std::log(sum);
            for (int64_t i = 0; i < depth; ++i) y[i] = Narrow<T>(Widen(x[i]) - max - log_sum);
          } else {
            for (int64_t i = 0; i < depth; ++i) y[i] = Narrow<T>(std::exp(Widen(x[i]) - max) / sum);
          }
        }
      }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(depth, 1)));
    }
  };
};

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

template <typename... Ts>
void RegisterBiasAdd(Types<Ts...>, TF_Status* status) {
  (RegisterKernel("BiasAdd", "T", DtypeOf<Ts>::value, &BiasAddKernel<Ts>::Compute, status,
                  kernels::CreateBiasAdd, kernels::DeleteBiasAdd),
   ...);
}

}  // namespace

void RegisterNnKernels(TF_Status* status) {
  RegisterForTypes<Softmax<false>::Kernel>("Softmax", FloatTypes(), status);
  RegisterForTypes<Softmax<true>::Kernel>("LogSoftmax", FloatTypes(), status);
  RegisterBiasAdd(RealTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

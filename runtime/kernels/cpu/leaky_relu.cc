// LeakyRelu on the CPU: x where x > 0, alpha * x elsewhere (so NaN stays NaN and -0.0
// stays -0.0), in the compute type; alpha is read once (../misc_spec.h).
#include <algorithm>

#include "../misc_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

template <typename T>
struct LeakyReluKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    using C = ComputeType<T>;
    const C alpha = static_cast<C>(static_cast<const kernels::LeakyReluAttrs*>(state)->alpha);
    const TF_Tensor* x = BorrowInput(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x);
    TF_Tensor* y = AllocateBorrowedOutput<T>(ctx, 0, dims);
    if (!y) return;
    const T* xp = Data<T>(x);
    T* yp = Data<T>(y);
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const C v = Widen(xp[i]);
        yp[i] = Narrow<T>(v > C(0) ? v : v * alpha);
      }
    });
  }
};

template <typename... Ts>
void RegisterLeakyRelu(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"LeakyRelu", {{"T", DtypeOf<Ts>::value}}, {},
       &LeakyReluKernel<Ts>::Compute, kernels::CreateLeakyRelu, kernels::DeleteLeakyRelu}, status),
   ...);
}

}  // namespace

void RegisterLeakyReluKernels(TF_Status* status) { RegisterLeakyRelu(FloatTypes(), status); }

}  // namespace cpu
}  // namespace opgen

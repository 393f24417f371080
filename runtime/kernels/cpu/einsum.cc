// Einsum on the CPU: the plan of ../einsum_spec.h (shared with the CUDA plugin) carried
// out as strided passes around one batched GEMM of gemm.h (OpenBLAS for floats), the
// same GEMMs BatchMatMulV2 runs.
#include <algorithm>
#include <vector>

#include "../einsum_spec.h"
#include "gemm.h"
#include "kernel_util.h"
#include "strided_pass.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::EinsumPlan;
using kernels::EinsumState;

template <typename T>
struct EinsumKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const int num = TF_NumInputs(ctx);
    std::vector<const TF_Tensor*> inputs(num);
    std::vector<std::vector<int64_t>> dims(num);
    for (int i = 0; i < num; ++i) {
      inputs[i] = BorrowInput(ctx, i);
      if (!inputs[i]) return;
      dims[i] = Dims(inputs[i]);
    }
    EinsumPlan plan;
    if (!kernels::EinsumPlanFor(ctx, static_cast<EinsumState*>(state), dims, &plan)) return;
    TF_Tensor* out = AllocateBorrowedOutput<T>(ctx, 0, plan.out_dims);
    if (!out) return;
    if (!plan.gemm && !plan.finish) {  // input 0 as it is, maybe less size-1 dims ("ij->ij")
      std::copy_n(Data<T>(inputs[0]), NumElements(plan.out_dims), Data<T>(out));
      return;
    }
    if (!plan.gemm) return RunPass(plan.finish_pass, Data<T>(inputs[0]), Data<T>(out));

    const T* operand[2] = {Data<T>(inputs[plan.first]), Data<T>(inputs[plan.second])};
    std::vector<T> prepared[2];
    for (int s = 0; s < 2; ++s) {
      if (!plan.prepare[s]) continue;
      prepared[s].resize(static_cast<size_t>(plan.prepared_elements[s]));
      RunPass(plan.pass[s], operand[s], prepared[s].data());
      operand[s] = prepared[s].data();
    }
    const int64_t m = plan.m, n = plan.n, k = plan.k;
    std::vector<T> product;
    T* c = Data<T>(out);
    if (plan.finish) {
      product.resize(static_cast<size_t>(plan.batch * m * n));
      c = product.data();
    }
    if (plan.batch * m * n > 0) {
      for (int64_t b = 0; b < plan.batch; ++b) {
        T* cb = c + b * m * n;
        if (k == 0) {
          std::fill_n(cb, m * n, Narrow<T>(0));
        } else {
          Gemm(plan.ta, plan.tb, m, n, k, operand[0] + b * m * k, operand[1] + b * k * n, cb);
        }
      }
    }
    if (plan.finish) RunPass(plan.finish_pass, static_cast<const T*>(c), Data<T>(out));
  }
};

// TensorFlow's CPU types, less complex.
using EinsumTypes = Concat<FloatTypes, Types<int32_t, int64_t>>;

template <typename... Ts>
void RegisterEinsum(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Einsum", {{"T", DtypeOf<Ts>::value}}, {}, &EinsumKernel<Ts>::Compute,
       kernels::CreateEinsum, kernels::DeleteEinsum}, status),
   ...);
}

}  // namespace

void RegisterEinsumKernels(TF_Status* status) { RegisterEinsum(EinsumTypes(), status); }

}  // namespace cpu
}  // namespace opgen

// Einsum on the GPU: the CPU kernel's plan (../einsum_spec.h) carried out as strided
// passes (strided_pass.cuh) around one strided-batched GEMM of gemm.h (cuBLAS for
// floats), the GEMMs BatchMatMulV2 runs.
#include <vector>

#include "../einsum_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "gemm.h"
#include "strided_pass.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::EinsumPlan;
using kernels::EinsumState;

template <typename T>
struct EinsumKernel {
  using A = typename ComputeType<T>::type;

  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const int num = TF_NumInputs(ctx);
    std::vector<TensorPtr> inputs(num);
    std::vector<std::vector<int64_t>> dims(num);
    for (int i = 0; i < num; ++i) {
      inputs[i] = Input(ctx, i);
      if (!inputs[i]) return;
      dims[i] = Dims(inputs[i].get());
    }
    EinsumPlan plan;
    if (!kernels::EinsumPlanFor(ctx, static_cast<EinsumState*>(state), dims, &plan)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, plan.out_dims);
    if (!out) return;
    const int64_t out_n = NumElements(plan.out_dims);
    if (out_n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    if (!plan.gemm && !plan.finish) {  // input 0 as it is
      CheckCuda(ctx, cudaMemcpyAsync(Data<T>(out), Data<T>(inputs[0]), out_n * sizeof(T),
                                     cudaMemcpyDeviceToDevice, stream),
                "cudaMemcpyAsync");
      return;
    }
    if (!plan.gemm) {
      RunPass<T, A>(ctx, stream, plan.finish_pass, Data<T>(inputs[0]), Data<T>(out), "Einsum");
      return;
    }
    const T* operand[2] = {Data<T>(inputs[plan.first]), Data<T>(inputs[plan.second])};
    TensorPtr prepared[2];
    for (int s = 0; s < 2; ++s) {
      if (!plan.prepare[s]) continue;
      prepared[s] = AllocateTemp(ctx, DtypeOf<T>::value, {plan.prepared_elements[s]});
      if (!prepared[s] ||
          !RunPass<T, A>(ctx, stream, plan.pass[s], operand[s], Data<T>(prepared[s]), "Einsum"))
        return;
      operand[s] = Data<T>(prepared[s]);
    }
    TensorPtr product;
    T* c = Data<T>(out);
    if (plan.finish) {
      product = AllocateTemp(ctx, DtypeOf<T>::value, {plan.batch * plan.m * plan.n});
      if (!product) return;
      c = Data<T>(product);
    }
    if (plan.k == 0) {
      if (!CheckCuda(ctx, cudaMemsetAsync(c, 0, plan.batch * plan.m * plan.n * sizeof(T), stream),
                     "cudaMemsetAsync"))
        return;
    } else {
      BatchLayout layout;
      if (plan.batch > 1) {
        layout.rank = 1;
        layout.dims[0] = plan.batch;
        layout.a_stride[0] = 1;
        layout.b_stride[0] = 1;
      }
      if (!Gemm<T>(ctx, stream, plan.ta, plan.tb, plan.m, plan.n, plan.k, operand[0], operand[1],
                   c, layout))
        return;
    }
    if (plan.finish) RunPass<T, A>(ctx, stream, plan.finish_pass, c, Data<T>(out), "Einsum");
  }
};

template <typename... Ts>
void RegisterEinsum(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Einsum", {{"T", DtypeOf<Ts>::value}}, {}, &EinsumKernel<Ts>::Compute,
                       kernels::CreateEinsum, kernels::DeleteEinsum},
            status),
   ...);
}

}  // namespace

// The CPU kernel's types.
void RegisterEinsumKernels(TF_Status* status) {
  RegisterEinsum(Types<float, double, __half, __nv_bfloat16, int32_t, int64_t>(), status);
}

}  // namespace cuda
}  // namespace opgen

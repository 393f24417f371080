// MatMul and BatchMatMulV2 on the GPU: shapes and broadcasting are the CPU kernels'
// (../matmul_spec.h), the arithmetic in gemm.cu (cuBLAS for floats).
#include <string>
#include <vector>

#include "../matmul_spec.h"
#include "complex_parts.cuh"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "gemm.h"

namespace opgen {
namespace cuda {
namespace {

// Attrs, shape checks, output shapes and the broadcast of batch dims: the CPU kernels'
// own code (../matmul_spec.h); here the GEMMs.
using kernels::MatMulAttrs;
using kernels::MatMulPlan;

template <typename T>
struct MatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const MatMulAttrs& t = *static_cast<const MatMulAttrs*>(state);
    MatMulPlan p;
    if (!kernels::PlanMatMul(ctx, t, &p)) return;
    TensorPtr c = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!c || p.m * p.n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    Gemm<T>(ctx, stream, t.transpose_a, t.transpose_b, p.m, p.n, p.k, Data<T>(p.a), Data<T>(p.b),
            Data<T>(c));
  }
};

// BatchMatMulV2: batch dimensions that line up become one strided-batched cuBLAS call.
template <typename T>
struct BatchMatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const MatMulAttrs& t = *static_cast<const MatMulAttrs*>(state);
    MatMulPlan p;
    if (!kernels::PlanBatchMatMul(ctx, t, &p)) return;
    TensorPtr z = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!z || NumElements(p.out_dims) == 0) return;
    BatchLayout layout;
    if (!BroadcastBatch(p.a_batch, p.b_batch, &layout)) {
      Fail(ctx, TF_UNIMPLEMENTED,
           "BatchMatMulV2 on the GPU: the broadcast of " + ShapeString(Dims(p.a.get())) + " and " +
               ShapeString(Dims(p.b.get())) + " has more than 8 alternating batch dimensions");
      return;
    }
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    // adj_x / adj_y: adjoints, which conjugate complex operands too
    Gemm<T>(ctx, stream, t.transpose_a, t.transpose_b, p.m, p.n, p.k, Data<T>(p.a), Data<T>(p.b),
            Data<T>(z), layout, /*adjoint=*/true);
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterWithAttrs(const char* op, Types<Ts...>, CreateFn create, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create,
                       kernels::DeleteMatMulAttrs},
            status),
   ...);
}

// The CPU kernels' types (MatMul's OpDef has no int16): floats and complex through cuBLAS,
// integers through gemm.cu's tiled kernel.
using MatMulTypes = Types<float, double, __half, __nv_bfloat16, int32_t, int64_t,
                          ComplexParts<float>, ComplexParts<double>>;
using BatchMatMulTypes = Types<float, double, __half, __nv_bfloat16, int16_t, int32_t, int64_t,
                               ComplexParts<float>, ComplexParts<double>>;

}  // namespace

void RegisterMatMulKernels(TF_Status* status) {
  RegisterWithAttrs<MatMulKernel>("MatMul", MatMulTypes(), kernels::CreateMatMul, status);
  RegisterWithAttrs<BatchMatMulKernel>("BatchMatMulV2", BatchMatMulTypes(),
                                       kernels::CreateBatchMatMul, status);
  // BatchMatMul (TF1-era): the same kernel, batch dims required equal.
  RegisterWithAttrs<BatchMatMulKernel>("BatchMatMul", MatMulTypes(), kernels::CreateBatchMatMulV1,
                                       status);
}

}  // namespace cuda
}  // namespace opgen

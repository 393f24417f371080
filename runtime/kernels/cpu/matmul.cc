// MatMul and BatchMatMulV2 over the GEMMs of gemm.h.
#include <algorithm>

#include "../matmul_spec.h"
#include "gemm.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// Attrs, shape checks, output shapes and the broadcast of batch dims: ../matmul_spec.h,
// shared with the CUDA plugin; here the GEMMs.
using kernels::MatMulAttrs;
using kernels::MatMulPlan;

template <typename T>
struct MatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const MatMulAttrs& attrs = *static_cast<const MatMulAttrs*>(state);
    MatMulPlan p;
    if (!kernels::PlanMatMul(ctx, attrs, &p)) return;
    const int64_t m = p.m, n = p.n, k = p.k;
    TensorPtr c = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!c || m * n == 0) return;
    if (k == 0) {
      T* cp = Data<T>(c);
      for (int64_t i = 0; i < m * n; ++i) cp[i] = Narrow<T>(0);
      return;
    }
    Gemm(attrs.transpose_a, attrs.transpose_b, m, n, k, Data<T>(p.a), Data<T>(p.b), Data<T>(c));
  }
};

// BatchMatMulV2: each batch entry is one GEMM.
template <typename T>
struct BatchMatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const MatMulAttrs& attrs = *static_cast<const MatMulAttrs*>(state);
    MatMulPlan p;
    if (!kernels::PlanBatchMatMul(ctx, attrs, &p)) return;
    const int64_t m = p.m, n = p.n, k = p.k;
    const std::vector<int64_t>& xb = p.a_batch;
    const std::vector<int64_t>& yb = p.b_batch;
    const std::vector<int64_t>& batch = p.batch;
    const size_t rank = batch.size();
    TensorPtr z = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t count = NumElements(batch);
    if (!z || m * n == 0 || count == 0) return;
    const T* xp = Data<T>(p.a);
    const T* yp = Data<T>(p.b);
    T* zp = Data<T>(z);
    std::vector<int64_t> index(rank, 0);
    for (int64_t b = 0; b < count; ++b) {
      int64_t xo = 0, yo = 0;  // batch offsets, in matrices
      for (size_t d = 0; d < rank; ++d) {
        xo = xo * xb[d] + (xb[d] == 1 ? 0 : index[d]);
        yo = yo * yb[d] + (yb[d] == 1 ? 0 : index[d]);
      }
      T* out = zp + b * m * n;
      if (k == 0) {
        for (int64_t i = 0; i < m * n; ++i) out[i] = Narrow<T>(0);
      } else {
        const T* x = xp + xo * m * k;
        const T* y = yp + yo * k * n;
        // adj_x / adj_y: the adjoint, which for complex conjugates too
        if constexpr (kIsComplex<T>) Gemm(attrs.transpose_a, attrs.transpose_b, m, n, k, x, y, out, true);
        else Gemm(attrs.transpose_a, attrs.transpose_b, m, n, k, x, y, out);
      }
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < batch[d]) break;
        index[d] = 0;
      }
    }
  }
};

template <typename... Ts>
void RegisterMatMul(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"MatMul", {{"T", DtypeOf<Ts>::value}}, {}, &MatMulKernel<Ts>::Compute,
       kernels::CreateMatMul, kernels::DeleteMatMulAttrs}, status),
   ...);
}

template <typename... Ts>
void RegisterBatchMatMul(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"BatchMatMulV2", {{"T", DtypeOf<Ts>::value}}, {},
       &BatchMatMulKernel<Ts>::Compute, kernels::CreateBatchMatMul, kernels::DeleteMatMulAttrs},
       status),
   ...);
}

// BatchMatMul (TF1-era): BatchMatMulV2's kernel, batch dims required equal.
template <typename... Ts>
void RegisterBatchMatMulV1(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"BatchMatMul", {{"T", DtypeOf<Ts>::value}}, {},
       &BatchMatMulKernel<Ts>::Compute, kernels::CreateBatchMatMulV1, kernels::DeleteMatMulAttrs},
       status),
   ...);
}

// TensorFlow's CPU types (MatMul's OpDef has no int16).
using MatMulTypes = Concat<FloatTypes, Types<int32_t, int64_t>, ComplexTypes>;
using BatchMatMulTypes = Concat<MatMulTypes, Types<int16_t>>;

}  // namespace

void RegisterMatMulKernels(TF_Status* status) {
  RegisterMatMul(MatMulTypes(), status);
  RegisterBatchMatMul(BatchMatMulTypes(), status);
  RegisterBatchMatMulV1(MatMulTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

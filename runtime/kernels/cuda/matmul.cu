// MatMul and BatchMatMulV2 on the GPU: shapes and broadcasting as the CPU kernels
// (kernels/cpu/matmul.cc), the arithmetic in gemm.cu (cuBLAS for floats).
#include <algorithm>
#include <string>
#include <vector>

#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "gemm.h"

namespace opgen {
namespace cuda {
namespace {

bool BoolAttr(TF_OpKernelConstruction* ctx, const char* name) {
  StatusPtr s = NewStatus();
  TF_Bool v = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, name, &v, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return v != 0;
}

// transpose_a / transpose_b for MatMul, adj_x / adj_y for BatchMatMulV2 (adjoint is
// the transpose for real types).
struct Transposes {
  bool a = false;
  bool b = false;
};

void* CreateMatMul(TF_OpKernelConstruction* ctx) {
  return new Transposes{BoolAttr(ctx, "transpose_a"), BoolAttr(ctx, "transpose_b")};
}
void* CreateBatchMatMul(TF_OpKernelConstruction* ctx) {
  return new Transposes{BoolAttr(ctx, "adj_x"), BoolAttr(ctx, "adj_y")};
}
void DeleteTransposes(void* p) { delete static_cast<Transposes*>(p); }

const char* BoolString(bool v) { return v ? "true" : "false"; }

template <typename T>
struct MatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Transposes& t = *static_cast<const Transposes*>(state);
    TensorPtr a = Input(ctx, 0), b = Input(ctx, 1);
    if (!a || !b) return;
    const std::vector<int64_t> ad = Dims(a.get()), bd = Dims(b.get());
    if (ad.size() != 2 || bd.size() != 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, "In[0] and In[1] must be matrices, got shapes " +
                                         ShapeString(ad) + " and " + ShapeString(bd));
      return;
    }
    const int64_t m = t.a ? ad[1] : ad[0], k = t.a ? ad[0] : ad[1];
    const int64_t k2 = t.b ? bd[1] : bd[0], n = t.b ? bd[0] : bd[1];
    if (k != k2) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "Matrix size-incompatible: In[0]: " + ShapeString(ad) + ", In[1]: " + ShapeString(bd) +
               " (transpose_a=" + BoolString(t.a) + ", transpose_b=" + BoolString(t.b) + ")");
      return;
    }
    TensorPtr c = AllocateOutput<T>(ctx, 0, {m, n});
    if (!c || m * n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    Gemm<T>(ctx, stream, t.a, t.b, m, n, k, Data<T>(a), Data<T>(b), Data<T>(c));
  }
};

// BatchMatMulV2: matrices in the last two dimensions, batch dimensions broadcast as in
// numpy's matmul. Batch dimensions that line up become one strided-batched cuBLAS call.
template <typename T>
struct BatchMatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Transposes& t = *static_cast<const Transposes*>(state);
    TensorPtr x = Input(ctx, 0), y = Input(ctx, 1);
    if (!x || !y) return;
    const std::vector<int64_t> xd = Dims(x.get()), yd = Dims(y.get());
    if (xd.size() < 2 || yd.size() < 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, "BatchMatMulV2 needs inputs of rank >= 2, got " +
                                         ShapeString(xd) + " and " + ShapeString(yd));
      return;
    }
    const size_t xr = xd.size(), yr = yd.size();
    const int64_t m = t.a ? xd[xr - 1] : xd[xr - 2], k = t.a ? xd[xr - 2] : xd[xr - 1];
    const int64_t k2 = t.b ? yd[yr - 1] : yd[yr - 2], n = t.b ? yd[yr - 2] : yd[yr - 1];
    std::vector<int64_t> xb(xd.begin(), xd.end() - 2), yb(yd.begin(), yd.end() - 2);
    const size_t rank = std::max(xb.size(), yb.size());
    xb.insert(xb.begin(), rank - xb.size(), 1);
    yb.insert(yb.begin(), rank - yb.size(), 1);
    std::vector<int64_t> batch(rank);
    bool compatible = k == k2;
    for (size_t d = 0; d < rank && compatible; ++d) {
      compatible = xb[d] == yb[d] || xb[d] == 1 || yb[d] == 1;
      batch[d] = xb[d] == 1 ? yb[d] : xb[d];
    }
    if (!compatible) {
      Fail(ctx, TF_INVALID_ARGUMENT, "BatchMatMulV2: incompatible shapes " + ShapeString(xd) +
                                         " and " + ShapeString(yd));
      return;
    }
    std::vector<int64_t> out_dims = batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    TensorPtr z = AllocateOutput<T>(ctx, 0, out_dims);
    if (!z || NumElements(out_dims) == 0) return;
    BatchLayout layout;
    if (!BroadcastBatch(xb, yb, &layout)) {
      Fail(ctx, TF_UNIMPLEMENTED,
           "BatchMatMulV2 on the GPU: the broadcast of " + ShapeString(xd) + " and " +
               ShapeString(yd) + " has more than 8 alternating batch dimensions");
      return;
    }
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    Gemm<T>(ctx, stream, t.a, t.b, m, n, k, Data<T>(x), Data<T>(y), Data<T>(z), layout);
  }
};

template <template <typename> class Kernel, typename... Ts>
void RegisterWithAttrs(const char* op, Types<Ts...>, CreateFn create, TF_Status* status) {
  (Register(KernelSpec{op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create,
                       DeleteTransposes},
            status),
   ...);
}

// The CPU kernels' types (MatMul's OpDef has no int16): floats through cuBLAS,
// integers through gemm.cu's tiled kernel.
using MatMulTypes = Types<float, double, __half, __nv_bfloat16, int32_t, int64_t>;
using BatchMatMulTypes = Types<float, double, __half, __nv_bfloat16, int16_t, int32_t, int64_t>;

}  // namespace

void RegisterMatMulKernels(TF_Status* status) {
  RegisterWithAttrs<MatMulKernel>("MatMul", MatMulTypes(), CreateMatMul, status);
  RegisterWithAttrs<BatchMatMulKernel>("BatchMatMulV2", BatchMatMulTypes(), CreateBatchMatMul,
                                       status);
}

}  // namespace cuda
}  // namespace opgen

// MatMul and BatchMatMulV2 over the GEMMs of gemm.h.
#include <algorithm>

#include "gemm.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
};

void* CreateMatMul(TF_OpKernelConstruction* ctx) {
  auto* attrs = new MatMulAttrs();
  StatusPtr s = NewStatus();
  TF_Bool ta = 0, tb = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_a", &ta, s.get());
  if (TF_GetCode(s.get()) == TF_OK) TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_b", &tb, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  attrs->transpose_a = ta;
  attrs->transpose_b = tb;
  return attrs;
}

void DeleteMatMul(void* attrs) { delete static_cast<MatMulAttrs*>(attrs); }

template <typename T>
struct MatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const auto* attrs = static_cast<const MatMulAttrs*>(state);
    TensorPtr a = Input(ctx, 0), b = Input(ctx, 1);
    if (!a || !b) return;
    std::vector<int64_t> ad = Dims(a.get()), bd = Dims(b.get());
    if (ad.size() != 2 || bd.size() != 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, "In[0] and In[1] must be matrices, got shapes " +
                                         ShapeString(ad) + " and " + ShapeString(bd));
      return;
    }
    const int64_t m = attrs->transpose_a ? ad[1] : ad[0];
    const int64_t k = attrs->transpose_a ? ad[0] : ad[1];
    const int64_t k2 = attrs->transpose_b ? bd[1] : bd[0];
    const int64_t n = attrs->transpose_b ? bd[0] : bd[1];
    if (k != k2) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "Matrix size-incompatible: In[0]: " + ShapeString(ad) + ", In[1]: " +
               ShapeString(bd) + " (transpose_a=" + (attrs->transpose_a ? "true" : "false") +
               ", transpose_b=" + (attrs->transpose_b ? "true" : "false") + ")");
      return;
    }
    TensorPtr c = AllocateOutput<T>(ctx, 0, {m, n});
    if (!c || m * n == 0) return;
    if (k == 0) {
      T* cp = Data<T>(c);
      for (int64_t i = 0; i < m * n; ++i) cp[i] = Narrow<T>(0);
      return;
    }
    Gemm(attrs->transpose_a, attrs->transpose_b, m, n, k, Data<T>(a), Data<T>(b), Data<T>(c));
  }
};

struct BatchMatMulAttrs {
  bool adj_x = false;
  bool adj_y = false;
};

void* CreateBatchMatMul(TF_OpKernelConstruction* ctx) {
  return new BatchMatMulAttrs{GetBoolAttr(ctx, "adj_x"), GetBoolAttr(ctx, "adj_y")};
}
void DeleteBatchMatMul(void* attrs) { delete static_cast<BatchMatMulAttrs*>(attrs); }

// BatchMatMulV2: matrices in the last two dimensions, batch dimensions broadcast as in
// numpy's matmul. Each batch entry is one GEMM (adjoint = transpose for real types).
template <typename T>
struct BatchMatMulKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const auto* attrs = static_cast<const BatchMatMulAttrs*>(state);
    TensorPtr x = Input(ctx, 0), y = Input(ctx, 1);
    if (!x || !y) return;
    std::vector<int64_t> xd = Dims(x.get()), yd = Dims(y.get());
    if (xd.size() < 2 || yd.size() < 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, "BatchMatMulV2 needs inputs of rank >= 2, got " +
                                         ShapeString(xd) + " and " + ShapeString(yd));
      return;
    }
    const size_t xr = xd.size(), yr = yd.size();
    const int64_t m = attrs->adj_x ? xd[xr - 1] : xd[xr - 2];
    const int64_t k = attrs->adj_x ? xd[xr - 2] : xd[xr - 1];
    const int64_t k2 = attrs->adj_y ? yd[yr - 1] : yd[yr - 2];
    const int64_t n = attrs->adj_y ? yd[yr - 2] : yd[yr - 1];
    // Batch shapes broadcast like numpy's.
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
    const int64_t count = NumElements(batch);
    if (!z || m * n == 0 || count == 0) return;
    const T* xp = Data<T>(x);
    const T* yp = Data<T>(y);
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
        Gemm(attrs->adj_x, attrs->adj_y, m, n, k, xp + xo * m * k, yp + yo * k * n, out);
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
  (RegisterKernel("MatMul", "T", DtypeOf<Ts>::value, &MatMulKernel<Ts>::Compute, status,
                  CreateMatMul, DeleteMatMul),
   ...);
}

template <typename... Ts>
void RegisterBatchMatMul(Types<Ts...>, TF_Status* status) {
  (RegisterKernel("BatchMatMulV2", "T", DtypeOf<Ts>::value, &BatchMatMulKernel<Ts>::Compute,
                  status, CreateBatchMatMul, DeleteBatchMatMul),
   ...);
}

// TensorFlow's CPU types, less complex (MatMul's OpDef has no int16).
using MatMulTypes = Concat<FloatTypes, Types<int32_t, int64_t>>;
using BatchMatMulTypes = Concat<MatMulTypes, Types<int16_t>>;

}  // namespace

void RegisterMatMulKernels(TF_Status* status) {
  RegisterMatMul(MatMulTypes(), status);
  RegisterBatchMatMul(BatchMatMulTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

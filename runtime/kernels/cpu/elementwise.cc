// Element-wise kernels: binary arithmetic with numpy-style broadcasting, and unary
// math. The same-shape and scalar cases run as flat loops the compiler vectorises.
#include <algorithm>
#include <type_traits>

#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

struct AddOp { template <typename T> static T Apply(T x, T y) { return x + y; } };
struct SubOp { template <typename T> static T Apply(T x, T y) { return x - y; } };
struct MulOp { template <typename T> static T Apply(T x, T y) { return x * y; } };
struct DivOp { template <typename T> static T Apply(T x, T y) { return x / y; } };
struct NegOp { template <typename T> static T Apply(T x) { return -x; } };
struct ReluOp { template <typename T> static T Apply(T x) { return x > T(0) ? x : T(0); } };

// numpy's rule: align trailing dims; each pair must be equal or contain a 1.
bool BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                    std::vector<int64_t>* out) {
  size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

// Element strides of `dims` seen through the broadcast shape `out` (0 where broadcast).
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    size_t i = dims.size() - 1 - k;
    size_t o = out.size() - 1 - k;
    strides[o] = dims[i] == 1 ? 0 : stride;
    stride *= dims[i];
  }
  return strides;
}

template <typename T, typename Op>
void BroadcastLoop(const T* x, const std::vector<int64_t>& xs, const T* y,
                   const std::vector<int64_t>& ys, T* z, const std::vector<int64_t>& out) {
  const size_t rank = out.size();
  const int64_t inner = out[rank - 1];
  const int64_t sx = xs[rank - 1], sy = ys[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t outer = NumElements(out) / inner;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t ox = 0, oy = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      ox += index[d] * xs[d];
      oy += index[d] * ys[d];
    }
    for (int64_t i = 0; i < inner; ++i) z[i] = Op::Apply(x[ox + i * sx], y[oy + i * sy]);
    z += inner;
    for (size_t d = rank - 1; d-- > 0;) {  // odometer over all but the last dim
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
}

template <typename Op>
struct Binary {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      TensorPtr x = Input(ctx, 0), y = Input(ctx, 1);
      if (!x || !y) return;
      std::vector<int64_t> xd = Dims(x.get()), yd = Dims(y.get()), zd;
      if (!BroadcastShape(xd, yd, &zd)) {
        Fail(ctx, TF_INVALID_ARGUMENT,
             "Incompatible shapes: " + ShapeString(xd) + " vs. " + ShapeString(yd));
        return;
      }
      const int64_t nx = NumElements(xd), ny = NumElements(yd), n = NumElements(zd);
      const T* xp = Data<T>(x);
      const T* yp = Data<T>(y);
      if constexpr (std::is_same_v<Op, DivOp> && std::is_integral_v<T>) {
        for (int64_t i = 0; i < ny; ++i) {
          if (yp[i] == 0) {
            Fail(ctx, TF_INVALID_ARGUMENT, "Integer division by zero");
            return;
          }
        }
      }
      TensorPtr z = AllocateOutput<T>(ctx, 0, zd);
      if (!z || n == 0) return;
      T* zp = Data<T>(z);
      if (nx == n && ny == n) {
        for (int64_t i = 0; i < n; ++i) zp[i] = Op::Apply(xp[i], yp[i]);
      } else if (ny == 1 && nx == n) {
        const T b = yp[0];
        for (int64_t i = 0; i < n; ++i) zp[i] = Op::Apply(xp[i], b);
      } else if (nx == 1 && ny == n) {
        const T a = xp[0];
        for (int64_t i = 0; i < n; ++i) zp[i] = Op::Apply(a, yp[i]);
      } else {
        BroadcastLoop<T, Op>(xp, BroadcastStrides(xd, zd), yp, BroadcastStrides(yd, zd), zp, zd);
      }
    }
  };
};

template <typename Op>
struct Unary {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      TensorPtr x = Input(ctx, 0);
      if (!x) return;
      std::vector<int64_t> dims = Dims(x.get());
      TensorPtr y = AllocateOutput<T>(ctx, 0, dims);
      if (!y) return;
      const T* xp = Data<T>(x);
      T* yp = Data<T>(y);
      const int64_t n = NumElements(dims);
      for (int64_t i = 0; i < n; ++i) yp[i] = Op::Apply(xp[i]);
    }
  };
};

template <typename Op>
void RegisterBinary(const char* op, TF_Status* status) {
  RegisterForTypes<Binary<Op>::template Kernel, float, double, int32_t, int64_t>(op, status);
}

}  // namespace

void RegisterElementwiseKernels(TF_Status* status) {
  RegisterBinary<AddOp>("AddV2", status);
  if (TF_GetCode(status) == TF_OK) RegisterBinary<SubOp>("Sub", status);
  if (TF_GetCode(status) == TF_OK) RegisterBinary<MulOp>("Mul", status);
  if (TF_GetCode(status) == TF_OK) RegisterBinary<DivOp>("RealDiv", status);
  if (TF_GetCode(status) == TF_OK)
    RegisterForTypes<Unary<NegOp>::Kernel, float, double, int32_t, int64_t>("Neg", status);
  if (TF_GetCode(status) == TF_OK)
    RegisterForTypes<Unary<ReluOp>::Kernel, float, double, int32_t, int64_t>("Relu", status);
}

}  // namespace cpu
}  // namespace opgen

// Element-wise kernels: binary arithmetic with numpy-style broadcasting, and unary
// math. The same-shape and scalar cases run as flat loops the compiler vectorises.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// Signed overflow is undefined behaviour in C++, so integer +, -, * and negation are
// computed on the unsigned type of the same width (at least `unsigned`, so nothing is
// promoted back to a signed int): results wrap modulo 2^bits, as numpy's do, and the
// loops still vectorise. Floating-point types are used as they are.
template <typename T, typename = void> struct ArithmeticOf { using type = T; };
template <typename T>
struct ArithmeticOf<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  using type = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
};
template <typename T> using Arithmetic = typename ArithmeticOf<T>::type;

template <typename T> T WrappingNeg(T x) {
  if constexpr (std::is_integral_v<T>) return T(Arithmetic<T>(0) - Arithmetic<T>(x));
  else return -x;  // keeps the sign of zero, which 0 - x would not
}

// Functors: Apply's return type is the output element type (bool for comparisons).
struct AddOp {
  template <typename T> static T Apply(T x, T y) { return T(Arithmetic<T>(x) + Arithmetic<T>(y)); }
};
struct SubOp {
  template <typename T> static T Apply(T x, T y) { return T(Arithmetic<T>(x) - Arithmetic<T>(y)); }
};
struct MulOp {
  template <typename T> static T Apply(T x, T y) { return T(Arithmetic<T>(x) * Arithmetic<T>(y)); }
};
// Integer division by zero is refused before the loop runs (see Binary). The other
// integer trap, MIN / -1, is taken as a wrapping negation (numpy's result).
struct DivOp {
  template <typename T> static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);
    }
    return x / y;
  }
};
struct MaximumOp { template <typename T> static T Apply(T x, T y) { return x > y ? x : y; } };
struct MinimumOp { template <typename T> static T Apply(T x, T y) { return x < y ? x : y; } };
struct PowOp { template <typename T> static T Apply(T x, T y) { return std::pow(x, y); } };
struct SquaredDifferenceOp {
  template <typename T> static T Apply(T x, T y) {
    const T d = SubOp::Apply(x, y);
    return MulOp::Apply(d, d);
  }
};
// Floor division and modulo round toward negative infinity, as Python and numpy do.
struct FloorDivOp {
  template <typename T> static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);  // exact, and MIN / -1 would trap
      T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    } else {
      return std::floor(x / y);
    }
  }
};
struct FloorModOp {
  template <typename T> static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(-1)) return T(0);  // MIN % -1 would trap
      T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else {
      T r = std::fmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
  }
};
struct LessOp { template <typename T> static bool Apply(T x, T y) { return x < y; } };
struct LessEqualOp { template <typename T> static bool Apply(T x, T y) { return x <= y; } };
struct GreaterOp { template <typename T> static bool Apply(T x, T y) { return x > y; } };
struct GreaterEqualOp { template <typename T> static bool Apply(T x, T y) { return x >= y; } };
struct EqualOp { template <typename T> static bool Apply(T x, T y) { return x == y; } };
struct NotEqualOp { template <typename T> static bool Apply(T x, T y) { return x != y; } };
struct LogicalAndOp { static bool Apply(bool x, bool y) { return x && y; } };
struct LogicalOrOp { static bool Apply(bool x, bool y) { return x || y; } };

struct NegOp { template <typename T> static T Apply(T x) { return WrappingNeg(x); } };
struct ReluOp { template <typename T> static T Apply(T x) { return x > T(0) ? x : T(0); } };
struct Relu6Op {
  template <typename T> static T Apply(T x) { return x < T(0) ? T(0) : (x > T(6) ? T(6) : x); }
};
struct AbsOp { template <typename T> static T Apply(T x) { return x < T(0) ? WrappingNeg(x) : x; } };
struct SignOp { template <typename T> static T Apply(T x) { return T((x > T(0)) - (x < T(0))); } };
struct SquareOp { template <typename T> static T Apply(T x) { return MulOp::Apply(x, x); } };
struct ReciprocalOp { template <typename T> static T Apply(T x) { return T(1) / x; } };
struct ExpOp { template <typename T> static T Apply(T x) { return std::exp(x); } };
struct LogOp { template <typename T> static T Apply(T x) { return std::log(x); } };
struct Log1pOp { template <typename T> static T Apply(T x) { return std::log1p(x); } };
struct SqrtOp { template <typename T> static T Apply(T x) { return std::sqrt(x); } };
struct RsqrtOp { template <typename T> static T Apply(T x) { return T(1) / std::sqrt(x); } };
struct TanhOp { template <typename T> static T Apply(T x) { return std::tanh(x); } };
struct SigmoidOp { template <typename T> static T Apply(T x) { return T(1) / (T(1) + std::exp(-x)); } };
struct ErfOp { template <typename T> static T Apply(T x) { return std::erf(x); } };
// log(1 + e^x), computed without overflow for large x.
struct SoftplusOp {
  template <typename T> static T Apply(T x) { return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
};
struct EluOp { template <typename T> static T Apply(T x) { return x < T(0) ? std::expm1(x) : x; } };
struct SeluOp {
  template <typename T> static T Apply(T x) {
    const T scale = T(1.0507009873554804934193349852946);
    const T alpha = T(1.6732632423543772848170429916717);
    return x < T(0) ? scale * alpha * std::expm1(x) : scale * x;
  }
};
struct LogicalNotOp { static bool Apply(bool x) { return !x; } };

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

template <typename T, typename Out, typename Op>
void BroadcastLoop(const T* x, const std::vector<int64_t>& xs, const T* y,
                   const std::vector<int64_t>& ys, Out* z, const std::vector<int64_t>& out) {
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

// Binary kernels over T -> Op's output type, with numpy broadcasting.
template <typename Op>
struct Binary {
  template <typename T>
  struct Kernel {
    using Out = decltype(Op::Apply(T(), T()));
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
      constexpr bool kIntegerDivision =
          std::is_integral_v<T> && !std::is_same_v<T, bool> &&
          (std::is_same_v<Op, DivOp> || std::is_same_v<Op, FloorDivOp> || std::is_same_v<Op, FloorModOp>);
      if constexpr (kIntegerDivision) {
        for (int64_t i = 0; i < ny; ++i) {
          if (yp[i] == 0) {
            Fail(ctx, TF_INVALID_ARGUMENT, "Integer division by zero");
            return;
          }
        }
      }
      TensorPtr z = AllocateOutput<Out>(ctx, 0, zd);
      if (!z || n == 0) return;
      Out* zp = Data<Out>(z);
      if (nx == n && ny == n) {
        ParallelFor(n, [=](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) zp[i] = Op::Apply(xp[i], yp[i]);
        });
      } else if (ny == 1 && nx == n) {
        const T b = yp[0];  // hoisted so the loop vectorises
        ParallelFor(n, [=](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) zp[i] = Op::Apply(xp[i], b);
        });
      } else if (nx == 1 && ny == n) {
        const T a = xp[0];
        ParallelFor(n, [=](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) zp[i] = Op::Apply(a, yp[i]);
        });
      } else {
        BroadcastLoop<T, Out, Op>(xp, BroadcastStrides(xd, zd), yp, BroadcastStrides(yd, zd), zp, zd);
      }
    }
  };
};

// Three operands broadcast together: SelectV2 (condition, t, e) and ClipByValue
// (t, min, max). `Op::Apply(a, b, c)` gives one output element.
template <typename Op>
struct Ternary {
  template <typename T>
  struct Kernel {
    using A = typename Op::template First<T>;
    static void Compute(void*, TF_OpKernelContext* ctx) {
      TensorPtr a = Input(ctx, 0), b = Input(ctx, 1), c = Input(ctx, 2);
      if (!a || !b || !c) return;
      std::vector<int64_t> ad = Dims(a.get()), bd = Dims(b.get()), cd = Dims(c.get()), ab, out;
      if (!BroadcastShape(ad, bd, &ab) || !BroadcastShape(ab, cd, &out)) {
        Fail(ctx, TF_INVALID_ARGUMENT, "Incompatible shapes: " + ShapeString(ad) + ", " +
                                           ShapeString(bd) + " and " + ShapeString(cd));
        return;
      }
      TensorPtr z = AllocateOutput<T>(ctx, 0, out);
      const int64_t n = NumElements(out);
      if (!z || n == 0) return;
      const std::vector<int64_t> as = BroadcastStrides(ad, out), bs = BroadcastStrides(bd, out),
                                 cs = BroadcastStrides(cd, out);
      const A* ap = Data<A>(a);
      const T* bp = Data<T>(b);
      const T* cp = Data<T>(c);
      T* zp = Data<T>(z);
      std::vector<int64_t> index(out.size(), 0);
      for (int64_t i = 0; i < n; ++i) {
        int64_t ia = 0, ib = 0, ic = 0;
        for (size_t d = 0; d < out.size(); ++d) {
          ia += index[d] * as[d];
          ib += index[d] * bs[d];
          ic += index[d] * cs[d];
        }
        zp[i] = Op::Apply(ap[ia], bp[ib], cp[ic]);
        for (size_t d = out.size(); d-- > 0;) {
          if (++index[d] < out[d]) break;
          index[d] = 0;
        }
      }
    }
  };
};

struct SelectOp {
  template <typename T> using First = bool;
  template <typename T> static T Apply(bool condition, T t, T e) { return condition ? t : e; }
};
struct ClipOp {
  template <typename T> using First = T;
  template <typename T> static T Apply(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
};

// AddN: the sum of N same-shape tensors.
template <typename T>
struct AddNKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const int n = TF_NumInputs(ctx);
    TensorPtr first = Input(ctx, 0);
    if (!first) return;
    std::vector<int64_t> dims = Dims(first.get());
    TensorPtr z = AllocateOutput<T>(ctx, 0, dims);
    if (!z) return;
    const int64_t count = NumElements(dims);
    T* zp = Data<T>(z);
    std::copy_n(Data<T>(first), count, zp);
    for (int i = 1; i < n; ++i) {
      TensorPtr x = Input(ctx, i);
      if (!x) return;
      if (Dims(x.get()) != dims) {
        Fail(ctx, TF_INVALID_ARGUMENT, "AddN: inputs must have the same shape: " +
                                           ShapeString(dims) + " vs. " + ShapeString(Dims(x.get())));
        return;
      }
      const T* xp = Data<T>(x);
      for (int64_t k = 0; k < count; ++k) zp[k] = AddOp::Apply(zp[k], xp[k]);
    }
  }
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
      ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) yp[i] = Op::Apply(xp[i]);
      });
    }
  };
};

// Kernels of ops without a type attr (bool in, bool out): no type constraint.
template <template <typename> class Kernel>
void RegisterBoolOp(const char* op, TF_Status* status) {
  if (TF_GetCode(status) != TF_OK) return;
  RegisterKernel(op, nullptr, TF_BOOL, &Kernel<bool>::Compute, status);
}

template <typename Op, typename... Ts>
void RegisterBinary(const char* op, TF_Status* status) {
  if (TF_GetCode(status) != TF_OK) return;
  RegisterForTypes<Binary<Op>::template Kernel, Ts...>(op, status);
}

template <typename Op, typename... Ts>
void RegisterUnary(const char* op, TF_Status* status) {
  if (TF_GetCode(status) != TF_OK) return;
  RegisterForTypes<Unary<Op>::template Kernel, Ts...>(op, status);
}

using i32 = int32_t;
using i64 = int64_t;

}  // namespace

void RegisterElementwiseKernels(TF_Status* status) {
  RegisterBinary<AddOp, float, double, i32, i64>("AddV2", status);
  RegisterBinary<AddOp, float, double, i32, i64>("Add", status);
  RegisterBinary<SubOp, float, double, i32, i64>("Sub", status);
  RegisterBinary<MulOp, float, double, i32, i64>("Mul", status);
  RegisterBinary<DivOp, float, double, i32, i64>("RealDiv", status);
  RegisterBinary<DivOp, float, double, i32, i64>("Div", status);
  RegisterBinary<FloorDivOp, float, double, i32, i64>("FloorDiv", status);
  RegisterBinary<FloorModOp, float, double, i32, i64>("FloorMod", status);
  RegisterBinary<MaximumOp, float, double, i32, i64>("Maximum", status);
  RegisterBinary<MinimumOp, float, double, i32, i64>("Minimum", status);
  RegisterBinary<PowOp, float, double>("Pow", status);
  RegisterBinary<SquaredDifferenceOp, float, double, i32, i64>("SquaredDifference", status);
  RegisterBinary<LessOp, float, double, i32, i64>("Less", status);
  RegisterBinary<LessEqualOp, float, double, i32, i64>("LessEqual", status);
  RegisterBinary<GreaterOp, float, double, i32, i64>("Greater", status);
  RegisterBinary<GreaterEqualOp, float, double, i32, i64>("GreaterEqual", status);
  RegisterBinary<EqualOp, float, double, i32, i64, bool>("Equal", status);
  RegisterBinary<NotEqualOp, float, double, i32, i64, bool>("NotEqual", status);
  RegisterBoolOp<Binary<LogicalAndOp>::Kernel>("LogicalAnd", status);
  RegisterBoolOp<Binary<LogicalOrOp>::Kernel>("LogicalOr", status);
  RegisterBoolOp<Unary<LogicalNotOp>::Kernel>("LogicalNot", status);

  RegisterForTypes<Ternary<SelectOp>::Kernel, float, double, i32, i64, bool>("SelectV2", status);
  RegisterForTypes<Ternary<ClipOp>::Kernel, float, double, i32, i64>("ClipByValue", status);
  RegisterForTypes<AddNKernel, float, double, i32, i64>("AddN", status);
  RegisterUnary<NegOp, float, double, i32, i64>("Neg", status);
  RegisterUnary<ReluOp, float, double, i32, i64>("Relu", status);
  RegisterUnary<Relu6Op, float, double, i32, i64>("Relu6", status);
  RegisterUnary<AbsOp, float, double, i32, i64>("Abs", status);
  RegisterUnary<SignOp, float, double, i32, i64>("Sign", status);
  RegisterUnary<SquareOp, float, double, i32, i64>("Square", status);
  RegisterUnary<ReciprocalOp, float, double>("Reciprocal", status);
  RegisterUnary<ExpOp, float, double>("Exp", status);
  RegisterUnary<LogOp, float, double>("Log", status);
  RegisterUnary<Log1pOp, float, double>("Log1p", status);
  RegisterUnary<SqrtOp, float, double>("Sqrt", status);
  RegisterUnary<RsqrtOp, float, double>("Rsqrt", status);
  RegisterUnary<TanhOp, float, double>("Tanh", status);
  RegisterUnary<SigmoidOp, float, double>("Sigmoid", status);
  RegisterUnary<ErfOp, float, double>("Erf", status);
  RegisterUnary<SoftplusOp, float, double>("Softplus", status);
  RegisterUnary<EluOp, float, double>("Elu", status);
  RegisterUnary<SeluOp, float, double>("Selu", status);
}

}  // namespace cpu
}  // namespace opgen

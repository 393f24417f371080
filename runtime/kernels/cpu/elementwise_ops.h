// Element-wise kernels: binary arithmetic with numpy-style broadcasting, and unary
// math. The same-shape and scalar cases run as flat loops the compiler vectorises.
//
// The ops' definitions and launch machinery, shared by the elementwise_*.cc files
// (one per op family, so that they compile in parallel). Internal to each including
// file (an unnamed namespace).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>

#include "../broadcast_spec.h"
#include "../elementwise_math_spec.h"
#include "kernel_util.h"
#include "parallel.h"
#include "simd_loops.h"
#include "streaming_store.h"
#include "vector_math.h"

namespace opgen {
namespace cpu {
namespace {

// Functors work on the compute type (float for half and bfloat16); Apply's return
// type is the output's (bool for comparisons).
struct AddOp { template <typename T> static T Apply(T x, T y) { return WrappingAdd(x, y); } };
struct SubOp { template <typename T> static T Apply(T x, T y) { return WrappingSub(x, y); } };
struct MulOp { template <typename T> static T Apply(T x, T y) { return WrappingMul(x, y); } };
// Integer division by zero is refused before the loop runs (see Binary). The other
// integer trap, MIN / -1, is taken as a wrapping negation (numpy's result).
struct DivOp {
  template <typename T> static T Apply(T x, T y) {
    if constexpr (kIsInteger<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);
    }
    if constexpr (kIsComplex<T>) return ComplexQuotient(x, y);
    else return x / y;
  }
};
// 0 wherever y is 0 (whatever x is), else x / y.
struct DivNoNanOp {
  template <typename T> static T Apply(T x, T y) { return y == T(0) ? T(0) : DivOp::Apply(x, y); }
};
// NaN in either operand gives NaN, as in TensorFlow and numpy.
struct MaximumOp { template <typename T> static T Apply(T x, T y) { return x > y || x != x ? x : y; } };
struct MinimumOp { template <typename T> static T Apply(T x, T y) { return x < y || x != x ? x : y; } };
// Integer powers by repeated squaring, wrapping on overflow; negative exponents are
// refused before the loop runs.
struct PowOp {
  template <typename T> static T Apply(T x, T y) {
    if constexpr (kIsInteger<T>) {
      T result = 1;
      for (; y > 0; y >>= 1) {
        if (y & 1) result = WrappingMul(result, x);
        x = WrappingMul(x, x);
      }
      return result;
    } else {
      return std::pow(x, y);
    }
  }
};
struct SquaredDifferenceOp {
  template <typename T> static T Apply(T x, T y) {
    const T d = WrappingSub(x, y);
    return WrappingMul(d, d);
  }
};
// Floor division and modulo round toward negative infinity, as Python and numpy do.
struct FloorDivOp {
  template <typename T> static T Apply(T x, T y) {
    if constexpr (kIsInteger<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);  // exact, and MIN / -1 would trap
      T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    } else if constexpr (kIsInteger<T>) {
      return x / y;
    } else {
      return std::floor(x / y);
    }
  }
};
struct FloorModOp {
  template <typename T> static T Apply(T x, T y) {
    if constexpr (kIsInteger<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return T(0);  // MIN % -1 would trap
      T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else if constexpr (kIsInteger<T>) {
      return x % y;
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
// Bitwise ops on the integer types; the int the operators promote to is narrowed back.
struct BitwiseAndOp { template <typename T> static T Apply(T x, T y) { return T(x & y); } };
struct BitwiseOrOp { template <typename T> static T Apply(T x, T y) { return T(x | y); } };
struct BitwiseXorOp { template <typename T> static T Apply(T x, T y) { return T(x ^ y); } };

struct NegOp { template <typename T> static T Apply(T x) { return WrappingNeg(x); } };
// max(x, 0) as TensorFlow computes it: NaN stays NaN and -0.0 stays -0.0 (only x < 0
// becomes 0), as in its Relu6 and Maximum.
struct ReluOp {
  template <typename T> static T Apply(T x) {
    if constexpr (std::is_unsigned_v<T>) return x;
    else return x < T(0) ? T(0) : x;
  }
};
struct Relu6Op {
  template <typename T> static T Apply(T x) { return x < T(0) ? T(0) : (x > T(6) ? T(6) : x); }
};
// |-0.0| is +0.0 (fabs), as in TensorFlow; NaN stays NaN.
struct AbsOp {
  template <typename T> static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) return x < T(0) ? WrappingNeg(x) : x;
    else return x < T(0) ? WrappingNeg(x) : (x == T(0) ? T(0) : x);
  }
};
// NaN is its own sign; the sign of both zeros is +0.0, as in TensorFlow. A complex
// sign is x / |x| (0 at 0), each part scaled by the reciprocal of |x|, as TensorFlow's.
struct SignOp {
  template <typename T> static T Apply(T x) {
    if constexpr (kIsComplex<T>) {
      const auto magnitude = std::abs(x);
      if (magnitude == 0) return T(0);
      const auto scale = 1 / magnitude;
      return T(x.real() * scale, x.imag() * scale);
    } else {
      return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == T(0) ? T(0) : x));
    }
  }
};
struct SquareOp { template <typename T> static T Apply(T x) { return WrappingMul(x, x); } };
struct ReciprocalOp {
  template <typename T> static T Apply(T x) {
    if constexpr (kIsComplex<T>) return ComplexQuotient(T(1), x);
    else return T(1) / x;
  }
};
// Ops may name a whole-array float32 loop (kFloatArray, simd_loops.h) that Unary runs
// instead of Apply element by element.
struct ExpOp {
  template <typename T> static T Apply(T x) { return std::exp(x); }
  static constexpr auto kFloatArray = &ExpFloatArray;
};
struct LogOp { template <typename T> static T Apply(T x) { return std::log(x); } };
struct Log1pOp { template <typename T> static T Apply(T x) { return std::log1p(x); } };
struct Expm1Op { template <typename T> static T Apply(T x) { return std::expm1(x); } };
// The complex principal square root as TensorFlow's (Eigen's) forms it: w =
// sqrt((|x| + |z|) / 2) is the part that cannot cancel, the other part is |y| / 2w or
// y / 2w; an infinite y gives (inf, y); y's sign bit picks the imaginary part's sign
// where x < 0 (sqrt(-1 - 0j) is -1j, as numpy's and TensorFlow's).
template <typename R>
std::complex<R> ComplexSqrt(std::complex<R> z) {
  const R x = z.real(), y = z.imag();
  const R w = std::sqrt(R(0.5) * (std::fabs(x) + std::hypot(x, y)));
  if (std::isinf(y)) return {std::numeric_limits<R>::infinity(), y};
  if (x == 0) return {w, y < 0 ? -w : w};
  if (x > 0) return {w, y / (2 * w)};
  return {std::fabs(y) / (2 * w), std::signbit(y) ? -w : w};
}
struct SqrtOp {
  template <typename T> static T Apply(T x) {
    if constexpr (kIsComplex<T>) return ComplexSqrt(x);
    else return std::sqrt(x);
  }
};
// The complex reciprocal square root is the C library's (TensorFlow's agrees with it).
struct RsqrtOp { template <typename T> static T Apply(T x) { return T(1) / std::sqrt(x); } };
// float (and so half and bfloat16) through vector_math.h: twice as fast as libm's tanhf.
struct TanhOp {
  static constexpr auto kFloatArray = &TanhFloatArray;
  template <typename T> static T Apply(T x) {
    if constexpr (std::is_same_v<T, float>) return TanhFloat(x);
    else return std::tanh(x);
  }
};
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
struct InvertOp { template <typename T> static T Apply(T x) { return T(~x); } };
// Issue 17's element-wise ops. Round halves to even (rint in the default rounding mode),
// as TensorFlow's; integers are already round. Softsign is x / (1 + |x|) as written, so
// an infinite x gives NaN, as TensorFlow's does.
struct ErfcOp { template <typename T> static T Apply(T x) { return std::erfc(x); } };
struct SinOp { template <typename T> static T Apply(T x) { return std::sin(x); } };
struct CosOp { template <typename T> static T Apply(T x) { return std::cos(x); } };
struct FloorOp { template <typename T> static T Apply(T x) { return std::floor(x); } };
struct CeilOp { template <typename T> static T Apply(T x) { return std::ceil(x); } };
struct RoundOp {
  template <typename T> static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) return x;
    else return std::nearbyint(x);
  }
};
struct SoftsignOp { template <typename T> static T Apply(T x) { return x / (T(1) + std::fabs(x)); } };

// Applies Op to storage values of T: widened to the compute type, the result narrowed
// back to T (or kept, for ops whose result is bool).
template <typename Op, typename T>
struct OnStorage {
  using C = ComputeType<T>;
  using Result = decltype(Op::Apply(C(), C()));
  using Out = std::conditional_t<std::is_same_v<Result, C>, T, Result>;
  static Out Apply(T x, T y) {
    if constexpr (std::is_same_v<Result, C>) return Narrow<T>(Op::Apply(Widen(x), Widen(y)));
    else return Op::Apply(Widen(x), Widen(y));
  }
};
template <typename Op, typename T>
struct OnStorageUnary {
  static T Apply(T x) { return Narrow<T>(Op::Apply(Widen(x))); }
};

// numpy's broadcasting and the shape errors: ../broadcast_spec.h, shared with the CUDA
// plugin.
using kernels::BroadcastShape;
using kernels::FailIncompatibleShapes;

// Element strides of `dims` seen through the broadcast shape `out` (0 where broadcast).
inline std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& dims,
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

// Broadcast case: an odometer over all but the last output dim, a strided inner loop.
// Rows of the output are split across threads.
template <typename T, typename Out, typename F>
void BroadcastLoop(const T* x, const std::vector<int64_t>& xs, const T* y,
                   const std::vector<int64_t>& ys, Out* z, const std::vector<int64_t>& out) {
  const size_t rank = out.size();
  const int64_t inner = out[rank - 1];
  const int64_t sx = xs[rank - 1], sy = ys[rank - 1];
  const int64_t rows = NumElements(out) / inner;
  ParallelFor(rows, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index(rank, 0);
    for (int64_t r = begin, d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
      index[d] = r % out[d];
      r /= out[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      int64_t ox = 0, oy = 0;
      for (size_t d = 0; d + 1 < rank; ++d) {
        ox += index[d] * xs[d];
        oy += index[d] * ys[d];
      }
      Out* zr = z + row * inner;
      if (sx == 1 && sy == 1) {
        for (int64_t i = 0; i < inner; ++i) zr[i] = F::Apply(x[ox + i], y[oy + i]);
      } else if (sx == 1 && sy == 0) {
        const T b = y[oy];
        for (int64_t i = 0; i < inner; ++i) zr[i] = F::Apply(x[ox + i], b);
      } else if (sx == 0 && sy == 1) {
        const T a = x[ox];
        for (int64_t i = 0; i < inner; ++i) zr[i] = F::Apply(a, y[oy + i]);
      } else {
        for (int64_t i = 0; i < inner; ++i) zr[i] = F::Apply(x[ox + i * sx], y[oy + i * sy]);
      }
      for (size_t d = rank - 1; d-- > 0;) {
        if (++index[d] < out[d]) break;
        index[d] = 0;
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(inner, 1)));
}

// One operand whole ([rows, C]), the other one row of it ([1, C]) repeated: a
// per-channel scale or shift (EfficientNet's squeeze-and-excite Mul, a Normalization's
// Sub). The row is repeated `period` times where C is small, so one long loop over
// unaliased pointers (which vectorises) covers several rows instead of a short loop per
// row (an RGB image's 3 channels).
template <typename T, typename Out, typename F, bool kRowIsY>
void RowBroadcastLoop(const T* whole, const T* row, Out* z, int64_t rows, int64_t channels) {
  const int64_t period = channels >= 64 ? 1 : (64 + channels - 1) / channels;
  std::unique_ptr<T[]> tiled;  // not a vector: vector<bool> has no data()
  if (period > 1) {
    tiled.reset(new T[static_cast<size_t>(period * channels)]);
    for (int64_t i = 0; i < period; ++i) std::copy(row, row + channels, tiled.get() + i * channels);
  }
  const T* repeated = period > 1 ? tiled.get() : row;
  ParallelFor(rows, [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; r += period) {
      const int64_t n = std::min(period, end - r) * channels;
      const T* __restrict u = whole + r * channels;
      const T* __restrict v = repeated;
      Out* __restrict c = z + r * channels;
      for (int64_t i = 0; i < n; ++i) c[i] = kRowIsY ? F::Apply(u[i], v[i]) : F::Apply(v[i], u[i]);
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(channels, 1)));
}

// Dims with size-1 axes dropped where both operands agree they are 1, and runs of
// axes merged where both operands are either whole or broadcast along all of them:
// [8,1,4] + [8,5,4] stays, but [2,3,4] + [2,3,4] becomes [24].
inline void CollapseDims(std::vector<int64_t>* xd, std::vector<int64_t>* yd, std::vector<int64_t>* zd) {
  const size_t rank = zd->size();
  xd->insert(xd->begin(), rank - xd->size(), 1);
  yd->insert(yd->begin(), rank - yd->size(), 1);
  std::vector<int64_t> cx, cy, cz;
  for (size_t d = 0; d < rank; ++d) {
    if ((*zd)[d] == 1) continue;
    const bool bx = (*xd)[d] == 1, by = (*yd)[d] == 1;
    if (!cz.empty() && bx == (cx.back() == 1 && cz.back() != 1) &&
        by == (cy.back() == 1 && cz.back() != 1)) {
      cx.back() *= (*xd)[d];
      cy.back() *= (*yd)[d];
      cz.back() *= (*zd)[d];
    } else {
      cx.push_back((*xd)[d]);
      cy.push_back((*yd)[d]);
      cz.push_back((*zd)[d]);
    }
  }
  if (cz.empty()) cx = cy = cz = {1};
  *xd = cx;
  *yd = cy;
  *zd = cz;
}

// Equal / NotEqual read incompatible_shape_error (see ../broadcast_spec.h). The
// kernel's state is a tag, not an allocation.
void* const kIncompatibleShapesCompareUnequal = reinterpret_cast<void*>(uintptr_t{1});
inline void* EqualityCreate(TF_OpKernelConstruction* ctx) {
  return kernels::IncompatibleShapeError(ctx) ? nullptr : kIncompatibleShapesCompareUnequal;
}

// Binary kernels over T -> Op's output type, with numpy broadcasting.
template <typename Op>
struct Binary {
  template <typename T>
  struct Kernel {
    using F = OnStorage<Op, T>;
    using Out = typename F::Out;
    static void Compute(void* state, TF_OpKernelContext* ctx) {
      const TF_Tensor* x = BorrowInput(ctx, 0);
      const TF_Tensor* y = BorrowInput(ctx, 1);
      if (!x || !y) return;
      std::vector<int64_t> xd = Dims(x), yd = Dims(y), zd;
      if (!BroadcastShape(xd, yd, &zd)) {
        if constexpr (std::is_same_v<Op, EqualOp> || std::is_same_v<Op, NotEqualOp>) {
          if (state == kIncompatibleShapesCompareUnequal) {
            TensorPtr z = AllocateOutput<bool>(ctx, 0, {});
            if (z) *Data<bool>(z) = std::is_same_v<Op, NotEqualOp>;
            return;
          }
        }
        FailIncompatibleShapes(ctx, {xd, yd});
        return;
      }
      const int64_t nx = NumElements(xd), ny = NumElements(yd), n = NumElements(zd);
      const T* xp = Data<T>(x);
      const T* yp = Data<T>(y);
      if (!CheckOperands(ctx, yp, ny)) return;
      TF_Tensor* z = AllocateBorrowedOutput<Out>(ctx, 0, zd);
      if (!z || n == 0) return;
      Out* zp = Data<Out>(z);
      const bool stream = static_cast<size_t>(n) * sizeof(Out) >= kStreamingOutputBytes;
      if (nx == n && ny == n) {
        ParallelFor(n, [=](int64_t begin, int64_t end) {
          WriteOutput(zp, begin, end, stream, [=](Out* __restrict c, int64_t b, int64_t e) {
            const T* __restrict u = xp + b;
            const T* __restrict v = yp + b;
            for (int64_t i = 0; i < e - b; ++i) c[i] = F::Apply(u[i], v[i]);
          });
        });
      } else if (ny == 1 && nx == n) {
        const T scalar = yp[0];  // hoisted so the loop vectorises
        ParallelFor(n, [=](int64_t begin, int64_t end) {
          WriteOutput(zp, begin, end, stream, [=](Out* __restrict c, int64_t b, int64_t e) {
            const T* __restrict u = xp + b;
            for (int64_t i = 0; i < e - b; ++i) c[i] = F::Apply(u[i], scalar);
          });
        });
      } else if (nx == 1 && ny == n) {
        const T scalar = xp[0];
        ParallelFor(n, [=](int64_t begin, int64_t end) {
          WriteOutput(zp, begin, end, stream, [=](Out* __restrict c, int64_t b, int64_t e) {
            const T* __restrict v = yp + b;
            for (int64_t i = 0; i < e - b; ++i) c[i] = F::Apply(scalar, v[i]);
          });
        });
      } else {
        CollapseDims(&xd, &yd, &zd);
        if (zd.size() == 2 && xd == zd && yd[0] == 1) {
          RowBroadcastLoop<T, Out, F, true>(xp, yp, zp, zd[0], zd[1]);
        } else if (zd.size() == 2 && yd == zd && xd[0] == 1) {
          RowBroadcastLoop<T, Out, F, false>(yp, xp, zp, zd[0], zd[1]);
        } else {
          BroadcastLoop<T, Out, F>(xp, BroadcastStrides(xd, zd), yp, BroadcastStrides(yd, zd), zp,
                                   zd);
        }
      }
    }

    // Integer division by zero and integer powers with negative exponents have no
    // value: refused before any output is written, as TensorFlow does.
    static bool CheckOperands(TF_OpKernelContext* ctx, const T* yp, int64_t ny) {
      if constexpr (kIsInteger<T> && (std::is_same_v<Op, DivOp> || std::is_same_v<Op, FloorDivOp> ||
                                      std::is_same_v<Op, FloorModOp> ||
                                      kernels::DividesIntegers<Op>::value)) {
        for (int64_t i = 0; i < ny; ++i) {
          if (yp[i] == 0) {
            Fail(ctx, TF_INVALID_ARGUMENT, "Integer division by zero");
            return false;
          }
        }
      }
      if constexpr (kIsInteger<T> && std::is_signed_v<T> && std::is_same_v<Op, PowOp>) {
        for (int64_t i = 0; i < ny; ++i) {
          if (yp[i] < 0) {
            Fail(ctx, TF_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed");
            return false;
          }
        }
      }
      return true;
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
        FailIncompatibleShapes(ctx, {ad, bd, cd});
        return;
      }
      TensorPtr z = AllocateOutput<T>(ctx, 0, out);
      const int64_t n = NumElements(out);
      if (!z || n == 0) return;
      const A* ap = Data<A>(a);
      const T* bp = Data<T>(b);
      const T* cp = Data<T>(c);
      T* zp = Data<T>(z);
      const int64_t na = NumElements(ad), nb = NumElements(bd), nc = NumElements(cd);
      if ((na == n || na == 1) && (nb == n || nb == 1) && (nc == n || nc == 1)) {
        // Each operand whole or a scalar: a flat loop with strides of 1 or 0.
        const int64_t sa = na == n, sb = nb == n, sc = nc == n;
        ParallelFor(n, [=](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) zp[i] = Op::Apply(ap[i * sa], bp[i * sb], cp[i * sc]);
        });
        return;
      }
      const std::vector<int64_t> as = BroadcastStrides(ad, out), bs = BroadcastStrides(bd, out),
                                 cs = BroadcastStrides(cd, out);
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
  // min(x, hi) first, then max with lo: where lo > hi the result is lo, as TensorFlow's.
  template <typename T> static T Apply(T x, T lo, T hi) {
    const T below_hi = Widen(hi) < Widen(x) ? hi : x;
    return Widen(below_hi) < Widen(lo) ? lo : below_hi;
  }
};

// AddN: the sum of N same-shape tensors, each addition rounded to T.
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
      ParallelFor(count, [=](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) zp[k] = OnStorage<AddOp, T>::Apply(zp[k], xp[k]);
      });
    }
  }
};

template <typename Op>
struct Unary {
  template <typename T>
  struct Kernel {
    static void Compute(void*, TF_OpKernelContext* ctx) {
      const TF_Tensor* x = BorrowInput(ctx, 0);
      if (!x) return;
      std::vector<int64_t> dims = Dims(x);
      TF_Tensor* y = AllocateBorrowedOutput<T>(ctx, 0, dims);
      if (!y) return;
      const T* xp = Data<T>(x);
      T* yp = Data<T>(y);
      const int64_t n = NumElements(dims);
      // The AVX-512 loops (tanh, exp) are bound by arithmetic, not memory: streaming
      // their output made float32 tanh over 10M elements 2x slower on the 2-core VM.
      constexpr bool kArithmeticBound = HasFloatArray<Op>::value && std::is_same_v<T, float>;
      const bool stream =
          !kArithmeticBound && static_cast<size_t>(n) * sizeof(T) >= kStreamingOutputBytes;
      ParallelFor(n, [=](int64_t begin, int64_t end) {
        WriteOutput(yp, begin, end, stream, [=](T* __restrict out, int64_t b, int64_t e) {
          if constexpr (HasFloatArray<Op>::value && std::is_same_v<T, float>) {
            Op::kFloatArray(xp + b, out, e - b);  // AVX-512 / AVX2 where present
          } else {
            const T* __restrict in = xp + b;
            for (int64_t i = 0; i < e - b; ++i) out[i] = OnStorageUnary<Op, T>::Apply(in[i]);
          }
        });
      });
    }
  };
};

// Kernels of ops without a type attr (bool in, bool out): no type constraint.
template <template <typename> class Kernel>
void RegisterBoolOp(const char* op, TF_Status* status) {
  RegisterKernel(kDevice, {op, {}, {}, &Kernel<bool>::Compute}, status);
}

template <typename Op, typename List>
void RegisterBinary(const char* op, TF_Status* status) {
  RegisterForTypes<Binary<Op>::template Kernel>(kDevice, op, List(), status);
}

template <typename Op, typename... Ts>
void RegisterEquality(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {},
       &Binary<Op>::template Kernel<Ts>::Compute, &EqualityCreate}, status),
   ...);
}

template <typename Op, typename List>
void RegisterUnary(const char* op, TF_Status* status) {
  RegisterForTypes<Unary<Op>::template Kernel>(kDevice, op, List(), status);
}

// TensorFlow's CPU registrations of these ops; complex64 and complex128 where the
// arithmetic (+, -, *, /, AddN, Neg, Square, Reciprocal), the transcendental functions
// (Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid), Sign, Pow and the equalities have them. Their
// std::complex forms are the C library's, with C99's infinities (TensorFlow's too).
using Reals = RealTypes;
using RealsAndComplex = Concat<RealTypes, ComplexTypes>;
using Floats = FloatTypes;
using FloatsAndComplex = Concat<FloatTypes, ComplexTypes>;
using Signed = SignedTypes;
// Pow and SquaredDifference: no unsigned types, and SquaredDifference no narrow ints.
using PowTypes = Concat<SignedTypes, ComplexTypes>;
using SquaredDifferenceTypes = Concat<FloatTypes, Types<int32_t, int64_t>>;
// ClipByValue has no 32- and 64-bit unsigned kernels.
using ClipTypes = Concat<FloatTypes, SignedIntTypes, Types<uint8_t, uint16_t>>;
// Add (the older AddV2) allows no unsigned type but uint8.
using AddTypes = Concat<FloatTypes, SignedIntTypes, Types<uint8_t>, ComplexTypes>;

}  // namespace
}  // namespace cpu
}  // namespace opgen

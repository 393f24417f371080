// The element-wise functors of ops/special_math_ops.cc, written once for the CPU
// kernels (cpu/elementwise_special.cc) and the CUDA plugin (cuda/elementwise_special.cu):
// each op is one struct whose Apply runs on the compute type (float for half and
// bfloat16), registered through the existing Unary/Binary machinery of each side.
// The trait members are what the CUDA launcher reads (kSignAgnostic: signed integers
// could share unsigned kernels; Base/kSwapped/kPredicate: the binary op's shape).
#ifndef OPGEN_RUNTIME_KERNELS_ELEMENTWISE_MATH_SPEC_H_
#define OPGEN_RUNTIME_KERNELS_ELEMENTWISE_MATH_SPEC_H_

#include <type_traits>

#include "special_functions.h"

namespace opgen {
namespace kernels {

// Binary ops whose integer kernels refuse a zero divisor before running (Div, FloorDiv,
// FloorMod, Mod, TruncateDiv, TruncateMod): they say so with kDividesIntegers.
template <typename Op, typename = void>
struct DividesIntegers : std::false_type {};
template <typename Op>
struct DividesIntegers<Op, std::void_t<decltype(Op::kDividesIntegers)>>
    : std::bool_constant<Op::kDividesIntegers> {};

namespace elementwise {

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

struct UnaryFunctor {
  static constexpr bool kSignAgnostic = false;
};
struct BinaryFunctor {
  static constexpr bool kPredicate = false, kSignAgnostic = false, kSwapped = false;
};

// Functions the C library has, in the compute type's precision. Rint rounds halves to
// even (the default rounding mode), as TensorFlow's.
#define OPGEN_LIBM_UNARY(Name, f)                                         \
  struct Name##Op : UnaryFunctor {                                        \
    template <typename T> OPGEN_HD static T Apply(T x) { return OPGEN_LIBM(f)(x); } \
  };
OPGEN_LIBM_UNARY(Tan, tan)
OPGEN_LIBM_UNARY(Asin, asin)
OPGEN_LIBM_UNARY(Acos, acos)
OPGEN_LIBM_UNARY(Atan, atan)
OPGEN_LIBM_UNARY(Sinh, sinh)
OPGEN_LIBM_UNARY(Cosh, cosh)
OPGEN_LIBM_UNARY(Asinh, asinh)
OPGEN_LIBM_UNARY(Acosh, acosh)
OPGEN_LIBM_UNARY(Atanh, atanh)
OPGEN_LIBM_UNARY(Rint, rint)
#undef OPGEN_LIBM_UNARY

// Special functions: computed in double (special_functions.h), rounded once.
#define OPGEN_SPECIAL_UNARY(Name, f)                                                        \
  struct Name##Op : UnaryFunctor {                                                          \
    template <typename T> OPGEN_HD static T Apply(T x) { return T(special::f(double(x))); } \
  };
OPGEN_SPECIAL_UNARY(Lgamma, Lgamma)
OPGEN_SPECIAL_UNARY(Digamma, Digamma)
OPGEN_SPECIAL_UNARY(Erfinv, ErfInv)
OPGEN_SPECIAL_UNARY(Ndtri, Ndtri)
OPGEN_SPECIAL_UNARY(BesselI0e, BesselIe<0>)
OPGEN_SPECIAL_UNARY(BesselI1e, BesselIe<1>)
#undef OPGEN_SPECIAL_UNARY

// -x on the unsigned type of the width: MIN / -1 is MIN, as TensorFlow's kernels give.
template <typename T>
OPGEN_HD T WrappedNegation(T x) {
  using U = std::make_unsigned_t<T>;
  return T(U(U(0) - U(x)));
}

struct Atan2Op : BinaryFunctor {
  using Base = Atan2Op;
  template <typename T> OPGEN_HD static T Apply(T y, T x) { return OPGEN_LIBM(atan2)(y, x); }
};
// Truncating division and its remainder (the sign of x): C's / and % on integers (a
// zero divisor refused beforehand; MIN / -1 wraps, MIN % -1 is 0), trunc(x / y) and
// fmod on floats. Mod and TruncateMod are the same function in TensorFlow.
struct TruncateDivOp : BinaryFunctor {
  using Base = TruncateDivOp;
  static constexpr bool kDividesIntegers = true;
  template <typename T> OPGEN_HD static T Apply(T x, T y) {
    if constexpr (kIsInt<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return WrappedNegation(x);
      return T(x / y);
    } else if constexpr (kIsInt<T>) {
      return T(x / y);
    } else {
      return OPGEN_LIBM(trunc)(x / y);
    }
  }
};
struct TruncateModOp : BinaryFunctor {
  using Base = TruncateModOp;
  static constexpr bool kDividesIntegers = true;
  template <typename T> OPGEN_HD static T Apply(T x, T y) {
    if constexpr (kIsInt<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return T(0);
      }
      return T(x % y);
    } else {
      return OPGEN_LIBM(fmod)(x, y);
    }
  }
};
// The zero-safe family: where the guarding operand is 0 the result is 0, whatever the
// other operand is (inf and NaN included).
struct XlogyOp : BinaryFunctor {
  using Base = XlogyOp;
  template <typename T> OPGEN_HD static T Apply(T x, T y) {
    return x == T(0) ? T(0) : T(x * OPGEN_LIBM(log)(y));
  }
};
struct Xlog1pyOp : BinaryFunctor {
  using Base = Xlog1pyOp;
  template <typename T> OPGEN_HD static T Apply(T x, T y) {
    return x == T(0) ? T(0) : T(x * OPGEN_LIBM(log1p)(y));
  }
};
struct XdivyOp : BinaryFunctor {
  using Base = XdivyOp;
  template <typename T> OPGEN_HD static T Apply(T x, T y) { return x == T(0) ? T(0) : T(x / y); }
};
struct MulNoNanOp : BinaryFunctor {
  using Base = MulNoNanOp;
  template <typename T> OPGEN_HD static T Apply(T x, T y) { return y == T(0) ? T(0) : T(x * y); }
};
// Shifts clamp the amount to [0, bits - 1], as TensorFlow's kernels; a left shift works
// on the unsigned bits (no overflow), a right shift of a signed value is arithmetic.
template <typename T>
OPGEN_HD int ShiftAmount(T y) {
  constexpr int kBits = 8 * sizeof(T);
  if constexpr (std::is_signed_v<T>) {
    if (y < T(0)) return 0;
  }
  return y > T(kBits - 1) ? kBits - 1 : int(y);
}
struct LeftShiftOp : BinaryFunctor {
  using Base = LeftShiftOp;
  template <typename T> OPGEN_HD static T Apply(T x, T y) {
    using U = std::make_unsigned_t<T>;
    return T(U(U(x) << ShiftAmount(y)));
  }
};
struct RightShiftOp : BinaryFunctor {
  using Base = RightShiftOp;
  template <typename T> OPGEN_HD static T Apply(T x, T y) { return T(x >> ShiftAmount(y)); }
};
struct NextAfterOp : BinaryFunctor {
  using Base = NextAfterOp;
  template <typename T> OPGEN_HD static T Apply(T x, T y) { return OPGEN_LIBM(nextafter)(x, y); }
};

}  // namespace elementwise
}  // namespace kernels
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_ELEMENTWISE_MATH_SPEC_H_

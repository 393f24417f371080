// The element types of the CPU kernels: 16-bit floats (half, bfloat16) stored as bits
// and computed in float, the TF_DataType of every C++ element type, and the type lists
// each kernel family registers over (TensorFlow's CPU registrations; complex for the arithmetic
// the complex family and its gradients need).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensorflow/c/tf_datatype.h"
#include "../dtype_of.h"
#include "../type_list.h"

namespace opgen {
namespace cpu {

// ---- 16-bit floats --------------------------------------------------------------------

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// IEEE binary16 <-> float without hardware help; round to nearest even, NaN stays NaN.
inline float HalfBitsToFloatSoftware(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0x1f) return BitsFloat(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return BitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mantissa) * BitsFloat(0x33800000u);  // 2^-24
  return BitsFloat(sign | FloatBits(magnitude));
}

inline uint16_t FloatToHalfBitsSoftware(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00 | ((abs >> 13) & 0x3ff);  // NaN, kept quiet
  if (abs >= 0x477ff000u) return sign | 0x7c00;  // rounds to >= 65520: infinity
  if (abs < 0x38800000u) {                       // below 2^-14: a subnormal half or zero
    // Adding 0.5 puts the value's 2^-24 units into float's low mantissa bits, rounded
    // to nearest even by the FPU itself.
    const float shifted = BitsFloat(abs) + 0.5f;
    return sign | static_cast<uint16_t>(FloatBits(shifted) - FloatBits(0.5f));
  }
  // Normal: rebias the exponent and round the 13 dropped bits to nearest even.
  const uint32_t odd = (abs >> 13) & 1;
  const uint32_t rounded = abs + 0xfff + odd - (uint32_t{112} << 23);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

#if defined(__FLT16_MANT_DIG__)
// The compiler's _Float16 converts with F16C where the target has it, through libgcc
// otherwise; either way exactly.
inline float HalfBitsToFloat(uint16_t h) {
  _Float16 v;
  std::memcpy(&v, &h, sizeof v);
  return static_cast<float>(v);
}
inline uint16_t FloatToHalfBits(float f) {
  const _Float16 v = static_cast<_Float16>(f);
  uint16_t h;
  std::memcpy(&h, &v, sizeof h);
  return h;
}
#else
inline float HalfBitsToFloat(uint16_t h) { return HalfBitsToFloatSoftware(h); }
inline uint16_t FloatToHalfBits(float f) { return FloatToHalfBitsSoftware(f); }
#endif

// bfloat16 is float's top half; rounding to nearest even on the 16 dropped bits.
inline float BFloat16BitsToFloat(uint16_t b) { return BitsFloat(uint32_t{b} << 16); }
inline uint16_t FloatToBFloat16Bits(float f) {
  const uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

// Storage types: arithmetic happens on float (Widen), each result is rounded back once
// (Narrow), as TensorFlow's Eigen::half and bfloat16 do.
struct Half {
  uint16_t bits;
  Half() = default;
  explicit Half(float f) : bits(FloatToHalfBits(f)) {}
  explicit operator float() const { return HalfBitsToFloat(bits); }
};
struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(FloatToBFloat16Bits(f)) {}
  explicit operator float() const { return BFloat16BitsToFloat(bits); }
};

template <typename T> struct IsFloat16 : std::false_type {};
template <> struct IsFloat16<Half> : std::true_type {};
template <> struct IsFloat16<BFloat16> : std::true_type {};
template <typename T> constexpr bool kIsFloat16 = IsFloat16<T>::value;

// The type arithmetic on T happens in.
template <typename T> using ComputeType = std::conditional_t<kIsFloat16<T>, float, T>;
template <typename T> ComputeType<T> Widen(T x) { return static_cast<ComputeType<T>>(x); }
template <typename T> T Narrow(ComputeType<T> x) { return static_cast<T>(x); }

template <typename T> constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsFloat16<T>;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Largest finite values, in the compute type (numeric_limits does not know Half).
template <typename T> ComputeType<T> Highest() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0f;
  else if constexpr (std::is_same_v<T, BFloat16>) return BFloat16BitsToFloat(0x7f7f);
  else return std::numeric_limits<T>::max();
}
template <typename T> ComputeType<T> Lowest() {
  if constexpr (kIsFloat16<T>) return -Highest<T>();
  else return std::numeric_limits<T>::lowest();
}

// ---- Wrapping integer arithmetic ------------------------------------------------------

// Signed overflow is undefined behaviour in C++, so integer +, -, * and negation are
// computed on the unsigned type of the same width (at least `unsigned`, so nothing is
// promoted back to a signed int): results wrap modulo 2^bits as TensorFlow's and
// numpy's do, and loops still vectorise. Other types are used as they are.
template <typename T, typename = void> struct ArithmeticOf { using type = T; };
template <typename T>
struct ArithmeticOf<T, std::enable_if_t<kIsInteger<T>>> {
  using type = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
};
template <typename T> using Arithmetic = typename ArithmeticOf<T>::type;

template <typename T> T WrappingAdd(T x, T y) { return T(Arithmetic<T>(x) + Arithmetic<T>(y)); }
template <typename T> T WrappingSub(T x, T y) { return T(Arithmetic<T>(x) - Arithmetic<T>(y)); }
template <typename T> T WrappingMul(T x, T y) { return T(Arithmetic<T>(x) * Arithmetic<T>(y)); }
// Complex products and quotients as TensorFlow's (Eigen's vectorised) arithmetic forms
// them, so that infinities and NaN give what it gives: the textbook product, without
// C99's recovery of infinities; the quotient scaled by the divisor's larger part, so its
// square neither overflows nor underflows (a zero divisor gives NaN parts).
template <typename R>
std::complex<R> WrappingMul(std::complex<R> x, std::complex<R> y) {
  return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}
template <typename R>
std::complex<R> ComplexQuotient(std::complex<R> x, std::complex<R> y) {
  const R scale = std::max(std::fabs(y.real()), std::fabs(y.imag()));
  const R c = y.real() / scale, d = y.imag() / scale;
  const R denom = c * c + d * d;
  const R re = (x.real() * c + x.imag() * d) / denom, im = (x.imag() * c - x.real() * d) / denom;
  return {re / scale, im / scale};
}

template <typename T> T WrappingNeg(T x) {
  if constexpr (kIsInteger<T>) return T(Arithmetic<T>(0) - Arithmetic<T>(x));
  else return -x;  // keeps the sign of zero, which 0 - x would not
}

// ---- TF_DataType of each element type -------------------------------------------------

// The table is ../dtype_of.h, shared with the CUDA plugin; the CPU's 16-bit storage
// types are named after the namespace, below.
using kernels::DtypeOf;

// ---- Type lists -----------------------------------------------------------------------

using kernels::Concat;  // ../type_list.h, shared with the CUDA plugin
using kernels::Types;

using FloatTypes = Types<float, double, Half, BFloat16>;
using SignedIntTypes = Types<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntTypes = Types<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntTypes = Concat<SignedIntTypes, UnsignedIntTypes>;
// TensorFlow's "real number types": every float and integer type.
using RealTypes = Concat<FloatTypes, IntTypes>;
// Floats and signed integers: ops with a sign (Neg, Abs, Sign, Pow).
using SignedTypes = Concat<FloatTypes, SignedIntTypes>;
using RealAndBoolTypes = Concat<RealTypes, Types<bool>>;
using ComplexTypes = Types<std::complex<float>, std::complex<double>>;

template <typename T> struct IsComplex : std::false_type {};
template <typename R> struct IsComplex<std::complex<R>> : std::true_type { using Part = R; };
template <typename T> constexpr bool kIsComplex = IsComplex<T>::value;

// Ops that only move bytes work for every fixed-size type, complex included.
constexpr TF_DataType kAllFixedSizeTypes[] = {
    TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32, TF_INT64,
    TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL, TF_COMPLEX64, TF_COMPLEX128};

}  // namespace cpu
}  // namespace opgen

OPGEN_FLOAT16_DTYPES(opgen::cpu::Half, opgen::cpu::BFloat16);

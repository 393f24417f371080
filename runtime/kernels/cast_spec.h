// What Cast makes of one value, for every pair of real types and bool: the conversion
// rules of the CPU kernel and the CUDA plugin's, written once so that they agree. Unlike
// the other *_spec.h headers this is element code, compiled for the host by the C++
// compiler and for the device too by nvcc.
//
// In-range values convert as C++ (and numpy's astype) convert them: floats truncate
// toward zero into integers, narrower floats round to nearest even (from double through
// float), any non-zero value is true, integers wrap to narrower integers.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define OPGEN_CAST_INLINE __host__ __device__ __forceinline__
#else
#define OPGEN_CAST_INLINE inline
#endif

namespace opgen {
namespace kernels {

// A float that is NaN or outside int32/int64's range has no C++ conversion (it is
// undefined behaviour). It becomes the type's minimum, the "integer indefinite" value
// x86 produces and so what numpy's astype gives there. Narrower and unsigned integer
// types go through int64 and wrap, as numpy's conversions do on x86.
template <typename F, typename Dst>
OPGEN_CAST_INLINE Dst FloatToInteger(F x) {
  if constexpr (std::is_signed_v<Dst> && sizeof(Dst) >= 4) {
    // -2^(bits-1) and 2^(bits-1) are exact in float and double; values just below the
    // minimum truncate to it, which the early return gives as well.
    constexpr F kLow = static_cast<F>(std::numeric_limits<Dst>::min());
    if (!(x >= kLow && x < -kLow)) return std::numeric_limits<Dst>::min();
    return static_cast<Dst>(x);
  } else if constexpr (std::is_same_v<Dst, uint64_t>) {
    if (x >= F(0) && x < F(18446744073709551616.0)) return static_cast<uint64_t>(x);
    return static_cast<uint64_t>(FloatToInteger<F, int64_t>(x));
  } else {
    return static_cast<Dst>(FloatToInteger<F, int64_t>(x));
  }
}

// Cast's Truncate=True narrowing to bfloat16: the float's upper 16 bits (round toward
// zero), as TensorFlow does; a NaN stays NaN (its payload may lie in the dropped bits).
OPGEN_CAST_INLINE uint16_t TruncatedBfloat16Bits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  const uint16_t high = static_cast<uint16_t>(bits >> 16);
  return f != f ? static_cast<uint16_t>(high | 0x40) : high;
}

// Src -> Dst. `Float16` describes the includer's 16-bit float types (the CPU's and
// CUDA's differ): Float16::kIs<T> is true for half and bfloat16, and
// Float16::From<T>(float) rounds a float to one of them, to nearest even.
template <typename Float16, typename Src, typename Dst>
OPGEN_CAST_INLINE Dst ConvertValue(Src x) {
  if constexpr (std::is_same_v<Src, Dst>) {
    return x;
  } else if constexpr (Float16::template kIs<Src>) {
    return ConvertValue<Float16, float, Dst>(static_cast<float>(x));
  } else if constexpr (Float16::template kIs<Dst>) {
    return Float16::template From<Dst>(static_cast<float>(x));
  } else if constexpr (std::is_floating_point_v<Src> && std::is_integral_v<Dst> &&
                       !std::is_same_v<Dst, bool>) {
    return FloatToInteger<Src, Dst>(x);
  } else {
    return static_cast<Dst>(x);
  }
}

}  // namespace kernels
}  // namespace opgen

#undef OPGEN_CAST_INLINE

// TensorFlow's scalar typedefs for C++ custom ops built against opgen (see
// docs/cpp_custom_ops.md). Header-only; nothing here crosses the plugin boundary.
#ifndef TENSORFLOW_CORE_PLATFORM_TYPES_H_
#define TENSORFLOW_CORE_PLATFORM_TYPES_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "tensorflow/core/platform/tstring.h"

namespace tensorflow {

using int8 = std::int8_t;
using int16 = std::int16_t;
using int32 = std::int32_t;
using int64 = std::int64_t;
using uint8 = std::uint8_t;
using uint16 = std::uint16_t;
using uint32 = std::uint32_t;
using uint64 = std::uint64_t;
using string = std::string;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// TensorFlow's integer limits (kint32max, ...), as kernels spell them in their checks.
constexpr uint8 kuint8max = std::numeric_limits<uint8>::max();
constexpr uint16 kuint16max = std::numeric_limits<uint16>::max();
constexpr uint32 kuint32max = std::numeric_limits<uint32>::max();
constexpr uint64 kuint64max = std::numeric_limits<uint64>::max();
constexpr int8 kint8min = std::numeric_limits<int8>::min();
constexpr int8 kint8max = std::numeric_limits<int8>::max();
constexpr int16 kint16min = std::numeric_limits<int16>::min();
constexpr int16 kint16max = std::numeric_limits<int16>::max();
constexpr int32 kint32min = std::numeric_limits<int32>::min();
constexpr int32 kint32max = std::numeric_limits<int32>::max();
constexpr int64 kint64min = std::numeric_limits<int64>::min();
constexpr int64 kint64max = std::numeric_limits<int64>::max();

namespace opgen_detail {
// float <-> 16-bit storage with round-to-nearest-even, for bfloat16 and half below.
inline std::uint32_t FloatBits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float BitsFloat(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
}  // namespace opgen_detail

// bfloat16 without Eigen: 16 bits of storage that convert to and from float; arithmetic
// goes through float. Layout-compatible with TensorFlow's (the top half of a float).
struct bfloat16 {
  std::uint16_t value = 0;
  bfloat16() = default;
  explicit bfloat16(float f) {
    std::uint32_t u = opgen_detail::FloatBits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) { value = 0x7fc0; return; }  // NaN stays NaN
    value = static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  explicit operator float() const { return opgen_detail::BitsFloat(std::uint32_t(value) << 16); }
};

}  // namespace tensorflow

namespace Eigen {
// Eigen::half without Eigen: IEEE binary16 storage converting to and from float (no
// arithmetic operators: compute in float). TensorFlow's kernels name the type this way.
struct half {
  std::uint16_t x = 0;
  half() = default;
  explicit half(float f) {
    const std::uint32_t u = tensorflow::opgen_detail::FloatBits(f);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) { x = std::uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0)); return; }
    if (abs >= 0x477ff000u) { x = std::uint16_t(sign | 0x7c00u); return; }  // overflow: inf
    if (abs < 0x38800000u) {  // subnormal or zero in half
      const float scaled = tensorflow::opgen_detail::BitsFloat(abs) * 16777216.0f;  // 2^24
      std::uint32_t m = static_cast<std::uint32_t>(scaled);
      const float rest = scaled - static_cast<float>(m);
      if (rest > 0.5f || (rest == 0.5f && (m & 1u))) ++m;
      x = std::uint16_t(sign | m);
      return;
    }
    std::uint32_t v = abs - 0x38000000u;  // rebias exponent 127 -> 15
    v += 0xfffu + ((v >> 13) & 1u);
    x = std::uint16_t(sign | (v >> 13));
  }
  explicit operator float() const {
    const std::uint32_t sign = std::uint32_t(x & 0x8000u) << 16;
    const std::uint32_t exp = (x >> 10) & 0x1fu, man = x & 0x3ffu;
    if (exp == 0) {
      const float f = static_cast<float>(man) / 16777216.0f;
      return sign ? -f : f;
    }
    if (exp == 31) return tensorflow::opgen_detail::BitsFloat(sign | 0x7f800000u | (man << 13));
    return tensorflow::opgen_detail::BitsFloat(sign | ((exp + 112u) << 23) | (man << 13));
  }
};
}  // namespace Eigen

#endif  // TENSORFLOW_CORE_PLATFORM_TYPES_H_

// complex64 and complex128 on the GPU: a value as its two parts (stored real then
// imaginary, aligned to their whole size, as TensorFlow and std::complex store them),
// with the arithmetic the element-wise kernels and reductions use. Twin of the CPU's
// std::complex.
#pragma once

#include <cmath>

#include <cuda/std/complex>

#include "../dtype_of.h"

namespace opgen {
namespace cuda {

template <typename Real>
struct alignas(2 * sizeof(Real)) ComplexParts {
  Real re, im;
  ComplexParts() = default;
  // T(0), T(1) and a mean's divisor are real values; the imaginary part is zero.
  __host__ __device__ constexpr explicit ComplexParts(Real r, Real i = Real(0)) : re(r), im(i) {}
};

template <typename R>
__host__ __device__ __forceinline__ ComplexParts<R> operator+(ComplexParts<R> a, ComplexParts<R> b) {
  return ComplexParts<R>(a.re + b.re, a.im + b.im);
}
template <typename R>
__host__ __device__ __forceinline__ ComplexParts<R> operator-(ComplexParts<R> a, ComplexParts<R> b) {
  return ComplexParts<R>(a.re - b.re, a.im - b.im);
}
template <typename R>
__host__ __device__ __forceinline__ ComplexParts<R> operator-(ComplexParts<R> a) {
  return ComplexParts<R>(-a.re, -a.im);
}
template <typename R>
__host__ __device__ __forceinline__ ComplexParts<R> operator*(ComplexParts<R> a, ComplexParts<R> b) {
  return ComplexParts<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// As the CPU's (../cpu/dtypes.h): the textbook product above, and the quotient scaled
// by the divisor's larger part, so that its square neither overflows nor underflows (a
// zero divisor gives NaN parts, as TensorFlow's).
template <typename R>
__host__ __device__ __forceinline__ ComplexParts<R> operator/(ComplexParts<R> a, ComplexParts<R> b) {
  const R scale = fmax(fabs(b.re), fabs(b.im));
  const R c = b.re / scale, d = b.im / scale;
  const R denom = c * c + d * d;
  const R re = (a.re * c + a.im * d) / denom, im = (a.im * c - a.re * d) / denom;
  return ComplexParts<R>(re / scale, im / scale);
}
template <typename R>
__host__ __device__ __forceinline__ bool operator==(ComplexParts<R> a, ComplexParts<R> b) {
  return a.re == b.re && a.im == b.im;
}
template <typename R>
__host__ __device__ __forceinline__ bool operator!=(ComplexParts<R> a, ComplexParts<R> b) {
  return !(a == b);
}

template <typename R>
__host__ __device__ __forceinline__ ComplexParts<R> Conj(ComplexParts<R> a) {
  return ComplexParts<R>(a.re, -a.im);
}

// The transcendental functions as the C library forms them (C99's infinities and
// branch cuts, what the CPU's std::complex and TensorFlow's give): libcu++'s complex,
// which has them, converted at the edges. Its quotient (C99's, with the recovery of
// infinities) is the one the CPU's std::complex divides by in these functions.
template <typename R>
__device__ __forceinline__ ::cuda::std::complex<R> AsStd(ComplexParts<R> a) {
  return ::cuda::std::complex<R>(a.re, a.im);
}
template <typename R>
__device__ __forceinline__ ComplexParts<R> FromStd(::cuda::std::complex<R> a) {
  return ComplexParts<R>(a.real(), a.imag());
}
template <typename R>
__device__ __forceinline__ ComplexParts<R> Exp(ComplexParts<R> a) { return FromStd(::cuda::std::exp(AsStd(a))); }
template <typename R>
__device__ __forceinline__ ComplexParts<R> Log(ComplexParts<R> a) { return FromStd(::cuda::std::log(AsStd(a))); }
// The square root as the CPU's (../cpu/elementwise_ops.h ComplexSqrt, TensorFlow's formula).
template <typename R>
__device__ __forceinline__ ComplexParts<R> Sqrt(ComplexParts<R> a) {
  const R x = a.re, y = a.im;
  const R w = sqrt(R(0.5) * (fabs(x) + hypot(x, y)));
  if (isinf(y)) return ComplexParts<R>(R(INFINITY), y);
  if (x == R(0)) return ComplexParts<R>(w, y < R(0) ? -w : w);
  if (x > R(0)) return ComplexParts<R>(w, y / (R(2) * w));
  return ComplexParts<R>(fabs(y) / (R(2) * w), signbit(y) ? -w : w);
}
template <typename R>
__device__ __forceinline__ ComplexParts<R> Tanh(ComplexParts<R> a) { return FromStd(::cuda::std::tanh(AsStd(a))); }
template <typename R>
__device__ __forceinline__ ComplexParts<R> Pow(ComplexParts<R> a, ComplexParts<R> b) {
  return FromStd(::cuda::std::pow(AsStd(a), AsStd(b)));
}
// 1 / a and 1 / (1 + exp(-a)) with C99's quotient, as the CPU's Rsqrt and Sigmoid.
template <typename R>
__device__ __forceinline__ ComplexParts<R> C99Reciprocal(ComplexParts<R> a) {
  return FromStd(::cuda::std::complex<R>(R(1)) / AsStd(a));
}

}  // namespace cuda
}  // namespace opgen

template <> struct opgen::kernels::DtypeOf<opgen::cuda::ComplexParts<float>> {
  static constexpr TF_DataType value = TF_COMPLEX64;
};
template <> struct opgen::kernels::DtypeOf<opgen::cuda::ComplexParts<double>> {
  static constexpr TF_DataType value = TF_COMPLEX128;
};

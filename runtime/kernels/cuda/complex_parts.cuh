// complex64 and complex128 on the GPU: a value as its two parts (stored real then
// imaginary, aligned to their whole size, as TensorFlow and std::complex store them),
// with the arithmetic the element-wise kernels and reductions use. Twin of the CPU's
// std::complex.
#pragma once

#include <cmath>

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

}  // namespace cuda
}  // namespace opgen

template <> struct opgen::kernels::DtypeOf<opgen::cuda::ComplexParts<float>> {
  static constexpr TF_DataType value = TF_COMPLEX64;
};
template <> struct opgen::kernels::DtypeOf<opgen::cuda::ComplexParts<double>> {
  static constexpr TF_DataType value = TF_COMPLEX128;
};

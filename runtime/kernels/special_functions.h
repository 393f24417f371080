// Scalar special functions in double precision, shared by the CPU kernels and the CUDA
// plugin (OPGEN_HD): digamma, the inverse error and normal distribution functions, and
// the exponentially scaled modified Bessel functions of orders 0 and 1. Narrower types
// compute here in double and round once.
#ifndef OPGEN_RUNTIME_KERNELS_SPECIAL_FUNCTIONS_H_
#define OPGEN_RUNTIME_KERNELS_SPECIAL_FUNCTIONS_H_

#include <cmath>
#include <limits>

#include "host_device.h"

// The libm function `f`: std::f on the host, CUDA's overloads in device code.
#if defined(__CUDA_ARCH__)
#define OPGEN_LIBM(f) ::f
#else
#define OPGEN_LIBM(f) std::f
#endif

namespace opgen {
namespace kernels {
namespace special {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kSqrt2 = 1.41421356237309504880;

OPGEN_HD inline double Nan() { return std::numeric_limits<double>::quiet_NaN(); }
OPGEN_HD inline double Inf() { return std::numeric_limits<double>::infinity(); }

// log|Gamma(x)|. On the host the reentrant form: lgamma writes the sign to a global.
OPGEN_HD inline double Lgamma(double x) {
#if defined(__CUDA_ARCH__)
  return ::lgamma(x);
#else
  int sign;
  return ::lgamma_r(x, &sign);
#endif
}

// psi(x) = d/dx log Gamma(x). NaN at the poles (0 and the negative integers) and at
// -inf. Negative x reflect: psi(x) = psi(1 - x) - pi / tan(pi x), with tan taken of x's
// distance to the nearest integer so that it keeps its precision; positive x step up
// to 10 by psi(x) = psi(x + 1) - 1/x, then the asymptotic series in 1/x^2 (the
// Bernoulli numbers over 2k) is exact to double precision.
OPGEN_HD inline double Digamma(double x) {
  if (OPGEN_LIBM(isnan)(x) || x == Inf()) return x;
  if (x <= 0 && x == OPGEN_LIBM(floor)(x)) return Nan();  // poles, and -inf
  double result = 0;
  if (x < 0) {
    const double r = x - OPGEN_LIBM(nearbyint)(x);
    result = -kPi / OPGEN_LIBM(tan)(kPi * r);
    x = 1 - x;
  }
  for (; x < 10; x += 1) result -= 1 / x;
  const double w = 1 / (x * x);
  const double series =
      w * (1.0 / 12 -
           w * (1.0 / 120 -
                w * (1.0 / 252 -
                     w * (1.0 / 240 - w * (1.0 / 132 - w * (691.0 / 32760 - w / 12))))));
  return result + OPGEN_LIBM(log)(x) - 0.5 / x - series;
}

// A first guess at erfinv from log(1 - y^2) (Winitzki's closed form, ~2e-3 relative),
// for y >= 0; Halley's method below takes it to double precision.
OPGEN_HD inline double ErfInvGuess(double log_one_minus_y2) {
  constexpr double a = 0.147;
  const double t = 2 / (kPi * a) + 0.5 * log_one_minus_y2;
  return OPGEN_LIBM(sqrt)(OPGEN_LIBM(sqrt)(t * t - log_one_minus_y2 / a) - t);
}

// Halley steps on f(x) = g(x) - target, where g is erf (kErfc false) or erfc: for both,
// f'' = -2x f', so a step is x -= f / (f' + x f).
template <bool kErfc>
OPGEN_HD inline double HalleyRefine(double x, double target) {
  for (int i = 0; i < 8; ++i) {
    const double f = (kErfc ? OPGEN_LIBM(erfc)(x) : OPGEN_LIBM(erf)(x)) - target;
    const double slope = (kErfc ? -kTwoOverSqrtPi : kTwoOverSqrtPi) * OPGEN_LIBM(exp)(-x * x);
    const double denominator = slope + x * f;
    if (f == 0 || denominator == 0) break;
    x -= f / denominator;
  }
  return x;
}

// erfinv(y) for 0 <= y <= 0.5, solved against erf (accurate near 0).
OPGEN_HD inline double ErfInvSmall(double y) {
  return HalleyRefine<false>(ErfInvGuess(OPGEN_LIBM(log1p)(-y * y)), y);
}

// erfcinv(q): the x with erfc(x) = q, for 0 <= q <= 2. Near 1 it is erfinv(1 - q) (an
// exact difference there); below 0.5 it is solved against erfc, which keeps the
// relative precision of a tiny q; above 1.5 it is -erfcinv(2 - q).
OPGEN_HD inline double ErfcInv(double q) {
  if (!(q >= 0 && q <= 2)) return Nan();
  if (q == 0) return Inf();
  if (q == 2) return -Inf();
  if (q > 1.5) return -ErfcInv(2 - q);
  if (q >= 0.5) {
    const double y = 1 - q;
    return y < 0 ? -ErfInvSmall(-y) : ErfInvSmall(y);
  }
  return HalleyRefine<true>(ErfInvGuess(OPGEN_LIBM(log)(q * (2 - q))), q);
}

OPGEN_HD inline double ErfInv(double y) {
  if (OPGEN_LIBM(isnan)(y) || OPGEN_LIBM(fabs)(y) > 1) return Nan();
  if (OPGEN_LIBM(fabs)(y) <= 0.5) return y < 0 ? -ErfInvSmall(-y) : ErfInvSmall(y);
  const double x = ErfcInv(1 - OPGEN_LIBM(fabs)(y));
  return y < 0 ? -x : x;
}

// The standard normal quantile: Phi^-1(p) = -sqrt(2) erfcinv(2p).
OPGEN_HD inline double Ndtri(double p) {
  if (OPGEN_LIBM(isnan)(p) || p < 0 || p > 1) return Nan();
  return -kSqrt2 * ErfcInv(2 * p);
}

// exp(-|x|) I_n(x) for n = 0, 1. Up to |x| = 20 the power series
// I_n(x) = (x/2)^n sum_k (x^2/4)^k / (k! (k+n)!) (positive terms, no cancellation);
// beyond, the asymptotic series e^x / sqrt(2 pi x) sum_k c_k / x^k, whose smallest term
// there is below e^-40.
template <int kOrder>
OPGEN_HD inline double BesselIe(double x) {
  if (OPGEN_LIBM(isnan)(x)) return x;
  const double ax = OPGEN_LIBM(fabs)(x);
  double value;
  if (ax == Inf()) {
    value = 0;
  } else if (ax <= 20) {
    const double q = 0.25 * ax * ax;
    double term = kOrder == 0 ? 1.0 : 0.5 * ax, sum = term;
    for (int k = 1; k < 200 && term > 1e-17 * sum; ++k) {
      term *= q / (k * double(k + kOrder));
      sum += term;
    }
    value = sum * OPGEN_LIBM(exp)(-ax);
  } else {
    const double mu = 4.0 * kOrder * kOrder;
    double term = 1, sum = 1;
    for (int k = 1; k < 100; ++k) {
      const double odd = 2.0 * k - 1;
      const double next = term * (odd * odd - mu) / (8.0 * k * ax);
      if (OPGEN_LIBM(fabs)(next) >= OPGEN_LIBM(fabs)(term) ||
          OPGEN_LIBM(fabs)(next) < 1e-17 * OPGEN_LIBM(fabs)(sum))
        break;
      term = next;
      sum += term;
    }
    value = sum / OPGEN_LIBM(sqrt)(2 * kPi * ax);
  }
  return kOrder == 1 && x < 0 ? -value : value;
}

}  // namespace special
}  // namespace kernels
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_SPECIAL_FUNCTIONS_H_

// The regularized incomplete gamma functions P and Q (and dP/da, by forward-mode
// differentiation of the same series), the Hurwitz zeta function, polygamma and the
// regularized incomplete beta function, in double for the CPU kernels and the CUDA
// plugin (OPGEN_HD). Edge values follow TensorFlow's kernels: NaN outside the domain,
// P(a, 0) = 0, the limits at infinity.
#ifndef OPGEN_RUNTIME_KERNELS_INCOMPLETE_GAMMA_BETA_H_
#define OPGEN_RUNTIME_KERNELS_INCOMPLETE_GAMMA_BETA_H_

#include "special_functions.h"

namespace opgen {
namespace kernels {
namespace special {

constexpr double kSeriesEps = 1e-17;  // below double's epsilon: run to full precision
constexpr double kTiny = 1e-300;      // keeps Lentz's denominators off zero
constexpr int kMaxTerms = 100000;     // ~10 sqrt(a) terms are needed near x = a

// A value with its derivative along one variable: d/da of the series below without a
// second implementation of them.
struct Dual {
  double v = 0, d = 0;
  OPGEN_HD Dual() {}
  OPGEN_HD Dual(double value, double slope = 0) : v(value), d(slope) {}
};
OPGEN_HD inline Dual operator+(Dual x, Dual y) { return {x.v + y.v, x.d + y.d}; }
OPGEN_HD inline Dual operator-(Dual x, Dual y) { return {x.v - y.v, x.d - y.d}; }
OPGEN_HD inline Dual operator*(Dual x, Dual y) { return {x.v * y.v, x.d * y.v + x.v * y.d}; }
OPGEN_HD inline Dual operator/(Dual x, Dual y) {
  return {x.v / y.v, (x.d * y.v - x.v * y.d) / (y.v * y.v)};
}
OPGEN_HD inline double Value(double x) { return x; }
OPGEN_HD inline double Value(Dual x) { return x.v; }
OPGEN_HD inline double Exp(double x) { return OPGEN_LIBM(exp)(x); }
OPGEN_HD inline Dual Exp(Dual x) {
  const double e = OPGEN_LIBM(exp)(x.v);
  return {e, x.d * e};
}
OPGEN_HD inline double LogGamma(double x) { return Lgamma(x); }
OPGEN_HD inline Dual LogGamma(Dual x) { return {Lgamma(x.v), x.d * Digamma(x.v)}; }
// Whether `step` no longer moves `total`, in value and (for a Dual) in slope.
OPGEN_HD inline bool Negligible(double step, double total) {
  return OPGEN_LIBM(fabs)(step) <= kSeriesEps * OPGEN_LIBM(fabs)(total);
}
OPGEN_HD inline bool Negligible(Dual step, Dual total) {
  return Negligible(step.v, total.v) && Negligible(step.d, total.d);
}
// Whether a continued fraction's factor `step` is 1 to double precision (and, for a
// Dual, leaves the slope alone).
OPGEN_HD inline bool Settled(double step) { return OPGEN_LIBM(fabs)(step - 1) <= 2.5e-16; }
OPGEN_HD inline bool Settled(Dual step) {
  return Settled(step.v) && OPGEN_LIBM(fabs)(step.d) <= 2.5e-16;
}
// Lentz's guard: a denominator that cancels to zero is nudged off it.
OPGEN_HD inline double OffZero(double x) { return OPGEN_LIBM(fabs)(x) < kTiny ? kTiny : x; }
OPGEN_HD inline Dual OffZero(Dual x) { return OPGEN_LIBM(fabs)(x.v) < kTiny ? Dual(kTiny) : x; }

// P (lower, the series) or Q (upper, the continued fraction) as exp(log_front) * sum,
// for a > 0, x > 0 finite: the split lets dP/da and the gamma sample's derivative
// avoid forming exp(log_front) where it underflows.
template <typename T>
struct GammaParts {
  T log_front, sum;
  bool upper;
};

// P(a, x) = x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a + 1) ... (a + k)): positive terms,
// for x below max(1, a).
template <typename T>
OPGEN_HD GammaParts<T> LowerGammaSeries(T a, double x) {
  T term = 1.0, sum = 1.0;
  for (int k = 1; k < kMaxTerms; ++k) {
    term = term * (x / (a + double(k)));
    sum = sum + term;
    if (Negligible(term, sum)) break;
  }
  return {a * OPGEN_LIBM(log)(x) - x - LogGamma(a + 1.0), sum, false};
}

// Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)),
// evaluated forward by Lentz's method; converges fast for x above max(1, a).
template <typename T>
OPGEN_HD GammaParts<T> UpperGammaFraction(T a, double x) {
  T denominator = x + 1.0 - a;
  T c = 1.0 / kTiny, d = 1.0 / OffZero(denominator), h = d;
  for (int i = 1; i < kMaxTerms; ++i) {
    const T numerator = double(-i) * (double(i) - a);
    denominator = denominator + 2.0;
    d = 1.0 / OffZero(numerator * d + denominator);
    c = OffZero(denominator + numerator / c);
    const T step = d * c;
    h = h * step;
    if (Settled(step)) break;
  }
  return {a * OPGEN_LIBM(log)(x) - x - LogGamma(a), h, true};
}

template <typename T>
OPGEN_HD GammaParts<T> IncompleteGammaParts(T a, double x) {
  return x > 1 && x > Value(a) ? UpperGammaFraction(a, x) : LowerGammaSeries(a, x);
}

// P(a, x), the regularized lower incomplete gamma function.
OPGEN_HD inline double Igamma(double a, double x) {
  if (OPGEN_LIBM(isnan)(x)) return Nan();
  if (x == 0) return 0;  // whatever a is, NaN included
  if (OPGEN_LIBM(isnan)(a) || x < 0 || a <= 0) return Nan();
  if (a == Inf()) return 0;
  if (x == Inf()) return 1;
  const GammaParts<double> p = IncompleteGammaParts(a, x);
  const double value = OPGEN_LIBM(exp)(p.log_front) * p.sum;
  return p.upper ? 1 - value : value;
}

// Q(a, x) = 1 - P(a, x).
OPGEN_HD inline double Igammac(double a, double x) {
  if (OPGEN_LIBM(isnan)(a) || OPGEN_LIBM(isnan)(x)) return Nan();
  if (x < 0 || a <= 0) return Nan();
  if (x == Inf()) return 0;
  if (a == Inf() || x == 0) return 1;
  const GammaParts<double> p = IncompleteGammaParts(a, x);
  const double value = OPGEN_LIBM(exp)(p.log_front) * p.sum;
  return p.upper ? value : 1 - value;
}

// dP/da, or (kPerDensity) dP/da over the gamma density x^(a-1) e^-x / Gamma(a): minus
// the derivative of a Gamma(a) sample x with respect to a (RandomGammaGrad), formed
// without the density's underflow.
template <bool kPerDensity>
OPGEN_HD double IgammaSlopeA(double a, double x) {
  if (OPGEN_LIBM(isnan)(x)) return Nan();
  if (x == 0) return 0;  // whatever a is, NaN included
  if (OPGEN_LIBM(isnan)(a) || x < 0 || a <= 0) return Nan();
  if (a == Inf()) return 0;
  if (x == Inf()) return -0.0;
  const GammaParts<Dual> p = IncompleteGammaParts(Dual(a, 1), x);
  // d/da exp(L) S = exp(L) (L' S + S'); Q's slope is P's, negated.
  const double slope = p.log_front.d * p.sum.v + p.sum.d;
  const double sign = p.upper ? -1 : 1;
  if (!kPerDensity) return sign * OPGEN_LIBM(exp)(p.log_front.v) * slope;
  // exp(L) over the density: x / a for the series (Gamma(a + 1) = a Gamma(a)), x for Q.
  return sign * (p.upper ? x : x / a) * slope;
}
OPGEN_HD inline double IgammaGradA(double a, double x) { return IgammaSlopeA<false>(a, x); }
OPGEN_HD inline double RandomGammaGrad(double alpha, double sample) {
  return -IgammaSlopeA<true>(alpha, sample);
}

// B_2j / (2j)!, j = 1..12: the Euler-Maclaurin coefficients.
OPGEN_HD inline double EulerMaclaurinCoefficient(int j) {
  constexpr double kCoefficients[12] = {
      1.0 / 6 / 2,
      -1.0 / 30 / 24,
      1.0 / 42 / 720,
      -1.0 / 30 / 40320,
      5.0 / 66 / 3628800,
      -691.0 / 2730 / 479001600,
      7.0 / 6 / 87178291200.0,
      -3617.0 / 510 / 20922789888000.0,
      43867.0 / 798 / 6402373705728000.0,
      -174611.0 / 330 / 2432902008176640000.0,
      854513.0 / 138 / 1.1240007277776077e21,
      -236364091.0 / 2730 / 6.2044840173323943e23,
  };
  return kCoefficients[j];
}

// The Hurwitz zeta function sum_k (q + k)^-s, s > 1: terms summed directly until
// q + k reaches max(10, s), the rest by Euler-Maclaurin. Where q <= 0 the sum exists
// only for an integer s and a non-integer q (TensorFlow's convention; at the poles, an
// integer q, it is +inf for even s, s = inf counting as even, and NaN otherwise).
OPGEN_HD inline double Zeta(double s, double q) {
  if (OPGEN_LIBM(isnan)(s)) return Nan();
  if (s == 1) return Inf();  // whatever q is, NaN included
  if (s < 1 || OPGEN_LIBM(isnan)(q)) return Nan();
  if (q <= 0) {
    const bool even_s = s == Inf() || (s == OPGEN_LIBM(floor)(s) && OPGEN_LIBM(fmod)(s, 2.0) == 0);
    if (q == OPGEN_LIBM(floor)(q)) return even_s ? Inf() : Nan();
    if (s != OPGEN_LIBM(floor)(s)) return Nan();
    if (q < -16777216.0) return Nan();  // more direct terms than a kernel should run
  }
  if (q == Inf()) return 0;
  if (s == Inf()) return q < 1 ? Inf() : (q == 1 ? 1 : 0);
  const double start = s > 10 ? s : 10;
  double sum = 0, w = q;
  for (int k = 0; w < start; w = q + double(++k)) {
    const double term = OPGEN_LIBM(pow)(w, -s);
    sum += term;
    if (w > 0 && k > 0 && Negligible(term, sum)) return sum;
  }
  // The tail from w on: its integral, half its first term, then the B_2j terms with
  // the rising factorials s (s + 1) ... (s + 2j - 2) of the derivatives of t^-s.
  double tail = OPGEN_LIBM(pow)(w, 1 - s) / (s - 1) + 0.5 * OPGEN_LIBM(pow)(w, -s);
  double factor = s * OPGEN_LIBM(pow)(w, -s - 1);
  for (int j = 0; j < 12; ++j) {
    const double term = EulerMaclaurinCoefficient(j) * factor;
    tail += term;
    if (Negligible(term, sum + tail)) break;
    factor *= (s + 2 * j + 1) * (s + 2 * j + 2) / (w * w);
  }
  return sum + tail;
}

// psi^(n)(x) for an integer n >= 0: digamma for n = 0, else
// (-1)^(n + 1) n! zeta(n + 1, x). The sign goes by the parity of n + 1 as rounded (so
// +1 beyond 2^53, where n + 1 == n, and for n = inf), as TensorFlow's.
OPGEN_HD inline double Polygamma(double n, double x) {
  if (OPGEN_LIBM(isnan)(n) || OPGEN_LIBM(isnan)(x)) return Nan();
  if (n < 0 || n != OPGEN_LIBM(floor)(n)) return Nan();
  if (n == 0) return Digamma(x);
  const double n_plus_1 = n + 1;
  const double sign = OPGEN_LIBM(fmod)(n_plus_1, 2.0) == 0 ? 1 : -1;
  return (n == Inf() ? 1 : sign) * OPGEN_LIBM(exp)(Lgamma(n_plus_1)) * Zeta(n_plus_1, x);
}

// I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) / (1 + d1 / (1 + d2 / (1 + ...))), with
// d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) and
// d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)); converges fast below x = (a + 1) / (a + b + 2).
OPGEN_HD inline double IncompleteBetaFraction(double a, double b, double x) {
  double c = 1, d = 1 / OffZero(1 - (a + b) * x / (a + 1)), h = d;
  for (int m = 1; m < kMaxTerms; ++m) {
    const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / OffZero(1 + even * d);
    c = OffZero(1 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / OffZero(1 + odd * d);
    c = OffZero(1 + odd / c);
    const double step = d * c;
    h *= step;
    if (Settled(step)) break;
  }
  const double log_beta = Lgamma(a) + Lgamma(b) - Lgamma(a + b);
  return OPGEN_LIBM(exp)(a * OPGEN_LIBM(log)(x) + b * OPGEN_LIBM(log1p)(-x) - log_beta) * h / a;
}

// The regularized incomplete beta function; NaN unless a, b are finite and positive
// and 0 <= x <= 1, except that x = 0 and 1 give themselves for a NaN or infinite a or b
// (as TensorFlow's). Above the fraction's fast region, I_x(a, b) = 1 - I_(1-x)(b, a).
OPGEN_HD inline double Betainc(double a, double b, double x) {
  if (a <= 0 || b <= 0 || !(x >= 0 && x <= 1)) return Nan();
  if (x == 0 || x == 1) return x;
  if (!(a < Inf() && b < Inf())) return Nan();
  if (x > (a + 1) / (a + b + 2)) return 1 - IncompleteBetaFraction(b, a, 1 - x);
  return IncompleteBetaFraction(a, b, x);
}

}  // namespace special
}  // namespace kernels
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_INCOMPLETE_GAMMA_BETA_H_

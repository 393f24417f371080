// Dense linear algebra on one small square matrix at a time, in double (or complex
// double) whatever the tensor's type: LU with partial pivoting, Cholesky, triangular
// solves. Row-major n x n arrays. The ops' kernels (linalg.cc) batch them.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace opgen {
namespace cpu {
namespace linalg {

inline double Conj(double x) { return x; }
inline std::complex<double> Conj(std::complex<double> x) { return std::conj(x); }
inline double RealPart(double x) { return x; }
inline double RealPart(std::complex<double> x) { return x.real(); }
// float twins, for the kernels that work in T's own precision (MatrixSolveLs's fast path).
inline float Conj(float x) { return x; }
inline std::complex<float> Conj(std::complex<float> x) { return std::conj(x); }
inline double RealPart(float x) { return x; }
inline double RealPart(std::complex<float> x) { return x.real(); }

// LU = P A in place: `a` becomes L (unit diagonal, below) and U; perm[i] is the row of A
// that row i of LU came from. Returns the smallest |pivot| (NaN once any pivot is NaN)
// and sets *swaps_odd.
template <typename W>
double LuDecompose(W* a, int64_t n, std::vector<int64_t>* perm, bool* swaps_odd) {
  perm->resize(n);
  for (int64_t i = 0; i < n; ++i) (*perm)[i] = i;
  *swaps_odd = false;
  double min_pivot = std::numeric_limits<double>::infinity();
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    double best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      const double v = std::abs(a[i * n + k]);
      if (v > best) best = v, p = i;
    }
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap((*perm)[k], (*perm)[p]);
      *swaps_odd = !*swaps_odd;
    }
    const W pivot = a[k * n + k];
    const double mag = std::abs(pivot);
    if (std::isnan(mag) || mag < min_pivot) min_pivot = std::isnan(min_pivot) ? min_pivot : mag;
    if (mag == 0 || std::isnan(mag)) continue;
    for (int64_t i = k + 1; i < n; ++i) {
      const W f = a[i * n + k] / pivot;
      a[i * n + k] = f;
      if (f == W(0)) continue;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return min_pivot;
}

// Solves (LU) x = P b for `cols` right-hand sides b (n x cols, row-major) in place.
template <typename W>
void LuSolve(const W* lu, const std::vector<int64_t>& perm, int64_t n, W* b, int64_t cols) {
  std::vector<W> x(n * cols);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < cols; ++c) x[i * cols + c] = b[perm[i] * cols + c];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < i; ++k)
      for (int64_t c = 0; c < cols; ++c) x[i * cols + c] -= lu[i * n + k] * x[k * cols + c];
  for (int64_t i = n - 1; i >= 0; --i) {
    for (int64_t k = i + 1; k < n; ++k)
      for (int64_t c = 0; c < cols; ++c) x[i * cols + c] -= lu[i * n + k] * x[k * cols + c];
    for (int64_t c = 0; c < cols; ++c) x[i * cols + c] /= lu[i * n + i];
  }
  for (int64_t i = 0; i < n * cols; ++i) b[i] = x[i];
}

// The lower Cholesky factor of the Hermitian matrix whose lower triangle `a` holds, in
// place (the upper triangle zeroed); false where a pivot is not positive (or NaN).
// Pivots are summed in `Acc`; with kNaNPasses a NaN pivot passes and spreads NaN, as
// Eigen's LLT does (MatrixSolveLs's fast path follows it, in T's own precision).
template <typename W, typename Acc = double, bool kNaNPasses = false>
bool CholeskyLower(W* a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    Acc d = static_cast<Acc>(RealPart(a[j * n + j]));
    for (int64_t k = 0; k < j; ++k) d -= std::norm(std::complex<Acc>(a[j * n + k]));
    if (kNaNPasses ? d <= 0 : !(d > 0)) return false;
    const Acc l = std::sqrt(d);
    a[j * n + j] = W(l);
    for (int64_t i = j + 1; i < n; ++i) {
      W s = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) s -= a[i * n + k] * Conj(a[j * n + k]);
      a[i * n + j] = s / l;
    }
    for (int64_t k = j + 1; k < n; ++k) a[j * n + k] = W(0);
  }
  return true;
}

// Solves op(T) x = b in place for b (n x cols), T the lower (or upper) triangle of `t`,
// op the conjugate transpose when `adjoint`. A zero diagonal gives inf / NaN, as
// TensorFlow's.
template <typename W>
void TriangularSolve(const W* t, int64_t n, bool lower, bool adjoint, W* b, int64_t cols) {
  // op(T) is lower triangular for a lower T not adjointed, or an upper T adjointed.
  const bool forward = lower != adjoint;
  auto at = [&](int64_t i, int64_t j) { return adjoint ? Conj(t[j * n + i]) : t[i * n + j]; };
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = forward ? step : n - 1 - step;
    for (int64_t s = 0; s < step; ++s) {
      const int64_t k = forward ? s : n - 1 - s;
      const W f = at(i, k);
      for (int64_t c = 0; c < cols; ++c) b[i * cols + c] -= f * b[k * cols + c];
    }
    const W d = at(i, i);
    for (int64_t c = 0; c < cols; ++c) b[i * cols + c] /= d;
  }
}

}  // namespace linalg
}  // namespace cpu
}  // namespace opgen

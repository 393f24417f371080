// A discrete Fourier transform of any length, in double precision: iterative radix-2
// for powers of two, Bluestein's chirp-z (three radix-2 transforms of a power of two at
// least 2n - 1) for the other lengths. Unscaled both ways, as FFTW and numpy's "backward"
// norm count them: the caller divides an inverse transform by n.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace opgen {
namespace cpu {

using Cplx = std::complex<double>;

class FftPlan {
 public:
  explicit FftPlan(int64_t n) : n_(n) {
    if (n <= 1) return;
    if (IsPowerOfTwo(n)) {
      twiddles_ = Twiddles(n);
      return;
    }
    // Bluestein: X_k = w_k * sum_j (x_j w_j) conj(w_{k-j}), w_j = exp(-i pi j^2 / n); the
    // sum is a circular convolution of length m >= 2n - 1.
    m_ = 1;
    while (m_ < 2 * n - 1) m_ <<= 1;
    twiddles_ = Twiddles(m_);
    chirp_.resize(n);
    for (int64_t j = 0; j < n; ++j) {
      // j^2 mod 2n keeps the angle small, so large n stays accurate.
      const int64_t q = static_cast<int64_t>((static_cast<unsigned __int128>(j) * j) % (2 * n));
      const double a = -M_PI * static_cast<double>(q) / static_cast<double>(n);
      chirp_[j] = Cplx(std::cos(a), std::sin(a));
    }
    kernel_.assign(m_, Cplx(0, 0));
    kernel_[0] = std::conj(chirp_[0]);
    for (int64_t j = 1; j < n; ++j) kernel_[j] = kernel_[m_ - j] = std::conj(chirp_[j]);
    Radix2(kernel_.data(), m_, twiddles_, false);
  }

  int64_t size() const { return n_; }

  // Transforms `data` (n values) in place: sum_j x_j exp(-+2 pi i jk / n), the minus sign
  // forward, the plus sign for `inverse`. `scratch` is reused between calls.
  void Run(Cplx* data, bool inverse, std::vector<Cplx>* scratch) const {
    if (n_ <= 1) return;
    if (m_ == 0) {
      Radix2(data, n_, twiddles_, inverse);
      return;
    }
    // The inverse is the conjugate of the forward transform of the conjugate.
    std::vector<Cplx>& a = *scratch;
    a.assign(m_, Cplx(0, 0));
    for (int64_t j = 0; j < n_; ++j) a[j] = (inverse ? std::conj(data[j]) : data[j]) * chirp_[j];
    Radix2(a.data(), m_, twiddles_, false);
    for (int64_t j = 0; j < m_; ++j) a[j] *= kernel_[j];
    Radix2(a.data(), m_, twiddles_, true);
    const double scale = 1.0 / static_cast<double>(m_);
    for (int64_t k = 0; k < n_; ++k) {
      const Cplx v = a[k] * chirp_[k] * scale;
      data[k] = inverse ? std::conj(v) : v;
    }
  }

 private:
  static bool IsPowerOfTwo(int64_t n) { return (n & (n - 1)) == 0; }

  // exp(-2 pi i k / n) for k < n / 2.
  static std::vector<Cplx> Twiddles(int64_t n) {
    std::vector<Cplx> t(n / 2);
    for (int64_t k = 0; k < n / 2; ++k) {
      const double a = -2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      t[k] = Cplx(std::cos(a), std::sin(a));
    }
    return t;
  }

  // In-place decimation in time: bit-reversed order, then log2(n) butterfly passes.
  static void Radix2(Cplx* x, int64_t n, const std::vector<Cplx>& tw, bool inverse) {
    for (int64_t i = 1, j = 0; i < n; ++i) {
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j |= bit;
      if (i < j) std::swap(x[i], x[j]);
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t half = len / 2, step = n / len;
      for (int64_t start = 0; start < n; start += len) {
        for (int64_t k = 0; k < half; ++k) {
          const Cplx w = inverse ? std::conj(tw[k * step]) : tw[k * step];
          const Cplx u = x[start + k], v = x[start + k + half] * w;
          x[start + k] = u + v;
          x[start + k + half] = u - v;
        }
      }
    }
  }

  int64_t n_;
  int64_t m_ = 0;  // Bluestein's convolution length; 0 for a power of two
  std::vector<Cplx> twiddles_, chirp_, kernel_;
};

// Transforms every line along the middle axis of `data`, viewed as [outer, n, inner],
// with `plan` (of size n), made once by the caller for all the lines.
inline void TransformAxis(const FftPlan& plan, Cplx* data, int64_t outer, int64_t inner,
                          bool inverse) {
  const int64_t n = plan.size();
  if (n <= 1 || outer * inner == 0) return;
  std::vector<Cplx> line(n), scratch;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      Cplx* base = data + o * n * inner + i;
      if (inner == 1) {
        plan.Run(base, inverse, &scratch);
        continue;
      }
      for (int64_t j = 0; j < n; ++j) line[j] = base[j * inner];
      plan.Run(line.data(), inverse, &scratch);
      for (int64_t j = 0; j < n; ++j) base[j * inner] = line[j];
    }
  }
}

}  // namespace cpu
}  // namespace opgen

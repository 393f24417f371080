// The transform of n real values to its n / 2 + 1 non-negative frequencies, and back.
// Even n: the real values read as n / 2 complex ones z_j = x_2j + i x_2j+1, one complex
// transform Z of n / 2, then X_k = E_k + W^k O_k with E_k = (Z_k + conj Z_{h-k}) / 2,
// O_k = (Z_k - conj Z_{h-k}) / 2i, W = exp(-2 pi i / n), h = n / 2 (the spectra of the
// even and odd samples); the inverse undoes each step. Odd n: a complex transform of n.
// Unscaled both ways, as fft_plan.h.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fft_plan.h"

namespace opgen {
namespace cpu {

template <typename T>
class RealPlan {
 public:
  using C = std::complex<T>;

  explicit RealPlan(int64_t n) : n_(n), half_((n % 2 == 0) ? n / 2 : n), plan_(half_) {
    if (n % 2 != 0) return;
    // W^k for k <= h / 2: the pairs (k, h - k) share it.
    twiddle_.resize(half_ / 2 + 1);
    for (int64_t k = 0; k <= half_ / 2; ++k) {
      const double a = -2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
      twiddle_[k] = C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
    }
  }

  int64_t size() const { return n_; }

  // out[0, n / 2] = the spectrum of in[0, n).
  void Forward(const T* in, C* out, FftScratch<T>* scratch) const {
    if (n_ % 2 != 0) {
      std::vector<C>& line = scratch->line;
      line.resize(n_);
      for (int64_t j = 0; j < n_; ++j) line[j] = C(in[j], 0);
      plan_.Run(line.data(), false, scratch);
      for (int64_t k = 0; k <= n_ / 2; ++k) out[k] = line[k];
      return;
    }
    std::memcpy(static_cast<void*>(out), in, sizeof(T) * n_);
    plan_.Run(out, false, scratch);
    Untangle([out](int64_t k) { return out[k]; }, out);
  }

  // out[0, n) = n times the real signal whose spectrum's non-negative half is in[0, n / 2]
  // (Hermitian symmetry assumed: the imaginary parts of in[0] and, for even n, in[n / 2]
  // do not count). `in` is not changed.
  void Inverse(const C* in, T* out, FftScratch<T>* scratch) const {
    if (n_ % 2 != 0) {
      std::vector<C>& line = scratch->line;
      line.resize(n_);
      line[0] = C(in[0].real(), 0);
      for (int64_t k = 1; k <= n_ / 2; ++k) line[k] = in[k], line[n_ - k] = std::conj(in[k]);
      plan_.Run(line.data(), true, scratch);
      for (int64_t j = 0; j < n_; ++j) out[j] = line[j].real();
      return;
    }
    C* z = reinterpret_cast<C*>(out);
    Tangle(in, [z](int64_t k, C v) { z[k] = v; });
    plan_.Run(z, true, scratch);
  }

  // Side by side, as ComplexPlan::RunLanes (even n with a power-of-two half): the rows
  // in[c] (c < width <= kLanes) to out + c * out_stride, and back; bit for bit what
  // Forward and Inverse give each row. re and im hold kLanes * n / 2 values.
  static constexpr int64_t kLanes = ComplexPlan<T>::kLanes;
  bool HasLanes() const { return n_ % 2 == 0 && plan_.HasLanes(); }
  void ForwardLanes(const T* const* in, int64_t width, C* out, int64_t out_stride, T* re,
                    T* im) const {
    const int64_t h = half_;
    std::fill(re, re + kLanes * h, T(0));
    std::fill(im, im + kLanes * h, T(0));
    for (int64_t c = 0; c < width; ++c)
      for (int64_t j = 0; j < h; ++j) {
        const int64_t at = plan_.BitReversed(j) * kLanes + c;
        re[at] = in[c][2 * j], im[at] = in[c][2 * j + 1];
      }
    plan_.RunLanes(re, im, false);
    for (int64_t c = 0; c < width; ++c)
      Untangle([re, im, c](int64_t k) { return C(re[k * kLanes + c], im[k * kLanes + c]); },
               out + c * out_stride);
  }
  void InverseLanes(const C* const* in, int64_t width, T* out, int64_t out_stride, T* re,
                    T* im) const {
    const int64_t h = half_;
    std::fill(re, re + kLanes * h, T(0));
    std::fill(im, im + kLanes * h, T(0));
    for (int64_t c = 0; c < width; ++c)
      Tangle(in[c], [this, re, im, c](int64_t k, C v) {
        const int64_t at = plan_.BitReversed(k) * kLanes + c;
        re[at] = v.real(), im[at] = v.imag();
      });
    plan_.RunLanes(re, im, true);
    for (int64_t c = 0; c < width; ++c) {
      T* row = out + c * out_stride;
      for (int64_t j = 0; j < h; ++j) row[2 * j] = re[j * kLanes + c], row[2 * j + 1] = im[j * kLanes + c];
    }
  }

 private:
  // Even n: X[0, h] from Z = z(k), k < h (written as read, pair by pair: out may be Z).
  template <typename Z>
  void Untangle(Z z, C* out) const {
    const int64_t h = half_;
    const C z0 = z(0);
    out[0] = C(z0.real() + z0.imag(), 0);
    out[h] = C(z0.real() - z0.imag(), 0);
    for (int64_t k = 1; k <= h / 2; ++k) {
      const C a = z(k), b = std::conj(z(h - k));
      const C e((a.real() + b.real()) / 2, (a.imag() + b.imag()) / 2);
      const C d((a.real() - b.real()) / 2, (a.imag() - b.imag()) / 2);
      const C o(d.imag(), -d.real());  // d / i
      const C wo = ComplexPlan<T>::Mul(twiddle_[k], o);
      out[k] = C(e.real() + wo.real(), e.imag() + wo.imag());
      out[h - k] = C(e.real() - wo.real(), -(e.imag() - wo.imag()));
    }
  }

  // Even n, the inverse step: put(k, Z_k), k < h, with Z_k = A + i C and Z_{h-k} =
  // conj(A - i C), A = X_k + conj X_{h-k}, C = (X_k - conj X_{h-k}) conj(W^k): twice the
  // Z of Forward, so the unscaled transform of n / 2 gives n times the signal.
  template <typename Put>
  void Tangle(const C* in, Put put) const {
    const int64_t h = half_;
    const T a0 = in[0].real(), ah = in[h].real();
    put(0, C(a0 + ah, a0 - ah));
    for (int64_t k = 1; k <= h / 2; ++k) {
      const C x = in[k], y = std::conj(in[h - k]);
      const C a(x.real() + y.real(), x.imag() + y.imag());
      const C c = ComplexPlan<T>::Mul(C(x.real() - y.real(), x.imag() - y.imag()),
                                      std::conj(twiddle_[k]));
      put(k, C(a.real() - c.imag(), a.imag() + c.real()));
      put(h - k, C(a.real() + c.imag(), -(a.imag() - c.real())));
    }
  }

 private:
  int64_t n_, half_;
  ComplexPlan<T> plan_;  // of n / 2 for even n, of n for odd n
  std::vector<C> twiddle_;
};

}  // namespace cpu
}  // namespace opgen

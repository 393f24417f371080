// A discrete Fourier transform of any length in the precision T (float or double):
// iterative in-place radix-4 (one radix-2 pass where log2 n is odd) for powers of two,
// fft_mixed_radix.h's passes where every prime factor is small, Bluestein's chirp-z (a
// circular convolution by transforms of a power of two at least 2n - 1) for the rest.
// Unscaled both ways, as FFTW and numpy's "backward" norm count them: the caller divides
// an inverse transform by n. Twiddles are computed in double and rounded once to T;
// complex products are written out on the real and imaginary parts (std::complex's
// operator* checks for infinities through a library call, several times slower in the
// butterflies).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "fft_mixed_radix.h"

namespace opgen {
namespace cpu {

// Work buffers one thread reuses between transforms of the same plan.
template <typename T>
struct FftScratch {
  std::vector<std::complex<T>> line, work;
};

template <typename T>
class ComplexPlan {
 public:
  using C = std::complex<T>;

  explicit ComplexPlan(int64_t n) : n_(n) {
    if (n <= 1) return;
    if ((n & (n - 1)) == 0) {
      InitPow2(n);
      return;
    }
    std::vector<int> factors;
    if (MixedRadixPlan<T>::Factor(n, &factors)) {
      mixed_ = std::make_unique<const MixedRadixPlan<T>>(n, factors);
      return;
    }
    // Bluestein: X_k = w_k * sum_j (x_j w_j) conj(w_{k-j}), w_j = exp(-i pi j^2 / n).
    m_ = 1;
    while (m_ < 2 * n - 1) m_ <<= 1;
    InitPow2(m_);
    chirp_.resize(n);
    std::vector<std::complex<double>> kernel(m_, 0.0);
    for (int64_t j = 0; j < n; ++j) {
      // j^2 mod 2n keeps the angle small, so large n stays accurate.
      const int64_t q = static_cast<int64_t>((static_cast<unsigned __int128>(j) * j) % (2 * n));
      const double a = -M_PI * static_cast<double>(q) / static_cast<double>(n);
      chirp_[j] = C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
      kernel[j] = std::complex<double>(std::cos(a), -std::sin(a));
      if (j > 0) kernel[m_ - j] = kernel[j];
    }
    // The kernel's spectrum in double (then rounded), with the convolution's 1/m folded in.
    ComplexPlan<double>(m_).Run(kernel.data(), false, nullptr);
    kernel_.resize(m_);
    const double scale = 1.0 / static_cast<double>(m_);
    for (int64_t j = 0; j < m_; ++j)
      kernel_[j] = C(static_cast<T>(kernel[j].real() * scale), static_cast<T>(kernel[j].imag() * scale));
  }

  int64_t size() const { return n_; }

  // Transforms `data` (n values) in place: sum_j x_j exp(-+2 pi i jk / n), the minus sign
  // forward, the plus sign for `inverse`. `scratch` may be null for a power of two.
  void Run(C* data, bool inverse, FftScratch<T>* scratch) const {
    if (n_ <= 1) return;
    if (mixed_) {
      mixed_->Run(data, inverse, &scratch->work);
      return;
    }
    if (m_ == 0) {
      if (inverse) {
        Pow2<true>(reinterpret_cast<T*>(data), n_);
      } else {
        Pow2<false>(reinterpret_cast<T*>(data), n_);
      }
      return;
    }
    // The inverse is the conjugate of the forward transform of the conjugate.
    std::vector<C>& a = scratch->work;
    a.assign(m_, C(0, 0));
    for (int64_t j = 0; j < n_; ++j) a[j] = Mul(inverse ? std::conj(data[j]) : data[j], chirp_[j]);
    Pow2<false>(reinterpret_cast<T*>(a.data()), m_);
    for (int64_t j = 0; j < m_; ++j) a[j] = Mul(a[j], kernel_[j]);
    Pow2<true>(reinterpret_cast<T*>(a.data()), m_);
    for (int64_t k = 0; k < n_; ++k) {
      const C v = Mul(a[k], chirp_[k]);
      data[k] = inverse ? std::conj(v) : v;
    }
  }

  static C Mul(C a, C b) {
    return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  }

  // kLanes transforms side by side (many rows, or a tile of columns): value j of lane c at
  // re/im[j * kLanes + c], so every butterfly is one vector operation over the lanes.
  // Powers of two only, with Run's operations in Run's order: a lane's result is bit for
  // bit what Run gives its line (this file is built without FMA, so no contraction makes
  // the vector and scalar code round differently). The caller stores value j at row BitReversed(j) (the
  // permutation Run starts with, folded into the caller's gather).
  static constexpr int64_t kLanes = 16;
  bool HasLanes() const { return n_ >= 2 && m_ == 0 && !mixed_; }
  int64_t BitReversed(int64_t j) const { return rev_[j]; }
  void RunLanes(T* re, T* im, bool inverse) const {
    if (inverse) {
      Pow2Lanes<true>(re, im);
    } else {
      Pow2Lanes<false>(re, im);
    }
  }

 private:
  // The bit-reversal permutation and, for each butterfly span h (1, 2, 4, ... size / 2),
  // its twiddles exp(-i pi k / h), k < h, at [h - 1, 2h - 1): one table read in order.
  void InitPow2(int64_t size) {
    rev_.resize(size);
    int bits = 0;
    while ((int64_t{1} << bits) < size) ++bits;
    for (int64_t i = 0; i < size; ++i) {
      uint64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((static_cast<uint64_t>(i) >> b) & 1) << (bits - 1 - b);
      rev_[i] = static_cast<uint32_t>(r);
    }
    tw_.resize(2 * (size - 1));
    for (int64_t h = 1; h < size; h <<= 1) {
      for (int64_t k = 0; k < h; ++k) {
        const double a = -M_PI * static_cast<double>(k) / static_cast<double>(h);
        tw_[2 * (h - 1 + k)] = static_cast<T>(std::cos(a));
        tw_[2 * (h - 1 + k) + 1] = static_cast<T>(std::sin(a));
      }
    }
  }

  // Decimation in time on `size` interleaved complex values: bit-reversed order, then
  // the butterfly spans two at a time (radix 4), the last alone where log2 size is odd.
  template <bool kInverse>
  void Pow2(T* x, int64_t size) const {
    const uint32_t* rev = rev_.data();
    for (int64_t i = 0; i < size; ++i) {
      const int64_t j = rev[i];
      if (i < j) {
        std::swap(x[2 * i], x[2 * j]);
        std::swap(x[2 * i + 1], x[2 * j + 1]);
      }
    }
    int64_t h = 1;
    if (size >= 4) {  // spans 1 and 2: twiddles +-1 and -+i, no products
      First4<kInverse>(x, size);
      h = 4;
    }
    for (; 4 * h <= size; h *= 4) Radix4<kInverse>(x, size, h);
    if (h < size) Radix2<kInverse>(x, size, h);
  }

  template <bool kInverse>
  void Pow2Lanes(T* re, T* im) const {
    constexpr int64_t L = kLanes;
    const int64_t size = n_;
    int64_t h = 1;
    if (size >= 4) {
      for (int64_t start = 0; start < size; start += 4) {
        T* __restrict r = re + start * L;
        T* __restrict m = im + start * L;
        for (int64_t c = 0; c < L; ++c) {
          const T er = r[c] + r[L + c], ei = m[c] + m[L + c];
          const T fr = r[c] - r[L + c], fi = m[c] - m[L + c];
          const T gr = r[2 * L + c] + r[3 * L + c], gi = m[2 * L + c] + m[3 * L + c];
          const T dr = r[2 * L + c] - r[3 * L + c], di = m[2 * L + c] - m[3 * L + c];
          const T hr = kInverse ? -di : di, hi = kInverse ? dr : -dr;
          r[c] = er + gr, m[c] = ei + gi, r[2 * L + c] = er - gr, m[2 * L + c] = ei - gi;
          r[L + c] = fr + hr, m[L + c] = fi + hi, r[3 * L + c] = fr - hr, m[3 * L + c] = fi - hi;
        }
      }
      h = 4;
    }
    const T s = kInverse ? T(-1) : T(1);
    for (; 4 * h <= size; h *= 4) {
      const T* t1 = tw_.data() + 2 * (h - 1);
      const T* t2 = tw_.data() + 2 * (2 * h - 1);
      for (int64_t start = 0; start < size; start += 4 * h) {
        for (int64_t k = 0; k < h; ++k) {
          const T w1r = t1[2 * k], w1i = s * t1[2 * k + 1];
          const T w2r = t2[2 * k], w2i = s * t2[2 * k + 1];
          T* r0 = re + (start + k) * L;
          T* m0 = im + (start + k) * L;
          Radix4Lanes(r0, r0 + h * L, r0 + 2 * h * L, r0 + 3 * h * L, m0, m0 + h * L,
                      m0 + 2 * h * L, m0 + 3 * h * L, w1r, w1i, w2r, w2i, s);
        }
      }
    }
    if (h < size) {
      const T* t = tw_.data() + 2 * (h - 1);
      for (int64_t k = 0; k < h; ++k) {
        const T wr = t[2 * k], wi = s * t[2 * k + 1];
        T* __restrict r0 = re + k * L;
        T* __restrict r1 = r0 + h * L;
        T* __restrict m0 = im + k * L;
        T* __restrict m1 = m0 + h * L;
        for (int64_t c = 0; c < L; ++c) {
          const T br = r1[c] * wr - m1[c] * wi, bi = r1[c] * wi + m1[c] * wr;
          const T ar = r0[c], ai = m0[c];
          r0[c] = ar + br, m0[c] = ai + bi;
          r1[c] = ar - br, m1[c] = ai - bi;
        }
      }
    }
  }

  // One radix-4 butterfly on every lane (restrict parameters: the compiler then
  // vectorizes over the lanes without alias checks).
  static void Radix4Lanes(T* __restrict r0, T* __restrict r1, T* __restrict r2,
                          T* __restrict r3, T* __restrict m0, T* __restrict m1,
                          T* __restrict m2, T* __restrict m3, T w1r, T w1i, T w2r, T w2i, T s) {
    for (int64_t c = 0; c < kLanes; ++c) {
      const T ar = r0[c], ai = m0[c];
      const T br = r1[c] * w1r - m1[c] * w1i, bi = r1[c] * w1i + m1[c] * w1r;
      const T cr = r2[c], ci = m2[c];
      const T dr = r3[c] * w1r - m3[c] * w1i, di = r3[c] * w1i + m3[c] * w1r;
      const T p0r = ar + br, p0i = ai + bi, p1r = ar - br, p1i = ai - bi;
      const T p2r = cr + dr, p2i = ci + di, p3r = cr - dr, p3i = ci - di;
      const T q2r = p2r * w2r - p2i * w2i, q2i = p2r * w2i + p2i * w2r;
      const T q3r = p3r * w2r - p3i * w2i, q3i = p3r * w2i + p3i * w2r;
      const T r3r = s * q3i, r3i = -s * q3r;
      r0[c] = p0r + q2r, m0[c] = p0i + q2i;
      r2[c] = p0r - q2r, m2[c] = p0i - q2i;
      r1[c] = p1r + r3r, m1[c] = p1i + r3i;
      r3[c] = p1r - r3r, m3[c] = p1i - r3i;
    }
  }

  // Spans 1 and 2 together: the 4-point DFT of each block of 4 (bit-reversed inputs).
  template <bool kInverse>
  static void First4(T* x, int64_t size) {
    for (int64_t start = 0; start < 2 * size; start += 8) {
      T* v = x + start;
      const T er = v[0] + v[2], ei = v[1] + v[3], fr = v[0] - v[2], fi = v[1] - v[3];
      const T gr = v[4] + v[6], gi = v[5] + v[7], dr = v[4] - v[6], di = v[5] - v[7];
      // d * -i forward, d * +i inverse
      const T hr = kInverse ? -di : di, hi = kInverse ? dr : -dr;
      v[0] = er + gr, v[1] = ei + gi, v[4] = er - gr, v[5] = ei - gi;
      v[2] = fr + hr, v[3] = fi + hi, v[6] = fr - hr, v[7] = fi - hi;
    }
  }

  // Spans h and 2h in one pass over blocks of 4h: the span-h butterflies on (x0, x1) and
  // (x2, x3) with exp(-i pi k / h), then the span-2h ones with w = exp(-i pi k / 2h)
  // and w * -i. Conjugate twiddles (and +i) for the inverse.
  template <bool kInverse>
  void Radix4(T* x, int64_t size, int64_t h) const {
    const T* __restrict t1 = tw_.data() + 2 * (h - 1);
    const T* __restrict t2 = tw_.data() + 2 * (2 * h - 1);
    const T s = kInverse ? T(-1) : T(1);
    for (int64_t start = 0; start < size; start += 4 * h) {
      // The four quarters do not overlap: restrict lets the compiler vectorize over k.
      T* __restrict x0 = x + 2 * start;
      T* __restrict x1 = x0 + 2 * h;
      T* __restrict x2 = x1 + 2 * h;
      T* __restrict x3 = x2 + 2 * h;
      for (int64_t k = 0; k < h; ++k) {
        const T w1r = t1[2 * k], w1i = s * t1[2 * k + 1];
        const T w2r = t2[2 * k], w2i = s * t2[2 * k + 1];
        const T ar = x0[2 * k], ai = x0[2 * k + 1];
        const T br = x1[2 * k] * w1r - x1[2 * k + 1] * w1i, bi = x1[2 * k] * w1i + x1[2 * k + 1] * w1r;
        const T cr = x2[2 * k], ci = x2[2 * k + 1];
        const T dr = x3[2 * k] * w1r - x3[2 * k + 1] * w1i, di = x3[2 * k] * w1i + x3[2 * k + 1] * w1r;
        const T p0r = ar + br, p0i = ai + bi, p1r = ar - br, p1i = ai - bi;
        const T p2r = cr + dr, p2i = ci + di, p3r = cr - dr, p3i = ci - di;
        const T q2r = p2r * w2r - p2i * w2i, q2i = p2r * w2i + p2i * w2r;
        const T q3r = p3r * w2r - p3i * w2i, q3i = p3r * w2i + p3i * w2r;
        // q3 * -i forward, q3 * +i inverse
        const T r3r = s * q3i, r3i = -s * q3r;
        x0[2 * k] = p0r + q2r, x0[2 * k + 1] = p0i + q2i;
        x2[2 * k] = p0r - q2r, x2[2 * k + 1] = p0i - q2i;
        x1[2 * k] = p1r + r3r, x1[2 * k + 1] = p1i + r3i;
        x3[2 * k] = p1r - r3r, x3[2 * k + 1] = p1i - r3i;
      }
    }
  }

  template <bool kInverse>
  void Radix2(T* x, int64_t size, int64_t h) const {
    const T* __restrict t = tw_.data() + 2 * (h - 1);
    const T s = kInverse ? T(-1) : T(1);
    for (int64_t start = 0; start < size; start += 2 * h) {
      T* __restrict x0 = x + 2 * start;
      T* __restrict x1 = x0 + 2 * h;
      for (int64_t k = 0; k < h; ++k) {
        const T wr = t[2 * k], wi = s * t[2 * k + 1];
        const T br = x1[2 * k] * wr - x1[2 * k + 1] * wi, bi = x1[2 * k] * wi + x1[2 * k + 1] * wr;
        const T ar = x0[2 * k], ai = x0[2 * k + 1];
        x0[2 * k] = ar + br, x0[2 * k + 1] = ai + bi;
        x1[2 * k] = ar - br, x1[2 * k + 1] = ai - bi;
      }
    }
  }

  int64_t n_;
  int64_t m_ = 0;  // Bluestein's convolution length; 0 otherwise
  std::unique_ptr<const MixedRadixPlan<T>> mixed_;  // small prime factors only
  std::vector<uint32_t> rev_;
  std::vector<T> tw_;
  std::vector<C> chirp_, kernel_;
};

}  // namespace cpu
}  // namespace opgen

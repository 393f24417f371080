// The DFT of lengths whose prime factors are all small (1000 = 4 * 2 * 5^3, 480, 1001 =
// 7 * 11 * 13): Stockham's self-sorting decimation in frequency, one pass per factor
// between the data and a work buffer, no bit reversal. A pass of radix p over the
// current length L = p * m at stride s (the product of the factors done):
//   y[q + s (p j + t)] = W_L^{j t} * sum_r x[q + s (j + r m)] w_p^{r t},
// j < m, q < s, t < p. Radices 2, 3, 4 and 5 have written-out butterflies; other
// primes up to kMaxGenericRadix sum directly (about p / 2 complex-by-real products per
// output, still cheaper than Bluestein's three transforms of a power of two >= 2n - 1).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

namespace opgen {
namespace cpu {

constexpr int kMaxGenericRadix = 31;

template <typename T>
class MixedRadixPlan {
 public:
  using C = std::complex<T>;

  // n's factors, 4s first, then 2, 3, 5 and larger primes; false where a prime factor is
  // above kMaxGenericRadix.
  static bool Factor(int64_t n, std::vector<int>* factors) {
    factors->clear();
    while (n % 4 == 0) factors->push_back(4), n /= 4;
    for (int p = 2; p <= kMaxGenericRadix && n > 1; ++p)
      while (n % p == 0) factors->push_back(p), n /= p;
    return n == 1;
  }

  MixedRadixPlan(int64_t n, const std::vector<int>& factors) : n_(n) {
    int64_t length = n, stride = 1;
    for (int p : factors) {
      Stage stage{p, length / p, stride, tw_.size(), roots_.size()};
      // W_L^{j t} for j < m, 1 <= t < p, computed in double and rounded once.
      for (int64_t j = 0; j < stage.m; ++j)
        for (int t = 1; t < p; ++t) {
          const double a = -2.0 * M_PI * static_cast<double>(j * t) / static_cast<double>(length);
          tw_.push_back(C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))));
        }
      for (int k = 0; k < p; ++k) {
        const double a = -2.0 * M_PI * k / p;
        roots_.push_back(C(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))));
      }
      stages_.push_back(stage);
      length /= p;
      stride *= p;
    }
  }

  // Transforms `data` (n values) in place; `work` holds n values between passes.
  void Run(C* data, bool inverse, std::vector<C>* work) const {
    if (inverse) {
      RunAll<true>(data, work);
    } else {
      RunAll<false>(data, work);
    }
  }

 private:
  struct Stage {
    int p;
    int64_t m, s;
    size_t tw, roots;  // offsets into tw_ and roots_
  };

  template <bool kInverse>
  void RunAll(C* data, std::vector<C>* work) const {
    work->resize(n_);
    C* src = data;
    C* dst = work->data();
    for (const Stage& st : stages_) {
      switch (st.p) {
        case 2: Pass<kInverse, 2>(st, src, dst); break;
        case 3: Pass<kInverse, 3>(st, src, dst); break;
        case 4: Pass<kInverse, 4>(st, src, dst); break;
        case 5: Pass<kInverse, 5>(st, src, dst); break;
        default: Pass<kInverse, 0>(st, src, dst); break;
      }
      std::swap(src, dst);
    }
    if (src != data) std::memcpy(static_cast<void*>(data), src, sizeof(C) * n_);
  }

  static C Mul(C a, C b) {
    return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  }
  // z times -i forward, +i inverse: the quarter turn of the transform's direction.
  template <bool kInverse>
  static C Quarter(C z) { return kInverse ? C(-z.imag(), z.real()) : C(z.imag(), -z.real()); }
  template <bool kInverse>
  static C Twiddle(C w) { return kInverse ? std::conj(w) : w; }

  // One pass of radix kP (0: the stage's own prime, summed directly).
  template <bool kInverse, int kP>
  void Pass(const Stage& st, const C* x, C* y) const {
    const int p = kP ? kP : st.p;
    const int64_t m = st.m, s = st.s;
    const C* tw = tw_.data() + st.tw;
    const C* roots = roots_.data() + st.roots;
    C a[kMaxGenericRadix], b[kMaxGenericRadix], w[kMaxGenericRadix];
    for (int64_t j = 0; j < m; ++j) {
      w[0] = C(1, 0);
      for (int t = 1; t < p; ++t) w[t] = Twiddle<kInverse>(tw[j * (p - 1) + t - 1]);
      for (int64_t q = 0; q < s; ++q) {
        for (int r = 0; r < p; ++r) a[r] = x[q + s * (j + r * m)];
        Butterfly<kInverse, kP>(p, a, b, roots);
        C* out = y + q + s * p * j;
        out[0] = b[0];
        for (int t = 1; t < p; ++t) out[s * t] = Mul(b[t], w[t]);
      }
    }
  }

  // b = the p-point DFT of a.
  template <bool kInverse, int kP>
  static void Butterfly(int p, const C* a, C* b, const C* roots) {
    if constexpr (kP == 2) {
      b[0] = a[0] + a[1];
      b[1] = a[0] - a[1];
    } else if constexpr (kP == 3) {
      const T half = T(0.5), c = static_cast<T>(0.86602540378443864676);  // sin(pi / 3)
      const C sum = a[1] + a[2], mid = a[0] - sum * half;
      const C rot = Quarter<kInverse>((a[1] - a[2]) * c);
      b[0] = a[0] + sum;
      b[1] = mid + rot;
      b[2] = mid - rot;
    } else if constexpr (kP == 4) {
      const C e = a[0] + a[2], f = a[0] - a[2], g = a[1] + a[3];
      const C h = Quarter<kInverse>(a[1] - a[3]);
      b[0] = e + g;
      b[2] = e - g;
      b[1] = f + h;
      b[3] = f - h;
    } else if constexpr (kP == 5) {
      const T c1 = static_cast<T>(0.30901699437494742410), c2 = static_cast<T>(-0.80901699437494742410);
      const T s1 = static_cast<T>(0.95105651629515357212), s2 = static_cast<T>(0.58778525229247312917);
      const C s14 = a[1] + a[4], d14 = a[1] - a[4], s23 = a[2] + a[3], d23 = a[2] - a[3];
      const C m1 = a[0] + s14 * c1 + s23 * c2, m2 = a[0] + s14 * c2 + s23 * c1;
      const C r1 = Quarter<kInverse>(d14 * s1 + d23 * s2), r2 = Quarter<kInverse>(d14 * s2 - d23 * s1);
      b[0] = a[0] + s14 + s23;
      b[1] = m1 + r1;
      b[4] = m1 - r1;
      b[2] = m2 + r2;
      b[3] = m2 - r2;
    } else {
      // An odd prime: a_r w^{rt} + a_{p-r} w^{-rt} = (a_r + a_{p-r}) cos - i (a_r - a_{p-r}) sin
      // (+i inverse), so b_t and b_{p-t} share the sums and half the products.
      const int half = p / 2;
      C sums[kMaxGenericRadix], diffs[kMaxGenericRadix];
      C total = a[0];
      for (int r = 1; r <= half; ++r) {
        sums[r] = a[r] + a[p - r];
        diffs[r] = a[r] - a[p - r];
        total += sums[r];
      }
      b[0] = total;
      for (int t = 1; t <= half; ++t) {
        C even = a[0], odd(0, 0);
        for (int r = 1, k = t; r <= half; ++r) {  // k = r t mod p
          even += sums[r] * roots[k].real();
          odd -= diffs[r] * roots[k].imag();  // roots[k] = cos - i sin
          k += t;
          if (k >= p) k -= p;
        }
        const C rot = Quarter<kInverse>(odd);
        b[t] = even + rot;
        b[p - t] = even - rot;
      }
    }
  }

  int64_t n_;
  std::vector<Stage> stages_;
  std::vector<C> tw_, roots_;
};

}  // namespace cpu
}  // namespace opgen

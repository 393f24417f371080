// Row-major GEMM, C = op(A) @ op(B): float and double through OpenBLAS (the
// scipy-openblas32 wheel, whose CBLAS symbols carry a scipy_ prefix), half and
// bfloat16 as float GEMMs rounded once at the end, complex through OpenBLAS's complex
// GEMMs, integer types through a plain loop
// ordered for cache-friendly access (wrapping on overflow).
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "dtypes.h"

namespace opgen {
namespace cpu {

// float and double: OpenBLAS, single-threaded, with large products split into row or
// column blocks over the runtime's own pool (gemm.cc). OpenBLAS's own threads spin for a
// long time after each call, taking a core from every kernel that follows.
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
          float* c);
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b,
          double* c);

// complex64 and complex128: OpenBLAS's cgemm / zgemm. With `adjoint`, a transposed
// operand is also conjugated (BatchMatMulV2's adj_x / adj_y; MatMul only transposes).
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const std::complex<float>* a,
          const std::complex<float>* b, std::complex<float>* c, bool adjoint = false);
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const std::complex<double>* a,
          const std::complex<double>* b, std::complex<double>* c, bool adjoint = false);

// C += op(A) @ op(B) with explicit leading dimensions, on the calling thread only: for
// kernels that split the work over the pool themselves (each thread its own block of C).
void GemmAccumulate(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                    const float* b, int64_t ldb, float* c, int64_t ldc);
void GemmAccumulate(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                    const double* b, int64_t ldb, double* c, int64_t ldc);

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  if constexpr (kIsFloat16<T>) {
    std::vector<float> fa(static_cast<size_t>(m * k)), fb(static_cast<size_t>(k * n)),
        fc(static_cast<size_t>(m * n));
    for (size_t i = 0; i < fa.size(); ++i) fa[i] = Widen(a[i]);
    for (size_t i = 0; i < fb.size(); ++i) fb[i] = Widen(b[i]);
    Gemm(ta, tb, m, n, k, fa.data(), fb.data(), fc.data());
    for (size_t i = 0; i < fc.size(); ++i) c[i] = Narrow<T>(fc[i]);
    return;
  } else {
    for (int64_t i = 0; i < m * n; ++i) c[i] = T(0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) {
        const T av = ta ? a[p * m + i] : a[i * k + p];
        T* row = c + i * n;
        if (tb) {
          for (int64_t j = 0; j < n; ++j) row[j] = WrappingAdd(row[j], WrappingMul(av, b[j * k + p]));
        } else {
          const T* brow = b + p * n;
          for (int64_t j = 0; j < n; ++j) row[j] = WrappingAdd(row[j], WrappingMul(av, brow[j]));
        }
      }
    }
  }
}

}  // namespace cpu
}  // namespace opgen

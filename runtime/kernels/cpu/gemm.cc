// float, double, complex64 and complex128 GEMM through OpenBLAS, on the runtime's
// thread pool.
//
// OpenBLAS (scipy-openblas32) runs large products on threads of its own, which keep
// spinning for a long while after each call: on a 2-core machine the spinning thread held
// a core through the convolutions that followed a frozen model's one MatMul, leaving the
// runtime's pool one core (perf: a quarter of ResNet50's samples in blas_thread_server).
// So OpenBLAS is kept to one thread, and a product worth parallelising is split into
// blocks of rows (or of columns, when there are few rows) run as separate single-threaded
// GEMMs by ParallelFor: one pool for every kernel.
#include "gemm.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>

#include "parallel.h"

extern "C" void scipy_openblas_set_num_threads(int num_threads);

namespace opgen {
namespace cpu {
namespace {

void SingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] { scipy_openblas_set_num_threads(1); });
}

// Below this many multiply-adds a product runs as one call on the calling thread.
constexpr int64_t kParallelGemmWork = int64_t{1} << 20;

// Splits C = op(A) @ op(B) ([m, n], row-major, leading dimension n) into blocks and runs
// `block(ta, tb, rows, cols, k, a, lda, b, ldb, c)` on each; the A and B pointers are
// offset to the block's first row / column.
template <typename T, typename Block>
void SplitGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c,
               Block block) {
  SingleThreadedBlas();
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  const int64_t workers = ParallelWorkers();
  if (workers <= 1 || m * n * k < kParallelGemmWork) {
    block(m, n, a, b, c, lda, ldb);
    return;
  }
  if (m >= 4 * workers) {  // blocks of rows: A's rows (columns when transposed), C's rows
    const int64_t step = (m + workers - 1) / workers;
    RunTasks(workers, [&](int64_t w) {
      const int64_t r0 = w * step, rows = std::min(m, r0 + step) - r0;
      if (rows > 0) block(rows, n, a + (ta ? r0 : r0 * k), b, c + r0 * n, lda, ldb);
    });
  } else {  // blocks of columns: B's columns (rows when transposed), C's columns
    const int64_t step = ((n + workers - 1) / workers + 15) / 16 * 16;
    RunTasks(workers, [&](int64_t w) {
      const int64_t c0 = w * step, cols = std::min(n, c0 + step) - c0;
      if (cols > 0) block(m, cols, a, b + (tb ? c0 * k : c0), c + c0, lda, ldb);
    });
  }
}

}  // namespace

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
          float* c) {
  SplitGemm(ta, tb, m, n, k, a, b, c,
            [&](int64_t rows, int64_t cols, const float* pa, const float* pb, float* pc,
                int64_t lda, int64_t ldb) {
              scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                                tb ? CblasTrans : CblasNoTrans, rows, cols, k, 1.0f, pa, lda, pb,
                                ldb, 0.0f, pc, n);
            });
}

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b,
          double* c) {
  SplitGemm(ta, tb, m, n, k, a, b, c,
            [&](int64_t rows, int64_t cols, const double* pa, const double* pb, double* pc,
                int64_t lda, int64_t ldb) {
              scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                                tb ? CblasTrans : CblasNoTrans, rows, cols, k, 1.0, pa, lda, pb,
                                ldb, 0.0, pc, n);
            });
}

// The complex GEMMs take alpha and beta by address.
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const std::complex<float>* a,
          const std::complex<float>* b, std::complex<float>* c, bool adjoint) {
  const CBLAS_TRANSPOSE transposed = adjoint ? CblasConjTrans : CblasTrans;
  const std::complex<float> one(1), zero(0);
  SplitGemm(ta, tb, m, n, k, a, b, c,
            [&](int64_t rows, int64_t cols, const std::complex<float>* pa,
                const std::complex<float>* pb, std::complex<float>* pc, int64_t lda, int64_t ldb) {
              scipy_cblas_cgemm(CblasRowMajor, ta ? transposed : CblasNoTrans,
                                tb ? transposed : CblasNoTrans, rows, cols, k, &one, pa, lda, pb,
                                ldb, &zero, pc, n);
            });
}

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const std::complex<double>* a,
          const std::complex<double>* b, std::complex<double>* c, bool adjoint) {
  const CBLAS_TRANSPOSE transposed = adjoint ? CblasConjTrans : CblasTrans;
  const std::complex<double> one(1), zero(0);
  SplitGemm(ta, tb, m, n, k, a, b, c,
            [&](int64_t rows, int64_t cols, const std::complex<double>* pa,
                const std::complex<double>* pb, std::complex<double>* pc, int64_t lda,
                int64_t ldb) {
              scipy_cblas_zgemm(CblasRowMajor, ta ? transposed : CblasNoTrans,
                                tb ? transposed : CblasNoTrans, rows, cols, k, &one, pa, lda, pb,
                                ldb, &zero, pc, n);
            });
}

void GemmAccumulate(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                    const float* b, int64_t ldb, float* c, int64_t ldc) {
  SingleThreadedBlas();
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m,
                    n, k, 1.0f, a, lda, b, ldb, 1.0f, c, ldc);
}

void GemmAccumulate(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                    const double* b, int64_t ldb, double* c, int64_t ldc) {
  SingleThreadedBlas();
  scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m,
                    n, k, 1.0, a, lda, b, ldb, 1.0, c, ldc);
}

}  // namespace cpu
}  // namespace opgen

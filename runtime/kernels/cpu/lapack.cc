// LAPACKE's row-major drivers, called single-threaded (each kernel splits its batch over
// the runtime's pool instead, as gemm.cc does for products).
#include "lapack.h"

#include <complex>
#include <mutex>
#include <vector>

// LAPACKE's complex arguments as std::complex (layout-compatible with Fortran's).
#define LAPACK_COMPLEX_CUSTOM
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

extern "C" void scipy_openblas_set_num_threads(int num_threads);

namespace opgen {
namespace cpu {
namespace lapack {
namespace {

void SingleThreaded() {
  static std::once_flag once;
  std::call_once(once, [] { scipy_openblas_set_num_threads(1); });
}

constexpr int kRowMajor = LAPACK_ROW_MAJOR;

}  // namespace

int Gesdd(char jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt) {
  SingleThreaded();
  return scipy_LAPACKE_dgesdd(kRowMajor, jobz, m, n, a, n, s, u, ldu, vt, ldvt);
}
int Gesdd(char jobz, int m, int n, Z* a, double* s, Z* u, int ldu, Z* vt, int ldvt) {
  SingleThreaded();
  return scipy_LAPACKE_zgesdd(kRowMajor, jobz, m, n, a, n, s, u, ldu, vt, ldvt);
}
int Geqrf(int m, int n, double* a, int lda, double* tau) {
  SingleThreaded();
  return scipy_LAPACKE_dgeqrf(kRowMajor, m, n, a, lda, tau);
}
int Geqrf(int m, int n, Z* a, int lda, Z* tau) {
  SingleThreaded();
  return scipy_LAPACKE_zgeqrf(kRowMajor, m, n, a, lda, tau);
}
int Orgqr(int m, int n, int k, double* a, int lda, const double* tau) {
  SingleThreaded();
  return scipy_LAPACKE_dorgqr(kRowMajor, m, n, k, a, lda, tau);
}
int Orgqr(int m, int n, int k, Z* a, int lda, const Z* tau) {
  SingleThreaded();
  return scipy_LAPACKE_zungqr(kRowMajor, m, n, k, a, lda, tau);
}
int Syevd(char jobz, int n, double* a, double* w) {
  SingleThreaded();
  return scipy_LAPACKE_dsyevd(kRowMajor, jobz, 'L', n, a, n, w);
}
int Syevd(char jobz, int n, Z* a, double* w) {
  SingleThreaded();
  return scipy_LAPACKE_zheevd(kRowMajor, jobz, 'L', n, a, n, w);
}
int Gelsy(int m, int n, int nrhs, double* a, double* b, double rcond) {
  SingleThreaded();
  std::vector<lapack_int> jpvt(n, 0);
  lapack_int rank = 0;
  return scipy_LAPACKE_dgelsy(kRowMajor, m, n, nrhs, a, n, b, nrhs, jpvt.data(), rcond, &rank);
}
int Gelsy(int m, int n, int nrhs, Z* a, Z* b, double rcond) {
  SingleThreaded();
  std::vector<lapack_int> jpvt(n, 0);
  lapack_int rank = 0;
  return scipy_LAPACKE_zgelsy(kRowMajor, m, n, nrhs, a, n, b, nrhs, jpvt.data(), rcond, &rank);
}

}  // namespace lapack
}  // namespace cpu
}  // namespace opgen

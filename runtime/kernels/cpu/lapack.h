// The few LAPACK drivers the decomposition kernels use (linalg_decompositions.cc), from
// the OpenBLAS the runtime already links (scipy-openblas32: LAPACKE with a scipy_
// prefix, 32-bit integers). Row-major matrices, in double or complex double; each returns
// LAPACK's info (0 on success). Callers check that every size fits an int first.
#pragma once

#include <complex>

namespace opgen {
namespace cpu {
namespace lapack {

using Z = std::complex<double>;

// A = U diag(s) VT (gesdd); jobz 'A' (full U, VT), 'S' (reduced) or 'N' (s only).
int Gesdd(char jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt);
int Gesdd(char jobz, int m, int n, Z* a, double* s, Z* u, int ldu, Z* vt, int ldvt);
// A = Q R: R in A's upper triangle, Householder reflectors below and in tau (geqrf).
int Geqrf(int m, int n, double* a, int lda, double* tau);
int Geqrf(int m, int n, Z* a, int lda, Z* tau);
// The first n columns of Q (m x n) from geqrf's k reflectors, in place (orgqr / ungqr).
int Orgqr(int m, int n, int k, double* a, int lda, const double* tau);
int Orgqr(int m, int n, int k, Z* a, int lda, const Z* tau);
// Eigenvalues (ascending) and, with jobz 'V', eigenvectors (A's columns) of the
// Hermitian matrix whose lower triangle A holds (syevd / heevd).
int Syevd(char jobz, int n, double* a, double* w);
int Syevd(char jobz, int n, Z* a, double* w);
// The minimum-norm least-squares solution through a complete orthogonal factorization
// (gelsy): b (max(m, n) x nrhs) holds the rhs in its first m rows and the solution in its
// first n; columns of R below rcond relative to the largest are dropped.
int Gelsy(int m, int n, int nrhs, double* a, double* b, double rcond);
int Gelsy(int m, int n, int nrhs, Z* a, Z* b, double rcond);

}  // namespace lapack
}  // namespace cpu
}  // namespace opgen

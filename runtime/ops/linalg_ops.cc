// Core dense linear algebra (tf.linalg's inv, det, slogdet, cholesky, solve,
// triangular_solve), batched over leading dims. OpDefs as TensorFlow 2.21's.
#include <algorithm>
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

const char* const kLinalgTypes = "T: {double, float, half, complex64, complex128}";

// [..., n, n] with the two inner dims equal where both are known.
PartialShape SquareMatrices(ShapeFnContext& c, int i, const char* what) {
  PartialShape s = c.InputWithRankAtLeast(i, 2, what);
  if (!s.rank_known) return s;
  int64_t& r = s.dims[s.dims.size() - 2];
  int64_t& k = s.dims.back();
  if (r != kUnknownDim && k != kUnknownDim && r != k)
    Fail(std::string(what) + " must be square matrices, got " + s.ToString());
  if (r == kUnknownDim) r = k;
  if (k == kUnknownDim) k = r;
  return s;
}

void SquareShape(ShapeFnContext& c) { c.SetOutput(0, SquareMatrices(c, 0, "input")); }

// The batch dims: a determinant per matrix.
void DeterminantShape(ShapeFnContext& c) {
  const PartialShape s = SquareMatrices(c, 0, "input");
  const PartialShape batch = s.rank_known
      ? PartialShape::Of(std::vector<int64_t>(s.dims.begin(), s.dims.end() - 2))
      : PartialShape::Unknown();
  for (int i = 0; i < c.num_outputs(); ++i) c.SetOutput(i, batch);
}

// rhs's shape, its rows the matrix's size; the batch dims broadcast for the triangular
// solve, equal for MatrixSolve.
template <bool kBroadcast>
void SolveShape(ShapeFnContext& c) {
  const PartialShape a = SquareMatrices(c, 0, "matrix");
  PartialShape b = c.InputWithRankAtLeast(1, 2, "rhs");
  if (!a.rank_known || !b.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  const int64_t n = a.dims.back(), rows = b.dims[b.dims.size() - 2];
  if (n != kUnknownDim && rows != kUnknownDim && n != rows)
    Fail("matrix and rhs are incompatible: " + a.ToString() + " vs. " + b.ToString());
  std::vector<int64_t> ab(a.dims.begin(), a.dims.end() - 2), bb(b.dims.begin(), b.dims.end() - 2);
  std::vector<int64_t> batch;
  if (kBroadcast) {
    const size_t rank = std::max(ab.size(), bb.size());
    for (size_t i = 0; i < rank; ++i) {
      const int64_t x = i < rank - ab.size() ? 1 : ab[i - (rank - ab.size())];
      const int64_t y = i < rank - bb.size() ? 1 : bb[i - (rank - bb.size())];
      if (x != kUnknownDim && y != kUnknownDim && x != y && x != 1 && y != 1)
        Fail("matrix and rhs have incompatible batch dims: " + a.ToString() + " vs. " + b.ToString());
      batch.push_back(x == 1 ? y : y == 1 ? x : x == kUnknownDim ? y : x);
    }
  } else {
    if (ab.size() != bb.size()) Fail("matrix and rhs must have the same rank");
    for (size_t i = 0; i < ab.size(); ++i) batch.push_back(ab[i] == kUnknownDim ? bb[i] : ab[i]);
  }
  batch.push_back(n == kUnknownDim ? rows : n);
  batch.push_back(b.dims.back());
  c.SetOutput(0, PartialShape::Of(batch));
}

const std::pair<std::string, std::string> kInputDoc{"input", "Square matrices [..., M, M]."};

}  // namespace

void RegisterLinalgOps(TF_Status* status) {
  RegisterOps({
      {"MatrixInverse", {"adjoint: bool = false", kLinalgTypes}, {"input: T"}, {"output: T"},
       ShapeFn<SquareShape>, "The inverse of each square matrix (or of its adjoint).",
       "LU with partial pivoting; an exactly zero pivot is an InvalidArgument error.",
       {kInputDoc, {"output", "The inverses, [..., M, M]."},
        {"adjoint", "Invert the conjugate transpose instead."}}},
      {"MatrixDeterminant", {"T: {half, float, double, complex64, complex128}"}, {"input: T"},
       {"output: T"}, ShapeFn<DeterminantShape>, "The determinant of each square matrix.", "",
       {kInputDoc, {"output", "The determinants, [...]."}}},
      {"LogMatrixDeterminant", {"T: {half, float, double, complex64, complex128}"},
       {"input: T"}, {"sign: T", "log_abs_determinant: T"}, ShapeFn<DeterminantShape>,
       "The sign and the log of the absolute value of each square matrix's determinant.",
       "det = sign * exp(log_abs_determinant); a singular matrix gives sign 0 and -inf.",
       {kInputDoc, {"sign", "The signs (unit complex numbers for complex types)."},
        {"log_abs_determinant", "log |det|."}}},
      {"Cholesky", {"T: {double, float, half, complex64, complex128}"}, {"input: T"},
       {"output: T"}, ShapeFn<SquareShape>,
       "The Cholesky factor L (lower triangular, L L^H = input) of each matrix.",
       "Only the lower triangle of the input is read; a matrix that is not positive definite "
       "gives NaN.",
       {kInputDoc, {"output", "The lower triangular factors, [..., M, M]."}}},
      {"MatrixSolve", {"adjoint: bool = false", kLinalgTypes}, {"matrix: T", "rhs: T"},
       {"output: T"}, ShapeFn<SolveShape<false>>,
       "Solves matrix * output = rhs (or adjoint(matrix) * output = rhs) for each matrix.",
       "LU with partial pivoting; an exactly zero pivot is an InvalidArgument error.",
       {{"matrix", "Square matrices [..., M, M]."}, {"rhs", "[..., M, K]."},
        {"output", "[..., M, K]."}, {"adjoint", "Solve with the conjugate transpose."}}},
      {"MatrixTriangularSolve",
       {"lower: bool = true", "adjoint: bool = false",
        "T: {bfloat16, double, float, half, complex64, complex128}"},
       {"matrix: T", "rhs: T"}, {"output: T"}, ShapeFn<SolveShape<true>>,
       "Solves triangular systems matrix * output = rhs by substitution.",
       "Only the lower (or upper) triangle of matrix is read; the batch dims of matrix and "
       "rhs broadcast.",
       {{"matrix", "Square matrices [..., M, M]."}, {"rhs", "[..., M, K]."},
        {"output", "[..., M, K], the broadcast batch."},
        {"lower", "Whether matrix is lower (true) or upper (false) triangular."},
        {"adjoint", "Solve with the conjugate transpose."}}},
  }, status);
}

}  // namespace opgen

// The matrix decompositions (tf.linalg's svd, qr, eigh, lu, lstsq), batched over leading
// dims. OpDefs and shape functions as TensorFlow 2.21's; an output an attr turns off
// (Svd's u, v; SelfAdjointEigV2's v) has the static shape [0].
#include <algorithm>
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

const char* const kTypes = "T: {double, float, half, complex64, complex128}";

// batch + inner, or unknown when the rank is.
PartialShape Batch(const PartialShape& s, std::vector<int64_t> inner) {
  if (!s.rank_known) return PartialShape::Unknown();
  std::vector<int64_t> d(s.dims.begin(), s.dims.end() - 2);
  d.insert(d.end(), inner.begin(), inner.end());
  return PartialShape::Of(d);
}

int64_t MinDim(int64_t a, int64_t b) {
  return a == kUnknownDim || b == kUnknownDim ? kUnknownDim : std::min(a, b);
}

void SvdShape(ShapeFnContext& c) {
  const PartialShape s = c.InputWithRankAtLeast(0, 2, "input");
  const int64_t m = s.rank_known ? s.dims[s.dims.size() - 2] : kUnknownDim;
  const int64_t n = s.rank_known ? s.dims.back() : kUnknownDim;
  const int64_t p = MinDim(m, n);
  c.SetOutput(0, Batch(s, {p}));
  if (!c.AttrBool("compute_uv")) {
    c.SetOutput(1, PartialShape::Of({0}));
    c.SetOutput(2, PartialShape::Of({0}));
    return;
  }
  const bool full = c.AttrBool("full_matrices");
  c.SetOutput(1, Batch(s, {m, full ? m : p}));
  c.SetOutput(2, Batch(s, {n, full ? n : p}));
}

void QrShape(ShapeFnContext& c) {
  const PartialShape s = c.InputWithRankAtLeast(0, 2, "input");
  const int64_t m = s.rank_known ? s.dims[s.dims.size() - 2] : kUnknownDim;
  const int64_t n = s.rank_known ? s.dims.back() : kUnknownDim;
  const int64_t p = MinDim(m, n);
  const bool full = c.AttrBool("full_matrices");
  c.SetOutput(0, Batch(s, {m, full ? m : p}));
  c.SetOutput(1, Batch(s, {full ? m : p, n}));
}

// [..., n, n]: the square input and n, or unknown.
PartialShape Square(ShapeFnContext& c, int64_t* n) {
  const PartialShape s = c.InputWithRankAtLeast(0, 2, "input");
  *n = kUnknownDim;
  if (s.rank_known)
    *n = MergeDim(s.dims[s.dims.size() - 2], s.dims.back(), "input's inner dims (square matrices)");
  return s;
}

void SelfAdjointEigShape(ShapeFnContext& c) {
  int64_t n;
  const PartialShape s = Square(c, &n);
  c.SetOutput(0, Batch(s, {n}));
  c.SetOutput(1, c.AttrBool("compute_v") ? Batch(s, {n, n}) : PartialShape::Of({0}));
}

void LuShape(ShapeFnContext& c) {
  int64_t n;
  const PartialShape s = Square(c, &n);
  c.SetOutput(0, Batch(s, {n, n}));
  c.SetOutput(1, Batch(s, {n}));
}

// batch (merged) + [matrix cols, rhs cols]; the rows merge.
void SolveLsShape(ShapeFnContext& c) {
  const PartialShape a = c.InputWithRankAtLeast(0, 2, "matrix");
  const PartialShape b = c.InputWithRankAtLeast(1, 2, "rhs");
  c.InputWithRank(2, 0, "l2_regularizer");
  const PartialShape ab = a.rank_known ? Batch(a, {}) : PartialShape::Unknown();
  const PartialShape bb = b.rank_known ? Batch(b, {}) : PartialShape::Unknown();
  const PartialShape batch = MergeShapes(ab, bb, "the batch dims of matrix and rhs");
  if (a.rank_known && b.rank_known)
    MergeDim(a.dims[a.dims.size() - 2], b.dims[b.dims.size() - 2], "the rows of matrix and rhs");
  if (!batch.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  std::vector<int64_t> out = batch.dims;
  out.push_back(a.rank_known ? a.dims.back() : kUnknownDim);
  out.push_back(b.rank_known ? b.dims.back() : kUnknownDim);
  c.SetOutput(0, PartialShape::Of(out));
}

}  // namespace

void RegisterLinalgDecompositionOps(TF_Status* status) {
  RegisterOps({
      {"Svd", {"compute_uv: bool = true", "full_matrices: bool = false", kTypes}, {"input: T"},
       {"s: T", "u: T", "v: T"}, ShapeFn<SvdShape>,
       "The singular value decomposition input = u diag(s) v^H of each matrix.",
       "s is sorted in decreasing order (real values in T); without compute_uv, u and v are "
       "unused zero scalars.",
       {{"input", "Matrices [..., M, N]."}, {"s", "The singular values, [..., min(M, N)]."},
        {"u", "The left singular vectors, [..., M, M] or [..., M, min(M, N)]."},
        {"v", "The right singular vectors, [..., N, N] or [..., N, min(M, N)]."},
        {"compute_uv", "Whether to compute u and v."},
        {"full_matrices", "Whether u and v are square (else their columns are min(M, N))."}}},
      {"Qr", {"full_matrices: bool = false", kTypes}, {"input: T"}, {"q: T", "r: T"},
       ShapeFn<QrShape>, "The QR decomposition input = q r of each matrix.",
       "q has orthonormal columns, r is upper triangular (Householder reflections).",
       {{"input", "Matrices [..., M, N]."},
        {"q", "[..., M, M] or [..., M, min(M, N)]."}, {"r", "[..., M, N] or [..., min(M, N), N]."},
        {"full_matrices", "Whether q is square and r has M rows."}}},
      {"SelfAdjointEigV2", {"compute_v: bool = true", kTypes}, {"input: T"}, {"e: T", "v: T"},
       ShapeFn<SelfAdjointEigShape>,
       "The eigenvalues (ascending) and eigenvectors of each self-adjoint matrix.",
       "Only the lower triangle of the input is read; without compute_v, v is an unused zero "
       "scalar.",
       {{"input", "Self-adjoint matrices [..., N, N]."}, {"e", "The eigenvalues, [..., N]."},
        {"v", "The eigenvectors as columns, [..., N, N]."},
        {"compute_v", "Whether to compute the eigenvectors."}}},
      {"Lu", {kTypes, "output_idx_type: {int32, int64} = DT_INT32"}, {"input: T"},
       {"lu: T", "p: output_idx_type"}, ShapeFn<LuShape>,
       "The LU decomposition with partial pivoting, input[p] = L U, of each square matrix.",
       "L (unit diagonal, not stored) and U share the lu output; an exactly zero pivot is an "
       "InvalidArgument error.",
       {{"input", "Square matrices [..., N, N]."}, {"lu", "L below the diagonal, U on and above."},
        {"p", "The row permutation, [..., N]."}, {"output_idx_type", "The type of p."}}},
      {"MatrixSolveLs", {kTypes, "fast: bool = true"},
       {"matrix: T", "rhs: T", "l2_regularizer: double"}, {"output: T"}, ShapeFn<SolveLsShape>,
       "Solves the (regularized) linear least-squares problem min ||matrix x - rhs||.",
       "fast: the normal equations by Cholesky, with l2_regularizer added to the Gramian; "
       "otherwise a complete orthogonal factorization (minimum norm, l2_regularizer ignored).",
       {{"matrix", "[..., M, N]."}, {"rhs", "[..., M, K]."},
        {"l2_regularizer", "A scalar >= 0."}, {"output", "[..., N, K]."},
        {"fast", "Whether to solve the normal equations."}}},
  }, status);
}

}  // namespace opgen

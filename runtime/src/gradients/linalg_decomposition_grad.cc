// Gradients of the matrix decompositions, TensorFlow's formulas (linalg_grad.py) written
// with BatchMatMulV2's adjoint flags (A^H = conjugate transpose):
//   SelfAdjointEigV2: v (diag(ge) + f * v^H gv) v^H, f_ij = 1 / (e_j - e_i) off the
//                     diagonal; symmetrised into the lower triangle (the op reads it).
//   Svd:              Townsend's / Giles' formulas for the reduced factors (full ones
//                     when |M - N| <= 1), with the complex term; computed for A^H when M > N.
//   Qr:               the square-and-deep formula; a wide A splits into [X, Y].
//   MatrixSolveLs:    the normal equations' backprop (fast only), through a Cholesky of
//                     the regularized Gramian. Shapes must be static, as TensorFlow's.
// Lu has none (TensorFlow registers none).
#include <cstdlib>
#include <string>
#include <vector>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

bool IsComplex(TF_DataType t) { return t == TF_COMPLEX64 || t == TF_COMPLEX128; }

TF_Output MatMul(GradBuilder& b, TF_Output x, TF_Output y, bool adj_x = false, bool adj_y = false) {
  return b.Op("BatchMatMulV2", {x, y}, {{"adj_x", adj_x}, {"adj_y", adj_y}});
}

// The last two dims swapped (conjugated too with `conj`).
TF_Output Transposed(GradBuilder& b, TF_Output x, bool conj) {
  const int rank = b.Rank(x);
  TF_Output perm;
  if (rank >= 2) {
    std::vector<int32_t> p(rank);
    for (int i = 0; i < rank; ++i) p[i] = i;
    std::swap(p[rank - 1], p[rank - 2]);
    perm = b.Int32s(p);
  } else {
    const TF_Output r = b.Op("Rank", {x});
    const TF_Output one = b.Int32s({1});
    perm = b.Op("ConcatV2", {std::vector<TF_Output>{
                                 b.Op("Range", {b.Int32(0), b.Op("Sub", {r, b.Int32(2)}), b.Int32(1)}),
                                 b.Op("Reshape", {b.Op("Sub", {r, b.Int32(1)}), one}),
                                 b.Op("Reshape", {b.Op("Sub", {r, b.Int32(2)}), one})},
                             b.Int32(0)});
  }
  const TF_Output t = b.Op("Transpose", {x, perm});
  return conj && IsComplex(GradBuilder::dtype(x)) ? b.Op("Conj", {t}) : t;
}
TF_Output Adjoint(GradBuilder& b, TF_Output x) { return Transposed(b, x, true); }

TF_Output Zero(GradBuilder& b, TF_Output like) { return b.ScalarLike(0, like); }
TF_Output Diag(GradBuilder& b, TF_Output d) {
  return b.Op("MatrixDiagV3", {d, b.Int32(0), b.Int32(-1), b.Int32(-1), Zero(b, d)},
              {{"align", "RIGHT_LEFT"}});
}
TF_Output DiagPart(GradBuilder& b, TF_Output x) {
  return b.Op("MatrixDiagPartV3", {x, b.Int32(0), Zero(b, x)}, {{"align", "RIGHT_LEFT"}});
}
TF_Output SetDiag(GradBuilder& b, TF_Output x, TF_Output d) {
  return b.Op("MatrixSetDiagV3", {x, d, b.Int32(0)}, {{"align", "RIGHT_LEFT"}});
}
TF_Output BandPart(GradBuilder& b, TF_Output x, int lower, int upper) {
  return b.Op("MatrixBandPart", {x, b.Int32(lower), b.Int32(upper)});
}
TF_Output Add(GradBuilder& b, TF_Output x, TF_Output y) { return b.Op("AddV2", {x, y}); }
TF_Output Sub(GradBuilder& b, TF_Output x, TF_Output y) { return b.Op("Sub", {x, y}); }
TF_Output Mul(GradBuilder& b, TF_Output x, TF_Output y) { return b.Op("Mul", {x, y}); }

// x / (x^2 + 1e-20): TensorFlow's reciprocal that stays finite at 0.
TF_Output SafeReciprocal(GradBuilder& b, TF_Output x) {
  return Mul(b, x, b.Op("Reciprocal", {Add(b, Mul(b, x, x), b.ScalarLike(1e-20, x))}));
}

// f_ij = 1 / (d_j - d_i) off the diagonal, 0 on it.
TF_Output Gaps(GradBuilder& b, TF_Output d) {
  const TF_Output diff = Sub(b, b.Op("ExpandDims", {d, b.Int32(-2)}), b.Op("ExpandDims", {d, b.Int32(-1)}));
  return SetDiag(b, SafeReciprocal(b, diff), b.Op("ZerosLike", {d}));
}

// x[..., :, begin:begin+size] (size -1: to the end), whatever x's rank.
TF_Output Columns(GradBuilder& b, TF_Output x, int64_t begin, int64_t size) {
  const int32_t start = static_cast<int32_t>(begin), stop = static_cast<int32_t>(begin + size);
  return b.Op("StridedSlice", {x, b.Int32s({0, 0, start}), b.Int32s({0, 0, size < 0 ? 0 : stop}),
                               b.Int32s({1, 1, 1})},
              {{"ellipsis_mask", 1}, {"begin_mask", 2}, {"end_mask", size < 0 ? 6 : 2}});
}

void Unimplemented(GradBuilder& b, const std::string& why) {
  if (b.ok()) TF_SetStatus(b.status(), TF_UNIMPLEMENTED, why.c_str());
}

// The static [m, n] of x's last two dims, or false.
bool InnerDims(GradBuilder& b, TF_Output x, int64_t* m, int64_t* n) {
  const int rank = b.Rank(x);
  if (rank < 2) return false;
  std::vector<int64_t> dims(rank);
  TF_Status* s = TF_NewStatus();
  TF_GraphGetTensorShape(b.graph(), x, dims.data(), rank, s);
  const bool good = TF_GetCode(s) == TF_OK;
  TF_DeleteStatus(s);
  *m = dims[rank - 2];
  *n = dims[rank - 1];
  return good && *m >= 0 && *n >= 0;
}

void SelfAdjointEigV2Grad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output e = b.output(0), ge = b.grad(0);
  TF_Output grad_a;
  if (b.AttrBool("compute_v")) {
    const TF_Output v = b.output(1);
    const TF_Output inner = Add(b, Diag(b, ge), Mul(b, Gaps(b, e), MatMul(b, v, b.grad(1), true)));
    grad_a = MatMul(b, v, MatMul(b, inner, v, false, true));
  } else {
    const TF_Output v = TF_Output{b.Node("SelfAdjointEigV2", {b.input(0)}, {{"compute_v", true}}), 1};
    grad_a = MatMul(b, v, MatMul(b, Diag(b, ge), v, false, true));
  }
  grad_a = BandPart(b, Add(b, grad_a, Adjoint(b, grad_a)), -1, 0);
  b.Set(0, SetDiag(b, grad_a, Mul(b, b.ScalarLike(0.5, grad_a), DiagPart(b, grad_a))));
}

void SvdGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output a = b.input(0);
  const TF_Output grad_s_mat = Diag(b, b.grad(0));
  if (!b.AttrBool("compute_uv")) {
    TF_Operation* svd = b.Node("Svd", {a}, {{"compute_uv", true}, {"full_matrices", false}});
    const TF_Output u{svd, 1}, v{svd, 2};
    return b.Set(0, MatMul(b, u, MatMul(b, grad_s_mat, v, false, true)));
  }
  const bool full = b.AttrBool("full_matrices");
  int64_t m, n;
  if (!InnerDims(b, a, &m, &n))
    return Unimplemented(b, "SVD gradient has not been implemented for input with unknown inner "
                            "matrix shape.");
  TF_Output s = b.output(0), u = b.output(1), v = b.output(2), grad_u = b.grad(1), grad_v = b.grad(2);
  const bool use_adjoint = m > n;  // the gradient of A^H = V S U^H, adjointed at the end
  if (use_adjoint) {
    std::swap(m, n);
    std::swap(u, v);
    std::swap(grad_u, grad_v);
  }
  if (full && std::abs(m - n) > 1)
    return Unimplemented(b, "svd gradient is not implemented for abs(m - n) > 1 when "
                            "full_matrices is True. Received: m=" + std::to_string(m) +
                            " and n=" + std::to_string(n));
  const TF_Output s_mat = Diag(b, s);
  const TF_Output f = Gaps(b, Mul(b, s, s));
  const TF_Output s_inv_mat = Diag(b, SafeReciprocal(b, s));
  const TF_Output v1 = Columns(b, v, 0, m), grad_v1 = Columns(b, grad_v, 0, m);
  const TF_Output f_u = Mul(b, f, MatMul(b, u, grad_u, true));
  const TF_Output v_gv = MatMul(b, v1, grad_v1, true);
  const TF_Output f_v = Mul(b, f, v_gv);
  const TF_Output term1_nouv =
      Add(b, Add(b, grad_s_mat, MatMul(b, Add(b, f_u, Adjoint(b, f_u)), s_mat)),
          MatMul(b, s_mat, Add(b, f_v, Adjoint(b, f_v))));
  TF_Output grad = MatMul(b, u, MatMul(b, term1_nouv, v1, false, true));
  if (m != n) {
    const TF_Output gv1t = Adjoint(b, grad_v1);
    TF_Output term2_nous = Sub(b, gv1t, MatMul(b, MatMul(b, gv1t, v1), v1, false, true));
    if (full) {
      const TF_Output v2 = Columns(b, v, m, n - m), grad_v2 = Columns(b, grad_v, m, n - m);
      term2_nous = Sub(b, term2_nous, MatMul(b, MatMul(b, v1, grad_v2, true), v2, false, true));
    }
    grad = Add(b, grad, MatMul(b, MatMul(b, u, s_inv_mat), term2_nous));
  }
  if (IsComplex(GradBuilder::dtype(a))) {
    const TF_Output l = Diag(b, DiagPart(b, v_gv));
    const TF_Output term3_nouv = MatMul(b, s_inv_mat, Sub(b, Adjoint(b, l), l));
    grad = Add(b, grad, Mul(b, b.ScalarLike(0.5, a), MatMul(b, u, MatMul(b, term3_nouv, v1, false, true))));
  }
  b.Set(0, use_adjoint ? Adjoint(b, grad) : grad);
}

// x r^-H for the upper triangular r.
TF_Output TimesInverseAdjoint(GradBuilder& b, TF_Output x, TF_Output r) {
  return Adjoint(b, b.Op("MatrixTriangularSolve", {r, Adjoint(b, x)}, {{"lower", false}, {"adjoint", false}}));
}

TF_Output QrGradDeep(GradBuilder& b, TF_Output q, TF_Output r, TF_Output dq, TF_Output dr) {
  const TF_Output qdq = MatMul(b, q, dq, true);
  const TF_Output rdr = MatMul(b, r, dr, false, true);
  const TF_Output tril = BandPart(b, Add(b, Sub(b, qdq, Adjoint(b, qdq)), Sub(b, rdr, Adjoint(b, rdr))), -1, 0);
  TF_Output ret = Add(b, MatMul(b, q, Add(b, dr, TimesInverseAdjoint(b, tril, r))),
                      TimesInverseAdjoint(b, Sub(b, dq, MatMul(b, q, qdq)), r));
  if (IsComplex(GradBuilder::dtype(q))) {
    const TF_Output m = Sub(b, rdr, Adjoint(b, qdq));
    const TF_Output eyem = SetDiag(b, b.Op("ZerosLike", {m}), DiagPart(b, m));
    const TF_Output real = b.Op("Cast", {b.Op("Real", {eyem}, {{"Tout", GradBuilder::dtype(q) == TF_COMPLEX64 ? TF_FLOAT : TF_DOUBLE}})},
                                {{"DstT", GradBuilder::dtype(q)}});
    ret = Add(b, ret, TimesInverseAdjoint(b, MatMul(b, q, Sub(b, eyem, real), false, true), r));
  }
  return ret;
}

void QrGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output q = b.output(0), r = b.output(1);
  int64_t q_rows, q_cols, r_rows, r_cols;
  if (!InnerDims(b, r, &r_rows, &r_cols) || !InnerDims(b, q, &q_rows, &q_cols))
    return Unimplemented(b, "QrGrad not implemented with dynamic shapes.");
  if (r_rows > r_cols && q_rows == q_cols)
    return Unimplemented(b, "QrGrad not implemented when nrows > ncols and full_matrices is true.");
  if (q_rows >= r_cols) return b.Set(0, QrGradDeep(b, q, r, b.grad(0), b.grad(1)));
  // A = [X, Y] with X square: R = [U, V].
  const int64_t k = q_rows;
  const TF_Output y = Columns(b, b.input(0), k, -1), u = Columns(b, r, 0, k);
  const TF_Output dv = Columns(b, b.grad(1), k, -1), du = Columns(b, b.grad(1), 0, k);
  const TF_Output dy = MatMul(b, q, dv);
  const TF_Output dx = QrGradDeep(b, q, u, Add(b, b.grad(0), MatMul(b, y, dv, false, true)), du);
  b.Set(0, b.Op("ConcatV2", {std::vector<TF_Output>{dx, dy}, b.Int32(-1)}));
}

// The Cholesky factor of A^H A + l2 I (first kind) or A A^H + l2 I.
TF_Output GramianCholesky(GradBuilder& b, TF_Output a, TF_Output l2, bool first_kind) {
  const TF_Output gram = MatMul(b, a, a, first_kind, !first_kind);
  return b.Op("Cholesky", {SetDiag(b, gram, Add(b, DiagPart(b, gram), l2))});
}
TF_Output CholeskySolve(GradBuilder& b, TF_Output chol, TF_Output rhs) {
  const TF_Output y = b.Op("MatrixTriangularSolve", {chol, rhs}, {{"lower", true}, {"adjoint", false}});
  return b.Op("MatrixTriangularSolve", {chol, y}, {{"lower", true}, {"adjoint", true}});
}

void MatrixSolveLsGrad(GradBuilder& b) {
  if (!b.AttrBool("fast")) {
    if (b.ok()) TF_SetStatus(b.status(), TF_INVALID_ARGUMENT, "Gradient not defined for fast=False");
    return;
  }
  const TF_Output a = b.input(0), rhs = b.input(1), grad = b.grad(0);
  int64_t m, n;
  if (!InnerDims(b, a, &m, &n))
    return Unimplemented(b, "MatrixSolveLs's gradient needs the matrix's inner dims statically");
  const TF_Output l2 = b.Op("Cast", {b.input(2)}, {{"DstT", GradBuilder::dtype(a)}});
  TF_Output grad_a, grad_b;
  if (m >= n) {  // x = (A^H A + l2 I)^-1 A^H b
    const TF_Output chol = GramianCholesky(b, a, l2, true);
    const TF_Output z = CholeskySolve(b, chol, grad);
    const TF_Output xzt = MatMul(b, b.output(0), z, false, true);
    const TF_Output zx_sym = Add(b, xzt, Transposed(b, xzt, false));  // TensorFlow's: no conj
    grad_a = Add(b, b.Op("Neg", {MatMul(b, a, zx_sym)}), MatMul(b, rhs, z, false, true));
    grad_b = MatMul(b, a, z);
  } else {  // x = A^H (A A^H + l2 I)^-1 b
    const TF_Output chol = GramianCholesky(b, a, l2, false);
    grad_b = CholeskySolve(b, chol, MatMul(b, a, grad));
    const TF_Output tmp = CholeskySolve(b, chol, rhs);
    const TF_Output a1 = b.Op("Neg", {MatMul(b, grad_b, MatMul(b, tmp, a, true))});
    const TF_Output a2 = MatMul(b, tmp, Sub(b, grad, MatMul(b, a, grad_b, true)), false, true);
    grad_a = Add(b, a1, a2);
  }
  if (b.needs(0)) b.Set(0, grad_a);
  if (b.needs(1)) b.Set(1, grad_b);
}

}  // namespace

void RegisterLinalgDecompositionGradients() {
  RegisterGrad("SelfAdjointEigV2", SelfAdjointEigV2Grad);
  RegisterGrad("Svd", SvdGrad);
  RegisterGrad("Qr", QrGrad);
  RegisterGrad("MatrixSolveLs", MatrixSolveLsGrad);
}

}  // namespace gradients
}  // namespace opgen

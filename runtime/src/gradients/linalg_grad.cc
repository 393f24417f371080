// Gradients of the core linear-algebra ops, TensorFlow's formulas (linalg_grad.py),
// written with BatchMatMulV2's adjoint flags (A^H = conjugate transpose):
//   MatrixInverse:     -A^-H g A^-H  (adjoint: the adjoint flags swapped)
//   MatrixDeterminant: g * det * A^-H;   LogMatrixDeterminant: g_log * A^-H
//   MatrixSolve:       gb = solve(A^H, g); ga = -gb c^H (adjoint: -c gb^H)
//   MatrixTriangularSolve: the same with triangular solves, ga kept to A's triangle and
//                      summed over broadcast batch dims
//   Cholesky:          phi(L^H g) sandwiched by L^-1, symmetrised (Murray's formula)
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

TF_Output MatMul(GradBuilder& b, TF_Output x, TF_Output y, bool adj_x = false, bool adj_y = false) {
  return b.Op("BatchMatMulV2", {x, y}, {{"adj_x", adj_x}, {"adj_y", adj_y}});
}

void MatrixInverseGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const bool adjoint = b.AttrBool("adjoint");
  const TF_Output ainv = b.output(0);
  const TF_Output inner = MatMul(b, b.grad(0), ainv, adjoint, !adjoint);
  b.Set(0, b.Op("Neg", {MatMul(b, ainv, inner, !adjoint, false)}));
}

// [...] -> [..., 1, 1], to scale each matrix.
TF_Output PerMatrix(GradBuilder& b, TF_Output t) {
  return b.Op("ExpandDims", {b.Op("ExpandDims", {t, b.Int32(-1)}), b.Int32(-1)});
}

TF_Output InverseAdjoint(GradBuilder& b, TF_Output a) {
  return b.Op("MatrixInverse", {a}, {{"adjoint", true}});
}

void MatrixDeterminantGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output scale = PerMatrix(b, b.Op("Mul", {b.grad(0), b.output(0)}));
  b.Set(0, b.Op("Mul", {scale, InverseAdjoint(b, b.input(0))}));
}

// The sign's gradient does not count (TensorFlow's rule).
void LogMatrixDeterminantGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  b.Set(0, b.Op("Mul", {PerMatrix(b, b.grad(1)), InverseAdjoint(b, b.input(0))}));
}

void SolveGrad(GradBuilder& b, bool triangular) {
  const bool adjoint = b.AttrBool("adjoint");
  const TF_Output a = b.input(0), c = b.output(0);
  const TF_Output grad_b =
      triangular ? b.Op("MatrixTriangularSolve", {a, b.grad(0)},
                        {{"lower", b.AttrBool("lower")}, {"adjoint", !adjoint}})
                 : b.Op("MatrixSolve", {a, b.grad(0)}, {{"adjoint", !adjoint}});
  if (b.needs(0)) {
    TF_Output grad_a = b.Op("Neg", {adjoint ? MatMul(b, c, grad_b, false, true)
                                            : MatMul(b, grad_b, c, false, true)});
    if (triangular) {
      const bool lower = b.AttrBool("lower");
      grad_a = b.Op("MatrixBandPart", {grad_a, b.Int32(lower ? -1 : 0), b.Int32(lower ? 0 : -1)});
    }
    b.Set(0, triangular ? b.SumToShapeOf(grad_a, a) : grad_a);
  }
  if (b.needs(1)) b.Set(1, triangular ? b.SumToShapeOf(grad_b, b.input(1)) : grad_b);
}

void MatrixSolveGrad(GradBuilder& b) { SolveGrad(b, false); }
void MatrixTriangularSolveGrad(GradBuilder& b) { SolveGrad(b, true); }

void CholeskyGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output l = b.output(0);
  const TF_Output eye = b.Op("MatrixBandPart", {b.Op("OnesLike", {l}), b.Int32(0), b.Int32(0)});
  const TF_Output l_inv = b.Op("MatrixTriangularSolve", {l, eye}, {{"lower", true}, {"adjoint", false}});
  TF_Output middle = MatMul(b, l, b.grad(0), true, false);
  const TF_Output zero = b.Op("Cast", {b.Int32(0)}, {{"DstT", GradBuilder::dtype(l)}});
  const TF_Output half_diag = b.Op("Mul", {b.Op("MatrixDiagPartV3", {middle, b.Int32(0), zero}),
                                           b.ScalarLike(0.5, l)});
  middle = b.Op("MatrixSetDiagV3", {middle, half_diag, b.Int32(0)});
  middle = b.Op("MatrixBandPart", {middle, b.Int32(-1), b.Int32(0)});
  TF_Output grad_a = MatMul(b, MatMul(b, l_inv, middle, true, false), l_inv);
  grad_a = b.Op("AddV2", {grad_a, MatMul(b, eye, grad_a, false, true)});  // + grad_a^H
  b.Set(0, b.Op("Mul", {grad_a, b.ScalarLike(0.5, l)}));
}

}  // namespace

void RegisterLinalgGradients() {
  RegisterGrad("MatrixInverse", MatrixInverseGrad);
  RegisterGrad("MatrixDeterminant", MatrixDeterminantGrad);
  RegisterGrad("LogMatrixDeterminant", LogMatrixDeterminantGrad);
  RegisterGrad("MatrixSolve", MatrixSolveGrad);
  RegisterGrad("MatrixTriangularSolve", MatrixTriangularSolveGrad);
  RegisterGrad("Cholesky", CholeskyGrad);
}

}  // namespace gradients
}  // namespace opgen

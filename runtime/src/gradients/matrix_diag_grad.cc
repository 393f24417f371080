// Gradients of the diagonal-band ops, Diag / DiagPart and L2Loss. The band ops only move elements, so each
// gradient moves the output's gradient back with the other band op of the same k and
// align: MatrixDiagV3 <-> MatrixDiagPartV3 (padding 0), MatrixSetDiagV3 splits it into the
// part outside the band (input) and the band (diagonal). k, the sizes and the padding
// value get none, as in TensorFlow.
#include <string>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

TF_Output Zero(GradBuilder& b, TF_Output like) {
  return b.Op("Cast", {b.Int32(0)}, {{"DstT", GradBuilder::dtype(like)}});
}

void MatrixDiagV3Grad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output g = b.grad(0);
  b.Set(0, b.Op("MatrixDiagPartV3", {g, b.input(1), Zero(b, g)}, {{"align", b.AttrString("align")}}));
}

void MatrixDiagPartV3Grad(GradBuilder& b) {
  if (!b.needs(0)) return;
  b.Set(0, b.Op("MatrixSetDiagV3", {b.Op("ZerosLike", {b.input(0)}), b.grad(0), b.input(1)},
                {{"align", b.AttrString("align")}}));
}

void MatrixSetDiagV3Grad(GradBuilder& b) {
  const TF_Output g = b.grad(0), k = b.input(2);
  const std::string align = b.AttrString("align");
  if (b.needs(0))
    b.Set(0, b.Op("MatrixSetDiagV3", {g, b.Op("ZerosLike", {b.input(1)}), k}, {{"align", align}}));
  if (b.needs(1)) b.Set(1, b.Op("MatrixDiagPartV3", {g, k, Zero(b, g)}, {{"align", align}}));
}

// Diag and DiagPart are each other's adjoint (TensorFlow's pair of gradients).
void DiagGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("DiagPart", {b.grad(0)}));
}
void DiagPartGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("Diag", {b.grad(0)}));
}

// d(sum(t^2) / 2) = t * grad.
void L2LossGrad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("Mul", {b.input(0), b.grad(0)}));
}

}  // namespace

void RegisterMatrixDiagGradients() {
  RegisterGrad("MatrixDiagV3", MatrixDiagV3Grad);
  RegisterGrad("MatrixDiagPartV3", MatrixDiagPartV3Grad);
  RegisterGrad("MatrixSetDiagV3", MatrixSetDiagV3Grad);
  RegisterGrad("L2Loss", L2LossGrad);
  RegisterGrad("Diag", DiagGrad);
  RegisterGrad("DiagPart", DiagPartGrad);
}

}  // namespace gradients
}  // namespace opgen

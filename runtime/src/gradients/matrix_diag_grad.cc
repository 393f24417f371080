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

// The V2 forms (always LEFT_LEFT) over V2 ops, so the band's layout is the forward op's.
// TensorFlow's V2 gradients call the V3 ops with their default RIGHT_LEFT instead, which
// differs only for bands of diagonals of unequal length.
void MatrixDiagV2Grad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("MatrixDiagPartV2", {b.grad(0), b.input(1), Zero(b, b.grad(0))}));
}
void MatrixDiagPartV2Grad(GradBuilder& b) {
  if (b.needs(0))
    b.Set(0, b.Op("MatrixSetDiagV2", {b.Op("ZerosLike", {b.input(0)}), b.grad(0), b.input(1)}));
}
void MatrixSetDiagV2Grad(GradBuilder& b) {
  const TF_Output g = b.grad(0), k = b.input(2);
  if (b.needs(0)) b.Set(0, b.Op("MatrixSetDiagV2", {g, b.Op("ZerosLike", {b.input(1)}), k}));
  if (b.needs(1)) b.Set(1, b.Op("MatrixDiagPartV2", {g, k, Zero(b, g)}));
}

// The v1 forms: the main diagonal.
void MatrixDiagV1Grad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("MatrixDiagPart", {b.grad(0)}));
}
void MatrixDiagPartV1Grad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("MatrixSetDiag", {b.Op("ZerosLike", {b.input(0)}), b.grad(0)}));
}
void MatrixSetDiagV1Grad(GradBuilder& b) {
  if (b.needs(0)) b.Set(0, b.Op("MatrixSetDiag", {b.grad(0), b.Op("ZerosLike", {b.input(1)})}));
  if (b.needs(1)) b.Set(1, b.Op("MatrixDiagPart", {b.grad(0)}));
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
  RegisterGrad("MatrixDiagV2", MatrixDiagV2Grad);
  RegisterGrad("MatrixDiagPartV2", MatrixDiagPartV2Grad);
  RegisterGrad("MatrixSetDiagV2", MatrixSetDiagV2Grad);
  RegisterGrad("MatrixDiag", MatrixDiagV1Grad);
  RegisterGrad("MatrixDiagPart", MatrixDiagPartV1Grad);
  RegisterGrad("MatrixSetDiag", MatrixSetDiagV1Grad);
  RegisterGrad("L2Loss", L2LossGrad);
  RegisterGrad("Diag", DiagGrad);
  RegisterGrad("DiagPart", DiagPartGrad);
}

}  // namespace gradients
}  // namespace opgen

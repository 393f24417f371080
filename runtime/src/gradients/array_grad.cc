// Gradients of the ops that move or rename values: Identity, IdentityN, Reshape,
// ExpandDims, Squeeze, Transpose, and ReadVariableOp (whose gradient reaches the
// variable's handle unchanged, as in TensorFlow: gradients "with respect to a variable"
// are those with respect to its handle).
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

void IdentityGrad(GradBuilder& b) { b.Set(0, b.grad(0)); }

void IdentityNGrad(GradBuilder& b) {
  for (int i = 0; i < b.num_inputs(); ++i)
    if (b.needs(i)) b.Set(i, b.grad(i));
}

// Reshape, ExpandDims, Squeeze: the gradient takes the input's shape back.
void ReshapeGrad(GradBuilder& b) {
  b.Set(0, b.Op("Reshape", {b.grad(0), b.ShapeOf(b.input(0))}));
}

// The gradient transposed by the inverse permutation: a constant when perm is one, else
// the indices that sort perm (TopKV2 of -perm).
void TransposeGrad(GradBuilder& b) {
  const TF_Output perm = b.input(1);
  std::vector<int64_t> p;
  TF_Output inverse;
  if (GradBuilder::ConstInts(perm, &p)) {
    std::vector<int32_t> inv(p.size());
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] >= 0 && p[i] < static_cast<int64_t>(p.size())) inv[p[i]] = static_cast<int32_t>(i);
    inverse = b.Int32s(inv);
  } else {
    const TF_Output p32 = b.Op("Cast", {perm}, {{"DstT", TF_INT32}});
    TF_Operation* top = b.Node("TopKV2", {b.Op("Neg", {p32}), b.Op("Size", {p32})});
    if (!b.ok()) return;
    inverse = TF_Output{top, 1};
  }
  b.Set(0, b.Op("Transpose", {b.grad(0), inverse}));
}

}  // namespace

void RegisterArrayGradients() {
  RegisterGrad("Identity", IdentityGrad);
  RegisterGrad("IdentityN", IdentityNGrad);
  RegisterGrad("ReadVariableOp", IdentityGrad);
  RegisterGrad("Reshape", ReshapeGrad);
  RegisterGrad("ExpandDims", ReshapeGrad);
  RegisterGrad("Squeeze", ReshapeGrad);
  RegisterGrad("Transpose", TransposeGrad);
}

}  // namespace gradients
}  // namespace opgen

// Gradients of the neural-network ops: Softmax and LogSoftmax (over the last axis).
#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// s = softmax(x): dx = (ds - sum(ds * s, -1)) * s.
void SoftmaxGrad(GradBuilder& b) {
  const TF_Output s = b.output(0), ds = b.grad(0);
  const TF_Output dot = b.Op("Sum", {b.Op("Mul", {ds, s}), b.Int32(-1)}, {{"keep_dims", true}});
  b.Set(0, b.Op("Mul", {b.Op("Sub", {ds, dot}), s}));
}

// l = log_softmax(x): dx = dl - sum(dl, -1) * exp(l).
void LogSoftmaxGrad(GradBuilder& b) {
  const TF_Output l = b.output(0), dl = b.grad(0);
  const TF_Output total = b.Op("Sum", {dl, b.Int32(-1)}, {{"keep_dims", true}});
  b.Set(0, b.Op("Sub", {dl, b.Op("Mul", {total, b.Op("Exp", {l})})}));
}

}  // namespace

void RegisterNnGradients() {
  RegisterGrad("Softmax", SoftmaxGrad);
  RegisterGrad("LogSoftmax", LogSoftmaxGrad);
}

}  // namespace gradients
}  // namespace opgen

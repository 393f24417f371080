// Activations: Relu, Relu6, Tanh, Sigmoid, Softplus, Elu, Selu, Softsign.
// The CPU kernels; the ops and the broadcasting loops are elementwise_ops.h.
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {

void RegisterElementwiseActivationKernels(TF_Status* status) {
  RegisterUnary<ReluOp, Reals>("Relu", status);
  RegisterUnary<Relu6Op, Reals>("Relu6", status);
  RegisterUnary<TanhOp, FloatsAndComplex>("Tanh", status);
  RegisterUnary<SigmoidOp, FloatsAndComplex>("Sigmoid", status);
  RegisterUnary<SoftplusOp, Floats>("Softplus", status);
  RegisterUnary<EluOp, Floats>("Elu", status);
  RegisterUnary<SeluOp, Floats>("Selu", status);
  RegisterUnary<SoftsignOp, Floats>("Softsign", status);
}

}  // namespace cpu
}  // namespace opgen

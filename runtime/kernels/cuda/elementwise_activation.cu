// Activations: Relu, Relu6, Tanh, Sigmoid, Softplus, Elu, Selu, Softsign.
// The CUDA kernels; the ops and the launch machinery are elementwise_ops.cuh.
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {

void RegisterElementwiseActivationKernels(TF_Status* status) {
  RegisterUnary<ReluOp>("Relu", Reals(), status);
  RegisterUnary<Relu6Op>("Relu6", Reals(), status);
  RegisterUnary<TanhOp>("Tanh", FloatsAndComplex(), status);
  RegisterUnary<SigmoidOp>("Sigmoid", FloatsAndComplex(), status);
  RegisterUnary<SoftplusOp>("Softplus", Floats(), status);
  RegisterUnary<EluOp>("Elu", Floats(), status);
  RegisterUnary<SeluOp>("Selu", Floats(), status);
  RegisterUnary<SoftsignOp>("Softsign", Floats(), status);
}

}  // namespace cuda
}  // namespace opgen

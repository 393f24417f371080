// LeakyRelu on the GPU: x where x > 0, alpha * x elsewhere, alpha read once
// (../misc_spec.h); it runs on the elementwise launch machinery (elementwise_ops.cuh).
// Twin of ../cpu/leaky_relu.cc.
#include "cuda_kernels.h"
#include "elementwise_ops.cuh"

namespace opgen {
namespace cuda {

void RegisterLeakyReluKernels(TF_Status* status) { RegisterLeakyRelu("LeakyRelu", Floats(), status); }

}  // namespace cuda
}  // namespace opgen

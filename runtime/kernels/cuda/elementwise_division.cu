// Division and powers with numpy broadcasting: RealDiv, Div, FloorDiv, FloorMod, Pow,
// DivNoNan.
// The CUDA kernels; the ops and the launch machinery are elementwise_ops.cuh.
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {

void RegisterElementwiseDivisionKernels(TF_Status* status) {
  RegisterBinary<DivOp>("RealDiv", RealsAndComplex(), status);
  RegisterBinary<DivOp>("Div", RealsAndComplex(), status);
  RegisterBinary<FloorDivOp>("FloorDiv", Reals(), status);
  RegisterBinary<FloorModOp>("FloorMod", Reals(), status);
  RegisterBinary<PowOp>("Pow", PowTypes(), status);
  RegisterBinary<DivNoNanOp>("DivNoNan", FloatsAndComplex(), status);
}

}  // namespace cuda
}  // namespace opgen

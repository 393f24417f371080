// Division and powers with numpy broadcasting: RealDiv, Div, FloorDiv, FloorMod, Pow,
// DivNoNan.
// The CPU kernels; the ops and the broadcasting loops are elementwise_ops.h.
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {

void RegisterElementwiseDivisionKernels(TF_Status* status) {
  // TensorFlow has no integer RealDiv kernel on the CPU; ours divides as Div does.
  RegisterBinary<DivOp, RealsAndComplex>("RealDiv", status);
  RegisterBinary<DivOp, RealsAndComplex>("Div", status);
  RegisterBinary<FloorDivOp, Reals>("FloorDiv", status);
  RegisterBinary<FloorModOp, Reals>("FloorMod", status);
  RegisterBinary<PowOp, PowTypes>("Pow", status);
  RegisterBinary<DivNoNanOp, FloatsAndComplex>("DivNoNan", status);
}

}  // namespace cpu
}  // namespace opgen

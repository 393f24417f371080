// Binary arithmetic with numpy broadcasting: AddV2, Add, Sub, Mul, Maximum,
// Minimum, SquaredDifference, and AddN and ClipByValue.
// The CPU kernels; the ops and the broadcasting loops are elementwise_ops.h.
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {

void RegisterElementwiseArithmeticKernels(TF_Status* status) {
  RegisterBinary<AddOp, RealsAndComplex>("AddV2", status);
  RegisterBinary<AddOp, AddTypes>("Add", status);
  RegisterBinary<SubOp, RealsAndComplex>("Sub", status);
  RegisterBinary<MulOp, RealsAndComplex>("Mul", status);
  RegisterBinary<MaximumOp, Reals>("Maximum", status);
  RegisterBinary<MinimumOp, Reals>("Minimum", status);
  RegisterBinary<SquaredDifferenceOp, SquaredDifferenceTypes>("SquaredDifference", status);
  RegisterForTypes<Ternary<ClipOp>::Kernel>(kDevice, "ClipByValue", ClipTypes(), status);
  RegisterForTypes<AddNKernel>(kDevice, "AddN", RealsAndComplex(), status);
  // TensorFlow rewrites AccumulateNV2 into other ops before running it; the sum is AddN's.
  RegisterForTypes<AddNKernel>(kDevice, "AccumulateNV2", RealsAndComplex(), status);
}

}  // namespace cpu
}  // namespace opgen

// Binary arithmetic with numpy broadcasting: AddV2, Add, Sub, Mul, Maximum,
// Minimum, SquaredDifference, and AddN and ClipByValue.
// The CUDA kernels; the ops and the launch machinery are elementwise_ops.cuh.
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {

void RegisterElementwiseArithmeticKernels(TF_Status* status) {
  RegisterBinary<AddOp>("AddV2", RealsAndComplex(), status);
  RegisterBinary<AddOp>("Add", AddTypes(), status);
  RegisterBinary<SubOp>("Sub", RealsAndComplex(), status);
  RegisterBinary<MulOp>("Mul", RealsAndComplex(), status);
  RegisterBinary<MaximumOp>("Maximum", Reals(), status);
  RegisterBinary<MinimumOp>("Minimum", Reals(), status);
  RegisterBinary<SquaredDifferenceOp>("SquaredDifference", SquaredDifferenceTypes(), status);
  RegisterClip("ClipByValue", ClipTypes(), status);
  RegisterAddN("AddN", RealsAndComplex(), status);
  // TensorFlow rewrites AccumulateNV2 into other ops before running it; the sum is AddN's.
  RegisterAddN("AccumulateNV2", RealsAndComplex(), status);
}

}  // namespace cuda
}  // namespace opgen

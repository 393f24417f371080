// Binary arithmetic with numpy broadcasting: AddV2, Add, Sub, Mul, Maximum,
// Minimum, SquaredDifference, and AddN (AccumulateNV2) and ClipByValue.
// The CUDA kernels; the ops and the launch machinery are elementwise_ops.cuh.
#include "../debug_spec.h"
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

// AccumulateNV2: AddN's sum of inputs that fit the declared `shape` (as on the CPU).
template <typename T>
void AccumulateNV2Compute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr first = Input(ctx, 0);
  if (!first || !kernels::CheckExpectedShape(ctx, *static_cast<kernels::ExpectedShape*>(state),
                                             Dims(first.get())))
    return;
  AddNCompute<T>(nullptr, ctx);
}

template <typename... Ts>
void RegisterAccumulateNV2(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"AccumulateNV2", {{"T", DtypeOf<Ts>::value}}, {},
                            &AccumulateNV2Compute<Ts>, kernels::CreateExpectedShape,
                            kernels::DeleteExpectedShape}, status), ...);
}

}  // namespace

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
  RegisterAccumulateNV2(RealsAndComplex(), status);
}

}  // namespace cuda
}  // namespace opgen

// Binary arithmetic with numpy broadcasting: AddV2, Add, Sub, Mul, Maximum,
// Minimum, SquaredDifference, and AddN (AccumulateNV2) and ClipByValue.
// The CPU kernels; the ops and the broadcasting loops are elementwise_ops.h.
#include "../debug_spec.h"
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {
namespace {

// AccumulateNV2: AddN's sum of inputs that fit the declared `shape` (its shape function
// reports that shape, so a kernel result of another would contradict it).
template <typename T>
struct AccumulateNV2Kernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const TF_Tensor* first = BorrowInput(ctx, 0);
    if (!first || !kernels::CheckExpectedShape(ctx, *static_cast<kernels::ExpectedShape*>(state),
                                               Dims(first)))
      return;
    AddNKernel<T>::Compute(nullptr, ctx);
  }
};

template <typename... Ts>
void RegisterAccumulateNV2(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"AccumulateNV2", {{"T", DtypeOf<Ts>::value}}, {},
                            &AccumulateNV2Kernel<Ts>::Compute, kernels::CreateExpectedShape,
                            kernels::DeleteExpectedShape}, status), ...);
}

}  // namespace

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
  RegisterAccumulateNV2(RealsAndComplex(), status);
}

}  // namespace cpu
}  // namespace opgen

// Registration of every built-in CPU kernel family (kernel_util.h lists them).
#include "cpu_kernels.h"

#include "kernel_util.h"

namespace opgen {
namespace cpu {
// math_grad.cc: BroadcastGradientArgs, SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad,
// ReciprocalGrad (declared here rather than in kernel_util.h, which every family includes).
  void RegisterMathGradKernels(TF_Status* status);
}  // namespace cpu
}  // namespace opgen
// training.cc: ResourceApplyGradientDescent, ResourceApplyMomentum, ResourceApplyKerasMomentum,
// ResourceApplyAdam (declared here rather than with the others in kernel_util.h, which
// every kernel file includes)
namespace opgen::cpu { void RegisterTrainingKernels(TF_Status* status); }

void opgen_register_cpu_kernels(TF_Status* status) {
  using namespace opgen::cpu;
  for (auto family : {
      RegisterArrayKernels,
      RegisterBatchNormKernels,
      RegisterBoolReductionKernels,
      RegisterCastKernels,
      RegisterConcatSplitKernels,
      RegisterConstKernels,
      RegisterControlFlowKernels,
      RegisterConvFamilyKernels,
      RegisterConvPoolKernels,
      RegisterEinsumKernels,
      RegisterElementwiseActivationKernels,
      RegisterElementwiseArithmeticKernels,
      RegisterElementwiseCompareKernels,
      RegisterElementwiseDivisionKernels,
      RegisterElementwiseMathKernels,
      RegisterForwardKernels,
      RegisterFusedKernels,
      RegisterImageKernels,
      RegisterLeakyReluKernels,
      RegisterMatMulKernels,
      RegisterMathGradKernels,
      RegisterNnKernels,
      RegisterPlaceholderKernels,
      RegisterReductionKernels,
      RegisterResourceVariableKernels,
      RegisterScanTopKKernels,
    RegisterSelectV1Kernels,
      RegisterSlicingKernels,
      RegisterSpaceKernels,
      RegisterSplitOneHotKernels,
      RegisterTensorListKernels,
      RegisterTrainingKernels}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}

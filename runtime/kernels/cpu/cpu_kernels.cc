// Registration of every built-in CPU kernel family (kernel_util.h lists them).
#include "cpu_kernels.h"

#include "grad_kernels.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
// math_grad.cc: BroadcastGradientArgs, SigmoidGrad, TanhGrad, SqrtGrad, RsqrtGrad,
// ReciprocalGrad (declared here rather than in kernel_util.h, which every family includes).
  void RegisterMathGradKernels(TF_Status* status);
}  // namespace cpu
}  // namespace opgen

void opgen_register_cpu_kernels(TF_Status* status) {
  using namespace opgen::cpu;
  for (auto family : {
      RegisterActivationGradKernels,
      RegisterArrayGradKernels,
      RegisterArrayKernels,
      RegisterBatchNormKernels,
      RegisterBoolReductionKernels,
      RegisterCastKernels,
      RegisterCheckpointKernels,
      RegisterComplexKernels,
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
      RegisterNnGradKernels,
      RegisterPlaceholderKernels,
      RegisterReductionKernels,
      RegisterResourceVariableKernels,
      RegisterScanTopKKernels,
    RegisterSelectV1Kernels,
      RegisterSlicingKernels,
      RegisterSpaceKernels,
      RegisterSplitOneHotKernels,
      RegisterStringKernels,
      RegisterTensorListKernels,
      RegisterTrainingKernels,
      RegisterBatchNormGradKernels,
      RegisterConvGradKernels,
      RegisterImageGradKernels,
      RegisterPoolGradKernels}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}

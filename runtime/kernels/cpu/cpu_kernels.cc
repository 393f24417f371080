// Registration of every built-in CPU kernel family (kernel_util.h lists them).
#include "cpu_kernels.h"

#include "kernel_util.h"

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
      RegisterResizeCubicAreaKernels,
      RegisterMatrixBandBucketizeKernels,
      RegisterPool3DKernels,
      RegisterLeakyReluKernels,
      RegisterMatMulKernels,
      RegisterMathGradKernels,
      RegisterNnKernels,
      RegisterNnGradKernels,
      RegisterPlaceholderKernels,
      RegisterRandomKernels,
      RegisterReductionKernels,
      RegisterResourceVariableKernels,
      RegisterScanTopKKernels,
    RegisterSelectV1Kernels,
      RegisterSlicingKernels,
      RegisterSpaceKernels,
      RegisterSplitOneHotKernels,
      RegisterStringKernels,
      RegisterStringTextKernels,
      RegisterLookupTableKernels,
      RegisterRaggedKernels,
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

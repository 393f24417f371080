// Registration of every built-in CPU kernel family (kernel_util.h lists them).
#include "cpu_kernels.h"

#include "kernel_util.h"

namespace opgen {
namespace cpu {
// pool3d_grad.cc: MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad. Declared here, not
// with the other families in kernel_util.h, so that adding it rebuilt one file.
void RegisterPool3DGradKernels(TF_Status*);
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
      RegisterResizeCubicAreaKernels,
      RegisterMatrixBandBucketizeKernels,
      RegisterPool3DKernels,
      RegisterPool3DGradKernels,
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

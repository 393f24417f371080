// Registration of every built-in CPU kernel family (kernel_util.h and preprocessing_kernels.h list them).
#include "cpu_kernels.h"

#include "kernel_util.h"
#include "preprocessing_kernels.h"

// random_host.cc: RandomShuffle, Multinomial (declared here, not in kernel_util.h, which every
// kernel file includes).
namespace opgen::cpu { void RegisterRandomHostKernels(TF_Status* status); }

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
      RegisterElementwiseSpecialKernels,
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
      RegisterRandomHostKernels,
      RegisterReductionKernels,
      RegisterResourceVariableKernels,
      RegisterScanTopKKernels,
    RegisterSelectV1Kernels,
      RegisterSlicingKernels,
      RegisterSpaceKernels,
      RegisterSplitOneHotKernels,
      RegisterStringKernels,
      RegisterAsStringKernels,
      RegisterStringHashKernels,
      RegisterBincountKernels,
      RegisterScaleTranslateKernels,
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

// Registration of every built-in CPU kernel family.
#include "cpu_kernels.h"

#include "kernel_util.h"

namespace opgen::cpu {
void RegisterPlaceholderKernels(TF_Status* status);  // placeholder.cc
void RegisterFusedKernels(TF_Status* status);        // fused.cc: the optimizer's _Opgen* ops
}

void opgen_register_cpu_kernels(TF_Status* status) {
  using namespace opgen::cpu;
  for (auto family : {RegisterArrayKernels, RegisterElementwiseKernels, RegisterMatMulKernels,
                      RegisterCastKernels, RegisterReductionKernels, RegisterNnKernels, RegisterConcatSplitKernels, RegisterSlicingKernels,
                      RegisterConvPoolKernels, RegisterConstKernels, RegisterPlaceholderKernels,
                      RegisterControlFlowKernels, RegisterTensorListKernels,
                      RegisterConvFamilyKernels, RegisterSpaceKernels, RegisterImageKernels,
                      RegisterBatchNormKernels, RegisterEinsumKernels, RegisterMiscKernels,
                      RegisterFusedKernels}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}

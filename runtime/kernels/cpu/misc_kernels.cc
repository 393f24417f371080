// Registration of issue 17's CPU kernel files (misc_kernels.h).
#include "misc_kernels.h"

#include "kernel_util.h"

namespace opgen {
namespace cpu {

void RegisterMiscKernels(TF_Status* status) {
  for (auto family : {RegisterForwardKernels, RegisterSplitOneHotKernels, RegisterScanTopKKernels,
                      RegisterSelectV1Kernels, RegisterLeakyReluKernels,
                      RegisterBoolReductionKernels}) {
    family(status);
    if (TF_GetCode(status) != TF_OK) return;
  }
}

}  // namespace cpu
}  // namespace opgen

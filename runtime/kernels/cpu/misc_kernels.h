// The CPU kernel files of issue 17's ops, one registration function each;
// RegisterMiscKernels (misc_kernels.cc) calls them all.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cpu {

void RegisterForwardKernels(TF_Status* status);       // forward.cc: StopGradient, IdentityN
void RegisterSplitOneHotKernels(TF_Status* status);   // split_onehot.cc: Split, SplitV, OneHot, BroadcastTo
void RegisterScanTopKKernels(TF_Status* status);      // scan_topk.cc: Cumsum, Cumprod, TopKV2, Where
void RegisterSelectV1Kernels(TF_Status* status);      // select_v1.cc: Select
void RegisterLeakyReluKernels(TF_Status* status);     // leaky_relu.cc: LeakyRelu
void RegisterBoolReductionKernels(TF_Status* status); // bool_reduction.cc: All, Any

}  // namespace cpu
}  // namespace opgen

// Kernels of the v1 control-flow ops. They only forward tensors: the session executor
// gives them their meaning (frames, iterations, dead outputs; runtime/src/
// frame_executor.cc), and computes Switch and Merge itself, since their dead outputs and
// inputs are the executor's business. These kernels serve eager calls and placement.
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

void Forward(TF_OpKernelContext* ctx, int input, int output) {
  TensorPtr in = Input(ctx, input);
  if (!in) return;
  TF_SetOutput(ctx, output, in.get(), ThreadStatus());
  if (TF_GetCode(ThreadStatus()) != TF_OK) TF_OpKernelContext_Failure(ctx, ThreadStatus());
}

void ForwardCompute(void*, TF_OpKernelContext* ctx) { Forward(ctx, 0, 0); }

// A Switch's untaken output is dead, which only a session graph can express; the
// session executor computes Switch itself, so this runs only outside one (eagerly).
void SwitchCompute(void*, TF_OpKernelContext* ctx) {
  Fail(ctx, TF_UNIMPLEMENTED,
       "Switch runs only in a session graph (its untaken output is dead); use tf.cond-style "
       "graphs, or select with SelectV2 eagerly");
}

// With every input live (outside a session), the first one.
void MergeCompute(void*, TF_OpKernelContext* ctx) {
  Forward(ctx, 0, 0);
  TensorPtr index = AllocateOutput<int32_t>(ctx, 1, {});
  if (index) *Data<int32_t>(index) = 0;
}

void NoOpCompute(void*, TF_OpKernelContext*) {}

}  // namespace

void RegisterControlFlowKernels(TF_Status* status) {
  auto each_type = [&](TF_DataType t) {
    RegisterKernel(kDevice, {"Switch", {{"T", t}}, {}, SwitchCompute}, status);
    RegisterKernel(kDevice, {"Merge", {{"T", t}}, {}, MergeCompute}, status);
    RegisterKernel(kDevice, {"Enter", {{"T", t}}, {}, ForwardCompute}, status);
    RegisterKernel(kDevice, {"Exit", {{"T", t}}, {}, ForwardCompute}, status);
    RegisterKernel(kDevice, {"NextIteration", {{"T", t}}, {}, ForwardCompute}, status);
  };
  for (TF_DataType t : kAllFixedSizeTypes) each_type(t);
  each_type(TF_VARIANT);   // TensorLists travel through loops
  each_type(TF_RESOURCE);  // and so do TensorArrays' handles (v1 while loops)
  // ...and through the Identity nodes lowered loops put on every loop variable.
  RegisterKernel(kDevice, {"Identity", {{"T", TF_VARIANT}}, {}, ForwardCompute}, status);
  // A variable's handle, too: a function body that passes one on (a While body's
  // loop-invariant capture) returns it through an Identity, as TensorFlow's CPU has.
  RegisterKernel(kDevice, {"Identity", {{"T", TF_RESOURCE}}, {}, ForwardCompute}, status);
  RegisterKernel(kDevice, {"LoopCond", {}, {}, ForwardCompute}, status);
  RegisterKernel(kDevice, {"ControlTrigger", {}, {}, NoOpCompute}, status);
}

}  // namespace cpu
}  // namespace opgen

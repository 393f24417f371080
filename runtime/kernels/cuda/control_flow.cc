// GPU kernels of the v1 control-flow ops, as TensorFlow places them: they forward a
// tensor without touching its data, so a loop that runs on the GPU keeps its values
// there. Predicates (Switch's pred, LoopCond) and Merge's value_index live in host
// memory, where the executor reads them; int32 values (loop counters) and variants
// (TensorLists, host objects) stay in host memory as in TensorFlow. The session executor
// computes Switch and Merge itself (runtime/src/frame_executor.cc); these computes are
// the same forwarding the CPU kernels do (../cpu/control_flow.cc).
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

void Forward(TF_OpKernelContext* ctx, int input, int output) {
  TensorPtr in = Input(ctx, input);
  if (!in) return;
  TF_SetOutput(ctx, output, in.get(), ThreadStatus());
  if (TF_GetCode(ThreadStatus()) != TF_OK) TF_OpKernelContext_Failure(ctx, ThreadStatus());
}

void ForwardCompute(void*, TF_OpKernelContext* ctx) { Forward(ctx, 0, 0); }

// Only outside a session (the executor computes Switch itself): see ../cpu/control_flow.cc.
void SwitchCompute(void*, TF_OpKernelContext* ctx) {
  Fail(ctx, TF_UNIMPLEMENTED,
       "Switch runs only in a session graph (its untaken output is dead); use tf.cond-style "
       "graphs, or select with SelectV2 eagerly");
}

void MergeCompute(void*, TF_OpKernelContext* ctx) {
  Forward(ctx, 0, 0);
  TensorPtr index = AllocateOutput(ctx, 1, TF_INT32, {});  // host memory
  if (index) *static_cast<int32_t*>(TF_TensorData(index.get())) = 0;
}

void NoOpCompute(void*, TF_OpKernelContext*) {}

constexpr TF_DataType kForwardTypes[] = {
    TF_FLOAT, TF_DOUBLE, TF_HALF,   TF_BFLOAT16, TF_INT8,      TF_INT16,      TF_INT32,  TF_INT64,
    TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64,   TF_BOOL,      TF_COMPLEX64,  TF_COMPLEX128, TF_VARIANT,
    TF_RESOURCE};  // handles (a TensorArray's in a v1 while loop) stay on the host

}  // namespace

void RegisterControlFlowKernels(TF_Status* status) {
  for (TF_DataType t : kForwardTypes) {
    const bool on_host = t == TF_INT32 || t == TF_VARIANT || t == TF_RESOURCE;
    auto host = [&](std::vector<const char*> always, std::vector<const char*> data) {
      if (on_host) always.insert(always.end(), data.begin(), data.end());
      return always;
    };
    RegisterKernel(kDevice, {"Switch", {{"T", t}}, host({"pred"}, {"data", "output_false", "output_true"}),
                        SwitchCompute},
             status);
    RegisterKernel(kDevice, {"Merge", {{"T", t}}, host({"value_index"}, {"inputs", "output"}), MergeCompute},
             status);
    for (const char* op : {"Enter", "Exit", "NextIteration"})
      RegisterKernel(kDevice, {op, {{"T", t}}, host({}, {"data", "output"}), ForwardCompute}, status);
  }
  // Lowered loops put an Identity on every loop variable, TensorLists included.
  RegisterKernel(kDevice, {"Identity", {{"T", TF_VARIANT}}, {"input", "output"}, ForwardCompute}, status);
  RegisterKernel(kDevice, {"LoopCond", {}, {"input", "output"}, ForwardCompute}, status);
  RegisterKernel(kDevice, {"ControlTrigger", {}, {}, NoOpCompute}, status);
}

}  // namespace cuda
}  // namespace opgen

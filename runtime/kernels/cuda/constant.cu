// Const on the GPU: the value, parsed once from the node's attr, is copied to the
// device per run. Twin of ../cpu/constant.cc.
#include "../constant_spec.h"
#include "byte_copy.cuh"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

// ---- Const ----------------------------------------------------------------------------

// The value attr on the host, and its copy on each device the kernel ran on, uploaded
// at the first run there and output by every run after without a copy.
struct ConstState {
  TensorPtr host;
  std::mutex mu;
  std::vector<std::pair<int, TensorPtr>> on_device;  // (device ordinal, tensor)
};

// The value attr read and checked by the CPU kernel's own code (../constant_spec.h).
void* CreateConst(TF_OpKernelConstruction* ctx) {
  TF_Tensor* value = kernels::ReadConstValue(ctx);
  if (value == nullptr) return nullptr;
  auto* state = new ConstState();
  state->host.reset(value);
  return state;
}

void DeleteConst(void* state) { delete static_cast<ConstState*>(state); }

void ConstCompute(void* p, TF_OpKernelContext* ctx) {
  auto* state = static_cast<ConstState*>(p);
  const int ordinal = TF_GetDeviceId(ctx);
  std::lock_guard<std::mutex> lock(state->mu);
  for (const auto& [device, tensor] : state->on_device) {
    if (device == ordinal) {
      SetOutput(ctx, 0, tensor.get());
      return;
    }
  }
  const TF_Tensor* host = state->host.get();
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr output = AllocateLike(ctx, 0, host, Dims(host));
  if (!output) return;
  const size_t bytes = TF_TensorByteSize(host);
  // The host tensor lives as long as the kernel, so the copy may still be in flight
  // when this returns; work queued later on the stream sees it done.
  if (bytes > 0 && !CheckCuda(ctx, cudaMemcpyAsync(TF_TensorData(output.get()), TF_TensorData(host),
                                                   bytes, cudaMemcpyHostToDevice, stream),
                              "Const: cudaMemcpyAsync")) {
    return;
  }
  state->on_device.emplace_back(ordinal, std::move(output));
}

}  // namespace

void RegisterConstKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes)
    RegisterKernel(kDevice, {"Const", {{"dtype", t}}, {}, ConstCompute, CreateConst, DeleteConst},
                   status);
}

}  // namespace cuda
}  // namespace opgen

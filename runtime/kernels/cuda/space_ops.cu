// SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth and MirrorPad on the GPU:
// the CPU kernels' index maps and checks (../space_spec.h), one thread per output
// element moving a word of the element's size. The block shapes, paddings and crops
// stay in host memory, where the plans read them.
#include <vector>

#include "../space_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::MapPlan;

template <typename Map, typename W>
__global__ void MapCopyKernel(const W* in, W* out, int64_t total, Map map) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t s = map.Source(n / map.chunk);
    out[n] = s < 0 ? W{} : in[s + n % map.chunk];
  }
}

template <typename Map>
void Finish(TF_OpKernelContext* ctx, const MapPlan<Map>& plan, const TF_Tensor* input, const char* op) {
  const TF_DataType dtype = TF_TensorType(input);
  TensorPtr output = AllocateOutput(ctx, 0, dtype, plan.out_dims);
  const int64_t total = plan.rows * plan.map.chunk;
  if (!output || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const void* in = TF_TensorData(input);
  void* out = TF_TensorData(output.get());
  auto launch = [&](auto word) {
    using W = decltype(word);
    MapCopyKernel<Map, W><<<BlocksFor(total), kThreads, 0, stream>>>(
        static_cast<const W*>(in), static_cast<W*>(out), total, plan.map);
  };
  switch (TF_DataTypeSize(dtype)) {
    case 1: launch(uint8_t{}); break;
    case 2: launch(uint16_t{}); break;
    case 4: launch(uint32_t{}); break;
    case 8: launch(uint64_t{}); break;
    default: launch(uint4{}); break;
  }
  CheckLaunch(ctx, op);
}

template <bool kToBatch>
void SpaceBatchCompute(void* state, TF_OpKernelContext* ctx) {  // state: the v1 ops' block_size
  MapPlan<kernels::SpaceBatchMap> plan;
  if (!kernels::PlanSpaceBatch(ctx, kToBatch, &plan, kernels::SpaceBatchV1Block(state))) return;
  TensorPtr input = Input(ctx, 0);
  if (input) Finish(ctx, plan, input.get(), kToBatch ? "SpaceToBatchND" : "BatchToSpaceND");
}

void* CreateBlockSizeGpu(TF_OpKernelConstruction* ctx) { return kernels::CreateBlockSize(ctx, "GPU"); }

template <bool kToSpace>
void DepthSpaceCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  MapPlan<kernels::DepthSpaceMap> plan;
  const int64_t bs = static_cast<kernels::BlockSizeAttrs*>(state)->block_size;
  if (kernels::PlanDepthSpace(ctx, kToSpace, bs, input.get(), &plan))
    Finish(ctx, plan, input.get(), kToSpace ? "DepthToSpace" : "SpaceToDepth");
}

void MirrorPadCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  MapPlan<kernels::MirrorPadMap> plan;
  if (kernels::PlanMirrorPad(ctx, *static_cast<kernels::MirrorPadAttrs*>(state), input.get(), &plan))
    Finish(ctx, plan, input.get(), "MirrorPad");
}

constexpr TF_DataType kDataTypes[] = {TF_FLOAT,  TF_DOUBLE, TF_HALF,  TF_BFLOAT16,  TF_INT8,
                                      TF_INT16,  TF_INT32,  TF_INT64, TF_UINT8,     TF_UINT16,
                                      TF_UINT32, TF_UINT64, TF_BOOL,  TF_COMPLEX64, TF_COMPLEX128};
constexpr TF_DataType kIndexTypes[] = {TF_INT32, TF_INT64};

}  // namespace

// The CPU kernels' registrations (kernels/cpu/space_ops.cc).
void RegisterSpaceKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes) {
    for (TF_DataType b : kIndexTypes)
      for (TF_DataType p : kIndexTypes) {
        RegisterKernel(kDevice, {"SpaceToBatchND", {{"T", t}, {"Tblock_shape", b}, {"Tpaddings", p}},
                            {"block_shape", "paddings"}, SpaceBatchCompute<true>},
                 status);
        RegisterKernel(kDevice, {"BatchToSpaceND", {{"T", t}, {"Tblock_shape", b}, {"Tcrops", p}},
                            {"block_shape", "crops"}, SpaceBatchCompute<false>},
                 status);
      }
    // The TF1-era 4-D forms over the same kernels, block_size as their state; on
    // TensorFlow's real number types only, as its kernels are.
    const bool real = t != TF_BOOL && t != TF_COMPLEX64 && t != TF_COMPLEX128;
    for (TF_DataType p : kIndexTypes) {
      if (!real) break;
      RegisterKernel(kDevice, {"SpaceToBatch", {{"T", t}, {"Tpaddings", p}}, {"paddings"},
                               SpaceBatchCompute<true>, kernels::CreateSpaceBatchV1,
                               kernels::DeleteBlockSize}, status);
      RegisterKernel(kDevice, {"BatchToSpace", {{"T", t}, {"Tidx", p}}, {"crops"},
                               SpaceBatchCompute<false>, kernels::CreateSpaceBatchV1,
                               kernels::DeleteBlockSize}, status);
    }
    RegisterKernel(kDevice, {"DepthToSpace", {{"T", t}}, {}, DepthSpaceCompute<true>, CreateBlockSizeGpu,
                        kernels::DeleteBlockSize},
             status);
    RegisterKernel(kDevice, {"SpaceToDepth", {{"T", t}}, {}, DepthSpaceCompute<false>, CreateBlockSizeGpu,
                        kernels::DeleteBlockSize},
             status);
    for (TF_DataType p : kIndexTypes)
      RegisterKernel(kDevice, {"MirrorPad", {{"T", t}, {"Tpaddings", p}}, {"paddings"}, MirrorPadCompute,
                          kernels::CreateMirrorPad, kernels::DeleteMirrorPad},
               status);
  }
}

}  // namespace cuda
}  // namespace opgen

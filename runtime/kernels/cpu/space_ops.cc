// SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth and MirrorPad: element
// moves described by ../space_spec.h's index maps (shared with the CUDA plugin), done
// here as one memcpy per contiguous run, on every fixed-size type.
#include <cstring>

#include "../space_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::MapPlan;

// Copies the runs of `plan` from `in` to `out`, elements of `esize` bytes; a run whose
// source is -1 becomes zero bytes.
template <typename Map>
void CopyRuns(const MapPlan<Map>& plan, int64_t esize, const void* in, void* out) {
  const int64_t run_bytes = plan.map.chunk * esize;
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  const Map map = plan.map;
  ParallelFor(plan.rows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t s = map.Source(r);
      if (s < 0) std::memset(dst + r * run_bytes, 0, run_bytes);
      else std::memcpy(dst + r * run_bytes, src + s * esize, run_bytes);
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(run_bytes, 1)));
}

template <typename Map>
void Finish(TF_OpKernelContext* ctx, const MapPlan<Map>& plan, const TF_Tensor* input) {
  const TF_DataType dtype = TF_TensorType(input);
  TensorPtr output = kernels::AllocateOutput(ctx, 0, dtype, plan.out_dims);
  if (!output || plan.rows == 0) return;
  CopyRuns(plan, static_cast<int64_t>(TF_DataTypeSize(dtype)), TF_TensorData(input),
           TF_TensorData(output.get()));
}

template <bool kToBatch>
void SpaceBatchCompute(void* state, TF_OpKernelContext* ctx) {  // state: the v1 ops' block_size
  MapPlan<kernels::SpaceBatchMap> plan;
  if (!kernels::PlanSpaceBatch(ctx, kToBatch, &plan, kernels::SpaceBatchV1Block(state))) return;
  TensorPtr input = Input(ctx, 0);
  if (input) Finish(ctx, plan, input.get());
}

void* CreateBlockSizeCpu(TF_OpKernelConstruction* ctx) { return kernels::CreateBlockSize(ctx, "CPU"); }

template <bool kToSpace>
void DepthSpaceCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  MapPlan<kernels::DepthSpaceMap> plan;
  const int64_t bs = static_cast<kernels::BlockSizeAttrs*>(state)->block_size;
  if (kernels::PlanDepthSpace(ctx, kToSpace, bs, input.get(), &plan)) Finish(ctx, plan, input.get());
}

void MirrorPadCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  MapPlan<kernels::MirrorPadMap> plan;
  if (kernels::PlanMirrorPad(ctx, *static_cast<kernels::MirrorPadAttrs*>(state), input.get(), &plan))
    Finish(ctx, plan, input.get());
}

constexpr TF_DataType kIndexTypes[] = {TF_INT32, TF_INT64};

}  // namespace

// Every fixed-size type (TensorFlow registers these on its POD / real types on the CPU;
// moving bytes costs the same for all), with each combination of index types.
void RegisterSpaceKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) {
    for (TF_DataType b : kIndexTypes)
      for (TF_DataType p : kIndexTypes) {
        for (const char* op : {"SpaceToBatchND", "BatchToSpaceND"}) {
          const bool to_batch = op[0] == 'S';
          RegisterKernel(kDevice, {op, {{"T", t}, {"Tblock_shape", b}, {to_batch ? "Tpaddings" : "Tcrops", p}},
              {}, to_batch ? SpaceBatchCompute<true> : SpaceBatchCompute<false>}, status);
        }
      }
    // The TF1-era 4-D forms over the same kernels, block_size as their state; on
    // TensorFlow's real number types only, as its kernels are.
    const bool real = t != TF_BOOL && t != TF_COMPLEX64 && t != TF_COMPLEX128;
    for (TF_DataType p : kIndexTypes) {
      if (!real) break;
      RegisterKernel(kDevice, {"SpaceToBatch", {{"T", t}, {"Tpaddings", p}}, {}, SpaceBatchCompute<true>,
          kernels::CreateSpaceBatchV1, kernels::DeleteBlockSize}, status);
      RegisterKernel(kDevice, {"BatchToSpace", {{"T", t}, {"Tidx", p}}, {}, SpaceBatchCompute<false>,
          kernels::CreateSpaceBatchV1, kernels::DeleteBlockSize}, status);
    }
    RegisterKernel(kDevice, {"DepthToSpace", {{"T", t}}, {}, DepthSpaceCompute<true>,
        CreateBlockSizeCpu, kernels::DeleteBlockSize}, status);
    RegisterKernel(kDevice, {"SpaceToDepth", {{"T", t}}, {}, DepthSpaceCompute<false>,
        CreateBlockSizeCpu, kernels::DeleteBlockSize}, status);
    for (TF_DataType p : kIndexTypes)
      RegisterKernel(kDevice, {"MirrorPad", {{"T", t}, {"Tpaddings", p}}, {}, MirrorPadCompute,
          kernels::CreateMirrorPad, kernels::DeleteMirrorPad}, status);
  }
}

}  // namespace cpu
}  // namespace opgen

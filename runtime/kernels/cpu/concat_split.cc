// Joining and splitting along an axis: ConcatV2, Pack, Unpack. The copies are of
// contiguous byte runs, so one kernel serves every dtype.
#include <algorithm>
#include <cstring>
#include <vector>

#include "../concat_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

int64_t ElementSize(const TF_Tensor* t) { return static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(t))); }

using kernels::OuterInner;

// Concatenates `pieces` (all of rank `rank`, equal except along `axis`).
void Concatenate(TF_OpKernelContext* ctx, const std::vector<TensorPtr>& pieces, int64_t axis,
                 std::vector<int64_t> out_dims, TF_DataType dtype) {
  const int64_t esize = static_cast<int64_t>(TF_DataTypeSize(dtype));
  TensorPtr output = kernels::AllocateOutput(ctx, 0, dtype, out_dims);
  if (!output || NumElements(out_dims) == 0) return;  // empty: its other dims may be any size
  int64_t outer, inner;
  OuterInner(out_dims, axis, &outer, &inner);
  // Each output row (one index of the dimensions before `axis`) is every piece's row in
  // turn; rows are independent, so they split across the cores.
  std::vector<const char*> sources(pieces.size());
  std::vector<int64_t> runs(pieces.size());
  int64_t row_bytes = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    sources[i] = static_cast<const char*>(TF_TensorData(pieces[i].get()));
    runs[i] = TF_Dim(pieces[i].get(), static_cast<int>(axis)) * inner * esize;
    row_bytes += runs[i];
  }
  char* out = static_cast<char*>(TF_TensorData(output.get()));
  ParallelFor(outer, [&](int64_t begin, int64_t end) {
    char* dst = out + begin * row_bytes;
    for (int64_t o = begin; o < end; ++o) {
      for (size_t i = 0; i < pieces.size(); ++i) {
        std::memcpy(dst, sources[i] + o * runs[i], runs[i]);
        dst += runs[i];
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold * 4 / std::max<int64_t>(row_bytes, 1)));
}

// ConcatV2, Pack and Unpack: inputs checked and the output shapes worked out by
// ../concat_spec.h (shared with the CUDA plugin); here only the copy.
void ConcatV2Compute(void*, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanConcat(ctx, &plan)) return;
  Concatenate(ctx, plan.pieces, plan.axis, plan.out_dims, TF_TensorType(plan.pieces[0].get()));
}

// Concat (TF1-era): the axis is input 0.
void ConcatV1Compute(void*, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanConcat(ctx, &plan, true)) return;
  Concatenate(ctx, plan.pieces, plan.axis, plan.out_dims, TF_TensorType(plan.pieces[0].get()));
}

// ParallelConcat: the [1, ...] values joined along 0.
void ParallelConcatCompute(void*, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanParallelConcat(ctx, &plan)) return;
  Concatenate(ctx, plan.pieces, plan.axis, plan.out_dims, TF_TensorType(plan.pieces[0].get()));
}

using kernels::AxisAttr;
using kernels::CreateAxisAttr;
using kernels::DeleteAxisAttr;

void PackCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::JoinPlan plan;
  if (!kernels::PlanPack(ctx, *static_cast<AxisAttr*>(state), &plan)) return;
  std::vector<TensorPtr>& pieces = plan.pieces;
  const int64_t axis = plan.axis;
  const std::vector<int64_t>& out_dims = plan.out_dims;
  const std::vector<int64_t> dims = Dims(pieces[0].get());
  // Packing is concatenating pieces that each have a size-1 dimension at `axis`.
  std::vector<TensorPtr> expanded;
  std::vector<int64_t> piece_dims = dims;
  piece_dims.insert(piece_dims.begin() + axis, 1);
  for (TensorPtr& piece : pieces) {
    TF_Tensor* owner = piece.release();
    expanded.emplace_back(TF_NewTensor(TF_TensorType(owner), piece_dims.data(),
                                       static_cast<int>(piece_dims.size()), TF_TensorData(owner),
                                       TF_TensorByteSize(owner),
                                       [](void*, size_t, void* arg) { TF_DeleteTensor(static_cast<TF_Tensor*>(arg)); },
                                       owner));
  }
  Concatenate(ctx, expanded, axis, out_dims, TF_TensorType(expanded[0].get()));
}

void UnpackCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::UnpackPlan plan;
  if (!kernels::PlanUnpack(ctx, *static_cast<AxisAttr*>(state), &plan)) return;
  const TF_Tensor* value = plan.value.get();
  const int64_t esize = ElementSize(value), inner = plan.inner;
  const char* src = static_cast<const char*>(TF_TensorData(value));
  for (int i = 0; i < plan.num; ++i) {
    TensorPtr out = kernels::AllocateOutput(ctx, i, TF_TensorType(value), plan.out_dims);
    if (!out) return;
    char* dst = static_cast<char*>(TF_TensorData(out.get()));
    for (int64_t o = 0; o < plan.outer; ++o)
      std::memcpy(dst + o * inner * esize, src + (o * plan.num + i) * inner * esize, inner * esize);
  }
}

}  // namespace

void RegisterConcatSplitKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) {
    RegisterKernel(kDevice, {"ConcatV2", {{"T", t}, {"Tidx", TF_INT32}}, {}, ConcatV2Compute},
        status);
    RegisterKernel(kDevice, {"ConcatV2", {{"T", t}, {"Tidx", TF_INT64}}, {}, ConcatV2Compute},
        status);
    RegisterKernel(kDevice, {"Concat", {{"T", t}}, {}, ConcatV1Compute}, status);
    RegisterKernel(kDevice, {"ParallelConcat", {{"T", t}}, {}, ParallelConcatCompute}, status);
    RegisterKernel(kDevice, {"Pack", {{"T", t}}, {}, PackCompute, CreateAxisAttr, DeleteAxisAttr},
        status);
    RegisterKernel(kDevice, {"Unpack", {{"T", t}}, {}, UnpackCompute, CreateAxisAttr,
        DeleteAxisAttr}, status);
  }
}

}  // namespace cpu
}  // namespace opgen

// Split, SplitV, OneHot and BroadcastTo: operands checked by ../misc_spec.h (shared with
// the CUDA plugin); here the copies, of opaque words of the element width, so one
// instantiation serves every dtype of that width.
#include <cstring>

#include <algorithm>

#include "../misc_spec.h"
#include "kernel_util.h"
#include "strided_pass.h"

namespace opgen {
namespace cpu {
namespace {

struct Word128 { uint64_t lo, hi; };

// Calls fn(W{}) with the unsigned word type of `width` bytes; false for other widths.
template <typename Fn>
bool WithWord(size_t width, Fn fn) {
  switch (width) {
    case 1: fn(uint8_t{}); return true;
    case 2: fn(uint16_t{}); return true;
    case 4: fn(uint32_t{}); return true;
    case 8: fn(uint64_t{}); return true;
    case 16: fn(Word128{}); return true;
    default: return false;
  }
}

// Each piece is `outer` runs of sizes[i] * inner elements, read at the piece's offset.
void SplitPieces(TF_OpKernelContext* ctx, const kernels::SplitPlan& plan) {
  const TF_DataType dtype = TF_TensorType(plan.value.get());
  const int64_t esize = static_cast<int64_t>(TF_DataTypeSize(dtype));
  const int64_t dim = plan.dims[plan.axis];
  const char* src = static_cast<const char*>(TF_TensorData(plan.value.get()));
  int64_t start = 0;
  for (size_t i = 0; i < plan.sizes.size(); ++i) {
    std::vector<int64_t> dims = plan.dims;
    dims[plan.axis] = plan.sizes[i];
    TensorPtr out = kernels::AllocateOutput(ctx, static_cast<int>(i), dtype, dims);
    if (!out) return;
    const int64_t run = plan.sizes[i] * plan.inner * esize;
    char* dst = static_cast<char*>(TF_TensorData(out.get()));
    if (run > 0)
      for (int64_t o = 0; o < plan.outer; ++o)
        std::memcpy(dst + o * run, src + (o * dim + start) * plan.inner * esize, run);
    start += plan.sizes[i];
  }
}

void SplitCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SplitPlan plan;
  if (kernels::PlanSplit(ctx, &plan)) SplitPieces(ctx, plan);
}

void SplitVCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SplitPlan plan;
  if (kernels::PlanSplitV(ctx, &plan)) SplitPieces(ctx, plan);
}

template <typename I>
void OneHotCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::OneHotPlan p;
  if (!kernels::PlanOneHot(ctx, *static_cast<kernels::OneHotAttrs*>(state), &p)) return;
  const TF_DataType dtype = TF_TensorType(p.on.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.out_dims);
  if (!out) return;
  const I* indices = Data<I>(p.indices.get());
  const bool ok = WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    const W on = *Data<W>(p.on.get()), off = *Data<W>(p.off.get());
    W* o = Data<W>(out);
    const int64_t depth = p.depth, suffix = p.suffix;
    std::fill_n(o, p.prefix * depth * suffix, off);
    for (int64_t a = 0; a < p.prefix; ++a)
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t d = static_cast<int64_t>(indices[a * suffix + s]);
        if (d >= 0 && d < depth) o[(a * depth + d) * suffix + s] = on;  // others stay off
      }
  });
  if (!ok) Fail(ctx, TF_UNIMPLEMENTED, "OneHot: elements of " + std::to_string(TF_DataTypeSize(dtype)) + " bytes");
}

void BroadcastToCompute(void*, TF_OpKernelContext* ctx) {
  kernels::BroadcastToPlan p;
  if (!kernels::PlanBroadcastTo(ctx, &p)) return;
  const TF_DataType dtype = TF_TensorType(p.input.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.out_dims);
  if (!out) return;
  StridedPass pass;
  pass.dims = p.out_dims;
  pass.strides = p.strides;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    RunPass(pass, Data<W>(p.input.get()), Data<W>(out));
  });
}

}  // namespace

void RegisterSplitOneHotKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) {
    RegisterKernel(kDevice, {"Split", {{"T", t}}, {}, SplitCompute}, status);
    for (TF_DataType len : {TF_INT8, TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"SplitV", {{"T", t}, {"Tlen", len}}, {}, SplitVCompute}, status);
    RegisterKernel(kDevice, {"OneHot", {{"T", t}, {"TI", TF_UINT8}}, {}, OneHotCompute<uint8_t>,
        kernels::CreateOneHot, kernels::DeleteOneHot}, status);
    RegisterKernel(kDevice, {"OneHot", {{"T", t}, {"TI", TF_INT8}}, {}, OneHotCompute<int8_t>,
        kernels::CreateOneHot, kernels::DeleteOneHot}, status);
    RegisterKernel(kDevice, {"OneHot", {{"T", t}, {"TI", TF_INT32}}, {}, OneHotCompute<int32_t>,
        kernels::CreateOneHot, kernels::DeleteOneHot}, status);
    RegisterKernel(kDevice, {"OneHot", {{"T", t}, {"TI", TF_INT64}}, {}, OneHotCompute<int64_t>,
        kernels::CreateOneHot, kernels::DeleteOneHot}, status);
    RegisterKernel(kDevice, {"BroadcastTo", {{"T", t}, {"Tidx", TF_INT32}}, {}, BroadcastToCompute},
        status);
    RegisterKernel(kDevice, {"BroadcastTo", {{"T", t}, {"Tidx", TF_INT64}}, {}, BroadcastToCompute},
        status);
  }
}

}  // namespace cpu
}  // namespace opgen

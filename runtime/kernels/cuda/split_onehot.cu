// Split and SplitV (2-D copies), OneHot and BroadcastTo (a strided pass) on the GPU.
// Checks, shapes and messages are the CPU kernels' (../misc_spec.h); elements move as
// opaque words of their width, for every fixed-size dtype. Twin of ../cpu/split_onehot.cc.
#include <string>
#include <utility>
#include <vector>

#include "../misc_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"
#include "strided_pass.cuh"

namespace opgen {
namespace cuda {
namespace {

void SplitPieces(TF_OpKernelContext* ctx, const kernels::SplitPlan& plan) {
  const TF_DataType dtype = TF_TensorType(plan.value.get());
  const size_t esize = TF_DataTypeSize(dtype);
  const int64_t dim = plan.dims[plan.axis];
  const char* src = static_cast<const char*>(TF_TensorData(plan.value.get()));
  cudaStream_t stream = nullptr;
  int64_t start = 0;
  for (size_t i = 0; i < plan.sizes.size(); ++i) {
    std::vector<int64_t> dims = plan.dims;
    dims[plan.axis] = plan.sizes[i];
    TensorPtr out = AllocateOutput(ctx, static_cast<int>(i), dtype, dims);
    if (!out) return;
    const size_t run = static_cast<size_t>(plan.sizes[i] * plan.inner) * esize;
    if (run > 0 && plan.outer > 0) {
      if (stream == nullptr && (stream = GetStream(ctx)) == nullptr) return;
      if (!CheckCuda(ctx, cudaMemcpy2DAsync(TF_TensorData(out.get()), run,
                                            src + start * plan.inner * esize,
                                            static_cast<size_t>(dim * plan.inner) * esize, run,
                                            static_cast<size_t>(plan.outer),
                                            cudaMemcpyDeviceToDevice, stream),
                     "cudaMemcpy2DAsync"))
        return;
    }
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

// Output [prefix, depth, suffix]; on / off are device scalars.
template <typename I, typename W>
__global__ void OneHotKernel(const I* __restrict__ indices, const W* on, const W* off,
                             int64_t prefix, int64_t depth, int64_t suffix, W* __restrict__ out) {
  const int64_t n = prefix * depth * suffix;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t s = i % suffix, rest = i / suffix, d = rest % depth, a = rest / depth;
    out[i] = static_cast<int64_t>(indices[a * suffix + s]) == d ? *on : *off;
  }
}

template <typename I>
void OneHotCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::OneHotPlan p;
  if (!kernels::PlanOneHot(ctx, *static_cast<kernels::OneHotAttrs*>(state), &p)) return;
  const TF_DataType dtype = TF_TensorType(p.on.get());
  TensorPtr out = AllocateOutput(ctx, 0, dtype, p.out_dims);
  const int64_t n = p.prefix * p.depth * p.suffix;
  if (!out || n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    OneHotKernel<I, W><<<BlocksFor(n), kThreads, 0, stream>>>(
        Data<I>(p.indices.get()), Data<W>(p.on.get()), Data<W>(p.off.get()), p.prefix, p.depth,
        p.suffix, Data<W>(out));
  });
  CheckLaunch(ctx, "OneHot");
}

void BroadcastToCompute(void*, TF_OpKernelContext* ctx) {
  kernels::BroadcastToPlan p;
  if (!kernels::PlanBroadcastTo(ctx, &p)) return;
  const TF_DataType dtype = TF_TensorType(p.input.get());
  TensorPtr out = AllocateOutput(ctx, 0, dtype, p.out_dims);
  if (!out || NumElements(p.out_dims) == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  kernels::StridedPass pass;
  pass.dims = p.out_dims;
  pass.strides = p.strides;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    RunPass<W, W>(ctx, stream, pass, Data<W>(p.input.get()), Data<W>(out), "BroadcastTo");
  });
}

}  // namespace

void RegisterSplitOneHotKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes) {
    RegisterKernel(kDevice, {"Split", {{"T", t}}, {"split_dim"}, SplitCompute}, status);
    for (TF_DataType len : {TF_INT8, TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"SplitV", {{"T", t}, {"Tlen", len}}, {"size_splits", "split_dim"},
                               SplitVCompute},
                     status);
    for (auto [ti, compute] : {std::pair{TF_UINT8, &OneHotCompute<uint8_t>},
                               std::pair{TF_INT8, &OneHotCompute<int8_t>},
                               std::pair{TF_INT32, &OneHotCompute<int32_t>},
                               std::pair{TF_INT64, &OneHotCompute<int64_t>}})
      RegisterKernel(kDevice, {"OneHot", {{"T", t}, {"TI", ti}}, {"depth"}, compute,
                               kernels::CreateOneHot, kernels::DeleteOneHot},
                     status);
    for (TF_DataType idx : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"BroadcastTo", {{"T", t}, {"Tidx", idx}}, {"shape"}, BroadcastToCompute},
                     status);
  }
}

}  // namespace cuda
}  // namespace opgen

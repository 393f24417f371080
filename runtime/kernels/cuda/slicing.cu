// Slice, StridedSlice, ReverseV2, Tile, Pad, PadV2, GatherV2 and Range on the GPU: strided copies of
// opaque words (byte_copy.cuh); only Range computes values. Twin of ../cpu/slicing.cc,
// with its checks (../slice_spec.h, ../strided_slice_spec.h, ../gather_spec.h, ../range_spec.h).
#include <cstring>

#include "../gather_spec.h"
#include "../range_spec.h"
#include "../slice_spec.h"
#include "../strided_slice_spec.h"
#include "byte_copy.cuh"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

// ---- Slice, StridedSlice, Tile, Pad ---------------------------------------------------

// Copies the box of `input` (dims `dims`) that starts at `first` and takes count[d]
// elements `step[d]` apart along each dim into `output`, in order: Slice and StridedSlice.
void CopyBox(TF_OpKernelContext* ctx, const char* op, const TF_Tensor* input,
             const std::vector<int64_t>& dims, const std::vector<int64_t>& first,
             const std::vector<int64_t>& step, const std::vector<int64_t>& count,
             TF_Tensor* output) {
  const int64_t n = NumElements(count);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const std::vector<int64_t> strides = StridesOf(dims);
  std::vector<MapDim> map(dims.size());
  int64_t base = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    map[d] = MapDim{count[d], step[d] * strides[d], 0, 0};
    base += first[d] * strides[d];
  }
  StridedCopy(ctx, stream, op, MapKind::kLinear, map, base, ElementBytes(input),
              TF_TensorData(input), TF_TensorData(output), n);
}

// Slice, Tile and Pad: operands checked and output shapes worked out by the CPU kernels'
// own code (../slice_spec.h); here the strided copy.
void SliceCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SlicePlan plan;
  if (!kernels::PlanSlice(ctx, &plan)) return;
  TensorPtr output = AllocateLike(ctx, 0, plan.input.get(), plan.size);
  if (!output) return;
  CopyBox(ctx, "Slice", plan.input.get(), plan.dims, plan.begin,
          std::vector<int64_t>(plan.dims.size(), 1), plan.size, output.get());
}

// numpy's basic indexing as TensorFlow spells it, resolved on the host by the CPU
// kernel's own code (strided_slice_spec.h); the copy is a strided one.
void StridedSliceCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::StridedSlicePlan plan;
  if (!kernels::PlanStridedSlice(ctx, *static_cast<kernels::StridedSliceMasks*>(state), &plan)) return;
  const kernels::StridedSliceBox& box = plan.box;
  TensorPtr output = AllocateLike(ctx, 0, plan.input.get(), box.out_dims);
  if (!output) return;
  CopyBox(ctx, "StridedSlice", plan.input.get(), plan.dims, box.first, box.step, box.count,
          output.get());
}

// ReverseV2: the box walked backwards along the reversed dims (../slice_spec.h).
void ReverseCompute(void*, TF_OpKernelContext* ctx) {
  kernels::ReversePlan plan;
  if (!kernels::PlanReverse(ctx, &plan)) return;
  TensorPtr output = AllocateLike(ctx, 0, plan.input.get(), plan.dims);
  if (!output) return;
  CopyBox(ctx, "ReverseV2", plan.input.get(), plan.dims, plan.first, plan.step, plan.dims,
          output.get());
}

void TileCompute(void*, TF_OpKernelContext* ctx) {
  kernels::TilePlan plan;
  if (!kernels::PlanTile(ctx, &plan)) return;
  const TF_Tensor* input = plan.input.get();
  const std::vector<int64_t>& dims = plan.dims;
  const std::vector<int64_t>& out = plan.out_dims;
  TensorPtr output = AllocateLike(ctx, 0, input, out);
  if (!output) return;
  const int64_t n = NumElements(out);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const std::vector<int64_t> strides = StridesOf(dims);
  std::vector<MapDim> map(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) map[d] = MapDim{out[d], strides[d], dims[d], 0};
  StridedCopy(ctx, stream, "Tile", MapKind::kTile, map, 0, ElementBytes(input),
              TF_TensorData(input), TF_TensorData(output.get()), n);
}

void PadCompute(void*, TF_OpKernelContext* ctx) {
  kernels::PadPlan plan;
  if (!kernels::PlanPad(ctx, &plan)) return;
  const TF_Tensor* input = plan.input.get();
  const std::vector<int64_t>& dims = plan.dims;
  const std::vector<int64_t>& pads = plan.pads;
  const std::vector<int64_t>& out = plan.out_dims;
  TensorPtr output = AllocateLike(ctx, 0, input, out);
  if (!output) return;
  const int64_t n = NumElements(out);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const int64_t esize = ElementBytes(input);
  if (TF_TensorElementCount(input) == 0) {  // all padding; every dtype's zero is 0 bytes
    CheckCuda(ctx, cudaMemsetAsync(TF_TensorData(output.get()), 0, static_cast<size_t>(n * esize), stream),
              "Pad: cudaMemsetAsync");
    return;
  }
  const std::vector<int64_t> strides = StridesOf(dims);
  std::vector<MapDim> map(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) map[d] = MapDim{out[d], strides[d], dims[d], pads[2 * d]};
  StridedCopy(ctx, stream, "Pad", MapKind::kPad, map, 0, esize, TF_TensorData(input),
              TF_TensorData(output.get()), n);
}

// PadV2: each output element is its input element or, in the padding, `value` (the
// host scalar constant_values). `all_pad`: the input is empty.
template <typename W>
__global__ void __launch_bounds__(kThreads)
    PadValueKernel(const W* __restrict__ in, W* __restrict__ out, int64_t n, StridedMap m,
                   W value, bool all_pad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    bool inside = false;
    const int64_t src = all_pad ? 0 : SourceOf<MapKind::kPad>(i, m, &inside);
    out[i] = inside ? in[src] : value;
  }
}

void PadV2Compute(void*, TF_OpKernelContext* ctx) {
  kernels::PadPlan plan;
  if (!kernels::PlanPad(ctx, &plan, "PadV2")) return;
  const TF_Tensor* input = plan.input.get();
  const std::vector<int64_t>& dims = plan.dims;
  TensorPtr output = AllocateLike(ctx, 0, input, plan.out_dims);
  if (!output) return;
  const int64_t n = NumElements(plan.out_dims);
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const bool all_pad = TF_TensorElementCount(input) == 0;
  const std::vector<int64_t> strides = StridesOf(dims);
  std::vector<MapDim> full(dims.size());
  for (size_t d = 0; d < dims.size(); ++d)
    full[d] = MapDim{plan.out_dims[d], strides[d], dims[d], plan.pads[2 * d]};
  const std::vector<MapDim> merged = all_pad ? std::vector<MapDim>{} : Collapse(MapKind::kPad, full);
  if (merged.size() > static_cast<size_t>(kMaxRank)) {
    Fail(ctx, TF_UNIMPLEMENTED, "PadV2: the GPU kernel handles at most " + std::to_string(kMaxRank) +
                                    " dimensions that cannot be merged, got " +
                                    std::to_string(merged.size()));
    return;
  }
  StridedMap m{};
  m.rank = static_cast<int>(merged.size());
  for (size_t d = 0; d < merged.size(); ++d) {
    m.out[d] = merged[d].out;
    m.stride[d] = merged[d].stride;
    m.in[d] = merged[d].in;
    m.low[d] = merged[d].low;
  }
  const int64_t esize = ElementBytes(input);
  const void* value = TF_TensorData(plan.value.get());  // host memory
  WithWord(esize, [&](auto w) {
    using W = decltype(w);
    W v;
    std::memcpy(&v, value, sizeof(W));
    PadValueKernel<W><<<BlocksFor(n), kThreads, 0, stream>>>(
        static_cast<const W*>(TF_TensorData(input)), static_cast<W*>(TF_TensorData(output.get())),
        n, m, v, all_pad);
  });
  CheckLaunch(ctx, "PadV2");
}

// ---- GatherV2 -------------------------------------------------------------------------

// Records in *first_bad the lowest position of an index outside [0, limit).
template <typename Index>
__global__ void __launch_bounds__(kThreads)
    FindBadIndexKernel(const Index* __restrict__ indices, int64_t count, int64_t limit,
                       unsigned long long* first_bad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const int64_t v = static_cast<int64_t>(indices[i]);
    if (v < 0 || v >= limit) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

// The word of `params` that output word i reads: out[o][j][k] = params[o][indices[j]][k]
// with `inner` words per k-row and `limit` rows along the axis; -1 for a bad index
// (reported by the check above).
template <typename Index>
__host__ __device__ inline int64_t GatherSource(int64_t i, const Index* indices, int64_t count, int64_t inner,
                                                int64_t limit) {
  const int64_t t = i / inner, k = i - t * inner;
  const int64_t o = t / count, j = t - o * count;
  const int64_t v = static_cast<int64_t>(indices[j]);
  return v >= 0 && v < limit ? (o * limit + v) * inner + k : -1;
}

template <typename W, typename Index>
__global__ void __launch_bounds__(kThreads)
    GatherKernel(const W* __restrict__ params, const Index* __restrict__ indices, W* __restrict__ out,
                 int64_t n, int64_t count, int64_t inner, int64_t limit) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t src = GatherSource(i, indices, count, inner, limit);
    out[i] = src >= 0 ? params[src] : W{};
  }
}

// The word size of a gather: k-rows of `inner_bytes` move in the widest words that
// divide them and both buffers' addresses.
int64_t GatherWordBytes(int64_t inner_bytes, const void* params, const void* out) {
  return CommonWordBytes({static_cast<uint64_t>(inner_bytes), Address(params), Address(out)});
}

// Gathers on the stream, checks the indices there too, and waits for the check: the
// CPU kernel reports the first bad index, so the GPU one must know before it returns.
template <typename Index>
void Gather(TF_OpKernelContext* ctx, cudaStream_t stream, const void* params, const void* indices_p,
            void* out, int64_t outer, int64_t count, int64_t inner_bytes, int64_t limit) {
  const Index* indices = static_cast<const Index*>(indices_p);
  TensorPtr flag = AllocateTemp(ctx, TF_INT64, {1});
  if (!flag) return;
  auto* first_bad = static_cast<unsigned long long*>(TF_TensorData(flag.get()));
  if (!CheckCuda(ctx, cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), stream),
                 "GatherV2: cudaMemsetAsync"))
    return;
  FindBadIndexKernel<Index><<<BlocksFor(count), kThreads, 0, stream>>>(indices, count, limit, first_bad);
  if (!CheckLaunch(ctx, "GatherV2")) return;
  const int64_t word = GatherWordBytes(inner_bytes, params, out);
  const int64_t inner = inner_bytes / word, n = outer * count * inner;
  if (n > 0) {
    WithWord(word, [&](auto w) {
      using W = decltype(w);
      GatherKernel<W, Index><<<BlocksFor(n), kThreads, 0, stream>>>(
          static_cast<const W*>(params), indices, static_cast<W*>(out), n, count, inner, limit);
    });
    if (!CheckLaunch(ctx, "GatherV2")) return;
  }
  unsigned long long bad = 0;
  if (!CheckCuda(ctx, cudaMemcpyAsync(&bad, first_bad, sizeof bad, cudaMemcpyDeviceToHost, stream),
                 "GatherV2: cudaMemcpyAsync") ||
      !CheckCuda(ctx, cudaStreamSynchronize(stream), "GatherV2: cudaStreamSynchronize"))
    return;
  if (bad == ~0ull) return;
  Index value = 0;
  if (!CheckCuda(ctx, cudaMemcpyAsync(&value, indices + bad, sizeof value, cudaMemcpyDeviceToHost, stream),
                 "GatherV2: cudaMemcpyAsync") ||
      !CheckCuda(ctx, cudaStreamSynchronize(stream), "GatherV2: cudaStreamSynchronize"))
    return;
  Fail(ctx, TF_INVALID_ARGUMENT, "GatherV2: index " + std::to_string(static_cast<int64_t>(value)) +
                                     " is not in [0, " + std::to_string(limit) + ")");
}

// The attr, axis and output shape from the CPU kernel's own code (../gather_spec.h).
void GatherCompute(void*, TF_OpKernelContext* ctx) {
  kernels::GatherPlan plan;
  if (!kernels::PlanGather(ctx, &plan)) return;
  const TF_Tensor* params = plan.params.get();
  const TF_Tensor* indices_t = plan.indices.get();
  const std::vector<int64_t>& dims = plan.dims;
  const int64_t a = plan.axis, outer = plan.outer, inner = plan.inner;
  TensorPtr output = AllocateLike(ctx, 0, params, plan.out_dims);
  if (!output) return;
  const int64_t count = TF_TensorElementCount(indices_t);
  if (count == 0) return;  // no index to check, nothing to gather
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const void* p = TF_TensorData(params);
  const void* idx = TF_TensorData(indices_t);
  void* o = TF_TensorData(output.get());
  const int64_t inner_bytes = inner * ElementBytes(params);
  switch (TF_TensorType(indices_t)) {
    case TF_INT16: Gather<int16_t>(ctx, stream, p, idx, o, outer, count, inner_bytes, dims[a]); break;
    case TF_INT32: Gather<int32_t>(ctx, stream, p, idx, o, outer, count, inner_bytes, dims[a]); break;
    default: Gather<int64_t>(ctx, stream, p, idx, o, outer, count, inner_bytes, dims[a]); break;
  }
}

// ---- Range ----------------------------------------------------------------------------

// start + i * delta, rounded as the CPU rounds it: one product, one sum, never fused.
__device__ inline float RangeValue(float start, int64_t i, float delta) {
  return __fadd_rn(start, __fmul_rn(static_cast<float>(i), delta));
}
__device__ inline double RangeValue(double start, int64_t i, double delta) {
  return __dadd_rn(start, __dmul_rn(static_cast<double>(i), delta));
}
// Integers: wrapping unsigned arithmetic, as the CPU kernel (i * delta can pass T's range
// on the way to a value that is in it).
template <typename T>
__device__ inline T RangeValue(T start, int64_t i, T delta) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(delta));
}

template <typename T>
__global__ void __launch_bounds__(kThreads) RangeFillKernel(T start, T delta, T* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = RangeValue(start, i, delta);
}

// start, limit and delta are host-memory scalars; the values are made on the device.
template <typename T>
struct RangeKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    T start, delta;
    int64_t n;
    if (!kernels::PlanRange(ctx, &start, &delta, &n)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, {n});
    if (!output || n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    RangeFillKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(start, delta, Data<T>(output), n);
    CheckLaunch(ctx, "Range");
  }
};

template <typename T>
void RegisterRange(TF_Status* status) {
  RegisterKernel(kDevice, {"Range", {{"Tidx", DtypeOf<T>::value}}, {"start", "limit", "delta"},
                           &RangeKernel<T>::Compute},
                 status);
}

}  // namespace

void RegisterSlicingKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes) {
    for (TF_DataType index : kIndexTypes) {
      RegisterKernel(kDevice, {"Slice", {{"T", t}, {"Index", index}}, {"begin", "size"}, SliceCompute},
                     status);
      RegisterKernel(kDevice, {"StridedSlice", {{"T", t}, {"Index", index}}, {"begin", "end", "strides"},
                               StridedSliceCompute, kernels::CreateStridedSliceMasks,
                               kernels::DeleteStridedSliceMasks},
                     status);
      RegisterKernel(kDevice, {"Tile", {{"T", t}, {"Tmultiples", index}}, {"multiples"}, TileCompute},
                     status);
      RegisterKernel(kDevice, {"ReverseV2", {{"T", t}, {"Tidx", index}}, {"axis"}, ReverseCompute},
                     status);
      // TF1-era Gather (axis 0, no batch_dims) over GatherV2's kernel.
      RegisterKernel(kDevice, {"Gather", {{"Tparams", t}, {"Tindices", index}}, {}, GatherCompute},
                     status);
      RegisterKernel(kDevice, {"Pad", {{"T", t}, {"Tpaddings", index}}, {"paddings"}, PadCompute},
                     status);
      RegisterKernel(kDevice, {"PadV2", {{"T", t}, {"Tpaddings", index}},
                               {"paddings", "constant_values"}, PadV2Compute},
                     status);
    }
    // TF1-era Reverse (a bool flag per dim) over ReverseV2's kernel.
    RegisterKernel(kDevice, {"Reverse", {{"T", t}}, {"dims"}, ReverseCompute}, status);
    for (TF_DataType indices : {TF_INT16, TF_INT32, TF_INT64})
      for (TF_DataType axis : kIndexTypes)
        RegisterKernel(kDevice, {"GatherV2", {{"Tparams", t}, {"Tindices", indices}, {"Taxis", axis}},
                                 {"axis"}, GatherCompute, kernels::CreateGather},
                       status);
  }
  RegisterRange<float>(status);
  RegisterRange<double>(status);
  RegisterRange<int32_t>(status);
  RegisterRange<int64_t>(status);
}

}  // namespace cuda
}  // namespace opgen

// Kernels that select, reorder or repeat parts of a tensor: Slice, StridedSlice,
// ReverseV2, Pad, PadV2, Tile, GatherV2, and Range. Element copies go by byte size, so one kernel serves every dtype (Range is
// the exception: it computes values).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "../gather_spec.h"
#include "../range_spec.h"
#include "../slice_spec.h"
#include "../strided_slice_spec.h"
#include "kernel_util.h"
#include "parallel.h"
#include "scatter_parallel.h"

namespace opgen {
namespace cpu {
namespace {

int64_t ElementBytes(const TF_Tensor* t) { return static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(t))); }

// Output 0 with `like`'s dtype; kernels::AllocateOutput reports a shape whose bytes
// pass int64 (paddings and multiples are caller operands).
TensorPtr AllocateLike(TF_OpKernelContext* ctx, const TF_Tensor* like, const std::vector<int64_t>& dims) {
  return kernels::AllocateOutput(ctx, 0, TF_TensorType(like), dims);
}

// The three copies below work on rows: the innermost dimension after merging the
// trailing dimensions that the op leaves whole (unpadded, unsliced, untiled), so a row
// is one memcpy/memset however small the elements are, and rows split across cores.

// Merges the last dimension into the one before while whole(last) holds (the op
// leaves it as it is: unpadded, unsliced, untiled), in every vector of `shapes`: sizes
// and per-dimension offsets alike scale by that dimension's size (an offset's entry
// there is 0). A [1, 112, 112, 32] padded in H and W becomes [1, 112, 3584] rows.
template <typename Whole>
void MergeWholeTrailingDims(std::vector<std::vector<int64_t>*> shapes, Whole whole) {
  std::vector<int64_t>& first = *shapes[0];
  while (first.size() >= 2 && whole(first.size() - 1)) {
    const int64_t size = first.back();
    for (std::vector<int64_t>* v : shapes) {
      v->pop_back();
      v->back() *= size;
    }
  }
}

// Calls row(out_row, in_row) for every output row (all dimensions but the last), where
// the input row is found through per-dimension `map(d, i)` (an input index, or -1 when
// the row is outside the input, as padding is). Rows run on all cores when the copy is
// large.
template <typename Map, typename Row>
void ForEachRow(const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_dims,
                int64_t row_bytes, Map map, Row row) {
  const size_t outer = out_dims.empty() ? 0 : out_dims.size() - 1;
  std::vector<int64_t> in_strides(outer, 1);  // in rows
  for (size_t d = outer; d-- > 1;) in_strides[d - 1] = in_strides[d] * in_dims[d];
  int64_t rows = 1;
  for (size_t d = 0; d < outer; ++d) rows *= out_dims[d];
  const int64_t min_rows = std::max<int64_t>(1, kParallelThreshold * 4 / std::max<int64_t>(row_bytes, 1));
  ParallelFor(rows, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index(outer, 0);
    for (size_t d = outer, rest = begin; d-- > 0;) {
      index[d] = static_cast<int64_t>(rest) % out_dims[d];
      rest /= out_dims[d];
    }
    for (int64_t r = begin; r < end; ++r) {
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < outer && inside; ++d) {
        const int64_t j = map(d, index[d]);
        inside = j >= 0;
        src += j * in_strides[d];
      }
      row(r, inside ? src : -1);
      for (size_t d = outer; d-- > 0;) {
        if (++index[d] < out_dims[d]) break;
        index[d] = 0;
      }
    }
  }, min_rows);
}

// Slice, Pad and Tile: operands checked and output shapes worked out by
// ../slice_spec.h (shared with the CUDA plugin); here only the copy.
void SliceCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SlicePlan plan;
  if (!kernels::PlanSlice(ctx, &plan)) return;
  TensorPtr output = AllocateLike(ctx, plan.input.get(), plan.size);
  if (!output || NumElements(plan.size) == 0) return;
  const int64_t e = ElementBytes(plan.input.get());
  std::vector<int64_t> in = plan.dims, out = plan.size, begin = plan.begin;
  MergeWholeTrailingDims({&out, &in, &begin}, [&](size_t d) { return out[d] == in[d]; });
  const char* src = static_cast<const char*>(TF_TensorData(plan.input.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  if (out.empty()) {  // a scalar
    std::memcpy(dst, src, e);
    return;
  }
  const int64_t width = out.back(), in_width = in.back(), first = begin.back();
  ForEachRow(out, in, width * e, [&](size_t d, int64_t i) { return begin[d] + i; },
             [&](int64_t r, int64_t from) {
               std::memcpy(dst + r * width * e, src + (from * in_width + first) * e, width * e);
             });
}

// Writes `count` copies of the `e`-byte pad value at `dst` (nullptr: zeros).
void FillPad(char* dst, int64_t count, const char* value, int64_t e) {
  if (value == nullptr) {
    std::memset(dst, 0, count * e);
    return;
  }
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * e, value, e);
}

// Pad (zeros) and PadV2 (a scalar's value): one copy per output row of the input's row.
template <bool kV2>
void PadCompute(void*, TF_OpKernelContext* ctx) {
  kernels::PadPlan plan;
  if (!kernels::PlanPad(ctx, &plan, kV2 ? "PadV2" : "Pad")) return;
  TensorPtr output = AllocateLike(ctx, plan.input.get(), plan.out_dims);
  if (!output || NumElements(plan.out_dims) == 0) return;
  const int64_t e = ElementBytes(plan.input.get());
  const char* value = kV2 ? static_cast<const char*>(TF_TensorData(plan.value.get())) : nullptr;
  std::vector<int64_t> in = plan.dims, out = plan.out_dims, before(in.size()), after(in.size());
  for (size_t d = 0; d < in.size(); ++d) before[d] = plan.pads[2 * d], after[d] = plan.pads[2 * d + 1];
  MergeWholeTrailingDims({&out, &in, &before, &after},
                         [&](size_t d) { return before[d] == 0 && after[d] == 0; });
  const char* src = static_cast<const char*>(TF_TensorData(plan.input.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  if (out.empty()) {  // a scalar
    std::memcpy(dst, src, e);
    return;
  }
  const int64_t width = out.back(), in_width = in.back(), lead = before.back();
  ForEachRow(out, in, width * e,
             [&](size_t d, int64_t i) {
               const int64_t j = i - before[d];
               return j >= 0 && j < in[d] ? j : -1;
             },
             [&](int64_t r, int64_t from) {
               char* row = dst + r * width * e;
               if (from < 0 || in_width == 0) {
                 FillPad(row, width, value, e);
                 return;
               }
               FillPad(row, lead, value, e);
               std::memcpy(row + lead * e, src + from * in_width * e, in_width * e);
               FillPad(row + (lead + in_width) * e, width - lead - in_width, value, e);
             });
}

void TileCompute(void*, TF_OpKernelContext* ctx) {
  kernels::TilePlan plan;
  if (!kernels::PlanTile(ctx, &plan)) return;
  TensorPtr output = AllocateLike(ctx, plan.input.get(), plan.out_dims);
  if (!output || NumElements(plan.out_dims) == 0) return;
  const int64_t e = ElementBytes(plan.input.get());
  std::vector<int64_t> in = plan.dims, out = plan.out_dims;
  MergeWholeTrailingDims({&out, &in}, [&](size_t d) { return out[d] == in[d]; });
  const char* src = static_cast<const char*>(TF_TensorData(plan.input.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  if (out.empty()) {  // a scalar
    std::memcpy(dst, src, e);
    return;
  }
  const int64_t width = out.back(), in_width = in.back();
  ForEachRow(out, in, width * e, [&](size_t d, int64_t i) { return i % in[d]; },
             [&](int64_t r, int64_t from) {
               // One copy of the input row, then copies of what is already written,
               // doubling up to a cache-sized multiple of the piece: a handful of memcpy
               // calls for any multiple (one per piece took seconds for narrow rows).
               char* row = dst + r * width * e;
               const int64_t piece = in_width * e, total = width * e;
               const int64_t block = std::max<int64_t>(piece, (int64_t{1} << 16) / piece * piece);
               std::memcpy(row, src + from * piece, piece);
               for (int64_t done = piece; done < total;) {
                 const int64_t n = std::min({done, block, total - done});
                 std::memcpy(row + done, row, n);
                 done += n;
               }
             });
}

// GatherV2: the attr, axis and output shape from ../gather_spec.h (shared with the
// CUDA plugin); the indices are checked here, before anything is written.
void GatherCompute(void*, TF_OpKernelContext* ctx) {
  kernels::GatherPlan plan;
  if (!kernels::PlanGather(ctx, &plan)) return;
  const int64_t limit = plan.dims[plan.axis];
  std::vector<int64_t> indices;
  if (TF_TensorType(plan.indices.get()) == TF_INT16) {
    const int16_t* p = static_cast<const int16_t*>(TF_TensorData(plan.indices.get()));
    indices.assign(p, p + TF_TensorElementCount(plan.indices.get()));
  } else {
    indices = IndexValues(plan.indices.get());
  }
  for (int64_t i : indices) {
    if (i < 0 || i >= limit) {
      Fail(ctx, TF_INVALID_ARGUMENT, "GatherV2: index " + std::to_string(i) + " is not in [0, " +
                                         std::to_string(limit) + ")");
      return;
    }
  }
  TensorPtr output = AllocateLike(ctx, plan.params.get(), plan.out_dims);
  if (!output) return;
  const int64_t run = plan.inner * ElementBytes(plan.params.get());
  const char* src = static_cast<const char*>(TF_TensorData(plan.params.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  const int64_t count = static_cast<int64_t>(indices.size());
  const int64_t* index = indices.data();
  ForGatherRows(plan.outer * count, run, [=](int64_t begin, int64_t end) {
    int64_t o = begin / count, k = begin % count;
    for (int64_t r = begin; r < end; ++r) {
      if (k + kPrefetchAhead < count) PrefetchRow(src + (o * limit + index[k + kPrefetchAhead]) * run, run);
      std::memcpy(dst + r * run, src + (o * limit + index[k]) * run, run);
      if (++k == count) k = 0, ++o;
    }
  });
}

// Copies the box of `input` (dims `dims`) that starts at `first` and takes count[d]
// elements step[d] apart (negative: backwards) along each dim into `output`, in order.
void CopyBox(const TF_Tensor* input, const std::vector<int64_t>& dims, const std::vector<int64_t>& first,
             const std::vector<int64_t>& step, const std::vector<int64_t>& count, TF_Tensor* output) {
  const int64_t e = ElementBytes(input);
  const char* src = static_cast<const char*>(TF_TensorData(input));
  char* dst = static_cast<char*>(TF_TensorData(output));
  if (NumElements(count) == 0) return;
  if (count.empty()) {  // a scalar
    std::memcpy(dst, src, e);
    return;
  }
  const int64_t width = count.back(), in_width = dims.back(), x0 = first.back(), dx = step.back();
  ForEachRow(count, dims, width * e, [&](size_t dim, int64_t i) { return first[dim] + i * step[dim]; },
             [&](int64_t r, int64_t from) {
               char* row = dst + r * width * e;
               const char* in_row = src + from * in_width * e;
               if (dx == 1) {
                 std::memcpy(row, in_row + x0 * e, width * e);
                 return;
               }
               for (int64_t i = 0; i < width; ++i) std::memcpy(row + i * e, in_row + (x0 + i * dx) * e, e);
             });
}

// numpy's basic indexing (strided_slice_spec.h resolves the spec); the copy is a walk
// over the box of input elements it selects.
void StridedSliceCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::StridedSlicePlan plan;
  if (!kernels::PlanStridedSlice(ctx, *static_cast<kernels::StridedSliceMasks*>(state), &plan)) return;
  const kernels::StridedSliceBox& box = plan.box;
  TensorPtr output = AllocateLike(ctx, plan.input.get(), box.out_dims);
  if (!output) return;
  CopyBox(plan.input.get(), plan.dims, box.first, box.step, box.count, output.get());
}

// ReverseV2: the whole tensor walked backwards along the reversed dims (slice_spec.h).
void ReverseCompute(void*, TF_OpKernelContext* ctx) {
  kernels::ReversePlan plan;
  if (!kernels::PlanReverse(ctx, &plan)) return;
  TensorPtr output = AllocateLike(ctx, plan.input.get(), plan.dims);
  if (!output) return;
  std::vector<int64_t> dims = plan.dims, first = plan.first, step = plan.step, count = plan.dims;
  // Trailing dims left in order copy as whole rows: merge the last into the one before
  // while both are unreversed (their first is 0; the step the merge scales is reset).
  MergeWholeTrailingDims({&count, &dims, &first, &step},
                         [&](size_t d) { return step[d] == 1 && step[d - 1] > 0; });
  for (int64_t& s : step) s = s < 0 ? -1 : 1;
  CopyBox(plan.input.get(), dims, first, step, count, output.get());
}

template <typename T>
struct RangeKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    T start, delta;
    int64_t n;
    if (!kernels::PlanRange(ctx, &start, &delta, &n)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, {n});
    if (!output) return;
    T* p = Data<T>(output);
    if constexpr (std::is_integral_v<T>) {
      // Wrapping unsigned arithmetic: i * delta can pass T's range on the way to a value
      // that is in it (start near one end of T's range, limit near the other).
      using U = std::make_unsigned_t<T>;
      for (int64_t i = 0; i < n; ++i)
        p[i] = static_cast<T>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(delta));
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = start + static_cast<T>(i) * delta;
    }
  }
};

}  // namespace

void RegisterSlicingKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) {
    for (TF_DataType index : {TF_INT32, TF_INT64}) {
      RegisterKernel(kDevice, {"Slice", {{"T", t}, {"Index", index}}, {}, SliceCompute}, status);
      RegisterKernel(kDevice, {"Pad", {{"T", t}, {"Tpaddings", index}}, {}, PadCompute<false>},
                     status);
      RegisterKernel(kDevice, {"PadV2", {{"T", t}, {"Tpaddings", index}}, {}, PadCompute<true>},
                     status);
      RegisterKernel(kDevice, {"Tile", {{"T", t}, {"Tmultiples", index}}, {}, TileCompute}, status);
    }
    for (TF_DataType indices : {TF_INT16, TF_INT32, TF_INT64}) {
      for (TF_DataType axis : {TF_INT32, TF_INT64}) {
        RegisterKernel(kDevice, {"GatherV2", {{"Tparams", t}, {"Tindices", indices}, {"Taxis", axis}},
            {}, GatherCompute, kernels::CreateGather}, status);
      }
    }
  }
  for (TF_DataType t : kAllFixedSizeTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"StridedSlice", {{"T", t}, {"Index", index}}, {},
          StridedSliceCompute, kernels::CreateStridedSliceMasks, kernels::DeleteStridedSliceMasks},
          status);
  for (TF_DataType t : kAllFixedSizeTypes) {
    for (TF_DataType index : {TF_INT32, TF_INT64}) {
      RegisterKernel(kDevice, {"ReverseV2", {{"T", t}, {"Tidx", index}}, {}, ReverseCompute}, status);
      // TF1-era Gather (axis 0, no batch_dims) over GatherV2's kernel.
      RegisterKernel(kDevice, {"Gather", {{"Tparams", t}, {"Tindices", index}}, {}, GatherCompute},
                     status);
    }
    // TF1-era Reverse (a bool flag per dim) over ReverseV2's kernel.
    RegisterKernel(kDevice, {"Reverse", {{"T", t}}, {}, ReverseCompute}, status);
  }
  RegisterKernel(kDevice, {"Range", {{"Tidx", TF_FLOAT}}, {}, &RangeKernel<float>::Compute}, status);
  RegisterKernel(kDevice, {"Range", {{"Tidx", TF_DOUBLE}}, {}, &RangeKernel<double>::Compute},
      status);
  RegisterKernel(kDevice, {"Range", {{"Tidx", TF_INT32}}, {}, &RangeKernel<int32_t>::Compute},
      status);
  RegisterKernel(kDevice, {"Range", {{"Tidx", TF_INT64}}, {}, &RangeKernel<int64_t>::Compute},
      status);
}

}  // namespace cpu
}  // namespace opgen

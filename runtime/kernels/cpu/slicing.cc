// Kernels that select or repeat parts of a tensor: Slice, Pad, Tile, GatherV2, and
// Range. Element copies go by byte size, so one kernel serves every dtype (Range is
// the exception: it computes values).
#include <cmath>
#include <cstring>

#include "../range_spec.h"
#include "../strided_slice_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

int64_t ElementBytes(const TF_Tensor* t) { return static_cast<int64_t>(TF_DataTypeSize(TF_TensorType(t))); }

TensorPtr AllocateLike(TF_OpKernelContext* ctx, const TF_Tensor* like, const std::vector<int64_t>& dims) {
  StatusPtr s = NewStatus();
  TF_Tensor* t = TF_AllocateOutput(ctx, 0, TF_TensorType(like), dims.data(), static_cast<int>(dims.size()),
                                   static_cast<size_t>(NumElements(dims) * ElementBytes(like)), s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s.get());
    return nullptr;
  }
  return TensorPtr(t);
}

// Calls visit(out_index, in_offset_elements) over every output element, where the input
// element is found through per-dimension `map(d, i)` (an input index, or -1 for none).
template <typename Map, typename Visit>
void ForEachOutput(const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_dims, Map map,
                   Visit visit) {
  const size_t rank = out_dims.size();
  std::vector<int64_t> in_strides(rank, 1), index(rank, 0);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in_dims[d];
  const int64_t n = NumElements(out_dims);
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    bool inside = true;
    for (size_t d = 0; d < rank && inside; ++d) {
      const int64_t j = map(d, index[d]);
      inside = j >= 0;
      src += j * in_strides[d];
    }
    visit(i, inside ? src : -1);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
}

void SliceCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0), begin_t = Input(ctx, 1), size_t_ = Input(ctx, 2);
  if (!input || !begin_t || !size_t_) return;
  std::vector<int64_t> dims = Dims(input.get()), begin = IndexValues(begin_t.get()),
                       size = IndexValues(size_t_.get());
  if (begin.size() != dims.size() || size.size() != dims.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Slice: begin and size must have one entry per dimension of " +
                                       ShapeString(dims));
    return;
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (size[d] == -1) size[d] = dims[d] - begin[d];
    if (begin[d] < 0 || size[d] < 0 || begin[d] + size[d] > dims[d]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Slice: begin " + ShapeString(begin) + " and size " +
                                         ShapeString(IndexValues(size_t_.get())) + " exceed shape " +
                                         ShapeString(dims));
      return;
    }
  }
  TensorPtr output = AllocateLike(ctx, input.get(), size);
  if (!output) return;
  const int64_t e = ElementBytes(input.get());
  const char* src = static_cast<const char*>(TF_TensorData(input.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  ForEachOutput(size, dims, [&](size_t d, int64_t i) { return begin[d] + i; },
                [&](int64_t i, int64_t from) { std::memcpy(dst + i * e, src + from * e, e); });
}

void PadCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0), pad_t = Input(ctx, 1);
  if (!input || !pad_t) return;
  std::vector<int64_t> dims = Dims(input.get()), pads = IndexValues(pad_t.get());
  if (pads.size() != 2 * dims.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Pad: paddings must have shape [" + std::to_string(dims.size()) +
                                       ", 2] for input of shape " + ShapeString(dims));
    return;
  }
  std::vector<int64_t> out(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Pad: paddings must be non-negative");
      return;
    }
    out[d] = dims[d] + pads[2 * d] + pads[2 * d + 1];
  }
  TensorPtr output = AllocateLike(ctx, input.get(), out);
  if (!output) return;
  const int64_t e = ElementBytes(input.get());
  const char* src = static_cast<const char*>(TF_TensorData(input.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  ForEachOutput(out, dims,
                [&](size_t d, int64_t i) {
                  const int64_t j = i - pads[2 * d];
                  return j >= 0 && j < dims[d] ? j : -1;
                },
                [&](int64_t i, int64_t from) {
                  if (from < 0) std::memset(dst + i * e, 0, e);
                  else std::memcpy(dst + i * e, src + from * e, e);
                });
}

void TileCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0), mult_t = Input(ctx, 1);
  if (!input || !mult_t) return;
  std::vector<int64_t> dims = Dims(input.get()), mult = IndexValues(mult_t.get());
  if (mult.size() != dims.size()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Tile: multiples must have one entry per dimension of " +
                                       ShapeString(dims) + ", got " + ShapeString(mult));
    return;
  }
  std::vector<int64_t> out(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (mult[d] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Tile: multiples must be non-negative, got " + ShapeString(mult));
      return;
    }
    out[d] = dims[d] * mult[d];
  }
  TensorPtr output = AllocateLike(ctx, input.get(), out);
  if (!output) return;
  const int64_t e = ElementBytes(input.get());
  const char* src = static_cast<const char*>(TF_TensorData(input.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  ForEachOutput(out, dims, [&](size_t d, int64_t i) { return i % dims[d]; },
                [&](int64_t i, int64_t from) { std::memcpy(dst + i * e, src + from * e, e); });
}

// batch_dims other than 0 are refused at construction, with a clear message.
void* CreateGather(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  int64_t batch_dims = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "batch_dims", &batch_dims, s.get());
  if (TF_GetCode(s.get()) == TF_OK && batch_dims != 0)
    TF_SetStatus(s.get(), TF_UNIMPLEMENTED, "GatherV2 with batch_dims != 0 is not implemented yet");
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return nullptr;
}

void GatherCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr params = Input(ctx, 0), indices_t = Input(ctx, 1), axis_t = Input(ctx, 2);
  if (!params || !indices_t || !axis_t) return;
  std::vector<int64_t> dims = Dims(params.get()), idims = Dims(indices_t.get());
  std::vector<int64_t> axis = IndexValues(axis_t.get());
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (axis.size() != 1 || axis[0] < -rank || axis[0] >= rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "GatherV2: axis must be a scalar in [" + std::to_string(-rank) +
                                       ", " + std::to_string(rank) + ")");
    return;
  }
  const int64_t a = axis[0] < 0 ? axis[0] + rank : axis[0];
  std::vector<int64_t> indices;
  if (TF_TensorType(indices_t.get()) == TF_INT16) {
    const int16_t* p = static_cast<const int16_t*>(TF_TensorData(indices_t.get()));
    indices.assign(p, p + TF_TensorElementCount(indices_t.get()));
  } else {
    indices = IndexValues(indices_t.get());
  }
  for (int64_t i : indices) {
    if (i < 0 || i >= dims[a]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "GatherV2: index " + std::to_string(i) + " is not in [0, " +
                                         std::to_string(dims[a]) + ")");
      return;
    }
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < a; ++d) outer *= dims[d];
  for (int64_t d = a + 1; d < rank; ++d) inner *= dims[d];
  std::vector<int64_t> out(dims.begin(), dims.begin() + a);
  out.insert(out.end(), idims.begin(), idims.end());
  out.insert(out.end(), dims.begin() + a + 1, dims.end());
  TensorPtr output = AllocateLike(ctx, params.get(), out);
  if (!output) return;
  const int64_t run = inner * ElementBytes(params.get());
  const char* src = static_cast<const char*>(TF_TensorData(params.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : indices) {
      std::memcpy(dst, src + (o * dims[a] + i) * run, run);
      dst += run;
    }
}

// numpy's basic indexing (strided_slice_spec.h resolves the spec); the copy is a walk
// over the box of input elements it selects.
void StridedSliceCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& m = *static_cast<kernels::StridedSliceMasks*>(state);
  TensorPtr input = Input(ctx, 0), begin_t = Input(ctx, 1), end_t = Input(ctx, 2), strides_t = Input(ctx, 3);
  if (!input || !begin_t || !end_t || !strides_t) return;
  const std::vector<int64_t> dims = Dims(input.get());
  kernels::StridedSliceBox box;
  if (!kernels::ResolveStridedSlice(ctx, m, dims, IndexValues(begin_t.get()), IndexValues(end_t.get()),
                                    IndexValues(strides_t.get()), &box))
    return;
  const std::vector<int64_t>& first = box.first;
  const std::vector<int64_t>& step = box.step;
  const std::vector<int64_t>& count = box.count;
  const std::vector<int64_t>& out_dims = box.out_dims;
  TensorPtr output = AllocateLike(ctx, input.get(), out_dims);
  if (!output) return;
  const int64_t e = ElementBytes(input.get());
  const char* src = static_cast<const char*>(TF_TensorData(input.get()));
  char* dst = static_cast<char*>(TF_TensorData(output.get()));
  ForEachOutput(count, dims, [&](size_t dim, int64_t i) { return first[dim] + i * step[dim]; },
                [&](int64_t i, int64_t from) { std::memcpy(dst + i * e, src + from * e, e); });
}

template <typename T>
struct RangeKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr start_t = Input(ctx, 0), limit_t = Input(ctx, 1), delta_t = Input(ctx, 2);
    if (!start_t || !limit_t || !delta_t) return;
    T start, delta;
    int64_t n;
    if (!kernels::PlanRange(ctx, start_t, limit_t, delta_t, &start, &delta, &n)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, {n});
    if (!output) return;
    T* p = Data<T>(output);
    for (int64_t i = 0; i < n; ++i) p[i] = start + static_cast<T>(i) * delta;
  }
};

}  // namespace

void RegisterSlicingKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) {
    for (TF_DataType index : {TF_INT32, TF_INT64}) {
      RegisterKernel2("Slice", "T", t, "Index", index, SliceCompute, status);
      RegisterKernel2("Pad", "T", t, "Tpaddings", index, PadCompute, status);
      RegisterKernel2("Tile", "T", t, "Tmultiples", index, TileCompute, status);
    }
    for (TF_DataType indices : {TF_INT16, TF_INT32, TF_INT64}) {
      for (TF_DataType axis : {TF_INT32, TF_INT64}) {
        if (TF_GetCode(status) != TF_OK) return;
        TF_KernelBuilder* b = TF_NewKernelBuilder("GatherV2", "CPU", CreateGather, GatherCompute, nullptr);
        TF_KernelBuilder_TypeConstraint(b, "Tparams", t, status);
        TF_KernelBuilder_TypeConstraint(b, "Tindices", indices, status);
        TF_KernelBuilder_TypeConstraint(b, "Taxis", axis, status);
        TF_RegisterKernelBuilder("GatherV2_CPU", b, status);
      }
    }
  }
  for (TF_DataType t : kAllFixedSizeTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64})
      RegisterKernel2("StridedSlice", "T", t, "Index", index, StridedSliceCompute, status,
                      kernels::CreateStridedSliceMasks, kernels::DeleteStridedSliceMasks);
  RegisterKernel("Range", "Tidx", TF_FLOAT, &RangeKernel<float>::Compute, status);
  RegisterKernel("Range", "Tidx", TF_DOUBLE, &RangeKernel<double>::Compute, status);
  RegisterKernel("Range", "Tidx", TF_INT32, &RangeKernel<int32_t>::Compute, status);
  RegisterKernel("Range", "Tidx", TF_INT64, &RangeKernel<int64_t>::Compute, status);
}

}  // namespace cpu
}  // namespace opgen

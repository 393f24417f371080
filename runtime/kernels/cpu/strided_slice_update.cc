// TensorStridedSliceUpdate (a copy of the input with a strided slice replaced) and
// ResourceStridedSliceAssign (the same, in a variable, under its lock): the slice spec
// and the value's broadcast are planned by ../strided_slice_spec.h, StridedSlice's; the
// kernels only move bytes, so one serves every fixed-size type.
#include <cstring>

#include "../strided_slice_spec.h"
#include "kernel_util.h"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cpu {
namespace {

// The operands after the input (begin, end, strides, value), read once.
struct SliceUpdateArgs {
  const char* op;
  const kernels::StridedSliceMasks* masks;
  std::vector<int64_t> begin, end, strides;
  const TF_Tensor* value;
};

// Writes the (broadcast) value into the slice of `dst` (shape `dims`), whose element i,
// in the slice's order, is element i of the value broadcast to box.out_dims.
void WriteSlice(char* dst, const std::vector<int64_t>& dims, const kernels::StridedSliceBox& box,
                const char* src, const std::vector<int64_t>& value_strides, size_t e) {
  const int64_t n = NumElements(box.count);
  const size_t rank = dims.size(), out_rank = box.out_dims.size();
  std::vector<int64_t> stride(rank, 1), index(rank, 0), out_index(out_rank, 0);
  for (size_t k = rank; k-- > 1;) stride[k - 1] = stride[k] * dims[k];
  int64_t from = 0;  // the value's element for out_index
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = 0;
    for (size_t k = 0; k < rank; ++k) at += (box.first[k] + index[k] * box.step[k]) * stride[k];
    std::memcpy(dst + at * e, src + from * e, e);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < box.count[k]) break;
      index[k] = 0;
    }
    for (size_t k = out_rank; k-- > 0;) {
      from += value_strides[k];
      if (++out_index[k] < box.out_dims[k]) break;
      from -= value_strides[k] * out_index[k];
      out_index[k] = 0;
    }
  }
}

// Plans the slice of a tensor of shape `dims` and copies `old` into `out` (unless they
// are the same buffer), then writes the value. Errors (before any write) in `error`.
bool UpdateSlice(const SliceUpdateArgs& a, const TF_Tensor* old, TF_Tensor* out,
                 std::string* error) {
  const std::vector<int64_t> dims = Dims(old);
  kernels::StridedSliceBox box;
  std::vector<int64_t> value_strides;
  if (!kernels::ResolveStridedSliceSpec(*a.masks, dims, a.begin, a.end, a.strides, &box, error) ||
      !kernels::PlanSliceValue(box, Dims(a.value), &value_strides, error)) {
    *error = std::string(a.op) + ": " + *error;
    return false;
  }
  char* dst = static_cast<char*>(TF_TensorData(out));
  const char* base = static_cast<const char*>(TF_TensorData(old));
  if (dst != base && TF_TensorByteSize(old) > 0) std::memcpy(dst, base, TF_TensorByteSize(old));
  WriteSlice(dst, dims, box, static_cast<const char*>(TF_TensorData(a.value)), value_strides,
             TF_DataTypeSize(TF_TensorType(old)));
  return true;
}

bool ReadArgs(TF_OpKernelContext* ctx, void* state, const char* op, SliceUpdateArgs* a,
              TensorPtr* value) {
  TensorPtr begin = Input(ctx, 1), end = Input(ctx, 2), strides = Input(ctx, 3);
  *value = Input(ctx, 4);
  if (!begin || !end || !strides || !*value) return false;
  *a = {op, static_cast<kernels::StridedSliceMasks*>(state), IndexValues(begin.get()),
        IndexValues(end.get()), IndexValues(strides.get()), value->get()};
  return true;
}

void TensorStridedSliceUpdateCompute(void* state, TF_OpKernelContext* ctx) {
  SliceUpdateArgs a;
  TensorPtr value, input = Input(ctx, 0);
  if (!input || !ReadArgs(ctx, state, "TensorStridedSliceUpdate", &a, &value)) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(input.get()), Dims(input.get()));
  if (!out) return;
  std::string error;
  if (!UpdateSlice(a, input.get(), out.get(), &error)) Fail(ctx, TF_INVALID_ARGUMENT, error);
}

void AssignUpdate(const TF_Tensor* old_value, TF_Tensor* new_value, void* arg, TF_Status* s) {
  std::string error;
  if (!UpdateSlice(*static_cast<const SliceUpdateArgs*>(arg), old_value, new_value, &error))
    TF_SetStatus(s, TF_INVALID_ARGUMENT, error.c_str());
}

void ResourceStridedSliceAssignCompute(void* state, TF_OpKernelContext* ctx) {
  SliceUpdateArgs a;
  TensorPtr value;
  if (!ReadArgs(ctx, state, "ResourceStridedSliceAssign", &a, &value)) return;
  StatusPtr s = NewStatus();
  OPGEN_KernelUpdateVariable(ctx, 0, TF_TensorType(value.get()), AssignUpdate, &a, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

}  // namespace

void RegisterStridedSliceUpdateKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64}) {
      RegisterKernel(kDevice, {"TensorStridedSliceUpdate", {{"T", t}, {"Index", index}}, {},
          TensorStridedSliceUpdateCompute, kernels::CreateStridedSliceMasks,
          kernels::DeleteStridedSliceMasks}, status);
      RegisterKernel(kDevice, {"ResourceStridedSliceAssign", {{"T", t}, {"Index", index}},
          {"ref"}, ResourceStridedSliceAssignCompute, kernels::CreateStridedSliceMasks,
          kernels::DeleteStridedSliceMasks}, status);
    }
}

}  // namespace cpu
}  // namespace opgen

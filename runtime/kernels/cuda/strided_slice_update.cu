// TensorStridedSliceUpdate and ResourceStridedSliceAssign on the GPU, twins of
// ../cpu/strided_slice_update.cc: the spec and the value's broadcast planned on the host by
// ../strided_slice_spec.h (begin/end/strides are host memory), the copy of the base and the
// write of the slice on the device, by element size.
#include <string>
#include <vector>

#include "../strided_slice_spec.h"
#include "cuda_kernel_util.h"
#include "opgen/c_api_ext.h"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {
namespace {

constexpr int kMaxDims = 8;

// Per input dim: the slice's first index, step, count, the dim's stride, and the value's
// stride along it (0 where the value is broadcast or the dim is dropped).
struct UpdateBox {
  int rank = 0;
  int64_t first[kMaxDims] = {}, step[kMaxDims] = {}, count[kMaxDims] = {},
          stride[kMaxDims] = {}, vstride[kMaxDims] = {};
};

template <typename W>
__global__ void WriteSliceKernel(const W* value, W* out, int64_t n, UpdateBox box) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    int64_t r = i, at = 0, from = 0;
    for (int k = box.rank - 1; k >= 0; --k) {
      const int64_t index = r % box.count[k];
      at += (box.first[k] + index * box.step[k]) * box.stride[k];
      from += index * box.vstride[k];
      r /= box.count[k];
    }
    out[at] = value[from];
  }
}

struct SliceUpdateArgs {
  TF_OpKernelContext* ctx;
  const char* op;
  const kernels::StridedSliceMasks* masks;
  std::vector<int64_t> begin, end, strides;
  const TF_Tensor* value;
};

// Plans the slice of `old` and writes the value into `out` (a copy of `old` first, unless
// they are one buffer). Errors (before any write) in `error`.
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
  const int rank = static_cast<int>(dims.size());
  if (rank > kMaxDims) {
    *error = std::string(a.op) + ": more than " + std::to_string(kMaxDims) +
             " dimensions on the GPU";
    return false;
  }
  cudaStream_t stream = GetStream(a.ctx);
  if (stream == nullptr) return true;  // the failure is reported
  if (TF_TensorData(out) != TF_TensorData(old) &&
      !CheckCuda(a.ctx, cudaMemcpyAsync(TF_TensorData(out), TF_TensorData(old),
                                        TF_TensorByteSize(old), cudaMemcpyDeviceToDevice, stream),
                 a.op))
    return true;
  const int64_t n = NumElements(box.count);
  if (n == 0) return true;
  // The dims of more than one element, in order, are the same in the slice's box and its
  // shape (dropped dims and new axes have one): pair them up for the value's strides.
  UpdateBox b;
  b.rank = rank;
  int64_t stride = 1;
  for (int k = rank - 1; k >= 0; --k) {
    b.first[k] = box.first[k], b.step[k] = box.step[k], b.count[k] = box.count[k];
    b.stride[k] = stride;
    stride *= dims[k];
  }
  for (int k = 0, j = 0; k < rank; ++k) {
    if (box.count[k] == 1) continue;
    while (box.out_dims[j] == 1) ++j;
    b.vstride[k] = value_strides[j++];
  }
  const void* src = TF_TensorData(a.value);
  void* dst = TF_TensorData(out);
  switch (TF_DataTypeSize(TF_TensorType(old))) {
    case 1: WriteSliceKernel<uint8_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), n, b); break;
    case 2: WriteSliceKernel<uint16_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), n, b); break;
    case 4: WriteSliceKernel<uint32_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), n, b); break;
    case 8: WriteSliceKernel<uint64_t><<<BlocksFor(n), kThreads, 0, stream>>>(
                static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), n, b); break;
    default: WriteSliceKernel<double2><<<BlocksFor(n), kThreads, 0, stream>>>(
                 static_cast<const double2*>(src), static_cast<double2*>(dst), n, b); break;
  }
  CheckLaunch(a.ctx, a.op);
  return true;
}

bool ReadArgs(TF_OpKernelContext* ctx, void* state, const char* op, SliceUpdateArgs* a,
              TensorPtr* value) {
  TensorPtr begin = Input(ctx, 1), end = Input(ctx, 2), strides = Input(ctx, 3);
  *value = Input(ctx, 4);
  if (!begin || !end || !strides || !*value) return false;
  *a = {ctx, op, static_cast<kernels::StridedSliceMasks*>(state), IndexValues(begin.get()),
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

// The CPU kernels' registrations (../cpu/strided_slice_update.cc); begin/end/strides (and
// the handle) in host memory.
void RegisterStridedSliceUpdateKernels(TF_Status* status) {
  for (TF_DataType t : {TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32,
                        TF_INT64, TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL,
                        TF_COMPLEX64, TF_COMPLEX128})
    for (TF_DataType index : {TF_INT32, TF_INT64}) {
      RegisterKernel(kDevice, {"TensorStridedSliceUpdate", {{"T", t}, {"Index", index}},
          {"begin", "end", "strides"}, TensorStridedSliceUpdateCompute,
          kernels::CreateStridedSliceMasks, kernels::DeleteStridedSliceMasks}, status);
      RegisterKernel(kDevice, {"ResourceStridedSliceAssign", {{"T", t}, {"Index", index}},
          {"ref", "begin", "end", "strides"}, ResourceStridedSliceAssignCompute,
          kernels::CreateStridedSliceMasks, kernels::DeleteStridedSliceMasks}, status);
    }
}

}  // namespace cuda
}  // namespace opgen

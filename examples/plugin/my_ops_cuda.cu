/* The GPU kernel of WeightedSum, built into libmy_ops.so when CMake finds nvcc.
 *
 * It registers like the CPU kernel, with device "GPU". Inputs and the output live in
 * device memory; the work is queued on the device's stream, which TF_GetStream gives
 * (opgen/cuda_stream.h says what it points to). The weights travel to the kernel as a
 * by-value argument, so no copy or synchronisation is needed. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "opgen/cuda_stream.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_tensor.h"

namespace {

constexpr int kMaxValues = 8;  // values summed per launch; more are summed in rounds

template <typename T>
struct Batch {
  const T* values[kMaxValues];
  float weights[kMaxValues];
  int count;
};

// sum[j] (+)= sum_i weights[i] * values[i][j]; `accumulate` keeps the earlier rounds.
template <typename T>
__global__ void WeightedSumKernel(Batch<T> batch, T* sum, long long size, bool accumulate) {
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < size;
       j += (long long)gridDim.x * blockDim.x) {
    T acc = accumulate ? sum[j] : T(0);
    for (int i = 0; i < batch.count; ++i) acc += T(batch.weights[i]) * batch.values[i][j];
    sum[j] = acc;
  }
}

struct Kernel {
  int count;
  float* weights;
};

void* Create(TF_OpKernelConstruction* ctx) {
  TF_Status* status = TF_NewStatus();
  Kernel* k = new Kernel{0, nullptr};
  int64_t n = 0;
  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "N", &n, status);
  if (TF_GetCode(status) == TF_OK)
    TF_OpKernelConstruction_GetAttrSize(ctx, "weights", &list_size, &total_size, status);
  if (TF_GetCode(status) == TF_OK && list_size != n)
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "WeightedSum got a weight count other than N");
  if (TF_GetCode(status) == TF_OK) {
    k->count = static_cast<int>(n);
    k->weights = new float[n > 0 ? n : 1];
    TF_OpKernelConstruction_GetAttrFloatList(ctx, "weights", k->weights, k->count, status);
  }
  if (TF_GetCode(status) != TF_OK) TF_OpKernelConstruction_Failure(ctx, status);
  TF_DeleteStatus(status);
  return k;
}

void Delete(void* kernel) {
  Kernel* k = static_cast<Kernel*>(kernel);
  delete[] k->weights;
  delete k;
}

template <typename T>
void Compute(void* kernel, TF_OpKernelContext* ctx) {
  const Kernel* k = static_cast<const Kernel*>(kernel);
  TF_Status* status = TF_NewStatus();
  SP_Stream sp = TF_GetStream(ctx, status);
  cudaStream_t stream = static_cast<cudaStream_t>(OPGEN_CudaStreamOf(sp));
  TF_Tensor* first = nullptr;
  TF_Tensor* out = nullptr;
  if (TF_GetCode(status) == TF_OK) TF_GetInput(ctx, 0, &first, status);
  if (TF_GetCode(status) == TF_OK) {
    int64_t dims[16];
    const int rank = TF_NumDims(first);
    for (int d = 0; d < rank && d < 16; ++d) dims[d] = TF_Dim(first, d);
    if (rank > 16) TF_SetStatus(status, TF_UNIMPLEMENTED, "WeightedSum supports rank 16 at most");
    else out = TF_AllocateOutput(ctx, 0, TF_TensorType(first), dims, rank,
                                 TF_TensorByteSize(first), status);
  }
  const long long size = out ? TF_TensorElementCount(out) : 0;
  for (int start = 0; TF_GetCode(status) == TF_OK && start < k->count; start += kMaxValues) {
    Batch<T> batch{};
    TF_Tensor* held[kMaxValues] = {};
    batch.count = k->count - start < kMaxValues ? k->count - start : kMaxValues;
    for (int i = 0; i < batch.count && TF_GetCode(status) == TF_OK; ++i) {
      TF_GetInput(ctx, start + i, &held[i], status);
      if (TF_GetCode(status) != TF_OK) break;
      if (TF_TensorElementCount(held[i]) != size || TF_NumDims(held[i]) != TF_NumDims(first))
        TF_SetStatus(status, TF_INVALID_ARGUMENT, "WeightedSum needs values of one shape");
      batch.values[i] = static_cast<const T*>(TF_TensorData(held[i]));
      batch.weights[i] = k->weights[start + i];
    }
    if (TF_GetCode(status) == TF_OK && size > 0) {
      const int threads = 256;
      const long long blocks = (size + threads - 1) / threads < 4096 ? (size + threads - 1) / threads : 4096;
      WeightedSumKernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
          batch, static_cast<T*>(TF_TensorData(out)), size, start > 0);
      cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess) TF_SetStatus(status, TF_INTERNAL, cudaGetErrorString(err));
    }
    for (TF_Tensor* t : held) TF_DeleteTensor(t);
  }
  if (TF_GetCode(status) != TF_OK) TF_OpKernelContext_Failure(ctx, status);
  TF_DeleteTensor(out);
  TF_DeleteTensor(first);
  TF_DeleteStatus(status);
}

}  // namespace

/* Called by my_ops.c's constructor after it registered the op. */
extern "C" void my_ops_register_gpu_kernels(TF_Status* status) {
  struct { TF_DataType type; void (*compute)(void*, TF_OpKernelContext*); } kernels[] = {
      {TF_FLOAT, &Compute<float>}, {TF_DOUBLE, &Compute<double>}};
  for (const auto& k : kernels) {
    if (TF_GetCode(status) != TF_OK) return;
    TF_KernelBuilder* b = TF_NewKernelBuilder("WeightedSum", "GPU", &Create, k.compute, &Delete);
    TF_KernelBuilder_TypeConstraint(b, "T", k.type, status);
    if (TF_GetCode(status) != TF_OK) {
      TF_DeleteKernelBuilder(b);
      return;
    }
    TF_RegisterKernelBuilder("WeightedSumOp", b, status);
  }
}

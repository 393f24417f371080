// Bincount and DenseBincount on the GPU: the CPU kernels' checks (../bincount_spec.h),
// then one thread per value adding into its bin with atomicAdd (binary_output stores 1).
// Values of size or more are left out, as on the CPU; negative values are left out too
// (a device-side check would need a round trip; TensorFlow's GPU kernels skip them alike).
#include "../bincount_spec.h"
#include "cuda_kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cuda {
namespace {

// atomicAdd for the bin types: int64 through its unsigned twin (two's complement adds alike).
__device__ inline void AddTo(int32_t* bin, int32_t v) { atomicAdd(bin, v); }
__device__ inline void AddTo(int64_t* bin, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(bin), static_cast<unsigned long long>(v));
}
__device__ inline void AddTo(float* bin, float v) { atomicAdd(bin, v); }
__device__ inline void AddTo(double* bin, double v) { atomicAdd(bin, v); }

template <typename Tidx, typename T>
__global__ void CountKernel(const Tidx* values, const T* weights, T* out, int64_t n,
                            int64_t per_row, int64_t size, bool binary) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t v = static_cast<int64_t>(values[i]);
    if (v < 0 || v >= size) continue;
    T* bin = out + (i / per_row) * size + v;
    if (binary) *bin = T(1);  // every writer stores the same value
    else AddTo(bin, weights ? weights[i] : T(1));
  }
}

template <typename Tidx, typename T>
void Count(TF_OpKernelContext* ctx, bool dense, bool binary) {
  const char* op = dense ? "DenseBincount" : "Bincount";
  kernels::BincountPlan p;
  if (!kernels::PlanBincount<Tidx>(ctx, dense, &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
  if (!out) return;
  const int64_t bins = NumElements(p.out_dims), n = p.rows * p.per_row;
  if (bins == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  if (!CheckCuda(ctx, cudaMemsetAsync(Data<T>(out), 0, bins * sizeof(T), stream), op)) return;
  if (n == 0) return;
  CountKernel<Tidx, T><<<BlocksFor(n), kThreads, 0, stream>>>(
      Data<Tidx>(p.values.get()), p.weighted ? Data<T>(p.weights.get()) : nullptr, Data<T>(out),
      n, p.per_row, p.size, binary);
  CheckLaunch(ctx, op);
}

void* CreateDense(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool binary = kernels::BoolAttr(ctx, "binary_output", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new bool(binary);
}
void DeleteDense(void* b) { delete static_cast<bool*>(b); }

template <typename Tidx, typename T>
void DenseCompute(void* state, TF_OpKernelContext* ctx) {
  Count<Tidx, T>(ctx, true, *static_cast<bool*>(state));
}
template <typename T> struct BincountKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) { Count<int32_t, T>(ctx, false, false); }
};

template <typename Tidx, typename... Ts>
void RegisterDense(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"DenseBincount",
                            {{"Tidx", DtypeOf<Tidx>::value}, {"T", DtypeOf<Ts>::value}}, {"size"},
                            &DenseCompute<Tidx, Ts>, CreateDense, DeleteDense}, status), ...);
}

using BinTypes = Types<int32_t, int64_t, float, double>;

}  // namespace

// The CPU kernels' registrations (kernels/cpu/bincount.cc), `size` in host memory.
void RegisterBincountKernels(TF_Status* status) {
  RegisterForTypes<BincountKernel>(kDevice, "Bincount", BinTypes(), status, {"size"});
  RegisterDense<int32_t>(BinTypes(), status);
  RegisterDense<int64_t>(BinTypes(), status);
}

}  // namespace cuda
}  // namespace opgen

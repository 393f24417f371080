// Bincount, DenseBincount, RaggedBincount, SparseBincount on the GPU: the CPU kernels'
// checks and rows (../bincount_spec.h), then one thread per value adding into its bin
// with atomicAdd (binary_output stores 1). Values of size or more are left out, as on the
// CPU; negative values are left out too (a device-side check would need a round trip;
// TensorFlow's GPU kernels skip them alike).
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

// row_of: each value's row (RaggedBincount, SparseBincount), or null: row i / per_row.
template <typename Tidx, typename T>
__global__ void CountKernel(const Tidx* values, const T* weights, const int64_t* row_of, T* out,
                            int64_t n, int64_t per_row, int64_t size, bool binary) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t v = static_cast<int64_t>(values[i]);
    if (v < 0 || v >= size) continue;
    T* bin = out + (row_of ? row_of[i] : i / per_row) * size + v;
    if (binary) *bin = T(1);  // every writer stores the same value
    else AddTo(bin, weights ? weights[i] : T(1));
  }
}

enum class Kind { kBincount, kDense, kRagged, kSparse };

const char* OpName(Kind k) {
  switch (k) {
    case Kind::kBincount: return "Bincount";
    case Kind::kDense: return "DenseBincount";
    case Kind::kRagged: return "RaggedBincount";
    default: return "SparseBincount";
  }
}

template <typename Tidx>
bool Plan(TF_OpKernelContext* ctx, Kind kind, kernels::BincountPlan* p) {
  switch (kind) {
    case Kind::kRagged: return kernels::PlanRaggedBincount<Tidx>(ctx, p);
    case Kind::kSparse: return kernels::PlanSparseBincount<Tidx>(ctx, p);
    default: return kernels::PlanBincount<Tidx>(ctx, kind == Kind::kDense, p);
  }
}

template <typename Tidx, typename T>
void Count(TF_OpKernelContext* ctx, Kind kind, bool binary) {
  const char* op = OpName(kind);
  kernels::BincountPlan p;
  if (!Plan<Tidx>(ctx, kind, &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims);
  if (!out) return;
  const int64_t bins = NumElements(p.out_dims), n = p.count;
  if (bins == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  if (!CheckCuda(ctx, cudaMemsetAsync(Data<T>(out), 0, bins * sizeof(T), stream), op)) return;
  if (n == 0) return;
  TensorPtr rows;  // the host-computed rows, copied over (pageable: staged before return)
  if (!p.row_of.empty()) {
    rows = AllocateTemp(ctx, TF_INT64, {n});
    if (!rows || !CheckCuda(ctx, cudaMemcpyAsync(Data<int64_t>(rows), p.row_of.data(), n * 8,
                                                 cudaMemcpyHostToDevice, stream), op))
      return;
  }
  CountKernel<Tidx, T><<<BlocksFor(n), kThreads, 0, stream>>>(
      Data<Tidx>(p.values.get()), p.weighted ? Data<T>(p.weights.get()) : nullptr,
      rows ? Data<int64_t>(rows) : nullptr, Data<T>(out), n, p.per_row, p.size, binary);
  CheckLaunch(ctx, op);
}

template <Kind kKind, typename Tidx, typename T>
void BinaryCompute(void* state, TF_OpKernelContext* ctx) {
  Count<Tidx, T>(ctx, kKind, *static_cast<bool*>(state));
}
template <typename T> struct BincountKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    Count<int32_t, T>(ctx, Kind::kBincount, false);
  }
};

template <Kind kKind, typename Tidx, typename... Ts>
void RegisterWithTidx(const std::vector<const char*>& host, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {OpName(kKind),
                            {{"Tidx", DtypeOf<Tidx>::value}, {"T", DtypeOf<Ts>::value}}, host,
                            &BinaryCompute<kKind, Tidx, Ts>, kernels::CreateBinaryOutputState, kernels::DeleteBinaryOutputState}, status),
   ...);
}

using BinTypes = Types<int32_t, int64_t, float, double>;

// HistogramFixedWidth: one thread per value adding 1 to its bin (../bincount_spec.h);
// integer counts, so the order of the atomics does not matter.
template <typename T, typename Out>
__global__ void HistogramKernel(const T* values, Out* bins, int64_t n, T lo, double step, int64_t nbins) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    AddTo(bins + kernels::HistogramBin(values[i], lo, step, nbins), Out(1));
}

template <typename T, typename Out>
void HistogramCompute(void*, TF_OpKernelContext* ctx) {
  kernels::HistogramPlan p;
  T lo{};
  if (!kernels::PlanHistogram<T>(ctx, &p, &lo)) return;
  TensorPtr out = AllocateOutput<Out>(ctx, 0, {p.nbins});
  if (!out) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  if (!CheckCuda(ctx, cudaMemsetAsync(Data<Out>(out), 0, p.nbins * sizeof(Out), stream),
                 "HistogramFixedWidth"))
    return;
  if (p.count == 0) return;
  HistogramKernel<T, Out><<<BlocksFor(p.count), kThreads, 0, stream>>>(
      Data<T>(p.values.get()), Data<Out>(out), p.count, lo, p.step, p.nbins);
  CheckLaunch(ctx, "HistogramFixedWidth");
}

template <typename... Ts>
void RegisterHistogram(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"HistogramFixedWidth", {{"T", DtypeOf<Ts>::value}, {"dtype", TF_INT32}},
                            {"value_range", "nbins"}, &HistogramCompute<Ts, int32_t>}, status), ...);
  (RegisterKernel(kDevice, {"HistogramFixedWidth", {{"T", DtypeOf<Ts>::value}, {"dtype", TF_INT64}},
                            {"value_range", "nbins"}, &HistogramCompute<Ts, int64_t>}, status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/bincount.cc); `size`, the ragged splits
// and the sparse indices and shape in host memory, where the rows are worked out.
void RegisterBincountKernels(TF_Status* status) {
  RegisterForTypes<BincountKernel>(kDevice, "Bincount", BinTypes(), status, {"size"});
  RegisterWithTidx<Kind::kDense, int32_t>({"size"}, BinTypes(), status);
  RegisterWithTidx<Kind::kDense, int64_t>({"size"}, BinTypes(), status);
  RegisterWithTidx<Kind::kRagged, int32_t>({"splits", "size"}, BinTypes(), status);
  RegisterWithTidx<Kind::kRagged, int64_t>({"splits", "size"}, BinTypes(), status);
  RegisterWithTidx<Kind::kSparse, int32_t>({"indices", "dense_shape", "size"}, BinTypes(), status);
  RegisterWithTidx<Kind::kSparse, int64_t>({"indices", "dense_shape", "size"}, BinTypes(), status);
  RegisterHistogram(BinTypes(), status);
}

}  // namespace cuda
}  // namespace opgen

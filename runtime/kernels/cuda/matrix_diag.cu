// MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3 and L2Loss on the GPU: the CPU kernels'
// checks and index maps (../matrix_diag_spec.h), one thread per output element, each
// element moved as an opaque word of its width. k, num_rows, num_cols and padding_value
// live in host memory, as in TensorFlow. L2Loss: per-block sums of squares in double,
// added atomically, then halved into T.
#include <cstring>
#include <utility>
#include <vector>

#include "../matrix_diag_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"

namespace opgen {
namespace cuda {
namespace {

using Align = std::pair<bool, bool>;

template <typename W>
__global__ void DiagPartKernel(const W* in, W* out, int64_t total, kernels::DiagBand b, W pad) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = n % b.max_len, md = n / b.max_len;
    const int64_t src = kernels::DiagSourceOf(b, md / b.num_diags(), md % b.num_diags(), j);
    out[n] = src < 0 ? pad : in[src];
  }
}

// MatrixDiagV3 (`base` null: padding outside the band) and MatrixSetDiagV3 (`base`: the
// input outside the band).
template <typename W>
__global__ void DiagKernel(const W* diag, const W* base, W* out, int64_t total,
                           kernels::DiagBand b, W pad) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = n % b.cols, mr = n / b.cols;
    const int64_t slot = kernels::DiagSlotOf(b, mr / b.rows, mr % b.rows, c);
    out[n] = slot >= 0 ? diag[slot] : (base != nullptr ? base[n] : pad);
  }
}

template <typename W>
W WordOf(const std::vector<char>& bytes) {
  W w{};
  std::memcpy(&w, bytes.data(), sizeof(W));
  return w;
}

void DiagPartCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::DiagPartPlan p;
  if (!kernels::PlanDiagPart(ctx, *static_cast<Align*>(state), &p)) return;
  const TF_DataType dtype = TF_TensorType(p.input.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.out_dims);
  const int64_t total = p.matrices * p.band.num_diags() * p.band.max_len;
  if (!out || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    DiagPartKernel<W><<<BlocksFor(total), kThreads, 0, stream>>>(
        static_cast<const W*>(TF_TensorData(p.input.get())), static_cast<W*>(TF_TensorData(out.get())),
        total, p.band, WordOf<W>(p.padding));
  });
  CheckLaunch(ctx, "MatrixDiagPartV3");
}

void DiagCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::DiagPlan p;
  if (!kernels::PlanDiag(ctx, *static_cast<Align*>(state), &p)) return;
  const TF_DataType dtype = TF_TensorType(p.diagonal.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.out_dims);
  const int64_t total = p.matrices * p.band.rows * p.band.cols;
  if (!out || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    DiagKernel<W><<<BlocksFor(total), kThreads, 0, stream>>>(
        static_cast<const W*>(TF_TensorData(p.diagonal.get())), nullptr,
        static_cast<W*>(TF_TensorData(out.get())), total, p.band, WordOf<W>(p.padding));
  });
  CheckLaunch(ctx, "MatrixDiagV3");
}

void SetDiagCompute(void* state, TF_OpKernelContext* ctx) {
  kernels::SetDiagPlan p;
  if (!kernels::PlanSetDiag(ctx, *static_cast<Align*>(state), &p)) return;
  const TF_DataType dtype = TF_TensorType(p.input.get());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, dtype, p.dims);
  const int64_t total = p.matrices * p.band.rows * p.band.cols;
  if (!out || total == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    DiagKernel<W><<<BlocksFor(total), kThreads, 0, stream>>>(
        static_cast<const W*>(TF_TensorData(p.diagonal.get())),
        static_cast<const W*>(TF_TensorData(p.input.get())),
        static_cast<W*>(TF_TensorData(out.get())), total, p.band, W{});
  });
  CheckLaunch(ctx, "MatrixSetDiagV3");
}

template <typename T>
__global__ void SquareSumKernel(const T* x, int64_t n, double* sum) {
  __shared__ double partial[kThreads];
  double s = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double v = static_cast<double>(Widen(x[i]));
    s += v * v;
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

template <typename T>
__global__ void HalveKernel(const double* sum, T* out) {
  using C = typename ComputeType<T>::type;
  *out = Narrow<T, C>(static_cast<C>(*sum / 2));
}

template <typename T>
void L2LossCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, {});
  if (!out) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr sum = AllocateTemp(ctx, TF_DOUBLE, {1});
  if (!sum) return;
  double* s = static_cast<double*>(TF_TensorData(sum.get()));
  if (!CheckCuda(ctx, cudaMemsetAsync(s, 0, sizeof(double), stream), "L2Loss")) return;
  const int64_t n = TF_TensorElementCount(x.get());
  if (n > 0) SquareSumKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(Data<T>(x), n, s);
  HalveKernel<T><<<1, 1, 0, stream>>>(s, Data<T>(out));
  CheckLaunch(ctx, "L2Loss");
}

void* CreateAlign(TF_OpKernelConstruction* ctx) { return kernels::CreateDiagAlign(ctx); }

template <typename... Ts>
void RegisterL2Loss(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"L2Loss", {{"T", DtypeOf<Ts>::value}}, {}, &L2LossCompute<Ts>},
                  status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/matrix_diag.cc).
void RegisterMatrixDiagKernels(TF_Status* status) {
  for (TF_DataType dtype : kDataTypes) {
    RegisterKernel(kDevice, {"MatrixDiagV3", {{"T", dtype}},
                             {"k", "num_rows", "num_cols", "padding_value"}, &DiagCompute,
                             CreateAlign, kernels::DeleteDiagAlign}, status);
    RegisterKernel(kDevice, {"MatrixDiagPartV3", {{"T", dtype}}, {"k", "padding_value"},
                             &DiagPartCompute, CreateAlign, kernels::DeleteDiagAlign}, status);
    RegisterKernel(kDevice, {"MatrixSetDiagV3", {{"T", dtype}}, {"k"}, &SetDiagCompute,
                             CreateAlign, kernels::DeleteDiagAlign}, status);
    // The older forms over the same kernels: V2 always LEFT_LEFT, v1 the main diagonal.
    RegisterKernel(kDevice, {"MatrixDiagV2", {{"T", dtype}},
                             {"k", "num_rows", "num_cols", "padding_value"}, &DiagCompute,
                             kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status);
    RegisterKernel(kDevice, {"MatrixDiagPartV2", {{"T", dtype}}, {"k", "padding_value"},
                             &DiagPartCompute, kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status);
    RegisterKernel(kDevice, {"MatrixSetDiagV2", {{"T", dtype}}, {"k"}, &SetDiagCompute,
                             kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status);
    RegisterKernel(kDevice, {"MatrixDiag", {{"T", dtype}}, {}, &DiagCompute,
                             kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status);
    RegisterKernel(kDevice, {"MatrixDiagPart", {{"T", dtype}}, {}, &DiagPartCompute,
                             kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status);
    RegisterKernel(kDevice, {"MatrixSetDiag", {{"T", dtype}}, {}, &SetDiagCompute,
                             kernels::CreateDiagLeftLeft, kernels::DeleteDiagAlign}, status);
  }
  RegisterL2Loss(Types<float, double, __half, __nv_bfloat16>(), status);
}

}  // namespace cuda
}  // namespace opgen

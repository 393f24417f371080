// FusedBatchNorm, V2 and V3 on the GPU, in both layouts, with the CPU kernel's attr and
// shape checks and errors (../nn_spec.h). Twin of ../cpu/batch_norm.cc.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../nn_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::BatchNormAttrs;

// ---- FusedBatchNormV3 ----------------------------------------------------------------------

constexpr int kStatChannels = 32, kStatRows = 8;

// Training statistics of x viewed as [rows, c]: sums[k] += x[r, k] (kSquares: false) or
// (x[r, k] - mean_k)^2 with mean_k = sums[k] / rows (kSquares: true, into sums[c + k]).
// Channels first, x is [outer, c, inner] and row r is (r / inner, r % inner). Threads
// along x cover 32 neighbouring channels (coalesced when channels are last), along y
// rows; each block adds its partial sums with one double atomic per channel.
template <typename T, bool kSquares>
__global__ void ChannelSumsKernel(const T* x, int64_t rows, int64_t c, int64_t inner, double* sums) {
  __shared__ double partial[kStatRows][kStatChannels];
  const int64_t k = static_cast<int64_t>(blockIdx.x) * kStatChannels + threadIdx.x;
  double acc = 0;
  if (k < c) {
    const double mean = kSquares ? sums[k] / rows : 0.0;
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * kStatRows + threadIdx.y; r < rows;
         r += static_cast<int64_t>(gridDim.y) * kStatRows) {
      const int64_t at = inner == 1 ? r * c + k : ((r / inner) * c + k) * inner + r % inner;
      const double v = static_cast<double>(Widen(x[at]));
      if (kSquares) acc += (v - mean) * (v - mean);
      else acc += v;
    }
  }
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && k < c) {
    for (int j = 1; j < kStatRows; ++j) acc += partial[j][threadIdx.x];
    atomicAdd(&sums[kSquares ? c + k : k], acc);
  }
}

struct BatchNormChannelArgs {
  const float* scale;
  const float* offset;
  const float* mean;      // running mean input; read when has_mean (or in inference)
  const float* variance;  // likewise with has_variance
  bool has_mean, has_variance;
  const double* sums;  // training: [sum of x, sum of squared deviations] per channel
  int64_t c, rows;
  double epsilon, factor;
  bool training;
  float* multiplier;  // y = x * multiplier + shift, per channel
  float* shift;
  float* outputs[4];  // running mean, running variance, reserve space 1 and 2
};

// Per channel: the statistics, the affine transform, and outputs 1-4, in double like
// the CPU kernel.
__global__ void BatchNormChannelKernel(BatchNormChannelArgs a) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= a.c) return;
  // No rows: the statistics of nothing are NaN (0/0), as TensorFlow's (and the CPU's).
  const double count = static_cast<double>(a.rows);
  const double mean = a.training ? a.sums[k] / count : static_cast<double>(a.mean[k]);
  const double var = a.training ? a.sums[a.c + k] / count : static_cast<double>(a.variance[k]);
  const float multiplier = static_cast<float>(a.scale[k] / sqrt(var + a.epsilon));
  a.multiplier[k] = multiplier;
  a.shift[k] = static_cast<float>(__dsub_rn(a.offset[k], __dmul_rn(mean, multiplier)));
  float running_mean, running_var;
  if (a.training) {
    const double f = a.factor;
    const double corrected = a.rows > 1 ? var * a.rows / (a.rows - 1) : var;
    const double old_mean = a.has_mean ? a.mean[k] : 0.0;
    const double old_var = a.has_variance ? a.variance[k] : 0.0;
    running_mean = static_cast<float>(__dadd_rn(__dmul_rn(1 - f, old_mean), __dmul_rn(f, mean)));
    running_var = static_cast<float>(__dadd_rn(__dmul_rn(1 - f, old_var), __dmul_rn(f, corrected)));
  } else {
    running_mean = static_cast<float>(mean);
    running_var = static_cast<float>(var);
  }
  a.outputs[0][k] = running_mean;
  a.outputs[1][k] = running_var;
  // Reserve spaces hold the batch statistics themselves when training.
  a.outputs[2][k] = a.training ? static_cast<float>(mean) : running_mean;
  a.outputs[3][k] = a.training ? static_cast<float>(var) : running_var;
}

// y = x * multiplier + shift, rounded after each step (no fused multiply-add) as on the
// CPU; 16-bit x in float, rounded once at the end.
template <typename T, typename Index>
__global__ void BatchNormApplyKernel(const T* x, const float* multiplier, const float* shift,
                                     T* y, Index n, Index c, Index inner) {
  for (Index i = GlobalThread<Index>(); i < n; i += GridStride<Index>()) {
    const Index k = (inner == 1 ? i : i / inner) % c;
    y[i] = Narrow<T>(__fadd_rn(__fmul_rn(static_cast<float>(Widen(x[i])), multiplier[k]), shift[k]));
  }
}

// FusedBatchNorm, V2 and V3 (x in float, half or bfloat16), channels last or first: inference
// normalises with the given statistics; training computes them over every dimension but the channel one and
// blends them into the running ones with exponential_avg_factor.
template <typename T>
void BatchNormCompute(void* state, TF_OpKernelContext* ctx) {
  const BatchNormAttrs& attrs = *static_cast<BatchNormAttrs*>(state);
  kernels::BatchNormPlan p;
  if (!kernels::PlanBatchNorm(ctx, attrs, &p)) return;
  const TensorPtr &x = p.x, &scale = p.scale, &offset = p.offset;
  const TensorPtr &mean = p.mean, &variance = p.variance;
  const std::vector<int64_t>& dims = p.dims;
  const int64_t c = p.c, rows = p.rows, n = NumElements(dims);
  const bool has_mean = p.has_mean, has_variance = p.has_variance;
  TensorPtr y = AllocateOutput<T>(ctx, 0, dims);
  if (!y) return;
  TensorPtr outputs[4];
  for (int i = 0; i < 4; ++i)
    if (!(outputs[i] = AllocateOutput<float>(ctx, 1 + i, {c}))) return;
  if (TF_NumOutputs(ctx) > 5 && !AllocateOutput<float>(ctx, 5, {0})) return;  // V3's reserve_space_3
  if (c == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr transform = AllocateTemp(ctx, TF_FLOAT, {2 * c});
  if (!transform) return;
  TensorPtr sums;
  if (attrs.is_training) {
    if (!(sums = AllocateTemp(ctx, TF_DOUBLE, {2 * c}))) return;
    if (!CheckCuda(ctx, cudaMemsetAsync(Data<double>(sums), 0, 2 * c * sizeof(double), stream),
                   "FusedBatchNormV3 statistics"))
      return;
    if (rows > 0) {
      const int64_t channel_blocks = (c + kStatChannels - 1) / kStatChannels;
      int64_t row_blocks = (rows + kStatRows - 1) / kStatRows;
      const int64_t wanted = std::max<int64_t>(1, 2048 / channel_blocks);  // fill the device
      row_blocks = std::min<int64_t>(std::min<int64_t>(row_blocks, wanted), 65535);
      if (channel_blocks > std::numeric_limits<int32_t>::max()) {
        Fail(ctx, TF_UNIMPLEMENTED, "FusedBatchNormV3: too many channels");
        return;
      }
      const dim3 grid(static_cast<unsigned>(channel_blocks), static_cast<unsigned>(row_blocks));
      const dim3 block(kStatChannels, kStatRows);
      ChannelSumsKernel<T, false><<<grid, block, 0, stream>>>(Data<T>(x), rows, c, p.inner, Data<double>(sums));
      ChannelSumsKernel<T, true><<<grid, block, 0, stream>>>(Data<T>(x), rows, c, p.inner, Data<double>(sums));
      if (!CheckLaunch(ctx, "FusedBatchNormV3 statistics")) return;
    }
  }
  BatchNormChannelArgs args{};
  args.scale = Data<float>(scale);
  args.offset = Data<float>(offset);
  args.mean = has_mean ? Data<float>(mean) : nullptr;
  args.variance = has_variance ? Data<float>(variance) : nullptr;
  args.has_mean = has_mean;
  args.has_variance = has_variance;
  args.sums = sums ? Data<double>(sums) : nullptr;
  args.c = c;
  args.rows = rows;
  args.epsilon = attrs.epsilon;
  args.factor = attrs.exponential_avg_factor;
  args.training = attrs.is_training;
  args.multiplier = Data<float>(transform);
  args.shift = Data<float>(transform) + c;
  for (int i = 0; i < 4; ++i) args.outputs[i] = Data<float>(outputs[i]);
  BatchNormChannelKernel<<<BlocksFor(c), kThreads, 0, stream>>>(args);
  if (!CheckLaunch(ctx, "FusedBatchNormV3") || n == 0) return;
  if (Fits32(n))
    BatchNormApplyKernel<T, uint32_t><<<BlocksFor(n), kThreads, 0, stream>>>(
        Data<T>(x), args.multiplier, args.shift, Data<T>(y), static_cast<uint32_t>(n),
        static_cast<uint32_t>(c), static_cast<uint32_t>(p.inner));
  else
    BatchNormApplyKernel<T, int64_t><<<BlocksFor(n), kThreads, 0, stream>>>(
        Data<T>(x), args.multiplier, args.shift, Data<T>(y), n, c, p.inner);
  CheckLaunch(ctx, "FusedBatchNormV3");
}

}  // namespace

// V2 and V3: x (T) in float, half or bfloat16, statistics (U) in float; V1: float.
void RegisterBatchNormKernels(TF_Status* status) {
  const std::pair<TF_DataType, ComputeFn> batch_norm_types[] = {
      {TF_FLOAT, BatchNormCompute<float>}, {TF_HALF, BatchNormCompute<__half>},
      {TF_BFLOAT16, BatchNormCompute<__nv_bfloat16>}};
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"})
    for (const auto& [t, compute] : batch_norm_types)
      RegisterKernel(kDevice, {op, {{"T", t}, {"U", TF_FLOAT}}, {}, compute,
                               kernels::CreateBatchNorm, kernels::DeleteBatchNorm},
                     status);
  RegisterKernel(kDevice, {"FusedBatchNorm", {{"T", TF_FLOAT}}, {}, BatchNormCompute<float>,
                           kernels::CreateBatchNorm, kernels::DeleteBatchNorm},
                 status);
}

}  // namespace cuda
}  // namespace opgen

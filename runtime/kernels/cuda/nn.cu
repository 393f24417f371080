// Neural-network kernels on the GPU: BiasAdd, FusedBatchNormV3, Conv2D (im2col + the
// GEMMs of gemm.cu), MaxPool and AvgPool. Semantics and dtypes mirror the CPU kernels
// (kernels/cpu/nn.cc and conv_pool.cc), whose attr and shape checks and errors these
// share (../nn_spec.h, ../window_spec.h): the windows NHWC only (NCHW refused), batch
// norm in both layouts.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../nn_spec.h"
#include "../window_spec.h"
#include "cuda_kernel_util.h"
#include "conv_gpu.h"
#include "cuda_kernels.h"
#include "gemm.h"

namespace opgen {
namespace cuda {
namespace {

// Unsigned for 64-bit-free index math where the tensor is small enough: divisions by
// runtime values cost several times more in 64 bits.
template <typename Index> __device__ inline Index GlobalThread() {
  return static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
}
template <typename Index> __device__ inline Index GridStride() {
  return static_cast<Index>(gridDim.x) * blockDim.x;
}
inline bool Fits32(int64_t n) { return n <= std::numeric_limits<int32_t>::max(); }

// Whether a window kernel's indices fit 32 bits: `largest` (the biggest element count)
// plus every size, stride, dilation and padding it combines, summed without wrapping (a
// ksize, stride or dilation near 2^63 must not look small once the sum wraps).
inline bool WindowFits32(int64_t largest, std::initializer_list<int64_t> parts) {
  int64_t sum = largest;
  for (int64_t v : parts)
    if (v < 0 || __builtin_add_overflow(sum, v, &sum)) return false;
  return Fits32(sum);
}

// ---- BiasAdd -----------------------------------------------------------------------------

// The attrs and input checks of BiasAdd and FusedBatchNormV3 are the CPU kernels' own
// code (../nn_spec.h); here the arithmetic.
using kernels::BatchNormAttrs;
using kernels::BiasAddAttrs;

// x + y wrapping on integer overflow, as the CPU's WrappingAdd.
template <typename T> __device__ inline T WrappingAdd(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
  } else {
    return Narrow<T>(Widen(x) + Widen(y));
  }
}

// Element i gets the bias of its channel, (i / inner) % channels.
template <typename T, typename Index>
__global__ void BiasAddKernel(const T* x, const T* bias, T* y, Index n, Index channels,
                              Index inner) {
  for (Index i = GlobalThread<Index>(); i < n; i += GridStride<Index>())
    y[i] = WrappingAdd(x[i], bias[(i / inner) % channels]);
}

template <typename T>
struct BiasAddKernelOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::BiasAddPlan p;
    if (!kernels::PlanBiasAdd(ctx, *static_cast<BiasAddAttrs*>(state), &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.dims);
    const int64_t n = NumElements(p.dims);
    if (!output || n == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    const int64_t channels = p.channels, inner = p.inner;
    const T* x = Data<T>(p.value);
    const T* b = Data<T>(p.bias);
    T* y = Data<T>(output);
    if (Fits32(n))
      BiasAddKernel<T, uint32_t><<<BlocksFor(n), kThreads, 0, stream>>>(
          x, b, y, static_cast<uint32_t>(n), static_cast<uint32_t>(channels),
          static_cast<uint32_t>(inner));
    else
      BiasAddKernel<T, int64_t><<<BlocksFor(n), kThreads, 0, stream>>>(x, b, y, n, channels, inner);
    CheckLaunch(ctx, "BiasAdd");
  }
};

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

// ---- windows: Conv2D, MaxPool, AvgPool -------------------------------------------------

// The window attrs, input checks and output sizes are the CPU kernels' own code
// (../window_spec.h).
using kernels::DeleteWindow;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "GPU"); }
void* CreatePoolWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, false, "GPU"); }

// The geometry of a 2-D window over NHWC images, by value into kernels.
template <typename Index>
struct WindowGeometry {
  Index ih, iw, c;        // input height, width, channels
  Index oh, ow;           // output height, width
  Index kh, kw;           // window
  Index sh, sw, dh, dw;   // strides, dilations
  Index pt, pl;           // padding before (top, left); may make rows negative
};

template <typename Index>
WindowGeometry<Index> Geometry(int64_t ih, int64_t iw, int64_t c, int64_t oh, int64_t ow,
                               int64_t kh, int64_t kw, const Window2D& w, int64_t pt,
                               int64_t pl) {
  auto i = [](int64_t v) { return static_cast<Index>(v); };
  return {i(ih), i(iw), i(c), i(oh), i(ow), i(kh), i(kw), i(w.strides[1]), i(w.strides[2]),
          i(w.dilations[1]), i(w.dilations[2]), i(pt), i(pl)};
}

// im2col: row (b, y, x) of `cols` holds the kh*kw*c input values under output pixel
// (y, x) of image b, tap-major then channel, zeros where the window leaves the image.
// It moves bytes, not values: W is the widest word (up to 16 bytes) that divides one
// pixel's channels, and g.c counts words, so each thread copies up to 8 bfloat16 or 4
// floats per index decomposition (zero bits are zero in every type here). Signed index
// math: a window may start above or left of the image.
template <typename W, typename Index>
__global__ void Im2ColKernel(const W* in, W* cols, Index total, WindowGeometry<Index> g) {
  const Index taps = g.kh * g.kw;
  for (Index i = GlobalThread<Index>(); i < total; i += GridStride<Index>()) {
    const Index word = i % g.c, pair = i / g.c;  // pair: (output pixel, tap)
    const Index tap = pair % taps, row = pair / taps;
    const Index kx = tap % g.kw, ky = tap / g.kw;
    const Index x = row % g.ow, rest = row / g.ow;
    const Index y = rest % g.oh, b = rest / g.oh;
    const Index sy = y * g.sh - g.pt + ky * g.dh, sx = x * g.sw - g.pl + kx * g.dw;
    cols[i] = sy >= 0 && sy < g.ih && sx >= 0 && sx < g.iw
                  ? in[((b * g.ih + sy) * g.iw + sx) * g.c + word]
                  : W{};
  }
}

template <typename W>
bool LaunchIm2ColWords(TF_OpKernelContext* ctx, cudaStream_t stream, const void* in, void* cols,
                       int64_t images, int64_t channel_bytes, int64_t ih, int64_t iw, int64_t oh,
                       int64_t ow, int64_t kh, int64_t kw, const Window2D& w, int64_t pt,
                       int64_t pl) {
  const int64_t words = channel_bytes / static_cast<int64_t>(sizeof(W));
  const int64_t total = images * oh * ow * kh * kw * words;
  const int64_t largest = std::max(total, images * ih * iw * words);
  const W* src = static_cast<const W*>(in);
  W* dst = static_cast<W*>(cols);
  // The dilated window spans (k - 1) * dilation + 1, which PlanOutput checked fits int64.
  if (WindowFits32(largest, {ih, iw, (kh - 1) * w.dilations[1] + 1, (kw - 1) * w.dilations[2] + 1,
                             w.strides[1], w.strides[2], pt, pl}))
    Im2ColKernel<W, int32_t><<<BlocksFor(total), kThreads, 0, stream>>>(
        src, dst, static_cast<int32_t>(total),
        Geometry<int32_t>(ih, iw, words, oh, ow, kh, kw, w, pt, pl));
  else
    Im2ColKernel<W, int64_t><<<BlocksFor(total), kThreads, 0, stream>>>(
        src, dst, total, Geometry<int64_t>(ih, iw, words, oh, ow, kh, kw, w, pt, pl));
  return CheckLaunch(ctx, "Conv2D im2col");
}

// The widest word dividing a pixel's channels; the buffers are allocator-aligned and
// every pixel starts a multiple of channel_bytes into them.
bool LaunchIm2Col(TF_OpKernelContext* ctx, cudaStream_t stream, const void* in, void* cols,
                  int64_t images, int64_t channel_bytes, int64_t ih, int64_t iw, int64_t oh,
                  int64_t ow, int64_t kh, int64_t kw, const Window2D& w, int64_t pt, int64_t pl) {
  const auto aligned = [&](uintptr_t n) {
    return channel_bytes % n == 0 && reinterpret_cast<uintptr_t>(in) % n == 0 &&
           reinterpret_cast<uintptr_t>(cols) % n == 0;
  };
  if (aligned(16))
    return LaunchIm2ColWords<uint4>(ctx, stream, in, cols, images, channel_bytes, ih, iw, oh, ow,
                                    kh, kw, w, pt, pl);
  if (aligned(8))
    return LaunchIm2ColWords<uint2>(ctx, stream, in, cols, images, channel_bytes, ih, iw, oh, ow,
                                    kh, kw, w, pt, pl);
  if (aligned(4))
    return LaunchIm2ColWords<uint32_t>(ctx, stream, in, cols, images, channel_bytes, ih, iw, oh,
                                       ow, kh, kw, w, pt, pl);
  return LaunchIm2ColWords<uint16_t>(ctx, stream, in, cols, images, channel_bytes, ih, iw, oh, ow,
                                     kh, kw, w, pt, pl);
}

// The im2col buffer is limited to about this many elements; larger batches run in chunks.
constexpr int64_t kIm2ColElements = int64_t{1} << 26;

// The convolution of a planned Conv2D into `out` (im2col + GEMM per chunk of images);
// false after reporting a failure.
template <typename T>
bool RunConv2D(TF_OpKernelContext* ctx, cudaStream_t stream, const Window2D& w,
               const kernels::WindowPlan& p, T* out) {
    const int64_t batch = p.batch, ih = p.ih, iw = p.iw, ic = p.ic;
    const int64_t kh = p.kh, kw = p.kw, oc = p.oc, oh = p.oh, ow = p.ow, pt = p.pt, pl = p.pl;
    const T* in = Data<T>(p.input);
    const T* f = Data<T>(p.filter);
    const int64_t taps = kh * kw * ic;  // the GEMM's inner dimension
    // A 1x1 window at stride 1 without padding reads each pixel's channels as they lie:
    // the input is its own im2col matrix. So is any window when there are no channels.
    if (taps == 0 || (kh == 1 && kw == 1 && w.strides[1] == 1 && w.strides[2] == 1 && pt == 0 &&
                      pl == 0 && oh == ih && ow == iw)) {
      return Gemm<T>(ctx, stream, false, false, batch * oh * ow, oc, taps, in, f, out);
    }
    const int64_t per_image = oh * ow * taps;
    const int64_t chunk = std::max<int64_t>(1, std::min(batch, kIm2ColElements / per_image));
    TensorPtr cols = AllocateTemp(ctx, DtypeOf<T>::value, {chunk * per_image});
    if (!cols) return false;
    // Chunks reuse the buffer: everything is queued on one stream, in order.
    for (int64_t b0 = 0; b0 < batch; b0 += chunk) {
      const int64_t images = std::min(chunk, batch - b0);
      if (!LaunchIm2Col(ctx, stream, in + b0 * ih * iw * ic, Data<T>(cols), images,
                        ic * static_cast<int64_t>(sizeof(T)), ih, iw, oh, ow, kh, kw, w, pt, pl))
        return false;
      if (!Gemm<T>(ctx, stream, false, false, images * oh * ow, oc, taps, Data<T>(cols), f,
                   out + b0 * oh * ow * oc))
        return false;
    }
    return true;
}

template <typename T>
struct Conv2DKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanConv2D(ctx, w, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || p.batch * p.oh * p.ow * p.oc == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    RunConv2D<T>(ctx, stream, w, p, Data<T>(output));
  }
};

template <typename T> __device__ inline typename ComputeType<T>::type LowestValue() {
  if constexpr (std::is_same_v<T, __half>) return -65504.0f;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return -3.38953139e38f;
  else return std::numeric_limits<T>::lowest();
}

// One output value per thread. Max starts from the type's lowest value and ignores
// NaN (as std::max(acc, v) on the CPU); the average is over the window's part inside
// the image. An empty window gives the lowest value or zero.
template <typename T, bool kMax, typename Index>
__global__ void PoolKernel(const T* in, T* out, Index total, WindowGeometry<Index> g) {
  using C = typename ComputeType<T>::type;
  for (Index i = GlobalThread<Index>(); i < total; i += GridStride<Index>()) {
    const Index ch = i % g.c, pixel = i / g.c;
    const Index x = pixel % g.ow, rest = pixel / g.ow;
    const Index y = rest % g.oh, b = rest / g.oh;
    C acc = kMax ? LowestValue<T>() : C(0);
    Index count = 0;
    // Only the taps inside the image: the cost follows the input, not ksize.
    const Index y0 = y * g.sh - g.pt, x0 = x * g.sw - g.pl;
    const Index sy_end = g.kh < g.ih - y0 ? y0 + g.kh : g.ih;
    const Index sx_end = g.kw < g.iw - x0 ? x0 + g.kw : g.iw;
    for (Index sy = y0 < 0 ? 0 : y0; sy < sy_end; ++sy) {
      for (Index sx = x0 < 0 ? 0 : x0; sx < sx_end; ++sx) {
        const C v = Widen(in[((b * g.ih + sy) * g.iw + sx) * g.c + ch]);
        if (kMax) acc = acc < v ? v : acc;
        else acc += v;
        ++count;
      }
    }
    if (!kMax && count > 0) acc /= static_cast<C>(count);
    out[i] = Narrow<T>(acc);
  }
}

template <typename T, bool kMax>
struct PoolKernelOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanPool(ctx, w, &p, kMax ? "MaxPool" : "AvgPool")) return;
    const TensorPtr& input = p.input;
    const int64_t batch = p.batch, ih = p.ih, iw = p.iw, c = p.ic;
    const int64_t oh = p.oh, ow = p.ow, pt = p.pt, pl = p.pl;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = batch * oh * ow * c;
    if (!output || total <= 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    const int64_t largest = std::max(total, batch * ih * iw * c);
    if (WindowFits32(largest, {ih, iw, w.ksize[1], w.ksize[2], w.strides[1], w.strides[2], pt, pl}))
      PoolKernel<T, kMax, int32_t><<<BlocksFor(total), kThreads, 0, stream>>>(
          Data<T>(input), Data<T>(output), static_cast<int32_t>(total),
          Geometry<int32_t>(ih, iw, c, oh, ow, w.ksize[1], w.ksize[2], w, pt, pl));
    else
      PoolKernel<T, kMax, int64_t><<<BlocksFor(total), kThreads, 0, stream>>>(
          Data<T>(input), Data<T>(output), total,
          Geometry<int64_t>(ih, iw, c, oh, ow, w.ksize[1], w.ksize[2], w, pt, pl));
    CheckLaunch(ctx, kMax ? "MaxPool" : "AvgPool");
  }
};
template <typename T> using MaxPoolKernel = PoolKernelOp<T, true>;
template <typename T> using AvgPoolKernel = PoolKernelOp<T, false>;

// ---- registration --------------------------------------------------------------------------

template <template <typename> class Kernel, typename... Ts>
void RegisterWithState(const char* op, Types<Ts...>, CreateFn create, DeleteFn destroy,
                       TF_Status* status) {
  (Register(KernelSpec{op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create, destroy},
            status),
   ...);
}

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;
using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;
// MaxPool's OpDef allows every real type but uint32 and uint64.
using MaxPoolTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                           uint8_t, uint16_t>;

}  // namespace

bool Conv2DFloatGpu(TF_OpKernelContext* ctx, cudaStream_t stream, const kernels::Window2D& w,
                    const kernels::WindowPlan& p, float* out) {
  return RunConv2D<float>(ctx, stream, w, p, out);
}

// The CPU kernels' registrations: BiasAdd on every real type, MaxPool on those its OpDef
// allows, Conv2D on floats and int32, AvgPool on floats, FusedBatchNorm on
// float, V2 and V3 on float, half and bfloat16 x both layouts, as on the CPU.
void RegisterNnKernels(TF_Status* status) {
  RegisterWithState<BiasAddKernelOp>("BiasAdd", RealTypes(), kernels::CreateBiasAdd,
                                     kernels::DeleteBiasAdd, status);
  // V2 and V3: x (T) in float, half or bfloat16, statistics (U) in float; V1: float.
  const std::pair<TF_DataType, ComputeFn> batch_norm_types[] = {
      {TF_FLOAT, BatchNormCompute<float>}, {TF_HALF, BatchNormCompute<__half>},
      {TF_BFLOAT16, BatchNormCompute<__nv_bfloat16>}};
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"})
    for (const auto& [t, compute] : batch_norm_types)
      Register(KernelSpec{op, {{"T", t}, {"U", TF_FLOAT}}, {}, compute,
                          kernels::CreateBatchNorm, kernels::DeleteBatchNorm},
               status);
  Register(KernelSpec{"FusedBatchNorm", {{"T", TF_FLOAT}}, {}, BatchNormCompute<float>,
                      kernels::CreateBatchNorm, kernels::DeleteBatchNorm},
           status);
  RegisterWithState<Conv2DKernel>("Conv2D", Types<float, double, __half, __nv_bfloat16, int32_t>(),
                                  CreateConvWindow, DeleteWindow, status);
  RegisterWithState<MaxPoolKernel>("MaxPool", MaxPoolTypes(), CreatePoolWindow, DeleteWindow,
                                   status);
  RegisterWithState<AvgPoolKernel>("AvgPool", FloatTypes(), CreatePoolWindow, DeleteWindow, status);
}

}  // namespace cuda
}  // namespace opgen

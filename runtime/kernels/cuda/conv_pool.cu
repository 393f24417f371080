// Conv2D (im2col + the GEMMs of gemm.cu; grouped ones a convolution per group), MaxPool
// and AvgPool on the GPU, NHWC only
// (NCHW refused), with the CPU kernels' attr and shape checks and errors
// (../window_spec.h). Twin of ../cpu/conv_pool.cc.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../pool_argmax_spec.h"
#include "../window_spec.h"
#include "byte_copy.cuh"
#include "conv_gpu.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "gemm.h"
#include "thread_index.cuh"

namespace opgen {
namespace cuda {
namespace {

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

// One ordinary (ungrouped) convolution of `p`'s geometry with `ic` input and `oc` output
// channels into `out` (im2col + GEMM per chunk of images); false after reporting a failure.
template <typename T>
bool ConvolveOnce(TF_OpKernelContext* ctx, cudaStream_t stream, const Window2D& w,
                  const kernels::WindowPlan& p, int64_t ic, int64_t oc, const T* in, const T* f,
                  T* out) {
    const int64_t batch = p.batch, ih = p.ih, iw = p.iw;
    const int64_t kh = p.kh, kw = p.kw, oh = p.oh, ow = p.ow, pt = p.pt, pl = p.pl;
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

// The convolution of a planned Conv2D into `out`; false after reporting a failure. A
// grouped one (Keras' Conv2D(groups=...)) gathers each group's input channels and filter
// columns contiguous ([groups, ...] temporaries), convolves each group, and spreads the
// groups' outputs back into their channels of `out`.
template <typename T>
bool RunConv2D(TF_OpKernelContext* ctx, cudaStream_t stream, const Window2D& w,
               const kernels::WindowPlan& p, T* out) {
  const T* in = Data<T>(p.input);
  const T* f = Data<T>(p.filter);
  if (p.groups == 1) return ConvolveOnce<T>(ctx, stream, w, p, p.ic, p.oc, in, f, out);
  if constexpr (std::is_same_v<T, float>) {
    // A group per input channel is a depthwise convolution: the filter [kh, kw, 1, ic * m]
    // lies in memory as depthwise's [kh, kw, ic, m].
    if (p.groups == p.ic) return DepthwiseFloatGpu(ctx, stream, w, p, p.oc / p.ic, out);
  }
  const int64_t groups = p.groups, gic = p.ic / groups, goc = p.oc / groups;
  const int64_t pixels = p.batch * p.ih * p.iw, out_pixels = p.batch * p.oh * p.ow;
  const int64_t taps = p.kh * p.kw * gic;
  const TF_DataType dtype = DtypeOf<T>::value;
  TensorPtr in_g = AllocateTemp(ctx, dtype, {groups * pixels * gic});
  TensorPtr f_g = AllocateTemp(ctx, dtype, {groups * taps * goc});
  TensorPtr out_g = AllocateTemp(ctx, dtype, {groups * out_pixels * goc});
  if (!in_g || !f_g || !out_g) return false;
  const int64_t esize = static_cast<int64_t>(sizeof(T));
  if (pixels > 0)  // in_g[g][i][c] = in[i][g * gic + c]
    StridedCopy(ctx, stream, "Conv2D", MapKind::kLinear,
                {MapDim{groups, gic, 0, 0}, MapDim{pixels, p.ic, 0, 0}, MapDim{gic, 1, 0, 0}}, 0,
                esize, in, Data<T>(in_g), groups * pixels * gic);
  // f_g[g][t][k] = f[t][g * goc + k]
  StridedCopy(ctx, stream, "Conv2D", MapKind::kLinear,
              {MapDim{groups, goc, 0, 0}, MapDim{taps, p.oc, 0, 0}, MapDim{goc, 1, 0, 0}}, 0, esize,
              f, Data<T>(f_g), groups * taps * goc);
  for (int64_t g = 0; g < groups; ++g)
    if (!ConvolveOnce<T>(ctx, stream, w, p, gic, goc, Data<T>(in_g) + g * pixels * gic,
                         Data<T>(f_g) + g * taps * goc, Data<T>(out_g) + g * out_pixels * goc))
      return false;
  // out[i][g * goc + k] = out_g[g][i][k]
  StridedCopy(ctx, stream, "Conv2D", MapKind::kLinear,
              {MapDim{out_pixels, goc, 0, 0}, MapDim{groups, out_pixels * goc, 0, 0},
               MapDim{goc, 1, 0, 0}},
              0, esize, Data<T>(out_g), out, out_pixels * p.oc);
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

template <template <typename> class Kernel, typename... Ts>
void RegisterWithState(const char* op, Types<Ts...>, CreateFn create, DeleteFn destroy,
                       TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute, create, destroy},
            status),
   ...);
}

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;
// MaxPool's OpDef allows every real type but uint32 and uint64.
using MaxPoolTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                           uint8_t, uint16_t>;

// MaxPoolV2: MaxPool's kernel on the window its ksize and strides tensors (host memory) give.
template <typename... Ts>
void RegisterMaxPoolV2(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"MaxPoolV2", {{"T", DtypeOf<Ts>::value}}, {"ksize", "strides"},
                            &kernels::WithTensorWindow<&MaxPoolKernel<Ts>::Compute>,
                            kernels::CreateMaxPoolV2, kernels::DeletePoolV2}, status),
   ...);
}

}  // namespace

bool Conv2DFloatGpu(TF_OpKernelContext* ctx, cudaStream_t stream, const kernels::Window2D& w,
                    const kernels::WindowPlan& p, float* out) {
  return RunConv2D<float>(ctx, stream, w, p, out);
}

// Conv2D on floats and int32, MaxPool on the types its OpDef allows, AvgPool on floats,
// as on the CPU.
void RegisterConvPoolKernels(TF_Status* status) {
  RegisterWithState<Conv2DKernel>("Conv2D", Types<float, double, __half, __nv_bfloat16, int32_t>(),
                                  CreateConvWindow, DeleteWindow, status);
  RegisterWithState<MaxPoolKernel>("MaxPool", MaxPoolTypes(), CreatePoolWindow, DeleteWindow,
                                   status);
  RegisterWithState<AvgPoolKernel>("AvgPool", FloatTypes(), CreatePoolWindow, DeleteWindow, status);
  RegisterMaxPoolV2(MaxPoolTypes(), status);
}

}  // namespace cuda
}  // namespace opgen

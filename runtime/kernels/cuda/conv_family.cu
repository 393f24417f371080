// DepthwiseConv2dNative, Conv2DBackpropInput and Conv3D on the GPU, NHWC / NDHWC. The
// attr and input checks are the CPU kernels' own (../conv_family_spec.h,
// ../window_spec.h); here the arithmetic: depthwise directly, one thread per output
// value; the transposed convolution as one GEMM (out_backprop times the transposed
// filter) and a gather of the columns back onto the input pixels; Conv3D as im2col and
// a GEMM, both per chunk of images as Conv2D in conv_pool.cu.
#include <algorithm>
#include <limits>
#include <vector>

#include "../conv_family_spec.h"
#include "conv_gpu.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "gemm.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::DeleteWindow;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "GPU"); }

__device__ inline int64_t Thread() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline int64_t Stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// A 2-D window's sizes, by value into the kernels.
struct Geometry2D {
  int64_t batch, ih, iw, ic, kh, kw, oh, ow, oc, mult;
  int64_t sh, sw, dh, dw, pt, pl;
};

Geometry2D MakeGeometry(const kernels::WindowPlan& p, const Window2D& w, int64_t mult) {
  return {p.batch, p.ih, p.iw, p.ic, p.kh, p.kw, p.oh, p.ow, p.oc, mult,
          w.strides[1], w.strides[2], w.dilations[1], w.dilations[2], p.pt, p.pl};
}

// ---- DepthwiseConv2dNative ---------------------------------------------------------------

template <typename T>
__global__ void DepthwiseKernel(const T* in, const T* f, T* out, int64_t total, Geometry2D g) {
  using C = typename ComputeType<T>::type;
  for (int64_t n = Thread(); n < total; n += Stride()) {
    const int64_t k = n % g.oc, pixel = n / g.oc;
    const int64_t x = pixel % g.ow, rest = pixel / g.ow;
    const int64_t y = rest % g.oh, b = rest / g.oh;
    const int64_t ch = k / g.mult;
    C acc = C(0);
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t sy = y * g.sh - g.pt + i * g.dh;
      if (sy < 0 || sy >= g.ih) continue;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t sx = x * g.sw - g.pl + j * g.dw;
        if (sx < 0 || sx >= g.iw) continue;
        acc += Widen(in[((b * g.ih + sy) * g.iw + sx) * g.ic + ch]) * Widen(f[(i * g.kw + j) * g.oc + k]);
      }
    }
    out[n] = Narrow<T>(acc);
  }
}

template <typename T>
struct DepthwiseOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanDepthwise(ctx, w, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    DepthwiseKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<T>(p.input), Data<T>(p.filter), Data<T>(output), total, MakeGeometry(p, w, mult));
    CheckLaunch(ctx, "DepthwiseConv2dNative");
  }
};

// ---- Conv2DBackpropInput ---------------------------------------------------------------

// Input value (b, sy, sx, c) sums the columns cols[(b, y, x), (i, j, c)] of every tap
// (i, j) whose output pixel (y, x) reads it: y = (sy + pt - i * dh) / sh when exact.
template <typename T>
__global__ void Col2ImKernel(const T* cols, T* out, int64_t total, Geometry2D g) {
  using C = typename ComputeType<T>::type;
  const int64_t K = g.kh * g.kw * g.ic;
  for (int64_t n = Thread(); n < total; n += Stride()) {
    const int64_t c = n % g.ic, pixel = n / g.ic;
    const int64_t sx = pixel % g.iw, rest = pixel / g.iw;
    const int64_t sy = rest % g.ih, b = rest / g.ih;
    C acc = C(0);
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ty = sy + g.pt - i * g.dh;
      if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.oh) continue;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t tx = sx + g.pl - j * g.dw;
        if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.ow) continue;
        const int64_t row = (b * g.oh + ty / g.sh) * g.ow + tx / g.sw;
        acc += Widen(cols[row * K + (i * g.kw + j) * g.ic + c]);
      }
    }
    out[n] = Narrow<T>(acc);
  }
}

// The columns buffer is limited to about this many elements; larger batches run in chunks.
constexpr int64_t kColumnElements = int64_t{1} << 26;

template <typename T>
struct Conv2DBackpropInputOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    if (!kernels::PlanConv2DBackpropInput(ctx, w, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    const int64_t K = p.kh * p.kw * p.ic, pixels = p.oh * p.ow;
    const int64_t per_image = std::max<int64_t>(1, pixels * K);
    const int64_t chunk = std::max<int64_t>(1, std::min(p.batch, kColumnElements / per_image));
    TensorPtr cols = AllocateTemp(ctx, DtypeOf<T>::value, {chunk * per_image});
    if (!cols) return;
    const int64_t in_image = p.ih * p.iw * p.ic;
    for (int64_t b0 = 0; b0 < p.batch; b0 += chunk) {
      const int64_t images = std::min(chunk, p.batch - b0);
      if (pixels * K > 0) {
        if (p.oc > 0) {
          if (!Gemm<T>(ctx, stream, false, true, images * pixels, K, p.oc,
                       Data<T>(p.input) + b0 * pixels * p.oc, Data<T>(p.filter), Data<T>(cols)))
            return;
        } else if (!CheckCuda(ctx, cudaMemsetAsync(Data<T>(cols), 0, images * per_image * sizeof(T), stream),
                              "Conv2DBackpropInput")) {
          return;
        }
      }
      Geometry2D g = MakeGeometry(p, w, 1);
      g.batch = images;
      const int64_t n = images * in_image;
      Col2ImKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(Data<T>(cols), Data<T>(output) + b0 * in_image, n, g);
      if (!CheckLaunch(ctx, "Conv2DBackpropInput")) return;
    }
  }
};

// ---- Conv3D --------------------------------------------------------------------------

struct Geometry3D {
  int64_t in[3], k[3], out[3], pad[3], stride[3], dilation[3], ic;
};

template <typename T>
__global__ void Im2Col3DKernel(const T* in, T* cols, int64_t total, Geometry3D g) {
  for (int64_t n = Thread(); n < total; n += Stride()) {
    const int64_t c = n % g.ic;
    int64_t r = n / g.ic;
    const int64_t j = r % g.k[2]; r /= g.k[2];
    const int64_t i = r % g.k[1]; r /= g.k[1];
    const int64_t a = r % g.k[0]; r /= g.k[0];
    const int64_t x = r % g.out[2]; r /= g.out[2];
    const int64_t y = r % g.out[1]; r /= g.out[1];
    const int64_t z = r % g.out[0], b = r / g.out[0];
    const int64_t sz = z * g.stride[0] - g.pad[0] + a * g.dilation[0];
    const int64_t sy = y * g.stride[1] - g.pad[1] + i * g.dilation[1];
    const int64_t sx = x * g.stride[2] - g.pad[2] + j * g.dilation[2];
    const bool inside = sz >= 0 && sz < g.in[0] && sy >= 0 && sy < g.in[1] && sx >= 0 && sx < g.in[2];
    cols[n] = inside ? in[(((b * g.in[0] + sz) * g.in[1] + sy) * g.in[2] + sx) * g.ic + c] : T{};
  }
}

template <typename T>
struct Conv3DOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::Conv3DPlan p;
    if (!kernels::PlanConv3D(ctx, *static_cast<kernels::Window3D*>(state), &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output || NumElements(p.out_dims) == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    Geometry3D g;
    for (int d = 0; d < 3; ++d) {
      g.in[d] = p.in[d];
      g.k[d] = p.k[d];
      g.out[d] = p.out[d];
      g.pad[d] = p.pad[d];
      g.stride[d] = p.stride[d];
      g.dilation[d] = p.dilation[d];
    }
    g.ic = p.ic;
    const int64_t K = p.k[0] * p.k[1] * p.k[2] * p.ic, pixels = p.out[0] * p.out[1] * p.out[2];
    const int64_t in_image = p.in[0] * p.in[1] * p.in[2] * p.ic, per_image = std::max<int64_t>(1, pixels * K);
    const int64_t chunk = std::max<int64_t>(1, std::min(p.batch, kColumnElements / per_image));
    TensorPtr cols = AllocateTemp(ctx, DtypeOf<T>::value, {chunk * per_image});
    if (!cols) return;
    for (int64_t b0 = 0; b0 < p.batch; b0 += chunk) {
      const int64_t images = std::min(chunk, p.batch - b0), n = images * per_image;
      Im2Col3DKernel<T><<<BlocksFor(n), kThreads, 0, stream>>>(Data<T>(p.input) + b0 * in_image,
                                                                Data<T>(cols), n, g);
      if (!CheckLaunch(ctx, "Conv3D im2col")) return;
      if (!Gemm<T>(ctx, stream, false, false, images * pixels, p.oc, K, Data<T>(cols),
                   Data<T>(p.filter), Data<T>(output) + b0 * pixels * p.oc))
        return;
    }
  }
};

void* CreateConv3DWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow3D(ctx, "GPU"); }

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, Types<Ts...>, CreateFn create, DeleteFn destroy,
                  std::vector<const char*> host_memory, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, host_memory, &Kernel<Ts>::Compute, create, destroy},
            status),
   ...);
}

using FloatTypes = Types<float, double, __half, __nv_bfloat16>;

}  // namespace

bool DepthwiseFloatGpu(TF_OpKernelContext* ctx, cudaStream_t stream, const kernels::Window2D& w,
                       const kernels::WindowPlan& p, int64_t multiplier, float* out) {
  const int64_t total = NumElements(p.out_dims);
  DepthwiseKernel<float><<<BlocksFor(total), kThreads, 0, stream>>>(
      Data<float>(p.input), Data<float>(p.filter), out, total, MakeGeometry(p, w, multiplier));
  return CheckLaunch(ctx, "DepthwiseConv2dNative");
}

// The CPU kernels' registrations (kernels/cpu/conv_family.cc); input_sizes stays on the host.
void RegisterConvFamilyKernels(TF_Status* status) {
  RegisterWith<DepthwiseOp>("DepthwiseConv2dNative", FloatTypes(), CreateConvWindow, DeleteWindow, {}, status);
  RegisterWith<Conv2DBackpropInputOp>("Conv2DBackpropInput",
                                      Types<float, double, __half, __nv_bfloat16, int32_t>(),
                                      CreateConvWindow, DeleteWindow, {"input_sizes"}, status);
  RegisterWith<Conv3DOp>("Conv3D", FloatTypes(), CreateConv3DWindow, kernels::DeleteWindow3D, {}, status);
}

}  // namespace cuda
}  // namespace opgen

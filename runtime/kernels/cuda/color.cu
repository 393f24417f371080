// The colour ops on the GPU: one thread per pixel with ../color_spec.h's maths, as the
// CPU kernels (kernels/cpu/color.cc). AdjustContrastv2: one thread per (image, channel)
// sums its mean in pixel order, then one per value applies it. The factors stay in host
// memory. The adjustments take float, as on the CPU (TensorFlow's GPU kernels also take
// half: the templates would, but the kernel tables keep both devices' types alike).
#include <type_traits>

#include "../color_spec.h"
#include "cuda_kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cuda {
namespace {

template <typename T>
using ComputeOf = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

// Rounds a float to T after each step (half, bfloat16), as the CPU kernels.
template <typename T> struct RoundTo {
  __device__ float operator()(float v) const { return static_cast<float>(Widen(Narrow<T>(v))); }
};
template <typename T>
using RoundOf = typename std::conditional<std::is_same<T, float>::value || std::is_same<T, double>::value,
                                          kernels::Exact, RoundTo<T>>::type;

template <typename T, bool kToHsv>
__global__ void ColorSpaceKernel(const T* x, T* y, int64_t pixels) {
  using C = ComputeOf<T>;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < pixels;
       p += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    C a[3], b[3];
    for (int k = 0; k < 3; ++k) a[k] = static_cast<C>(Widen(x[3 * p + k]));
    if (kToHsv) {
      kernels::RgbToHsv(a, b, RoundOf<T>());
    } else {
      kernels::HsvToRgb(a, b, RoundOf<T>());
    }
    for (int k = 0; k < 3; ++k) y[3 * p + k] = Narrow<T>(b[k]);
  }
}

template <typename T, bool kHue>
__global__ void AdjustHsvKernel(const T* x, T* y, int64_t pixels, float f) {
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < pixels;
       p += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float a[3], b[3];
    for (int k = 0; k < 3; ++k) a[k] = static_cast<float>(Widen(x[3 * p + k]));
    if (kHue) {
      kernels::AdjustHuePixel(a, f, b);
    } else {
      kernels::AdjustSaturationPixel(a, f, b);
    }
    for (int k = 0; k < 3; ++k) y[3 * p + k] = Narrow<T>(b[k]);
  }
}

template <typename T>
__global__ void ChannelMeans(const T* x, float* means, int64_t images, int64_t pixels, int64_t c) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < images * c;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = n / c, k = n % c;
    float sum = 0.0f;
    for (int64_t p = 0; p < pixels; ++p) sum += static_cast<float>(Widen(x[(i * pixels + p) * c + k]));
    means[n] = sum / static_cast<float>(pixels);
  }
}

template <typename T>
__global__ void ApplyContrast(const T* x, const float* means, T* y, int64_t total, int64_t pixels,
                              int64_t c, float f) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float m = means[(n / (pixels * c)) * c + n % c];
    y[n] = Narrow<T>((static_cast<float>(Widen(x[n])) - m) * f + m);
  }
}

template <typename T, bool kToHsv>
struct ColorSpaceOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr in = Input(ctx, 0);
    if (!in || !kernels::CheckColorImage(ctx, in.get())) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, Dims(in.get()));
    const int64_t pixels = TF_TensorElementCount(in.get()) / 3;
    if (!out || pixels == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    ColorSpaceKernel<T, kToHsv><<<BlocksFor(pixels), kThreads, 0, stream>>>(
        Data<T>(in), Data<T>(out), pixels);
    CheckLaunch(ctx, kToHsv ? "RGBToHSV" : "HSVToRGB");
  }
};

template <typename T, bool kHue>
struct AdjustHsvOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr in = Input(ctx, 0), factor = Input(ctx, 1);
    if (!in || !factor ||
        !kernels::CheckAdjustInputs(ctx, in.get(), factor.get(), kHue ? "delta" : "scale", true))
      return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, Dims(in.get()));
    const int64_t pixels = TF_TensorElementCount(in.get()) / 3;
    if (!out || pixels == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    AdjustHsvKernel<T, kHue><<<BlocksFor(pixels), kThreads, 0, stream>>>(
        Data<T>(in), Data<T>(out), pixels, *Data<float>(factor));
    CheckLaunch(ctx, kHue ? "AdjustHue" : "AdjustSaturation");
  }
};

template <typename T>
struct AdjustContrastOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const char* op = "AdjustContrastv2";
    TensorPtr in = Input(ctx, 0), factor = Input(ctx, 1);
    if (!in || !factor ||
        !kernels::CheckAdjustInputs(ctx, in.get(), factor.get(), "contrast_factor", false))
      return;
    const std::vector<int64_t> dims = Dims(in.get());
    TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
    const int64_t total = TF_TensorElementCount(in.get());
    if (!out || total == 0) return;
    const int64_t r = static_cast<int64_t>(dims.size());
    const int64_t c = dims[r - 1], pixels = dims[r - 2] * dims[r - 3], images = total / (pixels * c);
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    TensorPtr means = AllocateTemp(ctx, TF_FLOAT, {images * c});
    if (!means) return;
    ChannelMeans<T><<<BlocksFor(images * c), kThreads, 0, stream>>>(
        Data<T>(in), Data<float>(means), images, pixels, c);
    if (!CheckLaunch(ctx, op)) return;
    ApplyContrast<T><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<T>(in), Data<float>(means), Data<T>(out), total, pixels, c, *Data<float>(factor));
    CheckLaunch(ctx, op);
  }
};

template <typename... Ts>
void RegisterColorSpaces(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"RGBToHSV", {{"T", DtypeOf<Ts>::value}}, {},
                            &ColorSpaceOp<Ts, true>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"HSVToRGB", {{"T", DtypeOf<Ts>::value}}, {},
                            &ColorSpaceOp<Ts, false>::Compute}, status), ...);
}

template <typename... Ts>
void RegisterAdjustments(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"AdjustHue", {{"T", DtypeOf<Ts>::value}}, {"delta"},
                            &AdjustHsvOp<Ts, true>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"AdjustSaturation", {{"T", DtypeOf<Ts>::value}}, {"scale"},
                            &AdjustHsvOp<Ts, false>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"AdjustContrastv2", {{"T", DtypeOf<Ts>::value}}, {"contrast_factor"},
                            &AdjustContrastOp<Ts>::Compute}, status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/color.cc).
void RegisterColorKernels(TF_Status* status) {
  RegisterColorSpaces(Types<__half, __nv_bfloat16, float, double>(), status);
  RegisterAdjustments(Types<float>(), status);
}

}  // namespace cuda
}  // namespace opgen

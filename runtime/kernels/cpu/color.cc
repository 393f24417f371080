// The colour ops on the host: RGBToHSV and HSVToRGB (half and bfloat16 computed in float,
// rounded after each step as their arithmetic does; float in float, double in double), AdjustHue, AdjustSaturation and AdjustContrastv2 (float, the
// type TensorFlow's CPU kernels take). Per-pixel maths in ../color_spec.h.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "../color_spec.h"
#include "kernel_util.h"
#include "parallel.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cpu {
namespace {

template <typename T>
using ComputeOf = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

// Rounds a float to T after each step (half, bfloat16).
template <typename T> struct RoundTo {
  float operator()(float v) const { return static_cast<float>(T(v)); }
};
template <typename T>
using RoundOf = typename std::conditional<std::is_same<T, float>::value || std::is_same<T, double>::value,
                                          kernels::Exact, RoundTo<T>>::type;

// RGBToHSV (kToHsv) or HSVToRGB over [..., 3] pixels.
template <typename T, bool kToHsv>
struct ColorSpaceKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    using C = ComputeOf<T>;
    const TF_Tensor* in = BorrowInput(ctx, 0);
    if (in == nullptr || !kernels::CheckColorImage(ctx, in)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, Dims(in));
    if (!out) return;
    const T* x = Data<T>(in);
    T* y = Data<T>(out);
    ParallelFor(TF_TensorElementCount(in) / 3, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        C a[3], b[3];
        for (int k = 0; k < 3; ++k) a[k] = static_cast<C>(x[3 * p + k]);
        if (kToHsv) {
          kernels::RgbToHsv(a, b, RoundOf<T>());
        } else {
          kernels::HsvToRgb(a, b, RoundOf<T>());
        }
        for (int k = 0; k < 3; ++k) y[3 * p + k] = T(b[k]);
      }
    }, 1 << 12);
  }
};

// AdjustHue (kHue) or AdjustSaturation over [..., 3] float pixels.
template <bool kHue>
void AdjustHsvCompute(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* factor = BorrowInput(ctx, 1);
  if (in == nullptr || factor == nullptr ||
      !kernels::CheckAdjustInputs(ctx, in, factor, kHue ? "delta" : "scale", true))
    return;
  TensorPtr out = AllocateOutput<float>(ctx, 0, Dims(in));
  if (!out) return;
  const float f = *Data<float>(factor);
  const float* x = Data<float>(in);
  float* y = Data<float>(out);
  ParallelFor(TF_TensorElementCount(in) / 3, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      if (kHue) {
        kernels::AdjustHuePixel(x + 3 * p, f, y + 3 * p);
      } else {
        kernels::AdjustSaturationPixel(x + 3 * p, f, y + 3 * p);
      }
    }
  }, 1 << 12);
}

// AdjustContrastv2: each channel of each image moved away from (or towards) its mean
// over height and width by contrast_factor.
void AdjustContrastCompute(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* factor = BorrowInput(ctx, 1);
  if (in == nullptr || factor == nullptr ||
      !kernels::CheckAdjustInputs(ctx, in, factor, "contrast_factor", false))
    return;
  const std::vector<int64_t> dims = Dims(in);
  TensorPtr out = AllocateOutput<float>(ctx, 0, dims);
  if (!out) return;
  const int64_t r = static_cast<int64_t>(dims.size());
  const int64_t c = dims[r - 1], pixels = dims[r - 2] * dims[r - 3];
  const int64_t images = pixels * c == 0 ? 0 : TF_TensorElementCount(in) / (pixels * c);
  const float f = *Data<float>(factor);
  const float* x = Data<float>(in);
  float* y = Data<float>(out);
  ParallelFor(images, [&](int64_t begin, int64_t end) {
    std::vector<float> mean(c);
    for (int64_t i = begin; i < end; ++i) {
      const float* xi = x + i * pixels * c;
      float* yi = y + i * pixels * c;
      std::fill(mean.begin(), mean.end(), 0.0f);
      for (int64_t p = 0; p < pixels; ++p)
        for (int64_t k = 0; k < c; ++k) mean[k] += xi[p * c + k];
      for (int64_t k = 0; k < c; ++k) mean[k] /= static_cast<float>(pixels);
      for (int64_t p = 0; p < pixels; ++p)
        for (int64_t k = 0; k < c; ++k)
          yi[p * c + k] = (xi[p * c + k] - mean[k]) * f + mean[k];
    }
  }, 1);
}

template <typename... Ts>
void RegisterColorSpaces(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"RGBToHSV", {{"T", DtypeOf<Ts>::value}}, {},
                            &ColorSpaceKernel<Ts, true>::Compute}, status), ...);
  (RegisterKernel(kDevice, {"HSVToRGB", {{"T", DtypeOf<Ts>::value}}, {},
                            &ColorSpaceKernel<Ts, false>::Compute}, status), ...);
}

}  // namespace

void RegisterColorKernels(TF_Status* status) {
  RegisterColorSpaces(Types<Half, BFloat16, float, double>(), status);
  RegisterKernel(kDevice, {"AdjustHue", {{"T", TF_FLOAT}}, {}, &AdjustHsvCompute<true>}, status);
  RegisterKernel(kDevice, {"AdjustSaturation", {{"T", TF_FLOAT}}, {}, &AdjustHsvCompute<false>},
                 status);
  RegisterKernel(kDevice, {"AdjustContrastv2", {{"T", TF_FLOAT}}, {}, &AdjustContrastCompute},
                 status);
}

}  // namespace cpu
}  // namespace opgen

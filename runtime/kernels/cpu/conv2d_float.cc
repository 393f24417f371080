// The float32 convolution core: the vector kernels of conv2d_simd.h (AVX-512, or AVX2
// + FMA) where the CPU has them; elsewhere im2col + one OpenBLAS GEMM per image, then
// the epilogue over that image's output while it is still in cache.
#include "conv2d_float.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "conv2d_simd.h"
#include "gemm.h"
#include "parallel.h"
#include "simd_loops.h"

namespace opgen {
namespace cpu {
namespace {

inline float Activate(float x, const Epilogue& ep) {
  switch (ep.activation) {
    case Activation::kNone: return x;
    // Written as TensorFlow's kernels behave on NaN: max/min keep a NaN input.
    case Activation::kRelu: return std::isnan(x) ? x : std::max(x, 0.0f);
    case Activation::kRelu6: return std::isnan(x) ? x : std::min(std::max(x, 0.0f), 6.0f);
    case Activation::kElu: return x < 0.0f ? std::expm1(x) : x;
    case Activation::kLeakyRelu: return x < 0.0f ? ep.alpha * x : x;
    case Activation::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case Activation::kSwish: return x / (1.0f + std::exp(-x));
    case Activation::kTanh: return std::tanh(x);
    case Activation::kGeluExact: return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Activation::kGeluTanh: {
      const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + std::tanh(inner));
    }
  }
  return x;
}

}  // namespace

namespace {

// One row of `n` channels: the activation through simd_loops' vector loops where there
// is one (Elu and the exact GELU keep libm's expm1 / erf).
void ActivateRow(float* row, int64_t n, const Epilogue& ep) {
  switch (ep.activation) {
    case Activation::kNone: return;
    case Activation::kRelu: ReluFloatArray(row, n); return;
    case Activation::kRelu6: Relu6FloatArray(row, n); return;
    case Activation::kLeakyRelu: LeakyReluFloatArray(row, n, ep.alpha); return;
    case Activation::kSigmoid: SigmoidFloatArray(row, n); return;
    case Activation::kSwish: SwishFloatArray(row, n); return;
    case Activation::kTanh: TanhFloatArrayInPlace(row, n); return;
    case Activation::kGeluTanh: GeluTanhFloatArray(row, n); return;
    case Activation::kElu:
    case Activation::kGeluExact:
      for (int64_t c = 0; c < n; ++c) row[c] = Activate(row[c], ep);
      return;
  }
}

}  // namespace

void ApplyActivationBlock(float* out, int64_t rows, int64_t cols, int64_t ldc, const Epilogue& ep) {
  if (ep.activation == Activation::kNone) return;
  if (ldc == cols) {  // one contiguous run: one call
    ActivateRow(out, rows * cols, ep);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) ActivateRow(out + r * ldc, cols, ep);
}

void ApplyEpilogue(float* out, int64_t rows, int64_t cols, const Epilogue& ep,
                   const float* residual) {
  if (ep.empty()) return;
  if (ep.bias != nullptr)
    for (int64_t r = 0; r < rows; ++r) AddFloatArray(out + r * cols, ep.bias, cols);
  if (residual != nullptr) AddFloatArray(out, residual, rows * cols);
  ApplyActivationBlock(out, rows, cols, cols, ep);
}

void Conv2DFloat(const Conv2DGeometry& g, const float* input, const float* filter, float* output,
                 const Epilogue& ep, FilterCache* cache) {
  if (Conv2DFloatWinograd(g, input, filter, output, ep, cache)) return;
  if (Conv2DFloatBlocked(g, input, filter, output, ep, cache)) return;
  Conv2DFloatPortable(g, input, filter, output, ep);
}

void Conv2DFloatPortable(const Conv2DGeometry& g, const float* input, const float* filter,
                         float* output, const Epilogue& ep) {
  const int64_t K = g.kh * g.kw * g.ic;
  const int64_t pixels = g.oh * g.ow;
  // Images stack into one GEMM (their im2col rows follow each other, as do their output
  // rows), up to kMaxStackedColumns elements: small images would otherwise pay a GEMM
  // call's fixed cost each.
  constexpr int64_t kMaxStackedColumns = int64_t{4} << 20;
  const int64_t group = std::max<int64_t>(
      1, std::min<int64_t>(g.batch, kMaxStackedColumns / std::max<int64_t>(pixels * K, 1)));
  std::vector<float> cols(static_cast<size_t>(std::min(group, std::max<int64_t>(g.batch, 1)) * pixels * K));
  for (int64_t b0 = 0; b0 < g.batch; b0 += group) {
    const int64_t n = std::min(group, g.batch - b0);
    for (int64_t b = b0; b < b0 + n; ++b) {
      const float* image = input + b * g.ih * g.iw * g.ic;
      for (int64_t x = 0; x < g.ow; ++x) {
        // The taps [j0, j1) of this column that land inside the image (the same on every
        // row): the others are zeros, and with no dilation the inside ones are one run.
        const int64_t sx0 = x * g.stride_w - g.pad_left;
        int64_t j0 = 0, j1 = g.kw;
        while (j0 < g.kw && sx0 + j0 * g.dilation_w < 0) ++j0;
        while (j1 > j0 && sx0 + (j1 - 1) * g.dilation_w >= g.iw) --j1;
        for (int64_t y = 0; y < g.oh; ++y) {
          float* row = cols.data() + ((b - b0) * pixels + y * g.ow + x) * K;
          for (int64_t i = 0; i < g.kh; ++i) {
            const int64_t sy = y * g.stride_h - g.pad_top + i * g.dilation_h;
            float* dst = row + i * g.kw * g.ic;
            if (sy < 0 || sy >= g.ih || j0 == j1) {
              std::fill_n(dst, g.kw * g.ic, 0.0f);
              continue;
            }
            std::fill_n(dst, j0 * g.ic, 0.0f);
            const float* src = image + (sy * g.iw + sx0) * g.ic;
            if (g.dilation_w == 1) {
              std::copy_n(src + j0 * g.ic, (j1 - j0) * g.ic, dst + j0 * g.ic);
            } else {
              for (int64_t j = j0; j < j1; ++j)
                std::copy_n(src + j * g.dilation_w * g.ic, g.ic, dst + j * g.ic);
            }
            std::fill_n(dst + j1 * g.ic, (g.kw - j1) * g.ic, 0.0f);
          }
        }
      }
    }
    const int64_t rows = n * pixels;
    float* out = output + b0 * pixels * g.oc;
    Gemm(false, false, rows, g.oc, K, cols.data(), filter, out);
    // On both cores, as OpenBLAS ran the product: the fused kernels' epilogue must not
    // cost more than the BiasAdd and activation kernels it replaces.
    const float* residual = ep.residual != nullptr ? ep.residual + b0 * pixels * g.oc : nullptr;
    if (!ep.empty())
      ParallelFor(rows, [&](int64_t begin, int64_t end) {
        ApplyEpilogue(out + begin * g.oc, end - begin, g.oc, ep,
                      residual != nullptr ? residual + begin * g.oc : nullptr);
      }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(g.oc, 1)));
  }
}

}  // namespace cpu
}  // namespace opgen

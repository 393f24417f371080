// The float32 depthwise convolution. NHWC keeps each pixel's channels contiguous, in the
// input, the filter ([kh, kw, c]) and the output alike, so the kernel works on blocks of
// one vector of channels of a few neighbouring output pixels: their sums stay in
// registers over all kh x kw taps, each filter vector loaded once per tap serves every
// pixel of the block, and the block is stored once, with bias and Relu / Relu6 /
// Sigmoid / Swish already applied. Threads take whole output rows.
//
// One templated body, instantiated per ISA with that ISA's vector width and pixel block
// (AVX-512: 16 lanes x 4 pixels; AVX2 + FMA: 8 lanes x 8 pixels, the sums in 8 of the 16
// ymm registers; the x86-64 baseline: 4 lanes x 4 pixels; half vectors where there are
// fewer channels than a vector, down to 4 lanes), each inlined into a function
// compiled for its ISA and picked once at load time. OPGEN_CPU_ISA (cpu_isa.h) caps
// the choice (tests run every path on one machine).
#include "depthwise_float.h"

#include <algorithm>
#include <cstring>

#include "cpu_isa.h"
#include "parallel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OPGEN_DW_X86 1
#define OPGEN_DW_TARGET(isa) __attribute__((target(isa)))
#else
#define OPGEN_DW_X86 0
#define OPGEN_DW_TARGET(isa)
#endif
// The helpers passing vectors are always inlined: no call ABI is involved, and they are
// compiled for the ISA of the function they are inlined into.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
#if defined(__GNUC__)
#define OPGEN_DW_INLINE inline __attribute__((always_inline))
#else
#define OPGEN_DW_INLINE inline
#endif
#include "vector_math.h"  // after the pragma: its sigmoid returns vectors too

namespace opgen {
namespace cpu {
namespace {

// kLanes floats as one GCC vector.
template <int kLanes>
struct VecOf {
  typedef float type __attribute__((vector_size(kLanes * sizeof(float))));
};

template <typename Vec>
OPGEN_DW_INLINE Vec Load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename Vec>
OPGEN_DW_INLINE void Store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }

// The activations applied to the registers before the store. Relu and Relu6 are
// written so that a NaN stays NaN (as TensorFlow's kernels and conv2d_float.cc's
// epilogue do): a comparison with NaN is false and keeps x. Sigmoid and Swish (the
// depthwise layers of EfficientNet and MobileNetV3) through vector_math.h's SigmoidOf.
enum class Clamp { kNone, kRelu, kRelu6, kSigmoid, kSwish };

template <typename Vec>
OPGEN_DW_INLINE Vec ClampVec(Vec x, Clamp clamp) {
  typedef uint32_t UVec __attribute__((vector_size(sizeof(Vec))));
  const Vec zero = Vec{};
  switch (clamp) {
    case Clamp::kNone: return x;
    case Clamp::kRelu: return x < zero ? zero : x;
    case Clamp::kRelu6: {
      x = x < zero ? zero : x;
      const Vec six = zero + 6.0f;
      return x > six ? six : x;
    }
    case Clamp::kSigmoid: return SigmoidOf<Vec, UVec>(x);
    case Clamp::kSwish: return SwishOf<Vec, UVec>(x);
  }
  return x;
}
OPGEN_DW_INLINE float ClampScalar(float x, Clamp clamp) {
  switch (clamp) {
    case Clamp::kNone: return x;
    case Clamp::kRelu: return x < 0.0f ? 0.0f : x;
    case Clamp::kRelu6: x = x < 0.0f ? 0.0f : x; return x > 6.0f ? 6.0f : x;
    case Clamp::kSigmoid: return SigmoidOf<float, uint32_t>(x);
    case Clamp::kSwish: return SwishOf<float, uint32_t>(x);
  }
  return x;
}

// One output row's invariants.
struct Row {
  const float* image;  // the input image of this row's batch entry
  float* out;          // the output row, ow * c floats
  int64_t y0;          // input row of tap row 0 (may be negative)
  int64_t i_lo, i_hi;  // the tap rows that fall inside the image
};

// kPixels neighbouring output pixels from x, channels [c0, c0 + lanes), taps columns
// [j_lo, j_hi) (all inside the image for every pixel of the block).
template <typename Vec, int kPixels>
OPGEN_DW_INLINE void VecBlock(const DepthwiseGeometry& g, const Row& r, const float* filter,
                              const float* bias, Clamp clamp, int64_t x, int64_t c0,
                              int64_t j_lo, int64_t j_hi) {
  const int64_t c = g.ic, row_stride = g.iw * c, pixel_step = g.stride_w * c;
  Vec acc[kPixels];
  const Vec init = bias != nullptr ? Load<Vec>(bias + c0) : Vec{};
  for (int p = 0; p < kPixels; ++p) acc[p] = init;
  const int64_t x0 = x * g.stride_w - g.pad_left;
  for (int64_t i = r.i_lo; i < r.i_hi; ++i) {
    const float* in_row = r.image + (r.y0 + i * g.dilation_h) * row_stride + c0;
    const float* f_row = filter + i * g.kw * c + c0;
    for (int64_t j = j_lo; j < j_hi; ++j) {
      const Vec f = Load<Vec>(f_row + j * c);
      const float* in = in_row + (x0 + j * g.dilation_w) * c;
      for (int p = 0; p < kPixels; ++p) acc[p] += Load<Vec>(in + p * pixel_step) * f;
    }
  }
  float* out = r.out + x * c + c0;
  for (int p = 0; p < kPixels; ++p) Store(out + p * c, ClampVec(acc[p], clamp));
}

// Channels [c0, c) of one pixel, one channel at a time (fewer channels than a vector).
OPGEN_DW_INLINE void ScalarChannels(const DepthwiseGeometry& g, const Row& r, const float* filter,
                                    const float* bias, Clamp clamp, int64_t x, int64_t c0,
                                    int64_t j_lo, int64_t j_hi) {
  const int64_t c = g.ic, row_stride = g.iw * c;
  const int64_t x0 = x * g.stride_w - g.pad_left;
  for (int64_t k = c0; k < c; ++k) {
    float acc = bias != nullptr ? bias[k] : 0.0f;
    for (int64_t i = r.i_lo; i < r.i_hi; ++i) {
      const float* in_row = r.image + (r.y0 + i * g.dilation_h) * row_stride + k;
      const float* f_row = filter + i * g.kw * c + k;
      for (int64_t j = j_lo; j < j_hi; ++j) acc += in_row[(x0 + j * g.dilation_w) * c] * f_row[j * c];
    }
    r.out[x * c + k] = ClampScalar(acc, clamp);
  }
}

// Every channel of kPixels pixels from x, with tap columns [j_lo, j_hi). Channels past
// the last whole vector go in one more vector ending at the last channel: it overlaps
// the one before and writes the same values again, cheaper than a scalar tail when the
// channel count is small and odd (NASNet's 11, 22, 44, 88).
template <typename Vec, int kPixels>
OPGEN_DW_INLINE void Pixels(const DepthwiseGeometry& g, const Row& r, const float* filter,
                            const float* bias, Clamp clamp, int64_t x, int64_t j_lo, int64_t j_hi) {
  constexpr int kLanes = sizeof(Vec) / sizeof(float);
  const int64_t c = g.ic;
  if (c < kLanes) {  // fewer channels than a vector: half vectors, down to 4 lanes
    if constexpr (kLanes > 4) {
      Pixels<typename VecOf<kLanes / 2>::type, kPixels>(g, r, filter, bias, clamp, x, j_lo, j_hi);
    } else {
      for (int p = 0; p < kPixels; ++p) ScalarChannels(g, r, filter, bias, clamp, x + p, 0, j_lo, j_hi);
    }
    return;
  }
  int64_t c0 = 0;
  for (; c0 + kLanes <= c; c0 += kLanes) VecBlock<Vec, kPixels>(g, r, filter, bias, clamp, x, c0, j_lo, j_hi);
  if (c0 < c) VecBlock<Vec, kPixels>(g, r, filter, bias, clamp, x, c - kLanes, j_lo, j_hi);
}

// Ceiling of a / b for b > 0 and any a.
OPGEN_DW_INLINE int64_t CeilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The tap indices t in [0, k) with 0 <= start + t * dilation < size.
OPGEN_DW_INLINE void TapRange(int64_t start, int64_t dilation, int64_t k, int64_t size, int64_t* lo,
                              int64_t* hi) {
  *lo = std::min(k, std::max<int64_t>(0, CeilDiv(-start, dilation)));
  *hi = std::max(*lo, std::min(k, CeilDiv(size - start, dilation)));
}

// Output rows [begin, end) of the flattened [batch * oh] rows, multiplier 1, in vectors
// of kLanes channels and blocks of kPixels pixels.
template <int kLanes, int kPixels>
OPGEN_DW_INLINE void RowsBody(const DepthwiseGeometry& g, const float* input, const float* filter,
                              float* output, const float* bias, Clamp clamp, int64_t begin,
                              int64_t end) {
  using Vec = typename VecOf<kLanes>::type;
  static_assert(kPixels >= 4 && kPixels % 2 == 0, "the interior steps down to 4, 2, 1 pixels");
  const int64_t c = g.ic;
  // Output columns whose taps all fall inside the image.
  const int64_t span = (g.kw - 1) * g.dilation_w;
  const int64_t x_lo = std::min(g.ow, CeilDiv(g.pad_left, g.stride_w));
  const int64_t x_hi = std::max(x_lo, std::min(g.ow, g.iw - 1 - span + g.pad_left >= 0
                                                         ? (g.iw - 1 - span + g.pad_left) / g.stride_w + 1
                                                         : 0));
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / g.oh, y = row % g.oh;
    Row r;
    r.image = input + b * g.ih * g.iw * c;
    r.out = output + row * g.ow * c;
    r.y0 = y * g.stride_h - g.pad_top;
    TapRange(r.y0, g.dilation_h, g.kh, g.ih, &r.i_lo, &r.i_hi);
    // Border columns (some taps outside the image) one at a time, with their tap
    // ranges; the interior in blocks of kPixels, its last columns in blocks of 4 and 2
    // (a 7- or 14-pixel row would otherwise go one pixel at a time).
    int64_t x = 0;
    for (; x < std::min(x_lo, g.ow); ++x) {
      int64_t j_lo, j_hi;
      TapRange(x * g.stride_w - g.pad_left, g.dilation_w, g.kw, g.iw, &j_lo, &j_hi);
      Pixels<Vec, 1>(g, r, filter, bias, clamp, x, j_lo, j_hi);
    }
    for (; x + kPixels <= x_hi; x += kPixels) Pixels<Vec, kPixels>(g, r, filter, bias, clamp, x, 0, g.kw);
    if (kPixels > 4 && x + 4 <= x_hi) {
      Pixels<Vec, 4>(g, r, filter, bias, clamp, x, 0, g.kw);
      x += 4;
    }
    if (x + 2 <= x_hi) {
      Pixels<Vec, 2>(g, r, filter, bias, clamp, x, 0, g.kw);
      x += 2;
    }
    for (; x < g.ow; ++x) {
      int64_t j_lo, j_hi;
      TapRange(x * g.stride_w - g.pad_left, g.dilation_w, g.kw, g.iw, &j_lo, &j_hi);
      Pixels<Vec, 1>(g, r, filter, bias, clamp, x, j_lo, j_hi);
    }
  }
}

// RowsBody once per activation, each with its own constant: the activation's code then
// sits only in its own copy, and leaves the others' registers alone (a runtime choice
// inside the block slowed the plain and Relu6 copies by a sixth).
template <int kLanes, int kPixels>
OPGEN_DW_INLINE void RowsPerActivation(const DepthwiseGeometry& g, const float* input,
                                       const float* filter, float* output, const float* bias,
                                       Clamp clamp, int64_t begin, int64_t end) {
  switch (clamp) {
    case Clamp::kNone:
      return RowsBody<kLanes, kPixels>(g, input, filter, output, bias, Clamp::kNone, begin, end);
    case Clamp::kRelu:
      return RowsBody<kLanes, kPixels>(g, input, filter, output, bias, Clamp::kRelu, begin, end);
    case Clamp::kRelu6:
      return RowsBody<kLanes, kPixels>(g, input, filter, output, bias, Clamp::kRelu6, begin, end);
    case Clamp::kSigmoid:
      return RowsBody<kLanes, kPixels>(g, input, filter, output, bias, Clamp::kSigmoid, begin,
                                       end);
    case Clamp::kSwish:
      return RowsBody<kLanes, kPixels>(g, input, filter, output, bias, Clamp::kSwish, begin, end);
  }
}

using RowsFn = void (*)(const DepthwiseGeometry&, const float*, const float*, float*, const float*,
                        Clamp, int64_t, int64_t);

#if OPGEN_DW_X86
OPGEN_DW_TARGET("avx512f,avx2,fma")
void RowsAvx512(const DepthwiseGeometry& g, const float* input, const float* filter, float* output,
                const float* bias, Clamp clamp, int64_t begin, int64_t end) {
  RowsPerActivation<16, 4>(g, input, filter, output, bias, clamp, begin, end);
}
OPGEN_DW_TARGET("avx2,fma")
void RowsAvx2(const DepthwiseGeometry& g, const float* input, const float* filter, float* output,
              const float* bias, Clamp clamp, int64_t begin, int64_t end) {
  RowsPerActivation<8, 8>(g, input, filter, output, bias, clamp, begin, end);
}
#endif
void RowsBaseline(const DepthwiseGeometry& g, const float* input, const float* filter, float* output,
                  const float* bias, Clamp clamp, int64_t begin, int64_t end) {
  RowsPerActivation<4, 4>(g, input, filter, output, bias, clamp, begin, end);
}

// The widest ISA this CPU runs, capped by OPGEN_CPU_ISA (cpu_isa.h).
RowsFn PickRows() {
#if OPGEN_DW_X86
  switch (WidestCpuIsa()) {
    case CpuIsa::kAvx512: return RowsAvx512;
    case CpuIsa::kAvx2: return RowsAvx2;
    case CpuIsa::kPortable: break;
  }
#endif
  return RowsBaseline;
}

void DepthwiseRows(const DepthwiseGeometry& g, const float* input, const float* filter,
                   float* output, const float* bias, Clamp clamp, int64_t begin, int64_t end) {
  static const RowsFn rows = PickRows();
  rows(g, input, filter, output, bias, clamp, begin, end);
}

// Any channel multiplier: output channel k * m_count + m from input channel k. Rare in
// models (Keras' depth_multiplier defaults to 1); a plain loop over the multiplier.
void DepthwiseRowsMultiplier(const DepthwiseGeometry& g, const float* input, const float* filter,
                             float* output, const float* bias, Clamp clamp, int64_t begin,
                             int64_t end) {
  const int64_t c = g.ic, m_count = g.multiplier, oc = c * m_count;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / g.oh, y = row % g.oh;
    const float* image = input + b * g.ih * g.iw * c;
    float* out = output + row * g.ow * oc;
    const int64_t y0 = y * g.stride_h - g.pad_top;
    int64_t i_lo, i_hi;
    TapRange(y0, g.dilation_h, g.kh, g.ih, &i_lo, &i_hi);
    for (int64_t x = 0; x < g.ow; ++x) {
      float* o = out + x * oc;
      for (int64_t k = 0; k < oc; ++k) o[k] = bias != nullptr ? bias[k] : 0.0f;
      const int64_t x0 = x * g.stride_w - g.pad_left;
      int64_t j_lo, j_hi;
      TapRange(x0, g.dilation_w, g.kw, g.iw, &j_lo, &j_hi);
      for (int64_t i = i_lo; i < i_hi; ++i)
        for (int64_t j = j_lo; j < j_hi; ++j) {
          const float* in = image + ((y0 + i * g.dilation_h) * g.iw + x0 + j * g.dilation_w) * c;
          const float* f = filter + (i * g.kw + j) * oc;
          for (int64_t k = 0; k < c; ++k)
            for (int64_t m = 0; m < m_count; ++m) o[k * m_count + m] += in[k] * f[k * m_count + m];
        }
      for (int64_t k = 0; k < oc; ++k) o[k] = ClampScalar(o[k], clamp);
    }
  }
}

}  // namespace

void DepthwiseConv2DFloat(const DepthwiseGeometry& g, const float* input, const float* filter,
                          float* output, const Epilogue& ep) {
  const int64_t oc = g.ic * g.multiplier, rows = g.batch * g.oh;
  if (rows == 0 || g.ow == 0 || oc == 0) return;
  // Relu, Relu6, Sigmoid and Swish are applied to the registers before the store; other
  // activations by ApplyEpilogue over each row block while it is still in cache.
  Clamp clamp = Clamp::kNone;
  Epilogue rest;  // what is left for ApplyEpilogue: the bias goes in with the sums
  rest.alpha = ep.alpha;
  switch (ep.activation) {
    case Activation::kRelu: clamp = Clamp::kRelu; break;
    case Activation::kRelu6: clamp = Clamp::kRelu6; break;
    case Activation::kSigmoid: clamp = Clamp::kSigmoid; break;
    case Activation::kSwish: clamp = Clamp::kSwish; break;
    default: rest.activation = ep.activation;
  }
  const int64_t per_row = g.ow * oc * std::max<int64_t>(1, g.kh * g.kw);
  // Rows per task: enough multiply-adds (~32K) to outweigh waking a thread.
  const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(per_row, 1));
  // Up to 4 tasks per thread, so that a thread the OS runs late holds back little.
  const int64_t tasks = std::max<int64_t>(1, std::min(4 * ParallelWorkers(), rows / min_rows));
  const int64_t step = (rows + tasks - 1) / tasks;
  auto run = [&](int64_t t) {
    const int64_t begin = t * step, end = std::min(rows, begin + step);
    if (begin >= end) return;
    if (g.multiplier == 1) DepthwiseRows(g, input, filter, output, ep.bias, clamp, begin, end);
    else DepthwiseRowsMultiplier(g, input, filter, output, ep.bias, clamp, begin, end);
    if (!rest.empty()) ApplyEpilogue(output + begin * g.ow * oc, (end - begin) * g.ow, oc, rest);
  };
  if (tasks == 1) run(0);
  else RunTasks(tasks, run);
}

}  // namespace cpu
}  // namespace opgen

// ScaleAndTranslate(Grad): the filters, the spans (which input pixels each output pixel
// mixes, with what weights) and the checks, shared by the CPU kernels and the CUDA
// plugin. Spans are computed on the host in float, as TensorFlow computes them, so both
// devices mix the same pixels with the same weights.
//
// Output pixel x (centre x + 0.5) samples input position s = (x + 0.5) / scale -
// translation / scale. The filter, widened by 1/scale when shrinking with antialias,
// weighs the input pixels whose centres lie within its radius of s; the weights are
// normalised to sum to one. An s outside [0, input size] samples nothing (zeros).
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

enum class SamplingFilter { kLanczos1, kLanczos3, kLanczos5, kGaussian, kBox, kTriangle,
                            kKeysCubic, kMitchellCubic };

// False for a name TensorFlow does not know.
inline bool ParseSamplingFilter(const std::string& name, SamplingFilter* f) {
  static const std::pair<const char*, SamplingFilter> kNames[] = {
      {"lanczos1", SamplingFilter::kLanczos1}, {"lanczos3", SamplingFilter::kLanczos3},
      {"lanczos5", SamplingFilter::kLanczos5}, {"gaussian", SamplingFilter::kGaussian},
      {"box", SamplingFilter::kBox}, {"triangle", SamplingFilter::kTriangle},
      {"keyscubic", SamplingFilter::kKeysCubic},
      {"mitchellcubic", SamplingFilter::kMitchellCubic}};
  for (const auto& [n, v] : kNames)
    if (name == n) {
      *f = v;
      return true;
    }
  return false;
}

inline float FilterRadius(SamplingFilter f) {
  switch (f) {
    case SamplingFilter::kLanczos3: return 3.0f;
    case SamplingFilter::kLanczos5: return 5.0f;
    case SamplingFilter::kGaussian: return 1.5f;
    case SamplingFilter::kKeysCubic:
    case SamplingFilter::kMitchellCubic: return 2.0f;
    default: return 1.0f;
  }
}

// The filter at distance x >= 0, in float as TensorFlow evaluates it.
inline float FilterAt(SamplingFilter f, float x) {
  switch (f) {
    case SamplingFilter::kLanczos1:
    case SamplingFilter::kLanczos3:
    case SamplingFilter::kLanczos5: {
      const float r = FilterRadius(f);
      constexpr float kPi = 3.14159265359f;
      if (x > r) return 0.0f;
      if (x <= 1e-3f) return 1.0f;  // the limit of sin(x) / x at 0
      return r * std::sin(kPi * x) * std::sin(kPi * x / r) / (kPi * kPi * x * x);
    }
    case SamplingFilter::kGaussian: {
      const float sigma = 1.5f / 3.0f;
      if (x >= 1.5f) return 0.0f;
      return static_cast<float>(std::exp(-x * x / (2.0 * sigma * sigma)));
    }
    case SamplingFilter::kBox: return x < 0.5f ? 1.0f : (x == 0.5f ? 0.5f : 0.0f);
    case SamplingFilter::kTriangle: return x < 1.0f ? 1.0f - x : 0.0f;
    case SamplingFilter::kKeysCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case SamplingFilter::kMitchellCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f)
        return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
  }
  return 0.0f;
}

// For each of `out_size` pixels: the first input pixel and `span` weights (zero past the
// image's edge or for a pixel that samples nothing).
struct Spans {
  int64_t span = 0;
  std::vector<int32_t> starts;
  std::vector<float> weights;
};

// A pixel position computed in float, clamped to [0, size - 1] before it becomes an
// integer (in double: float cannot hold every index, nor may a huge value be cast).
inline int64_t ClampIndex(float position, int64_t size) {
  const double v = std::clamp(static_cast<double>(position), 0.0, static_cast<double>(size - 1));
  return static_cast<int64_t>(v);
}

// The forward spans of one dimension; false (with `error`) where TensorFlow fails.
inline bool ComputeSpans(SamplingFilter f, int64_t out_size, int64_t in_size, float scale,
                         float translate, bool antialias, Spans* s, std::string* error) {
  const float inv_scale = static_cast<float>(1.0 / scale);
  const float inv_translate = -inv_scale * translate;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float reach = FilterRadius(f) * kernel_scale;
  // (compared as doubles: a tiny scale makes `reach` larger than any integer type)
  s->span = static_cast<double>(reach) >= static_cast<double>(in_size)
                ? in_size
                : std::min<int64_t>(2 * static_cast<int64_t>(std::ceil(reach)) + 1, in_size);
  s->starts.assign(out_size, 0);
  s->weights.assign(s->span * out_size, 0.0f);
  const float inv_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> w;
  for (int64_t x = 0; x < out_size; ++x) {
    const float sample = (static_cast<float>(x) + 0.5f) * inv_scale + inv_translate;
    if (!(sample >= 0 && sample <= static_cast<float>(in_size))) continue;  // NaN too
    const int64_t first = ClampIndex(std::ceil(sample - reach - 0.5f), in_size);
    const int64_t last = ClampIndex(std::floor(sample + reach - 0.5f), in_size) + 1;
    if (last - first > s->span) {
      *error = "Span is too large: " + std::to_string(last - first) + " vs " +
               std::to_string(s->span) + ".";
      return false;
    }
    float total = 0.0f;
    w.clear();
    for (int64_t i = first; i < last; ++i) {
      const float pos = static_cast<float>(i) + 0.5f - sample;
      w.push_back(FilterAt(f, std::fabs(pos * inv_kernel_scale)));
      total += w.back();
    }
    // A span whose weights cancel stays zero rather than blowing up.
    if (std::fabs(total) >= 1000.0f * FLT_MIN) {
      const float inv_total = 1.0f / total;
      for (size_t k = 0; k < w.size(); ++k) s->weights[x * s->span + k] = w[k] * inv_total;
    }
    s->starts[x] = static_cast<int32_t>(first);
  }
  return true;
}

// The transposed spans, for the gradient: for each forward input pixel, the forward
// output pixels that used it (from the first to the last), with their weights.
inline Spans GradSpans(const Spans& fwd, int64_t fwd_out_size, int64_t fwd_in_size) {
  std::vector<int64_t> first(fwd_in_size, -1), last(fwd_in_size, -1);
  for (int64_t o = 0; o < fwd_out_size; ++o)
    for (int64_t j = 0; j < fwd.span; ++j) {
      const int64_t i = fwd.starts[o] + j;
      if (fwd.weights[o * fwd.span + j] == 0.0f || i >= fwd_in_size) continue;
      if (first[i] < 0) first[i] = o;
      last[i] = o;
    }
  Spans g;
  for (int64_t i = 0; i < fwd_in_size; ++i)
    if (first[i] >= 0) g.span = std::max(g.span, last[i] - first[i] + 1);
  g.starts.assign(fwd_in_size, 0);
  g.weights.assign(g.span * fwd_in_size, 0.0f);
  for (int64_t i = 0; i < fwd_in_size; ++i)
    if (first[i] >= 0) g.starts[i] = static_cast<int32_t>(first[i]);
  for (int64_t o = 0; o < fwd_out_size; ++o)
    for (int64_t j = 0; j < fwd.span; ++j) {
      const int64_t i = fwd.starts[o] + j;
      const float weight = fwd.weights[o * fwd.span + j];
      if (weight == 0.0f || i >= fwd_in_size) continue;
      g.weights[i * g.span + (o - first[i])] += weight;
    }
  return g;
}

struct ScaleTranslateAttrs {
  SamplingFilter filter;
  bool antialias;
};

inline void* CreateScaleTranslate(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool antialias = BoolAttr(ctx, "antialias", s.get());
  std::string name;
  if (TF_GetCode(s.get()) == TF_OK) name = StringAttr(ctx, "kernel_type", s.get());
  SamplingFilter f = SamplingFilter::kLanczos3;
  if (TF_GetCode(s.get()) == TF_OK && !ParseSamplingFilter(name, &f))
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, ("Unrecognized kernel type: " + name).c_str());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new ScaleTranslateAttrs{f, antialias};
}

inline void DeleteScaleTranslate(void* a) { delete static_cast<ScaleTranslateAttrs*>(a); }

// What one call resamples: `images` (the forward input, or the gradient) of
// [batch, in_h, in_w, c] into [batch, out_h, out_w, c], rows through `rows`, columns
// through `cols`.
struct ScaleTranslatePlan {
  TensorPtr images;
  int64_t batch, in_h, in_w, c, out_h, out_w;
  std::vector<int64_t> out_dims;
  bool grad;
  int64_t fwd_in[2], fwd_out[2];  // the forward op's [h, w] sizes
  float scale[2], translation[2];
  Spans rows, cols;
};

// Two floats of a host-memory input of shape [2]; false after reporting.
inline bool ReadPair(TF_OpKernelContext* ctx, int i, const char* what, float v[2]) {
  TensorPtr t = Input(ctx, i);
  if (!t) return false;
  if (TF_NumDims(t.get()) != 1 || TF_Dim(t.get(), 0) != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(what) + " must be a vector of two elements, got shape " +
                                       ShapeString(Dims(t.get())));
    return false;
  }
  const float* d = static_cast<const float*>(TF_TensorData(t.get()));
  v[0] = d[0];
  v[1] = d[1];
  return true;
}

// Checks the inputs and computes the spans. For the gradient (`grad`), input 0 is the
// gradient of the forward output and input 1 the original image (its shape only).
inline bool PlanScaleTranslate(TF_OpKernelContext* ctx, const ScaleTranslateAttrs& a, bool grad,
                               ScaleTranslatePlan* p) {
  const char* op = grad ? "ScaleAndTranslateGrad" : "ScaleAndTranslate";
  p->images = Input(ctx, 0);
  if (!p->images) return false;
  const std::vector<int64_t> in = Dims(p->images.get());
  if (in.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + (grad ? "grads" : "images") +
                                       " must be 4-dimensional, got shape " + ShapeString(in));
    return false;
  }
  std::vector<int64_t> fwd_in;  // the forward op's input [h, w]
  int64_t* fwd_out = p->fwd_out;
  if (grad) {
    TensorPtr original = Input(ctx, 1);
    if (!original) return false;
    fwd_in = Dims(original.get());
    if (fwd_in.size() != 4) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": original_image must be 4-dimensional, got shape " +
                                         ShapeString(fwd_in));
      return false;
    }
    fwd_in = {fwd_in[1], fwd_in[2]};
    fwd_out[0] = in[1];
    fwd_out[1] = in[2];
  } else {
    TensorPtr size = Input(ctx, 1);
    if (!size) return false;
    if (TF_NumDims(size.get()) != 1 || TF_Dim(size.get(), 0) != 2) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": size must be a vector of two elements, got shape " +
                                         ShapeString(Dims(size.get())));
      return false;
    }
    const int32_t* s = static_cast<const int32_t*>(TF_TensorData(size.get()));
    fwd_out[0] = s[0];
    fwd_out[1] = s[1];
    fwd_in = {in[1], in[2]};
    if (fwd_out[0] <= 0 || fwd_out[1] <= 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": output dimensions must be positive");
      return false;
    }
    if (in[3] <= 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": image must have at least one channel");
      return false;
    }
    if (in[1] <= 0 || in[2] <= 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input image must be of non-zero size");
      return false;
    }
  }
  if (fwd_in[0] > INT32_MAX || fwd_in[1] > INT32_MAX) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": image sizes must be at most int32's largest");
    return false;
  }
  float* scale = p->scale;
  if (!ReadPair(ctx, 2, "scale", scale) || !ReadPair(ctx, 3, "translation", p->translation))
    return false;
  if (!(scale[0] > 0 && scale[1] > 0)) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Scale must be greater than zero.");
    return false;
  }
  p->batch = in[0];
  p->c = in[3];
  p->in_h = in[1];
  p->in_w = in[2];
  p->out_h = grad ? fwd_in[0] : fwd_out[0];
  p->out_w = grad ? fwd_in[1] : fwd_out[1];
  p->out_dims = {p->batch, p->out_h, p->out_w, p->c};
  p->grad = grad;
  p->fwd_in[0] = fwd_in[0];
  p->fwd_in[1] = fwd_in[1];
  return true;
}

// The plan's spans, once its output is allocated (so that sizes no memory holds have
// failed there first); false after reporting.
inline bool PlanSpans(TF_OpKernelContext* ctx, const ScaleTranslateAttrs& a,
                      ScaleTranslatePlan* p) {
  const char* op = p->grad ? "ScaleAndTranslateGrad" : "ScaleAndTranslate";
  std::string error;
  try {
    Spans rows, cols;
    if (!ComputeSpans(a.filter, p->fwd_out[0], p->fwd_in[0], p->scale[0], p->translation[0],
                      a.antialias, &rows, &error) ||
        !ComputeSpans(a.filter, p->fwd_out[1], p->fwd_in[1], p->scale[1], p->translation[1],
                      a.antialias, &cols, &error)) {
      Fail(ctx, TF_INTERNAL, std::string(op) + ": " + error);
      return false;
    }
    p->rows = p->grad ? GradSpans(rows, p->fwd_out[0], p->fwd_in[0]) : std::move(rows);
    p->cols = p->grad ? GradSpans(cols, p->fwd_out[1], p->fwd_in[1]) : std::move(cols);
  } catch (const std::bad_alloc&) {
    Fail(ctx, TF_RESOURCE_EXHAUSTED, std::string(op) + ": out of memory for the filter spans");
    return false;
  }
  return true;
}

// The taps of span entry `x` that lie inside an input of `size` pixels.
inline int64_t TapsInside(const Spans& s, int64_t x, int64_t size) {
  return std::min<int64_t>(s.starts[x] + s.span, size) - s.starts[x];
}

}  // namespace kernels
}  // namespace opgen

// The float32 NHWC convolution core and the fused epilogue (bias + activation) shared by
// Conv2D, the optimizer's fused convolution and MatMul kernels (_OpgenFused*), and
// anything else that ends in "add a per-channel bias, apply an activation".
//
// One function per job so the algorithm behind it (im2col + GEMM today; 1x1 as a plain
// GEMM, Winograd or direct kernels where they are faster) can change without touching
// the kernels that call it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace opgen {
namespace cpu {

// Activations the fused kernels apply after the bias; the names of the `activation`
// attr of the _OpgenFused* ops (runtime/ops/fused_ops.cc) map onto these.
enum class Activation {
  kNone,
  kRelu,
  kRelu6,
  kElu,
  kLeakyRelu,  // alpha * x below zero
  kSigmoid,
  kSwish,      // x * sigmoid(x)
  kTanh,
  kGeluExact,  // x * Phi(x), with erf
  kGeluTanh,   // the tanh approximation
};

// What follows the product: out[r, c] = act(out[r, c] + bias[c] + residual[r, c]) (bias
// and residual may be null; the residual, a tensor shaped as the output, is only taken
// by the convolution core, Conv2DFloat).
struct Epilogue {
  const float* bias = nullptr;
  const float* residual = nullptr;
  Activation activation = Activation::kNone;
  float alpha = 0.2f;  // LeakyRelu's slope
  bool empty() const {
    return bias == nullptr && residual == nullptr && activation == Activation::kNone;
  }
};

// Applies `ep` to a row-major [rows, cols] block in place (cols is the channel count);
// `residual`, laid out as `out` (or null), is added before the activation.
void ApplyEpilogue(float* out, int64_t rows, int64_t cols, const Epilogue& ep,
                   const float* residual = nullptr);

// A 2-D convolution's sizes, NHWC input [batch, ih, iw, ic], HWIO filter [kh, kw, ic, oc],
// NHWC output [batch, oh, ow, oc], with pad_top / pad_left rows / columns of zeros before.
struct Conv2DGeometry {
  int64_t batch, ih, iw, ic;
  int64_t kh, kw, oc;
  int64_t oh, ow;
  int64_t stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_left;
};

// The forms the fast paths make of a filter before multiplying (panels for the GEMM
// micro-kernel, Winograd's transformed filter), kept between runs for a filter that
// never changes: a kernel whose filter input is a Const (the optimizer says so) owns
// one, so each form is made once per session instead of on every call (for ResNet50,
// ~100 MB of copies per image). Thread-safe; forms are never changed once made.
class FilterCache {
 public:
  enum Form { kGemmPanels, kWinograd };
  // The form (`floats` long) for `form` and panel width `nr`, made by make(dst) on
  // first use.
  const float* Get(Form form, int64_t nr, size_t floats, const std::function<void(float*)>& make) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<float>& v = forms_[{form, nr}];
    if (v.size() != floats) {
      v.assign(floats, 0.0f);
      make(v.data());
    }
    return v.data();
  }

 private:
  std::mutex mu_;
  std::map<std::pair<int, int64_t>, std::vector<float>> forms_;
};

// output = act(conv(input, filter) + bias). `output` holds batch*oh*ow*oc floats.
// Uses both cores (ParallelFor's pool, or OpenBLAS's on the portable path). `cache`,
// where given, keeps the filter's prepared forms: only for a filter that never changes.
void Conv2DFloat(const Conv2DGeometry& g, const float* input, const float* filter, float* output,
                 const Epilogue& ep, FilterCache* cache = nullptr);

// The same through im2col + OpenBLAS, the path for CPUs without AVX2 + FMA (and a reference
// the tests compare the fast path with).
void Conv2DFloatPortable(const Conv2DGeometry& g, const float* input, const float* filter,
                         float* output, const Epilogue& ep);

}  // namespace cpu
}  // namespace opgen

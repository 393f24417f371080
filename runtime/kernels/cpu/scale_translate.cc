// ScaleAndTranslate and ScaleAndTranslateGrad on NHWC images: the spans come from
// ../scale_translate_spec.h (shared with the CUDA plugin); here the two passes, rows
// into a float [batch, out_h, in_w, c] buffer, then columns, threads over rows.
#include <algorithm>
#include <new>
#include <vector>

#include "../scale_translate_spec.h"
#include "kernel_util.h"
#include "preprocessing_kernels.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::ScaleTranslateAttrs;
using kernels::ScaleTranslatePlan;

// out[b, y, x, k] = sum over the row span of weight * in[b, start + j, x, k], in span order.
template <typename T>
void GatherRows(const ScaleTranslatePlan& p, const T* in, float* out) {
  const int64_t row = p.in_w * p.c;
  ParallelFor(p.batch * p.out_h, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t b = r / p.out_h, y = r % p.out_h;
      float* o = out + r * row;
      std::fill(o, o + row, 0.0f);
      const T* src = in + (b * p.in_h + p.rows.starts[y]) * row;
      const float* w = p.rows.weights.data() + y * p.rows.span;
      const int64_t taps = kernels::TapsInside(p.rows, y, p.in_h);
      for (int64_t j = 0; j < taps; ++j, src += row)
        for (int64_t k = 0; k < row; ++k) o[k] += w[j] * static_cast<float>(src[k]);
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(4 * row, 1)));
}

// out[b, y, x, k] = sum over the column span of weight * mid[b, y, start + j, k].
void GatherColumns(const ScaleTranslatePlan& p, const float* mid, float* out) {
  const int64_t c = p.c;
  ParallelFor(p.batch * p.out_h, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* src_row = mid + r * p.in_w * c;
      float* o = out + r * p.out_w * c;
      for (int64_t x = 0; x < p.out_w; ++x, o += c) {
        const float* src = src_row + p.cols.starts[x] * c;
        const float* w = p.cols.weights.data() + x * p.cols.span;
        const int64_t taps = kernels::TapsInside(p.cols, x, p.in_w);
        std::fill(o, o + c, 0.0f);
        for (int64_t j = 0; j < taps; ++j, src += c)
          for (int64_t k = 0; k < c; ++k) o[k] += w[j] * src[k];
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(4 * p.out_w * c, 1)));
}

template <typename T, bool kGrad>
struct ScaleTranslateKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const ScaleTranslateAttrs& a = *static_cast<ScaleTranslateAttrs*>(state);
    ScaleTranslatePlan p;
    if (!kernels::PlanScaleTranslate(ctx, a, kGrad, &p)) return;
    TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
    if (!output) return;
    float* out = Data<float>(output);
    const int64_t n = NumElements(p.out_dims);
    if (n == 0) return;
    if (NumElements(Dims(p.images.get())) == 0) {  // a gradient of nothing
      std::fill(out, out + n, 0.0f);
      return;
    }
    if (!kernels::PlanSpans(ctx, a, &p)) return;
    std::vector<float> mid;
    try {
      mid.resize(static_cast<size_t>(p.batch * p.out_h * p.in_w * p.c));
    } catch (const std::bad_alloc&) {
      return Fail(ctx, TF_RESOURCE_EXHAUSTED, "ScaleAndTranslate: out of memory for rows");
    }
    GatherRows(p, Data<T>(p.images), mid.data());
    GatherColumns(p, mid.data(), out);
  }
};
template <typename T> using ForwardKernel = ScaleTranslateKernel<T, false>;

// The types the OpDef allows (TensorFlow's CPU kernels cover them all).
using ImageTypes = Types<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t, BFloat16, Half,
                         float, double>;

template <typename... Ts>
void RegisterForward(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"ScaleAndTranslate", {{"T", DtypeOf<Ts>::value}}, {},
                            &ForwardKernel<Ts>::Compute, kernels::CreateScaleTranslate,
                            kernels::DeleteScaleTranslate}, status), ...);
}

}  // namespace

void RegisterScaleTranslateKernels(TF_Status* status) {
  RegisterForward(ImageTypes(), status);
  RegisterKernel(kDevice, {"ScaleAndTranslateGrad", {{"T", TF_FLOAT}}, {},
                           &ScaleTranslateKernel<float, true>::Compute,
                           kernels::CreateScaleTranslate, kernels::DeleteScaleTranslate}, status);
}

}  // namespace cpu
}  // namespace opgen

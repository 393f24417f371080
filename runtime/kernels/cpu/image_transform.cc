// ImageProjectiveTransformV2 and V3 (Keras' RandomRotation, RandomZoom, RandomTranslation,
// RandomShear): each output pixel maps through its image's projective transform to an
// input point, which the fill mode brings back inside (or not: CONSTANT) and which is
// read nearest or bilinearly. The geometry is ../image_transform_spec.h's, shared with the
// CUDA plugin; threads over output rows.
#include "../image_transform_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::TransformAttrs;
using kernels::TransformPlan;

template <typename T, bool kV3>
struct TransformKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const TransformAttrs& a = *static_cast<TransformAttrs*>(state);
    const int num_inputs = kV3 ? 4 : 3;
    const TF_Tensor* in[4] = {};
    for (int i = 0; i < num_inputs; ++i)
      if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
    TransformPlan p;
    if (!kernels::PlanTransform(ctx, in[0], in[1], in[2], kV3 ? in[3] : nullptr, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, {p.batch, p.out_h, p.out_w, p.channels});
    if (!output || TF_TensorElementCount(output.get()) == 0) return;
    const T fill = kernels::FromFloat<T>(p.fill);
    const float fill_f = static_cast<float>(fill);
    const T* images = Data<T>(in[0]);
    const float* transforms = Data<float>(in[1]);
    T* out = Data<T>(output);
    const int64_t c = p.channels;
    ParallelFor(p.batch * p.out_h, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / p.out_h, y = row % p.out_h;
        const float* t = transforms + (p.shared ? 0 : 8 * b);
        const T* image = images + b * p.in_h * p.in_w * c;
        T* o = out + row * p.out_w * c;
        for (int64_t x = 0; x < p.out_w; ++x) {
          float iy, ix;
          if (!kernels::TransformedPoint(t, y, x, p.in_h, p.in_w, a.fill, &iy, &ix)) {
            for (int64_t k = 0; k < c; ++k) o[x * c + k] = fill;
            continue;
          }
          auto inside = [&](int64_t yy, int64_t xx) {
            return yy >= 0 && yy < p.in_h && xx >= 0 && xx < p.in_w;
          };
          if (!a.bilinear) {
            int64_t ny, nx;
            kernels::NearestPixel(iy, ix, &ny, &nx);
            const T* src = inside(ny, nx) ? image + (ny * p.in_w + nx) * c : nullptr;
            for (int64_t k = 0; k < c; ++k) o[x * c + k] = src ? src[k] : fill;
            continue;
          }
          for (int64_t k = 0; k < c; ++k) {
            auto read = [&](int64_t yy, int64_t xx) {
              return inside(yy, xx) ? static_cast<float>(image[(yy * p.in_w + xx) * c + k])
                                    : fill_f;
            };
            o[x * c + k] = kernels::FromFloat<T>(kernels::BilinearSample(iy, ix, read));
          }
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(p.out_w * c, 1)));
  }
};

template <typename... Ts>
void RegisterTransforms(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"ImageProjectiveTransformV2", {{"dtype", DtypeOf<Ts>::value}}, {},
                            &TransformKernel<Ts, false>::Compute, kernels::CreateTransformAttrs,
                            kernels::DeleteTransformAttrs}, status), ...);
  (RegisterKernel(kDevice, {"ImageProjectiveTransformV3", {{"dtype", DtypeOf<Ts>::value}}, {},
                            &TransformKernel<Ts, true>::Compute, kernels::CreateTransformAttrs,
                            kernels::DeleteTransformAttrs}, status), ...);
}

}  // namespace

void RegisterImageTransformKernels(TF_Status* status) {
  RegisterTransforms(Types<uint8_t, int32_t, int64_t, Half, BFloat16, float, double>(), status);
}

}  // namespace cpu
}  // namespace opgen

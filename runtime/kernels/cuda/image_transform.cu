// ImageProjectiveTransformV2/V3 on the GPU, the CPU kernel's types (TensorFlow's GPU kernel
// has no bfloat16; here it runs as the CPU one does, so every CPU kernel has its twin):
// the checks run on the host (output_shape and fill_value stay in host memory, as
// TensorFlow keeps them), then one thread per output value maps its pixel with
// ../image_transform_spec.h's geometry, the same float steps as the CPU kernel.
#include "../image_transform_spec.h"
#include "cuda_kernel_util.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::TransformAttrs;
using kernels::TransformPlan;

template <typename T>
__global__ void TransformKernel(const T* images, const float* transforms, TransformPlan p,
                                bool bilinear, kernels::FillMode mode, T fill, T* out,
                                int64_t total) {
  const float fill_f = static_cast<float>(Widen(fill));
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = n % p.channels, x = (n / p.channels) % p.out_w;
    const int64_t y = (n / (p.channels * p.out_w)) % p.out_h;
    const int64_t b = n / (p.channels * p.out_w * p.out_h);
    const float* t = transforms + (p.shared ? 0 : 8 * b);
    const T* image = images + b * p.in_h * p.in_w * p.channels + k;
    float iy, ix;
    if (!kernels::TransformedPoint(t, y, x, p.in_h, p.in_w, mode, &iy, &ix)) {
      out[n] = fill;
      continue;
    }
    auto inside = [&](int64_t yy, int64_t xx) {
      return yy >= 0 && yy < p.in_h && xx >= 0 && xx < p.in_w;
    };
    if (!bilinear) {
      int64_t ny, nx;
      kernels::NearestPixel(iy, ix, &ny, &nx);
      out[n] = inside(ny, nx) ? image[(ny * p.in_w + nx) * p.channels] : fill;
      continue;
    }
    auto read = [&](int64_t yy, int64_t xx) {
      return inside(yy, xx) ? static_cast<float>(Widen(image[(yy * p.in_w + xx) * p.channels]))
                            : fill_f;
    };
    out[n] = kernels::FromFloat<T>(kernels::BilinearSample(iy, ix, read));
  }
}

template <typename T, bool kV3>
struct TransformOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const TransformAttrs& a = *static_cast<TransformAttrs*>(state);
    const char* op = kV3 ? "ImageProjectiveTransformV3" : "ImageProjectiveTransformV2";
    TensorPtr in[4];
    for (int i = 0; i < (kV3 ? 4 : 3); ++i)
      if (!(in[i] = Input(ctx, i))) return;
    TransformPlan p;
    if (!kernels::PlanTransform(ctx, in[0].get(), in[1].get(), in[2].get(),
                                kV3 ? in[3].get() : nullptr, &p))
      return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, {p.batch, p.out_h, p.out_w, p.channels});
    if (!out) return;
    const int64_t total = p.batch * p.out_h * p.out_w * p.channels;
    if (total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    TransformKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<T>(in[0]), Data<float>(in[1]), p, a.bilinear, a.fill, kernels::FromFloat<T>(p.fill),
        Data<T>(out), total);
    CheckLaunch(ctx, op);
  }
};

template <typename... Ts>
void RegisterTransforms(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"ImageProjectiveTransformV2", {{"dtype", DtypeOf<Ts>::value}},
                            {"output_shape"}, &TransformOp<Ts, false>::Compute,
                            kernels::CreateTransformAttrs, kernels::DeleteTransformAttrs},
                  status), ...);
  (RegisterKernel(kDevice, {"ImageProjectiveTransformV3", {{"dtype", DtypeOf<Ts>::value}},
                            {"output_shape", "fill_value"}, &TransformOp<Ts, true>::Compute,
                            kernels::CreateTransformAttrs, kernels::DeleteTransformAttrs},
                  status), ...);
}

}  // namespace

void RegisterImageTransformKernels(TF_Status* status) {
  RegisterTransforms(Types<uint8_t, int32_t, int64_t, __half, __nv_bfloat16, float, double>(),
                     status);
}

}  // namespace cuda
}  // namespace opgen

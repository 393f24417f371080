// ScaleAndTranslate and ScaleAndTranslateGrad on the GPU: the spans are computed on the
// host from the host-memory scale / translation (../scale_translate_spec.h, as the CPU
// kernels), copied to the device, then two passes with one thread per value: rows into a
// float [batch, out_h, in_w, c] buffer, then columns, each summing its span in order.
#include "../scale_translate_spec.h"
#include "cuda_kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::ScaleTranslateAttrs;
using kernels::ScaleTranslatePlan;

struct SpanView {
  const int32_t* starts;
  const float* weights;
  int64_t span, in_size;  // in_size: the pixels along the gathered dimension
};

template <typename T> __device__ inline float AsFloat(T v) { return static_cast<float>(Widen(v)); }

// out[b, y, x, k] (out of [batch, out_h, width, c]) from in[b, start(y) + j, x, k].
template <typename T>
__global__ void RowsKernel(const T* in, float* out, int64_t total, int64_t out_h, int64_t width_c,
                           SpanView s) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t xk = n % width_c, row = n / width_c;
    const int64_t y = row % out_h, b = row / out_h;
    const int64_t start = s.starts[y];
    const int64_t taps = min(start + s.span, s.in_size) - start;
    const T* src = in + (b * s.in_size + start) * width_c + xk;
    float acc = 0.0f;
    for (int64_t j = 0; j < taps; ++j)
      acc = __fadd_rn(acc, __fmul_rn(s.weights[y * s.span + j], AsFloat(src[j * width_c])));
    out[n] = acc;
  }
}

// out[r, x, k] (out of [rows, out_w, c]) from mid[r, start(x) + j, k].
__global__ void ColumnsKernel(const float* mid, float* out, int64_t total, int64_t out_w,
                              int64_t c, SpanView s) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t k = n % c, pixel = n / c;
    const int64_t x = pixel % out_w, r = pixel / out_w;
    const int64_t start = s.starts[x];
    const int64_t taps = min(start + s.span, s.in_size) - start;
    const float* src = mid + (r * s.in_size + start) * c + k;
    float acc = 0.0f;
    for (int64_t j = 0; j < taps; ++j)
      acc = __fadd_rn(acc, __fmul_rn(s.weights[x * s.span + j], src[j * c]));
    out[n] = acc;
  }
}

// The spans copied into `buffer` (device memory, starts then weights); false after reporting.
bool Upload(TF_OpKernelContext* ctx, cudaStream_t stream, const kernels::Spans& s, int64_t in_size,
            TensorPtr* buffer, SpanView* view) {
  const int64_t count = static_cast<int64_t>(s.starts.size());
  const int64_t words = count + count * s.span;  // int32 starts and float weights, 4 bytes each
  *buffer = AllocateTemp(ctx, TF_FLOAT, {words > 0 ? words : 1});
  if (!*buffer) return false;
  char* base = static_cast<char*>(TF_TensorData(buffer->get()));
  if (!CheckCuda(ctx, cudaMemcpyAsync(base, s.starts.data(), count * 4, cudaMemcpyHostToDevice,
                                      stream), "ScaleAndTranslate") ||
      !CheckCuda(ctx, cudaMemcpyAsync(base + count * 4, s.weights.data(), count * s.span * 4,
                                      cudaMemcpyHostToDevice, stream), "ScaleAndTranslate"))
    return false;
  // Pageable sources: the copies are staged before cudaMemcpyAsync returns, so the host
  // vectors may go when the plan does.
  *view = {reinterpret_cast<const int32_t*>(base), reinterpret_cast<const float*>(base + count * 4),
           s.span, in_size};
  return true;
}

template <typename T, bool kGrad>
struct ScaleTranslateOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const char* op = kGrad ? "ScaleAndTranslateGrad" : "ScaleAndTranslate";
    const ScaleTranslateAttrs& a = *static_cast<ScaleTranslateAttrs*>(state);
    ScaleTranslatePlan p;
    if (!kernels::PlanScaleTranslate(ctx, a, kGrad, &p)) return;
    TensorPtr output = AllocateOutput<float>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    if (NumElements(Dims(p.images.get())) == 0) {  // a gradient of nothing
      CheckCuda(ctx, cudaMemsetAsync(Data<float>(output), 0, total * sizeof(float), stream), op);
      return;
    }
    if (!kernels::PlanSpans(ctx, a, &p)) return;
    TensorPtr row_buffer, col_buffer;
    SpanView rows, cols;
    if (!Upload(ctx, stream, p.rows, p.in_h, &row_buffer, &rows) ||
        !Upload(ctx, stream, p.cols, p.in_w, &col_buffer, &cols))
      return;
    const int64_t mid_total = p.batch * p.out_h * p.in_w * p.c;
    TensorPtr mid = AllocateTemp(ctx, TF_FLOAT, {mid_total});
    if (!mid) return;
    RowsKernel<T><<<BlocksFor(mid_total), kThreads, 0, stream>>>(
        Data<T>(p.images), Data<float>(mid), mid_total, p.out_h, p.in_w * p.c, rows);
    if (!CheckLaunch(ctx, op)) return;
    ColumnsKernel<<<BlocksFor(total), kThreads, 0, stream>>>(Data<float>(mid), Data<float>(output),
                                                             total, p.out_w, p.c, cols);
    CheckLaunch(ctx, op);
  }
};
template <typename T> using ForwardOp = ScaleTranslateOp<T, false>;

using ImageTypes = Types<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t, __nv_bfloat16,
                         __half, float, double>;

template <typename... Ts>
void RegisterForward(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"ScaleAndTranslate", {{"T", DtypeOf<Ts>::value}},
                            {"size", "scale", "translation"}, &ForwardOp<Ts>::Compute,
                            kernels::CreateScaleTranslate, kernels::DeleteScaleTranslate},
                  status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/scale_translate.cc); the sizes and the
// transform stay in host memory, where the spans are computed.
void RegisterScaleTranslateKernels(TF_Status* status) {
  RegisterForward(ImageTypes(), status);
  RegisterKernel(kDevice, {"ScaleAndTranslateGrad", {{"T", TF_FLOAT}}, {"scale", "translation"},
                           &ScaleTranslateOp<float, true>::Compute, kernels::CreateScaleTranslate,
                           kernels::DeleteScaleTranslate}, status);
}

}  // namespace cuda
}  // namespace opgen

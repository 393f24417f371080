// CropAndResize and its gradients on the GPU: the checks run on the host (boxes, box_ind
// and the sizes stay in host memory, as the box indices must be checked before any
// pixel is read), then boxes and indices go to the device once and one thread computes
// each crop value (../crop_resize_spec.h's positions, as the CPU kernels). The gradients
// add with atomicAdd: the image's into float (double for double images, then narrowed for
// half), the boxes' four coordinates per box. Their sums' order varies between runs.
#include "../crop_resize_spec.h"
#include "cuda_kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cuda {
namespace {

using kernels::CropGeometry;
using kernels::CropPosition;
using kernels::CropResizeAttrs;
using kernels::CropScale;
using kernels::Inside;

template <typename T> __device__ inline float AsFloat(T v) { return static_cast<float>(Widen(v)); }

// The boxes (float [n, 4]) then the indices (int32 [n]), copied to device memory.
struct BoxView {
  const float* boxes;
  const int32_t* ind;
};
bool UploadBoxes(TF_OpKernelContext* ctx, cudaStream_t stream, const TF_Tensor* boxes,
                 const TF_Tensor* ind, int64_t n, TensorPtr* buffer, BoxView* view,
                 const char* op) {
  *buffer = AllocateTemp(ctx, TF_FLOAT, {5 * n});
  if (!*buffer) return false;
  float* base = Data<float>(*buffer);
  if (!CheckCuda(ctx, cudaMemcpyAsync(base, TF_TensorData(boxes), 16 * n, cudaMemcpyHostToDevice,
                                      stream), op) ||
      !CheckCuda(ctx, cudaMemcpyAsync(base + 4 * n, TF_TensorData(ind), 4 * n,
                                      cudaMemcpyHostToDevice, stream), op))
    return false;
  *view = {base, reinterpret_cast<const int32_t*>(base + 4 * n)};
  return true;
}

template <typename T>
__global__ void CropKernel(const T* image, BoxView v, CropGeometry g, bool nearest, float extra,
                           float* out, int64_t total) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = n % g.depth, x = (n / g.depth) % g.crop_w;
    const int64_t y = (n / (g.depth * g.crop_w)) % g.crop_h, b = n / (g.depth * g.crop_w * g.crop_h);
    const float* box = v.boxes + 4 * b;
    const float in_y = CropPosition(box[0], box[2], CropScale(box[0], box[2], g.crop_h, g.height),
                                    y, g.crop_h, g.height);
    const float in_x = CropPosition(box[1], box[3], CropScale(box[1], box[3], g.crop_w, g.width),
                                    x, g.crop_w, g.width);
    if (!Inside(in_y, g.height) || !Inside(in_x, g.width)) {
      out[n] = extra;
      continue;
    }
    const T* img = image + v.ind[b] * g.height * g.width * g.depth + d;
    auto at = [&](int64_t yy, int64_t xx) { return AsFloat(img[(yy * g.width + xx) * g.depth]); };
    if (nearest) {
      out[n] = at(static_cast<int64_t>(roundf(in_y)), static_cast<int64_t>(roundf(in_x)));
      continue;
    }
    const float fy = floorf(in_y), fx = floorf(in_x);
    const int64_t y0 = static_cast<int64_t>(fy), y1 = static_cast<int64_t>(ceilf(in_y));
    const int64_t x0 = static_cast<int64_t>(fx), x1 = static_cast<int64_t>(ceilf(in_x));
    const float ly = in_y - fy, lx = in_x - fx;
    const float tl = at(y0, x0), tr = at(y0, x1), bl = at(y1, x0), br = at(y1, x1);
    const float top = tl + (tr - tl) * lx, bottom = bl + (br - bl) * lx;
    out[n] = top + (bottom - top) * ly;
  }
}

// One thread per gradient value: its share to the pixels it sampled.
template <typename Acc>
__global__ void GradImageKernel(const float* grads, BoxView v, CropGeometry g, bool nearest,
                                Acc* out, int64_t total) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = n % g.depth, x = (n / g.depth) % g.crop_w;
    const int64_t y = (n / (g.depth * g.crop_w)) % g.crop_h, b = n / (g.depth * g.crop_w * g.crop_h);
    const float* box = v.boxes + 4 * b;
    const float in_y = CropPosition(box[0], box[2], CropScale(box[0], box[2], g.crop_h, g.height),
                                    y, g.crop_h, g.height);
    const float in_x = CropPosition(box[1], box[3], CropScale(box[1], box[3], g.crop_w, g.width),
                                    x, g.crop_w, g.width);
    if (!Inside(in_y, g.height) || !Inside(in_x, g.width)) continue;
    Acc* img = out + v.ind[b] * g.height * g.width * g.depth + d;
    auto px = [&](int64_t yy, int64_t xx) { return img + (yy * g.width + xx) * g.depth; };
    const float gr = grads[n];
    if (nearest) {
      atomicAdd(px(static_cast<int64_t>(roundf(in_y)), static_cast<int64_t>(roundf(in_x))),
                static_cast<Acc>(gr));
      continue;
    }
    const float fy = floorf(in_y), fx = floorf(in_x);
    const int64_t y0 = static_cast<int64_t>(fy), y1 = static_cast<int64_t>(ceilf(in_y));
    const int64_t x0 = static_cast<int64_t>(fx), x1 = static_cast<int64_t>(ceilf(in_x));
    const float ly = in_y - fy, lx = in_x - fx;
    const float dtop = (1 - ly) * gr, dbottom = ly * gr;
    atomicAdd(px(y0, x0), static_cast<Acc>((1 - lx) * dtop));
    atomicAdd(px(y0, x1), static_cast<Acc>(lx * dtop));
    atomicAdd(px(y1, x0), static_cast<Acc>((1 - lx) * dbottom));
    atomicAdd(px(y1, x1), static_cast<Acc>(lx * dbottom));
  }
}

template <typename T>
__global__ void NarrowKernel(const float* in, T* out, int64_t total) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[n] = Narrow<T>(in[n]);
}

// One thread per crop pixel (all channels): its part of the box's four coordinates'
// gradient, added with atomicAdd.
template <typename T>
__global__ void GradBoxesKernel(const float* grads, const T* image, BoxView v, CropGeometry g,
                                float* out, int64_t total) {
  for (int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = n % g.crop_w, y = (n / g.crop_w) % g.crop_h, b = n / (g.crop_w * g.crop_h);
    const float* box = v.boxes + 4 * b;
    const float h_ratio = g.crop_h > 1 ? static_cast<float>(g.height - 1) / (g.crop_h - 1) : 0.0f;
    const float w_ratio = g.crop_w > 1 ? static_cast<float>(g.width - 1) / (g.crop_w - 1) : 0.0f;
    const float in_y = CropPosition(box[0], box[2], g.crop_h > 1 ? (box[2] - box[0]) * h_ratio : 0.0f,
                                    y, g.crop_h, g.height);
    const float in_x = CropPosition(box[1], box[3], g.crop_w > 1 ? (box[3] - box[1]) * w_ratio : 0.0f,
                                    x, g.crop_w, g.width);
    if (!Inside(in_y, g.height) || !Inside(in_x, g.width)) continue;
    const float fy = floorf(in_y), fx = floorf(in_x);
    const int64_t y0 = static_cast<int64_t>(fy), y1 = static_cast<int64_t>(ceilf(in_y));
    const int64_t x0 = static_cast<int64_t>(fx), x1 = static_cast<int64_t>(ceilf(in_x));
    const float ly = in_y - fy, lx = in_x - fx;
    const T* img = image + v.ind[b] * g.height * g.width * g.depth;
    const float* gr = grads + n * g.depth;
    float sy = 0.0f, sx = 0.0f;  // the sensitivities to in_y and in_x, over channels
    for (int64_t d = 0; d < g.depth; ++d) {
      auto at = [&](int64_t yy, int64_t xx) { return AsFloat(img[(yy * g.width + xx) * g.depth + d]); };
      const float tl = at(y0, x0), tr = at(y0, x1), bl = at(y1, x0), br = at(y1, x1);
      sy += ((1 - lx) * (bl - tl) + lx * (br - tr)) * gr[d];
      sx += ((1 - ly) * (tr - tl) + ly * (br - bl)) * gr[d];
    }
    float* o = out + 4 * b;
    const float half_h = 0.5f * static_cast<float>(g.height - 1);
    const float half_w = 0.5f * static_cast<float>(g.width - 1);
    const float fyv = static_cast<float>(y) * h_ratio, fxv = static_cast<float>(x) * w_ratio;
    atomicAdd(o + 0, g.crop_h > 1 ? sy * (static_cast<float>(g.height - 1) - fyv) : sy * half_h);
    atomicAdd(o + 2, g.crop_h > 1 ? sy * fyv : sy * half_h);
    atomicAdd(o + 1, g.crop_w > 1 ? sx * (static_cast<float>(g.width - 1) - fxv) : sx * half_w);
    atomicAdd(o + 3, g.crop_w > 1 ? sx * fxv : sx * half_w);
  }
}

template <typename T>
struct CropAndResizeOp {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const char* op = "CropAndResize";
    const CropResizeAttrs& a = *static_cast<CropResizeAttrs*>(state);
    TensorPtr in[4];
    for (int i = 0; i < 4; ++i)
      if (!(in[i] = Input(ctx, i))) return;
    CropGeometry g;
    if (!kernels::PlanCropAndResize(ctx, in[0].get(), in[1].get(), in[2].get(), in[3].get(), &g))
      return;
    TensorPtr out = AllocateOutput<float>(ctx, 0, {g.boxes, g.crop_h, g.crop_w, g.depth});
    const int64_t total = g.boxes * g.crop_h * g.crop_w * g.depth;
    if (!out || g.boxes == 0) return;
    if (!kernels::CheckBoxIndices(ctx, Data<int32_t>(in[2]), g.boxes, g.batch) ||
        !kernels::CheckFiniteBoxes(ctx, Data<float>(in[1]), g.boxes) || total == 0)
      return;
    cudaStream_t stream = GetStream(ctx);
    TensorPtr buffer;
    BoxView v;
    if (stream == nullptr ||
        !UploadBoxes(ctx, stream, in[1].get(), in[2].get(), g.boxes, &buffer, &v, op))
      return;
    CropKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<T>(in[0]), v, g, a.nearest, a.extrapolation_value, Data<float>(out), total);
    CheckLaunch(ctx, op);
  }
};

template <typename T>
struct CropGradImageOp {
  // double images add in double; float and half in float.
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const char* op = "CropAndResizeGradImage";
    const CropResizeAttrs& a = *static_cast<CropResizeAttrs*>(state);
    TensorPtr in[4];
    for (int i = 0; i < 4; ++i)
      if (!(in[i] = Input(ctx, i))) return;
    CropGeometry g;
    if (!kernels::PlanCropGradImage(ctx, in[0].get(), in[1].get(), in[2].get(), in[3].get(), &g))
      return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, {g.batch, g.height, g.width, g.depth});
    if (!out) return;
    const int64_t size = g.batch * g.height * g.width * g.depth;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr ||
        !CheckCuda(ctx, cudaMemsetAsync(Data<T>(out), 0, size * sizeof(T), stream), op))
      return;
    if (!kernels::CheckBoxIndices(ctx, Data<int32_t>(in[2]), g.boxes, g.batch)) return;
    const int64_t total = g.boxes * g.crop_h * g.crop_w * g.depth;
    if (total == 0) return;
    TensorPtr buffer, acc;
    BoxView v;
    if (!UploadBoxes(ctx, stream, in[1].get(), in[2].get(), g.boxes, &buffer, &v, op)) return;
    Acc* sums = nullptr;
    if (std::is_same<T, Acc>::value) {
      sums = reinterpret_cast<Acc*>(Data<T>(out));
    } else {
      if (!(acc = AllocateTemp(ctx, TF_FLOAT, {size})) ||
          !CheckCuda(ctx, cudaMemsetAsync(Data<float>(acc), 0, size * sizeof(float), stream), op))
        return;
      sums = reinterpret_cast<Acc*>(Data<float>(acc));
    }
    GradImageKernel<Acc><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<float>(in[0]), v, g, a.nearest, sums, total);
    if (!CheckLaunch(ctx, op)) return;
    if (!std::is_same<T, Acc>::value) {
      NarrowKernel<T><<<BlocksFor(size), kThreads, 0, stream>>>(Data<float>(acc), Data<T>(out),
                                                                  size);
      CheckLaunch(ctx, op);
    }
  }
};

template <typename T>
struct CropGradBoxesOp {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const char* op = "CropAndResizeGradBoxes";
    TensorPtr in[4];
    for (int i = 0; i < 4; ++i)
      if (!(in[i] = Input(ctx, i))) return;
    CropGeometry g;
    if (!kernels::PlanCropGradBoxes(ctx, in[0].get(), in[1].get(), in[2].get(), in[3].get(), &g))
      return;
    TensorPtr out = AllocateOutput<float>(ctx, 0, {g.boxes, 4});
    if (!out) return;
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr ||
        !CheckCuda(ctx, cudaMemsetAsync(Data<float>(out), 0, 16 * g.boxes, stream), op))
      return;
    if (!kernels::CheckBoxIndices(ctx, Data<int32_t>(in[3]), g.boxes, g.batch)) return;
    const int64_t total = g.boxes * g.crop_h * g.crop_w;
    if (total == 0) return;
    TensorPtr buffer;
    BoxView v;
    if (!UploadBoxes(ctx, stream, in[2].get(), in[3].get(), g.boxes, &buffer, &v, op)) return;
    GradBoxesKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(
        Data<float>(in[0]), Data<T>(in[1]), v, g, Data<float>(out), total);
    CheckLaunch(ctx, op);
  }
};

using ImageTypes = Types<uint8_t, uint16_t, int8_t, int16_t, int32_t, int64_t, __half, float,
                         double>;

template <typename... Ts>
void RegisterImageTypes(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"CropAndResize", {{"T", DtypeOf<Ts>::value}},
                            {"boxes", "box_ind", "crop_size"}, &CropAndResizeOp<Ts>::Compute,
                            kernels::CreateCropAndResize, kernels::DeleteCropResizeAttrs},
                  status), ...);
  (RegisterKernel(kDevice, {"CropAndResizeGradBoxes", {{"T", DtypeOf<Ts>::value}},
                            {"boxes", "box_ind"}, &CropGradBoxesOp<Ts>::Compute,
                            kernels::CreateCropAndResizeGradBoxes,
                            kernels::DeleteCropResizeAttrs}, status), ...);
}

template <typename... Ts>
void RegisterGradImage(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"CropAndResizeGradImage", {{"T", DtypeOf<Ts>::value}},
                            {"boxes", "box_ind", "image_size"}, &CropGradImageOp<Ts>::Compute,
                            kernels::CreateCropAndResizeGradImage,
                            kernels::DeleteCropResizeAttrs}, status), ...);
}

}  // namespace

// The CPU kernels' registrations (kernels/cpu/crop_and_resize.cc); boxes, indices and
// sizes stay in host memory, where they are checked.
void RegisterCropAndResizeKernels(TF_Status* status) {
  RegisterImageTypes(ImageTypes(), status);
  RegisterGradImage(Types<__half, float, double>(), status);
}

}  // namespace cuda
}  // namespace opgen

// CropAndResize and its two gradients on NHWC images: the checks and sample positions
// come from ../crop_resize_spec.h (shared with the CUDA plugin). The forward op and the
// boxes' gradient thread over boxes (each writes its own rows); the image gradient adds
// into shared pixels, so it runs in box order, as TensorFlow's deterministic path does.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../crop_resize_spec.h"
#include "kernel_util.h"
#include "parallel.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::CropGeometry;
using kernels::CropPosition;
using kernels::CropResizeAttrs;
using kernels::CropScale;
using kernels::Inside;

// The rows and columns a crop pixel reads: (lo, hi, lerp) along one dimension.
struct Tap {
  int64_t lo, hi;
  float lerp;
};
inline Tap TapAt(float pos) {
  const float f = std::floor(pos);
  return {static_cast<int64_t>(f), static_cast<int64_t>(std::ceil(pos)), pos - f};
}

template <typename T>
void CropBox(const CropGeometry& g, const CropResizeAttrs& a, const T* image, const float* box,
             int32_t b_in, float* out) {
  const float y1 = box[0], x1 = box[1], y2 = box[2], x2 = box[3];
  const float hs = CropScale(y1, y2, g.crop_h, g.height), ws = CropScale(x1, x2, g.crop_w, g.width);
  const T* img = image + b_in * g.height * g.width * g.depth;
  auto at = [&](int64_t y, int64_t x, int64_t d) {
    return static_cast<float>(img[(y * g.width + x) * g.depth + d]);
  };
  for (int64_t y = 0; y < g.crop_h; ++y) {
    const float in_y = CropPosition(y1, y2, hs, y, g.crop_h, g.height);
    float* row = out + y * g.crop_w * g.depth;
    if (!Inside(in_y, g.height)) {
      std::fill(row, row + g.crop_w * g.depth, a.extrapolation_value);
      continue;
    }
    const Tap ty = TapAt(in_y);
    for (int64_t x = 0; x < g.crop_w; ++x) {
      float* o = row + x * g.depth;
      const float in_x = CropPosition(x1, x2, ws, x, g.crop_w, g.width);
      if (!Inside(in_x, g.width)) {
        std::fill(o, o + g.depth, a.extrapolation_value);
        continue;
      }
      if (a.nearest) {
        const int64_t cy = static_cast<int64_t>(std::round(in_y));
        const int64_t cx = static_cast<int64_t>(std::round(in_x));
        for (int64_t d = 0; d < g.depth; ++d) o[d] = at(cy, cx, d);
        continue;
      }
      const Tap tx = TapAt(in_x);
      for (int64_t d = 0; d < g.depth; ++d) {
        const float tl = at(ty.lo, tx.lo, d), tr = at(ty.lo, tx.hi, d);
        const float bl = at(ty.hi, tx.lo, d), br = at(ty.hi, tx.hi, d);
        const float top = tl + (tr - tl) * tx.lerp;
        const float bottom = bl + (br - bl) * tx.lerp;
        o[d] = top + (bottom - top) * ty.lerp;
      }
    }
  }
}

template <typename T>
struct CropAndResizeKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const CropResizeAttrs& a = *static_cast<CropResizeAttrs*>(state);
    const TF_Tensor* in[4];
    for (int i = 0; i < 4; ++i)
      if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
    CropGeometry g;
    if (!kernels::PlanCropAndResize(ctx, in[0], in[1], in[2], in[3], &g)) return;
    TensorPtr out = AllocateOutput<float>(ctx, 0, {g.boxes, g.crop_h, g.crop_w, g.depth});
    if (!out || g.boxes == 0) return;
    const int32_t* ind = Data<int32_t>(in[2]);
    const float* boxes = Data<float>(in[1]);
    if (!kernels::CheckBoxIndices(ctx, ind, g.boxes, g.batch) ||
        !kernels::CheckFiniteBoxes(ctx, boxes, g.boxes))
      return;
    const T* image = Data<T>(in[0]);
    float* o = Data<float>(out);
    const int64_t per_box = g.crop_h * g.crop_w * g.depth;
    ParallelFor(g.boxes, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        CropBox(g, a, image, boxes + 4 * b, ind[b], o + b * per_box);
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(4 * per_box, 1)));
  }
};

// a += v in T's arithmetic (half rounds each sum).
template <typename T> inline void AddTo(T* a, float v) {
  *a = static_cast<T>(static_cast<float>(*a) + static_cast<float>(static_cast<T>(v)));
}
template <> inline void AddTo<double>(double* a, float v) { *a += static_cast<double>(v); }

template <typename T>
struct CropGradImageKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const CropResizeAttrs& a = *static_cast<CropResizeAttrs*>(state);
    const TF_Tensor* in[4];
    for (int i = 0; i < 4; ++i)
      if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
    CropGeometry g;
    if (!kernels::PlanCropGradImage(ctx, in[0], in[1], in[2], in[3], &g)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, {g.batch, g.height, g.width, g.depth});
    if (!out) return;
    T* image = Data<T>(out);
    std::fill(image, image + g.batch * g.height * g.width * g.depth, T(0.0f));
    const int32_t* ind = Data<int32_t>(in[2]);
    if (!kernels::CheckBoxIndices(ctx, ind, g.boxes, g.batch)) return;
    const float* boxes = Data<float>(in[1]);
    const float* grads = Data<float>(in[0]);
    for (int64_t b = 0; b < g.boxes; ++b) {
      const float* box = boxes + 4 * b;
      const float hs = CropScale(box[0], box[2], g.crop_h, g.height);
      const float ws = CropScale(box[1], box[3], g.crop_w, g.width);
      T* img = image + ind[b] * g.height * g.width * g.depth;
      auto px = [&](int64_t y, int64_t x) { return img + (y * g.width + x) * g.depth; };
      for (int64_t y = 0; y < g.crop_h; ++y) {
        const float in_y = CropPosition(box[0], box[2], hs, y, g.crop_h, g.height);
        if (!Inside(in_y, g.height)) continue;
        const Tap ty = TapAt(in_y);
        for (int64_t x = 0; x < g.crop_w; ++x) {
          const float in_x = CropPosition(box[1], box[3], ws, x, g.crop_w, g.width);
          if (!Inside(in_x, g.width)) continue;
          const float* gr = grads + ((b * g.crop_h + y) * g.crop_w + x) * g.depth;
          if (a.nearest) {
            T* p = px(static_cast<int64_t>(std::round(in_y)), static_cast<int64_t>(std::round(in_x)));
            for (int64_t d = 0; d < g.depth; ++d) AddTo(p + d, gr[d]);
            continue;
          }
          const Tap tx = TapAt(in_x);
          T *tl = px(ty.lo, tx.lo), *tr = px(ty.lo, tx.hi);
          T *bl = px(ty.hi, tx.lo), *br = px(ty.hi, tx.hi);
          for (int64_t d = 0; d < g.depth; ++d) {
            const float dtop = (1 - ty.lerp) * gr[d];
            AddTo(tl + d, (1 - tx.lerp) * dtop);
            AddTo(tr + d, tx.lerp * dtop);
            const float dbottom = ty.lerp * gr[d];
            AddTo(bl + d, (1 - tx.lerp) * dbottom);
            AddTo(br + d, tx.lerp * dbottom);
          }
        }
      }
    }
  }
};

// The gradient of one box's four coordinates.
template <typename T>
void BoxGradient(const CropGeometry& g, const T* image, const float* grads, const float* box,
                 int32_t b_in, float* out) {
  const float y1 = box[0], x1 = box[1], y2 = box[2], x2 = box[3];
  const float h_ratio = g.crop_h > 1 ? static_cast<float>(g.height - 1) / (g.crop_h - 1) : 0.0f;
  const float w_ratio = g.crop_w > 1 ? static_cast<float>(g.width - 1) / (g.crop_w - 1) : 0.0f;
  const float hs = g.crop_h > 1 ? (y2 - y1) * h_ratio : 0.0f;
  const float ws = g.crop_w > 1 ? (x2 - x1) * w_ratio : 0.0f;
  const T* img = image + b_in * g.height * g.width * g.depth;
  auto at = [&](int64_t y, int64_t x, int64_t d) {
    return static_cast<float>(img[(y * g.width + x) * g.depth + d]);
  };
  // A one-pixel crop samples the centre: half of the sensitivity goes to each edge (in
  // double, as TensorFlow multiplies by 0.5).
  const double half_h = 0.5 * static_cast<double>(g.height - 1);
  const double half_w = 0.5 * static_cast<double>(g.width - 1);
  for (int64_t y = 0; y < g.crop_h; ++y) {
    const float in_y = CropPosition(y1, y2, hs, y, g.crop_h, g.height);
    if (!Inside(in_y, g.height)) continue;
    const Tap ty = TapAt(in_y);
    for (int64_t x = 0; x < g.crop_w; ++x) {
      const float in_x = CropPosition(x1, x2, ws, x, g.crop_w, g.width);
      if (!Inside(in_x, g.width)) continue;
      const Tap tx = TapAt(in_x);
      const float* gr = grads + (y * g.crop_w + x) * g.depth;
      for (int64_t d = 0; d < g.depth; ++d) {
        const float tl = at(ty.lo, tx.lo, d), tr = at(ty.lo, tx.hi, d);
        const float bl = at(ty.hi, tx.lo, d), br = at(ty.hi, tx.hi, d);
        const float dy = ((1 - tx.lerp) * (bl - tl) + tx.lerp * (br - tr)) * gr[d];
        const float dx = ((1 - ty.lerp) * (tr - tl) + ty.lerp * (br - bl)) * gr[d];
        if (g.crop_h > 1) {
          out[0] += dy * (static_cast<float>(g.height - 1) - static_cast<float>(y) * h_ratio);
          out[2] += dy * (static_cast<float>(y) * h_ratio);
        } else {
          out[0] = static_cast<float>(out[0] + static_cast<double>(dy) * half_h);
          out[2] = static_cast<float>(out[2] + static_cast<double>(dy) * half_h);
        }
        if (g.crop_w > 1) {
          out[1] += dx * (static_cast<float>(g.width - 1) - static_cast<float>(x) * w_ratio);
          out[3] += dx * (static_cast<float>(x) * w_ratio);
        } else {
          out[1] = static_cast<float>(out[1] + static_cast<double>(dx) * half_w);
          out[3] = static_cast<float>(out[3] + static_cast<double>(dx) * half_w);
        }
      }
    }
  }
}

template <typename T>
struct CropGradBoxesKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const TF_Tensor* in[4];
    for (int i = 0; i < 4; ++i)
      if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
    CropGeometry g;
    if (!kernels::PlanCropGradBoxes(ctx, in[0], in[1], in[2], in[3], &g)) return;
    TensorPtr out = AllocateOutput<float>(ctx, 0, {g.boxes, 4});
    if (!out) return;
    float* o = Data<float>(out);
    std::fill(o, o + 4 * g.boxes, 0.0f);
    const int32_t* ind = Data<int32_t>(in[3]);
    if (!kernels::CheckBoxIndices(ctx, ind, g.boxes, g.batch)) return;
    const float* grads = Data<float>(in[0]);
    const T* image = Data<T>(in[1]);
    const float* boxes = Data<float>(in[2]);
    const int64_t per_box = g.crop_h * g.crop_w * g.depth;
    ParallelFor(g.boxes, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        BoxGradient(g, image, grads + b * per_box, boxes + 4 * b, ind[b], o + 4 * b);
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(8 * per_box, 1)));
  }
};

// The types the OpDefs allow; TensorFlow's CPU kernels cover them all.
using ImageTypes = Types<uint8_t, uint16_t, int8_t, int16_t, int32_t, int64_t, Half, float,
                         double>;

template <typename... Ts>
void RegisterImageTypes(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"CropAndResize", {{"T", DtypeOf<Ts>::value}}, {"crop_size"},
                            &CropAndResizeKernel<Ts>::Compute, kernels::CreateCropAndResize,
                            kernels::DeleteCropResizeAttrs}, status), ...);
  (RegisterKernel(kDevice, {"CropAndResizeGradBoxes", {{"T", DtypeOf<Ts>::value}}, {},
                            &CropGradBoxesKernel<Ts>::Compute,
                            kernels::CreateCropAndResizeGradBoxes,
                            kernels::DeleteCropResizeAttrs}, status), ...);
}

template <typename... Ts>
void RegisterGradImage(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"CropAndResizeGradImage", {{"T", DtypeOf<Ts>::value}},
                            {"image_size"}, &CropGradImageKernel<Ts>::Compute,
                            kernels::CreateCropAndResizeGradImage,
                            kernels::DeleteCropResizeAttrs}, status), ...);
}

}  // namespace

void RegisterCropAndResizeKernels(TF_Status* status) {
  RegisterImageTypes(ImageTypes(), status);
  RegisterGradImage(Types<Half, float, double>(), status);
}

}  // namespace cpu
}  // namespace opgen

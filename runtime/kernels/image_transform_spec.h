// ImageProjectiveTransformV2/V3: attrs, TensorFlow's input checks (its order and messages)
// and where an output pixel samples the input, shared by the CPU kernel and the CUDA
// plugin. The arithmetic follows TensorFlow's kernel step by step in float (the
// projection, the fill-mode mapping with its int64 truncations, the bilinear weights), so
// the results agree bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

enum class FillMode { kReflect, kWrap, kConstant, kNearest };

struct TransformAttrs {
  bool bilinear = false;
  FillMode fill = FillMode::kConstant;
};

// TensorFlow only logs an unknown interpolation or fill_mode and then runs with an
// unset mode; opgen refuses them (docs/conformance.md).
inline void* CreateTransformAttrs(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const std::string interpolation = StringAttr(ctx, "interpolation", s.get());
  std::string mode;
  if (TF_GetCode(s.get()) == TF_OK) mode = StringAttr(ctx, "fill_mode", s.get());
  auto* a = new TransformAttrs();
  if (TF_GetCode(s.get()) == TF_OK) {
    a->bilinear = interpolation == "BILINEAR";
    if (!a->bilinear && interpolation != "NEAREST")
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("Invalid interpolation " + interpolation +
                    ". Supported types: NEAREST, BILINEAR").c_str());
    else if (mode == "REFLECT") a->fill = FillMode::kReflect;
    else if (mode == "WRAP") a->fill = FillMode::kWrap;
    else if (mode == "CONSTANT") a->fill = FillMode::kConstant;
    else if (mode == "NEAREST") a->fill = FillMode::kNearest;
    else
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("Invalid mode " + mode + ". Supported types: REFLECT, WRAP, CONSTANT, NEAREST")
                       .c_str());
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
inline void DeleteTransformAttrs(void* a) { delete static_cast<TransformAttrs*>(a); }

struct TransformPlan {
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  bool shared = false;  // one [1, 8] transform for every image
  float fill = 0.0f;    // V3's fill_value (V2: 0)
};

// TensorFlow's checks of images [N, H, W, C], transforms [N or 1, 8], output_shape [2]
// (host) and, for V3, fill_value (host scalar).
inline bool PlanTransform(TF_OpKernelContext* ctx, const TF_Tensor* images,
                          const TF_Tensor* transforms, const TF_Tensor* shape,
                          const TF_Tensor* fill, TransformPlan* p) {
  if (TF_NumDims(images) != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Input images must have rank 4");
    return false;
  }
  if (TF_NumDims(transforms) != 2 ||
      (TF_Dim(transforms, 0) != TF_Dim(images, 0) && TF_Dim(transforms, 0) != 1) ||
      TF_Dim(transforms, 1) != 8) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Input transform should be num_images x 8 or 1 x 8");
    return false;
  }
  if (TF_NumDims(shape) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "output shape must be 1-dimensional" + ShapeString(Dims(shape)));
    return false;
  }
  if (TF_Dim(shape, 0) != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "output shape must have two elements" + ShapeString(Dims(shape)));
    return false;
  }
  const int32_t* size = static_cast<const int32_t*>(TF_TensorData(shape));
  if (!(size[0] > 0 && size[1] > 0)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "output dimensions must be positive");
    return false;
  }
  if (fill != nullptr) {
    if (TF_NumDims(fill) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "fill_value must be a scalar" + ShapeString(Dims(fill)));
      return false;
    }
    p->fill = *static_cast<const float*>(TF_TensorData(fill));
  }
  p->batch = TF_Dim(images, 0);
  p->in_h = TF_Dim(images, 1);
  p->in_w = TF_Dim(images, 2);
  p->channels = TF_Dim(images, 3);
  p->out_h = size[0];
  p->out_w = size[1];
  p->shared = TF_Dim(transforms, 0) == 1;
  return true;
}

// float -> int64 as x86's conversion gives it (NaN and out-of-range: INT64_MIN), without
// the undefined behaviour of a plain cast.
OPGEN_HD inline int64_t TruncToIndex(float v) {
  if (!(v > -9.2233720368547758e18f && v < 9.2233720368547758e18f)) return INT64_MIN;
  return static_cast<int64_t>(v);
}

// int64 products as x86 computes them (wrapping), without signed-overflow behaviour: a
// coordinate beyond int64 makes TensorFlow's own products overflow.
OPGEN_HD inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// An input coordinate outside [0, len - 1] mapped back inside by the fill mode, as
// TensorFlow maps it (after scipy.ndimage); CONSTANT leaves it where it is.
OPGEN_HD inline float Clamp(float v, float lo, float hi) {
  const float a = v < lo ? lo : v;  // NaN stays NaN, as Eigen's clamp keeps it
  return hi < a ? hi : a;
}
OPGEN_HD inline float MapCoordinate(float c, int64_t len, FillMode mode) {
  const float last = static_cast<float>(len - 1);
  switch (mode) {
    case FillMode::kReflect:
      if (c < 0) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz2 = 2 * len;
          c = static_cast<float>(WrapMul(sz2, TruncToIndex(-c / static_cast<float>(sz2)))) + c;
          c = c < static_cast<float>(-len) ? c + static_cast<float>(sz2) : -c - 1;
        }
      } else if (c > last) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz2 = 2 * len;
          c -= static_cast<float>(WrapMul(sz2, TruncToIndex(c / static_cast<float>(sz2))));
          if (c >= static_cast<float>(len)) c = static_cast<float>(sz2) - c - 1;
        }
      }
      return Clamp(c, 0.0f, last);
    case FillMode::kWrap:
      // TensorFlow divides by len - 1 here (not len); the clamp keeps the result inside.
      if (c < 0) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz = len - 1;
          c += static_cast<float>(WrapMul(len, TruncToIndex(-c / static_cast<float>(sz)) + 1));
        }
      } else if (c > last) {
        if (len <= 1) {
          c = 0;
        } else {
          const int64_t sz = len - 1;
          c -= static_cast<float>(WrapMul(len, TruncToIndex(c / static_cast<float>(sz))));
        }
      }
      return Clamp(c, 0.0f, last);
    case FillMode::kNearest:
      return Clamp(c, 0.0f, last);
    default:
      return c;
  }
}

// Where output pixel (y, x) of an image samples its input, after the fill mode; false
// when it takes the fill value instead (a point at infinity).
OPGEN_HD inline bool TransformedPoint(const float* t, int64_t y, int64_t x, int64_t in_h,
                                      int64_t in_w, FillMode mode, float* in_y, float* in_x) {
  const float fx = static_cast<float>(x), fy = static_cast<float>(y);
  const float projection = t[6] * fx + t[7] * fy + 1.f;
  if (projection == 0) return false;
  const float px = (t[0] * fx + t[1] * fy + t[2]) / projection;
  const float py = (t[3] * fx + t[4] * fy + t[5]) / projection;
  *in_x = MapCoordinate(px, in_w, mode);
  *in_y = MapCoordinate(py, in_h, mode);
  // TensorFlow 2.21 has no whole-point bounds check here: with CONSTANT a point just
  // outside still reads the pixels it rounds to (nearest) or the in-image corners of its
  // cell (bilinear), and only the corners outside take the fill value.
  return true;
}

// x86's float -> integer conversions, which TensorFlow's T(float) compiles to: int32 and
// int64 give their minimum for NaN or out of range, narrower types wrap an int32.
template <typename T>
OPGEN_HD inline T FromFloat(float v) {
  if constexpr (std::is_same<T, int64_t>::value) {
    return TruncToIndex(v);
  } else if constexpr (std::is_integral<T>::value) {
    const int32_t i = (v > -2147483648.0f && v < 2147483648.0f) ? static_cast<int32_t>(v)
                                                                : INT32_MIN;
    return static_cast<T>(static_cast<uint32_t>(i));
  } else {
    return T(v);
  }
}

// Nearest: the input pixel at the rounded point (half away from zero).
OPGEN_HD inline void NearestPixel(float y, float x, int64_t* iy, int64_t* ix) {
#if defined(__CUDA_ARCH__)
  *iy = TruncToIndex(roundf(y));
  *ix = TruncToIndex(roundf(x));
#else
  *iy = TruncToIndex(std::round(y));
  *ix = TruncToIndex(std::round(x));
#endif
}

// Bilinear: `read(y, x)` returns the input pixel as float (the fill value outside the
// image); the weights and the order of the sums are TensorFlow's.
template <typename Read>
OPGEN_HD inline float BilinearSample(float y, float x, const Read& read) {
#if defined(__CUDA_ARCH__)
  const float y_floor = floorf(y), x_floor = floorf(x);
#else
  const float y_floor = std::floor(y), x_floor = std::floor(x);
#endif
  const float y_ceil = y_floor + 1, x_ceil = x_floor + 1;
  const int64_t y0 = TruncToIndex(y_floor), y1 = TruncToIndex(y_ceil);
  const int64_t x0 = TruncToIndex(x_floor), x1 = TruncToIndex(x_ceil);
  const float top = (x_ceil - x) * read(y0, x0) + (x - x_floor) * read(y0, x1);
  const float bottom = (x_ceil - x) * read(y1, x0) + (x - x_floor) * read(y1, x1);
  return (y_ceil - y) * top + (y - y_floor) * bottom;
}

}  // namespace kernels
}  // namespace opgen

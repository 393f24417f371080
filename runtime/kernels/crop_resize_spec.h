// CropAndResize, CropAndResizeGradImage, CropAndResizeGradBoxes: attrs, TensorFlow's input
// checks (in its order, with its messages) and where a crop pixel samples the image, shared
// by the CPU kernels and the CUDA plugin. Positions are computed in float as TensorFlow
// computes them; a single-pixel crop samples the box's centre (in double, then float).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct CropResizeAttrs {
  bool nearest = false;
  float extrapolation_value = 0.0f;
};

// `with_extrapolation`: only the forward op has extrapolation_value.
inline void* CreateCropResizeAttrs(TF_OpKernelConstruction* ctx, bool with_extrapolation,
                                   bool bilinear_only) {
  StatusPtr s = NewStatus();
  const std::string method = StringAttr(ctx, "method", s.get());
  auto* a = new CropResizeAttrs();
  a->nearest = method == "nearest";
  if (TF_GetCode(s.get()) == TF_OK && with_extrapolation)
    TF_OpKernelConstruction_GetAttrFloat(ctx, "extrapolation_value", &a->extrapolation_value,
                                         s.get());
  if (TF_GetCode(s.get()) == TF_OK && method != "bilinear" && (bilinear_only || !a->nearest))
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 (std::string(bilinear_only ? "method must be 'bilinear'"
                                            : "method must be 'bilinear' or 'nearest'") + method)
                     .c_str());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
inline void* CreateCropAndResize(TF_OpKernelConstruction* ctx) {
  return CreateCropResizeAttrs(ctx, true, false);
}
inline void* CreateCropAndResizeGradImage(TF_OpKernelConstruction* ctx) {
  return CreateCropResizeAttrs(ctx, false, false);
}
inline void* CreateCropAndResizeGradBoxes(TF_OpKernelConstruction* ctx) {
  return CreateCropResizeAttrs(ctx, false, true);
}
inline void DeleteCropResizeAttrs(void* a) { delete static_cast<CropResizeAttrs*>(a); }

// The sizes every kernel of the family works with.
struct CropGeometry {
  int64_t batch = 0, height = 0, width = 0, depth = 0;
  int64_t boxes = 0, crop_h = 0, crop_w = 0;
};

// Where crop row (or column) `i` of `n` samples an image dimension of `size` pixels,
// for a box edge pair (lo, hi) in normalised coordinates.
OPGEN_HD inline float CropScale(float lo, float hi, int64_t n, int64_t size) {
  return n > 1 ? (hi - lo) * static_cast<float>(size - 1) / static_cast<float>(n - 1) : 0.0f;
}
OPGEN_HD inline float CropPosition(float lo, float hi, float scale, int64_t i, int64_t n,
                                   int64_t size) {
  return n > 1 ? lo * static_cast<float>(size - 1) + static_cast<float>(i) * scale
               : static_cast<float>(0.5 * static_cast<double>(lo + hi) * static_cast<double>(size - 1));
}
// Whether a position lies on the image (false for NaN too).
OPGEN_HD inline bool Inside(float pos, int64_t size) {
  return pos >= 0.0f && pos <= static_cast<float>(size - 1);
}

// boxes [n, 4] and box_ind [n] (both empty is n = 0), as TensorFlow checks them.
inline bool CheckBoxSizes(TF_OpKernelContext* ctx, const TF_Tensor* boxes,
                          const TF_Tensor* box_ind, int64_t* n) {
  *n = 0;
  if (TF_TensorElementCount(boxes) == 0 && TF_TensorElementCount(box_ind) == 0) return true;
  std::string error;
  if (TF_NumDims(boxes) != 2)
    error = "boxes must be 2-D" + ShapeString(Dims(boxes));
  else if (TF_Dim(boxes, 1) != 4)
    error = "boxes must have 4 columns";
  else if (TF_NumDims(box_ind) != 1)
    error = "box_index must be 1-D" + ShapeString(Dims(box_ind));
  else if (TF_Dim(box_ind, 0) != TF_Dim(boxes, 0))
    error = "box_index has incompatible shape";
  if (!error.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, error);
    return false;
  }
  *n = TF_Dim(boxes, 0);
  return true;
}

// Every box index in [0, batch): OutOfRange otherwise, as TensorFlow. `ind` on the host.
inline bool CheckBoxIndices(TF_OpKernelContext* ctx, const int32_t* ind, int64_t n,
                            int64_t batch) {
  for (int64_t b = 0; b < n; ++b)
    if (ind[b] < 0 || ind[b] >= batch) {
      Fail(ctx, TF_OUT_OF_RANGE, "box_index has values outside [0, batch_size)");
      return false;
    }
  return true;
}

// CropAndResize(image, boxes, box_ind, crop_size): the checks, up to the box indices.
inline bool PlanCropAndResize(TF_OpKernelContext* ctx, const TF_Tensor* image,
                              const TF_Tensor* boxes, const TF_Tensor* box_ind,
                              const TF_Tensor* crop_size, CropGeometry* g) {
  if (TF_NumDims(image) != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input image must be 4-D" + ShapeString(Dims(image)));
    return false;
  }
  g->batch = TF_Dim(image, 0), g->height = TF_Dim(image, 1), g->width = TF_Dim(image, 2);
  g->depth = TF_Dim(image, 3);
  std::string error;
  if (g->height <= 0 || g->width <= 0)
    error = "image dimensions must be positive";
  else if (TF_NumDims(boxes) != 2)
    error = "boxes must be 2-D, got: " + ShapeString(Dims(boxes));
  else if (TF_NumDims(box_ind) != 1)
    error = "box_indices must be rank 1 but is shape " + ShapeString(Dims(box_ind));
  if (!error.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, error);
    return false;
  }
  if (!CheckBoxSizes(ctx, boxes, box_ind, &g->boxes)) return false;
  if (TF_NumDims(crop_size) != 1)
    error = "crop_size must be 1-D" + ShapeString(Dims(crop_size));
  else if (TF_Dim(crop_size, 0) != 2)
    error = "crop_size must have two elements" + ShapeString(Dims(crop_size));
  if (error.empty()) {
    const int32_t* size = static_cast<const int32_t*>(TF_TensorData(crop_size));
    g->crop_h = size[0], g->crop_w = size[1];
    if (g->crop_h <= 0 || g->crop_w <= 0) error = "crop dimensions must be positive";
  }
  if (!error.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, error);
    return false;
  }
  return true;
}

// CropAndResizeGradImage(grads, boxes, box_ind, image_size).
inline bool PlanCropGradImage(TF_OpKernelContext* ctx, const TF_Tensor* grads,
                              const TF_Tensor* boxes, const TF_Tensor* box_ind,
                              const TF_Tensor* image_size, CropGeometry* g) {
  if (TF_NumDims(grads) != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "grads image must be 4-D" + ShapeString(Dims(grads)));
    return false;
  }
  g->crop_h = TF_Dim(grads, 1), g->crop_w = TF_Dim(grads, 2);
  if (g->crop_h <= 0 || g->crop_w <= 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "grads dimensions must be positive");
    return false;
  }
  if (!CheckBoxSizes(ctx, boxes, box_ind, &g->boxes)) return false;
  std::string error;
  if (TF_Dim(grads, 0) != g->boxes)
    error = "boxes and grads have incompatible shape";
  else if (TF_NumDims(image_size) != 1)
    error = "image_size must be 1-D" + ShapeString(Dims(image_size));
  else if (TF_Dim(image_size, 0) != 4)
    error = "image_size must have 4 elements" + ShapeString(Dims(image_size));
  if (error.empty()) {
    const int32_t* size = static_cast<const int32_t*>(TF_TensorData(image_size));
    g->batch = size[0], g->height = size[1], g->width = size[2], g->depth = size[3];
    if (g->height <= 0 || g->width <= 0)
      error = "image dimensions must be positive";
    else if (TF_Dim(grads, 3) != g->depth)
      error = "image_size and grads are incompatible";
  }
  if (!error.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, error);
    return false;
  }
  return true;
}

// CropAndResizeGradBoxes(grads, image, boxes, box_ind).
inline bool PlanCropGradBoxes(TF_OpKernelContext* ctx, const TF_Tensor* grads,
                              const TF_Tensor* image, const TF_Tensor* boxes,
                              const TF_Tensor* box_ind, CropGeometry* g) {
  std::string error;
  if (TF_NumDims(grads) != 4) {
    error = "grads image must be 4-D" + ShapeString(Dims(grads));
  } else {
    g->crop_h = TF_Dim(grads, 1), g->crop_w = TF_Dim(grads, 2), g->depth = TF_Dim(grads, 3);
    if (g->crop_h <= 0 || g->crop_w <= 0)
      error = "grads dimensions must be positive";
    else if (TF_NumDims(image) != 4)
      error = "input image must be 4-D" + ShapeString(Dims(image));
  }
  if (error.empty()) {
    g->batch = TF_Dim(image, 0), g->height = TF_Dim(image, 1), g->width = TF_Dim(image, 2);
    if (g->height <= 0 || g->width <= 0)
      error = "image dimensions must be positive";
    else if (TF_Dim(image, 3) != g->depth)
      error = "image, grads depth differ";
  }
  if (!error.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, error);
    return false;
  }
  if (!CheckBoxSizes(ctx, boxes, box_ind, &g->boxes)) return false;
  if (TF_Dim(grads, 0) != g->boxes) {
    Fail(ctx, TF_INVALID_ARGUMENT, "boxes and grads have incompatible shape");
    return false;
  }
  return true;
}

// The forward op refuses boxes with an infinite or NaN coordinate.
inline bool CheckFiniteBoxes(TF_OpKernelContext* ctx, const float* boxes, int64_t n) {
  for (int64_t i = 0; i < 4 * n; ++i)
    if (!std::isfinite(boxes[i])) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Boxes contains at least one element that is not finite");
      return false;
    }
  return true;
}

}  // namespace kernels
}  // namespace opgen

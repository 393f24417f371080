// Gradients of the detection and augmentation image ops, with TensorFlow's formulas (its
// image_grad.py). The resizes' gradients stay with the other layout ops (array_grad.cc).
#include <string>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// CropAndResize(image, boxes, box_ind, crop_size): the image's gradient for float images
// (the only ones CropAndResizeGradImage makes), the boxes' from the bilinear sampling
// (also for nearest sampling, whose own derivative is zero almost everywhere, as
// TensorFlow does); box_ind and crop_size get none.
void CropAndResizeGrad(GradBuilder& b) {
  const TF_Output image = b.input(0);
  const TF_DataType t = b.dtype(image);
  if (b.needs(0) && (t == TF_HALF || t == TF_FLOAT || t == TF_DOUBLE))
    b.Set(0, b.Op("CropAndResizeGradImage", {b.grad(0), b.input(1), b.input(2), b.ShapeOf(image)},
                  {{"T", t}, {"method", b.AttrString("method")}}));
  if (b.needs(1))
    b.Set(1, b.Op("CropAndResizeGradBoxes", {b.grad(0), image, b.input(1), b.input(2)},
                  {{"T", t}}));
}

// CropAndResizeGradImage(grads, boxes, box_ind, image_size) spreads each crop value over
// the pixels it sampled with the sampling weights: the transpose of CropAndResize, whose
// crops of the incoming gradient (extrapolating zeros) are therefore its gradient.
// TensorFlow registers none: derived.
void CropAndResizeGradImageGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output grads = b.input(0);
  const TF_Output crop_size = b.Op("Slice", {b.ShapeOf(grads), b.Int32s({1}), b.Int32s({2})});
  b.Set(0, b.Op("CropAndResize", {b.grad(0), b.input(1), b.input(2), crop_size},
                {{"T", b.dtype(b.grad(0))}, {"method", b.AttrString("method")}}));
}

// ExtractImagePatches(images): each patch value is a copy of one pixel's value (or padding),
// so a pixel's gradient is the sum of its copies' gradients. Which pixel a copy came from
// is found as TensorFlow finds it: the patches of an image of 1-based pixel numbers (the
// padding reads 0), whose values then key an UnsortedSegmentSum of the gradient.
void ExtractImagePatchesGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output shape = b.ShapeOf(b.input(0));  // [batch, rows, cols, depth]
  auto dim = [&](int d) { return b.Op("Slice", {shape, b.Int32s({d}), b.Int32s({1})}); };
  const TF_Output batch = dim(0), depth = dim(3);
  const TF_Output rows_cols = b.Op("Slice", {shape, b.Int32s({1}), b.Int32s({2})});
  const TF_Output pixels = b.Op("Prod", {rows_cols, b.Int32(0)});
  const TF_Output numbers = b.Op(
      "Reshape", {b.Op("Range", {b.Int32(1), b.Op("AddV2", {pixels, b.Int32(1)}), b.Int32(1)}),
                  b.Op("ConcatV2", {std::vector<TF_Output>{b.Int32s({1}), rows_cols, b.Int32s({1})},
                                    b.Int32(0)})});
  const TF_Output sources = b.Op(
      "Reshape", {b.Op("ExtractImagePatches", {numbers},
                       b.CopyAttrs({"ksizes", "strides", "rates", "padding"})),
                  b.Int32s({-1})});
  // [batch, out_rows, out_cols, (kr, kc, depth)] -> [(out_rows, out_cols, kr, kc), batch, depth]
  const TF_Output per_copy = b.Op(
      "Transpose",
      {b.Op("Reshape", {b.grad(0), b.Op("ConcatV2", {std::vector<TF_Output>{batch, b.Int32s({-1}), depth},
                                                      b.Int32(0)})}),
       b.Int32s({1, 0, 2})});
  const TF_Output sums = b.Op("UnsortedSegmentSum",
                              {per_copy, sources, b.Op("AddV2", {pixels, b.Int32(1)})});
  const TF_Output real = b.Op("Slice", {sums, b.Int32s({1, 0, 0}), b.Int32s({-1, -1, -1})});
  const TF_Output by_pixel = b.Op(
      "Reshape", {real, b.Op("ConcatV2", {std::vector<TF_Output>{rows_cols, batch, depth},
                                          b.Int32(0)})});
  b.Set(0, b.Op("Transpose", {by_pixel, b.Int32s({2, 0, 1, 3})}));
}

// TensorFlow defines no gradient for CropAndResizeGradBoxes: building one reports that.
void CropAndResizeGradBoxesGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "CropAndResizeGradBoxes has no gradient (TensorFlow defines none either)");
}

// TensorFlow differentiates RGBToHSV (image_grad.py); opgen has not built that yet.
void RgbToHsvGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "RGBToHSV's gradient (TensorFlow's) is not built in opgen yet");
}

// TensorFlow defines no gradient for the colour adjustments either.
template <const char* kOp>
void NoAdjustGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               (std::string(kOp) + " has no gradient (TensorFlow defines none either)").c_str());
}
constexpr char kAdjustHue[] = "AdjustHue", kAdjustSaturation[] = "AdjustSaturation",
               kAdjustContrastv2[] = "AdjustContrastv2";

}  // namespace

void RegisterImageGradients() {
  RegisterGrad("RGBToHSV", RgbToHsvGrad);
  RegisterGrad(kAdjustHue, NoAdjustGrad<kAdjustHue>);
  RegisterGrad(kAdjustSaturation, NoAdjustGrad<kAdjustSaturation>);
  RegisterGrad(kAdjustContrastv2, NoAdjustGrad<kAdjustContrastv2>);
  RegisterGrad("CropAndResize", CropAndResizeGrad);
  RegisterGrad("CropAndResizeGradImage", CropAndResizeGradImageGrad);
  RegisterGrad("CropAndResizeGradBoxes", CropAndResizeGradBoxesGrad);
  RegisterGrad("ExtractImagePatches", ExtractImagePatchesGrad);
}

}  // namespace gradients
}  // namespace opgen

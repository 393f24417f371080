// Gradients of the detection and augmentation image ops, with TensorFlow's formulas (its
// image_grad.py). The resizes' gradients stay with the other layout ops (array_grad.cc).
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

// TensorFlow defines no gradient for CropAndResizeGradBoxes: building one reports that.
void CropAndResizeGradBoxesGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "CropAndResizeGradBoxes has no gradient (TensorFlow defines none either)");
}

}  // namespace

void RegisterImageGradients() {
  RegisterGrad("CropAndResize", CropAndResizeGrad);
  RegisterGrad("CropAndResizeGradImage", CropAndResizeGradImageGrad);
  RegisterGrad("CropAndResizeGradBoxes", CropAndResizeGradBoxesGrad);
}

}  // namespace gradients
}  // namespace opgen

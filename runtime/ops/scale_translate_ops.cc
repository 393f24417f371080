// ScaleAndTranslate and its gradient: resampling with a chosen filter (Lanczos, Gaussian,
// box, triangle, cubic), what tf.image.resize and Keras' Resizing layer use for the
// methods that ResizeBilinear / ResizeBicubic do not cover. OpDefs as TensorFlow 2.21's.
#include "conv_image_shape_fns.h"
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// The gradient has the original image's shape.
void ScaleAndTranslateGradShape(ShapeFnContext& c) {
  c.InputWithRank(0, 4, "grads");
  c.SetOutput(0, c.InputWithRank(1, 4, "original_image"));
}

const std::pair<std::string, std::string> kKernelTypeDoc{
    "kernel_type", "The filter: lanczos1, lanczos3, lanczos5, gaussian, box, triangle, "
                   "keyscubic or mitchellcubic."};
const std::pair<std::string, std::string> kAntialiasDoc{
    "antialias", "When shrinking, widen the filter by the shrink factor (a low-pass filter)."};

}  // namespace

void RegisterScaleTranslateOps(TF_Status* status) {
  RegisterOps({
      {"ScaleAndTranslate",
       {"T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}",
        "kernel_type: string = 'lanczos3'", "antialias: bool = true"},
       {"images: T", "size: int32", "scale: float", "translation: float"},
       {"resized_images: float"}, shape_fns::kResize,
       "Resamples images scaled and translated, with a separable filter.",
       "Output pixel centre x + 0.5 maps to input position (x + 0.5 - translation) / scale; "
       "the filter's taps around it are normalised to sum to one. Rows are filtered first, "
       "then columns.",
       {{"images", "4-D [batch, height, width, channels]."},
        {"size", "The output [height, width], positive int32."},
        {"scale", "The [row, column] scale factors, positive."},
        {"translation", "The [row, column] translations, in output pixels."},
        {"resized_images", "4-D float [batch, size[0], size[1], channels]."},
        kKernelTypeDoc, kAntialiasDoc}},
      {"ScaleAndTranslateGrad",
       {"T: {float}", "kernel_type: string = 'lanczos3'", "antialias: bool = true"},
       {"grads: T", "original_image: T", "scale: float", "translation: float"},
       {"output: T"}, ShapeFn<ScaleAndTranslateGradShape>,
       "The gradient of ScaleAndTranslate with respect to its images.",
       "Each output gradient is spread back over the input pixels with the forward weights.",
       {{"grads", "The gradient with respect to the resized images."},
        {"original_image", "The images that were resized (only the shape is read)."},
        {"scale", "As in the forward op."},
        {"translation", "As in the forward op."},
        {"output", "The gradient with respect to the original images."},
        kKernelTypeDoc, kAntialiasDoc}},
  }, status);
}

}  // namespace opgen

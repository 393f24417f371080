// The colour ops of tf.image and Keras' RandomHue / RandomSaturation / RandomContrast
// layers: RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation, AdjustContrastv2. OpDefs as
// TensorFlow 2.21's.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// [..., 3] in, the same shape out.
void ColorSpaceShape(ShapeFnContext& c) {
  PartialShape in = c.InputWithRankAtLeast(0, 1, "images");
  if (in.rank_known) in.dims.back() = MergeDim(in.dims.back(), 3, "the channels");
  c.SetOutput(0, in);
}

// Images of rank 3 or more (3 channels for hue and saturation), a scalar factor.
template <bool kThreeChannels>
void AdjustShape(ShapeFnContext& c) {
  PartialShape in = c.InputWithRankAtLeast(0, 3, "images");
  c.InputWithRank(1, 0, "the factor");
  if (kThreeChannels && in.rank_known) in.dims.back() = MergeDim(in.dims.back(), 3, "the channels");
  c.SetOutput(0, in);
}

const std::pair<std::string, std::string> kImagesDoc{
    "images", "Pixels along the last dimension, 3 channels (RGB), values in [0, 1]."};

}  // namespace

void RegisterColorOps(TF_Status* status) {
  RegisterOps({
      {"RGBToHSV", {"T: {half, bfloat16, float, double} = DT_FLOAT"}, {"images: T"},
       {"output: T"}, ShapeFn<ColorSpaceShape>,
       "Converts RGB pixels to HSV (hue, saturation, value).",
       "Value is the largest channel, saturation the channel range over the value (0 for "
       "black), hue the position on the colour hexcone in turns, in [0, 1) (0 for greys).",
       {kImagesDoc, {"output", "The HSV pixels, shaped as images."}}},
      {"HSVToRGB", {"T: {half, bfloat16, float, double} = DT_FLOAT"}, {"images: T"},
       {"output: T"}, ShapeFn<ColorSpaceShape>,
       "Converts HSV pixels (hue in turns, saturation, value) to RGB.",
       "The inverse of RGBToHSV for hues in [0, 1].",
       {{"images", "HSV pixels along the last dimension, 3 channels."},
        {"output", "The RGB pixels, shaped as images."}}},
      {"AdjustContrastv2", {"T: {half, float} = DT_FLOAT"},
       {"images: T", "contrast_factor: float"}, {"output: T"}, ShapeFn<AdjustShape<false>>,
       "Scales each channel's distance from its mean over the image.",
       "For each image and channel: (x - mean) * contrast_factor + mean, the mean over the "
       "image's height and width (the dimensions before the last).",
       {{"images", "At least 3-D [..., height, width, channels]."},
        {"contrast_factor", "The scalar factor."}, {"output", "Shaped as images."}}},
      {"AdjustHue", {"T: {half, float} = DT_FLOAT"}, {"images: T", "delta: float"},
       {"output: T"}, ShapeFn<AdjustShape<true>>,
       "Turns each RGB pixel's hue by delta, keeping its value and chroma.",
       "delta is in turns (1 is a full turn); the hue wraps around.",
       {kImagesDoc, {"delta", "The scalar hue change, in turns."}, {"output", "Shaped as images."}}},
      {"AdjustSaturation", {"T: {half, float} = DT_FLOAT"}, {"images: T", "scale: float"},
       {"output: T"}, ShapeFn<AdjustShape<true>>,
       "Multiplies each RGB pixel's saturation by scale (clamped to [0, 1]).",
       "The pixel goes to HSV, its saturation is scaled and clamped, and it comes back.",
       {kImagesDoc, {"scale", "The scalar saturation factor."}, {"output", "Shaped as images."}}},
  }, status);
}

}  // namespace opgen

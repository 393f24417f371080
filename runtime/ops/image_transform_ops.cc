// The geometric augmentation ops of Keras' image layers: ImageProjectiveTransformV2/V3
// (RandomRotation, RandomZoom, RandomTranslation, RandomShear); the older image ops that
// detection and augmentation graphs still hold: AdjustContrast (v1), DrawBoundingBoxes(V2),
// RandomCrop, ExtractGlimpse(V2) and the bounding-box samplers SampleDistortedBoundingBox
// (v1, V2) and StatelessSampleDistortedBoundingBox. OpDefs as TensorFlow 2.21's.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// images [batch, h, w, c], transforms [batch or 1, 8], output_shape [2] -> [batch,
// out_h, out_w, c], the size when output_shape's value is known (TensorFlow's
// ResizeShapeFn with the size at input 2).
void TransformShape(ShapeFnContext& c) {
  const PartialShape images = c.InputWithRank(0, 4, "images");
  const PartialShape size = c.InputWithRank(2, 1, "output_shape");
  MergeDim(size.dims[0], 2, "the length of output_shape");
  PartialShape out = PartialShape::Of({images.dims[0], kUnknownDim, kUnknownDim, images.dims[3]});
  if (std::optional<std::vector<int64_t>> v = c.InputInts(2))
    for (int k = 0; k < 2; ++k) {
      if ((*v)[k] < 0) Fail("output_shape has a negative dimension " + std::to_string((*v)[k]));
      out.dims[1 + k] = (*v)[k];
    }
  c.SetOutput(0, out);
}

// images of rank 3 or more in, the same shape out (AdjustContrast, DrawBoundingBoxesV2).
void RankAtLeast3Shape(ShapeFnContext& c) {
  const PartialShape in = c.InputWithRankAtLeast(0, 3, "images");
  c.SetOutput(0, in);
}

// DrawBoundingBoxes: images [batch, h, w, 1, 3 or 4], boxes [batch, n, 4].
void DrawBoxesShape(ShapeFnContext& c) {
  const PartialShape images = c.InputWithRank(0, 4, "images");
  const int64_t depth = images.dims[3];
  if (depth != kUnknownDim && depth != 1 && depth != 3 && depth != 4)
    Fail("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
  const PartialShape boxes = c.InputWithRank(1, 3, "boxes");
  MergeDim(boxes.dims[2], 4, "boxes' last dimension");
  c.SetOutput(0, images);
}

// RandomCrop: image [h, w, c], size [2] -> [size[0], size[1], c].
void RandomCropShape(ShapeFnContext& c) {
  const PartialShape image = c.InputWithRank(0, 3, "image");
  const PartialShape size = c.InputWithRank(1, 1, "size");
  MergeDim(size.dims[0], 2, "the length of size");
  PartialShape out = PartialShape::Of({kUnknownDim, kUnknownDim, image.dims[2]});
  if (std::optional<std::vector<int64_t>> v = c.InputInts(1))
    for (int k = 0; k < 2; ++k) {
      if ((*v)[k] < 0) Fail("size has a negative dimension " + std::to_string((*v)[k]));
      out.dims[k] = (*v)[k];
    }
  c.SetOutput(0, out);
}

// ExtractGlimpse(V2): input [batch, h, w, c], size [2], offsets [batch, 2] -> [batch,
// size[0], size[1], c].
void GlimpseShape(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRank(0, 4, "input");
  const PartialShape offsets = c.InputWithRank(2, 2, "offsets");
  const int64_t batch = MergeDim(input.dims[0], offsets.dims[0], "input's and offsets' batch");
  MergeDim(offsets.dims[1], 2, "offsets' columns");
  const std::string noise = c.AttrString("noise");
  if (c.AttrBool("uniform_noise") && !noise.empty() && noise != "uniform")
    Fail("The uniform_noise and noise should not be specified at the same time");
  const PartialShape size = c.InputWithRank(1, 1, "size");
  MergeDim(size.dims[0], 2, "the length of size");
  PartialShape out = PartialShape::Of({batch, kUnknownDim, kUnknownDim, input.dims[3]});
  if (std::optional<std::vector<int64_t>> v = c.InputInts(1))
    for (int k = 0; k < 2; ++k) {
      if ((*v)[k] < 0) Fail("size has a negative dimension " + std::to_string((*v)[k]));
      out.dims[1 + k] = (*v)[k];
    }
  c.SetOutput(0, out);
}

// The bounding-box samplers: image_size [3], bounding_boxes [batch, n, 4] (V2 and the
// stateless one: min_object_covered a scalar; stateless: seed [2]) -> begin [3], size [3],
// bboxes [1, 1, 4].
void SampleBoxShape(ShapeFnContext& c) {
  const PartialShape size = c.InputWithRank(0, 1, "image_size");
  const PartialShape boxes = c.InputWithRank(1, 3, "bounding_boxes");
  if (c.num_inputs() > 2) c.InputWithRank(2, 0, "min_object_covered");
  if (c.num_inputs() > 3) {
    const PartialShape seed = c.InputWithRank(3, 1, "seed");
    MergeDim(seed.dims[0], 2, "the length of seed");
  }
  MergeDim(size.dims[0], 3, "the length of image_size");
  MergeDim(boxes.dims[2], 4, "bounding_boxes' last dimension");
  c.SetOutput(0, PartialShape::Of({3}));
  c.SetOutput(1, PartialShape::Of({3}));
  c.SetOutput(2, PartialShape::Of({1, 1, 4}));
}

constexpr char kTransformTypes[] =
    "dtype: {uint8, int32, int64, half, bfloat16, float, double}";
constexpr char kTransformDescription[] =
    "Output pixel (x, y) of image b samples the input at ((a0 x + a1 y + a2) / k, "
    "(b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, from transforms[b] = [a0, a1, a2, b0, b1, "
    "b2, c0, c1] (one row for every image when transforms has one). A point outside the "
    "image is mapped back by fill_mode: REFLECT (dcba|abcd|dcba), WRAP (abcd|abcd|abcd), "
    "NEAREST (the edge pixel), or CONSTANT (the fill value).";

std::vector<std::pair<std::string, std::string>> TransformDocs(bool v3) {
  std::vector<std::pair<std::string, std::string>> docs = {
      {"images", "4-D [batch, height, width, channels]."},
      {"transforms", "[batch, 8] or [1, 8] float: the projective maps from output to input "
                     "points."},
      {"output_shape", "The output's [height, width], both positive."},
      {"transformed_images", "[batch, output height, output width, channels]."},
      {"interpolation", "'NEAREST' or 'BILINEAR'."},
      {"fill_mode", "'REFLECT', 'WRAP', 'CONSTANT' or 'NEAREST'."}};
  if (v3) docs.push_back({"fill_value", "The float scalar CONSTANT fills with."});
  return docs;
}

OpRegistration Glimpse(const char* name) {
  const bool v2 = std::string(name) == "ExtractGlimpseV2";
  return {name,
          {"centered: bool = true", "normalized: bool = true", "uniform_noise: bool = true",
           "noise: string = 'uniform'"},
          {"input: float", "size: int32", "offsets: float"}, {"glimpse: float"},
          ShapeFn<GlimpseShape>,
          "Extracts a window of each image around an offset; outside the image, noise.",
          std::string("The window's top-left corner is the offset (y, x) truncated to pixels, "
                      "after scaling by the image size (normalized) and moving by its centre "
                      "(centered; ") +
              (v2 ? "V2: then less half the window, only when normalized too"
                  : "less half the window") +
              "). Pixels outside the image take noise: 'uniform' in [min, max) of the "
              "image, 'gaussian' of its channel's mean and deviation clamped to the "
              "channel's range, or 'zero'.",
          {{"input", "4-D [batch, height, width, channels]."},
           {"size", "The window's [height, width]."},
           {"offsets", "[batch, 2]: each window's (y, x)."},
           {"glimpse", "[batch, size[0], size[1], channels]."},
           {"centered", "Offsets relative to the image centre ([-1, 1] when normalized)."},
           {"normalized", "Offsets as fractions of the image size."},
           {"uniform_noise", "Uniform noise (when noise is empty or 'uniform')."},
           {"noise", "'uniform', 'gaussian' or 'zero'."}}};
}

OpRegistration SampleBox(const char* name, bool covered_input, bool stateless) {
  OpRegistration op{
      name,
      {"T: {uint8, int8, int16, int32, int64}"},
      {"image_size: T", "bounding_boxes: float"},
      {"begin: T", "size: T", "bboxes: float"},
      ShapeFn<SampleBoxShape>,
      "Samples a random crop of an image that covers enough of one of its boxes.",
      "Up to max_attempts times: an aspect ratio uniform in aspect_ratio_range, a height "
      "whose area fraction lies in area_range, a uniform place; the first crop covering at "
      "least min_object_covered of a box wins, else the whole image. begin and size slice "
      "the image (size[2] = -1: every channel).",
      {{"image_size", "[height, width, channels]."},
       {"bounding_boxes", "[batch, n, 4] float boxes (y_min, x_min, y_max, x_max) in [0, 1]."},
       {"begin", "[offset_height, offset_width, 0]."},
       {"size", "[target_height, target_width, -1]."},
       {"bboxes", "[1, 1, 4]: the crop as a box."},
       {"aspect_ratio_range", "The crop's width / height range (positive)."},
       {"area_range", "The crop's area as a fraction of the image's, in (0, 1]."},
       {"max_attempts", "How many crops to try (positive)."},
       {"use_image_if_no_bounding_boxes", "With no boxes, cover the whole image instead of "
                                          "failing."}}};
  if (!stateless) {
    op.attrs.push_back("seed: int = 0");
    op.attrs.push_back("seed2: int = 0");
    op.arg_docs.push_back({"seed", "With seed2: the generator's seed (both 0: a random one)."});
    op.arg_docs.push_back({"seed2", "The second seed."});
    op.is_stateful = true;
  }
  if (covered_input) {
    op.inputs.push_back("min_object_covered: float");
    op.arg_docs.push_back({"min_object_covered", "The fraction of a box a crop must cover."});
  } else {
    op.attrs.push_back("min_object_covered: float = 0.1");
    op.arg_docs.push_back({"min_object_covered", "The fraction of a box a crop must cover."});
  }
  if (stateless) {
    op.attrs.push_back("Tseed: {int32, int64}");
    op.inputs.push_back("seed: Tseed");
    op.arg_docs.push_back({"seed", "[2]: the sample is a function of it."});
  }
  for (const char* a : {"aspect_ratio_range: list(float) = [0.75, 1.33]",
                        "area_range: list(float) = [0.05, 1.0]", "max_attempts: int = 100",
                        "use_image_if_no_bounding_boxes: bool = false"})
    op.attrs.push_back(a);
  return op;
}

}  // namespace

void RegisterImageTransformOps(TF_Status* status) {
  RegisterOps({
      {"ImageProjectiveTransformV2",
       {kTransformTypes, "interpolation: string", "fill_mode: string = 'CONSTANT'"},
       {"images: dtype", "transforms: float", "output_shape: int32"},
       {"transformed_images: dtype"}, ShapeFn<TransformShape>,
       "Applies a projective transform to each image (outside the image: zeros).",
       kTransformDescription, TransformDocs(false)},
      {"ImageProjectiveTransformV3",
       {kTransformTypes, "interpolation: string", "fill_mode: string = 'CONSTANT'"},
       {"images: dtype", "transforms: float", "output_shape: int32", "fill_value: float"},
       {"transformed_images: dtype"}, ShapeFn<TransformShape>,
       "Applies a projective transform to each image, filling with fill_value.",
       kTransformDescription, TransformDocs(true)},
      {"AdjustContrast",
       {"T: {uint8, int8, int16, int32, int64, float, double}"},
       {"images: T", "contrast_factor: float", "min_value: float", "max_value: float"},
       {"output: float"}, ShapeFn<RankAtLeast3Shape>,
       "AdjustContrastv2's first form: float output clamped to [min_value, max_value].",
       "For each image and channel: (x - mean) * contrast_factor + mean, the mean over the "
       "image's height and width in float, then clamped to max_value and min_value. "
       "Removed from GraphDefs at version 2; kept for the graphs that hold it.",
       {{"images", "At least 3-D [..., height, width, channels]."},
        {"contrast_factor", "The scalar factor."}, {"min_value", "The scalar lower clamp."},
        {"max_value", "The scalar upper clamp."}, {"output", "Float, shaped as images."}},
       false, false, false, false, 2, "Use AdjustContrastv2 instead"},
      {"DrawBoundingBoxes",
       {"T: {float, half} = DT_FLOAT"}, {"images: T", "boxes: float"}, {"output: T"},
       ShapeFn<DrawBoxesShape>,
       "Draws each box's one-pixel outline on its image, in a colour of a fixed table.",
       "Box k (y_min, x_min, y_max, x_max, fractions of height - 1 and width - 1, truncated "
       "to pixels) takes colour k modulo the table's ten; inverted boxes and boxes wholly "
       "outside are skipped, edges outside the image are not drawn.",
       {{"images", "4-D [batch, height, width, depth], depth 1, 3 or 4."},
        {"boxes", "3-D [batch, num_boxes, 4] float."}, {"output", "Shaped as images."}}},
      {"DrawBoundingBoxesV2",
       {"T: {float, half} = DT_FLOAT"}, {"images: T", "boxes: float", "colors: float"},
       {"output: T"}, ShapeFn<RankAtLeast3Shape>,
       "DrawBoundingBoxes with the colours given (an empty colors: the fixed table).",
       "Box k takes row k modulo num_colors of colors.",
       {{"images", "4-D [batch, height, width, depth], depth 1, 3 or 4."},
        {"boxes", "3-D [batch, num_boxes, 4] float."},
        {"colors", "[num_colors, at least depth] float."}, {"output", "Shaped as images."}}},
      {"RandomCrop",
       {"T: {uint8, int8, int16, int32, int64, float, double}", "seed: int = 0",
        "seed2: int = 0"},
       {"image: T", "size: int64"}, {"output: T"}, ShapeFn<RandomCropShape>,
       "Crops a [size[0], size[1]] window at a random place of one image.",
       "The offsets are uniform over the places where the window fits (Philox words modulo "
       "the number of places, columns first). Removed from GraphDefs at version 8.",
       {{"image", "3-D [height, width, channels]."},
        {"size", "[crop height, crop width], no larger than the image."},
        {"output", "[crop height, crop width, channels]."},
        {"seed", "With seed2: the generator's seed (both 0: a random one)."},
        {"seed2", "The second seed."}},
       false, false, true, false, 8, "Random crop is now pure Python"},
      Glimpse("ExtractGlimpse"),
      Glimpse("ExtractGlimpseV2"),
      SampleBox("SampleDistortedBoundingBox", false, false),
      SampleBox("SampleDistortedBoundingBoxV2", true, false),
      SampleBox("StatelessSampleDistortedBoundingBox", true, true),
  }, status);
}

}  // namespace opgen

// The geometric augmentation ops of Keras' image layers: ImageProjectiveTransformV2/V3
// (RandomRotation, RandomZoom, RandomTranslation, RandomShear). OpDefs as TensorFlow
// 2.21's.
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
  }, status);
}

}  // namespace opgen

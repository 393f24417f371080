// Built-in convolution-family and image ops that frozen Keras models use: depthwise,
// transposed (Conv2DBackpropInput) and 3-D convolution, the space/batch/depth
// rearrangements of dilated convolutions and pixel shuffles, the older FusedBatchNorm
// versions, resizing and mirror padding. OpDefs as TensorFlow 2.21's.
#include "conv_image_shape_fns.h"
#include "op_table.h"

namespace opgen {
namespace {

// The docs of the window attrs that several convolutions share.
const std::pair<std::string, std::string> kStridesDoc{
    "strides", "Step of the window per input dimension (batch and channel steps are 1)."};
const std::pair<std::string, std::string> kPaddingDoc{
    "padding", "'VALID' (no padding), 'SAME' (output size = ceil(input / stride)) or "
               "'EXPLICIT' (from explicit_paddings)."};
const std::pair<std::string, std::string> kExplicitDoc{
    "explicit_paddings", "Before/after padding per dimension, with padding 'EXPLICIT'."};
const std::pair<std::string, std::string> kDilationsDoc{
    "dilations", "Spacing between filter taps per dimension."};

OpRegistration Resize(const char* name, const char* types, const char* output, const char* summary) {
  return {name,
          {types, "align_corners: bool = false", "half_pixel_centers: bool = false"},
          {"images: T", "size: int32"},
          {output},
          shape_fns::kResize,
          summary,
          "With align_corners the corner pixels of input and output line up; with "
          "half_pixel_centers pixels are sampled at their centres (as most image libraries "
          "do); the two may not both be set.",
          {{"images", "4-D [batch, height, width, channels]."},
           {"size", "The new [height, width], positive int32."},
           {"resized_images", "4-D [batch, new_height, new_width, channels]."},
           {"align_corners", "Line up the centres of the corner pixels."},
           {"half_pixel_centers", "Sample at pixel centres."}}};
}

OpRegistration BatchNorm(const char* name, std::vector<std::string> attrs, const char* stat_type) {
  const std::string u = std::string(": ") + stat_type;
  return {name,
          std::move(attrs),
          {"x: T", "scale" + u, "offset" + u, "mean" + u, "variance" + u},
          {"y: T", "batch_mean" + u, "batch_variance" + u, "reserve_space_1" + u,
           "reserve_space_2" + u},
          shape_fns::kFusedBatchNormV1,
          "Batch normalisation: `(x - mean) / sqrt(variance + epsilon) * scale + offset`.",
          "As FusedBatchNormV3, without the third reserve space. For inference (is_training "
          "false) the given statistics are used; for training they are computed over every "
          "dimension but the channel one.",
          {{"x", "4-D activations."}, {"scale", "Per-channel scale."},
           {"offset", "Per-channel offset."},
           {"mean", "Per-channel mean (running mean when training)."},
           {"variance", "Per-channel variance (running variance when training)."},
           {"y", "The normalised activations."}, {"batch_mean", "The mean used or updated."},
           {"batch_variance", "The variance used or updated."},
           {"reserve_space_1", "Batch mean, for the gradient."},
           {"reserve_space_2", "Batch variance, for the gradient."},
           {"epsilon", "Added to the variance for stability."},
           {"exponential_avg_factor", "Weight of the batch statistics in the running ones."},
           {"data_format", "Layout: 'NHWC' or 'NCHW'."},
           {"is_training", "Compute batch statistics (true) or use the given ones (false)."}}};
}

const char* const kBatchNormTail[] = {"epsilon: float = 0.0001", "exponential_avg_factor: float = 1.0",
                                      "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
                                      "is_training: bool = true"};

std::vector<std::string> BatchNormAttrs(std::vector<std::string> types) {
  for (const char* a : kBatchNormTail) types.push_back(a);
  return types;
}

}  // namespace

void RegisterConvImageOps(TF_Status* status) {
  RegisterOps({
      {"DepthwiseConv2dNative",
       {"T: {half, bfloat16, float, double}", "strides: list(int)",
        "padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []",
        "data_format: {'NHWC', 'NCHW'} = 'NHWC'", "dilations: list(int) = [1, 1, 1, 1]"},
       {"input: T", "filter: T"}, {"output: T"}, shape_fns::kDepthwiseConv2D,
       "Depthwise 2-D convolution: each input channel has filters of its own.",
       "`filter` is [height, width, in_channels, channel_multiplier]; output channel "
       "`c * channel_multiplier + m` convolves input channel `c` with filter `[:, :, c, m]`.",
       {{"input", "The images, NHWC."}, {"filter", "The per-channel filters."},
        {"output", "[batch, out_height, out_width, in_channels * channel_multiplier]."},
        kStridesDoc, kPaddingDoc, kExplicitDoc,
        {"data_format", "Layout of input and output; the CPU kernel supports NHWC."},
        kDilationsDoc}},
      {"Conv2DBackpropInput",
       {"T: {half, bfloat16, float, double, int32}", "strides: list(int)",
        "use_cudnn_on_gpu: bool = true", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
        "explicit_paddings: list(int) = []", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
        "dilations: list(int) = [1, 1, 1, 1]"},
       {"input_sizes: int32", "filter: T", "out_backprop: T"}, {"output: T"},
       shape_fns::kConv2DBackpropInput,
       "The gradient of Conv2D with respect to its input: a transposed convolution.",
       "What Keras' Conv2DTranspose computes. Each value of `out_backprop` is spread over the "
       "input window that produced it, weighted by the filter.",
       {{"input_sizes", "The shape of the convolution's input, [batch, height, width, channels]."},
        {"filter", "The convolution's filter, [height, width, in_channels, out_channels]."},
        {"out_backprop", "The gradient with respect to the convolution's output."},
        {"output", "The gradient with respect to the convolution's input, of input_sizes."},
        kStridesDoc, {"use_cudnn_on_gpu", "Accepted for compatibility; ignored."}, kPaddingDoc,
        kExplicitDoc, {"data_format", "Layout; the CPU kernel supports NHWC."}, kDilationsDoc}},
      {"Conv3D",
       {"T: {half, bfloat16, float, double}", "strides: list(int) >= 5",
        "padding: {'SAME', 'VALID'}", "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'",
        "dilations: list(int) = [1, 1, 1, 1, 1]"},
       {"input: T", "filter: T"}, {"output: T"}, shape_fns::kConv3D,
       "3-D convolution of a batch of volumes with a bank of filters.",
       "`input` is [batch, depth, height, width, channels] and `filter` is [depth, height, "
       "width, in_channels, out_channels].",
       {{"input", "The volumes."}, {"filter", "The filters."}, {"output", "The feature maps."},
        kStridesDoc, {"padding", "'VALID' or 'SAME'."},
        {"data_format", "Layout; the CPU kernel supports NDHWC."}, kDilationsDoc}},
      {"SpaceToBatchND",
       {"T: type", "Tblock_shape: {int32, int64} = DT_INT32", "Tpaddings: {int32, int64} = DT_INT32"},
       {"input: T", "block_shape: Tblock_shape", "paddings: Tpaddings"}, {"output: T"},
       shape_fns::kSpaceToBatchND,
       "Pads the M spatial dimensions, then moves blocks of them into the batch.",
       "The output batch is prod(block_shape) * batch, the spatial dimensions shrink by the "
       "block sizes; what dilated convolutions are written with.",
       {{"input", "[batch] + spatial_shape (M dims) + remaining_shape."},
        {"block_shape", "1-D [M], each >= 1."},
        {"paddings", "[M, 2], before/after padding of each spatial dimension (non-negative); "
                     "each padded size must divide by its block size."},
        {"output", "The rearranged tensor."}}},
      {"BatchToSpaceND",
       {"T: type", "Tblock_shape: {int32, int64} = DT_INT32", "Tcrops: {int32, int64} = DT_INT32"},
       {"input: T", "block_shape: Tblock_shape", "crops: Tcrops"}, {"output: T"},
       shape_fns::kBatchToSpaceND,
       "The inverse of SpaceToBatchND: moves batch blocks back into space, then crops.",
       "",
       {{"input", "[batch] + spatial_shape (M dims) + remaining_shape; batch divides by "
                  "prod(block_shape)."},
        {"block_shape", "1-D [M], each >= 1."},
        {"crops", "[M, 2], how much to take off the start and end of each spatial dimension."},
        {"output", "The rearranged tensor."}}},
      {"SpaceToBatch", {"T: type", "Tpaddings: {int32, int64} = DT_INT32", "block_size: int >= 2"},
       {"input: T", "paddings: Tpaddings"}, {"output: T"}, shape_fns::kSpaceToBatch,
       "SpaceToBatchND of a 4-D input with block_shape [block_size, block_size] (TF1-era).", "",
       {{"input", "[batch, height, width, depth]."},
        {"paddings", "[2, 2], before/after padding of height and width."},
        {"output", "The rearranged tensor."}, {"block_size", "The block's height and width."}}},
      {"BatchToSpace", {"T: type", "block_size: int >= 2", "Tidx: {int32, int64} = DT_INT32"},
       {"input: T", "crops: Tidx"}, {"output: T"}, shape_fns::kBatchToSpace,
       "BatchToSpaceND of a 4-D input with block_shape [block_size, block_size] (TF1-era).", "",
       {{"input", "[batch, height, width, depth]; batch divides by block_size ** 2."},
        {"crops", "[2, 2], how much to take off the start and end of height and width."},
        {"output", "The rearranged tensor."}, {"block_size", "The block's height and width."}}},
      BatchNorm("FusedBatchNorm", BatchNormAttrs({"T: {float}"}), "T"),
      BatchNorm("FusedBatchNormV2", BatchNormAttrs({"T: {half, bfloat16, float}", "U: {float}"}), "U"),
      Resize("ResizeBilinear",
             "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double, bfloat16}",
             "resized_images: float", "Resizes images with bilinear interpolation."),
      Resize("ResizeNearestNeighbor",
             "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}",
             "resized_images: T", "Resizes images by taking the nearest input pixel."),
      Resize("ResizeBicubic",
             "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}",
             "resized_images: float", "Resizes images with bicubic interpolation."),
      {"ResizeArea",
       {"T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}",
        "align_corners: bool = false"},
       {"images: T", "size: int32"}, {"resized_images: float"}, shape_fns::kResize,
       "Resizes images by averaging the input area each output pixel covers.",
       "Each output pixel is the mean of the input pixels under it, partial pixels weighted "
       "by the fraction covered.",
       {{"images", "4-D [batch, height, width, channels]."},
        {"size", "The new [height, width], positive int32."},
        {"resized_images", "4-D [batch, new_height, new_width, channels]."},
        {"align_corners", "Line up the centres of the corner pixels."}}},
      {"DepthToSpace",
       {"T: type", "block_size: int >= 2",
        "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"},
       {"input: T"}, {"output: T"}, shape_fns::kDepthToSpace,
       "Moves blocks of channels into block_size x block_size spatial tiles.",
       "[batch, h, w, c] becomes [batch, h * block_size, w * block_size, c / block_size^2] "
       "(the pixel shuffle of super-resolution models).",
       {{"input", "The images; channels divide by block_size^2."},
        {"output", "The rearranged images."}, {"block_size", "The tile edge."},
        {"data_format", "Layout; the CPU kernel supports NHWC."}}},
      {"SpaceToDepth",
       {"T: type", "block_size: int >= 2",
        "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"},
       {"input: T"}, {"output: T"}, shape_fns::kSpaceToDepth,
       "Moves block_size x block_size spatial tiles into the channels.",
       "[batch, h, w, c] becomes [batch, h / block_size, w / block_size, c * block_size^2].",
       {{"input", "The images; height and width divide by block_size."},
        {"output", "The rearranged images."}, {"block_size", "The tile edge."},
        {"data_format", "Layout; the CPU kernel supports NHWC."}}},
      {"MirrorPad",
       {"T: type", "Tpaddings: {int32, int64} = DT_INT32", "mode: {'REFLECT', 'SYMMETRIC'}"},
       {"input: T", "paddings: Tpaddings"}, {"output: T"}, shape_fns::kMirrorPad,
       "Pads `input` with mirrored copies of its own values.",
       "REFLECT mirrors around the edge value (which is not repeated, so a pad may be at "
       "most size - 1); SYMMETRIC repeats it (a pad may be at most size).",
       {{"input", "The values."}, {"paddings", "An [rank, 2] tensor of non-negative counts."},
        {"output", "The padded tensor."}, {"mode", "'REFLECT' or 'SYMMETRIC'."}}},
  }, status);
}

}  // namespace opgen

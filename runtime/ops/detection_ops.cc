// The object-detection ops: non-max suppression (NonMaxSuppressionV3/V4/V5 over boxes,
// NonMaxSuppressionWithOverlaps over a precomputed overlap matrix), what
// tf.image.non_max_suppression* and detection heads' post-processing use, and
// CropAndResize (region features, tf.image.crop_and_resize) with its two gradients.
// OpDefs as TensorFlow 2.21's.
#include <algorithm>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// Checks the scalar inputs from `first` on; `names` says what each is.
void ScalarInputs(ShapeFnContext& c, int first, std::initializer_list<const char*> names) {
  int i = first;
  for (const char* name : names) c.InputWithRank(i++, 0, name);
}

// boxes [n, 4], scores [n], then scalars; the indices are a vector of unknown length.
void CheckBoxesAndScores(ShapeFnContext& c, bool soft_nms) {
  const PartialShape boxes = c.InputWithRank(0, 2, "boxes");
  const PartialShape scores = c.InputWithRank(1, 1, "scores");
  ScalarInputs(c, 2, {"max_output_size", "iou_threshold", "score_threshold"});
  if (soft_nms) ScalarInputs(c, 5, {"soft_nms_sigma"});
  MergeDim(boxes.dims[0], scores.dims[0], "boxes' rows and scores");
  MergeDim(boxes.dims[1], 4, "boxes' columns");
}

// With pad_to_max_output_size the outputs have max_output_size rows (known when that
// input's value is).
int64_t SelectedRows(ShapeFnContext& c) {
  if (!c.AttrBool("pad_to_max_output_size")) return kUnknownDim;
  std::optional<std::vector<int64_t>> size = c.InputInts(2);
  if (!size) return kUnknownDim;
  if ((*size)[0] < 0)
    Fail("Dimension size, given by scalar input 2, must be non-negative but is " +
         std::to_string((*size)[0]));
  return (*size)[0];
}

// The older forms: boxes [n, 4], scores [n], max_output_size (and V2's iou_threshold)
// scalars.
void NmsV1V2Shape(ShapeFnContext& c) {
  const PartialShape boxes = c.InputWithRank(0, 2, "boxes");
  const PartialShape scores = c.InputWithRank(1, 1, "scores");
  ScalarInputs(c, 2, {"max_output_size"});
  if (c.num_inputs() > 3) ScalarInputs(c, 3, {"iou_threshold"});
  MergeDim(boxes.dims[0], scores.dims[0], "boxes' rows and scores");
  MergeDim(boxes.dims[1], 4, "boxes' columns");
  c.SetOutput(0, PartialShape::Of({kUnknownDim}));
}

void NmsV3Shape(ShapeFnContext& c) {
  CheckBoxesAndScores(c, false);
  c.SetOutput(0, PartialShape::Of({kUnknownDim}));
}

void NmsV4Shape(ShapeFnContext& c) {
  CheckBoxesAndScores(c, false);
  c.SetOutput(0, PartialShape::Of({SelectedRows(c)}));
  c.SetOutput(1, PartialShape::Of({}));
}

void NmsV5Shape(ShapeFnContext& c) {
  CheckBoxesAndScores(c, true);
  const int64_t rows = SelectedRows(c);
  c.SetOutput(0, PartialShape::Of({rows}));
  c.SetOutput(1, PartialShape::Of({rows}));
  c.SetOutput(2, PartialShape::Of({}));
}

void NmsWithOverlapsShape(ShapeFnContext& c) {
  const PartialShape overlaps = c.InputWithRank(0, 2, "overlaps");
  const PartialShape scores = c.InputWithRank(1, 1, "scores");
  ScalarInputs(c, 2, {"max_output_size", "overlap_threshold", "score_threshold"});
  const int64_t n = MergeDim(overlaps.dims[0], scores.dims[0], "overlaps' rows and scores");
  MergeDim(n, overlaps.dims[1], "overlaps' rows and columns");
  c.SetOutput(0, PartialShape::Of({kUnknownDim}));
}

// [batch, rows, ...] outputs: rows is max_total_size, or with pad_per_class at most
// max_output_size_per_class * num_classes, when those are known.
void CombinedNmsShape(ShapeFnContext& c) {
  const PartialShape boxes = c.InputWithRank(0, 4, "boxes");
  const PartialShape scores = c.InputWithRank(1, 3, "scores");
  ScalarInputs(c, 2, {"max_output_size_per_class", "max_total_size", "iou_threshold",
                      "score_threshold"});
  const int64_t batch = MergeDim(boxes.dims[0], scores.dims[0], "boxes' and scores' batch");
  MergeDim(boxes.dims[1], scores.dims[1], "boxes' and scores' num_boxes");
  MergeDim(boxes.dims[3], 4, "boxes' last dimension");
  int64_t rows = kUnknownDim;
  if (std::optional<std::vector<int64_t>> total = c.InputInts(3)) {
    if ((*total)[0] <= 0) Fail("max_total_size should be > 0 ");
    rows = (*total)[0];
    if (c.AttrBool("pad_per_class")) {
      std::optional<std::vector<int64_t>> per_class = c.InputInts(2);
      if (per_class && (*per_class)[0] <= 0) Fail("max_output_size_per_class should be > 0 ");
      rows = per_class && scores.dims[2] != kUnknownDim
                 ? std::min(rows, (*per_class)[0] * scores.dims[2])
                 : kUnknownDim;
    }
  }
  c.SetOutput(0, PartialShape::Of({batch, rows, 4}));
  c.SetOutput(1, PartialShape::Of({batch, rows}));
  c.SetOutput(2, PartialShape::Of({batch, rows}));
  c.SetOutput(3, PartialShape::Of({batch}));
}

const std::pair<std::string, std::string> kBoxesDoc{
    "boxes", "[num_boxes, 4]: each row two opposite corners (y1, x1, y2, x2), in either order."};
const std::pair<std::string, std::string> kScoresDoc{"scores", "[num_boxes]: one score per box."};
const std::pair<std::string, std::string> kMaxDoc{
    "max_output_size", "The most boxes to select (a non-negative int32 scalar)."};
const std::pair<std::string, std::string> kIouDoc{
    "iou_threshold", "A box overlapping a selected one by more than this (IoU) is dropped; in [0, 1]."};
const std::pair<std::string, std::string> kScoreThresholdDoc{
    "score_threshold", "Only boxes scoring more than this are considered."};
const std::pair<std::string, std::string> kIndicesDoc{
    "selected_indices", "The selected boxes' rows, best score first."};
const std::pair<std::string, std::string> kPadDoc{
    "pad_to_max_output_size", "Pad the selection with zeros to max_output_size rows."};
const std::pair<std::string, std::string> kValidDoc{
    "valid_outputs", "How many rows of the selection are real (not padding)."};
constexpr char kGreedy[] =
    "Boxes are taken in order of decreasing score (equal scores: lower row first); a box is "
    "kept unless its intersection-over-union with a box already kept exceeds iou_threshold. "
    "Corners may come in either order.";

// CropAndResize: [num_boxes, crop_height, crop_width, depth], the crop size when known.
void CropAndResizeShape(ShapeFnContext& c) {
  const PartialShape image = c.InputWithRank(0, 4, "image");
  const PartialShape boxes = c.InputWithRank(1, 2, "boxes");
  const PartialShape ind = c.InputWithRank(2, 1, "box_ind");
  const int64_t n = MergeDim(boxes.dims[0], ind.dims[0], "boxes' rows and box_ind");
  MergeDim(boxes.dims[1], 4, "boxes' columns");
  const PartialShape size = c.InputWithRank(3, 1, "crop_size");
  MergeDim(size.dims[0], 2, "the length of crop_size");
  PartialShape out = PartialShape::Of({n, kUnknownDim, kUnknownDim, image.dims[3]});
  if (std::optional<std::vector<int64_t>> v = c.InputInts(3))
    for (int k = 0; k < 2; ++k) out.dims[1 + k] = (*v)[k] >= 0 ? (*v)[k] : kUnknownDim;
  c.SetOutput(0, out);
}

// CropAndResizeGradImage: the image's shape, from image_size when known.
void CropGradImageShape(ShapeFnContext& c) {
  const PartialShape size = c.InputWithRank(3, 1, "image_size");
  MergeDim(size.dims[0], 4, "the length of image_size");
  PartialShape out = PartialShape::UnknownDims(4);
  if (std::optional<std::vector<int64_t>> v = c.InputInts(3))
    for (int k = 0; k < 4; ++k) {
      if ((*v)[k] < -1) Fail("image_size has a negative dimension " + std::to_string((*v)[k]));
      out.dims[k] = (*v)[k];
    }
  c.SetOutput(0, out);
}

// CropAndResizeGradBoxes: the boxes' shape.
void CropGradBoxesShape(ShapeFnContext& c) { c.SetOutput(0, c.Input(2)); }

const std::pair<std::string, std::string> kBoxIndDoc{
    "box_ind", "[num_boxes] int32: which image of the batch each box crops, in [0, batch)."};
const std::pair<std::string, std::string> kCropBoxesDoc{
    "boxes", "[num_boxes, 4] float: (y1, x1, y2, x2) in normalised coordinates, 0 to 1 "
             "spanning the image (y1 > y2 flips the crop; outside [0, 1] extrapolates)."};
const std::pair<std::string, std::string> kMethodDoc{
    "method", "Sampling: 'bilinear' or 'nearest'."};

}  // namespace

void RegisterDetectionOps(TF_Status* status) {
  RegisterOps({
      {"NonMaxSuppression",
       {"iou_threshold: float = 0.5"},
       {"boxes: float", "scores: float", "max_output_size: int32"},
       {"selected_indices: int32"}, ShapeFn<NmsV1V2Shape>,
       "The first form of NonMaxSuppressionV3: iou_threshold an attr, no score threshold.",
       kGreedy,
       {kBoxesDoc, kScoresDoc, kMaxDoc, kIouDoc, kIndicesDoc}},
      {"NonMaxSuppressionV2",
       {"T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT"},
       {"boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T_threshold"},
       {"selected_indices: int32"}, ShapeFn<NmsV1V2Shape>,
       "NonMaxSuppressionV3 without a score threshold (every box with a score above the "
       "lowest float is a candidate).",
       kGreedy,
       {kBoxesDoc, kScoresDoc, kMaxDoc, kIouDoc, kIndicesDoc}},
      {"NonMaxSuppressionV3",
       {"T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT"},
       {"boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T_threshold",
        "score_threshold: T_threshold"},
       {"selected_indices: int32"}, ShapeFn<NmsV3Shape>,
       "Greedily selects the highest-scoring boxes that do not overlap one another much.",
       kGreedy,
       {kBoxesDoc, kScoresDoc, kMaxDoc, kIouDoc, kScoreThresholdDoc, kIndicesDoc}},
      {"NonMaxSuppressionV4",
       {"T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT",
        "pad_to_max_output_size: bool = false"},
       {"boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T_threshold",
        "score_threshold: T_threshold"},
       {"selected_indices: int32", "valid_outputs: int32"}, ShapeFn<NmsV4Shape>,
       "NonMaxSuppressionV3, optionally padded to max_output_size rows.",
       kGreedy,
       {kBoxesDoc, kScoresDoc, kMaxDoc, kIouDoc, kScoreThresholdDoc, kIndicesDoc, kPadDoc,
        kValidDoc}},
      {"NonMaxSuppressionV5",
       {"T: {half, float} = DT_FLOAT", "pad_to_max_output_size: bool = false"},
       {"boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T",
        "score_threshold: T", "soft_nms_sigma: T"},
       {"selected_indices: int32", "selected_scores: T", "valid_outputs: int32"},
       ShapeFn<NmsV5Shape>,
       "Non-max suppression, hard or soft (Gaussian score decay), with the selected scores.",
       "With soft_nms_sigma 0 this is NonMaxSuppressionV4. With soft_nms_sigma > 0 no box "
       "is dropped for its overlap: each selection multiplies the scores of the remaining "
       "boxes by exp(-0.5 * iou^2 / soft_nms_sigma), and boxes whose score falls to "
       "score_threshold or below are dropped.",
       {kBoxesDoc, kScoresDoc, kMaxDoc, kIouDoc, kScoreThresholdDoc,
        {"soft_nms_sigma", "The Gaussian decay's sigma; 0 for hard suppression."},
        kIndicesDoc, {"selected_scores", "The selected boxes' scores after any decay."},
        kPadDoc, kValidDoc}},
      {"NonMaxSuppressionWithOverlaps",
       {},
       {"overlaps: float", "scores: float", "max_output_size: int32",
        "overlap_threshold: float", "score_threshold: float"},
       {"selected_indices: int32"}, ShapeFn<NmsWithOverlapsShape>,
       "Non-max suppression over a given [num_boxes, num_boxes] overlap matrix.",
       "As NonMaxSuppressionV3, with overlaps[i, j] in place of the boxes' IoU.",
       {{"overlaps", "[num_boxes, num_boxes]: how much each pair of boxes overlaps."},
        kScoresDoc, kMaxDoc,
        {"overlap_threshold", "A box overlapping a selected one by more than this is dropped."},
        kScoreThresholdDoc, kIndicesDoc}},
      {"CombinedNonMaxSuppression",
       {"pad_per_class: bool = false", "clip_boxes: bool = true"},
       {"boxes: float", "scores: float", "max_output_size_per_class: int32",
        "max_total_size: int32", "iou_threshold: float", "score_threshold: float"},
       {"nmsed_boxes: float", "nmsed_scores: float", "nmsed_classes: float",
        "valid_detections: int32"},
       ShapeFn<CombinedNmsShape>,
       "Non-max suppression per image and class, the selections merged by score.",
       "Each class of each image selects up to max_output_size_per_class boxes as "
       "NonMaxSuppressionV3 does; each image keeps its max_total_size best selections, "
       "zero-padded.",
       {{"boxes", "[batch, num_boxes, q, 4]: q is 1 (boxes shared by the classes) or "
                  "num_classes."},
        {"scores", "[batch, num_boxes, num_classes]."},
        {"max_output_size_per_class", "The most boxes one class selects (positive)."},
        {"max_total_size", "The most boxes an image keeps (positive)."},
        kIouDoc, kScoreThresholdDoc,
        {"nmsed_boxes", "[batch, rows, 4]: the kept boxes, best first."},
        {"nmsed_scores", "[batch, rows]."}, {"nmsed_classes", "[batch, rows]: class indices."},
        {"valid_detections", "[batch]: how many rows of each image are real."},
        {"pad_per_class", "Rows: min(max_total_size, max_output_size_per_class * num_classes) "
                          "instead of max_total_size."},
        {"clip_boxes", "Clip the kept boxes' coordinates to [0, 1]."}}},
      {"CropAndResize",
       {"T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
        "method: {'bilinear', 'nearest'} = 'bilinear'", "extrapolation_value: float = 0"},
       {"image: T", "boxes: float", "box_ind: int32", "crop_size: int32"}, {"crops: float"},
       ShapeFn<CropAndResizeShape>,
       "Crops boxes out of a batch of images and resizes each crop to one size.",
       "Crop pixel (y, x) of a crop_height-row crop samples image row y1 * (height - 1) + "
       "y * (y2 - y1) * (height - 1) / (crop_height - 1) (a one-row crop: the box's centre), "
       "and likewise for columns; samples outside the image take extrapolation_value.",
       {{"image", "4-D [batch, height, width, depth], height and width positive."},
        kCropBoxesDoc, kBoxIndDoc,
        {"crop_size", "The crops' [crop_height, crop_width], both positive."},
        {"crops", "4-D float [num_boxes, crop_height, crop_width, depth]."}, kMethodDoc,
        {"extrapolation_value", "The value of samples outside the image."}}},
      {"CropAndResizeGradImage",
       {"T: {float, half, double}", "method: {'bilinear', 'nearest'} = 'bilinear'"},
       {"grads: float", "boxes: float", "box_ind: int32", "image_size: int32"}, {"output: T"},
       ShapeFn<CropGradImageShape>,
       "The gradient of CropAndResize with respect to its image.",
       "Each crop pixel's gradient goes to the image pixels it sampled, with the sampling "
       "weights.",
       {{"grads", "4-D [num_boxes, crop_height, crop_width, depth]."}, kCropBoxesDoc, kBoxIndDoc,
        {"image_size", "The image's [batch, height, width, depth]."},
        {"output", "4-D [batch, height, width, depth]."}, kMethodDoc}},
      {"CropAndResizeGradBoxes",
       {"T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
        "method: {'bilinear'} = 'bilinear'"},
       {"grads: float", "image: T", "boxes: float", "box_ind: int32"}, {"output: float"},
       ShapeFn<CropGradBoxesShape>,
       "The gradient of CropAndResize with respect to its boxes.",
       "The bilinear sampling's derivative with respect to each box coordinate, summed over "
       "the crop.",
       {{"grads", "4-D [num_boxes, crop_height, crop_width, depth]."},
        {"image", "4-D [batch, height, width, depth]."}, kCropBoxesDoc, kBoxIndDoc,
        {"output", "[num_boxes, 4]."}, {"method", "Only 'bilinear'."}}},
  }, status);
}

}  // namespace opgen

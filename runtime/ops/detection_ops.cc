// The object-detection ops: non-max suppression (NonMaxSuppressionV3/V4/V5 over boxes,
// NonMaxSuppressionWithOverlaps over a precomputed overlap matrix), what
// tf.image.non_max_suppression* and detection heads' post-processing use. OpDefs as
// TensorFlow 2.21's.
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

}  // namespace

void RegisterDetectionOps(TF_Status* status) {
  RegisterOps({
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
  }, status);
}

}  // namespace opgen

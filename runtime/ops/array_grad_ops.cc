// Array ops that gradients are built from: UnsortedSegmentSum (the gradient of
// gathers), ConcatOffset (of ConcatV2), InvertPermutation (of Transpose),
// StridedSliceGrad and MirrorPadGrad. Shape functions: grad_kernel_shape_fns.cc.
#include "grad_kernel_shape_fns.h"
#include "op_table.h"

namespace opgen {

void RegisterArrayGradOps(TF_Status* status) {
  RegisterOps({
      {"UnsortedSegmentSum",
       {"T: numbertypes", "Tindices: {int16, int32, int64}",
        "Tnumsegments: {int32, int64} = DT_INT32"},
       {"data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"}, {"output: T"},
       shape_fns::kUnsortedSegmentReduction,
       "Sums the slices of `data` that share a segment id.",
       "`output[i, ...]` is the sum of `data[j..., ...]` over the `j...` where "
       "`segment_ids[j...] == i`; segments no id names are 0. Negative ids are dropped; an "
       "id of `num_segments` or more is an error on the CPU and dropped on GPUs.",
       {{"data", "The values, whose shape starts with segment_ids'."},
        {"segment_ids", "The segment of each slice of `data`."},
        {"num_segments", "The number of segments: the output's first dimension."},
        {"output", "[num_segments] + data's shape after segment_ids' dims."}}},
      {"ConcatOffset", {"N: int >= 2", "shape_type: {int32, int64} = DT_INT32"},
       {"concat_dim: int32", "shape: N * shape_type"}, {"offset: N * shape_type"},
       shape_fns::kConcatOffset,
       "Where each input of a concatenation starts in its output.",
       "Every shape is one of ConcatV2's inputs' shapes; they agree on all but `concat_dim`.",
       {{"concat_dim", "The dimension concatenated along (negative counts from the end)."},
        {"shape", "The inputs' shapes."},
        {"offset", "For each input, 0 but at `concat_dim`, where the sizes before it add up."}}},
      {"InvertPermutation", {"T: {int32, int64} = DT_INT32"}, {"x: T"}, {"y: T"},
       shape_fns::kInvertPermutation, "The inverse of a permutation: `y[x[i]] = i`.",
       "`x` must hold each of 0 .. n-1 once.",
       {{"x", "A permutation of 0 .. n-1."}, {"y", "Its inverse."}}},
      {"StridedSliceGrad",
       {"T: type", "Index: {int32, int64}", "begin_mask: int = 0", "end_mask: int = 0",
        "ellipsis_mask: int = 0", "new_axis_mask: int = 0", "shrink_axis_mask: int = 0"},
       {"shape: Index", "begin: Index", "end: Index", "strides: Index", "dy: T"}, {"output: T"},
       shape_fns::kStridedSliceGrad,
       "StridedSlice's gradient: `dy` placed where the slice read from, zeros elsewhere.",
       "The slice spec and masks are StridedSlice's, resolved against `shape`.",
       {{"shape", "The shape of StridedSlice's input."}, {"begin", "StridedSlice's begin."},
        {"end", "StridedSlice's end."}, {"strides", "StridedSlice's strides."},
        {"dy", "The gradient of StridedSlice's output."},
        {"output", "The gradient of StridedSlice's input, of `shape`."},
        {"begin_mask", "As StridedSlice's."}, {"end_mask", "As StridedSlice's."},
        {"ellipsis_mask", "As StridedSlice's."}, {"new_axis_mask", "As StridedSlice's."},
        {"shrink_axis_mask", "As StridedSlice's."}}},
      {"MirrorPadGrad",
       {"T: type", "Tpaddings: {int32, int64} = DT_INT32", "mode: {'REFLECT', 'SYMMETRIC'}"},
       {"input: T", "paddings: Tpaddings"}, {"output: T"}, shape_fns::kMirrorPadGrad,
       "MirrorPad's gradient: each padded element's gradient added to the element it "
       "mirrors.",
       "",
       {{"input", "The gradient of MirrorPad's output."},
        {"paddings", "MirrorPad's paddings, [rank, 2]."},
        {"output", "The gradient of MirrorPad's input."},
        {"mode", "MirrorPad's mode."}}},
  }, status);
}

}  // namespace opgen

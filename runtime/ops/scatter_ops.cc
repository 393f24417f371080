// Gather/scatter by n-d indices (GatherNd, ScatterNd, TensorScatter*), DynamicStitch,
// ParallelDynamicStitch, DynamicPartition, the variables' ResourceGather and
// ResourceScatter{Add,Sub,Update,Mul,Div,Min,Max}, and the segment
// reductions beside UnsortedSegmentSum (array_grad_ops.cc): UnsortedSegment{Max,Min,Prod},
// Segment{Sum,Mean,Max,Min,Prod}, SparseSegment{Sum,Mean,SqrtN}. Shape functions:
// scatter_shape_fns.cc and grad_kernel_shape_fns.cc.
#include "grad_kernel_shape_fns.h"
#include "op_table.h"
#include "scatter_shape_fns.h"

namespace opgen {
namespace {

constexpr const char* kPolicyDoc =
    "What a bad index does: \"\" or \"DEFAULT\" or \"ERROR\" fail on the CPU; \"IGNORE\" "
    "skips it.";

OpRegistration TensorScatter(const char* name, const char* tindices, const char* summary) {
  return {name,
          {"T: type", tindices, "bad_indices_policy: string = ''"},
          {"tensor: T", "indices: Tindices", "updates: T"},
          {"output: T"},
          shape_fns::kTensorScatter,
          summary,
          "`indices` is [..., K]; each row addresses the slice tensor[row] of shape "
          "tensor.shape[K:], and `updates` is indices.shape[:-1] + tensor.shape[K:]. Rows "
          "are applied in order.",
          {{"tensor", "The tensor to update (left unchanged: the result is a copy)."},
           {"indices", "Index rows into `tensor`."},
           {"updates", "One slice per index row."},
           {"output", "`tensor` with the updates applied."},
           {"bad_indices_policy", kPolicyDoc}}};
}

OpRegistration UnsortedSegment(const char* name, const char* t, const char* summary,
                               const char* empty) {
  return {name,
          {t, "Tindices: {int32, int64}", "Tnumsegments: {int32, int64} = DT_INT32"},
          {"data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"},
          {"output: T"},
          shape_fns::kUnsortedSegmentReduction,
          summary,
          std::string("Negative ids are dropped; an id of `num_segments` or more is an error "
                      "on the CPU. Segments no id names hold ") + empty + ".",
          {{"data", "The values, whose shape starts with segment_ids'."},
           {"segment_ids", "The segment of each slice of `data`."},
           {"num_segments", "The number of segments: the output's first dimension."},
           {"output", "[num_segments] + data's shape after segment_ids' dims."}}};
}

OpRegistration Segment(const char* name, const char* t, const char* summary) {
  return {name,
          {t, "Tindices: {int32, int64}"},
          {"data: T", "segment_ids: Tindices"},
          {"output: T"},
          shape_fns::kSortedSegment,
          summary,
          "`segment_ids` is sorted, one id per row of `data`; the output has the last id + 1 "
          "rows, and a segment no id names is 0 (1 for the product).",
          {{"data", "The values."},
           {"segment_ids", "The sorted segment of each row of `data`."},
           {"output", "One reduced row per segment."}}};
}

// Segment*V2: Segment* with the output's rows given (TF 2.x's form of the sorted ops).
OpRegistration SegmentV2(const char* name, const char* t, const char* summary) {
  return {name,
          {t, "Tindices: {int32, int64}", "Tnumsegments: {int32, int64} = DT_INT32"},
          {"data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"},
          {"output: T"},
          shape_fns::kUnsortedSegmentReduction,
          summary,
          "`segment_ids` is sorted, one id per row of `data`, each below `num_segments`; a "
          "segment no id names is 0 (1 for the product).",
          {{"data", "The values."},
           {"segment_ids", "The sorted segment of each row of `data`."},
           {"num_segments", "The number of segments: the output's first dimension."},
           {"output", "One reduced row per segment."}}};
}

OpRegistration SparseSegment(const char* name, const char* t, const char* summary) {
  return {name,
          {t, "Tidx: {int32, int64} = DT_INT32", "Tsegmentids: {int32, int64} = DT_INT32",
           "sparse_gradient: bool = false"},
          {"data: T", "indices: Tidx", "segment_ids: Tsegmentids"},
          {"output: T"},
          shape_fns::kSortedSegment,
          summary,
          "Row indices[i] of `data` goes to segment segment_ids[i] (sorted); the output has "
          "the last id + 1 rows, and a segment no id names is 0.",
          {{"data", "The values."},
           {"indices", "The rows of `data` to reduce, one per segment id."},
           {"segment_ids", "The sorted segment of each picked row."},
           {"output", "One reduced row per segment."},
           {"sparse_gradient", "Whether the gradient is sparse (kept for TensorFlow's "
                               "signature; gradients here are dense)."}}};
}

OpRegistration ResourceScatter(const char* name, const char* dtype, const char* summary) {
  OpRegistration r{name,
                   {dtype, "Tindices: {int32, int64}"},
                   {"resource: resource", "indices: Tindices", "updates: dtype"},
                   {},
                   shape_fns::kNoOutputs,
                   summary,
                   "Row indices[i...] of the variable (its first dimension) takes updates[i...]; "
                   "`updates` is indices.shape + the variable's shape after dim 0, or a scalar. "
                   "Duplicate indices apply in order.",
                   {{"resource", "The variable's handle."},
                    {"indices", "Rows of the variable."},
                    {"updates", "The rows' updates."}}};
  r.is_stateful = true;
  return r;
}

OpRegistration Stitch(const char* name, const char* summary) {
  return {name,
          {"N: int >= 1", "T: type"},
          {"indices: N * int32", "data: N * T"},
          {"merged: T"},
          shape_fns::kDynamicStitch,
          summary,
          "`merged[indices[m][i...], ...] = data[m][i..., ...]`; `data[m]`'s shape starts "
          "with `indices[m]`'s. Later rows win over earlier ones; rows no index names are 0.",
          {{"indices", "Where each row of `data` goes."},
           {"data", "The rows, shaped indices[m].shape + the rows' shape."},
           {"merged", "[max index + 1] + the rows' shape."}}};
}

OpRegistration ResourceGatherOp() {
  OpRegistration r{"ResourceGather",
                   {"batch_dims: int = 0", "validate_indices: bool = true", "dtype: type",
                    "Tindices: {int32, int64}"},
                   {"resource: resource", "indices: Tindices"},
                   {"output: dtype"},
                   shape_fns::kResourceGather,
                   "Gathers rows of a resource variable at `indices`.",
                   "The output is indices.shape + the variable's shape after dim 0.",
                   {{"resource", "The variable's handle."},
                    {"indices", "Rows of the variable."},
                    {"output", "The gathered rows."},
                    {"batch_dims", "Leading batch dimensions; only 0 is supported."},
                    {"validate_indices", "Kept for TensorFlow's signature: indices are always "
                                         "checked."},
                    {"dtype", "The variable's dtype."}}};
  r.is_stateful = true;
  return r;
}

}  // namespace

void RegisterScatterOps(TF_Status* status) {
  RegisterOps({
      {"GatherNd",
       {"Tparams: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"},
       {"params: Tparams", "indices: Tindices"}, {"output: Tparams"}, shape_fns::kGatherNd,
       "Gathers the slices of `params` that index rows address.",
       "`indices` is [..., K]; the output is indices.shape[:-1] + params.shape[K:].",
       {{"params", "The values to gather from."}, {"indices", "Index rows into `params`."},
        {"output", "The gathered slices."},
        {"bad_indices_policy", "What a bad index does: \"\" or \"DEFAULT\" or \"ERROR\" fail "
                               "on the CPU; \"IGNORE\" gives zeros."}}},
      {"ScatterNd",
       {"T: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"},
       {"indices: Tindices", "updates: T", "shape: Tindices"}, {"output: T"},
       shape_fns::kScatterNd,
       "Scatters `updates` into zeros of `shape` at index rows, adding up duplicates.",
       "`indices` is [..., K]; `updates` is indices.shape[:-1] + shape[K:].",
       {{"indices", "Index rows into the output."}, {"updates", "One slice per index row."},
        {"shape", "The output's shape."}, {"output", "The scattered sums."},
        {"bad_indices_policy", kPolicyDoc}}},
      TensorScatter("TensorScatterUpdate", "Tindices: {int16, int32, int64, uint16}",
                    "Replaces the slices of `tensor` that index rows address."),
      TensorScatter("TensorScatterAdd", "Tindices: {int32, int64}",
                    "Adds `updates` to the slices of `tensor` that index rows address."),
      TensorScatter("TensorScatterSub", "Tindices: {int32, int64}",
                    "Subtracts `updates` from the slices of `tensor` that index rows address."),
      TensorScatter("TensorScatterMax", "Tindices: {int32, int64}",
                    "The element-wise maximum of `tensor`'s addressed slices and `updates`."),
      TensorScatter("TensorScatterMin", "Tindices: {int32, int64}",
                    "The element-wise minimum of `tensor`'s addressed slices and `updates`."),
      UnsortedSegment("UnsortedSegmentMax", "T: realnumbertypes",
                      "The maximum of the slices of `data` that share a segment id.",
                      "the lowest value of T"),
      UnsortedSegment("UnsortedSegmentMin", "T: realnumbertypes",
                      "The minimum of the slices of `data` that share a segment id.",
                      "the highest value of T"),
      UnsortedSegment("UnsortedSegmentProd", "T: numbertypes",
                      "The product of the slices of `data` that share a segment id.", "1"),
      Segment("SegmentSum", "T: numbertypes", "Sums the rows of `data` in each sorted segment."),
      Segment("SegmentMean", "T: numbertypes", "The mean of the rows in each sorted segment."),
      Segment("SegmentMax", "T: realnumbertypes",
              "The maximum of the rows in each sorted segment."),
      Segment("SegmentMin", "T: realnumbertypes",
              "The minimum of the rows in each sorted segment."),
      Segment("SegmentProd", "T: numbertypes",
              "The product of the rows in each sorted segment."),
      SegmentV2("SegmentSumV2", "T: numbertypes", "Sums the rows of `data` in each sorted segment."),
      SegmentV2("SegmentProdV2", "T: numbertypes",
                "The product of the rows in each sorted segment."),
      SegmentV2("SegmentMaxV2", "T: realnumbertypes",
                "The maximum of the rows in each sorted segment."),
      SegmentV2("SegmentMinV2", "T: realnumbertypes",
                "The minimum of the rows in each sorted segment."),
      Stitch("DynamicStitch", "Interleaves the rows of `data` into one tensor at `indices`."),
      Stitch("ParallelDynamicStitch",
             "Interleaves the rows of `data` into one tensor at `indices` (duplicates in no "
             "set order; here as DynamicStitch)."),
      {"DynamicPartition", {"num_partitions: int >= 1", "T: type"},
       {"data: T", "partitions: int32"}, {"outputs: num_partitions * T"},
       shape_fns::kDynamicPartition,
       "Splits the rows of `data` among `num_partitions` outputs by `partitions`.",
       "Output p holds, in order, the slices data[i...] with partitions[i...] == p; "
       "data's shape starts with partitions'.",
       {{"data", "The values."}, {"partitions", "Each slice's output, in [0, num_partitions)."},
        {"outputs", "One tensor per partition."},
        {"num_partitions", "The number of outputs."}}},
      ResourceGatherOp(),
      ResourceScatter("ResourceScatterAdd", "dtype: numbertypes",
                      "Adds `updates` to rows of a resource variable."),
      ResourceScatter("ResourceScatterSub", "dtype: numbertypes",
                      "Subtracts `updates` from rows of a resource variable."),
      ResourceScatter("ResourceScatterUpdate", "dtype: type",
                      "Replaces rows of a resource variable by `updates`."),
      ResourceScatter("ResourceScatterMul", "dtype: numbertypes",
                      "Multiplies rows of a resource variable by `updates`."),
      ResourceScatter("ResourceScatterDiv", "dtype: numbertypes",
                      "Divides rows of a resource variable by `updates`."),
      ResourceScatter("ResourceScatterMin", "dtype: numbertypes",
                      "The element-wise minimum of rows of a resource variable and `updates`."),
      ResourceScatter("ResourceScatterMax", "dtype: numbertypes",
                      "The element-wise maximum of rows of a resource variable and `updates`."),
      SparseSegment("SparseSegmentSum", "T: realnumbertypes",
                    "Sums picked rows of `data` in each sorted segment."),
      SparseSegment("SparseSegmentMean", "T: {bfloat16, half, float, double}",
                    "The mean of picked rows of `data` in each sorted segment."),
      SparseSegment("SparseSegmentSqrtN", "T: {bfloat16, half, float, double}",
                    "The sum of picked rows of `data` in each sorted segment over the square "
                    "root of its size."),
  }, status);
}

}  // namespace opgen

// Sequence and set utilities of real graphs: Roll, ReverseSequence, LinSpace, the Unique
// family, ListDiff (tf.compat.v1.setdiff1d) and SparseToDense.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

void RollShape(ShapeFnContext& c) {
  const PartialShape shift = c.Input(1), axis = c.Input(2);
  if (shift.rank() > 1) Fail("Roll: shift must be a scalar or a 1-D vector, got " + shift.ToString());
  if (axis.rank() > 1) Fail("Roll: axis must be a scalar or a 1-D vector, got " + axis.ToString());
  if (shift.rank() == 1 && axis.rank() == 1)
    MergeDim(shift.dims[0], axis.dims[0], "Roll: the lengths of shift and axis");
  c.SetOutput(0, c.Input(0));
}

void ReverseSequenceShape(ShapeFnContext& c) {
  const PartialShape input = c.Input(0);
  const PartialShape lengths = c.InputWithRank(1, 1, "seq_lengths");
  if (input.rank_known) {
    const int64_t rank = input.rank(), batch = c.AttrInt("batch_dim"), seq = c.AttrInt("seq_dim");
    if (batch < 0 || batch >= rank || seq < 0 || seq >= rank || batch == seq)
      Fail("ReverseSequence: batch_dim " + std::to_string(batch) + " and seq_dim " +
           std::to_string(seq) + " must be different dimensions of the rank-" +
           std::to_string(rank) + " input");
    MergeDim(input.dims[batch], lengths.dims[0], "ReverseSequence: the batch size and seq_lengths");
  }
  c.SetOutput(0, input);
}

void LinSpaceShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "start");
  c.InputWithRank(1, 0, "stop");
  c.InputWithRank(2, 0, "num");
  const auto num = c.InputInts(2);
  if (num && (*num)[0] <= 0) Fail("LinSpace: num must be positive, got " + std::to_string((*num)[0]));
  c.SetOutput(0, PartialShape::Of({num ? (*num)[0] : kUnknownDim}));
}

// Unique, UniqueWithCounts: y and count 1-D of unknown length, idx x's length.
void UniqueShape(ShapeFnContext& c) {
  const PartialShape x = c.InputWithRank(0, 1, "x");
  c.SetOutput(0, PartialShape::Of({kUnknownDim}));
  c.SetOutput(1, x);
  if (c.num_outputs() > 2) c.SetOutput(2, PartialShape::Of({kUnknownDim}));
}

// UniqueV2, UniqueWithCountsV2: y of x's rank (the unique axis shrinks), idx and count 1-D.
void UniqueV2Shape(ShapeFnContext& c) {
  const PartialShape x = c.Input(0);
  c.SetOutput(0, x.rank_known ? PartialShape::UnknownDims(x.rank()) : PartialShape::Unknown());
  c.SetOutput(1, PartialShape::Of({kUnknownDim}));
  if (c.num_outputs() > 2) c.SetOutput(2, PartialShape::Of({kUnknownDim}));
}

void ListDiffShape(ShapeFnContext& c) {
  c.InputWithRank(0, 1, "x");
  c.InputWithRank(1, 1, "y");
  c.SetOutput(0, PartialShape::Of({kUnknownDim}));
  c.SetOutput(1, PartialShape::Of({kUnknownDim}));
}

void SparseToDenseShape(ShapeFnContext& c) {
  const PartialShape shape = c.InputWithRank(1, 1, "output_shape");
  if (const auto dims = c.InputInts(1)) {
    c.SetOutput(0, PartialShape::Of(*dims));
    return;
  }
  const int64_t rank = shape.dims[0];
  c.SetOutput(0, rank >= 0 ? PartialShape::UnknownDims(rank) : PartialShape::Unknown());
}

constexpr const char* kIndexTypes32 = "out_idx: {int32, int64} = DT_INT32";

}  // namespace

void RegisterSequenceOps(TF_Status* status) {
  const std::pair<std::string, std::string> x_doc{"x", "The values."};
  const std::pair<std::string, std::string> y_doc{"y", "The unique values, in order of first appearance."};
  const std::pair<std::string, std::string> idx_doc{
      "idx", "For each entry of `x`, the index of its value in `y`."};
  const std::pair<std::string, std::string> count_doc{"count", "How often each of `y` appears."};
  const std::pair<std::string, std::string> axis_doc{
      "axis", "A 1-element tensor: the axis whose slices are compared (empty: flattened x)."};
  RegisterOps({
      {"Roll", {"T: type", "Tshift: {int32, int64}", "Taxis: {int32, int64}"},
       {"input: T", "shift: Tshift", "axis: Taxis"}, {"output: T"}, ShapeFn<RollShape>,
       "Rolls the elements of `input` by `shift` along `axis`.",
       "Elements shifted past the end come back at the start; an axis named more than once "
       "rolls by the sum of its shifts.",
       {{"input", "The values."}, {"shift", "Scalar or 1-D: the shift per axis."},
        {"axis", "Scalar or 1-D: the axes, as many as shifts."}, {"output", "The rolled values."}}},
      {"ReverseSequence",
       {"seq_dim: int", "batch_dim: int = 0", "T: type", "Tlen: {int32, int64} = DT_INT64"},
       {"input: T", "seq_lengths: Tlen"}, {"output: T"}, ShapeFn<ReverseSequenceShape>,
       "Reverses the first `seq_lengths[i]` entries along `seq_dim` of each batch entry `i`.",
       "Entries past a sequence's length stay where they are.",
       {{"input", "The values."}, {"seq_lengths", "1-D, one length per batch entry."},
        {"output", "The partly reversed values."}, {"seq_dim", "The dimension reversed."},
        {"batch_dim", "The dimension of batch entries."}}},
      {"LinSpace", {"T: {bfloat16, half, float, double}", "Tidx: {int32, int64} = DT_INT32"},
       {"start: T", "stop: T", "num: Tidx"}, {"output: T"}, ShapeFn<LinSpaceShape>,
       "Returns `num` evenly spaced values from `start` to `stop`, both included.",
       "`num` = 1 gives `start` alone.",
       {{"start", "The first value (a scalar)."}, {"stop", "The last value (a scalar)."},
        {"num", "How many values (a positive scalar)."}, {"output", "1-D, `num` values."}}},
      {"Unique", {"T: type", kIndexTypes32}, {"x: T"}, {"y: T", "idx: out_idx"},
       ShapeFn<UniqueShape>, "Returns the unique values of the 1-D `x` and where each entry went.",
       "", {x_doc, y_doc, idx_doc}},
      {"UniqueV2", {"T: type", "Taxis: {int32, int64} = DT_INT64", kIndexTypes32},
       {"x: T", "axis: Taxis"}, {"y: T", "idx: out_idx"}, ShapeFn<UniqueV2Shape>,
       "Returns the unique slices of `x` along `axis` and where each slice went.", "",
       {x_doc, axis_doc, y_doc, idx_doc}},
      {"UniqueWithCounts", {"T: type", kIndexTypes32}, {"x: T"},
       {"y: T", "idx: out_idx", "count: out_idx"}, ShapeFn<UniqueShape>,
       "Unique, with how often each unique value appears.", "", {x_doc, y_doc, idx_doc, count_doc}},
      {"UniqueWithCountsV2", {"T: type", "Taxis: {int32, int64} = DT_INT64", kIndexTypes32},
       {"x: T", "axis: Taxis"}, {"y: T", "idx: out_idx", "count: out_idx"},
       ShapeFn<UniqueV2Shape>, "UniqueV2, with how often each unique slice appears.", "",
       {x_doc, axis_doc, y_doc, idx_doc, count_doc}},
      {"ListDiff", {"T: type", kIndexTypes32}, {"x: T", "y: T"}, {"out: T", "idx: out_idx"},
       ShapeFn<ListDiffShape>, "Returns the entries of `x` that are not in `y`, in order.",
       "Duplicates in `x` are kept.",
       {{"x", "1-D: the values to keep."}, {"y", "1-D: the values to remove."},
        {"out", "The kept values."}, {"idx", "Their positions in `x`."}}},
      {"SparseToDense", {"validate_indices: bool = true", "T: type", "Tindices: {int32, int64}"},
       {"sparse_indices: Tindices", "output_shape: Tindices", "sparse_values: T",
        "default_value: T"},
       {"dense: T"}, ShapeFn<SparseToDenseShape>,
       "Returns a dense tensor of `output_shape` with `sparse_values` at `sparse_indices` and "
       "`default_value` elsewhere.",
       "`validate_indices` checks that the indices are in bounds, sorted and unique.",
       {{"sparse_indices", "0-D, 1-D or [n, rank] coordinates."},
        {"output_shape", "1-D: the dense shape."},
        {"sparse_values", "A scalar for every index, or one value per index."},
        {"default_value", "A scalar for the other entries."}, {"dense", "The dense tensor."},
        {"validate_indices", "Check order and bounds."}}},
  }, status);
}

}  // namespace opgen

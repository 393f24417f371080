// The SparseTensor ops that feature columns and tf.sparse.* use: SparseReorder,
// SparseReshape, SparseFillEmptyRows(Grad), SparseTensorDenseMatMul and the
// SparseSegment*WithNumSegments reductions. A SparseTensor is (indices [n, rank] int64,
// values [n], dense_shape [rank] int64).
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// Checks (indices, values, shape) at inputs i, i+1, i+2 agree where known; returns the
// number of entries (or unknown).
int64_t SparseOperands(ShapeFnContext& c, int indices_i, int values_i, int shape_i) {
  const PartialShape indices = c.InputWithRank(indices_i, 2, "indices");
  const PartialShape values = c.InputWithRank(values_i, 1, "values");
  const PartialShape shape = c.InputWithRank(shape_i, 1, "shape");
  MergeDim(indices.dims[0], values.dims[0], "the number of indices and values");
  MergeDim(indices.dims[1], shape.dims[0], "the index rank and the shape's length");
  return indices.dims[0] != kUnknownDim ? indices.dims[0] : values.dims[0];
}

void SparseReorderShape(ShapeFnContext& c) {
  const int64_t n = SparseOperands(c, 0, 1, 2);
  const PartialShape indices = c.Input(0);
  c.SetOutput(0, PartialShape::Of({n, indices.dims[1]}));
  c.SetOutput(1, PartialShape::Of({n}));
}

void SparseReshapeShape(ShapeFnContext& c) {
  const PartialShape indices = c.InputWithRank(0, 2, "input_indices");
  c.InputWithRank(1, 1, "input_shape");
  const PartialShape new_shape = c.InputWithRank(2, 1, "new_shape");
  c.SetOutput(0, PartialShape::Of({indices.dims[0], new_shape.dims[0]}));
  c.SetOutput(1, new_shape);
}

void SparseFillEmptyRowsShape(ShapeFnContext& c) {
  SparseOperands(c, 0, 1, 2);
  c.InputWithRank(3, 0, "default_value");
  const PartialShape indices = c.Input(0);
  c.SetOutput(0, PartialShape::Of({kUnknownDim, indices.dims[1]}));
  c.SetOutput(1, PartialShape::Of({kUnknownDim}));
  const auto shape = c.InputInts(2);
  c.SetOutput(2, PartialShape::Of({shape && !shape->empty() ? (*shape)[0] : kUnknownDim}));
  c.SetOutput(3, PartialShape::Of({indices.dims[0]}));
}

void SparseFillEmptyRowsGradShape(ShapeFnContext& c) {
  const PartialShape map = c.InputWithRank(0, 1, "reverse_index_map");
  c.InputWithRank(1, 1, "grad_values");
  c.SetOutput(0, map);
  c.SetOutput(1, PartialShape::Of({}));
}

void SparseTensorDenseMatMulShape(ShapeFnContext& c) {
  c.InputWithRank(0, 2, "a_indices");
  c.InputWithRank(1, 1, "a_values");
  const PartialShape a_shape = c.InputWithRank(2, 1, "a_shape");
  MergeDim(a_shape.dims[0], 2, "SparseTensorDenseMatMul: a_shape's length");
  const PartialShape b = c.InputWithRank(3, 2, "b");
  const bool adj_a = c.AttrBool("adjoint_a"), adj_b = c.AttrBool("adjoint_b");
  int64_t rows = kUnknownDim, inner_a = kUnknownDim;
  if (const auto dims = c.InputInts(2)) {
    rows = (*dims)[adj_a ? 1 : 0];
    inner_a = (*dims)[adj_a ? 0 : 1];
  }
  int64_t inner_b = b.dims[adj_b ? 1 : 0];
  MergeDim(inner_a, inner_b, "SparseTensorDenseMatMul: the inner dimensions");
  c.SetOutput(0, PartialShape::Of({rows, b.dims[adj_b ? 0 : 1]}));
}

// SparseSegment*WithNumSegments: [num_segments] + data's shape after dim 0.
void SegmentWithNumSegmentsShape(ShapeFnContext& c) {
  const PartialShape data = c.InputWithRankAtLeast(0, 1, "data");
  const PartialShape indices = c.InputWithRank(1, 1, "indices");
  const PartialShape ids = c.InputWithRank(2, 1, "segment_ids");
  MergeDim(indices.dims[0], ids.dims[0], "the lengths of indices and segment_ids");
  c.InputWithRank(3, 0, "num_segments");
  if (!data.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  std::vector<int64_t> out = data.dims;
  const auto n = c.InputInts(3);
  out[0] = n ? (*n)[0] : kUnknownDim;
  c.SetOutput(0, PartialShape::Of(out));
}

OpRegistration SegmentWithNumSegments(const char* name, const char* t, const char* summary) {
  return {name,
          {t, "Tidx: {int32, int64} = DT_INT32", "Tnumsegments: {int32, int64} = DT_INT32",
           "Tsegmentids: {int32, int64} = DT_INT32", "sparse_gradient: bool = false"},
          {"data: T", "indices: Tidx", "segment_ids: Tsegmentids", "num_segments: Tnumsegments"},
          {"output: T"},
          ShapeFn<SegmentWithNumSegmentsShape>,
          summary,
          "Row indices[i] of `data` goes to segment segment_ids[i] (sorted, below "
          "`num_segments`); the output has `num_segments` rows, and a segment no id names "
          "is 0.",
          {{"data", "The values."},
           {"indices", "The rows of `data` to reduce, one per segment id."},
           {"segment_ids", "The sorted segment of each picked row."},
           {"num_segments", "The number of output rows (a scalar)."},
           {"output", "One reduced row per segment."},
           {"sparse_gradient", "Whether the gradient is sparse (kept for TensorFlow's "
                               "signature; gradients here are dense)."}}};
}

const std::pair<std::string, std::string> kIndicesDoc{
    "indices", "[n, rank] int64: the coordinates of the entries."};

}  // namespace

void RegisterSparseTensorOps(TF_Status* status) {
  RegisterOps({
      {"SparseReorder", {"T: type"},
       {"input_indices: int64", "input_values: T", "input_shape: int64"},
       {"output_indices: int64", "output_values: T"}, ShapeFn<SparseReorderShape>,
       "Sorts a SparseTensor's entries into row-major (canonical) order.",
       "Duplicates keep their relative order; indices are not checked against the shape.",
       {{"input_indices", "[n, rank]: the coordinates."}, {"input_values", "[n]: the values."},
        {"input_shape", "[rank]: the dense shape."},
        {"output_indices", "The coordinates, sorted."},
        {"output_values", "The values in the same order."}}},
      {"SparseReshape", {}, {"input_indices: int64", "input_shape: int64", "new_shape: int64"},
       {"output_indices: int64", "output_shape: int64"}, ShapeFn<SparseReshapeShape>,
       "Reshapes a SparseTensor: the same row-major offsets under a new dense shape.",
       "At most one entry of `new_shape` may be -1 (inferred); the values are unchanged.",
       {{"input_indices", "[n, rank]: the coordinates."},
        {"input_shape", "[rank]: the dense shape."},
        {"new_shape", "[new rank]: the requested shape, perhaps with one -1."},
        {"output_indices", "[n, new rank]: the coordinates in the new shape."},
        {"output_shape", "The new shape, -1 resolved."}}},
      {"SparseFillEmptyRows", {"T: type"},
       {"indices: int64", "values: T", "dense_shape: int64", "default_value: T"},
       {"output_indices: int64", "output_values: T", "empty_row_indicator: bool",
        "reverse_index_map: int64"},
       ShapeFn<SparseFillEmptyRowsShape>,
       "Adds an entry (row, 0, ...) holding `default_value` to every row of a SparseTensor "
       "that has none.",
       "The output is ordered by row; entries within a row keep their order.",
       {kIndicesDoc, {"values", "[n]: the values."}, {"dense_shape", "[rank]: the dense shape."},
        {"default_value", "A scalar for the added entries."},
        {"output_indices", "The coordinates, by row."}, {"output_values", "The values."},
        {"empty_row_indicator", "[rows]: whether each row was empty."},
        {"reverse_index_map", "[n]: where each input entry went in the output."}}},
      {"SparseFillEmptyRowsGrad", {"T: type"}, {"reverse_index_map: int64", "grad_values: T"},
       {"d_values: T", "d_default_value: T"}, ShapeFn<SparseFillEmptyRowsGradShape>,
       "The gradient of SparseFillEmptyRows.",
       "The input values get their output entries' gradients; the default value the sum of "
       "the rest.",
       {{"reverse_index_map", "SparseFillEmptyRows' reverse_index_map."},
        {"grad_values", "The gradient of its output values."},
        {"d_values", "The gradient of its input values."},
        {"d_default_value", "The gradient of its default value."}}},
      {"SparseTensorDenseMatMul",
       {"T: type", "Tindices: {int32, int64} = DT_INT64", "adjoint_a: bool = false",
        "adjoint_b: bool = false"},
       {"a_indices: Tindices", "a_values: T", "a_shape: int64", "b: T"}, {"product: T"},
       ShapeFn<SparseTensorDenseMatMulShape>,
       "Multiplies the 2-D SparseTensor `a` by the dense matrix `b`.",
       "Duplicate entries of `a` add up; an index outside `a_shape` is an error.",
       {{"a_indices", "[n, 2]: the coordinates of a."}, {"a_values", "[n]: its values."},
        {"a_shape", "[2]: its dense shape."}, {"b", "The dense matrix."},
        {"product", "op(a) times op(b)."},
        {"adjoint_a", "Use a's conjugate transpose."},
        {"adjoint_b", "Use b's conjugate transpose."}}},
      SegmentWithNumSegments("SparseSegmentSumWithNumSegments", "T: realnumbertypes",
                             "Sums picked rows of `data` in each of `num_segments` sorted "
                             "segments."),
      SegmentWithNumSegments("SparseSegmentMeanWithNumSegments",
                             "T: {bfloat16, half, float, double}",
                             "The mean of picked rows of `data` in each of `num_segments` "
                             "sorted segments."),
      SegmentWithNumSegments("SparseSegmentSqrtNWithNumSegments",
                             "T: {bfloat16, half, float, double}",
                             "The sum of picked rows of `data` in each of `num_segments` "
                             "sorted segments over the square root of its size."),
  }, status);
}

}  // namespace opgen

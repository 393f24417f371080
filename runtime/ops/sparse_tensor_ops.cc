// The SparseTensor ops that feature columns and tf.sparse.* use: SparseReorder,
// SparseReshape, SparseFillEmptyRows(Grad), SparseTensorDenseMatMul, SparseAdd(Grad),
// SparseSlice(Grad), SparseReduceSum, SparseConcat and the SparseSegment*WithNumSegments
// reductions. A SparseTensor is (indices [n, rank] int64,
// values [n], dense_shape [rank] int64).
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// Checks (indices, values, shape) at inputs i, i+1, i+2 agree where known; returns
// indices' shape, [entries, rank] with either unknown.
PartialShape SparseOperands(ShapeFnContext& c, int indices_i, int values_i, int shape_i) {
  const PartialShape indices = c.InputWithRank(indices_i, 2, "indices");
  const PartialShape values = c.InputWithRank(values_i, 1, "values");
  const PartialShape shape = c.InputWithRank(shape_i, 1, "shape");
  MergeDim(indices.dims[0], values.dims[0], "the number of indices and values");
  MergeDim(indices.dims[1], shape.dims[0], "the index rank and the shape's length");
  return PartialShape::Of({indices.dims[0] != kUnknownDim ? indices.dims[0] : values.dims[0],
                           indices.dims[1] != kUnknownDim ? indices.dims[1] : shape.dims[0]});
}

void SparseReorderShape(ShapeFnContext& c) {
  const PartialShape indices = SparseOperands(c, 0, 1, 2);
  c.SetOutput(0, indices);
  c.SetOutput(1, PartialShape::Of({indices.dims[0]}));
}

void SparseReshapeShape(ShapeFnContext& c) {
  const PartialShape indices = c.InputWithRank(0, 2, "input_indices");
  c.InputWithRank(1, 1, "input_shape");
  const PartialShape new_shape = c.InputWithRank(2, 1, "new_shape");
  c.SetOutput(0, PartialShape::Of({indices.dims[0], new_shape.dims[0]}));
  c.SetOutput(1, new_shape);
}

void SparseFillEmptyRowsShape(ShapeFnContext& c) {
  const PartialShape indices = SparseOperands(c, 0, 1, 2);
  c.InputWithRank(3, 0, "default_value");
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

void SparseAddShape(ShapeFnContext& c) {
  const PartialShape a = c.InputWithRank(0, 2, "a_indices");
  c.InputWithRank(1, 1, "a_values");
  const PartialShape shape = c.InputWithRank(2, 1, "a_shape");
  c.SetOutput(0, PartialShape::Of({kUnknownDim, a.dims[1]}));
  c.SetOutput(1, PartialShape::Of({kUnknownDim}));
  c.SetOutput(2, shape);
}

void SparseAddGradShape(ShapeFnContext& c) {
  c.InputWithRank(0, 1, "backprop_val_grad");
  const PartialShape a = c.InputWithRank(1, 2, "a_indices");
  const PartialShape b = c.InputWithRank(2, 2, "b_indices");
  c.InputWithRank(3, 2, "sum_indices");
  c.SetOutput(0, PartialShape::Of({a.dims[0]}));
  c.SetOutput(1, PartialShape::Of({b.dims[0]}));
}

void SparseSliceShape(ShapeFnContext& c) {
  const PartialShape indices = SparseOperands(c, 0, 1, 2);
  c.SetOutput(0, PartialShape::Of({kUnknownDim, indices.dims[1]}));
  c.SetOutput(1, PartialShape::Of({kUnknownDim}));
  c.SetOutput(2, PartialShape::Of({indices.dims[1]}));
}

void SparseSliceGradShape(ShapeFnContext& c) {
  const PartialShape indices = c.InputWithRank(1, 2, "input_indices");
  c.SetOutput(0, PartialShape::Of({indices.dims[0]}));
}

// SparseReduceSum: the dense shape less the reduced dims (1 each with keep_dims), when
// both the shape and the axes are constants.
void SparseReduceSumShape(ShapeFnContext& c) {
  const auto shape = c.InputInts(2), axes = c.InputInts(3);
  if (!shape || !axes) return c.SetOutput(0, PartialShape::Unknown());
  const int64_t rank = static_cast<int64_t>(shape->size());
  std::vector<bool> reduced(rank, false);
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank)
      Fail("Invalid reduction dimension " + std::to_string(a) + ", for input with " +
           std::to_string(rank) + " dimensions.");
    reduced[a < 0 ? a + rank : a] = true;
  }
  const bool keep = c.AttrBool("keep_dims");
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d]) out.push_back((*shape)[d]);
    else if (keep) out.push_back(1);
  c.SetOutput(0, PartialShape::Of(out));
}

void SparseConcatShape(ShapeFnContext& c) {
  const int n = c.num_inputs() / 3;
  int64_t rows = 0, rank = kUnknownDim;
  for (int i = 0; i < n; ++i) {
    const PartialShape ind = c.InputWithRank(i, 2, "indices");
    c.InputWithRank(n + i, 1, "values");
    c.InputWithRank(2 * n + i, 1, "shapes");
    rows = rows == kUnknownDim || ind.dims[0] == kUnknownDim ? kUnknownDim : rows + ind.dims[0];
    rank = MergeDim(rank, ind.dims[1], "SparseConcat: the ranks of the inputs");
  }
  c.SetOutput(0, PartialShape::Of({rows, rank}));
  c.SetOutput(1, PartialShape::Of({rows}));
  c.SetOutput(2, PartialShape::Of({rank}));
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
      {"SparseAdd", {"T: numbertypes", "Treal: realnumbertypes"},
       {"a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64", "b_values: T",
        "b_shape: int64", "thresh: Treal"},
       {"sum_indices: int64", "sum_values: T", "sum_shape: int64"}, ShapeFn<SparseAddShape>,
       "Adds two SparseTensors of one shape.",
       "The operands' entries are merged in row-major order (they should be sorted); where "
       "both have an entry the sum is kept only when its magnitude is `thresh` or more.",
       {{"a_indices", "[n, rank]: a's coordinates."}, {"a_values", "[n]: a's values."},
        {"a_shape", "[rank]: a's dense shape."}, {"b_indices", "[m, rank]: b's coordinates."},
        {"b_values", "[m]: b's values."}, {"b_shape", "[rank]: b's dense shape (a's)."},
        {"thresh", "A scalar: the smallest magnitude a sum of two entries keeps."},
        {"sum_indices", "The sum's coordinates."}, {"sum_values", "Its values."},
        {"sum_shape", "Its dense shape."}}},
      {"SparseAddGrad", {"T: numbertypes"},
       {"backprop_val_grad: T", "a_indices: int64", "b_indices: int64", "sum_indices: int64"},
       {"a_val_grad: T", "b_val_grad: T"}, ShapeFn<SparseAddGradShape>,
       "The gradient of SparseAdd.",
       "Each operand entry gets the gradient of the sum entry it became (0 where its sum was "
       "dropped).",
       {{"backprop_val_grad", "The gradient of SparseAdd's sum_values."},
        {"a_indices", "SparseAdd's a_indices."}, {"b_indices", "SparseAdd's b_indices."},
        {"sum_indices", "SparseAdd's sum_indices."},
        {"a_val_grad", "The gradient of a_values."}, {"b_val_grad", "The gradient of b_values."}}},
      {"SparseSlice", {"T: type"},
       {"indices: int64", "values: T", "shape: int64", "start: int64", "size: int64"},
       {"output_indices: int64", "output_values: T", "output_shape: int64"},
       ShapeFn<SparseSliceShape>, "Slices a SparseTensor: the entries in [start, start + size).",
       "The output's coordinates start at 0; its shape is the part of the window inside the "
       "input's shape.",
       {kIndicesDoc, {"values", "[n]: the values."}, {"shape", "[rank]: the dense shape."},
        {"start", "[rank]: the window's first coordinates."},
        {"size", "[rank]: the window's size."},
        {"output_indices", "The kept coordinates, less start."},
        {"output_values", "The kept values."}, {"output_shape", "The slice's dense shape."}}},
      {"SparseSliceGrad", {"T: numbertypes"},
       {"backprop_val_grad: T", "input_indices: int64", "input_start: int64",
        "output_indices: int64"},
       {"val_grad: T"}, ShapeFn<SparseSliceGradShape>, "The gradient of SparseSlice.",
       "Each input entry kept by the slice gets its output entry's gradient; the rest get 0.",
       {{"backprop_val_grad", "The gradient of SparseSlice's output_values."},
        {"input_indices", "SparseSlice's indices."}, {"input_start", "SparseSlice's start."},
        {"output_indices", "SparseSlice's output_indices."},
        {"val_grad", "The gradient of SparseSlice's values."}}},
      {"SparseReduceSum", {"keep_dims: bool = false", "T: numbertypes"},
       {"input_indices: int64", "input_values: T", "input_shape: int64",
        "reduction_axes: int32"},
       {"output: T"}, ShapeFn<SparseReduceSumShape>,
       "Sums a SparseTensor's values over `reduction_axes` into a dense tensor.",
       "Negative axes count from the end; an axis may repeat. Duplicate entries add up.",
       {{"input_indices", "[n, rank]: the coordinates."}, {"input_values", "[n]: the values."},
        {"input_shape", "[rank]: the dense shape."},
        {"reduction_axes", "A scalar or vector: the axes summed over."},
        {"output", "The dense sums."}, {"keep_dims", "Keep the reduced axes with size 1."}}},
      {"SparseConcat", {"concat_dim: int", "N: int >= 2", "T: type"},
       {"indices: N * int64", "values: N * T", "shapes: N * int64"},
       {"output_indices: int64", "output_values: T", "output_shape: int64"},
       ShapeFn<SparseConcatShape>, "Concatenates SparseTensors along `concat_dim`.",
       "The other dimensions must agree; the output's entries are in row-major order.",
       {{"indices", "Each input's [n_i, rank] coordinates."}, {"values", "Each input's values."},
        {"shapes", "Each input's dense shape."}, {"output_indices", "The coordinates."},
        {"output_values", "The values."}, {"output_shape", "The dense shape."},
        {"concat_dim", "The dimension to join along (negative counts from the end)."}}},
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

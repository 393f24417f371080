// Bincount, DenseBincount, RaggedBincount, SparseBincount: counting (or summing weights)
// per integer value, what tf.math.bincount and Keras' CategoryEncoding ("count",
// "multi_hot", on dense, ragged and sparse inputs) use. OpDefs as
// TensorFlow 2.21's.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// The known `size` (a scalar input) as a dim, or unknown.
int64_t SizeDim(ShapeFnContext& c, int i) {
  c.InputWithRank(i, 0, "size");
  std::optional<std::vector<int64_t>> size = c.InputInts(i);
  if (!size) return kUnknownDim;
  if ((*size)[0] < 0) Fail("size (" + std::to_string((*size)[0]) + ") must be non-negative");
  return (*size)[0];
}

// HistogramFixedWidth: [nbins], value_range a vector, nbins a scalar.
void HistogramShape(ShapeFnContext& c) {
  c.InputWithRank(1, 1, "value_range");
  c.InputWithRank(2, 0, "nbins");
  std::optional<std::vector<int64_t>> nbins = c.InputInts(2);
  if (nbins && (*nbins)[0] <= 0)
    Fail("nbins should be a positive number, but got '" + std::to_string((*nbins)[0]) + "'");
  c.SetOutput(0, PartialShape::Of({nbins ? (*nbins)[0] : kUnknownDim}));
}

void BincountShape(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({SizeDim(c, 1)})); }

// Rank 0 or 1 input: [size]; rank 2: [rows, size].
void DenseBincountShape(ShapeFnContext& c) {
  const int64_t size = SizeDim(c, 1);
  const PartialShape in = c.Input(0);
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (in.rank() > 2)
    Fail("Shape must be at most rank 2 but is rank " + std::to_string(in.rank()));
  c.SetOutput(0, in.rank() == 2 ? PartialShape::Of({in.dims[0], size}) : PartialShape::Of({size}));
}

// [rows, size], rows one fewer than the splits.
void RaggedBincountShape(ShapeFnContext& c) {
  const int64_t splits = c.InputWithRank(0, 1, "splits").dims[0];
  c.InputWithRank(1, 1, "values");
  const int64_t size = SizeDim(c, 2);
  c.SetOutput(0, PartialShape::Of({splits > 0 ? splits - 1 : kUnknownDim, size}));
}

// A rank-1 sparse input gives [size]; a higher rank [dense_shape[0], size].
void SparseBincountShape(ShapeFnContext& c) {
  const int64_t rank = MergeDim(c.InputWithRank(0, 2, "indices").dims[1],
                                c.InputWithRank(2, 1, "dense_shape").dims[0],
                                "indices' second dimension against dense_shape's length");
  c.InputWithRank(1, 1, "values");
  const int64_t size = SizeDim(c, 3);
  if (rank == 1) return c.SetOutput(0, PartialShape::Of({size}));
  if (rank < 0) return c.SetOutput(0, PartialShape::Unknown());
  std::optional<std::vector<int64_t>> dense = c.InputInts(2);
  c.SetOutput(0, PartialShape::Of({dense ? (*dense)[0] : kUnknownDim, size}));
}

const std::pair<std::string, std::string> kWeightsDoc{
    "weights", "Added per value instead of 1: of the values' shape, or empty for counts."};

}  // namespace

void RegisterBincountOps(TF_Status* status) {
  RegisterOps({
      {"HistogramFixedWidth",
       {"T: {int32, int64, float, double}", "dtype: {int32, int64} = DT_INT32"},
       {"values: T", "value_range: T", "nbins: int32"}, {"out: dtype"}, ShapeFn<HistogramShape>,
       "Counts `values` in `nbins` equal bins spanning `value_range`.",
       "Values below value_range[0] count in the first bin, values from value_range[1] on "
       "in the last.",
       {{"values", "Any shape."}, {"value_range", "[lo, hi], lo < hi."},
        {"nbins", "The number of bins (positive)."}, {"out", "The counts, [nbins]."}}},
      {"Bincount", {"T: {int32, int64, float, double}"},
       {"arr: int32", "size: int32", "weights: T"}, {"bins: T"}, ShapeFn<BincountShape>,
       "How often each value in [0, size) occurs in `arr` (or the sum of its weights).",
       "Values of size or more are left out; negative values are an error.",
       {{"arr", "Non-negative int32 values, any shape."},
        {"size", "The number of bins, a non-negative scalar."},
        kWeightsDoc,
        {"bins", "1-D of length size."}}},
      {"DenseBincount",
       {"Tidx: {int32, int64}", "T: {int32, int64, float, double}",
        "binary_output: bool = false"},
       {"input: Tidx", "size: Tidx", "weights: T"}, {"output: T"},
       ShapeFn<DenseBincountShape>,
       "Counts values per bin, per row of a 2-D input.",
       "A 1-D input gives [size] bins, a 2-D input [rows, size]. Values of size or more are "
       "left out; negative values are an error. With binary_output a bin is 1 where its "
       "value occurs.",
       {{"input", "Non-negative values, 1-D or 2-D."},
        {"size", "The number of bins, a non-negative scalar."},
        kWeightsDoc,
        {"output", "The bins."},
        {"binary_output", "Whether bins say only whether a value occurs."}}},
      {"RaggedBincount",
       {"Tidx: {int32, int64}", "T: {int32, int64, float, double}",
        "binary_output: bool = false"},
       {"splits: int64", "values: Tidx", "size: Tidx", "weights: T"}, {"output: T"},
       ShapeFn<RaggedBincountShape>,
       "Counts values per bin, per row of a ragged tensor.",
       "Row r holds values[splits[r]:splits[r + 1]]. Values of size or more are left out; "
       "negative values are an error.",
       {{"splits", "The row boundaries: from 0 to the number of values."},
        {"values", "Non-negative values."},
        {"size", "The number of bins, a non-negative scalar."},
        kWeightsDoc,
        {"output", "[rows, size] bins."},
        {"binary_output", "Whether bins say only whether a value occurs."}}},
      {"SparseBincount",
       {"Tidx: {int32, int64}", "T: {int32, int64, float, double}",
        "binary_output: bool = false"},
       {"indices: int64", "values: Tidx", "dense_shape: int64", "size: Tidx", "weights: T"},
       {"output: T"}, ShapeFn<SparseBincountShape>,
       "Counts the values of a sparse tensor per bin, per row.",
       "A rank-1 sparse tensor gives [size] bins, a higher rank [dense_shape[0], size] (a "
       "value's row is its first coordinate). Values outside [0, size) are left out.",
       {{"indices", "[n, rank] coordinates of the values."},
        {"values", "[n] values."},
        {"dense_shape", "The sparse tensor's shape."},
        {"size", "The number of bins, a non-negative scalar."},
        kWeightsDoc,
        {"output", "The bins."},
        {"binary_output", "Whether bins say only whether a value occurs."}}},
  }, status);
}

}  // namespace opgen

// InTopK(V2), UpperBound/LowerBound, Diag/DiagPart, Bitcast, Inplace{Update,Add,Sub} and
// DataFormat{VecPermute,DimMap}. OpDefs as TensorFlow 2.21's.
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// predictions [batch, classes], targets [batch]: one bool per row.
void InTopKShape(ShapeFnContext& c) {
  const PartialShape predictions = c.InputWithRank(0, 2, "predictions");
  const PartialShape targets = c.InputWithRank(1, 1, "targets");
  if (c.num_inputs() > 2) c.InputWithRank(2, 0, "k");
  c.SetOutput(0, PartialShape::Of({MergeDim(predictions.dims[0], targets.dims[0],
                                            "predictions' rows and targets")}));
}

// sorted_inputs and values are both [batch, n]; the output is shaped as values.
void SearchSortedShape(ShapeFnContext& c) {
  c.InputWithRank(0, 2, "sorted_inputs");
  c.SetOutput(0, c.InputWithRank(1, 2, "values"));
}

// Diag: [d...] -> [d..., d...].
void DiagShape(ShapeFnContext& c) {
  PartialShape in = c.InputWithRankAtLeast(0, 1, "diagonal");
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  std::vector<int64_t> dims = in.dims;
  dims.insert(dims.end(), in.dims.begin(), in.dims.end());
  c.SetOutput(0, PartialShape::Of(dims));
}

// DiagPart: [d..., d...] -> [d...].
void DiagPartShape(ShapeFnContext& c) {
  const PartialShape in = c.Input(0);
  if (!in.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (in.rank() == 0 || in.rank() % 2 != 0)
    Fail("Input must have even and non-zero rank, input rank is " + std::to_string(in.rank()));
  const size_t half = in.dims.size() / 2;
  std::vector<int64_t> dims(half);
  for (size_t i = 0; i < half; ++i) dims[i] = MergeDim(in.dims[i], in.dims[i + half], "input");
  c.SetOutput(0, PartialShape::Of(dims));
}

// Bitcast: same width keeps the shape; a narrower type appends width_in / width_out; a
// wider one drops a last dim that must be width_out / width_in.
void BitcastShape(ShapeFnContext& c) {
  const TF_DataType from = c.AttrType("T"), to = c.AttrType("type");
  const int64_t in_size = static_cast<int64_t>(TF_DataTypeSize(from));
  const int64_t out_size = static_cast<int64_t>(TF_DataTypeSize(to));
  PartialShape in = c.Input(0);
  if (in_size == 0 || out_size == 0)
    Fail("Cannot bitcast types " + std::to_string(from) + " to " + std::to_string(to) +
         " because one or the other have unknown size.");
  if (in_size == out_size || !in.rank_known) return c.SetOutput(0, in);
  if (in_size > out_size) {
    in.dims.push_back(in_size / out_size);
    return c.SetOutput(0, in);
  }
  in = c.InputWithRankAtLeast(0, 1, "input");
  const int64_t last = in.dims.back(), divisor = out_size / in_size;
  if (last != kUnknownDim && last != divisor)
    Fail("Cannot bitcast from " + std::to_string(from) + " to " + std::to_string(to) +
         " due to shape. " + std::to_string(last) + " does not match " + std::to_string(divisor));
  in.dims.pop_back();
  c.SetOutput(0, in);
}

const char* const kSrcFormat = "src_format: string = 'NHWC'";
const char* const kDstFormat = "dst_format: string = 'NCHW'";
const std::pair<std::string, std::string> kSrcDoc{
    "src_format", "The source layout, 4 or 5 letters (e.g. NHWC)."};
const std::pair<std::string, std::string> kDstDoc{
    "dst_format", "The destination layout: a permutation of src_format's letters."};

OpRegistration Inplace(const char* name, const char* summary) {
  return {name, {"T: type"}, {"x: T", "i: int32", "v: T"}, {"y: T"}, shape_fns::kUnchanged,
          summary,
          "Row i[j] of x (a first-dimension index, taken modulo x's rows) is combined with "
          "row j of v; x itself is not changed.",
          {{"x", "The tensor whose rows are changed in the copy."},
           {"i", "A vector of row indices into x."},
           {"v", "The rows: shaped as x except the first dimension, len(i)."},
           {"y", "The copy of x with the rows changed."}}};
}

}  // namespace

void RegisterArrayFamilyOps(TF_Status* status) {
  RegisterOps({
      {"InTopKV2", {"T: {int32, int64} = DT_INT32"},
       {"predictions: float", "targets: T", "k: T"}, {"precision: bool"}, ShapeFn<InTopKShape>,
       "Whether each target is among the k largest predictions of its row.",
       "A target ties with equal predictions (they are all in); a row with a non-finite "
       "prediction, or a target out of range, gives false.",
       {{"predictions", "[batch, classes] scores."}, {"targets", "[batch] class indices."},
        {"k", "How many top classes count (a scalar)."}, {"precision", "[batch] bools."}}},
      {"InTopK", {"k: int", "T: {int32, int64} = DT_INT32"},
       {"predictions: float", "targets: T"}, {"precision: bool"}, ShapeFn<InTopKShape>,
       "Whether each target is among the k largest predictions of its row.",
       "InTopKV2 with k an attr.",
       {{"predictions", "[batch, classes] scores."}, {"targets", "[batch] class indices."},
        {"k", "How many top classes count."}, {"precision", "[batch] bools."}}},
      {"UpperBound", {"T: type", "out_type: {int32, int64} = DT_INT32"},
       {"sorted_inputs: T", "values: T"}, {"output: out_type"}, ShapeFn<SearchSortedShape>,
       "For each value, the index of the first element of its sorted row greater than it.",
       "Row b of values is searched in row b of sorted_inputs (numpy's searchsorted, "
       "side='right').",
       {{"sorted_inputs", "[batch, n], each row sorted ascending."},
        {"values", "[batch, m] values to place."}, {"output", "[batch, m] indices."},
        {"out_type", "The index dtype."}}},
      {"LowerBound", {"T: type", "out_type: {int32, int64} = DT_INT32"},
       {"sorted_inputs: T", "values: T"}, {"output: out_type"}, ShapeFn<SearchSortedShape>,
       "For each value, the index of the first element of its sorted row not less than it.",
       "Row b of values is searched in row b of sorted_inputs (numpy's searchsorted, "
       "side='left').",
       {{"sorted_inputs", "[batch, n], each row sorted ascending."},
        {"values", "[batch, m] values to place."}, {"output", "[batch, m] indices."},
        {"out_type", "The index dtype."}}},
      {"Diag", {"T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"},
       {"diagonal: T"}, {"output: T"}, ShapeFn<DiagShape>,
       "A tensor with `diagonal` on its diagonal and zeros elsewhere.",
       "For diagonal of shape [d1, ..., dk], output[i1, ..., ik, i1, ..., ik] = "
       "diagonal[i1, ..., ik], of shape [d1, ..., dk, d1, ..., dk].",
       {{"diagonal", "At least 1-D."}, {"output", "Rank twice diagonal's."}}},
      {"DiagPart", {"T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"},
       {"input: T"}, {"diagonal: T"}, ShapeFn<DiagPartShape>,
       "The diagonal of a tensor shaped [d1, ..., dk, d1, ..., dk]: Diag's inverse.", "",
       {{"input", "Of even rank, its two halves equal."}, {"diagonal", "[d1, ..., dk]."}}},
      {"Bitcast",
       {"T: {bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, "
        "int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32}",
        "type: {bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, "
        "int8, int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32}"},
       {"input: T"}, {"output: type"}, ShapeFn<BitcastShape>,
       "Reinterprets the bytes of a tensor as another type, without copying.",
       "Same widths keep the shape; a narrower `type` adds a last dimension of "
       "width(T) / width(type); a wider one removes a last dimension that must be "
       "width(type) / width(T).",
       {{"input", "The tensor."}, {"output", "Its bytes as `type`."}}},
      Inplace("InplaceUpdate", "Returns x with the rows i replaced by v."),
      Inplace("InplaceAdd", "Returns x with v added to the rows i."),
      Inplace("InplaceSub", "Returns x with v subtracted from the rows i."),
      {"DataFormatVecPermute", {"T: {int32, int64} = DT_INT32", kSrcFormat, kDstFormat},
       {"x: T"}, {"y: T"}, shape_fns::kUnchanged,
       "Reorders a vector of per-dimension values from src_format to dst_format.",
       "x is [n] or [n, 2] with n the format's length, or its number of spatial "
       "dimensions (then only H, W and D are reordered).",
       {{"x", "Values per dimension of src_format."}, {"y", "The same, in dst_format's order."},
        kSrcDoc, kDstDoc}},
      {"DataFormatDimMap", {"T: {int32, int64} = DT_INT32", kSrcFormat, kDstFormat},
       {"x: T"}, {"y: T"}, shape_fns::kUnchanged,
       "Maps dimension indices of src_format to those of dst_format.",
       "Indices in [-n, n) for a format of n letters (negative ones count from the end).",
       {{"x", "Dimension indices in src_format."}, {"y", "The same dimensions in dst_format."},
        kSrcDoc, kDstDoc}},
  }, status);
}

}  // namespace opgen

// The tf.Example parsing ops: ParseExampleV2 (what tf.io.parse_example and
// tf.io.parse_single_example run), ParseExample (v1) and ParseSingleExample, as
// exported serving signatures hold them; and ParseTensor / SerializeTensor (TensorProto
// bytes). OpDefs as TensorFlow 2.21's.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// The shapes every parse op shares: sparse triples of rank `batch_rank` + 1 (-1: unknown),
// then the dense values of `batch` (a shape, possibly unknown) + each dense shape, whose
// first dim -1 marks a variable-length feature (its padded length is unknown).
void SetSparseAndDense(ShapeFnContext& c, int64_t num_sparse, const PartialShape& batch) {
  const std::vector<PartialShape> dense = c.AttrShapes("dense_shapes");
  const int64_t index_rank = batch.rank_known ? batch.rank() + 1 : kUnknownDim;
  for (int64_t i = 0; i < num_sparse; ++i) {
    c.SetOutput(static_cast<int>(i), PartialShape::Of({kUnknownDim, index_rank}));
    c.SetOutput(static_cast<int>(num_sparse + i), PartialShape::Of({kUnknownDim}));
    c.SetOutput(static_cast<int>(2 * num_sparse + i), PartialShape::Of({index_rank}));
  }
  for (size_t d = 0; d < dense.size(); ++d) {
    PartialShape out = PartialShape::Unknown();
    if (batch.rank_known && dense[d].rank_known) {
      out = batch;
      out.dims.insert(out.dims.end(), dense[d].dims.begin(), dense[d].dims.end());
    }
    c.SetOutput(static_cast<int>(3 * num_sparse + d), out);
  }
}

void ParseExampleV2Shape(ShapeFnContext& c) {
  const PartialShape serialized = c.Input(0);
  if (serialized.rank() > 1)
    Fail("Shape must be at most rank 1 but is rank " + std::to_string(serialized.rank()) +
         " for 'serialized'");
  const int64_t num_sparse = c.AttrInt("num_sparse");
  SetSparseAndDense(c, num_sparse, serialized);
  const int64_t first_ragged =
      3 * num_sparse + static_cast<int64_t>(c.AttrShapes("dense_shapes").size());
  const int64_t num_ragged = (c.num_outputs() - first_ragged) / 2;
  // A batch of B examples has B + 1 row splits; one example has none.
  int64_t splits = kUnknownDim;
  if (serialized.rank() == 0) splits = 0;
  if (serialized.rank() == 1 && serialized.dims[0] != kUnknownDim) splits = serialized.dims[0] + 1;
  for (int64_t k = 0; k < num_ragged; ++k) {
    c.SetOutput(static_cast<int>(first_ragged + k), PartialShape::Of({kUnknownDim}));
    c.SetOutput(static_cast<int>(first_ragged + num_ragged + k), PartialShape::Of({splits}));
  }
}

void ParseExampleShape(ShapeFnContext& c) {
  const PartialShape serialized = c.InputWithRank(0, 1, "serialized");
  SetSparseAndDense(c, c.AttrInt("Nsparse"), serialized);
}

void ParseSingleExampleShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "serialized");
  SetSparseAndDense(c, c.AttrInt("num_sparse"), PartialShape::Of({}));
}

// One TensorProto in: its shape is known only once parsed.
void ParseTensorShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "serialized");
  c.SetOutput(0, PartialShape::Unknown());
}

const char kValueTypes[] = "{float, int64, string}";

std::string ListOf(const char* name, const char* kind) {
  return std::string(name) + ": list(" + kind + ") >= 0";
}

}  // namespace

void RegisterParsingOps(TF_Status* status) {
  const std::pair<std::string, std::string> doc_serialized{
      "serialized", "Serialized tf.Example protos: a vector (a scalar for one example)."};
  const std::pair<std::string, std::string> doc_defaults{
      "dense_defaults",
      "Per dense key: its default value (of the dense shape), empty when the feature is "
      "required; for a variable-length key, the padding value."};
  const std::pair<std::string, std::string> doc_shapes{
      "dense_shapes", "Per dense key: its shape per example; a first dim -1 reads a "
                      "variable-length feature, padded to the batch's longest."};
  const std::pair<std::string, std::string> doc_indices{
      "sparse_indices", "Per sparse key: [N, rank + 1] (example, position) indices."};
  const std::pair<std::string, std::string> doc_values{"sparse_values",
                                                       "Per sparse key: its N values."};
  const std::pair<std::string, std::string> doc_sparse_shapes{
      "sparse_shapes", "Per sparse key: the dense shape, [batch, longest list]."};
  const std::pair<std::string, std::string> doc_dense{
      "dense_values", "Per dense key: the values, of shape batch + dense shape."};
  const std::pair<std::string, std::string> doc_sparse_types{"sparse_types",
                                                             "Per sparse key: its dtype."};
  const std::pair<std::string, std::string> doc_tdense{"Tdense", "Per dense key: its dtype."};
  RegisterOps({
      {"ParseExampleV2",
       {ListOf("Tdense", kValueTypes), "num_sparse: int >= 0", ListOf("sparse_types", kValueTypes),
        ListOf("ragged_value_types", kValueTypes), ListOf("ragged_split_types", "{int32, int64}"),
        ListOf("dense_shapes", "shape")},
       {"serialized: string", "names: string", "sparse_keys: string", "dense_keys: string",
        "ragged_keys: string", "dense_defaults: Tdense"},
       {"sparse_indices: num_sparse * int64", "sparse_values: sparse_types",
        "sparse_shapes: num_sparse * int64", "dense_values: Tdense",
        "ragged_values: ragged_value_types", "ragged_row_splits: ragged_split_types"},
       ShapeFn<ParseExampleV2Shape>,
       "Parses a batch of serialized tf.Example protos into dense, sparse and ragged tensors.",
       "Each key names a feature of the examples' Features map; a feature's list (bytes, "
       "float or int64) must be of the key's dtype (string, float or int64).",
       {doc_serialized,
        {"names", "Names of the protos, for error messages only: empty, or one per proto."},
        {"sparse_keys", "The keys read as SparseTensors, a vector."},
        {"dense_keys", "The keys read as dense tensors, a vector."},
        {"ragged_keys", "The keys read as RaggedTensors, a vector."},
        doc_defaults, doc_indices, doc_values, doc_sparse_shapes, doc_dense,
        {"ragged_values", "Per ragged key: the values of every example, concatenated."},
        {"ragged_row_splits", "Per ragged key: the row splits, batch + 1 of them."},
        doc_tdense, {"num_sparse", "The number of sparse keys."}, doc_sparse_types,
        {"ragged_value_types", "Per ragged key: its dtype."},
        {"ragged_split_types", "Per ragged key: the dtype of its row splits."}, doc_shapes}},
      {"ParseExample",
       {"Nsparse: int >= 0", "Ndense: int >= 0", ListOf("sparse_types", kValueTypes),
        ListOf("Tdense", kValueTypes), ListOf("dense_shapes", "shape")},
       {"serialized: string", "names: string", "sparse_keys: Nsparse * string",
        "dense_keys: Ndense * string", "dense_defaults: Tdense"},
       {"sparse_indices: Nsparse * int64", "sparse_values: sparse_types",
        "sparse_shapes: Nsparse * int64", "dense_values: Tdense"},
       ShapeFn<ParseExampleShape>,
       "Parses a vector of serialized tf.Example protos into dense and sparse tensors.",
       "ParseExampleV2's predecessor: each key is its own scalar input; no ragged keys.",
       {doc_serialized,
        {"names", "Names of the protos, for error messages only: empty, or one per proto."},
        {"sparse_keys", "The sparse keys, scalars."}, {"dense_keys", "The dense keys, scalars."},
        doc_defaults, doc_indices, doc_values, doc_sparse_shapes, doc_dense,
        {"Nsparse", "The number of sparse keys."}, {"Ndense", "The number of dense keys."},
        doc_sparse_types, doc_tdense, doc_shapes}},
      {"ParseSingleExample",
       {"num_sparse: int >= 0", ListOf("sparse_keys", "string"), ListOf("dense_keys", "string"),
        ListOf("sparse_types", kValueTypes), ListOf("Tdense", kValueTypes),
        ListOf("dense_shapes", "shape")},
       {"serialized: string", "dense_defaults: Tdense"},
       {"sparse_indices: num_sparse * int64", "sparse_values: sparse_types",
        "sparse_shapes: num_sparse * int64", "dense_values: Tdense"},
       ShapeFn<ParseSingleExampleShape>,
       "Parses one serialized tf.Example proto into dense and sparse tensors.",
       "The keys are attrs; sparse indices are [N, 1] positions.",
       {{"serialized", "One serialized tf.Example, a scalar."}, doc_defaults, doc_indices,
        doc_values, doc_sparse_shapes, doc_dense, {"num_sparse", "The number of sparse keys."},
        {"sparse_keys", "The keys read as SparseTensors."},
        {"dense_keys", "The keys read as dense tensors."}, doc_sparse_types, doc_tdense,
        doc_shapes}},
      {"ParseTensor", {"out_type: type"}, {"serialized: string"}, {"output: out_type"},
       ShapeFn<ParseTensorShape>, "The tensor a serialized TensorProto holds.",
       "Its dtype must be out_type.",
       {{"serialized", "A scalar: TensorProto bytes."}, {"output", "The tensor."},
        {"out_type", "The dtype the proto must hold."}}},
      {"SerializeTensor", {"T: type"}, {"tensor: T"}, {"serialized: string"},
       shape_fns::kScalar, "A tensor as serialized TensorProto bytes.",
       "Numbers go in tensor_content, strings in string_val.",
       {{"tensor", "The tensor."}, {"serialized", "A scalar: the TensorProto bytes."},
        {"T", "The tensor's dtype."}}},
  }, status);
}

}  // namespace opgen

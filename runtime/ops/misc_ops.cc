// Built-in ops that TensorFlow-frozen Keras models use beyond the core families:
// element-wise math (Erfc, Sin, Cos, Floor, Ceil, Round, Softsign, LeakyRelu), the v1
// Select, identities (StopGradient, PreventGradient, GuaranteeConst, IdentityN), splits, OneHot, BroadcastTo, Where,
// TopKV2, cumulative sums and products, and the bool reductions All and Any. Shape
// functions: misc_shape_fns.cc.
#include "misc_shape_fns.h"
#include "op_table.h"

namespace opgen {

namespace {

constexpr const char* kFloatTypes = "T: {bfloat16, half, float, double}";
constexpr const char* kFloatComplexTypes =
    "T: {bfloat16, half, float, double, complex64, complex128}";

OpRegistration Cumulative(const char* name, const char* summary,
                          const char* type_attr = "T: numbertypes") {
  return OpRegistration{
      name,
      {"exclusive: bool = false", "reverse: bool = false", type_attr,
       "Tidx: {int32, int64} = DT_INT32"},
      {"x: T", "axis: Tidx"}, {"out: T"}, shape_fns::kUnchanged, summary,
      "Along `axis`; `exclusive` leaves each element out of its own result (the first is "
      "the identity), `reverse` runs from the end.",
      {{"x", "The values."}, {"axis", "The dimension to run along (a scalar, negative counts "
                                      "from the end)."},
       {"out", "The running results, shaped as `x`."},
       {"exclusive", "Leave each element out of its own result."},
       {"reverse", "Run from the last element to the first."}}};
}

OpRegistration BoolReduction(const char* name, const char* summary) {
  return OpRegistration{
      name, {"keep_dims: bool = false", "Tidx: {int32, int64} = DT_INT32"},
      {"input: bool", "reduction_indices: Tidx"}, {"output: bool"}, shape_fns::kReduction, summary,
      "Reduces `input` along the axes in `reduction_indices` (negative axes count from the "
      "end). Reduced dimensions are removed, or kept with size 1 when `keep_dims` is true.",
      {{"input", "The values to reduce."}, {"reduction_indices", "The axes to reduce."},
       {"output", "The reduced tensor."}, {"keep_dims", "Keep reduced dimensions with size 1."}}};
}

}  // namespace

void RegisterMiscOps(TF_Status* status) {
  RegisterOps({
      UnaryOp("Erfc", kFloatTypes, "Returns the complementary error function `1 - erf(x)`."),
      UnaryOp("Sin", kFloatComplexTypes, "Returns the sine of `x`."),
      UnaryOp("Cos", kFloatComplexTypes, "Returns the cosine of `x`."),
      UnaryOp("Floor", kFloatTypes, "Returns the largest integer not greater than `x`."),
      UnaryOp("Ceil", kFloatTypes, "Returns the smallest integer not less than `x`."),
      UnaryOp("Round",
              "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
              "complex128}",
              "Rounds `x` to the nearest integer, halves to even (banker's rounding)."),
      UnaryOp("Softsign", "T: {half, bfloat16, float, double}", "Returns `x / (1 + |x|)`.",
              "features", "activations"),
      {"LeakyRelu", {"alpha: float = 0.2", "T: {half, bfloat16, float, double} = DT_FLOAT"},
       {"features: T"}, {"activations: T"}, shape_fns::kUnchanged,
       "Returns `x` where `x >= 0` and `alpha * x` elsewhere.", "Applied element by element.",
       {{"features", "Input values."}, {"activations", "The result, shaped as the input."},
        {"alpha", "The slope below zero."}}},
      {"Select", {"T: type"}, {"condition: bool", "t: T", "e: T"}, {"output: T"},
       shape_fns::kSelectV1,
       "Picks from `t` where `condition` is true and from `e` elsewhere.",
       "`t` and `e` have one shape; `condition` is a scalar, has that shape too, or is a "
       "vector over the first dimension (picking whole rows).",
       {{"condition", "Where to pick `t`."}, {"t", "Values where true."},
        {"e", "Values where false."}, {"output", "The selection."}}},
      {"StopGradient", {"T: type"}, {"input: T"}, {"output: T"}, shape_fns::kUnchanged,
       "Returns its input unchanged, and stops gradients.",
       "The output shares the input's buffer; no data is copied.",
       {{"input", "Any tensor."}, {"output", "The same tensor."}}},
      {"PreventGradient", {"T: type", "message: string = ''"}, {"input: T"}, {"output: T"},
       shape_fns::kUnchanged, "Returns its input unchanged; asking for its gradient is an error.",
       "Building the gradient fails with NOT_FOUND (Python's LookupError) and `message`.",
       {{"input", "Any tensor."}, {"output", "The same tensor."},
        {"message", "Why the gradient is disabled."}}},
      {"GuaranteeConst", {"T: type"}, {"input: T"}, {"output: T"}, shape_fns::kUnchanged,
       "Returns its input unchanged, promising that it is constant over the graph's runs.",
       "The output shares the input's buffer.",
       {{"input", "Any tensor."}, {"output", "The same tensor."}},
       false, false, /*is_stateful=*/true},
      {"IdentityN", {"T: list(type) >= 1"}, {"input: T"}, {"output: T"}, shape_fns::kIdentityN,
       "Returns its inputs unchanged.", "Each output shares its input's buffer.",
       {{"input", "Any tensors."}, {"output", "The same tensors."}}},
      {"Split", {"num_split: int >= 1", "T: type"}, {"split_dim: int32", "value: T"},
       {"output: num_split * T"}, shape_fns::kSplit,
       "Splits `value` along `split_dim` into `num_split` equal pieces.",
       "The size of that dimension must be a multiple of `num_split`.",
       {{"split_dim", "The dimension to split (a scalar, negative counts from the end)."},
        {"value", "The tensor to split."}, {"output", "The pieces."},
        {"num_split", "The number of pieces."}}},
      {"SplitV", {"num_split: int >= 1", "T: type", "Tlen: {int8, int32, int64} = DT_INT64"},
       {"value: T", "size_splits: Tlen", "split_dim: int32"}, {"output: num_split * T"},
       shape_fns::kSplitV,
       "Splits `value` along `split_dim` into pieces of the sizes in `size_splits`.",
       "One size may be -1: it takes what the others leave.",
       {{"value", "The tensor to split."}, {"size_splits", "The size of each piece (1-D)."},
        {"split_dim", "The dimension to split (a scalar, negative counts from the end)."},
        {"output", "The pieces."}, {"num_split", "The number of pieces."}}},
      {"OneHot", {"axis: int = -1", "T: type", "TI: {uint8, int8, int32, int64} = DT_INT64"},
       {"indices: TI", "depth: int32", "on_value: T", "off_value: T"}, {"output: T"},
       shape_fns::kOneHot,
       "Returns a one-hot tensor: `on_value` where the new axis equals the index, "
       "`off_value` elsewhere.",
       "A new dimension of size `depth` goes in at `axis` (-1: last). Indices outside "
       "`[0, depth)` give `off_value` everywhere.",
       {{"indices", "The hot positions."}, {"depth", "The size of the new dimension (a scalar)."},
        {"on_value", "The value at the index (a scalar)."},
        {"off_value", "The value elsewhere (a scalar)."}, {"output", "The one-hot tensor."},
        {"axis", "Where the new dimension goes."}}},
      {"BroadcastTo", {"T: type", "Tidx: {int32, int64} = DT_INT32"}, {"input: T", "shape: Tidx"},
       {"output: T"}, shape_fns::kBroadcastTo,
       "Broadcasts `input` to `shape` as numpy's broadcast_to does.", "",
       {{"input", "The values."}, {"shape", "The target shape (1-D)."},
        {"output", "`input` repeated to `shape`."}}},
      {"Where",
       {"T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
        "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64, bool} = DT_BOOL"},
       {"input: T"}, {"index: int64"}, shape_fns::kWhere,
       "Returns the coordinates of the true (non-zero) elements of `input`.",
       "One row per element, in row-major order.",
       {{"input", "The values."}, {"index", "An [n, rank(input)] tensor of coordinates."}}},
      {"TopKV2",
       {"sorted: bool = true", "T: realnumbertypes", "Tk: {int16, int32, int64} = DT_INT32",
        "index_type: {int16, int32, int64} = DT_INT32"},
       {"input: T", "k: Tk"}, {"values: T", "indices: index_type"}, shape_fns::kTopK,
       "Returns the `k` largest entries of each row (the last dimension) and their indices.",
       "Largest first; equal values keep their order (lower index first).",
       {{"input", "Rank >= 1."}, {"k", "How many to keep (a scalar)."},
        {"values", "The k largest entries of each row."},
        {"indices", "Their indices in the row."}, {"sorted", "Accepted; results are always sorted."}}},
      Cumulative("Cumsum", "Returns the running sums of `x` along `axis`."),
      Cumulative("Cumprod", "Returns the running products of `x` along `axis`."),
      Cumulative("CumulativeLogsumexp",
                 "Returns the running `log(sum(exp(x)))` of `x` along `axis`.",
                 "T: {bfloat16, half, float, double}"),
      BoolReduction("All", "Computes the logical AND across dimensions."),
      BoolReduction("Any", "Computes the logical OR across dimensions."),
  }, status);
}

}  // namespace opgen

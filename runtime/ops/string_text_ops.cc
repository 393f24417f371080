// Text-preprocessing ops with TensorFlow's OpDefs, the ones Keras' TextVectorization
// graphs run: case mapping, stripping, RE2 regex replacement (opgen runs the subset of
// RE2 that std::regex agrees with: docs/saved_model.md, Text models), splitting into a
// sparse result, n-grams of ragged rows, substrings, and RaggedTensorToTensor, which
// makes the padded token matrix.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

void RegexReplaceShape(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "pattern");
  c.InputWithRank(2, 0, "rewrite");
  c.SetOutput(0, c.Input(0));
}

void SplitShape(ShapeFnContext& c) {
  c.InputWithRank(0, 1, "input");
  c.InputWithRank(1, 0, "sep");
  c.SetOutput(0, PartialShape::Of({-1, 2}));
  c.SetOutput(1, PartialShape::Of({-1}));
  c.SetOutput(2, PartialShape::Of({2}));
}

void NGramsShape(ShapeFnContext& c) {
  c.InputWithRank(0, 1, "data");
  c.SetOutput(0, PartialShape::Of({-1}));
  c.SetOutput(1, c.InputWithRank(1, 1, "data_splits"));
}

void SubstrShape(ShapeFnContext& c) {
  const PartialShape pos = c.Input(1);
  MergeShapes(pos, c.Input(2), "pos and len must have one shape");
  c.SetOutput(0, BroadcastShapes(c.Input(0), pos));
}

// The requested shape where it is known (a vector input), the ragged rank's worth of
// unknown dims and the values' inner dims otherwise.
void RaggedToTensorShape(ShapeFnContext& c) {
  // A scalar first partition is FIRST_DIM_SIZE (then one VALUE_ROWIDS per ragged dim).
  const PartialShape first = c.Input(3);
  const int64_t partitions =
      c.AttrInt("num_row_partition_tensors") - (first.rank_known && first.rank() == 0 ? 1 : 0);
  const PartialShape values = c.Input(1);
  if (!values.rank_known || !first.rank_known) {
    c.SetOutput(0, PartialShape::Unknown());
    return;
  }
  if (values.rank() < 1) Fail("RaggedTensorToTensor: values must have rank at least 1");
  PartialShape out = PartialShape::UnknownDims(partitions + values.rank());
  for (int64_t d = 1; d < values.rank(); ++d) out.dims[partitions + d] = values.dims[d];
  const std::optional<std::vector<int64_t>> want = c.InputInts(0);
  if (want && c.Input(0).rank() == 1) {
    if (static_cast<int64_t>(want->size()) != out.rank())
      Fail("RaggedTensorToTensor: shape has " + std::to_string(want->size()) +
           " dims, the result has rank " + std::to_string(out.rank()));
    for (size_t d = 0; d < want->size(); ++d)
      if ((*want)[d] >= 0)
        out.dims[d] = MergeDim(out.dims[d], (*want)[d], "RaggedTensorToTensor: shape");
  }
  c.SetOutput(0, out);
}

OpRegistration MapOp(const char* name, std::vector<std::string> attrs, const char* summary,
                     const char* description,
                     std::vector<std::pair<std::string, std::string>> attr_docs) {
  attr_docs.insert(attr_docs.begin(), {{"input", "The strings, any shape."},
                                       {"output", "The results, shaped as input."}});
  return OpRegistration{name, std::move(attrs), {"input: string"}, {"output: string"},
                        shape_fns::kUnchanged, summary, description, std::move(attr_docs)};
}

}  // namespace

void RegisterStringTextOps(TF_Status* status) {
  RegisterOps({
      MapOp("StringLower", {"encoding: string = ''"}, "Maps each string to lower case.",
            "Without an encoding ASCII letters change, other bytes stay. With 'utf-8' "
            "Unicode letters change: most Latin blocks, Greek, Cyrillic, Armenian and "
            "Deseret, with Unicode's full mappings and final sigma; other scripts stay as "
            "they are (TensorFlow maps them too). Ill-formed UTF-8 becomes U+FFFD.",
            {{"encoding", "'' (bytes) or 'utf-8'."}}),
      MapOp("StringUpper", {"encoding: string = ''"}, "Maps each string to upper case.",
            "As StringLower.", {{"encoding", "'' (bytes) or 'utf-8'."}}),
      MapOp("StringStrip", {}, "Removes leading and trailing ASCII whitespace.", "", {}),
      MapOp("StaticRegexReplace",
            {"pattern: string", "rewrite: string", "replace_global: bool = true"},
            "Replaces the matches of a regular expression fixed when the graph is built.",
            "The pattern is RE2's; opgen refuses (INVALID_ARGUMENT) the parts of RE2 it "
            "cannot run exactly (docs/saved_model.md, Text models). In the rewrite `\\1` "
            "names a group and `\\0` the whole match.",
            {{"pattern", "The RE2 regular expression."},
             {"rewrite", "What replaces each match."},
             {"replace_global", "Replace every match, not just the first."}}),
      {"RegexReplace", {"replace_global: bool = true"},
       {"input: string", "pattern: string", "rewrite: string"}, {"output: string"},
       ShapeFn<RegexReplaceShape>,
       "Replaces the matches of a regular expression given as an input.",
       "As StaticRegexReplace, with a scalar pattern and rewrite.",
       {{"input", "The strings, any shape."},
        {"pattern", "The RE2 regular expression, a scalar."},
        {"rewrite", "What replaces each match, a scalar."},
        {"output", "The results, shaped as input."},
        {"replace_global", "Replace every match, not just the first."}}},
      {"StringSplitV2", {"maxsplit: int = -1"}, {"input: string", "sep: string"},
       {"indices: int64", "values: string", "shape: int64"}, ShapeFn<SplitShape>,
       "Splits each string of a vector, as Python's str.split, into a sparse matrix.",
       "An empty sep splits at runs of ASCII whitespace and drops whitespace at the ends; "
       "another sep splits at each occurrence (an empty string is one empty piece). Row "
       "i of the result holds the pieces of string i.",
       {{"input", "A vector of strings."},
        {"sep", "The separator, a scalar; empty: whitespace."},
        {"indices", "The [row, column] of each piece."},
        {"values", "The pieces."},
        {"shape", "[rows, most pieces of a row]."},
        {"maxsplit", "At most this many splits per string; negative: no limit."}}},
      {"StringNGrams",
       {"separator: string", "ngram_widths: list(int) >= 0", "left_pad: string",
        "right_pad: string", "pad_width: int", "preserve_short_sequences: bool",
        "Tsplits: {int32, int64} = DT_INT64"},
       {"data: string", "data_splits: Tsplits"}, {"ngrams: string", "ngrams_splits: Tsplits"},
       ShapeFn<NGramsShape>, "The n-grams of each row of a ragged tensor of strings.",
       "For each row and each width in turn: the row padded with up to pad_width pad "
       "strings on each side (width - 1 when negative, never more), every window of that "
       "width joined by separator.",
       {{"data", "The strings of all rows."},
        {"data_splits", "The row splits of data."},
        {"ngrams", "The n-grams of all rows."},
        {"ngrams_splits", "Their row splits."},
        {"separator", "Put between the strings of an n-gram."},
        {"ngram_widths", "The n-gram widths, positive."},
        {"left_pad", "The string padding a row's start."},
        {"right_pad", "The string padding a row's end."},
        {"pad_width", "How many pad strings go on each side."},
        {"preserve_short_sequences",
         "A non-empty row too short for any n-gram gives one n-gram of the whole row."},
        {"Tsplits", "The dtype of the splits."}}},
      {"Substr", {"T: {int32, int64}", "unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"},
       {"input: string", "pos: T", "len: T"}, {"output: string"}, ShapeFn<SubstrShape>,
       "The substring of each string from pos, of at most len bytes or characters.",
       "A negative pos counts from the end; INVALID_ARGUMENT when pos is out of the "
       "string. A negative len takes the bytes to the end (BYTE) or no characters "
       "(UTF8_CHAR), as TensorFlow does. opgen takes pos and len as scalars or shaped as "
       "input.",
       {{"input", "The strings."},
        {"pos", "Where each substring starts."},
        {"len", "The most bytes or characters each substring has."},
        {"output", "The substrings."},
        {"T", "The dtype of pos and len."},
        {"unit", "Count bytes or UTF-8 characters."}}},
      {"RaggedTensorToTensor",
       {"T: type", "Tindex: {int64, int32}", "Tshape: {int64, int32}",
        "num_row_partition_tensors: int >= 1", "row_partition_types: list(string)"},
       {"shape: Tshape", "values: T", "default_value: T",
        "row_partition_tensors: num_row_partition_tensors * Tindex"},
       {"result: T"}, ShapeFn<RaggedToTensorShape>,
       "Pads a ragged tensor into a dense one.",
       "Rows and columns beyond `shape` are dropped; missing ones are default_value. opgen "
       "takes row partitions that are all ROW_SPLITS, or FIRST_DIM_SIZE then VALUE_ROWIDS.",
       {{"shape", "The result's shape: -1 dims (or a scalar) take the widest row."},
        {"values", "The ragged tensor's values."},
        {"default_value", "What fills the missing entries: a scalar or one value element."},
        {"row_partition_tensors", "The partition of each ragged dimension, outermost first."},
        {"result", "The dense tensor."},
        {"T", "The dtype of the values."},
        {"Tindex", "The dtype of the row partitions."},
        {"Tshape", "The dtype of shape."},
        {"num_row_partition_tensors", "The ragged rank."},
        {"row_partition_types",
         "How each partition is given: \"ROW_SPLITS\", or \"FIRST_DIM_SIZE\" then "
         "\"VALUE_ROWIDS\"."}}},
  }, status);
}

}  // namespace opgen

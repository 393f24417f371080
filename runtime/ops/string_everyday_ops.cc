// The everyday string ops of tf.strings with TensorFlow's OpDefs: lengths, parsing
// numbers, regex matching with a pattern operand, joining along axes or segments, the
// legacy splitter, the legacy hash buckets, web-safe base64 and the Unicode codecs.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

void RegexFullMatchShape(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "pattern");
  c.SetOutput(0, c.Input(0));
}

void StringSplitShape(ShapeFnContext& c) {
  c.InputWithRank(0, 1, "input");
  c.InputWithRank(1, 0, "delimiter");
  c.SetOutput(0, PartialShape::Of({-1, 2}));
  c.SetOutput(1, PartialShape::Of({-1}));
  c.SetOutput(2, PartialShape::Of({2}));
}

// [num_segments] + the dims of inputs past segment_ids' rank.
void SegmentJoinShape(ShapeFnContext& c) {
  const PartialShape data = c.Input(0);
  const PartialShape ids = c.Input(1);
  c.InputWithRank(2, 0, "num_segments");
  if (!data.rank_known || !ids.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (ids.rank() > data.rank())
    Fail("UnsortedSegmentJoin: segment_ids of rank " + std::to_string(ids.rank()) +
         " for inputs of rank " + std::to_string(data.rank()));
  for (int64_t d = 0; d < ids.rank(); ++d)
    MergeDim(data.dims[d], ids.dims[d], "UnsortedSegmentJoin: segment_ids' shape must prefix inputs'");
  const std::optional<std::vector<int64_t>> n = c.InputInts(2);
  PartialShape out = PartialShape::Of({n ? (*n)[0] : -1});
  for (int64_t d = ids.rank(); d < data.rank(); ++d) out.dims.push_back(data.dims[d]);
  c.SetOutput(0, out);
}

// Ragged results: the row splits and the characters of all strings.
void UnicodeDecodeShape(ShapeFnContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.SetOutput(i, PartialShape::Of({-1}));
}

// One string per row of the splits.
void UnicodeEncodeShape(ShapeFnContext& c) {
  c.InputWithRank(0, 1, "input_values");
  const PartialShape splits = c.InputWithRank(1, 1, "input_splits");
  c.SetOutput(0, PartialShape::Of({splits.dims[0] < 0 ? -1 : splits.dims[0] - 1}));
}

const char* const kDecodeDescription =
    "opgen reads UTF-8, UTF-16-BE and UTF-32-BE (TensorFlow reads any ICU encoding). An "
    "ill-formed subpart (ICU's granularity: a maximal one) is refused (strict), replaced "
    "by replacement_char (replace) or dropped (ignore); replace_control_characters treats "
    "the code points below U+0020 as replaced ones.";

std::vector<std::pair<std::string, std::string>> DecodeAttrDocs() {
  return {{"input_encoding", "UTF-8, UTF-16-BE or UTF-32-BE."},
          {"errors", "strict, replace or ignore: what ill-formed input does."},
          {"replacement_char", "The code point that replaces ill-formed input."},
          {"replace_control_characters", "Replace the code points below U+0020 too."}};
}

}  // namespace

void RegisterStringEverydayOps(TF_Status* status) {
  RegisterOps({
      {"StringLength", {"unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"}, {"input: string"},
       {"output: int32"}, shape_fns::kUnchanged, "The length of each string.",
       "In bytes, or in UTF-8 characters (the bytes that do not continue a sequence).",
       {{"input", "The strings, any shape."},
        {"output", "Their lengths, shaped as input."},
        {"unit", "Count bytes or UTF-8 characters."}}},
      {"StringToNumber",
       {"out_type: {float, double, int32, int64, uint32, uint64} = DT_FLOAT"},
       {"string_tensor: string"}, {"output: out_type"}, shape_fns::kUnchanged,
       "Parses each string as a number.",
       "Integers: decimal digits, a '-' for signed types, ASCII spaces around. Floats: "
       "decimal or 0x-hex notation, inf and nan in any case, spaces around, fewer than 32 "
       "bytes. Anything else is INVALID_ARGUMENT, as in TensorFlow.",
       {{"string_tensor", "The strings to parse."},
        {"output", "The numbers, shaped as the input."},
        {"out_type", "The numeric type to parse into."}}},
      {"RegexFullMatch", {}, {"input: string", "pattern: string"}, {"output: bool"},
       ShapeFn<RegexFullMatchShape>,
       "Whether each string matches a regular expression given as an input.",
       "The whole string must match. The pattern is RE2's; opgen runs the subset of RE2 "
       "that std::regex agrees with and refuses the rest (docs/saved_model.md, Text models).",
       {{"input", "The strings to test."},
        {"pattern", "The RE2 regular expression, a scalar."},
        {"output", "True where the whole string matches."}}},
      {"ReduceJoin", {"keep_dims: bool = false", "separator: string = ''"},
       {"inputs: string", "reduction_indices: int32"}, {"output: string"},
       shape_fns::kReduction, "Joins the strings along the given dimensions.",
       "Strings are joined in row-major order of the reduced dimensions; a dimension of "
       "size 0 joins to the empty string.",
       {{"inputs", "The strings."},
        {"reduction_indices", "The dimensions to join along, negative counting from the end."},
        {"output", "The joined strings."},
        {"keep_dims", "Keep the joined dimensions with size 1."},
        {"separator", "Put between joined strings."}}},
      {"UnsortedSegmentJoin",
       {"separator: string = ''", "Tindices: {int32, int64}",
        "Tnumsegments: {int32, int64} = DT_INT32"},
       {"inputs: string", "segment_ids: Tindices", "num_segments: Tnumsegments"},
       {"output: string"}, ShapeFn<SegmentJoinShape>,
       "Joins the strings of each segment, in the order they come.",
       "segment_ids' shape is a prefix of inputs'; negative ids drop their strings and a "
       "segment without strings is empty.",
       {{"inputs", "The strings."},
        {"segment_ids", "The segment of each slice of inputs."},
        {"num_segments", "How many segments the output has, a scalar."},
        {"output", "[num_segments] + the dims of inputs past segment_ids' rank."},
        {"separator", "Put between joined strings."},
        {"Tindices", "The dtype of segment_ids."},
        {"Tnumsegments", "The dtype of num_segments."}}},
      {"StringSplit", {"skip_empty: bool = true"}, {"input: string", "delimiter: string"},
       {"indices: int64", "values: string", "shape: int64"}, ShapeFn<StringSplitShape>,
       "Splits each string of a vector at any of the delimiter's bytes, into a sparse matrix.",
       "An empty delimiter splits a string into its bytes. Row i of the result holds the "
       "tokens of string i.",
       {{"input", "A vector of strings."},
        {"delimiter", "The delimiter bytes, a scalar."},
        {"indices", "The [row, column] of each token."},
        {"values", "The tokens."},
        {"shape", "[rows, most tokens of a row]."},
        {"skip_empty", "Drop empty tokens."}}},
      {"StringToHashBucket", {"num_buckets: int >= 1"}, {"string_tensor: string"},
       {"output: int64"}, shape_fns::kUnchanged,
       "Hashes each string into [0, num_buckets) with TensorFlow's legacy Hash64.",
       "Hash64 is a MurmurHash64A with TensorFlow's seed; prefer StringToHashBucketFast.",
       {{"string_tensor", "The strings to hash."}, {"output", "The bucket of each string."},
        {"num_buckets", "The number of buckets."}}},
      {"EncodeBase64", {"pad: bool = false"}, {"input: string"}, {"output: string"},
       shape_fns::kUnchanged, "Encodes each string in web-safe base64 ('-' and '_').",
       "", {{"input", "The strings."}, {"output", "Their encodings."},
            {"pad", "End each encoding with '=' up to a multiple of 4 characters."}}},
      {"DecodeBase64", {}, {"input: string"}, {"output: string"}, shape_fns::kUnchanged,
       "Decodes each string from web-safe base64.",
       "The '=' padding is optional; other characters, or a length of 1 modulo 4, are "
       "INVALID_ARGUMENT.",
       {{"input", "The encodings."}, {"output", "The decoded strings."}}},
  }, status);
  if (TF_GetCode(status) != TF_OK) return;
  const std::vector<std::string> decode_attrs{
      "input_encoding: string", "errors: {'strict', 'replace', 'ignore'} = 'replace'",
      "replacement_char: int = 65533", "replace_control_characters: bool = false",
      "Tsplits: {int32, int64} = DT_INT64"};
  auto decode_docs = DecodeAttrDocs();
  decode_docs.insert(decode_docs.end(),
                     {{"input", "The strings, any shape (read flat)."},
                      {"row_splits", "Where each string's characters start, and the end."},
                      {"char_values", "The code points of all strings."},
                      {"Tsplits", "The dtype of row_splits."}});
  auto offset_docs = decode_docs;
  offset_docs.push_back({"char_to_byte_starts", "The byte offset of each character."});
  auto transcode_docs = DecodeAttrDocs();
  transcode_docs.insert(transcode_docs.end(),
                        {{"input", "The strings, any shape."},
                         {"output", "The strings in output_encoding."},
                         {"output_encoding", "UTF-8, UTF-16-BE or UTF-32-BE."}});
  RegisterOps({
      {"UnicodeDecode", decode_attrs, {"input: string"},
       {"row_splits: Tsplits", "char_values: int32"}, ShapeFn<UnicodeDecodeShape>,
       "Decodes each string into its Unicode code points, as a ragged tensor.",
       kDecodeDescription, decode_docs},
      {"UnicodeDecodeWithOffsets", decode_attrs, {"input: string"},
       {"row_splits: Tsplits", "char_values: int32", "char_to_byte_starts: int64"},
       ShapeFn<UnicodeDecodeShape>,
       "UnicodeDecode, with the byte offset where each character starts.",
       kDecodeDescription, offset_docs},
      {"UnicodeEncode",
       {"errors: {'ignore', 'replace', 'strict'} = 'replace'",
        "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}",
        "replacement_char: int = 65533", "Tsplits: {int32, int64} = DT_INT64"},
       {"input_values: int32", "input_splits: Tsplits"}, {"output: string"},
       ShapeFn<UnicodeEncodeShape>, "Encodes rows of code points as strings.",
       "A value that is no code point (negative, a surrogate, past U+10FFFF) is refused "
       "(strict), replaced by replacement_char (U+FFFD when that is none either) or dropped.",
       {{"input_values", "The code points of all rows."},
        {"input_splits", "The row splits: 0, ascending, ending at len(input_values)."},
        {"output", "One string per row."},
        {"errors", "strict, replace or ignore: what an invalid code point does."},
        {"output_encoding", "UTF-8, UTF-16-BE or UTF-32-BE."},
        {"replacement_char", "The code point that replaces an invalid one."},
        {"Tsplits", "The dtype of input_splits."}}},
      {"UnicodeTranscode",
       {"input_encoding: string", "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}",
        "errors: {'strict', 'replace', 'ignore'} = 'replace'",
        "replacement_char: int = 65533", "replace_control_characters: bool = false"},
       {"input: string"}, {"output: string"}, shape_fns::kUnchanged,
       "Re-encodes each string from input_encoding to output_encoding.",
       kDecodeDescription, transcode_docs},
      {"UnicodeScript", {}, {"input: int32"}, {"output: int32"}, shape_fns::kUnchanged,
       "The Unicode script of each code point, as ICU's UScriptCode.",
       "0 is Common, 103 Unknown (unassigned code points and surrogates); a value that is "
       "no code point (negative, past U+10FFFF) gives -1.",
       {{"input", "Code points."}, {"output", "Their scripts, shaped as input."}}},
  }, status);
}

}  // namespace opgen

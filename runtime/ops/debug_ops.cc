// The checks and printing that tf.debugging, tf.print and tf.ensure_shape leave in
// graphs: Assert, CheckNumerics(V2), EnsureShape, Snapshot, PrintV2 and StringFormat.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// The input's shape merged with the `shape` attr; known sizes that differ fail.
void EnsureShapeShape(ShapeFnContext& c) {
  const PartialShape input = c.Input(0);
  const PartialShape wanted = c.AttrShape("shape");
  c.SetOutput(0, MergeShapes(input, wanted, "EnsureShape: input and `shape`"));
}

void ScalarStringInput(ShapeFnContext& c) { c.InputWithRank(0, 0, "input"); }

void ScalarOutput(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({})); }

}  // namespace

void RegisterDebugOps(TF_Status* status) {
  const std::pair<std::string, std::string> message_doc{
      "message", "Prefix of the error message when a value is not finite."};
  const std::pair<std::string, std::string> summarize_doc{
      "summarize", "How many entries of each tensor to show (-1: all)."};
  RegisterOps({
      {"Assert", {"T: list(type) >= 1", "summarize: int = 3"}, {"condition: bool", "data: T"},
       {}, shape_fns::kNoOutputs,
       "Fails with InvalidArgument when `condition` is false, showing `data` in the message.",
       "The message is \"assertion failed: \" followed by each data tensor summarized in "
       "brackets.",
       {{"condition", "A scalar: the assertion."}, {"data", "Tensors to show when it fails."},
        summarize_doc}, false, false, /*is_stateful=*/true},
      {"CheckNumerics", {"T: {bfloat16, half, float, double}", "message: string"},
       {"tensor: T"}, {"output: T"}, shape_fns::kUnchanged,
       "Returns `tensor` unchanged when it holds no NaN or Inf; fails otherwise.",
       "The error says \"<message> : Tensor had NaN values\" (or Inf, or Inf and NaN).",
       {{"tensor", "The values to check."}, {"output", "The same values."}, message_doc},
       false, false, /*is_stateful=*/true},
      {"CheckNumericsV2", {"T: {bfloat16, half, float, double}", "message: string"},
       {"tensor: T"}, {"output: T"}, shape_fns::kUnchanged,
       "CheckNumerics that tells +Inf from -Inf in its message.",
       "The error names what was found: -Inf, +Inf and NaN, in that order.",
       {{"tensor", "The values to check."}, {"output", "The same values."}, message_doc},
       false, false, /*is_stateful=*/true},
      {"EnsureShape", {"shape: shape", "T: type"}, {"input: T"}, {"output: T"},
       ShapeFn<EnsureShapeShape>,
       "Returns `input` unchanged when its shape is compatible with `shape`; fails otherwise.",
       "Unknown dims of `shape` match any size; an unknown rank matches any shape.",
       {{"input", "Any tensor."}, {"output", "The same tensor."},
        {"shape", "The expected shape, possibly partial."}}},
      {"Snapshot", {"T: type"}, {"input: T"}, {"output: T"}, shape_fns::kUnchanged,
       "Returns a copy of `input`.", "The output is a new buffer, never the input's.",
       {{"input", "Any tensor."}, {"output", "A copy."}}},
      {"PrintV2", {"output_stream: string = 'stderr'", "end: string = '\\n'"},
       {"input: string"}, {}, ShapeFn<ScalarStringInput>,
       "Prints a string scalar to a stream.",
       "`output_stream`: stdout, stderr, log(info), log(warning), log(error) or "
       "file://<path> (appended to).",
       {{"input", "The string to print."}, {"output_stream", "Where to print."},
        {"end", "Printed after the string."}}, false, false, /*is_stateful=*/true},
      {"StringFormat",
       {"T: list(type) >= 0", "template: string = '%s'", "placeholder: string = '%s'",
        "summarize: int = 3"},
       {"inputs: T"}, {"output: string"}, ShapeFn<ScalarOutput>,
       "Formats tensors into a string: each `placeholder` of `template` becomes the "
       "summary of one input.",
       "Summaries show `summarize` entries at each end of every dimension, e.g. "
       "\"[1 2 3 ... 8 9 10]\"; strings are quoted.",
       {{"inputs", "The tensors to show, one per placeholder."}, {"output", "A string scalar."},
        {"template", "The text with placeholders."},
        {"placeholder", "The placeholder's spelling."}, summarize_doc}},
  }, status);
}

}  // namespace opgen

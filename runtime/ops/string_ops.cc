// String ops with TensorFlow's OpDefs, the ones the save/restore graphs of TensorFlow's
// SavedModels use: StringJoin builds the temporary checkpoint prefix, ShardedFilename /
// ShardedFilespec name the shards, StaticRegexFullMatch tests for remote ("s3://") paths.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

// Scalars join every element; the other inputs must share one shape, the output's.
void StringJoinShape(ShapeFnContext& c) {
  PartialShape out = PartialShape::Of({});
  bool have_non_scalar = false;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape in = c.Input(i);
    if (in.rank_known && in.rank() == 0) continue;
    if (!in.rank_known) {
      if (!have_non_scalar) out = PartialShape::Unknown();
      continue;
    }
    if (!have_non_scalar || !out.rank_known) {
      out = in;
      have_non_scalar = true;
      continue;
    }
    if (out.rank() != in.rank())
      Fail("StringJoin: inputs of ranks " + std::to_string(out.rank()) + " and " +
           std::to_string(in.rank()) + " (non-scalar inputs must have one shape)");
    for (int64_t d = 0; d < in.rank(); ++d)
      out.dims[d] = MergeDim(out.dims[d], in.dims[d],
                             "StringJoin: non-scalar inputs must have one shape");
  }
  c.SetOutput(0, out);
}

void ShardedFilenameShape(ShapeFnContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) c.InputWithRank(i, 0, "every input");
  c.SetOutput(0, PartialShape::Of({}));
}

}  // namespace

void RegisterStringOps(TF_Status* status) {
  RegisterOps({
      {"StringJoin", {"N: int >= 0", "separator: string = ''"}, {"inputs: N * string"},
       {"output: string"}, ShapeFn<StringJoinShape>,
       "Joins the strings of its inputs, element by element.",
       "A scalar input joins with every element; the other inputs must share one shape.",
       {{"inputs", "The strings to join: scalars or tensors of one shape."},
        {"output", "The joined strings."},
        {"separator", "Put between the joined strings."}}},
      {"ShardedFilename", {}, {"basename: string", "shard: int32", "num_shards: int32"},
       {"filename: string"}, ShapeFn<ShardedFilenameShape>,
       "The name of one shard of a file saved in parts: `basename-SSSSS-of-NNNNN`.", "",
       {{"basename", "The file's name, a scalar."},
        {"shard", "The shard's index, a scalar."},
        {"num_shards", "How many shards there are, a scalar."},
        {"filename", "The shard's file name."}}},
      {"ShardedFilespec", {}, {"basename: string", "num_shards: int32"},
       {"filename: string"}, ShapeFn<ShardedFilenameShape>,
       "A pattern matching every shard of a file saved in parts: `basename-\?\?\?\?\?-of-NNNNN`.",
       "",
       {{"basename", "The file's name, a scalar."},
        {"num_shards", "How many shards there are, a scalar."},
        {"filename", "The file-name pattern."}}},
      {"StaticRegexFullMatch", {"pattern: string"}, {"input: string"}, {"output: bool"},
       shape_fns::kUnchanged,
       "Whether each string matches a regular expression fixed when the graph is built.",
       "The whole string must match. opgen matches with ECMAScript regular expressions "
       "(std::regex), which agree with TensorFlow's RE2 on the plain patterns graphs use "
       "(literals, classes, `.*`, anchors).",
       {{"input", "The strings to test."},
        {"output", "True where the whole string matches."},
        {"pattern", "The regular expression."}}},
  }, status);
}

}  // namespace opgen

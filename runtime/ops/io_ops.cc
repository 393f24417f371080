// Checkpoint ops, with TensorFlow's OpDefs: SaveV2 and RestoreV2 write and read the
// tensor-bundle format (runtime/src/tensor_bundle.h), MergeV2Checkpoints joins bundles
// saved in parts. All stateful: they touch files, so nothing folds or prunes them.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

// prefix a scalar; tensor_names and shape_and_slices vectors of one length, `count`
// (the number of tensors) when that is known (>= 0).
void CheckNames(ShapeFnContext& c, int64_t count) {
  c.InputWithRank(0, 0, "prefix");
  const PartialShape names = c.InputWithRank(1, 1, "tensor_names");
  const PartialShape slices = c.InputWithRank(2, 1, "shape_and_slices");
  if (!names.rank_known || !slices.rank_known) return;
  const int64_t n = MergeDim(names.dims[0], slices.dims[0],
                             "tensor_names and shape_and_slices must have one length");
  if (count >= 0) MergeDim(n, count, "tensor_names against the number of tensors");
}

void SaveV2Shape(ShapeFnContext& c) { CheckNames(c, c.num_inputs() - 3); }

// The restored tensors' shapes are the file's: unknown while the graph is built.
void RestoreV2Shape(ShapeFnContext& c) {
  CheckNames(c, c.num_outputs());
  for (int i = 0; i < c.num_outputs(); ++i) c.SetOutput(i, PartialShape());
}

void MergeShape(ShapeFnContext& c) {
  const PartialShape sources = c.Input(0);
  if (sources.rank_known && sources.rank() > 1)
    Fail("checkpoint_prefixes must be a scalar or a vector, got rank " +
         std::to_string(sources.rank()));
  c.InputWithRank(1, 0, "destination_prefix");
}

OpRegistration Stateful(OpRegistration op) {
  op.is_stateful = true;
  return op;
}

}  // namespace

void RegisterIoOps(TF_Status* status) {
  RegisterOps({
      Stateful({"SaveV2", {"dtypes: list(type) >= 1"},
                {"prefix: string", "tensor_names: string", "shape_and_slices: string",
                 "tensors: dtypes"},
                {}, ShapeFn<SaveV2Shape>,
                "Saves tensors in the tensor-bundle checkpoint format.",
                "Writes `<prefix>.index` and `<prefix>.data-00000-of-00001` under temporary "
                "names, then renames them, so that a failed save leaves an earlier "
                "checkpoint at `prefix` whole. Only whole tensors are saved: every "
                "`shape_and_slices` entry must be empty.",
                {{"prefix", "The checkpoint's path prefix (a scalar)."},
                 {"tensor_names", "The names to save the tensors under (a vector)."},
                 {"shape_and_slices", "Empty strings (slices are not supported)."},
                 {"tensors", "The tensors to save, one per name."},
                 {"dtypes", "The dtypes of `tensors`."}}}),
      Stateful({"RestoreV2", {"dtypes: list(type) >= 1"},
                {"prefix: string", "tensor_names: string", "shape_and_slices: string"},
                {"tensors: dtypes"}, ShapeFn<RestoreV2Shape>,
                "Reads tensors from a tensor-bundle checkpoint.",
                "NOT_FOUND for a missing checkpoint or a name it lacks, INVALID_ARGUMENT "
                "when a tensor's dtype is not the one asked for, DATA_LOSS for a "
                "truncated or corrupted file (checksums are checked).",
                {{"prefix", "The checkpoint's path prefix (a scalar)."},
                 {"tensor_names", "The names of the tensors to read (a vector)."},
                 {"shape_and_slices", "Empty strings (slices are not supported)."},
                 {"tensors", "The tensors read, one per name."},
                 {"dtypes", "The dtypes of the tensors to read."}}}),
      Stateful({"MergeV2Checkpoints",
                {"delete_old_dirs: bool = true", "allow_missing_files: bool = false"},
                {"checkpoint_prefixes: string", "destination_prefix: string"}, {},
                ShapeFn<MergeShape>,
                "Merges checkpoints saved in parts into one.",
                "The data files of the parts are renamed to the destination's and one "
                "index is written for all; the parts' index files are deleted.",
                {{"checkpoint_prefixes", "The prefixes of the parts (a vector)."},
                 {"destination_prefix", "The prefix of the merged checkpoint (a scalar)."},
                 {"delete_old_dirs", "Also delete the parts' directories (when empty)."},
                 {"allow_missing_files", "Skip parts that do not exist."}}}),
  }, status);
}

}  // namespace opgen

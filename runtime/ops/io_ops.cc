// Checkpoint ops, with TensorFlow's OpDefs: SaveV2 and RestoreV2 write and read the
// tensor-bundle format (runtime/src/tensor_bundle.h), MergeV2Checkpoints joins bundles
// saved in parts. All stateful: they touch files, so nothing folds or prunes them.
#include "op_table.h"

namespace opgen {

namespace {

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
                {}, shape_fns::kNoOutputs,
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
                {"tensors: dtypes"}, shape_fns::kNoOutputs,
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
                shape_fns::kNoOutputs,
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

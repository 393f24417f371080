// Updates of slices of a variable or tensor that training code emits for
// `variable[...].assign(x)` and tf.Variable.scatter_nd_*: ResourceStridedSliceAssign and
// TensorStridedSliceUpdate (StridedSlice's spec, the value broadcast to the slice),
// ResourceScatterNd{Update,Add,Sub,Min,Max} and ResourceGatherNd (GatherNd's index rows on
// a variable). Kernels: kernels/cpu/strided_slice_update.cc, kernels/cpu/resource_scatter_nd.cc.
#include "op_table.h"
#include "scatter_shape_fns.h"

namespace opgen {
namespace {

const std::vector<std::pair<std::string, std::string>> kMaskDocs = {
    {"begin", "Start per spec entry."}, {"end", "Stop per spec entry."},
    {"strides", "Step per spec entry (non-zero)."},
    {"begin_mask", "As StridedSlice's."}, {"end_mask", "As StridedSlice's."},
    {"ellipsis_mask", "As StridedSlice's."}, {"new_axis_mask", "As StridedSlice's."},
    {"shrink_axis_mask", "As StridedSlice's."}};

OpRegistration SliceUpdate(bool resource) {
  std::vector<std::pair<std::string, std::string>> docs = kMaskDocs;
  docs.emplace_back("value", "The new values, broadcast to the slice's shape.");
  if (resource) docs.emplace_back("ref", "The variable's handle.");
  else docs.insert(docs.end(), {{"input", "The tensor to update (left unchanged)."},
                                {"output", "`input` with the slice replaced."}});
  OpRegistration r{resource ? "ResourceStridedSliceAssign" : "TensorStridedSliceUpdate",
                   {"T: type", "Index: {int32, int64}", "begin_mask: int = 0",
                    "end_mask: int = 0", "ellipsis_mask: int = 0", "new_axis_mask: int = 0",
                    "shrink_axis_mask: int = 0"},
                   {resource ? "ref: resource" : "input: T", "begin: Index", "end: Index",
                    "strides: Index", "value: T"},
                   resource ? std::vector<std::string>{} : std::vector<std::string>{"output: T"},
                   resource ? shape_fns::kNoOutputs : shape_fns::kUnchanged,
                   resource ? "Assigns `value` to a strided slice of a variable."
                            : "Replaces a strided slice of `input` by `value`.",
                   "The slice is StridedSlice's of the same begin, end, strides and masks "
                   "(`x[b0:e0:s0, ...] = value` in numpy); `value` is broadcast to its shape.",
                   std::move(docs)};
  r.is_stateful = resource;
  return r;
}

OpRegistration ResourceScatterNd(const char* name, const char* summary) {
  OpRegistration r{name,
                   {"T: type", "Tindices: {int32, int64}", "use_locking: bool = true",
                    "bad_indices_policy: string = ''"},
                   {"ref: resource", "indices: Tindices", "updates: T"},
                   {},
                   shape_fns::kNoOutputs,
                   summary,
                   "`indices` is [..., K]; each row addresses the slice ref[row] of shape "
                   "ref.shape[K:], and `updates` is indices.shape[:-1] + ref.shape[K:]. Rows "
                   "are applied in order.",
                   {{"ref", "The variable's handle."},
                    {"indices", "Index rows into the variable."},
                    {"updates", "One slice per index row."},
                    {"use_locking", "Kept for TensorFlow's signature: the update always holds "
                                    "the variable's lock."},
                    {"bad_indices_policy", "What a bad index does: \"\" or \"DEFAULT\" or "
                                           "\"ERROR\" fail on the CPU; \"IGNORE\" skips it."}}};
  r.is_stateful = true;
  return r;
}

OpRegistration ResourceGatherNdOp() {
  OpRegistration r{"ResourceGatherNd",
                   {"dtype: type", "Tindices: {int32, int64}"},
                   {"resource: resource", "indices: Tindices"},
                   {"output: dtype"},
                   shape_fns::kResourceGather,
                   "Gathers the slices of a variable that index rows address.",
                   "`indices` is [..., K]; the output is indices.shape[:-1] + the variable's "
                   "shape[K:].",
                   {{"resource", "The variable's handle."},
                    {"indices", "Index rows into the variable."},
                    {"output", "The gathered slices."},
                    {"dtype", "The variable's dtype."}}};
  r.is_stateful = true;
  return r;
}

}  // namespace

void RegisterVariableUpdateOps(TF_Status* status) {
  RegisterOps({
      SliceUpdate(true),
      SliceUpdate(false),
      ResourceScatterNd("ResourceScatterNdUpdate",
                        "Replaces the slices of a variable that index rows address."),
      ResourceScatterNd("ResourceScatterNdAdd",
                        "Adds `updates` to the slices of a variable that index rows address."),
      ResourceScatterNd("ResourceScatterNdSub",
                        "Subtracts `updates` from the slices of a variable that index rows "
                        "address."),
      ResourceScatterNd("ResourceScatterNdMin",
                        "The element-wise minimum of a variable's addressed slices and "
                        "`updates`."),
      ResourceScatterNd("ResourceScatterNdMax",
                        "The element-wise maximum of a variable's addressed slices and "
                        "`updates`."),
      ResourceGatherNdOp(),
  }, status);
}

}  // namespace opgen

// Graph inputs: Placeholder (a value the session run must feed) and
// PlaceholderWithDefault (fed or, when not fed, its input passes through).
#include "op_table.h"

namespace opgen {

void RegisterPlaceholderOps(TF_Status* status) {
  RegisterOps({
      {"Placeholder", {"dtype: type", "shape: shape = { unknown_rank: true }"}, {},
       {"output: dtype"}, shape_fns::kPlaceholder,
       "A graph input whose value each session run must feed.",
       "Running a graph that needs this node without feeding it is an error.",
       {{"output", "The fed tensor."}, {"dtype", "The dtype of the fed tensor."},
        {"shape", "The shape fed tensors must have; unknown rank accepts any shape."}}},
      [] {
        OpRegistration op{"PlaceholderV2", {"dtype: type", "shape: shape"}, {}, {"output: dtype"},
                          shape_fns::kPlaceholder,
                          "Placeholder as TF1-era graphs spell it (shape required).",
                          "Runs as Placeholder: each session run must feed it.",
                          {{"output", "The fed tensor."}, {"dtype", "The dtype of the fed tensor."},
                           {"shape", "The shape fed tensors must have."}}};
        op.deprecated_version = 23;
        op.deprecation = "Placeholder now behaves the same as PlaceholderV2.";
        return op;
      }(),
      {"PlaceholderWithDefault", {"dtype: type", "shape: shape"}, {"input: dtype"},
       {"output: dtype"}, shape_fns::kPlaceholderWithDefault,
       "A graph input that passes `input` through when no value is fed.",
       "",
       {{"input", "The value produced when the output is not fed."},
        {"output", "The fed tensor, or `input`."},
        {"dtype", "The dtype of the tensor."},
        {"shape", "The shape fed tensors must be compatible with."}}},
  }, status);
}

}  // namespace opgen

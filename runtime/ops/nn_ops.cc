// Built-in neural-network ops.
#include "op_table.h"

namespace opgen {

void RegisterNnOps(TF_Status* status) {
  RegisterOps({
      {"Relu",
       {"T: {realnumbertypes, qint8}"}, {"features: T"}, {"activations: T"},
       "Rectified linear unit: `max(features, 0)`.",
       "Applied element by element; negative values become zero.",
       {{"features", "Input values."}, {"activations", "`features` with negatives set to 0."}}},
  }, status);
}

}  // namespace opgen

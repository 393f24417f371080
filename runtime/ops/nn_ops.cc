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
      UnaryOp("Relu6",
              "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
              "uint32, uint64}",
              "Returns `min(max(features, 0), 6)`.", "features", "activations"),
      UnaryOp("Elu", "T: {half, bfloat16, float, double}",
              "Exponential linear unit: `exp(features) - 1` below 0, `features` above.",
              "features", "activations"),
      UnaryOp("Selu", "T: {half, bfloat16, float, double}",
              "Scaled exponential linear unit, with the self-normalising constants.",
              "features", "activations"),
      UnaryOp("Softplus", "T: {half, bfloat16, float, double}",
              "Returns `log(exp(features) + 1)`, without overflow for large inputs.",
              "features", "activations"),
  }, status);
}

}  // namespace opgen

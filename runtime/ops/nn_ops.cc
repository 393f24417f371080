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
      {"Softmax", {"T: {half, bfloat16, float, double}"}, {"logits: T"}, {"softmax: T"},
       "Computes softmax over the last dimension: `exp(logits) / sum(exp(logits))`.",
       "Computed stably, by subtracting each row's maximum first.",
       {{"logits", "Rank >= 1; the last dimension holds the classes."},
        {"softmax", "Probabilities, same shape as `logits`."}}},
      {"LogSoftmax", {"T: {half, bfloat16, float, double}"}, {"logits: T"}, {"logsoftmax: T"},
       "Computes log-softmax over the last dimension: `logits - log(sum(exp(logits)))`.",
       "Computed stably, by subtracting each row's maximum first.",
       {{"logits", "Rank >= 1; the last dimension holds the classes."},
        {"logsoftmax", "Log-probabilities, same shape as `logits`."}}},
      {"BiasAdd", {"T: numbertypes", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"},
       {"value: T", "bias: T"}, {"output: T"},
       "Adds a 1-D `bias` along the channel dimension of `value`.",
       "The channel dimension is the last one for NHWC and the second for NCHW.",
       {{"value", "Rank >= 2."}, {"bias", "One value per channel."},
        {"output", "`value + bias`, same shape as `value`."},
        {"data_format", "Where the channel dimension is: 'NHWC' (last) or 'NCHW' (second)."}}},
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

// The gradient kernels of the activations and losses: *Grad ops taking the gradient of
// an activation's output and the forward op's input (or output), BiasAddGrad, and the
// softmax cross-entropy losses, which return their own gradient as a second output.
// Shape functions: grad_kernel_shape_fns.cc.
#include "grad_kernel_shape_fns.h"
#include "op_table.h"

namespace opgen {

namespace {

constexpr const char* kFloatTypes = "T: {half, bfloat16, float, double}";
constexpr const char* kRealTypes = "T: realnumbertypes";

// gradients, <saved> -> backprops, all of one shape.
OpRegistration ActivationGrad(const char* name, const char* type_attr, const char* saved,
                              const char* summary) {
  const std::string saved_doc = std::string(saved) == "outputs"
                                    ? "The forward op's outputs."
                                    : "The forward op's inputs.";
  return OpRegistration{
      name, {type_attr}, {"gradients: T", std::string(saved) + ": T"}, {"backprops: T"},
      shape_fns::kSameShapes, summary,
      "Applied element by element; both inputs have one shape.",
      {{"gradients", "The gradients of the forward op's outputs."}, {saved, saved_doc},
       {"backprops", "The gradients of the forward op's inputs."}}};
}

}  // namespace

void RegisterNnGradOps(TF_Status* status) {
  RegisterOps({
      ActivationGrad("ReluGrad", kRealTypes, "features",
                     "Relu's gradient: `gradients` where `features > 0`, 0 elsewhere."),
      ActivationGrad("Relu6Grad", kRealTypes, "features",
                     "Relu6's gradient: `gradients` where `0 < features < 6`, 0 elsewhere."),
      ActivationGrad("EluGrad", kFloatTypes, "outputs",
                     "Elu's gradient: `gradients` where `outputs > 0`, "
                     "`gradients * (outputs + 1)` elsewhere."),
      ActivationGrad("SeluGrad", kFloatTypes, "outputs",
                     "Selu's gradient, from Selu's outputs."),
      ActivationGrad("SoftplusGrad", kFloatTypes, "features",
                     "Softplus's gradient: `gradients * sigmoid(features)`."),
      ActivationGrad("SoftsignGrad", kFloatTypes, "features",
                     "Softsign's gradient: `gradients / (1 + |features|)^2`."),
      {"LeakyReluGrad", {"alpha: float = 0.2", "T: {half, bfloat16, float, double} = DT_FLOAT"},
       {"gradients: T", "features: T"}, {"backprops: T"}, shape_fns::kSameShapes,
       "LeakyRelu's gradient: `gradients` where `features > 0`, `alpha * gradients` elsewhere.",
       "Applied element by element; both inputs have one shape.",
       {{"gradients", "The gradients of LeakyRelu's outputs."},
        {"features", "LeakyRelu's inputs."},
        {"backprops", "The gradients of LeakyRelu's inputs."},
        {"alpha", "The slope below zero."}}},
      {"BiasAddGrad", {"T: numbertypes", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"},
       {"out_backprop: T"}, {"output: T"}, shape_fns::kBiasAddGrad,
       "BiasAdd's gradient for the bias: `out_backprop` summed over all but the channel "
       "dimension.",
       "The channel dimension is the last one for NHWC and the second for NCHW.",
       {{"out_backprop", "The gradient of BiasAdd's output, rank >= 2."},
        {"output", "One value per channel."},
        {"data_format", "Where the channel dimension is: 'NHWC' (last) or 'NCHW' (second)."}}},
      {"SoftmaxCrossEntropyWithLogits", {"T: {half, bfloat16, float, double}"},
       {"features: T", "labels: T"}, {"loss: T", "backprop: T"}, shape_fns::kSoftmaxCrossEntropy,
       "Softmax cross-entropy of each row of `features` against a distribution in `labels`.",
       "`features` and `labels` broadcast against each other to one [batch, classes] matrix.",
       {{"features", "The logits, [batch, classes]."},
        {"labels", "One probability distribution per row, [batch, classes]."},
        {"loss", "The loss of each row, [batch]."},
        {"backprop", "The loss's gradient for `features`: `softmax(features) - labels`."}}},
      {"SparseSoftmaxCrossEntropyWithLogits",
       {"T: {half, bfloat16, float, double}", "Tlabels: {int32, int64} = DT_INT64"},
       {"features: T", "labels: Tlabels"}, {"loss: T", "backprop: T"},
       shape_fns::kSparseSoftmaxCrossEntropy,
       "Softmax cross-entropy of each row of `features` against one class index per row.",
       "A label outside [0, classes) is an error on the CPU; GPU kernels give NaN for its "
       "row, as TensorFlow's do.",
       {{"features", "The logits, [batch, classes]."},
        {"labels", "The class of each row, [batch], in [0, classes)."},
        {"loss", "The loss of each row, [batch]."},
        {"backprop", "The loss's gradient for `features`: `softmax(features) - one_hot(labels)`."}}},
  }, status);
}

}  // namespace opgen

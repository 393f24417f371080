// Optimizer updates of resource variables, with TensorFlow's OpDefs
// (ResourceApplyGradientDescent, ResourceApplyMomentum, ...): each op reads a variable and
// its slots (accumulators) through their handles and writes all of them in one step.
// They have a resource arg, so they are stateful and constant folding leaves them alone.
#include "op_table.h"

namespace opgen {

namespace {

constexpr const char* kT = "T: numbertype";
constexpr const char* kUseLocking = "use_locking: bool = false";
constexpr const char* kUseNesterov = "use_nesterov: bool = false";
constexpr const char* kLockingDoc =
    "TensorFlow's switch between locked and lock-free (racy) updates; opgen always locks "
    "the variables for the step.";

OpRegistration TrainingOp(const char* name, std::vector<std::string> attrs,
                          std::vector<std::string> inputs, const char* summary,
                          const char* description,
                          std::vector<std::pair<std::string, std::string>> arg_docs) {
  arg_docs.emplace_back("T", "The dtype of the variables and operands.");
  arg_docs.emplace_back("use_locking", kLockingDoc);
  return OpRegistration{name, std::move(attrs), std::move(inputs), {}, shape_fns::kNoOutputs,
                        summary, description, std::move(arg_docs)};
}

}  // namespace

void RegisterTrainingOps(TF_Status* status) {
  RegisterOps({
      TrainingOp("ResourceApplyAdagrad", {kT, kUseLocking, "update_slots: bool = true"},
                 {"var: resource", "accum: resource", "lr: T", "grad: T"},
                 "Updates a variable by the Adagrad algorithm.",
                 "accum = accum + grad^2 (with `update_slots`); "
                 "var = var - lr * grad / sqrt(accum).",
                 {{"var", "The variable to update."},
                  {"accum", "The accumulator slot, same dtype and shape as `var`."},
                  {"lr", "The learning rate (a scalar)."},
                  {"grad", "The gradient, the shape of `var`."},
                  {"update_slots", "Add grad^2 to `accum` (false: leave it)."}}),
      TrainingOp("ResourceApplyAdam", {kT, kUseLocking, kUseNesterov},
                 {"var: resource", "m: resource", "v: resource", "beta1_power: T",
                  "beta2_power: T", "lr: T", "beta1: T", "beta2: T", "epsilon: T", "grad: T"},
                 "Updates a variable by the Adam algorithm.",
                 "lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); "
                 "m = m + (grad - m) * (1 - beta1); v = v + (grad^2 - v) * (1 - beta2); "
                 "var = var - lr_t * m / (sqrt(v) + epsilon), or with `use_nesterov` "
                 "var = var - lr_t * (grad * (1 - beta1) + beta1 * m) / (sqrt(v) + epsilon).",
                 {{"var", "The variable to update."},
                  {"m", "The first-moment slot, same dtype and shape as `var`."},
                  {"v", "The second-moment slot, same dtype and shape as `var`."},
                  {"beta1_power", "beta1 to the power of the step number (a scalar)."},
                  {"beta2_power", "beta2 to the power of the step number (a scalar)."},
                  {"lr", "The learning rate (a scalar)."},
                  {"beta1", "The decay of the first moment (a scalar)."},
                  {"beta2", "The decay of the second moment (a scalar)."},
                  {"epsilon", "Added to sqrt(v) in the denominator (a scalar)."},
                  {"grad", "The gradient, the shape of `var`."},
                  {"use_nesterov", "Use the Nesterov form of the update."}}),
      TrainingOp("ResourceApplyGradientDescent", {kT, kUseLocking},
                 {"var: resource", "alpha: T", "delta: T"},
                 "Subtracts `alpha * delta` from a variable.", "var = var - alpha * delta.",
                 {{"var", "The variable to update."},
                  {"alpha", "The learning rate (a scalar)."},
                  {"delta", "The change, the shape of `var`."}}),
      TrainingOp("ResourceApplyKerasMomentum", {kT, kUseLocking, kUseNesterov},
                 {"var: resource", "accum: resource", "lr: T", "grad: T", "momentum: T"},
                 "Updates a variable by momentum, as Keras's SGD does.",
                 "accum = accum * momentum - lr * grad; var = var + accum, or with "
                 "`use_nesterov` var = var + accum * momentum - lr * grad.",
                 {{"var", "The variable to update."},
                  {"accum", "The accumulator slot, same dtype and shape as `var`."},
                  {"lr", "The learning rate (a scalar)."},
                  {"grad", "The gradient, the shape of `var`."},
                  {"momentum", "The momentum (a scalar)."},
                  {"use_nesterov", "Use the Nesterov form of the update."}}),
      TrainingOp("ResourceApplyMomentum", {kT, kUseLocking, kUseNesterov},
                 {"var: resource", "accum: resource", "lr: T", "grad: T", "momentum: T"},
                 "Updates a variable by momentum.",
                 "accum = accum * momentum + grad; var = var - lr * accum, or with "
                 "`use_nesterov` var = var - lr * grad - lr * momentum * accum.",
                 {{"var", "The variable to update."},
                  {"accum", "The accumulator slot, same dtype and shape as `var`."},
                  {"lr", "The learning rate (a scalar)."},
                  {"grad", "The gradient, the shape of `var`."},
                  {"momentum", "The momentum (a scalar)."},
                  {"use_nesterov", "Use the Nesterov form of the update."}}),
      TrainingOp("ResourceApplyRMSProp", {kT, kUseLocking},
                 {"var: resource", "ms: resource", "mom: resource", "lr: T", "rho: T",
                  "momentum: T", "epsilon: T", "grad: T"},
                 "Updates a variable by the RMSProp algorithm.",
                 "ms = ms + (grad^2 - ms) * (1 - rho); "
                 "mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var = var - mom.",
                 {{"var", "The variable to update."},
                  {"ms", "The mean-square slot, same dtype and shape as `var`."},
                  {"mom", "The momentum slot, same dtype and shape as `var`."},
                  {"lr", "The learning rate (a scalar)."},
                  {"rho", "The decay of the mean square (a scalar)."},
                  {"momentum", "The momentum (a scalar)."},
                  {"epsilon", "Added to ms under the root (a scalar)."},
                  {"grad", "The gradient, the shape of `var`."}}),
  }, status);
}

}  // namespace opgen

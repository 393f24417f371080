// The process-wide registry of OpDefs, filled by TF_RegisterOpDefinition.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core_types.h"
#include "op_def.h"
#include "tensorflow/c/ops.h"

namespace opgen {

// An op's shape function, as TF_OpDefinitionBuilderSetShapeInferenceFunction takes it.
using ShapeInferenceFn = void (*)(TF_ShapeInferenceContext* ctx, TF_Status* status);

class OpRegistry {
 public:
  static OpRegistry& Global();

  // Adds `op` with its shape function (null: output shapes unknown); TF_ALREADY_EXISTS
  // when the name is taken.
  void Register(std::unique_ptr<OpDef> op, ShapeInferenceFn shape_fn, TF_Status* status);
  // The op named `name`, or nullptr. OpDefs are never removed, so the pointer stays valid.
  const OpDef* Find(const std::string& name) const;
  // The shape function registered with op `name`; null when it has none or is unknown.
  ShapeInferenceFn FindShapeFn(const std::string& name) const;
  // Every op, sorted by name.
  std::vector<const OpDef*> All() const;

 private:
  OpRegistry() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "Op type not registered 'Op' (node 'node')" (TensorFlow's words) with what a user can
// do about it: which ops this runtime has, and how an op library adds one. `node` may be
// empty (eager ops, OpDef lookups).
std::string OpNotRegisteredMessage(const std::string& op, const std::string& node);

// What op registrations on one thread did while a log was installed there: TF_LoadLibrary
// installs one around dlopen to learn which ops a plugin registered and which failed.
struct RegistrationLog {
  std::vector<std::string> registered;  // op names
  std::vector<std::string> failures;    // error messages
};
// Installs `log` for the calling thread (nullptr: none); returns the previous one.
RegistrationLog* SetThreadRegistrationLog(RegistrationLog* log);

// Registers the built-in ops and CPU kernels once, on first use, and reports the
// outcome (kept for later calls). Safe to call from registration code itself.
bool EnsureRuntimeInitialized(TF_Status* status);

}  // namespace opgen

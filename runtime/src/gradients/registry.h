// The gradient registry: op type -> gradient function. Two tables: the runtime's
// built-in functions (registered once, on first use, by builtin_gradients.cc) and the
// ones registered through opgen/gradients.h (plugins, language bindings), looked up
// first. See opgen/gradients.h for the rules callers see.
#pragma once

#include <string>

#include "opgen/gradients.h"

namespace opgen {
namespace gradients {

struct GradientEntry {
  OPGEN_GradientFunction fn = nullptr;  // nullptr with not_differentiable: stops the pass
  void* user_data = nullptr;
  bool not_differentiable = false;
};

// Built-in registration, from builtin_gradients.cc during start-up. Registering an op
// twice there is a start-up error (two families claiming one op), reported by the
// first lookup.
void RegisterBuiltinGradient(const char* op_type, OPGEN_GradientFunction fn, void* user_data);
void RegisterBuiltinNotDifferentiable(const char* op_type);

// The entry for `op_type` (registered first, then built-in). false when there is none,
// or when the built-in table failed to start (then `status` says why).
bool LookupGradient(const std::string& op_type, GradientEntry* entry, TF_Status* status);

// Runs the built-in registration once; false with `status` set when it failed.
bool EnsureBuiltinGradients(TF_Status* status);

}  // namespace gradients
}  // namespace opgen

// Every built-in gradient family registers from here (builtin_gradients.cc).
void opgen_register_builtin_gradients();

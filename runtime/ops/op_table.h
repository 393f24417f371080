// A table form of op definitions: one entry per op, registered through the public
// op-definition builder exactly as a plugin would register it.
#pragma once

#include <initializer_list>
#include <utility>

#include "tensorflow/c/tf_status.h"

namespace opgen {

struct OpRegistration {
  const char* name;
  std::initializer_list<const char*> attrs;    // in OpDef order
  std::initializer_list<const char*> inputs;
  std::initializer_list<const char*> outputs;
  const char* summary;
  const char* description;
  // name -> description, for inputs, outputs and attrs
  std::initializer_list<std::pair<const char*, const char*>> arg_docs;
  bool is_commutative = false;
  bool is_aggregate = false;
};

// Registers each op in turn; stops at the first failure, leaving it in `status`.
void RegisterOps(std::initializer_list<OpRegistration> ops, TF_Status* status);

// The op families, one per file.
void RegisterArrayOps(TF_Status* status);
void RegisterMathOps(TF_Status* status);
void RegisterNnOps(TF_Status* status);

// TensorFlow's allowed types of AddV2/Sub/Mul/RealDiv differ only in order; they are
// spelled out per op so each OpDef equals TensorFlow's.

}  // namespace opgen

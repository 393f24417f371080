// TensorFlow's FunctionDef and FunctionDefLibrary as the runtime keeps them: parsed,
// owned by a graph (or an eager context), written back into GraphDefs, and instantiated
// by the call kernels (function_call.h). Field numbers are TensorFlow's.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core_types.h"
#include "op_def.h"
#include "wire_format.h"

namespace opgen {

struct FunctionDefProto {
  OpDef signature;                              // 1
  std::vector<NodeDefProto> node_def;           // 3: inputs as "node:out_arg:index" or "arg"
  std::map<std::string, std::string> ret;       // 4: output arg -> tensor
  AttrMap attr;                                 // 5
  std::map<std::string, std::string> control_ret;  // 6: control output -> node
  // 7 (arg_attr) and 8 (resource_arg_unique_id): map entries kept as their bytes.
  std::vector<std::string> arg_attr_entries;
  std::vector<std::string> resource_arg_entries;
};

std::string SerializeFunctionDef(const FunctionDefProto& function);
bool ParseFunctionDef(std::string_view bytes, FunctionDefProto* out, std::string* error);

// A graph's functions by name, and the gradient each names (GradientDef). Functions are
// shared, immutable once added: a kernel that calls one keeps a snapshot of the library.
class FunctionLibrary {
 public:
  using FunctionPtr = std::shared_ptr<const FunctionDefProto>;

  const FunctionDefProto* Find(const std::string& name) const;
  bool empty() const { return functions_.empty(); }
  size_t size() const { return functions_.size(); }
  const std::map<std::string, FunctionPtr>& functions() const { return functions_; }
  const std::map<std::string, std::string>& gradients() const { return gradients_; }

  // Adds `function` (a twin of one already there is a no-op). TF_INVALID_ARGUMENT when
  // its name is an op's or a different function's.
  bool Add(FunctionPtr function, TF_Status* status);
  // Records `gradient` as the gradient function of `function`; a different one already
  // recorded is an error.
  bool AddGradient(const std::string& function, const std::string& gradient, TF_Status* status);
  // Adds every function and gradient of `other`, all or nothing.
  bool Merge(const FunctionLibrary& other, TF_Status* status);
  // Drops the function `name` (and its gradient entry); false when there is none.
  bool Remove(const std::string& name);
  // A RegisteredGradient message (field 3), kept as its bytes.
  void AddRegisteredGradient(std::string bytes) { registered_gradients_.push_back(std::move(bytes)); }
  // FunctionDefLibrary bytes: functions and gradients in name order.
  std::string Serialize() const;

 private:
  std::map<std::string, FunctionPtr> functions_;
  std::map<std::string, std::string> gradients_;
  std::vector<std::string> registered_gradients_;  // field 3, kept as bytes
};

// Reads FunctionDefLibrary bytes into `out` (checked as Add/AddGradient check them).
// Malformed bytes: false with `*error`; a name clash: false with `status` set.
bool ParseFunctionLibrary(std::string_view bytes, FunctionLibrary* out, std::string* error,
                          TF_Status* status);

}  // namespace opgen

// The C API's TF_Function: one FunctionDef, shared with the libraries it was copied into
// (replaced, never changed, once shared).
struct TF_Function {
  std::shared_ptr<const opgen::FunctionDefProto> def;
};

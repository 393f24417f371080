// Polymorphic functions made concrete. A FunctionDef whose signature has attrs (`T: type`,
// `N: int`, `Tl: list(type)`) is a family of functions; one call picks a member by binding
// those attrs: from the caller (a function node's attrs, or the NameAttrList.attr of a func
// attr such as PartitionedCall's `f`), then from the types of the call's arguments, then
// from the attrs' defaults. The bound member is an ordinary FunctionDef: every argument of
// one fixed type, every `$T` placeholder in its nodes' attrs replaced by its value.
#pragma once

#include <string>
#include <vector>

#include "function_library.h"
#include "op_def.h"

namespace opgen {

// Whether `function` needs a binding (its signature declares attrs).
inline bool IsPolymorphic(const FunctionDefProto& function) {
  return !function.signature.attr.empty();
}

// Binds `function`'s signature attrs for a call with arguments of `input_types`: the values
// `given` names (other names are ignored), what the argument types imply, then defaults.
// INVALID_ARGUMENT naming the attr when one has no value, a value of the wrong kind or
// outside its allowed values, or a value the arguments contradict.
bool BindFunctionAttrs(const FunctionDefProto& function, const AttrMap& given,
                       const std::vector<TF_DataType>& input_types, AttrMap* binding,
                       TF_Status* status);

// A string that identifies `binding` (equal bindings give equal keys).
std::string BindingKey(const AttrMap& binding);

// `function` with `binding` applied: each argument and output of a fixed type (a list of n
// becomes n of them, named name_0 .. name_{n-1}, as TensorFlow names its instantiated
// args), placeholders in node attrs (nested func attrs too) replaced by their values, node
// inputs and rets that name a whole list ("arg", "node:out_arg") expanded element by
// element, and no signature attrs left. `library` gives the OpDefs of the body's function
// nodes. With an empty binding it also normalizes a monomorphic function's list references.
bool InstantiateFunctionDef(const FunctionDefProto& function, const AttrMap& binding,
                            const FunctionLibrary& library, FunctionDefProto* out,
                            TF_Status* status);

// Tensors per output arg of `def` for a node with `attrs` (their defaults filled in).
std::vector<int> OutputArgLengths(const OpDef& def, const AttrMap& attrs);

}  // namespace opgen

// Completing and checking the attrs of one op instance (eager op now, graph node
// later) against its OpDef: inference from input dtypes, defaults, kinds, allowed
// values, minimums, and the output dtypes that follow.
#pragma once

#include <string>
#include <vector>

#include "core_types.h"
#include "op_def.h"

namespace opgen {

// The most tensors one list arg (a number_attr's value) may hold.
constexpr int64_t kMaxListArgLength = int64_t{1} << 24;

// The dtypes of the tensors given for one input arg (one entry for a single input).
using InputDtypes = std::vector<std::vector<TF_DataType>>;

// Infers type, list(type) and length attrs from `inputs` (one entry per input arg),
// checks inputs agree with attrs already set, fills defaults, and checks every attr.
// Errors are TF_INVALID_ARGUMENT naming the op and the attr or input.
void CompleteAttrs(const OpDef& op, const InputDtypes& inputs, AttrMap* attrs, TF_Status* status);

// The dtype of every output tensor, flattened over output args. Attrs must be complete.
std::vector<TF_DataType> OutputDtypes(const OpDef& op, const AttrMap& attrs);

}  // namespace opgen

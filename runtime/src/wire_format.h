// The protobuf wire format for the few messages the runtime exchanges, written by hand
// because no C++ protobuf runtime installs from the package index. Field numbers are
// TensorFlow's; tests round-trip the bytes through the Python protobuf library.
#pragma once

#include <string>
#include <vector>

#include "op_def.h"

namespace opgen {

std::string SerializeAttrValue(const AttrValue& value);
std::string SerializeOpDef(const OpDef& op);
std::string SerializeOpList(const std::vector<const OpDef*>& ops);

}  // namespace opgen

// The validity rules TensorFlow applies to shapes read from callers and protos, in one
// place: every reader of a TensorShapeProto, every shape setter and the TensorProto
// reader check through these, so that a malformed shape is an error where it enters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "op_def.h"

namespace opgen {

// TensorFlow's largest rank.
constexpr int kMaxShapeRank = 254;

// A partial shape (an attr value, a shape given to the graph): at most kMaxShapeRank
// dims, each -1 (unknown) or more, and none when the rank is unknown. False with the
// reason in `*error` (which may be null).
bool CheckPartialShape(const Shape& shape, std::string* error);
// The same of a shape given as (dims, num_dims), num_dims < 0 meaning an unknown rank,
// as the C API's shape setters take it; `dims` may be NULL only for num_dims <= 0.
bool CheckPartialDims(const int64_t* dims, int num_dims, std::string* error);

// A tensor's shape (a TensorProto's): at most kMaxShapeRank dims, every dim 0 or more,
// and an element count that fits in int64. `what` starts the message. (A TensorProto's
// unknown_rank flag is ignored, as TensorFlow ignores it: the dims are the shape.)
bool CheckTensorShape(const std::string& what, const std::vector<int64_t>& dims,
                      std::string* error);

}  // namespace opgen

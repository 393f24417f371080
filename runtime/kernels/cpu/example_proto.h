// Reads serialized tf.Example messages (example.proto / feature.proto, TensorFlow's field
// numbers) with the runtime's own wire cursor (../../src/wire_reader.h): no generated
// protobuf code. Values are views into the input bytes or copies of the numbers.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace opgen {
namespace example {

// Which list of Feature's `kind` oneof is set.
enum class Kind { kNone, kBytes, kFloat, kInt64 };

struct Feature {
  Kind kind = Kind::kNone;
  std::vector<std::string_view> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;

  size_t size() const {
    return kind == Kind::kBytes ? bytes.size() : kind == Kind::kFloat ? floats.size() : ints.size();
  }
};

// Features.feature: key -> Feature, the last entry winning for a repeated key as in a
// protobuf map. Keys and byte values view the serialized input, which must outlive it.
using FeatureMap = std::unordered_map<std::string_view, Feature>;

// The keys a parse decodes; the lists of other features are checked only as far as
// their framing (as TensorFlow's parser skips them).
using KeySet = std::unordered_set<std::string_view>;

// Parses one serialized Example into `features` (cleared first): the features of `wanted`. Repeated scalars are read
// packed or unpacked; repeated messages merge as protobuf merges them (a oneof member set
// again replaces another member, the same member's lists append). Unknown fields are
// skipped. False for malformed bytes: truncation, a bad varint or tag, or a known field
// below Example with a wire type its declaration cannot have (TensorFlow refuses those
// too; Example.features of another wire type is skipped, as both TensorFlow and protobuf
// do). TensorFlow reads a truncated top-level field as an empty one; here it is refused,
// as protobuf refuses it.
bool ParseExample(std::string_view serialized, const KeySet& wanted, FeatureMap* features);

}  // namespace example
}  // namespace opgen

// Reads serialized tf.Example messages (example.proto / feature.proto, TensorFlow's field
// numbers) with the runtime's own wire cursor (../../src/wire_reader.h): no generated
// protobuf code. Values are views into the input bytes or copies of the numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
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

// std::hash of the key, as a hasher of its own: libstdc++ scans a table of up to 20 keys
// linearly (a memcmp each) for std::hash<string_view>, which it counts as slow, and a
// batch looks keys up once per example and key.
struct KeyHash {
  size_t operator()(std::string_view key) const noexcept {
    return std::hash<std::string_view>{}(key);
  }
};

// Features.feature: key -> Feature, the last entry winning for a repeated key as in a
// protobuf map. Keys and byte values view the serialized input, which must outlive it.
using FeatureMap = std::unordered_map<std::string_view, Feature, KeyHash>;

// The keys a parse decodes; the lists of other features are checked only as far as
// their framing (as TensorFlow's parser skips them).
using KeySet = std::unordered_set<std::string_view, KeyHash>;

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

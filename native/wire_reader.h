// A cursor over protobuf wire-format bytes: varints, tags, length-delimited fields,
// fixed32, and skipping what the reader does not want (unknown groups included), as
// the protobuf library reads them. Bounds-checked; any malformation clears `ok`.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace opgen_native {

using Bytes = std::string_view;

enum WireType : uint32_t {
  kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5
};

// A cursor over one message's bytes. Any malformation clears `ok`; callers then give
// the input to the Python path, which reports it.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  explicit Reader(Bytes bytes)
      : p(reinterpret_cast<const uint8_t*>(bytes.data())), end(p + bytes.size()) {}

  bool more() const { return ok && p < end; }

  bool varint(uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 70 && p < end; shift += 7) {
      uint8_t byte = *p++;
      result |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        *value = result;
        return true;
      }
    }
    return ok = false;
  }

  // The next field's number and wire type.
  bool tag(uint32_t* number, uint32_t* wire_type) {
    uint64_t key;
    if (!varint(&key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff) return ok = false;
    *number = uint32_t(key >> 3);
    *wire_type = uint32_t(key & 7);
    return true;
  }

  bool length_delimited(Bytes* out) {
    uint64_t length;
    if (!varint(&length) || length > uint64_t(end - p)) return ok = false;
    *out = Bytes(reinterpret_cast<const char*>(p), size_t(length));
    p += length;
    return true;
  }

  bool fixed32(uint32_t* value) {
    if (end - p < 4) return ok = false;
    std::memcpy(value, p, 4);
    p += 4;
    return true;
  }

  // Skips a field this file does not read. A known field number with an unexpected
  // wire type is skipped too: protobuf keeps it as an unknown field.
  bool skip(uint32_t wire_type, uint32_t number = 0, int depth = 0) {
    uint64_t ignored;
    Bytes ignored_bytes;
    switch (wire_type) {
      case kVarint: return varint(&ignored);
      case kFixed64:
        if (end - p < 8) return ok = false;
        p += 8;
        return true;
      case kLengthDelimited: return length_delimited(&ignored_bytes);
      case kFixed32:
        if (end - p < 4) return ok = false;
        p += 4;
        return true;
      case kStartGroup: {   // an unknown group: fields up to its end-group tag
        if (depth >= 64) return ok = false;
        uint32_t inner_number, inner_type;
        while (tag(&inner_number, &inner_type)) {
          if (inner_type == kEndGroup) return inner_number == number || (ok = false);
          if (!skip(inner_type, inner_number, depth + 1)) return false;
        }
        return ok = false;
      }
      default: return ok = false;   // a stray end-group tag, or no wire type at all
    }
  }
};

// Repeated scalars arrive packed (one length-delimited field) or one per field; both
// are read, as protobuf does. `Value` is uint64_t (varints) or uint32_t (fixed32).
template <typename Value, typename Add>
bool repeated(Reader& r, uint32_t wire_type, Add add) {
  constexpr uint32_t element_type = sizeof(Value) == 8 ? kVarint : kFixed32;
  auto read_one = [](Reader& from, Value* value) {
    if constexpr (element_type == kVarint) {
      return from.varint(value);
    } else {
      return from.fixed32(value);
    }
  };
  Value value;
  if (wire_type == element_type) {
    if (!read_one(r, &value)) return false;
    add(value);
    return true;
  }
  Bytes packed;
  if (!r.length_delimited(&packed)) return false;
  Reader inner(packed);
  while (inner.more()) {
    if (!read_one(inner, &value)) return r.ok = false;
    add(value);
  }
  return true;
}

}  // namespace opgen_native

// The protobuf wire-format cursor, header-only: the runtime's readers (wire_format.cc)
// read with it. Varints,
// tags, length-delimited fields (as views of the input, no copies), fixed32/64, and
// skipping what a reader does not take, unknown groups included, as the protobuf
// library reads them. Bounds-checked; any malformation clears `ok`.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace opgen::wire {

using Bytes = std::string_view;

enum WireType : uint32_t {
  kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5
};

// Groups nested deeper than this are refused (protobuf bounds its recursion too).
constexpr int kMaxGroupDepth = 64;

// A cursor over one message's bytes.
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

  // The next field's number and wire type. Field number 0 and numbers past 2^29 - 1 are
  // malformed.
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

  bool fixed32(uint32_t* value) { return fixed(value, 4); }
  bool fixed64(uint64_t* value) { return fixed(value, 8); }

  // Skips one field of `wire_type` whose tag was just read. A known field number with an
  // unexpected wire type is skipped too: protobuf keeps it as an unknown field. A group
  // runs to the end-group tag of its own number.
  bool skip(uint32_t wire_type, uint32_t number = 0, int depth = 0) {
    uint64_t ignored;
    Bytes ignored_bytes;
    switch (wire_type) {
      case kVarint: return varint(&ignored);
      case kFixed64: return fixed64(&ignored);
      case kLengthDelimited: return length_delimited(&ignored_bytes);
      case kFixed32: {
        uint32_t ignored32;
        return fixed32(&ignored32);
      }
      case kStartGroup: {
        if (depth >= kMaxGroupDepth) return ok = false;
        uint32_t inner_number, inner_type;
        while (tag(&inner_number, &inner_type)) {
          if (inner_type == kEndGroup) return inner_number == number || (ok = false);
          if (!skip(inner_type, inner_number, depth + 1)) return false;
        }
        return ok = false;
      }
      default: return ok = false;   // a stray end-group tag, or wire type 6 or 7
    }
  }

 private:
  bool fixed(void* value, size_t size) {
    if (size_t(end - p) < size) return ok = false;
    std::memcpy(value, p, size);   // little-endian on every target opgen builds for
    p += size;
    return true;
  }
};

// Repeated scalars arrive packed (one length-delimited field) or one per field; both are
// read, as protobuf does. `element` is the element's own wire type: kVarint and kFixed64
// give uint64_t values, kFixed32 uint32_t. `wire_type` must be `element` or
// kLengthDelimited; callers skip any other, as protobuf keeps it as an unknown field.
template <WireType element, typename Add>
bool repeated(Reader& r, uint32_t wire_type, Add add) {
  static_assert(element == kVarint || element == kFixed32 || element == kFixed64);
  using Value = std::conditional_t<element == kFixed32, uint32_t, uint64_t>;
  auto read_one = [](Reader& from, Value* value) {
    if constexpr (element == kVarint) {
      return from.varint(value);
    } else if constexpr (element == kFixed32) {
      return from.fixed32(value);
    } else {
      return from.fixed64(value);
    }
  };
  Value value;
  if (wire_type == element) {
    if (!read_one(r, &value)) return false;
    add(value);
    return true;
  }
  Bytes packed;
  if (wire_type != kLengthDelimited || !r.length_delimited(&packed)) return r.ok = false;
  Reader inner(packed);
  while (inner.more()) {
    if (!read_one(inner, &value)) return r.ok = false;
    add(value);
  }
  return true;
}

// Whether a field of wire type `wire_type` is one of `accepted`, a mask of wire types
// (1 << type): what a reader asks before taking a known field number.
constexpr bool Accepts(unsigned accepted, uint32_t wire_type) {
  return wire_type < 8 && (accepted >> wire_type) & 1u;
}

}  // namespace opgen::wire

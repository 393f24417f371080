// The protobuf wire-format writer, header-only, the counterpart of wire_reader.h: varints,
// tags, length-delimited and fixed-width fields, appended in the order the caller gives
// (the protobuf library writes fields in field-number order; callers keep to it).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "wire_reader.h"

namespace opgen::wire {

class Writer {
 public:
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  void Tag(int field, WireType type) { Varint((static_cast<uint64_t>(field) << 3) | type); }
  void VarintField(int field, uint64_t v) { Tag(field, kVarint); Varint(v); }
  // proto3 scalar fields are omitted when they hold the default value.
  void OptionalVarint(int field, uint64_t v) { if (v != 0) VarintField(field, v); }
  void OptionalBool(int field, bool v) { if (v) VarintField(field, 1); }
  void Bytes(int field, std::string_view bytes) {
    Tag(field, kLengthDelimited);
    Varint(bytes.size());
    out_ += bytes;
  }
  void OptionalString(int field, std::string_view s) { if (!s.empty()) Bytes(field, s); }
  void Fixed32Field(int field, float f) {
    Tag(field, kFixed32);
    Fixed32Raw(f);
  }
  void Fixed32Raw(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    Raw(bits, 4);
  }
  void Fixed64Field(int field, double d) {
    Tag(field, kFixed64);
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    Raw(bits, 8);
  }
  std::string& str() { return out_; }

 private:
  void Raw(uint64_t bits, int bytes) {  // little-endian, as the wire format stores them
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((bits >> (8 * i)) & 0xff);
  }
  std::string out_;
};

}  // namespace opgen::wire

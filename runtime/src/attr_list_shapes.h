// The shapes of a list(shape) attr, read from its serialized AttrValue (TensorFlow's
// field numbers: AttrValue.list = 1, ListValue.shape = 7, TensorShapeProto.dim = 2 with
// Dim.size = 1, TensorShapeProto.unknown_rank = 3): the C API has getters for one shape
// only, and kernels and shape functions both need the list. Header-only, over
// wire_reader.h.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "wire_reader.h"

namespace opgen {

struct ListShape {
  bool unknown_rank = false;
  std::vector<int64_t> dims;   // -1: unknown size
};

namespace attr_shapes_internal {

inline bool ParseShape(wire::Bytes bytes, ListShape* shape) {
  wire::Reader r(bytes);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number == 2 && type == wire::kLengthDelimited) {
      wire::Bytes dim;
      if (!r.length_delimited(&dim)) return false;
      wire::Reader d(dim);
      int64_t size = 0;
      while (d.more()) {
        uint32_t n, t;
        if (!d.tag(&n, &t)) return false;
        uint64_t v;
        if (n == 1 && t == wire::kVarint) {
          if (!d.varint(&v)) return false;
          size = static_cast<int64_t>(v);
        } else if (!d.skip(t, n)) {
          return false;
        }
      }
      shape->dims.push_back(size);
    } else if (number == 3 && type == wire::kVarint) {
      uint64_t v;
      if (!r.varint(&v)) return false;
      shape->unknown_rank = v != 0;
    } else if (!r.skip(type, number)) {
      return false;
    }
  }
  return r.ok;
}

}  // namespace attr_shapes_internal

// False when the bytes are not a well-formed AttrValue.
inline bool ListShapesFromAttrValue(std::string_view attr_value, std::vector<ListShape>* out) {
  out->clear();
  wire::Reader r(attr_value);
  uint32_t number, type;
  while (r.more()) {
    if (!r.tag(&number, &type)) return false;
    if (number == 1 && type == wire::kLengthDelimited) {
      wire::Bytes list;
      if (!r.length_delimited(&list)) return false;
      wire::Reader l(list);
      while (l.more()) {
        uint32_t n, t;
        if (!l.tag(&n, &t)) return false;
        if (n == 7 && t == wire::kLengthDelimited) {
          wire::Bytes shape_bytes;
          ListShape shape;
          if (!l.length_delimited(&shape_bytes) ||
              !attr_shapes_internal::ParseShape(shape_bytes, &shape))
            return false;
          if (shape.unknown_rank) shape.dims.clear();
          out->push_back(std::move(shape));
        } else if (!l.skip(t, n)) {
          return false;
        }
      }
      if (!l.ok) return false;
    } else if (!r.skip(type, number)) {
      return false;
    }
  }
  return r.ok;
}

}  // namespace opgen

// The shapes of a list(shape) attr, read from its serialized AttrValue (TensorFlow's
// field numbers: AttrValue.list = 1, ListValue.shape = 7, TensorShapeProto.dim = 2 with
// Dim.size = 1, TensorShapeProto.unknown_rank = 3): the C API has getters for one shape
// only, and kernels and shape functions both need the list. Header-only, over
// shape_proto_wire.h.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "shape_proto_wire.h"

namespace opgen {

struct ListShape {
  bool unknown_rank = false;
  std::vector<int64_t> dims;   // -1: unknown size
};


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
              !wire::ReadShapeProto(shape_bytes, &shape.unknown_rank, &shape.dims))
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

// TensorShapeProto on the wire (dim = 2, each a Dim with size = 1 and a name = 2 that is
// not kept; unknown_rank = 3), read and written the one way every reader of the runtime
// needs: attr values, TensorProtos, ResourceHandleProtos and list(shape) attrs in kernels.
// Header-only over wire_reader.h / wire_writer.h, so kernels can include it. The reader
// judges nothing but the bytes: callers check the dims and the rank for their use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wire_reader.h"
#include "wire_writer.h"

namespace opgen::wire {

// False when the bytes are not a well-formed TensorShapeProto. A field with an unexpected
// wire type is skipped, as the protobuf library skips it.
inline bool ReadShapeProto(Bytes bytes, bool* unknown_rank, std::vector<int64_t>* dims) {
  *unknown_rank = false;
  dims->clear();
  Reader r(bytes);
  while (r.more()) {
    uint32_t number, type;
    if (!r.tag(&number, &type)) return false;
    if (number == 2 && type == kLengthDelimited) {
      Bytes dim;
      if (!r.length_delimited(&dim)) return false;
      Reader d(dim);
      int64_t size = 0;
      while (d.more()) {
        uint32_t n, t;
        if (!d.tag(&n, &t)) return false;
        uint64_t v;
        if (n == 1 && t == kVarint) {
          if (!d.varint(&v)) return false;
          size = static_cast<int64_t>(v);
        } else if (!d.skip(t, n)) {
          return false;
        }
      }
      if (!d.ok) return false;
      dims->push_back(size);
    } else if (number == 3 && type == kVarint) {
      uint64_t v;
      if (!r.varint(&v)) return false;
      *unknown_rank = v != 0;
    } else if (!r.skip(type, number)) {
      return false;
    }
  }
  return r.ok;
}

// As the protobuf library writes it: no dims when the rank is unknown, zero sizes omitted.
inline std::string WriteShapeProto(bool unknown_rank, const std::vector<int64_t>& dims) {
  Writer w;
  if (!unknown_rank) {
    for (int64_t d : dims) {
      Writer dim;
      dim.OptionalVarint(1, static_cast<uint64_t>(d));
      w.Bytes(2, dim.str());
    }
  }
  w.OptionalBool(3, unknown_rank);
  return w.str();
}

}  // namespace opgen::wire

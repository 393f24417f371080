// ResourceHandleProto bytes, written in field-number order as the protobuf library
// writes them (wire_writer.h) and read with wire_reader.h's bounds-checked cursor.
#include "resource_handle.h"

#include <cstring>

#include "tensorflow/c/tf_tensor.h"
#include "shape_proto_wire.h"

namespace opgen {

const char kVariableTypeName[] = "tensorflow::Var";

uint64_t VariableTypeHash() {
  // Any fixed value serves: handles are matched by container and name; the hash only
  // tells resource types apart, and opgen has one (FNV-1a of the type name).
  uint64_t h = 1469598103934665603ull;
  for (const char* p = kVariableTypeName; *p; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 1099511628211ull;
  return h;
}

std::string SerializeResourceHandle(const ResourceHandle& h) {
  wire::Writer w;
  w.OptionalString(1, h.device);
  w.OptionalString(2, h.container);
  w.OptionalString(3, h.name);
  w.OptionalVarint(4, h.hash_code);
  w.OptionalString(5, h.maybe_type_name);
  for (const auto& [dtype, shape] : h.dtypes_and_shapes) {
    wire::Writer entry;
    entry.OptionalVarint(1, static_cast<uint64_t>(dtype));
    entry.Bytes(2, wire::WriteShapeProto(shape.unknown_rank, shape.dims));
    w.Bytes(6, entry.str());
  }
  return w.str();
}

bool ParseResourceHandle(std::string_view bytes, ResourceHandle* out, std::string* error) {
  *out = ResourceHandle();
  wire::Reader r(bytes);
  auto fail = [error](const char* why) {
    if (error) *error = std::string("malformed ResourceHandleProto: ") + why;
    return false;
  };
  while (r.more()) {
    uint32_t number, type;
    if (!r.tag(&number, &type)) return fail("bad tag");
    std::string* text = number == 1 ? &out->device : number == 2 ? &out->container
                      : number == 3 ? &out->name : number == 5 ? &out->maybe_type_name : nullptr;
    if (text != nullptr && type == wire::kLengthDelimited) {
      wire::Bytes b;
      if (!r.length_delimited(&b)) return fail("truncated string");
      text->assign(b.data(), b.size());
    } else if (number == 4 && type == wire::kVarint) {
      if (!r.varint(&out->hash_code)) return fail("bad hash_code");
    } else if (number == 6 && type == wire::kLengthDelimited) {
      wire::Bytes b;
      if (!r.length_delimited(&b)) return fail("truncated dtypes_and_shapes");
      wire::Reader e(b);
      TF_DataType dtype = static_cast<TF_DataType>(0);
      Shape shape;
      shape.unknown_rank = false;
      while (e.more()) {
        uint32_t n, t;
        if (!e.tag(&n, &t)) return fail("bad DtypeAndShape");
        if (n == 1 && t == wire::kVarint) {
          uint64_t v;
          if (!e.varint(&v)) return fail("bad dtype");
          dtype = static_cast<TF_DataType>(static_cast<int>(v));
        } else if (n == 2 && t == wire::kLengthDelimited) {
          wire::Bytes s;
          if (!e.length_delimited(&s) || !wire::ReadShapeProto(s, &shape.unknown_rank, &shape.dims))
            return fail("bad shape");
          if (shape.unknown_rank) shape.dims.clear();
        } else if (!e.skip(t, n)) {
          return fail("bad DtypeAndShape field");
        }
      }
      if (!e.ok) return fail("bad DtypeAndShape");
      out->dtypes_and_shapes.emplace_back(dtype, std::move(shape));
    } else if (!r.skip(type, number)) {
      return fail("bad field");
    }
  }
  if (!r.ok) return fail("truncated");
  return true;
}

TF_Tensor* NewResourceTensor(const ResourceHandle& handle) {
  const std::string bytes = SerializeResourceHandle(handle);
  TF_Tensor* t = TF_AllocateTensor(TF_RESOURCE, nullptr, 0, bytes.size());
  if (t != nullptr && !bytes.empty()) std::memcpy(TF_TensorData(t), bytes.data(), bytes.size());
  return t;
}

bool ReadResourceTensor(const TF_Tensor* tensor, ResourceHandle* out, std::string* error) {
  if (tensor->dtype != TF_RESOURCE) {
    *error = std::string("expected a resource handle, got a ") + DataTypeName(tensor->dtype) +
             " tensor";
    return false;
  }
  if (!tensor->dims.empty()) {
    *error = "expected a scalar resource handle, got shape " + ShapeToString(tensor->dims);
    return false;
  }
  if (tensor->buffer->device() != nullptr) {
    *error = "resource handle is not in host memory";
    return false;
  }
  return ParseResourceHandle(
      std::string_view(static_cast<const char*>(tensor->buffer->data()), tensor->buffer->size()),
      out, error);
}

}  // namespace opgen

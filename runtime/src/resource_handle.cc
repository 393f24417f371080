// ResourceHandleProto bytes, written in field-number order as the protobuf library
// writes them and read with wire_reader.h's bounds-checked cursor.
#include "resource_handle.h"

#include <cstring>

#include "tensorflow/c/tf_tensor.h"
#include "wire_reader.h"

namespace opgen {

const char kVariableTypeName[] = "tensorflow::Var";

uint64_t VariableTypeHash() {
  // Any fixed value serves: handles are matched by container and name; the hash only
  // tells resource types apart, and opgen has one (FNV-1a of the type name).
  uint64_t h = 1469598103934665603ull;
  for (const char* p = kVariableTypeName; *p; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 1099511628211ull;
  return h;
}

namespace {

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    *out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *out += static_cast<char>(v);
}
void PutBytes(std::string* out, int field, const std::string& bytes) {
  PutVarint(out, (static_cast<uint64_t>(field) << 3) | wire::kLengthDelimited);
  PutVarint(out, bytes.size());
  *out += bytes;
}
void PutString(std::string* out, int field, const std::string& s) {
  if (!s.empty()) PutBytes(out, field, s);  // proto3: defaults are not written
}

std::string SerializeShapeProto(const Shape& shape) {
  std::string out;
  if (!shape.unknown_rank) {
    for (int64_t d : shape.dims) {
      std::string dim;
      if (d != 0) {
        PutVarint(&dim, (1u << 3) | wire::kVarint);
        PutVarint(&dim, static_cast<uint64_t>(d));
      }
      PutBytes(&out, 2, dim);
    }
  } else {
    PutVarint(&out, (3u << 3) | wire::kVarint);
    PutVarint(&out, 1);
  }
  return out;
}

bool ParseShapeProto(wire::Bytes bytes, Shape* shape) {
  wire::Reader r(bytes);
  shape->unknown_rank = false;
  shape->dims.clear();
  while (r.more()) {
    uint32_t number, type;
    if (!r.tag(&number, &type)) return false;
    if (number == 2 && type == wire::kLengthDelimited) {
      wire::Bytes dim_bytes;
      if (!r.length_delimited(&dim_bytes)) return false;
      wire::Reader d(dim_bytes);
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
      if (!d.ok) return false;
      shape->dims.push_back(size);
    } else if (number == 3 && type == wire::kVarint) {
      uint64_t v;
      if (!r.varint(&v)) return false;
      shape->unknown_rank = v != 0;
    } else if (!r.skip(type, number)) {
      return false;
    }
  }
  if (shape->unknown_rank) shape->dims.clear();
  return r.ok;
}

}  // namespace

std::string SerializeResourceHandle(const ResourceHandle& h) {
  std::string out;
  PutString(&out, 1, h.device);
  PutString(&out, 2, h.container);
  PutString(&out, 3, h.name);
  if (h.hash_code != 0) {
    PutVarint(&out, (4u << 3) | wire::kVarint);
    PutVarint(&out, h.hash_code);
  }
  PutString(&out, 5, h.maybe_type_name);
  for (const auto& [dtype, shape] : h.dtypes_and_shapes) {
    std::string entry;
    if (dtype != 0) {
      PutVarint(&entry, (1u << 3) | wire::kVarint);
      PutVarint(&entry, static_cast<uint64_t>(dtype));
    }
    PutBytes(&entry, 2, SerializeShapeProto(shape));
    PutBytes(&out, 6, entry);
  }
  return out;
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
          if (!e.length_delimited(&s) || !ParseShapeProto(s, &shape)) return fail("bad shape");
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

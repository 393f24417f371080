// NameAttrList and AttrValue for C++ custom ops built against opgen: what a kernel reads
// from a func attr (OpKernelConstruction::GetAttr(name, &NameAttrList)). TensorFlow's are
// generated protobuf classes; these are plain values read from the message's bytes (which
// TF_OpKernelConstruction_GetAttrFunction returns) by a small wire-format reader here, so
// a plugin needs no protobuf library. Of AttrValue they keep the scalar kinds (s, i, f, b,
// type, func); lists, shapes and tensors read as VALUE_NOT_SET.
#ifndef TENSORFLOW_CORE_FRAMEWORK_ATTR_VALUE_PB_H_
#define TENSORFLOW_CORE_FRAMEWORK_ATTR_VALUE_PB_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "tensorflow/core/framework/types.h"

namespace tensorflow {

class NameAttrList;

namespace opgen_wire {
// A bounds-checked cursor over protobuf bytes; any malformation clears `ok`.
struct Cursor {
  const unsigned char* p;
  const unsigned char* end;
  bool ok = true;
  Cursor(const char* data, size_t size)
      : p(reinterpret_cast<const unsigned char*>(data)), end(p + size) {}
  bool more() const { return ok && p < end; }
  bool Varint(uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      const unsigned char b = *p++;
      r |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) { *v = r; return true; }
    }
    return ok = false;
  }
  bool Tag(uint32_t* field, uint32_t* type) {
    uint64_t key = 0;
    if (!Varint(&key) || (key >> 3) == 0) return ok = false;
    *field = uint32_t(key >> 3);
    *type = uint32_t(key & 7);
    return true;
  }
  bool Bytes(std::string* out) {
    uint64_t n = 0;
    if (!Varint(&n) || n > uint64_t(end - p)) return ok = false;
    out->assign(reinterpret_cast<const char*>(p), size_t(n));
    p += n;
    return true;
  }
  bool Fixed(void* out, size_t n) {
    if (size_t(end - p) < n) return ok = false;
    std::memcpy(out, p, n);  // little-endian, as every target opgen builds for
    p += n;
    return true;
  }
  bool Skip(uint32_t type) {
    uint64_t v = 0;
    std::string s;
    switch (type) {
      case 0: return Varint(&v);
      case 1: return Fixed(&v, 8);
      case 2: return Bytes(&s);
      case 5: return Fixed(&v, 4);
      default: return ok = false;  // groups: not in these messages
    }
  }
};
}  // namespace opgen_wire

class AttrValue {
 public:
  // TensorFlow's oneof field numbers.
  enum ValueCase { VALUE_NOT_SET = 0, kS = 2, kI = 3, kF = 4, kB = 5, kType = 6, kFunc = 10 };

  ValueCase value_case() const { return case_; }
  const std::string& s() const { return s_; }
  int64_t i() const { return i_; }
  float f() const { return f_; }
  bool b() const { return b_; }
  DataType type() const { return type_; }
  bool has_func() const { return case_ == kFunc; }
  inline const NameAttrList& func() const;

  bool ParseFromString(const std::string& bytes);

 private:
  ValueCase case_ = VALUE_NOT_SET;
  std::string s_;
  int64_t i_ = 0;
  float f_ = 0.0f;
  bool b_ = false;
  DataType type_ = DT_INVALID;
  std::shared_ptr<NameAttrList> func_;  // shared: copies of an AttrValue stay cheap
};

class NameAttrList {
 public:
  const std::string& name() const { return name_; }
  void set_name(const std::string& name) { name_ = name; }
  const std::map<std::string, AttrValue>& attr() const { return attr_; }
  std::map<std::string, AttrValue>* mutable_attr() { return &attr_; }

  bool ParseFromString(const std::string& bytes) {
    name_.clear();
    attr_.clear();
    opgen_wire::Cursor c(bytes.data(), bytes.size());
    uint32_t field = 0, type = 0;
    while (c.more() && c.Tag(&field, &type)) {
      if (field == 1 && type == 2) {
        c.Bytes(&name_);
      } else if (field == 2 && type == 2) {  // a map entry: key = 1, value = 2
        std::string entry, key, value;
        if (!c.Bytes(&entry)) break;
        opgen_wire::Cursor e(entry.data(), entry.size());
        uint32_t f = 0, t = 0;
        while (e.more() && e.Tag(&f, &t)) {
          if (f == 1 && t == 2) e.Bytes(&key);
          else if (f == 2 && t == 2) e.Bytes(&value);
          else e.Skip(t);
        }
        if (!e.ok || !attr_[key].ParseFromString(value)) return false;
      } else {
        c.Skip(type);
      }
    }
    return c.ok;
  }

 private:
  std::string name_;
  std::map<std::string, AttrValue> attr_;
};

namespace opgen_wire {
// What func() gives for a value that is not a func. Hidden: one per plugin.
__attribute__((visibility("hidden"))) inline const NameAttrList& EmptyNameAttrList() {
  static const NameAttrList* const empty = new NameAttrList();
  return *empty;
}
}  // namespace opgen_wire

inline const NameAttrList& AttrValue::func() const {
  return func_ ? *func_ : opgen_wire::EmptyNameAttrList();
}

inline bool AttrValue::ParseFromString(const std::string& bytes) {
  *this = AttrValue();
  opgen_wire::Cursor c(bytes.data(), bytes.size());
  uint32_t field = 0, type = 0;
  uint64_t v = 0;
  while (c.more() && c.Tag(&field, &type)) {
    if (field == 2 && type == 2) { c.Bytes(&s_); case_ = kS; }
    else if (field == 3 && type == 0) { c.Varint(&v); i_ = static_cast<int64_t>(v); case_ = kI; }
    else if (field == 4 && type == 5) { c.Fixed(&f_, 4); case_ = kF; }
    else if (field == 5 && type == 0) { c.Varint(&v); b_ = v != 0; case_ = kB; }
    else if (field == 6 && type == 0) { c.Varint(&v); type_ = static_cast<DataType>(v); case_ = kType; }
    else if (field == 10 && type == 2) {
      std::string inner;
      if (!c.Bytes(&inner)) break;
      auto func = std::make_shared<NameAttrList>();
      if (!func->ParseFromString(inner)) return false;
      func_ = std::move(func);
      case_ = kFunc;
    } else {
      c.Skip(type);
    }
  }
  return c.ok;
}

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_ATTR_VALUE_PB_H_

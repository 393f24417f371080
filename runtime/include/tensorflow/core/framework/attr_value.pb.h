// NameAttrList and AttrValue for C++ custom ops built against opgen: what a kernel reads
// from a func or list(func) attr (OpKernelConstruction::GetAttr(name, &NameAttrList) or
// &std::vector<NameAttrList>). TensorFlow's are generated protobuf classes; these are
// plain values read from the message's bytes (which TF_OpKernelConstruction_GetAttrFunction
// and OPGEN_OpKernelConstructionGetAttrValue return) by a small wire-format reader here, so
// a plugin needs no protobuf library. Of AttrValue they keep the scalar kinds (s, i, f, b,
// type, func) and lists of them (list().s(), .i(), .f(), .b(), .type(), .func()); shapes
// and tensors read as VALUE_NOT_SET (in a list: skipped).
#ifndef TENSORFLOW_CORE_FRAMEWORK_ATTR_VALUE_PB_H_
#define TENSORFLOW_CORE_FRAMEWORK_ATTR_VALUE_PB_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

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
  // A repeated scalar field, packed (wire type 2) or not: each element to `add`.
  template <typename Add>
  bool Repeated(uint32_t type, size_t fixed_size, Add add) {
    uint64_t v = 0;
    if (type == 2) {
      std::string packed;
      if (!Bytes(&packed)) return false;
      Cursor p(packed.data(), packed.size());
      while (p.more()) {
        v = 0;
        if (fixed_size ? !p.Fixed(&v, fixed_size) : !p.Varint(&v)) return ok = false;
        add(v);
      }
      return true;
    }
    if (type != (fixed_size == 4 ? 5u : 0u)) return Skip(type);
    v = 0;
    if (fixed_size ? !Fixed(&v, fixed_size) : !Varint(&v)) return false;
    add(v);
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
  class ListValue;
  // TensorFlow's oneof field numbers.
  enum ValueCase { VALUE_NOT_SET = 0, kList = 1, kS = 2, kI = 3, kF = 4, kB = 5, kType = 6, kFunc = 10 };

  ValueCase value_case() const { return case_; }
  const std::string& s() const { return s_; }
  int64_t i() const { return i_; }
  float f() const { return f_; }
  bool b() const { return b_; }
  DataType type() const { return type_; }
  bool has_func() const { return case_ == kFunc; }
  inline const NameAttrList& func() const;
  bool has_list() const { return case_ == kList; }
  inline const ListValue& list() const;

  bool ParseFromString(const std::string& bytes);

 private:
  ValueCase case_ = VALUE_NOT_SET;
  std::string s_;
  int64_t i_ = 0;
  float f_ = 0.0f;
  bool b_ = false;
  DataType type_ = DT_INVALID;
  std::shared_ptr<NameAttrList> func_;  // shared: copies of an AttrValue stay cheap
  std::shared_ptr<ListValue> list_;
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

// AttrValue.list: each element kind as a vector (protobuf's repeated fields), with
// protobuf's accessors: list().func() (iterable, size()), list().func_size(), list().func(i).
class AttrValue::ListValue {
 public:
  const std::vector<std::string>& s() const { return s_; }
  const std::vector<int64_t>& i() const { return i_; }
  const std::vector<float>& f() const { return f_; }
  const std::vector<bool>& b() const { return b_; }
  const std::vector<DataType>& type() const { return type_; }
  const std::vector<NameAttrList>& func() const { return func_; }
  const std::string& s(int k) const { return s_.at(static_cast<size_t>(k)); }
  int64_t i(int k) const { return i_.at(static_cast<size_t>(k)); }
  float f(int k) const { return f_.at(static_cast<size_t>(k)); }
  bool b(int k) const { return b_.at(static_cast<size_t>(k)); }
  DataType type(int k) const { return type_.at(static_cast<size_t>(k)); }
  const NameAttrList& func(int k) const { return func_.at(static_cast<size_t>(k)); }
  int s_size() const { return static_cast<int>(s_.size()); }
  int i_size() const { return static_cast<int>(i_.size()); }
  int f_size() const { return static_cast<int>(f_.size()); }
  int b_size() const { return static_cast<int>(b_.size()); }
  int type_size() const { return static_cast<int>(type_.size()); }
  int func_size() const { return static_cast<int>(func_.size()); }
  // Shapes and tensors are counted, not kept.
  int shape_size() const { return shapes_; }
  int tensor_size() const { return tensors_; }

  bool ParseFromString(const std::string& bytes) {
    *this = ListValue();
    opgen_wire::Cursor c(bytes.data(), bytes.size());
    uint32_t field = 0, type = 0;
    while (c.more() && c.Tag(&field, &type)) {
      if (field == 2 && type == 2) {
        s_.emplace_back();
        c.Bytes(&s_.back());
      } else if (field == 3) {
        c.Repeated(type, 0, [this](uint64_t v) { i_.push_back(static_cast<int64_t>(v)); });
      } else if (field == 4) {
        c.Repeated(type, 4, [this](uint64_t v) {
          const uint32_t bits = static_cast<uint32_t>(v);
          float x;
          std::memcpy(&x, &bits, 4);
          f_.push_back(x);
        });
      } else if (field == 5) {
        c.Repeated(type, 0, [this](uint64_t v) { b_.push_back(v != 0); });
      } else if (field == 6) {
        c.Repeated(type, 0, [this](uint64_t v) { type_.push_back(static_cast<DataType>(v)); });
      } else if (field == 9 && type == 2) {
        std::string inner;
        if (!c.Bytes(&inner)) break;
        func_.emplace_back();
        if (!func_.back().ParseFromString(inner)) return false;
      } else {
        if (type == 2 && (field == 7 || field == 8)) ++(field == 7 ? shapes_ : tensors_);
        c.Skip(type);  // shapes, tensors: counted only
      }
    }
    return c.ok;
  }

 private:
  std::vector<std::string> s_;
  std::vector<int64_t> i_;
  std::vector<float> f_;
  std::vector<bool> b_;
  std::vector<DataType> type_;
  std::vector<NameAttrList> func_;
  int shapes_ = 0, tensors_ = 0;
};

namespace opgen_wire {
// What func() and list() give for a value of another kind. Hidden: one per plugin.
__attribute__((visibility("hidden"))) inline const NameAttrList& EmptyNameAttrList() {
  static const NameAttrList* const empty = new NameAttrList();
  return *empty;
}
__attribute__((visibility("hidden"))) inline const AttrValue::ListValue& EmptyListValue() {
  static const AttrValue::ListValue* const empty = new AttrValue::ListValue();
  return *empty;
}
}  // namespace opgen_wire

namespace opgen_wire {
// Whether `v` is a list of which `wanted` (the size of one of its element vectors) are
// all the elements (an empty list is a list of any kind).
inline bool IsListOf(const AttrValue& v, size_t wanted) {
  if (v.value_case() != AttrValue::kList) return false;
  const AttrValue::ListValue& l = v.list();
  return wanted == l.s().size() + l.i().size() + l.f().size() + l.b().size() +
                       l.type().size() + l.func().size() + size_t(l.shape_size()) +
                       size_t(l.tensor_size());
}
inline bool IsFuncList(const AttrValue& v) { return IsListOf(v, v.list().func().size()); }
// Parses the serialized AttrValue in `buffer` (a TF_Buffer's bytes) into `v`.
inline bool ParseAttrValue(const void* data, size_t length, AttrValue* v) {
  return v->ParseFromString(std::string(static_cast<const char*>(data), length));
}
}  // namespace opgen_wire

inline const NameAttrList& AttrValue::func() const {
  return func_ ? *func_ : opgen_wire::EmptyNameAttrList();
}
inline const AttrValue::ListValue& AttrValue::list() const {
  return list_ ? *list_ : opgen_wire::EmptyListValue();
}

inline bool AttrValue::ParseFromString(const std::string& bytes) {
  *this = AttrValue();
  opgen_wire::Cursor c(bytes.data(), bytes.size());
  uint32_t field = 0, type = 0;
  uint64_t v = 0;
  while (c.more() && c.Tag(&field, &type)) {
    if (field == 1 && type == 2) {
      std::string inner;
      if (!c.Bytes(&inner)) break;
      auto list = std::make_shared<ListValue>();
      if (!list->ParseFromString(inner)) return false;
      list_ = std::move(list);
      case_ = kList;
    } else if (field == 2 && type == 2) { c.Bytes(&s_); case_ = kS; }
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

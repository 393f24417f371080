// tstring: the element type of DT_STRING tensors, for C++ custom ops built against opgen.
// It is a TF_TString (tensorflow/c/tf_tstring.h, TensorFlow's 24-byte layout) and nothing
// else, so `tensor.flat<tstring>()` views a TF_STRING tensor's elements in place; every
// operation goes through the TF_String* functions of the C API, so the memory of a long
// string is allocated and freed by the runtime that frees the tensor.
#ifndef TENSORFLOW_CORE_PLATFORM_TSTRING_H_
#define TENSORFLOW_CORE_PLATFORM_TSTRING_H_

#include <cstddef>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "tensorflow/c/tf_tstring.h"

namespace tensorflow {

class tstring {
 public:
  enum Type { SMALL = TF_TSTR_SMALL, LARGE = TF_TSTR_LARGE, OFFSET = TF_TSTR_OFFSET, VIEW = TF_TSTR_VIEW };

  tstring() { TF_StringInit(&str_); }
  tstring(const char* s, size_t n) : tstring() { TF_StringCopy(&str_, s, n); }
  tstring(const char* s) : tstring(s, std::strlen(s)) {}  // NOLINT: implicit, as TensorFlow's
  tstring(const std::string& s) : tstring(s.data(), s.size()) {}  // NOLINT
  explicit tstring(std::string_view s) : tstring(s.data(), s.size()) {}
  tstring(size_t n, char c) : tstring() { assign(std::string(n, c)); }
  tstring(const tstring& other) : tstring(other.data(), other.size()) {}
  tstring(tstring&& other) noexcept : str_(other.str_) { TF_StringInit(&other.str_); }
  ~tstring() { TF_StringDealloc(&str_); }

  tstring& operator=(const tstring& other) { return assign(other.data(), other.size()); }
  tstring& operator=(tstring&& other) noexcept {
    if (this != &other) {
      TF_StringDealloc(&str_);
      str_ = other.str_;
      TF_StringInit(&other.str_);
    }
    return *this;
  }
  tstring& operator=(const std::string& s) { return assign(s.data(), s.size()); }
  tstring& operator=(const char* s) { return assign(s, std::strlen(s)); }
  tstring& operator=(std::string_view s) { return assign(s.data(), s.size()); }
  tstring& operator=(char c) { return assign(&c, 1); }

  // ---- reading ----
  size_t size() const { return TF_StringGetSize(&str_); }
  size_t length() const { return size(); }
  size_t capacity() const { return TF_StringGetCapacity(&str_); }
  bool empty() const { return size() == 0; }
  Type type() const { return static_cast<Type>(TF_StringGetType(&str_)); }
  const char* data() const { return TF_StringGetDataPointer(&str_); }
  const char* c_str() const { return data(); }  // NUL-terminated unless a VIEW or OFFSET
  const char* begin() const { return data(); }
  const char* end() const { return data() + size(); }
  const char& operator[](size_t i) const { return data()[i]; }
  const char& back() const { return data()[size() - 1]; }
  operator std::string() const { return std::string(data(), size()); }  // NOLINT
  operator std::string_view() const { return std::string_view(data(), size()); }  // NOLINT

  int compare(const char* s, size_t n) const {
    return std::string_view(data(), size()).compare(std::string_view(s, n));
  }
  bool operator==(const tstring& o) const { return compare(o.data(), o.size()) == 0; }
  bool operator==(const char* s) const { return compare(s, std::strlen(s)) == 0; }
  bool operator!=(const tstring& o) const { return !(*this == o); }
  bool operator!=(const char* s) const { return !(*this == s); }
  bool operator<(const tstring& o) const { return compare(o.data(), o.size()) < 0; }
  bool operator>(const tstring& o) const { return compare(o.data(), o.size()) > 0; }
  bool operator<=(const tstring& o) const { return compare(o.data(), o.size()) <= 0; }
  bool operator>=(const tstring& o) const { return compare(o.data(), o.size()) >= 0; }

  // ---- writing ----
  // Memory the string owns (a VIEW or OFFSET string is copied first).
  char* mutable_data() {
    if (type() == VIEW || type() == OFFSET) assign(std::string(data(), size()));
    return const_cast<char*>(data());
  }
  char* begin() { return mutable_data(); }
  char* end() { return mutable_data() + size(); }
  char& operator[](size_t i) { return mutable_data()[i]; }
  char& back() { return mutable_data()[size() - 1]; }

  tstring& assign(const char* s, size_t n) {
    const char* own = data();
    if (n > 0 && s >= own && s < own + size()) return assign(std::string(s, n));  // a part of itself
    TF_StringCopy(&str_, s, n);
    return *this;
  }
  tstring& assign(const char* s) { return assign(s, std::strlen(s)); }
  tstring& assign(const std::string& s) { return assign(s.data(), s.size()); }
  // Refers to `s` without copying it; `s` must outlive this string's use.
  tstring& assign_as_view(const char* s, size_t n) {
    TF_StringAssignView(&str_, s, n);
    return *this;
  }
  tstring& assign_as_view(const char* s) { return assign_as_view(s, std::strlen(s)); }
  tstring& assign_as_view(const std::string& s) { return assign_as_view(s.data(), s.size()); }
  tstring& assign_as_view(const tstring& s) { return assign_as_view(s.data(), s.size()); }

  // Each change makes the string anew (the C API has no resize in place): O(size).
  void resize(size_t n, char c = '\0') {
    std::string s(data(), size());
    s.resize(n, c);
    assign(s);
  }
  void resize_uninitialized(size_t n) { resize(n); }
  void clear() {
    TF_StringDealloc(&str_);
    TF_StringInit(&str_);
  }
  void reserve(size_t) {}
  tstring& append(const char* s, size_t n) {
    std::string joined(data(), size());
    joined.append(s, n);
    return assign(joined);
  }
  tstring& append(const char* s) { return append(s, std::strlen(s)); }
  tstring& append(const std::string& s) { return append(s.data(), s.size()); }
  tstring& append(const tstring& s) { return append(std::string(s)); }
  tstring& append(size_t n, char c) { return append(std::string(n, c)); }
  tstring& operator+=(const tstring& s) { return append(s); }
  tstring& operator+=(const std::string& s) { return append(s); }
  tstring& operator+=(const char* s) { return append(s); }
  tstring& operator+=(char c) { return append(&c, 1); }
  void push_back(char c) { append(&c, 1); }
  void swap(tstring& other) noexcept { std::swap(str_, other.str_); }

 private:
  TF_TString str_;
};

static_assert(sizeof(tstring) == sizeof(TF_TString), "a tstring is a TF_TString, nothing more");

inline bool operator==(const char* a, const tstring& b) { return b == a; }
inline bool operator!=(const char* a, const tstring& b) { return b != a; }
inline std::ostream& operator<<(std::ostream& o, const tstring& s) {
  return o.write(s.data(), static_cast<std::streamsize>(s.size()));
}

}  // namespace tensorflow

namespace std {
template <>
struct hash<tensorflow::tstring> {
  size_t operator()(const tensorflow::tstring& s) const {
    return hash<string_view>()(string_view(s.data(), s.size()));
  }
};
}  // namespace std

#endif  // TENSORFLOW_CORE_PLATFORM_TSTRING_H_

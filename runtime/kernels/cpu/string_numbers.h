// TensorFlow's grammars for numbers in strings (absl::SimpleAtoi / SimpleAtof, what its
// StringToNumber and DecodeCSV kernels parse with): integers with an optional sign and
// surrounding ASCII spaces; decimal or 0x hex floats, inf, infinity and nan in any case.
#ifndef OPGEN_RUNTIME_KERNELS_CPU_STRING_NUMBERS_H_
#define OPGEN_RUNTIME_KERNELS_CPU_STRING_NUMBERS_H_

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace opgen {
namespace cpu {
namespace numbers {

inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

inline std::string_view Trim(std::string_view v) {
  while (!v.empty() && IsSpace(v.front())) v.remove_prefix(1);
  while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
  return v;
}

inline bool EqualsIgnoringCase(std::string_view a, const char* b) {
  if (a.size() != std::strlen(b)) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if ((a[k] | 0x20) != b[k]) return false;
  return true;
}

// TensorFlow's integer grammar (absl::SimpleAtoi's): ASCII spaces, an optional sign ('-'
// for signed types only), decimal digits, spaces; false when the value does not fit.
template <typename T>
inline bool ParseInteger(std::string_view v, T* out) {
  v = Trim(v);
  bool negative = false;
  if (!v.empty() && (v.front() == '+' || v.front() == '-')) {
    negative = v.front() == '-';
    if (negative && !std::numeric_limits<T>::is_signed) return false;
    v.remove_prefix(1);
  }
  if (v.empty()) return false;
  // Accumulate the magnitude as a negative number for a negative value (the minimum has
  // no positive counterpart).
  T value = 0;
  for (char c : v) {
    if (!IsDigit(c)) return false;
    const T digit = static_cast<T>(c - '0');
    if (__builtin_mul_overflow(value, T{10}, &value)) return false;
    if (negative ? __builtin_sub_overflow(value, digit, &value)
                 : __builtin_add_overflow(value, digit, &value))
      return false;
  }
  *out = value;
  return true;
}

// Digits of `is_digit` from `*p` on; how many.
template <typename F>
inline size_t SkipDigits(std::string_view v, size_t* p, F is_digit) {
  const size_t start = *p;
  while (*p < v.size() && is_digit(v[*p])) ++*p;
  return *p - start;
}

// A mantissa of `is_digit` digits with an optional point and at least one digit, then an
// optional exponent introduced by `exponent_mark` ('e' or 'p', any case).
template <typename F>
inline bool Mantissa(std::string_view v, size_t p, F is_digit, char exponent_mark) {
  size_t digits = SkipDigits(v, &p, is_digit);
  if (p < v.size() && v[p] == '.') {
    ++p;
    digits += SkipDigits(v, &p, is_digit);
  }
  if (digits == 0) return false;
  if (p < v.size() && (v[p] | 0x20) == exponent_mark) {
    ++p;
    if (p < v.size() && (v[p] == '+' || v[p] == '-')) ++p;
    if (SkipDigits(v, &p, IsDigit) == 0) return false;
  }
  return p == v.size();
}

// TensorFlow's float grammar (absl::SimpleAtof's): an optional sign, then a decimal
// number, a 0x hex float, "inf", "infinity", "nan" or "nan(chars)" in any case.
inline bool FloatGrammar(std::string_view v) {
  size_t p = 0;
  if (p < v.size() && (v[p] == '+' || v[p] == '-')) ++p;
  const std::string_view rest = v.substr(p);
  if (EqualsIgnoringCase(rest, "inf") || EqualsIgnoringCase(rest, "infinity") ||
      EqualsIgnoringCase(rest, "nan"))
    return true;
  if (rest.size() >= 5 && EqualsIgnoringCase(rest.substr(0, 4), "nan(") && rest.back() == ')')
    return std::all_of(rest.begin() + 4, rest.end() - 1, [](char c) {
      return IsDigit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
    });
  if (rest.size() >= 2 && rest[0] == '0' && (rest[1] | 0x20) == 'x')
    return Mantissa(v, p + 2, IsHexDigit, 'p');
  return Mantissa(v, p, IsDigit, 'e');
}

template <typename T>
inline bool ParseFloat(std::string_view raw, T* out) {
  const std::string_view v = Trim(raw);
  if (!FloatGrammar(v)) return false;
  // strtof / strtod read the same grammar and round correctly, as absl's from_chars does.
  const std::string text(v);
  if (std::is_same<T, float>::value)
    *out = static_cast<T>(std::strtof(text.c_str(), nullptr));
  else
    *out = static_cast<T>(std::strtod(text.c_str(), nullptr));
  return true;
}

}  // namespace numbers
}  // namespace cpu
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_CPU_STRING_NUMBERS_H_

// Writing one Unicode code point as UTF-8 (shared by the case-mapping and Unicode ops).
#ifndef OPGEN_RUNTIME_KERNELS_CPU_UTF8_H_
#define OPGEN_RUNTIME_KERNELS_CPU_UTF8_H_

#include <string>

namespace opgen {
namespace cpu {

// Appends code point `c` (a valid one: at most U+10FFFF, no surrogate) as UTF-8.
inline void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace cpu
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_CPU_UTF8_H_

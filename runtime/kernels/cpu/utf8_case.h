// Unicode case mapping of UTF-8 text, for StringLower / StringUpper with encoding
// "utf-8" (TensorFlow maps with ICU; opgen carries its own tables, see utf8_case.cc for
// what they cover). Characters outside the tables are kept as they are.
#pragma once

#include <string>
#include <string_view>

namespace opgen {
namespace cpu {

// `in` lowercased (uppercased) into `out` (replacing it). Ill-formed UTF-8 becomes
// U+FFFD, one per maximal ill-formed subpart, as ICU's conversion does.
void Utf8ToLower(std::string_view in, std::string* out);
void Utf8ToUpper(std::string_view in, std::string* out);

}  // namespace cpu
}  // namespace opgen

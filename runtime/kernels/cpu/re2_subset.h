// TensorFlow's regex ops take RE2 patterns; opgen runs them with std::regex (ECMAScript)
// after translating the subset of RE2 on which the two agree, and refuses the rest with
// a message, so that a pattern never silently matches differently:
//  - accepted: literals, `.`, classes `[...]` (ranges, negation, POSIX `[:alpha:]`),
//    `\d \w \s \D \W \S \b \B`, `\A \z`, escapes of punctuation, `\n \t \r \f \v \a`,
//    `\xHH`, groups `(...)`, `(?:...)`, named groups `(?P<n>...)`, alternation, the
//    quantifiers `* + ? {n} {n,} {n,m}` and their lazy forms, `^ $`.
//  - refused (INVALID_ARGUMENT): flags `(?i)` and the like, Unicode classes `\p{..}`,
//    `\Q..\E`, `\C`, `\x{...}` above 0x7f, octal and backreferences (RE2 has none),
//    lookaround (RE2 has none), and any non-ASCII byte in the pattern.
//  - RE2 reads text as UTF-8: `.`, negated classes and `\D \W \S` consume a whole code
//    point there but one byte in std::regex, so such a pattern refuses non-ASCII input
//    at run time (ReplaceAll's error) instead of giving other bytes.
//  - `\s` is RE2's [\t\n\f\r ] (ECMAScript's adds \v); `.` excludes only \n, as RE2's.
//  - std::regex backtracks (RE2 does not): a pathological pattern may fail with a
//    complexity error where RE2 would finish; that error is reported, never a result.
// Rewrites are RE2's: `\0`-`\9` name groups, `\\` is a backslash.
#pragma once

#include <regex>
#include <string>
#include <string_view>

namespace opgen {
namespace cpu {

struct Re2Subset {
  std::regex re;
  bool single_char_classes = false;  // `.`, negated classes, \D \W \S: ASCII text only
  int groups = 0;
};

// Translates and compiles an RE2 `pattern`; false with `*error` set when it is outside
// the subset or does not compile.
bool CompileRe2(const std::string& pattern, Re2Subset* out, std::string* error);

// False with `*error` set for a rewrite that is not RE2's or names a missing group.
bool CheckRewrite(const std::string& rewrite, const Re2Subset& re, std::string* error);

// RE2::GlobalReplace (`global`) or RE2::Replace of `re` in `text` by `rewrite` (checked):
// an empty match right after the previous match is skipped. False with `*error` set for
// input the subset refuses or a matcher failure.
bool ReplaceRe2(std::string_view text, const Re2Subset& re, const std::string& rewrite,
                bool global, std::string* out, std::string* error);

}  // namespace cpu
}  // namespace opgen

// The RE2-to-ECMAScript translation of re2_subset.h: every literal and class member is
// written as a \xHH escape, so that ECMAScript's own escape and class rules never
// reinterpret an RE2 character.
#include "re2_subset.h"

#include <cstdio>

namespace opgen {
namespace cpu {
namespace {

std::string Hex(unsigned char c) {
  char b[8];
  std::snprintf(b, sizeof b, "\\x%02x", c);
  return b;
}

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RE2's POSIX classes, as members of an ECMAScript class.
const char* PosixMembers(const std::string& name) {
  if (name == "alpha") return "a-zA-Z";
  if (name == "digit") return "0-9";
  if (name == "alnum") return "0-9A-Za-z";
  if (name == "upper") return "A-Z";
  if (name == "lower") return "a-z";
  if (name == "space") return "\\x09-\\x0d\\x20";
  if (name == "blank") return "\\x09\\x20";
  if (name == "punct") return "\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e";
  if (name == "xdigit") return "0-9A-Fa-f";
  if (name == "word") return "0-9A-Za-z_";
  if (name == "cntrl") return "\\x00-\\x1f\\x7f";
  if (name == "print") return "\\x20-\\x7e";
  if (name == "graph") return "\\x21-\\x7e";
  if (name == "ascii") return "\\x00-\\x7f";
  return nullptr;
}

constexpr char kSpace[] = "\\x09\\x0a\\x0c\\x0d\\x20";  // RE2's \s

class Translator {
 public:
  explicit Translator(const std::string& p) : p_(p) {}

  bool Run(std::string* out, bool* single_char, std::string* error) {
    while (i_ < p_.size() && error_.empty()) Atom();
    if (!error_.empty()) {
      *error = error_;
      return false;
    }
    *out = out_;
    *single_char = single_;
    return true;
  }

 private:
  bool Refuse(const std::string& what) {
    if (error_.empty())
      error_ = what + " (at offset " + std::to_string(i_) + " of the pattern) is not in the "
               "part of RE2 that opgen supports (docs/saved_model.md, Text models)";
    return false;
  }

  void Atom() {
    const unsigned char c = static_cast<unsigned char>(p_[i_]);
    if (c >= 0x80) {
      Refuse("a non-ASCII byte");
      return;
    }
    switch (c) {
      case '\\': Escape(); return;
      case '[': Class(); return;
      case '.':
        out_ += "[^\\n]";
        single_ = true;
        ++i_;
        return;
      case '(': Group(); return;
      case ')': case '|': case '^': case '$': case '*': case '+': case '?':
        out_ += static_cast<char>(c);
        ++i_;
        return;
      case '{': Repetition(); return;
      default:
        out_ += IsAlnum(static_cast<char>(c)) ? std::string(1, static_cast<char>(c)) : Hex(c);
        ++i_;
    }
  }

  void Group() {
    if (i_ + 1 < p_.size() && p_[i_ + 1] == '?') {
      if (i_ + 2 < p_.size() && p_[i_ + 2] == ':') {
        out_ += "(?:";
        i_ += 3;
        return;
      }
      size_t name = std::string::npos;
      if (p_.compare(i_ + 2, 2, "P<") == 0) name = i_ + 4;
      else if (i_ + 3 < p_.size() && p_[i_ + 2] == '<' && p_[i_ + 3] != '=' && p_[i_ + 3] != '!')
        name = i_ + 3;
      if (name == std::string::npos) {
        Refuse("a group with flags or lookaround '(?'");
        return;
      }
      const size_t close = p_.find('>', name);
      if (close == std::string::npos) {
        Refuse("an unterminated group name");
        return;
      }
      i_ = close + 1;
    } else {
      ++i_;
    }
    out_ += "(";  // a named group counts as any other
  }

  // `{n}`, `{n,}`, `{n,m}`; any other `{` is a literal, as in RE2.
  void Repetition() {
    size_t j = i_ + 1;
    auto digits = [&]() {
      const size_t from = j;
      while (j < p_.size() && p_[j] >= '0' && p_[j] <= '9') ++j;
      return j > from;
    };
    bool ok = digits();
    if (ok && j < p_.size() && p_[j] == ',') {
      ++j;
      digits();
    }
    ok = ok && j < p_.size() && p_[j] == '}';
    if (!ok) {
      out_ += Hex('{');
      ++i_;
      return;
    }
    out_ += p_.substr(i_, j + 1 - i_);
    i_ = j + 1;
  }

  // A one-character escape's byte (\n, \xHH, \., ...), or -1 after refusing it.
  int EscapedChar(char e) {
    switch (e) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'f': return '\f';
      case 'v': return '\v';
      case 'a': return '\a';
      case 'x': {
        if (i_ < p_.size() && p_[i_] == '{') {
          const size_t close = p_.find('}', i_);
          int value = 0;
          if (close == std::string::npos || close == i_ + 1) return Refuse("a bad \\x{...}"), -1;
          for (size_t k = i_ + 1; k < close; ++k) {
            const int h = HexValue(p_[k]);
            if (h < 0 || value > 0x7f) return Refuse("a bad or non-ASCII \\x{...}"), -1;
            value = value * 16 + h;
          }
          if (value > 0x7f) return Refuse("a non-ASCII \\x{...}"), -1;
          i_ = close + 1;
          return value;
        }
        const int h1 = i_ < p_.size() ? HexValue(p_[i_]) : -1;
        const int h2 = i_ + 1 < p_.size() ? HexValue(p_[i_ + 1]) : -1;
        if (h1 < 0 || h2 < 0 || h1 * 16 + h2 > 0x7f) return Refuse("a bad or non-ASCII \\x"), -1;
        i_ += 2;
        return h1 * 16 + h2;
      }
      default:
        if (static_cast<unsigned char>(e) < 0x80 && !IsAlnum(e) && e != '\0') return e;
        return Refuse(std::string("the escape \\") + e), -1;
    }
  }

  void Escape() {
    if (i_ + 1 >= p_.size()) {
      Refuse("a trailing backslash");
      return;
    }
    const char e = p_[i_ + 1];
    i_ += 2;
    switch (e) {
      case 'd': out_ += "[0-9]"; return;
      case 'D': out_ += "[^0-9]"; single_ = true; return;
      case 'w': out_ += "[0-9A-Za-z_]"; return;
      case 'W': out_ += "[^0-9A-Za-z_]"; single_ = true; return;
      case 's': out_ += std::string("[") + kSpace + "]"; return;
      case 'S': out_ += std::string("[^") + kSpace + "]"; single_ = true; return;
      case 'b': out_ += "\\b"; return;
      case 'B': out_ += "\\B"; return;
      case 'A': out_ += "^"; return;
      case 'z': out_ += "$"; return;
      default: break;
    }
    if (e >= '0' && e <= '9') {
      i_ -= 2;
      Refuse("an octal escape or backreference");
      return;
    }
    const int c = EscapedChar(e);
    if (c >= 0) out_ += Hex(static_cast<unsigned char>(c));
  }

  // One member of a class at i_: its byte, or -2 after adding a \d \w \s set, -1 refused.
  int ClassChar() {
    const char c = p_[i_];
    if (static_cast<unsigned char>(c) >= 0x80) return Refuse("a non-ASCII byte"), -1;
    if (c != '\\') {
      ++i_;
      return static_cast<unsigned char>(c);
    }
    if (i_ + 1 >= p_.size()) return Refuse("a trailing backslash"), -1;
    const char e = p_[i_ + 1];
    i_ += 2;
    switch (e) {
      case 'd': members_ += "0-9"; return -2;
      case 'w': members_ += "0-9A-Za-z_"; return -2;
      case 's': members_ += kSpace; return -2;
      case 'D': case 'W': case 'S': case 'p': case 'P':
        i_ -= 2;
        return Refuse(std::string("the class escape \\") + e + " inside [...]"), -1;
      default: break;
    }
    if (e >= '0' && e <= '9') {
      i_ -= 2;
      return Refuse("an octal escape"), -1;
    }
    return EscapedChar(e);
  }

  void Class() {
    ++i_;
    bool negated = false;
    if (i_ < p_.size() && p_[i_] == '^') {
      negated = true;
      ++i_;
    }
    members_.clear();
    bool first = true;
    while (true) {
      if (i_ >= p_.size()) {
        Refuse("a class without its closing ']'");
        return;
      }
      if (p_[i_] == ']' && !first) {
        ++i_;
        break;
      }
      first = false;
      if (p_.compare(i_, 2, "[:") == 0) {
        const size_t close = p_.find(":]", i_ + 2);
        const char* set = close == std::string::npos
                              ? nullptr
                              : PosixMembers(p_.substr(i_ + 2, close - i_ - 2));
        if (set == nullptr) {
          Refuse("a POSIX class other than [:alpha:], [:digit:], ...");
          return;
        }
        members_ += set;
        i_ = close + 2;
        continue;
      }
      const int lo = ClassChar();
      if (lo == -1) return;
      if (lo == -2) continue;
      if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
        ++i_;
        const int hi = ClassChar();
        if (hi == -1) return;
        if (hi == -2 || hi < lo) {
          Refuse("a bad class range");
          return;
        }
        members_ += Hex(static_cast<unsigned char>(lo)) + "-" + Hex(static_cast<unsigned char>(hi));
      } else {
        members_ += Hex(static_cast<unsigned char>(lo));
      }
    }
    out_ += negated ? "[^" : "[";
    out_ += members_ + "]";
    if (negated) single_ = true;
  }

  const std::string& p_;
  size_t i_ = 0;
  std::string out_, members_, error_;
  bool single_ = false;
};

// The length of the UTF-8 sequence a lead byte starts (1 for ASCII and stray bytes).
size_t Utf8Length(unsigned char c) {
  if (c >= 0xf0) return 4;
  if (c >= 0xe0) return 3;
  if (c >= 0xc0) return 2;
  return 1;
}

void AppendRewrite(const std::string& rewrite, const std::cmatch& m, std::string* out) {
  for (size_t i = 0; i < rewrite.size(); ++i) {
    if (rewrite[i] != '\\') {
      out->push_back(rewrite[i]);
      continue;
    }
    const char e = rewrite[++i];  // CheckRewrite made sure one follows
    if (e == '\\') {
      out->push_back('\\');
      continue;
    }
    const auto& group = m[static_cast<size_t>(e - '0')];
    if (group.matched) out->append(group.first, group.second);
  }
}

}  // namespace

bool CompileRe2(const std::string& pattern, Re2Subset* out, std::string* error) {
  std::string translated;
  if (!Translator(pattern).Run(&translated, &out->single_char_classes, error)) return false;
  try {
    out->re = std::regex(translated, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    *error = std::string("invalid pattern: ") + e.what();
    return false;
  }
  out->groups = static_cast<int>(out->re.mark_count());
  return true;
}

bool CheckRewrite(const std::string& rewrite, const Re2Subset& re, std::string* error) {
  for (size_t i = 0; i < rewrite.size(); ++i) {
    if (rewrite[i] != '\\') continue;
    if (i + 1 == rewrite.size()) {
      *error = "Rewrite schema error: '\\' not allowed at end.";
      return false;
    }
    const char e = rewrite[++i];
    if (e == '\\') continue;
    if (e < '0' || e > '9') {
      *error = std::string("Rewrite schema error: '\\' must be followed by a digit or '\\'; "
                           "got '\\") + e + "'";
      return false;
    }
    if (e - '0' > re.groups) {
      *error = "Rewrite schema requests " + std::to_string(e - '0') +
               " matches, but the regexp only has " + std::to_string(re.groups) +
               " parenthesized subexpressions.";
      return false;
    }
  }
  return true;
}

bool ReplaceRe2(std::string_view text, const Re2Subset& re, const std::string& rewrite,
                bool global, std::string* out, std::string* error) {
  if (re.single_char_classes) {
    for (char c : text)
      if (static_cast<unsigned char>(c) >= 0x80) {
        *error = "the pattern matches single characters (`.`, a negated class, \\D, \\W or "
                 "\\S), which RE2 reads as UTF-8 code points; opgen's matcher reads bytes and "
                 "refuses non-ASCII input for such a pattern";
        return false;
      }
  }
  out->clear();
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  const char* last_end = nullptr;
  std::cmatch m;
  try {
    while (p <= end) {
      const auto flags = p == begin ? std::regex_constants::match_default
                                    : std::regex_constants::match_prev_avail;
      if (!std::regex_search(p, end, m, re.re, flags)) break;
      const char* ms = m[0].first;
      const char* me = m[0].second;
      out->append(p, ms);
      if (ms == me && ms == last_end) {
        // RE2 takes no empty match where the previous match ended: it moves on one
        // character (a UTF-8 sequence).
        if (p == end) break;
        size_t n = Utf8Length(static_cast<unsigned char>(*p));
        if (n > static_cast<size_t>(end - p)) n = static_cast<size_t>(end - p);
        out->append(p, n);
        p += n;
        continue;
      }
      AppendRewrite(rewrite, m, out);
      p = me;
      last_end = me;
      if (!global) break;
    }
  } catch (const std::regex_error& e) {
    *error = std::string("the matcher failed: ") + e.what();
    return false;
  }
  if (p < end) out->append(p, end);
  return true;
}

}  // namespace cpu
}  // namespace opgen

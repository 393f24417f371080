// UTF-8 case mapping (utf8_case.h). Covered: Basic Latin, Latin-1 Supplement, Latin
// Extended-A, the Latin Extended-B digraphs (DŽ Dž dž, LJ Lj lj, NJ Nj nj, DZ Dz dz),
// Greek and Coptic (U+0370-U+03FF, and U+0345), Cyrillic and Cyrillic Supplement
// (U+0400-U+052F), Armenian, Latin Extended Additional, the Roman numerals, the circled
// Latin letters, the Latin ligatures U+FB00-U+FB06, fullwidth Latin and Deseret; with
// Unicode's unconditional full mappings among them (ß -> SS, İ -> i + U+0307, ŉ, ǰ, ΐ,
// ΰ, և, ẖ-ẚ, the ligatures) and the Final_Sigma rule (Σ -> ς at the end of a word).
// The tables were written from the Unicode Character Database's case pairs for these
// blocks.
#include "utf8_case.h"

#include <cstdint>

#include "utf8.h"

namespace opgen {
namespace cpu {
namespace {

// Code points first..last whose offset from `first` is a multiple of `stride` map to
// themselves + `delta`.
struct CaseRange {
  char32_t first, last;
  int32_t delta;
  int stride;
};

constexpr CaseRange kToLower[] = {
    {0x41, 0x5A, 32, 1},      {0xC0, 0xD6, 32, 1},     {0xD8, 0xDE, 32, 1},
    {0x100, 0x12E, 1, 2},     {0x132, 0x136, 1, 2},    {0x139, 0x147, 1, 2},
    {0x14A, 0x176, 1, 2},     {0x178, 0x178, -121, 1}, {0x179, 0x17D, 1, 2},
    {0x1C4, 0x1C4, 2, 1},     {0x1C5, 0x1C5, 1, 1},    {0x1C7, 0x1C7, 2, 1},
    {0x1C8, 0x1C8, 1, 1},     {0x1CA, 0x1CA, 2, 1},    {0x1CB, 0x1CB, 1, 1},
    {0x1F1, 0x1F1, 2, 1},     {0x1F2, 0x1F2, 1, 1},
    // Greek and Coptic
    {0x370, 0x372, 1, 2},     {0x376, 0x376, 1, 1},    {0x37F, 0x37F, 116, 1},
    {0x386, 0x386, 38, 1},    {0x388, 0x38A, 37, 1},   {0x38C, 0x38C, 64, 1},
    {0x38E, 0x38F, 63, 1},    {0x391, 0x3A1, 32, 1},   {0x3A3, 0x3AB, 32, 1},
    {0x3CF, 0x3CF, 8, 1},     {0x3D8, 0x3EE, 1, 2},    {0x3F4, 0x3F4, -60, 1},
    {0x3F7, 0x3F7, 1, 1},     {0x3F9, 0x3F9, -7, 1},   {0x3FA, 0x3FA, 1, 1},
    {0x3FD, 0x3FF, -130, 1},
    // Cyrillic, Cyrillic Supplement
    {0x400, 0x40F, 80, 1},    {0x410, 0x42F, 32, 1},   {0x460, 0x480, 1, 2},
    {0x48A, 0x4BE, 1, 2},     {0x4C0, 0x4C0, 15, 1},   {0x4C1, 0x4CD, 1, 2},
    {0x4D0, 0x4FE, 1, 2},     {0x500, 0x52E, 1, 2},
    // Armenian, Latin Extended Additional, number forms, enclosed, fullwidth, Deseret
    {0x531, 0x556, 48, 1},    {0x1E00, 0x1E94, 1, 2},  {0x1E9E, 0x1E9E, -0x1E9E + 0xDF, 1},
    {0x1EA0, 0x1EFE, 1, 2},   {0x2160, 0x216F, 16, 1}, {0x2183, 0x2183, 1, 1},
    {0x24B6, 0x24CF, 26, 1},  {0xFF21, 0xFF3A, 32, 1}, {0x10400, 0x10427, 40, 1},
};

constexpr CaseRange kToUpper[] = {
    {0x61, 0x7A, -32, 1},     {0xB5, 0xB5, 743, 1},    {0xE0, 0xF6, -32, 1},
    {0xF8, 0xFE, -32, 1},     {0xFF, 0xFF, 121, 1},    {0x101, 0x12F, -1, 2},
    {0x131, 0x131, -232, 1},  {0x133, 0x137, -1, 2},   {0x13A, 0x148, -1, 2},
    {0x14B, 0x177, -1, 2},    {0x17A, 0x17E, -1, 2},   {0x17F, 0x17F, -300, 1},
    {0x1C5, 0x1C5, -1, 1},    {0x1C6, 0x1C6, -2, 1},   {0x1C8, 0x1C8, -1, 1},
    {0x1C9, 0x1C9, -2, 1},    {0x1CB, 0x1CB, -1, 1},   {0x1CC, 0x1CC, -2, 1},
    {0x1F2, 0x1F2, -1, 1},    {0x1F3, 0x1F3, -2, 1},
    {0x345, 0x345, 84, 1},
    // Greek and Coptic
    {0x371, 0x373, -1, 2},    {0x377, 0x377, -1, 1},   {0x37B, 0x37D, 130, 1},
    {0x3AC, 0x3AC, -38, 1},   {0x3AD, 0x3AF, -37, 1},  {0x3B1, 0x3C1, -32, 1},
    {0x3C2, 0x3C2, -31, 1},   {0x3C3, 0x3CB, -32, 1},  {0x3CC, 0x3CC, -64, 1},
    {0x3CD, 0x3CE, -63, 1},   {0x3D0, 0x3D0, -62, 1},  {0x3D1, 0x3D1, -57, 1},
    {0x3D5, 0x3D5, -47, 1},   {0x3D6, 0x3D6, -54, 1},  {0x3D7, 0x3D7, -8, 1},
    {0x3D9, 0x3EF, -1, 2},    {0x3F0, 0x3F0, -86, 1},  {0x3F1, 0x3F1, -80, 1},
    {0x3F2, 0x3F2, 7, 1},     {0x3F3, 0x3F3, -116, 1}, {0x3F5, 0x3F5, -96, 1},
    {0x3F8, 0x3F8, -1, 1},    {0x3FB, 0x3FB, -1, 1},
    // Cyrillic, Cyrillic Supplement
    {0x430, 0x44F, -32, 1},   {0x450, 0x45F, -80, 1},  {0x461, 0x481, -1, 2},
    {0x48B, 0x4BF, -1, 2},    {0x4C2, 0x4CE, -1, 2},   {0x4CF, 0x4CF, -15, 1},
    {0x4D1, 0x4FF, -1, 2},    {0x501, 0x52F, -1, 2},
    // Armenian, Latin Extended Additional, number forms, enclosed, fullwidth, Deseret
    {0x561, 0x586, -48, 1},   {0x1E01, 0x1E95, -1, 2}, {0x1E9B, 0x1E9B, -59, 1},
    {0x1EA1, 0x1EFF, -1, 2},  {0x2170, 0x217F, -16, 1}, {0x2184, 0x2184, -1, 1},
    {0x24D0, 0x24E9, -26, 1}, {0xFF41, 0xFF5A, -32, 1}, {0x10428, 0x1044F, -40, 1},
};

template <size_t N>
char32_t Map(const CaseRange (&table)[N], char32_t c) {
  for (const CaseRange& r : table) {
    if (c < r.first || c > r.last) continue;
    if ((c - r.first) % r.stride != 0) return c;
    return static_cast<char32_t>(static_cast<int32_t>(c) + r.delta);
  }
  return c;
}

// Uppercase mappings to several characters (Unicode's unconditional SpecialCasing).
std::u32string_view FullUpper(char32_t c) {
  switch (c) {
    case 0xDF: return U"SS";
    case 0x149: return U"\u02BCN";
    case 0x1F0: return U"J\u030C";
    case 0x390: return U"\u0399\u0308\u0301";
    case 0x3B0: return U"\u03A5\u0308\u0301";
    case 0x587: return U"\u0535\u0552";
    case 0x1E96: return U"H\u0331";
    case 0x1E97: return U"T\u0308";
    case 0x1E98: return U"W\u030A";
    case 0x1E99: return U"Y\u030A";
    case 0x1E9A: return U"A\u02BE";
    case 0xFB00: return U"FF";
    case 0xFB01: return U"FI";
    case 0xFB02: return U"FL";
    case 0xFB03: return U"FFI";
    case 0xFB04: return U"FFL";
    case 0xFB05: case 0xFB06: return U"ST";
    default: return {};
  }
}

// Whether `c` is a cased letter (for Final_Sigma): one the tables map, or one of the
// cased letters of these blocks without a simple mapping (ª º ĸ İ).
bool IsCased(char32_t c) {
  if (Map(kToLower, c) != c || Map(kToUpper, c) != c || !FullUpper(c).empty()) return true;
  return c == 0xAA || c == 0xBA || c == 0x138 || c == 0x130;
}

// Case-ignorable characters among those the tables' scripts use: apostrophes, word
// joiners of letters, modifier symbols and combining marks.
bool IsCaseIgnorable(char32_t c) {
  switch (c) {
    case 0x27: case 0x2E: case 0x3A: case 0x5E: case 0x60: case 0xA8: case 0xAD: case 0xAF:
    case 0xB4: case 0xB7: case 0xB8: case 0x374: case 0x375: case 0x37A: case 0x384:
    case 0x385: case 0x387: case 0x2018: case 0x2019: case 0x2024: case 0x2027:
      return true;
    default:
      return (c >= 0x300 && c <= 0x36F) || (c >= 0x483 && c <= 0x489);
  }
}

// Σ at `i` is final when a cased letter comes before it and none after it (skipping
// case-ignorable characters both ways).
bool FinalSigma(const std::u32string& s, size_t i) {
  size_t j = i;
  while (j > 0 && IsCaseIgnorable(s[j - 1])) --j;
  if (j == 0 || !IsCased(s[j - 1])) return false;
  size_t k = i + 1;
  while (k < s.size() && IsCaseIgnorable(s[k])) ++k;
  return k == s.size() || !IsCased(s[k]);
}

std::u32string Decode(std::string_view in) {
  std::u32string out;
  out.reserve(in.size());
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char b = static_cast<unsigned char>(in[i]);
    if (b < 0x80) {
      out.push_back(b);
      ++i;
      continue;
    }
    int len = 0;
    char32_t c = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range (no overlongs,
    if (b >= 0xC2 && b <= 0xDF) {        // surrogates or values past U+10FFFF)
      len = 2, c = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3, c = b & 0x0F;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4, c = b & 0x07;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    // The bytes that could still begin a character are one ill-formed subpart: one
    // U+FFFD, and the byte that broke the sequence starts the next.
    size_t j = i + 1;
    bool good = true;
    for (int k = 1; k < len; ++k, ++j) {
      const unsigned char t = j < n ? static_cast<unsigned char>(in[j]) : 0;
      if (j >= n || t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xBF)) {
        good = false;
        break;
      }
      c = (c << 6) | (t & 0x3F);
    }
    out.push_back(good ? c : 0xFFFD);
    i = j;
  }
  return out;
}

}  // namespace

void Utf8ToLower(std::string_view in, std::string* out) {
  const std::u32string s = Decode(in);
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    if (c == 0x130) {  // İ: i with its dot kept as a combining mark
      AppendUtf8('i', out);
      AppendUtf8(0x307, out);
    } else if (c == 0x3A3) {
      AppendUtf8(FinalSigma(s, i) ? 0x3C2 : 0x3C3, out);
    } else {
      AppendUtf8(Map(kToLower, c), out);
    }
  }
}

void Utf8ToUpper(std::string_view in, std::string* out) {
  const std::u32string s = Decode(in);
  out->clear();
  out->reserve(in.size());
  for (const char32_t c : s) {
    const std::u32string_view full = FullUpper(c);
    if (full.empty()) {
      AppendUtf8(Map(kToUpper, c), out);
    } else {
      for (const char32_t f : full) AppendUtf8(f, out);
    }
  }
}

}  // namespace cpu
}  // namespace opgen

// The two string hashes TensorFlow's hash-bucket ops use, written from the published
// algorithms: Fingerprint64 (FarmHash's 64-bit fingerprint, the "na" variant, stable
// across platforms) and SipHash-2-4 (Aumasson and Bernstein, keyed). Bytes are read
// little-endian whatever the host's order, so the values are TensorFlow's everywhere.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

namespace opgen {
namespace cpu {
namespace hashes {

inline uint64_t Load64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline uint32_t Load32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline uint64_t RotateRight(uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
inline uint64_t RotateLeft(uint64_t v, int s) { return (v << s) | (v >> (64 - s)); }

// ---- Fingerprint64 ----------------------------------------------------------------
constexpr uint64_t kP0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kP1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kP2 = 0x9ae16a3b2f90404fULL;

inline uint64_t Mix47(uint64_t v) { return v ^ (v >> 47); }

// Two words folded into one with multiplier `mul`.
inline uint64_t Fold(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = Mix47((u ^ v) * mul);
  uint64_t b = Mix47((v ^ a) * mul);
  return b * mul;
}

inline uint64_t FingerprintUpTo16(const char* s, size_t n) {
  const uint64_t mul = kP2 + n * 2;
  if (n >= 8) {
    const uint64_t a = Load64(s) + kP2, b = Load64(s + n - 8);
    return Fold(RotateRight(b, 37) * mul + a, (RotateRight(a, 25) + b) * mul, mul);
  }
  if (n >= 4) return Fold(n + (uint64_t{Load32(s)} << 3), Load32(s + n - 4), mul);
  if (n == 0) return kP2;
  const uint8_t a = s[0], b = s[n >> 1], c = s[n - 1];
  const uint32_t y = uint32_t{a} + (uint32_t{b} << 8);
  const uint32_t z = static_cast<uint32_t>(n) + (uint32_t{c} << 2);
  return Mix47(y * kP2 ^ z * kP0) * kP2;
}

inline uint64_t FingerprintUpTo32(const char* s, size_t n) {
  const uint64_t mul = kP2 + n * 2;
  const uint64_t a = Load64(s) * kP1, b = Load64(s + 8);
  const uint64_t c = Load64(s + n - 8) * mul, d = Load64(s + n - 16) * kP2;
  return Fold(RotateRight(a + b, 43) + RotateRight(c, 30) + d, a + RotateRight(b + kP2, 18) + c,
              mul);
}

inline uint64_t FingerprintUpTo64(const char* s, size_t n) {
  const uint64_t mul = kP2 + n * 2;
  const uint64_t a = Load64(s) * kP2, b = Load64(s + 8);
  const uint64_t c = Load64(s + n - 8) * mul, d = Load64(s + n - 16) * kP2;
  const uint64_t y = RotateRight(a + b, 43) + RotateRight(c, 30) + d;
  const uint64_t z = Fold(y, a + RotateRight(b + kP2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul, f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + n - 32)) * mul, h = (z + Load64(s + n - 24)) * mul;
  return Fold(RotateRight(e + f, 43) + RotateRight(g, 30) + h, e + RotateRight(f + a, 18) + g,
              mul);
}

// 32 bytes at `s` stirred into the pair (a, b).
inline std::pair<uint64_t, uint64_t> Stir32(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s), x = Load64(s + 8), y = Load64(s + 16), z = Load64(s + 24);
  a += w;
  b = RotateRight(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += RotateRight(a, 44);
  return {a + z, b + c};
}

inline uint64_t Fingerprint64(std::string_view bytes) {
  const char* s = bytes.data();
  const size_t n = bytes.size();
  if (n <= 16) return FingerprintUpTo16(s, n);
  if (n <= 32) return FingerprintUpTo32(s, n);
  if (n <= 64) return FingerprintUpTo64(s, n);
  // Longer inputs: 64-byte blocks into a 56-byte state, the last 64 bytes (which may
  // overlap the previous block) stirred once more with a length-dependent multiplier.
  constexpr uint64_t kSeed = 81;
  uint64_t x = kSeed, y = kSeed * kP1 + 113, z = Mix47(y * kP2 + 113) * kP2;
  std::pair<uint64_t, uint64_t> v{0, 0}, w{0, 0};
  x = x * kP2 + Load64(s);
  const char* end = s + ((n - 1) / 64) * 64;
  const char* last64 = end + ((n - 1) & 63) - 63;
  do {
    x = RotateRight(x + y + v.first + Load64(s + 8), 37) * kP1;
    y = RotateRight(y + v.second + Load64(s + 48), 42) * kP1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = RotateRight(z + w.first, 33) * kP1;
    v = Stir32(s, v.second * kP1, x + w.first);
    w = Stir32(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kP1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (n - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = RotateRight(x + y + v.first + Load64(s + 8), 37) * mul;
  y = RotateRight(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = RotateRight(z + w.first, 33) * mul;
  v = Stir32(s, v.second * mul, x + w.first);
  w = Stir32(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return Fold(Fold(v.first, w.first, mul) + Mix47(y) * kP0 + z,
              Fold(v.second, w.second, mul) + x, mul);
}

// ---- SipHash-2-4 --------------------------------------------------------------------
inline uint64_t SipHash24(const uint64_t key[2], std::string_view bytes) {
  uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
  uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1; v1 = RotateLeft(v1, 13); v1 ^= v0; v0 = RotateLeft(v0, 32);
    v2 += v3; v3 = RotateLeft(v3, 16); v3 ^= v2;
    v0 += v3; v3 = RotateLeft(v3, 21); v3 ^= v0;
    v2 += v1; v1 = RotateLeft(v1, 17); v1 ^= v2; v2 = RotateLeft(v2, 32);
  };
  auto absorb = [&](uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  const size_t n = bytes.size(), whole = n & ~size_t{7};
  for (size_t i = 0; i < whole; i += 8) absorb(Load64(bytes.data() + i));
  uint64_t last = uint64_t{n & 0xff} << 56;  // the length's low byte, then the tail bytes
  for (size_t i = whole; i < n; ++i)
    last |= uint64_t{static_cast<uint8_t>(bytes[i])} << (8 * (i - whole));
  absorb(last);
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace hashes
}  // namespace cpu
}  // namespace opgen

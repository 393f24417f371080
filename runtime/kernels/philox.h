// The counter-based generator of TensorFlow's random ops, Philox4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3"), and the conversions TensorFlow makes
// from its 32-bit words to samples. Every output block is a pure function of (key,
// counter), so a kernel skips ahead to any block and threads or GPU lanes never
// change the numbers. Shared by the CPU kernels and the CUDA plugin (OPGEN_HD).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "host_device.h"

namespace opgen {
namespace philox {

// TensorFlow's algorithm ids (rng_alg.h).
constexpr int kAlgPhilox = 1;
constexpr int kAlgThreeFry = 2;
constexpr int kAlgAutoSelect = 3;

// Stateful kernels reserve this many 128-bit blocks per output element on each run, and
// a variable-rate distribution (truncated normal) this many words per output element.
constexpr int64_t kReservedPerOutput = 256;

struct Words { uint32_t w[4]; };

struct Generator {
  uint32_t counter[4] = {0, 0, 0, 0};
  uint32_t key[2] = {0, 0};

  // Seeded as a stateful kernel seeds itself from (seed, seed2).
  static OPGEN_HD Generator FromSeeds(uint64_t seed, uint64_t seed2) {
    Generator g;
    g.key[0] = static_cast<uint32_t>(seed);
    g.key[1] = static_cast<uint32_t>(seed >> 32);
    g.counter[2] = static_cast<uint32_t>(seed2);
    g.counter[3] = static_cast<uint32_t>(seed2 >> 32);
    return g;
  }
  // From the V2 ops' key ([1] uint64) and counter ([2] uint64) tensors.
  static OPGEN_HD Generator FromKeyCounter(const uint64_t* key, const uint64_t* counter) {
    Generator g;
    g.key[0] = static_cast<uint32_t>(key[0]);
    g.key[1] = static_cast<uint32_t>(key[0] >> 32);
    g.counter[0] = static_cast<uint32_t>(counter[0]);
    g.counter[1] = static_cast<uint32_t>(counter[0] >> 32);
    g.counter[2] = static_cast<uint32_t>(counter[1]);
    g.counter[3] = static_cast<uint32_t>(counter[1] >> 32);
    return g;
  }

  // Advances the 128-bit counter by `n` blocks.
  OPGEN_HD void Skip(uint64_t n) {
    const uint32_t lo = static_cast<uint32_t>(n);
    uint32_t hi = static_cast<uint32_t>(n >> 32);
    counter[0] += lo;
    if (counter[0] < lo) ++hi;
    counter[1] += hi;
    if (counter[1] < hi && ++counter[2] == 0) ++counter[3];
  }

  // The block at the current counter; then the counter moves on by one.
  OPGEN_HD Words Next() {
    Words x = {{counter[0], counter[1], counter[2], counter[3]}};
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k0 += 0x9E3779B9u;  // the Weyl increments of the key schedule
        k1 += 0xBB67AE85u;
      }
      const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * x.w[0];
      const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * x.w[2];
      const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
      const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
      x = Words{{hi1 ^ x.w[1] ^ k0, lo1, hi0 ^ x.w[3] ^ k1, lo0}};
    }
    if (++counter[0] == 0 && ++counter[1] == 0 && ++counter[2] == 0) ++counter[3];
    return x;
  }
};

// The stateless ops' seed scrambling: the [2] seed becomes a counter, hashed under a
// fixed key; the hash gives the key and the counter's upper half.
inline OPGEN_HD Generator FromStatelessSeed(uint64_t seed0, uint64_t seed1) {
  Generator mix;
  mix.key[0] = 0x3ec8f720u;
  mix.key[1] = 0x02461e29u;
  mix.counter[0] = static_cast<uint32_t>(seed0);
  mix.counter[1] = static_cast<uint32_t>(seed0 >> 32);
  mix.counter[2] = static_cast<uint32_t>(seed1);
  mix.counter[3] = static_cast<uint32_t>(seed1 >> 32);
  const Words m = mix.Next();
  Generator g;
  g.key[0] = m.w[0];
  g.key[1] = m.w[1];
  g.counter[2] = m.w[2];
  g.counter[3] = m.w[3];
  return g;
}

// Uniform [0, 1) from random mantissa bits under the exponent of 1.0, minus 1 (exact).
inline OPGEN_HD float WordToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}
inline OPGEN_HD double WordsToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}
// The 16-bit forms keep 10 (half) or 7 (bfloat16) mantissa bits; the value is exact in
// float, which the caller narrows.
inline OPGEN_HD float WordToHalfUniform(uint32_t x) {
  return static_cast<float>(x & 0x3ffu) / 1024.0f;
}
inline OPGEN_HD float WordToBFloat16Uniform(uint32_t x) {
  return static_cast<float>(x & 0x7fu) / 128.0f;
}

// Box-Muller on two words (float) or four (double), as TensorFlow computes it: the
// radius from the first uniform (floored at 1e-7), the angle from the second, 2*pi
// multiplied in double precision.
inline OPGEN_HD void BoxMullerFloat(uint32_t x0, uint32_t x1, float* z0, float* z1) {
  float u1 = WordToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float angle = static_cast<float>(2.0f * M_PI * WordToFloat(x1));
#if defined(__CUDA_ARCH__)
  const float radius = sqrtf(-2.0f * logf(u1));
  sincosf(angle, z0, z1);
#else
  const float radius = std::sqrt(-2.0f * std::log(u1));
  *z0 = std::sin(angle);
  *z1 = std::cos(angle);
#endif
  *z0 *= radius;
  *z1 *= radius;
}
inline OPGEN_HD void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* z0,
                                     double* z1) {
  double u1 = WordsToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double angle = 2 * M_PI * WordsToDouble(x2, x3);
  const double radius = sqrt(-2.0 * log(u1));
  *z0 = sin(angle) * radius;
  *z1 = cos(angle) * radius;
}

// Hands out a generator's words one at a time (the truncated normal's rejection loop).
struct WordStream {
  Generator* gen;
  Words block{};
  int used = 4;
  OPGEN_HD uint32_t operator()() {
    if (used == 4) {
      block = gen->Next();
      used = 0;
    }
    return block.w[used++];
  }
};

}  // namespace philox
}  // namespace opgen

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as LevelDB tables and
// TensorFlow's tensor bundles checksum their bytes, and the "masked" form they store
// (so that a crc of bytes that embed crcs is not itself a crc of them).
#pragma once

#include <cstddef>
#include <cstdint>

namespace opgen::crc32c {

// The crc of `data` continued from `crc` (0 to start).
uint32_t Extend(uint32_t crc, const void* data, size_t n);
inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace opgen::crc32c

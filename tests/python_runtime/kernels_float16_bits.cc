// Harness for test_kernels_float16_bits.py: runs dtypes.h's software half conversions
// (the ones used where the compiler has no _Float16). Reads little-endian float32 bit
// patterns on stdin and writes each one's half bits, then the float32 bits of all
// 65536 halves.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "dtypes.h"

int main() {
  using namespace opgen::cpu;
  std::vector<uint32_t> floats;
  uint32_t bits;
  while (std::fread(&bits, sizeof bits, 1, stdin) == 1) floats.push_back(bits);
  for (uint32_t f : floats) {
    const uint16_t h = FloatToHalfBitsSoftware(BitsFloat(f));
    std::fwrite(&h, sizeof h, 1, stdout);
  }
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t f = FloatBits(HalfBitsToFloatSoftware(static_cast<uint16_t>(h)));
    std::fwrite(&f, sizeof f, 1, stdout);
  }
  return 0;
}

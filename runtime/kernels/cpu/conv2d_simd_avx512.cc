// conv2d_simd_kernels.inc compiled for AVX-512F: 32 zmm registers hold 14 rows x 32
// channels of accumulators (7 x 64 for 7x7 maps, 14 x 16 for narrow outputs).
#include "conv2d_simd.h"
#include "conv2d_simd_isa.h"

namespace opgen {
namespace cpu {

#ifdef OPGEN_CONV_SIMD
namespace simd_avx512 {
using Isa = Avx512;
#define OPGEN_ISA_TARGET OPGEN_TARGET_AVX512
#include "conv2d_simd_kernels.inc"
#undef OPGEN_ISA_TARGET
}  // namespace simd_avx512

const SimdConvKernels* Avx512ConvKernels() {
  using namespace simd_avx512;
  static const SimdConvKernels kernels{"avx512",
                                       {14, 16, GemmBlock<14, 1>},
                                       {7, 64, GemmBlock<7, 4>},
                                       {14, 32, GemmBlock<14, 2>},
                                       WinogradFilter,
                                       WinogradInput,
                                       WinogradOutput};
  return &kernels;
}
#else
const SimdConvKernels* Avx512ConvKernels() { return nullptr; }
#endif

}  // namespace cpu
}  // namespace opgen

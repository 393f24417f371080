// conv2d_simd_kernels.inc compiled for AVX2 + FMA: 16 ymm registers hold 6 rows x 16
// channels of accumulators (12 + 2 for B + 1 broadcast); 5 x 16 where there are few
// pixels (7x7 maps: 49 rows in 10 slices, 5x5: 25 in 5), 12 x 8 for narrow outputs.
#include "conv2d_simd.h"
#include "conv2d_simd_isa.h"

namespace opgen {
namespace cpu {

#ifdef OPGEN_CONV_SIMD
namespace simd_avx2 {
using Isa = Avx2;
#define OPGEN_ISA_TARGET OPGEN_TARGET_AVX2
#include "conv2d_simd_kernels.inc"
#undef OPGEN_ISA_TARGET
}  // namespace simd_avx2

const SimdConvKernels* Avx2ConvKernels() {
  using namespace simd_avx2;
  static const SimdConvKernels kernels{"avx2",
                                       {12, 8, GemmBlock<12, 1>},
                                       {5, 16, GemmBlock<5, 2>},
                                       {6, 16, GemmBlock<6, 2>},
                                       WinogradFilter,
                                       WinogradInput,
                                       WinogradOutput};
  return &kernels;
}
#else
const SimdConvKernels* Avx2ConvKernels() { return nullptr; }
#endif

}  // namespace cpu
}  // namespace opgen

// The vectorised float32 convolutions: a register-blocked GEMM micro-kernel fed straight
// from the NHWC input (1x1, stride 1) or from im2col rows built per block of output
// pixels (conv2d_blocked.cc), and Winograd F(2x2, 3x3) for 3x3 stride-1 windows
// (conv2d_winograd.cc). The drivers are written once; the vector code under them
// (conv2d_simd_kernels.inc) is compiled once per instruction set: AVX-512 where the CPU
// has it, else AVX2 + FMA, else the caller's portable im2col + OpenBLAS path runs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "conv2d_float.h"

namespace opgen {
namespace cpu {

// The activations applied in registers; the rest run over the block afterwards.
// Sigmoid and Swish (EfficientNet's expanding 1x1 layers) go through vector_math.h's
// SigmoidOf / SwishOf, as the depthwise kernel's do.
enum InRegisterActivation : int {
  kInRegNone, kInRegRelu, kInRegRelu6, kInRegSigmoid, kInRegSwish, kInRegLater
};

// rows x columns [n0, n1) of C = A @ B (+ bias, activation; `side`, laid out as C, added
// before the activation): see GemmBlock in conv2d_simd_kernels.inc.
using GemmBlockFn = void (*)(int64_t rows, int64_t K, const float* a, int64_t lda,
                             const float* packed_b, int64_t pcol0, int64_t n0, int64_t n1,
                             float* c, int64_t ldc, const float* bias, int act,
                             const float* side);

// One register blocking: mr rows x nr (a multiple of the vector width) columns.
struct GemmKernel {
  int64_t mr, nr;
  GemmBlockFn run;
};

// Everything vectorised that one instruction set provides to the drivers.
struct SimdConvKernels {
  const char* name;
  GemmKernel narrow;      // outputs of at most narrow.nr channels
  GemmKernel few_pixels;  // fewer than 112 output pixels (7x7 maps)
  GemmKernel wide;        // everything else, and Winograd's 16 products
  // Winograd F(2x2, 3x3)'s transforms (conv2d_simd_kernels.inc says what each writes).
  void (*winograd_filter)(const float* filter, int64_t ic, int64_t oc, int64_t nr,
                          int64_t panel, float* u, int64_t j_stride);
  void (*winograd_input)(const Conv2DGeometry& g, const float* input, int64_t t0,
                         int64_t tiles, int64_t padded, int64_t ld, int64_t plane,
                         int64_t tiles_h, int64_t tiles_w, float* v);
  void (*winograd_output)(const Conv2DGeometry& g, const float* mm, int64_t t0, int64_t tiles,
                          int64_t plane, int64_t tiles_h, int64_t tiles_w, float* output,
                          const Epilogue& ep);
};

// The kernels of the widest instruction set this CPU runs, capped by the environment
// variable OPGEN_CPU_ISA (avx512, avx2 or portable; read once), or null for the portable
// path. Tests set the cap to run every path on one machine.
const SimdConvKernels* ConvKernels();

// Defined per instruction set (null where the compiler cannot target x86-64 SIMD).
const SimdConvKernels* Avx512ConvKernels();
const SimdConvKernels* Avx2ConvKernels();

// Compute the convolution and return true, or return false (writing nothing) where
// ConvKernels() is null or (Winograd) the shape does not suit.
bool Conv2DFloatBlocked(const Conv2DGeometry& g, const float* input, const float* filter,
                        float* output, const Epilogue& ep, FilterCache* cache = nullptr);
// 3x3, stride 1, undilated only; also false for too few output tiles or channels to
// repay the transforms.
bool Conv2DFloatWinograd(const Conv2DGeometry& g, const float* input, const float* filter,
                         float* output, const Epilogue& ep, FilterCache* cache = nullptr);

// Applies the activation only (the bias already added) to a [rows, cols] block whose
// rows are `ldc` floats apart. Defined in conv2d_float.cc.
void ApplyActivationBlock(float* out, int64_t rows, int64_t cols, int64_t ldc, const Epilogue& ep);

inline int InRegister(Activation a) {
  return a == Activation::kNone    ? kInRegNone
         : a == Activation::kRelu  ? kInRegRelu
         : a == Activation::kRelu6 ? kInRegRelu6
         : a == Activation::kSigmoid ? kInRegSigmoid
         : a == Activation::kSwish   ? kInRegSwish
                                   : kInRegLater;
}

// Columns [c0, c1) of B (the [K, N] filter) as panels of `nr` columns: panel p holds K
// rows of nr floats, zero-padded past c1. Contiguous panels keep the kernel's B loads on
// few pages and in prefetch order.
inline void PackFilterColumns(const float* filter, int64_t K, int64_t N, int64_t nr, int64_t c0,
                              int64_t c1, float* packed) {
  for (int64_t n0 = c0; n0 < c1; n0 += nr) {
    const int64_t cols = std::min(nr, c1 - n0);
    float* dst = packed + (n0 - c0) * K;
    for (int64_t k = 0; k < K; ++k, dst += nr) {
      std::memcpy(dst, filter + k * N + n0, sizeof(float) * cols);
      if (cols < nr) std::memset(dst + cols, 0, sizeof(float) * (nr - cols));
    }
  }
}

// A row stride for copied tiles of `k` floats: a 16-float multiple, never a 1 KiB
// multiple (MR rows 1 KiB apart would share a few L1 sets and evict each other).
inline int64_t TileStride(int64_t k) {
  const int64_t ld = (k + 15) / 16 * 16;
  return ld % 256 == 0 ? ld + 16 : ld;
}

// Per-thread buffers, grown as needed and kept: a task's A tile or packed filter chunk,
// and, on the calling thread, the A or packed filter that all tasks share.
inline float* Grown(std::vector<float>& buffer, size_t floats) {
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}
inline float* ThreadScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}
inline float* SharedAScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}
inline float* SharedBScratch(size_t floats) {
  thread_local std::vector<float> buffer;
  return Grown(buffer, floats);
}

}  // namespace cpu
}  // namespace opgen

// The AVX-512 float32 convolution: a register-blocked GEMM micro-kernel fed straight
// from the NHWC input (1x1, stride 1: the input already is the [pixels, ic] matrix) or
// from im2col rows built per block of output pixels, so that block stays in L2. Work is
// split into (pixel block x output-channel block) tasks over ParallelFor's pool; the bias
// and Relu/Relu6 are applied in registers, other activations per block while it is hot.
//
// Compiled for AVX-512 through function target attributes only, and entered only after
// a run-time CPU check, so the library still runs on any x86-64.
#pragma once

#include "conv2d_float.h"

namespace opgen {
namespace cpu {

// Computes the convolution and returns true, or returns false (and writes nothing)
// where this CPU has no AVX-512F.
bool Conv2DFloatAvx512(const Conv2DGeometry& g, const float* input, const float* filter,
                       float* output, const Epilogue& ep, FilterCache* cache = nullptr);

// 3x3, stride 1, undilated convolutions by Winograd F(2x2, 3x3) (conv2d_winograd.cc):
// returns false, writing nothing, for other shapes, too few output tiles or channels to
// repay the transforms, or a CPU without AVX-512F.
bool Conv2DFloatWinograd(const Conv2DGeometry& g, const float* input, const float* filter,
                         float* output, const Epilogue& ep, FilterCache* cache = nullptr);

// Applies the activation only (the bias already added) to a [rows, cols] block whose
// rows are `ldc` floats apart. Defined in conv2d_float.cc.
void ApplyActivationBlock(float* out, int64_t rows, int64_t cols, int64_t ldc, const Epilogue& ep);

}  // namespace cpu
}  // namespace opgen

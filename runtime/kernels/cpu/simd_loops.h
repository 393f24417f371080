// Float32 loops compiled several times, for AVX-512, for AVX2 with FMA and for the
// baseline, with the copy to run picked once by the CPU at load time (GCC's
// target_clones; numpy dispatches its loops the same way). The rest of the runtime is
// built for the x86-64 baseline, whose 4-wide SSE2 halves or quarters the speed of
// loops that are bound by arithmetic rather than memory.
#pragma once

#include <cstdint>
#include <type_traits>

namespace opgen {
namespace cpu {

// y[i] = tanh(x[i]), y[i] = exp(x[i]) (vector_math.h's algorithms, within 2 ulp).
void TanhFloatArray(const float* x, float* y, int64_t n);
void ExpFloatArray(const float* x, float* y, int64_t n);
// In place over x[0..n): x += bias (per element), and the activations the fused
// convolution and MatMul kernels apply (conv2d_float.h's Epilogue), with ExpFloat /
// TanhFloat so the loops vectorise. NaN stays NaN in all of them, as in TensorFlow's.
void AddFloatArray(float* x, const float* bias, int64_t n);
void ReluFloatArray(float* x, int64_t n);
void Relu6FloatArray(float* x, int64_t n);
void LeakyReluFloatArray(float* x, int64_t n, float alpha);
void SigmoidFloatArray(float* x, int64_t n);
void SwishFloatArray(float* x, int64_t n);   // x * sigmoid(x)
void TanhFloatArrayInPlace(float* x, int64_t n);
void GeluTanhFloatArray(float* x, int64_t n);  // the tanh approximation of GELU
// The largest / smallest of x[0..n) (-inf / +inf for n == 0), NaN when any is NaN.
float MaxFloatArray(const float* x, int64_t n);
float MinFloatArray(const float* x, int64_t n);

// Whether an op or reducer names one of these loops as its `kFloatArray`, which the
// kernel families then run on float32 data instead of their element-by-element loop.
template <typename Op, typename = void> struct HasFloatArray : std::false_type {};
template <typename Op>
struct HasFloatArray<Op, std::void_t<decltype(Op::kFloatArray)>> : std::true_type {};

}  // namespace cpu
}  // namespace opgen

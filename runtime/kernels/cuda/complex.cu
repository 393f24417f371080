// The complex family on the GPU: Complex (parts in, broadcast as numpy does), Real, Imag,
// Angle (complex in, one real value out) and Conj. complex64 pairs with float,
// complex128 with double. Twin of ../cpu/complex.cc; ComplexAbs is with the unary math.
#include "elementwise_ops.cuh"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {
namespace {

__device__ __forceinline__ float Atan2(float y, float x) { return atan2f(y, x); }
__device__ __forceinline__ double Atan2(double y, double x) { return atan2(y, x); }

template <typename R>
struct MakeComplexFn : Operands<ComplexParts<R>, R, R> {
  __device__ ComplexParts<R> operator()(R re, R im) const { return ComplexParts<R>(re, im); }
};
template <typename R>
struct RealFn : Operands<R, ComplexParts<R>> {
  __device__ R operator()(ComplexParts<R> z) const { return z.re; }
};
template <typename R>
struct ImagFn : Operands<R, ComplexParts<R>> {
  __device__ R operator()(ComplexParts<R> z) const { return z.im; }
};
template <typename R>
struct AngleFn : Operands<R, ComplexParts<R>> {
  __device__ R operator()(ComplexParts<R> z) const { return Atan2(z.im, z.re); }
};
template <typename R>
struct ConjFn : Operands<ComplexParts<R>, ComplexParts<R>> {
  __device__ ComplexParts<R> operator()(ComplexParts<R> z) const { return ComplexParts<R>(z.re, -z.im); }
};

template <typename R>
void ComplexCompute(void*, TF_OpKernelContext* ctx) {
  Call call;
  if (!Begin(ctx, 2, nullptr, false, &call) || !Plan(ctx, DtypeOf<ComplexParts<R>>::value, &call)) return;
  LaunchPieces(ctx, call.stream, MakeComplexFn<R>(), call.pieces,
               static_cast<ComplexParts<R>*>(TF_TensorData(call.out.get())), call.Data(0), call.Data(1),
               nullptr);
}

// Fn over each element of a complex tensor.
template <template <typename> class Fn, typename R>
void ComplexUnaryCompute(void*, TF_OpKernelContext* ctx) {
  using Out = typename Fn<R>::Out;
  Call call;
  if (!Begin(ctx, 1, nullptr, false, &call) || !Plan(ctx, DtypeOf<Out>::value, &call)) return;
  LaunchFlat(ctx, call.stream, Fn<R>(), NumElements(call.out_dims), static_cast<Out*>(TF_TensorData(call.out.get())),
             Operand<ComplexParts<R>>{static_cast<const ComplexParts<R>*>(call.Data(0)), false},
             Operand<NoInput>{nullptr, true}, Operand<NoInput>{nullptr, true});
}

template <typename R>
void RegisterForParts(TF_Status* status) {
  const TF_DataType real = DtypeOf<R>::value, complex = DtypeOf<ComplexParts<R>>::value;
  RegisterKernel(kDevice, {"Complex", {{"T", real}, {"Tout", complex}}, {}, &ComplexCompute<R>}, status);
  RegisterKernel(kDevice, {"Real", {{"T", complex}, {"Tout", real}}, {}, &ComplexUnaryCompute<RealFn, R>},
                 status);
  RegisterKernel(kDevice, {"Imag", {{"T", complex}, {"Tout", real}}, {}, &ComplexUnaryCompute<ImagFn, R>},
                 status);
  RegisterKernel(kDevice, {"Angle", {{"T", complex}, {"Tout", real}}, {}, &ComplexUnaryCompute<AngleFn, R>},
                 status);
  RegisterKernel(kDevice, {"Conj", {{"T", complex}}, {}, &ComplexUnaryCompute<ConjFn, R>}, status);
}

}  // namespace

void RegisterComplexKernels(TF_Status* status) {
  RegisterForParts<float>(status);
  RegisterForParts<double>(status);
}

}  // namespace cuda
}  // namespace opgen

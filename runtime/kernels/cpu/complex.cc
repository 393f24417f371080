// The complex family: Complex (parts in, broadcast as numpy does), Real, Imag, Angle
// (complex in, one real value out) and Conj. complex64 pairs with float, complex128
// with double. ComplexAbs is with the unary math (elementwise_math.cc).
#include "elementwise_ops.h"

namespace opgen {
namespace cpu {
namespace {

struct MakeComplexOp {
  template <typename R> static std::complex<R> Apply(R re, R im) { return {re, im}; }
};

struct RealPart { template <typename R> static R Apply(std::complex<R> z) { return z.real(); } };
struct ImagPart { template <typename R> static R Apply(std::complex<R> z) { return z.imag(); } };
// atan2(imag, real): the signs of zero parts pick the quadrant, as numpy's angle.
struct ArgOf { template <typename R> static R Apply(std::complex<R> z) { return std::arg(z); } };
struct ConjOf {
  template <typename R> static std::complex<R> Apply(std::complex<R> z) { return std::conj(z); }
};

// Out = Fn(x) element by element over a complex tensor of parts R.
template <typename Fn, typename R>
struct ComplexUnary {
  using Out = decltype(Fn::Apply(std::complex<R>()));
  static void Compute(void*, TF_OpKernelContext* ctx) {
    const TF_Tensor* x = BorrowInput(ctx, 0);
    if (!x) return;
    const std::vector<int64_t> dims = Dims(x);
    TF_Tensor* y = AllocateBorrowedOutput<Out>(ctx, 0, dims);
    if (!y) return;
    const std::complex<R>* xp = Data<std::complex<R>>(x);
    Out* yp = Data<Out>(y);
    ParallelFor(NumElements(dims), [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) yp[i] = Fn::Apply(xp[i]);
    });
  }
};

template <typename R>
void RegisterForParts(TF_Status* status) {
  const TF_DataType real = DtypeOf<R>::value, complex = DtypeOf<std::complex<R>>::value;
  RegisterKernel(kDevice, {"Complex", {{"T", real}, {"Tout", complex}}, {},
                           &Binary<MakeComplexOp>::Kernel<R>::Compute}, status);
  RegisterKernel(kDevice, {"Real", {{"T", complex}, {"Tout", real}}, {},
                           &ComplexUnary<RealPart, R>::Compute}, status);
  RegisterKernel(kDevice, {"Imag", {{"T", complex}, {"Tout", real}}, {},
                           &ComplexUnary<ImagPart, R>::Compute}, status);
  RegisterKernel(kDevice, {"Angle", {{"T", complex}, {"Tout", real}}, {},
                           &ComplexUnary<ArgOf, R>::Compute}, status);
  RegisterKernel(kDevice, {"Conj", {{"T", complex}}, {}, &ComplexUnary<ConjOf, R>::Compute},
                 status);
}

}  // namespace

void RegisterComplexKernels(TF_Status* status) {
  RegisterForParts<float>(status);
  RegisterForParts<double>(status);
}

}  // namespace cpu
}  // namespace opgen

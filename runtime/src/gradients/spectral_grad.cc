// Gradients of the FFT family. With TensorFlow's convention for complex tensors (the
// gradient is dL/dRe + i dL/dIm) a linear map's gradient is its adjoint applied to the
// output's gradient:
//   FFT:   F^H g = conj(FFT(conj g))            IFFT: F g / n = conj(IFFT(conj g))
//   RFFT:  n * IRFFT(g * [1, 1/2, ..., 1/2, 1 (even n) or 1/2])   (the adjoint, real part)
//   IRFFT: RFFT(g) * [1, 2, ..., 2, 1 (even n) or 2] / n
// each zero-padded back to the input's inner sizes where fft_length cropped the input.
#include <complex>
#include <string>
#include <vector>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

void ComplexFftGrad(GradBuilder& b, const char* same_op) {
  if (!b.needs(0)) return;
  b.Set(0, b.Op("Conj", {b.Op(same_op, {b.Op("Conj", {b.grad(0)})})}));
}

void FftGrad(GradBuilder& b) { ComplexFftGrad(b, "FFT"); }
void Fft2dGrad(GradBuilder& b) { ComplexFftGrad(b, "FFT2D"); }
void Fft3dGrad(GradBuilder& b) { ComplexFftGrad(b, "FFT3D"); }
void IfftGrad(GradBuilder& b) { ComplexFftGrad(b, "IFFT"); }
void Ifft2dGrad(GradBuilder& b) { ComplexFftGrad(b, "IFFT2D"); }
void Ifft3dGrad(GradBuilder& b) { ComplexFftGrad(b, "IFFT3D"); }

// `g` (the transform's inner sizes) zero-padded to x's shape: the op crops its input to
// fft_length, so the cropped-off part gets no gradient.
TF_Output PadToShapeOf(GradBuilder& b, TF_Output g, TF_Output x) {
  std::vector<int64_t> gs, xs;
  if (b.StaticShape(g, &gs) && b.StaticShape(x, &xs) && gs == xs) return g;
  const TF_Output after = b.Op("Sub", {b.ShapeOf(x), b.Op("Shape", {g})});
  const TF_Output paddings =
      b.Op("Pack", {std::vector<TF_Output>{b.Op("ZerosLike", {after}), after}}, {{"axis", 1}});
  return b.Op("Pad", {g, paddings});
}

// [w0, w, ..., w, w_last]: the weights of the h = n / 2 + 1 kept frequencies along the
// last axis, as a constant of `type`; w_last is w0 where n is even (frequency n / 2 is
// its own mirror), else w.
TF_Output FrequencyWeights(GradBuilder& b, int64_t n, double edge, double inner, TF_DataType type) {
  const int64_t h = n / 2 + 1;
  std::vector<double> w(h, inner);
  w[0] = edge;
  if (n % 2 == 0) w[h - 1] = edge;
  if (type == TF_COMPLEX128) {
    std::vector<std::complex<double>> c(w.begin(), w.end());
    return b.ConstTensor(type, {h}, c.data(), c.size() * sizeof(c[0]));
  }
  std::vector<std::complex<float>> c(w.begin(), w.end());
  return b.ConstTensor(type, {h}, c.data(), c.size() * sizeof(c[0]));
}

// fft_length as a constant, or an Unimplemented error naming the op.
bool ConstLengths(GradBuilder& b, const char* op, std::vector<int64_t>* n) {
  if (GradBuilder::ConstInts(b.input(1), n)) return true;
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               (std::string("the gradient of ") + op + " needs a constant fft_length").c_str());
  return false;
}

double Product(const std::vector<int64_t>& n) {
  double p = 1;
  for (int64_t d : n) p *= static_cast<double>(d);
  return p;
}

void RealFftGrad(GradBuilder& b, const char* op, const char* inverse_op) {
  if (!b.needs(0)) return;
  std::vector<int64_t> n;
  if (!ConstLengths(b, op, &n) || n.empty()) return;
  const TF_Output g = b.grad(0);
  const TF_Output weighted = b.Op("Mul", {g, FrequencyWeights(b, n.back(), 1.0, 0.5, b.dtype(g))});
  const TF_Output real = b.Op(inverse_op, {weighted, b.input(1)},
                              {{"Treal", b.dtype(b.input(0))}, {"Tcomplex", b.dtype(g)}});
  const TF_Output scaled = b.Op("Mul", {real, b.ScalarLike(Product(n), real)});
  b.Set(0, PadToShapeOf(b, scaled, b.input(0)));
}

void InverseRealFftGrad(GradBuilder& b, const char* op, const char* forward_op) {
  if (!b.needs(0)) return;
  std::vector<int64_t> n;
  if (!ConstLengths(b, op, &n) || n.empty()) return;
  const TF_DataType complex_type = b.dtype(b.input(0));
  const TF_Output spectrum = b.Op(forward_op, {b.grad(0), b.input(1)},
                                  {{"Treal", b.dtype(b.grad(0))}, {"Tcomplex", complex_type}});
  const double size = Product(n);
  const TF_Output weights =
      FrequencyWeights(b, n.back(), 1.0 / size, 2.0 / size, complex_type);
  b.Set(0, PadToShapeOf(b, b.Op("Mul", {spectrum, weights}), b.input(0)));
}

void RfftGrad(GradBuilder& b) { RealFftGrad(b, "RFFT", "IRFFT"); }
void Rfft2dGrad(GradBuilder& b) { RealFftGrad(b, "RFFT2D", "IRFFT2D"); }
void Rfft3dGrad(GradBuilder& b) { RealFftGrad(b, "RFFT3D", "IRFFT3D"); }
void IrfftGrad(GradBuilder& b) { InverseRealFftGrad(b, "IRFFT", "RFFT"); }
void Irfft2dGrad(GradBuilder& b) { InverseRealFftGrad(b, "IRFFT2D", "RFFT2D"); }
void Irfft3dGrad(GradBuilder& b) { InverseRealFftGrad(b, "IRFFT3D", "RFFT3D"); }

}  // namespace

void RegisterSpectralGradients() {
  RegisterGrad("FFT", FftGrad);
  RegisterGrad("FFT2D", Fft2dGrad);
  RegisterGrad("FFT3D", Fft3dGrad);
  RegisterGrad("IFFT", IfftGrad);
  RegisterGrad("IFFT2D", Ifft2dGrad);
  RegisterGrad("IFFT3D", Ifft3dGrad);
  RegisterGrad("RFFT", RfftGrad);
  RegisterGrad("RFFT2D", Rfft2dGrad);
  RegisterGrad("RFFT3D", Rfft3dGrad);
  RegisterGrad("IRFFT", IrfftGrad);
  RegisterGrad("IRFFT2D", Irfft2dGrad);
  RegisterGrad("IRFFT3D", Irfft3dGrad);
}

}  // namespace gradients
}  // namespace opgen

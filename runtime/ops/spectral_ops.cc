// The FFT family (tf.signal's transforms): FFT/IFFT, RFFT/IRFFT in 1, 2 and 3 inner
// dimensions. OpDefs as TensorFlow 2.21's.
#include <string>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// Complex to complex: the input's shape, of rank at least kRank.
template <int kRank>
void ComplexFftShape(ShapeFnContext& c) {
  c.SetOutput(0, c.InputWithRankAtLeast(0, kRank, "input"));
}

// Real <-> complex: the input's leading dims, then fft_length (its last entry n / 2 + 1
// for the forward transform) where it is a constant, else unknown sizes.
template <int kRank, bool kForward>
void RealFftShape(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRankAtLeast(0, kRank, "input");
  const PartialShape length = c.InputWithRank(1, 1, "fft_length");
  if (length.dims[0] != kUnknownDim && length.dims[0] != kRank)
    Fail("fft_length must have shape [" + std::to_string(kRank) + "], got " + length.ToString());
  if (!input.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  std::vector<int64_t> dims(input.dims.begin(), input.dims.end() - kRank);
  const auto n = c.InputInts(1);
  for (int i = 0; i < kRank; ++i) {
    int64_t d = n ? (*n)[i] : kUnknownDim;
    if (kForward && i == kRank - 1 && d != kUnknownDim) d = d / 2 + 1;
    dims.push_back(d);
  }
  c.SetOutput(0, PartialShape::Of(dims));
}

OpRegistration ComplexFft(const char* name, int rank, bool inverse) {
  static const OpShapeFn kShapes[] = {ShapeFn<ComplexFftShape<1>>, ShapeFn<ComplexFftShape<2>>,
                                      ShapeFn<ComplexFftShape<3>>};
  const std::string inner = rank == 1 ? "innermost dimension" : "inner-most " +
                            std::to_string(rank) + " dimensions";
  return {name, {"Tcomplex: {complex64, complex128} = DT_COMPLEX64"}, {"input: Tcomplex"},
          {"output: Tcomplex"}, kShapes[rank - 1],
          std::string(inverse ? "Inverse fast" : "Fast") + " Fourier transform over the " + inner +
              " of `input`.",
          inverse ? "Divided by the transform's size, so IFFT(FFT(x)) is x." : "",
          {{"input", "A complex tensor."},
           {"output", "The same shape as `input`, transformed over its " + inner + "."}}};
}

OpRegistration RealFft(const char* name, int rank, bool inverse) {
  static const OpShapeFn kForward[] = {ShapeFn<RealFftShape<1, true>>, ShapeFn<RealFftShape<2, true>>,
                                       ShapeFn<RealFftShape<3, true>>};
  static const OpShapeFn kInverse[] = {ShapeFn<RealFftShape<1, false>>,
                                       ShapeFn<RealFftShape<2, false>>,
                                       ShapeFn<RealFftShape<3, false>>};
  const std::string n = std::to_string(rank);
  return {name,
          {"Treal: {float, double} = DT_FLOAT", "Tcomplex: {complex64, complex128} = DT_COMPLEX64"},
          {inverse ? "input: Tcomplex" : "input: Treal", "fft_length: int32"},
          {inverse ? "output: Treal" : "output: Tcomplex"},
          inverse ? kInverse[rank - 1] : kForward[rank - 1],
          inverse ? "Inverse real-valued fast Fourier transform over the inner-most " + n +
                        " dimension(s) of `input`."
                  : "Real-valued fast Fourier transform over the inner-most " + n +
                        " dimension(s) of `input`.",
          inverse ? "The input holds the fft_length[-1] / 2 + 1 non-negative frequencies of a "
                    "Hermitian-symmetric signal; the imaginary parts of frequency 0 and, for an "
                    "even length, of the last one are not used. Inner dimensions longer than "
                    "needed are cropped."
                  : "Only the fft_length[-1] / 2 + 1 non-negative frequencies of the last "
                    "dimension are returned (the rest are their conjugates). Inner dimensions "
                    "longer than fft_length are cropped.",
          {{"input", inverse ? "A complex tensor of rank >= " + n + "." : "A real tensor of rank >= " + n + "."},
           {"fft_length", "An int32 tensor of shape [" + n + "]: the transform's size in each dimension."},
           {"output", inverse ? "The real signal: its inner dimensions are fft_length."
                              : "The transform: inner dimensions fft_length, the last one "
                                "fft_length[-1] / 2 + 1."}}};
}

}  // namespace

void RegisterSpectralOps(TF_Status* status) {
  RegisterOps({
      ComplexFft("FFT", 1, false), ComplexFft("IFFT", 1, true),
      ComplexFft("FFT2D", 2, false), ComplexFft("IFFT2D", 2, true),
      ComplexFft("FFT3D", 3, false), ComplexFft("IFFT3D", 3, true),
      RealFft("RFFT", 1, false), RealFft("IRFFT", 1, true),
      RealFft("RFFT2D", 2, false), RealFft("IRFFT2D", 2, true),
      RealFft("RFFT3D", 3, false), RealFft("IRFFT3D", 3, true),
  }, status);
}

}  // namespace opgen

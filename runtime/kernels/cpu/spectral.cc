// The FFT ops on the CPU: FFT/IFFT (complex, 1-3 inner dims), RFFT (real to the
// non-negative frequencies) and IRFFT (back, Hermitian symmetry assumed), as TensorFlow's
// raw ops: fft_length crops the input (it must be at least that long), inverses divide
// by the transform's size. The transforms are fft_plan.h's, in double precision.
#include <complex>
#include <string>
#include <vector>

#include "fft_plan.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

// The transform's inner dims, checked: the input's rank must be at least `rank`.
bool CheckRank(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims, int rank) {
  if (static_cast<int>(dims.size()) >= rank) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, "Input must have rank of at least " + std::to_string(rank) +
                                     " but got: " + ShapeString(dims));
  return false;
}

// fft_length as given: shape [rank], each >= 0.
bool ReadFftLength(TF_OpKernelContext* ctx, int rank, std::vector<int64_t>* lengths) {
  TensorPtr t = Input(ctx, 1);
  if (!t) return false;
  const std::vector<int64_t> dims = Dims(t.get());
  if (dims.size() != 1 || dims[0] != rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "fft_length must have shape [" + std::to_string(rank) + "]");
    return false;
  }
  const int32_t* v = Data<int32_t>(t);
  lengths->assign(v, v + rank);
  for (int i = 0; i < rank; ++i) {
    if ((*lengths)[i] < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "fft_length[" + std::to_string(i) + "] must >= 0, but got: " +
                                         std::to_string((*lengths)[i]));
      return false;
    }
  }
  return true;
}

// Transforms the inner `shape` (row-major) of each of `batch` blocks of `data`, all axes.
void TransformInner(Cplx* data, int64_t batch, const std::vector<int64_t>& shape, bool inverse,
                    size_t axes) {
  int64_t block = 1;
  for (int64_t d : shape) block *= d;
  for (size_t a = 0; a < axes; ++a) {
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < a; ++i) outer *= shape[i];
    for (size_t i = a + 1; i < shape.size(); ++i) inner *= shape[i];
    const int64_t n = shape[a];
    if (n <= 1) continue;
    const FftPlan plan(n);  // twiddles (and Bluestein's chirp) once per axis
    ParallelFor(batch * outer, [&](int64_t begin, int64_t end) {
      for (int64_t bo = begin; bo < end; ++bo) {
        const int64_t b = bo / outer, o = bo % outer;
        TransformAxis(plan, data + b * block + o * n * inner, 1, inner, inverse);
      }
    }, 1);
  }
}

// Copies the leading `to` corner of each [..., from] block of `src` (crops each inner dim),
// converting with `convert`.
template <typename S, typename F>
void CropInner(const S* src, int64_t batch, const std::vector<int64_t>& from,
               const std::vector<int64_t>& to, Cplx* dst, F convert) {
  const size_t r = from.size();
  int64_t from_block = 1, to_block = 1;
  for (size_t i = 0; i < r; ++i) from_block *= from[i], to_block *= to[i];
  if (to_block == 0) return;
  const int64_t rows = to_block / to[r - 1];
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t row = 0; row < rows; ++row) {
      // row -> its index in `from`'s layout
      int64_t rest = row, offset = 0, stride = from[r - 1];
      for (size_t i = r - 1; i-- > 0;) {
        offset += (rest % to[i]) * stride;
        rest /= to[i];
        stride *= from[i];
      }
      const S* s = src + b * from_block + offset;
      Cplx* d = dst + b * to_block + row * to[r - 1];
      for (int64_t j = 0; j < to[r - 1]; ++j) d[j] = convert(s[j]);
    }
  }
}

std::string TooShort(size_t dim, int64_t want, int64_t got) {
  return "Input dimension " + std::to_string(dim) + " must have length of at least " +
         std::to_string(want) + " but got: " + std::to_string(got);
}

template <typename C, int kRank, bool kInverse>
void ComplexFftCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> dims = Dims(x.get());
  if (!CheckRank(ctx, dims, kRank)) return;
  TensorPtr y = AllocateOutput<C>(ctx, 0, dims);
  if (!y) return;
  const int64_t total = NumElements(dims);
  if (total == 0) return;
  const std::vector<int64_t> inner(dims.end() - kRank, dims.end());
  const int64_t block = NumElements(inner), batch = total / block;
  std::vector<Cplx> buf(total);
  const C* in = Data<C>(x);
  for (int64_t i = 0; i < total; ++i) buf[i] = Cplx(in[i].real(), in[i].imag());
  TransformInner(buf.data(), batch, inner, kInverse, kRank);
  const double scale = kInverse ? 1.0 / static_cast<double>(block) : 1.0;
  C* out = Data<C>(y);
  using R = typename C::value_type;
  for (int64_t i = 0; i < total; ++i)
    out[i] = C(static_cast<R>(buf[i].real() * scale), static_cast<R>(buf[i].imag() * scale));
}

// RFFT: the input cropped to fft_length, transformed over all inner axes, the last axis
// kept to its fft_length / 2 + 1 non-negative frequencies.
template <typename R, int kRank>
void RealFftCompute(void*, TF_OpKernelContext* ctx) {
  using C = std::complex<R>;
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> dims = Dims(x.get());
  if (!CheckRank(ctx, dims, kRank)) return;
  std::vector<int64_t> n;
  if (!ReadFftLength(ctx, kRank, &n)) return;
  const size_t lead = dims.size() - kRank;
  for (int i = 0; i < kRank; ++i)
    if (dims[lead + i] < n[i]) return Fail(ctx, TF_INVALID_ARGUMENT, TooShort(lead + i, n[i], dims[lead + i]));
  std::vector<int64_t> out_dims(dims.begin(), dims.begin() + lead);
  out_dims.insert(out_dims.end(), n.begin(), n.end());
  const int64_t half = n.back() / 2 + 1;
  out_dims.back() = half;
  TensorPtr y = AllocateOutput<C>(ctx, 0, out_dims);
  if (!y) return;
  const int64_t out_total = NumElements(out_dims);
  if (out_total == 0) return;
  C* out = Data<C>(y);
  const int64_t batch = NumElements(std::vector<int64_t>(dims.begin(), dims.begin() + lead));
  const int64_t block = NumElements(n);
  if (block == 0) {  // a zero fft_length: nothing is summed
    for (int64_t i = 0; i < out_total; ++i) out[i] = C(0, 0);
    return;
  }
  std::vector<Cplx> buf(batch * block);
  CropInner(Data<R>(x), batch, std::vector<int64_t>(dims.begin() + lead, dims.end()), n,
            buf.data(), [](R v) { return Cplx(v, 0); });
  TransformInner(buf.data(), batch, n, false, kRank);
  const int64_t rows = batch * block / n.back();
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t k = 0; k < half; ++k) {
      const Cplx v = buf[row * n.back() + k];
      out[row * half + k] = C(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    }
}

// IRFFT: the input cropped to fft_length's outer dims and fft_length[-1] / 2 + 1; an
// inverse transform over the outer axes, then along the last axis from the Hermitian
// extension of the kept frequencies (the real part: the imaginary parts of frequency 0
// and, for even lengths, n / 2 do not count), divided by the transform's size.
template <typename R, int kRank>
void InverseRealFftCompute(void*, TF_OpKernelContext* ctx) {
  using C = std::complex<R>;
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> dims = Dims(x.get());
  if (!CheckRank(ctx, dims, kRank)) return;
  std::vector<int64_t> n;
  if (!ReadFftLength(ctx, kRank, &n)) return;
  const size_t lead = dims.size() - kRank;
  std::vector<int64_t> kept = n;
  const int64_t last = n.back(), half = last / 2 + 1;
  kept.back() = half;
  for (int i = 0; i < kRank; ++i)
    if (dims[lead + i] < kept[i])
      return Fail(ctx, TF_INVALID_ARGUMENT, TooShort(lead + i, kept[i], dims[lead + i]));
  std::vector<int64_t> out_dims(dims.begin(), dims.begin() + lead);
  out_dims.insert(out_dims.end(), n.begin(), n.end());
  TensorPtr y = AllocateOutput<R>(ctx, 0, out_dims);
  if (!y) return;
  const int64_t out_total = NumElements(out_dims);
  if (out_total == 0) return;
  const int64_t batch = NumElements(std::vector<int64_t>(dims.begin(), dims.begin() + lead));
  const int64_t kept_block = NumElements(kept);
  std::vector<Cplx> spec(batch * kept_block);
  CropInner(Data<C>(x), batch, std::vector<int64_t>(dims.begin() + lead, dims.end()), kept,
            spec.data(), [](C v) { return Cplx(v.real(), v.imag()); });
  TransformInner(spec.data(), batch, kept, true, kRank - 1);
  const int64_t rows = batch * kept_block / half;
  const double scale = 1.0 / static_cast<double>(NumElements(n));
  R* out = Data<R>(y);
  const FftPlan plan(last);
  ParallelFor(rows, [&](int64_t begin, int64_t end) {
    std::vector<Cplx> line(last), scratch;
    for (int64_t row = begin; row < end; ++row) {
      const Cplx* s = spec.data() + row * half;
      for (int64_t k = 0; k < half; ++k) line[k] = s[k];
      for (int64_t k = half; k < last; ++k) line[k] = std::conj(s[last - k]);
      plan.Run(line.data(), true, &scratch);
      for (int64_t j = 0; j < last; ++j) out[row * last + j] = static_cast<R>(line[j].real() * scale);
    }
  }, 1);
}

template <int kRank>
void RegisterRank(const char* fft, const char* ifft, const char* rfft, const char* irfft,
                  TF_Status* status) {
  using C64 = std::complex<float>;
  using C128 = std::complex<double>;
  RegisterKernel(kDevice, {fft, {{"Tcomplex", TF_COMPLEX64}}, {}, ComplexFftCompute<C64, kRank, false>}, status);
  RegisterKernel(kDevice, {fft, {{"Tcomplex", TF_COMPLEX128}}, {}, ComplexFftCompute<C128, kRank, false>}, status);
  RegisterKernel(kDevice, {ifft, {{"Tcomplex", TF_COMPLEX64}}, {}, ComplexFftCompute<C64, kRank, true>}, status);
  RegisterKernel(kDevice, {ifft, {{"Tcomplex", TF_COMPLEX128}}, {}, ComplexFftCompute<C128, kRank, true>}, status);
  RegisterKernel(kDevice, {rfft, {{"Treal", TF_FLOAT}, {"Tcomplex", TF_COMPLEX64}}, {},
                           RealFftCompute<float, kRank>}, status);
  RegisterKernel(kDevice, {rfft, {{"Treal", TF_DOUBLE}, {"Tcomplex", TF_COMPLEX128}}, {},
                           RealFftCompute<double, kRank>}, status);
  RegisterKernel(kDevice, {irfft, {{"Treal", TF_FLOAT}, {"Tcomplex", TF_COMPLEX64}}, {},
                           InverseRealFftCompute<float, kRank>}, status);
  RegisterKernel(kDevice, {irfft, {{"Treal", TF_DOUBLE}, {"Tcomplex", TF_COMPLEX128}}, {},
                           InverseRealFftCompute<double, kRank>}, status);
}

}  // namespace

// TensorFlow's CPU kernels: complex64/complex128, and the real transforms on the pairs
// float/complex64 and double/complex128.
void RegisterSpectralKernels(TF_Status* status) {
  RegisterRank<1>("FFT", "IFFT", "RFFT", "IRFFT", status);
  RegisterRank<2>("FFT2D", "IFFT2D", "RFFT2D", "IRFFT2D", status);
  RegisterRank<3>("FFT3D", "IFFT3D", "RFFT3D", "IRFFT3D", status);
}

}  // namespace cpu
}  // namespace opgen

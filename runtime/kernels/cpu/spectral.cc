// The FFT ops on the CPU: FFT/IFFT (complex, 1-3 inner dims), RFFT (real to the
// non-negative frequencies) and IRFFT (back, Hermitian symmetry assumed), as TensorFlow's
// raw ops: fft_length crops the input (it must be at least that long), inverses divide
// by the transform's size. The transforms are fft_plan.h's and fft_real.h's, in the
// input's precision (as TensorFlow's: complex64 in float), their plans cached per length.
#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "fft_cache.h"
#include "fft_plan.h"
#include "fft_real.h"
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

// Lines worth a thread of their own: about 16K values of work.
int64_t MinLines(int64_t n) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)); }

// Lines gathered per pass over a strided axis: contiguous runs of 16 values a row.
constexpr int64_t kColumnTile = 16;
// Side-by-side transforms (ComplexPlan::RunLanes) for tiles of at least this many lines
// (fewer leave most lanes idle) of at most kMaxLanesLength values (a tile in L2).
constexpr int64_t kMinLanes = 4;
constexpr int64_t kMaxLanesLength = 8192;

// A tile of `width` lines, line c's value j at base[c * line_stride + j * step], through
// the side-by-side transform: gathered split into real and imaginary parts (in
// bit-reversed order), lanes past `width` zero; read along whichever of lines and
// values is contiguous.
template <typename T>
void RunTile(const ComplexPlan<T>& plan, std::complex<T>* base, int64_t width, int64_t line_stride,
             int64_t step, bool inverse, std::vector<T>* re, std::vector<T>* im) {
  constexpr int64_t L = ComplexPlan<T>::kLanes;
  const int64_t n = plan.size();
  re->assign(L * n, T(0));
  im->assign(L * n, T(0));
  T* r = re->data();
  T* m = im->data();
  if (step == 1) {  // rows
    for (int64_t c = 0; c < width; ++c)
      for (int64_t j = 0; j < n; ++j) {
        const std::complex<T> v = base[c * line_stride + j];
        const int64_t at = plan.BitReversed(j) * L + c;
        r[at] = v.real(), m[at] = v.imag();
      }
  } else {  // columns
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < width; ++c) {
        const std::complex<T> v = base[c * line_stride + j * step];
        const int64_t at = plan.BitReversed(j) * L + c;
        r[at] = v.real(), m[at] = v.imag();
      }
  }
  plan.RunLanes(r, m, inverse);
  if (step == 1) {
    for (int64_t c = 0; c < width; ++c)
      for (int64_t j = 0; j < n; ++j) base[c * line_stride + j] = std::complex<T>(r[j * L + c], m[j * L + c]);
  } else {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < width; ++c)
        base[c * line_stride + j * step] = std::complex<T>(r[j * L + c], m[j * L + c]);
  }
}

// Transforms every line along the middle axis of `data`, viewed as [outer, n, inner], in
// tiles of 16 lines (rows where inner is 1, columns otherwise). Tiles are independent, so
// threads split them; a line's result is the same bits whichever way it is transformed.
template <typename T>
void TransformAxis(std::complex<T>* data, int64_t outer, int64_t n, int64_t inner, bool inverse) {
  if (n <= 1 || outer * inner == 0) return;
  const auto plan = CachedFftPlan<ComplexPlan<T>>(n);
  const bool lanes = plan->HasLanes() && n <= kMaxLanesLength;
  constexpr int64_t L = kColumnTile;
  static_assert(L == ComplexPlan<T>::kLanes, "a tile fills the lanes");
  if (inner == 1) {
    ParallelFor((outer + L - 1) / L, [&](int64_t begin, int64_t end) {
      FftScratch<T> scratch;
      std::vector<T> re, im;
      for (int64_t u = begin; u < end; ++u) {
        const int64_t first = u * L, width = std::min(L, outer - first);
        std::complex<T>* rows = data + first * n;
        if (lanes && width >= kMinLanes) {
          RunTile(*plan, rows, width, n, 1, inverse, &re, &im);
        } else {
          for (int64_t c = 0; c < width; ++c) plan->Run(rows + c * n, inverse, &scratch);
        }
      }
    }, MinLines(n * L));
    return;
  }
  const int64_t tiles = (inner + L - 1) / L;
  ParallelFor(outer * tiles, [&](int64_t begin, int64_t end) {
    FftScratch<T> scratch;
    std::vector<T> re, im;
    std::vector<std::complex<T>> lines(L * n);
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / tiles, first = (u % tiles) * L;
      const int64_t width = std::min(L, inner - first);
      std::complex<T>* base = data + o * n * inner + first;
      if (lanes && width >= kMinLanes) {
        RunTile(*plan, base, width, 1, inner, inverse, &re, &im);
        continue;
      }
      for (int64_t j = 0; j < n; ++j)
        for (int64_t c = 0; c < width; ++c) lines[c * n + j] = base[j * inner + c];
      for (int64_t c = 0; c < width; ++c) plan->Run(lines.data() + c * n, inverse, &scratch);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t c = 0; c < width; ++c) base[j * inner + c] = lines[c * n + j];
    }
  }, MinLines(n * L));
}

// Transforms the leading `axes` axes of `shape` (row-major) in each of `batch` blocks.
template <typename T>
void TransformInner(std::complex<T>* data, int64_t batch, const std::vector<int64_t>& shape,
                    size_t axes, bool inverse) {
  for (size_t a = 0; a < axes; ++a) {
    int64_t outer = batch, inner = 1;
    for (size_t i = 0; i < a; ++i) outer *= shape[i];
    for (size_t i = a + 1; i < shape.size(); ++i) inner *= shape[i];
    TransformAxis(data, outer, shape[a], inner, inverse);
  }
}

// Where row `row` of [batch, to[0], ..., to[r - 2]] starts in [batch, from...]: the inner
// dims of `from` are at least `to`'s (the crop keeps each one's leading corner).
int64_t SourceRow(int64_t row, const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  int64_t offset = 0, stride = from.back();
  for (size_t i = from.size() - 1; i-- > 0;) {
    offset += (row % to[i]) * stride;
    row /= to[i];
    stride *= from[i];
  }
  return offset + row * stride;
}

std::string TooShort(size_t dim, int64_t want, int64_t got) {
  return "Input dimension " + std::to_string(dim) + " must have length of at least " +
         std::to_string(want) + " but got: " + std::to_string(got);
}

// FFT/IFFT in the input's own precision, in place in the output.
template <typename C, int kRank, bool kInverse>
void ComplexFftCompute(void*, TF_OpKernelContext* ctx) {
  using T = typename C::value_type;
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
  C* out = Data<C>(y);
  std::memcpy(static_cast<void*>(out), Data<C>(x), sizeof(C) * total);
  TransformInner(out, batch, inner, kRank, kInverse);
  if (!kInverse || block == 1) return;
  const T scale = static_cast<T>(1.0 / static_cast<double>(block));
  ParallelFor(total, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = C(out[i].real() * scale, out[i].imag() * scale);
  });
}

// RFFT: the input cropped to fft_length; the real transform along the last axis (its
// fft_length / 2 + 1 non-negative frequencies), then complex ones along the others.
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
  const int64_t last = n.back(), half = last / 2 + 1;
  out_dims.back() = half;
  TensorPtr y = AllocateOutput<C>(ctx, 0, out_dims);
  if (!y) return;
  const int64_t out_total = NumElements(out_dims);
  if (out_total == 0) return;
  C* out = Data<C>(y);
  if (NumElements(n) == 0) {  // a zero fft_length: nothing is summed
    for (int64_t i = 0; i < out_total; ++i) out[i] = C(0, 0);
    return;
  }
  const int64_t batch = NumElements(std::vector<int64_t>(dims.begin(), dims.begin() + lead));
  const std::vector<int64_t> from(dims.begin() + lead, dims.end());
  const R* in = Data<R>(x);
  const auto plan = CachedFftPlan<RealPlan<R>>(last);
  const bool lanes = plan->HasLanes() && last <= 2 * kMaxLanesLength;
  constexpr int64_t L = kColumnTile;
  const int64_t rows = out_total / half;
  ParallelFor((rows + L - 1) / L, [&](int64_t begin, int64_t end) {
    FftScratch<R> scratch;
    std::vector<R> re, im;
    const R* lines[L];
    for (int64_t u = begin; u < end; ++u) {
      const int64_t first = u * L, width = std::min(L, rows - first);
      for (int64_t c = 0; c < width; ++c) lines[c] = in + SourceRow(first + c, from, n);
      if (lanes && width >= kMinLanes) {
        re.resize(L * last / 2);
        im.resize(L * last / 2);
        plan->ForwardLanes(lines, width, out + first * half, half, re.data(), im.data());
        continue;
      }
      for (int64_t c = 0; c < width; ++c) plan->Forward(lines[c], out + (first + c) * half, &scratch);
    }
  }, MinLines(last * L));
  std::vector<int64_t> spectrum = n;
  spectrum.back() = half;
  TransformInner(out, batch, spectrum, kRank - 1, false);
}

// IRFFT: the input cropped to fft_length's outer dims and fft_length[-1] / 2 + 1; an
// inverse transform over the outer axes, then the real inverse along the last axis from
// the Hermitian extension of the kept frequencies (the imaginary parts of frequency 0
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
  std::vector<int64_t> from(dims.begin() + lead, dims.end());
  const C* spec = Data<C>(x);
  std::vector<C> copy;
  if (kRank > 1) {  // the outer axes transformed in a cropped copy
    const int64_t kept_rows = batch * NumElements(kept) / half;
    copy.resize(kept_rows * half);
    for (int64_t row = 0; row < kept_rows; ++row)
      std::memcpy(static_cast<void*>(copy.data() + row * half), spec + SourceRow(row, from, kept),
                  sizeof(C) * half);
    TransformInner(copy.data(), batch, kept, kRank - 1, true);
    spec = copy.data();
    from = kept;
  }
  const R scale = static_cast<R>(1.0 / static_cast<double>(NumElements(n)));
  R* out = Data<R>(y);
  const auto plan = CachedFftPlan<RealPlan<R>>(last);
  const bool lanes = plan->HasLanes() && last <= 2 * kMaxLanesLength;
  constexpr int64_t L = kColumnTile;
  const int64_t rows = out_total / last;
  ParallelFor((rows + L - 1) / L, [&](int64_t begin, int64_t end) {
    FftScratch<R> scratch;
    std::vector<R> re, im;
    const C* lines[L];
    for (int64_t u = begin; u < end; ++u) {
      const int64_t first = u * L, width = std::min(L, rows - first);
      for (int64_t c = 0; c < width; ++c) lines[c] = spec + SourceRow(first + c, from, kept);
      R* block = out + first * last;
      if (lanes && width >= kMinLanes) {
        re.resize(L * last / 2);
        im.resize(L * last / 2);
        plan->InverseLanes(lines, width, block, last, re.data(), im.data());
      } else {
        for (int64_t c = 0; c < width; ++c) plan->Inverse(lines[c], block + c * last, &scratch);
      }
      for (int64_t j = 0; j < width * last; ++j) block[j] *= scale;
    }
  }, MinLines(last * L));
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

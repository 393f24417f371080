// CPU kernels of the audio ops (../../ops/audio_ops.cc): DecodeWav, EncodeWav,
// AudioSpectrogram and Mfcc, with TensorFlow's results and messages. The spectrogram and
// the MFCC filterbank compute in double, as TensorFlow's kernels do, and round to float
// at the end. Host only, as in TensorFlow.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "../../src/string_tensor.h"
#include "fft_cache.h"
#include "fft_real.h"
#include "kernel_util.h"
#include "parallel.h"
#include "string_outputs.h"
#include "wav_format.h"

namespace opgen {
namespace cpu {
namespace {

bool ConstructionOk(TF_OpKernelConstruction* ctx, TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelConstruction_Failure(ctx, s);
  return false;
}

// An int attr TensorFlow's kernel reads as an int32, with its message when it does not fit.
int32_t Int32Attr(TF_OpKernelConstruction* ctx, const char* name, TF_Status* s) {
  int64_t v = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, name, &v, s);
  if (TF_GetCode(s) == TF_OK && (v < INT32_MIN || v > INT32_MAX))
    TF_SetStatus(s, TF_INVALID_ARGUMENT, ("Attr " + std::string(name) + " has value " +
                                          std::to_string(v) + " out of range for an int32").c_str());
  return static_cast<int32_t>(v);
}

// A scalar int32 sample_rate input, or nullopt-like false after reporting TF's message.
bool SampleRate(TF_OpKernelContext* ctx, int i, int32_t* rate) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (t == nullptr) return false;
  if (TF_NumDims(t) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Input sample_rate should be a scalar tensor, got " +
                                       ShapeString(Dims(t)) + " instead.");
    return false;
  }
  *rate = *Data<int32_t>(t);
  return true;
}

// ---- DecodeWav ------------------------------------------------------------------------

struct DecodeWavAttrs {
  int32_t channels = -1, samples = -1;
};

void* CreateDecodeWav(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  DecodeWavAttrs a;
  a.channels = Int32Attr(ctx, "desired_channels", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a.samples = Int32Attr(ctx, "desired_samples", s.get());
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new DecodeWavAttrs(a);
}
void DeleteDecodeWav(void* a) { delete static_cast<DecodeWavAttrs*>(a); }

void DecodeWavCompute(void* state, TF_OpKernelContext* ctx) {
  const DecodeWavAttrs& a = *static_cast<DecodeWavAttrs*>(state);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  if (TF_NumDims(in) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "contents must be scalar, got shape " + ShapeString(Dims(in)));
  if (a.channels < -1)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "desired_channels must be >= -1, got " + std::to_string(a.channels));
  if (a.samples < -1)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "desired_samples must be >= -1, got " + std::to_string(a.samples));
  wav::Decoded wav;
  const std::string error = wav::Decode(StringElement(StringElements(in)), &wav);
  if (!error.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, error);
  const int64_t in_frames = wav.frames, in_channels = wav.channels;
  const int64_t frames = a.samples == -1 ? in_frames : a.samples;
  const int64_t channels = a.channels == -1 ? in_channels : a.channels;
  TensorPtr audio = AllocateOutput<float>(ctx, 0, {frames, channels});
  TensorPtr rate = audio ? AllocateOutput<int32_t>(ctx, 1, {}) : nullptr;
  if (!rate) return;
  *Data<int32_t>(rate) = static_cast<int32_t>(wav.sample_rate);
  float* out = Data<float>(audio);
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t c = 0; c < channels; ++c) {
      // Missing channels repeat the file's last one; missing frames are silence.
      const int64_t source = c < in_channels ? c : in_channels - 1;
      out[f * channels + c] = f < in_frames ? wav.samples[f * in_channels + source] : 0.0f;
    }
}

// ---- EncodeWav ------------------------------------------------------------------------

void EncodeWavCompute(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* audio = BorrowInput(ctx, 0);
  if (audio == nullptr) return;
  const std::vector<int64_t> dims = Dims(audio);
  if (dims.size() != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, "audio must be 2-dimensional" + ShapeString(dims));
  int32_t rate = 0;
  if (!SampleRate(ctx, 1, &rate)) return;
  if (NumElements(dims) >= INT32_MAX)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Cannot encode audio with >= max int32 elements");
  std::string bytes;
  const std::string error = wav::Encode(Data<float>(audio), rate, dims[1], dims[0], &bytes);
  if (!error.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, error);
  TensorPtr out = strings::NewStrings(ctx, {});
  if (out && strings::Put(ctx, MutableStringElements(out.get()), bytes))
    strings::SetOut(ctx, 0, out);
}

// ---- AudioSpectrogram -----------------------------------------------------------------

struct SpectrogramAttrs {
  int32_t window = 0, stride = 0;
  bool squared = false;
};

void* CreateSpectrogram(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  SpectrogramAttrs a;
  a.window = Int32Attr(ctx, "window_size", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a.stride = Int32Attr(ctx, "stride", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a.squared = kernels::BoolAttr(ctx, "magnitude_squared", s.get());
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new SpectrogramAttrs(a);
}
void DeleteSpectrogram(void* a) { delete static_cast<SpectrogramAttrs*>(a); }

void SpectrogramCompute(void* state, TF_OpKernelContext* ctx) {
  const SpectrogramAttrs& a = *static_cast<SpectrogramAttrs*>(state);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  const std::vector<int64_t> dims = Dims(in);
  if (dims.size() != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, "input must be 2-dimensional" + ShapeString(dims));
  // TensorFlow needs a window of 2 or more and a positive stride; windows past 2^30
  // would need an FFT length past int32 (TensorFlow's kernel crashes on them).
  if (a.window < 2 || a.stride < 1 || a.window > (1 << 30))
    return Fail(ctx, TF_INVALID_ARGUMENT, "Spectrogram initialization failed for window size " +
                                              std::to_string(a.window) + " and stride " +
                                              std::to_string(a.stride));
  int64_t fft = 1;
  while (fft < a.window) fft *= 2;
  const int64_t samples = dims[0], channels = dims[1], width = 1 + fft / 2;
  const int64_t frames = samples < a.window ? 0 : 1 + (samples - a.window) / a.stride;
  TensorPtr out = AllocateOutput<float>(ctx, 0, {channels, frames, width});
  if (!out || frames == 0 || channels == 0) return;
  // The periodic Hann window; the window fits in the input here, so its tables do too.
  std::vector<double> hann(a.window);
  const double pi = std::atan(1.0) * 4.0;
  for (int64_t j = 0; j < a.window; ++j)
    hann[j] = 0.5 - 0.5 * std::cos((2.0 * pi * static_cast<double>(j)) / a.window);
  const auto plan = CachedFftPlan<RealPlan<double>>(fft);
  const float* x = Data<float>(in);
  float* y = Data<float>(out);
  ParallelFor(channels * frames, [&](int64_t first, int64_t last) {
    std::vector<double> line(fft, 0.0);
    std::vector<std::complex<double>> spectrum(fft / 2 + 1);
    FftScratch<double> scratch;
    for (int64_t r = first; r < last; ++r) {
      const int64_t c = r / frames, start = (r % frames) * a.stride;
      for (int64_t j = 0; j < a.window; ++j)
        line[j] = static_cast<double>(x[(start + j) * channels + c]) * hann[j];
      std::fill(line.begin() + a.window, line.end(), 0.0);
      plan->Forward(line.data(), spectrum.data(), &scratch);
      float* row = y + r * width;
      for (int64_t k = 0; k < width; ++k) {
        const double re = spectrum[k].real(), im = spectrum[k].imag();
        const float power = static_cast<float>(re * re + im * im);
        row[k] = a.squared ? power : std::sqrt(power);
      }
    }
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(fft, 1)));
}

// ---- Mfcc -----------------------------------------------------------------------------

struct MfccAttrs {
  float upper = 4000, lower = 20;
  int32_t filters = 40, coefficients = 13;
};

void* CreateMfcc(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  MfccAttrs a;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "upper_frequency_limit", &a.upper, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrFloat(ctx, "lower_frequency_limit", &a.lower, s.get());
  if (TF_GetCode(s.get()) == TF_OK) a.filters = Int32Attr(ctx, "filterbank_channel_count", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a.coefficients = Int32Attr(ctx, "dct_coefficient_count", s.get());
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new MfccAttrs(a);
}
void DeleteMfcc(void* a) { delete static_cast<MfccAttrs*>(a); }

double FreqToMel(double hz) { return 1127.0 * std::log1p(hz / 700.0); }

// The mel filterbank over `bins` spectrogram bins and the DCT-II after it, as TensorFlow
// builds them: each bin in [start, end] feeds the falling edge of filter band[i]
// (weight[i]) and the rising edge of filter band[i] + 1 (1 - weight[i]).
struct MfccPlan {
  int64_t filters = 0, coefficients = 0, start = 0, end = -1;
  bool silent = false;  // the top bin lies past the input: every output is 0, as in TF
  std::vector<int64_t> band;
  std::vector<double> weight, cosines;

  MfccPlan(const MfccAttrs& a, int64_t bins, int32_t rate)
      : filters(a.filters), coefficients(a.coefficients) {
    const double lower = a.lower, upper = a.upper;
    const double mel_low = FreqToMel(lower), mel_span = FreqToMel(upper) - mel_low;
    std::vector<double> centers(filters + 1);
    for (int64_t i = 0; i <= filters; ++i)
      centers[i] = mel_low + (mel_span / static_cast<double>(filters + 1)) * static_cast<double>(i + 1);
    const double hz_per_bin = 0.5 * rate / static_cast<double>(bins - 1);
    const double top = upper / hz_per_bin;
    silent = !(top < static_cast<double>(bins));
    if (!silent) {
      end = static_cast<int64_t>(top);
      start = static_cast<int64_t>(1.5 + lower / hz_per_bin);
    }
    band.assign(bins, -2);
    weight.assign(bins, 0.0);
    int64_t channel = 0;
    for (int64_t i = start; i <= end && i < bins; ++i) {
      const double mel = FreqToMel(static_cast<double>(i) * hz_per_bin);
      while (channel < filters && centers[channel] < mel) ++channel;
      band[i] = channel - 1;
      weight[i] = channel - 1 >= 0
                      ? (centers[channel] - mel) / (centers[channel] - centers[channel - 1])
                      : (centers[0] - mel) / (centers[0] - mel_low);
    }
    cosines.resize(coefficients * filters);
    const double norm = std::sqrt(2.0 / static_cast<double>(filters));
    const double arg = (std::atan(1.0) * 4.0) / static_cast<double>(filters);
    for (int64_t i = 0; i < coefficients; ++i)
      for (int64_t j = 0; j < filters; ++j)
        cosines[i * filters + j] =
            norm * std::cos(static_cast<double>(i) * arg * (static_cast<double>(j) + 0.5));
  }

  void Run(const float* spectrum, std::vector<double>* work, float* out) const {
    if (silent) {
      std::fill(out, out + coefficients, 0.0f);
      return;
    }
    work->assign(filters, 0.0);
    for (int64_t i = start; i <= end; ++i) {
      const double magnitude = std::sqrt(static_cast<double>(spectrum[i]));
      const double falling = magnitude * weight[i];
      const int64_t channel = band[i];
      if (channel >= 0) (*work)[channel] += falling;
      if (channel + 1 < filters) (*work)[channel + 1] += magnitude - falling;
    }
    for (double& v : *work) {
      if (v < 1e-12) v = 1e-12;
      v = std::log(v);
    }
    for (int64_t i = 0; i < coefficients; ++i) {
      double sum = 0.0;
      for (int64_t j = 0; j < filters; ++j) sum += cosines[i * filters + j] * (*work)[j];
      out[i] = static_cast<float>(sum);
    }
  }
};

void MfccCompute(void* state, TF_OpKernelContext* ctx) {
  const MfccAttrs& a = *static_cast<MfccAttrs*>(state);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  const std::vector<int64_t> dims = Dims(in);
  if (dims.size() != 3)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "spectrogram must be 3-dimensional" + ShapeString(dims));
  int32_t rate = 0;
  if (!SampleRate(ctx, 1, &rate)) return;
  const int64_t bins = dims[2];
  // TensorFlow's checks of the filterbank and the DCT; a NaN lower limit (on which
  // TensorFlow's kernel crashes) fails them too.
  const double lower = a.lower, upper = a.upper;
  const bool ok = a.filters >= 1 && a.filters < INT32_MAX - 1 && rate > 0 && bins >= 2 &&
                  bins <= INT32_MAX && lower >= 0 && !(upper <= lower) && !std::isnan(lower) &&
                  a.coefficients >= 1 && a.coefficients <= a.filters;
  if (!ok)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Mfcc initialization failed for channel count " + std::to_string(bins) +
                    ", sample rate " + std::to_string(rate) + " and filterbank_channel_count " +
                    std::to_string(a.filters));
  TensorPtr out = AllocateOutput<float>(ctx, 0, {dims[0], dims[1], a.coefficients});
  const int64_t rows = dims[0] * dims[1];
  if (!out || rows == 0) return;
  std::unique_ptr<MfccPlan> plan;
  try {
    plan.reset(new MfccPlan(a, bins, rate));
  } catch (const std::bad_alloc&) {
    return Fail(ctx, TF_RESOURCE_EXHAUSTED, "Mfcc: out of memory for " +
                                                std::to_string(a.filters) + " filters");
  }
  const float* x = Data<float>(in);
  float* y = Data<float>(out);
  ParallelFor(rows, [&](int64_t first, int64_t last) {
    std::vector<double> work;
    for (int64_t r = first; r < last; ++r) plan->Run(x + r * bins, &work, y + r * a.coefficients);
  }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(bins, 1)));
}

}  // namespace

void RegisterAudioKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"DecodeWav", {}, {}, DecodeWavCompute, CreateDecodeWav,
                           DeleteDecodeWav}, status);
  RegisterKernel(kDevice, {"EncodeWav", {}, {}, EncodeWavCompute}, status);
  RegisterKernel(kDevice, {"AudioSpectrogram", {}, {}, SpectrogramCompute, CreateSpectrogram,
                           DeleteSpectrogram}, status);
  RegisterKernel(kDevice, {"Mfcc", {}, {}, MfccCompute, CreateMfcc, DeleteMfcc}, status);
}

}  // namespace cpu
}  // namespace opgen

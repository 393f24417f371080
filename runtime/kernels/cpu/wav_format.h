// 16-bit PCM RIFF WAVE files as TensorFlow's DecodeWav and EncodeWav read and write them:
// "RIFF", a size (not checked), "WAVE", a "fmt " chunk of 16 or 18 bytes first, then
// chunks up to the end of the data, of which exactly one is "data"; other chunks are
// skipped by their declared size. Samples are little-endian int16 / 32768.
#ifndef OPGEN_RUNTIME_KERNELS_CPU_WAV_FORMAT_H_
#define OPGEN_RUNTIME_KERNELS_CPU_WAV_FORMAT_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opgen {
namespace cpu {
namespace wav {

struct Decoded {
  std::vector<float> samples;  // frames x channels, interleaved
  uint32_t channels = 0, frames = 0, sample_rate = 0;
};

// Reads little-endian fields from the front of a byte string.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return pos_ >= bytes_.size(); }
  // false when fewer than n bytes are left (then nothing is consumed)
  bool Take(uint64_t n, std::string_view* out) {
    if (pos_ > bytes_.size() || n > bytes_.size() - pos_) return false;
    *out = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  template <typename T>
  bool Value(T* v) {
    std::string_view b;
    if (!Take(sizeof(T), &b)) return false;
    uint64_t x = 0;
    for (size_t k = 0; k < sizeof(T); ++k) x |= uint64_t{static_cast<uint8_t>(b[k])} << (8 * k);
    *v = static_cast<T>(x);
    return true;
  }
  // Moves past n bytes, possibly past the end (as TensorFlow skips unknown chunks).
  void Skip(uint64_t n) { pos_ = n > UINT64_MAX - pos_ ? UINT64_MAX : pos_ + n; }

 private:
  std::string_view bytes_;
  uint64_t pos_ = 0;
};

// "" on success, else TensorFlow's message.
inline std::string Decode(std::string_view bytes, Decoded* out) {
  const std::string kShort = "Data too short when trying to read string";
  Reader r(bytes);
  std::string_view id;
  uint32_t riff_size = 0, fmt_size = 0, rate = 0, bytes_per_second = 0;
  uint16_t format = 0, channels = 0, block = 0, bits = 0;
  if (!r.Take(4, &id)) return kShort;
  if (id != "RIFF") return "Header mismatch: Expected RIFF but found " + std::string(id);
  if (!r.Value(&riff_size) || !r.Take(4, &id)) return kShort;
  if (id != "WAVE") return "Header mismatch: Expected WAVE but found " + std::string(id);
  if (!r.Take(4, &id)) return kShort;
  if (id != "fmt ") return "Unexpected field " + std::string(id);
  if (!r.Value(&fmt_size)) return kShort;
  if (fmt_size != 16 && fmt_size != 18)
    return "Bad format chunk size for WAV: Expected 16 or 18, but got" + std::to_string(fmt_size);
  if (!r.Value(&format)) return kShort;
  if (format != 1)
    return "Bad audio format for WAV: Expected 1 (PCM), but got" + std::to_string(format);
  if (!r.Value(&channels)) return kShort;
  if (channels < 1)
    return "Bad number of channels for WAV: Expected at least 1, but got " +
           std::to_string(channels);
  if (!r.Value(&rate) || !r.Value(&bytes_per_second) || !r.Value(&block) || !r.Value(&bits))
    return kShort;
  if (bits != 16) return "Can only read 16-bit WAV files, but received " + std::to_string(bits);
  const uint32_t expected_block = (uint32_t{bits} * channels + 7) / 8;
  if (block != expected_block)
    return "Bad bytes per sample in WAV header: Expected " + std::to_string(expected_block) +
           " but got " + std::to_string(block);
  const uint64_t expected_rate = uint64_t{block} * rate;
  if (expected_rate != bytes_per_second)
    return "Bad bytes per second in WAV header: Expected " + std::to_string(expected_rate) +
           " but got " + std::to_string(bytes_per_second) + " (sample_rate=" +
           std::to_string(rate) + ", bytes_per_sample=" + std::to_string(block) + ")";
  if (fmt_size == 18) r.Skip(2);
  bool found = false;
  while (!r.done()) {
    uint32_t size = 0;
    if (!r.Take(4, &id) || !r.Value(&size)) return kShort;
    if (size > static_cast<uint32_t>(INT32_MAX))
      return "WAV data chunk '" + std::string(id) + "' is too large: " + std::to_string(size) +
             " bytes, but the limit is " + std::to_string(INT32_MAX);
    if (id != "data") {
      r.Skip(size);
      continue;
    }
    if (found) return "More than one data chunk found in WAV";
    found = true;
    out->frames = size / block;
    const uint64_t count = uint64_t{out->frames} * channels;
    std::string_view data;
    if (!r.Take(2 * count, &data)) return kShort;
    out->samples.resize(count);
    for (uint64_t k = 0; k < count; ++k) {
      const uint16_t lo = static_cast<uint8_t>(data[2 * k]), hi = static_cast<uint8_t>(data[2 * k + 1]);
      out->samples[k] = static_cast<int16_t>(lo | (hi << 8)) * (1.0f / 32768.0f);
    }
  }
  if (!found) return "No data chunk found in WAV";
  out->channels = channels;
  out->sample_rate = rate;
  return "";
}

// A sample as int16: scaled by 32768, rounded half away from zero, clamped; NaN is 0.
inline int16_t ToInt16(float v) {
  if (std::isnan(v)) return 0;
  const float scaled = std::round(v * 32768.0f);
  if (scaled <= -32768.0f) return INT16_MIN;
  if (scaled >= 32767.0f) return INT16_MAX;
  return static_cast<int16_t>(scaled);
}

// The header fields are written modulo their widths, as TensorFlow writes them.
inline std::string Encode(const float* audio, int32_t sample_rate, int64_t channels,
                          int64_t frames, std::string* out) {
  const uint64_t rate = static_cast<uint64_t>(static_cast<int64_t>(sample_rate));
  const uint64_t samples = static_cast<uint64_t>(channels) * static_cast<uint64_t>(frames);
  const uint64_t file_size = 44 + 2 * samples;
  if (file_size > UINT32_MAX) return "Provided channels and frames cannot be encoded as a WAV.";
  if (rate == 0 || rate > UINT32_MAX)
    return "sample_rate must be in (0, 2^32), got: " + std::to_string(rate);
  if (channels == 0 || channels > UINT16_MAX)
    return "num_channels must be in (0, 2^16), got: " + std::to_string(channels);
  out->clear();
  out->reserve(file_size);
  auto put = [out](uint64_t v, int width) {
    for (int k = 0; k < width; ++k) out->push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  };
  out->append("RIFF");
  put(file_size - 8, 4);
  out->append("WAVEfmt ");
  put(16, 4);
  put(1, 2);  // PCM
  put(static_cast<uint64_t>(channels), 2);
  put(rate, 4);
  put(rate * 2 * static_cast<uint64_t>(channels), 4);
  put(2 * static_cast<uint64_t>(channels), 2);
  put(16, 2);
  out->append("data");
  put(2 * samples, 4);
  for (uint64_t k = 0; k < samples; ++k) put(static_cast<uint16_t>(ToInt16(audio[k])), 2);
  return "";
}

}  // namespace wav
}  // namespace cpu
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_CPU_WAV_FORMAT_H_

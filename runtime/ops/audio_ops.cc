// The audio ops of TensorFlow's speech graphs (DecodeWav, EncodeWav, AudioSpectrogram,
// Mfcc) and the raw-decoding ops serving graphs read their inputs with (ReadFile,
// WriteFile, DecodeRaw, DecodePaddedRaw, DecodeCSV). OpDefs as TensorFlow 2.21's.
#include <string>

#include "op_table.h"
#include "shape_fn_context.h"
#include "tensorflow/c/tf_datatype.h"

namespace opgen {
namespace {

// An int attr that means "as the data says" when -1: an unknown dim then.
int64_t DimOrUnknown(int64_t value) { return value == -1 ? kUnknownDim : value; }

void DecodeWavShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "contents");
  const int64_t channels = c.AttrInt("desired_channels");
  const int64_t samples = c.AttrInt("desired_samples");
  if (channels < -1) Fail("desired_channels must be >= -1, got " + std::to_string(channels));
  if (samples < -1) Fail("desired_samples must be >= -1, got " + std::to_string(samples));
  c.SetOutput(0, PartialShape::Of({DimOrUnknown(samples), DimOrUnknown(channels)}));
  c.SetOutput(1, PartialShape::Of({}));
}

void EncodeWavShape(ShapeFnContext& c) {
  c.InputWithRank(0, 2, "audio");
  c.InputWithRank(1, 0, "sample_rate");
  c.SetOutput(0, PartialShape::Of({}));
}

// [channels, frames, 1 + fft_length / 2], fft_length the power of two at or above the window.
void SpectrogramShape(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRank(0, 2, "input");
  const int64_t window = c.AttrInt("window_size"), stride = c.AttrInt("stride");
  if (window < 2 || window > (int64_t{1} << 30) || stride < 1)
    Fail("Spectrogram initialization failed for window size " + std::to_string(window) +
         " and stride " + std::to_string(stride));
  int64_t frames = kUnknownDim;
  if (input.dims[0] != kUnknownDim)
    frames = input.dims[0] < window ? 0 : 1 + (input.dims[0] - window) / stride;
  int64_t fft = 1;
  while (fft < window) fft *= 2;
  c.SetOutput(0, PartialShape::Of({input.dims[1], frames, 1 + fft / 2}));
}

void MfccShape(ShapeFnContext& c) {
  const PartialShape spectrogram = c.InputWithRank(0, 3, "spectrogram");
  c.InputWithRank(1, 0, "sample_rate");
  c.SetOutput(0, PartialShape::Of({spectrogram.dims[0], spectrogram.dims[1],
                                   c.AttrInt("dct_coefficient_count")}));
}

void ReadFileShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "filename");
  c.SetOutput(0, PartialShape::Of({}));
}

void WriteFileShape(ShapeFnContext& c) {
  c.InputWithRank(0, 0, "filename");
  c.InputWithRank(1, 0, "contents");
}

// The input's shape and one more dim, the values per string (unknown until run).
void DecodeRawShape(ShapeFnContext& c) {
  PartialShape out = c.Input(0);
  if (out.rank_known) out.dims.push_back(kUnknownDim);
  c.SetOutput(0, out);
}

void DecodePaddedRawShape(ShapeFnContext& c) {
  PartialShape out = c.Input(0);
  c.InputWithRank(1, 0, "fixed_length");
  const auto length = c.InputInts(1);
  const int64_t size = static_cast<int64_t>(TF_DataTypeSize(c.AttrType("out_type")));
  int64_t width = kUnknownDim;
  if (length && !length->empty() && size > 0 && (*length)[0] > 0) width = (*length)[0] / size;
  if (out.rank_known) out.dims.push_back(width);
  c.SetOutput(0, out);
}

// Each output has the records' shape; each default is a scalar or a vector of at most one.
void DecodeCsvShape(ShapeFnContext& c) {
  const PartialShape records = c.Input(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    const PartialShape d = c.Input(i);
    if (d.rank_known && d.rank() > 1)
      Fail("Shape must be at most rank 1 but is rank " + std::to_string(d.rank()) +
           " for record_defaults " + std::to_string(i - 1));
    if (d.rank() == 1 && d.dims[0] != kUnknownDim && d.dims[0] > 1)
      Fail("Shape of a default must be a length-0 or length-1 vector, or a scalar.");
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.SetOutput(i, records);
}

OpRegistration Stateful(OpRegistration op) {
  op.is_stateful = true;
  return op;
}

const char kRawTypes[] =
    "out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, "
    "complex128, bool, bfloat16}";
const char kPaddedRawTypes[] =
    "out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, bfloat16}";

}  // namespace

void RegisterAudioOps(TF_Status* status) {
  const std::pair<std::string, std::string> doc_sample_rate{
      "sample_rate", "Samples per second (a scalar)."};
  const std::pair<std::string, std::string> doc_endian{
      "little_endian", "Whether the bytes are little-endian (else big-endian)."};
  RegisterOps({
      {"DecodeWav", {"desired_channels: int = -1", "desired_samples: int = -1"},
       {"contents: string"}, {"audio: float", "sample_rate: int32"}, ShapeFn<DecodeWavShape>,
       "Decodes a 16-bit PCM WAV file into float samples in [-1, 1).",
       "Each sample is its int16 value / 32768. desired_samples pads with zeros or truncates; "
       "desired_channels takes the first channels, and repeats the last one where the file "
       "has fewer. -1 keeps what the file has.",
       {{"contents", "The WAV file's bytes (a scalar)."},
        {"audio", "[samples, channels] floats."},
        {"sample_rate", "The file's sample rate (a scalar)."},
        {"desired_channels", "Channels to output, -1 for the file's."},
        {"desired_samples", "Samples to output, -1 for the file's."}}},
      {"EncodeWav", {}, {"audio: float", "sample_rate: int32"}, {"contents: string"},
       ShapeFn<EncodeWavShape>, "Encodes float samples as a 16-bit PCM WAV file.",
       "Values are scaled by 32768, rounded and clamped to the int16 range.",
       {{"audio", "[samples, channels] floats in [-1, 1]."}, doc_sample_rate,
        {"contents", "The WAV file's bytes (a scalar)."}}},
      {"AudioSpectrogram",
       {"window_size: int", "stride: int", "magnitude_squared: bool = false"},
       {"input: float"}, {"spectrogram: float"}, ShapeFn<SpectrogramShape>,
       "The spectrogram of each channel of an audio signal.",
       "Each window of window_size samples, stride samples apart, is multiplied by a "
       "periodic Hann window, zero-padded to the next power of two and Fourier-transformed; "
       "the output holds the magnitudes (squared with magnitude_squared) of its 1 + fft / 2 "
       "non-negative frequencies.",
       {{"input", "[samples, channels] floats."},
        {"spectrogram", "[channels, windows, 1 + fft / 2] floats."},
        {"window_size", "Samples per window (at least 2)."},
        {"stride", "Samples between the starts of two windows."},
        {"magnitude_squared", "Output squared magnitudes instead of magnitudes."}}},
      {"Mfcc",
       {"upper_frequency_limit: float = 4000", "lower_frequency_limit: float = 20",
        "filterbank_channel_count: int = 40", "dct_coefficient_count: int = 13"},
       {"spectrogram: float", "sample_rate: int32"}, {"output: float"}, ShapeFn<MfccShape>,
       "Mel-frequency cepstral coefficients of a spectrogram.",
       "Each spectrogram row's magnitudes (square roots of its values) go through triangular "
       "mel-spaced filters, are floored at 1e-12, logged, and transformed by a DCT-II.",
       {{"spectrogram", "[channels, frames, bins]: AudioSpectrogram with "
                        "magnitude_squared."},
        doc_sample_rate,
        {"output", "[channels, frames, dct_coefficient_count] floats."},
        {"upper_frequency_limit", "The highest frequency (Hz) the filters cover."},
        {"lower_frequency_limit", "The lowest frequency (Hz) the filters cover."},
        {"filterbank_channel_count", "The number of mel filters."},
        {"dct_coefficient_count", "The number of coefficients output."}}},
      {"ReadFile", {}, {"filename: string"}, {"contents: string"}, ShapeFn<ReadFileShape>,
       "Reads a whole file.", "A local path, or a file:// URL.",
       {{"filename", "The file's name (a scalar)."}, {"contents", "Its bytes (a scalar)."}}},
      Stateful({"WriteFile", {}, {"filename: string", "contents: string"}, {},
                ShapeFn<WriteFileShape>, "Writes `contents` to a file, replacing it.",
                "Missing parent directories are created.",
                {{"filename", "The file's name (a scalar)."},
                 {"contents", "The bytes to write (a scalar)."}}}),
      {"DecodeRaw", {kRawTypes, "little_endian: bool = true"}, {"bytes: string"},
       {"output: out_type"}, ShapeFn<DecodeRawShape>,
       "Reinterprets the bytes of each string as a vector of numbers.",
       "Every string must have the same length, a multiple of out_type's size.",
       {{"bytes", "Strings of one length."},
        {"output", "`bytes`' shape and one more dim: the values of each string."},
        {"out_type", "The values' dtype."}, doc_endian}},
      {"DecodePaddedRaw", {kPaddedRawTypes, "little_endian: bool = true"},
       {"input_bytes: string", "fixed_length: int32"}, {"output: out_type"},
       ShapeFn<DecodePaddedRawShape>,
       "Reinterprets the first fixed_length bytes of each string as numbers.",
       "Shorter strings are padded with zero bytes.",
       {{"input_bytes", "Strings of any lengths."},
        {"fixed_length", "Bytes per string (a scalar, a multiple of out_type's size)."},
        {"output", "`input_bytes`' shape and one more dim, fixed_length / size values."},
        {"out_type", "The values' dtype."}, doc_endian}},
      {"DecodeCSV",
       {"OUT_TYPE: list({float, double, int32, int64, string}) >= 1",
        "field_delim: string = ','", "use_quote_delim: bool = true", "na_value: string = ''",
        "select_cols: list(int) = []"},
       {"records: string", "record_defaults: OUT_TYPE"}, {"output: OUT_TYPE"},
       ShapeFn<DecodeCsvShape>, "Parses CSV records into one tensor per column.",
       "An empty field, or one equal to na_value, takes its column's default; a column "
       "without a default must have a value.",
       {{"records", "One CSV record per string."},
        {"record_defaults", "Per column: its default (one value), or empty if required."},
        {"output", "Per column: its values, of `records`' shape."},
        {"OUT_TYPE", "The columns' dtypes."},
        {"field_delim", "The one-character field separator."},
        {"use_quote_delim", "Whether double quotes enclose fields (RFC 4180)."},
        {"na_value", "A field value that means missing."},
        {"select_cols", "The column indices to keep (increasing), empty for all."}}},
  }, status);
}

}  // namespace opgen

// CPU kernels of the Unicode string ops (../../ops/string_everyday_ops.cc): UnicodeDecode,
// UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode over UTF-8, UTF-16-BE and
// UTF-32-BE (TensorFlow reads any ICU encoding; opgen refuses the others). Ill-formed input
// is replaced, ignored or refused per `errors` with ICU's granularity: one error per
// maximal ill-formed subpart. UnicodeScript looks ICU's script codes up in
// unicode_scripts.inc (tools/make_unicode_scripts.py). Host only: string tensors are host data, as in TensorFlow.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "string_outputs.h"
#include "utf8.h"

namespace opgen {
namespace cpu {
namespace {

using strings::Put;
using strings::SetOut;

enum class Encoding { kUtf8, kUtf16Be, kUtf32Be };
enum class Errors { kStrict, kReplace, kIgnore };

struct UnicodeAttrs {
  Encoding in = Encoding::kUtf8, out = Encoding::kUtf8;
  Errors errors = Errors::kReplace;
  int32_t replacement = 0xFFFD;
  bool replace_control = false;
};

bool ValidCodePoint(int64_t c) { return c >= 0 && c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF); }

// ICU's names for the three encodings, in any case, with or without '-' / '_'.
bool ParseEncoding(const std::string& name, Encoding* out) {
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_') key.push_back(static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c));
  if (key == "UTF8") *out = Encoding::kUtf8;
  else if (key == "UTF16BE") *out = Encoding::kUtf16Be;
  else if (key == "UTF32BE") *out = Encoding::kUtf32Be;
  else return false;
  return true;
}

// Reads `attr`'s encoding; false with `s` set otherwise.
bool EncodingAttr(TF_OpKernelConstruction* ctx, const char* attr, Encoding* out, TF_Status* s) {
  const std::string name = kernels::StringAttr(ctx, attr, s);
  if (TF_GetCode(s) != TF_OK) return false;
  if (ParseEncoding(name, out)) return true;
  const std::string message = std::string("Could not create converter for ") +
                              (std::string(attr) == "input_encoding" ? "input" : "output") +
                              " encoding: " + name +
                              " (opgen reads UTF-8, UTF-16-BE and UTF-32-BE only)";
  TF_SetStatus(s, TF_INVALID_ARGUMENT, message.c_str());
  return false;
}

// decode / encode: which attrs the op has.
void* CreateUnicode(TF_OpKernelConstruction* ctx, bool decodes, bool encodes) {
  StatusPtr s = NewStatus();
  auto* a = new UnicodeAttrs();
  if (decodes) EncodingAttr(ctx, "input_encoding", &a->in, s.get());
  if (encodes && TF_GetCode(s.get()) == TF_OK) EncodingAttr(ctx, "output_encoding", &a->out, s.get());
  std::string errors;
  if (TF_GetCode(s.get()) == TF_OK) errors = kernels::StringAttr(ctx, "errors", s.get());
  a->errors = errors == "strict" ? Errors::kStrict
              : errors == "ignore" ? Errors::kIgnore : Errors::kReplace;
  int64_t replacement = 0xFFFD;
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrInt64(ctx, "replacement_char", &replacement, s.get());
  if (decodes && TF_GetCode(s.get()) == TF_OK)
    a->replace_control = kernels::BoolAttr(ctx, "replace_control_characters", s.get());
  if (TF_GetCode(s.get()) == TF_OK && decodes && (replacement < 0 || replacement > 0x10FFFF))
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, "replacement_char out of unicode codepoint range");
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  // (An encoder's replacement may be anything: EncodeChecked decides what it writes.)
  a->replacement = replacement >= 0 && replacement <= 0x10FFFF ? static_cast<int32_t>(replacement)
                                                               : -1;
  return a;
}
void* CreateDecode(TF_OpKernelConstruction* ctx) { return CreateUnicode(ctx, true, false); }
void* CreateEncode(TF_OpKernelConstruction* ctx) { return CreateUnicode(ctx, false, true); }
void* CreateTranscode(TF_OpKernelConstruction* ctx) { return CreateUnicode(ctx, true, true); }
void DeleteUnicode(void* a) { delete static_cast<UnicodeAttrs*>(a); }

// One decoded unit: a code point, or -1 for an ill-formed subpart; `length` bytes.
struct Decoded {
  int32_t value;
  size_t length;
};

bool InRange(unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; }

Decoded NextUtf8(const unsigned char* p, size_t n) {
  const unsigned char b = p[0];
  if (b < 0x80) return {b, 1};
  int more;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  int32_t value;
  if (InRange(b, 0xC2, 0xDF)) more = 1, value = b & 0x1F;
  else if (InRange(b, 0xE0, 0xEF)) {
    more = 2, value = b & 0x0F;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (InRange(b, 0xF0, 0xF4)) {
    more = 3, value = b & 0x07;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return {-1, 1};
  }
  for (int k = 1; k <= more; ++k) {
    if (static_cast<size_t>(k) >= n || !InRange(p[k], k == 1 ? lo : 0x80, k == 1 ? hi : 0xBF))
      return {-1, static_cast<size_t>(k)};  // the maximal subpart so far
    value = (value << 6) | (p[k] & 0x3F);
  }
  return {value, static_cast<size_t>(more + 1)};
}

Decoded NextUtf16Be(const unsigned char* p, size_t n) {
  if (n < 2) return {-1, n};
  const int32_t unit = (p[0] << 8) | p[1];
  if (unit < 0xD800 || unit > 0xDFFF) return {unit, 2};
  if (unit >= 0xDC00) return {-1, 2};  // a lone low surrogate
  if (n < 4) return {-1, n};            // a high surrogate and what is left with it
  const int32_t low = (p[2] << 8) | p[3];
  if (low < 0xDC00 || low > 0xDFFF) return {-1, 2};
  return {0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), 4};
}

Decoded NextUtf32Be(const unsigned char* p, size_t n) {
  if (n < 4) return {-1, n};
  const uint32_t v = (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
  return {ValidCodePoint(v) ? static_cast<int32_t>(v) : -1, 4};
}

// Calls f(code point, byte offset) for each character of `text` after the error policy;
// false on an ill-formed subpart under "strict" (reported).
template <typename F>
bool DecodeString(TF_OpKernelContext* ctx, const UnicodeAttrs& a, std::string_view text, F f) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    const size_t n = text.size() - i;
    const Decoded d = a.in == Encoding::kUtf8     ? NextUtf8(p + i, n)
                      : a.in == Encoding::kUtf16Be ? NextUtf16Be(p + i, n)
                                                   : NextUtf32Be(p + i, n);
    const bool control = d.value >= 0 && d.value < 0x20 && a.replace_control;
    if (d.value < 0 && a.errors == Errors::kStrict) {
      Fail(ctx, TF_INVALID_ARGUMENT, "Invalid formatting on input string");
      return false;
    }
    if (d.value >= 0 && !control) f(d.value, static_cast<int64_t>(i));
    else if (a.errors != Errors::kIgnore) f(a.replacement, static_cast<int64_t>(i));
    i += d.length;
  }
  return true;
}

// Appends code point `c` (valid) in `encoding`.
void Encode(Encoding encoding, int32_t c, std::string* out) {
  auto put16 = [&](int32_t u) {
    out->push_back(static_cast<char>(u >> 8));
    out->push_back(static_cast<char>(u & 0xFF));
  };
  switch (encoding) {
    case Encoding::kUtf8:
      AppendUtf8(static_cast<char32_t>(c), out);
      return;
    case Encoding::kUtf16Be:
      if (c < 0x10000) return put16(c);
      put16(0xD800 + ((c - 0x10000) >> 10));
      return put16(0xDC00 + ((c - 0x10000) & 0x3FF));
    case Encoding::kUtf32Be:
      for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(c >> shift));
      return;
  }
}

// Encodes `c` after the error policy for invalid code points; false under "strict" (reported).
bool EncodeChecked(TF_OpKernelContext* ctx, const UnicodeAttrs& a, int64_t c, std::string* out) {
  if (ValidCodePoint(c)) {
    Encode(a.out, static_cast<int32_t>(c), out);
    return true;
  }
  if (a.errors == Errors::kStrict) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Code point is out of range for Unicode, or is a surrogate.");
    return false;
  }
  if (a.errors != Errors::kReplace) return true;
  if (ValidCodePoint(a.replacement)) {
    Encode(a.out, a.replacement, out);
  } else if (a.replacement >= 0 && a.out != Encoding::kUtf8) {
    // A surrogate replacement: TensorFlow writes it as one raw UTF-16 / UTF-32 unit.
    for (int shift = a.out == Encoding::kUtf16Be ? 8 : 24; shift >= 0; shift -= 8)
      out->push_back(static_cast<char>(a.replacement >> shift));
  } else {
    Encode(a.out, 0xFFFD, out);  // as TensorFlow, for a replacement that is no code point
  }
  return true;
}

// ---- UnicodeDecode / UnicodeDecodeWithOffsets ---------------------------------------

template <bool kOffsets>
void DecodeCompute(void* attrs, TF_OpKernelContext* ctx) {
  const UnicodeAttrs& a = *static_cast<UnicodeAttrs*>(attrs);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  const int64_t n = TF_TensorElementCount(in);
  const TF_TString* s = StringElements(in);
  std::vector<int64_t> splits{0};
  std::vector<int32_t> chars;
  std::vector<int64_t> starts;
  for (int64_t k = 0; k < n; ++k) {
    const bool ok = DecodeString(ctx, a, StringElement(&s[k]), [&](int32_t c, int64_t at) {
      chars.push_back(c);
      if (kOffsets) starts.push_back(at);
    });
    if (!ok) return;
    splits.push_back(static_cast<int64_t>(chars.size()));
  }
  const TF_DataType split_type = TF_ExpectedOutputDataType(ctx, 0);
  TensorPtr row_splits = kernels::AllocateOutput(ctx, 0, split_type, {n + 1});
  if (!row_splits) return;
  for (int64_t k = 0; k <= n; ++k) {
    if (split_type == TF_INT32) Data<int32_t>(row_splits)[k] = static_cast<int32_t>(splits[k]);
    else Data<int64_t>(row_splits)[k] = splits[k];
  }
  const int64_t total = static_cast<int64_t>(chars.size());
  TensorPtr values = AllocateOutput<int32_t>(ctx, 1, {total});
  if (!values) return;
  std::copy(chars.begin(), chars.end(), Data<int32_t>(values));
  if (!kOffsets) return;
  TensorPtr offsets = AllocateOutput<int64_t>(ctx, 2, {total});
  if (offsets) std::copy(starts.begin(), starts.end(), Data<int64_t>(offsets));
}

// ---- UnicodeEncode ------------------------------------------------------------------

void EncodeCompute(void* attrs, TF_OpKernelContext* ctx) {
  const UnicodeAttrs& a = *static_cast<UnicodeAttrs*>(attrs);
  const TF_Tensor* values_t = BorrowInput(ctx, 0);
  const TF_Tensor* splits_t = values_t ? BorrowInput(ctx, 1) : nullptr;
  if (splits_t == nullptr) return;
  if (TF_NumDims(values_t) != 1 || TF_NumDims(splits_t) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Both the input_tensor and input_splits should be of rank 1. ");
  const int64_t n = TF_Dim(values_t, 0);
  const std::vector<int64_t> splits = IndexValues(splits_t);
  if (splits.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Input_splits should contain elements, but given "
                                          "input_values has " + std::to_string(splits.size()) + " elements");
  if (splits.front() != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "First value in input_splits must be zero.");
  for (size_t k = 1; k < splits.size(); ++k)
    if (splits[k] < splits[k - 1])
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Values in input_splits must be equal or in ascending order.");
  if (splits.back() != n)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Last value in input_splits must be equal to length of input_tensor.");
  const int64_t rows = static_cast<int64_t>(splits.size()) - 1;
  TensorPtr out(NewStringTensor({rows}));
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string tensor");
  TF_TString* o = MutableStringElements(out.get());
  const int32_t* v = Data<int32_t>(values_t);
  std::string bytes;
  for (int64_t r = 0; r < rows; ++r) {
    bytes.clear();
    for (int64_t k = splits[r]; k < splits[r + 1]; ++k)
      if (!EncodeChecked(ctx, a, v[k], &bytes)) return;
    if (!Put(ctx, &o[r], bytes)) return;
  }
  SetOut(ctx, 0, out);
}

// ---- UnicodeTranscode ---------------------------------------------------------------

void TranscodeCompute(void* attrs, TF_OpKernelContext* ctx) {
  const UnicodeAttrs& a = *static_cast<UnicodeAttrs*>(attrs);
  // A decoded character is valid or the replacement: an invalid replacement becomes
  // U+FFFD (EncodeChecked under "replace"), never an error.
  UnicodeAttrs writer = a;
  if (writer.errors == Errors::kStrict) writer.errors = Errors::kReplace;
  strings::MapStrings(ctx, [&](std::string_view v, std::string* bytes) {
    bool ok = true;
    return DecodeString(ctx, a, v, [&](int32_t c, int64_t) { ok = EncodeChecked(ctx, writer, c, bytes) && ok; }) &&
           ok;
  });
}

// ---- UnicodeScript ------------------------------------------------------------------

struct ScriptRun {
  int32_t first;   // the run's first code point
  int32_t script;  // ICU's UScriptCode
};

constexpr ScriptRun kScriptRuns[] = {
#include "unicode_scripts.inc"
};

// ICU's script of `c`; -1 for a value that is no code point (negative, past U+10FFFF).
int32_t ScriptOf(int32_t c) {
  if (c < 0 || c > 0x10FFFF) return -1;
  const ScriptRun* run = std::upper_bound(
      std::begin(kScriptRuns), std::end(kScriptRuns), c,
      [](int32_t v, const ScriptRun& r) { return v < r.first; });
  return (run - 1)->script;  // the table starts at U+0000
}

void ScriptCompute(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  TensorPtr out = AllocateOutput<int32_t>(ctx, 0, Dims(in));
  if (!out) return;
  const int32_t* v = Data<int32_t>(in);
  int32_t* o = Data<int32_t>(out);
  const int64_t n = TF_TensorElementCount(in);
  for (int64_t k = 0; k < n; ++k) o[k] = ScriptOf(v[k]);
}

}  // namespace

void RegisterStringUnicodeKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"UnicodeScript", {}, {}, ScriptCompute}, status);
  RegisterKernel(kDevice, {"UnicodeDecode", {}, {}, DecodeCompute<false>, CreateDecode,
                           DeleteUnicode}, status);
  RegisterKernel(kDevice, {"UnicodeDecodeWithOffsets", {}, {}, DecodeCompute<true>,
                           CreateDecode, DeleteUnicode}, status);
  RegisterKernel(kDevice, {"UnicodeEncode", {}, {}, EncodeCompute, CreateEncode, DeleteUnicode},
                 status);
  RegisterKernel(kDevice, {"UnicodeTranscode", {}, {}, TranscodeCompute, CreateTranscode,
                           DeleteUnicode}, status);
}

}  // namespace cpu
}  // namespace opgen

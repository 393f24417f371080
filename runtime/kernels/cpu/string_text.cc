// CPU kernels of the text-preprocessing string ops (../../ops/string_text_ops.cc), the
// ones Keras' TextVectorization graphs run: case mapping, stripping, regex replacement
// (RE2 patterns through re2_subset.h), splitting, n-grams and substrings. Strings are
// bytes; case mapping and stripping touch ASCII only, as TensorFlow's do without an
// encoding; case mapping with encoding "utf-8" maps Unicode letters (utf8_case.h).
// Also Equal / NotEqual of strings.
#include <algorithm>
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "../broadcast_spec.h"
#include "kernel_util.h"
#include "re2_subset.h"
#include "string_outputs.h"
#include "utf8_case.h"

namespace opgen {
namespace cpu {
namespace {

using strings::NewStrings;
using strings::Put;
using strings::MapStrings;
using strings::SetOut;

// ---- StringLower / StringUpper / StringStrip ----------------------------------------

struct CaseAttrs {
  bool utf8 = false;
};

void* CreateCase(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const std::string encoding = kernels::StringAttr(ctx, "encoding", s.get());
  if (TF_GetCode(s.get()) == TF_OK && !encoding.empty() && encoding != "utf-8")
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 ("only utf-8 or '' (no encoding) is supported, received " + encoding).c_str());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new CaseAttrs{!encoding.empty()};
}

void DeleteCase(void* a) { delete static_cast<CaseAttrs*>(a); }

template <bool Upper>
void CaseCompute(void* attrs, TF_OpKernelContext* ctx) {
  const bool utf8 = static_cast<CaseAttrs*>(attrs)->utf8;
  MapStrings(ctx, [&](std::string_view v, std::string* out) {
    if (utf8) {
      if (Upper) Utf8ToUpper(v, out);
      else Utf8ToLower(v, out);
      return true;
    }
    out->assign(v);
    for (char& c : *out) {
      if (Upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      if (!Upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return true;
  });
}

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

void StripCompute(void*, TF_OpKernelContext* ctx) {
  MapStrings(ctx, [](std::string_view v, std::string* out) {
    size_t b = 0, e = v.size();
    while (b < e && IsAsciiSpace(v[b])) ++b;
    while (e > b && IsAsciiSpace(v[e - 1])) --e;
    out->assign(v.substr(b, e - b));
    return true;
  });
}

// ---- StaticRegexReplace / RegexReplace ----------------------------------------------

struct StaticReplace {
  Re2Subset re;
  std::string rewrite;
  bool global = true;
};

void* CreateStaticReplace(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new StaticReplace();
  const std::string pattern = kernels::StringAttr(ctx, "pattern", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->rewrite = kernels::StringAttr(ctx, "rewrite", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->global = kernels::BoolAttr(ctx, "replace_global", s.get());
  std::string error;
  if (TF_GetCode(s.get()) == TF_OK &&
      (!CompileRe2(pattern, &a->re, &error) || !CheckRewrite(a->rewrite, a->re, &error))) {
    error = "StaticRegexReplace: pattern '" + pattern + "': " + error;
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, error.c_str());
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}

void DeleteStaticReplace(void* a) { delete static_cast<StaticReplace*>(a); }

void ReplaceAll(TF_OpKernelContext* ctx, const Re2Subset& re, const std::string& rewrite,
                bool global, const char* op) {
  MapStrings(ctx, [&](std::string_view v, std::string* out) {
    std::string error;
    if (ReplaceRe2(v, re, rewrite, global, out, &error)) return true;
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + error);
    return false;
  });
}

void StaticReplaceCompute(void* attrs, TF_OpKernelContext* ctx) {
  const auto* a = static_cast<const StaticReplace*>(attrs);
  ReplaceAll(ctx, a->re, a->rewrite, a->global, "StaticRegexReplace");
}

void* CreateGlobalFlag(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool global = kernels::BoolAttr(ctx, "replace_global", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new bool(global);
}

void DeleteGlobalFlag(void* a) { delete static_cast<bool*>(a); }

// A scalar string input's bytes; false after reporting a failure.
bool ScalarString(TF_OpKernelContext* ctx, int i, const char* what, std::string* out) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (t == nullptr) return false;
  if (TF_NumDims(t) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(what) + " must be scalar, but received " + ShapeString(Dims(t)));
    return false;
  }
  out->assign(StringElement(StringElements(t)));
  return true;
}

void RegexReplaceCompute(void* attrs, TF_OpKernelContext* ctx) {
  std::string pattern, rewrite, error;
  if (!ScalarString(ctx, 1, "Pattern", &pattern) || !ScalarString(ctx, 2, "Rewrite", &rewrite))
    return;
  Re2Subset re;
  if (!CompileRe2(pattern, &re, &error) || !CheckRewrite(rewrite, re, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "RegexReplace: pattern '" + pattern + "': " + error);
  ReplaceAll(ctx, re, rewrite, *static_cast<bool*>(attrs), "RegexReplace");
}

// ---- StringSplitV2 ------------------------------------------------------------------

// Python's str.split as TensorFlow runs it: an empty `sep` splits at runs of ASCII
// whitespace and drops the ends' whitespace (an empty string has no piece); another one
// splits at every occurrence (an empty string is one empty piece). After `maxsplit`
// (>= 0) splits the rest of the string is the last piece.
void SplitOne(std::string_view text, std::string_view sep, int64_t maxsplit,
              std::vector<std::string_view>* pieces) {
  int64_t splits = 0;
  auto limit_reached = [&]() { return maxsplit >= 0 && splits == maxsplit; };
  size_t p = 0;
  if (sep.empty()) {
    while (p < text.size() && IsAsciiSpace(text[p])) ++p;
    while (p < text.size()) {
      if (limit_reached()) {
        pieces->push_back(text.substr(p));
        return;
      }
      size_t q = p;
      while (q < text.size() && !IsAsciiSpace(text[q])) ++q;
      pieces->push_back(text.substr(p, q - p));
      ++splits;
      p = q;
      while (p < text.size() && IsAsciiSpace(text[p])) ++p;
    }
    return;
  }
  while (true) {
    const size_t q = limit_reached() ? std::string_view::npos : text.find(sep, p);
    if (q == std::string_view::npos) {
      pieces->push_back(text.substr(p));
      return;
    }
    pieces->push_back(text.substr(p, q - p));
    ++splits;
    p = q + sep.size();
  }
}

void* CreateMaxsplit(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  int64_t maxsplit = -1;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "maxsplit", &maxsplit, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new int64_t(maxsplit);
}

void DeleteMaxsplit(void* a) { delete static_cast<int64_t*>(a); }

void SplitCompute(void* attrs, TF_OpKernelContext* ctx) {
  const int64_t maxsplit = *static_cast<int64_t*>(attrs);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  if (in == nullptr) return;
  if (TF_NumDims(in) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "input must be a vector, got shape: " + ShapeString(Dims(in)));
  std::string sep;
  const TF_Tensor* sep_t = BorrowInput(ctx, 1);
  if (sep_t == nullptr) return;
  if (TF_NumDims(sep_t) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "sep must be a scalar, got shape: " + ShapeString(Dims(sep_t)));
  sep.assign(StringElement(StringElements(sep_t)));
  strings::EmitSplitRows(ctx, StringElements(in), TF_Dim(in, 0),
                         [&](std::string_view row, std::vector<std::string_view>* pieces) {
                           SplitOne(row, sep, maxsplit, pieces);
                         });
}

// ---- StringNGrams -------------------------------------------------------------------

struct NGramAttrs {
  std::string separator, left_pad, right_pad;
  std::vector<int64_t> widths;
  int64_t pad_width = 0;
  bool preserve_short = false;
};

void* CreateNGrams(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new NGramAttrs();
  a->separator = kernels::StringAttr(ctx, "separator", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->left_pad = kernels::StringAttr(ctx, "left_pad", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->right_pad = kernels::StringAttr(ctx, "right_pad", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->widths = kernels::IntListAttr(ctx, "ngram_widths", s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    TF_OpKernelConstruction_GetAttrInt64(ctx, "pad_width", &a->pad_width, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    a->preserve_short = kernels::BoolAttr(ctx, "preserve_short_sequences", s.get());
  for (int64_t w : a->widths)
    if (TF_GetCode(s.get()) == TF_OK && w <= 0)
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("ngram_widths must contain positive values, got " + std::to_string(w)).c_str());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}

void DeleteNGrams(void* a) { delete static_cast<NGramAttrs*>(a); }

// The padding on each side of a row for n-grams of `width`: pad_width, or width - 1 for
// a negative one, never more than width - 1.
int64_t PadFor(const NGramAttrs& a, int64_t width) {
  return std::min(a.pad_width < 0 ? width - 1 : a.pad_width, width - 1);
}

int64_t NGramCount(const NGramAttrs& a, int64_t length, int64_t width) {
  return std::max<int64_t>(0, length + 2 * PadFor(a, width) - width + 1);
}

// Appends the `count` n-grams of `width` (with `pad` pad strings on each side at most)
// of the row `tokens[0 .. length)`.
void AddNGrams(const NGramAttrs& a, const TF_TString* tokens, int64_t length, int64_t width,
               int64_t pad, int64_t count, std::vector<std::string>* out) {
  for (int64_t g = 0; g < count; ++g) {
    const int64_t left = std::max<int64_t>(0, pad - g);
    const int64_t right = std::max<int64_t>(0, pad - (count - (g + 1)));
    const int64_t taken = width - left - right;
    const int64_t start = left > 0 ? 0 : g - pad;
    std::string gram;
    int64_t parts = 0;
    auto add = [&](std::string_view piece) {
      if (parts++ > 0) gram += a.separator;
      gram += piece;
    };
    for (int64_t k = 0; k < left; ++k) add(a.left_pad);
    for (int64_t k = 0; k < taken && start + k < length; ++k)
      add(StringElement(&tokens[start + k]));
    for (int64_t k = 0; k < right; ++k) add(a.right_pad);
    out->push_back(std::move(gram));
  }
}

template <typename S>
void NGramsCompute(void* attrs, TF_OpKernelContext* ctx) {
  const auto& a = *static_cast<const NGramAttrs*>(attrs);
  const TF_Tensor* data = BorrowInput(ctx, 0);
  const TF_Tensor* splits = data ? BorrowInput(ctx, 1) : nullptr;
  if (splits == nullptr) return;
  if (TF_NumDims(data) != 1 || TF_NumDims(splits) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "StringNGrams: data and data_splits must be vectors, "
                                          "got shapes " + ShapeString(Dims(data)) + " and " +
                                          ShapeString(Dims(splits)));
  const int64_t size = TF_Dim(data, 0);
  const int64_t num_splits = TF_Dim(splits, 0);
  const S* sp = static_cast<const S*>(TF_TensorData(splits));
  if (num_splits > 0) {
    if (sp[0] != 0)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "First split value must be 0, got " + std::to_string(sp[0]));
    for (int64_t i = 1; i < num_splits; ++i)
      if (sp[i] < sp[i - 1] || sp[i] > size)
        return Fail(ctx, TF_INVALID_ARGUMENT,
                    "Invalid split value " + std::to_string(sp[i]) + " at index " +
                        std::to_string(i) + " (splits must be non-decreasing and at most " +
                        std::to_string(size) + ")");
    if (sp[num_splits - 1] != size)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Last split value must be data size. Expected " + std::to_string(size) +
                      ", got " + std::to_string(sp[num_splits - 1]));
  } else if (size > 0) {
    return Fail(ctx, TF_INVALID_ARGUMENT, "StringNGrams: data_splits is empty but data is not");
  }
  const TF_TString* tokens = StringElements(data);
  std::vector<std::string> grams;
  std::vector<S> out_splits(static_cast<size_t>(std::max<int64_t>(num_splits, 0)), 0);
  for (int64_t r = 0; r + 1 < num_splits; ++r) {
    const int64_t begin = sp[r], length = sp[r + 1] - sp[r];
    const size_t before = grams.size();
    for (int64_t w : a.widths)
      AddNGrams(a, tokens + begin, length, w, PadFor(a, w), NGramCount(a, length, w), &grams);
    if (a.preserve_short && length > 0 && grams.size() == before) {
      // One n-gram of the whole row, padded on each side by pad_width.
      const int64_t pad = std::max<int64_t>(a.pad_width, 0);
      AddNGrams(a, tokens + begin, length, length + 2 * pad, pad, 1, &grams);
    }
    out_splits[static_cast<size_t>(r + 1)] = static_cast<S>(grams.size());
  }
  TensorPtr out = NewStrings(ctx, {static_cast<int64_t>(grams.size())});
  if (!out) return;
  TF_TString* o = MutableStringElements(out.get());
  for (size_t k = 0; k < grams.size(); ++k)
    if (!Put(ctx, &o[k], grams[k])) return;
  TensorPtr splits_out = AllocateOutput<S>(ctx, 1, {num_splits});
  if (!splits_out) return;
  std::copy(out_splits.begin(), out_splits.end(), Data<S>(splits_out));
  SetOut(ctx, 0, out);
}

// ---- Substr -------------------------------------------------------------------------

void* CreateUnit(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const std::string unit = kernels::StringAttr(ctx, "unit", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new bool(unit == "UTF8_CHAR");
}

void DeleteUnit(void* a) { delete static_cast<bool*>(a); }

// The byte offset of each character start of `v`, and v.size() last.
std::vector<int64_t> CharOffsets(std::string_view v) {
  std::vector<int64_t> offsets;
  for (size_t i = 0; i < v.size(); ++i)
    if ((static_cast<unsigned char>(v[i]) & 0xc0) != 0x80) offsets.push_back(static_cast<int64_t>(i));
  offsets.push_back(static_cast<int64_t>(v.size()));
  return offsets;
}

template <typename T>
void SubstrCompute(void* attrs, TF_OpKernelContext* ctx) {
  const bool utf8 = *static_cast<bool*>(attrs);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* pos = in ? BorrowInput(ctx, 1) : nullptr;
  const TF_Tensor* len = pos ? BorrowInput(ctx, 2) : nullptr;
  if (len == nullptr) return;
  const std::vector<int64_t> dims = Dims(in), pd = Dims(pos), ld = Dims(len);
  if (pd != ld)
    return Fail(ctx, TF_INVALID_ARGUMENT, "pos and len should have the same shape, got: " +
                                              ShapeString(pd) + " vs. " + ShapeString(ld));
  if (!pd.empty() && pd != dims)
    return Fail(ctx, TF_UNIMPLEMENTED,
                "Substr: opgen takes pos and len as scalars or shaped as input (" +
                    ShapeString(dims) + "), got " + ShapeString(pd));
  TensorPtr out = NewStrings(ctx, dims);
  if (!out) return;
  const TF_TString* s = StringElements(in);
  TF_TString* o = MutableStringElements(out.get());
  const T* pp = static_cast<const T*>(TF_TensorData(pos));
  const T* lp = static_cast<const T*>(TF_TensorData(len));
  const int64_t n = TF_TensorElementCount(in);
  for (int64_t k = 0; k < n; ++k) {
    const std::string_view v = StringElement(&s[k]);
    const int64_t p0 = static_cast<int64_t>(pp[pd.empty() ? 0 : k]);
    const int64_t l0 = static_cast<int64_t>(lp[pd.empty() ? 0 : k]);
    std::vector<int64_t> offsets;
    if (utf8) offsets = CharOffsets(v);
    const int64_t size = utf8 ? static_cast<int64_t>(offsets.size()) - 1 : static_cast<int64_t>(v.size());
    const int64_t p = p0 < 0 ? p0 + size : p0;
    // TensorFlow's quirks for a negative len: bytes to the end; no characters, and a
    // negative pos refused, for UTF8_CHAR.
    if (p < 0 || p > size || (utf8 && p0 < 0 && l0 < 0))
      return Fail(ctx, TF_INVALID_ARGUMENT, "pos " + std::to_string(p0) +
                                                " out of range for string at index " +
                                                std::to_string(k));
    const int64_t end = l0 < 0 ? (utf8 ? p : size) : std::min(size, p + l0);
    const int64_t b = utf8 ? offsets[p] : p, e = utf8 ? offsets[end] : end;
    if (!Put(ctx, &o[k], v.substr(static_cast<size_t>(b), static_cast<size_t>(e - b)))) return;
  }
  SetOut(ctx, 0, out);
}

// ---- Equal / NotEqual on strings ----------------------------------------------------

void* CreateShapeErrorFlag(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool flag = kernels::BoolAttr(ctx, "incompatible_shape_error", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new bool(flag);
}

void DeleteShapeErrorFlag(void* a) { delete static_cast<bool*>(a); }

// Byte-wise equality with numpy broadcasting; shapes that do not broadcast give a scalar
// (false for Equal) when incompatible_shape_error is false, as TensorFlow's.
template <bool Equal>
void StringEqualityCompute(void* attrs, TF_OpKernelContext* ctx) {
  const TF_Tensor* x = BorrowInput(ctx, 0);
  const TF_Tensor* y = x ? BorrowInput(ctx, 1) : nullptr;
  if (y == nullptr) return;
  const std::vector<int64_t> xd = Dims(x), yd = Dims(y);
  std::vector<int64_t> dims;
  if (!kernels::BroadcastShape(xd, yd, &dims)) {
    if (*static_cast<bool*>(attrs)) return kernels::FailIncompatibleShapes(ctx, {xd, yd});
    TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_BOOL, {});
    if (out) *Data<bool>(out) = !Equal;
    return;
  }
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_BOOL, dims);
  if (!out) return;
  // Each operand's element stride per output dim (0 where it broadcasts).
  const size_t rank = dims.size();
  auto strides = [&](const std::vector<int64_t>& d) {
    std::vector<int64_t> st(rank, 0);
    int64_t step = 1;
    for (size_t k = 0; k < d.size(); ++k) {
      const size_t i = d.size() - 1 - k;
      st[rank - 1 - k] = d[i] == 1 ? 0 : step;
      step *= d[i];
    }
    return st;
  };
  const std::vector<int64_t> xs = strides(xd), ys = strides(yd);
  const TF_TString* xp = StringElements(x);
  const TF_TString* yp = StringElements(y);
  bool* o = Data<bool>(out);
  std::vector<int64_t> index(rank, 0);
  int64_t xo = 0, yo = 0;
  const int64_t n = NumElements(dims);
  for (int64_t i = 0; i < n; ++i) {
    o[i] = (StringElement(&xp[xo]) == StringElement(&yp[yo])) == Equal;
    for (size_t d = rank; d-- > 0;) {
      xo += xs[d];
      yo += ys[d];
      if (++index[d] < dims[d]) break;
      xo -= xs[d] * dims[d];
      yo -= ys[d] * dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace

void RegisterStringTextKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"StringLower", {}, {}, CaseCompute<false>, CreateCase, DeleteCase},
                 status);
  RegisterKernel(kDevice, {"StringUpper", {}, {}, CaseCompute<true>, CreateCase, DeleteCase},
                 status);
  RegisterKernel(kDevice, {"StringStrip", {}, {}, StripCompute}, status);
  RegisterKernel(kDevice, {"StaticRegexReplace", {}, {}, StaticReplaceCompute,
                           CreateStaticReplace, DeleteStaticReplace}, status);
  RegisterKernel(kDevice, {"RegexReplace", {}, {}, RegexReplaceCompute, CreateGlobalFlag,
                           DeleteGlobalFlag}, status);
  RegisterKernel(kDevice, {"StringSplitV2", {}, {}, SplitCompute, CreateMaxsplit,
                           DeleteMaxsplit}, status);
  RegisterKernel(kDevice, {"StringNGrams", {{"Tsplits", TF_INT32}}, {}, NGramsCompute<int32_t>,
                           CreateNGrams, DeleteNGrams}, status);
  RegisterKernel(kDevice, {"StringNGrams", {{"Tsplits", TF_INT64}}, {}, NGramsCompute<int64_t>,
                           CreateNGrams, DeleteNGrams}, status);
  RegisterKernel(kDevice, {"Substr", {{"T", TF_INT32}}, {}, SubstrCompute<int32_t>, CreateUnit,
                           DeleteUnit}, status);
  RegisterKernel(kDevice, {"Substr", {{"T", TF_INT64}}, {}, SubstrCompute<int64_t>, CreateUnit,
                           DeleteUnit}, status);
  // The string kernels of two ops whose other dtypes elementwise_compare.cc registers:
  // TextVectorization compares tokens with its mask token.
  RegisterKernel(kDevice, {"Equal", {{"T", TF_STRING}}, {}, StringEqualityCompute<true>,
                           CreateShapeErrorFlag, DeleteShapeErrorFlag}, status);
  RegisterKernel(kDevice, {"NotEqual", {{"T", TF_STRING}}, {}, StringEqualityCompute<false>,
                           CreateShapeErrorFlag, DeleteShapeErrorFlag}, status);
}

}  // namespace cpu
}  // namespace opgen

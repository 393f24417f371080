// CPU kernels of the everyday string ops that match, join or split
// (../../ops/string_everyday_ops.cc): RegexFullMatch (RE2 patterns through re2_subset.h),
// ReduceJoin, UnsortedSegmentJoin and the legacy StringSplit. Host only: string tensors
// are host data, as in TensorFlow.
#include <algorithm>
#include <new>
#include <regex>
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"
#include "string_outputs.h"
#include "re2_subset.h"

namespace opgen {
namespace cpu {
namespace {

using strings::ConstructionOk;
using strings::NewStrings;
using strings::Put;
using strings::SetOut;

// The separator attr, for ReduceJoin and UnsortedSegmentJoin.
struct JoinAttrs {
  std::string separator;
  bool keep_dims = false;
};

void* CreateJoin(TF_OpKernelConstruction* ctx, bool has_keep_dims) {
  StatusPtr s = NewStatus();
  auto* a = new JoinAttrs{kernels::StringAttr(ctx, "separator", s.get())};
  if (has_keep_dims && TF_GetCode(s.get()) == TF_OK)
    a->keep_dims = kernels::BoolAttr(ctx, "keep_dims", s.get());
  if (ConstructionOk(ctx, s.get())) return a;
  delete a;
  return nullptr;
}
void* CreateReduceJoin(TF_OpKernelConstruction* ctx) { return CreateJoin(ctx, true); }
void* CreateSegmentJoin(TF_OpKernelConstruction* ctx) { return CreateJoin(ctx, false); }
void DeleteJoin(void* a) { delete static_cast<JoinAttrs*>(a); }

// ---- RegexFullMatch -----------------------------------------------------------------

void RegexFullMatchCompute(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* pattern_t = in ? BorrowInput(ctx, 1) : nullptr;
  if (pattern_t == nullptr) return;
  if (TF_NumDims(pattern_t) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Pattern must be scalar, but received " +
                                              ShapeString(Dims(pattern_t)));
  const std::string pattern(StringElement(StringElements(pattern_t)));
  Re2Subset re;
  std::string error;
  if (!CompileRe2(pattern, &re, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "Invalid pattern: " + pattern + ", error: " + error);
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_BOOL, Dims(in));
  if (!out) return;
  const TF_TString* s = StringElements(in);
  bool* o = Data<bool>(out);
  const int64_t n = TF_TensorElementCount(in);
  try {
    for (int64_t k = 0; k < n; ++k) {
      const std::string_view v = StringElement(&s[k]);
      if (re.single_char_classes &&
          std::any_of(v.begin(), v.end(), [](char c) { return (c & 0x80) != 0; }))
        return Fail(ctx, TF_INVALID_ARGUMENT,
                    "RegexFullMatch: the pattern matches single characters (`.`, a negated "
                    "class, \\D, \\W or \\S), which RE2 reads as UTF-8 code points; opgen's "
                    "matcher reads bytes and refuses non-ASCII input for such a pattern");
      o[k] = std::regex_match(v.begin(), v.end(), re.re);
    }
  } catch (const std::regex_error& e) {  // e.g. a pattern too complex for this input
    Fail(ctx, TF_INVALID_ARGUMENT, std::string("RegexFullMatch: ") + e.what());
  }
}

// ---- ReduceJoin ---------------------------------------------------------------------

void ReduceJoinCompute(void* attrs, TF_OpKernelContext* ctx) {
  const JoinAttrs& a = *static_cast<JoinAttrs*>(attrs);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* axes_t = in ? BorrowInput(ctx, 1) : nullptr;
  if (axes_t == nullptr) return;
  const std::vector<int64_t> dims = Dims(in);
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> reduced(rank, false);
  const int32_t* axes = Data<int32_t>(axes_t);
  for (int64_t k = 0; k < TF_TensorElementCount(axes_t); ++k) {
    const int64_t axis = axes[k];
    if (axis < -rank || axis >= rank)
      return Fail(ctx, TF_OUT_OF_RANGE, "Invalid reduction dimension " + std::to_string(axis) +
                                            " for input with " + std::to_string(rank) +
                                            " dimension(s)");
    const int64_t d = axis < 0 ? axis + rank : axis;
    if (reduced[d])
      return Fail(ctx, TF_INVALID_ARGUMENT, "Duplicate reduction dimension " + std::to_string(axis));
    reduced[d] = true;
  }
  // Row-major strides of the input; the kept dims, outermost first.
  std::vector<int64_t> stride(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * dims[d];
  std::vector<int64_t> kept, joined, out_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) kept.push_back(d), out_dims.push_back(dims[d]);
    else if (a.keep_dims) out_dims.push_back(1);
  }
  // TensorFlow joins along the first listed dimension innermost, the last outermost.
  for (int64_t k = TF_TensorElementCount(axes_t); k-- > 0;)
    joined.push_back(axes[k] < 0 ? axes[k] + rank : axes[k]);
  TensorPtr out = NewStrings(ctx, out_dims);
  if (!out) return;
  const TF_TString* s = StringElements(in);
  TF_TString* o = MutableStringElements(out.get());
  const int64_t outputs = NumElements(out_dims);
  int64_t per_output = 1;
  for (int64_t d : joined) per_output *= dims[d];
  std::string buffer;
  for (int64_t i = 0; i < outputs; ++i) {
    int64_t base = 0, rest = i;
    for (size_t k = kept.size(); k-- > 0;) {
      base += (rest % dims[kept[k]]) * stride[kept[k]];
      rest /= dims[kept[k]];
    }
    buffer.clear();
    for (int64_t j = 0; j < per_output; ++j) {
      int64_t offset = base, r = j;
      for (size_t k = joined.size(); k-- > 0;) {
        offset += (r % dims[joined[k]]) * stride[joined[k]];
        r /= dims[joined[k]];
      }
      if (j > 0) buffer += a.separator;
      buffer += StringElement(&s[offset]);
    }
    if (!Put(ctx, &o[i], buffer)) return;
  }
  SetOut(ctx, 0, out);
}

// ---- UnsortedSegmentJoin ------------------------------------------------------------

void SegmentJoinCompute(void* attrs, TF_OpKernelContext* ctx) {
  const std::string& separator = static_cast<JoinAttrs*>(attrs)->separator;
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* ids_t = in ? BorrowInput(ctx, 1) : nullptr;
  const TF_Tensor* count_t = ids_t ? BorrowInput(ctx, 2) : nullptr;
  if (count_t == nullptr) return;
  const std::vector<int64_t> dims = Dims(in), id_dims = Dims(ids_t);
  if (TF_NumDims(count_t) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Number of segments must be a scalar");
  const int64_t segments = IndexValues(count_t)[0];
  if (segments < 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Number of segments must be non-negative but got " +
                                              std::to_string(segments));
  if (id_dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Segment_id cannot have rank 0");
  if (id_dims.size() > dims.size())
    return Fail(ctx, TF_OUT_OF_RANGE, "Invalid segment_id rank " + std::to_string(id_dims.size()) +
                                          " for input with " + std::to_string(dims.size()) +
                                          " dimension(s)");
  // (TensorFlow's message names the input's rank where it means the dim.)
  for (size_t d = 0; d < id_dims.size(); ++d)
    if (id_dims[d] != dims[d])
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Segment dimension is " + std::to_string(id_dims[d]) +
                      " while input dimension is " + std::to_string(dims.size()) + " in rank " +
                      std::to_string(d));
  std::vector<int64_t> out_dims{segments};
  out_dims.insert(out_dims.end(), dims.begin() + id_dims.size(), dims.end());
  if (!kernels::CheckShapeSize(ctx, "UnsortedSegmentJoin", out_dims)) return;
  const int64_t inner = NumElements({out_dims.begin() + 1, out_dims.end()});
  const std::vector<int64_t> ids = IndexValues(ids_t);
  for (int64_t id : ids)
    if (id < 0 || id >= segments)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "segment_ids are not allowed to exceed num_segments or to have negative "
                  "values.");
  TensorPtr out = NewStrings(ctx, out_dims);
  if (!out) return;
  const int64_t outputs = NumElements(out_dims);
  std::vector<std::string> joined;
  const TF_TString* s = StringElements(in);
  try {  // num_segments comes from an operand: a huge one must fail, not abort
    joined.resize(outputs);
    for (size_t i = 0; i < ids.size(); ++i) {
      for (int64_t k = 0; k < inner; ++k) {
        // As TensorFlow joins: the separator goes in only after a non-empty join so far.
        std::string& o = joined[ids[i] * inner + k];
        if (!o.empty()) o += separator;
        o += StringElement(&s[static_cast<int64_t>(i) * inner + k]);
      }
    }
  } catch (const std::bad_alloc&) {
    return Fail(ctx, TF_RESOURCE_EXHAUSTED, "UnsortedSegmentJoin: out of memory for " +
                                                std::to_string(outputs) + " joined strings");
  }
  TF_TString* o = MutableStringElements(out.get());
  for (int64_t k = 0; k < outputs; ++k)
    if (!Put(ctx, &o[k], joined[k])) return;
  SetOut(ctx, 0, out);
}

// ---- StringSplit (v1) ---------------------------------------------------------------

void* CreateSkipEmpty(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool skip = kernels::BoolAttr(ctx, "skip_empty", s.get());
  if (!ConstructionOk(ctx, s.get())) return nullptr;
  return new bool(skip);
}

void DeleteSkipEmpty(void* a) { delete static_cast<bool*>(a); }

// The tokens of `text` between any of `delimiters`' bytes (each byte its own token when
// `delimiters` is empty), the empty ones dropped when `skip_empty`; an empty text has
// none, as in TensorFlow.
void SplitAtAny(std::string_view text, std::string_view delimiters, bool skip_empty,
                std::vector<std::string_view>* tokens) {
  auto add = [&](std::string_view t) {
    if (!skip_empty || !t.empty()) tokens->push_back(t);
  };
  if (text.empty()) return;
  if (delimiters.empty()) {
    for (size_t k = 0; k < text.size(); ++k) add(text.substr(k, 1));
    return;
  }
  size_t p = 0;
  while (true) {
    const size_t q = text.find_first_of(delimiters, p);
    if (q == std::string_view::npos) break;
    add(text.substr(p, q - p));
    p = q + 1;
  }
  add(text.substr(p));
}

void StringSplitCompute(void* attrs, TF_OpKernelContext* ctx) {
  const bool skip_empty = *static_cast<bool*>(attrs);
  const TF_Tensor* in = BorrowInput(ctx, 0);
  const TF_Tensor* delim_t = in ? BorrowInput(ctx, 1) : nullptr;
  if (delim_t == nullptr) return;
  if (TF_NumDims(in) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "input must be a vector, got shape: " + ShapeString(Dims(in)));
  if (TF_NumDims(delim_t) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "delimiter must be a scalar, got shape: " + ShapeString(Dims(delim_t)));
  const std::string_view delimiters = StringElement(StringElements(delim_t));
  strings::EmitSplitRows(ctx, StringElements(in), TF_Dim(in, 0),
                         [&](std::string_view row, std::vector<std::string_view>* tokens) {
                           SplitAtAny(row, delimiters, skip_empty, tokens);
                         });
}

}  // namespace

void RegisterStringJoinSplitKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"RegexFullMatch", {}, {}, RegexFullMatchCompute}, status);
  RegisterKernel(kDevice, {"ReduceJoin", {}, {}, ReduceJoinCompute, CreateReduceJoin,
                           DeleteJoin}, status);
  RegisterKernel(kDevice, {"UnsortedSegmentJoin", {}, {}, SegmentJoinCompute,
                           CreateSegmentJoin, DeleteJoin}, status);
  RegisterKernel(kDevice, {"StringSplit", {}, {}, StringSplitCompute, CreateSkipEmpty,
                           DeleteSkipEmpty}, status);
}

}  // namespace cpu
}  // namespace opgen

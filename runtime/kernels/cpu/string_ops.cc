// CPU kernels of the string ops (../../ops/string_ops.cc), and the TF_STRING computes of
// the two select ops (registered with their families, select_v1.cc and
// elementwise_compare.cc). String elements are TF_TStrings: they are copied one by one
// (AssignString), never as raw words, so no two tensors share a heap buffer.
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "../broadcast_spec.h"
#include "../misc_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// A new string output of `dims` set as output `i`; nullptr after reporting a failure.
TensorPtr NewStringOutput(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims) {
  TensorPtr out(NewStringTensor(dims));
  if (!out) Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string tensor");
  return out;
}

bool SetOutput(TF_OpKernelContext* ctx, int i, const TensorPtr& t) {
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, i, t.get(), s.get());
  if (TF_GetCode(s.get()) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s.get());
  return false;
}

bool Assign(TF_OpKernelContext* ctx, TF_TString* dst, std::string_view bytes) {
  if (AssignString(dst, bytes)) return true;
  Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string of " +
                                       std::to_string(bytes.size()) + " bytes");
  return false;
}

// The input `i` of dtype `dtype` and rank 0; nullptr after reporting a failure.
TensorPtr ScalarInput(TF_OpKernelContext* ctx, int i, TF_DataType dtype, const char* op,
                      const char* what) {
  TensorPtr t = Input(ctx, i);
  if (!t) return nullptr;
  if (TF_TensorType(t.get()) != dtype || TF_NumDims(t.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": " + what + " must be a scalar, got shape " +
                                       ShapeString(Dims(t.get())));
    return nullptr;
  }
  return t;
}

struct JoinAttrs {
  std::string separator;
};

void* CreateJoin(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new JoinAttrs{kernels::StringAttr(ctx, "separator", s.get())};
  if (TF_GetCode(s.get()) == TF_OK) return attrs;
  delete attrs;
  TF_OpKernelConstruction_Failure(ctx, s.get());
  return nullptr;
}

void DeleteJoin(void* attrs) { delete static_cast<JoinAttrs*>(attrs); }

void JoinCompute(void* state, TF_OpKernelContext* ctx) {
  const std::string& separator = static_cast<JoinAttrs*>(state)->separator;
  const int n = TF_NumInputs(ctx);
  std::vector<TensorPtr> inputs;
  std::vector<int64_t> dims;
  bool have_shape = false;
  for (int i = 0; i < n; ++i) {
    inputs.push_back(Input(ctx, i));
    if (!inputs.back()) return;
    const std::vector<int64_t> d = Dims(inputs.back().get());
    if (d.empty()) continue;
    if (have_shape && d != dims) {
      Fail(ctx, TF_INVALID_ARGUMENT, "StringJoin: input shapes do not match: " +
                                         ShapeString(dims) + " vs. " + ShapeString(d));
      return;
    }
    dims = d;
    have_shape = true;
  }
  TensorPtr out = NewStringOutput(ctx, dims);
  if (!out) return;
  TF_TString* o = MutableStringElements(out.get());
  const int64_t count = NumElements(dims);
  std::string joined;
  for (int64_t k = 0; k < count; ++k) {
    joined.clear();
    for (int i = 0; i < n; ++i) {
      const TF_Tensor* t = inputs[i].get();
      if (i > 0) joined += separator;
      joined += StringElement(&StringElements(t)[TF_NumDims(t) == 0 ? 0 : k]);
    }
    if (!Assign(ctx, &o[k], joined)) return;
  }
  SetOutput(ctx, 0, out);
}

// "%s-%05d-of-%05d", with "?????" in place of the shard for a filespec.
void ShardName(TF_OpKernelContext* ctx, bool spec) {
  const char* op = spec ? "ShardedFilespec" : "ShardedFilename";
  TensorPtr base = ScalarInput(ctx, 0, TF_STRING, op, "basename");
  if (!base) return;
  int32_t shard = 0;
  if (!spec) {
    TensorPtr t = ScalarInput(ctx, 1, TF_INT32, op, "shard");
    if (!t) return;
    shard = *Data<int32_t>(t);
  }
  TensorPtr total = ScalarInput(ctx, spec ? 1 : 2, TF_INT32, op, "num_shards");
  if (!total) return;
  char suffix[64];
  if (spec)
    std::snprintf(suffix, sizeof suffix, "-\?\?\?\?\?-of-%05d", *Data<int32_t>(total));
  else
    std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d", shard, *Data<int32_t>(total));
  TensorPtr out = NewStringOutput(ctx, {});
  if (!out) return;
  const std::string name = std::string(StringElement(StringElements(base.get()))) + suffix;
  if (Assign(ctx, MutableStringElements(out.get()), name)) SetOutput(ctx, 0, out);
}

void ShardedFilenameCompute(void*, TF_OpKernelContext* ctx) { ShardName(ctx, false); }
void ShardedFilespecCompute(void*, TF_OpKernelContext* ctx) { ShardName(ctx, true); }

void* CreateRegex(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const std::string pattern = kernels::StringAttr(ctx, "pattern", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  try {
    return new std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    const std::string message =
        "StaticRegexFullMatch: invalid pattern '" + pattern + "': " + e.what();
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, message.c_str());
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
}

void DeleteRegex(void* re) { delete static_cast<std::regex*>(re); }

void RegexCompute(void* state, TF_OpKernelContext* ctx) {
  const auto& re = *static_cast<const std::regex*>(state);
  TensorPtr in = Input(ctx, 0);
  if (!in) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_BOOL, Dims(in.get()));
  if (!out) return;
  const TF_TString* s = StringElements(in.get());
  bool* o = Data<bool>(out);
  const int64_t n = TF_TensorElementCount(in.get());
  try {
    for (int64_t k = 0; k < n; ++k) {
      const std::string_view v = StringElement(&s[k]);
      o[k] = std::regex_match(v.begin(), v.end(), re);
    }
  } catch (const std::regex_error& e) {  // e.g. a pattern too complex for this input
    Fail(ctx, TF_INVALID_ARGUMENT, std::string("StaticRegexFullMatch: ") + e.what());
  }
}

}  // namespace

void SelectStringCompute(void*, TF_OpKernelContext* ctx) {
  kernels::SelectV1Plan p;
  if (!kernels::PlanSelectV1(ctx, &p)) return;
  TensorPtr out = NewStringOutput(ctx, p.dims);
  if (!out) return;
  const bool* c = Data<bool>(p.condition.get());
  const TF_TString* t = StringElements(p.t.get());
  const TF_TString* e = StringElements(p.e.get());
  TF_TString* o = MutableStringElements(out.get());
  for (int64_t i = 0; i < p.n; ++i) {
    const bool pick = p.scalar ? c[0] : c[i / p.inner];
    if (!Assign(ctx, &o[i], StringElement(pick ? &t[i] : &e[i]))) return;
  }
  SetOutput(ctx, 0, out);
}

// The flat offset into an operand of `dims` broadcast to `out`, for output index `index`.
int64_t BroadcastOffset(const std::vector<int64_t>& dims, const std::vector<int64_t>& out,
                        const std::vector<int64_t>& index) {
  int64_t offset = 0, stride = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    const size_t d = dims.size() - 1 - k;
    if (dims[d] != 1) offset += index[out.size() - 1 - k] * stride;
    stride *= dims[d];
  }
  return offset;
}

void SelectV2StringCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr c = Input(ctx, 0), t = Input(ctx, 1), e = Input(ctx, 2);
  if (!c || !t || !e) return;
  const std::vector<int64_t> cd = Dims(c.get()), td = Dims(t.get()), ed = Dims(e.get());
  std::vector<int64_t> out_dims;
  if (!kernels::BroadcastShape(cd, td, &out_dims) ||
      !kernels::BroadcastShape(out_dims, ed, &out_dims)) {
    kernels::FailIncompatibleShapes(ctx, {cd, td, ed});
    return;
  }
  TensorPtr out = NewStringOutput(ctx, out_dims);
  if (!out) return;
  const bool* cp = Data<bool>(c);
  const TF_TString* tp = StringElements(t.get());
  const TF_TString* ep = StringElements(e.get());
  TF_TString* o = MutableStringElements(out.get());
  std::vector<int64_t> index(out_dims.size(), 0);
  const int64_t n = NumElements(out_dims);
  for (int64_t i = 0; i < n; ++i) {
    const bool pick = cp[BroadcastOffset(cd, out_dims, index)];
    const TF_TString* src = pick ? &tp[BroadcastOffset(td, out_dims, index)]
                                 : &ep[BroadcastOffset(ed, out_dims, index)];
    if (!Assign(ctx, &o[i], StringElement(src))) return;
    for (size_t d = out_dims.size(); d-- > 0;) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  SetOutput(ctx, 0, out);
}


void RegisterStringKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"StringJoin", {}, {}, JoinCompute, CreateJoin, DeleteJoin}, status);
  RegisterKernel(kDevice, {"ShardedFilename", {}, {}, ShardedFilenameCompute}, status);
  RegisterKernel(kDevice, {"ShardedFilespec", {}, {}, ShardedFilespecCompute}, status);
  RegisterKernel(kDevice, {"StaticRegexFullMatch", {}, {}, RegexCompute, CreateRegex,
                           DeleteRegex}, status);
}

}  // namespace cpu
}  // namespace opgen

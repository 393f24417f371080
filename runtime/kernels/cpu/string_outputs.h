// What the host string kernels share: failing a construction on a bad attr, new string
// tensors, element writes that report running out of memory, setting an output, and the
// SparseTensor of tokens that StringSplit and StringSplitV2 both produce.
#ifndef OPGEN_RUNTIME_KERNELS_CPU_STRING_OUTPUTS_H_
#define OPGEN_RUNTIME_KERNELS_CPU_STRING_OUTPUTS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace strings {

// A string tensor of `dims` (empty elements); nullptr after reporting the failure.
inline TensorPtr NewStrings(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims) {
  TensorPtr out(NewStringTensor(dims));
  if (!out) kernels::Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string tensor");
  return out;
}

// Writes `bytes` to `dst`; false after reporting the failure.
inline bool Put(TF_OpKernelContext* ctx, TF_TString* dst, std::string_view bytes) {
  if (AssignString(dst, bytes)) return true;
  kernels::Fail(ctx, TF_RESOURCE_EXHAUSTED,
                "out of memory for a string of " + std::to_string(bytes.size()) + " bytes");
  return false;
}

// True when `s` is OK; otherwise fails the kernel's construction with it.
inline bool ConstructionOk(TF_OpKernelConstruction* ctx, TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelConstruction_Failure(ctx, s);
  return false;
}

// Sets output `i`; false after reporting the failure.
inline bool SetOut(TF_OpKernelContext* ctx, int i, const TensorPtr& t) {
  StatusPtr s = kernels::NewStatus();
  TF_SetOutput(ctx, i, t.get(), s.get());
  if (TF_GetCode(s.get()) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s.get());
  return false;
}

// Output 0 = f(each string of input 0, &bytes) as strings of the same shape (`bytes`
// starts empty each time); f returns false after reporting a failure.
template <typename F>
void MapStrings(TF_OpKernelContext* ctx, F f) {
  const TF_Tensor* in = kernels::BorrowInput(ctx, 0);
  if (in == nullptr) return;
  TensorPtr out = NewStrings(ctx, kernels::Dims(in));
  if (!out) return;
  const TF_TString* s = StringElements(in);
  TF_TString* o = MutableStringElements(out.get());
  const int64_t n = TF_TensorElementCount(in);
  std::string bytes;
  for (int64_t k = 0; k < n; ++k) {
    bytes.clear();
    if (!f(StringElement(&s[k]), &bytes) || !Put(ctx, &o[k], bytes)) return;
  }
  SetOut(ctx, 0, out);
}

// Splits each of the `rows` strings of `s` with split(row, &tokens) (which appends that
// row's tokens) and writes the SparseTensor outputs: indices [n, 2] (row, position),
// values [n] and dense_shape [rows, most tokens in a row].
template <typename Split>
void EmitSplitRows(TF_OpKernelContext* ctx, const TF_TString* s, int64_t rows, Split split) {
  std::vector<std::string_view> tokens;
  std::vector<int64_t> row_of, col_of;
  int64_t widest = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const size_t before = tokens.size();
    split(StringElement(&s[r]), &tokens);
    const int64_t got = static_cast<int64_t>(tokens.size() - before);
    widest = std::max(widest, got);
    for (int64_t c = 0; c < got; ++c) {
      row_of.push_back(r);
      col_of.push_back(c);
    }
  }
  const int64_t n = static_cast<int64_t>(tokens.size());
  TensorPtr indices = cpu::AllocateOutput<int64_t>(ctx, 0, {n, 2});
  TensorPtr values = indices ? NewStrings(ctx, {n}) : nullptr;
  TensorPtr shape = values ? cpu::AllocateOutput<int64_t>(ctx, 2, {2}) : nullptr;
  if (!shape) return;
  int64_t* idx = kernels::Data<int64_t>(indices);
  TF_TString* v = MutableStringElements(values.get());
  for (int64_t k = 0; k < n; ++k) {
    idx[2 * k] = row_of[k];
    idx[2 * k + 1] = col_of[k];
    if (!Put(ctx, &v[k], tokens[k])) return;
  }
  kernels::Data<int64_t>(shape)[0] = rows;
  kernels::Data<int64_t>(shape)[1] = widest;
  SetOut(ctx, 1, values);
}

}  // namespace strings
}  // namespace cpu
}  // namespace opgen

#endif  // OPGEN_RUNTIME_KERNELS_CPU_STRING_OUTPUTS_H_

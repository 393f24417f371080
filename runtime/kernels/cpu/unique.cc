// The Unique family and ListDiff: outputs whose sizes come from the values themselves,
// computed on the host. Values compare as TensorFlow's do:
// a NaN equals nothing (each NaN is its own unique value); 0.0 equals -0.0 in float and
// double, not in half and bfloat16.
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// Appends element `i` of `t` to `key` in a form where equal values give equal bytes;
// false for a NaN, which equals no other value.
bool AppendKey(const TF_Tensor* t, int64_t i, std::string* key) {
  const TF_DataType type = TF_TensorType(t);
  if (type == TF_STRING) {
    const std::string_view s = StringElement(&StringElements(t)[i]);
    const uint64_t size = s.size();
    key->append(reinterpret_cast<const char*>(&size), sizeof size);
    key->append(s);
    return true;
  }
  double v = 0;
  switch (type) {
    case TF_FLOAT: v = static_cast<const float*>(TF_TensorData(t))[i]; break;
    case TF_DOUBLE: v = static_cast<const double*>(TF_TensorData(t))[i]; break;
    case TF_HALF:
    case TF_BFLOAT16: {
      // TensorFlow hashes 16-bit floats by their bits: -0 and 0 stay apart.
      const uint16_t bits = static_cast<const uint16_t*>(TF_TensorData(t))[i];
      const float f = type == TF_HALF ? HalfBitsToFloat(bits) : BFloat16BitsToFloat(bits);
      if (std::isnan(f)) return false;
      key->append(reinterpret_cast<const char*>(&bits), sizeof bits);
      return true;
    }
    default: {
      const size_t width = TF_DataTypeSize(type);
      key->append(static_cast<const char*>(TF_TensorData(t)) + i * width, width);
      return true;
    }
  }
  if (std::isnan(v)) return false;
  if (v == 0) v = 0;  // -0.0 and 0.0 are one value
  key->append(reinterpret_cast<const char*>(&v), sizeof v);
  return true;
}

// Writes int64 values into an int32 or int64 output.
void PutIndices(TF_Tensor* out, const std::vector<int64_t>& values) {
  if (TF_TensorType(out) == TF_INT32) {
    int32_t* p = static_cast<int32_t*>(TF_TensorData(out));
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<int32_t>(values[i]);
  } else {
    std::memcpy(TF_TensorData(out), values.data(), values.size() * sizeof(int64_t));
  }
}

// Copies element `from` of `in` to element `to` of `out` (strings one by one).
bool CopyElement(const TF_Tensor* in, int64_t from, TF_Tensor* out, int64_t to) {
  if (TF_TensorType(in) == TF_STRING)
    return AssignString(&MutableStringElements(out)[to], StringElement(&StringElements(in)[from]));
  const size_t width = TF_DataTypeSize(TF_TensorType(in));
  std::memcpy(static_cast<char*>(TF_TensorData(out)) + to * width,
              static_cast<const char*>(TF_TensorData(in)) + from * width, width);
  return true;
}

// A new output `i` of `type`: numbers allocated by the context, strings made here.
TensorPtr NewOutput(TF_OpKernelContext* ctx, int i, TF_DataType type,
                    const std::vector<int64_t>& dims) {
  if (type != TF_STRING) return kernels::AllocateOutput(ctx, i, type, dims);
  TensorPtr out(NewStringTensor(dims));
  if (!out) Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string tensor");
  return out;  // set as output `i` by SetStringOutput, once filled
}

bool SetStringOutput(TF_OpKernelContext* ctx, int i, const TensorPtr& out) {
  if (TF_TensorType(out.get()) != TF_STRING) return true;
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, i, out.get(), s);
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s);
  return false;
}

// Unique, UniqueWithCounts and their V2s: `has_axis` for the V2s (input 1),
// `counts` for the WithCounts ops (output 2).
template <bool kHasAxis, bool kCounts>
void UniqueCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> dims = Dims(x.get());
  bool flat = true;
  int64_t axis = 0;
  if constexpr (kHasAxis) {
    TensorPtr axis_t = Input(ctx, 1);
    if (!axis_t) return;
    if (TF_NumDims(axis_t.get()) != 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "axis expects a 1D vector.");
    const std::vector<int64_t> axes = IndexValues(axis_t.get());
    if (axes.size() > 1)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "axis does not support input tensors larger than 1 elements");
    if (!axes.empty()) {
      flat = false;
      const int64_t rank = static_cast<int64_t>(dims.size());
      axis = axes[0] < 0 ? axes[0] + rank : axes[0];
      if (axis < 0 || axis >= rank)
        return Fail(ctx, TF_INVALID_ARGUMENT,
                    "axis has to be between [0, " + std::to_string(rank) + ")");
    }
  }
  if (flat && dims.size() != 1) return Fail(ctx, TF_INVALID_ARGUMENT, "unique expects a 1D vector.");
  int64_t outer = 1, inner = 1;
  kernels::OuterInner(dims, axis, &outer, &inner);
  const int64_t length = dims[axis];
  // Slice j: elements (o * length + j) * inner + k.
  std::unordered_map<std::string, int64_t> seen;
  std::vector<int64_t> idx(length), first, count;
  std::string key;
  for (int64_t j = 0; j < length; ++j) {
    key.clear();
    bool comparable = true;
    for (int64_t o = 0; o < outer && comparable; ++o)
      for (int64_t k = 0; k < inner && comparable; ++k)
        comparable = AppendKey(x.get(), (o * length + j) * inner + k, &key);
    auto found = comparable ? seen.find(key) : seen.end();
    if (found == seen.end()) {
      if (comparable) seen.emplace(key, static_cast<int64_t>(first.size()));
      idx[j] = static_cast<int64_t>(first.size());
      first.push_back(j);
      count.push_back(1);
    } else {
      idx[j] = found->second;
      ++count[found->second];
    }
  }
  const int64_t u = static_cast<int64_t>(first.size());
  std::vector<int64_t> y_dims = dims;
  y_dims[axis] = u;
  const TF_DataType type = TF_TensorType(x.get());
  TensorPtr y = NewOutput(ctx, 0, type, y_dims);
  if (!y) return;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < u; ++j)
      for (int64_t k = 0; k < inner; ++k)
        if (!CopyElement(x.get(), (o * length + first[j]) * inner + k, y.get(),
                         (o * u + j) * inner + k))
          return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string");
  if (!SetStringOutput(ctx, 0, y)) return;
  TensorPtr idx_t = kernels::AllocateOutput(ctx, 1, TF_ExpectedOutputDataType(ctx, 1), {length});
  if (!idx_t) return;
  PutIndices(idx_t.get(), idx);
  if constexpr (kCounts) {
    TensorPtr count_t = kernels::AllocateOutput(ctx, 2, TF_ExpectedOutputDataType(ctx, 2), {u});
    if (!count_t) return;
    PutIndices(count_t.get(), count);
  }
}

void ListDiffCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0), y = Input(ctx, 1);
  if (!x || !y) return;
  if (TF_NumDims(x.get()) != 1) return Fail(ctx, TF_INVALID_ARGUMENT, "x should be a 1D vector.");
  if (TF_NumDims(y.get()) != 1) return Fail(ctx, TF_INVALID_ARGUMENT, "y should be a 1D vector.");
  std::unordered_set<std::string> remove;
  std::string key;
  for (int64_t i = 0; i < TF_Dim(y.get(), 0); ++i) {
    key.clear();
    if (AppendKey(y.get(), i, &key)) remove.insert(key);
  }
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < TF_Dim(x.get(), 0); ++i) {
    key.clear();
    if (!AppendKey(x.get(), i, &key) || !remove.count(key)) kept.push_back(i);
  }
  const int64_t n = static_cast<int64_t>(kept.size());
  TensorPtr out = NewOutput(ctx, 0, TF_TensorType(x.get()), {n});
  if (!out) return;
  for (int64_t i = 0; i < n; ++i)
    if (!CopyElement(x.get(), kept[i], out.get(), i))
      return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string");
  if (!SetStringOutput(ctx, 0, out)) return;
  TensorPtr idx = kernels::AllocateOutput(ctx, 1, TF_ExpectedOutputDataType(ctx, 1), {n});
  if (idx) PutIndices(idx.get(), kept);
}

}  // namespace

void RegisterUniqueKernels(TF_Status* status) {
  std::vector<TF_DataType> types(std::begin(kAllFixedSizeTypes), std::end(kAllFixedSizeTypes));
  types.push_back(TF_STRING);
  for (TF_DataType t : types) {
    if (t == TF_COMPLEX64 || t == TF_COMPLEX128) continue;  // TensorFlow compares none either
    for (TF_DataType idx : {TF_INT32, TF_INT64}) {
      RegisterKernel(kDevice, {"Unique", {{"T", t}, {"out_idx", idx}}, {},
                               UniqueCompute<false, false>}, status);
      RegisterKernel(kDevice, {"UniqueWithCounts", {{"T", t}, {"out_idx", idx}}, {},
                               UniqueCompute<false, true>}, status);
      for (TF_DataType axis : {TF_INT32, TF_INT64}) {
        RegisterKernel(kDevice, {"UniqueV2", {{"T", t}, {"Taxis", axis}, {"out_idx", idx}}, {},
                                 UniqueCompute<true, false>}, status);
        RegisterKernel(kDevice, {"UniqueWithCountsV2",
                                 {{"T", t}, {"Taxis", axis}, {"out_idx", idx}}, {},
                                 UniqueCompute<true, true>}, status);
      }
      if (t != TF_BOOL)
        RegisterKernel(kDevice, {"ListDiff", {{"T", t}, {"out_idx", idx}}, {}, ListDiffCompute},
                       status);
    }
  }
}

}  // namespace cpu
}  // namespace opgen

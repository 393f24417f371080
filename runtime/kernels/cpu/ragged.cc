// CPU kernel of RaggedTensorToTensor (../../ops/string_text_ops.cc) for ragged tensors
// given by row splits (row_partition_types all "ROW_SPLITS", what tf.RaggedTensor.to_tensor
// and Keras' TextVectorization emit): each value goes to its row's next column, rows and
// columns beyond the requested shape are dropped, the rest is default_value.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../../src/string_tensor.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

void* CreatePartitionTypes(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  int32_t count = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "row_partition_types", &count, &total, s.get());
  std::vector<std::string> types;
  if (TF_GetCode(s.get()) == TF_OK && count > 0) {
    std::vector<char*> values(static_cast<size_t>(count));
    std::vector<size_t> lengths(static_cast<size_t>(count));
    std::vector<char> storage(static_cast<size_t>(std::max(total, 1)));
    TF_OpKernelConstruction_GetAttrStringList(ctx, "row_partition_types", values.data(),
                                              lengths.data(), count, storage.data(),
                                              storage.size(), s.get());
    for (int32_t i = 0; TF_GetCode(s.get()) == TF_OK && i < count; ++i)
      types.emplace_back(values[i], lengths[i]);
  }
  for (const std::string& t : types)
    if (TF_GetCode(s.get()) == TF_OK && t != "ROW_SPLITS")
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                   ("RaggedTensorToTensor: opgen takes row partitions of type ROW_SPLITS only, "
                    "got " + t).c_str());
  if (TF_GetCode(s.get()) == TF_OK && types.empty())
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 "RaggedTensorToTensor: row_partition_types is empty");
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new int(static_cast<int>(types.size()));
}

void DeletePartitionTypes(void* a) { delete static_cast<int*>(a); }

// Index values of an int32 or int64 tensor.
std::vector<int64_t> Indices(const TF_Tensor* t) { return IndexValues(t); }

void ToTensorCompute(void* attrs, TF_OpKernelContext* ctx) {
  const int ragged_rank = *static_cast<int*>(attrs);
  const TF_Tensor* shape_t = BorrowInput(ctx, 0);
  const TF_Tensor* values = shape_t ? BorrowInput(ctx, 1) : nullptr;
  const TF_Tensor* fill = values ? BorrowInput(ctx, 2) : nullptr;
  if (fill == nullptr) return;
  if (TF_NumInputs(ctx) != 3 + ragged_rank)
    return Fail(ctx, TF_INVALID_ARGUMENT, "RaggedTensorToTensor: expected " +
                                              std::to_string(ragged_rank) +
                                              " row partition tensors");
  const std::vector<int64_t> value_dims = Dims(values);
  if (value_dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "values must have rank at least 1");
  const std::vector<int64_t> inner(value_dims.begin() + 1, value_dims.end());
  const int rank = ragged_rank + static_cast<int>(value_dims.size());
  std::vector<std::vector<int64_t>> splits;
  int64_t parents = -1;
  for (int k = 0; k < ragged_rank; ++k) {
    const TF_Tensor* t = BorrowInput(ctx, 3 + k);
    if (t == nullptr) return;
    if (TF_NumDims(t) != 1 || TF_Dim(t, 0) < 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "row_splits must be a non-empty vector, got shape " +
                                                ShapeString(Dims(t)));
    splits.push_back(Indices(t));
    const std::vector<int64_t>& s = splits.back();
    const int64_t children = k + 1 < ragged_rank ? -1 : value_dims[0];
    if (parents >= 0 && static_cast<int64_t>(s.size()) != parents + 1)
      return Fail(ctx, TF_INVALID_ARGUMENT, "row_splits of level " + std::to_string(k) +
                                                " must have one more entry than the rows of "
                                                "the level above");
    if (s[0] != 0) return Fail(ctx, TF_INVALID_ARGUMENT, "row_splits must start with 0");
    for (size_t i = 1; i < s.size(); ++i)
      if (s[i] < s[i - 1]) return Fail(ctx, TF_INVALID_ARGUMENT, "row_splits must be sorted");
    if (children >= 0 && s.back() != children)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "the last row split is " + std::to_string(s.back()) + " but values has " +
                      std::to_string(children) + " rows");
    parents = s.back();
  }
  for (int k = 0; k + 1 < ragged_rank; ++k)
    if (splits[k].back() + 1 != static_cast<int64_t>(splits[k + 1].size()))
      return Fail(ctx, TF_INVALID_ARGUMENT, "row_splits of consecutive levels do not agree");

  // The output's dims: the requested ones, else the widest row of each level.
  std::vector<int64_t> want(static_cast<size_t>(rank), -1);
  if (TF_NumDims(shape_t) == 1) {
    const std::vector<int64_t> w = Indices(shape_t);
    if (static_cast<int>(w.size()) != rank)
      return Fail(ctx, TF_INVALID_ARGUMENT, "shape " + ShapeString(w) + " must have rank " +
                                                std::to_string(rank));
    want = w;
  } else if (TF_NumDims(shape_t) != 0) {
    return Fail(ctx, TF_INVALID_ARGUMENT, "shape must be a scalar or a vector");
  }
  std::vector<int64_t> out_dims(static_cast<size_t>(rank));
  out_dims[0] = want[0] >= 0 ? want[0] : static_cast<int64_t>(splits[0].size()) - 1;
  for (int k = 0; k < ragged_rank; ++k) {
    int64_t widest = 0;
    for (size_t i = 1; i < splits[k].size(); ++i)
      widest = std::max(widest, splits[k][i] - splits[k][i - 1]);
    out_dims[k + 1] = want[k + 1] >= 0 ? want[k + 1] : widest;
  }
  for (size_t d = 0; d < inner.size(); ++d) {
    const int64_t w = want[ragged_rank + 1 + d];
    if (w >= 0 && w != inner[d])
      return Fail(ctx, TF_INVALID_ARGUMENT, "the values' inner shape " + ShapeString(inner) +
                                                " differs from the requested shape " +
                                                ShapeString(want));
    out_dims[ragged_rank + 1 + d] = inner[d];
  }
  const int64_t block = NumElements(inner);
  const std::vector<int64_t> fill_dims = Dims(fill);
  if (!fill_dims.empty() && fill_dims != inner)
    return Fail(ctx, TF_INVALID_ARGUMENT, "default_value must be a scalar or shaped as the "
                                          "values' inner shape " + ShapeString(inner) +
                                          ", got " + ShapeString(fill_dims));

  // Each row's place in the output's leading dims (-1: dropped), level by level.
  std::vector<int64_t> place(static_cast<size_t>(splits[0].size() - 1));
  for (size_t i = 0; i < place.size(); ++i)
    place[i] = static_cast<int64_t>(i) < out_dims[0] ? static_cast<int64_t>(i) : -1;
  for (int k = 0; k < ragged_rank; ++k) {
    const std::vector<int64_t>& s = splits[k];
    std::vector<int64_t> next(static_cast<size_t>(s.back()), -1);
    const int64_t width = out_dims[k + 1];
    for (size_t r = 0; r + 1 < s.size(); ++r)
      for (int64_t j = s[r]; j < s[r + 1]; ++j) {
        const int64_t col = j - s[r];
        if (place[r] >= 0 && col < width) next[static_cast<size_t>(j)] = place[r] * width + col;
      }
    place = std::move(next);
  }

  const TF_DataType dtype = TF_TensorType(values);
  const int64_t total = NumElements(out_dims);
  const bool strings = dtype == TF_STRING;
  TensorPtr out(strings ? NewStringTensor(out_dims)
                        : TF_AllocateTensor(dtype, out_dims.data(), rank,
                                            static_cast<size_t>(total) * TF_DataTypeSize(dtype)));
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for RaggedTensorToTensor");
  const int64_t fill_step = fill_dims.empty() ? 0 : 1;
  auto copy = [&](const TF_Tensor* from, int64_t src, int64_t dst) {
    if (strings)
      return AssignString(&MutableStringElements(out.get())[dst],
                          StringElement(&StringElements(from)[src]));
    const size_t size = TF_DataTypeSize(dtype);
    std::memcpy(static_cast<char*>(TF_TensorData(out.get())) + dst * size,
                static_cast<const char*>(TF_TensorData(from)) + src * size, size);
    return true;
  };
  for (int64_t i = 0; i < total; ++i)
    if (!copy(fill, (i % std::max<int64_t>(block, 1)) * fill_step, i))
      return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string");
  for (size_t v = 0; v < place.size(); ++v) {
    if (place[v] < 0) continue;
    for (int64_t e = 0; e < block; ++e)
      if (!copy(values, static_cast<int64_t>(v) * block + e, place[v] * block + e))
        return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string");
  }
  StatusPtr s = NewStatus();
  TF_SetOutput(ctx, 0, out.get(), s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
}

}  // namespace

void RegisterRaggedKernels(TF_Status* status) {
  for (TF_DataType t : {TF_BOOL, TF_INT8, TF_UINT8, TF_INT16, TF_INT32, TF_INT64, TF_HALF,
                        TF_BFLOAT16, TF_FLOAT, TF_DOUBLE, TF_STRING})
    RegisterKernel(kDevice, {"RaggedTensorToTensor", {{"T", t}}, {}, ToTensorCompute,
                             CreatePartitionTypes, DeletePartitionTypes},
                   status);
}

}  // namespace cpu
}  // namespace opgen

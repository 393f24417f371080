// CPU kernel of RaggedTensorToTensor (../../ops/string_text_ops.cc) for ragged tensors
// given by row splits (row_partition_types all "ROW_SPLITS") or by a row count and value
// row ids ("FIRST_DIM_SIZE", then "VALUE_ROWIDS" per level: what tf.RaggedTensor.to_tensor
// and Keras' TextVectorization emit). The row ids become row splits; then each value goes
// to its row's next column, rows and columns beyond the requested shape are dropped, and
// the rest is default_value.
#include <algorithm>
#include <cstdlib>
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
  // Supported: every partition ROW_SPLITS, or FIRST_DIM_SIZE then VALUE_ROWIDS.
  bool splits = !types.empty(), rowids = types.size() >= 2 && types[0] == "FIRST_DIM_SIZE";
  for (size_t i = 0; i < types.size(); ++i) {
    splits = splits && types[i] == "ROW_SPLITS";
    if (i > 0) rowids = rowids && types[i] == "VALUE_ROWIDS";
  }
  if (TF_GetCode(s.get()) == TF_OK && !splits && !rowids) {
    std::string got;
    for (const std::string& t : types) got += (got.empty() ? "" : ", ") + t;
    TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                 ("RaggedTensorToTensor: opgen takes row partitions that are all ROW_SPLITS, "
                  "or FIRST_DIM_SIZE then VALUE_ROWIDS; got [" + got + "]").c_str());
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  // The ragged rank, negative for the row-id form.
  return new int(splits ? static_cast<int>(types.size()) : -static_cast<int>(types.size() - 1));
}

void DeletePartitionTypes(void* a) { delete static_cast<int*>(a); }


// Row splits from value row ids (sorted, each below `rows`): splits[r + 1] counts the
// ids <= r. False after reporting bad ids.
bool SplitsFromRowIds(TF_OpKernelContext* ctx, const std::vector<int64_t>& ids, int64_t rows,
                      std::vector<int64_t>* splits) {
  splits->assign(static_cast<size_t>(rows) + 1, 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= rows || (i > 0 && ids[i] < ids[i - 1])) {
      Fail(ctx, TF_INVALID_ARGUMENT, "value_rowids must be sorted and in [0, " +
                                         std::to_string(rows) + "), got " +
                                         std::to_string(ids[i]) + " at " + std::to_string(i));
      return false;
    }
    ++(*splits)[static_cast<size_t>(ids[i]) + 1];
  }
  for (size_t r = 1; r < splits->size(); ++r) (*splits)[r] += (*splits)[r - 1];
  return true;
}

// The row splits of each ragged level, checked: from ROW_SPLITS inputs, or from
// FIRST_DIM_SIZE and VALUE_ROWIDS (`row_ids`). False after reporting a failure.
bool ReadPartitions(TF_OpKernelContext* ctx, bool row_ids, int ragged_rank, int64_t values,
                    std::vector<std::vector<int64_t>>* splits) {
  int64_t parents = -1;
  if (row_ids) {
    const TF_Tensor* t = BorrowInput(ctx, 3);
    if (t == nullptr) return false;
    if (TF_NumDims(t) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "FIRST_DIM_SIZE must be a scalar, got shape " +
                                         ShapeString(Dims(t)));
      return false;
    }
    parents = IndexValues(t)[0];
    if (parents < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "FIRST_DIM_SIZE is negative");
      return false;
    }
  }
  for (int k = 0; k < ragged_rank; ++k) {
    const TF_Tensor* t = BorrowInput(ctx, 3 + k + (row_ids ? 1 : 0));
    if (t == nullptr) return false;
    if (TF_NumDims(t) != 1 || (!row_ids && TF_Dim(t, 0) < 1)) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(row_ids ? "value_rowids" : "row_splits") +
                                         " must be a " + (row_ids ? "" : "non-empty ") +
                                         "vector, got shape " + ShapeString(Dims(t)));
      return false;
    }
    std::vector<int64_t> s;
    if (row_ids) {
      if (!SplitsFromRowIds(ctx, IndexValues(t), parents, &s)) return false;
    } else {
      s = IndexValues(t);
    }
    const int64_t children = k + 1 < ragged_rank ? -1 : values;
    if (parents >= 0 && static_cast<int64_t>(s.size()) != parents + 1) {
      Fail(ctx, TF_INVALID_ARGUMENT, "row partition " + std::to_string(k) +
                                         " does not match the rows of the level above");
      return false;
    }
    bool sorted = s[0] == 0;
    for (size_t i = 1; sorted && i < s.size(); ++i) sorted = s[i] >= s[i - 1];
    if (!sorted) {
      Fail(ctx, TF_INVALID_ARGUMENT, "row_splits must start with 0 and be sorted");
      return false;
    }
    if (children >= 0 && s.back() != children) {
      Fail(ctx, TF_INVALID_ARGUMENT, "the last row split is " + std::to_string(s.back()) +
                                         " but values has " + std::to_string(children) +
                                         " rows");
      return false;
    }
    parents = s.back();
    splits->push_back(std::move(s));
  }
  return true;
}

void ToTensorCompute(void* attrs, TF_OpKernelContext* ctx) {
  const bool row_ids = *static_cast<int*>(attrs) < 0;
  const int ragged_rank = std::abs(*static_cast<int*>(attrs));
  const TF_Tensor* shape_t = BorrowInput(ctx, 0);
  const TF_Tensor* values = shape_t ? BorrowInput(ctx, 1) : nullptr;
  const TF_Tensor* fill = values ? BorrowInput(ctx, 2) : nullptr;
  if (fill == nullptr) return;
  if (TF_NumInputs(ctx) != 3 + ragged_rank + (row_ids ? 1 : 0))
    return Fail(ctx, TF_INVALID_ARGUMENT, "RaggedTensorToTensor: expected " +
                                              std::to_string(ragged_rank) +
                                              " row partition tensors");
  const std::vector<int64_t> value_dims = Dims(values);
  if (value_dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "values must have rank at least 1");
  const std::vector<int64_t> inner(value_dims.begin() + 1, value_dims.end());
  const int rank = ragged_rank + static_cast<int>(value_dims.size());
  std::vector<std::vector<int64_t>> splits;
  if (!ReadPartitions(ctx, row_ids, ragged_rank, value_dims[0], &splits)) return;
  for (int k = 0; k + 1 < ragged_rank; ++k)
    if (splits[k].back() + 1 != static_cast<int64_t>(splits[k + 1].size()))
      return Fail(ctx, TF_INVALID_ARGUMENT, "row_splits of consecutive levels do not agree");

  // The output's dims: the requested ones, else the widest row of each level.
  std::vector<int64_t> want(static_cast<size_t>(rank), -1);
  if (TF_NumDims(shape_t) == 1) {
    const std::vector<int64_t> w = IndexValues(shape_t);
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

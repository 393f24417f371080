// The value a DT_VARIANT TensorList tensor holds: an element dtype, an element shape
// (partly known) and the elements, each shared (lists are values: an op that changes a
// list makes a new one that shares the unchanged elements, or changes it in place when
// the runtime forwards it: nobody else can read it any more). A list tensor is a host
// scalar whose buffer is the TensorList, freed with it; kernels reach it only through
// the public C API (TF_TensorData), and check its tag before trusting it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow/c/tf_tensor.h"

namespace opgen {
namespace kernels {

struct TensorList {
  static constexpr uint64_t kTag = 0x5453494c4e45504full;  // "OPENLIST"
  uint64_t tag = kTag;
  TF_DataType element_dtype = TF_FLOAT;
  bool element_rank_known = false;
  std::vector<int64_t> element_shape;  // -1: unknown dim
  // Null: an element not set yet (it reads as zeros of a fully known element shape).
  std::vector<std::shared_ptr<TF_Tensor>> items;

  static std::shared_ptr<TF_Tensor> Hold(TF_Tensor* t) {
    return std::shared_ptr<TF_Tensor>(t, TF_DeleteTensor);
  }
  // The list `t` holds, or null when `t` is no TensorList tensor.
  static const TensorList* From(const TF_Tensor* t) {
    if (t == nullptr || TF_TensorType(t) != TF_VARIANT || TF_NumDims(t) != 0 ||
        TF_TensorByteSize(t) != sizeof(TensorList))
      return nullptr;
    auto* list = static_cast<const TensorList*>(TF_TensorData(t));
    return list != nullptr && list->tag == kTag ? list : nullptr;
  }
  // A new scalar variant tensor that owns `list`; null if allocation fails.
  static TF_Tensor* ToTensor(std::unique_ptr<TensorList> list) {
    TensorList* raw = list.release();
    return TF_NewTensor(
        TF_VARIANT, nullptr, 0, raw, sizeof(TensorList),
        [](void* data, size_t, void*) { delete static_cast<TensorList*>(data); }, nullptr);
  }
  std::string ShapeString() const {
    if (!element_rank_known) return "<unknown>";
    std::string s = "[";
    for (size_t i = 0; i < element_shape.size(); ++i)
      s += (i ? "," : "") + (element_shape[i] < 0 ? std::string("?") : std::to_string(element_shape[i]));
    return s + "]";
  }
};

}  // namespace kernels
}  // namespace opgen

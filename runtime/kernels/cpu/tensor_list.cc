// TensorList kernels (TensorFlow registers them on the host only: a list is a host
// object even when its elements would live on a device), and AddN of lists. The list is
// ../tensor_list.h.
#include <algorithm>
#include <cstring>

#include "../tensor_list.h"
#include "host_tensor_alloc.h"
#include "kernel_util.h"
#include "tensor_add.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::TensorList;

struct ListAttrs {
  TF_DataType element_dtype = TF_FLOAT;
  int64_t num_elements = -1;  // TensorListStack's attr
  bool resize = false;        // TensorListSetItem's resize_if_index_out_of_bounds
};

void* CreateListAttrs(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* attrs = new ListAttrs();
  if (TF_OpKernelConstruction_HasAttr(ctx, "element_dtype", s.get()))
    TF_OpKernelConstruction_GetAttrType(ctx, "element_dtype", &attrs->element_dtype, s.get());
  if (TF_OpKernelConstruction_HasAttr(ctx, "num_elements", s.get()))
    TF_OpKernelConstruction_GetAttrInt64(ctx, "num_elements", &attrs->num_elements, s.get());
  if (TF_OpKernelConstruction_HasAttr(ctx, "resize_if_index_out_of_bounds", s.get()))
    attrs->resize = kernels::BoolAttr(ctx, "resize_if_index_out_of_bounds", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete attrs;
    return nullptr;
  }
  return attrs;
}

void DeleteListAttrs(void* attrs) { delete static_cast<ListAttrs*>(attrs); }

// Input `i` as a list whose elements have the dtype the op expects, or null after failing.
const TensorList* ListInput(TF_OpKernelContext* ctx, int i, const ListAttrs* attrs) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (t == nullptr) return nullptr;
  const TensorList* list = TensorList::From(t);
  if (list == nullptr) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Input " + std::to_string(i) + " is not a TensorList: a " +
             kernels::DTypeName(TF_TensorType(t)) + " tensor of shape " + ShapeString(Dims(t)));
    return nullptr;
  }
  if (attrs != nullptr && list->element_dtype != attrs->element_dtype) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Invalid data types; op elements " + kernels::DTypeName(attrs->element_dtype) +
             " but list elements " + kernels::DTypeName(list->element_dtype));
    return nullptr;
  }
  return list;
}

// An element_shape operand: a scalar -1 is an unknown rank, -1 entries unknown dims.
bool ReadElementShape(TF_OpKernelContext* ctx, int i, bool* rank_known, std::vector<int64_t>* dims) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (t == nullptr) return false;
  const std::vector<int64_t> values = kernels::IndexValues(t);
  if (TF_NumDims(t) == 0) {
    if (values[0] != -1) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "element_shape: a scalar must be -1 (unknown rank), got " + std::to_string(values[0]));
      return false;
    }
    *rank_known = false;
    dims->clear();
    return true;
  }
  if (TF_NumDims(t) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "element_shape must be a scalar or a vector, got shape " + ShapeString(Dims(t)));
    return false;
  }
  for (int64_t d : values) {
    if (d < -1) {
      Fail(ctx, TF_INVALID_ARGUMENT, "element_shape has a dimension " + std::to_string(d));
      return false;
    }
  }
  *rank_known = true;
  *dims = values;
  return true;
}

// Merges a known shape into a partial one; false (with `error`) when they disagree.
bool MergeInto(bool* rank_known, std::vector<int64_t>* dims, bool other_rank_known,
               const std::vector<int64_t>& other, std::string* error) {
  if (!other_rank_known) return true;
  if (!*rank_known) {
    *rank_known = true;
    *dims = other;
    return true;
  }
  if (dims->size() != other.size()) {
    *error = "ranks differ";
    return false;
  }
  for (size_t k = 0; k < other.size(); ++k) {
    if ((*dims)[k] >= 0 && other[k] >= 0 && (*dims)[k] != other[k]) {
      *error = "dimension " + std::to_string(k) + " differs";
      return false;
    }
    if ((*dims)[k] < 0) (*dims)[k] = other[k];
  }
  return true;
}

std::string PartialShapeString(bool rank_known, const std::vector<int64_t>& dims) {
  TensorList l;
  l.element_rank_known = rank_known;
  l.element_shape = dims;
  return l.ShapeString();
}

void SetListOutput(TF_OpKernelContext* ctx, int i, std::unique_ptr<TensorList> list) {
  TF_Tensor* t = TensorList::ToTensor(std::move(list));
  if (t == nullptr) {
    Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a TensorList");
    return;
  }
  TF_SetOutput(ctx, i, t, ThreadStatus());
  TF_DeleteTensor(t);
  if (TF_GetCode(ThreadStatus()) != TF_OK) TF_OpKernelContext_Failure(ctx, ThreadStatus());
}

bool FullyDefined(bool rank_known, const std::vector<int64_t>& dims) {
  if (!rank_known) return false;
  for (int64_t d : dims)
    if (d < 0) return false;
  return true;
}

void ReserveCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  auto list = std::make_unique<TensorList>();
  list->element_dtype = attrs->element_dtype;
  if (!ReadElementShape(ctx, 0, &list->element_rank_known, &list->element_shape)) return;
  const TF_Tensor* n = BorrowInput(ctx, 1);
  if (n == nullptr) return;
  if (TF_NumDims(n) != 0 || *Data<int32_t>(n) < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "num_elements must be a non-negative scalar, got " +
             (TF_NumDims(n) == 0 ? std::to_string(*Data<int32_t>(n)) : "shape " + ShapeString(Dims(n))));
    return;
  }
  list->items.resize(static_cast<size_t>(*Data<int32_t>(n)));
  SetListOutput(ctx, 0, std::move(list));
}

void FromTensorCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TF_Tensor* tensor = BorrowInput(ctx, 0);
  if (tensor == nullptr) return;
  std::vector<int64_t> dims = Dims(tensor);
  if (dims.empty()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "TensorListFromTensor needs a tensor of rank 1 or more, got a scalar");
    return;
  }
  auto list = std::make_unique<TensorList>();
  list->element_dtype = attrs->element_dtype;
  if (!ReadElementShape(ctx, 1, &list->element_rank_known, &list->element_shape)) return;
  const std::vector<int64_t> element(dims.begin() + 1, dims.end());
  std::string error;
  if (!MergeInto(&list->element_rank_known, &list->element_shape, true, element, &error)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "The tensor's element shape " + ShapeString(element) + " does not fit element_shape " +
             list->ShapeString() + ": " + error);
    return;
  }
  const size_t bytes = static_cast<size_t>(NumElements(element)) * TF_DataTypeSize(TF_TensorType(tensor));
  const char* src = static_cast<const char*>(TF_TensorData(tensor));
  for (int64_t i = 0; i < dims[0]; ++i) {
    TF_Tensor* item = TF_AllocateTensor(TF_TensorType(tensor), element.data(),
                                        static_cast<int>(element.size()), bytes);
    if (item == nullptr) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a list element");
      return;
    }
    if (bytes) std::memcpy(TF_TensorData(item), src + i * bytes, bytes);
    list->items.push_back(TensorList::Hold(item));
  }
  SetListOutput(ctx, 0, std::move(list));
}

// The index operand checked against the list's length.
bool ReadIndex(TF_OpKernelContext* ctx, int i, size_t length, bool allow_past_end, int32_t* index) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (t == nullptr) return false;
  if (TF_NumDims(t) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, "index must be a scalar, got shape " + ShapeString(Dims(t)));
    return false;
  }
  *index = *Data<int32_t>(t);
  if (*index < 0 || (!allow_past_end && static_cast<size_t>(*index) >= length)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Trying to access element " + std::to_string(*index) + " in a list with " +
             std::to_string(length) + " elements.");
    return false;
  }
  return true;
}

// A zero tensor standing for an unset element of `dims` (fully known).
TF_Tensor* Zeros(TF_DataType dtype, const std::vector<int64_t>& dims) { return NewZeroHostTensor(dtype, dims); }

void GetItemCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  int32_t index = 0;
  if (list == nullptr || !ReadIndex(ctx, 1, list->items.size(), false, &index)) return;
  const std::shared_ptr<TF_Tensor>& item = list->items[index];
  if (item) {
    TF_SetOutput(ctx, 0, item.get(), ThreadStatus());
    if (TF_GetCode(ThreadStatus()) != TF_OK) TF_OpKernelContext_Failure(ctx, ThreadStatus());
    return;
  }
  bool rank_known = list->element_rank_known;
  std::vector<int64_t> dims = list->element_shape, wanted;
  bool wanted_rank_known = false;
  std::string error;
  if (!ReadElementShape(ctx, 2, &wanted_rank_known, &wanted)) return;
  if (!MergeInto(&rank_known, &dims, wanted_rank_known, wanted, &error) ||
      !FullyDefined(rank_known, dims)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Element " + std::to_string(index) + " is unset and the element shape " +
             PartialShapeString(rank_known, dims) + " (the list's " + list->ShapeString() +
             " with element_shape " + PartialShapeString(wanted_rank_known, wanted) +
             ") is not fully known" + (error.empty() ? "" : ": " + error));
    return;
  }
  TF_Tensor* zeros = Zeros(list->element_dtype, dims);
  if (zeros == nullptr) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate an element");
  TF_SetOutput(ctx, 0, zeros, ThreadStatus());
  TF_DeleteTensor(zeros);
}

void SetItemCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  int32_t index = 0;
  if (list == nullptr || !ReadIndex(ctx, 1, list->items.size(), attrs->resize, &index)) return;
  TensorPtr item = Input(ctx, 2);
  if (!item) return;
  bool rank_known = list->element_rank_known;
  std::vector<int64_t> dims = list->element_shape;
  std::string error;
  if (!MergeInto(&rank_known, &dims, true, Dims(item.get()), &error)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Tried to set an element of shape " + ShapeString(Dims(item.get())) +
             " in a list with element shape " + list->ShapeString() + ": " + error);
    return;
  }
  // Lists are values: a list the caller reads no more and nothing else holds is set in
  // place (a loop keeping each iteration's values this way costs O(1) a set); any other
  // is copied, so whoever else reads it sees it unchanged.
  if (TF_Tensor* forwarded = OPGEN_KernelForwardInput(ctx, 0, 0, ThreadStatus())) {
    auto* own = static_cast<TensorList*>(TF_TensorData(forwarded));
    if (static_cast<size_t>(index) >= own->items.size()) own->items.resize(index + 1);
    own->items[index] = TensorList::Hold(item.release());
    return;
  }
  auto out = std::make_unique<TensorList>(*list);
  if (static_cast<size_t>(index) >= out->items.size()) out->items.resize(index + 1);
  out->items[index] = TensorList::Hold(item.release());
  SetListOutput(ctx, 0, std::move(out));
}

void StackCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  if (list == nullptr) return;
  const int64_t n = static_cast<int64_t>(list->items.size());
  if (attrs->num_elements != -1 && attrs->num_elements != n) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Operation expected a list with " + std::to_string(attrs->num_elements) +
             " elements but got a list with " + std::to_string(n) + " elements.");
    return;
  }
  bool rank_known = list->element_rank_known, wanted_rank_known = false;
  std::vector<int64_t> dims = list->element_shape, wanted;
  std::string error;
  if (!ReadElementShape(ctx, 1, &wanted_rank_known, &wanted)) return;
  bool ok = MergeInto(&rank_known, &dims, wanted_rank_known, wanted, &error);
  for (int64_t i = 0; ok && i < n; ++i)
    if (list->items[i]) ok = MergeInto(&rank_known, &dims, true, Dims(list->items[i].get()), &error);
  if (!ok || !FullyDefined(rank_known, dims)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Cannot stack the list: its elements' shape " + PartialShapeString(rank_known, dims) +
             (ok ? " is not fully known" : " is inconsistent: " + error));
    return;
  }
  std::vector<int64_t> out_dims{n};
  out_dims.insert(out_dims.end(), dims.begin(), dims.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, list->element_dtype, out_dims);
  if (!out) return;
  // Per element, from the output's bytes (with no elements, element_shape may be any size).
  const size_t bytes = n == 0 ? 0 : TF_TensorByteSize(out.get()) / static_cast<size_t>(n);
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  for (int64_t i = 0; i < n && bytes; ++i) {
    if (list->items[i]) {
      // Same shape as `dims`, as MergeInto checked.
      std::memcpy(dst + i * bytes, TF_TensorData(list->items[i].get()), bytes);
    } else {
      std::memset(dst + i * bytes, 0, bytes);
    }
  }
}

void LengthCompute(void*, TF_OpKernelContext* ctx) {
  const TensorList* list = ListInput(ctx, 0, nullptr);
  if (list == nullptr) return;
  TensorPtr out = AllocateOutput<int32_t>(ctx, 0, {});
  if (out) *Data<int32_t>(out) = static_cast<int32_t>(list->items.size());
}

template <typename T>
void ElementShapeCompute(void*, TF_OpKernelContext* ctx) {
  const TensorList* list = ListInput(ctx, 0, nullptr);
  if (list == nullptr) return;
  if (!list->element_rank_known) {
    TensorPtr out = AllocateOutput<T>(ctx, 0, {});
    if (out) *Data<T>(out) = -1;
    return;
  }
  TensorPtr out = AllocateOutput<T>(ctx, 0, {static_cast<int64_t>(list->element_shape.size())});
  if (!out) return;
  for (size_t k = 0; k < list->element_shape.size(); ++k)
    Data<T>(out)[k] = static_cast<T>(list->element_shape[k]);
}

// The list input 0 holds, forwarded for changing in place when nobody else reads it,
// else copied (lists are values).
std::unique_ptr<TensorList> CopyOf(const TensorList& list) { return std::make_unique<TensorList>(list); }

void PushBackCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  if (list == nullptr) return;
  TensorPtr item = Input(ctx, 1);
  if (!item) return;
  bool rank_known = list->element_rank_known;
  std::vector<int64_t> dims = list->element_shape;
  std::string error;
  if (!MergeInto(&rank_known, &dims, true, Dims(item.get()), &error)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Tried to push item with shape " + ShapeString(Dims(item.get())) +
             " to a list with element shape " + list->ShapeString() + ": " + error);
    return;
  }
  if (TF_Tensor* forwarded = OPGEN_KernelForwardInput(ctx, 0, 0, ThreadStatus())) {
    static_cast<TensorList*>(TF_TensorData(forwarded))->items.push_back(TensorList::Hold(item.release()));
    return;
  }
  auto out = CopyOf(*list);
  out->items.push_back(TensorList::Hold(item.release()));
  SetListOutput(ctx, 0, std::move(out));
}

// An element read out of a list: the element, or zeros of the list's element shape
// merged with the `element_shape` operand `shape_input` (fully known by then).
TF_Tensor* ElementOrZeros(TF_OpKernelContext* ctx, const TensorList& list, size_t index,
                          int shape_input) {
  if (list.items[index]) return nullptr;  // callers use the held element
  bool rank_known = list.element_rank_known, wanted_rank_known = false;
  std::vector<int64_t> dims = list.element_shape, wanted;
  std::string error;
  if (!ReadElementShape(ctx, shape_input, &wanted_rank_known, &wanted)) return nullptr;
  if (!MergeInto(&rank_known, &dims, wanted_rank_known, wanted, &error) ||
      !FullyDefined(rank_known, dims)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Element " + std::to_string(index) + " is unset and the element shape " +
             PartialShapeString(rank_known, dims) + " is not fully known" +
             (error.empty() ? "" : ": " + error));
    return nullptr;
  }
  TF_Tensor* zeros = Zeros(list.element_dtype, dims);
  if (zeros == nullptr) Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate an element");
  return zeros;
}

void PopBackCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  if (list == nullptr) return;
  if (list->items.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, "Trying to pop from an empty list.");
  const size_t last = list->items.size() - 1;
  std::shared_ptr<TF_Tensor> item = list->items[last];
  if (!item) {
    TF_Tensor* zeros = ElementOrZeros(ctx, *list, last, 1);
    if (zeros == nullptr) return;
    item = TensorList::Hold(zeros);
  }
  TF_SetOutput(ctx, 1, item.get(), ThreadStatus());
  if (TF_GetCode(ThreadStatus()) != TF_OK) return TF_OpKernelContext_Failure(ctx, ThreadStatus());
  if (TF_Tensor* forwarded = OPGEN_KernelForwardInput(ctx, 0, 0, ThreadStatus())) {
    static_cast<TensorList*>(TF_TensorData(forwarded))->items.pop_back();
    return;
  }
  auto out = CopyOf(*list);
  out->items.pop_back();
  SetListOutput(ctx, 0, std::move(out));
}

void ResizeCompute(void*, TF_OpKernelContext* ctx) {
  const TensorList* list = ListInput(ctx, 0, nullptr);
  const TF_Tensor* size = list == nullptr ? nullptr : BorrowInput(ctx, 1);
  if (size == nullptr) return;
  if (TF_NumDims(size) != 0 || *Data<int32_t>(size) < 0)
    return Fail(ctx, TF_INVALID_ARGUMENT, "TensorListResize expects a non-negative scalar size");
  const size_t n = static_cast<size_t>(*Data<int32_t>(size));
  if (TF_Tensor* forwarded = OPGEN_KernelForwardInput(ctx, 0, 0, ThreadStatus())) {
    static_cast<TensorList*>(TF_TensorData(forwarded))->items.resize(n);
    return;
  }
  auto out = CopyOf(*list);
  out->items.resize(n);
  SetListOutput(ctx, 0, std::move(out));
}

void GatherCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  const TF_Tensor* indices_t = list == nullptr ? nullptr : BorrowInput(ctx, 1);
  if (indices_t == nullptr) return;
  if (TF_NumDims(indices_t) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "indices must be a vector, got shape " + ShapeString(Dims(indices_t)));
  const std::vector<int64_t> indices = kernels::IndexValues(indices_t);
  bool rank_known = list->element_rank_known, wanted_rank_known = false;
  std::vector<int64_t> dims = list->element_shape, wanted;
  std::string error;
  if (!ReadElementShape(ctx, 2, &wanted_rank_known, &wanted)) return;
  bool ok = MergeInto(&rank_known, &dims, wanted_rank_known, wanted, &error);
  for (int64_t i : indices) {
    if (i < 0 || static_cast<size_t>(i) >= list->items.size())
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Trying to access element " + std::to_string(i) + " in a list with " +
                      std::to_string(list->items.size()) + " elements.");
    if (ok && list->items[i]) ok = MergeInto(&rank_known, &dims, true, Dims(list->items[i].get()), &error);
  }
  if (!ok || !FullyDefined(rank_known, dims))
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Cannot gather from the list: its elements' shape " + PartialShapeString(rank_known, dims) +
                    (ok ? " is not fully known" : " is inconsistent: " + error));
  std::vector<int64_t> out_dims{static_cast<int64_t>(indices.size())};
  out_dims.insert(out_dims.end(), dims.begin(), dims.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, list->element_dtype, out_dims);
  if (!out) return;
  const size_t bytes = indices.empty() ? 0 : TF_TensorByteSize(out.get()) / indices.size();
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  for (size_t k = 0; k < indices.size() && bytes; ++k) {
    const std::shared_ptr<TF_Tensor>& item = list->items[indices[k]];
    if (item) std::memcpy(dst + k * bytes, TF_TensorData(item.get()), bytes);
    else std::memset(dst + k * bytes, 0, bytes);
  }
}

void ConcatCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  if (list == nullptr) return;
  bool rank_known = list->element_rank_known, wanted_rank_known = false;
  std::vector<int64_t> dims = list->element_shape, wanted;
  std::string error;
  if (!ReadElementShape(ctx, 1, &wanted_rank_known, &wanted)) return;
  const TF_Tensor* leading_t = BorrowInput(ctx, 2);
  if (leading_t == nullptr) return;
  const std::vector<int64_t> leading = kernels::IndexValues(leading_t);
  if (!MergeInto(&rank_known, &dims, wanted_rank_known, wanted, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "element_shape " + PartialShapeString(wanted_rank_known, wanted) +
                                              " does not fit the list's " + list->ShapeString());
  if (rank_known && dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Concat requires elements to be at least vectors, found scalars instead.");
  // The shape past the first dimension, merged over the set elements.
  bool rest_known = rank_known;
  std::vector<int64_t> rest = rank_known ? std::vector<int64_t>(dims.begin() + 1, dims.end()) : std::vector<int64_t>{};
  std::vector<int64_t> lengths(list->items.size());
  for (size_t k = 0; k < list->items.size(); ++k) {
    const std::shared_ptr<TF_Tensor>& item = list->items[k];
    if (!item) {
      if (k >= leading.size())
        return Fail(ctx, TF_INVALID_ARGUMENT,
                    "Element " + std::to_string(k) + " is unset and leading_dims gives no row count for it");
      lengths[k] = leading[k];
      continue;
    }
    const std::vector<int64_t> d = Dims(item.get());
    if (d.empty())
      return Fail(ctx, TF_INVALID_ARGUMENT, "Concat requires elements to be at least vectors, found scalars instead.");
    if (!MergeInto(&rest_known, &rest, true, std::vector<int64_t>(d.begin() + 1, d.end()), &error))
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "Incompatible shapes of the elements past their first dimension: element " +
                      std::to_string(k) + " has shape " + ShapeString(d) + ": " + error);
    lengths[k] = d[0];
  }
  if (!FullyDefined(rest_known, rest))
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Cannot concatenate the list: its elements' shape past the first dimension " +
                    PartialShapeString(rest_known, rest) + " is not fully known");
  int64_t rows = 0;
  for (int64_t n : lengths)
    if (__builtin_add_overflow(rows, n, &rows))  // empty elements can be that long
      return Fail(ctx, TF_INVALID_ARGUMENT, "Cannot concatenate the list: its length passes int64");
  std::vector<int64_t> out_dims{rows};
  out_dims.insert(out_dims.end(), rest.begin(), rest.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, list->element_dtype, out_dims);
  TensorPtr lengths_out = AllocateOutput<int64_t>(ctx, 1, {static_cast<int64_t>(lengths.size())});
  if (!out || !lengths_out) return;
  const size_t row_bytes = rows == 0 ? 0 : TF_TensorByteSize(out.get()) / static_cast<size_t>(rows);
  char* dst = static_cast<char*>(TF_TensorData(out.get()));
  for (size_t k = 0; k < lengths.size(); ++k) {
    const size_t bytes = row_bytes * static_cast<size_t>(lengths[k]);
    if (bytes) {
      if (list->items[k]) std::memcpy(dst, TF_TensorData(list->items[k].get()), bytes);
      else std::memset(dst, 0, bytes);
    }
    dst += bytes;
    Data<int64_t>(lengths_out)[k] = lengths[k];
  }
}

void SplitCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TF_Tensor* tensor = BorrowInput(ctx, 0);
  if (tensor == nullptr) return;
  const std::vector<int64_t> dims = Dims(tensor);
  if (dims.empty())
    return Fail(ctx, TF_INVALID_ARGUMENT, "Tensor must be at least a vector, but saw shape: " + ShapeString(dims));
  auto list = std::make_unique<TensorList>();
  list->element_dtype = attrs->element_dtype;
  if (!ReadElementShape(ctx, 1, &list->element_rank_known, &list->element_shape)) return;
  std::vector<int64_t> element = dims;
  element[0] = -1;
  std::string error;
  if (!MergeInto(&list->element_rank_known, &list->element_shape, true, element, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "The tensor's shape " + ShapeString(dims) + " does not fit element_shape " +
                    list->ShapeString() + ": " + error);
  const TF_Tensor* lengths_t = BorrowInput(ctx, 2);
  if (lengths_t == nullptr) return;
  if (TF_NumDims(lengths_t) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "Expected lengths to be a vector, received shape: " + ShapeString(Dims(lengths_t)));
  const std::vector<int64_t> lengths = kernels::IndexValues(lengths_t);
  int64_t total = 0;
  for (int64_t n : lengths) {
    if (n < 0) return Fail(ctx, TF_INVALID_ARGUMENT, "Invalid value in lengths: " + std::to_string(n));
    total += n;
  }
  if (total != dims[0])
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Unable to split tensor of shape " + ShapeString(dims) + " into lengths summing to " +
                    std::to_string(total));
  const size_t row_bytes = dims[0] == 0 ? 0 : TF_TensorByteSize(tensor) / static_cast<size_t>(dims[0]);
  const char* src = static_cast<const char*>(TF_TensorData(tensor));
  for (int64_t n : lengths) {
    std::vector<int64_t> d = dims;
    d[0] = n;
    TF_Tensor* item = TF_AllocateTensor(TF_TensorType(tensor), d.data(), static_cast<int>(d.size()),
                                        row_bytes * static_cast<size_t>(n));
    if (item == nullptr) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a list element");
    if (row_bytes * n) std::memcpy(TF_TensorData(item), src, row_bytes * static_cast<size_t>(n));
    src += row_bytes * static_cast<size_t>(n);
    list->items.push_back(TensorList::Hold(item));
  }
  SetListOutput(ctx, 0, std::move(list));
}

// Writes row i of `tensor` to element indices[i] of `list`, growing it to the largest
// index + 1 (ScatterV2 with num_elements >= 0 fixes the length instead: `length`).
bool ScatterInto(TF_OpKernelContext* ctx, TensorList* list, const TF_Tensor* tensor, int indices_input,
                 int64_t length) {
  const TF_Tensor* indices_t = BorrowInput(ctx, indices_input);
  if (indices_t == nullptr) return false;
  const std::vector<int64_t> dims = Dims(tensor);
  const std::vector<int64_t> indices = kernels::IndexValues(indices_t);
  if (dims.empty() || TF_NumDims(indices_t) != 1 || dims[0] != static_cast<int64_t>(indices.size())) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Scatter needs a tensor of rank 1 or more with one row per index: tensor shape " +
             ShapeString(dims) + ", indices shape " + ShapeString(Dims(indices_t)));
    return false;
  }
  const std::vector<int64_t> element(dims.begin() + 1, dims.end());
  std::string error;
  if (!MergeInto(&list->element_rank_known, &list->element_shape, true, element, &error)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "The rows' shape " + ShapeString(element) + " does not fit the list's element shape " +
             list->ShapeString() + ": " + error);
    return false;
  }
  int64_t needed = static_cast<int64_t>(list->items.size());
  for (int64_t i : indices) {
    if (i < 0 || (length >= 0 && i >= length)) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "Trying to scatter at index " + std::to_string(i) + " in list with size " +
               std::to_string(length >= 0 ? length : needed));
      return false;
    }
    needed = std::max(needed, i + 1);
  }
  list->items.resize(static_cast<size_t>(length >= 0 ? length : needed));
  const size_t bytes = static_cast<size_t>(NumElements(element)) * TF_DataTypeSize(TF_TensorType(tensor));
  const char* src = static_cast<const char*>(TF_TensorData(tensor));
  for (size_t k = 0; k < indices.size(); ++k) {
    TF_Tensor* item = TF_AllocateTensor(TF_TensorType(tensor), element.data(),
                                        static_cast<int>(element.size()), bytes);
    if (item == nullptr) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a list element");
      return false;
    }
    if (bytes) std::memcpy(TF_TensorData(item), src + k * bytes, bytes);
    list->items[indices[k]] = TensorList::Hold(item);
  }
  return true;
}

// TensorListScatter (has_length false) and TensorListScatterV2: a new list.
template <bool kHasLength>
void ScatterCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TF_Tensor* tensor = BorrowInput(ctx, 0);
  if (tensor == nullptr) return;
  auto list = std::make_unique<TensorList>();
  list->element_dtype = attrs->element_dtype;
  if (!ReadElementShape(ctx, 2, &list->element_rank_known, &list->element_shape)) return;
  int64_t length = -1;
  if (kHasLength) {
    const TF_Tensor* n = BorrowInput(ctx, 3);
    if (n == nullptr) return;
    if (TF_NumDims(n) != 0)
      return Fail(ctx, TF_INVALID_ARGUMENT, "num_elements must be a scalar, got shape " + ShapeString(Dims(n)));
    length = *Data<int32_t>(n);
    if (length < -1) return Fail(ctx, TF_INVALID_ARGUMENT, "num_elements must be -1 or more, got " + std::to_string(length));
  }
  if (!ScatterInto(ctx, list.get(), tensor, 1, length)) return;
  SetListOutput(ctx, 0, std::move(list));
}

void ScatterIntoExistingCompute(void* p, TF_OpKernelContext* ctx) {
  const auto* attrs = static_cast<const ListAttrs*>(p);
  const TensorList* list = ListInput(ctx, 0, attrs);
  const TF_Tensor* tensor = list == nullptr ? nullptr : BorrowInput(ctx, 1);
  if (tensor == nullptr) return;
  auto out = CopyOf(*list);
  if (!ScatterInto(ctx, out.get(), tensor, 2, -1)) return;
  SetListOutput(ctx, 0, std::move(out));
}

// AddN of lists (TensorFlow adds variants through each variant type's add function):
// element-wise sums of lists of one length and element dtype; an element unset in every
// list stays unset, one unset in some lists counts as zeros. The backward pass sums the
// gradients reaching a list this way.
bool AddElement(TF_OpKernelContext* ctx, TF_Tensor* sum, const TF_Tensor* addend, size_t index) {
  if (Dims(sum) != Dims(addend)) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "AddN of lists: element " + std::to_string(index) + " has shapes " +
             ShapeString(Dims(sum)) + " and " + ShapeString(Dims(addend)));
    return false;
  }
  if (AddTensorInto(sum, addend)) return true;
  Fail(ctx, TF_UNIMPLEMENTED, "AddN of lists of " + kernels::DTypeName(TF_TensorType(sum)) +
                                  " elements (number elements only)");
  return false;
}

void AddNCompute(void*, TF_OpKernelContext* ctx) {
  const int n = TF_NumInputs(ctx);
  const TensorList* first = ListInput(ctx, 0, nullptr);
  if (first == nullptr) return;
  auto out = std::make_unique<TensorList>(*first);
  std::vector<bool> owned(out->items.size(), false);  // a copy this kernel may write
  for (int i = 1; i < n; ++i) {
    const TensorList* list = ListInput(ctx, i, nullptr);
    if (list == nullptr) return;
    if (list->items.size() != out->items.size() || list->element_dtype != out->element_dtype) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "AddN of lists needs lists of one length and element dtype: " +
               std::to_string(out->items.size()) + " " + kernels::DTypeName(out->element_dtype) +
               " elements and " + std::to_string(list->items.size()) + " " +
               kernels::DTypeName(list->element_dtype));
      return;
    }
    for (size_t k = 0; k < out->items.size(); ++k) {
      const std::shared_ptr<TF_Tensor>& addend = list->items[k];
      if (!addend) continue;
      if (!out->items[k]) {
        out->items[k] = addend;  // shared: copied before any write
        continue;
      }
      if (!owned[k]) {
        const TF_Tensor* src = out->items[k].get();
        const std::vector<int64_t> dims = Dims(src);
        TF_Tensor* copy = TF_AllocateTensor(TF_TensorType(src), dims.data(),
                                            static_cast<int>(dims.size()), TF_TensorByteSize(src));
        if (copy == nullptr) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "cannot allocate a list element");
        if (TF_TensorByteSize(src)) std::memcpy(TF_TensorData(copy), TF_TensorData(src), TF_TensorByteSize(src));
        out->items[k] = TensorList::Hold(copy);
        owned[k] = true;
      }
      if (!AddElement(ctx, out->items[k].get(), addend.get(), k)) return;
    }
  }
  SetListOutput(ctx, 0, std::move(out));
}

}  // namespace

void RegisterTensorListKernels(TF_Status* status) {
  auto with_attrs = [&](const char* op, const char* attr, TF_DataType t, ComputeFn fn) {
    RegisterKernel(kDevice, {op, {{attr, t}}, {}, fn, CreateListAttrs, DeleteListAttrs}, status);
  };
  for (TF_DataType t : kAllFixedSizeTypes) {
    for (TF_DataType shape_type : {TF_INT32, TF_INT64}) {
      RegisterKernel(kDevice, {"TensorListReserve",
          {{"element_dtype", t}, {"shape_type", shape_type}}, {}, ReserveCompute, CreateListAttrs,
          DeleteListAttrs}, status);
      RegisterKernel(kDevice, {"TensorListFromTensor",
          {{"element_dtype", t}, {"shape_type", shape_type}}, {}, FromTensorCompute,
          CreateListAttrs, DeleteListAttrs}, status);
      RegisterKernel(kDevice, {"TensorListGetItem", {{"element_dtype", t}, {"Tshape", shape_type}},
          {}, GetItemCompute, CreateListAttrs, DeleteListAttrs}, status);
    }
    for (TF_DataType shape_type : {TF_INT32, TF_INT64}) {
      RegisterKernel(kDevice, {"TensorListConcatV2", {{"element_dtype", t}, {"shape_type", shape_type}},
          {}, ConcatCompute, CreateListAttrs, DeleteListAttrs}, status);
      RegisterKernel(kDevice, {"TensorListSplit", {{"element_dtype", t}, {"shape_type", shape_type}},
          {}, SplitCompute, CreateListAttrs, DeleteListAttrs}, status);
      RegisterKernel(kDevice, {"TensorListScatter", {{"element_dtype", t}, {"shape_type", shape_type}},
          {}, ScatterCompute<false>, CreateListAttrs, DeleteListAttrs}, status);
      RegisterKernel(kDevice, {"TensorListScatterV2", {{"element_dtype", t}, {"shape_type", shape_type}},
          {}, ScatterCompute<true>, CreateListAttrs, DeleteListAttrs}, status);
    }
    with_attrs("TensorListPushBack", "element_dtype", t, PushBackCompute);
    with_attrs("TensorListPopBack", "element_dtype", t, PopBackCompute);
    with_attrs("TensorListGather", "element_dtype", t, GatherCompute);
    with_attrs("TensorListScatterIntoExistingList", "element_dtype", t, ScatterIntoExistingCompute);
    with_attrs("TensorListSetItem", "element_dtype", t, SetItemCompute);
    with_attrs("TensorListStack", "element_dtype", t, StackCompute);
  }
  RegisterKernel(kDevice, {"AddN", {{"T", TF_VARIANT}}, {}, AddNCompute}, status);
  RegisterKernel(kDevice, {"TensorListLength", {}, {}, LengthCompute}, status);
  RegisterKernel(kDevice, {"TensorListResize", {}, {}, ResizeCompute}, status);
  RegisterKernel(kDevice, {"TensorListElementShape", {{"shape_type", TF_INT32}}, {},
      ElementShapeCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"TensorListElementShape", {{"shape_type", TF_INT64}}, {},
      ElementShapeCompute<int64_t>}, status);
}

}  // namespace cpu
}  // namespace opgen

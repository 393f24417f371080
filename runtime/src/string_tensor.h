// TF_STRING tensors inside the runtime: their elements are TF_TString structs
// (tensorflow/c/tf_tstring.h). A buffer made for strings owns its elements' heap
// memory and frees it when its last reference goes (AllocateStringBuffer);
// code that copies a string tensor must copy element by element (CopyStrings), never
// memcpy the structs, which would share (and later double-free) LARGE strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

namespace opgen {

class TensorBuffer;
// `len` bytes of empty strings, freed element by element with the buffer (tensor.cc):
// what TF_AllocateTensor gives a TF_STRING tensor. nullptr when memory runs out.
TensorBuffer* AllocateStringBuffer(size_t len);

static_assert(sizeof(TF_TString) == 24, "TF_TString is TensorFlow's 24-byte struct");

inline std::string_view StringElement(const TF_TString* s) {
  return std::string_view(TF_StringGetDataPointer(s), TF_StringGetSize(s));
}
inline const TF_TString* StringElements(const TF_Tensor* t) {
  return static_cast<const TF_TString*>(TF_TensorData(t));
}
inline TF_TString* MutableStringElements(TF_Tensor* t) {
  return static_cast<TF_TString*>(TF_TensorData(t));
}

// A new TF_STRING tensor of empty strings that owns its elements; nullptr when the
// shape is invalid or memory runs out.
TF_Tensor* NewStringTensor(const int64_t* dims, int num_dims);
inline TF_Tensor* NewStringTensor(const std::vector<int64_t>& dims) {
  return NewStringTensor(dims.data(), static_cast<int>(dims.size()));
}

// TF_StringCopy that says whether memory ran out (then `dst` is unchanged).
bool AssignString(TF_TString* dst, const char* src, size_t size);
inline bool AssignString(TF_TString* dst, std::string_view bytes) {
  return AssignString(dst, bytes.data(), bytes.size());
}

// Frees the LARGE elements among `count` TF_TStrings at `data`.
void DeallocStrings(void* data, size_t count);

// A deep copy of a TF_STRING tensor (each element copied, owned by the new buffer).
TF_Tensor* CopyStringTensor(const TF_Tensor* t);

}  // namespace opgen

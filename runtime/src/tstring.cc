// TF_TString functions (tensorflow/c/tf_tstring.h) and the runtime's string-tensor
// helpers (string_tensor.h). The layout facts are TensorFlow's: kind in the low two
// bits of the first byte, sizes stored as size << 2 | kind, SMALL holding up to 22
// bytes inline, LARGE capacity rounded so that capacity + 1 is a multiple of 16.
#include <cstdlib>
#include <cstring>

#include "core_types.h"
#include "string_tensor.h"

namespace {

static_assert(sizeof(size_t) == 8, "TF_TString's layout assumes 64-bit size_t");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian hosts only");

size_t Encoded(size_t size, TF_TString_Type type) { return (size << 2) | type; }
size_t Decoded(size_t encoded) { return encoded >> 2; }

// Room for `size` bytes and a NUL: a multiple of 16 bytes in all.
size_t LargeCapacity(size_t size) { return ((size + 1 + 15) & ~size_t{15}) - 1; }

}  // namespace

extern "C" {

void TF_StringInit(TF_TString* t) { std::memset(t, 0, sizeof *t); }

TF_TString_Type TF_StringGetType(const TF_TString* str) {
  return static_cast<TF_TString_Type>(str->u.raw.raw[0] & TF_TSTR_TYPE_MASK);
}

size_t TF_StringGetSize(const TF_TString* s) {
  switch (TF_StringGetType(s)) {
    case TF_TSTR_SMALL: return s->u.smll.size >> 2;
    case TF_TSTR_LARGE: return Decoded(s->u.large.size);
    case TF_TSTR_OFFSET: return s->u.offset.size >> 2;
    case TF_TSTR_VIEW: return Decoded(s->u.view.size);
    default: return 0;
  }
}

size_t TF_StringGetCapacity(const TF_TString* s) {
  switch (TF_StringGetType(s)) {
    case TF_TSTR_SMALL: return TF_TString_SmallCapacity;
    case TF_TSTR_LARGE: return s->u.large.cap;
    default: return 0;
  }
}

const char* TF_StringGetDataPointer(const TF_TString* s) {
  switch (TF_StringGetType(s)) {
    case TF_TSTR_SMALL: return s->u.smll.str;
    case TF_TSTR_LARGE: return s->u.large.ptr;
    case TF_TSTR_OFFSET: return reinterpret_cast<const char*>(s) + s->u.offset.offset;
    case TF_TSTR_VIEW: return s->u.view.ptr;
    default: return nullptr;
  }
}

void TF_StringDealloc(TF_TString* s) {
  const TF_TString_Type type = TF_StringGetType(s);
  if (type == TF_TSTR_LARGE && s->u.large.ptr != nullptr) {
    std::free(s->u.large.ptr);
    TF_StringInit(s);
  } else if (type == TF_TSTR_VIEW && s->u.view.owner_ref != nullptr) {
    s->u.view.owner_ref->unref(s->u.view.owner_ref);
    TF_StringInit(s);
  }
}

}  // extern "C"

namespace opgen {

bool AssignString(TF_TString* dst, const char* src, size_t size) {
  // `src` may point into `dst` itself (a LARGE string copied from its own bytes): the
  // new storage is filled before the old is freed.
  if (size <= TF_TString_SmallCapacity) {
    char small[TF_TString_SmallCapacity];
    if (size > 0) std::memcpy(small, src, size);
    TF_StringDealloc(dst);
    TF_StringInit(dst);
    dst->u.smll.size = static_cast<uint8_t>(Encoded(size, TF_TSTR_SMALL));
    if (size > 0) std::memcpy(dst->u.smll.str, small, size);
    dst->u.smll.str[size] = '\0';
    return true;
  }
  const size_t cap = LargeCapacity(size);
  char* ptr = static_cast<char*>(std::malloc(cap + 1));
  if (ptr == nullptr) return false;
  std::memcpy(ptr, src, size);
  ptr[size] = '\0';
  TF_StringDealloc(dst);
  dst->u.large.size = Encoded(size, TF_TSTR_LARGE);
  dst->u.large.cap = cap;
  dst->u.large.ptr = ptr;
  return true;
}

}  // namespace opgen

extern "C" {

// Out of memory leaves `dst` as it was: the C API has no way to say so here.
void TF_StringCopy(TF_TString* dst, const char* src, size_t size) {
  opgen::AssignString(dst, src, size);
}

void TF_StringAssignView(TF_TString* dst, const char* src, size_t size) {
  TF_StringDealloc(dst);
  dst->u.view.size = Encoded(size, TF_TSTR_VIEW);
  dst->u.view.ptr = src;
  dst->u.view.owner_ref = nullptr;
}

}  // extern "C"

namespace opgen {

void DeallocStrings(void* data, size_t count) {
  auto* s = static_cast<TF_TString*>(data);
  for (size_t i = 0; i < count; ++i) TF_StringDealloc(&s[i]);
}

TF_Tensor* NewStringTensor(const int64_t* dims, int num_dims) {
  const int64_t n = NumElements(dims, static_cast<size_t>(num_dims < 0 ? 0 : num_dims));
  size_t bytes;
  if (num_dims < 0 || !ByteSize(sizeof(TF_TString), n, &bytes)) return nullptr;
  return TF_AllocateTensor(TF_STRING, dims, num_dims, bytes);
}

TF_Tensor* CopyStringTensor(const TF_Tensor* t) {
  TF_Tensor* out = NewStringTensor(t->dims);
  if (out == nullptr) return nullptr;
  const TF_TString* in = StringElements(t);
  TF_TString* o = MutableStringElements(out);
  const int64_t n = NumElements(t->dims);
  for (int64_t i = 0; i < n; ++i) {
    if (!AssignString(&o[i], TF_StringGetDataPointer(&in[i]), TF_StringGetSize(&in[i]))) {
      TF_DeleteTensor(out);
      return nullptr;
    }
  }
  return out;
}

}  // namespace opgen

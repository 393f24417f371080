/* The elements of TF_STRING tensors (TF_TString, tensorflow/core/platform/ctstring.h).
 *
 * A TF_STRING tensor of n elements holds n TF_TString structs (n * sizeof(TF_TString)
 * bytes). TF_AllocateTensor zero-fills them (n empty strings) and TF_DeleteTensor frees
 * the heap memory of LARGE elements when the last reference to the buffer goes. A
 * tensor made by TF_NewTensor over the caller's memory leaves its elements to the
 * caller's deallocator, as TensorFlow does. */
#ifndef TENSORFLOW_C_TF_TSTRING_H_
#define TENSORFLOW_C_TF_TSTRING_H_

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/core/platform/ctstring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An empty SMALL string; no memory is freed (call TF_StringDealloc first if needed). */
TF_CAPI_EXPORT extern void TF_StringInit(TF_TString* t);
/* Replaces `dst` with a copy of `size` bytes of `src` (SMALL up to 22 bytes, else LARGE). */
TF_CAPI_EXPORT extern void TF_StringCopy(TF_TString* dst, const char* src, size_t size);
/* Replaces `dst` with a VIEW of `src`, which must outlive it. */
TF_CAPI_EXPORT extern void TF_StringAssignView(TF_TString* dst, const char* src, size_t size);
TF_CAPI_EXPORT extern const char* TF_StringGetDataPointer(const TF_TString* tstr);
TF_CAPI_EXPORT extern TF_TString_Type TF_StringGetType(const TF_TString* str);
TF_CAPI_EXPORT extern size_t TF_StringGetSize(const TF_TString* tstr);
/* 22 for SMALL, the allocation less its NUL for LARGE, 0 for OFFSET and VIEW. */
TF_CAPI_EXPORT extern size_t TF_StringGetCapacity(const TF_TString* str);
/* Frees a LARGE string's memory (or a VIEW's owner reference) and leaves it empty. */
TF_CAPI_EXPORT extern void TF_StringDealloc(TF_TString* tstr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_TSTRING_H_ */

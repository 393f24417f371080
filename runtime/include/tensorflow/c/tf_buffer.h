/* TF_Buffer: a block of bytes, usually a serialized protobuf message, passed across the
 * C ABI together with the function that frees it. */
#ifndef TENSORFLOW_C_TF_BUFFER_H_
#define TENSORFLOW_C_TF_BUFFER_H_

#include <stddef.h>

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Buffer {
  const void* data;
  size_t length;
  /* Called by TF_DeleteBuffer on `data` when not NULL. */
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A new buffer holding a copy of `proto[0, proto_len)`. Free with TF_DeleteBuffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);

/* A new empty buffer, for functions that fill one in. Free with TF_DeleteBuffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);

/* Frees the buffer, first calling its data_deallocator on its data. NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer* buffer);

/* A shallow copy of `*buffer`: the data stays owned by `buffer`. */
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_TF_BUFFER_H_ */

/* TF_Tensor: a dense n-dimensional array in host memory.
 *
 * A tensor owns a reference to its data buffer; the buffer is freed when the last
 * tensor (or eager handle) referring to it goes away. Dimensions are int64_t. */
#ifndef TENSORFLOW_C_TF_TENSOR_H_
#define TENSORFLOW_C_TF_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Tensor TF_Tensor;

#ifndef TF_BOOL_DEFINED
#define TF_BOOL_DEFINED
typedef unsigned char TF_Bool;
#endif

/* Where a kernel wants memory: set `struct_size` to TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE.
 * With `on_host` set, TF_AllocateTemp gives host memory even to a device kernel. */
typedef struct TF_AllocatorAttributes {
  size_t struct_size;
  TF_Bool on_host;
} TF_AllocatorAttributes;

#define TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE TF_OFFSET_OF_END(TF_AllocatorAttributes, on_host)

/* A tensor over caller-provided memory `data[0, len)`. The tensor takes ownership:
 * when no tensor refers to the memory any more, `deallocator(data, len, arg)` is called
 * (it may be NULL when the caller keeps ownership and outlives the tensor). Returns NULL
 * when `len` does not match the dims and dtype (for fixed-size dtypes; a negative dim or
 * a size past 64 bits never matches), or `dtype` is not a TF_DataType value; then the
 * deallocator is called at once. Free the tensor with TF_DeleteTensor. */
TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(
    TF_DataType dtype, const int64_t* dims, int num_dims, void* data, size_t len,
    void (*deallocator)(void* data, size_t len, void* arg), void* deallocator_arg);

/* A tensor with `len` bytes of fresh, 64-byte aligned, uninitialised memory. Returns
 * NULL when `len` does not match the dims and dtype (as TF_NewTensor), or the memory
 * cannot be had. Free with TF_DeleteTensor. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims,
                                                   int num_dims, size_t len);

/* Releases the tensor's reference to its data. NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor* tensor);

TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor* tensor);
TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor* tensor);
/* Size of dimension `dim_index` (0 <= dim_index < TF_NumDims). */
TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* tensor, int dim_index);
TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor* tensor);
/* The tensor's data; owned by the tensor, valid while any reference to it lives. */
TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor* tensor);
/* The product of the dimensions (1 for a scalar). */
TF_CAPI_EXPORT extern int64_t TF_TensorElementCount(const TF_Tensor* tensor);
/* Whether the tensor's data is aligned for vectorised kernels (64 bytes). */
TF_CAPI_EXPORT extern bool TF_TensorIsAligned(const TF_Tensor* tensor);

/* Makes `to` share `from`'s buffer (wherever it lives: host or device memory), seen
 * with dtype `type` and dims `new_dims`; its own buffer is released. The byte sizes must
 * agree: TF_INVALID_ARGUMENT otherwise, and `to` is left as it was. */
TF_CAPI_EXPORT extern void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type,
                                                TF_Tensor* to, const int64_t* new_dims,
                                                int num_new_dims, TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_TF_TENSOR_H_ */

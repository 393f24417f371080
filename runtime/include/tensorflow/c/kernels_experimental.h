/* The part of TensorFlow's experimental kernel C API that opgen implements: reading a
 * shape attr in a kernel's constructor. (TensorFlow declares the rest of this header's
 * functions, variable and ref-input helpers, for its own resource kernels.) */
#ifndef TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_
#define TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dims of shape attr `attr_name`, written to `dims[0 .. rank)`; `num_dims` is the
 * room in `dims`, at least the rank that TF_OpKernelConstruction_GetAttrSize gives as
 * total_size. TF_INVALID_ARGUMENT when the attr is missing, not a shape, not fully
 * defined (unknown rank or an unknown dim), or has more dims than `num_dims`. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensorShape(
    TF_OpKernelConstruction* ctx, const char* attr_name, int64_t* dims, size_t num_dims,
    TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_ */

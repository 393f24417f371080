/* The main C API: version and the op registry. (Graphs and sessions come later.) */
#ifndef TENSORFLOW_C_C_API_H_
#define TENSORFLOW_C_C_API_H_

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's version string; static storage. */
TF_CAPI_EXPORT extern const char* TF_Version(void);

/* A serialized OpList of every registered op, sorted by name. The caller owns the
 * buffer and frees it with TF_DeleteBuffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllOpList(void);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_C_API_H_ */

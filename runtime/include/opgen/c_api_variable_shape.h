/* VariableShape's access to a variable, beside c_api_ext.h's variable API (one more
 * function of the same family; its own header so that kernels which do not read
 * shapes do not depend on it). */
#ifndef OPGEN_C_API_VARIABLE_SHAPE_H_
#define OPGEN_C_API_VARIABLE_SHAPE_H_

#include "opgen/c_api_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rank of the variable's value (VariableShape), its first min(rank, max_dims)
 * dimensions written to `dims`; -1 on error: TF_FAILED_PRECONDITION when the variable
 * does not exist or was never assigned. */
TF_CAPI_EXPORT extern int OPGEN_KernelVariableShape(TF_OpKernelContext* ctx, int resource_index,
                                                    int64_t* dims, int max_dims,
                                                    TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif  /* OPGEN_C_API_VARIABLE_SHAPE_H_ */

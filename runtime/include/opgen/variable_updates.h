/* Kernels that update several resource variables in one step: an optimizer's weights and
 * its slots (ResourceApplyMomentum's var and accum, ResourceApplyAdam's var, m and v).
 * The one-variable functions (OPGEN_KernelReadVariable, OPGEN_KernelUpdateVariable ...)
 * are in c_api_ext.h; this header adds what a multi-variable kernel needs, with the same
 * rules: handles in host memory, values on the kernel's device, errors naming the
 * variable, failures passed on with TF_OpKernelContext_Failure. */
#ifndef OPGEN_VARIABLE_UPDATES_H_
#define OPGEN_VARIABLE_UPDATES_H_

#include "opgen/c_api_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `update(old_values, new_values, num_variables, arg, status)` fills new_values[i] from
 * old_values[i] (and from the kernel's other inputs). new_values[i] is old_values[i]
 * itself (written in place) when nobody else holds that value, else a fresh tensor of the
 * same dtype and shape (copy-on-write: a value read earlier stays a snapshot). So element
 * j of an output may depend on element j of the values only, and an error set in
 * `status` must come before any write: it is reported, and no variable changes. */
typedef void (*OPGEN_VariablesUpdateFn)(const TF_Tensor* const* old_values,
                                        TF_Tensor* const* new_values, int num_variables,
                                        void* arg, TF_Status* status);

/* Updates the variables named by the kernel's resource inputs `resource_indices[0 ..
 * num_variables)` together: all of them are locked (in one global order, so kernels
 * sharing variables cannot deadlock) while `update` runs, and all take their new values
 * or none does. `input_names` (may be NULL: "input N") names the inputs in messages, as
 * the OpDef does ("var", "accum"). TF_FAILED_PRECONDITION "Attempting to use
 * uninitialized variables: NAME" when one does not exist or has no value;
 * TF_INVALID_ARGUMENT when one holds another dtype than `dtype`, or when two inputs name
 * the same variable. */
TF_CAPI_EXPORT extern void OPGEN_KernelUpdateVariables(
    TF_OpKernelContext* ctx, const int* resource_indices, const char* const* input_names,
    int num_variables, TF_DataType dtype, OPGEN_VariablesUpdateFn update, void* arg,
    TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* OPGEN_VARIABLE_UPDATES_H_ */

/* What opgen adds beyond TensorFlow's C API. Every name here carries the OPGEN_ prefix,
 * so code that sticks to TensorFlow's names also builds against TensorFlow itself. */
#ifndef OPGEN_C_API_EXT_H_
#define OPGEN_C_API_EXT_H_

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Documentation for an op being defined; strings are copied. TensorFlow keeps op docs
 * in ApiDefs; opgen's built-in ops carry them in the OpDef so that ops.pbtxt (and the
 * generated docstrings) have them. */
TF_CAPI_EXPORT extern void OPGEN_OpDefinitionBuilderSetSummary(TF_OpDefinitionBuilder* builder,
                                                              const char* summary);
TF_CAPI_EXPORT extern void OPGEN_OpDefinitionBuilderSetDescription(
    TF_OpDefinitionBuilder* builder, const char* description);
/* Describes the input, output or attr called `name`; an unknown name is reported by
 * TF_RegisterOpDefinition. */
TF_CAPI_EXPORT extern void OPGEN_OpDefinitionBuilderSetArgDescription(
    TF_OpDefinitionBuilder* builder, const char* name, const char* description);

#ifdef __cplusplus
}
#endif

#endif /* OPGEN_C_API_EXT_H_ */

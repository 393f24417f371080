/* Defining ops: build an OpDef from TensorFlow's spec strings and register it.
 *
 * Example, an op adding a list of tensors:
 *
 *   TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder("MyAddN");
 *   TF_OpDefinitionBuilderAddAttr(b, "N: int >= 1");
 *   TF_OpDefinitionBuilderAddAttr(b, "T: {float, int32} = DT_FLOAT");
 *   TF_OpDefinitionBuilderAddInput(b, "inputs: N * T");
 *   TF_OpDefinitionBuilderAddOutput(b, "sum: T");
 *   TF_RegisterOpDefinition(b, status);   // takes ownership of b, even on failure
 *
 * Spec syntax: inputs/outputs are "name: TYPE" where TYPE is a dtype ("float"), a type
 * attr ("T"), "N * T" (N tensors of type T), a list(type) attr ("Tlist"), or any of those
 * inside "Ref(...)". Attrs are "name: KIND [= DEFAULT]" where KIND is string, int, float,
 * bool, type, shape, tensor, func, list(...) of those, a set of types "{float, int32}"
 * (groups allowed inside: "{numbertype, bool}"), a group alone ("numbertype",
 * "realnumbertype", "quantizedtype"), or a set of strings "{'a', 'b'}"; optionally
 * followed by ">= MIN" for int and list attrs. DEFAULT is a protobuf text-format value:
 * 1, 0.5, true, 'abc', DT_FLOAT, [1, 2], { dim { size: 2 } } or { unknown_rank: true }.
 * An int attr giving the length of a list arg, and a list(type) attr giving its types,
 * get a minimum of 1 unless one is written; an arg of dtype resource marks the op
 * stateful. Malformed specs are reported by TF_RegisterOpDefinition, naming the op and
 * the spec. */
#ifndef TENSORFLOW_C_OPS_H_
#define TENSORFLOW_C_OPS_H_

#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_OpDefinitionBuilder TF_OpDefinitionBuilder;
typedef struct TF_ShapeInferenceContext TF_ShapeInferenceContext;

/* A new builder for an op called `op_name` (copied). Owned by the caller until passed
 * to TF_RegisterOpDefinition; free an unregistered one with TF_DeleteOpDefinitionBuilder. */
TF_CAPI_EXPORT extern TF_OpDefinitionBuilder* TF_NewOpDefinitionBuilder(const char* op_name);

/* Validates the definition and adds it to the global registry. Takes ownership of
 * `builder` whatever the outcome. Fails with TF_INVALID_ARGUMENT for a malformed spec or
 * inconsistent definition, TF_ALREADY_EXISTS when an op of that name is registered. */
TF_CAPI_EXPORT extern void TF_RegisterOpDefinition(TF_OpDefinitionBuilder* builder,
                                                   TF_Status* status);

/* Frees a builder that was not registered. NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteOpDefinitionBuilder(TF_OpDefinitionBuilder* builder);

/* Add an attr, input or output from a spec string (copied). Errors surface at
 * registration. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder* builder,
                                                         const char* attr_spec);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder* builder,
                                                          const char* input_spec);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder* builder,
                                                           const char* output_spec);

/* Flags of the OpDef (see OpDef.is_commutative and friends). */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsCommutative(
    TF_OpDefinitionBuilder* builder, bool is_commutative);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsAggregate(TF_OpDefinitionBuilder* builder,
                                                                bool is_aggregate);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsStateful(TF_OpDefinitionBuilder* builder,
                                                               bool is_stateful);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetAllowsUninitializedInput(
    TF_OpDefinitionBuilder* builder, bool allows_uninitialized_input);

/* Marks the op deprecated from GraphDef `version` on; `explanation` is copied. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderDeprecated(TF_OpDefinitionBuilder* builder,
                                                            int version,
                                                            const char* explanation);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_OPS_H_ */

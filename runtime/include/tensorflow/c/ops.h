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
 * the spec.
 *
 * Shape inference: an op may carry a function that computes its output shapes from its
 * input shapes when a node is added to a graph. For an op whose output is shaped like its
 * first input:
 *
 *   static void same_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
 *     TF_ShapeHandle* in = TF_NewShapeHandle();
 *     TF_ShapeInferenceContextGetInput(ctx, 0, in, status);
 *     if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, in, status);
 *     TF_DeleteShapeHandle(in);
 *   }
 *   TF_OpDefinitionBuilderSetShapeInferenceFunction(b, &same_shape);
 *
 * A shape function reports inputs that cannot go together through `status`
 * (TF_INVALID_ARGUMENT); the runtime adds the node's name and op to the message. Outputs it
 * leaves unset have unknown shape. Handles are plain values owned by the caller: every
 * TF_ShapeHandle and TF_DimensionHandle returned by a TF_New... or context function must
 * be freed with TF_DeleteShapeHandle / TF_DeleteDimensionHandle, and none refers to the
 * context, so they may outlive a call. */
#ifndef TENSORFLOW_C_OPS_H_
#define TENSORFLOW_C_OPS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_OpDefinitionBuilder TF_OpDefinitionBuilder;
typedef struct TF_ShapeInferenceContext TF_ShapeInferenceContext;
typedef struct TF_ShapeHandle TF_ShapeHandle;          /* a shape: unknown rank, or dims */
typedef struct TF_DimensionHandle TF_DimensionHandle;  /* one dim: a size or unknown */

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

/* Sets the op's shape function; NULL (the default) leaves every output shape unknown. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetShapeInferenceFunction(
    TF_OpDefinitionBuilder* builder,
    void (*shape_inference_func)(TF_ShapeInferenceContext* ctx, TF_Status* status));

/* ---- Shape inference: what a shape function may call ------------------------------- *
 * The context is valid only during the call of the shape function it is passed to. */

/* Number of input tensors of the node (list inputs flattened). */
TF_CAPI_EXPORT extern int64_t TF_ShapeInferenceContextNumInputs(TF_ShapeInferenceContext* ctx);

/* A new handle holding an unknown shape; free it with TF_DeleteShapeHandle. */
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_NewShapeHandle(void);

/* Copies the shape of input `i` into `handle`; TF_INVALID_ARGUMENT when `i` is out of
 * range. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext* ctx, int i,
                                                            TF_ShapeHandle* handle,
                                                            TF_Status* status);

/* Makes `handle`'s shape (copied; the caller keeps `handle`) the shape of output `i`;
 * TF_INVALID_ARGUMENT when `i` is out of range. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext* ctx, int i,
                                                             TF_ShapeHandle* handle,
                                                             TF_Status* status);

/* New handles of the shapes [] and [size]; the caller frees them with TF_DeleteShapeHandle. */
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_ShapeInferenceContextScalar(TF_ShapeInferenceContext* ctx);
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_ShapeInferenceContextVectorFromSize(
    TF_ShapeInferenceContext* ctx, size_t size);

/* A new handle holding an unknown dimension; free it with TF_DeleteDimensionHandle. */
TF_CAPI_EXPORT extern TF_DimensionHandle* TF_NewDimensionHandle(void);

/* The value of the node's attr `attr_name`, which must be of kind type; TF_INVALID_ARGUMENT
 * when it is missing or of another kind. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContext_GetAttrType(TF_ShapeInferenceContext* ctx,
                                                                const char* attr_name,
                                                                TF_DataType* val,
                                                                TF_Status* status);

/* The rank of `handle`'s shape, or -1 when unknown; RankKnown returns 1 or 0. */
TF_CAPI_EXPORT extern int64_t TF_ShapeInferenceContextRank(TF_ShapeInferenceContext* ctx,
                                                           TF_ShapeHandle* handle);
TF_CAPI_EXPORT extern int TF_ShapeInferenceContextRankKnown(TF_ShapeInferenceContext* ctx,
                                                            TF_ShapeHandle* handle);

/* Checks `handle`'s rank against `rank` (exactly, at least, at most) and stores in
 * `result` the shape with what the check implies: an unknown rank becomes `rank` unknown
 * dims for WithRank and stays unknown for the others. A known rank that fails the check
 * sets TF_INVALID_ARGUMENT and leaves `result` as it was. `result` may be `handle`. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRank(TF_ShapeInferenceContext* ctx,
                                                            TF_ShapeHandle* handle, int64_t rank,
                                                            TF_ShapeHandle* result,
                                                            TF_Status* status);
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRankAtLeast(TF_ShapeInferenceContext* ctx,
                                                                   TF_ShapeHandle* handle,
                                                                   int64_t rank,
                                                                   TF_ShapeHandle* result,
                                                                   TF_Status* status);
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRankAtMost(TF_ShapeInferenceContext* ctx,
                                                                  TF_ShapeHandle* handle,
                                                                  int64_t rank,
                                                                  TF_ShapeHandle* result,
                                                                  TF_Status* status);

/* Stores dimension `i` of `shape_handle` in `result`; a negative `i` counts from the end.
 * An unknown rank or an `i` out of range gives an unknown dimension. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextDim(TF_ShapeInferenceContext* ctx,
                                                       TF_ShapeHandle* shape_handle, int64_t i,
                                                       TF_DimensionHandle* result);

/* Stores dims [start, end) of `shape_handle` in `result`, as Python slices them: negative
 * bounds count from the end, bounds past the rank are clamped to it. An unknown rank gives
 * an unknown shape; end before start sets TF_INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSubshape(TF_ShapeInferenceContext* ctx,
                                                            TF_ShapeHandle* shape_handle,
                                                            int64_t start, int64_t end,
                                                            TF_ShapeHandle* result,
                                                            TF_Status* status);

/* Gives every output of the node an unknown shape. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSetUnknownShape(TF_ShapeInferenceContext* ctx,
                                                                   TF_Status* status);

/* 1 when the dimension's size is known, else 0; its size, or -1 when unknown. */
TF_CAPI_EXPORT extern int TF_DimensionHandleValueKnown(TF_DimensionHandle* dim_handle);
TF_CAPI_EXPORT extern int64_t TF_DimensionHandleValue(TF_DimensionHandle* dim_handle);

/* Stores the dims of `first` followed by those of `second` in `result` (unknown when
 * either rank is unknown). `result` may be one of the operands. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextConcatenateShapes(
    TF_ShapeInferenceContext* ctx, TF_ShapeHandle* first, TF_ShapeHandle* second,
    TF_ShapeHandle* result, TF_Status* status);

/* Free handles; NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteShapeHandle(TF_ShapeHandle* handle);
TF_CAPI_EXPORT extern void TF_DeleteDimensionHandle(TF_DimensionHandle* handle);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_OPS_H_ */

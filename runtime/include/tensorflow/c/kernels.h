/* Kernels: the code that runs an op on a device, registered by op name, device and type
 * constraints through a kernel builder.
 *
 * A kernel is three callbacks. `create_func` runs when a node or eager op is bound to
 * the kernel; it reads attrs from the construction context and returns the kernel's
 * state (may be NULL). `compute_func` runs the op: it reads inputs and sets outputs
 * through the kernel context. `delete_func` frees the state. Failures are reported with
 * TF_OpKernelConstruction_Failure / TF_OpKernelContext_Failure, never by aborting. */
#ifndef TENSORFLOW_C_KERNELS_H_
#define TENSORFLOW_C_KERNELS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TF_BOOL_DEFINED
#define TF_BOOL_DEFINED
typedef unsigned char TF_Bool;
#endif

/* A view of characters that the runtime owns. */
typedef struct TF_StringView {
  const char* data;
  size_t len;
} TF_StringView;

typedef struct TF_KernelBuilder TF_KernelBuilder;
typedef struct TF_OpKernelConstruction TF_OpKernelConstruction;
typedef struct TF_OpKernelContext TF_OpKernelContext;

/* A new builder for a kernel of op `op_name` on `device_name` ("CPU", "GPU"); both
 * strings are copied. Owned by the caller until passed to TF_RegisterKernelBuilder. */
TF_CAPI_EXPORT extern TF_KernelBuilder* TF_NewKernelBuilder(
    const char* op_name, const char* device_name,
    void* (*create_func)(TF_OpKernelConstruction*),
    void (*compute_func)(void*, TF_OpKernelContext*), void (*delete_func)(void*));

/* Restricts the kernel to nodes whose type attr `attr_name` equals `type`. */
TF_CAPI_EXPORT extern void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* kernel_builder,
                                                           const char* attr_name,
                                                           const TF_DataType type,
                                                           TF_Status* status);

/* Declares that input or output `arg_name` stays in host memory (recorded). */
TF_CAPI_EXPORT extern void TF_KernelBuilder_HostMemory(TF_KernelBuilder* kernel_builder,
                                                       const char* arg_name);

/* Among kernels matching a node, the one with the highest priority wins (default 0). */
TF_CAPI_EXPORT extern void TF_KernelBuilder_Priority(TF_KernelBuilder* kernel_builder,
                                                     int32_t priority_number);

/* Restricts the kernel to nodes whose "_kernel" attr equals `label`; a labelled kernel is
 * never chosen for a node without that attr, nor an unlabelled one for a node with it. */
TF_CAPI_EXPORT extern void TF_KernelBuilder_Label(TF_KernelBuilder* kernel_builder,
                                                  const char* label);

/* Adds the kernel to the registry and takes ownership of `builder`, whatever the
 * outcome. Fails when the op is unknown, a constrained attr is not a type attr of the op,
 * or an identical kernel (op, device, constraints, label) is registered. */
TF_CAPI_EXPORT extern void TF_RegisterKernelBuilder(const char* kernel_name,
                                                    TF_KernelBuilder* builder,
                                                    TF_Status* status);

/* Like TF_RegisterKernelBuilder, but op, device, type constraints, host-memory args and
 * priority come from a serialized KernelDef message; only the callbacks come from
 * `builder`. As in TensorFlow, `serialized_kernel_def` is read up to its first NUL byte;
 * NULL means "use the builder" (exactly TF_RegisterKernelBuilder). Takes ownership of
 * `builder` whatever the outcome. The KernelDef's label works as TF_KernelBuilder_Label. A constraint allowing several dtypes registers one
 * kernel per combination (stopping at the first failure). Fails with
 * TF_INVALID_ARGUMENT for malformed bytes, TF_UNIMPLEMENTED for a constraint on
 * anything but dtypes, and as TF_RegisterKernelBuilder otherwise. */
TF_CAPI_EXPORT extern void TF_RegisterKernelBuilderWithKernelDef(const char* serialized_kernel_def,
                                                                 const char* name,
                                                                 TF_KernelBuilder* builder,
                                                                 TF_Status* status);

/* Frees a builder that was not registered. NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteKernelBuilder(TF_KernelBuilder* builder);

/* ---- Kernel context: inside compute_func ---- */

TF_CAPI_EXPORT extern int TF_NumInputs(TF_OpKernelContext* ctx);
TF_CAPI_EXPORT extern int TF_NumOutputs(TF_OpKernelContext* ctx);

/* Sets `*tensor` to a new tensor sharing input `i`'s data; the caller frees it with
 * TF_DeleteTensor. TF_OUT_OF_RANGE for a bad index. */
TF_CAPI_EXPORT extern void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor,
                                       TF_Status* status);

/* The dtype of input `index` (TF_DataType 0 when out of range). */
TF_CAPI_EXPORT extern TF_DataType TF_InputDatatype(TF_OpKernelContext* ctx, int index);

/* Sets output `i` to share `tensor`'s data; the caller keeps ownership of `tensor`. */
TF_CAPI_EXPORT extern void TF_SetOutput(TF_OpKernelContext* ctx, int i,
                                        const TF_Tensor* tensor, TF_Status* status);

/* Allocates output `index` with the given dtype and dims (`len` bytes) and returns a
 * tensor sharing it, which the caller frees with TF_DeleteTensor. NULL on failure. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* context, int index,
                                                   TF_DataType dtype, const int64_t* dims,
                                                   int num_dims, size_t len,
                                                   TF_Status* status);

/* Reports that the computation failed; the op's caller sees `status` (copied). */
TF_CAPI_EXPORT extern void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx,
                                                      TF_Status* status);

/* The dtype the OpDef and attrs give output `i`. */
TF_CAPI_EXPORT extern TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext* ctx, int i);

/* An id of the current step (one eager execution or one session run). */
TF_CAPI_EXPORT extern int64_t TF_StepId(TF_OpKernelContext* ctx);

/* Whether input / output `i` lives in host memory: true for every arg of a CPU kernel,
 * and for the args a device kernel declared with TF_KernelBuilder_HostMemory (their
 * tensors' data is then a host pointer; every other arg of a device kernel holds device
 * memory). TF_OUT_OF_RANGE (and false) for a bad index. */
TF_CAPI_EXPORT extern bool TF_IsHostMemoryInput(TF_OpKernelContext* ctx, int i,
                                                TF_Status* status);
TF_CAPI_EXPORT extern bool TF_IsHostMemoryOutput(TF_OpKernelContext* ctx, int i,
                                                 TF_Status* status);

/* A device's stream, as the plugin that provides the device defines it: the runtime
 * hands kernels back the SP_Stream the plugin registered its device with. */
#ifndef TF_SP_STREAM_DEFINED
#define TF_SP_STREAM_DEFINED
typedef struct SP_Stream_st* SP_Stream;
#endif

/* The stream of the device the kernel runs on. Kernels queue their work on it; the
 * runtime orders everything on one device through that stream and waits for it only
 * when the host needs data. On a CPU kernel: NULL and TF_FAILED_PRECONDITION. */
TF_CAPI_EXPORT extern SP_Stream TF_GetStream(TF_OpKernelContext* ctx, TF_Status* status);

/* The ordinal of the device the kernel runs on (0 for GPU:0); -1 on the CPU. */
TF_CAPI_EXPORT extern int TF_GetDeviceId(TF_OpKernelContext* ctx);

/* The name of the node (or eager op) the kernel runs for; owned by the kernel. */
TF_CAPI_EXPORT extern TF_StringView TF_GetOpKernelName(TF_OpKernelContext* ctx);

/* Like TF_AllocateOutput with the expected dtype of `output_index`, after trying to reuse
 * one of the candidate inputs' buffers. `*forwarded_input` is the input reused, or -1.
 * opgen never reuses an input (it cannot tell whether the caller still reads it), so it
 * always allocates and sets -1, which the contract allows. */
TF_CAPI_EXPORT extern TF_Tensor* TF_ForwardInputOrAllocateOutput(
    TF_OpKernelContext* context, const int* candidate_input_indices,
    int num_candidate_input_indices, int output_index, const int64_t* output_dims,
    int output_num_dims, int* forwarded_input, TF_Status* status);

/* Scratch memory for the duration of the compute call: a new tensor the caller frees
 * with TF_DeleteTensor. `alloc_attrs` may be NULL; when given, its struct_size must be
 * TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE. Fixed-size dtypes only. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTemp(TF_OpKernelContext* context,
                                                 TF_DataType dtype, const int64_t* dims,
                                                 int num_dims,
                                                 TF_AllocatorAttributes* alloc_attrs,
                                                 TF_Status* status);

/* ---- Construction context: inside create_func ---- */

/* Reports that the kernel cannot be constructed; execution fails with `status`. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx,
                                                           TF_Status* status);

/* The node's (or eager op's) name; owned by the context. */
TF_CAPI_EXPORT extern TF_StringView TF_OpKernelConstruction_GetName(TF_OpKernelConstruction* ctx);

/* Attr getters. Each fails with TF_INVALID_ARGUMENT when the attr is missing or of
 * another kind, leaving `*val` unchanged. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction* ctx,
                                                               const char* attr_name,
                                                               TF_DataType* val,
                                                               TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name,
                                                                int32_t* val, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name,
                                                                int64_t* val, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name,
                                                                float* val, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx,
                                                               const char* attr_name,
                                                               TF_Bool* val, TF_Status* status);
/* Copies at most `max_length` bytes of a string attr into `val` (not NUL-terminated). */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* ctx,
                                                                 const char* attr_name,
                                                                 char* val, size_t max_length,
                                                                 TF_Status* status);
/* The dims of shape attr `attr_name` into dims[0 .. num_dims), num_dims being its rank
 * as TF_OpKernelConstruction_GetAttrSize gives it in total_size (-1 dims are unknown);
 * TF_INVALID_ARGUMENT when num_dims is not the rank. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensorShape(
    TF_OpKernelConstruction* ctx, const char* attr_name, int64_t* dims, size_t num_dims,
    TF_Status* status);
/* For list attrs: the number of elements, and for list(string) / string the total
 * byte size (-1 otherwise). For scalar attrs `*list_size` is -1. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrSize(TF_OpKernelConstruction* ctx,
                                                               const char* attr_name,
                                                               int32_t* list_size,
                                                               int32_t* total_size,
                                                               TF_Status* status);
/* Copy up to `max_vals` elements of a list attr into `vals`. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTypeList(
    TF_OpKernelConstruction* ctx, const char* attr_name, TF_DataType* vals, int max_vals,
    TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt32List(
    TF_OpKernelConstruction* ctx, const char* attr_name, int32_t* vals, int max_vals,
    TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt64List(
    TF_OpKernelConstruction* ctx, const char* attr_name, int64_t* vals, int max_vals,
    TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrFloatList(
    TF_OpKernelConstruction* ctx, const char* attr_name, float* vals, int max_vals,
    TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrBoolList(
    TF_OpKernelConstruction* ctx, const char* attr_name, TF_Bool* vals, int max_vals,
    TF_Status* status);
/* Copies up to `max_values` strings of a list(string) attr into `storage` (of
 * `storage_size` bytes, not NUL-terminated) and sets values[i] / lengths[i] to each.
 * TF_INVALID_ARGUMENT when they do not fit in `storage`. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrStringList(
    TF_OpKernelConstruction* ctx, const char* attr_name, char** values, size_t* lengths,
    int max_values, void* storage, size_t storage_size, TF_Status* status);
/* Sets up to `max_values` elements of `vals` to new tensors holding a list(tensor) attr;
 * the caller frees each with TF_DeleteTensor. On failure none is set. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensorList(
    TF_OpKernelConstruction* ctx, const char* attr_name, TF_Tensor** vals, int max_values,
    TF_Status* status);
/* A func attr as a serialized NameAttrList (the function's name and the attrs it is
 * instantiated with), in a new buffer the caller frees with TF_DeleteBuffer; NULL and
 * TF_INVALID_ARGUMENT when there is no such attr or it is not a func. */
TF_CAPI_EXPORT extern TF_Buffer* TF_OpKernelConstruction_GetAttrFunction(
    TF_OpKernelConstruction* ctx, const char* attr_name, TF_Status* status);
/* Sets `*val` to a new tensor holding a tensor-valued attr; the caller frees it with
 * TF_DeleteTensor. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensor(TF_OpKernelConstruction* ctx,
                                                                 const char* attr_name,
                                                                 TF_Tensor** val,
                                                                 TF_Status* status);
/* Whether the node has attr `attr_name` (set or defaulted). */
TF_CAPI_EXPORT extern bool TF_OpKernelConstruction_HasAttr(TF_OpKernelConstruction* ctx,
                                                           const char* attr_name,
                                                           TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_KERNELS_H_ */

/* Eager execution: run one op at a time on tensor handles.
 *
 *   TFE_Op* op = TFE_NewOp(ctx, "AddV2", status);
 *   TFE_OpAddInput(op, x, status);
 *   TFE_OpAddInput(op, y, status);
 *   TFE_TensorHandle* z; int n = 1;
 *   TFE_Execute(op, &z, &n, status);     // type attr T inferred from x
 *   TFE_DeleteOp(op);
 *
 * Attr setters take no status: a bad value is remembered and reported by TFE_Execute,
 * which also fills in defaults, infers type and length attrs from the inputs, checks
 * every attr against the OpDef, and picks the kernel. */
#ifndef TENSORFLOW_C_EAGER_C_API_H_
#define TENSORFLOW_C_EAGER_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFE_ContextOptions TFE_ContextOptions;
typedef struct TFE_Context TFE_Context;
typedef struct TFE_TensorHandle TFE_TensorHandle;
typedef struct TFE_Op TFE_Op;

/* Options for TFE_NewContext; the caller frees them with TFE_DeleteContextOptions. */
TF_CAPI_EXPORT extern TFE_ContextOptions* TFE_NewContextOptions(void);
TF_CAPI_EXPORT extern void TFE_DeleteContextOptions(TFE_ContextOptions* options);

/* A new eager context; the caller frees it with TFE_DeleteContext after every op made
 * from it. NULL on failure (e.g. the built-in registry failed to initialise). */
TF_CAPI_EXPORT extern TFE_Context* TFE_NewContext(const TFE_ContextOptions* opts,
                                                  TF_Status* status);
TF_CAPI_EXPORT extern void TFE_DeleteContext(TFE_Context* ctx);
/* Drops the kernels the context caches for TFE_Execute (one per op, device, input dtypes
 * and attrs, which keeps a seeded stateful op's sequence going from call to call); the
 * context's stateful random kernels start over from their seeds. */
TF_CAPI_EXPORT extern void TFE_ContextClearCaches(TFE_Context* ctx);

/* The context's functions, which TFE_NewOp runs by name and PartitionedCall, If, While
 * and the other call ops call (docs/functions.md). Adding a function the context holds
 * already is a no-op; a different one under the same name is TF_INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TFE_ContextAddFunctionDef(TFE_Context* ctx,
                                                     const char* serialized_function_def,
                                                     size_t size, TF_Status* status);
TF_CAPI_EXPORT extern void TFE_ContextAddFunction(TFE_Context* ctx, TF_Function* function,
                                                  TF_Status* status);
/* TF_INVALID_ARGUMENT when the context has no function `name`. */
TF_CAPI_EXPORT extern void TFE_ContextRemoveFunction(TFE_Context* ctx, const char* name,
                                                     TF_Status* status);
TF_CAPI_EXPORT extern unsigned char TFE_ContextHasFunction(TFE_Context* ctx, const char* name);

/* A handle sharing `t`'s data (no copy); `t` stays owned by the caller. Free the handle
 * with TFE_DeleteTensorHandle. */
TF_CAPI_EXPORT extern TFE_TensorHandle* TFE_NewTensorHandle(const TF_Tensor* t,
                                                            TF_Status* status);
TF_CAPI_EXPORT extern void TFE_DeleteTensorHandle(TFE_TensorHandle* h);
TF_CAPI_EXPORT extern TF_DataType TFE_TensorHandleDataType(TFE_TensorHandle* h);
TF_CAPI_EXPORT extern int TFE_TensorHandleNumDims(TFE_TensorHandle* h, TF_Status* status);
TF_CAPI_EXPORT extern int64_t TFE_TensorHandleNumElements(TFE_TensorHandle* h,
                                                          TF_Status* status);
TF_CAPI_EXPORT extern int64_t TFE_TensorHandleDim(TFE_TensorHandle* h, int dim_index,
                                                  TF_Status* status);
/* The device holding the handle's data ("/job:localhost/replica:0/task:0/device:CPU:0");
 * owned by the handle. */
TF_CAPI_EXPORT extern const char* TFE_TensorHandleDeviceName(TFE_TensorHandle* h,
                                                             TF_Status* status);
/* The device whose memory holds the data; the same as TFE_TensorHandleDeviceName, as
 * opgen runs an op where its data lives. */
TF_CAPI_EXPORT extern const char* TFE_TensorHandleBackingDeviceName(TFE_TensorHandle* h,
                                                                    TF_Status* status);
/* A tensor with the handle's data in host memory: shared on the CPU, copied from a
 * device (waiting for the work that produces it). The caller frees it with
 * TF_DeleteTensor. */
TF_CAPI_EXPORT extern TF_Tensor* TFE_TensorHandleResolve(TFE_TensorHandle* h,
                                                         TF_Status* status);
/* A new handle with `h`'s data on device `device_name` (copied unless it is there). */
TF_CAPI_EXPORT extern TFE_TensorHandle* TFE_TensorHandleCopyToDevice(TFE_TensorHandle* h,
                                                                     TFE_Context* ctx,
                                                                     const char* device_name,
                                                                     TF_Status* status);

/* The devices of the runtime: the CPU, then each device a plugin added. */
typedef struct TF_DeviceList TF_DeviceList;
TF_CAPI_EXPORT extern TF_DeviceList* TFE_ContextListDevices(TFE_Context* ctx,
                                                            TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteDeviceList(TF_DeviceList* list);
TF_CAPI_EXPORT extern int TF_DeviceListCount(const TF_DeviceList* list);
/* Full name ("/job:localhost/replica:0/task:0/device:GPU:0") and type ("GPU") of
 * device `index`, owned by the list; NULL and TF_INVALID_ARGUMENT for a bad index. */
TF_CAPI_EXPORT extern const char* TF_DeviceListName(const TF_DeviceList* list, int index,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern const char* TF_DeviceListType(const TF_DeviceList* list, int index,
                                                    TF_Status* status);
/* Memory of the device in bytes; 0 where unknown. */
TF_CAPI_EXPORT extern int64_t TF_DeviceListMemoryBytes(const TF_DeviceList* list, int index,
                                                       TF_Status* status);

/* A new op of type `op_or_function_name`; TF_NOT_FOUND when no such op is registered.
 * The caller frees it with TFE_DeleteOp. */
TF_CAPI_EXPORT extern TFE_Op* TFE_NewOp(TFE_Context* ctx, const char* op_or_function_name,
                                        TF_Status* status);
TF_CAPI_EXPORT extern void TFE_DeleteOp(TFE_Op* op);
/* The op type; owned by the op. */
TF_CAPI_EXPORT extern const char* TFE_OpGetName(const TFE_Op* op, TF_Status* status);
/* Requests a device ("/CPU:0", "/device:CPU:0", "" for any). */
TF_CAPI_EXPORT extern void TFE_OpSetDevice(TFE_Op* op, const char* device_name,
                                           TF_Status* status);

/* Appends one input (for the next single input arg) or a whole list input. The op keeps
 * its own references; the caller keeps ownership of the handles. */
TF_CAPI_EXPORT extern void TFE_OpAddInput(TFE_Op* op, TFE_TensorHandle* input,
                                          TF_Status* status);
TF_CAPI_EXPORT extern void TFE_OpAddInputList(TFE_Op* op, TFE_TensorHandle** inputs,
                                              int num_inputs, TF_Status* status);

/* Attr setters; values are copied. */
TF_CAPI_EXPORT extern void TFE_OpSetAttrString(TFE_Op* op, const char* attr_name,
                                               const void* value, size_t length);
TF_CAPI_EXPORT extern void TFE_OpSetAttrInt(TFE_Op* op, const char* attr_name, int64_t value);
TF_CAPI_EXPORT extern void TFE_OpSetAttrFloat(TFE_Op* op, const char* attr_name, float value);
TF_CAPI_EXPORT extern void TFE_OpSetAttrBool(TFE_Op* op, const char* attr_name,
                                             unsigned char value);
TF_CAPI_EXPORT extern void TFE_OpSetAttrType(TFE_Op* op, const char* attr_name,
                                             TF_DataType value);
/* A func attr naming the function `value` runs (a TFE_Op made for a function name; the
 * attrs set on it bind a polymorphic function, as a NameAttrList's attrs), or the
 * function called `data`. */
TF_CAPI_EXPORT extern void TFE_OpSetAttrFunction(TFE_Op* op, const char* attr_name,
                                                 const TFE_Op* value);
/* A list(func) attr (Case's `branches`): one function per TFE_Op of `value`, each with
 * the attrs set on it. */
TF_CAPI_EXPORT extern void TFE_OpSetAttrFunctionList(TFE_Op* op, const char* attr_name,
                                                     const TFE_Op** value, int num_values);
TF_CAPI_EXPORT extern void TFE_OpSetAttrFunctionName(TFE_Op* op, const char* attr_name,
                                                     const char* data, size_t length);
/* `num_dims` -1 means unknown rank; a dim of -1 is unknown. */
TF_CAPI_EXPORT extern void TFE_OpSetAttrShape(TFE_Op* op, const char* attr_name,
                                              const int64_t* dims, const int num_dims,
                                              TF_Status* out_status);
/* A tensor-valued attr (e.g. Const's `value`); the tensor's data is copied. Fails for
 * dtypes without a fixed element size. */
TF_CAPI_EXPORT extern void TFE_OpSetAttrTensor(TFE_Op* op, const char* attr_name,
                                               TF_Tensor* tensor, TF_Status* status);
TF_CAPI_EXPORT extern void TFE_OpSetAttrStringList(TFE_Op* op, const char* attr_name,
                                                   const void* const* values,
                                                   const size_t* lengths, int num_values);
TF_CAPI_EXPORT extern void TFE_OpSetAttrIntList(TFE_Op* op, const char* attr_name,
                                                const int64_t* values, int num_values);
TF_CAPI_EXPORT extern void TFE_OpSetAttrFloatList(TFE_Op* op, const char* attr_name,
                                                  const float* values, int num_values);
TF_CAPI_EXPORT extern void TFE_OpSetAttrBoolList(TFE_Op* op, const char* attr_name,
                                                 const unsigned char* values, int num_values);
TF_CAPI_EXPORT extern void TFE_OpSetAttrTypeList(TFE_Op* op, const char* attr_name,
                                                 const TF_DataType* values, int num_values);
TF_CAPI_EXPORT extern void TFE_OpSetAttrShapeList(TFE_Op* op, const char* attr_name,
                                                  const int64_t** dims, const int* num_dims,
                                                  int num_values, TF_Status* out_status);

/* Runs the op. On entry `*num_retvals` is the capacity of `retvals`; on success it is
 * set to the number of outputs and `retvals` holds new handles the caller owns.
 * TF_INVALID_ARGUMENT when the capacity is too small or attrs/inputs do not fit the
 * OpDef; TF_NOT_FOUND (listing the registered kernels) when no kernel matches. */
TF_CAPI_EXPORT extern void TFE_Execute(TFE_Op* op, TFE_TensorHandle** retvals,
                                       int* num_retvals, TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_EAGER_C_API_H_ */

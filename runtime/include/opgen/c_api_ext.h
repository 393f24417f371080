/* What opgen adds beyond TensorFlow's C API. Every name here carries the OPGEN_ prefix,
 * so code that sticks to TensorFlow's names also builds against TensorFlow itself. */
#ifndef OPGEN_C_API_EXT_H_
#define OPGEN_C_API_EXT_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/eager/c_api.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_tensor.h"

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
/* OpDef.is_distributed_communication, which TensorFlow's C builder cannot set. */
TF_CAPI_EXPORT extern void OPGEN_OpDefinitionBuilderSetIsDistributedCommunication(
    TF_OpDefinitionBuilder* builder, bool v);

/* ---- Eager kernels resolved once, run many times ------------------------------------
 *
 * TFE_Execute completes attrs, checks them, and looks the kernel up on every call. A
 * language binding that sees the same op with the same attrs and input dtypes again
 * (the common case in an eager loop) resolves that work once:
 *
 *   OPGEN_EagerKernel* k = OPGEN_NewEagerKernel(op, status);   // op as for TFE_Execute
 *   OPGEN_EagerKernelExecute(k, inputs, 2, outputs, 1, status); // as often as needed
 *   OPGEN_DeleteEagerKernel(k);
 */
typedef struct OPGEN_EagerKernel OPGEN_EagerKernel;

/* The kernel TFE_Execute would run for `op` as it stands now (its inputs' dtypes and
 * its attrs), with attrs completed and checked and output dtypes computed. `op` is not
 * modified and may be deleted afterwards. Errors are those TFE_Execute reports; on
 * error returns NULL. The caller frees the result with OPGEN_DeleteEagerKernel. */
TF_CAPI_EXPORT extern OPGEN_EagerKernel* OPGEN_NewEagerKernel(TFE_Op* op, TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_DeleteEagerKernel(OPGEN_EagerKernel* kernel);
/* Number of input tensors (list inputs flattened) and of output tensors. */
TF_CAPI_EXPORT extern int OPGEN_EagerKernelNumInputs(const OPGEN_EagerKernel* kernel);
TF_CAPI_EXPORT extern int OPGEN_EagerKernelNumOutputs(const OPGEN_EagerKernel* kernel);

/* Runs the kernel on `inputs` (borrowed; list inputs flattened, in OpDef order), whose
 * dtypes must be those the kernel was resolved for (TF_INVALID_ARGUMENT otherwise).
 * On success fills outputs[0 .. num_outputs) with new tensors the caller owns
 * (TF_DeleteTensor); an output may share its buffer with an input (Identity, Reshape).
 * On error outputs[0 .. num_outputs) are NULL. The kernel is instantiated once, when
 * resolved; safe to call from several threads at once. Kernels are cached per context
 * (as TFE_Execute's are): resolving the same op again (name, device, input dtypes, the
 * attrs set) gives the same kernel, so a seeded stateful op goes on along its sequence. */
TF_CAPI_EXPORT extern void OPGEN_EagerKernelExecute(const OPGEN_EagerKernel* kernel,
                                                   TF_Tensor* const* inputs, int num_inputs,
                                                   TF_Tensor** outputs, int num_outputs,
                                                   TF_Status* status);

/* The number of kernels `ctx` caches (at most 4096 that nobody else holds; those an
 * OPGEN_EagerKernel holds stay). TFE_ContextClearCaches drops the unheld ones and makes
 * every stateful random kernel of the context start its sequence over. */
TF_CAPI_EXPORT extern int64_t OPGEN_ContextNumCachedKernels(TFE_Context* ctx);

/* ---- Devices and where tensors live ---------------------------------------------------
 * Device names are TensorFlow's: "/job:localhost/replica:0/task:0/device:GPU:0" in full;
 * "/device:GPU:0", "/GPU:0", "GPU:0" and "gpu" (ordinal 0) are accepted wherever a
 * device name is read. The CPU is always device 0. TFE_ContextListDevices lists them. */

/* Why no device of `device_type` ("GPU") is registered ("no CUDA driver: ..."), or NULL
 * when one is, or when nothing tried to add such a device. Owned by the runtime. */
TF_CAPI_EXPORT extern const char* OPGEN_DeviceUnavailableReason(const char* device_type);

/* The full name of the device whose memory holds `tensor`'s data (the CPU's for tensors
 * made by TF_AllocateTensor / TF_NewTensor). Owned by the runtime. */
TF_CAPI_EXPORT extern const char* OPGEN_TensorDeviceName(const TF_Tensor* tensor);

/* A new tensor sharing the handle's data wherever it lives (TFE_TensorHandleResolve
 * copies device data to the host instead). The caller frees it with TF_DeleteTensor. */
TF_CAPI_EXPORT extern TF_Tensor* OPGEN_TensorHandleTensor(TFE_TensorHandle* h, TF_Status* status);

/* A new tensor holding `tensor`'s elements on device `device_name` (a new reference to
 * the same data when it is there already). A copy to the CPU waits for the device;
 * copies to a device are queued. TF_INVALID_ARGUMENT for an unknown device or a
 * string tensor bound for a device. */
TF_CAPI_EXPORT extern TF_Tensor* OPGEN_TensorCopyToDevice(const TF_Tensor* tensor,
                                                          const char* device_name,
                                                          TF_Status* status);

/* A tensor over existing memory of device `device_name` (for DLPack import): `len`
 * bytes at `data`, which `deallocator(data, len, arg)` frees once the runtime is done.
 * On failure the deallocator is not called. */
TF_CAPI_EXPORT extern TF_Tensor* OPGEN_NewDeviceTensor(const char* device_name,
                                                       TF_DataType dtype, const int64_t* dims,
                                                       int num_dims, void* data, size_t len,
                                                       void (*deallocator)(void* data,
                                                                           size_t len,
                                                                           void* arg),
                                                       void* arg, TF_Status* status);

/* What the plugin says of device `index` of a TFE_ContextListDevices list ("NVIDIA
 * H100 80GB HBM3, compute capability 9.0"; the CPU's is "host"). Owned by the list. */
TF_CAPI_EXPORT extern const char* OPGEN_DeviceListDescription(const TF_DeviceList* list,
                                                              int index, TF_Status* status);

/* Waits until the work queued on `device_name` is done (nothing to do on the CPU). */
TF_CAPI_EXPORT extern void OPGEN_SynchronizeDevice(const char* device_name, TF_Status* status);

/* A serialized KernelList, as TF_GetAllRegisteredKernels gives, of the kernels this
 * process has made an instance of so far (a graph node or an eager op ran, or was set
 * to run, on it): which kernels a test run reached. The caller owns the buffer. */
TF_CAPI_EXPORT extern TF_Buffer* OPGEN_GetInstantiatedKernels(TF_Status* status);

/* ---- Kernels ----------------------------------------------------------------------------
 * Input `index` of the running kernel, borrowed: valid until the kernel's compute function
 * returns, and not to be freed. TF_GetInput makes a new TF_Tensor that the kernel must
 * free; for a small op those two steps were a fifth of its time. NULL and TF_OUT_OF_RANGE
 * for a bad index. */
TF_CAPI_EXPORT extern const TF_Tensor* OPGEN_KernelInput(TF_OpKernelContext* ctx, int index,
                                                         TF_Status* status);
/* A number that changes when the running kernel's eager context clears its caches
 * (TFE_ContextClearCaches, which tf.random.set_seed calls): a stateful random kernel
 * seeing a new one starts over from its seeds. 0 for kernels with no context. */
TF_CAPI_EXPORT extern uint64_t OPGEN_KernelSeedGeneration(TF_OpKernelContext* ctx);
/* Input `input_index` made output `output_index`, for the kernel to change in place (the
 * result stays owned by the context, like OPGEN_KernelAllocateOutput's): when the caller
 * reads that input no more after this call (a session plan's last reader of the value),
 * nothing else holds its buffer, and it is what the output must be (dtype, device). NULL
 * with an OK status when it cannot be forwarded: the kernel then makes its output anew.
 * TF_ForwardInputOrAllocateOutput forwards under the same conditions. */
TF_CAPI_EXPORT extern TF_Tensor* OPGEN_KernelForwardInput(TF_OpKernelContext* ctx,
                                                          int input_index, int output_index,
                                                          TF_Status* status);
/* TF_AllocateOutput whose result stays owned by the context: the kernel writes it until
 * its compute function returns and does not free it. */
TF_CAPI_EXPORT extern TF_Tensor* OPGEN_KernelAllocateOutput(TF_OpKernelContext* ctx, int index,
                                                            TF_DataType dtype,
                                                            const int64_t* dims, int num_dims,
                                                            size_t len, TF_Status* status);

/* Attr `attr_name` of the kernel's node as a serialized AttrValue (TensorFlow's message
 * and field numbers), whatever its kind: for the kinds TensorFlow's C API has no getter
 * for, list(func) above all (AttrValue.list.func: each function's NameAttrList, with the
 * attrs it is instantiated with). A new buffer the caller frees with TF_DeleteBuffer;
 * NULL and TF_INVALID_ARGUMENT when the node has no such attr. */
TF_CAPI_EXPORT extern TF_Buffer* OPGEN_OpKernelConstructionGetAttrValue(
    TF_OpKernelConstruction* ctx, const char* attr_name, TF_Status* status);

/* Tensor attr `attr_name` as TF_OpKernelConstruction_GetAttrTensor gives it, but sharing
 * the graph's copy of the value instead of copying it (a Const's weights are then held
 * once, by the graph, however many sessions and optimized graphs run them). The kernel
 * must never write the tensor's data; it deletes the tensor with TF_DeleteTensor. */
TF_CAPI_EXPORT extern void OPGEN_OpKernelConstructionGetAttrTensorShared(
    TF_OpKernelConstruction* ctx, const char* attr_name, TF_Tensor** value, TF_Status* status);

/* ---- Resource variables in kernels ---------------------------------------------------
 * A DT_RESOURCE tensor is a scalar whose bytes are a serialized ResourceHandleProto
 * (TensorFlow's message and field numbers: device, container, name, hash_code,
 * maybe_type_name, dtypes_and_shapes), as TensorFlow's C API passes resource tensors.
 * The variable a handle names lives in the resource manager of the session (kept
 * across TF_SessionRun calls) or of the eager context running the kernel, keyed by
 * (container, name). `resource_index` is the kernel's input holding the handle, which
 * its kernels keep in host memory (TF_KernelBuilder_HostMemory on device kernels).
 * Errors name the variable; a kernel passes them on with TF_OpKernelContext_Failure. */

/* Sets output `index` (host memory) to a new handle of a variable of `dtype` and shape
 * `dims` (num_dims < 0: unknown rank) named (`container`, `shared_name`); an empty
 * container is "localhost". A shared_name equal to TensorFlow's anonymous name
 * "cd2c89b7-88b7-44c8-ad83-06c2a9158347" names a new variable on every call (container
 * "Anonymous"), as tf.Variable's eager handles do. Creates no variable: the first
 * assignment does. */
TF_CAPI_EXPORT extern void OPGEN_KernelSetVariableHandleOutput(
    TF_OpKernelContext* ctx, int index, const char* container, const char* shared_name,
    TF_DataType dtype, const int64_t* dims, int num_dims, TF_Status* status);

/* A new tensor, for the caller to free with TF_DeleteTensor, holding the variable's value
 * on the kernel's device (the variable's own data where it is there already; it stays a
 * snapshot, since updates write in place only a value nobody else holds). TF_FAILED_PRECONDITION
 * when the variable does not exist or was never assigned; TF_INVALID_ARGUMENT when its
 * dtype is not `dtype`. NULL on error. */
TF_CAPI_EXPORT extern TF_Tensor* OPGEN_KernelReadVariable(TF_OpKernelContext* ctx,
                                                          int resource_index, TF_DataType dtype,
                                                          TF_Status* status);

/* Makes `value` the variable's value (the variable shares its data), creating the
 * variable if needed. TF_INVALID_ARGUMENT when the variable holds another dtype, or,
 * with `validate_shape`, another shape (AssignVariableOp's attr: without it the shape
 * may change, as in TensorFlow). */
TF_CAPI_EXPORT extern void OPGEN_KernelAssignVariable(TF_OpKernelContext* ctx,
                                                      int resource_index,
                                                      const TF_Tensor* value,
                                                      unsigned char validate_shape,
                                                      TF_Status* status);

/* Replaces the variable's value by a computed one, under the variable's lock (no other
 * update or assignment runs in between): `update(old_value, new_value, arg, status)` fills
 * `new_value` (the variable's dtype and shape, on the kernel's device) from `old_value`: the
 * same tensor (in place) when nobody else holds the value, else a fresh one (copy-on-write),
 * so element i may depend on element i only, and an error set in `status` (reported; the
 * variable keeps its value) must come before any write. TF_NOT_FOUND when the variable does
 * not exist, TF_FAILED_PRECONDITION when it has no value, TF_INVALID_ARGUMENT for another dtype. */
typedef void (*OPGEN_VariableUpdateFn)(const TF_Tensor* old_value, TF_Tensor* new_value,
                                      void* arg, TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_KernelUpdateVariable(TF_OpKernelContext* ctx,
                                                      int resource_index, TF_DataType dtype,
                                                      OPGEN_VariableUpdateFn update, void* arg,
                                                      TF_Status* status);

/* 1 when the variable exists and has a value, else 0 (also on error, with `status` set). */
TF_CAPI_EXPORT extern int OPGEN_KernelVariableIsInitialized(TF_OpKernelContext* ctx,
                                                            int resource_index,
                                                            TF_Status* status);

/* Deletes the resource; kernels running on it finish with the value they hold. A
 * missing one is TF_NOT_FOUND unless `ignore_lookup_error`. */
TF_CAPI_EXPORT extern void OPGEN_KernelDestroyResource(TF_OpKernelContext* ctx,
                                                       int resource_index,
                                                       unsigned char ignore_lookup_error,
                                                       TF_Status* status);

/* ---- Other resources in kernels -------------------------------------------------------
 * Resources other than variables (lookup tables) live in the same resource manager,
 * keyed by (container, name); their data is the kernel family's, tagged with a type name
 * so that a handle naming a resource of another type is refused. */

typedef struct OPGEN_KernelResource OPGEN_KernelResource; /* a held reference */
/* Makes a resource's data; NULL with `status` set on failure. */
typedef void* (*OPGEN_ResourceCreateFn)(void* arg, TF_Status* status);
typedef void (*OPGEN_ResourceDeleteFn)(void* data);

/* Passed as the container: the resource lives for the current step only, as TensorFlow's
 * per-step resources (TensorArrays) do. A session run deletes its step's resources when it
 * ends; an eager op's stay until deleted, for the ops after it. The handle names the
 * step's own container ("__opgen_step_<id>"; names with that prefix are reserved). */
#define OPGEN_STEP_CONTAINER "__opgen_step__"

/* Sets output `index` (host memory) to a handle of type `type_name` naming (`container`,
 * `shared_name`) (an empty container is "localhost"), making the resource with
 * `create(arg)` when none of that name exists (`destroy` frees it when it is deleted and
 * no kernel holds it). TF_INVALID_ARGUMENT when one of that name has another type. */
TF_CAPI_EXPORT extern void OPGEN_KernelCreateResourceHandle(
    TF_OpKernelContext* ctx, int index, const char* container, const char* shared_name,
    const char* type_name, OPGEN_ResourceCreateFn create, void* arg,
    OPGEN_ResourceDeleteFn destroy, TF_Status* status);

/* The resource that resource input `resource_index` names, held (a DestroyResourceOp
 * running meanwhile does not free it) until OPGEN_ReleaseKernelResource. TF_NOT_FOUND
 * when none exists, TF_INVALID_ARGUMENT when it has another type; NULL on error. */
TF_CAPI_EXPORT extern OPGEN_KernelResource* OPGEN_KernelLookupResource(
    TF_OpKernelContext* ctx, int resource_index, const char* type_name, TF_Status* status);
/* The data `create` made for it. */
TF_CAPI_EXPORT extern void* OPGEN_KernelResourceData(const OPGEN_KernelResource* resource);
TF_CAPI_EXPORT extern void OPGEN_ReleaseKernelResource(OPGEN_KernelResource* resource);

/* ---- Host memory ------------------------------------------------------------------------
 * Freed host buffers of 1 MiB and more are kept for reuse by later tensors of the same
 * size, up to OPGEN_HOST_CACHE_MB megabytes (default 256; 0 turns reuse off): a fresh
 * buffer costs a page fault and a page clear per page when first written. */

/* Frees every kept buffer; returns the bytes given back. */
TF_CAPI_EXPORT extern size_t OPGEN_ReleaseCachedHostMemory(void);
/* Bytes of freed host buffers kept for reuse now. */
TF_CAPI_EXPORT extern size_t OPGEN_CachedHostMemoryBytes(void);

/* ---- Shape inference beyond TensorFlow's C API ---------------------------------------- *
 * What a shape function needs and tensorflow/c/ops.h lacks: the node's other attrs, the
 * values of constant inputs (the shape operand of Reshape, the axes of a reduction, ...),
 * the number of outputs, and shapes built from a list of dims. Like the TF_ calls they are
 * valid only while the shape function runs; errors go to `status` (TF_INVALID_ARGUMENT for
 * a missing attr, an attr of another kind, or an index out of range). */

/* Number of output tensors of the node (list outputs flattened). */
TF_CAPI_EXPORT extern int64_t OPGEN_ShapeInferenceContextNumOutputs(TF_ShapeInferenceContext* ctx);

/* A new handle of the shape with `num_dims` dims `dims[i]` (-1: unknown size), or of an
 * unknown shape when `num_dims` is negative. Free it with TF_DeleteShapeHandle. */
TF_CAPI_EXPORT extern TF_ShapeHandle* OPGEN_ShapeInferenceContextMakeShape(
    TF_ShapeInferenceContext* ctx, const int64_t* dims, int num_dims);

/* The value of input `i` when it is known while the graph is built (the input comes from
 * a Const node): `*out` is a new tensor the caller frees with TF_DeleteTensor. When the
 * value is not known, `*out` is NULL and the status is TF_OK. */
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetInputTensor(TF_ShapeInferenceContext* ctx,
                                                                    int i, TF_Tensor** out,
                                                                    TF_Status* status);

/* The node's attr `attr_name`, of kind int, float, bool, string, list(int), shape or tensor.
 * String and list values point into the context (valid while the shape function runs);
 * a tensor is new, for the caller to free with TF_DeleteTensor. */
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrInt(TF_ShapeInferenceContext* ctx,
                                                                const char* attr_name,
                                                                int64_t* value, TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrFloat(TF_ShapeInferenceContext* ctx,
                                                                  const char* attr_name,
                                                                  float* value, TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrBool(TF_ShapeInferenceContext* ctx,
                                                                 const char* attr_name,
                                                                 unsigned char* value,
                                                                 TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrString(
    TF_ShapeInferenceContext* ctx, const char* attr_name, const char** value, size_t* length,
    TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrIntList(
    TF_ShapeInferenceContext* ctx, const char* attr_name, const int64_t** values,
    int64_t* num_values, TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrShape(TF_ShapeInferenceContext* ctx,
                                                                  const char* attr_name,
                                                                  TF_ShapeHandle* result,
                                                                  TF_Status* status);
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrTensor(TF_ShapeInferenceContext* ctx,
                                                                   const char* attr_name,
                                                                   TF_Tensor** value,
                                                                   TF_Status* status);
/* The node's attr `attr_name` of any kind as a serialized AttrValue, as
 * OPGEN_OpKernelConstructionGetAttrValue gives it (func and list(func) attrs among
 * others). A new buffer the caller frees with TF_DeleteBuffer; NULL on error. */
TF_CAPI_EXPORT extern TF_Buffer* OPGEN_ShapeInferenceContextGetAttrValue(
    TF_ShapeInferenceContext* ctx, const char* attr_name, TF_Status* status);
/* The shape of the tensor held by tensor attr `attr_name`, read without making the tensor
 * (whose TensorProto may describe gigabytes in a few bytes). */
TF_CAPI_EXPORT extern void OPGEN_ShapeInferenceContextGetAttrTensorShape(
    TF_ShapeInferenceContext* ctx, const char* attr_name, TF_ShapeHandle* result,
    TF_Status* status);

/* The session's graph optimizer (runtime/src/optimizer/): on unless the session's
 * ConfigProto turns Grappler off (graph_options.optimizer_options.opt_level = L0, or
 * graph_options.rewrite_options.disable_meta_optimizer; rewrite_options.constant_folding,
 * arithmetic_optimization, remapping, dependency_optimization = OFF turn single passes
 * off) or the environment says OPGEN_GRAPH_OPTIMIZER=0. OPGEN_LOG_OPTIMIZER=1 prints
 * what it did to stderr. OPGEN_SetGraphOptimizer overrides both (0 off, else on). */
TF_CAPI_EXPORT extern void OPGEN_SetGraphOptimizer(TF_SessionOptions* options, int enabled);

/* The GraphDef the session runs for a TF_SessionRun signature (feeds, fetches,
 * targets): the optimized copy; where the optimizer is off, the signature's nodes as
 * given (pruned as the executor prunes them); where it declines (v1 control flow, a bad
 * signature), the whole graph as given. */
TF_CAPI_EXPORT extern void OPGEN_SessionOptimizedGraphDef(
    TF_Session* session, const TF_Output* inputs, int ninputs, const TF_Output* outputs,
    int noutputs, const TF_Operation* const* target_opers, int ntargets,
    TF_Buffer* output_graph_def, TF_Status* status);

/* Whether TF_GraphImportGraphDef* with these options refuses a node whose device string
 * TensorFlow's DeviceSpec does not parse ("garbage", "/cpu:0/gpu:1"), naming the node:
 * what tf.import_graph_def does in Python. Off by default, as in TensorFlow's C API,
 * whose importer (like TF_SetDevice) takes any string; opgen.import_graph_def turns it
 * on. */
TF_CAPI_EXPORT extern void OPGEN_ImportGraphDefOptionsSetCheckDevices(
    TF_ImportGraphDefOptions* opts, unsigned char check);

/* ---- Logging ------------------------------------------------------------------------
 * The runtime logs on stderr. $OPGEN_LOG_LEVEL sets the least severity printed, as
 * TF_CPP_MIN_LOG_LEVEL does for TensorFlow: 0 or "info" (the default) prints everything,
 * 1 or "warning" hides INFO, 2 or "error" hides WARNING too, 3 or "none" prints nothing. */

/* Sets the level as $OPGEN_LOG_LEVEL would (0-3); returns 0, or -1 for a level out of
 * range (left unchanged). */
TF_CAPI_EXPORT extern int OPGEN_SetLogLevel(int level);
TF_CAPI_EXPORT extern int OPGEN_GetLogLevel(void);

/* With `enable` non-zero, every op run logs (INFO) where it runs, as
 * tf.debugging.set_log_device_placement(True) makes TensorFlow do: eagerly
 *   "Executing op MatMul in device /job:localhost/replica:0/task:0/device:CPU:0"
 * on every run, and in a session, once per node when its kernel is placed,
 *   "y: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0".
 * Off by default; for the whole process. */
TF_CAPI_EXPORT extern void OPGEN_SetLogDevicePlacement(int enable);
TF_CAPI_EXPORT extern int OPGEN_GetLogDevicePlacement(void);

/* ---- Limits of function calls and loops (docs/functions.md) -------------------------
 * How deeply function calls may nest on one thread (default 100; the environment
 * variable OPGEN_FUNCTION_CALL_DEPTH_LIMIT sets it at start), and how many iterations one
 * While / StatelessWhile may run (default 10,000,000; OPGEN_WHILE_ITERATION_LIMIT).
 * Going past either fails the run with TF_RESOURCE_EXHAUSTED naming the function. Values
 * below 1 are refused (the limit is unchanged). Each returns the previous limit. For the
 * whole process. */
TF_CAPI_EXPORT extern int64_t OPGEN_SetFunctionCallDepthLimit(int64_t limit);
TF_CAPI_EXPORT extern int64_t OPGEN_SetWhileIterationLimit(int64_t limit);

#ifdef __cplusplus
}
#endif

#endif /* OPGEN_C_API_EXT_H_ */

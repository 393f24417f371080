/* The main C API: the op registry, graphs built node by node or imported from
 * GraphDefs, sessions that run them, and op libraries loaded at run time.
 *
 * A worked example, y = x + x for a fed float scalar x:
 *
 *   TF_Status* s = TF_NewStatus();
 *   TF_Graph* g = TF_NewGraph();
 *   TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", "x");
 *   TF_SetAttrType(d, "dtype", TF_FLOAT);
 *   TF_Operation* x = TF_FinishOperation(d, s);          // frees d
 *   d = TF_NewOperation(g, "AddV2", "y");
 *   TF_AddInput(d, (TF_Output){x, 0});
 *   TF_AddInput(d, (TF_Output){x, 0});
 *   TF_Operation* y = TF_FinishOperation(d, s);
 *   TF_SessionOptions* o = TF_NewSessionOptions();
 *   TF_Session* sess = TF_NewSession(g, o, s);
 *   TF_Output feed = {x, 0}, fetch = {y, 0};
 *   TF_Tensor* in = ...;  TF_Tensor* out = NULL;
 *   TF_SessionRun(sess, NULL, &feed, &in, 1, &fetch, &out, 1, NULL, 0, NULL, s);
 *   ... TF_DeleteTensor(out); TF_DeleteSession(sess, s); TF_DeleteSessionOptions(o);
 *   TF_DeleteGraph(g); TF_DeleteStatus(s);
 *
 * Every function that can fail takes a TF_Status* last and sets it (TF_OK on success).
 * Names, signatures and struct layouts are TensorFlow's. */
#ifndef TENSORFLOW_C_C_API_H_
#define TENSORFLOW_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Version and op registry ======================================================== */

/* The runtime's version string; static storage. */
TF_CAPI_EXPORT extern const char* TF_Version(void);

/* A serialized OpList of every registered op, sorted by name. The caller owns the
 * buffer and frees it with TF_DeleteBuffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllOpList(void);

/* A serialized KernelList of every registered kernel (the runtime's CPU kernels, the
 * GPU kernels of the CUDA plugin where it is built, even without a GPU, and those of
 * loaded libraries), or of op `name` only (empty for an op without kernels). Each
 * kernel's type constraints list the one dtype it is registered for. The caller owns
 * the buffer (TF_DeleteBuffer). */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllRegisteredKernels(TF_Status* status);
TF_CAPI_EXPORT extern TF_Buffer* TF_GetRegisteredKernelsForOp(const char* name,
                                                              TF_Status* status);

/* ==== Graphs ========================================================================== */

/* A graph of operations. Thread-safe: operations may be added while sessions run it. */
typedef struct TF_Graph TF_Graph;
/* An operation under construction; consumed by TF_FinishOperation. */
typedef struct TF_OperationDescription TF_OperationDescription;
/* An operation in a graph; owned by the graph, valid as long as the graph lives. */
typedef struct TF_Operation TF_Operation;

/* Input `index` of `oper` (flattened over its input args). */
typedef struct TF_Input {
  TF_Operation* oper;
  int index;
} TF_Input;

/* Output `index` of `oper` (flattened over its output args). */
typedef struct TF_Output {
  TF_Operation* oper;
  int index;
} TF_Output;

/* A new empty graph; the caller owns it and frees it with TF_DeleteGraph. */
TF_CAPI_EXPORT extern TF_Graph* TF_NewGraph(void);

/* Releases the caller's hold on `graph`. Sessions made on it keep it alive until they
 * are deleted; its operations stay valid until then. NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteGraph(TF_Graph* graph);

/* Starts an operation of type `op_type` named `oper_name` in `graph`. The description
 * is owned by the caller until TF_FinishOperation, which always frees it. An unknown op
 * type is reported by TF_FinishOperation. The strings are copied. */
TF_CAPI_EXPORT extern TF_OperationDescription* TF_NewOperation(TF_Graph* graph,
                                                               const char* op_type,
                                                               const char* oper_name);

/* Requests a device ("/device:CPU:0", "" for any); copied. */
TF_CAPI_EXPORT extern void TF_SetDevice(TF_OperationDescription* desc, const char* device);

/* Adds the next input arg (a single tensor). `input.oper` must be in the same graph. */
TF_CAPI_EXPORT extern void TF_AddInput(TF_OperationDescription* desc, TF_Output input);

/* Adds the next input arg as a list of `num_inputs` tensors (for `N * T` or list(type)
 * args). The array is copied. */
TF_CAPI_EXPORT extern void TF_AddInputList(TF_OperationDescription* desc,
                                           const TF_Output* inputs, int num_inputs);

/* `input` must run before this operation. */
TF_CAPI_EXPORT extern void TF_AddControlInput(TF_OperationDescription* desc,
                                              TF_Operation* input);

/* Places this operation with `op`: recorded as the `_class` attr "loc:@<op name>". */
TF_CAPI_EXPORT extern void TF_ColocateWith(TF_OperationDescription* desc, TF_Operation* op);

/* Attr setters. Every value is copied; a later call for the same name replaces it.
 * Errors that need a status (malformed protos, unsupported tensors) are reported there;
 * a value of the wrong kind for the OpDef, or a dtype that is not a TF_DataType value,
 * is reported by TF_FinishOperation. */
TF_CAPI_EXPORT extern void TF_SetAttrString(TF_OperationDescription* desc,
                                            const char* attr_name, const void* value,
                                            size_t length);
TF_CAPI_EXPORT extern void TF_SetAttrStringList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* const* values,
                                                const size_t* lengths, int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrInt(TF_OperationDescription* desc, const char* attr_name,
                                         int64_t value);
TF_CAPI_EXPORT extern void TF_SetAttrIntList(TF_OperationDescription* desc,
                                             const char* attr_name, const int64_t* values,
                                             int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrFloat(TF_OperationDescription* desc,
                                           const char* attr_name, float value);
TF_CAPI_EXPORT extern void TF_SetAttrFloatList(TF_OperationDescription* desc,
                                               const char* attr_name, const float* values,
                                               int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrBool(TF_OperationDescription* desc, const char* attr_name,
                                          unsigned char value);
TF_CAPI_EXPORT extern void TF_SetAttrBoolList(TF_OperationDescription* desc,
                                              const char* attr_name,
                                              const unsigned char* values, int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrType(TF_OperationDescription* desc, const char* attr_name,
                                          TF_DataType value);
TF_CAPI_EXPORT extern void TF_SetAttrTypeList(TF_OperationDescription* desc,
                                              const char* attr_name, const TF_DataType* values,
                                              int num_values);
/* A placeholder attr value (used inside function bodies): the name of the outer attr. */
TF_CAPI_EXPORT extern void TF_SetAttrPlaceholder(TF_OperationDescription* desc,
                                                 const char* attr_name,
                                                 const char* placeholder);
/* A func attr naming a function, without attrs. */
TF_CAPI_EXPORT extern void TF_SetAttrFuncName(TF_OperationDescription* desc,
                                              const char* attr_name, const char* value,
                                              size_t length);
/* A shape: `num_dims` -1 for unknown rank; a dim of -1 is unknown. */
TF_CAPI_EXPORT extern void TF_SetAttrShape(TF_OperationDescription* desc,
                                           const char* attr_name, const int64_t* dims,
                                           int num_dims);
TF_CAPI_EXPORT extern void TF_SetAttrShapeList(TF_OperationDescription* desc,
                                               const char* attr_name,
                                               const int64_t* const* dims, const int* num_dims,
                                               int num_shapes);
/* A shape given as serialized TensorShapeProto bytes. */
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProto(TF_OperationDescription* desc,
                                                      const char* attr_name,
                                                      const void* proto, size_t proto_len,
                                                      TF_Status* status);
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProtoList(TF_OperationDescription* desc,
                                                          const char* attr_name,
                                                          const void* const* protos,
                                                          const size_t* proto_lens,
                                                          int num_shapes, TF_Status* status);
/* A tensor value; the caller keeps ownership of `value` (its contents are copied). */
TF_CAPI_EXPORT extern void TF_SetAttrTensor(TF_OperationDescription* desc,
                                            const char* attr_name, TF_Tensor* value,
                                            TF_Status* status);
TF_CAPI_EXPORT extern void TF_SetAttrTensorList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                TF_Tensor* const* values, int num_values,
                                                TF_Status* status);
/* Any value, as serialized AttrValue bytes. */
TF_CAPI_EXPORT extern void TF_SetAttrValueProto(TF_OperationDescription* desc,
                                                const char* attr_name, const void* proto,
                                                size_t proto_len, TF_Status* status);

/* Adds the described operation to the graph: completes attrs from the OpDef (inferred
 * from input dtypes, defaults), checks input dtypes, kinds and allowed values, the name's
 * uniqueness and the shapes of inputs. Always frees `desc`. Returns the new operation,
 * owned by the graph, or NULL with `status` set (the graph is then unchanged). */
TF_CAPI_EXPORT extern TF_Operation* TF_FinishOperation(TF_OperationDescription* desc,
                                                       TF_Status* status);

/* ---- Operation queries. Returned strings live as long as the graph. ---- */

TF_CAPI_EXPORT extern const char* TF_OperationName(TF_Operation* oper);
TF_CAPI_EXPORT extern const char* TF_OperationOpType(TF_Operation* oper);
TF_CAPI_EXPORT extern const char* TF_OperationDevice(TF_Operation* oper);

/* Outputs, flattened over output args. */
TF_CAPI_EXPORT extern int TF_OperationNumOutputs(TF_Operation* oper);
TF_CAPI_EXPORT extern TF_DataType TF_OperationOutputType(TF_Output oper_out);
/* Number of tensors of output arg `arg_name`; -1 and an error for an unknown arg. */
TF_CAPI_EXPORT extern int TF_OperationOutputListLength(TF_Operation* oper,
                                                       const char* arg_name,
                                                       TF_Status* status);

/* Inputs, flattened over input args. */
TF_CAPI_EXPORT extern int TF_OperationNumInputs(TF_Operation* oper);
TF_CAPI_EXPORT extern TF_DataType TF_OperationInputType(TF_Input oper_in);
TF_CAPI_EXPORT extern int TF_OperationInputListLength(TF_Operation* oper, const char* arg_name,
                                                      TF_Status* status);
/* The output that feeds input `oper_in`. */
TF_CAPI_EXPORT extern TF_Output TF_OperationInput(TF_Input oper_in);
/* Writes up to `max_inputs` of the operation's inputs (in order) to `inputs`. */
TF_CAPI_EXPORT extern void TF_OperationAllInputs(TF_Operation* oper, TF_Output* inputs,
                                                 int max_inputs);

/* Consumers of one output, in the order they were added. TF_OperationOutputConsumers
 * writes up to `max_consumers` into the caller's array and returns the total number. */
TF_CAPI_EXPORT extern int TF_OperationOutputNumConsumers(TF_Output oper_out);
TF_CAPI_EXPORT extern int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input* consumers,
                                                      int max_consumers);

/* Control edges. The getters fill up to `max_*` entries of the caller's array and
 * return how many they wrote. */
TF_CAPI_EXPORT extern int TF_OperationNumControlInputs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetControlInputs(TF_Operation* oper,
                                                       TF_Operation** control_inputs,
                                                       int max_control_inputs);
TF_CAPI_EXPORT extern int TF_OperationNumControlOutputs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetControlOutputs(TF_Operation* oper,
                                                        TF_Operation** control_outputs,
                                                        int max_control_outputs);

/* The kind of an attr value (TensorFlow's values). */
typedef enum TF_AttrType {
  TF_ATTR_STRING = 0,
  TF_ATTR_INT = 1,
  TF_ATTR_FLOAT = 2,
  TF_ATTR_BOOL = 3,
  TF_ATTR_TYPE = 4,
  TF_ATTR_SHAPE = 5,
  TF_ATTR_TENSOR = 6,
  TF_ATTR_PLACEHOLDER = 7,
  TF_ATTR_FUNC = 8,
} TF_AttrType;

/* What an attr holds: for lists `is_list` is 1 and `list_size` the element count (else
 * -1). `total_size`: for strings the byte length (summed over a list), for shapes the
 * rank (-1 unknown; summed over a list), else -1. */
typedef struct TF_AttrMetadata {
  unsigned char is_list;
  int64_t list_size;
  TF_AttrType type;
  int64_t total_size;
} TF_AttrMetadata;

TF_CAPI_EXPORT extern TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation* oper,
                                                                  const char* attr_name,
                                                                  TF_Status* status);

/* Attr getters. Values are copied into caller-owned memory, at most `max_*` elements
 * (or `max_length` bytes); an attr that is missing or of another kind is an error. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrString(TF_Operation* oper, const char* attr_name,
                                                     void* value, size_t max_length,
                                                     TF_Status* status);
/* Fills `values[i]` with pointers into `storage` (caller-owned, `storage_size` bytes,
 * see TF_AttrMetadata.total_size) and `lengths[i]` with each string's length. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrStringList(TF_Operation* oper,
                                                         const char* attr_name, void** values,
                                                         size_t* lengths, int max_values,
                                                         void* storage, size_t storage_size,
                                                         TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrInt(TF_Operation* oper, const char* attr_name,
                                                  int64_t* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrIntList(TF_Operation* oper,
                                                      const char* attr_name, int64_t* values,
                                                      int max_values, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloat(TF_Operation* oper, const char* attr_name,
                                                    float* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloatList(TF_Operation* oper,
                                                        const char* attr_name, float* values,
                                                        int max_values, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrBool(TF_Operation* oper, const char* attr_name,
                                                   unsigned char* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrBoolList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       unsigned char* values, int max_values,
                                                       TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrType(TF_Operation* oper, const char* attr_name,
                                                   TF_DataType* value, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OperationGetAttrTypeList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       TF_DataType* values, int max_values,
                                                       TF_Status* status);
/* Writes up to `num_dims` dims; the rank comes from TF_AttrMetadata.total_size. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShape(TF_Operation* oper, const char* attr_name,
                                                    int64_t* value, int num_dims,
                                                    TF_Status* status);
/* `dims[i]` points into `storage` (caller-owned, `storage_size` int64s); `num_dims[i]`
 * is each rank (-1 unknown). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShapeList(TF_Operation* oper,
                                                        const char* attr_name, int64_t** dims,
                                                        int* num_dims, int num_shapes,
                                                        int64_t* storage, int storage_size,
                                                        TF_Status* status);
/* Fills the caller's buffer with serialized TensorShapeProto bytes (it frees them with
 * TF_DeleteBuffer). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProto(TF_Operation* oper,
                                                               const char* attr_name,
                                                               TF_Buffer* value,
                                                               TF_Status* status);
/* Stores up to `max_values` new buffers in `values`; the caller deletes each. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProtoList(TF_Operation* oper,
                                                                   const char* attr_name,
                                                                   TF_Buffer** values,
                                                                   int max_values,
                                                                   TF_Status* status);
/* `*value` becomes a new tensor the caller owns (TF_DeleteTensor). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensor(TF_Operation* oper, const char* attr_name,
                                                     TF_Tensor** value, TF_Status* status);
/* Up to `max_values` new tensors, each owned by the caller. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorList(TF_Operation* oper,
                                                         const char* attr_name,
                                                         TF_Tensor** values, int max_values,
                                                         TF_Status* status);
/* Fills the caller's buffer with serialized AttrValue bytes. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrValueProto(TF_Operation* oper,
                                                         const char* attr_name,
                                                         TF_Buffer* output_attr_value,
                                                         TF_Status* status);

/* The operation's attrs (defaults and private "_" attrs included), in name order:
 * TF_OperationGetAttrName copies the name of attr `i` (TF_OperationGetAttrNameLength
 * bytes, no terminating NUL) into the caller's `output`. */
TF_CAPI_EXPORT extern int TF_OperationGetNumAttrs(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationGetAttrNameLength(TF_Operation* oper, int i);
TF_CAPI_EXPORT extern void TF_OperationGetAttrName(TF_Operation* oper, int i, char* output,
                                                   TF_Status* status);

/* Fills the caller's buffer with the operation's serialized NodeDef. */
TF_CAPI_EXPORT extern void TF_OperationToNodeDef(TF_Operation* oper, TF_Buffer* output_node_def,
                                                 TF_Status* status);

/* ---- Graph queries ---- */

/* The operation named `oper_name`, or NULL. */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphOperationByName(TF_Graph* graph,
                                                            const char* oper_name);

/* Iterates over operations in the order they were added: start with `*pos` = 0; returns
 * NULL when there are no more. */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos);

/* Refines the known shape of `output` with `dims` (`num_dims` -1: unknown rank). An
 * incompatible shape is TF_INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TF_GraphSetTensorShape(TF_Graph* graph, TF_Output output,
                                                  const int64_t* dims, const int num_dims,
                                                  TF_Status* status);
/* The rank of `output`, -1 when unknown. */
TF_CAPI_EXPORT extern int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output,
                                                   TF_Status* status);
/* Writes the dims (-1 unknown) into the caller's array; `num_dims` must be the rank. */
TF_CAPI_EXPORT extern void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output,
                                                  int64_t* dims, int num_dims,
                                                  TF_Status* status);

/* Fills the caller's buffer with the serialized OpDef of `op_name`. */
TF_CAPI_EXPORT extern void TF_GraphGetOpDef(TF_Graph* graph, const char* op_name,
                                            TF_Buffer* output_op_def, TF_Status* status);

/* ==== GraphDefs ======================================================================== */

/* Fills the caller's buffer with the graph as a serialized GraphDef (nodes in the order
 * they were added). */
TF_CAPI_EXPORT extern void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def,
                                              TF_Status* status);

/* Options of TF_GraphImportGraphDef*; owned by the caller. */
typedef struct TF_ImportGraphDefOptions TF_ImportGraphDefOptions;

TF_CAPI_EXPORT extern TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void);
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts);
/* Imported node names become "<prefix>/<name>". Copied. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts,
                                                             const char* prefix);
/* The device of imported nodes that name none. Copied. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetDefaultDevice(
    TF_ImportGraphDefOptions* opts, const char* device);
/* Inputs that read `src_name:src_index` in the GraphDef read `dst` (a graph output)
 * instead. `src_name` is copied. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddInputMapping(
    TF_ImportGraphDefOptions* opts, const char* src_name, int src_index, TF_Output dst);
/* Control inputs on `src_name` in the GraphDef become control inputs on `dst`. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsRemapControlDependency(
    TF_ImportGraphDefOptions* opts, const char* src_name, TF_Operation* dst);
/* Every imported node without inputs gets `oper` as a control input. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddControlDependency(
    TF_ImportGraphDefOptions* opts, TF_Operation* oper);
/* Asks for the imported output `oper_name:index` (GraphDef names, before the prefix). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOutput(
    TF_ImportGraphDefOptions* opts, const char* oper_name, int index);
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOutputs(
    const TF_ImportGraphDefOptions* opts);
/* Asks for the imported operation `oper_name` (GraphDef name). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOperation(
    TF_ImportGraphDefOptions* opts, const char* oper_name);
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOperations(
    const TF_ImportGraphDefOptions* opts);

/* What an import produced; owned by the caller, freed with TF_DeleteImportGraphDefResults.
 * Arrays handed out by the accessors live as long as the results. */
typedef struct TF_ImportGraphDefResults TF_ImportGraphDefResults;

TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOutputs(
    TF_ImportGraphDefResults* results, int* num_outputs, TF_Output** outputs);
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOperations(
    TF_ImportGraphDefResults* results, int* num_opers, TF_Operation*** opers);
/* Input mappings whose source the GraphDef never used. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsMissingUnusedInputMappings(
    TF_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes);
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults* results);

/* Imports the serialized GraphDef in `graph_def` into `graph`. Nodes may come in any
 * order; attrs a node's OpDef lacks (a newer producer's) are kept unchecked, as
 * TensorFlow ignores them. On failure the graph is unchanged and NULL is returned; the
 * caller owns the results. */
TF_CAPI_EXPORT extern TF_ImportGraphDefResults* TF_GraphImportGraphDefWithResults(
    TF_Graph* graph, const TF_Buffer* graph_def, const TF_ImportGraphDefOptions* options,
    TF_Status* status);
/* As above, writing the requested return outputs into the caller's array, which must
 * have exactly TF_ImportGraphDefOptionsNumReturnOutputs(options) entries. */
TF_CAPI_EXPORT extern void TF_GraphImportGraphDefWithReturnOutputs(
    TF_Graph* graph, const TF_Buffer* graph_def, const TF_ImportGraphDefOptions* options,
    TF_Output* return_outputs, int num_return_outputs, TF_Status* status);
TF_CAPI_EXPORT extern void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                                                  const TF_ImportGraphDefOptions* options,
                                                  TF_Status* status);

/* ==== Gradients ======================================================================== */

/* Adds to `g` the nodes computing the gradients of the sum of the `ny` outputs `y` with
 * respect to each of the `nx` outputs `x`, with `dx[i]` the gradient fed into `y[i]`
 * (`dx` NULL: ones, OnesLike of each y). `dy` (caller-owned, `nx` entries) receives
 * d(sum y)/d(x[j]); an x the ys do not depend on through differentiable (floating-point,
 * complex or resource) tensors gets {NULL, -1}. Gradients reaching a tensor along
 * several paths are summed (AddN). The new nodes are named under the scope
 * "gradients/" ("gradients_1/" ... when taken). An op on the path without a gradient
 * function fails with TF_NOT_FOUND ("No gradient defined for op: ..."); ops declared not
 * differentiable (Shape, ArgMax, comparisons, StopGradient ...) stop the pass silently.
 * Gradient functions: opgen/gradients.h. On failure the graph is left as it was. */
TF_CAPI_EXPORT extern void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny, TF_Output* x,
                                           int nx, TF_Output* dx, TF_Status* status,
                                           TF_Output* dy);
/* As TF_AddGradients, the nodes named under `prefix` ("prefix/..."); a node named
 * `prefix` or "prefix/..." already in the graph is TF_INVALID_ARGUMENT. */
TF_CAPI_EXPORT extern void TF_AddGradientsWithPrefix(TF_Graph* g, const char* prefix,
                                                     TF_Output* y, int ny, TF_Output* x,
                                                     int nx, TF_Output* dx, TF_Status* status,
                                                     TF_Output* dy);

/* ==== Sessions ========================================================================= */

/* Options for TF_NewSession; owned by the caller. */
typedef struct TF_SessionOptions TF_SessionOptions;
/* Runs a graph; owned by the caller, freed with TF_DeleteSession. */
typedef struct TF_Session TF_Session;

TF_CAPI_EXPORT extern TF_SessionOptions* TF_NewSessionOptions(void);
/* The target ("" or "local": in-process; others are refused by TF_NewSession). Copied. */
TF_CAPI_EXPORT extern void TF_SetTarget(TF_SessionOptions* options, const char* target);
/* A serialized ConfigProto; checked to be well-formed and kept. Copied. */
TF_CAPI_EXPORT extern void TF_SetConfig(TF_SessionOptions* options, const void* proto,
                                        size_t proto_len, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteSessionOptions(TF_SessionOptions* options);

/* A session running `graph`, which it keeps alive until TF_DeleteSession. Operations
 * added to the graph later are visible to it. `opts` may be freed right after. */
TF_CAPI_EXPORT extern TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts,
                                                TF_Status* status);
/* Refuses later runs. */
TF_CAPI_EXPORT extern void TF_CloseSession(TF_Session* session, TF_Status* status);
/* Frees the session (closing it first). No run may be in progress. NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteSession(TF_Session* session, TF_Status* status);

/* Runs the graph: feeds `input_values[i]` into `inputs[i]` (the caller keeps ownership of
 * the input tensors), computes `outputs` and runs `target_opers` (for their effects).
 * On success `output_values[i]` holds a new tensor the caller owns (TF_DeleteTensor); on
 * failure every `output_values[i]` is NULL. `run_options` (RunOptions bytes) may be NULL
 * and is not interpreted; `run_metadata`, when not NULL, receives a RunMetadata
 * (currently empty). Several threads may run one session at once. */
TF_CAPI_EXPORT extern void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options,
                                         const TF_Output* inputs,
                                         TF_Tensor* const* input_values, int ninputs,
                                         const TF_Output* outputs, TF_Tensor** output_values,
                                         int noutputs, const TF_Operation* const* target_opers,
                                         int ntargets, TF_Buffer* run_metadata,
                                         TF_Status* status);

/* ==== SavedModels ====================================================================== */

/* Loads the SavedModel directory `export_dir`: picks the MetaGraphDef whose tag set equals
 * `tags` (`tags_len` strings), imports its graph into `graph` (which must be empty),
 * makes a session with `session_options`, restores the variables from
 * `export_dir/variables/variables` by running the saver's restore op, and runs the
 * model's init op (the "__saved_model_init_op" signature, or the saved_model_main_op /
 * legacy_init_op collection). `run_options` (RunOptions bytes, may be NULL) goes to those
 * runs. When `meta_graph_def` is not NULL it receives the chosen MetaGraphDef, whose
 * SignatureDefs name the tensors to feed and fetch. Returns the session (freed with
 * TF_DeleteSession), or NULL with `status` saying why: NOT_FOUND (no directory,
 * saved_model.pb, matching tag set - the message lists those there are - or
 * checkpoint), DATA_LOSS (a corrupt saved_model.pb or checkpoint), UNIMPLEMENTED (an op
 * the runtime lacks, e.g. StatefulPartitionedCall before functions run),
 * INVALID_ARGUMENT (a non-empty graph). */
TF_CAPI_EXPORT extern TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len, TF_Graph* graph,
    TF_Buffer* meta_graph_def, TF_Status* status);
/* ==== Functions ========================================================================
 * A TF_Function is a FunctionDef: a graph with named inputs and outputs that nodes call
 * (PartitionedCall's `f`, If's branches, While's cond/body, or a node whose op type is the
 * function's name). A graph holds the functions its nodes may call (its library). */

typedef struct TF_Function TF_Function;
/* Reserved by TensorFlow; pass NULL. */
typedef struct TF_FunctionOptions TF_FunctionOptions;

/* A function made of the operations `opers` of `fn_body` (all of them but the nodes of
 * `inputs` when num_opers is -1). `inputs` become the function's arguments: an edge into
 * the body from any other operation outside `opers` is an error. `outputs` are its
 * results, named `output_names` (NULL: names made from the nodes'). With
 * `append_hash_to_fn_name` the name gets a suffix made from the function's contents. */
TF_CAPI_EXPORT extern TF_Function* TF_GraphToFunction(
    const TF_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name,
    int num_opers, const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    const TF_FunctionOptions* opts, const char* description, TF_Status* status);
/* The same, with `control_outputs`: operations that must run whenever the function is
 * called, named `control_output_names`. */
TF_CAPI_EXPORT extern TF_Function* TF_GraphToFunctionWithControlOutputs(
    const TF_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name,
    int num_opers, const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    int ncontrol_outputs, const TF_Operation* const* control_outputs,
    const char* const* control_output_names, const TF_FunctionOptions* opts,
    const char* description, TF_Status* status);
/* The function's name; owned by the function. */
TF_CAPI_EXPORT extern const char* TF_FunctionName(TF_Function* func);
/* The function as serialized FunctionDef bytes. */
TF_CAPI_EXPORT extern void TF_FunctionToFunctionDef(TF_Function* func,
                                                    TF_Buffer* output_func_def,
                                                    TF_Status* status);
/* A function from serialized FunctionDef bytes; the caller owns it. */
TF_CAPI_EXPORT extern TF_Function* TF_FunctionImportFunctionDef(const void* proto,
                                                               size_t proto_len,
                                                               TF_Status* status);
/* Sets (serialized AttrValue) or reads the function's attr `attr_name`. */
TF_CAPI_EXPORT extern void TF_FunctionSetAttrValueProto(TF_Function* func,
                                                        const char* attr_name,
                                                        const void* proto, size_t proto_len,
                                                        TF_Status* status);
TF_CAPI_EXPORT extern void TF_FunctionGetAttrValueProto(TF_Function* func,
                                                        const char* attr_name,
                                                        TF_Buffer* output_attr_value,
                                                        TF_Status* status);
/* NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteFunction(TF_Function* func);
/* Adds `func` (and `grad`, when not NULL, recorded as its gradient function) to the
 * graph's library. A different function of the same name is an error. */
TF_CAPI_EXPORT extern void TF_GraphCopyFunction(TF_Graph* g, const TF_Function* func,
                                                const TF_Function* grad, TF_Status* status);
/* How many functions the graph's library holds. */
TF_CAPI_EXPORT extern int TF_GraphNumFunctions(TF_Graph* g);
/* Fills `funcs` with new copies of up to `max_func` of the graph's functions (in name
 * order; the caller deletes each) and returns how many it wrote. */
TF_CAPI_EXPORT extern int TF_GraphGetFunctions(TF_Graph* g, TF_Function** funcs, int max_func,
                                               TF_Status* status);

/* ==== While loops ======================================================================
 * TF_NewWhile starts a while loop over `inputs`: it makes two graphs, cond_graph and
 * body_graph, each with one Placeholder per loop variable (cond_inputs, body_inputs).
 * Build the condition (a scalar, in cond_output) and the next values (body_outputs) in
 * them from those placeholders only, optionally set `name`, then call TF_FinishWhile,
 * which adds a functional `While` node to `g` (its cond and body become functions of g's
 * library) and writes the loop's results into `outputs` (ninputs of them). TF_AbortWhile
 * drops an unfinished loop. Either frees the two graphs. Unlike TensorFlow's own
 * TF_FinishWhile, which builds v1 frames (Enter/Merge/Switch/NextIteration/Exit), the
 * loop is one While node (docs/functions.md). */
typedef struct TF_WhileParams {
  const int ninputs;
  TF_Graph* const cond_graph;
  const TF_Output* const cond_inputs;
  TF_Output cond_output;
  TF_Graph* const body_graph;
  const TF_Output* const body_inputs;
  TF_Output* const body_outputs;
  const char* name;
} TF_WhileParams;

TF_CAPI_EXPORT extern TF_WhileParams TF_NewWhile(TF_Graph* g, TF_Output* inputs, int ninputs,
                                                 TF_Status* status);
TF_CAPI_EXPORT extern void TF_FinishWhile(const TF_WhileParams* params, TF_Status* status,
                                          TF_Output* outputs);
TF_CAPI_EXPORT extern void TF_AbortWhile(const TF_WhileParams* params);

/* ==== Op libraries ===================================================================== */

/* A loaded library of ops and kernels. */
typedef struct TF_Library TF_Library;

/* Loads the shared library at `library_filename` (dlopen) and records the ops it
 * registers while loading. Loading the same path again returns the same handle (counted:
 * delete it once per load). An op the library registers that is already registered
 * fails the load with TF_ALREADY_EXISTS and leaves the registry as it was for that op.
 * The caller owns the handle; libraries are never unloaded (their kernels stay
 * registered). */
TF_CAPI_EXPORT extern TF_Library* TF_LoadLibrary(const char* library_filename,
                                                 TF_Status* status);
/* A serialized OpList of the ops `lib_handle` registered. The bytes are owned by the
 * handle and stay valid until it is deleted; do not free them. */
TF_CAPI_EXPORT extern TF_Buffer TF_GetOpList(TF_Library* lib_handle);
/* Releases one load of the handle. NULL is allowed. */
TF_CAPI_EXPORT extern void TF_DeleteLibraryHandle(TF_Library* lib_handle);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLOW_C_C_API_H_ */

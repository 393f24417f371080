/* Gradient functions: how TF_AddGradients (tensorflow/c/c_api.h) differentiates an op,
 * and how a plugin or a language binding teaches it a new op.
 *
 * A gradient function is called once per forward operation on the path from the xs to
 * the ys. It reads the gradient of each of the op's outputs (always a tensor: outputs
 * no gradient reached get zeros), adds the nodes that compute the gradient of each
 * input under the context's name scope, and sets them; an input left unset gets no
 * gradient ("None"), which stops the backward pass there.
 *
 *   static void MulGrad(OPGEN_GradientContext* ctx, void* user_data, TF_Status* s) {
 *     TF_Operation* op = OPGEN_GradientContextOperation(ctx);
 *     TF_Output dz = OPGEN_GradientContextOutputGrad(ctx, 0);
 *     TF_OperationDescription* d = OPGEN_GradientContextNewOperation(ctx, "Mul", NULL);
 *     TF_AddInput(d, dz);
 *     TF_AddInput(d, TF_OperationInput((TF_Input){op, 1}));
 *     TF_Operation* gx = TF_FinishOperation(d, s);
 *     if (TF_GetCode(s) == TF_OK) OPGEN_GradientContextSetInputGrad(ctx, 0, (TF_Output){gx, 0}, s);
 *     ...
 *   }
 *   OPGEN_RegisterGradient("MyMul", MulGrad, NULL, status);
 *
 * Registration rule: the runtime's built-in gradient functions form one table; those
 * registered here form a second one that is looked up first. Registering an op type
 * again replaces the earlier registration (the latest wins, for built-in ops too);
 * registering NULL as the function removes it, so that the built-in one (if any)
 * applies again. Registrations are process-wide and thread-safe; a graph's gradient
 * nodes keep what they were built with. The op type need not be registered yet (a
 * library may register its gradients before or after its ops).
 *
 * TF_AddGradients / TF_AddGradientsWithPrefix themselves are TensorFlow's, declared in
 * tensorflow/c/c_api.h. */
#ifndef OPGEN_GRADIENTS_H_
#define OPGEN_GRADIENTS_H_

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The state of one gradient function call; valid only during that call. */
typedef struct OPGEN_GradientContext OPGEN_GradientContext;

/* Sets `status` (and nothing else) to fail the whole TF_AddGradients call; the graph
 * is then left as it was before that call. */
typedef void (*OPGEN_GradientFunction)(OPGEN_GradientContext* ctx, void* user_data,
                                       TF_Status* status);

/* Registers `fn` (with `user_data`, passed back on each call) as the gradient of
 * `op_type`; see the registration rule above. `fn` NULL removes the registration. */
TF_CAPI_EXPORT extern void OPGEN_RegisterGradient(const char* op_type, OPGEN_GradientFunction fn,
                                                  void* user_data, TF_Status* status);

/* Declares `op_type` not differentiable: the backward pass stops there silently (as
 * TensorFlow's ops.NotDifferentiable). Replaces any gradient function registered here. */
TF_CAPI_EXPORT extern void OPGEN_RegisterNotDifferentiable(const char* op_type,
                                                           TF_Status* status);

/* 1 when `op_type` has a gradient function or is declared not differentiable. */
TF_CAPI_EXPORT extern int OPGEN_HasGradient(const char* op_type);

/* ---- The context a gradient function sees ---- */

TF_CAPI_EXPORT extern TF_Graph* OPGEN_GradientContextGraph(OPGEN_GradientContext* ctx);
/* The forward operation. Its inputs, outputs and attrs are read with TF_Operation*. */
TF_CAPI_EXPORT extern TF_Operation* OPGEN_GradientContextOperation(OPGEN_GradientContext* ctx);
/* The gradient of forward output `i` (a tensor of its dtype and shape). Out of range:
 * {NULL, -1}. */
TF_CAPI_EXPORT extern TF_Output OPGEN_GradientContextOutputGrad(OPGEN_GradientContext* ctx,
                                                                int i);
/* Whether the gradient of forward input `i` is needed (it is on the path to an x and
 * of a differentiable dtype). A function may skip the inputs that are not. */
TF_CAPI_EXPORT extern int OPGEN_GradientContextInputNeedsGrad(OPGEN_GradientContext* ctx,
                                                              int i);
/* Sets the gradient of forward input `i`; `grad.oper` NULL means none. The dtype must be
 * the input's (a resource input: its value's) and a known shape compatible with the
 * input's known shape, else `status` says which. */
TF_CAPI_EXPORT extern void OPGEN_GradientContextSetInputGrad(OPGEN_GradientContext* ctx, int i,
                                                             TF_Output grad, TF_Status* status);
/* The name scope of this op's gradient nodes, ending with "/" ("gradients/MatMul_grad/");
 * valid during the call. */
TF_CAPI_EXPORT extern const char* OPGEN_GradientContextNameScope(OPGEN_GradientContext* ctx);
/* TF_NewOperation for a gradient node: named "<scope><name>" (`name` NULL: the op
 * type), made unique in the graph, on the forward op's device. */
TF_CAPI_EXPORT extern TF_OperationDescription* OPGEN_GradientContextNewOperation(
    OPGEN_GradientContext* ctx, const char* op_type, const char* name);

#ifdef __cplusplus
}
#endif

#endif /* OPGEN_GRADIENTS_H_ */

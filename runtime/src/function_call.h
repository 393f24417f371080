// Running functions: the kernels of PartitionedCall, StatefulPartitionedCall, If,
// StatelessIf, Case, StatelessCase, While, StatelessWhile, and of a node whose op type
// is a function's name. Each instantiates the functions it calls once (per node, per
// function, per attr binding of a polymorphic function: a graph of the FunctionDef's nodes
// with a Placeholder per argument, and an ExecutionPlan of it), on the caller's resources,
// and runs them through the same executor as a session.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"
#include "kernel_registry.h"

namespace opgen {

// Whether `op` is a call of a function of its graph's library by op type.
bool IsFunctionNode(const TF_Operation& op);
// Whether `op`'s kernel needs its graph's library: a function node, or a node with a func
// attr (PartitionedCall, If, While, ...).
bool CallsFunctions(const TF_Operation& op);
bool CallsFunctions(const OpDef& def, const AttrMap& attrs);

// Builds the body of library function `name` into the empty graph `g` (which gets a copy
// of `library`): `args` are its arguments' Placeholders and `rets` its outputs' tensors, in
// signature order (a list argument or output: one per element); `control` (may be null)
// the names of its control outputs' nodes. A polymorphic function needs `binding`, its
// attrs' values (BindFunctionAttrs, function_instantiate.h).
bool BuildFunctionBody(const FunctionLibrary& library, const std::string& name, TF_Graph* g,
                       std::vector<TF_Output>* args, std::vector<TF_Output>* rets,
                       std::vector<std::string>* control, TF_Status* status,
                       const AttrMap* binding = nullptr);

// A While whose gradient made it carry accumulators (gradients/function_grad.cc) after
// its own loop variables says so in private attrs: how many variables are its own (the
// name TensorFlow gives the same fact), which of them have a list, which values of its
// body's stateful nodes have one, and its own cond and body. A plan that reads none of the accumulators runs it as that plain loop (kLeanAttr
// on the kernel's attrs), passing the accumulators' first values through.
inline constexpr char kNumOriginalOutputsAttr[] = "_num_original_outputs";
inline constexpr char kAccumulatedAttr[] = "_opgen_accumulated";
inline constexpr char kAccumulatedValuesAttr[] = "_opgen_accumulated_values";
inline constexpr char kForwardCondAttr[] = "_opgen_forward_cond";
inline constexpr char kForwardBodyAttr[] = "_opgen_forward_body";
inline constexpr char kLeanAttr[] = "_opgen_without_accumulators";
// The number of a rewritten While's own loop variables; -1 for any other node.
int OwnLoopVariables(const TF_Operation& op);

// The kernel of a function node (not in the registry: function names are not op names).
const KernelDef& FunctionCallKernel();

// Registers the CPU kernels of the functional ops (at runtime start).
void RegisterFunctionKernels(TF_Status* status);

// Limits that turn runaway programs into errors: nested calls on one thread (a function
// that calls itself without end), and iterations of one While.
int64_t FunctionCallDepthLimit();
int64_t WhileIterationLimit();

}  // namespace opgen

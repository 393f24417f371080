// Gradients of the TensorArray ops, with TensorFlow's formulas (its tensor_array_grad.py):
// each op's gradient works on the forward array's gradient array (TensorArrayGradV3), one
// per gradient computation, named by the `gradients...` scope of the call. A read's
// gradient writes there, a write's reads; gather and scatter, concat and split likewise
// trade places. The flow scalars order the gradient array's ops as they ordered the
// forward ones. TensorArrayV3, Size and Close are not differentiable
// (builtin_gradients.cc).
#include <string>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// The gradient computation this op's gradient belongs to: its name scope up to the last
// part that starts with "gradients" ("outer/gradients_1/Read_grad/" -> "outer/gradients_1"),
// as TensorFlow's _GetGradSource. Every gradient op of one call shares it, and so one
// gradient array per forward array.
std::string GradSource(GradBuilder& b) {
  const std::string scope = b.name_scope();
  std::string source, prefix;
  size_t start = 0;
  while (start < scope.size()) {
    size_t end = scope.find('/', start);
    if (end == std::string::npos) end = scope.size();
    const std::string part = scope.substr(start, end - start);
    prefix += (prefix.empty() ? "" : "/") + part;
    if (part.compare(0, 9, "gradients") == 0) source = prefix;
    start = end + 1;
  }
  return source.empty() ? "gradients" : source;
}

// The gradient array of the forward op's array (input 0), made after `flow`: its handle
// and its flow.
struct GradArray {
  TF_Output handle, flow;
};
GradArray GradArrayOf(GradBuilder& b, TF_Output flow) {
  TF_Operation* g = b.Node("TensorArrayGradV3", {b.input(0), flow}, {{"source", GradSource(b)}});
  if (g == nullptr) return {{nullptr, -1}, {nullptr, -1}};
  return {TF_Output{g, 0}, TF_Output{g, 1}};
}

// A float scalar zero where no gradient reached a flow output.
TF_Output FlowGrad(GradBuilder& b, int output) {
  const TF_Output g = b.grad(output);
  return g.oper != nullptr ? g : b.Op("ZerosLike", {b.output(output)});
}

// Read(handle, index, flow) -> value: the value's gradient is written to element index of
// the gradient array; the flow's gradient is that write's flow.
void ReadGrad(GradBuilder& b) {
  const GradArray g = GradArrayOf(b, b.input(2));
  b.Set(2, b.Op("TensorArrayWriteV3", {g.handle, b.input(1), b.grad(0), g.flow}));
}

// Write(handle, index, value, flow) -> flow: the value's gradient is element index of the
// gradient array.
void WriteGrad(GradBuilder& b) {
  const TF_Output flow = FlowGrad(b, 0);
  const GradArray g = GradArrayOf(b, flow);
  if (b.needs(2))
    b.Set(2, b.Op("TensorArrayReadV3", {g.handle, b.input(1), g.flow},
                  {{"dtype", b.AttrType("T")}}));
  b.Set(3, flow);
}

// Gather(handle, indices, flow) -> value: the value's rows are scattered into the
// gradient array (repeated indices sum there).
void GatherGrad(GradBuilder& b) {
  const GradArray g = GradArrayOf(b, b.input(2));
  b.Set(2, b.Op("TensorArrayScatterV3", {g.handle, b.input(1), b.grad(0), g.flow}));
}

// Scatter(handle, indices, value, flow) -> flow: the value's gradient gathers the rows.
void ScatterGrad(GradBuilder& b) {
  const TF_Output flow = FlowGrad(b, 0);
  const GradArray g = GradArrayOf(b, flow);
  if (b.needs(2))
    b.Set(2, b.Op("TensorArrayGatherV3", {g.handle, b.input(1), g.flow},
                  {{"dtype", b.AttrType("T")}}));
  b.Set(3, flow);
}

// Concat(handle, flow) -> (value, lengths): the value's gradient is split back into the
// gradient array by the same lengths.
void ConcatGrad(GradBuilder& b) {
  const GradArray g = GradArrayOf(b, b.input(1));
  const TF_Output value_grad = b.grad(0).oper != nullptr ? b.grad(0) : b.Op("ZerosLike", {b.output(0)});
  b.Set(1, b.Op("TensorArraySplitV3", {g.handle, value_grad, b.output(1), g.flow}));
}

// Split(handle, value, lengths, flow) -> flow: the value's gradient concatenates the
// gradient array.
void SplitGrad(GradBuilder& b) {
  const TF_Output flow = FlowGrad(b, 0);
  const GradArray g = GradArrayOf(b, flow);
  if (b.needs(1))
    b.Set(1, b.Op("TensorArrayConcatV3", {g.handle, g.flow}, {{"dtype", b.AttrType("T")}}));
  b.Set(3, flow);
}

}  // namespace

void RegisterTensorArrayGradients() {
  RegisterGrad("TensorArrayReadV3", ReadGrad);
  RegisterGrad("TensorArrayWriteV3", WriteGrad);
  RegisterGrad("TensorArrayGatherV3", GatherGrad);
  RegisterGrad("TensorArrayScatterV3", ScatterGrad);
  RegisterGrad("TensorArrayConcatV3", ConcatGrad);
  RegisterGrad("TensorArraySplitV3", SplitGrad);
}

}  // namespace gradients
}  // namespace opgen

// Gradients of the fused RNN ops and of TensorFlow 1's batch norm: BlockLSTM through
// BlockLSTMGrad and BlockLSTMV2 through BlockLSTMGradV2 (TensorFlow 2.21 registers
// BlockLSTMGrad for V2 too, which reads V2's gate blocks in V1's order and so gives a
// wrong gradient: docs/conformance.md); BatchNormWithGlobalNormalization through its
// gradient op. TensorFlow registers none for the single-step cells
// (LSTMBlockCell, GRUBlockCell) or for the gradient ops, and neither does opgen.
#include "builtin_gradients.h"
#include "grad_builder.h"

#include <vector>

namespace opgen {
namespace gradients {
namespace {

// BlockLSTM(seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b): the gradients of its cs
// and h outputs only (the gates are intermediate values); none to seq_len_max.
void BlockLstmGradOf(GradBuilder& b, const char* grad_op) {
  std::vector<In> in;  // the op's inputs and outputs, then cs's and h's gradients
  for (int i = 0; i < 9; ++i) in.emplace_back(b.input(i));
  for (int i = 0; i < 7; ++i) in.emplace_back(b.output(i));
  in.emplace_back(b.grad(1));
  in.emplace_back(b.grad(6));
  TF_Operation* g = b.Node(grad_op, in, b.CopyAttrs({"use_peephole"}));
  if (g == nullptr) return;
  for (int i = 1; i < 9; ++i)
    if (b.needs(i)) b.Set(i, TF_Output{g, i - 1});
}

void BlockLstmGrad(GradBuilder& b) { BlockLstmGradOf(b, "BlockLSTMGrad"); }
void BlockLstmV2Grad(GradBuilder& b) { BlockLstmGradOf(b, "BlockLSTMGradV2"); }

// BatchNormWithGlobalNormalization(t, m, v, beta, gamma): one gradient op gives all five.
void BatchNormGlobalGrad(GradBuilder& b) {
  TF_Operation* g = b.Node("BatchNormWithGlobalNormalizationGrad",
                           {b.input(0), b.input(1), b.input(2), b.input(4), b.grad(0)},
                           b.CopyAttrs({"variance_epsilon", "scale_after_normalization"}));
  if (g == nullptr) return;
  for (int i = 0; i < 5; ++i)
    if (b.needs(i)) b.Set(i, TF_Output{g, i});
}

}  // namespace

void RegisterRnnGradients() {
  RegisterGrad("BlockLSTM", BlockLstmGrad);
  RegisterGrad("BlockLSTMV2", BlockLstmV2Grad);
  RegisterGrad("BatchNormWithGlobalNormalization", BatchNormGlobalGrad);
}

}  // namespace gradients
}  // namespace opgen

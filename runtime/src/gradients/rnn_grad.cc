// Gradients of the fused RNN ops and of TensorFlow 1's batch norm, with TensorFlow's
// registrations (its rnn_grad.py and nn_grad.py): BlockLSTM through BlockLSTMGrad, and
// BlockLSTMV2 through BlockLSTMGrad too, as TensorFlow registers it (its gate blocks are
// read in BlockLSTM's order there: docs/conformance.md); BatchNormWithGlobalNormalization
// through its gradient op. TensorFlow registers none for the single-step cells
// (LSTMBlockCell, GRUBlockCell) or for the gradient ops, and neither does opgen.
#include "builtin_gradients.h"
#include "grad_builder.h"

#include <vector>

namespace opgen {
namespace gradients {
namespace {

// BlockLSTM(seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b): the gradients of its cs
// and h outputs only (the gates are intermediate values); none to seq_len_max.
void BlockLstmGrad(GradBuilder& b) {
  std::vector<In> in;  // the op's inputs and outputs, then cs's and h's gradients
  for (int i = 0; i < 9; ++i) in.emplace_back(b.input(i));
  for (int i = 0; i < 7; ++i) in.emplace_back(b.output(i));
  in.emplace_back(b.grad(1));
  in.emplace_back(b.grad(6));
  TF_Operation* g = b.Node("BlockLSTMGrad", in, b.CopyAttrs({"use_peephole"}));
  if (g == nullptr) return;
  for (int i = 1; i < 9; ++i)
    if (b.needs(i)) b.Set(i, TF_Output{g, i - 1});
}

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
  RegisterGrad("BlockLSTMV2", BlockLstmGrad);
  RegisterGrad("BatchNormWithGlobalNormalization", BatchNormGlobalGrad);
}

}  // namespace gradients
}  // namespace opgen

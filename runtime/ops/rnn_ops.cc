// The fused RNN cells of TensorFlow 1's contrib.rnn (LSTMBlockCell, BlockLSTM, BlockLSTMV2,
// GRUBlockCell) and their gradient ops, kept for frozen graphs that hold them. OpDefs as
// TensorFlow 2.21's; shape functions here.
#include <string>

#include "op_table.h"
#include "shape_fn_context.h"
#include "shape_fns.h"

namespace opgen {
namespace {

// A cell: x [batch, input] and a state [batch, cell] give [batch, cell] outputs.
void CellShape(ShapeFnContext& c, const char* state, int outputs) {
  const PartialShape x = c.InputWithRank(0, 2, "x");
  const PartialShape s = c.InputWithRank(1, 2, state);
  for (int i = 0; i < outputs; ++i) c.SetOutput(i, PartialShape::Of({x.dims[0], s.dims[1]}));
}
void LstmCellShape(ShapeFnContext& c) { CellShape(c, "cs_prev", 7); }
void GruCellShape(ShapeFnContext& c) { CellShape(c, "h_prev", 4); }

// LSTMBlockCellGrad: cs_prev_grad [batch, cell], dicfo [batch, 4 * cell], three [cell].
void LstmCellGradShape(ShapeFnContext& c) {
  const PartialShape x = c.InputWithRank(0, 2, "x");
  const int64_t cell = c.InputWithRank(1, 2, "cs_prev").dims[1];
  c.SetOutput(0, PartialShape::Of({x.dims[0], cell}));
  c.SetOutput(1, PartialShape::Of({x.dims[0], cell < 0 ? kUnknownDim : 4 * cell}));
  for (int i = 2; i < 5; ++i) c.SetOutput(i, PartialShape::Of({cell}));
}

// GRUBlockCellGrad: d_x as x, d_h_prev and d_c_bar [batch, cell], d_r_bar_u_bar
// [batch, 2 * cell].
void GruCellGradShape(ShapeFnContext& c) {
  const PartialShape x = c.InputWithRank(0, 2, "x");
  const int64_t cell = c.InputWithRank(1, 2, "h_prev").dims[1];
  int64_t twice = c.InputWithRank(2, 2, "w_ru").dims[1];
  twice = MergeDim(twice, cell < 0 ? kUnknownDim : 2 * cell, "w_ru's columns against 2 * cell_size");
  c.SetOutput(0, x);
  c.SetOutput(1, PartialShape::Of({x.dims[0], cell}));
  c.SetOutput(2, PartialShape::Of({x.dims[0], cell}));
  c.SetOutput(3, PartialShape::Of({x.dims[0], twice}));
}

// BlockLSTM(V2): x [time, batch, input], b [4 * cell]; seven [time, batch, cell] outputs.
void BlockLstmShape(ShapeFnContext& c) {
  const PartialShape x = c.InputWithRank(1, 3, "x");
  const int64_t b = c.InputWithRank(8, 1, "b").dims[0];
  if (b >= 0 && b % 4 != 0) Fail("b's length " + std::to_string(b) + " is not divisible by 4");
  for (int i = 0; i < 7; ++i)
    c.SetOutput(i, PartialShape::Of({x.dims[0], x.dims[1], b < 0 ? kUnknownDim : b / 4}));
}

// BlockLSTMGrad(V2): each gradient shaped as its input (x, cs_prev, h_prev, w, wci, wcf,
// wco, b).
void BlockLstmGradShape(ShapeFnContext& c) {
  static const char* const kNames[] = {"x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"};
  static const int64_t kRanks[] = {3, 2, 2, 2, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) c.SetOutput(i, c.InputWithRank(i + 1, kRanks[i], kNames[i]));
}

// One description per argument and attr name, for every op of the file.
const std::vector<std::pair<std::string, std::string>>& Docs() {
  static const std::vector<std::pair<std::string, std::string>> docs{
      {"seq_len_max", "How many time steps to run (the rest give zeros)."},
      {"x", "The input: [batch, input_size] for a cell, [time, batch, input_size] for BlockLSTM."},
      {"cs_prev", "The cell state before the first step, [batch, cell_size]."},
      {"h_prev", "The output (state) before the first step, [batch, cell_size]."},
      {"w", "The weights, [input_size + cell_size, 4 * cell_size]."},
      {"wci", "The input gate's peephole weights, [cell_size]."},
      {"wcf", "The forget gate's peephole weights, [cell_size]."},
      {"wco", "The output gate's peephole weights, [cell_size]."},
      {"b", "The bias, [4 * cell_size]."},
      {"i", "The input gate."}, {"cs", "The cell state (before tanh)."}, {"f", "The forget gate."},
      {"o", "The output gate."}, {"ci", "The cell input (after tanh)."}, {"co", "tanh(cs)."},
      {"h", "The output."},
      {"cs_grad", "The gradient with respect to cs."}, {"h_grad", "The gradient with respect to h."},
      {"cs_prev_grad", "The gradient with respect to cs_prev."},
      {"h_prev_grad", "The gradient with respect to h_prev."},
      {"x_grad", "The gradient with respect to x."}, {"w_grad", "The gradient with respect to w."},
      {"b_grad", "The gradient with respect to b."},
      {"dicfo", "The gradient with respect to the gates' pre-activations, [batch, 4 * cell_size]."},
      {"wci_grad", "The gradient with respect to wci."}, {"wcf_grad", "The gradient with respect to wcf."},
      {"wco_grad", "The gradient with respect to wco."},
      {"forget_bias", "Added to the forget gate's pre-activation."},
      {"cell_clip", "Bound of the cell state's magnitude; none when not positive."},
      {"use_peephole", "Whether the gates see the cell state through wci, wcf and wco."},
      {"w_ru", "The reset and update gates' weights, [input_size + cell_size, 2 * cell_size]."},
      {"w_c", "The candidate's weights, [input_size + cell_size, cell_size]."},
      {"b_ru", "The gates' bias, [2 * cell_size]."}, {"b_c", "The candidate's bias, [cell_size]."},
      {"r", "The reset gate."}, {"u", "The update gate."}, {"c", "The candidate state."},
      {"d_h", "The gradient with respect to h."}, {"d_x", "The gradient with respect to x."},
      {"d_h_prev", "The gradient with respect to h_prev."},
      {"d_c_bar", "The gradient with respect to c's pre-activation."},
      {"d_r_bar_u_bar", "The gradient with respect to r's and u's pre-activations."}};
  return docs;
}

// `op` with Docs()'s descriptions of its arguments and attrs.
OpRegistration Documented(OpRegistration op) {
  for (const auto* specs : {&op.attrs, &op.inputs, &op.outputs})
    for (const std::string& spec : *specs) {
      const std::string name = spec.substr(0, spec.find(':'));
      for (const auto& [doc_name, doc] : Docs())
        if (doc_name == name) op.arg_docs.emplace_back(name, doc);
    }
  return op;
}

}  // namespace

void RegisterRnnOps(TF_Status* status) {
  const std::string kT = "T: {half, float}";
  const std::vector<std::string> lstm{"forget_bias: float = 1", "cell_clip: float = 3",
                                      "use_peephole: bool = false", kT};
  const std::vector<std::string> lstm_v2{"cell_clip: float = 0", "use_peephole: bool = false", kT};
  const std::vector<std::string> grad_attrs{"use_peephole: bool", kT};
  const std::vector<std::string> weights{"w: T", "wci: T", "wcf: T", "wco: T", "b: T"};
  const std::vector<std::string> gates{"i: T", "cs: T", "f: T", "o: T", "ci: T", "co: T", "h: T"};
  const std::vector<std::string> gates_in(gates.begin(), gates.end() - 1);  // all but h
  auto cat = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const std::vector<std::string> cell_in = cat({"x: T", "cs_prev: T", "h_prev: T"}, weights);
  const std::vector<std::string> block_in =
      cat({"seq_len_max: int64", "x: T", "cs_prev: T", "h_prev: T"}, weights);
  const std::vector<std::string> block_grad_out{
      "x_grad: T", "cs_prev_grad: T", "h_prev_grad: T", "w_grad: T",
      "wci_grad: T", "wcf_grad: T", "wco_grad: T", "b_grad: T"};
  const char* const kCell =
      "gates = [x, h_prev] @ w + b, split into input i, cell input ci, forget f and output o "
      "blocks; i = sigmoid(i + cs_prev * wci), f = sigmoid(f + forget_bias + cs_prev * wcf) "
      "(the peephole terms with use_peephole only), ci = tanh(ci), cs = ci * i + cs_prev * f "
      "clipped to [-cell_clip, cell_clip] when cell_clip > 0, o = sigmoid(o + cs * wco), "
      "co = tanh(cs), h = co * o.";
  RegisterOps({
      Documented({"LSTMBlockCell", lstm, cell_in, gates, ShapeFn<LstmCellShape>,
                  "One step of an LSTM cell (gate blocks in i, ci, f, o order).", kCell}),
      Documented({"LSTMBlockCellGrad", grad_attrs, cat(cell_in, cat(gates_in, {"cs_grad: T", "h_grad: T"})),
                  {"cs_prev_grad: T", "dicfo: T", "wci_grad: T", "wcf_grad: T", "wco_grad: T"},
                  ShapeFn<LstmCellGradShape>, "The gradient of LSTMBlockCell for one step.",
                  "From the forward step's inputs and outputs and the gradients of cs and h; "
                  "dicfo's blocks are in LSTMBlockCell's gate order."}),
      Documented({"BlockLSTM", lstm, block_in, gates, ShapeFn<BlockLstmShape>,
                  "LSTMBlockCell over the time steps of x (gate blocks in i, ci, f, o order).",
                  "Steps from seq_len_max on give zeros."}),
      Documented({"BlockLSTMV2", lstm_v2, block_in, gates, ShapeFn<BlockLstmShape>,
                  "BlockLSTM with gate blocks in i, f, ci, o order and no forget bias.",
                  "Steps from seq_len_max on give zeros."}),
      Documented({"BlockLSTMGrad", grad_attrs, cat(block_in, cat(gates, {"cs_grad: T", "h_grad: T"})),
                  block_grad_out, ShapeFn<BlockLstmGradShape>, "The gradient of BlockLSTM.",
                  "Back through the time steps below seq_len_max."}),
      Documented({"BlockLSTMGradV2", grad_attrs, cat(block_in, cat(gates, {"cs_grad: T", "h_grad: T"})),
                  block_grad_out, ShapeFn<BlockLstmGradShape>, "The gradient of BlockLSTMV2.",
                  "Back through the time steps below seq_len_max."}),
      Documented({"GRUBlockCell", {"T: {float}"},
                  {"x: T", "h_prev: T", "w_ru: T", "w_c: T", "b_ru: T", "b_c: T"},
                  {"r: T", "u: T", "c: T", "h: T"}, ShapeFn<GruCellShape>, "One step of a GRU cell.",
                  "[r, u] = sigmoid([x, h_prev] @ w_ru + b_ru), c = tanh([x, h_prev * r] @ w_c + b_c), "
                  "h = u * h_prev + (1 - u) * c."}),
      Documented({"GRUBlockCellGrad", {"T: {float}"},
                  {"x: T", "h_prev: T", "w_ru: T", "w_c: T", "b_ru: T", "b_c: T", "r: T", "u: T", "c: T",
                   "d_h: T"},
                  {"d_x: T", "d_h_prev: T", "d_c_bar: T", "d_r_bar_u_bar: T"}, ShapeFn<GruCellGradShape>,
                  "The gradient of GRUBlockCell.",
                  "d_c_bar and d_r_bar_u_bar are the gradients of the pre-activations, from which the "
                  "weight and bias gradients follow."}),
  }, status);
}

}  // namespace opgen

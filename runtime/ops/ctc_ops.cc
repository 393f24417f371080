// The connectionist temporal classification (CTC) ops of speech and OCR models: CTCLoss
// (tf.nn.ctc_loss on the CPU, Keras' ctc_batch_cost), the greedy and beam-search decoders
// (tf.nn.ctc_*_decoder, Keras' ctc_decode), CTCLossV2 (TensorFlow's cuDNN loss: its OpDef
// is in every build, its kernel only in GPU ones) and EditDistance (tf.edit_distance, the
// label error rate). OpDefs as TensorFlow 2.21's; shape functions here.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// inputs [max_time, batch, classes], sequence_length [batch]: the merged batch size.
int64_t CtcBatch(ShapeFnContext& c, PartialShape* inputs) {
  *inputs = c.InputWithRank(0, 3, "inputs");
  const PartialShape seq = c.InputWithRank(1, 1, "sequence_length");
  return MergeDim(inputs->dims[1], seq.dims[0], "inputs' batch and sequence_length");
}

// loss [batch] and gradient shaped as inputs (with the merged batch).
void CtcLossShape(ShapeFnContext& c) {
  PartialShape inputs = c.InputWithRank(0, 3, "inputs");
  const PartialShape indices = c.InputWithRank(1, 2, "labels_indices");
  const PartialShape values = c.InputWithRank(2, 1, "labels_values");
  const PartialShape seq = c.InputWithRank(3, 1, "sequence_length");
  MergeDim(indices.dims[0], values.dims[0], "labels_indices' rows and labels_values");
  inputs.dims[1] = MergeDim(inputs.dims[1], seq.dims[0], "inputs' batch and sequence_length");
  c.SetOutput(0, PartialShape::Of({inputs.dims[1]}));
  c.SetOutput(1, inputs);
}

// Each path a SparseTensor of unknown size ([n, 2], [n], [2]); log_probability
// [batch, paths].
void CtcDecoderShape(ShapeFnContext& c, int64_t paths) {
  PartialShape inputs;
  const int64_t batch = CtcBatch(c, &inputs);
  for (int64_t p = 0; p < paths; ++p) {
    c.SetOutput(static_cast<int>(p), PartialShape::Of({kUnknownDim, 2}));
    c.SetOutput(static_cast<int>(paths + p), PartialShape::Of({kUnknownDim}));
    c.SetOutput(static_cast<int>(2 * paths + p), PartialShape::Of({2}));
  }
  c.SetOutput(static_cast<int>(3 * paths), PartialShape::Of({batch, paths}));
}
void CtcGreedyShape(ShapeFnContext& c) { CtcDecoderShape(c, 1); }
void CtcBeamShape(ShapeFnContext& c) { CtcDecoderShape(c, c.AttrInt("top_paths")); }

// Checks one SparseTensor's (indices, values, shape) at inputs i..i+2.
void SparseParts(ShapeFnContext& c, int i) {
  const PartialShape indices = c.InputWithRank(i, 2, "indices");
  const PartialShape values = c.InputWithRank(i + 1, 1, "values");
  const PartialShape shape = c.InputWithRank(i + 2, 1, "shape");
  MergeDim(indices.dims[0], values.dims[0], "the number of indices and values");
  MergeDim(indices.dims[1], shape.dims[0], "the index rank and the shape's length");
}

// The larger of the two dense shapes without the last dimension, when both are known.
void EditDistanceShape(ShapeFnContext& c) {
  SparseParts(c, 0);
  SparseParts(c, 3);
  const std::optional<std::vector<int64_t>> h = c.InputInts(2), t = c.InputInts(5);
  if (!h || !t) return c.SetOutput(0, PartialShape::Unknown());
  if (h->size() != t->size())
    Fail("Num elements of hypothesis_shape does not match truth_shape: " +
         std::to_string(h->size()) + " vs. " + std::to_string(t->size()));
  if (h->empty()) Fail("Shape must have at least one dimension");
  std::vector<int64_t> dims;
  for (size_t d = 0; d + 1 < h->size(); ++d) dims.push_back(std::max((*h)[d], (*t)[d]));
  c.SetOutput(0, PartialShape::Of(dims));
}

const std::vector<std::string> kLossAttrs{
    "preprocess_collapse_repeated: bool = false", "ctc_merge_repeated: bool = true",
    "ignore_longer_outputs_than_inputs: bool = false"};
const std::vector<std::pair<std::string, std::string>> kLossDocs{
    {"inputs", "Logits, time-major: [max_time, batch_size, num_classes]; the last class is the blank."},
    {"labels_indices", "The labels' SparseTensor indices [n, 2]: (batch, position), in row-major order."},
    {"labels_values", "The labels, each in [0, num_classes - 1)."},
    {"sequence_length", "[batch_size]: how many time steps of each sequence count."},
    {"loss", "[batch_size]: the negative log-probability of each label sequence."},
    {"gradient", "The gradient of loss with respect to inputs, shaped as inputs."},
    {"preprocess_collapse_repeated", "Merge repeated labels before computing the loss."},
    {"ctc_merge_repeated", "Whether a label repeated on consecutive steps without a blank between counts once."},
    {"ignore_longer_outputs_than_inputs",
     "Give label sequences longer than their input a zero loss and gradient instead of failing."}};
constexpr char kLossDescription[] =
    "Softmax over the classes at each step, then the forward-backward sums over every "
    "alignment of the labels (with blanks) to the steps; steps past a sequence's length "
    "get a zero gradient.";

std::vector<std::pair<std::string, std::string>> DecoderDocs(const char* paths) {
  return {{"inputs", "Logits, time-major: [max_time, batch_size, num_classes]."},
          {"sequence_length", "[batch_size]: how many steps of each sequence to decode."},
          {"decoded_indices", std::string("The decoded SparseTensors' indices [n, 2] (") + paths + ")."},
          {"decoded_values", std::string("The decoded classes [n] (") + paths + ")."},
          {"decoded_shape", std::string("The decoded SparseTensors' shapes [batch_size, longest] (") + paths + ")."}};
}

}  // namespace

void RegisterCtcOps(TF_Status* status) {
  std::vector<std::pair<std::string, std::string>> greedy_docs = DecoderDocs("one path");
  greedy_docs.insert(greedy_docs.end(),
      {{"log_probability", "[batch_size, 1]: minus the sum of each step's largest logit."},
       {"merge_repeated", "Emit a class repeated on consecutive steps once."},
       {"blank_index", "The blank class; negative counts from num_classes."}});
  std::vector<std::pair<std::string, std::string>> beam_docs = DecoderDocs("one per path");
  beam_docs.insert(beam_docs.end(),
      {{"log_probability", "[batch_size, top_paths]: each path's log-probability."},
       {"beam_width", "How many prefixes the search keeps at each step."},
       {"top_paths", "How many of the best paths to return (at most beam_width)."},
       {"merge_repeated", "Emit a class repeated in a path once."}});
  std::vector<std::string> loss_attrs = kLossAttrs;
  loss_attrs.push_back("T: {float, double} = DT_FLOAT");
  RegisterOps({
      {"CTCLoss", loss_attrs,
       {"inputs: T", "labels_indices: int64", "labels_values: int32", "sequence_length: int32"},
       {"loss: T", "gradient: T"}, ShapeFn<CtcLossShape>,
       "The CTC loss of each batch entry, and its gradient.", kLossDescription, kLossDocs},
      {"CTCLossV2", kLossAttrs,
       {"inputs: float", "labels_indices: int64", "labels_values: int32", "sequence_length: int32"},
       {"loss: float", "gradient: float"}, ShapeFn<CtcLossShape>,
       "CTCLoss as cuDNN computes it (blank is class 0).",
       "TensorFlow registers kernels for it in GPU builds only; opgen has none.", kLossDocs},
      {"CTCGreedyDecoder",
       {"merge_repeated: bool = false", "blank_index: int = -1", "T: {float, double} = DT_FLOAT"},
       {"inputs: T", "sequence_length: int32"},
       {"decoded_indices: int64", "decoded_values: int64", "decoded_shape: int64",
        "log_probability: T"},
       ShapeFn<CtcGreedyShape>, "Best-path decoding: the largest class at each step.",
       "Blanks are dropped; with merge_repeated, so are repeats of the previous step's class.",
       greedy_docs},
      {"CTCBeamSearchDecoder",
       {"beam_width: int >= 1", "top_paths: int >= 1", "merge_repeated: bool = true",
        "T: {float, double} = DT_FLOAT"},
       {"inputs: T", "sequence_length: int32"},
       {"decoded_indices: top_paths * int64", "decoded_values: top_paths * int64",
        "decoded_shape: top_paths * int64", "log_probability: T"},
       ShapeFn<CtcBeamShape>, "Prefix beam search over the CTC paths; the last class is the blank.",
       "Keeps the beam_width most probable label prefixes at each step and returns the "
       "top_paths best.",
       beam_docs},
      {"EditDistance", {"normalize: bool = true", "T: type"},
       {"hypothesis_indices: int64", "hypothesis_values: T", "hypothesis_shape: int64",
        "truth_indices: int64", "truth_values: T", "truth_shape: int64"},
       {"output: float"}, ShapeFn<EditDistanceShape>,
       "The Levenshtein distance between sequences of two SparseTensors.",
       "The last dimension holds the sequences; the others say which sequences pair up.",
       {{"hypothesis_indices", "The hypothesis SparseTensor's indices [n, rank], row-major."},
        {"hypothesis_values", "Its values [n]."},
        {"hypothesis_shape", "Its dense shape [rank]."},
        {"truth_indices", "The truth SparseTensor's indices [m, rank], row-major."},
        {"truth_values", "Its values [m]."},
        {"truth_shape", "Its dense shape [rank]."},
        {"output", "The distances, [rank - 1] dims (the larger of the two shapes)."},
        {"normalize", "Divide each distance by the truth's length."}}},
  }, status);
}

}  // namespace opgen

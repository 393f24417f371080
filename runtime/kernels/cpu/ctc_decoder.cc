// CTCGreedyDecoder and CTCBeamSearchDecoder on the CPU (TensorFlow registers only CPU
// kernels for them). Greedy: the largest logit of each step, blanks dropped (and repeats
// with merge_repeated); its log_probability is minus the sum of those logits, as
// TensorFlow's. Beam search: prefix beam search over label sequences (blank = the last
// class), keeping the beam_width most probable prefixes, pruning as TensorFlow's decoder
// does so that ties aside the same paths come out.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ctc_util.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

struct DecoderAttrs {
  bool merge_repeated = false;
  int64_t blank_index = -1, beam_width = 1, top_paths = 1;
};

void* CreateDecoder(TF_OpKernelConstruction* ctx, bool beam) {
  auto* a = new DecoderAttrs();
  StatusPtr s = NewStatus();
  a->merge_repeated = kernels::BoolAttr(ctx, "merge_repeated", s.get());
  if (beam) {
    if (TF_GetCode(s.get()) == TF_OK)
      TF_OpKernelConstruction_GetAttrInt64(ctx, "beam_width", &a->beam_width, s.get());
    if (TF_GetCode(s.get()) == TF_OK)
      TF_OpKernelConstruction_GetAttrInt64(ctx, "top_paths", &a->top_paths, s.get());
  } else if (TF_GetCode(s.get()) == TF_OK) {
    TF_OpKernelConstruction_GetAttrInt64(ctx, "blank_index", &a->blank_index, s.get());
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
void* CreateGreedy(TF_OpKernelConstruction* ctx) { return CreateDecoder(ctx, false); }
void* CreateBeam(TF_OpKernelConstruction* ctx) { return CreateDecoder(ctx, true); }
void DeleteDecoder(void* p) { delete static_cast<DecoderAttrs*>(p); }

template <typename T>
void GreedyCompute(void* state, TF_OpKernelContext* ctx) {
  const DecoderAttrs& a = *static_cast<DecoderAttrs*>(state);
  TensorPtr inputs = Input(ctx, 0), seq = Input(ctx, 1);
  if (!inputs || !seq || !ctc::CheckDecoderInputs(ctx, inputs.get(), seq.get())) return;
  const int64_t batch = TF_Dim(inputs.get(), 1), classes = TF_Dim(inputs.get(), 2);
  const int64_t blank = a.blank_index < 0 ? classes + a.blank_index : a.blank_index;
  if (blank < 0 || blank >= classes)
    return Fail(ctx, TF_INVALID_ARGUMENT, "blank_index expected to be between " +
                std::to_string(-classes) + " and " + std::to_string(classes - 1) +
                " but was " + std::to_string(a.blank_index));
  TensorPtr log_prob = AllocateOutput<T>(ctx, 3, {batch, 1});
  if (!log_prob) return;
  const T* x = Data<T>(inputs);
  const int32_t* len = Data<int32_t>(seq.get());
  std::vector<std::vector<int>> seqs(batch);
  for (int64_t b = 0; b < batch; ++b) {
    T sum = 0;
    int64_t prev = -1;
    for (int64_t t = 0; t < len[b]; ++t) {
      const T* row = x + (t * batch + b) * classes;
      int64_t best = 0;  // the first largest; NaN never wins a comparison
      for (int64_t c = 1; c < classes; ++c)
        if (row[c] > row[best]) best = c;
      sum += -row[best];
      if (best != blank && !(a.merge_repeated && best == prev)) seqs[b].push_back(static_cast<int>(best));
      prev = best;
    }
    Data<T>(log_prob)[b] = sum;
  }
  ctc::StorePath(ctx, 0, 1, seqs);
}

// Log-probabilities of a prefix: ending in a blank, ending in its last label, and both.
template <typename T>
struct Probs {
  T blank = -std::numeric_limits<T>::infinity(), label = blank, total = blank;
  void Reset() { blank = label = total = -std::numeric_limits<T>::infinity(); }
};

template <typename T>
T LogSumExp(T a, T b) {
  const T zero = -std::numeric_limits<T>::infinity();
  if (a == zero) return b;
  if (b == zero) return a;
  // the correction term in float, whatever T is, as TensorFlow's
  return a > b ? a + T(std::log1p(std::exp(static_cast<float>(b - a))))
               : b + T(std::log1p(std::exp(static_cast<float>(a - b))));
}

// A node of the prefix tree: its last label, parent, children (made on first use).
template <typename T>
struct Beam {
  Beam* parent = nullptr;
  int label = -1;
  Probs<T> oldp, newp;
  std::vector<std::unique_ptr<Beam>> children;
  bool Active() const { return newp.total != -std::numeric_limits<T>::infinity(); }
  Beam& Child(int c, int classes) {
    if (children.empty()) children.resize(classes);
    if (!children[c]) {
      children[c] = std::make_unique<Beam>();
      children[c]->parent = this;
      children[c]->label = c;
    }
    return *children[c];
  }
  std::vector<int> Labels(bool merge) const {
    std::vector<int> out;
    int prev = -1;
    for (const Beam* e = this; e->parent; e = e->parent) {
      if (!merge || e->label != prev) out.push_back(e->label);
      prev = e->label;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }
};

// The leaves: at most `width` beams, the most probable (newp.total) kept.
template <typename T>
struct Leaves {
  size_t width;
  std::vector<Beam<T>*> v;
  static bool Better(const Beam<T>* a, const Beam<T>* b) { return a->newp.total > b->newp.total; }
  Beam<T>* Bottom() const { return *std::max_element(v.begin(), v.end(), Better); }
  void Push(Beam<T>* e) {
    if (v.size() < width) return v.push_back(e);
    auto worst = std::max_element(v.begin(), v.end(), Better);
    if (Better(e, *worst)) *worst = e;
  }
  std::vector<Beam<T>*> Sorted() const {
    std::vector<Beam<T>*> s = v;
    std::stable_sort(s.begin(), s.end(), Better);
    return s;
  }
};

// One step of the search over the logits `x` of `classes` classes.
template <typename T>
void Step(Leaves<T>& leaves, const T* x, int classes) {
  const T zero = -std::numeric_limits<T>::infinity();
  const int blank = classes - 1;
  std::vector<T> in(x, x + classes);
  const T mx = *std::max_element(in.begin(), in.end());
  T sum = 0;
  for (T& v : in) sum += std::exp(v -= mx);
  const T norm = std::log(sum);
  std::vector<Beam<T>*> branches = leaves.Sorted();
  leaves.v.clear();
  for (Beam<T>* b : branches) b->oldp = b->newp;
  for (Beam<T>* b : branches) {
    if (b->parent) {
      if (b->parent->Active()) {
        const T previous = b->label == b->parent->label ? b->parent->oldp.blank : b->parent->oldp.total;
        b->newp.label = LogSumExp(b->newp.label, previous);
      }
      b->newp.label += in[b->label] - norm;
    }
    b->newp.blank = b->oldp.total + in[blank] - norm;
    b->newp.total = LogSumExp(b->newp.blank, b->newp.label);
    leaves.Push(b);
  }
  auto candidate = [&](const Probs<T>& p) {
    return p.total > zero &&
           (leaves.v.size() < leaves.width || p.total > leaves.Bottom()->newp.total);
  };
  for (Beam<T>* b : branches) {
    if (!candidate(b->oldp)) continue;
    for (int c = 0; c < classes; ++c) {
      if (c == blank) continue;
      Beam<T>& child = b->Child(c, classes);
      if (child.Active()) continue;
      child.newp.blank = zero;
      const T previous = c == b->label ? b->oldp.blank : b->oldp.total;
      child.newp.label = in[c] - norm + previous;
      child.newp.total = child.newp.label;
      if (candidate(child.newp)) {
        // The beam is full: its least probable leaf leaves the search.
        if (leaves.v.size() == leaves.width) leaves.Bottom()->newp.Reset();
        leaves.Push(&child);
      } else {
        child.oldp.Reset();
        child.newp.Reset();
      }
    }
  }
}

template <typename T>
void BeamCompute(void* state, TF_OpKernelContext* ctx) {
  const DecoderAttrs& a = *static_cast<DecoderAttrs*>(state);
  TensorPtr inputs = Input(ctx, 0), seq = Input(ctx, 1);
  if (!inputs || !seq || !ctc::CheckDecoderInputs(ctx, inputs.get(), seq.get())) return;
  const int64_t batch = TF_Dim(inputs.get(), 1), classes = TF_Dim(inputs.get(), 2);
  if (a.top_paths > a.beam_width)
    return Fail(ctx, TF_INVALID_ARGUMENT, "requested more paths than the beam width.");
  const int paths = static_cast<int>(a.top_paths);
  TensorPtr log_prob = AllocateOutput<T>(ctx, 3 * paths, {batch, a.top_paths});
  if (!log_prob) return;
  const T* x = Data<T>(inputs);
  const int32_t* len = Data<int32_t>(seq.get());
  std::vector<std::vector<std::vector<int>>> best(paths, std::vector<std::vector<int>>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    Beam<T> root;
    root.newp.total = root.newp.blank = 0;
    Leaves<T> leaves{static_cast<size_t>(a.beam_width), {&root}};
    for (int64_t t = 0; t < len[b]; ++t)
      Step(leaves, x + (t * batch + b) * classes, static_cast<int>(classes));
    if (static_cast<size_t>(a.top_paths) > leaves.v.size())
      return Fail(ctx, TF_INVALID_ARGUMENT, "Less leaves in the beam search than requested.");
    const std::vector<Beam<T>*> top = leaves.Sorted();
    for (int p = 0; p < paths; ++p) {
      best[p][b] = top[p]->Labels(a.merge_repeated);
      Data<T>(log_prob)[b * paths + p] = top[p]->newp.total;
    }
  }
  for (int p = 0; p < paths; ++p) ctc::StorePath(ctx, p, paths, best[p]);
}

}  // namespace

void RegisterCtcDecoderKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"CTCGreedyDecoder", {{"T", TF_FLOAT}}, {}, GreedyCompute<float>,
                           CreateGreedy, DeleteDecoder}, status);
  RegisterKernel(kDevice, {"CTCGreedyDecoder", {{"T", TF_DOUBLE}}, {}, GreedyCompute<double>,
                           CreateGreedy, DeleteDecoder}, status);
  RegisterKernel(kDevice, {"CTCBeamSearchDecoder", {{"T", TF_FLOAT}}, {}, BeamCompute<float>,
                           CreateBeam, DeleteDecoder}, status);
  RegisterKernel(kDevice, {"CTCBeamSearchDecoder", {{"T", TF_DOUBLE}}, {}, BeamCompute<double>,
                           CreateBeam, DeleteDecoder}, status);
}

}  // namespace cpu
}  // namespace opgen

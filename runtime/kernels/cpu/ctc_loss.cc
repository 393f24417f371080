// CTCLoss on the CPU (TensorFlow registers only CPU kernels for it): per batch entry, the
// softmax of the logits over the classes, the forward (alpha) and backward (beta) sums
// in log space over the labels interleaved with blanks (Graves' thesis, ch. 7), the loss
// -log p(labels | x) and its gradient with respect to the logits. Computed in T with
// TensorFlow's float steps (log-sum-exp corrections, the gradient's exponential), so
// float and double results round as TensorFlow's do.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ctc_util.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

struct CtcLossAttrs {
  bool collapse = false, merge = true, ignore_longer = false;
};

void* CreateCtcLoss(TF_OpKernelConstruction* ctx) {
  auto* a = new CtcLossAttrs();
  StatusPtr s = NewStatus();
  a->collapse = kernels::BoolAttr(ctx, "preprocess_collapse_repeated", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->merge = kernels::BoolAttr(ctx, "ctc_merge_repeated", s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    a->ignore_longer = kernels::BoolAttr(ctx, "ignore_longer_outputs_than_inputs", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
void DeleteCtcLoss(void* p) { delete static_cast<CtcLossAttrs*>(p); }

template <typename T>
T LogSumExp(T a, T b) {
  const T zero = -std::numeric_limits<T>::infinity();
  if (a == zero) return b;
  if (b == zero) return a;
  // the correction term in float, whatever T is, as TensorFlow's
  return a > b ? a + T(std::log1p(std::exp(static_cast<float>(b - a))))
               : b + T(std::log1p(std::exp(static_cast<float>(a - b))));
}

std::string Join(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// The labels of entry b with a blank before each and one at the end (l'), after TF's
// checks; an empty string when they pass.
std::string LPrime(const std::vector<int>& label, int64_t b, int num_classes, int64_t seq_len,
                   const CtcLossAttrs& a, std::vector<int>* l_prime) {
  const std::string batch = std::to_string(b);
  if (label.empty()) return "Labels length is zero in batch " + batch;
  std::vector<int> l;
  bool finished = false;
  for (size_t i = 0; i < label.size(); ++i) {
    if (i > 0 && a.collapse && label[i] == label[i - 1]) continue;
    if (label[i] >= num_classes - 1) {
      finished = true;
    } else {
      if (finished)
        return "Saw a non-null label (index >= num_classes - 1) following a null label, "
               "batch: " + batch + " num_classes: " + std::to_string(num_classes) +
               " labels: " + Join(label) + " labels seen so far: " + Join(l);
      l.push_back(label[i]);
    }
  }
  for (int v : l) {
    if (v < 0)
      return "All labels must be nonnegative integers, batch: " + batch + " labels: " + Join(l);
  }
  if (!a.ignore_longer && static_cast<int64_t>(label.size()) > seq_len)
    return "Not enough time for target transition sequence (required: " +
           std::to_string(label.size()) + ", available: " + std::to_string(seq_len) + ")" +
           batch + "You can turn this error into a warning by using the flag "
                   "ignore_longer_outputs_than_inputs";
  const int blank = num_classes - 1;
  l_prime->assign(2 * l.size() + 1, blank);
  for (size_t i = 0; i < l.size(); ++i) (*l_prime)[2 * i + 1] = l[i];
  return "";
}

// One entry: y [steps, classes] softmax; writes the loss and dy (the gradient rows).
template <typename T>
void EntryLoss(const std::vector<int>& lp, const T* x, int64_t stride, int64_t steps,
               int64_t classes, bool merge, T* loss, T* dy) {
  const T zero = -std::numeric_limits<T>::infinity();
  const int blank = static_cast<int>(classes - 1);
  const int64_t U = static_cast<int64_t>(lp.size());
  std::vector<T> y(steps * classes);
  for (int64_t t = 0; t < steps; ++t) {
    const T* row = x + t * stride;
    const T mx = *std::max_element(row, row + classes);
    T sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += y[t * classes + c] = std::exp(row[c] - mx);
    for (int64_t c = 0; c < classes; ++c) y[t * classes + c] /= sum;
  }
  auto logy = [&](int64_t t, int c) { return std::log(y[t * classes + c]); };
  std::vector<T> alpha(U * steps, zero), beta(U * steps, zero);
  auto A = [&](int64_t u, int64_t t) -> T& { return alpha[u * steps + t]; };
  auto Bt = [&](int64_t u, int64_t t) -> T& { return beta[u * steps + t]; };
  A(0, 0) = logy(0, blank);
  if (U > 1) A(1, 0) = logy(0, lp[1]);
  for (int64_t t = 1; t < steps; ++t) {
    for (int64_t u = std::max<int64_t>(0, U - 2 * (steps - t)); u < std::min(U, 2 * (t + 1)); ++u) {
      T sum = zero;
      if (merge || lp[u] == blank) sum = A(u, t - 1);
      if (u > 0) sum = LogSumExp(sum, A(u - 1, t - 1));
      if (u > 1 && lp[u] != blank && !(merge && lp[u] == lp[u - 2]))
        sum = LogSumExp(sum, A(u - 2, t - 1));
      A(u, t) = logy(t, lp[u]) + sum;
    }
  }
  for (int64_t u = std::max<int64_t>(0, U - 2); u < U; ++u) Bt(u, steps - 1) = 0;
  // Labels of blanks only (l' = [blank]): TensorFlow's column-major beta matrix then takes
  // the start value meant for row -1 at the last step in row 0 one step earlier; kept so
  // that the loss is TensorFlow's.
  if (U == 1 && steps >= 2) Bt(0, steps - 2) = 0;
  for (int64_t t = steps - 2; t >= 0; --t) {
    for (int64_t u = std::max<int64_t>(0, U - 2 * (steps - t)); u < std::min(U, 2 * (t + 1)); ++u) {
      if (merge || lp[u] == blank) Bt(u, t) = LogSumExp(Bt(u, t), Bt(u, t + 1) + logy(t + 1, lp[u]));
      if (u + 1 < U) Bt(u, t) = LogSumExp(Bt(u, t), Bt(u + 1, t + 1) + logy(t + 1, lp[u + 1]));
      if (u + 2 < U && lp[u + 2] != blank && !(merge && lp[u] == lp[u + 2]))
        Bt(u, t) = LogSumExp(Bt(u, t), Bt(u + 2, t + 1) + logy(t + 1, lp[u + 2]));
    }
  }
  T log_p = zero;
  for (int64_t u = 0; u < U; ++u) log_p = LogSumExp(log_p, A(u, 0) + Bt(u, 0));
  *loss = -log_p;
  // No path at all: TensorFlow's gradient is then the softmax itself.
  std::vector<T> prob_sum(classes);
  for (int64_t t = 0; t < steps; ++t) {
    T* g = dy + t * stride;
    if (log_p == zero) {
      for (int64_t c = 0; c < classes; ++c) g[c] = y[t * classes + c];
      continue;
    }
    std::fill(prob_sum.begin(), prob_sum.end(), zero);
    for (int64_t u = 0; u < U; ++u) prob_sum[lp[u]] = LogSumExp(prob_sum[lp[u]], A(u, t) + Bt(u, t));
    // TensorFlow exponentiates this term in float, whatever T is.
    for (int64_t c = 0; c < classes; ++c)
      g[c] = y[t * classes + c] - T(std::exp(static_cast<float>(prob_sum[c] - log_p)));
  }
}

template <typename T>
void CtcLossCompute(void* state, TF_OpKernelContext* ctx) {
  const CtcLossAttrs& a = *static_cast<CtcLossAttrs*>(state);
  TensorPtr inputs = Input(ctx, 0), indices = Input(ctx, 1), values = Input(ctx, 2), seq = Input(ctx, 3);
  if (!inputs || !indices || !values || !seq) return;
  auto bad = [&](const std::string& m) { Fail(ctx, TF_INVALID_ARGUMENT, m); };
  if (TF_NumDims(inputs.get()) != 3) return bad("inputs is not a 3-Tensor");
  if (TF_NumDims(seq.get()) != 1) return bad("sequence_length is not a vector");
  if (TF_NumDims(indices.get()) != 2) return bad("labels_indices is not a matrix");
  if (TF_Dim(indices.get(), 1) <= 1)
    return bad("labels_indices second dimension must be >= 1. Received " +
               std::to_string(TF_Dim(indices.get(), 1)));
  if (TF_NumDims(values.get()) != 1) return bad("labels_values is not a vector");
  const int64_t max_time = TF_Dim(inputs.get(), 0), batch = TF_Dim(inputs.get(), 1),
                classes = TF_Dim(inputs.get(), 2);
  if (max_time == 0) return bad("Max time or first dimension of input cannot be 0.");
  if (classes > std::numeric_limits<int>::max()) return bad("num_classes cannot exceed max int");
  // TensorFlow reads before its buffers here; opgen refuses.
  if (classes == 0) return bad("num_classes must be at least 1 (the blank)");
  if (batch != TF_Dim(seq.get(), 0))
    return bad("len(sequence_length) != batch_size.  len(sequence_length):  " +
               std::to_string(TF_Dim(seq.get(), 0)) + " batch_size: " + std::to_string(batch));
  if (TF_Dim(indices.get(), 0) != TF_Dim(values.get(), 0))
    return bad("labels_indices and labels_values must contain the same number of rows, but "
               "saw shapes: " + ShapeString(Dims(indices.get())) + " vs. " +
               ShapeString(Dims(values.get())));
  if (batch == 0) return bad("batch_size must not be 0");
  std::vector<std::vector<int>> labels;
  std::string error = ctc::GroupLabels(indices.get(), values.get(), batch, &labels);
  if (!error.empty()) return bad(error);
  const int32_t* len = Data<int32_t>(seq.get());
  for (int64_t b = 0; b < batch; ++b)
    if (len[b] > max_time)
      return bad("sequence_length(" + std::to_string(b) + ") <= " + std::to_string(max_time));
  for (int64_t b = 0; b < batch; ++b) {
    if (len[b] < 0) return bad("seq_len(" + std::to_string(b) + ") < 0");
  }
  std::vector<std::vector<int>> l_primes(batch);
  for (int64_t b = 0; b < batch; ++b) {
    error = LPrime(labels[b], b, static_cast<int>(classes), len[b], a, &l_primes[b]);
    if (!error.empty()) return bad(error);
  }
  TensorPtr loss = AllocateOutput<T>(ctx, 0, {batch});
  TensorPtr grad = AllocateOutput<T>(ctx, 1, Dims(inputs.get()));
  if (!loss || !grad) return;
  T* g = Data<T>(grad);
  std::fill(g, g + NumElements(Dims(inputs.get())), T(0));
  T* l = Data<T>(loss);
  const T* x = Data<T>(inputs);
  const int64_t stride = batch * classes;
  ParallelFor(batch, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      l[b] = 0;
      // Empty sequences and (with the flag) labels longer than the input get no loss.
      if (len[b] == 0 || (a.ignore_longer && static_cast<int64_t>(labels[b].size()) > len[b])) continue;
      EntryLoss<T>(l_primes[b], x + b * classes, stride, len[b], classes, a.merge, &l[b],
                   g + b * classes);
    }
  }, 1);
}

}  // namespace

void RegisterCtcLossKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"CTCLoss", {{"T", TF_FLOAT}}, {}, CtcLossCompute<float>, CreateCtcLoss,
                           DeleteCtcLoss}, status);
  RegisterKernel(kDevice, {"CTCLoss", {{"T", TF_DOUBLE}}, {}, CtcLossCompute<double>, CreateCtcLoss,
                           DeleteCtcLoss}, status);
}

}  // namespace cpu
}  // namespace opgen

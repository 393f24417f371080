// The fused LSTM ops of TensorFlow 1's contrib.rnn on the CPU, half and float (TensorFlow's
// CPU types): LSTMBlockCell, BlockLSTM and BlockLSTMV2 (gate blocks i, f, ci, o and no
// forget bias) and their gradients. Computed in float: the matrix products through the
// runtime's GEMM (BlockLSTM multiplies every step's x by w's input rows in one product;
// only h's rows stay in the loop), the gates through the vectorised sigmoid and tanh loops.
#include <cstdint>
#include <string>
#include <vector>

#include "rnn_cells.h"
#include "rnn_floats.h"
#include "simd_loops.h"

namespace opgen {
namespace cpu {
namespace {

struct LstmAttrs {
  float forget_bias = 0.0f, cell_clip = 0.0f;
  bool use_peephole = false;
};

void* CreateLstm(TF_OpKernelConstruction* ctx) {
  auto* a = new LstmAttrs();
  StatusPtr s = NewStatus();
  a->use_peephole = kernels::BoolAttr(ctx, "use_peephole", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return a;
  }
  // forget_bias and cell_clip belong to the forward ops only (BlockLSTMV2 has no
  // forget_bias: 0); the gradient ops have neither.
  TF_OpKernelConstruction_GetAttrFloat(ctx, "forget_bias", &a->forget_bias, s.get());
  if (TF_GetCode(s.get()) != TF_OK) a->forget_bias = 0.0f;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "cell_clip", &a->cell_clip, s.get());
  if (TF_GetCode(s.get()) != TF_OK) a->cell_clip = 0.0f;
  return a;
}
void DeleteLstm(void* p) { delete static_cast<LstmAttrs*>(p); }

// The sizes of one step and where the gate blocks sit in a row of 4 * cell.
struct Lstm {
  int64_t batch = 0, input = 0, cell = 0;
  bool ifco = false;  // BlockLSTMV2's order: i, f, ci, o (else i, ci, f, o)
  int64_t c_off() const { return ifco ? 2 * cell : cell; }
  int64_t f_off() const { return ifco ? cell : 2 * cell; }
};

// One step forward from the gate pre-activations g ([batch, 4 * cell], bias not added).
void ForwardStep(const Lstm& k, const LstmAttrs& a, const float* g, const float* b,
                 const float* cs_prev, const float* wci, const float* wcf, const float* wco,
                 float* i, float* cs, float* f, float* o, float* ci, float* co, float* h) {
  const int64_t n = k.batch * k.cell, c4 = 4 * k.cell, fo = k.f_off(), co_ = k.c_off();
  const bool peep = a.use_peephole;
  for (int64_t r = 0; r < k.batch; ++r) {
    const float* gr = g + r * c4;
    float *ir = i + r * k.cell, *fr = f + r * k.cell, *cir = ci + r * k.cell;
    const float* cp = cs_prev + r * k.cell;
    for (int64_t j = 0; j < k.cell; ++j) {
      ir[j] = gr[j] + b[j] + (peep ? cp[j] * wci[j] : 0.0f);
      fr[j] = gr[fo + j] + b[fo + j] + a.forget_bias + (peep ? cp[j] * wcf[j] : 0.0f);
      cir[j] = gr[co_ + j] + b[co_ + j];
    }
  }
  SigmoidFloatArray(i, n);
  SigmoidFloatArray(f, n);
  TanhFloatArrayInPlace(ci, n);
  const float clip = a.cell_clip;
  for (int64_t e = 0; e < n; ++e) {
    float v = i[e] * ci[e] + f[e] * cs_prev[e];
    if (clip > 0.0f) {
      v = v < -clip ? -clip : v;
      v = v > clip ? clip : v;
    }
    cs[e] = v;
  }
  TanhFloatArray(cs, co, n);
  for (int64_t r = 0; r < k.batch; ++r) {
    const float* gr = g + r * c4 + 3 * k.cell;
    const float* bo = b + 3 * k.cell;
    for (int64_t j = 0; j < k.cell; ++j) {
      const int64_t e = r * k.cell + j;
      o[e] = gr[j] + bo[j] + (peep ? cs[e] * wco[j] : 0.0f);
    }
  }
  SigmoidFloatArray(o, n);
  for (int64_t e = 0; e < n; ++e) h[e] = o[e] * co[e];
}

// One step back: the gate gradients dg ([batch, 4 * cell]) and cs_prev's gradient, from
// the step's values and the gradients reaching cs and h; with peepholes, the peephole
// weights' gradients are added to wci_g, wcf_g and wco_g.
void BackwardStep(const Lstm& k, bool peep, const float* cs_prev, const float* wci,
                  const float* wcf, const float* wco, const float* i, const float* cs,
                  const float* f, const float* o, const float* ci, const float* co,
                  const float* cs_grad, const float* h_grad, float* dg, float* cs_prev_grad,
                  float* wci_g, float* wcf_g, float* wco_g) {
  const int64_t c4 = 4 * k.cell, fo = k.f_off(), cof = k.c_off();
  std::vector<float> sums(peep ? 3 * k.cell : 0, 0.0f);
  for (int64_t r = 0; r < k.batch; ++r) {
    float* dr = dg + r * c4;
    for (int64_t j = 0; j < k.cell; ++j) {
      const int64_t e = r * k.cell + j;
      const float d_o = o[e] * (1.0f - o[e]) * h_grad[e] * co[e];
      float dcs = (1.0f - co[e] * co[e]) * h_grad[e] * o[e] + cs_grad[e];
      if (peep) dcs += d_o * wco[j];
      const float dci = (1.0f - ci[e] * ci[e]) * dcs * i[e];
      const float df = f[e] * (1.0f - f[e]) * dcs * cs_prev[e];
      const float di = i[e] * (1.0f - i[e]) * dcs * ci[e];
      dr[j] = di;
      dr[cof + j] = dci;
      dr[fo + j] = df;
      dr[3 * k.cell + j] = d_o;
      float g = dcs * f[e];
      if (peep) {
        g = g + di * wci[j] + df * wcf[j];
        sums[j] += di * cs_prev[e];
        sums[k.cell + j] += df * cs_prev[e];
        sums[2 * k.cell + j] += d_o * cs[e];
      }
      cs_prev_grad[e] = g;
    }
  }
  if (peep)
    for (int64_t j = 0; j < k.cell; ++j) {
      wci_g[j] += sums[j];
      wcf_g[j] += sums[k.cell + j];
      wco_g[j] += sums[2 * k.cell + j];
    }
}

// ---- input checks, with TensorFlow's messages --------------------------------------------

bool Require(TF_OpKernelContext* ctx, bool ok, const std::string& message) {
  if (!ok) Fail(ctx, TF_INVALID_ARGUMENT, message);
  return ok;
}
// "<what>: <got> vs. <want>" unless they agree.
bool Same(TF_OpKernelContext* ctx, int64_t got, int64_t want, const std::string& what) {
  return Require(ctx, got == want, what + ": " + std::to_string(got) + " vs. " + std::to_string(want));
}
int64_t Rank(const TensorPtr& t) { return TF_NumDims(t.get()); }
int64_t Dim(const TensorPtr& t, int d) { return TF_Dim(t.get(), d); }
// n * k, or -1 past int64 (dims of empty tensors can be anything).
int64_t Times(int64_t n, int64_t k) {
  int64_t out = 0;
  return __builtin_mul_overflow(n, k, &out) ? -1 : out;
}
// n + m, or -1 past int64.
int64_t Plus(int64_t n, int64_t m) {
  int64_t out = 0;
  return __builtin_add_overflow(n, m, &out) ? -1 : out;
}
// [rows, cols] of a rank-checked matrix, or [t, rows, cols] of a rank-3 tensor.
bool SameDims(TF_OpKernelContext* ctx, const TensorPtr& t, const std::vector<int64_t>& want,
              const std::string& name) {
  return Require(ctx, Dims(t.get()) == want,
                 name + " must have shape " + ShapeString(want) + " but has shape " +
                     ShapeString(Dims(t.get())));
}

// x, cs_prev, h_prev, w, wci, wcf, wco, b of LSTMBlockCell(Grad) at inputs 0..7.
bool CheckCell(TF_OpKernelContext* ctx, const std::vector<TensorPtr>& in, bool peep, Lstm* k) {
  static const char* const kNames[] = {"x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"};
  static const int kRanks[] = {2, 2, 2, 2, 1, 1, 1, 1};
  for (int n = 0; n < 8; ++n)
    if (!Require(ctx, Rank(in[n]) == kRanks[n],
                 std::string(kNames[n]) + "_tensor must be rank " + std::to_string(kRanks[n]) +
                     " but is rank " + std::to_string(Rank(in[n])) + "."))
      return false;
  k->batch = Dim(in[0], 0);
  k->input = Dim(in[0], 1);
  k->cell = Dim(in[1], 1);
  const int64_t cell4 = Times(k->cell, 4);
  if (!Same(ctx, Dim(in[1], 0), k->batch, "cs_prev.dims(0) != batch_size") ||
      !Same(ctx, Dim(in[2], 0), k->batch, "h_prev.dims(0) != batch_size") ||
      !Same(ctx, Dim(in[2], 1), k->cell, "h_prev.dims(1) != cell_size") ||
      !Same(ctx, Dim(in[3], 0), Plus(k->input, k->cell), "w.dim_size(0) != input_size + cell_size") ||
      !Same(ctx, Dim(in[3], 1), cell4, "w.dim_size(1) != cell_size * 4") ||
      !Same(ctx, Dim(in[7], 0), cell4, "b.dim_size(0) != cell_size * 4"))
    return false;
  if (peep)
    for (int n = 4; n < 7; ++n)
      if (!Same(ctx, Dim(in[n], 0), k->cell, std::string(kNames[n]) + ".dim_size(0) != cell_size"))
        return false;
  return true;
}

std::vector<TensorPtr> Inputs(TF_OpKernelContext* ctx, int n) {
  std::vector<TensorPtr> in;
  for (int i = 0; i < n; ++i) {
    in.push_back(Input(ctx, i));
    if (!in.back()) return {};
  }
  return in;
}

// ---- LSTMBlockCell and its gradient ----------------------------------------------------

template <typename T>
void LstmCellCompute(void* state, TF_OpKernelContext* ctx) {
  const LstmAttrs& a = *static_cast<LstmAttrs*>(state);
  std::vector<TensorPtr> in = Inputs(ctx, 8);
  Lstm k;
  if (in.empty() || !CheckCell(ctx, in, a.use_peephole, &k)) return;
  if (!Require(ctx, k.batch > 0 && k.cell > 0,
               "cs_prev_tensor is empty, has shape: (" + std::to_string(Dim(in[1], 0)) + "," +
                   std::to_string(k.cell) + ")."))
    return;
  std::vector<FloatOut<T>> out(7);
  for (int n = 0; n < 7; ++n)
    if (!out[n].Allocate(ctx, n, {k.batch, k.cell})) return;
  FloatIn<T> x(in[0].get()), cs_prev(in[1].get()), h_prev(in[2].get()), w(in[3].get()),
      wci(in[4].get()), wcf(in[5].get()), wco(in[6].get()), b(in[7].get());
  std::vector<float> g(static_cast<size_t>(k.batch * 4 * k.cell)), gh(g.size());
  RnnGemm(false, false, k.batch, 4 * k.cell, k.input, x.get(), w.get(), g.data());
  RnnGemm(false, false, k.batch, 4 * k.cell, k.cell, h_prev.get(), w.get() + k.input * 4 * k.cell,
          gh.data());
  for (size_t e = 0; e < g.size(); ++e) g[e] += gh[e];
  ForwardStep(k, a, g.data(), b.get(), cs_prev.get(), wci.get(), wcf.get(), wco.get(),
              out[0].get(), out[1].get(), out[2].get(), out[3].get(), out[4].get(), out[5].get(),
              out[6].get());
  for (auto& o : out) o.Finish();
}

template <typename T>
void LstmCellGradCompute(void* state, TF_OpKernelContext* ctx) {
  const bool peep = static_cast<LstmAttrs*>(state)->use_peephole;
  std::vector<TensorPtr> in = Inputs(ctx, 16);
  Lstm k;
  if (in.empty() || !CheckCell(ctx, in, peep, &k)) return;
  static const char* const kNames[] = {"i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad"};
  for (int n = 8; n < 16; ++n)
    if (!SameDims(ctx, in[n], {k.batch, k.cell}, kNames[n - 8])) return;
  FloatOut<T> cs_prev_grad, dicfo, wci_g, wcf_g, wco_g;
  if (!cs_prev_grad.Allocate(ctx, 0, {k.batch, k.cell}) ||
      !dicfo.Allocate(ctx, 1, {k.batch, 4 * k.cell}) || !wci_g.Allocate(ctx, 2, Dims(in[4].get())) ||
      !wcf_g.Allocate(ctx, 3, Dims(in[5].get())) || !wco_g.Allocate(ctx, 4, Dims(in[6].get())))
    return;
  // No elements (the gradients are the zeros Allocate wrote): nothing to loop over, and
  // an empty tensor's other dims can be anything.
  if (k.batch == 0 || k.cell == 0) {
    for (auto* o : {&cs_prev_grad, &dicfo, &wci_g, &wcf_g, &wco_g}) o->Finish();
    return;
  }
  std::vector<FloatIn<T>> v;
  for (int n = 0; n < 16; ++n) v.emplace_back(in[n].get());
  BackwardStep(k, peep, v[1].get(), v[4].get(), v[5].get(), v[6].get(), v[8].get(), v[9].get(),
               v[10].get(), v[11].get(), v[12].get(), v[13].get(), v[14].get(), v[15].get(),
               dicfo.get(), cs_prev_grad.get(), wci_g.get(), wcf_g.get(), wco_g.get());
  for (auto* o : {&cs_prev_grad, &dicfo, &wci_g, &wcf_g, &wco_g}) o->Finish();
}

// ---- BlockLSTM(V2) and their gradients -------------------------------------------------

// seq_len_max (a scalar in [0, time]) and x's sizes.
bool CheckSequence(TF_OpKernelContext* ctx, const std::vector<TensorPtr>& in, bool grad,
                   int64_t* time, int64_t* seq) {
  if (!Require(ctx, Rank(in[0]) == 0,
               "`seq_len_max_tensor` must be rank 0 but is rank " + std::to_string(Rank(in[0]))))
    return false;
  if (!Require(ctx, Rank(in[1]) == 3,
               grad ? "x must be rank 3 but is rank " + std::to_string(Rank(in[1])) : "x must be 3D"))
    return false;
  *time = Dim(in[1], 0);
  *seq = *static_cast<const int64_t*>(TF_TensorData(in[0].get()));
  return true;
}
bool CheckSeqRange(TF_OpKernelContext* ctx, int64_t time, int64_t seq) {
  return Require(ctx, seq >= 0 && seq <= time,
                 "seq_len_max must be between 0 and " + std::to_string(time) + " but is " +
                     std::to_string(seq));
}

// BlockLSTM's checks of cs_prev, h_prev, w, wci, wcf, wco and b (inputs 2..8).
bool CheckBlockWeights(TF_OpKernelContext* ctx, const std::vector<TensorPtr>& in, Lstm* k) {
  k->batch = Dim(in[1], 1);
  k->input = Dim(in[1], 2);
  if (!Require(ctx, Rank(in[2]) == 2, "cs_prev must be 2D") ||
      !Same(ctx, Dim(in[2], 0), k->batch, "cs_prev.dims(0) != batch_size"))
    return false;
  k->cell = Dim(in[2], 1);
  const int64_t cell4 = Times(k->cell, 4);
  if (!Require(ctx, Rank(in[3]) == 2, "h_prev must be 2D") ||
      !Same(ctx, Dim(in[3], 0), k->batch, "h_prev.dims(0) != batch_size") ||
      !Same(ctx, Dim(in[3], 1), k->cell, "h_prev.dims(1) != cell_size") ||
      !Require(ctx, Rank(in[4]) == 2, "w must be 2D") ||
      !Same(ctx, Dim(in[4], 0), Plus(k->input, k->cell), "w.dim_size(0) != input_size + cell_size") ||
      !Same(ctx, Dim(in[4], 1), cell4, "w.dim_size(1) != cell_size * 4"))
    return false;
  static const char* const kPeep[] = {"wci", "wcf", "wco"};
  for (int n = 5; n < 8; ++n) {
    const std::string name = kPeep[n - 5];
    if (!Require(ctx, Rank(in[n]) == 1, name + " must be 1D") ||
        !Same(ctx, Dim(in[n], 0), k->cell, name + ".dim_size(0) != cell_size"))
      return false;
  }
  return Require(ctx, Rank(in[8]) == 1, "b must be 1D") &&
         Same(ctx, Dim(in[8], 0), cell4, "b.dim_size(0) != cell_size * 4");
}

template <typename T, bool kIfco>
void BlockLstmCompute(void* state, TF_OpKernelContext* ctx) {
  const LstmAttrs& a = *static_cast<LstmAttrs*>(state);
  std::vector<TensorPtr> in = Inputs(ctx, 9);
  Lstm k;
  k.ifco = kIfco;
  int64_t time = 0, seq = 0;
  if (in.empty() || !CheckSequence(ctx, in, false, &time, &seq) || !CheckBlockWeights(ctx, in, &k) ||
      !CheckSeqRange(ctx, time, seq))
    return;
  // Steps from seq_len_max on stay zero (TensorFlow zeroes cs and h there and leaves the
  // other outputs unset).
  std::vector<FloatOut<T>> out(7);
  for (int n = 0; n < 7; ++n)
    if (!out[n].Allocate(ctx, n, {time, k.batch, k.cell})) return;
  if (k.batch == 0 || k.cell == 0) return;  // empty outputs (time and batch can be anything)
  FloatIn<T> x(in[1].get()), cs_prev(in[2].get()), h_prev(in[3].get()), w(in[4].get()),
      wci(in[5].get()), wcf(in[6].get()), wco(in[7].get()), b(in[8].get());
  const int64_t step = k.batch * k.cell, c4 = 4 * k.cell;
  // Every step's x @ w[:input] at once; each step adds h_prev @ w[input:].
  std::vector<float> gx(static_cast<size_t>(seq * k.batch * c4)), gh(static_cast<size_t>(k.batch * c4));
  RnnGemm(false, false, seq * k.batch, c4, k.input, x.get(), w.get(), gx.data());
  const float* w_h = w.get() + k.input * c4;
  for (int64_t t = 0; t < seq; ++t) {
    const int64_t at = t * step;
    const float* hp = t == 0 ? h_prev.get() : out[6].get() + at - step;
    const float* cp = t == 0 ? cs_prev.get() : out[1].get() + at - step;
    float* g = gx.data() + t * k.batch * c4;
    RnnGemm(false, false, k.batch, c4, k.cell, hp, w_h, gh.data());
    for (int64_t e = 0; e < k.batch * c4; ++e) g[e] += gh[e];
    ForwardStep(k, a, g, b.get(), cp, wci.get(), wcf.get(), wco.get(), out[0].get() + at,
                out[1].get() + at, out[2].get() + at, out[3].get() + at, out[4].get() + at,
                out[5].get() + at, out[6].get() + at);
  }
  for (auto& o : out) o.Finish();
}

template <typename T, bool kIfco>
void BlockLstmGradCompute(void* state, TF_OpKernelContext* ctx) {
  const bool peep = static_cast<LstmAttrs*>(state)->use_peephole;
  std::vector<TensorPtr> in = Inputs(ctx, 18);
  Lstm k;
  k.ifco = kIfco;
  int64_t time = 0, seq = 0;
  if (in.empty() || !CheckSequence(ctx, in, true, &time, &seq)) return;
  static const char* const kNames[] = {"seq_len_max", "x", "cs_prev", "h_prev", "w", "wci", "wcf",
                                       "wco", "b", "i", "cs", "f", "o", "ci", "co", "h",
                                       "cs_grad", "h_grad"};
  for (int n = 2; n < 9; ++n) {
    const int64_t want = n < 5 ? 2 : 1;
    if (!Require(ctx, Rank(in[n]) == want, std::string(kNames[n]) + " must be rank " +
                                               std::to_string(want) + " but is rank " +
                                               std::to_string(Rank(in[n]))))
      return;
  }
  const int64_t w_cols = Dim(in[4], 1);
  if (!Require(ctx, w_cols > 0 && w_cols % 4 == 0,
               "w matrix columns must be a positive multiple of 4, but got " + std::to_string(w_cols)))
    return;
  k.batch = Dim(in[1], 1);
  k.input = Dim(in[1], 2);
  k.cell = w_cols / 4;
  if (!Same(ctx, Plus(k.input, k.cell), Dim(in[4], 0), "w matrix rows don't match") ||
      !Require(ctx, Dim(in[8], 0) == w_cols,
               "w and b cell_size don't match: " + std::to_string(k.cell) + " vs. " +
                   std::to_string(Dim(in[8], 0))))
    return;
  for (int n = 9; n < 16; ++n)
    if (!Require(ctx, Rank(in[n]) == 3,
                 std::string(kNames[n]) + " must be rank 3. Received: " + std::to_string(Rank(in[n]))))
      return;
  // TensorFlow reads these as sized by x and w without looking: refused here instead.
  const std::vector<int64_t> cell_shape{k.batch, k.cell}, seq_shape{time, k.batch, k.cell};
  if (!SameDims(ctx, in[2], cell_shape, "cs_prev") || !SameDims(ctx, in[3], cell_shape, "h_prev"))
    return;
  for (int n = 5; n < 8; ++n)
    if (!SameDims(ctx, in[n], {k.cell}, kNames[n])) return;
  for (int n = 9; n < 18; ++n)
    if (!SameDims(ctx, in[n], seq_shape, kNames[n])) return;
  if (!CheckSeqRange(ctx, time, seq)) return;
  FloatOut<T> x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_g, wcf_g, wco_g, b_grad;
  if (!x_grad.Allocate(ctx, 0, Dims(in[1].get())) || !cs_prev_grad.Allocate(ctx, 1, cell_shape) ||
      !h_prev_grad.Allocate(ctx, 2, cell_shape) || !w_grad.Allocate(ctx, 3, Dims(in[4].get())) ||
      !wci_g.Allocate(ctx, 4, {k.cell}) || !wcf_g.Allocate(ctx, 5, {k.cell}) ||
      !wco_g.Allocate(ctx, 6, {k.cell}) || !b_grad.Allocate(ctx, 7, {4 * k.cell}))
    return;
  // With no batch or no cell every gradient is zero (x's too: no gate reaches it), and an
  // empty tensor's other dims can be anything: no loop over them.
  if (k.batch == 0 || k.cell == 0) {
    for (auto* o : {&x_grad, &cs_prev_grad, &h_prev_grad, &w_grad, &wci_g, &wcf_g, &wco_g, &b_grad})
      o->Finish();
    return;
  }
  std::vector<FloatIn<T>> v;
  for (int n = 0; n < 18; ++n) v.emplace_back(in[n].get());
  const int64_t step = k.batch * k.cell, c4 = 4 * k.cell, rows = seq * k.batch;
  std::vector<float> dg(static_cast<size_t>(rows * c4)), cs_g(static_cast<size_t>(step)),
      h_g(static_cast<size_t>(step));
  float *cpg = cs_prev_grad.get(), *hpg = h_prev_grad.get();
  const float* w_h = v[4].get() + k.input * c4;
  for (int64_t t = seq - 1; t >= 0; --t) {
    const int64_t at = t * step;
    // The gradients reaching this step's cs and h: from its outputs and from step t + 1.
    for (int64_t e = 0; e < step; ++e) {
      cs_g[e] = cpg[e] + v[16].get()[at + e];
      h_g[e] = hpg[e] + v[17].get()[at + e];
    }
    const float* cp = t == 0 ? v[2].get() : v[10].get() + at - step;
    float* dgt = dg.data() + t * k.batch * c4;
    BackwardStep(k, peep, cp, v[5].get(), v[6].get(), v[7].get(), v[9].get() + at,
                 v[10].get() + at, v[11].get() + at, v[12].get() + at, v[13].get() + at,
                 v[14].get() + at, cs_g.data(), h_g.data(), dgt, cpg, wci_g.get(), wcf_g.get(),
                 wco_g.get());
    RnnGemm(false, true, k.batch, k.cell, c4, dgt, w_h, hpg);
  }
  // The products over all steps at once: x's gradient and w's two row blocks.
  RnnGemm(false, true, rows, k.input, c4, dg.data(), v[4].get(), x_grad.get());
  RnnGemm(true, false, k.input, c4, rows, v[1].get(), dg.data(), w_grad.get());
  std::vector<float> h_in(static_cast<size_t>(rows * k.cell));  // each step's h_prev
  if (rows > 0) {
    std::copy(v[3].get(), v[3].get() + step, h_in.begin());
    std::copy(v[15].get(), v[15].get() + (seq - 1) * step, h_in.begin() + step);
  }
  RnnGemm(true, false, k.cell, c4, rows, h_in.data(), dg.data(), w_grad.get() + k.input * c4);
  float* bg = b_grad.get();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < c4; ++j) bg[j] += dg[r * c4 + j];
  for (auto* o : {&x_grad, &cs_prev_grad, &h_prev_grad, &w_grad, &wci_g, &wcf_g, &wco_g, &b_grad})
    o->Finish();
}

template <typename T>
void Register(TF_Status* status) {
  const TF_DataType dt = DtypeOf<T>::value;
  const std::vector<std::pair<const char*, ComputeFn>> ops{
      {"LSTMBlockCell", LstmCellCompute<T>},
      {"LSTMBlockCellGrad", LstmCellGradCompute<T>},
      {"BlockLSTM", BlockLstmCompute<T, false>},
      {"BlockLSTMV2", BlockLstmCompute<T, true>},
      {"BlockLSTMGrad", BlockLstmGradCompute<T, false>},
      {"BlockLSTMGradV2", BlockLstmGradCompute<T, true>}};
  for (const auto& [op, fn] : ops)
    RegisterKernel(kDevice, {op, {{"T", dt}}, {}, fn, CreateLstm, DeleteLstm}, status);
}

}  // namespace

void RegisterLstmBlockKernels(TF_Status* status) {
  Register<float>(status);
  Register<Half>(status);
}

}  // namespace cpu
}  // namespace opgen

// GRUBlockCell and GRUBlockCellGrad (TensorFlow 1's contrib.rnn GRU cell) on the CPU, float
// only, as TensorFlow registers them: the products through the runtime's GEMM, the gates
// through the vectorised sigmoid and tanh loops.
#include <cstdint>
#include <string>
#include <vector>

#include "rnn_cells.h"
#include "rnn_floats.h"
#include "simd_loops.h"

namespace opgen {
namespace cpu {
namespace {

bool Require(TF_OpKernelContext* ctx, bool ok, const std::string& message) {
  if (!ok) Fail(ctx, TF_INVALID_ARGUMENT, message);
  return ok;
}
bool Same(TF_OpKernelContext* ctx, int64_t got, int64_t want, const std::string& what) {
  return Require(ctx, got == want, what + ": " + std::to_string(got) + " vs. " + std::to_string(want));
}
int64_t Rank(const TensorPtr& t) { return TF_NumDims(t.get()); }
int64_t Dim(const TensorPtr& t, int d) { return TF_Dim(t.get(), d); }
std::string RankMessage(const char* name, const TensorPtr& t, int want) {
  return std::string("Rank of ") + name + " must be " + std::to_string(want) + ", got " +
         std::to_string(Rank(t));
}

struct Gru {
  int64_t batch = 0, input = 0, cell = 0;
};

// x, h_prev, w_ru, w_c, b_ru, b_c (and, for the gradient, r, u, c, d_h) with TensorFlow's
// checks and messages.
bool CheckGru(TF_OpKernelContext* ctx, const std::vector<TensorPtr>& in, Gru* k) {
  if (!Require(ctx, Rank(in[0]) == 2, RankMessage("x", in[0], 2))) return false;
  k->batch = Dim(in[0], 0);
  k->input = Dim(in[0], 1);
  if (!Require(ctx, Rank(in[1]) == 2, RankMessage("h_prev", in[1], 2)) ||
      !Same(ctx, Dim(in[1], 0), k->batch, "h_prev.dims(0) != batch_size"))
    return false;
  k->cell = Dim(in[1], 1);
  int64_t width = 0, cell2 = 0;  // -1 past int64 (an empty tensor's dims can be anything)
  if (__builtin_add_overflow(k->input, k->cell, &width)) width = -1;
  if (__builtin_mul_overflow(k->cell, int64_t{2}, &cell2)) cell2 = -1;
  if (!Require(ctx, Rank(in[2]) == 2, RankMessage("w_ru_", in[2], 2)) ||
      !Same(ctx, Dim(in[2], 0), width, "w_ru.dim_size(0) != input_size + cell_size") ||
      !Same(ctx, Dim(in[2], 1), cell2, "w_ru.dim_size(1) != cell_size * 2") ||
      !Require(ctx, Rank(in[3]) == 2, RankMessage("w_c", in[3], 2)) ||
      !Same(ctx, Dim(in[3], 0), width, "w_c.dim_size(0) != input_size + cell_size") ||
      !Same(ctx, Dim(in[3], 1), k->cell, "w_c.dim_size(1) != cell_size") ||
      !Require(ctx, Rank(in[4]) == 1, RankMessage("b_ru", in[4], 1)) ||
      !Same(ctx, Dim(in[4], 0), cell2, "b_ru.dim_size(0) != cell_size * 2") ||
      !Require(ctx, Rank(in[5]) == 1, RankMessage("b_c", in[5], 1)) ||
      !Same(ctx, Dim(in[5], 0), k->cell, "b_c.dim_size(0) != cell_size"))
    return false;
  if (in.size() == 6) return true;
  // TensorFlow names w_c in c's rank message.
  static const char* const kNames[] = {"r", "u", "c", "d_h"};
  static const char* const kRankNames[] = {"r", "u", "w_c", "d_h"};
  for (int n = 6; n < 10; ++n) {
    const std::string name = kNames[n - 6];
    if (!Require(ctx, Rank(in[n]) == 2, RankMessage(kRankNames[n - 6], in[n], 2)) ||
        !Same(ctx, Dim(in[n], 0), k->batch, name + ".dims(0) != batch_size") ||
        !Same(ctx, Dim(in[n], 1), k->cell, name + ".dims(1) != cell_size"))
      return false;
  }
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

// [x, h] rows of input + cell values.
void Concat(const Gru& k, const float* x, const float* h, float* out) {
  const int64_t width = k.input + k.cell;
  for (int64_t r = 0; r < k.batch; ++r) {
    std::copy(x + r * k.input, x + (r + 1) * k.input, out + r * width);
    std::copy(h + r * k.cell, h + (r + 1) * k.cell, out + r * width + k.input);
  }
}

// r and u = sigmoid([x, h_prev] @ w_ru + b_ru); c = tanh([x, h_prev * r] @ w_c + b_c);
// h = u * (h_prev - c) + c.
void GruCompute(void*, TF_OpKernelContext* ctx) {
  std::vector<TensorPtr> in = Inputs(ctx, 6);
  Gru k;
  if (in.empty() || !CheckGru(ctx, in, &k)) return;
  std::vector<FloatOut<float>> out(4);
  for (int n = 0; n < 4; ++n)
    if (!out[n].Allocate(ctx, n, {k.batch, k.cell})) return;
  if (k.batch == 0 || k.cell == 0) return;  // empty outputs (an empty x's other dim can be anything)
  const float *x = Data<float>(in[0]), *h_prev = Data<float>(in[1]), *w_ru = Data<float>(in[2]),
              *w_c = Data<float>(in[3]), *b_ru = Data<float>(in[4]), *b_c = Data<float>(in[5]);
  float *r = out[0].get(), *u = out[1].get(), *c = out[2].get(), *h = out[3].get();
  const int64_t width = k.input + k.cell, n = k.batch * k.cell;
  std::vector<float> xh(static_cast<size_t>(k.batch * width)), ru(static_cast<size_t>(2 * n));
  Concat(k, x, h_prev, xh.data());
  RnnGemm(false, false, k.batch, 2 * k.cell, width, xh.data(), w_ru, ru.data());
  for (int64_t b = 0; b < k.batch; ++b)
    for (int64_t j = 0; j < k.cell; ++j) {
      r[b * k.cell + j] = ru[b * 2 * k.cell + j] + b_ru[j];
      u[b * k.cell + j] = ru[b * 2 * k.cell + k.cell + j] + b_ru[k.cell + j];
    }
  SigmoidFloatArray(r, n);
  SigmoidFloatArray(u, n);
  std::vector<float> hr(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) hr[e] = h_prev[e] * r[e];
  Concat(k, x, hr.data(), xh.data());
  RnnGemm(false, false, k.batch, k.cell, width, xh.data(), w_c, c);
  for (int64_t b = 0; b < k.batch; ++b)
    for (int64_t j = 0; j < k.cell; ++j) c[b * k.cell + j] += b_c[j];
  TanhFloatArrayInPlace(c, n);
  for (int64_t e = 0; e < n; ++e) h[e] = u[e] * (h_prev[e] - c[e]) + c[e];
}

// The gradients of the pre-activations (d_c_bar, d_r_bar_u_bar) and of x and h_prev.
void GruGradCompute(void*, TF_OpKernelContext* ctx) {
  std::vector<TensorPtr> in = Inputs(ctx, 10);
  Gru k;
  if (in.empty() || !CheckGru(ctx, in, &k)) return;
  FloatOut<float> d_x, d_h_prev, d_c_bar, d_ru_bar;
  if (!d_x.Allocate(ctx, 0, {k.batch, k.input}) || !d_h_prev.Allocate(ctx, 1, {k.batch, k.cell}) ||
      !d_c_bar.Allocate(ctx, 2, {k.batch, k.cell}) || !d_ru_bar.Allocate(ctx, 3, {k.batch, 2 * k.cell}))
    return;
  if (k.batch == 0 || k.cell == 0) return;  // zeros: no gate reaches x without a cell
  const float *h_prev = Data<float>(in[1]), *w_ru = Data<float>(in[2]), *w_c = Data<float>(in[3]),
              *r = Data<float>(in[6]), *u = Data<float>(in[7]), *c = Data<float>(in[8]),
              *d_h = Data<float>(in[9]);
  const int64_t width = k.input + k.cell, n = k.batch * k.cell;
  float *dc = d_c_bar.get(), *dru = d_ru_bar.get();
  for (int64_t e = 0; e < n; ++e) dc[e] = d_h[e] * (1.0f - u[e]) * (1.0f - c[e] * c[e]);
  // [x, h_prev * r]'s gradient, then r's pre-activation's.
  std::vector<float> a(static_cast<size_t>(k.batch * width)), b(a.size());
  RnnGemm(false, true, k.batch, width, k.cell, dc, w_c, a.data());
  for (int64_t row = 0; row < k.batch; ++row)
    for (int64_t j = 0; j < k.cell; ++j) {
      const int64_t e = row * k.cell + j;
      const float d_hr = a[row * width + k.input + j];
      dru[row * 2 * k.cell + j] = d_hr * h_prev[e] * r[e] * (1.0f - r[e]);
      dru[row * 2 * k.cell + k.cell + j] = d_h[e] * (h_prev[e] - c[e]) * u[e] * (1.0f - u[e]);
    }
  RnnGemm(false, true, k.batch, width, 2 * k.cell, dru, w_ru, b.data());
  float *dx = d_x.get(), *dhp = d_h_prev.get();
  for (int64_t row = 0; row < k.batch; ++row) {
    for (int64_t j = 0; j < k.input; ++j)
      dx[row * k.input + j] = b[row * width + j] + a[row * width + j];
    for (int64_t j = 0; j < k.cell; ++j) {
      const int64_t e = row * k.cell + j;
      const float d_hr = a[row * width + k.input + j];
      dhp[e] = b[row * width + k.input + j] + d_hr * r[e] + d_h[e] * u[e];
    }
  }
}

}  // namespace

void RegisterGruBlockKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"GRUBlockCell", {{"T", TF_FLOAT}}, {}, GruCompute}, status);
  RegisterKernel(kDevice, {"GRUBlockCellGrad", {{"T", TF_FLOAT}}, {}, GruGradCompute}, status);
}

}  // namespace cpu
}  // namespace opgen

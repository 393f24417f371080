// BatchNormWithGlobalNormalization and its gradient (TensorFlow 1's batch norm, in the 2015
// Inception graphs) on the CPU: half, float and double, as TensorFlow registers them. Each
// step is rounded to T, as TensorFlow's Eigen expressions round each one (half included);
// the per-channel sums run in float or double. FusedBatchNorm's kernel (batch_norm.cc)
// keeps float statistics only, so it is not reused.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_util.h"
#include "rnn_cells.h"

namespace opgen {
namespace cpu {
namespace {

struct BnAttrs {
  float epsilon = 0.0f;
  bool scale_after = false;
};

void* CreateBn(TF_OpKernelConstruction* ctx) {
  auto* a = new BnAttrs();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrFloat(ctx, "variance_epsilon", &a->epsilon, s.get());
  if (TF_GetCode(s.get()) == TF_OK)
    a->scale_after = kernels::BoolAttr(ctx, "scale_after_normalization", s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
void DeleteBn(void* p) { delete static_cast<BnAttrs*>(p); }

// The value rounded to T, in T's compute type.
template <typename T>
ComputeType<T> R(ComputeType<T> v) {
  return Widen(Narrow<T>(v));
}

// Inputs `first..` checked 4-D (t, and backprop for the gradient) or 1-D with one value per
// channel; TensorFlow's rank messages, and a refusal where its kernel reads past a short
// vector.
bool CheckBn(TF_OpKernelContext* ctx, const std::vector<TensorPtr>& in,
             const std::vector<const char*>& names, int64_t* rows, int64_t* depth) {
  for (size_t n = 0; n < in.size(); ++n) {
    const std::string name = names[n];
    const bool image = name == "input" || name == "out_backprop";
    const std::vector<int64_t> dims = Dims(in[n].get());
    if (dims.size() != (image ? 4u : 1u)) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           name + " must be " + (image ? "4" : "1") + "-dimensional" + ShapeString(dims));
      return false;
    }
  }
  const std::vector<int64_t> t = Dims(in[0].get());
  *depth = t[3];
  // An empty t's other dims can be anything: count rows from its elements.
  *rows = *depth > 0 ? TF_TensorElementCount(in[0].get()) / *depth : 0;
  for (size_t n = 1; n < in.size(); ++n) {
    const std::vector<int64_t> dims = Dims(in[n].get());
    const bool image = dims.size() == 4;
    if (image ? dims != t : dims[0] != *depth) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           std::string(names[n]) + " must have shape " +
               (image ? ShapeString(t) : ShapeString({*depth})) + " to match input " +
               ShapeString(t) + ", got " + ShapeString(dims));
      return false;
    }
  }
  return true;
}

template <typename T>
void BnCompute(void* state, TF_OpKernelContext* ctx) {
  using C = ComputeType<T>;
  const BnAttrs& a = *static_cast<BnAttrs*>(state);
  std::vector<TensorPtr> in;
  for (int i = 0; i < 5; ++i) {
    in.push_back(Input(ctx, i));
    if (!in.back()) return;
  }
  int64_t rows = 0, depth = 0;
  if (!CheckBn(ctx, in, {"input", "mean", "var", "beta", "gamma"}, &rows, &depth)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, Dims(in[0].get()));
  if (!out) return;
  const T *x = Data<T>(in[0]), *m = Data<T>(in[1]), *v = Data<T>(in[2]), *beta = Data<T>(in[3]),
          *gamma = Data<T>(in[4]);
  const C eps = Widen(static_cast<T>(a.epsilon));
  std::vector<C> scale(static_cast<size_t>(depth));
  for (int64_t k = 0; k < depth; ++k) {
    const C root = R<T>(C(1) / std::sqrt(R<T>(Widen(v[k]) + eps)));
    scale[k] = a.scale_after ? R<T>(root * Widen(gamma[k])) : root;
  }
  T* y = Data<T>(out);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t e = r * depth + k;
      y[e] = Narrow<T>(R<T>(R<T>(Widen(x[e]) - Widen(m[k])) * scale[k]) + Widen(beta[k]));
    }
}

// dx = dy * gamma * rsqrt(v + eps); dm = -sum(dy) * gamma * rsqrt(v + eps);
// dv = sum(dy * (x - m)) * gamma * -rsqrt(v + eps) / 2 / (v + eps); db = sum(dy);
// dg = sum(dy * (x - m)) * rsqrt(v + eps); gamma as 1 (and dg 0) without
// scale_after_normalization. Sums over every dimension but the last.
template <typename T>
void BnGradCompute(void* state, TF_OpKernelContext* ctx) {
  using C = ComputeType<T>;
  const BnAttrs& a = *static_cast<BnAttrs*>(state);
  std::vector<TensorPtr> in;
  for (int i = 0; i < 5; ++i) {
    in.push_back(Input(ctx, i));
    if (!in.back()) return;
  }
  int64_t rows = 0, depth = 0;
  if (!CheckBn(ctx, in, {"input", "mean", "var", "gamma", "out_backprop"}, &rows, &depth)) return;
  std::vector<TensorPtr> out;
  for (int i = 0; i < 5; ++i) {
    out.push_back(AllocateOutput<T>(ctx, i, i == 0 ? Dims(in[0].get()) : std::vector<int64_t>{depth}));
    if (!out.back()) return;
  }
  const T *x = Data<T>(in[0]), *m = Data<T>(in[1]), *v = Data<T>(in[2]), *gamma = Data<T>(in[3]),
          *dy = Data<T>(in[4]);
  const C eps = Widen(static_cast<T>(a.epsilon));
  std::vector<C> db(static_cast<size_t>(depth), C(0)), dyx(db.size(), C(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t e = r * depth + k;
      db[k] += Widen(dy[e]);
      dyx[k] += R<T>(Widen(dy[e]) * R<T>(Widen(x[e]) - Widen(m[k])));
    }
  T *dx = Data<T>(out[0]), *dm = Data<T>(out[1]), *dv = Data<T>(out[2]), *dbo = Data<T>(out[3]),
    *dg = Data<T>(out[4]);
  std::vector<C> factor(static_cast<size_t>(depth));
  for (int64_t k = 0; k < depth; ++k) {
    const C sum_b = R<T>(db[k]), sum_bx = R<T>(dyx[k]);
    const C ve = R<T>(Widen(v[k]) + eps);
    const C root = R<T>(C(1) / std::sqrt(ve));
    const C g = a.scale_after ? Widen(gamma[k]) : C(1);
    factor[k] = a.scale_after ? R<T>(root * g) : root;
    dbo[k] = Narrow<T>(sum_b);
    dm[k] = Narrow<T>(-sum_b * factor[k]);
    dg[k] = Narrow<T>(a.scale_after ? sum_bx * root : C(0));
    const C half_cube = R<T>(R<T>(root * C(-0.5)) / ve);
    dv[k] = Narrow<T>(sum_bx * (a.scale_after ? R<T>(half_cube * g) : half_cube));
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t e = r * depth + k;
      dx[e] = Narrow<T>(Widen(dy[e]) * factor[k]);
    }
}

template <typename T>
void Register(TF_Status* status) {
  const TF_DataType dt = DtypeOf<T>::value;
  RegisterKernel(kDevice, {"BatchNormWithGlobalNormalization", {{"T", dt}}, {}, BnCompute<T>,
                           CreateBn, DeleteBn}, status);
  RegisterKernel(kDevice, {"BatchNormWithGlobalNormalizationGrad", {{"T", dt}}, {},
                           BnGradCompute<T>, CreateBn, DeleteBn}, status);
}

}  // namespace

void RegisterBatchNormGlobalKernels(TF_Status* status) {
  Register<Half>(status);
  Register<float>(status);
  Register<double>(status);
}

}  // namespace cpu
}  // namespace opgen

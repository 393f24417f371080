// StatelessRandomBinomial: TensorFlow's CPU sampler, bit for bit. Per (count, prob) of
// the broadcast batch: 0 for count <= 0 or prob <= 0, count for prob >= 1; otherwise,
// with p the smaller of prob and 1 - prob (the count is mirrored for the larger), the
// inversion of a sum of geometric variables while count * p < 10 (42 Philox blocks
// reserved per output), else Hormann's BTRS transformed rejection (256 blocks). Output
// element (sample s of batch member b) draws at index b * samples_per_batch + s.
#include <cmath>

#include "../broadcast_spec.h"
#include "random_fill.h"

namespace opgen {
namespace cpu {

namespace {

using random_fill::OpName;
using Uniform = random_fill::PairStream<kernels::UniformDouble>;

// The number of geometric(p) variables whose sum stays within count.
double Inversion(double count, double p, philox::Generator* gen) {
  Uniform uniform{gen};
  double sum = 0;
  int n = 0;
  for (;;) {
    sum += std::ceil(std::log(uniform()) / std::log1p(-p));
    if (sum > count) return n;
    ++n;
  }
}

double StirlingTail(double k) {
  static const double kTail[] = {0.0810614667953272,  0.0413406959554092,  0.0276779256849983,
                                 0.02079067210376509, 0.0166446911898211,  0.0138761288230707,
                                 0.0118967099458917,  0.0104112652619720,  0.00925546218271273,
                                 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

double Btrs(double count, double p, philox::Generator* gen) {
  const double stddev = std::sqrt(count * p * (1 - p));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = count * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * p);
  Uniform uniform{gen};
  for (;;) {
    double u = uniform();
    double v = uniform();
    u = u - 0.5;
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + StirlingTail(m) +
                         StirlingTail(count - m) - StirlingTail(k) - StirlingTail(count - k);
    if (v <= bound) return k;
  }
}

template <typename T>
T Narrow(double v) { return static_cast<T>(static_cast<float>(v)); }
template <>
double Narrow<double>(double v) { return v; }
template <typename T>
double Wide(T v) { return static_cast<double>(static_cast<float>(v)); }
template <>
double Wide<double>(double v) { return v; }

// One sample; count * p and 1 - prob are computed in T, as TensorFlow computes them.
template <typename T>
double Sample(T count_t, T prob_t, const philox::Generator& base, int64_t index) {
  const double count = Wide(count_t), prob = Wide(prob_t);
  if (count <= 0.0 || prob <= 0.0) return 0.0;
  if (prob >= 1.0) return count;
  if (!(prob <= 0.5) && !(prob > 0.5)) return NAN;
  if (std::isnan(count)) return NAN;  // TensorFlow's inversion never ends here
  const bool mirrored = prob > 0.5;
  const T p_t = mirrored ? Narrow<T>(1.0 - prob) : prob_t;  // in T's precision
  const double p = Wide(p_t);
  const bool btrs = Wide(Narrow<T>(count * p)) >= 10;
  philox::Generator gen = base;
  gen.Skip(static_cast<uint64_t>(index) * (btrs ? 256 : 42));
  const double k = btrs ? Btrs(count, p, &gen) : Inversion(count, p, &gen);
  return mirrored ? count - k : k;
}

template <typename T, typename U>
void BinomialCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  const TF_Tensor* seed = BorrowInput(ctx, 1);
  const TF_Tensor* counts = seed ? BorrowInput(ctx, 2) : nullptr;
  const TF_Tensor* probs = counts ? BorrowInput(ctx, 3) : nullptr;
  if (!probs) return;
  if (TF_NumDims(seed) != 1 || TF_Dim(seed, 0) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": seed must have shape [2], not " + ShapeString(Dims(seed)));
  std::vector<int64_t> batch;
  if (!kernels::BroadcastShape(Dims(counts), Dims(probs), &batch))
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": counts and probs must have compatible batch dimensions: " +
                                              ShapeString(Dims(counts)) + " vs. " + ShapeString(Dims(probs)));
  std::vector<int64_t> dims;
  philox::Generator gen;
  if (!random_fill::ShapeEndingWithBatch(ctx, op, batch, &dims)) return;
  TensorPtr out = AllocateOutput<U>(ctx, 0, dims);
  const int64_t n = NumElements(dims);
  if (!out || n == 0 || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  const int64_t batches = NumElements(batch), per_batch = n / batches;
  const std::vector<int64_t> ci = random_fill::BroadcastIndices(Dims(counts), batch), pi = random_fill::BroadcastIndices(Dims(probs), batch);
  const T* c = static_cast<const T*>(TF_TensorData(counts));
  const T* p = static_cast<const T*>(TF_TensorData(probs));
  U* y = Data<U>(out);
  ParallelFor(n, [&](int64_t begin, int64_t end) {
    for (int64_t index = begin; index < end; ++index) {
      const int64_t b = index / per_batch, s = index % per_batch;
      y[s * batches + b] = random_fill::SampleAs<U>(Sample<T>(c[ci[b]], p[pi[b]], gen, index));
    }
  }, 64);
}

template <typename T, typename... Us>
void Register(TF_Status* status) {
  (RegisterKernel(kDevice, {"StatelessRandomBinomial", {{"T", DtypeOf<T>::value}, {"dtype", DtypeOf<Us>::value}}, {},
                            BinomialCompute<T, Us>}, status), ...);
}

}  // namespace

void RegisterRandomBinomialKernels(TF_Status* status) {
  Register<Half, Half, float, double, int32_t, int64_t>(status);
  Register<float, Half, float, double, int32_t, int64_t>(status);
  Register<double, Half, float, double, int32_t, int64_t>(status);
}

}  // namespace cpu
}  // namespace opgen

// StatelessRandomGammaV2 (a [2] seed) and V3 (key, counter, alg): Marsaglia and Tsang's
// transformation-rejection sampler; StatelessRandomPoisson: Knuth's product of uniforms
// below rate 10, Hormann's transformed rejection from 10 on. Both as TensorFlow's CPU
// kernels run them, in double, so the values are TensorFlow's bit for bit. Output element
// (sample s of parameter p) draws from its own run of 256 Philox blocks, at index
// p * samples_per_parameter + s (parameter-major, though the output is laid out
// sample-major), taking normals and uniforms (doubles, two per block) from the end of
// each block's pair, as TensorFlow does.
#include <cmath>

#include "random_fill.h"

namespace opgen {
namespace cpu {

namespace {

using random_fill::OpName;

double GammaSample(const philox::Generator& base, int64_t index, double alpha) {
  philox::Generator gen = base;
  gen.Skip(static_cast<uint64_t>(index) * philox::kReservedPerOutput);
  random_fill::PairStream<kernels::UniformDouble> uniform{&gen};
  if (alpha == 1.0) return -std::log1p(-uniform());  // exponential
  random_fill::PairStream<kernels::NormalDouble> normal{&gen};
  const bool below_one = alpha < 1;
  // Below one: sample alpha + 1 and scale by u^(1 / alpha).
  const double d = alpha + (below_one ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  for (;;) {
    const double x = normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform();
    if (u < 1 - 0.0331 * (x * x) * (x * x) || std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) {
      double res = d * v;
      if (below_one) res *= std::pow(uniform(), 1 / alpha);
      return res;
    }
  }
}

// Poisson(rate), as TensorFlow computes it (its output may be infinite or NaN).
double PoissonSample(const philox::Generator& base, int64_t index, double rate) {
  philox::Generator gen = base;
  gen.Skip(static_cast<uint64_t>(index) * philox::kReservedPerOutput);
  random_fill::PairStream<kernels::UniformDouble> uniform{&gen};
  if (rate < 10) {  // the first count whose product of uniforms reaches exp(-rate)
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1, x = 0;
    for (;;) {
      prod *= uniform();
      if (prod <= exp_neg_rate) return x;
      x += 1;
    }
  }
  if (std::isinf(rate) || std::isnan(rate)) return rate;  // TensorFlow's rejection never ends on NaN
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  for (;;) {
    const double u = uniform() - 0.5;
    const double v = uniform();
    const double u_shifted = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k < 0) continue;
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;  // the inner box
    if (u_shifted < 0.013 && v > u_shifted) continue;
    const double s = std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

template <typename T>
double AsDouble(T v) {
  if constexpr (kIsFloat16<T>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}

// The output (`dims`, ending with the parameters' shape) from `gen`: `sample(gen, index,
// parameter)` for each element.
template <typename T, typename P, typename Sample>
void FillPerParameter(TF_OpKernelContext* ctx, const std::string& op, const std::vector<int64_t>& dims,
                      const TF_Tensor* alpha_t, T* out, const philox::Generator& gen, Sample sample) {
  const std::vector<int64_t> alpha_dims = Dims(alpha_t);
  bool ends_with = alpha_dims.size() <= dims.size();
  for (size_t i = 0; ends_with && i < alpha_dims.size(); ++i)
    ends_with = dims[dims.size() - alpha_dims.size() + i] == alpha_dims[i];
  if (!ends_with)
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": Shape passed in must end with broadcasted shape.");
  const int64_t n = NumElements(dims), alphas = NumElements(alpha_dims);
  if (n == 0 || alphas == 0) return;
  const int64_t per_alpha = n / alphas;
  const P* alpha = static_cast<const P*>(TF_TensorData(alpha_t));
  ParallelFor(n, [&](int64_t begin, int64_t end) {
    for (int64_t index = begin; index < end; ++index) {
      const int64_t a = index / per_alpha, s = index % per_alpha;
      out[s * alphas + a] = random_fill::SampleAs<T>(sample(gen, index, AsDouble(alpha[a])));
    }
  }, 64);
}

// StatelessRandomGammaV2: (shape, seed, alpha).
template <typename T>
void GammaV2Compute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  philox::Generator gen;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims) || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
  if (!out || NumElements(dims) == 0) return;
  const TF_Tensor* alpha = BorrowInput(ctx, 2);
  if (alpha) FillPerParameter<T, T>(ctx, op, dims, alpha, Data<T>(out), gen, GammaSample);
}

// StatelessRandomGammaV3: (shape, key, counter, alg, alpha).
template <typename T>
void GammaV3Compute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  philox::Generator gen;
  int alg = 0;
  std::vector<int64_t> dims;
  if (!kernels::KeyCounterAlg(ctx, op, &gen, &alg) || !kernels::ShapeOperand(ctx, op, 0, &dims)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
  if (!out || NumElements(dims) == 0 || !kernels::RequirePhilox(ctx, op, alg)) return;
  const TF_Tensor* alpha = BorrowInput(ctx, 4);
  if (alpha) FillPerParameter<T, T>(ctx, op, dims, alpha, Data<T>(out), gen, GammaSample);
}

// StatelessRandomPoisson: (shape, seed, lam); rates of type R, samples of type U.
template <typename R, typename U>
void PoissonCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  philox::Generator gen;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims) || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  TensorPtr out = AllocateOutput<U>(ctx, 0, dims);
  if (!out || NumElements(dims) == 0) return;
  const TF_Tensor* rate = BorrowInput(ctx, 2);
  if (rate) FillPerParameter<U, R>(ctx, op, dims, rate, Data<U>(out), gen, PoissonSample);
}

template <typename R, typename... Us>
void RegisterPoisson(TF_Status* status) {
  (RegisterKernel(kDevice, {"StatelessRandomPoisson", {{"Rtype", DtypeOf<R>::value}, {"dtype", DtypeOf<Us>::value}}, {},
                            PoissonCompute<R, Us>}, status), ...);
}

template <typename T>
void Register(TF_Status* status) {
  RegisterKernel(kDevice, {"StatelessRandomGammaV2", {{"dtype", DtypeOf<T>::value}}, {}, GammaV2Compute<T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomGammaV3", {{"dtype", DtypeOf<T>::value}}, {}, GammaV3Compute<T>}, status);
}

}  // namespace

void RegisterRandomGammaPoissonKernels(TF_Status* status) {
  Register<Half>(status);
  Register<float>(status);
  Register<double>(status);
  RegisterPoisson<Half, Half, float, double, int32_t, int64_t>(status);
  RegisterPoisson<float, Half, float, double, int32_t, int64_t>(status);
  RegisterPoisson<double, Half, float, double, int32_t, int64_t>(status);
  RegisterPoisson<int32_t, Half, float, double, int32_t, int64_t>(status);
  RegisterPoisson<int64_t, Half, float, double, int32_t, int64_t>(status);
}

}  // namespace cpu
}  // namespace opgen

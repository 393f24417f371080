// StatelessRandomGammaV2 (a [2] seed) and V3 (key, counter, alg): Marsaglia and Tsang's
// transformation-rejection sampler as TensorFlow's CPU kernel runs it, so the values are
// TensorFlow's bit for bit. Output element (sample s of alpha a) draws from its own run
// of 256 Philox blocks, at index a * samples_per_alpha + s (alpha-major, though the
// output is laid out sample-major), taking normals and uniforms (doubles, two per block)
// from the end of each block's pair, as TensorFlow does.
#include <cmath>

#include "random_fill.h"

namespace opgen {
namespace cpu {

namespace {

using random_fill::OpName;

// Draws doubles two per block, the second first.
template <typename Dist>
struct PairStream {
  philox::Generator* gen;
  double v[2];
  int left = 0;
  double operator()() {
    if (left == 0) {
      Dist{}(gen, v);
      left = 2;
    }
    return v[--left];
  }
};

double GammaSample(const philox::Generator& base, int64_t index, double alpha) {
  philox::Generator gen = base;
  gen.Skip(static_cast<uint64_t>(index) * philox::kReservedPerOutput);
  PairStream<kernels::UniformDouble> uniform{&gen};
  if (alpha == 1.0) return -std::log1p(-uniform());  // exponential
  PairStream<kernels::NormalDouble> normal{&gen};
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

template <typename T>
double AsDouble(T v) {
  if constexpr (kIsFloat16<T>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}

// The output (`dims`, ending with alpha's shape) from `gen`.
template <typename T>
void FillGamma(TF_OpKernelContext* ctx, const std::string& op, const std::vector<int64_t>& dims,
               const TF_Tensor* alpha_t, T* out, const philox::Generator& gen) {
  const std::vector<int64_t> alpha_dims = Dims(alpha_t);
  bool ends_with = alpha_dims.size() <= dims.size();
  for (size_t i = 0; ends_with && i < alpha_dims.size(); ++i)
    ends_with = dims[dims.size() - alpha_dims.size() + i] == alpha_dims[i];
  if (!ends_with)
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": Shape passed in must end with broadcasted shape.");
  const int64_t n = NumElements(dims), alphas = NumElements(alpha_dims);
  if (n == 0 || alphas == 0) return;
  const int64_t per_alpha = n / alphas;
  const T* alpha = static_cast<const T*>(TF_TensorData(alpha_t));
  ParallelFor(n, [&](int64_t begin, int64_t end) {
    for (int64_t index = begin; index < end; ++index) {
      const int64_t a = index / per_alpha, s = index % per_alpha;
      const double value = GammaSample(gen, index, AsDouble(alpha[a]));
      out[s * alphas + a] = random_fill::ToOutput<T>(value);
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
  if (alpha) FillGamma<T>(ctx, op, dims, alpha, Data<T>(out), gen);
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
  if (alpha) FillGamma<T>(ctx, op, dims, alpha, Data<T>(out), gen);
}

template <typename T>
void Register(TF_Status* status) {
  RegisterKernel(kDevice, {"StatelessRandomGammaV2", {{"dtype", DtypeOf<T>::value}}, {}, GammaV2Compute<T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomGammaV3", {{"dtype", DtypeOf<T>::value}}, {}, GammaV3Compute<T>}, status);
}

}  // namespace

void RegisterRandomGammaKernels(TF_Status* status) {
  Register<Half>(status);
  Register<float>(status);
  Register<double>(status);
}

}  // namespace cpu
}  // namespace opgen

// StatelessParameterizedTruncatedNormal: TensorFlow's CPU sampler in the output type T,
// bit for bit. Per batch member (the broadcast of means, stddevs, minvals and maxvals),
// with the bounds normalized (and mirrored when the lower one is -inf or the mean lies
// above the upper one): normals rejected outside the bounds when one bound is 1.3
// deviations or more away on the mean's side; uniforms on the bounds with an exponential
// acceptance when the interval is narrow; otherwise an exponential proposal past the
// lower bound. One generator runs through the members in order (TensorFlow's single
// shard; its larger outputs restart the stream per shard, at a point that depends on
// its thread count), whole blocks at a time.
#include <cmath>
#include <utility>

#include "../broadcast_spec.h"
#include "random_fill.h"

namespace opgen {
namespace cpu {

namespace {

using random_fill::OpName;

constexpr int kMaxIterations = 1000;

template <typename T>
struct Dists;
template <>
struct Dists<float> {
  static constexpr int kCount = 4;
  using Uniform = kernels::UniformFloat;
  using Normal = kernels::NormalFloat;
};
template <>
struct Dists<double> {
  static constexpr int kCount = 2;
  using Uniform = kernels::UniformDouble;
  using Normal = kernels::NormalDouble;
};

// Fills out[s * batches + b] for s in [0, per_batch); false (reported) on failure.
template <typename T>
bool SampleMember(TF_OpKernelContext* ctx, philox::Generator* gen, T mean, T stddev, T minval, T maxval,
                  T* out, int64_t batches, int64_t per_batch) {
  constexpr int kCount = Dists<T>::kCount;
  typename Dists<T>::Uniform uniform_dist{};
  typename Dists<T>::Normal normal_dist{};
  if (!(stddev > T(0) && minval < maxval && (std::isfinite(minval) || std::isfinite(maxval)))) {
    Fail(ctx, TF_INVALID_ARGUMENT, "Invalid parameters");
    return false;
  }
  if ((std::isinf(minval) && minval < T(0)) || maxval < mean) {
    std::swap(minval, maxval);
    stddev = -stddev;
  }
  const T norm_min = (minval - mean) / stddev;
  const T norm_max = (maxval - mean) / stddev;
  const T sqrt_factor = std::sqrt((norm_min * norm_min) + T(4));
  const T cutoff = T(2) * std::exp(T(0.5) + (norm_min * (norm_min - sqrt_factor)) / T(4)) / (norm_min + sqrt_factor);
  const T diff = norm_max - norm_min;
  const T kInside = T(1.3);
  int iterations = 0;
  int64_t s = 0;
  T r[kCount];
  auto emit = [&](T v) {
    out[s * batches] = v;
    ++s;
    iterations = 0;
    return s >= per_batch;
  };
  if ((norm_min < -kInside && norm_max >= T(0)) || (norm_max > kInside && norm_min <= T(0))) {
    while (s < per_batch) {
      normal_dist(gen, r);
      for (int i = 0; i < kCount; ++i) {
        if (r[i] >= norm_min && r[i] <= norm_max) {
          if (emit(r[i] * stddev + mean)) break;
        } else if (++iterations > kMaxIterations) {
          Fail(ctx, TF_INTERNAL, "TruncatedNormal randn rejection sampler failed to accept a sample.");
          return false;
        }
      }
    }
  } else if (diff < cutoff) {
    const T plus = norm_min < T(0) ? T(0) : norm_min * norm_min;
    T z[kCount], g[kCount], u[kCount];
    while (s < per_batch) {
      uniform_dist(gen, r);
      for (int i = 0; i < kCount; ++i) {
        z[i] = r[i] * diff + norm_min;
        g[i] = (plus - z[i] * z[i]) / T(2.0);
      }
      uniform_dist(gen, u);
      for (int i = 0; i < kCount; ++i) {
        const bool accept = u[i] <= std::exp(g[i]);
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            Fail(ctx, TF_INTERNAL, "TruncatedNormal uniform rejection sampler failed to  accept a sample.");
            return false;
          }
          if (emit(z[i] * stddev + mean)) break;
        } else {
          ++iterations;
        }
      }
    }
  } else {
    const T alpha = (norm_min + std::sqrt((norm_min * norm_min) + T(4))) / T(2);
    while (s < per_batch) {
      uniform_dist(gen, r);
      for (int i = 0; i < kCount; i += 2) {  // (z, u) pairs
        const T z = -std::log(r[i]) / alpha + norm_min;
        const T x = norm_min < alpha ? alpha - z : norm_min - alpha;
        const T g = std::exp(-x * x / T(2.0));
        const T u = r[i + 1];
        const bool accept = u <= g && z < norm_max;
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            Fail(ctx, TF_INTERNAL,
                 "TruncatedNormal exponential distribution rejection sampler failed to accept a sample.");
            return false;
          }
          if (emit(z * stddev + mean)) break;
        } else {
          ++iterations;
        }
      }
    }
  }
  return true;
}

template <typename T>
void Compute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  const TF_Tensor* seed = BorrowInput(ctx, 1);
  if (!seed) return;
  if (TF_NumDims(seed) != 1 || TF_Dim(seed, 0) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": seed must have shape [2], not " + ShapeString(Dims(seed)));
  const TF_Tensor* params[4];
  std::vector<int64_t> batch;
  for (int i = 0; i < 4; ++i) {
    params[i] = BorrowInput(ctx, 2 + i);
    if (!params[i]) return;
  }
  bool valid = true;
  for (int i = 0; i < 4 && valid; ++i) valid = kernels::BroadcastShape(batch, Dims(params[i]), &batch);
  if (!valid)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                op + ": means, stddevs, minvals, maxvals must have compatible batch dimensions: " +
                    ShapeString(Dims(params[0])) + " vs. " + ShapeString(Dims(params[1])) + " vs. " +
                    ShapeString(Dims(params[2])) + " vs. " + ShapeString(Dims(params[3])));
  std::vector<int64_t> dims;
  if (!random_fill::ShapeEndingWithBatch(ctx, op, batch, &dims)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
  philox::Generator gen;
  if (!out || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  const int64_t n = NumElements(dims);
  if (n == 0) return;
  const int64_t batches = NumElements(batch), per_batch = n / batches;
  std::vector<int64_t> index[4];
  const T* value[4];
  for (int i = 0; i < 4; ++i) {
    index[i] = random_fill::BroadcastIndices(Dims(params[i]), batch);
    value[i] = static_cast<const T*>(TF_TensorData(params[i]));
  }
  T* y = Data<T>(out);
  for (int64_t b = 0; b < batches; ++b) {
    if (!SampleMember<T>(ctx, &gen, value[0][index[0][b]], value[1][index[1][b]], value[2][index[2][b]],
                         value[3][index[3][b]], y + b, batches, per_batch))
      return;
  }
}

}  // namespace

void RegisterRandomTruncatedNormalKernels(TF_Status* status) {
  RegisterKernel(kDevice, {"StatelessParameterizedTruncatedNormal", {{"dtype", TF_FLOAT}}, {}, Compute<float>}, status);
  RegisterKernel(kDevice, {"StatelessParameterizedTruncatedNormal", {{"dtype", TF_DOUBLE}}, {}, Compute<double>}, status);
}

}  // namespace cpu
}  // namespace opgen

// The CPU fill of a random distribution (../random_spec.h), shared by the stateless and
// stateful kernels (random.cc) and tf.random.Generator's kernels (random_generator.cc).
// The generator is counter-based, so threads fill disjoint groups of the output from
// their own counter and the thread count never changes the numbers.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>
#include <string>

#include "../random_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace random_fill {

template <typename T, typename V>
T ToOutput(V v) {
  if constexpr (kIsFloat16<T>) return T(static_cast<float>(v));
  else return static_cast<T>(v);
}

// Output groups of Dist::kCount elements; a group's generator is AtGroup(base, group).
template <typename T, typename Dist>
void FillRandom(const philox::Generator& base, const Dist& dist, T* out, int64_t n) {
  constexpr int kCount = Dist::kCount;
  const int64_t groups = (n + kCount - 1) / kCount;
  ParallelFor(groups, [&](int64_t begin, int64_t end) {
    philox::Generator g = kernels::AtGroup<Dist>(base, begin);
    typename Dist::V v[kCount];
    for (int64_t group = begin; group < end; ++group) {
      if constexpr (Dist::kVariable) g = kernels::AtGroup<Dist>(base, group);
      dist(&g, v);
      const int64_t at = group * kCount;
      const int m = static_cast<int>(std::min<int64_t>(kCount, n - at));
      for (int i = 0; i < m; ++i) out[at + i] = ToOutput<T>(v[i]);
    }
  }, Dist::kVariable ? 256 : 4096);
}

// For the rejection samplers: draws doubles two per block, the second first.
template <typename Dist>
struct PairStream {
  explicit PairStream(philox::Generator* g) : gen(g) {}
  philox::Generator* gen;
  double v[2] = {0, 0};
  int left = 0;
  double operator()() {
    if (left == 0) {
      Dist{}(gen, v);
      left = 2;
    }
    return v[--left];
  }
};

// A sample in the output type. Integers: TensorFlow's infinity is 0 there, and a NaN or
// out-of-range count becomes the type's lowest value, as x86 converts it.
template <typename U>
U SampleAs(double v) {
  if constexpr (std::is_integral_v<U>) {
    if (std::isinf(v) && v > 0) return 0;
    if (!(v >= static_cast<double>(std::numeric_limits<U>::lowest()) &&
          v < -static_cast<double>(std::numeric_limits<U>::lowest())))
      return std::numeric_limits<U>::lowest();
    return static_cast<U>(v);
  } else {
    return random_fill::ToOutput<U>(v);
  }
}

// Index into an operand of shape `dims` (aligned to the right of `out`) for each
// element of the broadcast shape `out`.
inline std::vector<int64_t> BroadcastIndices(const std::vector<int64_t>& dims, const std::vector<int64_t>& out) {
  const int64_t n = NumElements(out);
  std::vector<int64_t> index(static_cast<size_t>(n), 0);
  const size_t lead = out.size() - dims.size();
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, flat = 0, stride = 1;
    for (size_t d = out.size(); d-- > 0;) {
      const int64_t coord = rest % out[d];
      rest /= out[d];
      if (d >= lead) {
        const int64_t size = dims[d - lead];
        if (size != 1) flat += coord * stride;
        stride *= size;
      }
    }
    index[static_cast<size_t>(i)] = flat;
  }
  return index;
}

template <kernels::Kind K, typename T>
auto DistFor() {
  return kernels::DistFor<K, T, Half, BFloat16>();
}

// The node's name, which prefixes error messages.
inline std::string OpName(TF_OpKernelContext* ctx) {
  TF_StringView name = TF_GetOpKernelName(ctx);
  return std::string(name.data, name.len);
}

// The output shape of a stateless sampler with batched parameters: input 0, a vector
// that must end with the parameters' broadcast `batch` shape. False after reporting the
// failure in TensorFlow's words.
inline bool ShapeEndingWithBatch(TF_OpKernelContext* ctx, const std::string& op,
                                 const std::vector<int64_t>& batch, std::vector<int64_t>* dims) {
  const TF_Tensor* shape_t = kernels::BorrowInput(ctx, 0);
  if (!shape_t) return false;
  if (TF_NumDims(shape_t) != 1) {
    kernels::Fail(ctx, TF_INVALID_ARGUMENT,
                  op + ": Input shape should be a vector, got shape: " + ShapeString(kernels::Dims(shape_t)));
    return false;
  }
  if (!kernels::ShapeOperand(ctx, op, 0, dims)) return false;
  bool ends_with = batch.size() <= dims->size();
  for (size_t i = 0; ends_with && i < batch.size(); ++i)
    ends_with = (*dims)[dims->size() - batch.size() + i] == batch[i];
  if (!ends_with) kernels::Fail(ctx, TF_INVALID_ARGUMENT, op + ": Shape passed in must end with broadcasted shape.");
  return ends_with;
}

}  // namespace random_fill
}  // namespace cpu
}  // namespace opgen

// Random ops with host kernels only (a GPU placement falls back here): RandomShuffle and
// StatelessShuffle, which only move rows, and (Stateless)Multinomial, a CDF search per
// sample. The stateful ones are seeded and advanced like the other stateful random
// kernels (../random_spec.h), so they give TensorFlow's values run after run.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "../random_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {

namespace {

// The node's name, which prefixes error messages.
std::string OpName(TF_OpKernelContext* ctx) {
  TF_StringView name = TF_GetOpKernelName(ctx);
  return std::string(name.data, name.len);
}

// RandomShuffle: the rows (slices along dimension 0) in a random order. As TensorFlow's
// kernel: a forward Fisher-Yates walk, row i swapped with row i + w % (n - i) for the
// next 32-bit word w, the words read in order from ceil((n - 1) / 4) reserved blocks;
// fewer than two rows, or at most one element, pass through and draw nothing.
// `reserve(blocks)` gives the generator to draw from.
template <typename Reserve>
void Shuffle(TF_OpKernelContext* ctx, Reserve reserve) {
  const TF_Tensor* input = BorrowInput(ctx, 0);
  if (!input) return;
  const std::vector<int64_t> dims = Dims(input);
  const int64_t elements = NumElements(dims);
  if (elements <= 1 || dims.empty() || dims[0] <= 1) {
    StatusPtr s = NewStatus();
    TF_SetOutput(ctx, 0, input, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
    return;
  }
  const int64_t n = dims[0];
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  philox::Generator gen = reserve(static_cast<uint64_t>(n - 1 + 3) / 4);
  philox::Words words{};
  int used = 4;
  for (int64_t i = 0; i + 1 < n; ++i) {
    if (used == 4) {
      words = gen.Next();
      used = 0;
    }
    const uint32_t range = static_cast<uint32_t>(n - i);  // as TensorFlow's uint32 argument
    std::swap(order[i], order[i + words.w[used++] % range]);
  }
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(input), dims);
  if (!out) return;
  const size_t row = TF_TensorByteSize(input) / static_cast<size_t>(n);
  const char* from = static_cast<const char*>(TF_TensorData(input));
  char* to = static_cast<char*>(TF_TensorData(out.get()));
  for (int64_t i = 0; i < n; ++i) std::memcpy(to + i * row, from + order[i] * row, row);
}

void ShuffleCompute(void* state, TF_OpKernelContext* ctx) {
  Shuffle(ctx, [&](uint64_t blocks) { return kernels::ReserveStatefulBlocks(ctx, state, blocks); });
}

// StatelessShuffle: (value, key, counter, alg); the same walk from the given counter.
void StatelessShuffleCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  philox::Generator gen;
  int alg = 0;
  if (!kernels::KeyCounterAlg(ctx, op, &gen, &alg) || !kernels::RequirePhilox(ctx, op, alg)) return;
  Shuffle(ctx, [&](uint64_t) { return gen; });
}

template <typename T>
double LogitAsDouble(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return static_cast<double>(static_cast<float>(v));
  else
    return static_cast<double>(v);
}

// Multinomial: `num_samples` class indices per row of [batch, classes] logits. As
// TensorFlow's CPU kernel: a row's unnormalized CDF of exp(logit - max finite logit) in
// double over its finite logits, each sample the first class whose CDF passes u * total
// (u a double from two 32-bit words). The words of all rows come from one stream, as
// TensorFlow's do when it runs the batch as one shard (small batches; its larger ones
// restart the stream per shard, at a point that depends on its thread count).
// `reserve(blocks)` gives the generator to draw from.
template <typename T, typename Out, typename Reserve>
void Multinomial(TF_OpKernelContext* ctx, const std::string& op, Reserve reserve) {
  const TF_Tensor* logits = BorrowInput(ctx, 0);
  const TF_Tensor* count = logits ? BorrowInput(ctx, 1) : nullptr;
  if (!count) return;
  const std::vector<int64_t> dims = Dims(logits);
  if (dims.size() != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": logits should be a matrix, got shape " + ShapeString(dims));
  if (TF_NumDims(count) != 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                op + ": num_samples should be a scalar, got shape " + ShapeString(Dims(count)));
  const int64_t samples = *static_cast<const int32_t*>(TF_TensorData(count));
  if (samples < 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                op + ": num_samples should be non-negative, got " + std::to_string(samples));
  const int64_t batch = dims[0], classes = dims[1];
  if (batch > std::numeric_limits<int32_t>::max())
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": batch_size cannot exceed max int");
  if (classes > std::numeric_limits<int32_t>::max())
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": num_classes cannot exceed max int");
  if (classes <= 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                op + ": num_classes should be positive, got " + std::to_string(classes));
  TensorPtr out = kernels::AllocateOutput(ctx, 0, DtypeOf<Out>::value, {batch, samples});
  if (!out || batch * samples == 0) return;
  // TensorFlow reserves 256 blocks per pair of words of the samples rounded up to 4.
  const uint64_t rounded = static_cast<uint64_t>((samples + 3) / 4 * 4) * 2;
  philox::Generator gen = reserve(static_cast<uint64_t>(batch) * rounded * philox::kReservedPerOutput);
  const T* x = static_cast<const T*>(TF_TensorData(logits));
  Out* y = static_cast<Out*>(TF_TensorData(out.get()));
  std::vector<double> cdf(classes);
  philox::Words words{};
  int used = 4;
  auto word = [&]() {
    if (used == 4) {
      words = gen.Next();
      used = 0;
    }
    return words.w[used++];
  };
  for (int64_t b = 0; b < batch; ++b) {
    const T* row = x + b * classes;
    double max = std::numeric_limits<double>::lowest();
    for (int64_t j = 0; j < classes; ++j) {
      const double v = LogitAsDouble(row[j]);
      if (std::isfinite(v)) max = std::max(max, v);
    }
    double total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      const double v = LogitAsDouble(row[j]);
      if (std::isfinite(v)) total += std::exp(v - max);
      cdf[j] = total;
    }
    for (int64_t s = 0; s < samples; ++s) {
      const uint32_t hi = word();
      const uint32_t lo = word();
      const double target = philox::WordsToDouble(hi, lo) * total;
      y[b * samples + s] = static_cast<Out>(std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
    }
  }
}

template <typename T, typename Out>
void MultinomialCompute(void* state, TF_OpKernelContext* ctx) {
  Multinomial<T, Out>(ctx, OpName(ctx), [&](uint64_t blocks) {
    return kernels::ReserveStatefulBlocks(ctx, state, blocks);
  });
}

// StatelessMultinomial: (logits, num_samples, seed); the seed is checked first, as
// TensorFlow's kernel checks it, and the samples come from its scrambled counter.
template <typename T, typename Out>
void StatelessMultinomialCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  philox::Generator gen;
  if (!kernels::StatelessSeed(ctx, op, 2, &gen)) return;
  Multinomial<T, Out>(ctx, op, [&](uint64_t) { return gen; });
}

template <typename T>
void RegisterMultinomial(TF_Status* status) {
  constexpr TF_DataType dt = DtypeOf<T>::value;
  RegisterKernel(kDevice, {"Multinomial", {{"T", dt}, {"output_dtype", TF_INT32}}, {},
                           MultinomialCompute<T, int32_t>, kernels::CreateStatefulRandom,
                           kernels::DeleteStatefulRandom}, status);
  RegisterKernel(kDevice, {"Multinomial", {{"T", dt}, {"output_dtype", TF_INT64}}, {},
                           MultinomialCompute<T, int64_t>, kernels::CreateStatefulRandom,
                           kernels::DeleteStatefulRandom}, status);
  RegisterKernel(kDevice, {"StatelessMultinomial", {{"T", dt}, {"output_dtype", TF_INT32}}, {},
                           StatelessMultinomialCompute<T, int32_t>}, status);
  RegisterKernel(kDevice, {"StatelessMultinomial", {{"T", dt}, {"output_dtype", TF_INT64}}, {},
                           StatelessMultinomialCompute<T, int64_t>}, status);
}

}  // namespace

void RegisterRandomHostKernels(TF_Status* status) {
  RegisterMultinomial<Half>(status);
  RegisterMultinomial<BFloat16>(status);
  RegisterMultinomial<float>(status);
  RegisterMultinomial<double>(status);
  for (TF_DataType t : kAllFixedSizeTypes)
    RegisterKernel(kDevice, {"RandomShuffle", {{"T", t}}, {}, ShuffleCompute,
                             kernels::CreateStatefulRandom, kernels::DeleteStatefulRandom}, status);
  for (TF_DataType t : kAllFixedSizeTypes)
    RegisterKernel(kDevice, {"StatelessShuffle", {{"T", t}}, {}, StatelessShuffleCompute}, status);
}

}  // namespace cpu
}  // namespace opgen

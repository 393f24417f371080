// tf.random.Generator's kernels: samplers that draw from the Philox state in an int64
// resource variable, [counter low 64 bits, counter high 64 bits, key], and move its
// counter past 256 blocks per output element (uint64 arithmetic, wrapping, as
// TensorFlow's); RngSkip and RngReadAndSkip move it by 256 * delta blocks. The state
// is read and advanced under the variable's lock; the output is filled after it, from
// the state as it was, exactly as the stateless V2 ops fill from a key and counter.
#include <cstring>

#include "opgen/c_api_ext.h"
#include "random_fill.h"

namespace opgen {
namespace cpu {

namespace {

using kernels::Kind;
using random_fill::OpName;

constexpr int64_t kPhiloxStateSize = 3;

// Input `i`, the algorithm: a scalar of type A; auto-select means Philox.
template <typename A>
bool Algorithm(TF_OpKernelContext* ctx, const std::string& op, int i) {
  const TF_Tensor* t = BorrowInput(ctx, i);
  if (!t) return false;
  if (TF_NumDims(t) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": input " + std::to_string(i) +
                                       " (0-based) must have shape [], not " + ShapeString(Dims(t)));
    return false;
  }
  const int64_t alg = static_cast<int64_t>(*static_cast<const A*>(TF_TensorData(t)));
  if (alg == philox::kAlgPhilox || alg == philox::kAlgAutoSelect) return true;
  if (alg == philox::kAlgThreeFry)
    Fail(ctx, TF_UNIMPLEMENTED, op + ": Non-XLA devices don't support the ThreeFry algorithm.");
  else
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": Unsupported algorithm id: " + std::to_string(alg));
  return false;
}

// What the update of the state variable reads and leaves.
struct StateUpdate {
  std::string op;
  uint64_t blocks = 0;                  // how far the counter moves
  philox::Generator before;             // the generator at the old state
  int64_t old[kPhiloxStateSize] = {0, 0, 0};
};

void AdvanceState(const TF_Tensor* old_value, TF_Tensor* new_value, void* arg, TF_Status* s) {
  auto* u = static_cast<StateUpdate*>(arg);
  if (TF_NumDims(old_value) != 1) {
    const std::string m = u->op + ": RNG state must have one and only one dimension, not " +
                          std::to_string(TF_NumDims(old_value));
    return TF_SetStatus(s, TF_INVALID_ARGUMENT, m.c_str());
  }
  const int64_t n = TF_Dim(old_value, 0);
  if (n < kPhiloxStateSize) {
    const std::string m = u->op + ": For the Philox algorithm, the size of state must be at least " +
                          std::to_string(kPhiloxStateSize) + "; got " + std::to_string(n);
    return TF_SetStatus(s, TF_INVALID_ARGUMENT, m.c_str());
  }
  const auto* in = static_cast<const int64_t*>(TF_TensorData(old_value));
  auto* out = static_cast<int64_t*>(TF_TensorData(new_value));
  std::memcpy(u->old, in, sizeof u->old);
  uint64_t words[kPhiloxStateSize];
  std::memcpy(words, in, sizeof words);
  u->before = philox::Generator::FromKeyCounter(&words[2], &words[0]);
  philox::Generator after = u->before;
  after.Skip(u->blocks);
  if (out != in) std::memcpy(out, in, static_cast<size_t>(n) * sizeof(int64_t));
  const uint64_t counter[2] = {after.counter[0] | (static_cast<uint64_t>(after.counter[1]) << 32),
                               after.counter[2] | (static_cast<uint64_t>(after.counter[3]) << 32)};
  std::memcpy(out, counter, sizeof counter);
}

// Runs the update on the variable of input 0; false (reported) on error, with the
// runtime's dtype message in TensorFlow's words.
bool UpdateState(TF_OpKernelContext* ctx, StateUpdate* u) {
  StatusPtr s = NewStatus();
  OPGEN_KernelUpdateVariable(ctx, 0, TF_INT64, AdvanceState, u, s.get());
  if (TF_GetCode(s.get()) == TF_OK) return true;
  const std::string message = TF_Message(s.get());
  const std::string wrong = "Trying to update variable with wrong dtype. Expected ";
  if (TF_GetCode(s.get()) == TF_INVALID_ARGUMENT && message.rfind(wrong, 0) == 0) {
    const std::string have = message.substr(wrong.size(), message.find(' ', wrong.size()) - wrong.size());
    Fail(ctx, TF_INVALID_ARGUMENT, u->op + ": dtype of RNG state variable must be int64, not " + have);
  } else {
    TF_OpKernelContext_Failure(ctx, s.get());
  }
  return false;
}

// A sampler: (resource, algorithm, shape[, minval, maxval]). `make_dist` returns the
// distribution, or false after reporting bad bounds.
template <typename T, typename MakeDist>
void Sample(TF_OpKernelContext* ctx, MakeDist make_dist) {
  StateUpdate u;
  u.op = OpName(ctx);
  if (!Algorithm<int64_t>(ctx, u.op, 1)) return;
  auto dist = make_dist(ctx, u.op);
  if (!dist.first) return;
  std::vector<int64_t> dims;
  if (!kernels::ShapeOperand(ctx, u.op, 2, &dims)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
  if (!out) return;
  const int64_t n = NumElements(dims);
  u.blocks = static_cast<uint64_t>(n) * philox::kReservedPerOutput;
  if (!UpdateState(ctx, &u) || n == 0) return;
  random_fill::FillRandom(u.before, dist.second, Data<T>(out), n);
}

template <Kind K, typename T>
void RealCompute(void*, TF_OpKernelContext* ctx) {
  Sample<T>(ctx, [](TF_OpKernelContext*, const std::string&) {
    return std::pair{true, random_fill::DistFor<K, T>()};
  });
}

template <typename T>
void IntCompute(void*, TF_OpKernelContext* ctx) {
  Sample<T>(ctx, [](TF_OpKernelContext* c, const std::string& op) {
    T lo = 0, hi = 0;
    const bool ok = kernels::IntBounds(c, op, 3, 4, false, &lo, &hi);
    return std::pair{ok, kernels::IntDist(ok ? lo : T{0}, ok ? hi : T{1})};
  });
}

template <typename T>
void FullIntCompute(void*, TF_OpKernelContext* ctx) {
  Sample<T>(ctx, [](TF_OpKernelContext*, const std::string&) { return std::pair{true, kernels::FullInt<T>{}}; });
}

// A scalar delta of type D (input 2).
template <typename D>
bool Delta(TF_OpKernelContext* ctx, const std::string& op, uint64_t* delta) {
  const TF_Tensor* t = BorrowInput(ctx, 2);
  if (!t) return false;
  if (TF_NumDims(t) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, op + ": input 2 (0-based) must have shape [], not " + ShapeString(Dims(t)));
    return false;
  }
  *delta = static_cast<uint64_t>(*static_cast<const D*>(TF_TensorData(t)));
  return true;
}

// RngSkip (int64 algorithm and delta) and RngReadAndSkip (int32 alg, uint64 delta, the
// old state as output).
template <typename A, typename D, bool kRead>
void SkipCompute(void*, TF_OpKernelContext* ctx) {
  StateUpdate u;
  u.op = OpName(ctx);
  uint64_t delta = 0;
  if (!Algorithm<A>(ctx, u.op, 1) || !Delta<D>(ctx, u.op, &delta)) return;
  u.blocks = delta * static_cast<uint64_t>(philox::kReservedPerOutput);  // wraps, as TensorFlow's
  if (!UpdateState(ctx, &u) || !kRead) return;
  TensorPtr out = AllocateOutput<int64_t>(ctx, 0, {kPhiloxStateSize});
  if (out) std::memcpy(Data<int64_t>(out), u.old, sizeof u.old);
}

template <typename T>
void RegisterReal(TF_Status* status) {
  constexpr TF_DataType dt = DtypeOf<T>::value;
  RegisterKernel(kDevice, {"StatefulUniform", {{"dtype", dt}}, {}, RealCompute<Kind::kUniform, T>}, status);
  RegisterKernel(kDevice, {"StatefulStandardNormalV2", {{"dtype", dt}}, {}, RealCompute<Kind::kNormal, T>}, status);
  RegisterKernel(kDevice, {"StatefulTruncatedNormal", {{"dtype", dt}}, {}, RealCompute<Kind::kTruncated, T>}, status);
}

template <typename T>
void RegisterFullInt(TF_Status* status) {
  RegisterKernel(kDevice, {"StatefulUniformFullInt", {{"dtype", DtypeOf<T>::value}}, {}, FullIntCompute<T>}, status);
}

}  // namespace

void RegisterRandomGeneratorKernels(TF_Status* status) {
  RegisterReal<Half>(status);
  RegisterReal<BFloat16>(status);
  RegisterReal<float>(status);
  RegisterReal<double>(status);
  RegisterKernel(kDevice, {"StatefulUniformInt", {{"dtype", TF_INT32}}, {}, IntCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"StatefulUniformInt", {{"dtype", TF_INT64}}, {}, IntCompute<int64_t>}, status);
  RegisterFullInt<int32_t>(status);
  RegisterFullInt<int64_t>(status);
  RegisterFullInt<uint32_t>(status);
  RegisterFullInt<uint64_t>(status);
  RegisterKernel(kDevice, {"RngSkip", {}, {}, SkipCompute<int64_t, int64_t, false>}, status);
  RegisterKernel(kDevice, {"RngReadAndSkip", {}, {}, SkipCompute<int32_t, uint64_t, true>}, status);
}

}  // namespace cpu
}  // namespace opgen

// Random ops: the stateless families (a [2] seed, or the V2 key/counter/alg), the key and
// counter derivation ops, and the stateful ops that keep a Philox generator per kernel.
// Each fills its output through random_fill.h.
#include <algorithm>

#include "random_fill.h"

namespace opgen {
namespace cpu {

namespace {

using kernels::AtGroup;
using kernels::FullInt;
using kernels::IntDist;
using kernels::Kind;
using kernels::NormalDouble;
using kernels::NormalFloat;
using kernels::TruncatedDouble;
using kernels::TruncatedFloat;
using kernels::UniformDouble;
using kernels::UniformFloat;
using kernels::UniformInt32;
using kernels::UniformInt64;

using random_fill::DistFor;
using random_fill::FillRandom;
using random_fill::OpName;

template <typename T>
T* NewOutput(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims, TensorPtr* holder) {
  *holder = AllocateOutput<T>(ctx, 0, dims);
  return *holder ? Data<T>(*holder) : nullptr;
}

// StatelessRandomUniform / Normal / TruncatedNormal: (shape, seed).
template <Kind K, typename T>
void StatelessCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  philox::Generator gen;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims) || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (!data) return;
  FillRandom(gen, DistFor<K, T>(), data, NumElements(dims));
}

// StatelessRandomUniformInt: (shape, seed, minval, maxval).
template <typename T>
void StatelessIntCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  philox::Generator gen;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims) || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (!data) return;
  const int64_t n = NumElements(dims);
  if (n == 0) return;
  T lo, hi;
  if (!kernels::IntBounds(ctx, op, 2, 3, false, &lo, &hi)) return;
  FillRandom(gen, IntDist(lo, hi), data, n);
}

// The V2 forms: (shape, key, counter, alg[, minval, maxval]).
template <typename T, typename MakeDist>
void StatelessV2(TF_OpKernelContext* ctx, MakeDist make_dist) {
  const std::string op = OpName(ctx);
  philox::Generator gen;
  int alg = 0;
  if (!kernels::KeyCounterAlg(ctx, op, &gen, &alg)) return;
  std::vector<int64_t> dims;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (!data) return;
  const int64_t n = NumElements(dims);
  if (n == 0) return;
  make_dist(ctx, op, alg, gen, data, n);
}

template <Kind K, typename T>
void StatelessV2Compute(void*, TF_OpKernelContext* ctx) {
  StatelessV2<T>(ctx, [](TF_OpKernelContext* c, const std::string& op, int alg,
                         const philox::Generator& gen, T* data, int64_t n) {
    if (kernels::RequirePhilox(c, op, alg)) FillRandom(gen, DistFor<K, T>(), data, n);
  });
}

template <typename T>
void StatelessIntV2Compute(void*, TF_OpKernelContext* ctx) {
  StatelessV2<T>(ctx, [](TF_OpKernelContext* c, const std::string& op, int alg,
                         const philox::Generator& gen, T* data, int64_t n) {
    T lo, hi;
    if (!kernels::IntBounds(c, op, 4, 5, false, &lo, &hi)) return;
    if (kernels::RequirePhilox(c, op, alg)) FillRandom(gen, IntDist(lo, hi), data, n);
  });
}

template <typename T>
void StatelessFullIntV2Compute(void*, TF_OpKernelContext* ctx) {
  StatelessV2<T>(ctx, [](TF_OpKernelContext* c, const std::string& op, int alg,
                         const philox::Generator& gen, T* data, int64_t n) {
    if (kernels::RequirePhilox(c, op, alg)) FillRandom(gen, FullInt<T>{}, data, n);
  });
}

// StatelessRandomUniformFullInt: (shape, seed). Its OpDef admits unsigned seeds, which
// TensorFlow's kernel refuses once the output is not empty; so does this one.
template <typename T>
void StatelessFullIntCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims)) return;
  const TF_Tensor* seed = BorrowInput(ctx, 1);
  if (!seed) return;
  const TF_DataType seed_type = TF_TensorType(seed);
  philox::Generator gen;
  const bool signed_seed = seed_type == TF_INT32 || seed_type == TF_INT64;
  if (signed_seed && !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  if (!signed_seed && (TF_NumDims(seed) != 1 || TF_Dim(seed, 0) != 2))
    return Fail(ctx, TF_INVALID_ARGUMENT,
                op + ": seed must have shape [2], not " + ShapeString(Dims(seed)));
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (!data) return;
  const int64_t n = NumElements(dims);
  if (n == 0) return;
  if (!signed_seed)
    return Fail(ctx, TF_INVALID_ARGUMENT, op + ": Invalid seed type: " + kernels::DTypeName(seed_type));
  FillRandom(gen, FullInt<T>{}, data, n);
}

// StatelessRandomGetKeyCounter(Alg): the scrambled seed as a [1] key and a [2] counter.
template <bool kWithAlg>
void GetKeyCounterCompute(void*, TF_OpKernelContext* ctx) {
  philox::Generator gen;
  if (!kernels::StatelessSeed(ctx, OpName(ctx), 0, &gen)) return;
  TensorPtr key = AllocateOutput<uint64_t>(ctx, 0, {1});
  TensorPtr counter = key ? AllocateOutput<uint64_t>(ctx, 1, {2}) : nullptr;
  if (!counter) return;
  Data<uint64_t>(key)[0] = gen.key[0] | (static_cast<uint64_t>(gen.key[1]) << 32);
  Data<uint64_t>(counter)[0] = gen.counter[0] | (static_cast<uint64_t>(gen.counter[1]) << 32);
  Data<uint64_t>(counter)[1] = gen.counter[2] | (static_cast<uint64_t>(gen.counter[3]) << 32);
  if constexpr (kWithAlg) {
    TensorPtr alg = AllocateOutput<int32_t>(ctx, 2, {});
    if (alg) Data<int32_t>(alg)[0] = philox::kAlgPhilox;
  }
}

void GetAlgCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr alg = AllocateOutput<int32_t>(ctx, 0, {});
  if (alg) Data<int32_t>(alg)[0] = philox::kAlgPhilox;
}

// RandomUniform / RandomStandardNormal / TruncatedNormal: (shape), seeded by attrs.
template <Kind K, typename T>
void StatefulCompute(void* state, TF_OpKernelContext* ctx) {
  std::vector<int64_t> dims;
  if (!kernels::ShapeOperand(ctx, OpName(ctx), 0, &dims)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (!data) return;
  const int64_t n = NumElements(dims);
  FillRandom(kernels::ReserveStateful(ctx, state, n), DistFor<K, T>(), data, n);
}

// RandomUniformInt: (shape, minval, maxval).
template <typename T>
void StatefulIntCompute(void* state, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims)) return;
  T lo, hi;
  if (!kernels::IntBounds(ctx, op, 1, 2, true, &lo, &hi)) return;  // their shapes, first
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (!data) return;
  const int64_t n = NumElements(dims);
  if (n == 0) return;
  if (!kernels::IntBounds(ctx, op, 1, 2, false, &lo, &hi)) return;
  FillRandom(kernels::ReserveStateful(ctx, state, n), IntDist(lo, hi), data, n);
}

template <typename T>
void RegisterFloatType(TF_Status* status) {
  constexpr TF_DataType dt = DtypeOf<T>::value;
  RegisterKernel(kDevice, {"StatelessRandomUniformV2", {{"dtype", dt}}, {}, StatelessV2Compute<Kind::kUniform, T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomNormalV2", {{"dtype", dt}}, {}, StatelessV2Compute<Kind::kNormal, T>}, status);
  RegisterKernel(kDevice, {"StatelessTruncatedNormalV2", {{"dtype", dt}}, {}, StatelessV2Compute<Kind::kTruncated, T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniform", {{"dtype", dt}}, {}, StatelessCompute<Kind::kUniform, T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomNormal", {{"dtype", dt}}, {}, StatelessCompute<Kind::kNormal, T>}, status);
  RegisterKernel(kDevice, {"StatelessTruncatedNormal", {{"dtype", dt}}, {}, StatelessCompute<Kind::kTruncated, T>}, status);
  using kernels::CreateStatefulRandom;
  using kernels::DeleteStatefulRandom;
  RegisterKernel(kDevice, {"RandomUniform", {{"dtype", dt}}, {}, StatefulCompute<Kind::kUniform, T>,
                           CreateStatefulRandom, DeleteStatefulRandom}, status);
  RegisterKernel(kDevice, {"RandomStandardNormal", {{"dtype", dt}}, {}, StatefulCompute<Kind::kNormal, T>,
                           CreateStatefulRandom, DeleteStatefulRandom}, status);
  RegisterKernel(kDevice, {"TruncatedNormal", {{"dtype", dt}}, {}, StatefulCompute<Kind::kTruncated, T>,
                           CreateStatefulRandom, DeleteStatefulRandom}, status);
}

template <typename T>
void RegisterIntType(TF_Status* status) {
  constexpr TF_DataType dt = DtypeOf<T>::value;
  RegisterKernel(kDevice, {"StatelessRandomUniformInt", {{"dtype", dt}}, {}, StatelessIntCompute<T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformIntV2", {{"dtype", dt}}, {}, StatelessIntV2Compute<T>}, status);
  RegisterKernel(kDevice, {"RandomUniformInt", {{"Tout", dt}}, {}, StatefulIntCompute<T>,
                           kernels::CreateStatefulRandom, kernels::DeleteStatefulRandom}, status);
}

}  // namespace

void RegisterRandomKernels(TF_Status* status) {
  RegisterFloatType<Half>(status);
  RegisterFloatType<BFloat16>(status);
  RegisterFloatType<float>(status);
  RegisterFloatType<double>(status);
  RegisterIntType<int32_t>(status);
  RegisterIntType<int64_t>(status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_INT32}}, {}, StatelessFullIntV2Compute<int32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_INT64}}, {}, StatelessFullIntV2Compute<int64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_UINT32}}, {}, StatelessFullIntV2Compute<uint32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_UINT64}}, {}, StatelessFullIntV2Compute<uint64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_INT32}}, {}, StatelessFullIntCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_INT64}}, {}, StatelessFullIntCompute<int64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_UINT32}}, {}, StatelessFullIntCompute<uint32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_UINT64}}, {}, StatelessFullIntCompute<uint64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomGetKeyCounter", {}, {}, GetKeyCounterCompute<false>}, status);
  RegisterKernel(kDevice, {"StatelessRandomGetKeyCounterAlg", {}, {}, GetKeyCounterCompute<true>}, status);
  RegisterKernel(kDevice, {"StatelessRandomGetAlg", {}, {}, GetAlgCompute}, status);
}

}  // namespace cpu
}  // namespace opgen

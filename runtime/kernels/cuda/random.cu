// Random ops on the GPU: the CPU kernels' operand checks and Philox generator
// (../random_spec.h, ../philox.h); one thread per output group, each starting from its
// own counter, so uniform and integer outputs equal the CPU's bit for bit. Normal
// values go through CUDA's log/sin/cos, which may differ from the host's libm in the
// last bit (as TensorFlow's GPU kernels differ from its CPU ones). Shapes, seeds, keys,
// counters, algorithms and integer bounds are read on the host.
#include <algorithm>

#include "../random_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"

namespace opgen {
namespace cuda {

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

template <typename T, typename Dist>
__global__ void FillGroups(philox::Generator base, Dist dist, T* out, int64_t n, int64_t groups) {
  const int64_t group = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (group >= groups) return;
  philox::Generator g = AtGroup<Dist>(base, group);
  typename Dist::V v[Dist::kCount];
  dist(&g, v);
  const int64_t at = group * Dist::kCount;
  const int m = static_cast<int>(n - at < Dist::kCount ? n - at : Dist::kCount);
  for (int i = 0; i < m; ++i) out[at + i] = Narrow<T>(v[i]);
}

template <typename T, typename Dist>
void FillRandom(TF_OpKernelContext* ctx, const philox::Generator& base, const Dist& dist, T* out,
                int64_t n) {
  if (n == 0) return;
  cudaStream_t stream = GetStream(ctx);
  if (!stream) return;
  const int64_t groups = (n + Dist::kCount - 1) / Dist::kCount;
  const int threads = 256;
  const int64_t blocks = (groups + threads - 1) / threads;
  FillGroups<T, Dist><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(base, dist, out, n, groups);
  CheckLaunch(ctx, "random fill");
}

template <Kind K, typename T>
auto DistFor() {
  return kernels::DistFor<K, T, __half, __nv_bfloat16>();
}

std::string OpName(TF_OpKernelContext* ctx) {
  TF_StringView name = TF_GetOpKernelName(ctx);
  return std::string(name.data, name.len);
}

template <typename T>
T* NewOutput(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims, TensorPtr* holder) {
  *holder = AllocateOutput(ctx, 0, kernels::DtypeOf<T>::value, dims);
  return *holder ? Data<T>(*holder) : nullptr;
}

template <Kind K, typename T>
void StatelessCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  philox::Generator gen;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims) || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (data) FillRandom(ctx, gen, DistFor<K, T>(), data, NumElements(dims));
}

template <typename T>
void StatelessIntCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  philox::Generator gen;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims) || !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  const int64_t n = NumElements(dims);
  if (!data || n == 0) return;
  T lo, hi;
  if (kernels::IntBounds(ctx, op, 2, 3, false, &lo, &hi)) FillRandom(ctx, gen, IntDist(lo, hi), data, n);
}

// The V2 forms: `fill(op, alg, gen, data, n)` after the common checks.
template <typename T, typename Fill>
void StatelessV2(TF_OpKernelContext* ctx, Fill fill) {
  const std::string op = OpName(ctx);
  philox::Generator gen;
  int alg = 0;
  std::vector<int64_t> dims;
  if (!kernels::KeyCounterAlg(ctx, op, &gen, &alg) || !kernels::ShapeOperand(ctx, op, 0, &dims)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  const int64_t n = NumElements(dims);
  if (!data || n == 0) return;
  fill(op, alg, gen, data, n);
}

template <Kind K, typename T>
void StatelessV2Compute(void*, TF_OpKernelContext* ctx) {
  StatelessV2<T>(ctx, [ctx](const std::string& op, int alg, const philox::Generator& gen, T* data, int64_t n) {
    if (kernels::RequirePhilox(ctx, op, alg)) FillRandom(ctx, gen, DistFor<K, T>(), data, n);
  });
}

template <typename T>
void StatelessIntV2Compute(void*, TF_OpKernelContext* ctx) {
  StatelessV2<T>(ctx, [ctx](const std::string& op, int alg, const philox::Generator& gen, T* data, int64_t n) {
    T lo, hi;
    if (kernels::IntBounds(ctx, op, 4, 5, false, &lo, &hi) && kernels::RequirePhilox(ctx, op, alg))
      FillRandom(ctx, gen, IntDist(lo, hi), data, n);
  });
}

template <typename T>
void StatelessFullIntV2Compute(void*, TF_OpKernelContext* ctx) {
  StatelessV2<T>(ctx, [ctx](const std::string& op, int alg, const philox::Generator& gen, T* data, int64_t n) {
    if (kernels::RequirePhilox(ctx, op, alg)) FillRandom(ctx, gen, FullInt<T>{}, data, n);
  });
}

// StatelessRandomUniformFullInt: (shape, seed); unsigned seeds are refused once the
// output is not empty, as the CPU kernel (and TensorFlow) refuse them.
template <typename T>
void StatelessFullIntCompute(void*, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims)) return;
  TensorPtr seed = kernels::Input(ctx, 1);
  if (!seed) return;
  const TF_DataType seed_type = TF_TensorType(seed.get());
  const bool signed_seed = seed_type == TF_INT32 || seed_type == TF_INT64;
  philox::Generator gen;
  if (signed_seed && !kernels::StatelessSeed(ctx, op, 1, &gen)) return;
  if (!signed_seed && (TF_NumDims(seed.get()) != 1 || TF_Dim(seed.get(), 0) != 2))
    return kernels::Fail(ctx, TF_INVALID_ARGUMENT,
                         op + ": seed must have shape [2], not " + kernels::ShapeString(kernels::Dims(seed.get())));
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  const int64_t n = NumElements(dims);
  if (!data || n == 0) return;
  if (!signed_seed)
    return kernels::Fail(ctx, TF_INVALID_ARGUMENT, op + ": Invalid seed type: " + kernels::DTypeName(seed_type));
  FillRandom(ctx, gen, FullInt<T>{}, data, n);
}

template <Kind K, typename T>
void StatefulCompute(void* state, TF_OpKernelContext* ctx) {
  std::vector<int64_t> dims;
  if (!kernels::ShapeOperand(ctx, OpName(ctx), 0, &dims)) return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  if (!data) return;
  const int64_t n = NumElements(dims);
  FillRandom(ctx, kernels::ReserveStateful(ctx, state, n), DistFor<K, T>(), data, n);
}

template <typename T>
void StatefulIntCompute(void* state, TF_OpKernelContext* ctx) {
  const std::string op = OpName(ctx);
  std::vector<int64_t> dims;
  T lo, hi;
  if (!kernels::ShapeOperand(ctx, op, 0, &dims) || !kernels::IntBounds(ctx, op, 1, 2, true, &lo, &hi))
    return;
  TensorPtr out;
  T* data = NewOutput<T>(ctx, dims, &out);
  const int64_t n = NumElements(dims);
  if (!data || n == 0) return;
  if (kernels::IntBounds(ctx, op, 1, 2, false, &lo, &hi))
    FillRandom(ctx, kernels::ReserveStateful(ctx, state, n), IntDist(lo, hi), data, n);
}

const std::vector<const char*> kShapeHost = {"shape"};
const std::vector<const char*> kV2Host = {"shape", "key", "counter", "alg"};

template <typename T>
void RegisterFloatType(TF_Status* status) {
  constexpr TF_DataType dt = kernels::DtypeOf<T>::value;
  const std::vector<const char*> seeded = {"shape", "seed"};
  RegisterKernel(kDevice, {"StatelessRandomUniformV2", {{"dtype", dt}}, kV2Host, StatelessV2Compute<Kind::kUniform, T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomNormalV2", {{"dtype", dt}}, kV2Host, StatelessV2Compute<Kind::kNormal, T>}, status);
  RegisterKernel(kDevice, {"StatelessTruncatedNormalV2", {{"dtype", dt}}, kV2Host, StatelessV2Compute<Kind::kTruncated, T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniform", {{"dtype", dt}}, seeded, StatelessCompute<Kind::kUniform, T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomNormal", {{"dtype", dt}}, seeded, StatelessCompute<Kind::kNormal, T>}, status);
  RegisterKernel(kDevice, {"StatelessTruncatedNormal", {{"dtype", dt}}, seeded, StatelessCompute<Kind::kTruncated, T>}, status);
  using kernels::CreateStatefulRandom;
  using kernels::DeleteStatefulRandom;
  RegisterKernel(kDevice, {"RandomUniform", {{"dtype", dt}}, kShapeHost, StatefulCompute<Kind::kUniform, T>,
                           CreateStatefulRandom, DeleteStatefulRandom}, status);
  RegisterKernel(kDevice, {"RandomStandardNormal", {{"dtype", dt}}, kShapeHost, StatefulCompute<Kind::kNormal, T>,
                           CreateStatefulRandom, DeleteStatefulRandom}, status);
  RegisterKernel(kDevice, {"TruncatedNormal", {{"dtype", dt}}, kShapeHost, StatefulCompute<Kind::kTruncated, T>,
                           CreateStatefulRandom, DeleteStatefulRandom}, status);
}

template <typename T>
void RegisterIntType(TF_Status* status) {
  constexpr TF_DataType dt = kernels::DtypeOf<T>::value;
  RegisterKernel(kDevice, {"StatelessRandomUniformInt", {{"dtype", dt}}, {"shape", "seed", "minval", "maxval"},
                           StatelessIntCompute<T>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformIntV2", {{"dtype", dt}},
                           {"shape", "key", "counter", "alg", "minval", "maxval"}, StatelessIntV2Compute<T>}, status);
  RegisterKernel(kDevice, {"RandomUniformInt", {{"Tout", dt}}, {"shape", "minval", "maxval"}, StatefulIntCompute<T>,
                           kernels::CreateStatefulRandom, kernels::DeleteStatefulRandom}, status);
}

// The key/counter/alg ops compute on the host: every operand and output is in host memory.
void GetKeyCounterAlgCompute(void*, TF_OpKernelContext* ctx) {
  philox::Generator gen;
  if (!kernels::StatelessSeed(ctx, OpName(ctx), 0, &gen)) return;
  TensorPtr key = AllocateOutput(ctx, 0, TF_UINT64, {1});
  TensorPtr counter = key ? AllocateOutput(ctx, 1, TF_UINT64, {2}) : nullptr;
  if (!counter) return;
  Data<uint64_t>(key)[0] = gen.key[0] | (static_cast<uint64_t>(gen.key[1]) << 32);
  Data<uint64_t>(counter)[0] = gen.counter[0] | (static_cast<uint64_t>(gen.counter[1]) << 32);
  Data<uint64_t>(counter)[1] = gen.counter[2] | (static_cast<uint64_t>(gen.counter[3]) << 32);
  if (TF_NumOutputs(ctx) == 3) {
    TensorPtr alg = AllocateOutput(ctx, 2, TF_INT32, {});
    if (alg) Data<int32_t>(alg)[0] = philox::kAlgPhilox;
  }
}

void GetAlgCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr alg = AllocateOutput(ctx, 0, TF_INT32, {});
  if (alg) Data<int32_t>(alg)[0] = philox::kAlgPhilox;
}

}  // namespace

void RegisterRandomKernels(TF_Status* status) {
  RegisterFloatType<__half>(status);
  RegisterFloatType<__nv_bfloat16>(status);
  RegisterFloatType<float>(status);
  RegisterFloatType<double>(status);
  RegisterIntType<int32_t>(status);
  RegisterIntType<int64_t>(status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_INT32}}, kV2Host, StatelessFullIntV2Compute<int32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_INT64}}, kV2Host, StatelessFullIntV2Compute<int64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_UINT32}}, kV2Host, StatelessFullIntV2Compute<uint32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullIntV2", {{"dtype", TF_UINT64}}, kV2Host, StatelessFullIntV2Compute<uint64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_INT32}}, {"shape", "seed"}, StatelessFullIntCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_INT64}}, {"shape", "seed"}, StatelessFullIntCompute<int64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_UINT32}}, {"shape", "seed"}, StatelessFullIntCompute<uint32_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomUniformFullInt", {{"dtype", TF_UINT64}}, {"shape", "seed"}, StatelessFullIntCompute<uint64_t>}, status);
  RegisterKernel(kDevice, {"StatelessRandomGetKeyCounter", {}, {"seed", "key", "counter"}, GetKeyCounterAlgCompute}, status);
  RegisterKernel(kDevice, {"StatelessRandomGetKeyCounterAlg", {}, {"seed", "key", "counter", "alg"},
                           GetKeyCounterAlgCompute}, status);
  RegisterKernel(kDevice, {"StatelessRandomGetAlg", {}, {"alg"}, GetAlgCompute}, status);
}

}  // namespace cuda
}  // namespace opgen

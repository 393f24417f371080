// ResourceScatterNd{Update,Add,Sub,Min,Max} and ResourceGatherNd on the GPU, twins of
// ../cpu/resource_scatter_nd.cc: indices in host memory, checked there with the CPU's
// messages (../resource_scatter_nd_spec.h); the variable's slices gathered or updated on
// the device by csr_reduce.cuh's in-order folds (repeated rows as on the CPU).
#include <cstdint>
#include <string>
#include <vector>

#include "../resource_scatter_nd_spec.h"
#include "csr_reduce.cuh"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cuda {
namespace {

struct NdArgs {
  TF_OpKernelContext* ctx;
  const char* op;
  const TF_Tensor* indices;
  const TF_Tensor* updates;
  bool ignore_bad;
};

template <typename T, typename I, Fold F>
struct ResourceScatterNd {
  static void Apply(const TF_Tensor* old_value, TF_Tensor* new_value, void* arg, TF_Status* s) {
    const auto* a = static_cast<const NdArgs*>(arg);
    const std::vector<int64_t> idims = Dims(a->indices), udims = Dims(a->updates);
    kernels::NdPlan p;
    std::string error;
    std::vector<int64_t> slots;
    if (!kernels::PlanNd(Dims(old_value), idims, &p, &error) ||
        !(error = kernels::NdUpdatesMismatch(p, idims, udims)).empty() ||
        !kernels::NdSlots<I>(a->indices, p, a->ignore_bad, "shape ", &slots, &error)) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(a->op) + ": " + error).c_str());
      return;
    }
    T* out = Data<T>(new_value);
    const T* old = Data<T>(old_value);
    cudaStream_t stream = GetStream(a->ctx);
    if (stream == nullptr) return;
    if (out != old && !CheckCuda(a->ctx, cudaMemcpyAsync(out, old, TF_TensorByteSize(old_value),
                                                         cudaMemcpyDeviceToDevice, stream), a->op))
      return;
    const int64_t slices = p.slice > 0 ? NumElements(p.dims) / p.slice : 0;
    std::vector<int64_t> source(slots.size());
    for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<int64_t>(i);
    LaunchCsrFold<T, F>(a->ctx, a->op, BuildCsr(slots, source, slices), Data<T>(a->updates),
                        out, out, slices, p.slice, Empty::kZero);
  }
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    TensorPtr indices = Input(ctx, 1), updates = Input(ctx, 2);
    if (!indices || !updates) return;
    NdArgs args{ctx,
                F == Fold::kUpdate ? "ResourceScatterNdUpdate"
                : F == Fold::kSum ? "ResourceScatterNdAdd"
                : F == Fold::kSub ? "ResourceScatterNdSub"
                : F == Fold::kScatterMin ? "ResourceScatterNdMin" : "ResourceScatterNdMax",
                indices.get(), updates.get(), kernels::IgnoreBadIndices(state)};
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariable(ctx, 0, DtypeOf<T>::value, &ResourceScatterNd::Apply, &args, s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
  }
};

// W: a word of the variable's element size.
template <typename W, typename I>
void ResourceGatherNdCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr indices = Input(ctx, 1);
  if (!indices) return;
  StatusPtr s = NewStatus();
  TensorPtr var(OPGEN_KernelReadVariable(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), s.get()));
  if (TF_GetCode(s.get()) != TF_OK) return TF_OpKernelContext_Failure(ctx, s.get());
  kernels::NdPlan p;
  std::string error;
  std::vector<int64_t> slots;
  if (!kernels::PlanNd(Dims(var.get()), Dims(indices.get()), &p, &error) ||
      !kernels::NdSlots<I>(indices.get(), p, false, "param shape ", &slots, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "ResourceGatherNd: " + error);
  std::vector<int64_t> out_dims = p.batch;
  out_dims.insert(out_dims.end(), p.dims.begin() + p.depth, p.dims.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(var.get()), out_dims);
  if (!out) return;
  std::vector<int64_t> dest(p.rows);
  for (int64_t r = 0; r < p.rows; ++r) dest[r] = r;
  LaunchCsrFold<W, Fold::kUpdate>(ctx, "ResourceGatherNd", BuildCsr(dest, slots, p.rows),
                                  Data<W>(var.get()), nullptr, Data<W>(out), p.rows, p.slice,
                                  Empty::kZero);
}

template <Fold F, typename I, typename... Ts>
void RegisterNd(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}, {"Tindices", DtypeOf<I>::value}},
       {"ref", "indices"}, &ResourceScatterNd<Ts, I, F>::Compute, kernels::CreateNdAttrs,
       kernels::DeleteNdAttrs}, status), ...);
}

template <typename I>
void RegisterForIndex(TF_Status* status) {
  using Reals = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                      uint8_t, uint16_t, uint32_t, uint64_t>;
  using Numbers = kernels::Concat<Reals, Types<ComplexParts<float>, ComplexParts<double>>>;
  RegisterNd<Fold::kUpdate, I>("ResourceScatterNdUpdate", kernels::Concat<Numbers, Types<bool>>(),
                               status);
  // bool: kSum is or, kSub (a difference that is not 0) exclusive or, as on the CPU
  RegisterNd<Fold::kSum, I>("ResourceScatterNdAdd", kernels::Concat<Numbers, Types<bool>>(),
                            status);
  RegisterNd<Fold::kSub, I>("ResourceScatterNdSub", kernels::Concat<Numbers, Types<bool>>(),
                            status);
  RegisterNd<Fold::kScatterMin, I>("ResourceScatterNdMin", Reals(), status);
  RegisterNd<Fold::kScatterMax, I>("ResourceScatterNdMax", Reals(), status);
  for (TF_DataType t : {TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32,
                        TF_INT64, TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL,
                        TF_COMPLEX64, TF_COMPLEX128}) {
    ComputeFn fn = nullptr;
    switch (TF_DataTypeSize(t)) {
      case 1: fn = ResourceGatherNdCompute<uint8_t, I>; break;
      case 2: fn = ResourceGatherNdCompute<uint16_t, I>; break;
      case 4: fn = ResourceGatherNdCompute<uint32_t, I>; break;
      case 8: fn = ResourceGatherNdCompute<uint64_t, I>; break;
      default: fn = ResourceGatherNdCompute<ComplexParts<double>, I>; break;
    }
    RegisterKernel(kDevice, {"ResourceGatherNd", {{"dtype", t}, {"Tindices", DtypeOf<I>::value}},
                             {"resource", "indices"}, fn}, status);
  }
}

}  // namespace

// The CPU kernels' registrations (../cpu/resource_scatter_nd.cc); handles and indices in
// host memory.
void RegisterResourceScatterNdKernels(TF_Status* status) {
  RegisterForIndex<int32_t>(status);
  RegisterForIndex<int64_t>(status);
}

}  // namespace cuda
}  // namespace opgen

// ResourceGather and ResourceScatter{Add,Sub,Update,Mul,Div,Min,Max} on the GPU, twins of
// ../cpu/resource_scatter.cc: indices in host memory, checked there with the CPU's
// messages (../resource_scatter_spec.h); the variable's rows gathered or updated on the
// device by csr_reduce.cuh's in-order folds (duplicates as on the CPU).
#include <cstdint>
#include <type_traits>
#include <string>
#include <vector>

#include "../resource_scatter_spec.h"
#include "csr_reduce.cuh"
#include "opgen/c_api_ext.h"

namespace opgen {
namespace cuda {
namespace {

bool Ok(TF_OpKernelContext* ctx, TF_Status* s) {
  if (TF_GetCode(s) == TF_OK) return true;
  TF_OpKernelContext_Failure(ctx, s);
  return false;
}

// W: a word of the variable's element size.
template <typename W>
void ResourceGatherCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr indices = Input(ctx, 1);
  if (!indices) return;
  StatusPtr s = NewStatus();
  TensorPtr var(OPGEN_KernelReadVariable(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), s.get()));
  if (!Ok(ctx, s.get())) return;
  const std::vector<int64_t> dims = Dims(var.get());
  kernels::ResourceRowsPlan p;
  std::string error;
  if (!kernels::PlanResourceRows(dims, indices.get(), nullptr, &p, &error))
    return Fail(ctx, TF_INVALID_ARGUMENT, "ResourceGather: " + error);
  std::vector<int64_t> out_dims = p.batch;
  out_dims.insert(out_dims.end(), dims.begin() + 1, dims.end());
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(var.get()), out_dims);
  if (!out) return;
  const int64_t n = static_cast<int64_t>(p.rows.size());
  std::vector<int64_t> dest(n);
  for (int64_t i = 0; i < n; ++i) dest[i] = i;
  LaunchCsrFold<W, Fold::kUpdate>(ctx, "ResourceGather", BuildCsr(dest, p.rows, n),
                                  Data<W>(var.get()), nullptr, Data<W>(out), n, p.slice,
                                  Empty::kZero);
}

struct ScatterArgs {
  TF_OpKernelContext* ctx;
  const char* op;
  const TF_Tensor* indices;
  const TF_Tensor* updates;
};

template <typename T, Fold F>
struct ResourceScatter {
  static void Apply(const TF_Tensor* old_value, TF_Tensor* new_value, void* arg, TF_Status* s) {
    const auto* a = static_cast<const ScatterArgs*>(arg);
    const std::vector<int64_t> udims = Dims(a->updates), dims = Dims(old_value);
    kernels::ResourceRowsPlan p;
    std::string error;
    if (!kernels::PlanResourceRows(dims, a->indices, &udims, &p, &error)) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(a->op) + ": " + error).c_str());
      return;
    }
    T* out = Data<T>(new_value);
    const T* old = Data<T>(old_value);
    cudaStream_t stream = GetStream(a->ctx);
    if (stream == nullptr) return;
    if constexpr (F == Fold::kDiv && std::is_integral_v<T>) {
      // As the CPU kernel: an integer division by zero is refused before any write.
      std::vector<T> host(TF_TensorElementCount(a->updates));
      if (!host.empty() &&
          (!CheckCuda(a->ctx, cudaMemcpyAsync(host.data(), Data<T>(a->updates),
                                              host.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                              stream), a->op) ||
           !CheckCuda(a->ctx, cudaStreamSynchronize(stream), a->op)))
        return;
      for (T u : host)
        if (u == T(0)) {
          TF_SetStatus(s, TF_INVALID_ARGUMENT, (std::string(a->op) + ": updates must not contain 0").c_str());
          return;
        }
    }
    if (out != old && !CheckCuda(a->ctx, cudaMemcpyAsync(out, old, TF_TensorByteSize(old_value),
                                                         cudaMemcpyDeviceToDevice, stream), a->op))
      return;
    std::vector<int64_t> source(p.rows.size());
    for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<int64_t>(i);
    LaunchCsrFold<T, F>(a->ctx, a->op, BuildCsr(p.rows, source, dims[0]), Data<T>(a->updates),
                        out, out, dims[0], p.slice, Empty::kZero, p.scalar_updates);
  }
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr indices = Input(ctx, 1), updates = Input(ctx, 2);
    if (!indices || !updates) return;
    ScatterArgs args{ctx,
                     F == Fold::kSum ? "ResourceScatterAdd"
                     : F == Fold::kSub ? "ResourceScatterSub"
                     : F == Fold::kProd ? "ResourceScatterMul"
                     : F == Fold::kDiv ? "ResourceScatterDiv"
                     : F == Fold::kScatterMin ? "ResourceScatterMin"
                     : F == Fold::kScatterMax ? "ResourceScatterMax" : "ResourceScatterUpdate",
                     indices.get(), updates.get()};
    StatusPtr s = NewStatus();
    OPGEN_KernelUpdateVariable(ctx, 0, DtypeOf<T>::value, &ResourceScatter::Apply, &args, s.get());
    Ok(ctx, s.get());
  }
};

template <Fold F, typename... Ts>
void RegisterScatter(const char* op, Types<Ts...>, TF_Status* status) {
  for (TF_DataType i : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {op, {{"dtype", DtypeOf<Ts>::value}, {"Tindices", i}},
        {"resource", "indices"}, &ResourceScatter<Ts, F>::Compute}, status), ...);
}

using Reals = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                    uint8_t, uint16_t, uint32_t, uint64_t>;
using Numbers = kernels::Concat<Reals, Types<ComplexParts<float>, ComplexParts<double>>>;

}  // namespace

// The CPU kernels' registrations (../cpu/resource_scatter.cc); handles and indices in
// host memory.
void RegisterResourceScatterKernels(TF_Status* status) {
  for (TF_DataType t : {TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32,
                        TF_INT64, TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL,
                        TF_COMPLEX64, TF_COMPLEX128}) {
    ComputeFn fn = nullptr;
    switch (TF_DataTypeSize(t)) {
      case 1: fn = ResourceGatherCompute<uint8_t>; break;
      case 2: fn = ResourceGatherCompute<uint16_t>; break;
      case 4: fn = ResourceGatherCompute<uint32_t>; break;
      case 8: fn = ResourceGatherCompute<uint64_t>; break;
      default: fn = ResourceGatherCompute<ComplexParts<double>>; break;
    }
    for (TF_DataType i : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"ResourceGather", {{"dtype", t}, {"Tindices", i}},
          {"resource", "indices"}, fn, kernels::CreateResourceGather}, status);
  }
  RegisterScatter<Fold::kSum>("ResourceScatterAdd", Numbers(), status);
  RegisterScatter<Fold::kSub>("ResourceScatterSub", Numbers(), status);
  RegisterScatter<Fold::kUpdate>("ResourceScatterUpdate",
                                 kernels::Concat<Numbers, Types<bool>>(), status);
  RegisterScatter<Fold::kProd>("ResourceScatterMul", Numbers(), status);
  RegisterScatter<Fold::kDiv>("ResourceScatterDiv", Numbers(), status);
  RegisterScatter<Fold::kScatterMin>("ResourceScatterMin", Reals(), status);
  RegisterScatter<Fold::kScatterMax>("ResourceScatterMax", Reals(), status);
}

}  // namespace cuda
}  // namespace opgen

// Cast between every pair of real and complex types and bool on the GPU, converting with the CPU
// kernel's own rules (../cast_spec.h): floats truncate toward zero into integers, with
// NaN and out-of-range values giving the type's minimum (narrower and unsigned types
// through int64, wrapping); half and bfloat16 round to nearest even, from double through
// float; non-zero is true. The `Truncate` attr is accepted and ignored, as on the CPU.
// Twin of ../cpu/cast.cc.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../cast_spec.h"
#include "../constant_spec.h"
#include "../misc_spec.h"
#include "cuda_kernel_util.h"
#include "complex_parts.cuh"
#include "cuda_kernels.h"
#include "elementwise_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

// The conversion rules (../cast_spec.h, shared with the CPU kernel) over CUDA's 16-bit
// float types.
struct Float16Types {
  template <typename T>
  static constexpr bool kIs = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
  template <typename T> __host__ __device__ static T From(float f) { return Narrow<T>(f); }
};

template <typename T> struct PartOf { using type = void; };
template <typename R> struct PartOf<ComplexParts<R>> { using type = R; };
template <typename T> constexpr bool kIsComplex = !std::is_void_v<typename PartOf<T>::type>;

// Complex values as on the CPU (TensorFlow's rule): to a real type or bool the real part
// converts; a real value becomes the real part.
template <typename Src, typename Dst>
__device__ Dst Convert(Src x) {
  if constexpr (kIsComplex<Src> && kIsComplex<Dst>) {
    using From = typename PartOf<Src>::type;
    using To = typename PartOf<Dst>::type;
    return Dst(Convert<From, To>(x.re), Convert<From, To>(x.im));
  } else if constexpr (kIsComplex<Src>) {
    return Convert<typename PartOf<Src>::type, Dst>(x.re);
  } else if constexpr (kIsComplex<Dst>) {
    using To = typename PartOf<Dst>::type;
    return Dst(Convert<Src, To>(x), To(0));
  } else {
    return kernels::ConvertValue<Float16Types, Src, Dst>(x);
  }
}

template <typename Src, typename Dst>
struct ConvertFn : Operands<Dst, Src> {
  __device__ Dst operator()(Src x) const { return Convert<Src, Dst>(x); }
};

// Truncate=True to bfloat16: round toward zero (../cast_spec.h).
template <typename Src>
struct TruncateToBfloat16Fn : Operands<__nv_bfloat16, Src> {
  __device__ __nv_bfloat16 operator()(Src x) const {
    __nv_bfloat16_raw raw;
    raw.x = kernels::TruncatedBfloat16Bits(static_cast<float>(x));
    return __nv_bfloat16(raw);
  }
};

// The input and the allocated output of a Cast to `dst`; false when there is nothing
// (more) to do: a failure reported, an empty tensor, or the input forwarded (same type).
bool BeginCast(TF_OpKernelContext* ctx, TF_DataType dst, TensorPtr* x, TensorPtr* y, int64_t* n,
               cudaStream_t* stream) {
  *x = Input(ctx, 0);
  if (!*x) return false;
  if (TF_TensorType(x->get()) == dst) {  // nothing to convert: the input is the output
    StatusPtr s = NewStatus();
    TF_SetOutput(ctx, 0, x->get(), s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
    return false;
  }
  const std::vector<int64_t> dims = Dims(x->get());
  *stream = GetStream(ctx);
  if (*stream == nullptr) return false;
  *y = AllocateOutput(ctx, 0, dst, dims);
  *n = NumElements(dims);
  return *y && *n > 0;
}

template <typename Src, typename Dst>
void CastCompute(void* state, TF_OpKernelContext* ctx) {
  TensorPtr x, y;
  int64_t n = 0;
  cudaStream_t stream = nullptr;
  if (!BeginCast(ctx, DtypeOf<Dst>::value, &x, &y, &n, &stream)) return;
  if constexpr (std::is_same_v<Dst, __nv_bfloat16> && std::is_same_v<Src, float>) {
    if (static_cast<const kernels::CastAttrs*>(state)->truncate) {
      LaunchFlat(ctx, stream, TruncateToBfloat16Fn<Src>(), n, Data<Dst>(y),
                 Operand<Src>{Data<Src>(x), false}, Operand<NoInput>{nullptr, true},
                 Operand<NoInput>{nullptr, true});
      return;
    }
  }
  if constexpr (!std::is_same_v<Src, Dst>) {
    LaunchFlat(ctx, stream, ConvertFn<Src, Dst>(), n, Data<Dst>(y), Operand<Src>{Data<Src>(x), false},
               Operand<NoInput>{nullptr, true}, Operand<NoInput>{nullptr, true});
  }
}

// ---- registration ----------------------------------------------------------------------

template <typename Src, typename... Dsts>
void RegisterFrom(Types<Dsts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"Cast", {{"SrcT", DtypeOf<Src>::value}, {"DstT", DtypeOf<Dsts>::value}}, {},
                       &CastCompute<Src, Dsts>, kernels::CreateCast, kernels::DeleteCast},
            status),
   ...);
}

template <typename... Srcs>
void RegisterAllPairs(Types<Srcs...> types, TF_Status* status) {
  (RegisterFrom<Srcs>(types, status), ...);
}

using CastTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t, bool, ComplexParts<float>,
                        ComplexParts<double>>;

}  // namespace

void RegisterCastKernels(TF_Status* status) {
  RegisterAllPairs(CastTypes(), status);
}

}  // namespace cuda
}  // namespace opgen

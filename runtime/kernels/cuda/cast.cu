// Cast between every pair of real types and bool on the GPU, converting with the CPU
// kernel's own rules (../cast_spec.h): floats truncate toward zero into integers, with
// NaN and out-of-range values giving the type's minimum (narrower and unsigned types
// through int64, wrapping); half and bfloat16 round to nearest even, from double through
// float; non-zero is true. The `Truncate` attr is accepted and ignored, as on the CPU.
// Also the kernels that write a value everywhere: Fill (the value read on the device),
// ZerosLike and OnesLike, for every fixed-size type.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../cast_spec.h"
#include "../constant_spec.h"
#include "../misc_spec.h"
#include "cuda_kernel_util.h"
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

template <typename Src, typename Dst>
struct ConvertFn : Operands<Dst, Src> {
  __device__ Dst operator()(Src x) const { return kernels::ConvertValue<Float16Types, Src, Dst>(x); }
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

// ---- Fill, ZerosLike, OnesLike: bytes, whatever the type -------------------------------

// complex128's element: 16 bytes moved as one.
struct alignas(16) Bytes16 {
  uint64_t low, high;
};

// Copies its one operand: with the operand flagged scalar, a fill from device memory.
template <typename W>
struct CopyFn : Operands<W, W> {
  __device__ W operator()(W x) const { return x; }
};

// A constant known on the host.
template <typename W>
struct ConstantFn : Operands<W> {
  W value;
  __device__ W operator()() const { return value; }
};

bool HasWord(size_t width) {
  return width == 1 || width == 2 || width == 4 || width == 8 || width == 16;
}

// Runs Launch::template Run<W> with W the unsigned word (or Bytes16) of `width` bytes.
template <typename Launch, typename... Args>
bool ByWidth(size_t width, Args&&... args) {
  switch (width) {
    case 1: return Launch::template Run<uint8_t>(args...);
    case 2: return Launch::template Run<uint16_t>(args...);
    case 4: return Launch::template Run<uint32_t>(args...);
    case 8: return Launch::template Run<uint64_t>(args...);
    case 16: return Launch::template Run<Bytes16>(args...);
    default: return false;
  }
}

struct FillFromDevice {
  template <typename W>
  static bool Run(TF_OpKernelContext* ctx, cudaStream_t stream, int64_t n, void* out, const void* value) {
    return LaunchFlat(ctx, stream, CopyFn<W>(), n, static_cast<W*>(out),
                      Operand<W>{static_cast<const W*>(value), true}, Operand<NoInput>{nullptr, true},
                      Operand<NoInput>{nullptr, true});
  }
};

struct FillFromHost {
  template <typename W>
  static bool Run(TF_OpKernelContext* ctx, cudaStream_t stream, int64_t n, void* out,
                  const unsigned char* bytes) {
    ConstantFn<W> f;
    std::memcpy(&f.value, bytes, sizeof(W));
    return LaunchFlat(ctx, stream, f, n, static_cast<W*>(out), Operand<NoInput>{nullptr, true},
                      Operand<NoInput>{nullptr, true}, Operand<NoInput>{nullptr, true});
  }
};

void Unsupported(TF_OpKernelContext* ctx, const char* op, TF_DataType dtype) {
  Fail(ctx, TF_UNIMPLEMENTED, std::string(op) + ": no GPU kernel for dtype " + std::to_string(dtype));
}

// Fill: `dims` in host memory, `value` a scalar on the device, read by the kernel.
void FillCompute(void*, TF_OpKernelContext* ctx) {
  kernels::FillPlan plan;  // the CPU kernel's checks (../constant_spec.h)
  if (!kernels::PlanFill(ctx, &plan)) return;
  const TF_Tensor* value = plan.value.get();
  const std::vector<int64_t>& dims = plan.dims;
  const TF_DataType dtype = TF_TensorType(value);
  if (!HasWord(TF_DataTypeSize(dtype))) {
    Unsupported(ctx, "Fill", dtype);
    return;
  }
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr out = AllocateOutput(ctx, 0, dtype, dims);
  const int64_t n = NumElements(dims);
  if (!out || n == 0) return;
  ByWidth<FillFromDevice>(TF_DataTypeSize(dtype), ctx, stream, n, TF_TensorData(out.get()),
                          static_cast<const void*>(TF_TensorData(value)));
}

// ZerosLike: every supported type's zero is all-zero bytes.
void ZerosLikeCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const TF_DataType dtype = TF_TensorType(x.get());
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr out = AllocateOutput(ctx, 0, dtype, Dims(x.get()));
  if (!out) return;
  const size_t bytes = TF_TensorByteSize(out.get());
  if (bytes > 0)
    CheckCuda(ctx, cudaMemsetAsync(TF_TensorData(out.get()), 0, bytes, stream), "cudaMemsetAsync");
}

// The bytes of one in `dtype` (for complex types 1 + 0i); false for other types.
bool OneOf(TF_DataType dtype, unsigned char bytes[16]) {
  std::memset(bytes, 0, 16);
  auto put = [&](auto v) { std::memcpy(bytes, &v, sizeof v); };
  switch (dtype) {
    case TF_FLOAT: case TF_COMPLEX64: put(1.0f); return true;
    case TF_DOUBLE: case TF_COMPLEX128: put(1.0); return true;
    case TF_HALF: put(uint16_t{0x3c00}); return true;
    case TF_BFLOAT16: put(uint16_t{0x3f80}); return true;
    case TF_INT8: case TF_UINT8: case TF_BOOL: put(uint8_t{1}); return true;
    case TF_INT16: case TF_UINT16: put(uint16_t{1}); return true;
    case TF_INT32: case TF_UINT32: put(uint32_t{1}); return true;
    case TF_INT64: case TF_UINT64: put(uint64_t{1}); return true;
    default: return false;
  }
}

void OnesLikeCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const TF_DataType dtype = TF_TensorType(x.get());
  unsigned char one[16];
  if (!OneOf(dtype, one)) {
    Unsupported(ctx, "OnesLike", dtype);
    return;
  }
  const std::vector<int64_t> dims = Dims(x.get());
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr out = AllocateOutput(ctx, 0, dtype, dims);
  const int64_t n = NumElements(dims);
  if (!out || n == 0) return;
  ByWidth<FillFromHost>(TF_DataTypeSize(dtype), ctx, stream, n, TF_TensorData(out.get()),
                        static_cast<const unsigned char*>(one));
}

// ---- registration ----------------------------------------------------------------------

template <typename Src, typename... Dsts>
void RegisterFrom(Types<Dsts...>, TF_Status* status) {
  (Register(KernelSpec{"Cast", {{"SrcT", DtypeOf<Src>::value}, {"DstT", DtypeOf<Dsts>::value}}, {},
                       &CastCompute<Src, Dsts>, kernels::CreateCast, kernels::DeleteCast},
            status),
   ...);
}

template <typename... Srcs>
void RegisterAllPairs(Types<Srcs...> types, TF_Status* status) {
  (RegisterFrom<Srcs>(types, status), ...);
}

using CastTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t, bool>;

// The byte-moving kernels take every fixed-size type, complex included, as on the CPU.
constexpr TF_DataType kAllFixedSizeTypes[] = {
    TF_FLOAT, TF_DOUBLE, TF_HALF, TF_BFLOAT16, TF_INT8, TF_INT16, TF_INT32, TF_INT64,
    TF_UINT8, TF_UINT16, TF_UINT32, TF_UINT64, TF_BOOL, TF_COMPLEX64, TF_COMPLEX128};

}  // namespace

void RegisterCastKernels(TF_Status* status) {
  RegisterAllPairs(CastTypes(), status);
  for (TF_DataType t : kAllFixedSizeTypes) {
    for (TF_DataType index : {TF_INT32, TF_INT64})
      Register(KernelSpec{"Fill", {{"T", t}, {"index_type", index}}, {"dims"}, &FillCompute}, status);
    Register(KernelSpec{"ZerosLike", {{"T", t}}, {}, &ZerosLikeCompute}, status);
    Register(KernelSpec{"OnesLike", {{"T", t}}, {}, &OnesLikeCompute}, status);
  }
}

}  // namespace cuda
}  // namespace opgen

// Element-wise kernels on the GPU: binary arithmetic and comparisons with numpy
// broadcasting, unary math, logical ops, SelectV2, ClipByValue and AddN. Semantics, dtypes and
// messages are the CPU kernels' (kernels/cpu/elementwise_*.cc); the launch machinery is in
// elementwise_launch.cuh.
//
// The ops' definitions and launch machinery, shared by the elementwise_*.cu files
// (one per op family, so that they compile in parallel). Internal to each including
// file (an unnamed namespace).
#pragma once

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "../elementwise_math_spec.h"
#include "../misc_spec.h"
#include "cuda_kernel_util.h"
#include "complex_parts.cuh"
#include "cuda_kernels.h"
#include "elementwise_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

template <typename T> using Wide = typename ComputeType<T>::type;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ---- wrapping integer arithmetic (as the CPU's: on the unsigned type of the width) -----

template <typename T, typename = void> struct ArithmeticOf { using type = T; };
template <typename T>
struct ArithmeticOf<T, std::enable_if_t<kIsInteger<T>>> {
  using type = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
};
template <typename T> using Arithmetic = typename ArithmeticOf<T>::type;

template <typename T> __device__ __forceinline__ T WrappingAdd(T x, T y) {
  return T(Arithmetic<T>(x) + Arithmetic<T>(y));
}
template <typename T> __device__ __forceinline__ T WrappingSub(T x, T y) {
  return T(Arithmetic<T>(x) - Arithmetic<T>(y));
}
template <typename T> __device__ __forceinline__ T WrappingMul(T x, T y) {
  return T(Arithmetic<T>(x) * Arithmetic<T>(y));
}
template <typename T> __device__ __forceinline__ T WrappingNeg(T x) {
  if constexpr (kIsInteger<T>) return T(Arithmetic<T>(0) - Arithmetic<T>(x));
  else return -x;  // keeps the sign of zero
}

// ---- libm by type (float math in float, double in double) ------------------------------

#define OPGEN_MATH1(Name, f, d)                                           \
  __device__ __forceinline__ float Name(float x) { return f(x); }        \
  __device__ __forceinline__ double Name(double x) { return d(x); }
OPGEN_MATH1(Exp, expf, exp)
OPGEN_MATH1(Expm1, expm1f, expm1)
OPGEN_MATH1(Log, logf, log)
OPGEN_MATH1(Log1p, log1pf, log1p)
OPGEN_MATH1(Sqrt, sqrtf, sqrt)
OPGEN_MATH1(Tanh, tanhf, tanh)
OPGEN_MATH1(Erf, erff, erf)
OPGEN_MATH1(Floor, floorf, floor)
OPGEN_MATH1(Ceil, ceilf, ceil)
OPGEN_MATH1(Erfc, erfcf, erfc)
OPGEN_MATH1(Sin, sinf, sin)
OPGEN_MATH1(Cos, cosf, cos)
OPGEN_MATH1(Rint, rintf, rint)
OPGEN_MATH1(Fabs, fabsf, fabs)
#undef OPGEN_MATH1
__device__ __forceinline__ float Hypot(float x, float y) { return hypotf(x, y); }
__device__ __forceinline__ double Hypot(double x, double y) { return hypot(x, y); }
__device__ __forceinline__ float Pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double Pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float Fmod(float x, float y) { return fmodf(x, y); }
__device__ __forceinline__ double Fmod(double x, double y) { return fmod(x, y); }

// ---- the ops, on the compute type (float for half and bfloat16) ------------------------

// kPredicate: the result is bool rather than the operand type.
// kSignAgnostic: signed integers give the bits unsigned ones do (see KernelType).
// kSwapped: the op is Base with its operands swapped.
struct Arithmetic_ {
  static constexpr bool kPredicate = false, kSignAgnostic = false, kSwapped = false;
};
struct Predicate_ {
  static constexpr bool kPredicate = true, kSignAgnostic = false, kSwapped = false;
};
struct SignAgnostic_ : Arithmetic_ { static constexpr bool kSignAgnostic = true; };

struct AddOp : SignAgnostic_ {
  using Base = AddOp;
  template <typename T> __device__ static T Apply(T x, T y) { return WrappingAdd(x, y); }
};
struct SubOp : SignAgnostic_ {
  using Base = SubOp;
  template <typename T> __device__ static T Apply(T x, T y) { return WrappingSub(x, y); }
};
struct MulOp : SignAgnostic_ {
  using Base = MulOp;
  template <typename T> __device__ static T Apply(T x, T y) { return WrappingMul(x, y); }
};
// Integer division by zero is refused before the kernel runs; MIN / -1 wraps.
struct DivOp : Arithmetic_ {
  using Base = DivOp;
  template <typename T> __device__ static T Apply(T x, T y) {
    if constexpr (kIsInteger<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);
    }
    return x / y;
  }
};
// 0 wherever y is 0 (whatever x is), else x / y.
struct DivNoNanOp : Arithmetic_ {
  using Base = DivNoNanOp;
  template <typename T> __device__ static T Apply(T x, T y) { return y == T(0) ? T(0) : x / y; }
};
// NaN in either operand gives NaN.
struct MaximumOp : Arithmetic_ {
  using Base = MaximumOp;
  template <typename T> __device__ static T Apply(T x, T y) { return x > y || x != x ? x : y; }
};
struct MinimumOp : Arithmetic_ {
  using Base = MinimumOp;
  template <typename T> __device__ static T Apply(T x, T y) { return x < y || x != x ? x : y; }
};
// Integer powers by repeated squaring, wrapping; negative exponents refused beforehand.
struct PowOp : Arithmetic_ {
  using Base = PowOp;
  template <typename T> __device__ static T Apply(T x, T y) {
    if constexpr (kIsInteger<T>) {
      T result = 1;
      for (; y > 0; y >>= 1) {
        if (y & 1) result = WrappingMul(result, x);
        x = WrappingMul(x, x);
      }
      return result;
    } else {
      return Pow(x, y);
    }
  }
};
struct SquaredDifferenceOp : SignAgnostic_ {
  using Base = SquaredDifferenceOp;
  template <typename T> __device__ static T Apply(T x, T y) {
    const T d = WrappingSub(x, y);
    return WrappingMul(d, d);
  }
};
// Floor division and modulo round toward negative infinity.
struct FloorDivOp : Arithmetic_ {
  using Base = FloorDivOp;
  template <typename T> __device__ static T Apply(T x, T y) {
    if constexpr (kIsInteger<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return WrappingNeg(x);
      const T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? T(q - 1) : q;
    } else if constexpr (kIsInteger<T>) {
      return x / y;
    } else {
      return Floor(x / y);
    }
  }
};
struct FloorModOp : Arithmetic_ {
  using Base = FloorModOp;
  template <typename T> __device__ static T Apply(T x, T y) {
    if constexpr (kIsInteger<T> && std::is_signed_v<T>) {
      if (y == T(-1)) return T(0);
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? T(r + y) : r;
    } else if constexpr (kIsInteger<T>) {
      return x % y;
    } else {
      const T r = Fmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
  }
};
struct LessOp : Predicate_ {
  using Base = LessOp;
  template <typename T> __device__ static bool Apply(T x, T y) { return x < y; }
};
struct LessEqualOp : Predicate_ {
  using Base = LessEqualOp;
  template <typename T> __device__ static bool Apply(T x, T y) { return x <= y; }
};
struct GreaterOp : Predicate_ {
  using Base = LessOp;
  static constexpr bool kSwapped = true;
};
struct GreaterEqualOp : Predicate_ {
  using Base = LessEqualOp;
  static constexpr bool kSwapped = true;
};
struct EqualOp : Predicate_ {
  using Base = EqualOp;
  static constexpr bool kSignAgnostic = true;
  template <typename T> __device__ static bool Apply(T x, T y) { return x == y; }
};
struct NotEqualOp : Predicate_ {
  using Base = NotEqualOp;
  static constexpr bool kSignAgnostic = true;
  template <typename T> __device__ static bool Apply(T x, T y) { return x != y; }
};
struct LogicalAndOp : Predicate_ {
  using Base = LogicalAndOp;
  __device__ static bool Apply(bool x, bool y) { return x && y; }
};
struct LogicalOrOp : Predicate_ {
  using Base = LogicalOrOp;
  __device__ static bool Apply(bool x, bool y) { return x || y; }
};
// Bitwise ops: the same bits for signed and unsigned integers of a width.
struct BitwiseAndOp : SignAgnostic_ {
  using Base = BitwiseAndOp;
  template <typename T> __device__ static T Apply(T x, T y) { return T(x & y); }
};
struct BitwiseOrOp : SignAgnostic_ {
  using Base = BitwiseOrOp;
  template <typename T> __device__ static T Apply(T x, T y) { return T(x | y); }
};
struct BitwiseXorOp : SignAgnostic_ {
  using Base = BitwiseXorOp;
  template <typename T> __device__ static T Apply(T x, T y) { return T(x ^ y); }
};

struct UnaryOp_ { static constexpr bool kSignAgnostic = false; };
struct NegOp {
  static constexpr bool kSignAgnostic = true;
  template <typename T> __device__ static T Apply(T x) { return WrappingNeg(x); } };
// NaN stays NaN and -0.0 stays -0.0 (only x < 0 becomes 0), as in TensorFlow.
struct ReluOp : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) {
    if constexpr (std::is_unsigned_v<T>) return x;
    else return x < T(0) ? T(0) : x;
  }
};
struct Relu6Op : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) {
    if constexpr (std::is_unsigned_v<T>) return x > T(6) ? T(6) : x;
    else return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
  }
};
// |-0.0| is +0.0, as in TensorFlow; NaN stays NaN.
struct AbsOp : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) {
    if constexpr (std::is_integral_v<T>) return x < T(0) ? WrappingNeg(x) : x;
    else return x < T(0) ? WrappingNeg(x) : (x == T(0) ? T(0) : x);
  }
};
// NaN is its own sign; the sign of both zeros is +0.0, as in TensorFlow. A complex
// sign is x / |x| (0 at 0), each part scaled by 1 / |x|, as the CPU's.
template <typename T> __device__ __forceinline__ T SignOf(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == T(0) ? T(0) : x));
}
template <typename R> __device__ __forceinline__ ComplexParts<R> SignOf(ComplexParts<R> x) {
  const R magnitude = Hypot(x.re, x.im);
  if (magnitude == R(0)) return ComplexParts<R>(R(0));
  const R scale = R(1) / magnitude;
  return ComplexParts<R>(x.re * scale, x.im * scale);
}
struct SignOp : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) { return SignOf(x); }
};
struct SquareOp {
  static constexpr bool kSignAgnostic = true;
  template <typename T> __device__ static T Apply(T x) { return WrappingMul(x, x); } };
struct ReciprocalOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return T(1) / x; } };
struct ExpOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Exp(x); } };
struct LogOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Log(x); } };
struct Expm1Op : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Expm1(x); } };
struct Log1pOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Log1p(x); } };
struct SqrtOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Sqrt(x); } };
// 1 / sqrt(x) with both steps correctly rounded, as the CPU computes it (rsqrtf is not).
// Complex quotients here are C99's, as the CPU's std::complex forms them (complex_parts.cuh).
template <typename T> __device__ __forceinline__ T OneOver(T x) { return T(1) / x; }
template <typename R> __device__ __forceinline__ ComplexParts<R> OneOver(ComplexParts<R> x) {
  return C99Reciprocal(x);
}
template <typename T> __device__ __forceinline__ T RsqrtOf(T x) { return T(1) / Sqrt(x); }
template <typename R> __device__ __forceinline__ ComplexParts<R> RsqrtOf(ComplexParts<R> x) {
  return FromStd(R(1) / ::cuda::std::sqrt(AsStd(x)));  // the C library's, as the CPU's
}
struct RsqrtOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return RsqrtOf(x); } };
struct TanhOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Tanh(x); } };
struct SigmoidOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return OneOver(T(1) + Exp(-x)); } };
struct ErfOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Erf(x); } };
// log(1 + e^x) without overflow for large x.
struct SoftplusOp : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) {
    return x > T(0) ? x + Log1p(Exp(-x)) : Log1p(Exp(x));
  }
};
struct EluOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return x < T(0) ? Expm1(x) : x; } };
struct SeluOp : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) {
    const T scale = T(1.0507009873554804934193349852946);
    const T alpha = T(1.6732632423543772848170429916717);
    return x < T(0) ? scale * alpha * Expm1(x) : scale * x;
  }
};
struct LogicalNotOp : UnaryOp_ { __device__ static bool Apply(bool x) { return !x; } };
struct InvertOp {
  static constexpr bool kSignAgnostic = true;
  template <typename T> __device__ static T Apply(T x) { return T(~x); }
};
// Issue 17's element-wise ops, as the CPU computes them (kernels/cpu/elementwise_ops.h):
// Round halves to even, Softsign is x / (1 + |x|) as written (infinity gives NaN).
struct ErfcOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Erfc(x); } };
struct SinOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Sin(x); } };
struct CosOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Cos(x); } };
struct FloorOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Floor(x); } };
struct CeilOp : UnaryOp_ { template <typename T> __device__ static T Apply(T x) { return Ceil(x); } };
struct RoundOp : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) {
    if constexpr (kIsInteger<T>) return x;
    else return Rint(x);
  }
};
struct SoftsignOp : UnaryOp_ {
  template <typename T> __device__ static T Apply(T x) { return x / (T(1) + Fabs(x)); }
};

// ---- functors over storage types (see elementwise_launch.cuh) --------------------------

// Op on two T's widened to the compute type; the result narrowed back to T, or bool.
template <typename Op, typename T>
struct BinaryFn : Operands<std::conditional_t<Op::kPredicate, bool, T>, T, T> {
  using typename BinaryFn::Operands::Out;
  __device__ Out operator()(T x, T y) const {
    if constexpr (Op::kPredicate) return Op::Apply(Widen(x), Widen(y));
    else return Narrow<T>(Op::Apply(Widen(x), Widen(y)));
  }
};

template <typename Op, typename T>
struct UnaryFn : Operands<T, T> {
  __device__ T operator()(T x) const { return Narrow<T>(Op::Apply(Widen(x))); }
};

template <typename T>
struct SelectFn : Operands<T, bool, T, T> {
  __device__ T operator()(bool condition, T t, T e) const { return condition ? t : e; }
};

// min(x, hi) first, then max with lo: where lo > hi the result is lo, as TensorFlow's.
template <typename T>
struct ClipFn : Operands<T, T, T, T> {
  __device__ T operator()(T x, T lo, T hi) const {
    const T below_hi = Widen(hi) < Widen(x) ? hi : x;
    return Widen(below_hi) < Widen(lo) ? lo : below_hi;
  }
};

// ComplexAbs: the magnitude of a complex element (complex_parts.cuh) by hypot, as the
// CPU's std::abs.

template <typename Real>
struct ComplexAbsFn : Operands<Real, ComplexParts<Real>> {
  __device__ Real operator()(ComplexParts<Real> z) const { return Hypot(z.re, z.im); }
};

// ---- refusing integer operands without a value ----------------------------------------

// Sets *found when some y[i] is zero (kNegative false) or negative (kNegative true).
template <typename T, bool kNegative>
__global__ void FindBadOperandKernel(const T* __restrict__ y, int64_t n, int* found) {
  for (int64_t i = int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * kThreads) {
    const bool bad = kNegative ? y[i] < T(0) : y[i] == T(0);
    if (bad) *found = 1;
  }
}

// A zeroed device int for FindBadOperandKernel, held by `holder`; nullptr on failure.
inline int* NewFlag(TF_OpKernelContext* ctx, cudaStream_t stream, TensorPtr* holder) {
  *holder = AllocateTemp(ctx, TF_INT32, {1});
  if (!*holder) return nullptr;
  int* flag = Data<int>(*holder);
  return CheckCuda(ctx, cudaMemsetAsync(flag, 0, sizeof(int), stream), "cudaMemsetAsync") ? flag : nullptr;
}

// Waits for the flag; false (after reporting `message`) when it was set. The one place
// these kernels wait for the device, and only for integer division and integer powers.
inline bool FlagClear(TF_OpKernelContext* ctx, cudaStream_t stream, const int* flag, const char* message) {
  if (!CheckLaunch(ctx, "operand check kernel launch")) return false;
  int found = 0;
  if (!CheckCuda(ctx, cudaMemcpyAsync(&found, flag, sizeof(int), cudaMemcpyDeviceToHost, stream),
                 "cudaMemcpyAsync") ||
      !CheckCuda(ctx, cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
    return false;
  if (found == 0) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, message);
  return false;
}

template <typename T, bool kNegative>
bool OperandsValid(TF_OpKernelContext* ctx, cudaStream_t stream, const T* y, int64_t ny) {
  TensorPtr holder;
  int* flag = NewFlag(ctx, stream, &holder);
  if (flag == nullptr) return false;
  FindBadOperandKernel<T, kNegative><<<GridFor(ny, 1), kThreads, 0, stream>>>(y, ny, flag);
  return FlagClear(ctx, stream, flag,
                   kNegative ? "Integers to negative integer powers are not allowed"
                             : "Integer division by zero");
}

// ---- kernels: the shape work in plain functions, the typed launch in templates ---------

// Equal and NotEqual's incompatible_shape_error attr, read as on the CPU
// (../broadcast_spec.h).
struct EqualityAttrs {
  bool incompatible_shape_error = true;
};

inline void* CreateEqualityAttrs(TF_OpKernelConstruction* ctx) {
  return new EqualityAttrs{kernels::IncompatibleShapeError(ctx)};
}
inline void DeleteEqualityAttrs(void* attrs) { delete static_cast<EqualityAttrs*>(attrs); }

struct Call {
  std::vector<TensorPtr> inputs;
  std::vector<std::vector<int64_t>> dims;
  std::vector<int64_t> out_dims;
  cudaStream_t stream = nullptr;
  TensorPtr out;
  std::vector<LaunchPiece> pieces;
  const void* Data(int i) const { return TF_TensorData(inputs[i].get()); }
};

// Reads `arity` inputs, broadcasts their shapes and gets the stream; false when the
// kernel is done (a failure reported, or Equal/NotEqual's scalar answer written, for
// which `equality` is non-null with `not_equal` telling which).
inline bool Begin(TF_OpKernelContext* ctx, int arity, const EqualityAttrs* equality, bool not_equal, Call* call) {
  for (int i = 0; i < arity; ++i) {
    call->inputs.push_back(Input(ctx, i));
    if (!call->inputs.back()) return false;
    call->dims.push_back(Dims(call->inputs.back().get()));
  }
  bool compatible = BroadcastShape(call->dims[0], arity > 1 ? call->dims[1] : call->dims[0], &call->out_dims);
  if (compatible && arity > 2) compatible = BroadcastShape(call->out_dims, call->dims[2], &call->out_dims);
  if (!compatible && equality != nullptr && !equality->incompatible_shape_error) {
    call->stream = GetStream(ctx);
    if (call->stream == nullptr) return false;
    TensorPtr z = AllocateOutput<bool>(ctx, 0, {});
    if (z) CheckCuda(ctx, cudaMemsetAsync(TF_TensorData(z.get()), not_equal ? 1 : 0, 1, call->stream), "cudaMemsetAsync");
    return false;
  }
  if (!compatible) {
    kernels::FailIncompatibleShapes(ctx, call->dims);
    return false;
  }
  call->stream = GetStream(ctx);
  return call->stream != nullptr;
}

// Allocates the output and plans the launches; false when there is nothing (more) to do.
inline bool Plan(TF_OpKernelContext* ctx, TF_DataType out_dtype, Call* call) {
  call->out = AllocateOutput(ctx, 0, out_dtype, call->out_dims);
  if (!call->out || NumElements(call->out_dims) == 0) return false;
  return PlanElementwise(ctx, call->out_dims, call->dims, &call->pieces);
}

// Operand types the kernels run on: where signed and unsigned integers give the same
// bits (wrapping +, -, *, equality), signed ones use the unsigned kernel, and bool's
// equality is uint8's, so that fewer kernels are compiled.
template <typename T, typename = void> struct UnsignedOf { using type = T; };
template <typename T> struct UnsignedOf<T, std::enable_if_t<kIsInteger<T>>> { using type = std::make_unsigned_t<T>; };
template <> struct UnsignedOf<bool> { using type = uint8_t; };
template <typename Op, typename T>
using KernelType = std::conditional_t<Op::kSignAgnostic, typename UnsignedOf<T>::type, T>;

template <typename Op>
struct Binary {
  template <typename T>
  struct Kernel {
    using K = KernelType<Op, T>;
    using F = BinaryFn<typename Op::Base, K>;
    static constexpr bool kEquality = std::is_same_v<Op, EqualOp> || std::is_same_v<Op, NotEqualOp>;
    static void Compute(void* state, TF_OpKernelContext* ctx) {
      Call call;
      if (!Begin(ctx, 2, kEquality ? static_cast<const EqualityAttrs*>(state) : nullptr,
                 std::is_same_v<Op, NotEqualOp>, &call))
        return;
      const int64_t ny = NumElements(call.dims[1]);
      if constexpr (kIsInteger<T> && (std::is_same_v<Op, DivOp> || std::is_same_v<Op, FloorDivOp> ||
                                      std::is_same_v<Op, FloorModOp> ||
                                      kernels::DividesIntegers<Op>::value)) {
        if (ny > 0 && !OperandsValid<T, false>(ctx, call.stream, static_cast<const T*>(call.Data(1)), ny)) return;
      }
      if constexpr (kIsInteger<T> && std::is_signed_v<T> && std::is_same_v<Op, PowOp>) {
        if (ny > 0 && !OperandsValid<T, true>(ctx, call.stream, static_cast<const T*>(call.Data(1)), ny)) return;
      }
      if (Op::kSwapped) {  // Greater(x, y) is Less(y, x)
        std::swap(call.inputs[0], call.inputs[1]);
        std::swap(call.dims[0], call.dims[1]);
      }
      using Out = std::conditional_t<Op::kPredicate, bool, T>;
      if (!Plan(ctx, DtypeOf<Out>::value, &call)) return;
      LaunchPieces(ctx, call.stream, F(), call.pieces, static_cast<typename F::Out*>(TF_TensorData(call.out.get())),
                   call.Data(0), call.Data(1), nullptr);
    }
  };
};

template <typename Op>
struct Unary {
  template <typename T>
  struct Kernel {
    using K = KernelType<Op, T>;
    static void Compute(void*, TF_OpKernelContext* ctx) {
      Call call;  // one operand, as large as the output: always the flat kernel
      if (!Begin(ctx, 1, nullptr, false, &call) || !Plan(ctx, DtypeOf<T>::value, &call)) return;
      LaunchFlat(ctx, call.stream, UnaryFn<Op, K>(), NumElements(call.out_dims),
                 static_cast<K*>(TF_TensorData(call.out.get())), Operand<K>{static_cast<const K*>(call.Data(0)), false},
                 Operand<NoInput>{nullptr, true}, Operand<NoInput>{nullptr, true});
    }
  };
};

// ComplexAbs: complex in, its real type out.
template <typename Real>
void ComplexAbsCompute(void*, TF_OpKernelContext* ctx) {
  Call call;
  if (!Begin(ctx, 1, nullptr, false, &call) || !Plan(ctx, DtypeOf<Real>::value, &call)) return;
  LaunchFlat(ctx, call.stream, ComplexAbsFn<Real>(), NumElements(call.out_dims),
             static_cast<Real*>(TF_TensorData(call.out.get())),
             Operand<ComplexParts<Real>>{static_cast<const ComplexParts<Real>*>(call.Data(0)), false},
             Operand<NoInput>{nullptr, true}, Operand<NoInput>{nullptr, true});
}

// LeakyRelu: x where x > 0, alpha * x elsewhere; alpha read once (../misc_spec.h).
template <typename T>
struct LeakyReluFn : Operands<T, T> {
  float alpha;
  __device__ T operator()(T x) const {
    const Wide<T> v = Widen(x);
    return Narrow<T>(v > Wide<T>(0) ? v : v * static_cast<Wide<T>>(alpha));
  }
};

template <typename T>
void LeakyReluCompute(void* state, TF_OpKernelContext* ctx) {
  Call call;
  if (!Begin(ctx, 1, nullptr, false, &call) || !Plan(ctx, DtypeOf<T>::value, &call)) return;
  LeakyReluFn<T> fn;
  fn.alpha = static_cast<const kernels::LeakyReluAttrs*>(state)->alpha;
  LaunchFlat(ctx, call.stream, fn, NumElements(call.out_dims), static_cast<T*>(TF_TensorData(call.out.get())),
             Operand<T>{static_cast<const T*>(call.Data(0)), false}, Operand<NoInput>{nullptr, true},
             Operand<NoInput>{nullptr, true});
}

// Three operands broadcast together: SelectV2 (condition, t, e), ClipByValue (t, min, max).
template <template <typename> class Fn, typename T, typename K = T>
void TernaryCompute(void*, TF_OpKernelContext* ctx) {
  Call call;
  if (!Begin(ctx, 3, nullptr, false, &call) || !Plan(ctx, DtypeOf<T>::value, &call)) return;
  LaunchPieces(ctx, call.stream, Fn<K>(), call.pieces, static_cast<K*>(TF_TensorData(call.out.get())),
               call.Data(0), call.Data(1), call.Data(2));
}

// AddN: the sum of N same-shape tensors, each addition rounded to T as on the CPU. The
// plain part reads the inputs, checks their shapes and allocates the output (copying
// the one input when N is 1); false when there is nothing more to do.
inline bool BeginAddN(TF_OpKernelContext* ctx, TF_DataType dtype, Call* call) {
  const int n = TF_NumInputs(ctx);
  for (int i = 0; i < n; ++i) {
    call->inputs.push_back(Input(ctx, i));
    if (!call->inputs.back()) return false;
    call->dims.push_back(Dims(call->inputs.back().get()));
    if (call->dims.back() != call->dims[0]) {
      Fail(ctx, TF_INVALID_ARGUMENT, "AddN: inputs must have the same shape: " +
                                         ShapeString(call->dims[0]) + " vs. " + ShapeString(call->dims.back()));
      return false;
    }
  }
  call->out_dims = call->dims[0];
  call->stream = GetStream(ctx);
  if (call->stream == nullptr) return false;
  call->out = AllocateOutput(ctx, 0, dtype, call->out_dims);
  if (!call->out) return false;
  const size_t bytes = TF_TensorByteSize(call->out.get());
  if (bytes == 0) return false;
  if (n == 1) {
    CheckCuda(ctx, cudaMemcpyAsync(TF_TensorData(call->out.get()), call->Data(0), bytes,
                                   cudaMemcpyDeviceToDevice, call->stream),
              "cudaMemcpyAsync");
    return false;
  }
  return true;
}

template <typename T>
void AddNCompute(void*, TF_OpKernelContext* ctx) {
  using K = KernelType<AddOp, T>;
  Call call;
  if (!BeginAddN(ctx, DtypeOf<T>::value, &call)) return;
  const int64_t n = NumElements(call.out_dims);
  K* out = static_cast<K*>(TF_TensorData(call.out.get()));
  const K* sum = static_cast<const K*>(call.Data(0));
  for (size_t i = 1; i < call.inputs.size(); ++i) {  // out = sum + input i, in place after the first
    if (!LaunchFlat(ctx, call.stream, BinaryFn<AddOp, K>(), n, out, Operand<K>{sum, false},
                    Operand<K>{static_cast<const K*>(call.Data(static_cast<int>(i))), false},
                    Operand<NoInput>{nullptr, true}))
      return;
    sum = out;
  }
}

// ---- registration ----------------------------------------------------------------------

using kernels::Concat;

using Floats = Types<float, double, __half, __nv_bfloat16>;
using SignedInts = Types<int8_t, int16_t, int32_t, int64_t>;
using UnsignedInts = Types<uint8_t, uint16_t, uint32_t, uint64_t>;
using Reals = Concat<Floats, SignedInts, UnsignedInts>;
using Ints = Concat<SignedInts, UnsignedInts>;
using Signed = Concat<Floats, SignedInts>;
using RealsAndBool = Concat<Reals, Types<bool>>;
using Complexes = Types<ComplexParts<float>, ComplexParts<double>>;
using RealsAndComplex = Concat<Reals, Complexes>;
// Add (the older AddV2) allows no unsigned type but uint8.
using AddTypes = Concat<Floats, SignedInts, Types<uint8_t>, Complexes>;
// Pow: no unsigned types; SquaredDifference: no narrow integers either.
using PowTypes = Concat<Signed, Complexes>;
using FloatsAndComplex = Concat<Floats, Complexes>;
using SquaredDifferenceTypes = Concat<Floats, Types<int32_t, int64_t>>;
// ClipByValue has no 32- and 64-bit unsigned kernels.
using ClipTypes = Concat<Floats, SignedInts, Types<uint8_t, uint16_t>>;

template <typename Op, typename... Ts>
void RegisterBinary(const char* op, Types<Ts...> types, TF_Status* status) {
  RegisterForTypes<Binary<Op>::template Kernel>(kDevice, op, types, status);
}

template <typename Op, typename... Ts>
void RegisterEquality(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Binary<Op>::template Kernel<Ts>::Compute,
                       &CreateEqualityAttrs, &DeleteEqualityAttrs},
            status),
   ...);
}

template <typename Op, typename... Ts>
void RegisterUnary(const char* op, Types<Ts...> types, TF_Status* status) {
  RegisterForTypes<Unary<Op>::template Kernel>(kDevice, op, types, status);
}

// SelectV2 only moves elements: one kernel per element width.
template <size_t kBytes> struct WordOf;
template <> struct WordOf<1> { using type = uint8_t; };
template <> struct WordOf<2> { using type = uint16_t; };
template <> struct WordOf<4> { using type = uint32_t; };
template <> struct WordOf<8> { using type = uint64_t; };
template <> struct WordOf<16> { using type = ComplexParts<double>; };  // complex128, moved whole

template <typename... Ts>
void RegisterSelect(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {},
                       &TernaryCompute<SelectFn, Ts, typename WordOf<sizeof(Ts)>::type>},
            status),
   ...);
}

template <typename... Ts>
void RegisterAddN(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &AddNCompute<Ts>}, status), ...);
}

template <typename... Ts>
void RegisterClip(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &TernaryCompute<ClipFn, Ts>}, status), ...);
}

template <typename... Ts>
void RegisterLeakyRelu(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &LeakyReluCompute<Ts>,
                       kernels::CreateLeakyRelu, kernels::DeleteLeakyRelu},
            status),
   ...);
}

// Ops on bool without a type attr: no type constraint.
inline void RegisterBoolOp(const char* op, ComputeFn compute, TF_Status* status) {
  RegisterKernel(kDevice, {op, {}, {}, compute}, status);
}

}  // namespace
}  // namespace cuda
}  // namespace opgen

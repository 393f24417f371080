// Kernels that move, reshape or describe data: Identity, Reshape, ExpandDims, Squeeze
// (all sharing the input's buffer), Transpose, ConjugateTranspose, Shape, Size, Rank, ZerosLike, OnesLike,
// Fill.
#include <algorithm>
#include <cstring>

#include "../../src/string_tensor.h"
#include "../constant_spec.h"
#include "../shape_ops.h"
#include "../transpose_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

struct IdentityKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    StatusPtr s = NewStatus();
    TF_SetOutput(ctx, 0, input.get(), s.get());
    if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelContext_Failure(ctx, s.get());
  }
};

// Reshape, ExpandDims, Squeeze: ../shape_ops.h, shared with the CUDA plugin.
using kernels::CreateSqueeze;
using kernels::DeleteSqueeze;
using kernels::ExpandDimsCompute;
using kernels::ReshapeCompute;
using kernels::SqueezeCompute;

// Elements are moved as opaque words of their width, so one instantiation per size
// serves every dtype.
struct Word128 { uint64_t lo, hi; };

template <typename W>
void TransposeWords(const W* in, const std::vector<int64_t>& dims, const std::vector<int64_t>& perm,
                    W* out) {
  const size_t rank = dims.size();
  std::vector<int64_t> out_dims(rank), in_strides(rank, 1), strides(rank);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * dims[d];
  for (size_t d = 0; d < rank; ++d) {
    out_dims[d] = dims[perm[d]];
    strides[d] = in_strides[perm[d]];  // input stride of each output dim
  }
  const int64_t n = NumElements(out_dims);
  if (n == 0) return;
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  // The innermost output dim is a strided copy; an odometer walks the others.
  const int64_t inner = out_dims[rank - 1];
  const int64_t step = strides[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t src = 0;
  for (int64_t i = 0; i < n; i += inner) {
    const W* from = in + src;
    for (int64_t j = 0; j < inner; ++j) out[i + j] = from[j * step];
    for (size_t d = rank - 1; d-- > 0;) {
      src += strides[d];
      if (++index[d] < out_dims[d]) break;
      src -= strides[d] * out_dims[d];
      index[d] = 0;
    }
  }
}

// The permutation checked and the output shape worked out by ../transpose_spec.h
// (shared with the CUDA plugin); here only the copy. Returns the output (null after a
// failure).
TensorPtr TransposeOutput(TF_OpKernelContext* ctx) {
  kernels::TransposePlan plan;
  if (!kernels::PlanTranspose(ctx, &plan)) return nullptr;
  const TF_DataType dtype = TF_TensorType(plan.input.get());
  const size_t width = TF_DataTypeSize(dtype);
  TensorPtr output = kernels::AllocateOutput(ctx, 0, dtype, plan.out_dims);
  if (!output) return nullptr;
  const std::vector<int64_t>& dims = plan.dims;
  const std::vector<int64_t>& perm = plan.perm;
  const void* in = TF_TensorData(plan.input.get());
  void* out = TF_TensorData(output.get());
  switch (width) {
    case 1: TransposeWords(static_cast<const uint8_t*>(in), dims, perm, static_cast<uint8_t*>(out)); break;
    case 2: TransposeWords(static_cast<const uint16_t*>(in), dims, perm, static_cast<uint16_t*>(out)); break;
    case 4: TransposeWords(static_cast<const uint32_t*>(in), dims, perm, static_cast<uint32_t*>(out)); break;
    case 8: TransposeWords(static_cast<const uint64_t*>(in), dims, perm, static_cast<uint64_t*>(out)); break;
    case 16: TransposeWords(static_cast<const Word128*>(in), dims, perm, static_cast<Word128*>(out)); break;
    default:
      Fail(ctx, TF_UNIMPLEMENTED, "Transpose: elements of " + std::to_string(width) + " bytes");
      return nullptr;
  }
  return output;
}

void TransposeCompute(void*, TF_OpKernelContext* ctx) { TransposeOutput(ctx); }

// ConjugateTranspose: the transpose, then complex values conjugated in place.
template <typename R>
void ConjugateInPlace(TF_Tensor* t) {
  auto* v = static_cast<std::complex<R>*>(TF_TensorData(t));
  const int64_t n = TF_TensorElementCount(t);
  for (int64_t i = 0; i < n; ++i) v[i] = std::conj(v[i]);
}
void ConjugateTransposeCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr out = TransposeOutput(ctx);
  if (!out) return;
  if (TF_TensorType(out.get()) == TF_COMPLEX64) ConjugateInPlace<float>(out.get());
  if (TF_TensorType(out.get()) == TF_COMPLEX128) ConjugateInPlace<double>(out.get());
}

// Shape, Size and Rank: ../shape_ops.h, shared with the CUDA plugin.
using kernels::DescribeKernels;

// ZerosLike: every supported type's zero is all-zero bytes.
void ZerosLikeCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  std::vector<int64_t> dims = Dims(input.get());
  StatusPtr s = NewStatus();
  const size_t bytes = TF_TensorByteSize(input.get());
  TensorPtr output(TF_AllocateOutput(ctx, 0, TF_TensorType(input.get()), dims.data(),
                                     static_cast<int>(dims.size()), bytes, s.get()));
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s.get());
    return;
  }
  std::memset(TF_TensorData(output.get()), 0, bytes);
}

// Reshape of strings: the shape as Reshape solves it (one -1 at most), then a deep copy,
// since a view would share the elements' heap memory with no owner count of its own.
void ReshapeStringCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0), shape_t = Input(ctx, 1);
  if (!input || !shape_t) return;
  std::vector<int64_t> shape = IndexValues(shape_t.get());
  const int64_t n = TF_TensorElementCount(input.get());
  int64_t known = 1, unknown_at = -1;
  bool bad = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && unknown_at < 0) {
      unknown_at = static_cast<int64_t>(i);
    } else if (shape[i] < 0 || __builtin_mul_overflow(known, shape[i], &known)) {
      bad = true;
    }
  }
  if (!bad && unknown_at >= 0) {
    if (known > 0 && n % known == 0) shape[unknown_at] = n / known;
    else bad = true;
  }
  if (bad || kernels::CheckedNumElements(shape) != n)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Input to reshape is a tensor with " + std::to_string(n) +
                    " values, but the requested shape " + ShapeString(IndexValues(shape_t.get())) +
                    " does not fit them");
  TensorPtr out(NewStringTensor(shape));
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "Reshape: out of memory for strings");
  const TF_TString* from = StringElements(input.get());
  TF_TString* to = MutableStringElements(out.get());
  for (int64_t i = 0; i < n; ++i)
    if (!AssignString(&to[i], StringElement(&from[i])))
      return Fail(ctx, TF_RESOURCE_EXHAUSTED, "Reshape: out of memory for strings");
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, 0, out.get(), s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

// ZerosLike of strings: empty strings (a new string tensor starts so).
void ZerosLikeStringCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (!input) return;
  TensorPtr out(NewStringTensor(Dims(input.get())));
  if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "ZerosLike: out of memory for strings");
  TF_Status* s = ThreadStatus();
  TF_SetOutput(ctx, 0, out.get(), s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

template <typename T>
struct OnesLikeKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr input = Input(ctx, 0);
    if (!input) return;
    std::vector<int64_t> dims = Dims(input.get());
    TensorPtr output = AllocateOutput<T>(ctx, 0, dims);
    if (!output) return;
    T one;
    if constexpr (kIsFloat16<T>) one = Narrow<T>(1.0f);
    else one = T(1);
    std::fill_n(Data<T>(output), NumElements(dims), one);
  }
};

// Fill copies the value's bytes, whatever its type.
void FillCompute(void*, TF_OpKernelContext* ctx) {
  kernels::FillPlan plan;  // operands checked by ../constant_spec.h, shared with the CUDA plugin
  if (!kernels::PlanFill(ctx, &plan)) return;
  const TF_Tensor* value = plan.value.get();
  const size_t width = TF_TensorByteSize(value);
  const int64_t n = NumElements(plan.dims);
  TensorPtr output = kernels::AllocateOutput(ctx, 0, TF_TensorType(value), plan.dims);
  if (!output) return;
  char* out = static_cast<char*>(TF_TensorData(output.get()));
  const char* v = static_cast<const char*>(TF_TensorData(value));
  const size_t total = static_cast<size_t>(n) * width;
  if (total == 0) return;
  // One copy of the value, then copies of what is already written, doubling up to a block
  // that stays in cache: a few thousand memcpy calls at memory speed for a large output,
  // not one call per element (201M int32s took seconds under the fuzzer's sanitizers).
  const size_t block = std::max(width, (size_t{1} << 16) / width * width);
  std::memcpy(out, v, width);
  for (size_t filled = width; filled < total;) {
    const size_t chunk = std::min({filled, total - filled, block});
    std::memcpy(out + filled, out, chunk);
    filled += chunk;
  }
}

// Empty: zeros of `dtype` (../constant_spec.h checks the shape).
void EmptyCompute(void*, TF_OpKernelContext* ctx) {
  std::vector<int64_t> dims;
  if (!kernels::PlanEmpty(ctx, &dims)) return;
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), dims);
  if (out && TF_TensorByteSize(out.get()) > 0)
    std::memset(TF_TensorData(out.get()), 0, TF_TensorByteSize(out.get()));
}

// Kernels that only look at shapes or move bytes: registered for every fixed-size type.
void RegisterDataKernels(TF_DataType t, TF_Status* status) {
  RegisterKernel(kDevice, {"Identity", {{"T", t}}, {}, &IdentityKernel::Compute}, status);
  for (TF_DataType index : {TF_INT32, TF_INT64}) {
    RegisterKernel(kDevice, {"Reshape", {{"T", t}, {"Tshape", index}}, {}, ReshapeCompute}, status);
    RegisterKernel(kDevice, {"ExpandDims", {{"T", t}, {"Tdim", index}}, {}, ExpandDimsCompute},
        status);
    RegisterKernel(kDevice, {"Transpose", {{"T", t}, {"Tperm", index}}, {}, TransposeCompute},
        status);
    RegisterKernel(kDevice, {"ConjugateTranspose", {{"T", t}, {"Tperm", index}}, {},
        ConjugateTransposeCompute}, status);
    RegisterKernel(kDevice, {"Fill", {{"T", t}, {"index_type", index}}, {}, FillCompute}, status);
  }
  RegisterKernel(kDevice, {"Squeeze", {{"T", t}}, {}, SqueezeCompute, CreateSqueeze, DeleteSqueeze},
      status);
  RegisterKernel(kDevice, {"Shape", {{"T", t}, {"out_type", TF_INT32}}, {},
      &DescribeKernels<int32_t>::Shape}, status);
  RegisterKernel(kDevice, {"Shape", {{"T", t}, {"out_type", TF_INT64}}, {},
      &DescribeKernels<int64_t>::Shape}, status);
  RegisterKernel(kDevice, {"Size", {{"T", t}, {"out_type", TF_INT32}}, {},
      &DescribeKernels<int32_t>::Size}, status);
  RegisterKernel(kDevice, {"Size", {{"T", t}, {"out_type", TF_INT64}}, {},
      &DescribeKernels<int64_t>::Size}, status);
  RegisterKernel(kDevice, {"ShapeN", {{"T", t}, {"out_type", TF_INT32}}, {},
      &DescribeKernels<int32_t>::ShapeN}, status);
  RegisterKernel(kDevice, {"ShapeN", {{"T", t}, {"out_type", TF_INT64}}, {},
      &DescribeKernels<int64_t>::ShapeN}, status);
  RegisterKernel(kDevice, {"Rank", {{"T", t}}, {}, &DescribeKernels<int32_t>::Rank}, status);
  RegisterKernel(kDevice, {"ZerosLike", {{"T", t}}, {}, ZerosLikeCompute}, status);
}

}  // namespace

void RegisterArrayKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes) RegisterDataKernels(t, status);
  // Strings: the kernels that share the input's buffer or read only its shape. The others
  // copy bytes, which would duplicate the TF_TString structs' heap pointers; they are not
  // registered for strings, so a string input finds no kernel.
  RegisterKernel(kDevice, {"Identity", {{"T", TF_STRING}}, {}, &IdentityKernel::Compute}, status);
  // Reshape copies the strings element by element (tf.io.parse_example reshapes string
  // defaults in serving graphs).
  for (TF_DataType index : {TF_INT32, TF_INT64})
    RegisterKernel(kDevice, {"Reshape", {{"T", TF_STRING}, {"Tshape", index}}, {},
                             ReshapeStringCompute}, status);
  RegisterKernel(kDevice, {"Shape", {{"T", TF_STRING}, {"out_type", TF_INT32}}, {},
      &DescribeKernels<int32_t>::Shape}, status);
  RegisterKernel(kDevice, {"Shape", {{"T", TF_STRING}, {"out_type", TF_INT64}}, {},
      &DescribeKernels<int64_t>::Shape}, status);
  RegisterKernel(kDevice, {"ShapeN", {{"T", TF_STRING}, {"out_type", TF_INT32}}, {},
      &DescribeKernels<int32_t>::ShapeN}, status);
  RegisterKernel(kDevice, {"ShapeN", {{"T", TF_STRING}, {"out_type", TF_INT64}}, {},
      &DescribeKernels<int64_t>::ShapeN}, status);
  RegisterKernel(kDevice, {"Size", {{"T", TF_STRING}, {"out_type", TF_INT32}}, {},
      &DescribeKernels<int32_t>::Size}, status);
  RegisterKernel(kDevice, {"Rank", {{"T", TF_STRING}}, {}, &DescribeKernels<int32_t>::Rank}, status);
  RegisterKernel(kDevice, {"ZerosLike", {{"T", TF_STRING}}, {}, ZerosLikeStringCompute}, status);
  RegisterForTypes<OnesLikeKernel>(kDevice, 
      "OnesLike", Concat<RealAndBoolTypes, Types<std::complex<float>, std::complex<double>>>(), status);
  RegisterKernel(kDevice, {"NoOp", {}, {}, [](void*, TF_OpKernelContext*) {}}, status);
  for (TF_DataType t : kAllFixedSizeTypes)
    RegisterKernel(kDevice, {"Empty", {{"dtype", t}}, {}, EmptyCompute}, status);
  RegisterKernel(kDevice, {"BroadcastArgs", {{"T", TF_INT32}}, {},
      kernels::BroadcastArgsCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"BroadcastArgs", {{"T", TF_INT64}}, {},
      kernels::BroadcastArgsCompute<int64_t>}, status);
}

}  // namespace cpu
}  // namespace opgen

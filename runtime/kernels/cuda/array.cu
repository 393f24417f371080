// Kernels that reshape, describe or fill data on the GPU: Identity, NoOp, Reshape,
// ExpandDims, Squeeze, Transpose, ConjugateTranspose, Shape, Size, Rank, Fill, ZerosLike and OnesLike.
// Twin of ../cpu/array.cc: the same ops and dtypes, and the shape checks and error
// messages of the shared ../*_spec.h headers.
#include <cstdint>
#include <cstring>
#include <vector>

#include "../constant_spec.h"
#include "../misc_spec.h"
#include "../shape_ops.h"
#include "../transpose_spec.h"
#include "byte_copy.cuh"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "elementwise_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

// ---- Identity, NoOp -------------------------------------------------------------------

void IdentityCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr input = Input(ctx, 0);
  if (input) SetOutput(ctx, 0, input.get());
}

void NoOpCompute(void*, TF_OpKernelContext*) {}

// ---- Reshape, ExpandDims, Squeeze -----------------------------------------------------
// The CPU kernels' own code (../shape_ops.h): the output shares the input's device
// buffer under the new shape, so nothing is copied.
using kernels::CreateSqueeze;
using kernels::DeleteSqueeze;
using kernels::ExpandDimsCompute;
using kernels::ReshapeCompute;
using kernels::SqueezeCompute;

// ---- Transpose ------------------------------------------------------------------------

constexpr int kTileEdge = 32;   // tile edge of the shared-memory transpose
constexpr int kTileRows = 8;    // rows of threads: each thread moves kTileEdge / kTileRows elements

// out[b][c][r] = in[b][r][c] for in of shape [batches, rows, cols], through a padded
// shared-memory tile so that reads and writes both go along rows.
template <typename W>
__global__ void __launch_bounds__(kTileEdge * kTileRows)
    TransposeTileKernel(const W* __restrict__ in, W* __restrict__ out, int64_t batches,
                        int64_t rows, int64_t cols) {
  __shared__ W tile[kTileEdge][kTileEdge + 1];
  const int64_t row_tiles = (rows + kTileEdge - 1) / kTileEdge, col_tiles = (cols + kTileEdge - 1) / kTileEdge;
  for (int64_t b = blockIdx.z; b < batches; b += gridDim.z) {
    const W* src = in + b * rows * cols;
    W* dst = out + b * rows * cols;
    for (int64_t rt = blockIdx.y; rt < row_tiles; rt += gridDim.y) {
      for (int64_t ct = blockIdx.x; ct < col_tiles; ct += gridDim.x) {
        const int64_t r0 = rt * kTileEdge, c0 = ct * kTileEdge;
        for (int k = threadIdx.y; k < kTileEdge; k += kTileRows) {
          const int64_t r = r0 + k, c = c0 + threadIdx.x;
          if (r < rows && c < cols) tile[k][threadIdx.x] = src[r * cols + c];
        }
        __syncthreads();
        for (int k = threadIdx.y; k < kTileEdge; k += kTileRows) {
          const int64_t c = c0 + k, r = r0 + threadIdx.x;
          if (c < cols && r < rows) dst[c * rows + r] = tile[threadIdx.x][k];
        }
        __syncthreads();  // the tile is refilled by the next iteration
      }
    }
  }
}

// Whether merged output dims (with their input strides) swap the last two of at most
// three merged input dims, [B, R, C] -> [B, C, R]: what the shared-memory tiles do.
bool SwapsLastTwo(const std::vector<MapDim>& merged, int64_t* batches, int64_t* rows, int64_t* cols) {
  const size_t m = merged.size();
  if (m != 2 && m != 3) return false;
  if (merged[m - 2].stride != 1 || merged[m - 1].stride != merged[m - 2].out) return false;
  if (m == 3 && merged[0].stride != merged[1].out * merged[2].out) return false;
  *batches = m == 3 ? merged[0].out : 1;
  *rows = merged[m - 1].out;
  *cols = merged[m - 2].out;
  return true;
}

// The permutation checked and the output shape worked out by the CPU kernel's own code
// (../transpose_spec.h); here only the copy. Returns the output (null after a failure or
// when it is empty).
TensorPtr TransposeOutput(TF_OpKernelContext* ctx, cudaStream_t* stream_out) {
  kernels::TransposePlan plan;
  if (!kernels::PlanTranspose(ctx, &plan)) return nullptr;
  const TF_Tensor* input = plan.input.get();
  const std::vector<int64_t>& dims = plan.dims;
  const std::vector<int64_t>& perm = plan.perm;
  const std::vector<int64_t>& out_dims = plan.out_dims;
  const size_t rank = dims.size();
  TensorPtr output = AllocateLike(ctx, 0, input, out_dims);
  if (!output) return nullptr;
  const int64_t n = NumElements(out_dims);
  if (n == 0) return nullptr;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return nullptr;
  *stream_out = stream;
  const std::vector<int64_t> in_strides = StridesOf(dims);
  std::vector<MapDim> map(rank);
  for (size_t d = 0; d < rank; ++d) map[d] = MapDim{out_dims[d], in_strides[perm[d]], 0, 0};
  const int64_t esize = ElementBytes(input);
  const void* in = TF_TensorData(input);
  void* out = TF_TensorData(output.get());
  int64_t batches, rows, cols;
  if (!SwapsLastTwo(Collapse(MapKind::kLinear, map), &batches, &rows, &cols)) {
    StridedCopy(ctx, stream, "Transpose", MapKind::kLinear, map, 0, esize, in, out, n);
    return output;
  }
  const int64_t row_tiles = (rows + kTileEdge - 1) / kTileEdge, col_tiles = (cols + kTileEdge - 1) / kTileEdge;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(col_tiles, 1 << 30)),
                  static_cast<unsigned>(std::min<int64_t>(row_tiles, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(batches, 65535)));
  const dim3 block(kTileEdge, kTileRows);
  WithWord(esize, [&](auto w) {
    using W = decltype(w);
    TransposeTileKernel<W><<<grid, block, 0, stream>>>(static_cast<const W*>(in), static_cast<W*>(out),
                                                       batches, rows, cols);
  });
  if (!CheckLaunch(ctx, "Transpose")) return nullptr;
  return output;
}

void TransposeCompute(void*, TF_OpKernelContext* ctx) {
  cudaStream_t stream = nullptr;
  TransposeOutput(ctx, &stream);
}

// ConjugateTranspose: the transpose, then the imaginary parts (odd R words) negated.
template <typename R>
__global__ void NegateImagKernel(R* __restrict__ parts, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    parts[2 * i + 1] = -parts[2 * i + 1];
}

void ConjugateTransposeCompute(void*, TF_OpKernelContext* ctx) {
  cudaStream_t stream = nullptr;
  TensorPtr out = TransposeOutput(ctx, &stream);
  if (!out) return;
  const TF_DataType dtype = TF_TensorType(out.get());
  const int64_t n = TF_TensorElementCount(out.get());
  if (dtype == TF_COMPLEX64)
    NegateImagKernel<float><<<BlocksFor(n), kThreads, 0, stream>>>(Data<float>(out), n);
  else if (dtype == TF_COMPLEX128)
    NegateImagKernel<double><<<BlocksFor(n), kThreads, 0, stream>>>(Data<double>(out), n);
  else
    return;
  CheckLaunch(ctx, "ConjugateTranspose");
}

// ---- Shape, Size, Rank ----------------------------------------------------------------

// Shape, Size and Rank: the CPU kernels' own code (../shape_ops.h); the input is left on
// the device, never read.
using kernels::DescribeKernels;

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

// Empty: zeros of `dtype` (../constant_spec.h checks the shape, a host input).
void EmptyCompute(void*, TF_OpKernelContext* ctx) {
  std::vector<int64_t> dims;
  if (!kernels::PlanEmpty(ctx, &dims)) return;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr out = AllocateOutput(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), dims);
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

}  // namespace

void RegisterArrayKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes) {
    RegisterKernel(kDevice, {"Identity", {{"T", t}}, {}, IdentityCompute}, status);
    for (TF_DataType index : kIndexTypes) {
      RegisterKernel(kDevice, {"Reshape", {{"T", t}, {"Tshape", index}}, {"shape"}, ReshapeCompute},
                     status);
      RegisterKernel(kDevice, {"ExpandDims", {{"T", t}, {"Tdim", index}}, {"dim"}, ExpandDimsCompute},
                     status);
      RegisterKernel(kDevice, {"Transpose", {{"T", t}, {"Tperm", index}}, {"perm"}, TransposeCompute},
                     status);
      RegisterKernel(kDevice, {"ConjugateTranspose", {{"T", t}, {"Tperm", index}}, {"perm"},
                               ConjugateTransposeCompute}, status);
      RegisterKernel(kDevice, {"Fill", {{"T", t}, {"index_type", index}}, {"dims"}, &FillCompute},
                     status);
    }
    RegisterKernel(kDevice, {"Squeeze", {{"T", t}}, {}, SqueezeCompute, CreateSqueeze, DeleteSqueeze},
                   status);
    RegisterKernel(kDevice, {"Shape", {{"T", t}, {"out_type", TF_INT32}}, {"output"},
                             &DescribeKernels<int32_t>::Shape}, status);
    RegisterKernel(kDevice, {"Shape", {{"T", t}, {"out_type", TF_INT64}}, {"output"},
                             &DescribeKernels<int64_t>::Shape}, status);
    RegisterKernel(kDevice, {"Size", {{"T", t}, {"out_type", TF_INT32}}, {"output"},
                             &DescribeKernels<int32_t>::Size}, status);
    RegisterKernel(kDevice, {"Size", {{"T", t}, {"out_type", TF_INT64}}, {"output"},
                             &DescribeKernels<int64_t>::Size}, status);
    RegisterKernel(kDevice, {"ShapeN", {{"T", t}, {"out_type", TF_INT32}}, {"output"},
                             &DescribeKernels<int32_t>::ShapeN}, status);
    RegisterKernel(kDevice, {"ShapeN", {{"T", t}, {"out_type", TF_INT64}}, {"output"},
                             &DescribeKernels<int64_t>::ShapeN}, status);
    RegisterKernel(kDevice, {"Rank", {{"T", t}}, {"output"}, &DescribeKernels<int32_t>::Rank}, status);
    RegisterKernel(kDevice, {"ZerosLike", {{"T", t}}, {}, &ZerosLikeCompute}, status);
    RegisterKernel(kDevice, {"Empty", {{"dtype", t}}, {"shape"}, &EmptyCompute}, status);
    RegisterKernel(kDevice, {"OnesLike", {{"T", t}}, {}, &OnesLikeCompute}, status);
  }
  RegisterKernel(kDevice, {"NoOp", {}, {}, NoOpCompute}, status);
  // Shapes in, a shape out: host memory, as TensorFlow's GPU kernel has it.
  RegisterKernel(kDevice, {"BroadcastArgs", {{"T", TF_INT32}}, {"s0", "s1", "r0"},
                           kernels::BroadcastArgsCompute<int32_t>}, status);
  RegisterKernel(kDevice, {"BroadcastArgs", {{"T", TF_INT64}}, {"s0", "s1", "r0"},
                           kernels::BroadcastArgsCompute<int64_t>}, status);
}

}  // namespace cuda
}  // namespace opgen

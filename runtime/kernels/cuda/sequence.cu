// Roll, ReverseSequence and LinSpace on the GPU. Twin of ../cpu/sequence.cc: operands
// are checked on the host (../sequence_spec.h; shift, axis, seq_lengths, start, stop and
// num stay in host memory), then one pass maps each output element to its source,
// moving elements as opaque words.
#include "../sequence_spec.h"
#include "cuda_kernel_util.h"
#include "cuda_kernels.h"
#include "fixed_size_words.cuh"

namespace opgen {
namespace cuda {
namespace {

constexpr int kMaxDims = 8;

// How output coordinates map to input ones: a roll by `shift` per dimension, or a
// reverse of the first lengths[batch coordinate] entries along `seq`.
struct MapParams {
  int rank = 0;
  int64_t dims[kMaxDims] = {};
  int64_t shift[kMaxDims] = {};
  int seq = -1, batch = -1;
  const int64_t* lengths = nullptr;  // device memory, ReverseSequence only
};

template <typename W>
__global__ void MapCopy(const W* __restrict__ x, W* __restrict__ y, int64_t n, MapParams p) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t coord[kMaxDims];
    int64_t rest = i;
    for (int d = p.rank - 1; d >= 0; --d) {
      coord[d] = rest % p.dims[d];
      rest /= p.dims[d];
    }
    if (p.seq >= 0) {
      const int64_t len = p.lengths[coord[p.batch]];
      if (coord[p.seq] < len) coord[p.seq] = len - 1 - coord[p.seq];
    } else {
      for (int d = 0; d < p.rank; ++d) {
        const int64_t s = coord[d] - p.shift[d];
        coord[d] = s < 0 ? s + p.dims[d] : s;
      }
    }
    int64_t src = 0;
    for (int d = 0; d < p.rank; ++d) src = src * p.dims[d] + coord[d];
    y[i] = x[src];
  }
}

bool FillParams(TF_OpKernelContext* ctx, const std::vector<int64_t>& dims, MapParams* p) {
  if (dims.size() > kMaxDims) {
    Fail(ctx, TF_UNIMPLEMENTED, "GPU kernel: at most 8 dimensions, got " +
                                    std::to_string(dims.size()) + " (the CPU kernel takes more)");
    return false;
  }
  p->rank = static_cast<int>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) p->dims[d] = dims[d];
  return true;
}

void Launch(TF_OpKernelContext* ctx, const TF_Tensor* in, const std::vector<int64_t>& dims,
            const MapParams& p, cudaStream_t stream, const char* op) {
  const TF_DataType dtype = TF_TensorType(in);
  TensorPtr out = AllocateOutput(ctx, 0, dtype, dims);
  const int64_t n = NumElements(dims);
  if (!out || n == 0) return;
  WithWord(TF_DataTypeSize(dtype), [&](auto word) {
    using W = decltype(word);
    MapCopy<W><<<BlocksFor(n), kThreads, 0, stream>>>(Data<W>(in), Data<W>(out), n, p);
  });
  CheckLaunch(ctx, op);
}

void RollCompute(void*, TF_OpKernelContext* ctx) {
  kernels::RollPlan plan;
  if (!kernels::PlanRoll(ctx, &plan)) return;
  MapParams p;
  if (!FillParams(ctx, plan.dims, &p)) return;
  for (int d = 0; d < p.rank; ++d) p.shift[d] = plan.shifts[d];
  cudaStream_t stream = GetStream(ctx);
  if (stream != nullptr) Launch(ctx, plan.input.get(), plan.dims, p, stream, "Roll");
}

void ReverseSequenceCompute(void* attrs, TF_OpKernelContext* ctx) {
  kernels::ReverseSequencePlan plan;
  if (!kernels::PlanReverseSequence(ctx, *static_cast<kernels::ReverseSequenceAttrs*>(attrs),
                                    &plan))
    return;
  MapParams p;
  if (!FillParams(ctx, plan.dims, &p)) return;
  p.seq = static_cast<int>(plan.seq_dim);
  p.batch = static_cast<int>(plan.batch_dim);
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  const int64_t batch = static_cast<int64_t>(plan.lengths.size());
  TensorPtr lengths = AllocateTemp(ctx, TF_INT64, {batch});
  if (!lengths) return;
  if (batch > 0 &&
      !CheckCuda(ctx, cudaMemcpyAsync(Data<int64_t>(lengths), plan.lengths.data(),
                                      batch * sizeof(int64_t), cudaMemcpyHostToDevice, stream),
                 "ReverseSequence"))
    return;
  p.lengths = Data<int64_t>(lengths);
  Launch(ctx, plan.input.get(), plan.dims, p, stream, "ReverseSequence");
  // The lengths buffer goes when this returns: wait for the pass that reads it.
  CheckCuda(ctx, cudaStreamSynchronize(stream), "ReverseSequence");
}

template <typename T>
__global__ void LinSpaceFill(T start, T step, T stop, int64_t num, T* __restrict__ y) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < num;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = i == num - 1 ? stop : start + step * static_cast<T>(i);
}

template <typename T>
struct LinSpaceKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr start, stop;
    int64_t num = 0;
    if (!kernels::PlanLinSpace(ctx, &start, &stop, &num)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, {num});
    if (!out) return;
    const T a = *Data<T>(start), b = *Data<T>(stop);
    const T step = num > 1 ? (b - a) / static_cast<T>(num - 1) : T(0);
    cudaStream_t stream = GetStream(ctx);
    if (stream == nullptr) return;
    // The last value is `stop` exactly, or `start` when it is the only one.
    LinSpaceFill<T><<<BlocksFor(num), kThreads, 0, stream>>>(a, step, num == 1 ? a : b, num,
                                                             Data<T>(out));
    CheckLaunch(ctx, "LinSpace");
  }
};

}  // namespace

void RegisterSequenceKernels(TF_Status* status) {
  for (TF_DataType t : kDataTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64}) {
      for (TF_DataType axis : {TF_INT32, TF_INT64})
        RegisterKernel(kDevice, {"Roll", {{"T", t}, {"Tshift", index}, {"Taxis", axis}},
                                 {"shift", "axis"}, RollCompute}, status);
      RegisterKernel(kDevice, {"ReverseSequence", {{"T", t}, {"Tlen", index}}, {"seq_lengths"},
                               ReverseSequenceCompute, kernels::CreateReverseSequence,
                               kernels::DeleteReverseSequence}, status);
    }
  for (TF_DataType index : {TF_INT32, TF_INT64}) {
    RegisterKernel(kDevice, {"LinSpace", {{"T", TF_FLOAT}, {"Tidx", index}},
                             {"start", "stop", "num"}, &LinSpaceKernel<float>::Compute}, status);
    RegisterKernel(kDevice, {"LinSpace", {{"T", TF_DOUBLE}, {"Tidx", index}},
                             {"start", "stop", "num"}, &LinSpaceKernel<double>::Compute}, status);
  }
}

}  // namespace cuda
}  // namespace opgen

// MaxPoolWithArgmax and MaxPoolGradWithArgmax on the GPU. The pool: one thread per output
// element with ../pool_argmax_spec.h's window search. The gradient: argmax is host
// memory, checked there and grouped by target (in grad's order) into a CSR list, so each
// input element gathers its grads on the device in the order the CPU kernel adds them,
// without atomics. Twin of ../cpu/pool_argmax.cc.
#include <vector>

#include "../pool_argmax_spec.h"
#include "cuda_kernels.h"
#include "grad_launch.cuh"

namespace opgen {
namespace cuda {
namespace {

using kernels::ArgmaxAttrs;
using kernels::ArgmaxGeometry;

template <typename T, typename I>
struct ArgmaxElement {
  ArgmaxGeometry g;
  Read<T> in;
  T* y;
  I* idx;
  int64_t per_image;
  bool include_batch;
  __device__ void operator()(int64_t e) const {
    const int64_t c = e % g.c, x = e / g.c % g.ow, yy = e / (g.c * g.ow) % g.oh, b = e / (g.c * g.ow * g.oh);
    typename ComputeType<T>::type best;
    const int64_t at = kernels::WindowArgmax(g, b, yy, x, c, in, &best);
    y[e] = Narrow<T>(best);
    idx[e] = static_cast<I>(include_batch ? at : at - b * per_image);
  }
};

template <typename T, typename I>
void MaxPoolWithArgmaxCompute(void* state, TF_OpKernelContext* ctx) {
  const ArgmaxAttrs& a = *static_cast<ArgmaxAttrs*>(state);
  kernels::WindowPlan p;
  if (!kernels::PlanArgmaxPool(ctx, a, "MaxPoolWithArgmax", &p)) return;
  TensorPtr out = AllocateOutput<T>(ctx, 0, p.out_dims), argmax = AllocateOutput<I>(ctx, 1, p.out_dims);
  if (!out || !argmax) return;
  const ArgmaxGeometry g{p.ih, p.iw, p.ic, p.oh, p.ow, p.kh, p.kw, a.w.strides[1], a.w.strides[2], p.pt, p.pl};
  const ArgmaxElement<T, I> f{g, {Data<T>(p.input)}, Data<T>(out), Data<I>(argmax), p.ih * p.iw * p.ic,
                              a.include_batch};
  LaunchForEach(ctx, NumElements(p.out_dims), f, "MaxPoolWithArgmax");
}

// Input element e: the sum of grad[order[k]] for k in [starts[e], starts[e + 1]).
template <typename T>
struct GatherElement {
  const int64_t* starts;
  const int64_t* order;
  Read<T> grad;
  T* dx;
  __device__ void operator()(int64_t e) const {
    typename ComputeType<T>::type acc = 0;
    for (int64_t k = starts[e]; k < starts[e + 1]; ++k) acc += grad(order[k]);
    dx[e] = Narrow<T>(acc);
  }
};

template <typename T, typename I>
void MaxPoolGradWithArgmaxCompute(void* state, TF_OpKernelContext* ctx) {
  const ArgmaxAttrs& a = *static_cast<ArgmaxAttrs*>(state);
  kernels::WindowPlan p;
  TensorPtr grad, argmax;
  if (!kernels::PlanGradWithArgmax(ctx, a, &p, &grad, &argmax)) return;
  const std::vector<int64_t> in_dims{p.batch, p.ih, p.iw, p.ic};
  TensorPtr out = AllocateOutput<T>(ctx, 0, in_dims);
  if (!out) return;
  const int64_t per_image = p.ih * p.iw * p.ic, total = NumElements(in_dims);
  const int64_t per_grad = p.oh * p.ow * p.oc, n = NumElements(p.out_dims);
  const I* idx = static_cast<const I*>(TF_TensorData(argmax.get()));  // host memory
  std::vector<int64_t> target(n), starts(total + 1, 0), order(n);
  for (int64_t i = 0; i < n; ++i) {
    target[i] = kernels::ArgmaxTarget(idx[i], i / per_grad, per_image, total, a.include_batch);
    if (target[i] < 0)
      return kernels::FailArgmaxIndex(ctx, static_cast<int64_t>(idx[i]), a.include_batch ? total : per_image);
    ++starts[target[i] + 1];
  }
  if (total == 0) return;
  for (int64_t e = 0; e < total; ++e) starts[e + 1] += starts[e];
  std::vector<int64_t> fill(starts.begin(), starts.end() - 1);
  for (int64_t i = 0; i < n; ++i) order[fill[target[i]]++] = i;
  cudaStream_t stream = GetStream(ctx);
  if (stream == nullptr) return;
  TensorPtr d_starts = AllocateTemp(ctx, TF_INT64, {total + 1}), d_order = AllocateTemp(ctx, TF_INT64, {n});
  if (!d_starts || !d_order) return;
  if (!CheckCuda(ctx, cudaMemcpyAsync(Data<int64_t>(d_starts), starts.data(), (total + 1) * sizeof(int64_t),
                                      cudaMemcpyHostToDevice, stream), "MaxPoolGradWithArgmax"))
    return;
  if (n > 0 && !CheckCuda(ctx, cudaMemcpyAsync(Data<int64_t>(d_order), order.data(), n * sizeof(int64_t),
                                               cudaMemcpyHostToDevice, stream), "MaxPoolGradWithArgmax"))
    return;
  const GatherElement<T> f{Data<int64_t>(d_starts), Data<int64_t>(d_order), {Data<T>(grad)}, Data<T>(out)};
  if (!LaunchForEach(ctx, total, f, "MaxPoolGradWithArgmax")) return;
  // The host lists go when this returns: wait for the copies that read them.
  CheckCuda(ctx, cudaStreamSynchronize(stream), "MaxPoolGradWithArgmax");
}

template <typename I, typename... Ts>
void RegisterArgmax(Types<Ts...>, TF_DataType index, TF_Status* status) {
  (RegisterKernel(kDevice, {"MaxPoolWithArgmax", {{"T", DtypeOf<Ts>::value}, {"Targmax", index}}, {},
                            MaxPoolWithArgmaxCompute<Ts, I>, kernels::CreateArgmaxPool,
                            kernels::DeleteArgmaxPool}, status), ...);
  if (index != TF_INT64) return;  // TensorFlow's gradient kernels take int64 argmax only
  (RegisterKernel(kDevice, {"MaxPoolGradWithArgmax", {{"T", DtypeOf<Ts>::value}, {"Targmax", index}},
                            {"argmax"}, MaxPoolGradWithArgmaxCompute<Ts, I>, kernels::CreateArgmaxPool,
                            kernels::DeleteArgmaxPool}, status), ...);
}

using RealTypes = Types<float, double, __half, __nv_bfloat16, int8_t, int16_t, int32_t, int64_t,
                        uint8_t, uint16_t, uint32_t, uint64_t>;

}  // namespace

void RegisterPoolArgmaxKernels(TF_Status* status) {
  RegisterArgmax<int32_t>(RealTypes(), TF_INT32, status);
  RegisterArgmax<int64_t>(RealTypes(), TF_INT64, status);
}

}  // namespace cuda
}  // namespace opgen

// Roll and ReverseSequence (elements moved as opaque words, any fixed-size type) and
// LinSpace. Operand checks: ../sequence_spec.h, shared with the CUDA twin.
#include <cstring>

#include "../../src/string_tensor.h"
#include "../sequence_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// Calls `visit(out_index, in_index)` for every element, where the input coordinate of
// each dimension is `source(d, coordinate)`.
template <typename Source, typename Visit>
void ForEachMapped(const std::vector<int64_t>& dims, Source source, Visit visit) {
  const size_t rank = dims.size();
  const int64_t n = NumElements(dims);
  if (n == 0) return;
  std::vector<int64_t> stride(rank, 1), coord(rank, 0);
  for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * dims[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += source(d, coord) * stride[d];
    visit(i, src);
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < dims[d]) break;
      coord[d] = 0;
    }
  }
}

template <typename Source>
void MoveWords(const TF_Tensor* in, TF_Tensor* out, const std::vector<int64_t>& dims,
               Source source) {
  const size_t width = TF_DataTypeSize(TF_TensorType(in));
  const char* x = static_cast<const char*>(TF_TensorData(in));
  char* y = static_cast<char*>(TF_TensorData(out));
  ForEachMapped(dims, source,
                [&](int64_t o, int64_t i) { std::memcpy(y + o * width, x + i * width, width); });
}

// Fills a new output 0 of `dims` from it through `source`; strings are
// copied one by one (their structs own heap memory).
template <typename Source>
void MoveInto(TF_OpKernelContext* ctx, const TF_Tensor* in, const std::vector<int64_t>& dims,
              Source source) {
  if (TF_TensorType(in) == TF_STRING) {
    TensorPtr out(NewStringTensor(dims));
    if (!out) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string tensor");
    const TF_TString* x = StringElements(in);
    TF_TString* y = MutableStringElements(out.get());
    bool ok = true;
    ForEachMapped(dims, source, [&](int64_t o, int64_t i) {
      ok = ok && AssignString(&y[o], StringElement(&x[i]));
    });
    if (!ok) return Fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a string");
    TF_Status* s = ThreadStatus();
    TF_SetOutput(ctx, 0, out.get(), s);
    if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
    return;
  }
  TensorPtr out = kernels::AllocateOutput(ctx, 0, TF_TensorType(in), dims);
  if (out) MoveWords(in, out.get(), dims, source);
}

void RollCompute(void*, TF_OpKernelContext* ctx) {
  kernels::RollPlan p;
  if (!kernels::PlanRoll(ctx, &p)) return;
  MoveInto(ctx, p.input.get(), p.dims, [&](size_t d, const std::vector<int64_t>& c) {
    const int64_t s = c[d] - p.shifts[d];
    return s < 0 ? s + p.dims[d] : s;
  });
}

void ReverseSequenceCompute(void* attrs, TF_OpKernelContext* ctx) {
  kernels::ReverseSequencePlan p;
  if (!kernels::PlanReverseSequence(ctx, *static_cast<kernels::ReverseSequenceAttrs*>(attrs), &p))
    return;
  const size_t seq = p.seq_dim, batch = p.batch_dim;
  MoveInto(ctx, p.input.get(), p.dims, [&](size_t d, const std::vector<int64_t>& c) {
    if (d != seq) return c[d];
    const int64_t len = p.lengths[c[batch]];
    return c[d] < len ? len - 1 - c[d] : c[d];
  });
}

// As TensorFlow: start + i * step in T's arithmetic, the last value exactly `stop`.
template <typename T>
struct LinSpaceKernel {
  static void Compute(void*, TF_OpKernelContext* ctx) {
    TensorPtr start, stop;
    int64_t num = 0;
    if (!kernels::PlanLinSpace(ctx, &start, &stop, &num)) return;
    TensorPtr out = AllocateOutput<T>(ctx, 0, {num});
    if (!out) return;
    T* y = Data<T>(out);
    const T a = *Data<T>(start), b = *Data<T>(stop);
    if (num == 1) {
      y[0] = a;
      return;
    }
    const T diff = Narrow<T>(Widen(b) - Widen(a));
    const T step = Narrow<T>(Widen(diff) / Widen(Narrow<T>(static_cast<ComputeType<T>>(num - 1))));
    for (int64_t i = 0; i < num - 1; ++i) {
      const T at = Narrow<T>(static_cast<ComputeType<T>>(i));
      y[i] = Narrow<T>(Widen(a) + Widen(Narrow<T>(Widen(step) * Widen(at))));
    }
    y[num - 1] = b;
  }
};

template <typename... Ts>
void RegisterLinSpace(Types<Ts...>, TF_Status* status) {
  for (TF_DataType index : {TF_INT32, TF_INT64})
    (RegisterKernel(kDevice, {"LinSpace", {{"T", DtypeOf<Ts>::value}, {"Tidx", index}}, {},
                              &LinSpaceKernel<Ts>::Compute}, status), ...);
}

}  // namespace

void RegisterSequenceKernels(TF_Status* status) {
  for (TF_DataType t : kAllFixedSizeTypes)
    for (TF_DataType index : {TF_INT32, TF_INT64}) {
      for (TF_DataType axis : {TF_INT32, TF_INT64})
        RegisterKernel(kDevice, {"Roll", {{"T", t}, {"Tshift", index}, {"Taxis", axis}}, {},
                                 RollCompute}, status);
      RegisterKernel(kDevice, {"ReverseSequence", {{"T", t}, {"Tlen", index}}, {},
                               ReverseSequenceCompute, kernels::CreateReverseSequence,
                               kernels::DeleteReverseSequence}, status);
    }
  for (TF_DataType index : {TF_INT32, TF_INT64}) {
    for (TF_DataType axis : {TF_INT32, TF_INT64})
      RegisterKernel(kDevice, {"Roll", {{"T", TF_STRING}, {"Tshift", index}, {"Taxis", axis}}, {},
                               RollCompute}, status);
    RegisterKernel(kDevice, {"ReverseSequence", {{"T", TF_STRING}, {"Tlen", index}}, {},
                             ReverseSequenceCompute, kernels::CreateReverseSequence,
                             kernels::DeleteReverseSequence}, status);
  }
  RegisterLinSpace(Types<float, double>(), status);  // TensorFlow's CPU kernels: these two
}

}  // namespace cpu
}  // namespace opgen

// The operand checks and output shapes of the gradient kernels (activation grads,
// BiasAddGrad, the softmax cross-entropy losses, UnsortedSegmentSum, StridedSliceGrad,
// MirrorPadGrad) on the host, shared by the CPU kernels and the CUDA plugin's, which
// differ only in the arithmetic; and the whole of ConcatOffset and InvertPermutation,
// whose operands live in host memory on every device. Messages follow TensorFlow's.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "broadcast_spec.h"
#include "dtype_of.h"
#include "kernel_api_util.h"
#include "strided_slice_spec.h"
#include "host_device.h"

namespace opgen {
namespace kernels {

// ---- activation grads ------------------------------------------------------------------

// gradients and the saved tensor must have one shape; false after reporting.
inline bool PlanActivationGrad(TF_OpKernelContext* ctx, const char* op, const char* saved_name,
                               TensorPtr* g, TensorPtr* saved) {
  *g = Input(ctx, 0);
  *saved = Input(ctx, 1);
  if (!*g || !*saved) return false;
  if (Dims(g->get()) != Dims(saved->get())) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": gradients and " +
                                       saved_name +
                                       " must have the same shape, got " + ShapeString(Dims(g->get())) +
                                       " and " + ShapeString(Dims(saved->get())));
    return false;
  }
  return true;
}

// ---- BiasAddGrad --------------------------------------------------------------------------

// out_backprop seen as [outer, channels, inner]; output[c] sums the column.
struct BiasAddGradPlan {
  TensorPtr grad;
  int64_t outer = 1, channels = 0, inner = 1;
};

// `channels_first`: data_format NCHW (BiasAdd's state, nn_spec.h).
inline bool PlanBiasAddGrad(TF_OpKernelContext* ctx, bool channels_first, BiasAddGradPlan* plan) {
  plan->grad = Input(ctx, 0);
  if (!plan->grad) return false;
  const std::vector<int64_t> dims = Dims(plan->grad.get());
  if (dims.size() < 2) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "BiasAddGrad: Input tensor must be at least 2D: " + ShapeString(dims));
    return false;
  }
  const int64_t axis = channels_first ? 1 : static_cast<int64_t>(dims.size()) - 1;
  OuterInner(dims, axis, &plan->outer, &plan->inner);
  plan->channels = dims[axis];
  return true;
}

// ---- SoftmaxCrossEntropyWithLogits ------------------------------------------------------

// features and labels broadcast to [batch, classes]; element (b, c) of each is at
// b * stride[0] + c * stride[1] (0 along a broadcast dim).
struct XentPlan {
  TensorPtr features, labels;
  int64_t batch = 0, classes = 0;
  int64_t fs[2] = {0, 0}, ls[2] = {0, 0};
};

inline void XentStrides(std::vector<int64_t> dims, const std::vector<int64_t>& out, int64_t* s) {
  dims.insert(dims.begin(), out.size() - dims.size(), 1);
  s[1] = dims[1] == 1 ? 0 : 1;
  s[0] = dims[0] == 1 ? 0 : dims[1];
}

inline bool PlanXent(TF_OpKernelContext* ctx, XentPlan* plan) {
  plan->features = Input(ctx, 0);
  plan->labels = Input(ctx, 1);
  if (!plan->features || !plan->labels) return false;
  const std::vector<int64_t> fd = Dims(plan->features.get()), ld = Dims(plan->labels.get());
  std::vector<int64_t> out;
  if (!BroadcastShape(fd, ld, &out)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "SoftmaxCrossEntropyWithLogits: logits and labels must be "
                                   "broadcastable: logits_size=" + ShapeString(fd) +
                                       " labels_size=" + ShapeString(ld));
    return false;
  }
  if (out.size() != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "SoftmaxCrossEntropyWithLogits: logits and labels must be "
                                   "either 2-dimensional, or broadcasted to be 2-dimensional, got " +
                                       ShapeString(fd) + " and " + ShapeString(ld));
    return false;
  }
  plan->batch = out[0];
  plan->classes = out[1];
  XentStrides(fd, out, plan->fs);
  XentStrides(ld, out, plan->ls);
  return true;
}

// ---- SparseSoftmaxCrossEntropyWithLogits -------------------------------------------------

struct SparseXentPlan {
  TensorPtr features, labels;
  int64_t batch = 0, classes = 0;
};

inline bool PlanSparseXent(TF_OpKernelContext* ctx, SparseXentPlan* plan) {
  plan->features = Input(ctx, 0);
  plan->labels = Input(ctx, 1);
  if (!plan->features || !plan->labels) return false;
  const std::vector<int64_t> fd = Dims(plan->features.get()), ld = Dims(plan->labels.get());
  const char* op = "SparseSoftmaxCrossEntropyWithLogits: ";
  if (fd.size() != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "logits must be 2-D, but got shape " + ShapeString(fd));
    return false;
  }
  if (ld.size() != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "labels must be 1-D, but got shape " + ShapeString(ld));
    return false;
  }
  if (fd[0] != ld[0]) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "logits and labels must have the same first "
                                   "dimension, got logits shape " + ShapeString(fd) +
                                       " and labels shape " + ShapeString(ld));
    return false;
  }
  if (fd[0] > 0 && fd[1] == 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "Must have at least one class, but got "
                                   "logits shape " + ShapeString(fd));
    return false;
  }
  plan->batch = fd[0];
  plan->classes = fd[1];
  return true;
}

// Labels in host memory checked against [0, classes) (the CPU's check; GPUs give NaN).
template <typename L>
bool CheckSparseLabels(TF_OpKernelContext* ctx, const L* labels, int64_t n, int64_t classes) {
  for (int64_t i = 0; i < n; ++i) {
    if (labels[i] < 0 || static_cast<int64_t>(labels[i]) >= classes) {
      std::string values;
      for (int64_t j = 0; j < n && j < 10; ++j) values += (j ? " " : "") + std::to_string(labels[j]);
      if (n > 10) values += " ...";
      Fail(ctx, TF_INVALID_ARGUMENT,
           "SparseSoftmaxCrossEntropyWithLogits: Received a label value of " +
               std::to_string(labels[i]) + " which is outside the valid range of [0, " +
               std::to_string(classes) + ").  Label values: " + values);
      return false;
    }
  }
  return true;
}

// ---- UnsortedSegmentSum ---------------------------------------------------------------

// data seen as [n, inner] (n = segment_ids' elements); output [segments, inner].
struct SegmentPlan {
  TensorPtr data, ids;
  std::vector<int64_t> out_dims;
  int64_t n = 0, inner = 1, segments = 0;
};

inline bool PlanUnsortedSegment(TF_OpKernelContext* ctx, const char* op, SegmentPlan* plan) {
  plan->data = Input(ctx, 0);
  plan->ids = Input(ctx, 1);
  TensorPtr num = Input(ctx, 2);
  if (!plan->data || !plan->ids || !num) return false;
  const std::vector<int64_t> dd = Dims(plan->data.get()), id = Dims(plan->ids.get());
  if (TF_NumDims(num.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": num_segments should be a scalar, not shape " +
                                       ShapeString(Dims(num.get())));
    return false;
  }
  const int64_t segments = IndexValues(num.get())[0];
  if (segments < 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": Input num_segments == " +
                                       std::to_string(segments) + " must not be negative.");
    return false;
  }
  if (id.size() > dd.size() || !std::equal(id.begin(), id.end(), dd.begin())) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": data.shape = " + ShapeString(dd) +
                                       " does not start with segment_ids.shape = " + ShapeString(id));
    return false;
  }
  plan->n = NumElements(id);
  plan->out_dims = {segments};
  plan->out_dims.insert(plan->out_dims.end(), dd.begin() + id.size(), dd.end());
  if (!CheckShapeSize(ctx, op, plan->out_dims)) return false;
  plan->inner = NumElements(std::vector<int64_t>(dd.begin() + id.size(), dd.end()));
  plan->segments = segments;
  return true;
}

// Ids of `segments` or more, in host memory (the CPU's check; GPUs drop them).
template <typename I>
bool CheckSegmentIds(TF_OpKernelContext* ctx, const char* op, const I* ids, int64_t n,
                     int64_t segments) {
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<int64_t>(ids[i]) >= segments) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": segment_ids[" + std::to_string(i) +
                                         "] = " + std::to_string(ids[i]) + " is out of range [0, " +
                                         std::to_string(segments) + ")");
      return false;
    }
  }
  return true;
}

// ---- ConcatOffset (host memory everywhere) ----------------------------------------------

template <typename T>
void ConcatOffsetCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr axis_t = Input(ctx, 0);
  if (!axis_t) return;
  const char* op = "ConcatOffset: ";
  if (TF_NumDims(axis_t.get()) != 0) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "Concat dim tensor should be a scalar, got shape " +
                                       ShapeString(Dims(axis_t.get())));
    return;
  }
  const int n = TF_NumInputs(ctx) - 1;
  std::vector<std::vector<int64_t>> shapes;
  for (int i = 0; i < n; ++i) {
    TensorPtr s = Input(ctx, i + 1);
    if (!s) return;
    if (TF_NumDims(s.get()) != 1) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "input " + std::to_string(i) +
                                         " should be a vector, got shape " + ShapeString(Dims(s.get())));
      return;
    }
    shapes.push_back(IndexValues(s.get()));
  }
  const int64_t rank = static_cast<int64_t>(shapes[0].size());
  int64_t axis = IndexValues(axis_t.get())[0];
  if (axis < -rank || axis >= rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "Concat dim is out of range: " +
                                       std::to_string(axis) + " vs. " + std::to_string(rank));
    return;
  }
  if (axis < 0) axis += rank;
  int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    const std::vector<int64_t>& s = shapes[i];
    if (static_cast<int64_t>(s.size()) != rank) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + "input " + std::to_string(i) + " should contain " +
                                         std::to_string(rank) + " elements, but got " +
                                         std::to_string(s.size()));
      return;
    }
    for (int64_t k = 0; k < rank; ++k) {
      if (k != axis && s[k] != shapes[0][k]) {
        Fail(ctx, TF_INVALID_ARGUMENT,
             std::string(op) + "All dimensions except " + std::to_string(axis) +
                 " must match. Input " + std::to_string(i) + " has shape " + ShapeString(s) +
                 " and doesn't match input 0 with shape " + ShapeString(shapes[0]) + ".");
        return;
      }
    }
    TensorPtr out = AllocateOutput(ctx, i, DtypeOf<T>::value, {rank});
    if (!out) return;
    T* o = Data<T>(out);
    for (int64_t k = 0; k < rank; ++k) o[k] = k == axis ? static_cast<T>(offset) : T(0);
    offset += s[axis];
  }
}

// ---- InvertPermutation (host memory everywhere) -------------------------------------------

template <typename T>
void InvertPermutationCompute(void*, TF_OpKernelContext* ctx) {
  TensorPtr x = Input(ctx, 0);
  if (!x) return;
  const std::vector<int64_t> d = Dims(x.get());
  if (d.size() != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "InvertPermutation: invert_permutation expects a 1D vector, got " +
                                       ShapeString(d));
    return;
  }
  const int64_t n = d[0];
  if (n > static_cast<int64_t>(INT32_MAX)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "InvertPermutation: permutation of nonnegative int32s must have "
                                   "<= int32 max elements");
    return;
  }
  TensorPtr y = AllocateOutput(ctx, 0, DtypeOf<T>::value, d);
  if (!y) return;
  const T* xp = Data<T>(x);
  T* yp = Data<T>(y);
  std::fill_n(yp, n, T(-1));
  for (int64_t i = 0; i < n; ++i) {
    const T v = xp[i];
    if (v < 0 || v >= n) {
      Fail(ctx, TF_INVALID_ARGUMENT, "InvertPermutation: " + std::to_string(v) +
                                         " is not between 0 and " + std::to_string(n));
      return;
    }
    if (yp[v] != T(-1)) {
      Fail(ctx, TF_INVALID_ARGUMENT, "InvertPermutation: " + std::to_string(v) +
                                         " is duplicated in the input.");
      return;
    }
    yp[v] = static_cast<T>(i);
  }
}

// ---- StridedSliceGrad ------------------------------------------------------------------

// StridedSliceGrad(shape, begin, end, strides, dy): the slice's box in an output of
// `shape`; dy must have the slice's shape.
struct StridedSliceGradPlan {
  TensorPtr dy;
  std::vector<int64_t> dims;  // the output's shape
  StridedSliceBox box;
};

inline bool PlanStridedSliceGrad(TF_OpKernelContext* ctx, const StridedSliceMasks& m,
                                 StridedSliceGradPlan* plan) {
  TensorPtr shape_t = Input(ctx, 0), begin_t = Input(ctx, 1), end_t = Input(ctx, 2),
            strides_t = Input(ctx, 3);
  plan->dy = Input(ctx, 4);
  if (!shape_t || !begin_t || !end_t || !strides_t || !plan->dy) return false;
  if (TF_NumDims(shape_t.get()) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "StridedSliceGrad: shape must be 1-D, got " +
                                       ShapeString(Dims(shape_t.get())));
    return false;
  }
  plan->dims = IndexValues(shape_t.get());
  for (int64_t d : plan->dims) {
    if (d < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "StridedSliceGrad: shape " + ShapeString(plan->dims) +
                                         " has a negative dimension");
      return false;
    }
  }
  if (!CheckShapeSize(ctx, "StridedSliceGrad", plan->dims)) return false;
  if (!ResolveStridedSlice(ctx, m, plan->dims, IndexValues(begin_t.get()), IndexValues(end_t.get()),
                           IndexValues(strides_t.get()), &plan->box))
    return false;
  const std::vector<int64_t> dy = Dims(plan->dy.get());
  if (dy != plan->box.out_dims) {
    Fail(ctx, TF_INVALID_ARGUMENT, "StridedSliceGrad: shape of dy was " + ShapeString(dy) +
                                       " instead of " + ShapeString(plan->box.out_dims));
    return false;
  }
  return true;
}

// ---- MirrorPadGrad -------------------------------------------------------------------------

constexpr int kMaxGradDims = 8;

// Output element o (unpadded coordinates) gathers the padded elements that MirrorPad
// copied from it: per dimension its own position and up to two mirrored ones.
struct MirrorPadGradMap {
  int rank = 0;
  bool symmetric = false;
  int64_t in[kMaxGradDims] = {}, out[kMaxGradDims] = {}, lo[kMaxGradDims] = {};

  // The padded positions of dim k that mirror out position o; returns their count.
  OPGEN_HD int Sources(int k, int64_t o, int64_t* p) const {
    const int64_t n = out[k], l = lo[k], hi = in[k] - n - l;
    int c = 0;
    p[c++] = o + l;
    const int64_t left = symmetric ? -(o + 1) : -o;  // unpadded coordinate of the mirror
    if (left < 0 && left >= -l) p[c++] = left + l;
    const int64_t right = symmetric ? 2 * n - o - 1 : 2 * n - o - 2;
    if (right >= n && right < n + hi) p[c++] = right + l;
    return c;
  }
};

struct MirrorPadGradPlan {
  TensorPtr input;
  std::vector<int64_t> out_dims;
  MirrorPadGradMap map;
};

inline bool PlanMirrorPadGrad(TF_OpKernelContext* ctx, bool symmetric, MirrorPadGradPlan* plan) {
  plan->input = Input(ctx, 0);
  TensorPtr pads_t = Input(ctx, 1);
  if (!plan->input || !pads_t) return false;
  const std::vector<int64_t> id = Dims(plan->input.get());
  const int64_t rank = static_cast<int64_t>(id.size());
  const std::vector<int64_t> pd = Dims(pads_t.get());
  if (pd.size() != 2 || pd[0] != rank || pd[1] != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "MirrorPadGrad: paddings must be a matrix with 2 columns and " +
                                       std::to_string(rank) + " rows (the input's rank), got " +
                                       ShapeString(pd));
    return false;
  }
  if (rank > kMaxGradDims) {
    Fail(ctx, TF_UNIMPLEMENTED, "MirrorPadGrad: inputs of more than " + std::to_string(kMaxGradDims) +
                                    " dimensions");
    return false;
  }
  const std::vector<int64_t> pads = IndexValues(pads_t.get());
  MirrorPadGradMap& map = plan->map;
  map.rank = static_cast<int>(rank);
  map.symmetric = symmetric;
  plan->out_dims = id;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t lo = pads[2 * k], hi = pads[2 * k + 1];
    if (lo < 0 || hi < 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, "MirrorPadGrad: Paddings must be non-negative: " +
                                         std::to_string(lo) + ", " + std::to_string(hi));
      return false;
    }
    if (lo >= id[k] || hi >= id[k] - lo) {
      Fail(ctx, TF_INVALID_ARGUMENT, "MirrorPadGrad: Total paddings must be less than the input "
                                     "dimension size: " + std::to_string(lo) + " + " +
                                         std::to_string(hi) + " was not less than " +
                                         std::to_string(id[k]));
      return false;
    }
    const int64_t n = id[k] - lo - hi;
    if (symmetric ? (lo > n || hi > n) : (lo >= n || hi >= n)) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           std::string("MirrorPadGrad: paddings must be ") +
               (symmetric ? "no greater than" : "less than") + " the output dimension size: " +
               std::to_string(lo) + ", " + std::to_string(hi) + (symmetric ? " greater than " : " not less than ") +
               std::to_string(n));
      return false;
    }
    plan->out_dims[k] = n;
    map.in[k] = id[k];
    map.out[k] = n;
    map.lo[k] = lo;
  }
  return true;
}

}  // namespace kernels
}  // namespace opgen

// NonMaxSuppressionV3/V4/V5 and NonMaxSuppressionWithOverlaps: greedy selection by score
// on the host. The order of candidates (score descending, then row ascending), the
// comparisons and, for half, the rounding after each step follow TensorFlow's CPU kernel,
// so the selected indices are the same bit for bit. CPU only: TensorFlow's GPU kernel
// returns the same indices, and a GPU placement falls back to this one.
#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "kernel_util.h"
#include "preprocessing_kernels.h"

namespace opgen {
namespace cpu {
namespace {

// A float rounded to T's precision: half arithmetic rounds every result to half.
template <typename T> float Round(float v) { return static_cast<float>(T(v)); }
template <> float Round<float>(float v) { return v; }

// A scalar input of any float dtype, as float.
float ScalarValue(const TF_Tensor* t) {
  switch (TF_TensorType(t)) {
    case TF_HALF: return static_cast<float>(*Data<Half>(t));
    case TF_DOUBLE: return static_cast<float>(*Data<double>(t));
    default: return *Data<float>(t);
  }
}

// std::min / std::max as TensorFlow's kernel takes them: a NaN in the first place wins.
inline float Min(float a, float b) { return b < a ? b : a; }
inline float Max(float a, float b) { return a < b ? b : a; }

// Intersection over union of rows i and j of [n, 4] boxes, corners in either order,
// in float; 0 when either box is empty.
template <typename T> float Iou(const T* boxes, int64_t i, int64_t j) {
  float a[4], b[4];
  for (int k = 0; k < 4; ++k) {
    a[k] = static_cast<float>(boxes[4 * i + k]);
    b[k] = static_cast<float>(boxes[4 * j + k]);
  }
  const float ay0 = Min(a[0], a[2]), ax0 = Min(a[1], a[3]);
  const float ay1 = Max(a[0], a[2]), ax1 = Max(a[1], a[3]);
  const float by0 = Min(b[0], b[2]), bx0 = Min(b[1], b[3]);
  const float by1 = Max(b[0], b[2]), bx1 = Max(b[1], b[3]);
  const float area_a = (ay1 - ay0) * (ax1 - ax0);
  const float area_b = (by1 - by0) * (bx1 - bx0);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float h = Max(Min(ay1, by1) - Max(ay0, by0), 0.0f);
  const float w = Max(Min(ax1, bx1) - Max(ax0, bx0), 0.0f);
  const float inter = h * w;
  return inter / (area_a + area_b - inter);
}

struct Selection {
  std::vector<int32_t> indices;
  std::vector<float> scores;
};

// The greedy loop. Thresholds are already rounded to T; `similarity(i, j)` is in float.
// Soft NMS (sigma > 0) decays a candidate's score by each box selected since it was last
// looked at, and requeues it while it stays above score_threshold.
template <typename T>
Selection Select(const T* scores, int64_t n, int64_t max_out, float iou_threshold,
                 float score_threshold, float sigma,
                 const std::function<float(int64_t, int64_t)>& similarity) {
  struct Candidate {
    int64_t row;
    float score;
    size_t checked;  // selected boxes [0, checked) already decayed this score
  };
  auto lower = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.row > b.row);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> queue(lower);
  for (int64_t i = 0; i < n; ++i) {
    const float s = static_cast<float>(scores[i]);
    if (s > score_threshold) queue.push({i, s, 0});
  }
  const bool soft = sigma > 0.0f;
  const float scale = soft ? Round<T>(-0.5f / sigma) : 0.0f;
  Selection out;
  while (static_cast<int64_t>(out.indices.size()) < max_out && !queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    const float original = c.score;
    bool suppressed = false;
    for (int64_t j = static_cast<int64_t>(out.indices.size()) - 1;
         j >= static_cast<int64_t>(c.checked); --j) {
      const float sim = Round<T>(similarity(c.row, out.indices[j]));
      const float weight = Round<T>(std::exp(Round<T>(Round<T>(scale * sim) * sim)));
      c.score = Round<T>(c.score * (soft || sim <= iou_threshold ? weight : 0.0f));
      if (!soft && sim > iou_threshold) {
        suppressed = true;
        break;
      }
      if (c.score <= score_threshold) break;
    }
    c.checked = out.indices.size();
    if (suppressed) continue;
    if (c.score == original) {
      out.indices.push_back(static_cast<int32_t>(c.row));
      out.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
  return out;
}

struct NmsAttrs {
  bool pad = false;
};

void* CreateNms(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  const bool pad = kernels::BoolAttr(ctx, "pad_to_max_output_size", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return nullptr;
  }
  return new NmsAttrs{pad};
}
void DeleteNms(void* a) { delete static_cast<NmsAttrs*>(a); }

// The rank-0 check of input `i`, with TensorFlow's message.
bool CheckScalar(TF_OpKernelContext* ctx, const TF_Tensor* t, const char* what,
                 bool with_rank = false) {
  if (TF_NumDims(t) == 0) return true;
  std::string msg = std::string(what) + " must be 0-D, got shape " + ShapeString(Dims(t));
  if (with_rank) msg += " (Shape must be rank 0 but is rank " + std::to_string(TF_NumDims(t)) + ")";
  Fail(ctx, TF_INVALID_ARGUMENT, msg);
  return false;
}

// scores must be [n]; n from the boxes (or overlaps).
bool CheckScores(TF_OpKernelContext* ctx, const TF_Tensor* scores, int64_t n) {
  if (TF_NumDims(scores) != 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "scores must be 1-D" + ShapeString(Dims(scores)) +
                                       " (Shape must be rank 1 but is rank " +
                                       std::to_string(TF_NumDims(scores)) + ")");
    return false;
  }
  if (TF_Dim(scores, 0) != n) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "scores has incompatible shape (Dimensions must be equal, but are " +
             std::to_string(n) + " and " + std::to_string(TF_Dim(scores, 0)) + ")");
    return false;
  }
  return true;
}

bool CheckBoxes(TF_OpKernelContext* ctx, const TF_Tensor* boxes) {
  if (TF_NumDims(boxes) != 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "boxes must be 2-D" + ShapeString(Dims(boxes)) +
                                       " (Shape must be rank 2 but is rank " +
                                       std::to_string(TF_NumDims(boxes)) + ")");
    return false;
  }
  if (TF_Dim(boxes, 1) != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "boxes must have 4 columns (Dimension must be 4 but is " +
                                       std::to_string(TF_Dim(boxes, 1)) + ")");
    return false;
  }
  return true;
}

// Writes the selection: indices (output 0), scores (output 1 when `scores_out`), the
// valid count (output `valid_out`, or none when negative); padded with zeros to max_out.
template <typename T>
void WriteSelection(TF_OpKernelContext* ctx, Selection sel, int64_t max_out, bool pad,
                    bool scores_out, int valid_out) {
  const int32_t valid = static_cast<int32_t>(sel.indices.size());
  if (pad) {
    sel.indices.resize(max_out, 0);
    sel.scores.resize(max_out, 0.0f);
  }
  const int64_t rows = static_cast<int64_t>(sel.indices.size());
  TensorPtr indices = AllocateOutput<int32_t>(ctx, 0, {rows});
  if (!indices) return;
  std::copy(sel.indices.begin(), sel.indices.end(), Data<int32_t>(indices));
  if (scores_out) {
    TensorPtr scores = AllocateOutput<T>(ctx, 1, {rows});
    if (!scores) return;
    for (int64_t i = 0; i < rows; ++i) Data<T>(scores)[i] = T(sel.scores[i]);
  }
  if (valid_out >= 0) {
    TensorPtr count = AllocateOutput<int32_t>(ctx, valid_out, {});
    if (count) *Data<int32_t>(count) = valid;
  }
}

// V3 (kVersion 3), V4 and V5 over boxes of T.
template <typename T, int kVersion>
struct NmsKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const bool pad = state != nullptr && static_cast<NmsAttrs*>(state)->pad;
    const int num_inputs = kVersion == 5 ? 6 : 5;
    const TF_Tensor* in[6] = {};
    for (int i = 0; i < num_inputs; ++i)
      if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
    if (!CheckScalar(ctx, in[2], "max_output_size", kVersion == 3) ||
        !CheckScalar(ctx, in[3], "iou_threshold"))
      return;
    const float iou = Round<T>(ScalarValue(in[3]));
    if (!(iou >= 0.0f && iou <= 1.0f))
      return Fail(ctx, TF_INVALID_ARGUMENT, "iou_threshold must be in [0, 1]");
    if (!CheckScalar(ctx, in[4], "score_threshold")) return;
    const float score_threshold = Round<T>(ScalarValue(in[4]));
    float sigma = 0.0f;
    if (kVersion == 5) {
      if (!CheckScalar(ctx, in[5], "soft_nms_sigma")) return;
      sigma = ScalarValue(in[5]);
      if (!(sigma >= 0.0f))
        return Fail(ctx, TF_INVALID_ARGUMENT, "soft_nms_sigma_val must be >= 0");
    }
    if (!CheckBoxes(ctx, in[0])) return;
    const int64_t n = TF_Dim(in[0], 0);
    if (!CheckScores(ctx, in[1], n)) return;
    const int64_t max_out = *Data<int32_t>(in[2]);
    if (max_out < 0) return Fail(ctx, TF_INVALID_ARGUMENT, "output size must be non-negative");
    const T* boxes = Data<T>(in[0]);
    Selection sel = Select<T>(Data<T>(in[1]), n, max_out, iou, score_threshold, sigma,
                              [boxes](int64_t i, int64_t j) { return Iou(boxes, i, j); });
    WriteSelection<T>(ctx, std::move(sel), max_out, pad, kVersion == 5,
                      kVersion == 3 ? -1 : (kVersion == 4 ? 1 : 2));
  }
};

void NmsWithOverlapsCompute(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* in[5] = {};
  for (int i = 0; i < 5; ++i)
    if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
  if (!CheckScalar(ctx, in[2], "max_output_size") ||
      !CheckScalar(ctx, in[3], "overlap_threshold") ||
      !CheckScalar(ctx, in[4], "score_threshold"))
    return;
  const TF_Tensor* overlaps = in[0];
  if (TF_NumDims(overlaps) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, "overlaps must be 2-D" + ShapeString(Dims(overlaps)));
  const int64_t n = TF_Dim(overlaps, 0);
  if (TF_Dim(overlaps, 1) != n)
    return Fail(ctx, TF_INVALID_ARGUMENT, "overlaps must be square" + ShapeString(Dims(overlaps)));
  if (!CheckScores(ctx, in[1], n)) return;
  const int64_t max_out = *Data<int32_t>(in[2]);
  if (max_out < 0) return Fail(ctx, TF_INVALID_ARGUMENT, "output size must be non-negative");
  const float* m = Data<float>(overlaps);
  Selection sel = Select<float>(Data<float>(in[1]), n, max_out, *Data<float>(in[3]),
                                *Data<float>(in[4]), 0.0f,
                                [m, n](int64_t i, int64_t j) { return m[i * n + j]; });
  WriteSelection<float>(ctx, std::move(sel), max_out, false, false, -1);
}

template <typename T>
void RegisterForType(TF_Status* status) {
  const TF_DataType t = DtypeOf<T>::value;
  RegisterKernel(kDevice, {"NonMaxSuppressionV3", {{"T", t}}, {}, &NmsKernel<T, 3>::Compute},
                 status);
  RegisterKernel(kDevice, {"NonMaxSuppressionV4", {{"T", t}}, {}, &NmsKernel<T, 4>::Compute,
                           CreateNms, DeleteNms}, status);
  RegisterKernel(kDevice, {"NonMaxSuppressionV5", {{"T", t}}, {}, &NmsKernel<T, 5>::Compute,
                           CreateNms, DeleteNms}, status);
}

}  // namespace

void RegisterNonMaxSuppressionKernels(TF_Status* status) {
  RegisterForType<float>(status);
  RegisterForType<Half>(status);
  RegisterKernel(kDevice, {"NonMaxSuppressionWithOverlaps", {}, {}, &NmsWithOverlapsCompute},
                 status);
}

}  // namespace cpu
}  // namespace opgen

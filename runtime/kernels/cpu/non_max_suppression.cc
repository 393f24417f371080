// NonMaxSuppression (v1), V2, V3, V4, V5, NonMaxSuppressionWithOverlaps and
// CombinedNonMaxSuppression:
// greedy selection by score
// on the host. The order of candidates (score descending, then row ascending), the
// comparisons and, for half, the rounding after each step follow TensorFlow's CPU kernel,
// so the selected indices are the same bit for bit. CPU only: TensorFlow's GPU kernel
// returns the same indices, and a GPU placement falls back to this one.
#include <algorithm>
#include <cmath>
#include <limits>
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

// The same IoU for two [4] boxes given by pointer (CombinedNonMaxSuppression's layout).
inline float Iou(const float* a, int64_t, int64_t, const float* b) {
  float two[8];
  for (int k = 0; k < 4; ++k) two[k] = a[k], two[4 + k] = b[k];
  return Iou(two, 0, 1);
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
  float iou = 0.0f;  // NonMaxSuppression (v1): its iou_threshold attr
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
void* CreateNmsV1(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new NmsAttrs();
  TF_OpKernelConstruction_GetAttrFloat(ctx, "iou_threshold", &a->iou, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
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

// V3 (kVersion 3), V4 and V5 over boxes of T; the older forms V2 (no score_threshold)
// and v1 (kVersion 1: float boxes, iou_threshold an attr) select every box scoring above
// the lowest float.
template <typename T, int kVersion>
struct NmsKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const bool pad = state != nullptr && static_cast<NmsAttrs*>(state)->pad;
    const int num_inputs = kVersion == 5 ? 6 : kVersion >= 3 ? 5 : kVersion == 2 ? 4 : 3;
    const TF_Tensor* in[6] = {};
    for (int i = 0; i < num_inputs; ++i)
      if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
    if (!CheckScalar(ctx, in[2], "max_output_size", kVersion == 3) ||
        (kVersion >= 2 && !CheckScalar(ctx, in[3], "iou_threshold")))
      return;
    const float iou = kVersion == 1 ? static_cast<NmsAttrs*>(state)->iou
                                    : Round<T>(ScalarValue(in[3]));
    if (!(iou >= 0.0f && iou <= 1.0f))
      return Fail(ctx, TF_INVALID_ARGUMENT, "iou_threshold must be in [0, 1]");
    if (kVersion >= 3 && !CheckScalar(ctx, in[4], "score_threshold")) return;
    const float score_threshold = kVersion >= 3 ? Round<T>(ScalarValue(in[4]))
                                                : std::numeric_limits<float>::lowest();
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
                      kVersion <= 3 ? -1 : (kVersion == 4 ? 1 : 2));
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

// CombinedNonMaxSuppression: hard NMS per (image, class), then each image's selections
// merged by score. The candidate queue and the final sort use TensorFlow's containers and
// comparisons (score only), so equal scores come out in the same order as there.
struct Detection {
  int box = -1;
  float score = -std::numeric_limits<float>::infinity();
  int cls = -1;
  float coords[4] = {0, 0, 0, 0};
};

struct CombinedAttrs {
  bool pad_per_class = false, clip_boxes = true;
};
void* CreateCombined(TF_OpKernelConstruction* ctx) {
  StatusPtr s = NewStatus();
  auto* a = new CombinedAttrs();
  a->pad_per_class = kernels::BoolAttr(ctx, "pad_per_class", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->clip_boxes = kernels::BoolAttr(ctx, "clip_boxes", s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
void DeleteCombined(void* a) { delete static_cast<CombinedAttrs*>(a); }

// One class of one image: its selections go to out[0, per_class) in selection order.
void SelectClass(const float* boxes, const float* scores, int n, int q, int classes, int cls,
                 int per_class, float score_threshold, float iou_threshold, Detection* out) {
  struct Candidate {
    int box;
    float score;
  };
  auto lower = [](const Candidate& a, const Candidate& b) { return a.score < b.score; };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> queue(lower);
  for (int i = 0; i < n; ++i)
    if (scores[i * classes + cls] > score_threshold) queue.push({i, scores[i * classes + cls]});
  const int box_class = q > 1 ? cls : 0;
  std::vector<int> kept;
  while (static_cast<int>(kept.size()) < per_class && !queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    const float* box = boxes + (c.box * q + box_class) * 4;
    bool keep = true;
    for (int j = static_cast<int>(kept.size()) - 1; j >= 0 && keep; --j)
      keep = !(Iou(box, 0, 0, boxes + (kept[j] * q + box_class) * 4) > iou_threshold);
    if (!keep) continue;
    Detection& d = out[kept.size()];
    d.box = c.box, d.score = c.score, d.cls = cls;
    for (int k = 0; k < 4; ++k) d.coords[k] = box[k];
    kept.push_back(c.box);
  }
}

void CombinedNmsCompute(void* state, TF_OpKernelContext* ctx) {
  const CombinedAttrs& a = *static_cast<CombinedAttrs*>(state);
  const TF_Tensor* in[6] = {};
  for (int i = 0; i < 6; ++i)
    if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
  const TF_Tensor *boxes = in[0], *scores = in[1];
  std::string error;
  if (TF_NumDims(boxes) != 4)
    error = "boxes must be 4-D [batch, num_boxes, q, 4], got shape " + ShapeString(Dims(boxes));
  else if (TF_NumDims(scores) != 3)
    error = "scores must be 3-D [batch, num_boxes, num_classes], got shape " +
            ShapeString(Dims(scores));
  else if (TF_Dim(boxes, 2) != 1 && TF_Dim(boxes, 2) != TF_Dim(scores, 2))
    error = "third dimension of boxes must be either 1 or num classes";
  else if (TF_Dim(boxes, 3) != 4)
    error = "boxes must have 4 columns";
  else if (TF_Dim(scores, 1) != TF_Dim(boxes, 1))
    error = "scores has incompatible shape";
  else if (TF_Dim(boxes, 0) != TF_Dim(scores, 0))
    error = "boxes and scores must have same batch size";
  else if (TF_NumDims(in[2]) != 0)
    error = "max_size_per_class must be 0-D, got shape " + ShapeString(Dims(in[2]));
  else if (*Data<int32_t>(in[2]) <= 0)
    error = "max_size_per_class must be positive";
  else if (TF_NumDims(in[3]) != 0)
    error = "max_total_size must be 0-D, got shape " + ShapeString(Dims(in[3]));
  else if (*Data<int32_t>(in[3]) <= 0)
    error = "max_total_size must be > 0";
  else if (TF_NumDims(in[4]) != 0)
    error = "iou_threshold must be 0-D, got shape " + ShapeString(Dims(in[4]));
  else if (TF_NumDims(in[5]) != 0)
    error = "score_threshold must be 0-D, got shape " + ShapeString(Dims(in[5]));
  else if (!(*Data<float>(in[4]) >= 0 && *Data<float>(in[4]) <= 1))
    error = "iou_threshold must be in [0, 1]";
  if (!error.empty()) return Fail(ctx, TF_INVALID_ARGUMENT, error);
  const int batch = static_cast<int>(TF_Dim(boxes, 0)), n = static_cast<int>(TF_Dim(boxes, 1));
  const int q = static_cast<int>(TF_Dim(boxes, 2)), classes = static_cast<int>(TF_Dim(scores, 2));
  const int max_per_class = *Data<int32_t>(in[2]), total = *Data<int32_t>(in[3]);
  const int per_class = std::min(max_per_class, n);
  const int64_t slots = static_cast<int64_t>(per_class) * classes;
  if (slots > std::numeric_limits<int>::max())
    return Fail(ctx, TF_INVALID_ARGUMENT, "size_per_class * num_classes causes overflow");
  const int max_total = static_cast<int>(std::min<int64_t>(
      std::numeric_limits<int>::max(), static_cast<int64_t>(max_per_class) * classes));
  const int rows = a.pad_per_class ? std::min(total, max_total) : total;
  TensorPtr out_boxes = AllocateOutput<float>(ctx, 0, {batch, rows, 4});
  TensorPtr out_scores = AllocateOutput<float>(ctx, 1, {batch, rows});
  TensorPtr out_classes = AllocateOutput<float>(ctx, 2, {batch, rows});
  TensorPtr out_valid = AllocateOutput<int32_t>(ctx, 3, {batch});
  if (!out_boxes || !out_scores || !out_classes || !out_valid) return;
  std::fill(Data<float>(out_boxes), Data<float>(out_boxes) + int64_t{batch} * rows * 4, 0.0f);
  std::fill(Data<float>(out_scores), Data<float>(out_scores) + int64_t{batch} * rows, 0.0f);
  std::fill(Data<float>(out_classes), Data<float>(out_classes) + int64_t{batch} * rows, 0.0f);
  const float* bx = Data<float>(boxes);
  const float* sc = Data<float>(scores);
  const float iou = *Data<float>(in[4]), score_threshold = *Data<float>(in[5]);
  for (int b = 0; b < batch; ++b) {
    std::vector<Detection> found(slots);
    for (int c = 0; c < classes; ++c)
      SelectClass(bx + int64_t{b} * n * q * 4, sc + int64_t{b} * n * classes, n, q, classes, c,
                  per_class, score_threshold, iou, found.data() + int64_t{c} * per_class);
    std::sort(found.begin(), found.end(),
              [](const Detection& x, const Detection& y) { return y.score < x.score; });
    const int count = static_cast<int>(
        std::count_if(found.begin(), found.end(), [](const Detection& d) { return d.box > -1; }));
    const int valid = std::min(count, a.pad_per_class ? rows : total);
    Data<int32_t>(out_valid)[b] = valid;
    for (int i = 0; i < valid && i < rows; ++i) {
      const Detection& d = found[i];
      for (int k = 0; k < 4; ++k)
        Data<float>(out_boxes)[(int64_t{b} * rows + i) * 4 + k] =
            a.clip_boxes ? std::max(std::min(d.coords[k], 1.0f), 0.0f) : d.coords[k];
      Data<float>(out_scores)[int64_t{b} * rows + i] = d.score;
      Data<float>(out_classes)[int64_t{b} * rows + i] = static_cast<float>(d.cls);
    }
  }
}

template <typename T>
void RegisterForType(TF_Status* status) {
  const TF_DataType t = DtypeOf<T>::value;
  RegisterKernel(kDevice, {"NonMaxSuppressionV2", {{"T", t}}, {}, &NmsKernel<T, 2>::Compute},
                 status);
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
  RegisterKernel(kDevice, {"NonMaxSuppression", {}, {}, &NmsKernel<float, 1>::Compute,
                           CreateNmsV1, DeleteNms}, status);
  RegisterKernel(kDevice, {"NonMaxSuppressionWithOverlaps", {}, {}, &NmsWithOverlapsCompute},
                 status);
  RegisterKernel(kDevice, {"CombinedNonMaxSuppression", {}, {}, &CombinedNmsCompute,
                           CreateCombined, DeleteCombined}, status);
}

}  // namespace cpu
}  // namespace opgen

// SampleDistortedBoundingBox (v1, V2: stateful, seeded from seed/seed2) and
// StatelessSampleDistortedBoundingBox (a function of its seed): TensorFlow's rejection
// sampler of crops, drawing from Philox one 32-bit word at a time as TensorFlow's
// SimplePhilox does (its uniform integers by rejection, its floats from 23 mantissa
// bits), with its float and double roundings, so the crops are TensorFlow's bit for bit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../philox.h"
#include "../random_spec.h"
#include "kernel_util.h"

namespace opgen {
namespace cpu {
namespace {

// Philox words one at a time, each block used in order.
class WordStream {
 public:
  explicit WordStream(philox::Generator gen) : gen_(gen) {}
  uint32_t Next() {
    if (used_ == 4) {
      block_ = gen_.Next();
      used_ = 0;
    }
    return block_.w[used_++];
  }
  float Float() { return philox::WordToFloat(Next()); }
  // A uniform integer in [0, n): powers of two masked, else the biased low words rejected.
  uint32_t Uniform(uint32_t n) {
    if (n == 0) return Next() * n;
    if ((n & (n - 1)) == 0) return Next() & (n - 1);
    const uint32_t rem = (std::numeric_limits<uint32_t>::max() % n) + 1;
    uint32_t r;
    do r = Next();
    while (r < rem);
    return r % n;
  }

 private:
  philox::Generator gen_;
  philox::Words block_{};
  int used_ = 4;
};

struct Rect {
  int32_t min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  // TensorFlow multiplies in int; the product wraps as int32 there.
  float Area() const {
    const int64_t a = (int64_t{max_x} - min_x) * (int64_t{max_y} - min_y);
    return static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(a)));
  }
  Rect Intersect(const Rect& r) const {
    const int32_t x0 = std::max(min_x, r.min_x), y0 = std::max(min_y, r.min_y);
    const int32_t x1 = std::min(max_x, r.max_x), y1 = std::min(max_y, r.max_y);
    if (x0 > x1 || y0 > y1) return Rect();
    return {x0, y0, x1, y1};
  }
};

bool Covers(const Rect& crop, float min_covered, const std::vector<Rect>& boxes) {
  if (crop.Area() < 1.0f) return false;
  for (const Rect& box : boxes) {
    const float area = box.Area();
    if (area < 1.0f) continue;
    if (crop.Intersect(box).Area() / area >= min_covered) return true;
  }
  return false;
}

int32_t Lrint(float v) {
  const long r = lrintf(v);
  return static_cast<int32_t>(r);
}

// One attempt at a crop of the given aspect ratio whose area fraction is within range.
bool RandomCrop(int32_t width, int32_t height, float min_rel, float max_rel, float aspect,
                WordStream* rng, Rect* crop) {
  if (max_rel <= 0.0 || aspect <= 0.0 || width <= 0 || height <= 0 || min_rel > max_rel)
    return false;
  const float min_area = min_rel * static_cast<float>(width) * static_cast<float>(height);
  const float max_area = max_rel * static_cast<float>(width) * static_cast<float>(height);
  int32_t h = Lrint(std::sqrt(min_area / aspect));
  int32_t max_h = Lrint(std::sqrt(max_area / aspect));
  if (Lrint(static_cast<float>(max_h) * aspect) > width) {
    const float eps = 0.0000001f;
    max_h = static_cast<int32_t>((width + 0.5 - eps) / aspect);
    if (Lrint(static_cast<float>(max_h) * aspect) > width) max_h -= 1;
  }
  if (max_h > height) max_h = height;
  if (h >= max_h) h = max_h;
  if (h < max_h) h += static_cast<int32_t>(rng->Uniform(static_cast<uint32_t>(max_h - h + 1)));
  int32_t w = Lrint(static_cast<float>(h) * aspect);
  float area = static_cast<float>(int64_t{w} * h);
  if (area < min_area) {
    h += 1;
    w = Lrint(static_cast<float>(h) * aspect);
    area = static_cast<float>(int64_t{w} * h);
  }
  if (area > max_area) {
    h -= 1;
    w = Lrint(static_cast<float>(h) * aspect);
    area = static_cast<float>(int64_t{w} * h);
  }
  if (area < min_area || area > max_area || w > width || h > height || w <= 0 || h <= 0)
    return false;
  int32_t y = 0, x = 0;
  if (h < height) y = static_cast<int32_t>(rng->Uniform(static_cast<uint32_t>(height - h)));
  if (w < width) x = static_cast<int32_t>(rng->Uniform(static_cast<uint32_t>(width - w)));
  *crop = {x, y, x + w, y + h};
  return true;
}

struct SampleAttrs : kernels::StatefulRandomState {
  int kind = 2;  // 1: v1 (min_object_covered an attr), 2: V2, 3: stateless
  float min_covered = 0.1f;
  std::vector<float> aspect, area;
  int64_t max_attempts = 100;
  bool use_image = false;
};

std::string Num(float v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

void* CreateSample(TF_OpKernelConstruction* ctx, int kind) {
  StatusPtr s = NewStatus();
  auto* a = new SampleAttrs();
  a->kind = kind;
  auto fail = [&](const std::string& msg) { TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, msg.c_str()); };
  if (kind != 3) {
    TF_OpKernelConstruction_GetAttrInt64(ctx, "seed", &a->seed, s.get());
    if (TF_GetCode(s.get()) == TF_OK)
      TF_OpKernelConstruction_GetAttrInt64(ctx, "seed2", &a->seed2, s.get());
  }
  if (kind == 1 && TF_GetCode(s.get()) == TF_OK) {
    TF_OpKernelConstruction_GetAttrFloat(ctx, "min_object_covered", &a->min_covered, s.get());
    if (TF_GetCode(s.get()) == TF_OK && !(a->min_covered >= 0))
      fail("Min object covered must be non-negative: " + Num(a->min_covered));
  }
  if (TF_GetCode(s.get()) == TF_OK)
    a->use_image = kernels::BoolAttr(ctx, "use_image_if_no_bounding_boxes", s.get());
  auto floats = [&](const char* name, std::vector<float>* out) {
    if (TF_GetCode(s.get()) != TF_OK) return;
    int32_t n = 0, total = 0;
    TF_OpKernelConstruction_GetAttrSize(ctx, name, &n, &total, s.get());
    if (TF_GetCode(s.get()) != TF_OK || n < 0) return;
    out->resize(n);
    TF_OpKernelConstruction_GetAttrFloatList(ctx, name, out->data(), n, s.get());
  };
  floats("aspect_ratio_range", &a->aspect);
  if (TF_GetCode(s.get()) == TF_OK) {
    if (a->aspect.size() != 2) fail("Aspect ratio range field must specify 2 dimensions");
    else if (!(a->aspect[0] > 0 && a->aspect[1] > 0))
      fail("Aspect ratio range must be non-negative: [" + Num(a->aspect[0]) + ", " +
           Num(a->aspect[1]) + "]");
  }
  floats("area_range", &a->area);
  if (TF_GetCode(s.get()) == TF_OK) {
    if (a->area.size() != 2) fail("Area range field must specify 2 dimensions");
    else if (!(a->area[0] > 0 && a->area[1] > 0))
      fail("Area range must be non-negative: [" + Num(a->area[0]) + ", " + Num(a->area[1]) + "]");
    else if (!(a->area[0] <= 1 && a->area[1] <= 1))
      fail("Area range must be less then or equal to 1.0: [" + Num(a->area[0]) + ", " +
           Num(a->area[1]) + "]");
  }
  if (TF_GetCode(s.get()) == TF_OK) {
    TF_OpKernelConstruction_GetAttrInt64(ctx, "max_attempts", &a->max_attempts, s.get());
    if (TF_GetCode(s.get()) == TF_OK &&
        (a->max_attempts > std::numeric_limits<int32_t>::max() ||
         a->max_attempts < std::numeric_limits<int32_t>::min()))
      fail("Attr max_attempts has value " + std::to_string(a->max_attempts) +
           " out of range for an int32");
    else if (TF_GetCode(s.get()) == TF_OK && a->max_attempts <= 0)
      fail("Max attempts must be non-negative: " + std::to_string(a->max_attempts));
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
void* CreateV1(TF_OpKernelConstruction* ctx) { return CreateSample(ctx, 1); }
void* CreateV2(TF_OpKernelConstruction* ctx) { return CreateSample(ctx, 2); }
void* CreateStateless(TF_OpKernelConstruction* ctx) { return CreateSample(ctx, 3); }
void DeleteSample(void* a) { delete static_cast<SampleAttrs*>(a); }

template <typename T>
void SampleCompute(void* state, TF_OpKernelContext* ctx) {
  SampleAttrs& a = *static_cast<SampleAttrs*>(state);
  const TF_Tensor* size = BorrowInput(ctx, 0);
  const TF_Tensor* boxes = BorrowInput(ctx, 1);
  if (size == nullptr || boxes == nullptr) return;
  philox::Generator gen;
  if (a.kind == 3) {
    const TF_Tensor* seed = BorrowInput(ctx, 3);
    if (seed == nullptr) return;
    if (TF_NumDims(seed) != 1 || TF_Dim(seed, 0) != 2)
      return Fail(ctx, TF_INVALID_ARGUMENT, "seed must have shape [2], not " + ShapeString(Dims(seed)));
    if (!kernels::StatelessSeed(ctx, "StatelessSampleDistortedBoundingBox", 3, &gen)) return;
  }
  if (TF_NumDims(size) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "image_size must be 1-dimensional" + ShapeString(Dims(size)));
  if (TF_Dim(size, 0) != 3)
    return Fail(ctx, TF_INVALID_ARGUMENT, "image_size must contain 3 elements" + ShapeString(Dims(size)));
  // as uint64, so negative sizes fail the bound too
  const uint64_t h_raw = static_cast<uint64_t>(static_cast<int64_t>(Data<T>(size)[0]));
  const uint64_t w_raw = static_cast<uint64_t>(static_cast<int64_t>(Data<T>(size)[1]));
  if (h_raw >= static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return Fail(ctx, TF_INVALID_ARGUMENT, "image height cannot be >= int32 max");
  if (w_raw >= static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return Fail(ctx, TF_INVALID_ARGUMENT, "image width cannot be >= int32 max");
  const int32_t height = static_cast<int32_t>(h_raw), width = static_cast<int32_t>(w_raw);
  if (TF_NumDims(boxes) != 3)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "input boxes must be 3-dimensional [batch, num_boxes, coords]: " +
                    ShapeString(Dims(boxes)));
  if (TF_Dim(boxes, 2) != 4)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "bounding boxes must have shape [4] or [*, 4], got " + ShapeString(Dims(boxes)));
  float min_covered = a.min_covered;
  if (a.kind != 1) {
    const TF_Tensor* covered = BorrowInput(ctx, 2);
    if (covered == nullptr) return;
    if (TF_NumDims(covered) != 0)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "min_object_covered must be 0-D, got shape " + ShapeString(Dims(covered)));
    min_covered = *Data<float>(covered);
    if (!(min_covered >= 0))
      return Fail(ctx, TF_INVALID_ARGUMENT, "Min object covered must be non-negative: " + Num(min_covered));
  }
  std::vector<Rect> rects;
  const int64_t n = TF_TensorElementCount(boxes) / 4;
  const float* bx = Data<float>(boxes);
  for (int64_t b = 0; b < n; ++b) {
    for (int i = 0; i < 4; ++i)
      if (!(bx[4 * b + i] >= 0.0f && bx[4 * b + i] <= 1.0f))
        return Fail(ctx, TF_INVALID_ARGUMENT,
                    "All bounding box coordinates must be in [0.0, 1.0]: " + Num(bx[4 * b + i]));
    auto pixel = [](float f, int32_t size) {
      return static_cast<int32_t>(std::min(f * static_cast<float>(size), 2147483520.0f));
    };
    rects.push_back({pixel(bx[4 * b + 1], width), pixel(bx[4 * b], height),
                     pixel(bx[4 * b + 3], width), pixel(bx[4 * b + 2], height)});
  }
  const Rect image{0, 0, width, height};
  if (rects.empty()) {
    if (!a.use_image)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "No bounding boxes provided as input. One must enable "
                  "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.");
    rects.push_back(image);
  }
  // stateful: max_attempts blocks reserved per run (TensorFlow reserves 4 words each)
  if (a.kind != 3) gen = kernels::ReserveStatefulBlocks(ctx, state, static_cast<uint64_t>(a.max_attempts));
  WordStream rng(gen);
  Rect crop;
  bool found = false;
  // When no crop can qualify (an empty image; no box of a pixel's area; nothing covers
  // more than all of a box, and nothing any of one whose corners are swapped) the loop
  // would only spend its attempts: skip it.
  bool possible = false;
  for (const Rect& r : rects)
    possible = possible || (r.Area() >= 1.0f &&
                            (min_covered <= 0.0f ||
                             (min_covered <= 1.0f && r.min_x <= r.max_x && r.min_y <= r.max_y)));
  possible = possible && width > 0 && height > 0;
  for (int64_t i = 0; possible && i < a.max_attempts && !found; ++i) {
    const float aspect = rng.Float() * (a.aspect[1] - a.aspect[0]) + a.aspect[0];
    found = RandomCrop(width, height, a.area[0], a.area[1], aspect, &rng, &crop) &&
            Covers(crop, min_covered, rects);
  }
  if (!found) crop = image;
  TensorPtr begin = AllocateOutput<T>(ctx, 0, {3});
  TensorPtr out_size = AllocateOutput<T>(ctx, 1, {3});
  TensorPtr bbox = AllocateOutput<float>(ctx, 2, {1, 1, 4});
  if (!begin || !out_size || !bbox) return;
  Data<T>(begin)[0] = static_cast<T>(crop.min_y);
  Data<T>(begin)[1] = static_cast<T>(crop.min_x);
  Data<T>(begin)[2] = T(0);
  Data<T>(out_size)[0] = static_cast<T>(crop.max_y - crop.min_y);
  Data<T>(out_size)[1] = static_cast<T>(crop.max_x - crop.min_x);
  Data<T>(out_size)[2] = static_cast<T>(-1);
  float* o = Data<float>(bbox);
  o[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
  o[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
  o[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
  o[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
}

template <typename... Ts>
void RegisterSamplers(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"SampleDistortedBoundingBox", {{"T", DtypeOf<Ts>::value}}, {},
                            &SampleCompute<Ts>, CreateV1, DeleteSample}, status), ...);
  (RegisterKernel(kDevice, {"SampleDistortedBoundingBoxV2", {{"T", DtypeOf<Ts>::value}}, {},
                            &SampleCompute<Ts>, CreateV2, DeleteSample}, status), ...);
  (RegisterKernel(kDevice, {"StatelessSampleDistortedBoundingBox", {{"T", DtypeOf<Ts>::value}},
                            {}, &SampleCompute<Ts>, CreateStateless, DeleteSample}, status), ...);
}

}  // namespace

void RegisterSampleBoxKernels(TF_Status* status) {
  RegisterSamplers(Types<uint8_t, int8_t, int16_t, int32_t, int64_t>(), status);
}

}  // namespace cpu
}  // namespace opgen

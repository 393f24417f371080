// The older image ops detection and augmentation graphs still hold, on the host as in
// TensorFlow (CPU kernels only there): AdjustContrast (v1: float output, clamped),
// DrawBoundingBoxes(V2), RandomCrop (stateful, Philox-seeded as TensorFlow's) and
// ExtractGlimpse(V2). Their checks come in TensorFlow's order with its messages.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../philox.h"
#include "../random_spec.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

bool CheckScalarOperand(TF_OpKernelContext* ctx, const TF_Tensor* t, const char* what) {
  if (TF_NumDims(t) == 0) return true;
  Fail(ctx, TF_INVALID_ARGUMENT, std::string(what) + " must be scalar: " + ShapeString(Dims(t)));
  return false;
}

// ---- AdjustContrast --------------------------------------------------------------------

template <typename T>
void AdjustContrastV1(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* in[4] = {};
  for (int i = 0; i < 4; ++i)
    if ((in[i] = BorrowInput(ctx, i)) == nullptr) return;
  const std::vector<int64_t> dims = Dims(in[0]);
  const int64_t r = static_cast<int64_t>(dims.size());
  if (r < 3)
    return Fail(ctx, TF_INVALID_ARGUMENT, "input must be at least 3-D, got shape" + ShapeString(dims));
  if (!CheckScalarOperand(ctx, in[1], "contrast_factor") ||
      !CheckScalarOperand(ctx, in[2], "min_value") || !CheckScalarOperand(ctx, in[3], "max_value"))
    return;
  TensorPtr out = AllocateOutput<float>(ctx, 0, dims);
  if (!out || TF_TensorElementCount(in[0]) == 0) return;
  const int64_t c = dims[r - 1], pixels = dims[r - 2] * dims[r - 3];
  const int64_t images = TF_TensorElementCount(in[0]) / (pixels * c);
  const float f = *Data<float>(in[1]), lo = *Data<float>(in[2]), hi = *Data<float>(in[3]);
  const T* x = Data<T>(in[0]);
  float* y = Data<float>(out);
  ParallelFor(images, [&](int64_t begin, int64_t end) {
    std::vector<float> mean(c);
    for (int64_t i = begin; i < end; ++i) {
      const T* xi = x + i * pixels * c;
      float* yi = y + i * pixels * c;
      std::fill(mean.begin(), mean.end(), 0.0f);
      for (int64_t p = 0; p < pixels; ++p)
        for (int64_t k = 0; k < c; ++k) mean[k] += static_cast<float>(xi[p * c + k]);
      for (int64_t k = 0; k < c; ++k) mean[k] /= static_cast<float>(pixels);
      for (int64_t p = 0; p < pixels; ++p)
        for (int64_t k = 0; k < c; ++k) {
          const float v = (static_cast<float>(xi[p * c + k]) - mean[k]) * f + mean[k];
          const float capped = hi < v ? hi : v;  // min with max_value, then max with min_value
          yi[p * c + k] = capped < lo ? lo : capped;
        }
    }
  }, 1);
}

// ---- DrawBoundingBoxes -----------------------------------------------------------------

// TensorFlow's fixed table; one channel draws in 1 (white).
std::vector<std::vector<float>> DefaultColors(int64_t depth) {
  std::vector<std::vector<float>> t = {{1, 1, 0, 1}, {0, 0, 1, 1}, {1, 0, 0, 1}, {0, 1, 0, 1},
                                       {0.5, 0, 0.5, 1}, {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1},
                                       {0, 0, 0.5, 1}, {0, 1, 1, 1}, {1, 0, 1, 1}};
  if (depth == 1)
    for (auto& row : t) row[0] = 1;
  return t;
}

// box coordinate * (size - 1), truncated as TensorFlow's float -> int64 (x86: NaN and
// out of range give INT64_MIN).
int64_t BoxPixel(float v, int64_t size) {
  const float p = v * static_cast<float>(size - 1);
  if (!(p > -9.2233720368547758e18f && p < 9.2233720368547758e18f)) return INT64_MIN;
  return static_cast<int64_t>(p);
}

template <typename T, bool kV2>
void DrawBoxes(void*, TF_OpKernelContext* ctx) {
  const TF_Tensor* images = BorrowInput(ctx, 0);
  const TF_Tensor* boxes = BorrowInput(ctx, 1);
  const TF_Tensor* colors = kV2 ? BorrowInput(ctx, 2) : nullptr;
  if (images == nullptr || boxes == nullptr || (kV2 && colors == nullptr)) return;
  if (TF_NumDims(images) != 4)
    return Fail(ctx, TF_INVALID_ARGUMENT, "The rank of the images should be 4");
  if (TF_NumDims(boxes) != 3)
    return Fail(ctx, TF_INVALID_ARGUMENT, "The rank of the boxes tensor should be 3");
  if (TF_Dim(images, 0) != TF_Dim(boxes, 0))
    return Fail(ctx, TF_INVALID_ARGUMENT, "The batch sizes should be the same");
  const int64_t depth = TF_Dim(images, 3);
  if (depth != 4 && depth != 1 && depth != 3)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
  if (TF_Dim(boxes, 2) != 4)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "The size of the third dimension of the box must be 4. Received: " +
                    std::to_string(TF_Dim(boxes, 2)));
  std::vector<std::vector<float>> table;
  if (kV2) {
    if (TF_NumDims(colors) != 2)
      return Fail(ctx, TF_INVALID_ARGUMENT, "colors must be a 2-D matrix" + ShapeString(Dims(colors)));
    if (TF_Dim(colors, 1) < depth)
      return Fail(ctx, TF_INVALID_ARGUMENT,
                  "colors must have equal or more channels than the image provided: " +
                      ShapeString(Dims(colors)));
    const float* cv = Data<float>(colors);
    for (int64_t i = 0; i < TF_Dim(colors, 0) && TF_TensorElementCount(colors) > 0; ++i)
      table.emplace_back(cv + i * TF_Dim(colors, 1), cv + i * TF_Dim(colors, 1) + depth);
  }
  if (table.empty()) table = DefaultColors(depth);
  const std::vector<int64_t> dims = Dims(images);
  TensorPtr out = AllocateOutput<T>(ctx, 0, dims);
  if (!out) return;
  const int64_t total = TF_TensorElementCount(images);
  std::copy(Data<T>(images), Data<T>(images) + total, Data<T>(out));
  const int64_t batch = dims[0], height = dims[1], width = dims[2], n = TF_Dim(boxes, 1);
  const float* bx = Data<float>(boxes);
  T* canvas = Data<T>(out);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t k = 0; k < n; ++k) {
      const std::vector<float>& color = table[k % table.size()];
      const float* box = bx + (b * n + k) * 4;
      const int64_t top = BoxPixel(box[0], height), bottom = BoxPixel(box[2], height);
      const int64_t left = BoxPixel(box[1], width), right = BoxPixel(box[3], width);
      // inverted, or wholly outside: not drawn
      if (top > bottom || left > right) continue;
      if (top >= height || bottom < 0 || left >= width || right < 0) continue;
      const int64_t top_c = std::max<int64_t>(top, 0), bottom_c = std::min(bottom, height - 1);
      const int64_t left_c = std::max<int64_t>(left, 0), right_c = std::min(right, width - 1);
      auto paint = [&](int64_t y, int64_t x) {
        T* px = canvas + ((b * height + y) * width + x) * depth;
        for (int64_t c = 0; c < depth; ++c) px[c] = T(color[c]);
      };
      if (top >= 0)
        for (int64_t x = left_c; x <= right_c; ++x) paint(top, x);
      if (bottom < height)
        for (int64_t x = left_c; x <= right_c; ++x) paint(bottom, x);
      if (left >= 0)
        for (int64_t y = top_c; y <= bottom_c; ++y) paint(y, left);
      if (right < width)
        for (int64_t y = top_c; y <= bottom_c; ++y) paint(y, right);
    }
  }
}

// ---- RandomCrop ------------------------------------------------------------------------

template <typename T>
void RandomCropCompute(void* state, TF_OpKernelContext* ctx) {
  const TF_Tensor* image = BorrowInput(ctx, 0);
  const TF_Tensor* size = BorrowInput(ctx, 1);
  if (image == nullptr || size == nullptr) return;
  if (TF_NumDims(image) != 3)
    return Fail(ctx, TF_INVALID_ARGUMENT, "input must be 3-dimensional" + ShapeString(Dims(image)));
  if (TF_NumDims(size) != 1)
    return Fail(ctx, TF_INVALID_ARGUMENT, "shape_t must be 1-dimensional" + ShapeString(Dims(size)));
  if (TF_Dim(size, 0) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, "shape_t must have two elements" + ShapeString(Dims(size)));
  // TensorFlow narrows the sizes to int32, as here.
  const int64_t target_h = static_cast<int32_t>(Data<int64_t>(size)[0]);
  const int64_t target_w = static_cast<int32_t>(Data<int64_t>(size)[1]);
  const int64_t height = TF_Dim(image, 0), width = TF_Dim(image, 1), channels = TF_Dim(image, 2);
  // TensorFlow allocates the output before these checks (a negative size aborts it there).
  if (target_h < 0 || target_w < 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "size must be non-negative, got [" + std::to_string(target_h) + ", " +
                    std::to_string(target_w) + "]");
  if (width < target_w)
    return Fail(ctx, TF_FAILED_PRECONDITION,
                "width must be >= target_width: width = " + std::to_string(width) +
                    ", target_width = " + std::to_string(target_w));
  if (height < target_h)
    return Fail(ctx, TF_FAILED_PRECONDITION,
                "height must be >= target_height: height = " + std::to_string(height) +
                    ", target_height = " + std::to_string(target_h));
  TensorPtr out = AllocateOutput<T>(ctx, 0, {target_h, target_w, channels});
  if (!out) return;
  // One 128-bit block per run (TensorFlow reserves two 32-bit samples); its words in turn,
  // the column offset first.
  philox::Generator gen = kernels::ReserveStatefulBlocks(ctx, state, 1);
  const philox::Words w = gen.Next();
  int next = 0;
  int64_t off_w = 0, off_h = 0;
  if (width > target_w) off_w = static_cast<int64_t>(w.w[next++] % static_cast<uint64_t>(width - target_w + 1));
  if (height > target_h) off_h = static_cast<int64_t>(w.w[next++] % static_cast<uint64_t>(height - target_h + 1));
  const T* src = Data<T>(image);
  T* dst = Data<T>(out);
  for (int64_t y = 0; y < target_h; ++y)
    std::copy(src + ((y + off_h) * width + off_w) * channels,
              src + ((y + off_h) * width + off_w + target_w) * channels,
              dst + y * target_w * channels);
}

// ---- ExtractGlimpse --------------------------------------------------------------------

enum class Noise { kUniform, kGaussian, kZero };

struct GlimpseAttrs {
  bool normalized = true, centered = true;
  Noise noise = Noise::kUniform;
  int version = 2;
};

void* CreateGlimpse(TF_OpKernelConstruction* ctx, int version) {
  StatusPtr s = NewStatus();
  auto* a = new GlimpseAttrs();
  a->version = version;
  a->normalized = kernels::BoolAttr(ctx, "normalized", s.get());
  if (TF_GetCode(s.get()) == TF_OK) a->centered = kernels::BoolAttr(ctx, "centered", s.get());
  bool uniform = false;
  if (TF_GetCode(s.get()) == TF_OK) uniform = kernels::BoolAttr(ctx, "uniform_noise", s.get());
  std::string noise;
  if (TF_GetCode(s.get()) == TF_OK) noise = kernels::StringAttr(ctx, "noise", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    if (uniform && !noise.empty() && noise != "uniform") {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   "The uniform_noise and noise could not be specified at the same time");
    } else if (noise.empty()) {
      a->noise = uniform ? Noise::kUniform : Noise::kGaussian;
    } else if (noise == "uniform" || noise == "gaussian" || noise == "zero") {
      a->noise = noise == "uniform" ? Noise::kUniform
                                    : noise == "gaussian" ? Noise::kGaussian : Noise::kZero;
    } else {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("The noise could only be uniform, gaussian, or zero, got" + noise).c_str());
    }
  }
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    delete a;
    return nullptr;
  }
  return a;
}
void* CreateGlimpseV1(TF_OpKernelConstruction* ctx) { return CreateGlimpse(ctx, 1); }
void* CreateGlimpseV2(TF_OpKernelConstruction* ctx) { return CreateGlimpse(ctx, 2); }
void DeleteGlimpse(void* a) { delete static_cast<GlimpseAttrs*>(a); }

// float -> int64 as x86 truncates (NaN and out of range: INT64_MIN), kept inside +-2^62
// so that the window arithmetic below cannot overflow.
int64_t WindowOffset(float v) {
  if (!(v > -4.6e18f && v < 4.6e18f)) return v > 0 ? (int64_t{1} << 62) : -(int64_t{1} << 62);
  return static_cast<int64_t>(v);
}

void GlimpseCompute(void* state, TF_OpKernelContext* ctx) {
  const GlimpseAttrs& a = *static_cast<GlimpseAttrs*>(state);
  const TF_Tensor* input = BorrowInput(ctx, 0);
  const TF_Tensor* size = BorrowInput(ctx, 1);
  const TF_Tensor* offsets = BorrowInput(ctx, 2);
  if (input == nullptr || size == nullptr || offsets == nullptr) return;
  if (TF_NumDims(input) != 4)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "input must be 4-dimensional (batch_size, height, width, depth)" +
                    ShapeString(Dims(input)));
  if (TF_NumDims(size) != 1 || TF_Dim(size, 0) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "input must be a vector of size 2 (height, width)" + ShapeString(Dims(size)));
  const int64_t out_h = Data<int32_t>(size)[0], out_w = Data<int32_t>(size)[1];
  if (out_h < 0 || out_w < 0)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "Expected a non-negative size, got " + std::to_string(out_h < 0 ? out_h : out_w));
  if (TF_NumDims(offsets) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT, "input must be a matrix" + ShapeString(Dims(offsets)));
  const int64_t batch = TF_Dim(input, 0), in_h = TF_Dim(input, 1), in_w = TF_Dim(input, 2);
  const int64_t c = TF_Dim(input, 3);
  if (TF_Dim(offsets, 0) != batch)
    return Fail(ctx, TF_INVALID_ARGUMENT, "first dimension should be batch" + ShapeString(Dims(offsets)));
  if (TF_Dim(offsets, 1) != 2)
    return Fail(ctx, TF_INVALID_ARGUMENT,
                "second dimension should be of size 2 (y,x)" + ShapeString(Dims(offsets)));
  TensorPtr out = AllocateOutput<float>(ctx, 0, {batch, out_h, out_w, c});
  if (!out || TF_TensorElementCount(out.get()) == 0) return;
  const float* x = Data<float>(input);
  const float* off = Data<float>(offsets);
  float* y = Data<float>(out);
  std::random_device device;
  std::mt19937 noise_rng((static_cast<uint64_t>(device()) << 32) | device());
  const int64_t image_size = in_h * in_w * c, window_size = out_h * out_w * c;
  for (int64_t b = 0; b < batch; ++b) {
    float ox = off[2 * b + 1], oy = off[2 * b];
    const float fw = static_cast<float>(in_w), fh = static_cast<float>(in_h);
    if (a.version == 1 || a.normalized) {
      if (a.normalized) ox *= fw, oy *= fh;
      if (a.centered) {
        ox /= 2.0f, oy /= 2.0f;
        ox += fw / 2.0f, oy += fh / 2.0f;
      }
      if (a.version == 1 || a.centered) {
        ox -= static_cast<float>(out_w) / 2.0f;
        oy -= static_cast<float>(out_h) / 2.0f;
      }
    } else if (a.centered) {
      ox += fw / 2.0f, oy += fh / 2.0f;
    }
    const int64_t left = WindowOffset(ox), top = WindowOffset(oy);
    const float* img = x + b * image_size;
    float* win = y + b * window_size;
    const bool partial = left < 0 || left + out_w >= in_w || top < 0 || top + out_h >= in_h;
    if (partial) {
      if (a.noise == Noise::kZero || image_size == 0) {
        std::fill(win, win + window_size, 0.0f);
      } else if (a.noise == Noise::kUniform) {
        const auto [lo, hi] = std::minmax_element(img, img + image_size);
        const float range = *hi - *lo;
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        for (int64_t i = 0; i < window_size; ++i) win[i] = *lo + u(noise_rng) * range;
      } else {
        for (int64_t k = 0; k < c; ++k) {
          double sum = 0, sq = 0;
          float lo = std::numeric_limits<float>::infinity(), hi = -lo;
          for (int64_t p = 0; p < in_h * in_w; ++p) {
            const float v = img[p * c + k];
            sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
          }
          const double mean = sum / static_cast<double>(in_h * in_w);
          for (int64_t p = 0; p < in_h * in_w; ++p) sq += (img[p * c + k] - mean) * (img[p * c + k] - mean);
          std::normal_distribution<float> g(static_cast<float>(mean),
                                            static_cast<float>(std::sqrt(sq / (in_h * in_w))));
          for (int64_t p = 0; p < out_h * out_w; ++p)
            win[p * c + k] = std::max(lo, std::min(hi, g(noise_rng)));
        }
      }
    }
    // the window's part inside the image
    const int64_t y0 = std::max<int64_t>(top, 0), y1 = std::min(top + out_h, in_h);
    const int64_t x0 = std::max<int64_t>(left, 0), x1 = std::min(left + out_w, in_w);
    for (int64_t yy = y0; yy < y1; ++yy)
      if (x0 < x1)
        std::copy(img + (yy * in_w + x0) * c, img + (yy * in_w + x1) * c,
                  win + ((yy - top) * out_w + (x0 - left)) * c);
  }
}

template <typename... Ts>
void RegisterContrast(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"AdjustContrast", {{"T", DtypeOf<Ts>::value}}, {},
                            &AdjustContrastV1<Ts>}, status), ...);
}

template <typename... Ts>
void RegisterCrop(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"RandomCrop", {{"T", DtypeOf<Ts>::value}}, {}, &RandomCropCompute<Ts>,
                            kernels::CreateStatefulRandom, kernels::DeleteStatefulRandom},
                  status), ...);
}

template <typename... Ts>
void RegisterDraw(Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {"DrawBoundingBoxes", {{"T", DtypeOf<Ts>::value}}, {},
                            &DrawBoxes<Ts, false>}, status), ...);
  (RegisterKernel(kDevice, {"DrawBoundingBoxesV2", {{"T", DtypeOf<Ts>::value}}, {},
                            &DrawBoxes<Ts, true>}, status), ...);
}

}  // namespace

void RegisterImageLegacyKernels(TF_Status* status) {
  // TensorFlow's CPU kernels: AdjustContrast has no int64 one (its OpDef allows it)
  RegisterContrast(Types<uint8_t, int8_t, int16_t, int32_t, float, double>(), status);
  RegisterCrop(Types<uint8_t, int8_t, int16_t, int32_t, int64_t, float, double>(), status);
  RegisterDraw(Types<float, Half>(), status);
  RegisterKernel(kDevice, {"ExtractGlimpse", {}, {}, &GlimpseCompute, CreateGlimpseV1,
                           DeleteGlimpse}, status);
  RegisterKernel(kDevice, {"ExtractGlimpseV2", {}, {}, &GlimpseCompute, CreateGlimpseV2,
                           DeleteGlimpse}, status);
}

}  // namespace cpu
}  // namespace opgen

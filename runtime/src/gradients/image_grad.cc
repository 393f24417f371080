// Gradients of the detection and augmentation image ops, with TensorFlow's formulas (its
// image_grad.py). The resizes' gradients stay with the other layout ops (array_grad.cc).
#include <string>
#include <vector>

#include "builtin_gradients.h"
#include "grad_builder.h"

namespace opgen {
namespace gradients {
namespace {

// CropAndResize(image, boxes, box_ind, crop_size): the image's gradient for float images
// (the only ones CropAndResizeGradImage makes), the boxes' from the bilinear sampling
// (also for nearest sampling, whose own derivative is zero almost everywhere, as
// TensorFlow does); box_ind and crop_size get none.
void CropAndResizeGrad(GradBuilder& b) {
  const TF_Output image = b.input(0);
  const TF_DataType t = b.dtype(image);
  if (b.needs(0) && (t == TF_HALF || t == TF_FLOAT || t == TF_DOUBLE))
    b.Set(0, b.Op("CropAndResizeGradImage", {b.grad(0), b.input(1), b.input(2), b.ShapeOf(image)},
                  {{"T", t}, {"method", b.AttrString("method")}}));
  if (b.needs(1))
    b.Set(1, b.Op("CropAndResizeGradBoxes", {b.grad(0), image, b.input(1), b.input(2)},
                  {{"T", t}}));
}

// CropAndResizeGradImage(grads, boxes, box_ind, image_size) spreads each crop value over
// the pixels it sampled with the sampling weights: the transpose of CropAndResize, whose
// crops of the incoming gradient (extrapolating zeros) are therefore its gradient.
// TensorFlow registers none: derived.
void CropAndResizeGradImageGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output grads = b.input(0);
  const TF_Output crop_size = b.Op("Slice", {b.ShapeOf(grads), b.Int32s({1}), b.Int32s({2})});
  b.Set(0, b.Op("CropAndResize", {b.grad(0), b.input(1), b.input(2), crop_size},
                {{"T", b.dtype(b.grad(0))}, {"method", b.AttrString("method")}}));
}

// ExtractImagePatches(images): each patch value is a copy of one pixel's value (or padding),
// so a pixel's gradient is the sum of its copies' gradients. Which pixel a copy came from
// is found as TensorFlow finds it: the patches of an image of 1-based pixel numbers (the
// padding reads 0), whose values then key an UnsortedSegmentSum of the gradient.
void ExtractImagePatchesGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output shape = b.ShapeOf(b.input(0));  // [batch, rows, cols, depth]
  auto dim = [&](int d) { return b.Op("Slice", {shape, b.Int32s({d}), b.Int32s({1})}); };
  const TF_Output batch = dim(0), depth = dim(3);
  const TF_Output rows_cols = b.Op("Slice", {shape, b.Int32s({1}), b.Int32s({2})});
  const TF_Output pixels = b.Op("Prod", {rows_cols, b.Int32(0)});
  const TF_Output numbers = b.Op(
      "Reshape", {b.Op("Range", {b.Int32(1), b.Op("AddV2", {pixels, b.Int32(1)}), b.Int32(1)}),
                  b.Op("ConcatV2", {std::vector<TF_Output>{b.Int32s({1}), rows_cols, b.Int32s({1})},
                                    b.Int32(0)})});
  const TF_Output sources = b.Op(
      "Reshape", {b.Op("ExtractImagePatches", {numbers},
                       b.CopyAttrs({"ksizes", "strides", "rates", "padding"})),
                  b.Int32s({-1})});
  // [batch, out_rows, out_cols, (kr, kc, depth)] -> [(out_rows, out_cols, kr, kc), batch, depth]
  const TF_Output per_copy = b.Op(
      "Transpose",
      {b.Op("Reshape", {b.grad(0), b.Op("ConcatV2", {std::vector<TF_Output>{batch, b.Int32s({-1}), depth},
                                                      b.Int32(0)})}),
       b.Int32s({1, 0, 2})});
  const TF_Output sums = b.Op("UnsortedSegmentSum",
                              {per_copy, sources, b.Op("AddV2", {pixels, b.Int32(1)})});
  const TF_Output real = b.Op("Slice", {sums, b.Int32s({1, 0, 0}), b.Int32s({-1, -1, -1})});
  const TF_Output by_pixel = b.Op(
      "Reshape", {real, b.Op("ConcatV2", {std::vector<TF_Output>{rows_cols, batch, depth},
                                          b.Int32(0)})});
  b.Set(0, b.Op("Transpose", {by_pixel, b.Int32s({2, 0, 1, 3})}));
}

// TensorFlow defines no gradient for CropAndResizeGradBoxes: building one reports that.
void CropAndResizeGradBoxesGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               "CropAndResizeGradBoxes has no gradient (TensorFlow defines none either)");
}

// RGBToHSV(images [..., 3]) -> [h, s, v], from the conversion's derivatives. With
// V = max(r, g, b), m = min, d = V - m and the channel holding the max chosen as the
// kernel does (r, then g, then b on ties):
//   v = V;  s = d / V (0 for V = 0);  h = (x - y) / (6 d) + offset (0 for d = 0), with
//   (x, y) = (g, b), (b, r), (r, g) for the max in r, g, b (the offset and the wrap
//   into [0, 1) are constants of the derivative).
// So for a channel c, with M_c / N_c "c is the max / the min" (0 or 1):
//   dv/dc = M_c;  ds/dc = (M_c - N_c) / V - d M_c / V^2;
//   dh/dc = A_c / (6 d) - num (M_c - N_c) / (6 d^2), num = x - y, and A_c = +1 where c
//   is x, -1 where c is y, 0 else: A_r = M_b - M_g, A_g = M_r - M_b, A_b = M_g - M_r.
// Ties (two channels equal to the max or the min) are not differentiable points; the
// masks pick one side there, TensorFlow's: its gradient then agrees on grey pixels.
void RgbToHsvGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output images = b.input(0);
  const TF_DataType t = b.dtype(images);
  const std::vector<Attr> split = {{"num", int64_t{3}}, {"axis", int64_t{-1}}};
  TF_Operation* rgb = b.Node("Unpack", {images}, split);
  TF_Operation* dhsv = b.Node("Unpack", {b.grad(0)}, split);
  if (!b.ok()) return;
  const TF_Output r{rgb, 0}, g{rgb, 1}, bl{rgb, 2};
  const TF_Output dh{dhsv, 0}, ds{dhsv, 1}, dv{dhsv, 2};
  auto mul = [&](TF_Output x, TF_Output y) { return b.Op("Mul", {x, y}); };
  auto add = [&](TF_Output x, TF_Output y) { return b.Op("AddV2", {x, y}); };
  auto sub = [&](TF_Output x, TF_Output y) { return b.Op("Sub", {x, y}); };
  auto mask = [&](TF_Output cond) { return b.Op("Cast", {cond}, {{"DstT", t}}); };
  const TF_Output one = b.Scalar(1, t);
  // which channel is the max (the min) on ties: the first (the last) of r, g, b equal to
  // it, as the kernel picks the max and TensorFlow's gradient the min
  auto pick = [&](TF_Output extreme, TF_Output first, TF_Output second, TF_Output* m_first,
                  TF_Output* m_second, TF_Output* m_third) {
    *m_first = mask(b.Op("Equal", {first, extreme}));
    *m_second = mask(b.Op("LogicalAnd", {b.Op("NotEqual", {first, extreme}),
                                         b.Op("Equal", {second, extreme})}));
    *m_third = sub(sub(one, *m_first), *m_second);
  };
  const TF_Output v = b.Op("Maximum", {r, b.Op("Maximum", {g, bl})});
  const TF_Output m = b.Op("Minimum", {r, b.Op("Minimum", {g, bl})});
  const TF_Output d = sub(v, m);
  TF_Output max_r, max_g, max_b, min_r, min_g, min_b;
  pick(v, r, g, &max_r, &max_g, &max_b);
  pick(m, bl, g, &min_b, &min_g, &min_r);
  // 1 / (6 d) and 1 / V where d, V > 0; 0 where the hue (saturation) is the constant 0
  const TF_Output d_pos = mask(b.Op("Greater", {d, b.Scalar(0, t)}));
  const TF_Output d_safe = add(d, sub(one, d_pos));
  const TF_Output inv6d = b.Op("RealDiv", {d_pos, mul(b.Scalar(6, t), d_safe)});
  const TF_Output v_pos = mask(b.Op("Greater", {v, b.Scalar(0, t)}));
  const TF_Output inv_v = b.Op("RealDiv", {v_pos, add(v, sub(one, v_pos))});
  const TF_Output num = add(add(mul(max_r, sub(g, bl)), mul(max_g, sub(bl, r))),
                            mul(max_b, sub(r, g)));
  // grad_c = p A_c - (M_c - N_c) q + [c > 0] (M_c - N_c) sv - M_c sd + M_c dv. The
  // [c > 0] and the hue's [V > 0] are TensorFlow's: a channel at exactly 0 (the min of a
  // non-negative pixel) gets no saturation gradient there, where the one-sided
  // derivative is -1/V; both agree everywhere else.
  const TF_Output p = mul(mul(dh, inv6d), v_pos);
  const TF_Output q = b.Op("RealDiv", {mul(p, num), d_safe});
  const TF_Output sv = mul(ds, inv_v);
  const TF_Output sd = mul(mul(ds, d), mul(inv_v, inv_v));
  const TF_Output zero = b.Scalar(0, t);
  auto channel = [&](TF_Output c, TF_Output a, TF_Output max_c, TF_Output min_c) {
    const TF_Output spread = sub(max_c, min_c);
    const TF_Output saturation = sub(mul(spread, sv), mul(max_c, sd));
    return add(add(sub(mul(p, a), mul(spread, q)),
                   mul(mask(b.Op("Greater", {c, zero})), saturation)),
               mul(max_c, dv));
  };
  const TF_Output gr = channel(r, sub(max_b, max_g), max_r, min_r);
  const TF_Output gg = channel(g, sub(max_r, max_b), max_g, min_g);
  const TF_Output gb = channel(bl, sub(max_g, max_r), max_b, min_b);
  b.Set(0, b.Op("Pack", {std::vector<TF_Output>{gr, gg, gb}}, {{"axis", int64_t{-1}}}));
}

// TensorFlow defines no gradient for the colour adjustments either.
template <const char* kOp>
void NoAdjustGrad(GradBuilder& b) {
  TF_SetStatus(b.status(), TF_UNIMPLEMENTED,
               (std::string(kOp) + " has no gradient (TensorFlow defines none either)").c_str());
}
constexpr char kAdjustHue[] = "AdjustHue", kAdjustSaturation[] = "AdjustSaturation",
               kAdjustContrastv2[] = "AdjustContrastv2";

// ImageProjectiveTransformV2/V3(images, transforms, output_shape[, fill_value]): the
// images' gradient is the incoming gradient sent back through the inverse maps, as
// TensorFlow's image_ops.py computes it (each transform as a 3x3 matrix with a last 1,
// inverted, divided by its last entry; zeros fill). Only float-like and the integer types
// TensorFlow lists: it refuses bfloat16.
template <bool kV3>
void ImageProjectiveTransformGrad(GradBuilder& b) {
  if (!b.needs(0)) return;
  const TF_Output images = b.input(0), transforms = b.input(1);
  if (b.dtype(images) == TF_BFLOAT16) {
    TF_SetStatus(b.status(), TF_INVALID_ARGUMENT, "Invalid dtype <dtype: 'bfloat16'>.");
    return;
  }
  const TF_Output rows = b.Op("Slice", {b.ShapeOf(transforms), b.Int32s({0}), b.Int32s({1})});
  const TF_Output ones = b.Op(
      "Fill", {b.Op("ConcatV2", {std::vector<TF_Output>{rows, b.Int32s({1})}, b.Int32(0)}),
               b.Scalar(1, TF_FLOAT)});
  const TF_Output matrices = b.Op(
      "Reshape", {b.Op("ConcatV2", {std::vector<TF_Output>{transforms, ones}, b.Int32(1)}),
                  b.Int32s({-1, 3, 3})});
  const TF_Output flat = b.Op("Reshape", {b.Op("MatrixInverse", {matrices}), b.Int32s({-1, 9})});
  const TF_Output last = b.Op("Slice", {flat, b.Int32s({0, 8}), b.Int32s({-1, 1})});
  const TF_Output inverse = b.Op(
      "Slice", {b.Op("RealDiv", {flat, last}), b.Int32s({0, 0}), b.Int32s({-1, 8})});
  const TF_Output size = b.Op("Slice", {b.ShapeOf(images), b.Int32s({1}), b.Int32s({2})});
  std::vector<In> inputs = {b.grad(0), inverse, size};
  if (kV3) inputs.push_back(b.Scalar(0, TF_FLOAT));
  b.Set(0, b.Op(kV3 ? "ImageProjectiveTransformV3" : "ImageProjectiveTransformV2", inputs,
                std::vector<Attr>{{"dtype", b.dtype(b.grad(0))},
                                  {"interpolation", b.AttrString("interpolation")},
                                  {"fill_mode", b.AttrString("fill_mode")}}));
}

}  // namespace

void RegisterImageGradients() {
  RegisterGrad("ImageProjectiveTransformV2", ImageProjectiveTransformGrad<false>);
  RegisterGrad("ImageProjectiveTransformV3", ImageProjectiveTransformGrad<true>);
  RegisterGrad("RGBToHSV", RgbToHsvGrad);
  RegisterGrad(kAdjustHue, NoAdjustGrad<kAdjustHue>);
  RegisterGrad(kAdjustSaturation, NoAdjustGrad<kAdjustSaturation>);
  RegisterGrad(kAdjustContrastv2, NoAdjustGrad<kAdjustContrastv2>);
  RegisterGrad("CropAndResize", CropAndResizeGrad);
  RegisterGrad("CropAndResizeGradImage", CropAndResizeGradImageGrad);
  RegisterGrad("CropAndResizeGradBoxes", CropAndResizeGradBoxesGrad);
  RegisterGrad("ExtractImagePatches", ExtractImagePatchesGrad);
}

}  // namespace gradients
}  // namespace opgen

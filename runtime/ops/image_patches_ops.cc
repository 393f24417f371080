// ExtractImagePatches (tf.image.extract_patches): every ksize window of an image laid out
// along the depth. OpDef as TensorFlow 2.21's.
#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

// [1, rows, cols, 1] attrs: TensorFlow's shape function wants exactly four values.
std::vector<int64_t> FourInts(ShapeFnContext& c, const char* name) {
  std::vector<int64_t> v = c.AttrInts(name);
  if (v.size() != 4)
    Fail(std::string("ExtractImagePatches requires the ") + name +
         " attribute to contain 4 values, but got: " + std::to_string(v.size()));
  return v;
}

// One spatial dimension's output size (unknown in, unknown out).
int64_t PatchDim(int64_t in, int64_t k, int64_t stride, int64_t rate, bool same) {
  if (in == kUnknownDim) return kUnknownDim;
  if (k < 1 || stride < 1 || rate < 1) Fail("ksizes, strides and rates must be positive");
  const int64_t effective = k + (k - 1) * (rate - 1);
  if (same) return (in + stride - 1) / stride;
  const int64_t out = (in - effective + stride) / stride;
  if (out < 0)
    Fail("Computed output size would be negative: " + std::to_string(out) + " [input_size: " +
         std::to_string(in) + ", effective_filter_size: " + std::to_string(effective) +
         ", stride: " + std::to_string(stride) + "]");
  return out;
}

void ExtractImagePatchesShape(ShapeFnContext& c) {
  const PartialShape in = c.InputWithRank(0, 4, "images");
  const std::vector<int64_t> k = FourInts(c, "ksizes"), s = FourInts(c, "strides"),
                             r = FourInts(c, "rates");
  const bool same = c.AttrString("padding") == "SAME";
  const int64_t depth = in.dims[3] == kUnknownDim ? kUnknownDim : in.dims[3] * k[1] * k[2];
  int64_t rows = kUnknownDim, cols = kUnknownDim;
  if (in.dims[1] != kUnknownDim && in.dims[2] != kUnknownDim) {
    rows = PatchDim(in.dims[1], k[1], s[1], r[1], same);
    cols = PatchDim(in.dims[2], k[2], s[2], r[2], same);
  }
  c.SetOutput(0, PartialShape::Of({in.dims[0], rows, cols, depth}));
}

}  // namespace

void RegisterImagePatchesOps(TF_Status* status) {
  RegisterOps({
      {"ExtractImagePatches",
       {"ksizes: list(int) >= 4", "strides: list(int) >= 4", "rates: list(int) >= 4",
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, "
        "uint64, complex64, complex128, bool}",
        "padding: {'SAME', 'VALID'}"},
       {"images: T"}, {"patches: T"}, ShapeFn<ExtractImagePatchesShape>,
       "Extracts the image's patches into the depth of the output.",
       "Output pixel (y, x) holds the ksizes[1] x ksizes[2] window whose top-left tap is at "
       "(y * strides[1], x * strides[2]) less the padding, taps rates apart, row by row, "
       "each tap's depth values together; taps in the padding are zero.",
       {{"images", "4-D [batch, in_rows, in_cols, depth]."},
        {"patches", "4-D [batch, out_rows, out_cols, ksizes[1] * ksizes[2] * depth]."},
        {"ksizes", "The window, [1, rows, cols, 1]."},
        {"strides", "How far apart windows start, [1, rows, cols, 1]."},
        {"rates", "How far apart a window's taps are, [1, rows, cols, 1] (dilation)."},
        {"padding", "VALID: whole windows only; SAME: as many windows as ceil(in / stride)."}}},
  }, status);
}

}  // namespace opgen

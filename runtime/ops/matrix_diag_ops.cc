// Bands of diagonals (tf.linalg.diag, diag_part, set_diag with k and align) and L2Loss.
// OpDefs as TensorFlow 2.21's.
#include <algorithm>
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {
namespace {

const char* const kAlign =
    "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'";
const std::pair<std::string, std::string> kAlignDoc{
    "align", "How diagonals shorter than the longest sit in their row: the superdiagonals' "
             "rule first (LEFT: from the start, RIGHT: against the end), then the "
             "subdiagonals'."};
const std::pair<std::string, std::string> kKDoc{
    "k", "The diagonal (0 main, > 0 above, < 0 below), or a band [low, high]."};

// k's value as [lo, hi] when it is a constant; the kernels check it.
bool ConstBand(ShapeFnContext& c, int i, int64_t* lo, int64_t* hi) {
  const auto k = c.InputInts(i);
  if (!k || k->empty() || k->size() > 2) return false;
  *lo = (*k)[0];
  *hi = k->back();
  if (*lo > *hi) Fail("lower_diag_index must not be larger than upper_diag_index");
  return true;
}

void DiagPartShape(ShapeFnContext& c) {
  const PartialShape input = c.InputWithRankAtLeast(0, 2, "input");
  int64_t lo, hi;
  if (!input.rank_known || !ConstBand(c, 1, &lo, &hi)) return c.SetOutput(0, PartialShape::Unknown());
  const int64_t rows = input.dims[input.dims.size() - 2], cols = input.dims.back();
  std::vector<int64_t> dims(input.dims.begin(), input.dims.end() - 2);
  if (hi > lo) dims.push_back(hi - lo + 1);
  dims.push_back(rows == kUnknownDim || cols == kUnknownDim
                     ? kUnknownDim
                     : std::max<int64_t>(0, std::min(rows + std::min<int64_t>(hi, 0),
                                                     cols - std::max<int64_t>(lo, 0))));
  c.SetOutput(0, PartialShape::Of(dims));
}

void DiagShape(ShapeFnContext& c) {
  const PartialShape diagonal = c.InputWithRankAtLeast(0, 1, "diagonal");
  int64_t lo, hi;
  const auto rows_in = c.InputInts(2), cols_in = c.InputInts(3);
  if (!diagonal.rank_known || !ConstBand(c, 1, &lo, &hi) || !rows_in || !cols_in ||
      rows_in->size() != 1 || cols_in->size() != 1)
    return c.SetOutput(0, PartialShape::Unknown());
  const int64_t drop = hi > lo ? 2 : 1;
  if (diagonal.rank() < drop) Fail("diagonal must be at least 2-dim for a band of diagonals");
  std::vector<int64_t> dims(diagonal.dims.begin(), diagonal.dims.end() - drop);
  int64_t rows = (*rows_in)[0], cols = (*cols_in)[0];
  const int64_t len = diagonal.dims.back();
  if (len != kUnknownDim) {
    const int64_t min_rows = len - std::min<int64_t>(hi, 0);
    const int64_t min_cols = len + std::max<int64_t>(lo, 0);
    if (rows == -1 && cols == -1) rows = cols = std::max(min_rows, min_cols);
    else if (rows == -1) rows = min_rows;
    else if (cols == -1) cols = min_cols;
  }
  dims.push_back(rows < 0 ? kUnknownDim : rows);
  dims.push_back(cols < 0 ? kUnknownDim : cols);
  c.SetOutput(0, PartialShape::Of(dims));
}

void SetDiagShape(ShapeFnContext& c) {
  c.SetOutput(0, c.InputWithRankAtLeast(0, 2, "input"));
}

// MatrixDiag (v1): [..., n] -> [..., n, n].
void DiagV1Shape(ShapeFnContext& c) {
  PartialShape s = c.InputWithRankAtLeast(0, 1, "diagonal");
  if (s.rank_known) s.dims.push_back(s.dims.back());
  c.SetOutput(0, s);
}

// MatrixDiagPart (v1): [..., rows, cols] -> [..., min(rows, cols)].
void DiagPartV1Shape(ShapeFnContext& c) {
  PartialShape s = c.InputWithRankAtLeast(0, 2, "input");
  if (!s.rank_known) return c.SetOutput(0, s);
  const int64_t cols = s.dims.back();
  s.dims.pop_back();
  const int64_t rows = s.dims.back();
  s.dims.back() = rows < 0 || cols < 0 ? kUnknownDim : std::min(rows, cols);
  c.SetOutput(0, s);
}


}  // namespace

void RegisterMatrixDiagOps(TF_Status* status) {
  RegisterOps({
      {"MatrixDiagV3", {"T: type", kAlign},
       {"diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32", "padding_value: T"},
       {"output: T"}, ShapeFn<DiagShape>,
       "Batched matrices with the given diagonals, padding_value elsewhere.",
       "diagonal is [..., max_len] for one diagonal, [..., num_diags, max_len] for a band "
       "k = [low, high], diagonal high first. num_rows / num_cols of -1 are the smallest "
       "that hold the diagonals.",
       {{"diagonal", "The diagonals."}, kKDoc,
        {"num_rows", "The matrices' rows, or -1."}, {"num_cols", "The matrices' columns, or -1."},
        {"padding_value", "The value outside the band."},
        {"output", "[..., num_rows, num_cols]."}, kAlignDoc}},
      {"MatrixDiagPartV3", {"T: type", kAlign}, {"input: T", "k: int32", "padding_value: T"},
       {"diagonal: T"}, ShapeFn<DiagPartShape>,
       "The diagonals k of batched matrices.",
       "One diagonal: [..., max_len]; a band k = [low, high]: [..., num_diags, max_len], "
       "diagonal high first, shorter diagonals aligned by `align` and padded.",
       {{"input", "Matrices [..., rows, cols]."}, kKDoc,
        {"padding_value", "The value that fills short diagonals."},
        {"diagonal", "The diagonals."}, kAlignDoc}},
      {"MatrixSetDiagV3", {"T: type", kAlign}, {"input: T", "diagonal: T", "k: int32"},
       {"output: T"}, ShapeFn<SetDiagShape>,
       "Batched matrices with their diagonals k replaced.",
       "diagonal is shaped as MatrixDiagPartV3's output for the same k.",
       {{"input", "Matrices [..., rows, cols]."}, {"diagonal", "The new diagonals."}, kKDoc,
        {"output", "input with the band replaced."}, kAlignDoc}},
      {"MatrixDiagV2", {"T: type"},
       {"diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32", "padding_value: T"},
       {"output: T"}, ShapeFn<DiagShape>, "MatrixDiagV3 with align LEFT_LEFT (TF 2.2's form).", "",
       {{"diagonal", "The diagonals."}, kKDoc,
        {"num_rows", "The matrices' rows, or -1."}, {"num_cols", "The matrices' columns, or -1."},
        {"padding_value", "The value outside the band."}, {"output", "[..., num_rows, num_cols]."}}},
      {"MatrixDiagPartV2", {"T: type"}, {"input: T", "k: int32", "padding_value: T"},
       {"diagonal: T"}, ShapeFn<DiagPartShape>,
       "MatrixDiagPartV3 with align LEFT_LEFT (TF 2.2's form).", "",
       {{"input", "Matrices [..., rows, cols]."}, kKDoc,
        {"padding_value", "The value that fills short diagonals."}, {"diagonal", "The diagonals."}}},
      {"MatrixSetDiagV2", {"T: type"}, {"input: T", "diagonal: T", "k: int32"}, {"output: T"},
       ShapeFn<SetDiagShape>, "MatrixSetDiagV3 with align LEFT_LEFT (TF 2.2's form).", "",
       {{"input", "Matrices [..., rows, cols]."}, {"diagonal", "The new diagonals."}, kKDoc,
        {"output", "input with the band replaced."}}},
      {"MatrixDiag", {"T: type"}, {"diagonal: T"}, {"output: T"}, ShapeFn<DiagV1Shape>,
       "Square matrices with `diagonal` on the main diagonal, zeros elsewhere (v1).", "",
       {{"diagonal", "[..., n]."}, {"output", "[..., n, n]."}}},
      {"MatrixDiagPart", {"T: type"}, {"input: T"}, {"diagonal: T"}, ShapeFn<DiagPartV1Shape>,
       "The main diagonal of batched matrices (v1).", "",
       {{"input", "Matrices [..., rows, cols]."}, {"diagonal", "[..., min(rows, cols)]."}}},
      {"MatrixSetDiag", {"T: type"}, {"input: T", "diagonal: T"}, {"output: T"},
       ShapeFn<SetDiagShape>, "Batched matrices with their main diagonal replaced (v1).", "",
       {{"input", "Matrices [..., rows, cols]."}, {"diagonal", "[..., min(rows, cols)]."},
        {"output", "input with the main diagonal replaced."}}},
      {"L2Loss", {"T: {half, bfloat16, float, double}"}, {"t: T"}, {"output: T"},
       shape_fns::kScalar, "L2 loss: sum(t ** 2) / 2, without the square root.", "",
       {{"t", "Typically 2-D, but any shape."}, {"output", "A scalar."}}},
  }, status);
}

}  // namespace opgen

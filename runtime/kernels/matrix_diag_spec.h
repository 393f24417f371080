// MatrixDiagV3, MatrixDiagPartV3 and MatrixSetDiagV3: checks (TensorFlow's messages) and
// the per-element index maps, shared by the CPU kernels and the CUDA plugin's.
//
// A band of diagonals k = [lo, hi] (d = column - row; a scalar k is [k, k]) is stored as
// [..., hi - lo + 1, max_len] (the middle dim dropped for one diagonal), diagonal hi
// first. Diagonal d holds len(d) = min(rows + min(d, 0), cols - max(d, 0)) elements, its
// i-th at row i + max(-d, 0), column i + max(d, 0), placed in its max_len slot from the
// left or from the right: `align` names the rule for the superdiagonals (d >= 0) first,
// then the subdiagonals; the gaps are padding_value.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct DiagBand {
  int64_t lo = 0, hi = 0, max_len = 0, rows = 0, cols = 0;
  bool left_super = false, left_sub = true;  // RIGHT_LEFT, the default
  OPGEN_HD int64_t num_diags() const { return hi - lo + 1; }
};

OPGEN_HD inline int64_t DiagLength(const DiagBand& b, int64_t d) {
  const int64_t r = b.rows + (d < 0 ? d : 0), c = b.cols - (d > 0 ? d : 0);
  return r < c ? r : c;
}

// Where diagonal d's first element sits in its slot of max_len.
OPGEN_HD inline int64_t DiagOffset(const DiagBand& b, int64_t d) {
  const bool left = d >= 0 ? b.left_super : b.left_sub;
  return left ? 0 : b.max_len - DiagLength(b, d);
}

// The element of matrix `m` at (r, c) in the diagonals' storage of that matrix, or -1
// where (r, c) is outside the band.
OPGEN_HD inline int64_t DiagSlotOf(const DiagBand& b, int64_t m, int64_t r, int64_t c) {
  const int64_t d = c - r;
  if (d < b.lo || d > b.hi) return -1;
  const int64_t i = r < c ? r : c;
  return (m * b.num_diags() + (b.hi - d)) * b.max_len + i + DiagOffset(b, d);
}

// The matrix element that slot j of diagonal row `row` (0 for hi) of matrix `m` reads,
// or -1 for padding.
OPGEN_HD inline int64_t DiagSourceOf(const DiagBand& b, int64_t m, int64_t row, int64_t j) {
  const int64_t d = b.hi - row;
  const int64_t i = j - DiagOffset(b, d);
  if (i < 0 || i >= DiagLength(b, d)) return -1;
  const int64_t r = i + (d < 0 ? -d : 0), c = i + (d > 0 ? d : 0);
  return (m * b.rows + r) * b.cols + c;
}

// The align attr (checked against the OpDef's allowed values by the framework).
inline void* CreateDiagAlign(TF_OpKernelConstruction* ctx) {
  auto* align = new std::pair<bool, bool>(false, true);
  StatusPtr s = NewStatus();
  int32_t size = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "align", &size, &total, s.get());
  std::string v(total > 0 ? total : 0, '\0');
  if (TF_GetCode(s.get()) == TF_OK && total > 0)
    TF_OpKernelConstruction_GetAttrString(ctx, "align", &v[0], total, s.get());
  if (TF_GetCode(s.get()) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s.get());
    return align;
  }
  const size_t underscore = v.find('_');
  align->first = v.compare(0, underscore, "LEFT") == 0;
  align->second = v.compare(underscore + 1, std::string::npos, "LEFT") == 0;
  return align;
}
// MatrixDiagV2, MatrixDiagPartV2, MatrixSetDiagV2: V3 without the attr, always LEFT_LEFT.
inline void* CreateDiagLeftLeft(TF_OpKernelConstruction*) { return new std::pair<bool, bool>(true, true); }
inline void DeleteDiagAlign(void* p) { delete static_cast<std::pair<bool, bool>*>(p); }

// k (host memory): a scalar or one or two int32s, lo <= hi. The v1 ops (MatrixDiag,
// MatrixDiagPart, MatrixSetDiag: no k input, so index is past the inputs) have k = 0.
inline bool ReadDiagIndex(TF_OpKernelContext* ctx, int index, DiagBand* b) {
  if (index >= TF_NumInputs(ctx)) {
    b->lo = b->hi = 0;
    return true;
  }
  TensorPtr k = Input(ctx, index);
  if (!k) return false;
  const std::vector<int64_t> dims = Dims(k.get());
  if (dims.size() > 1) {
    Fail(ctx, TF_INVALID_ARGUMENT, "diag_index must be a scalar or vector, received shape: " +
                                       ShapeString(dims));
    return false;
  }
  const std::vector<int64_t> v = IndexValues(k.get());
  if (v.empty() || v.size() > 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "diag_index must have only one or two elements, received " +
                                       std::to_string(v.size()) + " elements.");
    return false;
  }
  b->lo = v[0];
  b->hi = v.size() == 2 ? v[1] : v[0];
  if (b->lo > b->hi) {
    Fail(ctx, TF_INVALID_ARGUMENT, "lower_diag_index must not be larger than upper_diag_index: " +
                                       std::to_string(b->lo) + " > " + std::to_string(b->hi));
    return false;
  }
  return true;
}

// Both ends of the band inside a [rows, cols] matrix (an empty dimension allows any).
inline bool CheckBandBounds(TF_OpKernelContext* ctx, const DiagBand& b) {
  for (const auto& [name, d] : {std::pair<const char*, int64_t>{"lower_diag_index", b.lo},
                                {"upper_diag_index", b.hi}}) {
    if ((b.rows == 0 || d > -b.rows) && (b.cols == 0 || d < b.cols)) continue;
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(name) + " is out of bound: " + std::to_string(d) +
                                       ". It must be between " + std::to_string(-b.rows) +
                                       " and " + std::to_string(b.cols));
    return false;
  }
  return true;
}

// padding_value (host memory) as raw bytes: a scalar, or for MatrixDiagPartV3 (`any_shape`)
// any one-element tensor, as TensorFlow reads it.
// The v1 ops (no such input) pad with zeros of `like`'s dtype.
inline bool ReadPadding(TF_OpKernelContext* ctx, int index, bool any_shape, std::vector<char>* bytes,
                        const TF_Tensor* like) {
  if (index >= TF_NumInputs(ctx)) {
    bytes->assign(TF_DataTypeSize(TF_TensorType(like)), 0);
    return true;
  }
  TensorPtr t = Input(ctx, index);
  if (!t) return false;
  if (TF_TensorElementCount(t.get()) != 1 || (!any_shape && TF_NumDims(t.get()) != 0)) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string("padding_value must be a scalar"));
    return false;
  }
  const char* p = static_cast<const char*>(TF_TensorData(t.get()));
  bytes->assign(p, p + TF_DataTypeSize(TF_TensorType(t.get())));
  return true;
}

struct DiagPartPlan {
  TensorPtr input;
  DiagBand band;
  std::vector<int64_t> out_dims;
  int64_t matrices = 0;
  std::vector<char> padding;
};

// MatrixDiagPartV3(input, k, padding_value).
inline bool PlanDiagPart(TF_OpKernelContext* ctx, std::pair<bool, bool> align, DiagPartPlan* p) {
  p->input = Input(ctx, 0);
  if (!p->input) return false;
  const std::vector<int64_t> dims = Dims(p->input.get());
  if (dims.size() < 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input must be at least 2-dim, received shape: " + ShapeString(dims));
    return false;
  }
  DiagBand& b = p->band;
  if (!ReadDiagIndex(ctx, 1, &b)) return false;
  if (!ReadPadding(ctx, 2, true, &p->padding, p->input.get())) return false;
  b.rows = dims[dims.size() - 2];
  b.cols = dims.back();
  if (!CheckBandBounds(ctx, b)) return false;
  b.left_super = align.first;
  b.left_sub = align.second;
  b.max_len = std::max<int64_t>(0, std::min(b.rows + std::min<int64_t>(b.hi, 0),
                                            b.cols - std::max<int64_t>(b.lo, 0)));
  p->out_dims.assign(dims.begin(), dims.end() - 2);
  p->matrices = NumElements(p->out_dims);
  if (b.num_diags() > 1) p->out_dims.push_back(b.num_diags());
  p->out_dims.push_back(b.max_len);
  return true;
}

struct DiagPlan {
  TensorPtr diagonal;
  DiagBand band;
  std::vector<int64_t> out_dims;
  int64_t matrices = 0;
  std::vector<char> padding;
};

// MatrixDiagV3(diagonal, k, num_rows, num_cols, padding_value): -1 sizes are inferred.
inline bool PlanDiag(TF_OpKernelContext* ctx, std::pair<bool, bool> align, DiagPlan* p) {
  p->diagonal = Input(ctx, 0);
  if (!p->diagonal) return false;
  DiagBand& b = p->band;
  if (!ReadDiagIndex(ctx, 1, &b)) return false;
  int64_t sizes[2];
  const char* names[2] = {"num_rows", "num_cols"};
  for (int i = 0; i < 2; ++i) {
    if (TF_NumInputs(ctx) == 1) {  // MatrixDiag (v1): square matrices
      sizes[i] = -1;
      continue;
    }
    TensorPtr t = Input(ctx, 2 + i);
    if (!t) return false;
    if (TF_NumDims(t.get()) != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(names[i]) + " must be a scalar");
      return false;
    }
    sizes[i] = IndexValues(t.get())[0];
  }
  if (!ReadPadding(ctx, 4, false, &p->padding, p->diagonal.get())) return false;
  const std::vector<int64_t> dims = Dims(p->diagonal.get());
  const int64_t want_rank = b.num_diags() > 1 ? 2 : 1;
  if (static_cast<int64_t>(dims.size()) < want_rank) {
    Fail(ctx, TF_INVALID_ARGUMENT, "diagonal must be at least " + std::to_string(want_rank) +
                                       "-dim, received shape: " + ShapeString(dims));
    return false;
  }
  if (b.num_diags() > 1 && dims[dims.size() - 2] != b.num_diags()) {
    Fail(ctx, TF_INVALID_ARGUMENT, "The number of diagonals provided in the input does not match "
                                   "the lower_diag_index and upper_diag_index range.");
    return false;
  }
  b.max_len = dims.back();
  const int64_t min_rows = b.max_len - std::min<int64_t>(b.hi, 0);
  const int64_t min_cols = b.max_len + std::max<int64_t>(b.lo, 0);
  int64_t rows = sizes[0], cols = sizes[1];
  if (rows == -1 && cols == -1) {
    rows = cols = std::max(min_rows, min_cols);
  } else if (rows == -1) {
    rows = min_rows;
  } else if (cols == -1) {
    cols = min_cols;
  }
  if (rows < min_rows) {
    Fail(ctx, TF_INVALID_ARGUMENT, "The number of rows is too small.");
    return false;
  }
  if (cols < min_cols) {
    Fail(ctx, TF_INVALID_ARGUMENT, "The number of columns is too small.");
    return false;
  }
  if (rows != min_rows && cols != min_cols) {
    Fail(ctx, TF_INVALID_ARGUMENT, "The number of rows or columns is not consistent with the "
                                   "specified d_lower, d_upper, and diagonal.");
    return false;
  }
  b.rows = rows;
  b.cols = cols;
  b.left_super = align.first;
  b.left_sub = align.second;
  p->out_dims.assign(dims.begin(), dims.end() - want_rank);
  p->matrices = NumElements(p->out_dims);
  p->out_dims.push_back(rows);
  p->out_dims.push_back(cols);
  return true;
}

struct SetDiagPlan {
  TensorPtr input, diagonal;
  DiagBand band;
  std::vector<int64_t> dims;
  int64_t matrices = 0;
};

// MatrixSetDiagV3(input, diagonal, k): diagonal shaped as MatrixDiagPartV3's output.
inline bool PlanSetDiag(TF_OpKernelContext* ctx, std::pair<bool, bool> align, SetDiagPlan* p) {
  p->input = Input(ctx, 0);
  p->diagonal = Input(ctx, 1);
  if (!p->input || !p->diagonal) return false;
  const std::vector<int64_t> dims = Dims(p->input.get());
  const std::vector<int64_t> diag = Dims(p->diagonal.get());
  if (dims.size() < 2) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input must be at least 2-dim, received shape: " + ShapeString(dims));
    return false;
  }
  DiagBand& b = p->band;
  if (!ReadDiagIndex(ctx, 2, &b)) return false;
  b.rows = dims[dims.size() - 2];
  b.cols = dims.back();
  if (!CheckBandBounds(ctx, b)) return false;
  b.left_super = align.first;
  b.left_sub = align.second;
  b.max_len = std::max<int64_t>(0, std::min(b.rows + std::min<int64_t>(b.hi, 0),
                                            b.cols - std::max<int64_t>(b.lo, 0)));
  // TensorFlow reads the band's size at the input's rank - 2 (as for a batch of bands).
  if (b.num_diags() > 1 && (diag.size() + 2 <= dims.size() || diag[dims.size() - 2] != b.num_diags())) {
    Fail(ctx, TF_INVALID_ARGUMENT, "The number of diagonals provided in `diag` is not consistent "
                                   "with `lower_diag_index` and `upper_diag_index`");
    return false;
  }
  std::vector<int64_t> expected(dims.begin(), dims.end() - 2);
  if (b.num_diags() > 1) expected.push_back(b.num_diags());
  expected.push_back(b.max_len);
  if (diag != expected) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         "Either first dimensions of diagonal don't match input.shape[:-2], or "
         "diagonal.shape[:-1] is not equal to the longests diagonal in range "
         "[lower_diag_index:upper_diag_index].\nInput shape: " + ShapeString(dims) +
         "\nDiagonal shape: " + ShapeString(diag) + "\nExpected diagonal shape: " +
         ShapeString(expected));
    return false;
  }
  p->dims = dims;
  p->matrices = NumElements(std::vector<int64_t>(dims.begin(), dims.end() - 2));
  return true;
}

}  // namespace kernels
}  // namespace opgen

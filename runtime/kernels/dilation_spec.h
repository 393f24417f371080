// Dilation2D (grayscale morphological dilation of NHWC images by a [height, width, depth]
// structuring function) and its backprops: attrs, checks with TensorFlow's messages, and
// the per-element rules shared by the CPU kernels and the CUDA plugin's. Each output is
// the largest input + filter over the in-bounds taps of its window (T's lowest value when
// none is larger); the backprops send each output's gradient to the input element and the
// filter tap of that maximum, which the gathers below find again.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "host_device.h"
#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

struct DilationAttrs {
  int64_t sh = 1, sw = 1, rh = 1, rw = 1;
  bool same = false;
};

inline void* CreateDilation(TF_OpKernelConstruction* ctx) {
  auto* a = new DilationAttrs();
  StatusPtr s = NewStatus();
  const std::vector<int64_t> strides = IntListAttr(ctx, "strides", s.get());
  std::vector<int64_t> rates;
  if (TF_GetCode(s.get()) == TF_OK) rates = IntListAttr(ctx, "rates", s.get());
  std::string padding;
  if (TF_GetCode(s.get()) == TF_OK) padding = StringAttr(ctx, "padding", s.get());
  if (TF_GetCode(s.get()) == TF_OK) {
    if (strides.size() != 4 || strides[0] != 1 || strides[3] != 1) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED, "Stride is only supported across spatial dimensions.");
    } else if (rates.size() != 4 || rates[0] != 1 || rates[3] != 1) {
      TF_SetStatus(s.get(), TF_UNIMPLEMENTED, "Rate is only supported across spatial dimensions.");
    } else if (strides[1] <= 0 || strides[2] <= 0 || rates[1] <= 0 || rates[2] <= 0) {
      TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                   ("strides and rates must be positive, got strides " + ShapeString(strides) + " and rates " +
                    ShapeString(rates)).c_str());
    } else {
      a->sh = strides[1];
      a->sw = strides[2];
      a->rh = rates[1];
      a->rw = rates[2];
      a->same = padding == "SAME";
    }
  }
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteDilation(void* p) { delete static_cast<DilationAttrs*>(p); }

// The shapes as plain numbers, by value into device code.
struct DilationGeometry {
  int64_t batch, ih, iw, depth, fh, fw, oh, ow, sh, sw, rh, rw, pt, pl;
};

// Output size and leading padding of one dimension, as TensorFlow computes them; false
// when the size would be negative or overflows.
inline bool DilatedSize(int64_t in, int64_t k, int64_t rate, int64_t stride, bool same, int64_t* out,
                        int64_t* pad) {
  int64_t eff = 0;
  if (__builtin_mul_overflow(k - 1, rate, &eff) || __builtin_add_overflow(eff, 1, &eff)) return false;
  if (same) {
    *out = in / stride + (in % stride != 0);
    const __int128 need = static_cast<__int128>(*out > 0 ? *out - 1 : 0) * stride + eff - in;
    *pad = need > 0 ? static_cast<int64_t>(need / 2) : 0;
    return true;
  }
  *out = in >= eff ? (in - eff) / stride + 1 : (in - eff + stride) / stride;
  *pad = 0;
  return *out >= 0;
}

// Dilation2D(input, filter) and its backprops (input, filter, out_backprop). False after
// reporting the failure.
inline bool PlanDilation(TF_OpKernelContext* ctx, const DilationAttrs& a, bool backprop, DilationGeometry* g,
                         TensorPtr* input, TensorPtr* filter, TensorPtr* dy) {
  *input = Input(ctx, 0);
  *filter = Input(ctx, 1);
  if (!*input || !*filter) return false;
  const std::vector<int64_t> id = Dims(input->get()), fd = Dims(filter->get());
  if (id.size() != 4) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input must be 4-dimensional" + ShapeString(id));
    return false;
  }
  if (fd.size() != 3) {
    Fail(ctx, TF_INVALID_ARGUMENT, "filter must be 3-dimensional: " + ShapeString(fd));
    return false;
  }
  if (id[3] != fd[2]) {
    Fail(ctx, TF_INVALID_ARGUMENT, "input and filter must have the same depth: " + std::to_string(id[3]) +
                                       " vs " + std::to_string(fd[2]));
    return false;
  }
  *g = {id[0], id[1], id[2], id[3], fd[0], fd[1], 0, 0, a.sh, a.sw, a.rh, a.rw, 0, 0};
  if (fd[0] == 0 || fd[1] == 0 || !DilatedSize(id[1], fd[0], a.rh, a.sh, a.same, &g->oh, &g->pt) ||
      !DilatedSize(id[2], fd[1], a.rw, a.sw, a.same, &g->ow, &g->pl)) {
    Fail(ctx, TF_INVALID_ARGUMENT, "the dilated filter " + ShapeString(fd) + " (rates " +
                                       std::to_string(a.rh) + ", " + std::to_string(a.rw) +
                                       ") does not fit input " + ShapeString(id) +
                                       ": the output size would be negative or overflow");
    return false;
  }
  if (!backprop) return true;
  *dy = Input(ctx, 2);
  if (!*dy) return false;
  if (Dims(dy->get()) != std::vector<int64_t>{g->batch, g->oh, g->ow, g->depth}) {
    Fail(ctx, TF_INVALID_ARGUMENT, "out_backprop has incompatible size.");
    return false;
  }
  return true;
}

// a + b, wrapping for integers (as TensorFlow's kernels add in T) without signed overflow.
template <typename C>
OPGEN_HD inline C DilationAdd(C a, C b) {
  if constexpr (std::is_integral<C>::value) {
    using U = typename std::make_unsigned<C>::type;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// The maximum of output [b, y, x, c]: its value, the input element it read (the window's
// first row and column, clipped, when no tap beats `lowest`) and its filter tap ((0, 0)
// then), as TensorFlow's kernels pick them: later taps take over only when larger.
template <typename C, typename ReadIn, typename ReadF>
OPGEN_HD inline C DilationMax(const DilationGeometry& g, int64_t b, int64_t y, int64_t x, int64_t c, C lowest,
                              ReadIn in, ReadF f, int64_t* at_h, int64_t* at_w, int64_t* tap_i, int64_t* tap_j) {
  const int64_t hb = y * g.sh - g.pt, wb = x * g.sw - g.pl;
  C best = lowest;
  *at_h = hb < 0 ? 0 : hb;
  *at_w = wb < 0 ? 0 : wb;
  *tap_i = 0;
  *tap_j = 0;
  for (int64_t i = 0; i < g.fh; ++i) {
    const int64_t h = hb + i * g.rh;
    if (h < 0 || h >= g.ih) continue;
    for (int64_t j = 0; j < g.fw; ++j) {
      const int64_t w = wb + j * g.rw;
      if (w < 0 || w >= g.iw) continue;
      const C v = DilationAdd<C>(in(((b * g.ih + h) * g.iw + w) * g.depth + c), f((i * g.fw + j) * g.depth + c));
      if (v > best) {
        best = v;
        *at_h = h;
        *at_w = w;
        *tap_i = i;
        *tap_j = j;
      }
    }
  }
  return best;
}

// Outputs along one dimension whose window [o * stride - pad, + (k - 1) * rate + 1), clipped
// at 0, holds position s: [first, last].
OPGEN_HD inline void DilationCovering(int64_t s, int64_t stride, int64_t pad, int64_t eff, int64_t out,
                                      int64_t* first, int64_t* last) {
  const int64_t q = s + pad;
  const int64_t lo_num = q - eff + 1;
  *first = lo_num <= 0 ? 0 : lo_num / stride + (lo_num % stride != 0);
  const int64_t hi = q / stride;
  *last = hi < out - 1 ? hi : out - 1;
}

// d input[b, h, w, c]: the gradients of the outputs whose maximum read it, in output order.
template <typename C, typename ReadIn, typename ReadF, typename ReadDy>
OPGEN_HD inline C DilationBackpropInputAt(const DilationGeometry& g, int64_t b, int64_t h, int64_t w, int64_t c,
                                          C lowest, ReadIn in, ReadF f, ReadDy dy) {
  int64_t y0, y1, x0, x1;
  DilationCovering(h, g.sh, g.pt, (g.fh - 1) * g.rh + 1, g.oh, &y0, &y1);
  DilationCovering(w, g.sw, g.pl, (g.fw - 1) * g.rw + 1, g.ow, &x0, &x1);
  C acc = C(0);
  for (int64_t y = y0; y <= y1; ++y)
    for (int64_t x = x0; x <= x1; ++x) {
      int64_t ah, aw, ti, tj;
      DilationMax<C>(g, b, y, x, c, lowest, in, f, &ah, &aw, &ti, &tj);
      if (ah == h && aw == w) acc += dy(((b * g.oh + y) * g.ow + x) * g.depth + c);
    }
  return acc;
}

// d filter[i, j, c]: the gradients of the outputs whose maximum used that tap.
template <typename C, typename ReadIn, typename ReadF, typename ReadDy>
OPGEN_HD inline C DilationBackpropFilterAt(const DilationGeometry& g, int64_t i, int64_t j, int64_t c, C lowest,
                                           ReadIn in, ReadF f, ReadDy dy) {
  C acc = C(0);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t y = 0; y < g.oh; ++y)
      for (int64_t x = 0; x < g.ow; ++x) {
        int64_t ah, aw, ti, tj;
        DilationMax<C>(g, b, y, x, c, lowest, in, f, &ah, &aw, &ti, &tj);
        if (ti == i && tj == j) acc += dy(((b * g.oh + y) * g.ow + x) * g.depth + c);
      }
  return acc;
}

}  // namespace kernels
}  // namespace opgen

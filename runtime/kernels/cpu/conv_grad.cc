// Conv2DBackpropFilter (im2col tiles, each thread's GEMMs adding into its own partial
// gradient, the partials summed at the end), and
// DepthwiseConv2dNativeBackpropInput / BackpropFilter and Conv3DBackpropInputV2 /
// FilterV2 (../conv_grad_spec.h's per-element sums on all cores), on NHWC / NDHWC data; the 16-bit types are computed in float and rounded once.
// The attrs are Conv2D's (../window_spec.h, NCHW refused as TensorFlow's CPU kernels do),
// the input checks ../conv_grad_spec.h's, shared with the CUDA twin.
#include <algorithm>
#include <atomic>
#include <new>
#include <type_traits>
#include <vector>

#include "../conv_grad_spec.h"
#include "conv_grad_tiles.h"
#include "gemm.h"
#include "kernel_util.h"
#include "parallel.h"

namespace opgen {
namespace cpu {
namespace {

using kernels::DeleteWindow;
using kernels::GradGeometry;
using kernels::Window2D;
void* CreateConvWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow(ctx, true, "CPU"); }

// Widening reads of a typed buffer, for the shared per-element sums.
template <typename T>
struct Read {
  const T* p;
  ComputeType<T> operator()(int64_t i) const { return Widen(p[i]); }
};

// The GEMM's element type: double for double, float for the rest.
template <typename T> using GemmType = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The most im2col elements one GEMM's group of images may take (64 MiB of floats).
constexpr int64_t kMaxColumns = int64_t{16} << 20;
// A tile of patch rows: about this many elements (a few hundred KB, an L2's worth), so
// the rows one thread writes are still cached when its GEMM reads them.
constexpr int64_t kTileElements = int64_t{1} << 16;
// Fewest rows in a tile: the GEMM's inner dimension, short ones waste its packing.
constexpr int64_t kMinTileRows = 128;
// The per-thread partial filter gradients together take at most this many elements (8 MB
// of floats): larger ones, made afresh on every call, cost more to fault in than the
// tiles save (14x14x256 3x3), so such layers take ByGroups.
constexpr int64_t kMaxPartialElements = int64_t{2} << 20;

template <typename T>
struct Conv2DBackpropFilterKernel {
  using G = GemmType<T>;

  // A filter_sizes far larger than the input (SAME padding allows it) asks for buffers
  // no machine has: an error, never an exception across the C API.
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    try {
      Run(state, ctx);
    } catch (const std::bad_alloc&) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "Conv2DBackpropFilter: out of memory for the filter_sizes given");
    }
  }
  static void Run(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanBackpropFilter(ctx, w, false, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    if (!output) return;
    const int64_t K = p.kh * p.kw * p.ic, pixels = p.oh * p.ow;
    int64_t cells = 0;  // one image's im2col elements
    if (__builtin_mul_overflow(pixels, K, &cells)) {
      Fail(ctx, TF_RESOURCE_EXHAUSTED, "Conv2DBackpropFilter: the im2col buffer of filter_sizes " +
                                           ShapeString(p.out_dims) + " overflows int64");
      return;
    }
    // dW[K, oc] = cols[rows, K]^T @ dy[rows, oc] over all rows (image, y, x), summed in
    // the output itself where it has the GEMM's type (no filter-sized buffer to fault in).
    T* out = Data<T>(output);
    std::vector<G> wide(std::is_same_v<T, G> ? 0 : static_cast<size_t>(K * p.oc));
    G* acc = nullptr;
    if constexpr (std::is_same_v<T, G>) acc = out; else acc = wide.data();
    std::fill_n(acc, K * p.oc, G(0));
    const int64_t rows = p.batch * pixels;
    if (rows > 0 && K > 0 && p.oc > 0) {
      const int64_t tiles = TileCount(K, p.oc, rows), workers = ParallelWorkers();
      const int64_t partials = std::min({workers, tiles, std::max<int64_t>(1, kMaxPartialElements / (K * p.oc))});
      if (partials >= 2 || workers == 1)
        ByTiles(p, w, tiles, partials, acc);
      else
        ByGroups(p, w, cells, acc);
    }
    if constexpr (!std::is_same_v<T, G>)
      for (size_t k = 0; k < wide.size(); ++k) out[k] = Narrow<T>(static_cast<ComputeType<T>>(wide[k]));
  }

  // Each tile reads and writes its thread's [K, oc] partial once: at least 2 * oc rows
  // per tile keep that below the patch rows' own traffic. A batch of fewer rows is one
  // tile, left to ByGroups' one GEMM (deep layers, small maps).
  static int64_t TileCount(int64_t K, int64_t oc, int64_t rows) {
    const int64_t tile = std::max({kMinTileRows, kTileElements / K, 2 * oc});
    return (rows + tile - 1) / tile;
  }

  // 1x1, stride 1, no padding: the im2col rows are the input's pixels themselves.
  static bool RowsAreInput(const kernels::WindowPlan& p, const Window2D& w) {
    return std::is_same_v<T, G> && p.kh == 1 && p.kw == 1 && w.strides[1] == 1 && w.strides[2] == 1 &&
           p.pt == 0 && p.pl == 0 && p.oh == p.ih && p.ow == p.iw;
  }

  // Tiles of rows handed out one at a time to `partials` threads, each im2col-ing its tile
  // into a cache-sized buffer and adding its product into a filter gradient of its own;
  // the partials are summed at the end (partial 0 is `acc`).
  static void ByTiles(const kernels::WindowPlan& p, const Window2D& w, int64_t tiles, int64_t partials,
                      G* acc) {
    const int64_t K = p.kh * p.kw * p.ic, oc = p.oc, rows = p.batch * p.oh * p.ow;
    const int64_t tile = (rows + tiles - 1) / tiles, size = K * oc;
    const bool direct = RowsAreInput(p, w);
    const T* in = Data<T>(p.input);
    const T* dy = Data<T>(p.filter);
    // Allocated here, where bad_alloc reaches Compute, not inside a pool thread.
    std::vector<G> extra(static_cast<size_t>((partials - 1) * size), G(0));
    std::vector<G> cols(direct ? 0 : static_cast<size_t>(partials * tile * K));
    std::vector<G> dy_wide(std::is_same_v<T, G> ? 0 : static_cast<size_t>(partials * tile * oc));
    std::atomic<int64_t> next{0};
    RunTasks(partials, [&](int64_t t) {
      G* sum = t == 0 ? acc : extra.data() + (t - 1) * size;
      for (int64_t i; (i = next.fetch_add(1)) < tiles;) {
        const int64_t r0 = i * tile, r1 = std::min(rows, r0 + tile), n = r1 - r0;
        if (n <= 0) continue;
        const G* a = nullptr;
        if constexpr (std::is_same_v<T, G>) {
          if (direct) a = in + r0 * K;
        }
        if (a == nullptr) {
          G* buf = cols.data() + t * tile * K;
          FillPatchRows(p, w, in, r0, r1, buf);
          a = buf;
        }
        const G* b = nullptr;
        if constexpr (std::is_same_v<T, G>) {
          b = dy + r0 * oc;
        } else {
          G* buf = dy_wide.data() + t * tile * oc;
          for (int64_t k = 0; k < n * oc; ++k) buf[k] = static_cast<G>(Widen(dy[r0 * oc + k]));
          b = buf;
        }
        GemmAccumulate(true, false, K, oc, n, a, K, b, oc, sum, oc);
      }
    });
    if (partials > 1) {
      ParallelFor(size, [&](int64_t first, int64_t last) {
        for (int64_t t = 1; t < partials; ++t) {
          const G* part = extra.data() + (t - 1) * size;
          for (int64_t k = first; k < last; ++k) acc[k] += part[k];
        }
      });
    }
  }

  // Filter gradients too large to keep one per thread: a group of images' im2col (as many
  // as kMaxColumns allows) at a time, its one GEMM split over the pool by Gemm.
  static void ByGroups(const kernels::WindowPlan& p, const Window2D& w, int64_t cells, G* acc) {
    const int64_t K = p.kh * p.kw * p.ic, oc = p.oc, pixels = p.oh * p.ow;
    const T* in = Data<T>(p.input);
    const T* dy = Data<T>(p.filter);
    const int64_t group = std::max<int64_t>(1, std::min<int64_t>(p.batch, kMaxColumns / std::max<int64_t>(cells, 1)));
    // The first group's product goes straight into acc (zeros so far); only later groups
    // need a buffer of their own.
    std::vector<G> cols(static_cast<size_t>(group * pixels * K)), part(static_cast<size_t>(group < p.batch ? K * oc : 0));
    std::vector<G> dy_wide(std::is_same_v<T, G> ? 0 : static_cast<size_t>(group * pixels * oc));
    for (int64_t b0 = 0; b0 < p.batch; b0 += group) {
      const int64_t n = std::min(group, p.batch - b0), rows = n * pixels, r0 = b0 * pixels;
      ParallelFor(rows, [&](int64_t first, int64_t last) {
        FillPatchRows(p, w, in, r0 + first, r0 + last, cols.data() + first * K);
      }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(K, 1)));
      const G* dy_rows = nullptr;
      if constexpr (std::is_same_v<T, G>) {
        dy_rows = dy + r0 * oc;
      } else {
        for (int64_t k = 0; k < rows * oc; ++k) dy_wide[k] = static_cast<G>(Widen(dy[r0 * oc + k]));
        dy_rows = dy_wide.data();
      }
      if (b0 == 0) {
        Gemm(true, false, K, oc, rows, cols.data(), dy_rows, acc);
      } else {
        Gemm(true, false, K, oc, rows, cols.data(), dy_rows, part.data());
        for (int64_t k = 0; k < K * oc; ++k) acc[k] += part[k];
      }
    }
  }
};

template <typename T>
struct DepthwiseBackpropInputKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanDepthwiseBackpropInput(ctx, w, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const GradGeometry g = kernels::GeometryOf(p, w, mult);
    const Read<T> dy{Data<T>(p.input)}, f{Data<T>(p.filter)};
    T* out = Data<T>(output);
    const int64_t work = std::max<int64_t>(1, g.kh * g.kw * mult);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t c = e % g.ic, sx = (e / g.ic) % g.iw, sy = (e / (g.ic * g.iw)) % g.ih;
        const int64_t b = e / (g.ic * g.iw * g.ih);
        out[e] = Narrow<T>(kernels::DepthwiseBackpropInputAt<ComputeType<T>>(g, b, sy, sx, c, dy, f));
      }
    }, std::max<int64_t>(1, kParallelThreshold / work));
  }
};

template <typename T>
struct DepthwiseBackpropFilterKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    const Window2D& w = *static_cast<Window2D*>(state);
    kernels::WindowPlan p;
    int64_t mult = 1;
    if (!kernels::PlanBackpropFilter(ctx, w, true, &p, &mult)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const GradGeometry g = kernels::GeometryOf(p, w, mult);
    const Read<T> in{Data<T>(p.input)}, dy{Data<T>(p.filter)};
    T* out = Data<T>(output);
    // Element (i, j, c, m) of the filter; output channel c * mult + m.
    const int64_t work = std::max<int64_t>(1, g.batch * g.oh * g.ow);
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t m = e % mult, c = (e / mult) % g.ic, j = (e / (mult * g.ic)) % g.kw;
        const int64_t i = e / (mult * g.ic * g.kw);
        out[e] = Narrow<T>(kernels::BackpropFilterAt<ComputeType<T>>(g, i, j, c, c * mult + m, in, dy));
      }
    }, std::max<int64_t>(1, kParallelThreshold / work));
  }
};

using kernels::DeleteWindow3D;
using kernels::Window3D;
void* CreateConv3DWindow(TF_OpKernelConstruction* ctx) { return kernels::CreateWindow3D(ctx, "CPU"); }

// Conv3DBackpropInputV2 / FilterV2: ../conv_grad_spec.h's per-element sums on all cores.
template <typename T, bool kFilter>
struct Conv3DBackpropKernel {
  static void Compute(void* state, TF_OpKernelContext* ctx) {
    kernels::Grad3DPlan p;
    if (!kernels::PlanConv3DBackprop(ctx, *static_cast<Window3D*>(state), kFilter, &p)) return;
    TensorPtr output = AllocateOutput<T>(ctx, 0, p.out_dims);
    const int64_t total = NumElements(p.out_dims);
    if (!output || total == 0) return;
    const kernels::Grad3DGeometry& g = p.g;
    const Read<T> dy{Data<T>(p.dy)}, other{Data<T>(kFilter ? p.input : p.filter)};
    T* out = Data<T>(output);
    const std::vector<int64_t>& dims = p.out_dims;
    const int64_t work = kFilter ? g.batch * g.out[0] * g.out[1] * g.out[2] : g.k[0] * g.k[1] * g.k[2] * g.oc;
    ParallelFor(total, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        // Filter [kd, kh, kw, ic, oc] / input [b, d, h, w, ic], innermost last.
        int64_t idx[5], rest = e;
        for (int d = 4; d >= 0; --d) {
          idx[d] = rest % dims[d];
          rest /= dims[d];
        }
        if constexpr (kFilter) {
          const int64_t tap[3] = {idx[0], idx[1], idx[2]};
          // float sums of many products in double: TensorFlow's blocked GEMM rounds less
          // than one running float sum would.
          using Acc = std::conditional_t<std::is_same_v<T, float>, double, ComputeType<T>>;
          out[e] = Narrow<T>(static_cast<ComputeType<T>>(
              kernels::Conv3DBackpropFilterAt<Acc>(g, tap, idx[3], idx[4], other, dy)));
        } else {
          const int64_t at[3] = {idx[1], idx[2], idx[3]};
          out[e] = Narrow<T>(kernels::Conv3DBackpropInputAt<ComputeType<T>>(g, idx[0], at, idx[4], dy, other));
        }
      }
    }, std::max<int64_t>(1, kParallelThreshold / std::max<int64_t>(work, 1)));
  }
};
template <typename T> using Conv3DBackpropInputKernel = Conv3DBackpropKernel<T, false>;
template <typename T> using Conv3DBackpropFilterKernel = Conv3DBackpropKernel<T, true>;

template <template <typename> class Kernel, typename... Ts>
void Register3D(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute,
       CreateConv3DWindow, DeleteWindow3D}, status), ...);
}

template <template <typename> class Kernel, typename... Ts>
void RegisterWith(const char* op, Types<Ts...>, TF_Status* status) {
  (RegisterKernel(kDevice, {op, {{"T", DtypeOf<Ts>::value}}, {}, &Kernel<Ts>::Compute,
       CreateConvWindow, DeleteWindow}, status), ...);
}

}  // namespace

// TensorFlow's CPU registrations: the four float types for each (Conv3DBackpropInputV2
// for either Tshape).
void RegisterConvGradKernels(TF_Status* status) {
  RegisterWith<Conv2DBackpropFilterKernel>("Conv2DBackpropFilter", FloatTypes(), status);
  RegisterWith<DepthwiseBackpropInputKernel>("DepthwiseConv2dNativeBackpropInput", FloatTypes(), status);
  RegisterWith<DepthwiseBackpropFilterKernel>("DepthwiseConv2dNativeBackpropFilter", FloatTypes(), status);
  Register3D<Conv3DBackpropInputKernel>("Conv3DBackpropInputV2", FloatTypes(), status);
  Register3D<Conv3DBackpropFilterKernel>("Conv3DBackpropFilterV2", FloatTypes(), status);
}

}  // namespace cpu
}  // namespace opgen

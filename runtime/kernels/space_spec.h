// SpaceToBatchND, BatchToSpaceND, DepthToSpace, SpaceToDepth and MirrorPad as index
// maps, shared by the CPU kernels and the CUDA plugin's: the input checks and output
// shapes, and where each output run comes from. All five only move elements: the
// output is seen as `rows` runs of `chunk` contiguous elements, and run r is a copy of
// the `chunk` input elements at Source(r) (or zeros where Source gives -1, in
// SpaceToBatchND's padding). The index math is __host__ __device__ so that both sides
// run the same code.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel_api_util.h"
#include "host_device.h"

namespace opgen {
namespace kernels {

// The most block (SpaceToBatchND) or mirrored (MirrorPad) dimensions a map holds.
constexpr int kMaxMapDims = 8;

// SpaceToBatchND (to_batch) and BatchToSpaceND: input [batch] + space[m] + rest, output
// [out_batch] + out_space[m] + rest; chunk = the elements of `rest`.
struct SpaceBatchMap {
  bool to_batch = true;
  int m = 0;
  int64_t in_batch = 0, out_batch = 0, chunk = 1;
  int64_t block[kMaxMapDims] = {}, lo[kMaxMapDims] = {};  // lo: padding / crop before
  int64_t in_space[kMaxMapDims] = {}, out_space[kMaxMapDims] = {};

  // Output run r = (ob, o_1..o_m) row-major; the batch index counts blocks outermost:
  // ob = block_index * batch + b (TensorFlow's order).
  OPGEN_HD int64_t Source(int64_t r) const {
    int64_t o[kMaxMapDims];
    for (int k = m - 1; k >= 0; --k) {
      o[k] = r % out_space[k];
      r /= out_space[k];
    }
    if (to_batch) {
      const int64_t b = r % in_batch;
      int64_t block_index = r / in_batch, src = b;
      int64_t at[kMaxMapDims];
      for (int k = m - 1; k >= 0; --k) {
        const int64_t i = block_index % block[k];
        block_index /= block[k];
        at[k] = o[k] * block[k] + i - lo[k];
        if (at[k] < 0 || at[k] >= in_space[k]) return -1;
      }
      for (int k = 0; k < m; ++k) src = src * in_space[k] + at[k];
      return src * chunk;
    }
    const int64_t b = r;  // < out_batch
    int64_t block_index = 0, at[kMaxMapDims];
    for (int k = 0; k < m; ++k) {
      const int64_t p = o[k] + lo[k];
      block_index = block_index * block[k] + p % block[k];
      at[k] = p / block[k];
    }
    int64_t src = block_index * out_batch + b;
    for (int k = 0; k < m; ++k) src = src * in_space[k] + at[k];
    return src * chunk;
  }
};

// DepthToSpace (to_space) and SpaceToDepth on NHWC: in [b, h, w, c], out [b, oh, ow, oc].
// chunk = the smaller depth (oc for DepthToSpace, c for SpaceToDepth).
struct DepthSpaceMap {
  bool to_space = true;
  int64_t bs = 2, h = 0, w = 0, c = 0, oh = 0, ow = 0, oc = 0, chunk = 1;

  OPGEN_HD int64_t Source(int64_t r) const {
    if (to_space) {  // r = (b, y, x) of the output
      const int64_t x = r % ow, t = r / ow, y = t % oh, b = t / oh;
      return ((b * h + y / bs) * w + x / bs) * c + ((y % bs) * bs + x % bs) * oc;
    }
    // r = (b, y, x, dy, dx) of the output, (dy, dx) the position in the tile
    const int64_t q = r % (bs * bs), t = r / (bs * bs);
    const int64_t x = t % ow, y = (t / ow) % oh, b = t / (ow * oh);
    return ((b * h + y * bs + q / bs) * w + x * bs + q % bs) * c;
  }
};

// MirrorPad over the leading `m` dims (the trailing unpadded ones form the chunk).
struct MirrorPadMap {
  int m = 0;
  bool symmetric = false;
  int64_t chunk = 1;
  int64_t in[kMaxMapDims] = {}, out[kMaxMapDims] = {}, lo[kMaxMapDims] = {};

  OPGEN_HD int64_t Source(int64_t r) const {
    int64_t src = 0, stride = chunk;
    for (int k = m - 1; k >= 0; --k) {
      int64_t p = r % out[k] - lo[k];
      r /= out[k];
      if (p < 0) p = symmetric ? -p - 1 : -p;
      else if (p >= in[k]) p = symmetric ? 2 * in[k] - p - 1 : 2 * in[k] - p - 2;
      src += p * stride;
      stride *= in[k];
    }
    return src;
  }
};

// The output shape and the run count, with the map.
template <typename Map>
struct MapPlan {
  Map map;
  std::vector<int64_t> out_dims;
  int64_t rows = 0;
};

// Reads a 1-D (rows < 0) or [rows, 2] int32/int64 operand; false after reporting.
inline bool ReadIndexOperand(TF_OpKernelContext* ctx, const TF_Tensor* t, int64_t rows,
                             const char* op, const char* what, std::vector<int64_t>* out) {
  const std::vector<int64_t> d = Dims(t);
  const bool ok = rows < 0 ? d.size() == 1 : d.size() == 2 && d[0] == rows && d[1] == 2;
  if (!ok) {
    Fail(ctx, TF_INVALID_ARGUMENT,
         std::string(op) + ": " + what + " must be " +
             (rows < 0 ? std::string("1-D") : "of shape [" + std::to_string(rows) + ", 2]") +
             ", got " + ShapeString(d));
    return false;
  }
  *out = IndexValues(t);
  return true;
}

// SpaceToBatchND / BatchToSpaceND(input, block_shape, paddings / crops).
// The TF1-era SpaceToBatch / BatchToSpace(input, paddings / crops) pass their block_size
// attr as `v1_block`: a 4-D input, block_shape [v1_block, v1_block].
inline bool PlanSpaceBatch(TF_OpKernelContext* ctx, bool to_batch, MapPlan<SpaceBatchMap>* plan,
                           int64_t v1_block = 0) {
  const char* op = v1_block > 0 ? (to_batch ? "SpaceToBatch" : "BatchToSpace")
                                : (to_batch ? "SpaceToBatchND" : "BatchToSpaceND");
  const char* amounts = to_batch ? "paddings" : "crops";
  TensorPtr input = Input(ctx, 0), block_t = v1_block > 0 ? nullptr : Input(ctx, 1),
            pads_t = Input(ctx, v1_block > 0 ? 1 : 2);
  if (!input || (v1_block == 0 && !block_t) || !pads_t) return false;
  std::vector<int64_t> block, pads;
  if (v1_block > 0) {
    if (TF_NumDims(input.get()) != 4) {  // TensorFlow's message, its missing space included
      Fail(ctx, TF_INVALID_ARGUMENT, "Input rank should be: 4instead of: " +
                                         std::to_string(TF_NumDims(input.get())));
      return false;
    }
    block = {v1_block, v1_block};
  } else if (!ReadIndexOperand(ctx, block_t.get(), -1, op, "block_shape", &block)) {
    return false;
  }
  const int64_t m = static_cast<int64_t>(block.size());
  if (!ReadIndexOperand(ctx, pads_t.get(), m, op, amounts, &pads)) return false;
  const std::vector<int64_t> id = Dims(input.get());
  if (m < 1 || static_cast<int64_t>(id.size()) < 1 + m) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input " + ShapeString(id) +
                                       " needs more dimensions than the " + std::to_string(m) +
                                       " of block_shape (and block_shape at least one)");
    return false;
  }
  if (m > kMaxMapDims) {
    Fail(ctx, TF_UNIMPLEMENTED, std::string(op) + ": more than " + std::to_string(kMaxMapDims) +
                                    " block dimensions");
    return false;
  }
  SpaceBatchMap& map = plan->map;
  map.to_batch = to_batch;
  map.m = static_cast<int>(m);
  int64_t product = 1;
  for (int64_t k = 0; k < m; ++k) {
    if (block[k] < 1 || pads[2 * k] < 0 || pads[2 * k + 1] < 0 ||
        __builtin_mul_overflow(product, block[k], &product)) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": block_shape " + ShapeString(block) +
                                         " must be positive and " + amounts + " " +
                                         ShapeString(pads) + " non-negative");
      return false;
    }
  }
  std::vector<int64_t> out = id;
  for (int64_t k = 0; k < m; ++k) {
    const int64_t size = id[1 + k], lo = pads[2 * k], hi = pads[2 * k + 1];
    map.block[k] = block[k];
    map.lo[k] = lo;
    int64_t v = 0;
    if (to_batch) {
      if (__builtin_add_overflow(size, lo, &v) || __builtin_add_overflow(v, hi, &v) ||
          v % block[k] != 0) {
        Fail(ctx, TF_INVALID_ARGUMENT,
             std::string(op) + ": padded spatial dimension " + std::to_string(k) + " (" +
                 std::to_string(size) + " + " + std::to_string(lo) + " + " + std::to_string(hi) +
                 ") does not divide by block size " + std::to_string(block[k]));
        return false;
      }
      out[1 + k] = v / block[k];
    } else {
      if (__builtin_mul_overflow(size, block[k], &v) || lo > v - hi) {
        Fail(ctx, TF_INVALID_ARGUMENT,
             std::string(op) + ": crops " + std::to_string(lo) + " and " + std::to_string(hi) +
                 " of spatial dimension " + std::to_string(k) + " exceed its size " +
                 std::to_string(size) + " * " + std::to_string(block[k]));
        return false;
      }
      out[1 + k] = v - lo - hi;
    }
    map.in_space[k] = size;
    map.out_space[k] = out[1 + k];
  }
  if (to_batch) {
    if (__builtin_mul_overflow(id[0], product, &out[0])) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": the output batch overflows int64");
      return false;
    }
  } else {
    if (id[0] % product != 0) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           std::string(op) + ": input batch " + std::to_string(id[0]) +
               " does not divide by the product of block_shape " + ShapeString(block));
      return false;
    }
    out[0] = id[0] / product;
  }
  if (!CheckShapeSize(ctx, op, out)) return false;
  map.in_batch = id[0];
  map.out_batch = out[0];
  map.chunk = 1;
  for (size_t k = 1 + m; k < id.size(); ++k) map.chunk *= id[k];
  plan->out_dims = out;
  plan->rows = map.chunk == 0 ? 0 : NumElements(out) / map.chunk;
  return true;
}

// The kernel's state of DepthToSpace / SpaceToDepth: block_size (NHWC only).
struct BlockSizeAttrs { int64_t block_size = 2; };

// SpaceToBatch / BatchToSpace (TF1-era): block_size only (the OpDef keeps it >= 2); the
// ND kernels run with this state, null for the ND ops.
inline void* CreateSpaceBatchV1(TF_OpKernelConstruction* ctx) {
  auto* a = new BlockSizeAttrs();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrInt64(ctx, "block_size", &a->block_size, s.get());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline int64_t SpaceBatchV1Block(void* state) {
  return state != nullptr ? static_cast<BlockSizeAttrs*>(state)->block_size : 0;
}

inline void* CreateBlockSize(TF_OpKernelConstruction* ctx, const char* device) {
  auto* a = new BlockSizeAttrs();
  StatusPtr s = NewStatus();
  TF_OpKernelConstruction_GetAttrInt64(ctx, "block_size", &a->block_size, s.get());
  std::string format;
  if (TF_GetCode(s.get()) == TF_OK) format = StringAttr(ctx, "data_format", s.get());
  if (TF_GetCode(s.get()) == TF_OK && format != "NHWC")
    TF_SetStatus(s.get(), TF_UNIMPLEMENTED,
                 ("only data_format NHWC is implemented on the " + std::string(device) + ", got " + format).c_str());
  if (TF_GetCode(s.get()) == TF_OK && a->block_size < 2)
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT,
                 ("block_size must be at least 2, got " + std::to_string(a->block_size)).c_str());
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteBlockSize(void* p) { delete static_cast<BlockSizeAttrs*>(p); }

inline bool PlanDepthSpace(TF_OpKernelContext* ctx, bool to_space, int64_t bs,
                           const TF_Tensor* input, MapPlan<DepthSpaceMap>* plan) {
  const char* op = to_space ? "DepthToSpace" : "SpaceToDepth";
  const std::vector<int64_t> id = Dims(input);
  int64_t square = 0;
  if (id.size() != 4 || __builtin_mul_overflow(bs, bs, &square)) {
    Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input must be 4-D NHWC, got " + ShapeString(id));
    return false;
  }
  DepthSpaceMap& map = plan->map;
  map.to_space = to_space;
  map.bs = bs;
  map.h = id[1];
  map.w = id[2];
  map.c = id[3];
  if (to_space) {
    if (id[3] % square != 0 || __builtin_mul_overflow(id[1], bs, &map.oh) ||
        __builtin_mul_overflow(id[2], bs, &map.ow)) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input depth " + std::to_string(id[3]) +
                                         " must divide by block_size^2 = " + std::to_string(square) +
                                         " (input " + ShapeString(id) + ")");
      return false;
    }
    map.oc = id[3] / square;
    map.chunk = map.oc;
  } else {
    if (id[1] % bs != 0 || id[2] % bs != 0 || __builtin_mul_overflow(id[3], square, &map.oc)) {
      Fail(ctx, TF_INVALID_ARGUMENT, std::string(op) + ": input height and width " +
                                         ShapeString(id) + " must divide by block_size " +
                                         std::to_string(bs));
      return false;
    }
    map.oh = id[1] / bs;
    map.ow = id[2] / bs;
    map.chunk = id[3];
  }
  plan->out_dims = {id[0], map.oh, map.ow, map.oc};
  if (!CheckShapeSize(ctx, op, plan->out_dims)) return false;
  plan->rows = map.chunk == 0 ? 0 : NumElements(plan->out_dims) / map.chunk;
  return true;
}

// The kernel's state of MirrorPad: the mode.
struct MirrorPadAttrs { bool symmetric = false; };

inline void* CreateMirrorPad(TF_OpKernelConstruction* ctx) {
  auto* a = new MirrorPadAttrs();
  StatusPtr s = NewStatus();
  const std::string mode = StringAttr(ctx, "mode", s.get());
  if (TF_GetCode(s.get()) == TF_OK && mode != "REFLECT" && mode != "SYMMETRIC")
    TF_SetStatus(s.get(), TF_INVALID_ARGUMENT, ("MirrorPad: mode must be REFLECT or SYMMETRIC, got " + mode).c_str());
  a->symmetric = mode == "SYMMETRIC";
  if (TF_GetCode(s.get()) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s.get());
  return a;
}
inline void DeleteMirrorPad(void* p) { delete static_cast<MirrorPadAttrs*>(p); }

inline bool PlanMirrorPad(TF_OpKernelContext* ctx, const MirrorPadAttrs& a, const TF_Tensor* input,
                          MapPlan<MirrorPadMap>* plan) {
  TensorPtr pads_t = Input(ctx, 1);
  if (!pads_t) return false;
  const std::vector<int64_t> id = Dims(input);
  const int64_t rank = static_cast<int64_t>(id.size());
  std::vector<int64_t> pads;
  if (!ReadIndexOperand(ctx, pads_t.get(), rank, "MirrorPad", "paddings", &pads)) return false;
  std::vector<int64_t> out = id;
  int64_t m = 0;  // dims up to the last padded one
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t lo = pads[2 * k], hi = pads[2 * k + 1];
    const int64_t most = a.symmetric ? id[k] : id[k] - 1;
    if (lo < 0 || hi < 0 || lo > most || hi > most) {
      Fail(ctx, TF_INVALID_ARGUMENT,
           "MirrorPad: paddings " + ShapeString(pads) + " must be non-negative and at most " +
               (a.symmetric ? "the dimension's size" : "the dimension's size - 1") + " (" +
               (a.symmetric ? "SYMMETRIC" : "REFLECT") + " mode), input " + ShapeString(id));
      return false;
    }
    out[k] = id[k] + lo + hi;  // at most 3 * id[k]
    if (lo != 0 || hi != 0) m = k + 1;
  }
  if (!CheckShapeSize(ctx, "MirrorPad", out)) return false;
  if (m > kMaxMapDims) {
    Fail(ctx, TF_UNIMPLEMENTED, "MirrorPad: more than " + std::to_string(kMaxMapDims) + " padded dimensions");
    return false;
  }
  MirrorPadMap& map = plan->map;
  map.m = static_cast<int>(m);
  map.symmetric = a.symmetric;
  map.chunk = 1;
  for (int64_t k = m; k < rank; ++k) map.chunk *= id[k];
  for (int64_t k = 0; k < m; ++k) {
    map.in[k] = id[k];
    map.out[k] = out[k];
    map.lo[k] = pads[2 * k];
  }
  plan->out_dims = out;
  plan->rows = map.chunk == 0 ? 0 : NumElements(out) / map.chunk;
  return true;
}

}  // namespace kernels
}  // namespace opgen

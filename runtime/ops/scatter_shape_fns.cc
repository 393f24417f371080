// Shape functions of the gather/scatter/segment ops (scatter_ops.cc): exact where the
// operands that decide a shape are known while the graph is built, ranks or nothing
// otherwise, as TensorFlow infers them.
#include "scatter_shape_fns.h"

#include <algorithm>

#include "shape_fn_context.h"

namespace opgen {
namespace {

// GatherNd(params, indices): indices.shape[:-1] + params.shape[K:], K = indices' last dim.
void GatherNd(ShapeFnContext& c) {
  const PartialShape params = c.Input(0), indices = c.InputWithRankAtLeast(1, 1, "indices");
  if (!indices.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  const int64_t k = indices.dims.back();
  if (k == kUnknownDim || !params.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (k > params.rank())
    Fail("indices.shape[-1] must be <= params.rank, but saw indices shape: " +
         indices.ToString() + " and params shape: " + params.ToString());
  std::vector<int64_t> out(indices.dims.begin(), indices.dims.end() - 1);
  out.insert(out.end(), params.dims.begin() + k, params.dims.end());
  c.SetOutput(0, PartialShape::Of(out));
}

// ScatterNd(indices, updates, shape): the `shape` operand's value.
void ScatterNd(ShapeFnContext& c) {
  c.InputWithRankAtLeast(0, 1, "indices");
  const PartialShape shape = c.InputWithRank(2, 1, "shape");
  const std::optional<std::vector<int64_t>> value = c.InputInts(2);
  if (value) {
    PartialShape out = PartialShape::Of(*value);
    for (int64_t& d : out.dims)
      if (d < 0) d = kUnknownDim;
    return c.SetOutput(0, out);
  }
  c.SetOutput(0, shape.dims[0] == kUnknownDim ? PartialShape::Unknown()
                                              : PartialShape::UnknownDims(shape.dims[0]));
}

// TensorScatter*(tensor, indices, updates): tensor's shape.
void TensorScatter(ShapeFnContext& c) {
  c.InputWithRankAtLeast(1, 1, "indices");
  c.SetOutput(0, c.Input(0));
}

// Segment* and SparseSegment*: an unknown number of segments + data's shape after dim 0.
void SortedSegment(ShapeFnContext& c) {
  const PartialShape data = c.InputWithRankAtLeast(0, 1, "data");
  for (int i = 1; i < c.num_inputs(); ++i) c.InputWithRank(i, 1, "segment_ids and indices");
  if (!data.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  std::vector<int64_t> out = data.dims;
  out[0] = kUnknownDim;
  c.SetOutput(0, PartialShape::Of(out));
}

// DynamicStitch(indices[N], data[N]): [max index + 1 when every index is known, else
// unknown] + data[0]'s shape after indices[0]'s.
void DynamicStitch(ShapeFnContext& c) {
  const int n = c.num_inputs() / 2;
  const PartialShape idx = c.Input(0), data = c.Input(n);
  int64_t rows = 0;
  for (int m = 0; m < n && rows != kUnknownDim; ++m) {
    const std::optional<std::vector<int64_t>> values = c.InputInts(m);
    if (!values) rows = kUnknownDim;
    else
      for (int64_t v : *values) rows = std::max(rows, v + 1);
  }
  if (!idx.rank_known || !data.rank_known) return c.SetOutput(0, PartialShape::Unknown());
  if (idx.rank() > data.rank())
    Fail("data[0] " + data.ToString() + " must start with indices[0] " + idx.ToString());
  std::vector<int64_t> out{rows};
  out.insert(out.end(), data.dims.begin() + idx.rank(), data.dims.end());
  c.SetOutput(0, PartialShape::Of(out));
}

// DynamicPartition(data, partitions): each output [unknown] + data's shape after
// partitions'.
void DynamicPartition(ShapeFnContext& c) {
  const PartialShape data = c.Input(0), parts = c.Input(1);
  PartialShape out = PartialShape::Unknown();
  if (data.rank_known && parts.rank_known) {
    if (parts.rank() > data.rank())
      Fail("data " + data.ToString() + " must start with partitions " + parts.ToString());
    for (int64_t k = 0; k < parts.rank(); ++k)
      MergeDim(data.dims[k], parts.dims[k], "partitions' shape against the start of data's");
    std::vector<int64_t> dims{kUnknownDim};
    dims.insert(dims.end(), data.dims.begin() + parts.rank(), data.dims.end());
    out = PartialShape::Of(dims);
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.SetOutput(i, out);
}

// ResourceGather: the variable's shape is not in the graph here (no handle shape
// data), so the output's is unknown.
void ResourceGather(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Unknown()); }

}  // namespace

namespace shape_fns {
const OpShapeFn kGatherNd = ShapeFn<GatherNd>;
const OpShapeFn kScatterNd = ShapeFn<ScatterNd>;
const OpShapeFn kTensorScatter = ShapeFn<TensorScatter>;
const OpShapeFn kSortedSegment = ShapeFn<SortedSegment>;
const OpShapeFn kDynamicStitch = ShapeFn<DynamicStitch>;
const OpShapeFn kDynamicPartition = ShapeFn<DynamicPartition>;
const OpShapeFn kResourceGather = ShapeFn<ResourceGather>;
}  // namespace shape_fns

}  // namespace opgen

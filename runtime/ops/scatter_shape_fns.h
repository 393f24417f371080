// Shape functions of the gather/scatter/segment ops of scatter_ops.cc (defined in
// scatter_shape_fns.cc).
#pragma once

#include "shape_fns.h"

namespace opgen {
namespace shape_fns {

extern const OpShapeFn kGatherNd, kScatterNd, kTensorScatter, kSortedSegment, kDynamicStitch,
    kDynamicPartition, kResourceGather;

}  // namespace shape_fns
}  // namespace opgen

// Shape functions of the ops of misc_ops.cc (defined in misc_shape_fns.cc).
#pragma once

#include "shape_fns.h"

namespace opgen {
namespace shape_fns {

extern const OpShapeFn kSelectV1, kIdentityN, kSplit, kSplitV, kOneHot, kBroadcastTo, kWhere,
    kTopK;

}  // namespace shape_fns
}  // namespace opgen

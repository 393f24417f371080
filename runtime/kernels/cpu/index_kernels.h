// Registration of the CPU-only index families (no CUDA twin, as in TensorFlow); apart
// from kernel_util.h so that adding one rebuilds only its own files.
#pragma once

#include "tensorflow/c/tf_status.h"

namespace opgen {
namespace cpu {

void RegisterUnravelIndexKernels(TF_Status* status);  // unravel_index.cc: UnravelIndex (CPU only)

}  // namespace cpu
}  // namespace opgen

// Registers the built-in CPU kernels through the public kernel builder.
#pragma once

#include "tensorflow/c/tf_status.h"

// Stops at the first failure, leaving it in `status`.
void opgen_register_cpu_kernels(TF_Status* status);

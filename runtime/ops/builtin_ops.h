// Registers the runtime's built-in ops through the public op-definition builder.
#pragma once

#include "tensorflow/c/tf_status.h"

// Stops at the first failure, leaving it in `status`.
void opgen_register_builtin_ops(TF_Status* status);

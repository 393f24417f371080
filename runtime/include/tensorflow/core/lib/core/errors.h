// TensorFlow's include path for this part of the custom-op API; see platform/errors.h.
#ifndef TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
#define TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
#include "tensorflow/core/platform/errors.h"
#endif  // TENSORFLOW_CORE_LIB_CORE_ERRORS_H_

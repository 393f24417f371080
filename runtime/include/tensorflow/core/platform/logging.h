// TensorFlow's include path for this part of the custom-op API; see platform/status.h.
#ifndef TENSORFLOW_CORE_PLATFORM_LOGGING_H_
#define TENSORFLOW_CORE_PLATFORM_LOGGING_H_
#include "tensorflow/core/platform/status.h"
#endif  // TENSORFLOW_CORE_PLATFORM_LOGGING_H_

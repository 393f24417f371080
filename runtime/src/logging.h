// The runtime's log: messages on stderr filtered by severity ($OPGEN_LOG_LEVEL, as
// TF_CPP_MIN_LOG_LEVEL filters TensorFlow's), and device-placement logging
// (OPGEN_SetLogDevicePlacement, as tf.debugging.set_log_device_placement).
#pragma once

#include <string>

namespace opgen {

enum class LogSeverity { kInfo = 0, kWarning = 1, kError = 2 };

// Whether a message of `severity` is printed: severities below the minimum level are not.
bool LogEnabled(LogSeverity severity);
// Prints `message` and a newline on stderr, in one write, when LogEnabled(severity).
void Log(LogSeverity severity, const std::string& message);

// Whether every op run says on which device it runs (an INFO message).
bool LogDevicePlacement();

}  // namespace opgen

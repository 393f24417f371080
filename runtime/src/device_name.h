// Whether a NodeDef's device field is a device specification TensorFlow's importer
// accepts, so that the GraphDef importer refuses what TensorFlow refuses ("garbage").
#pragma once

#include <string>

namespace opgen {

// True for what TensorFlow's DeviceSpec parses (tf.import_graph_def checks every node's
// device with it): "/"-separated parts "job:NAME", "replica:N", "task:N",
// "device:TYPE:N", "TYPE:N" or "TYPE" (TYPE a known device type: CPU, GPU, TPU, EPU,
// CUSTOM or a plugin's), N a number or "*" where TensorFlow allows it; empty parts are
// skipped; at most one device type. Otherwise false with `why` saying which part.
bool IsValidDeviceSpec(const std::string& spec, std::string* why);

}  // namespace opgen

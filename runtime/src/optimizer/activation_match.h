// Recognising an activation function in the element-wise subgraph after a convolution,
// by what it computes rather than by how it is spelled: Keras and tf.nn write GELU, swish
// and friends in several equivalent forms (erf or erfc, x * 0.5 or 0.5 * x, Pow or
// x * x * x), so the candidate subgraph is evaluated on sample points in double and
// compared with each activation the fused kernels know.
#pragma once

#include <string>
#include <vector>

#include "opt_graph.h"

namespace opgen {

struct MatchedActivation {
  std::string name = "None";  // the fused ops' `activation` attr value
  float alpha = 0.2f;         // LeakyRelu's slope
  std::string sink;           // the node whose output is the activation's
  std::vector<std::string> nodes;  // every node of the subgraph, sink included
};

// The largest element-wise subgraph reading only `head`'s output 0 (and scalar
// constants) that computes a known activation, with every node but its sink read only
// inside it and `head` read only by it. False when there is none.
bool MatchActivation(OptGraph& g, const std::string& head, MatchedActivation* out);

}  // namespace opgen

// The struct behind OPGEN_GradientContext: what the backward pass hands one gradient
// function (context.cc has its C accessors, add_gradients.cc fills it).
#pragma once

#include <string>
#include <vector>

#include "opgen/gradients.h"

struct OPGEN_GradientContext {
  TF_Graph* graph = nullptr;
  TF_Operation* op = nullptr;
  std::string scope;                   // "gradients/<op name>_grad/"
  std::vector<TF_Output> output_grads;  // one per output; {nullptr, -1}: none (resource)
  std::vector<bool> input_needs_grad;  // one per input
  std::vector<TF_Output> input_grads;  // set by the function; {nullptr, -1}: none
};

namespace opgen {
namespace gradients {

// "prefix/name" made unique in `graph` ("name_1", "name_2" ... when taken).
std::string UniqueNodeName(TF_Graph* graph, const std::string& name);

// Whether two shapes (ranks -1: unknown; dims -1: unknown) can be the same shape.
bool ShapesCompatible(TF_Graph* graph, TF_Output a, TF_Output b, std::string* a_str,
                      std::string* b_str);

}  // namespace gradients
}  // namespace opgen

// Test harness for the runtime's hand-written protobuf reader and writer: reads a
// serialized message on stdin, parses it with the runtime's reader and writes it back
// with the runtime's writer on stdout. The message is an OpList, or what the first
// argument names: "graphdef", or "tensorproto" (read into a tensor, written back as
// dtype, shape and tensor_content). test_wire_format.py builds and drives it.
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "tensorflow/c/tf_tensor.h"
#include "wire_format.h"

namespace {

int RoundTripOpList(const std::string& in) {
  std::vector<opgen::OpDef> ops;
  std::string error;
  if (!opgen::ParseOpList(in, &ops, &error)) {
    std::cerr << error << "\n";
    return 1;
  }
  std::vector<const opgen::OpDef*> pointers;
  for (const opgen::OpDef& op : ops) pointers.push_back(&op);
  std::cout << opgen::SerializeOpList(pointers);
  return 0;
}

int RoundTripGraphDef(const std::string& in) {
  opgen::GraphDefProto graph;
  std::string error;
  if (!opgen::ParseGraphDef(in, &graph, &error)) {
    std::cerr << error << "\n";
    return 1;
  }
  std::cout << opgen::SerializeGraphDef(graph);
  return 0;
}

int RoundTripTensorProto(const std::string& in) {
  std::string error, out;
  TF_Tensor* tensor = opgen::ParseTensorProto(in, &error);
  if (tensor == nullptr) {
    std::cerr << error << "\n";
    return 1;
  }
  const bool written = opgen::SerializeTensorProto(tensor, &out);
  TF_DeleteTensor(tensor);
  if (!written) return 2;
  std::cout << out;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  const std::string message = argc > 1 ? argv[1] : "oplist";
  if (message == "graphdef") return RoundTripGraphDef(in);
  if (message == "tensorproto") return RoundTripTensorProto(in);
  return RoundTripOpList(in);
}

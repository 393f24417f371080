// Test harness for the runtime's hand-written protobuf reader and writer: reads a
// serialized message on stdin, parses it with the runtime's reader and writes it back
// with the runtime's writer on stdout. The message is an OpList, or a GraphDef when the
// first argument is "graphdef". test_wire_format.py builds and drives it.
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

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

}  // namespace

int main(int argc, char** argv) {
  std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (argc > 1 && std::string(argv[1]) == "graphdef") return RoundTripGraphDef(in);
  return RoundTripOpList(in);
}

// Test harness for the runtime's hand-written protobuf reader and writer: reads a
// serialized OpList on stdin, parses it with opgen::ParseOpList and writes it back
// with opgen::SerializeOpList on stdout. test_wire_format.py builds and drives it.
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "wire_format.h"

int main() {
  std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
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

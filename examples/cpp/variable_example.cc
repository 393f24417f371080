// Resource variables with the C++ framework (opgen::Variable): builds a graph once, then
// initializes, updates in a loop and reads back across several ClientSession::Run calls,
// printing "what: values" lines; also shows the errors (opgen::Error with a TF_Code).
// tests/integration/test_examples_c_cpp.py checks the lines against numpy.
//
//   c++ -std=c++17 variable_example.cc -I<generated>/cpp $(opgen config --cflags) $(opgen config --libs)
#include <cstdio>
#include <string>
#include <vector>

#include "opgen_ops.h"

namespace ops = opgen::ops;

template <typename T>
void Print(const char* what, const opgen::Tensor& value) {
  std::printf("%s:", what);
  for (T v : value.ToVector<T>()) std::printf(" %g", static_cast<double>(v));
  std::printf("\n");
}

void PrintError(const char* what, const opgen::Error& e) {
  std::printf("%s: %d | %s\n", what, static_cast<int>(e.code()), e.what());
}

int main() {
  try {
    opgen::Scope root = opgen::Scope::NewRootScope();
    // weights: float32 [2, 2] with an initial value; counter: int64 scalar without one.
    opgen::Variable weights(root.WithOpName("weights"), TF_FLOAT, {2, 2}, {{1.f, 2.f}, {3.f, 4.f}});
    opgen::Variable counter(root.WithOpName("counter"), TF_INT64, {});
    opgen::Operation init = opgen::GlobalVariablesInitializer(root);

    // The update ops, built once and run many times; each returns the new value.
    opgen::Output add = weights.AssignAdd(root, {{0.5f, 0.5f}, {0.5f, 0.5f}});
    opgen::Output sub = weights.AssignSub(root, ops::OnesLike(root, weights.Read(root)));
    opgen::Output assign = weights.Assign(root, {{10.f, 20.f}, {30.f, 40.f}});
    opgen::Output read = weights.Read(root);
    opgen::Output set_counter = counter.Assign(root, int64_t{5});
    opgen::Output count = counter.AssignAdd(root, int64_t{1});

    opgen::ClientSession session(root);
    session.Run({}, {}, {init});
    Print<float>("init", session.Run({read})[0]);
    for (int step = 1; step <= 3; ++step)
      Print<float>(("add_" + std::to_string(step)).c_str(), session.Run({add})[0]);
    Print<float>("assign", session.Run({assign})[0]);
    for (int step = 1; step <= 2; ++step)
      Print<float>(("sub_" + std::to_string(step)).c_str(), session.Run({sub})[0]);
    Print<float>("read", session.Run({read})[0]);
    std::vector<int64_t> counts{session.Run({set_counter})[0].ToVector<int64_t>()[0]};
    for (int step = 0; step < 3; ++step) counts.push_back(session.Run({count})[0].ToVector<int64_t>()[0]);
    std::printf("counter:");
    for (int64_t c : counts) std::printf(" %lld", static_cast<long long>(c));
    std::printf("\n");

    // A second session has values of its own: nothing is assigned there yet.
    opgen::ClientSession fresh(root);
    try {
      fresh.Run({read});
      std::printf("uninitialized: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("uninitialized", e);
    }
    try {
      weights.Assign(root, {{1, 2}, {3, 4}});  // int32: refused while building
      std::printf("wrong_dtype: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("wrong_dtype", e);
    }
    try {
      weights.Assign(root, {1.f, 2.f, 3.f});  // shape (3,): refused while building
      std::printf("wrong_shape: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("wrong_shape", e);
    }
    try {
      counter.Initializer();
      std::printf("no_initializer: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("no_initializer", e);
    }
  } catch (const opgen::Error& e) {
    std::fprintf(stderr, "error (TF_Code %d): %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
  return 0;
}

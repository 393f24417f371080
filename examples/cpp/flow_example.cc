// Functions and control flow with the C++ framework: a function traced from a lambda
// (opgen::Function) and called twice, a cond over two traced branches (opgen::ops::Cond)
// and a while loop (opgen::ops::BuildWhileLoop), with their gradients; printing
// "what: values" lines, then the errors (opgen::Error with a TF_Code).
// tests/integration/test_flow_cpp.py checks the lines against numpy
// (tests/integration/flow_programs.py).
//
//   c++ -std=c++17 flow_example.cc -I<generated>/cpp $(opgen config --cflags) $(opgen config --libs)
//
// With an argument "no-gradients" it leaves out the gradients (TensorFlow's own C library
// has none for If and While nodes).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "opgen_ops.h"

namespace ops = opgen::ops;
using opgen::Output;
using opgen::OutputList;
using opgen::Scope;

template <typename T>
void Print(const char* what, const opgen::Tensor& value) {
  std::printf("%s:", what);
  for (T v : value.ToVector<T>()) std::printf(" %.9g", static_cast<double>(v));
  std::printf("\n");
}

void PrintError(const char* what, const opgen::Error& e) {
  std::printf("%s: %d | %s\n", what, static_cast<int>(e.code()), e.what());
}

int main(int argc, char** argv) {
  const bool gradients = !(argc > 1 && std::strcmp(argv[1], "no-gradients") == 0);
  try {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), TF_FLOAT, ops::Placeholder::Shape({3}));
    auto y = ops::Const(root.WithOpName("y"), opgen::Tensor::FromValues<float>({0.5f, -1.f, 2.f}, {3}), TF_FLOAT);
    opgen::ClientSession::FeedType feed{{x, {1.f, 2.f, 3.f}}};

    // function: square_plus(a, b) = a * a + b, traced once, called as a PartitionedCall
    // and as a node whose op type is the function's name.
    opgen::Function square_plus = opgen::Function::Define(
        "square_plus", {{TF_FLOAT, {3}}, {TF_FLOAT, {3}}},
        [](const Scope& s, const OutputList& a) -> OutputList {
          return {ops::AddV2(s, ops::Mul(s, a[0], a[0]), a[1])};
        });
    Output inner = opgen::CallFunction(root, square_plus, {x, y})[0];
    Output outer = opgen::CallFunction(root, "square_plus", {inner, y})[0];

    // cond: x * x if pred else x - 1.
    auto pred = ops::Placeholder(root.WithOpName("pred"), TF_BOOL, ops::Placeholder::Shape({}));
    Output chosen = ops::Cond(
        root, pred, {x},
        [](const Scope& s, const OutputList& a) -> OutputList { return {ops::Mul(s, a[0], a[0])}; },
        [](const Scope& s, const OutputList& a) -> OutputList { return {ops::Sub(s, a[0], 1.f)}; })[0];

    // while: (i, n, v) = (i + 1, n, v * 1.5 + 1) while i < n.
    auto n = ops::Placeholder(root.WithOpName("n"), TF_INT32, ops::Placeholder::Shape({}));
    OutputList loop;
    ops::BuildWhileLoop(
        root, {ops::Const(root, opgen::Tensor::Scalar<int32_t>(0), TF_INT32), n, x},
        [](const Scope& s, const OutputList& v, Output* done) { *done = ops::Less(s, v[0], v[1]); },
        [](const Scope& s, const OutputList& v, OutputList* next) {
          *next = {ops::AddV2(s, v[0], 1), v[1], ops::AddV2(s, ops::Mul(s, v[2], 1.5f), 1.f)};
        },
        "loop", &loop);

    opgen::ClientSession session(root);
    Print<float>("function", session.Run(feed, {outer})[0]);
    auto with = [&](bool p) {
      opgen::ClientSession::FeedType f = feed;
      f.emplace(pred, p);
      f.emplace(n, 4);
      return f;
    };
    Print<float>("cond_true", session.Run(with(true), {chosen})[0]);
    Print<float>("cond_false", session.Run(with(false), {chosen})[0]);
    std::vector<opgen::Tensor> looped = session.Run(with(true), {loop[0], loop[2]});
    Print<int32_t>("while_count", looped[0]);
    Print<float>("while", looped[1]);

    if (gradients) {
      OutputList d_function, d_cond, d_while;
      opgen::AddSymbolicGradients(root, {outer}, {x}, &d_function);
      opgen::AddSymbolicGradients(root, {chosen}, {x}, &d_cond);
      opgen::AddSymbolicGradients(root, {loop[2]}, {x}, &d_while);
      Print<float>("function_grad", session.Run(feed, {d_function[0]})[0]);
      Print<float>("cond_grad_true", session.Run(with(true), {d_cond[0]})[0]);
      Print<float>("cond_grad_false", session.Run(with(false), {d_cond[0]})[0]);
      Print<float>("while_grad", session.Run(with(true), {d_while[0]})[0]);
    }

    // A node calling a function no library holds: refused while building.
    try {
      opgen::CallFunction(root, "no_such_function", {x});
      std::printf("missing_function: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("missing_function", e);
    }
    // A body that changes v from float32 to int32: refused, and the loop dropped.
    try {
      OutputList bad;
      ops::BuildWhileLoop(
          root, {ops::Const(root, opgen::Tensor::Scalar<int32_t>(0), TF_INT32), n, x},
          [](const Scope& s, const OutputList& v, Output* done) { *done = ops::Less(s, v[0], v[1]); },
          [](const Scope& s, const OutputList& v, OutputList* next) {
            *next = {ops::AddV2(s, v[0], 1), v[1], ops::Cast(s, v[2], TF_INT32)};
          },
          "bad_loop", &bad);
      std::printf("while_dtype: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("while_dtype", e);
    }
  } catch (const opgen::Error& e) {
    PrintError("unexpected", e);
    return 1;
  }
  return 0;
}

// What test_flow_cpp.py checks beyond the example: opgen::Function, CallFunction,
// ops::Cond and ops::BuildWhileLoop refusing bad builders with opgen::Error (the graph
// staying usable: no node of a dropped loop is left in it), functions calling functions,
// which call and If ops they choose, and edge cases: a function returning its argument
// (twice), functions and conds of no inputs, a gradient through them. Prints "what: text"
// lines; with the argument "no-gradients", none (for TensorFlow's C library).
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "opgen_ops.h"

namespace ops = opgen::ops;
using opgen::Output;
using opgen::OutputList;
using opgen::Scope;

static int CountOps(const Scope& scope) {
  int count = 0;
  size_t pos = 0;
  while (TF_GraphNextOperation(scope.graph(), &pos) != nullptr) ++count;
  return count;
}

template <typename F>
static void Expect(const char* what, F build) {
  try {
    build();
    std::printf("%s: no error\n", what);
  } catch (const opgen::Error& e) {
    std::printf("%s: %d | %s\n", what, static_cast<int>(e.code()), e.what());
  } catch (const std::exception& e) {
    std::printf("%s: other | %s\n", what, e.what());
  }
}

static void Less(const Scope& s, const OutputList& v, Output* done) { *done = ops::Less(s, v[0], v[1]); }

int main(int argc, char** argv) {
  const bool gradients = !(argc > 1 && std::strcmp(argv[1], "no-gradients") == 0);
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // every line out, should a run crash
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), TF_FLOAT, ops::Placeholder::Shape({3}));
  Output zero = ops::Const(root, opgen::Tensor::Scalar<int32_t>(0), TF_INT32);
  Output three = ops::Const(root, opgen::Tensor::Scalar<int32_t>(3), TF_INT32);
  const OutputList vars{zero, three, x};
  auto step = [](const Scope& s, const OutputList& v, OutputList* next) {
    *next = {ops::AddV2(s, v[0], 1), v[1], ops::Mul(s, v[2], 2.f)};
  };

  const int before = CountOps(root);
  Expect("cond_throws", [&] {
    OutputList out;
    ops::BuildWhileLoop(root, vars, [](const Scope&, const OutputList&, Output*) {
      throw std::runtime_error("cond builder failed");
    }, step, "loop", &out);
  });
  Expect("body_throws", [&] {
    OutputList out;
    ops::BuildWhileLoop(root, vars, Less, [](const Scope&, const OutputList&, OutputList*) {
      throw opgen::Error(TF_UNIMPLEMENTED, "body builder failed");
    }, "loop", &out);
  });
  Expect("body_outputs", [&] {
    OutputList out;
    ops::BuildWhileLoop(root, vars, Less, [](const Scope& s, const OutputList& v, OutputList* next) {
      *next = {ops::AddV2(s, v[0], 1), v[1]};
    }, "loop", &out);
  });
  Expect("cond_unset", [&] {
    OutputList out;
    ops::BuildWhileLoop(root, vars, [](const Scope&, const OutputList&, Output*) {}, step, "loop", &out);
  });
  Expect("cond_not_bool", [&] {
    OutputList out;
    ops::BuildWhileLoop(root, vars, [](const Scope&, const OutputList& v, Output* done) { *done = v[0]; },
                        step, "loop", &out);
  });
  Expect("body_outer_tensor", [&] {
    OutputList out;
    ops::BuildWhileLoop(root, vars, Less, [&](const Scope& s, const OutputList& v, OutputList* next) {
      *next = {ops::AddV2(s, v[0], 1), v[1], x};   // x is of the outer graph
    }, "loop", &out);
  });
  Expect("body_reads_outer", [&] {
    OutputList out;
    ops::BuildWhileLoop(root, vars, Less, [&](const Scope& s, const OutputList& v, OutputList* next) {
      *next = {ops::AddV2(s, v[0], 1), v[1], ops::Mul(s, v[2], x)};   // x is of the outer graph
    }, "loop", &out);
  });
  std::printf("ops_added_by_failures: %d\n", CountOps(root) - before);

  // The graph still takes a loop, and runs it: x * 2^3.
  OutputList loop;
  ops::BuildWhileLoop(root, vars, Less, step, "loop", &loop);
  std::printf("loop_op: %s %s\n", loop[2].op().op_type().c_str(), loop[2].op().name().c_str());

  // A function calling a function: the inner one comes along into the root graph.
  opgen::Function twice = opgen::Function::Define("twice", {TF_FLOAT}, [](const Scope& s, const OutputList& a) -> OutputList {
    return {ops::Mul(s, a[0], 2.f)};
  });
  opgen::Function quadruple = opgen::Function::Define("quadruple", {TF_FLOAT}, [&](const Scope& s, const OutputList& a) {
    return opgen::CallFunction(s, twice, {opgen::CallFunction(s, twice, {a[0]})[0]});
  });
  Output quad = opgen::CallFunction(root, quadruple, {x})[0];
  std::printf("call_op: %s %s\n", quad.op().op_type().c_str(), quad.op().name().c_str());
  std::printf("library: %d\n", TF_GraphNumFunctions(root.graph()));
  // Two functions, each with a cond of the same node name but other branches: their
  // branch functions keep apart in the root graph's library.
  auto with_cond = [&](const char* name, float scale) {
    return opgen::Function::Define(name, {TF_BOOL, TF_FLOAT}, [scale](const Scope& s, const OutputList& a) {
      return ops::Cond(s, a[0], {a[1]},
                       [scale](const Scope& b, const OutputList& v) -> OutputList { return {ops::Mul(b, v[0], scale)}; },
                       [](const Scope&, const OutputList& v) -> OutputList { return {v[0]}; });
    });
  };
  auto pred = ops::Placeholder(root.WithOpName("pred"), TF_BOOL, ops::Placeholder::Shape({}));
  Output by_ten = opgen::CallFunction(root, with_cond("by_ten", 10.f), {pred, x})[0];
  Output by_hundred = opgen::CallFunction(root, with_cond("by_hundred", 100.f), {pred, x})[0];
  // A loop whose body calls a function: the loop's functions and `twice` join the library.
  OutputList called;
  ops::BuildWhileLoop(root, vars, Less, [&](const Scope& s, const OutputList& v, OutputList* next) {
    *next = {ops::AddV2(s, v[0], 1), v[1], opgen::CallFunction(s, twice, {v[2]})[0]};
  }, "", &called);

  // A stateful op (VarIsInitializedOp) inside: StatefulPartitionedCall and If.
  opgen::Function noisy = opgen::Function::Define("noisy", {{TF_INT32, {1}}}, [](const Scope& s, const OutputList& a) -> OutputList {
    auto handle = ops::VarHandleOp(s, TF_FLOAT, {});
    return {ops::AddV2(s, a[0], ops::Cast(s, ops::VarIsInitializedOp(s, handle), TF_INT32))};
  });
  Output shape = ops::Const(root, opgen::Tensor::FromValues<int32_t>({3}, {1}), TF_INT32);
  std::printf("stateful_call_op: %s %d\n", opgen::CallFunction(root, noisy, {shape})[0].op().op_type().c_str(),
              noisy.stateful());
  Output stateless = ops::Cond(root, pred, {x}, twice, quadruple)[0];
  Output stateful = ops::Cond(root, pred, {shape}, noisy, noisy)[0];
  std::printf("if_ops: %s %s %s\n", stateless.op().op_type().c_str(), stateful.op().op_type().c_str(),
              stateful.op().name().c_str());

  Expect("call_arity", [&] { opgen::CallFunction(root, twice, {x, x}); });
  Expect("call_dtype", [&] { opgen::CallFunction(root, twice, {three}); });
  Expect("cond_dtypes", [&] {
    ops::Cond(root, pred, {x},
              [](const Scope& s, const OutputList& a) -> OutputList { return {a[0]}; },
              [](const Scope& s, const OutputList& a) -> OutputList { return {ops::Cast(s, a[0], TF_INT32)}; });
  });
  Expect("cond_counts", [&] {
    ops::Cond(root, pred, {x},
              [](const Scope&, const OutputList& a) -> OutputList { return {a[0], a[0]}; },
              [](const Scope&, const OutputList& a) -> OutputList { return {a[0]}; });
  });
  Expect("function_outer_result", [&] {
    opgen::Function::Define("leaks", {TF_FLOAT}, [&](const Scope&, const OutputList&) -> OutputList { return {x}; });
  });
  Expect("function_outer_input", [&] {
    opgen::Function::Define("reads_x", {TF_FLOAT}, [&](const Scope& s, const OutputList& a) -> OutputList {
      return {ops::Mul(s, a[0], x)};
    });
  });
  Expect("function_clash", [&] {
    opgen::Function other = opgen::Function::Define("twice", {TF_FLOAT}, [](const Scope& s, const OutputList& a) -> OutputList {
      return {ops::Mul(s, a[0], 3.f)};
    });
    opgen::CallFunction(root, other, {x});
  });

  // Edge cases: an argument returned as it is, twice; no inputs; an identity branch.
  opgen::Function ident = opgen::Function::Define("ident", {TF_FLOAT}, [](const Scope&, const OutputList& a) -> OutputList {
    return {a[0], a[0]};
  });
  OutputList idents = opgen::CallFunction(root, ident, {x});
  auto scalar = [](const Scope& s, float v) { return ops::Const(s, opgen::Tensor::Scalar<float>(v), TF_FLOAT); };
  opgen::Function seven = opgen::Function::Define("seven", {}, [&](const Scope& s, const OutputList&) -> OutputList {
    return {scalar(s, 7.f)};
  });
  Output top = opgen::CallFunction(root, seven, {})[0];
  opgen::Function plus_seven = opgen::Function::Define("plus_seven", {{TF_FLOAT, {3}}}, [&](const Scope& s, const OutputList& a) -> OutputList {
    return {ops::AddV2(s, a[0], opgen::CallFunction(s, seven, {})[0])};
  });
  Output nested = opgen::CallFunction(root, plus_seven, {x})[0];
  Output no_inputs = ops::Cond(root, pred, {},
                               [&](const Scope& s, const OutputList&) -> OutputList { return {scalar(s, 1.f)}; },
                               [&](const Scope& s, const OutputList&) -> OutputList { return {scalar(s, 2.f)}; })[0];
  Output identity_branch = ops::Cond(root, pred, {x},
                                     [](const Scope&, const OutputList& a) -> OutputList { return {a[0]}; },
                                     [](const Scope& s, const OutputList& a) -> OutputList { return {ops::Neg(s, a[0])}; })[0];
  OutputList edge_grad;
  if (gradients) opgen::AddSymbolicGradients(root, {idents[1], nested, identity_branch}, {x}, &edge_grad);

  opgen::ClientSession session(root);
  opgen::ClientSession::FeedType feed{{x, {1.f, 2.f, 3.f}}, {pred, true}};
  std::vector<opgen::Tensor> values = session.Run(feed, {loop[2], quad, called[2], stateless, by_ten, by_hundred});
  const char* names[] = {"loop", "quadruple", "loop_calling", "cond_stateless", "by_ten", "by_hundred"};
  for (size_t i = 0; i < values.size(); ++i) {
    std::printf("%s:", names[i]);
    for (float v : values[i].ToVector<float>()) std::printf(" %g", static_cast<double>(v));
    std::printf("\n");
  }
  for (bool p : {true, false}) {
    opgen::ClientSession::FeedType at{{x, {1.f, 2.f, 3.f}}, {pred, p}};
    std::vector<opgen::Tensor> edge = session.Run(at, {idents[0], idents[1], top, nested, no_inputs, identity_branch});
    std::printf("edge_%s:", p ? "true" : "false");
    for (const opgen::Tensor& t : edge)
      for (float v : t.ToVector<float>()) std::printf(" %g", static_cast<double>(v));
    std::printf("\n");
    if (!gradients) continue;
    std::printf("edge_grad_%s:", p ? "true" : "false");
    for (float v : session.Run(at, {edge_grad[0]})[0].ToVector<float>()) std::printf(" %g", static_cast<double>(v));
    std::printf("\n");
  }
  return 0;
}

// Graph gradients and optimizers with the C++ framework: a linear regression
// y = X w + b with the mean squared error, its gradients (opgen::AddSymbolicGradients),
// then 20 steps each of GradientDescentOptimizer (Minimize), MomentumOptimizer and
// AdamOptimizer (ApplyGradients), printing "what: values" lines; then the errors.
// tests/integration/test_examples_c_cpp.py checks the gradients against numpy and the
// losses against Python's opgen.gradients + opgen.train on the same graph.
//
//   c++ -std=c++17 train_example.cc -I<generated>/cpp $(opgen config --cflags) $(opgen config --libs)
#include <cstdio>
#include <string>
#include <vector>

#include "opgen_ops.h"

namespace ops = opgen::ops;

// The model: float32 X [4, 2], Y [4, 1], w [2, 1], b [1] (tests/integration/train_programs.py).
struct Model {
  opgen::Scope root = opgen::Scope::NewRootScope();
  opgen::Variable w{root.WithOpName("w"), {{0.1f}, {-0.2f}}};
  opgen::Variable b{root.WithOpName("b"), {0.f}};
  opgen::Output loss;
  Model() {
    opgen::Output x = root.AsOutput({{1.f, 2.f}, {-1.f, 0.5f}, {0.5f, -2.f}, {2.f, 1.f}});
    opgen::Output y = root.AsOutput({{1.f}, {0.f}, {-2.f}, {3.f}});
    auto pred = ops::AddV2(root, ops::MatMul(root, x, w.Read(root)), b.Read(root));
    loss = ops::Mean(root, ops::Square(root, ops::Sub(root, pred, y)), {0, 1});
  }
};

void Print(const char* what, const std::vector<float>& values) {
  std::printf("%s:", what);
  for (float v : values) std::printf(" %.9g", static_cast<double>(v));
  std::printf("\n");
}

void PrintError(const char* what, const opgen::Error& e) {
  std::printf("%s: %d | %s\n", what, static_cast<int>(e.code()), e.what());
}

// The loss before each of 20 steps and after the last.
std::vector<float> Train(Model& m, const opgen::Operation& train) {
  opgen::Operation init = opgen::GlobalVariablesInitializer(m.root);
  opgen::ClientSession session(m.root);
  session.Run({}, {}, {init});
  std::vector<float> losses;
  for (int step = 0; step < 20; ++step) {
    losses.push_back(session.Run({m.loss})[0].ToVector<float>()[0]);
    session.Run({}, {}, {train});
  }
  losses.push_back(session.Run({m.loss})[0].ToVector<float>()[0]);
  return losses;
}

int main() {
  try {
    {
      Model m;
      opgen::OutputList grads;
      opgen::AddSymbolicGradients(m.root, {m.loss}, {m.w.handle(), m.b.handle()}, &grads);
      opgen::ClientSession session(m.root);
      session.Run({}, {}, {opgen::GlobalVariablesInitializer(m.root)});
      std::vector<opgen::Tensor> values = session.Run({m.loss, grads[0], grads[1]});
      Print("loss", values[0].ToVector<float>());
      Print("grad_w", values[1].ToVector<float>());
      Print("grad_b", values[2].ToVector<float>());
    }
    {
      Model m;
      opgen::GradientDescentOptimizer sgd(0.1f);
      Print("sgd", Train(m, sgd.Minimize(m.root, m.loss, {m.w, m.b})));
    }
    {
      Model m;
      opgen::MomentumOptimizer momentum(0.05f, 0.9f);
      Print("momentum", Train(m, momentum.Minimize(m.root, m.loss, {m.w, m.b})));
    }
    {
      Model m;
      opgen::OutputList grads;
      opgen::AddSymbolicGradients(m.root, {m.loss}, {m.w.handle(), m.b.handle()}, &grads);
      opgen::AdamOptimizer adam(0.1f);
      Print("adam", Train(m, adam.ApplyGradients(m.root, {{grads[0], m.w}, {grads[1], m.b}})));
    }

    Model m;
    opgen::Variable unused(m.root.WithOpName("unused"), {1.f});
    opgen::OutputList grads;
    try {  // opgen's runtime gives an empty Output (TensorFlow's C library fails instead)
      opgen::AddSymbolicGradients(m.root, {m.loss}, {m.w.handle(), unused.handle()}, &grads);
      std::printf("unconnected: %s %s\n", grads[0].op().c_op() != nullptr ? "output" : "null",
                  grads[1].op().c_op() != nullptr ? "output" : "null");
    } catch (const opgen::Error& e) {
      PrintError("unconnected", e);
    }
    try {
      // Enter (a v1 while loop's) has no gradient function: TF_NOT_FOUND naming it.
      opgen::AddSymbolicGradients(m.root, {ops::Enter(m.root, m.loss, "frame").output},
                                  {m.w.handle()}, &grads);
      std::printf("no_gradient: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("no_gradient", e);
    }
    try {
      opgen::AddSymbolicGradients(m.root, {m.loss}, {m.w.handle()}, opgen::OutputList{}, &grads);
      std::printf("wrong_length: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("wrong_length", e);
    }
    try {
      opgen::GradientDescentOptimizer(0.1f).ApplyGradients(m.root, {{opgen::Output(), m.w}});
      std::printf("no_gradients: no error\n");
    } catch (const opgen::Error& e) {
      PrintError("no_gradients", e);
    }
  } catch (const opgen::Error& e) {
    std::fprintf(stderr, "error %d: %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
  return 0;
}

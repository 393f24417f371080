// The demo in C++: the generated ops (opgen_ops.h), opgen::Variable and
// opgen::GradientDescentOptimizer (Minimize: AddSymbolicGradients + one
// ResourceApplyGradientDescent per variable). Same graph, node for node, as train.py.
//
//   c++ -std=c++17 train.cc -I<generated>/cpp $(opgen config --cflags) $(opgen config --libs)
//   ./a.out DATA_DIR mlp|cnn [STEPS]
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "opgen_ops.h"

namespace ops = opgen::ops;

constexpr int64_t kBatch = 64, kBatches = 10;
constexpr float kLearningRate = 0.1f;

// A raw little-endian file of make_data.py as a tensor of `dims` (the size must match).
template <typename T>
opgen::Tensor Load(const std::string& dir, const std::string& file, std::vector<int64_t> dims) {
  std::ifstream in(dir + "/" + file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  opgen::Tensor tensor(opgen::DataTypeOf<T>(), dims);
  if (!in || bytes.size() != tensor.NumElements() * sizeof(T))
    throw opgen::Error(TF_INVALID_ARGUMENT, "cannot read " + file + " (run make_data.py)");
  std::memcpy(TF_TensorData(tensor.c_tensor()), bytes.data(), bytes.size());
  return tensor;
}

// Rows [first, first + kBatch) of a [rows, row_size] tensor.
template <typename T>
opgen::Tensor Batch(const opgen::Tensor& all, int64_t first, std::vector<int64_t> dims) {
  opgen::Tensor batch(all.dtype(), dims);
  const size_t bytes = static_cast<size_t>(batch.NumElements()) * sizeof(T);
  std::memcpy(TF_TensorData(batch.c_tensor()), all.data<T>() + first * (batch.NumElements() / kBatch), bytes);
  return batch;
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4 || (std::strcmp(argv[2], "mlp") != 0 && std::strcmp(argv[2], "cnn") != 0)) {
    std::fprintf(stderr, "usage: %s DATA_DIR mlp|cnn [STEPS]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const bool mlp = std::strcmp(argv[2], "mlp") == 0;
  const int steps = argc == 4 ? std::atoi(argv[3]) : 100;
  try {
    opgen::Scope root = opgen::Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), TF_FLOAT, ops::Placeholder::Shape({kBatch, 64}));
    auto labels = ops::Placeholder(root.WithOpName("labels"), TF_INT32, ops::Placeholder::Shape({kBatch}));
    std::vector<opgen::Variable> vars;
    opgen::Output logits;
    if (mlp) {
      vars.emplace_back(root.WithOpName("w1"), Load<float>(dir, "mlp_w1.f32", {64, 32}));
      vars.emplace_back(root.WithOpName("b1"), Load<float>(dir, "mlp_b1.f32", {32}));
      vars.emplace_back(root.WithOpName("w2"), Load<float>(dir, "mlp_w2.f32", {32, 10}));
      vars.emplace_back(root.WithOpName("b2"), Load<float>(dir, "mlp_b2.f32", {10}));
      auto hidden = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, vars[0].Read(root)), vars[1].Read(root)));
      logits = ops::BiasAdd(root, ops::MatMul(root, hidden, vars[2].Read(root)), vars[3].Read(root));
    } else {
      vars.emplace_back(root.WithOpName("k"), Load<float>(dir, "cnn_k.f32", {3, 3, 1, 8}));
      vars.emplace_back(root.WithOpName("b1"), Load<float>(dir, "cnn_b1.f32", {8}));
      vars.emplace_back(root.WithOpName("w2"), Load<float>(dir, "cnn_w2.f32", {128, 10}));
      vars.emplace_back(root.WithOpName("b2"), Load<float>(dir, "cnn_b2.f32", {10}));
      auto images = ops::Reshape(root, x, {-1, 8, 8, 1});
      auto conv = ops::Conv2D(root, images, vars[0].Read(root), {1, 1, 1, 1}, "SAME");
      auto hidden = ops::Relu(root, ops::BiasAdd(root, conv, vars[1].Read(root)));
      auto pooled = ops::AvgPool(root, hidden, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
      auto flat = ops::Reshape(root, pooled, {-1, 128});
      logits = ops::BiasAdd(root, ops::MatMul(root, flat, vars[2].Read(root)), vars[3].Read(root));
    }
    auto per_example = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
    opgen::Output loss = ops::Mean(root, per_example.loss, 0);
    opgen::Operation train = opgen::GradientDescentOptimizer(kLearningRate).Minimize(root, loss, vars);
    opgen::Operation init = opgen::GlobalVariablesInitializer(root);

    const opgen::Tensor images = Load<float>(dir, "x.f32", {kBatches * kBatch, 64});
    const opgen::Tensor classes = Load<int32_t>(dir, "labels.i32", {kBatches * kBatch});
    opgen::ClientSession session(root);
    session.Run({}, {}, {init});
    for (int step = 0; step < steps; ++step) {
      const int64_t first = step % kBatches * kBatch;
      opgen::ClientSession::FeedType feeds{{x, Batch<float>(images, first, {kBatch, 64})},
                                           {labels, Batch<int32_t>(classes, first, {kBatch})}};
      float value = session.Run(feeds, {loss}, {train})[0].ToVector<float>()[0];
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      std::printf("%d %08x %.9g\n", step, bits, static_cast<double>(value));
    }
  } catch (const opgen::Error& e) {
    std::fprintf(stderr, "error %d: %s\n", static_cast<int>(e.code()), e.what());
    return 1;
  }
  return 0;
}

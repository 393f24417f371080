// The ops of tf.random.Generator: samplers that read and advance a Philox state held in
// an int64 resource variable ([counter low, counter high, key], TensorFlow's layout),
// and the ops that skip the state ahead (RngSkip) or read it and skip (RngReadAndSkip).
#include <optional>
#include <string>
#include <vector>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

// The output shaped by the vector value of input 2 (after resource and algorithm).
void Sampler(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "algorithm");
  const PartialShape s = c.InputWithRank(2, 1, "shape");
  std::optional<std::vector<int64_t>> dims = c.InputInts(2);
  if (!dims) return c.SetOutput(0, s.dims[0] < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(s.dims[0]));
  for (int64_t d : *dims)
    if (d < 0) Fail("shape " + PartialShape::Of(*dims).ToString() + " has a negative dimension");
  c.SetOutput(0, PartialShape::Of(*dims));
}
void IntSampler(ShapeFnContext& c) {
  c.InputWithRank(3, 0, "minval");
  c.InputWithRank(4, 0, "maxval");
  Sampler(c);
}
void Skip(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "algorithm");
  c.InputWithRank(2, 0, "delta");
}
void ReadAndSkip(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "alg");
  c.InputWithRank(2, 0, "delta");
  c.SetOutput(0, PartialShape::Of({3}));
}

const std::pair<std::string, std::string> kResourceDoc{
    "resource", "The generator's state: an int64 vector variable, counter then key."};
const std::pair<std::string, std::string> kAlgorithmDoc{
    "algorithm", "The algorithm: 1 Philox, 3 auto-select (Philox here); 2 (ThreeFry) has no kernel."};
const std::pair<std::string, std::string> kShapeDoc{"shape", "The output's shape, a vector."};
const std::pair<std::string, std::string> kOutputDoc{"output", "The random values."};

OpRegistration Sampler(const char* name, const char* dtype, const char* summary,
                       bool with_bounds = false) {
  std::vector<std::string> inputs{"resource: resource", "algorithm: int64", "shape: shape_dtype"};
  std::vector<std::pair<std::string, std::string>> docs{kResourceDoc, kAlgorithmDoc, kShapeDoc, kOutputDoc};
  if (with_bounds) {
    inputs.push_back("minval: dtype");
    inputs.push_back("maxval: dtype");
    docs.push_back({"minval", "The lowest value (a scalar)."});
    docs.push_back({"maxval", "One past the highest value (a scalar)."});
  }
  OpRegistration op{name,
                    {dtype, "shape_dtype: type = DT_INT64"},
                    inputs,
                    {"output: dtype"},
                    with_bounds ? ShapeFn<IntSampler> : ShapeFn<Sampler>,
                    summary,
                    "Draws from the state's counter, which then moves past 256 Philox blocks "
                    "per output element.",
                    docs};
  op.is_stateful = true;
  return op;
}

}  // namespace

void RegisterRandomGeneratorOps(TF_Status* status) {
  OpRegistration skip{"RngSkip",
                      {},
                      {"resource: resource", "algorithm: int64", "delta: int64"},
                      {},
                      ShapeFn<Skip>,
                      "Advances the generator's counter by 256 * delta blocks.",
                      "The product wraps modulo 2^64, as TensorFlow's does.",
                      {kResourceDoc, kAlgorithmDoc, {"delta", "How far to skip (a scalar)."}}};
  skip.is_stateful = true;
  OpRegistration read_and_skip{
      "RngReadAndSkip",
      {},
      {"resource: resource", "alg: int32", "delta: uint64"},
      {"value: int64"},
      ShapeFn<ReadAndSkip>,
      "Returns the generator's state, then advances its counter by 256 * delta blocks.",
      "The value is the state before the skip, [counter low, counter high, key].",
      {kResourceDoc, {"alg", "The algorithm: 1 Philox, 3 auto-select (Philox here)."},
       {"delta", "How far to skip (a scalar)."}, {"value", "The old state."}}};
  read_and_skip.is_stateful = true;
  RegisterOps(
      {
          Sampler("StatefulUniform", "dtype: type = DT_FLOAT",
                  "Outputs random values uniform in [0, 1) from a generator's state."),
          Sampler("StatefulUniformInt", "dtype: type = DT_INT64",
                  "Outputs random integers uniform in [minval, maxval) from a generator's state.",
                  true),
          Sampler("StatefulUniformFullInt", "dtype: type = DT_UINT64",
                  "Outputs random integers over the type's range from a generator's state."),
          Sampler("StatefulStandardNormalV2", "dtype: type = DT_FLOAT",
                  "Outputs standard normal values from a generator's state."),
          Sampler("StatefulTruncatedNormal", "dtype: type = DT_FLOAT",
                  "Outputs standard normal values within two deviations from a generator's state."),
          skip,
          read_and_skip,
      },
      status);
}

}  // namespace opgen

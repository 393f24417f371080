// Random number ops: the stateless families (a [2] seed, or the V2 key, counter and
// algorithm), the ops that derive a key and counter from a seed, and the stateful ops
// seeded by attrs. Each output's shape is the value of its `shape` operand.
#include <optional>
#include <string>

#include "op_table.h"
#include "shape_fn_context.h"

namespace opgen {

namespace {

// The output shaped by the vector value of input 0, as far as it is known.
void OutputFromShapeOperand(ShapeFnContext& c) {
  const PartialShape s = c.InputWithRank(0, 1, "shape");
  std::optional<std::vector<int64_t>> dims = c.InputInts(0);
  if (!dims) return c.SetOutput(0, s.dims[0] < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(s.dims[0]));
  for (int64_t d : *dims)
    if (d < 0) Fail("shape " + PartialShape::Of(*dims).ToString() + " has a negative dimension");
  c.SetOutput(0, PartialShape::Of(*dims));
}

void SeedOperand(ShapeFnContext& c, int i) {
  const PartialShape seed = c.InputWithRank(i, 1, "seed");
  if (seed.dims[0] >= 0 && seed.dims[0] != 2)
    Fail("seed must have shape [2], not " + seed.ToString());
}

void Stateful(ShapeFnContext& c) { OutputFromShapeOperand(c); }
void StatefulInt(ShapeFnContext& c) {
  c.InputWithRank(1, 0, "minval");
  c.InputWithRank(2, 0, "maxval");
  OutputFromShapeOperand(c);
}
void Stateless(ShapeFnContext& c) {
  SeedOperand(c, 1);
  OutputFromShapeOperand(c);
}
void StatelessInt(ShapeFnContext& c) {
  SeedOperand(c, 1);
  c.InputWithRank(2, 0, "minval");
  c.InputWithRank(3, 0, "maxval");
  OutputFromShapeOperand(c);
}
void StatelessV2(ShapeFnContext& c) {
  c.InputWithRank(1, 1, "key");
  c.InputWithRank(2, 1, "counter");
  c.InputWithRank(3, 0, "alg");
  OutputFromShapeOperand(c);
}
void StatelessIntV2(ShapeFnContext& c) {
  c.InputWithRank(4, 0, "minval");
  c.InputWithRank(5, 0, "maxval");
  StatelessV2(c);
}
void KeyCounter(ShapeFnContext& c) {
  SeedOperand(c, 0);
  c.SetOutput(0, PartialShape::Of({1}));
  c.SetOutput(1, PartialShape::Of({2}));
  if (c.num_outputs() == 3) c.SetOutput(2, PartialShape::Of({}));
}
void StatelessShuffle(ShapeFnContext& c) {
  c.InputWithRank(1, 1, "key");
  c.InputWithRank(2, 1, "counter");
  c.InputWithRank(3, 0, "alg");
  c.SetOutput(0, c.Input(0));
}
void Alg(ShapeFnContext& c) { c.SetOutput(0, PartialShape::Of({})); }
// [batch, num_samples]: logits' first dim, and num_samples' value when it is known.
void Multinomial(ShapeFnContext& c) {
  const PartialShape logits = c.InputWithRank(0, 2, "logits");
  c.InputWithRank(1, 0, "num_samples");
  int64_t samples = -1;
  if (std::optional<std::vector<int64_t>> v = c.InputInts(1); v && v->size() == 1) {
    samples = (*v)[0];
    if (samples < 0)
      Fail("Dimension size, given by scalar input 1, must be non-negative but is " +
           std::to_string(samples));
  }
  c.SetOutput(0, PartialShape::Of({logits.dims[0], samples}));
}
void StatelessMultinomial(ShapeFnContext& c) {
  SeedOperand(c, 2);
  Multinomial(c);
}

constexpr const char* kRealTypes = "dtype: {half, bfloat16, float, double}";
constexpr const char* kRealTypesDefault = "dtype: {half, bfloat16, float, double} = DT_FLOAT";
constexpr const char* kShapeTypes = "T: {int32, int64}";

const std::pair<std::string, std::string> kShapeDoc{"shape", "The output's shape, a vector."};
const std::pair<std::string, std::string> kOutputDoc{"output", "The random values."};
const std::pair<std::string, std::string> kSeedDoc{"seed", "Two integers; the same seed gives the same values."};
const std::pair<std::string, std::string> kKeyDoc{"key", "The generator's key, shape [1]."};
const std::pair<std::string, std::string> kCounterDoc{
    "counter", "The generator's initial counter, shape [2] for Philox."};
const std::pair<std::string, std::string> kAlgDoc{
    "alg", "The algorithm: 1 Philox, 3 auto-select (Philox here); 2 (ThreeFry) has no kernel."};

OpRegistration StatefulReal(const char* name, const char* summary) {
  OpRegistration op{name,
                    {"seed: int = 0", "seed2: int = 0", kRealTypes, kShapeTypes},
                    {"shape: T"},
                    {"output: dtype"},
                    ShapeFn<Stateful>,
                    summary,
                    "Seeded by (`seed`, `seed2`), or at random when both are 0; each run of a "
                    "node continues its own sequence.",
                    {kShapeDoc, kOutputDoc, {"seed", "With seed2, seeds the generator."},
                     {"seed2", "The second seed."}, {"dtype", "The output type."}}};
  op.is_stateful = true;
  return op;
}

OpRegistration StatelessReal(const char* name, const char* summary) {
  return {name,
          {kRealTypesDefault, "T: {int32, int64} = DT_INT32", "Tseed: {int32, int64} = DT_INT64"},
          {"shape: T", "seed: Tseed"},
          {"output: dtype"},
          ShapeFn<Stateless>,
          summary,
          "A pure function of `shape` and `seed` (Philox4x32-10).",
          {kShapeDoc, kSeedDoc, kOutputDoc, {"dtype", "The output type."}}};
}

OpRegistration StatelessRealV2(const char* name, const char* summary) {
  return {name,
          {kRealTypesDefault, "Tshape: {int32, int64} = DT_INT32"},
          {"shape: Tshape", "key: uint64", "counter: uint64", "alg: int32"},
          {"output: dtype"},
          ShapeFn<StatelessV2>,
          summary,
          "A pure function of `shape`, `key`, `counter` and `alg`.",
          {kShapeDoc, kKeyDoc, kCounterDoc, kAlgDoc, kOutputDoc, {"dtype", "The output type."}}};
}

}  // namespace

void RegisterRandomGeneratorOps(TF_Status* status);  // random_generator_ops.cc

void RegisterRandomOps(TF_Status* status) {
  RegisterRandomGeneratorOps(status);
  if (TF_GetCode(status) != TF_OK) return;
  OpRegistration uniform_int{
      "RandomUniformInt",
      {"seed: int = 0", "seed2: int = 0", "Tout: {int32, int64}", kShapeTypes},
      {"shape: T", "minval: Tout", "maxval: Tout"},
      {"output: Tout"},
      ShapeFn<StatefulInt>,
      "Outputs random integers uniform in [minval, maxval).",
      "Seeded by (`seed`, `seed2`), or at random when both are 0. A word modulo the range: "
      "slightly biased unless the range divides 2^32 (int32) or 2^64 (int64).",
      {kShapeDoc, {"minval", "The lowest value (a scalar)."},
       {"maxval", "One past the highest value (a scalar)."}, kOutputDoc,
       {"seed", "With seed2, seeds the generator."}, {"seed2", "The second seed."}}};
  uniform_int.is_stateful = true;
  OpRegistration get_alg{"StatelessRandomGetAlg", {}, {}, {"alg: int32"}, ShapeFn<Alg>,
                         "Returns the counter-based algorithm best for the device.",
                         "Philox (1) on CPU and GPU.", {{"alg", "The algorithm id."}}};
  get_alg.is_stateful = true;
  OpRegistration shuffle{
      "RandomShuffle",
      {"seed: int = 0", "seed2: int = 0", "T: type"},
      {"value: T"},
      {"output: T"},
      shape_fns::kUnchanged,
      "Shuffles a tensor along its first dimension.",
      "Row i of the output is some row of `value`, each row once; seeded by (`seed`, "
      "`seed2`), or at random when both are 0; each run of a node draws a new order.",
      {{"value", "The tensor to shuffle."}, {"output", "`value` with its rows shuffled."},
       {"seed", "With seed2, seeds the generator."}, {"seed2", "The second seed."}}};
  shuffle.is_stateful = true;
  OpRegistration multinomial{
      "Multinomial",
      {"seed: int = 0", "seed2: int = 0", "T: realnumbertype",
       "output_dtype: {int32, int64} = DT_INT64"},
      {"logits: T", "num_samples: int32"},
      {"output: output_dtype"},
      ShapeFn<Multinomial>,
      "Draws samples from a categorical distribution.",
      "Row b of the output holds `num_samples` class indices drawn with probabilities "
      "softmax(logits[b]); non-finite logits are never drawn. Seeded by (`seed`, `seed2`), "
      "or at random when both are 0; each run of a node continues its own sequence.",
      {{"logits", "[batch_size, num_classes] unnormalized log-probabilities."},
       {"num_samples", "How many samples to draw per row (a scalar)."},
       {"output", "[batch_size, num_samples] class indices."},
       {"seed", "With seed2, seeds the generator."}, {"seed2", "The second seed."}}};
  multinomial.is_stateful = true;
  RegisterOps(
      {
          StatefulReal("RandomUniform", "Outputs random values uniform in [0, 1)."),
          StatefulReal("RandomStandardNormal", "Outputs random values from the standard normal."),
          StatefulReal("TruncatedNormal",
                       "Outputs standard normal values, redrawn until within two deviations."),
          uniform_int,
          StatelessReal("StatelessRandomUniform", "Outputs deterministic random values uniform in [0, 1)."),
          StatelessReal("StatelessRandomNormal", "Outputs deterministic standard normal values."),
          StatelessReal("StatelessTruncatedNormal",
                        "Outputs deterministic standard normal values within two deviations."),
          {"StatelessRandomUniformInt",
           {"dtype: {int32, int64}", "T: {int32, int64}", "Tseed: {int32, int64} = DT_INT64"},
           {"shape: T", "seed: Tseed", "minval: dtype", "maxval: dtype"},
           {"output: dtype"},
           ShapeFn<StatelessInt>,
           "Outputs deterministic random integers uniform in [minval, maxval).",
           "A pure function of its operands.",
           {kShapeDoc, kSeedDoc, {"minval", "The lowest value (a scalar)."},
            {"maxval", "One past the highest value (a scalar)."}, kOutputDoc}},
          StatelessRealV2("StatelessRandomUniformV2",
                          "Outputs deterministic random values uniform in [0, 1)."),
          StatelessRealV2("StatelessRandomNormalV2", "Outputs deterministic standard normal values."),
          StatelessRealV2("StatelessTruncatedNormalV2",
                          "Outputs deterministic standard normal values within two deviations."),
          {"StatelessRandomUniformIntV2",
           {"dtype: {int32, int64, uint32, uint64}", "Tshape: {int32, int64} = DT_INT32"},
           {"shape: Tshape", "key: uint64", "counter: uint64", "alg: int32", "minval: dtype",
            "maxval: dtype"},
           {"output: dtype"},
           ShapeFn<StatelessIntV2>,
           "Outputs deterministic random integers uniform in [minval, maxval).",
           "A pure function of its operands.",
           {kShapeDoc, kKeyDoc, kCounterDoc, kAlgDoc, {"minval", "The lowest value (a scalar)."},
            {"maxval", "One past the highest value (a scalar)."}, kOutputDoc}},
          {"StatelessRandomUniformFullIntV2",
           {"dtype: {int32, int64, uint32, uint64} = DT_UINT64",
            "Tshape: {int32, int64} = DT_INT32"},
           {"shape: Tshape", "key: uint64", "counter: uint64", "alg: int32"},
           {"output: dtype"},
           ShapeFn<StatelessV2>,
           "Outputs deterministic random integers over the type's whole range.",
           "A pure function of its operands.",
           {kShapeDoc, kKeyDoc, kCounterDoc, kAlgDoc, kOutputDoc}},
          {"StatelessRandomGetKeyCounter",
           {"Tseed: {int32, int64} = DT_INT64"},
           {"seed: Tseed"},
           {"key: uint64", "counter: uint64"},
           ShapeFn<KeyCounter>,
           "Scrambles a seed into a key and counter for the V2 stateless ops.",
           "The counter has two elements, as Philox uses.",
           {kSeedDoc, kKeyDoc, kCounterDoc}},
          get_alg,
          shuffle,
          multinomial,
          {"StatelessMultinomial",
           {"T: realnumbertype", "Tseed: {int32, int64} = DT_INT64",
            "output_dtype: {int32, int64} = DT_INT64"},
           {"logits: T", "num_samples: int32", "seed: Tseed"},
           {"output: output_dtype"},
           ShapeFn<StatelessMultinomial>,
           "Draws deterministic samples from a categorical distribution.",
           "Row b of the output holds `num_samples` class indices drawn with probabilities "
           "softmax(logits[b]); a pure function of its operands.",
           {{"logits", "[batch_size, num_classes] unnormalized log-probabilities."},
            {"num_samples", "How many samples to draw per row (a scalar)."}, kSeedDoc,
            {"output", "[batch_size, num_samples] class indices."}}},
          {"StatelessRandomUniformFullInt",
           {"dtype: {int32, int64, uint32, uint64} = DT_UINT64", "T: {int32, int64} = DT_INT32",
            "Tseed: {int32, int64, uint32, uint64} = DT_INT64"},
           {"shape: T", "seed: Tseed"},
           {"output: dtype"},
           ShapeFn<Stateless>,
           "Outputs deterministic random integers over the type's whole range.",
           "A pure function of `shape` and `seed`; seeds of unsigned types are refused, as "
           "TensorFlow's kernel refuses them.",
           {kShapeDoc, kSeedDoc, kOutputDoc}},
          {"StatelessRandomGammaV2",
           {"dtype: {half, float, double}", "T: {int32, int64}", "Tseed: {int32, int64} = DT_INT64"},
           {"shape: T", "seed: Tseed", "alpha: dtype"},
           {"output: dtype"},
           ShapeFn<Stateless>,
           "Outputs deterministic samples from gamma distributions.",
           "`shape` ends with `alpha`'s shape; a pure function of the operands (Marsaglia "
           "and Tsang's sampler over Philox4x32-10).",
           {kShapeDoc, kSeedDoc, {"alpha", "The concentrations (shape parameters)."}, kOutputDoc}},
          {"StatelessRandomGammaV3",
           {"dtype: {half, float, double}", "shape_dtype: {int32, int64} = DT_INT32"},
           {"shape: shape_dtype", "key: uint64", "counter: uint64", "alg: int32", "alpha: dtype"},
           {"output: dtype"},
           ShapeFn<StatelessV2>,
           "Outputs deterministic samples from gamma distributions.",
           "`shape` ends with `alpha`'s shape; a pure function of the operands.",
           {kShapeDoc, kKeyDoc, kCounterDoc, kAlgDoc,
            {"alpha", "The concentrations (shape parameters)."}, kOutputDoc}},
          {"StatelessRandomPoisson",
           {"Rtype: {half, float, double, int32, int64}", "dtype: {half, float, double, int32, int64}",
            "T: {int32, int64}", "Tseed: {int32, int64} = DT_INT64"},
           {"shape: T", "seed: Tseed", "lam: Rtype"},
           {"output: dtype"},
           ShapeFn<Stateless>,
           "Outputs deterministic samples from Poisson distributions.",
           "`shape` ends with `lam`'s shape; a pure function of the operands.",
           {kShapeDoc, kSeedDoc, {"lam", "The rates."}, kOutputDoc}},
          {"StatelessRandomBinomial",
           {"S: {int32, int64}", "Tseed: {int32, int64} = DT_INT64",
            "T: {half, float, double, int32, int64} = DT_DOUBLE",
            "dtype: {half, float, double, int32, int64} = DT_INT64"},
           {"shape: S", "seed: Tseed", "counts: T", "probs: T"},
           {"output: dtype"},
           ShapeFn<Stateless>,
           "Outputs deterministic samples from binomial distributions.",
           "`shape` ends with the broadcast shape of `counts` and `probs`; a pure function of "
           "the operands.",
           {kShapeDoc, kSeedDoc, {"counts", "The numbers of trials."},
            {"probs", "The probabilities of success."}, kOutputDoc}},
          {"StatelessParameterizedTruncatedNormal",
           {"S: {int32, int64}", "Tseed: {int32, int64} = DT_INT64", "dtype: {half, float, double}"},
           {"shape: S", "seed: Tseed", "means: dtype", "stddevs: dtype", "minvals: dtype", "maxvals: dtype"},
           {"output: dtype"},
           ShapeFn<Stateless>,
           "Outputs deterministic samples from truncated normal distributions.",
           "`shape` ends with the broadcast shape of the four parameters; a pure function of "
           "the operands.",
           {kShapeDoc, kSeedDoc, {"means", "The means."}, {"stddevs", "The standard deviations."},
            {"minvals", "The lower bounds."}, {"maxvals", "The upper bounds."}, kOutputDoc}},
          {"StatelessShuffle",
           {"T: type"},
           {"value: T", "key: uint64", "counter: uint64", "alg: int32"},
           {"output: T"},
           ShapeFn<StatelessShuffle>,
           "Shuffles a tensor along its first dimension, deterministically.",
           "A pure function of `value`, `key`, `counter` and `alg`.",
           {{"value", "The tensor to shuffle."}, kKeyDoc, kCounterDoc, kAlgDoc,
            {"output", "`value` with its rows shuffled."}}},
          {"StatelessRandomGetKeyCounterAlg",
           {"Tseed: {int32, int64} = DT_INT64"},
           {"seed: Tseed"},
           {"key: uint64", "counter: uint64", "alg: int32"},
           ShapeFn<KeyCounter>,
           "Scrambles a seed into a key and counter, with the algorithm to use them with.",
           "The algorithm is Philox (1).",
           {kSeedDoc, kKeyDoc, kCounterDoc, {"alg", "The algorithm id."}}},
      },
      status);
}

}  // namespace opgen

// Activation recognition: candidate sinks are found breadth first from the head through
// element-wise ops; each candidate's subgraph is checked to be closed (nothing outside
// reads its inner nodes) and evaluated as a scalar function on sample points.
#include "activation_match.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace opgen {
namespace {

constexpr size_t kMaxNodes = 16;

bool IsElementwise(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh", "Mul", "Add", "AddV2", "Sub",
      "RealDiv", "Erf", "Erfc", "Pow", "Neg", "Square", "Maximum", "Minimum", "Exp", "Selu",
      "Softplus"};
  return kOps.count(op) > 0;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// One op on scalars; NaN for an op this interpreter does not know.
double Apply(const NodeDefProto& n, const std::vector<double>& a) {
  const std::string& op = n.op;
  if (a.size() == 1) {
    const double x = a[0];
    if (op == "Relu") return std::max(x, 0.0);
    if (op == "Relu6") return std::min(std::max(x, 0.0), 6.0);
    if (op == "Elu") return x < 0 ? std::expm1(x) : x;
    if (op == "LeakyRelu") {
      const AttrValue* alpha = GetAttr(n, "alpha");
      return x < 0 ? (alpha != nullptr ? alpha->f : 0.2) * x : x;
    }
    if (op == "Sigmoid") return Sigmoid(x);
    if (op == "Tanh") return std::tanh(x);
    if (op == "Erf") return std::erf(x);
    if (op == "Erfc") return std::erfc(x);
    if (op == "Neg") return -x;
    if (op == "Square") return x * x;
    if (op == "Exp") return std::exp(x);
    if (op == "Softplus") return std::log1p(std::exp(x));
  } else if (a.size() == 2) {
    const double x = a[0], y = a[1];
    if (op == "Mul") return x * y;
    if (op == "Add" || op == "AddV2") return x + y;
    if (op == "Sub") return x - y;
    if (op == "RealDiv") return x / y;
    if (op == "Pow") return std::pow(x, y);
    if (op == "Maximum") return std::max(x, y);
    if (op == "Minimum") return std::min(x, y);
  }
  return std::nan("");
}

struct Known {
  const char* name;
  std::function<double(double)> f;
};

const std::vector<Known>& KnownActivations() {
  static const std::vector<Known> kKnown = {
      {"Relu", [](double x) { return std::max(x, 0.0); }},
      {"Relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }},
      {"Elu", [](double x) { return x < 0 ? std::expm1(x) : x; }},
      {"Sigmoid", Sigmoid},
      {"Swish", [](double x) { return x * Sigmoid(x); }},
      {"Tanh", [](double x) { return std::tanh(x); }},
      {"GeluExact", [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }},
      {"GeluTanh",
       [](double x) {
         return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
       }},
  };
  return kKnown;
}

std::vector<double> SamplePoints() {
  std::vector<double> xs;
  for (int i = -40; i <= 40; ++i) xs.push_back(i * 0.17 + 0.013);
  for (double x : {-7.5, -0.001, 0.0, 0.001, 5.9, 6.1, 7.5}) xs.push_back(x);
  return xs;
}

bool Close(double got, double want) {
  return std::isfinite(got) && std::fabs(got - want) <= 1e-5 * (1.0 + std::fabs(want));
}

}  // namespace

bool MatchActivation(OptGraph& g, const std::string& head, MatchedActivation* out) {
  // Candidates: element-wise float nodes reachable from the head, breadth first.
  std::vector<std::string> reach;
  std::set<std::string> seen{head};
  std::vector<std::string> frontier{head};
  while (!frontier.empty() && reach.size() < kMaxNodes) {
    std::vector<std::string> next;
    for (const std::string& name : frontier) {
      for (const OptGraph::Reader& r : g.Readers(name)) {
        const NodeDefProto& n = g.nodes()[r.node];
        if (!IsElementwise(n.op) || NodeType(n) != TF_FLOAT || seen.count(n.name)) continue;
        if (ParseTensorRef(n.input[r.input]).index != 0) continue;
        seen.insert(n.name);
        reach.push_back(n.name);
        next.push_back(n.name);
      }
    }
    frontier = std::move(next);
  }
  const std::set<std::string> reach_set(reach.begin(), reach.end());
  const std::vector<double> xs = SamplePoints();
  bool found = false;
  for (const std::string& sink : reach) {
    // The subgraph: the sink's ancestors within reach.
    std::set<std::string> members;
    std::vector<std::string> stack{sink};
    bool closed = true;
    while (!stack.empty() && closed) {
      const std::string name = stack.back();
      stack.pop_back();
      if (!members.insert(name).second) continue;
      for (const std::string& in : g.Find(name)->input) {
        const TensorRef ref = ParseTensorRef(in);
        if (ref.control() || ref.node == head) {
          closed = closed && (ref.control() || ref.index == 0);
          continue;
        }
        if (reach_set.count(ref.node) && ref.index == 0) {
          stack.push_back(ref.node);
          continue;
        }
        const TF_Tensor* c = g.ConstValue(ref);
        closed = closed && c != nullptr && c->dtype == TF_FLOAT && NumElements(c->dims) == 1 &&
                 c->dims.size() <= 4;
      }
    }
    if (!closed || members.size() <= (found ? out->nodes.size() : 0)) continue;
    // Nothing outside reads the head or an inner node.
    bool sealed = !g.IsKept(head);
    for (const OptGraph::Reader& r : g.Readers(head))
      sealed = sealed && members.count(g.nodes()[r.node].name) &&
               !ParseTensorRef(g.nodes()[r.node].input[r.input]).control();
    for (const std::string& m : members) {
      if (m == sink) continue;
      sealed = sealed && !g.IsKept(m);
      for (const OptGraph::Reader& r : g.Readers(m))
        sealed = sealed && members.count(g.nodes()[r.node].name) &&
                 !ParseTensorRef(g.nodes()[r.node].input[r.input]).control();
    }
    if (!sealed) continue;
    // The subgraph as a scalar function of the head's value.
    auto eval = [&](double x) {
      std::map<std::string, double> value{{head, x}};
      std::function<double(const std::string&)> of = [&](const std::string& name) -> double {
        auto it = value.find(name);
        if (it != value.end()) return it->second;
        const NodeDefProto& n = *g.Find(name);
        std::vector<double> args;
        for (const std::string& in : n.input) {
          const TensorRef ref = ParseTensorRef(in);
          if (ref.control()) continue;
          if (ref.node == head || members.count(ref.node)) args.push_back(of(ref.node));
          else args.push_back(FloatData(g.ConstValue(ref))[0]);
        }
        return value[name] = Apply(n, args);
      };
      return of(sink);
    };
    std::vector<double> ys;
    for (double x : xs) ys.push_back(eval(x));
    auto matches = [&](const std::function<double(double)>& f) {
      for (size_t i = 0; i < xs.size(); ++i)
        if (!Close(ys[i], f(xs[i]))) return false;
      return true;
    };
    std::string name;
    float alpha = 0.2f;
    for (const Known& k : KnownActivations())
      if (matches(k.f)) name = k.name;
    if (name.empty()) {
      // LeakyRelu: x above zero, alpha * x below, for the alpha f(-1) gives.
      const double a = -eval(-1.0);
      if (a >= 0 && a < 1 && matches([a](double x) { return x < 0 ? a * x : x; })) {
        name = "LeakyRelu";
        alpha = static_cast<float>(a);
      }
    }
    if (name.empty()) continue;
    found = true;
    out->name = name;
    out->alpha = alpha;
    out->sink = sink;
    out->nodes.assign(members.begin(), members.end());
  }
  return found;
}

}  // namespace opgen

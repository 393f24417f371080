// Einsum, shared by the CPU kernel and the CUDA plugin: the equation parsed once at
// kernel construction, and a plan per input shapes (cached by the kernel) that lowers
// the contraction to at most one strided pass per operand (transpose, diagonal, sums
// over labels of that operand alone), one batched GEMM, and one transpose of the
// product. Passes that would only copy in the same order are left out, so the Keras
// equations ("abc,cde->abde", "abcd,cde->abe", "ab,bc->ac", "...b,bc->...c") run as a
// single GEMM on the operands' own buffers.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "kernel_api_util.h"

namespace opgen {
namespace kernels {

// out[i] = sum over the summed indices s of in[sum_d i_d * strides[d] + sum_e s_e *
// sum_strides[e]], for i over `dims` in row-major order. Covers transposes (permuted
// strides), diagonals (a stride that is the sum of two dims' strides), broadcasts (a
// stride of 0) and sums.
struct StridedPass {
  std::vector<int64_t> dims, strides;
  std::vector<int64_t> sum_dims, sum_strides;
};

struct EinsumPlan {
  // Operand passes; when absent (`prepare[i]` false) input i is used as it is.
  bool prepare[2] = {false, false};
  StridedPass pass[2];
  int64_t prepared_elements[2] = {0, 0};
  // The GEMM (two operands): batch of [m,k]@[k,n] on operands `first`, `second`
  // (indices into the inputs), with transposes.
  bool gemm = false;
  int first = 0, second = 1;
  bool ta = false, tb = false;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  // The product [batch, m, n] (or input 0's pass for one operand) to the output.
  bool finish = false;
  StridedPass finish_pass;
  std::vector<int64_t> out_dims;
};

// Labels: 'a'..'z' are 0..25, 'A'..'Z' 26..51; ellipsis dimensions get 52 + their
// position counted from the right end of the broadcast ellipsis.
constexpr int kEllipsisLabel = -1;
constexpr int kFirstBroadcastLabel = 52;

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // labels, kEllipsisLabel where "..." stood
  std::vector<int> output;
  bool output_ellipsis = false;
};

// Parses "ab,bc->ac"; false with `error` set for anything else.
inline bool ParseEinsum(const std::string& eq, int num_inputs, EinsumEquation* out,
                        std::string* error) {
  const size_t arrow = eq.find("->");
  if (arrow == std::string::npos || eq.find("->", arrow + 1) != std::string::npos) {
    *error = "Expecting exactly one '->' in einsum equation: " + eq;
    return false;
  }
  auto parse = [&](const std::string& s, std::vector<int>* labels, bool* has_ellipsis) {
    *has_ellipsis = false;
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '.') {
        if (*has_ellipsis || s.compare(i, 3, "...") != 0) {
          *error = "einsum equation '" + eq + "': a '.' outside one '...' per operand";
          return false;
        }
        *has_ellipsis = true;
        labels->push_back(kEllipsisLabel);
        i += 2;
      } else if (c >= 'a' && c <= 'z') {
        labels->push_back(c - 'a');
      } else if (c >= 'A' && c <= 'Z') {
        labels->push_back(26 + (c - 'A'));
      } else {
        *error = "einsum equation '" + eq + "': invalid character '" + std::string(1, c) +
                 "' (labels are letters, with at most one '...' per operand)";
        return false;
      }
    }
    return true;
  };
  std::vector<std::string> parts;
  const std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  for (size_t comma; (comma = lhs.find(',', start)) != std::string::npos; start = comma + 1)
    parts.push_back(lhs.substr(start, comma - start));
  parts.push_back(lhs.substr(start));
  if (parts.size() != 1 && parts.size() != 2) {
    *error = "Expecting 1 or 2 input subscripts in equation '" + eq + "' but got: " +
             std::to_string(parts.size());
    return false;
  }
  if (static_cast<int>(parts.size()) != num_inputs) {
    *error = "einsum equation '" + eq + "' has " + std::to_string(parts.size()) +
             " input subscripts but the op has " + std::to_string(num_inputs) + " inputs";
    return false;
  }
  out->inputs.assign(parts.size(), {});
  bool unused;
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parse(parts[i], &out->inputs[i], &unused)) return false;
  if (!parse(eq.substr(arrow + 2), &out->output, &out->output_ellipsis)) return false;
  std::array<int, kFirstBroadcastLabel> seen{};
  for (const auto& labels : out->inputs)
    for (int l : labels)
      if (l >= 0) seen[l] = 1;
  std::array<int, kFirstBroadcastLabel> in_output{};
  for (int l : out->output) {
    if (l < 0) continue;
    const char c = l < 26 ? 'a' + l : 'A' + (l - 26);
    if (in_output[l]++) {
      *error = "einsum equation '" + eq + "': output label '" + std::string(1, c) + "' repeats";
      return false;
    }
    if (!seen[l]) {
      *error = "einsum equation '" + eq + "': output label '" + std::string(1, c) +
               "' appears in no input";
      return false;
    }
  }
  return true;
}

namespace einsum_detail {

struct Operand {
  std::vector<int> labels;       // one per dimension, ellipsis expanded
  std::vector<int64_t> dims;
};

inline std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
  return s;
}

// The pass that lays `op` out as `target` labels (each once), summing labels of `sums`.
// `trivial` is set when the pass would copy the data unchanged.
inline StridedPass MakePass(const Operand& op, const std::vector<int>& target,
                            const std::vector<int>& sums, const std::vector<int64_t>& size_of,
                            bool* trivial) {
  const std::vector<int64_t> in_strides = RowMajorStrides(op.dims);
  auto stride_of = [&](int label) {
    int64_t s = 0;
    for (size_t d = 0; d < op.labels.size(); ++d)
      if (op.labels[d] == label) s += in_strides[d];
    return s;
  };
  StridedPass p;
  for (int l : target) {
    p.dims.push_back(size_of[l]);
    p.strides.push_back(stride_of(l));
  }
  for (int l : sums) {
    p.sum_dims.push_back(size_of[l]);
    p.sum_strides.push_back(stride_of(l));
  }
  // Unchanged data: no sums, and the target is the operand's own labels in order once
  // size-1 dimensions (whose order does not matter) are dropped.
  std::vector<int> a, b;
  for (size_t d = 0; d < op.labels.size(); ++d)
    if (op.dims[d] != 1) a.push_back(op.labels[d]);
  for (int l : target)
    if (size_of[l] != 1) b.push_back(l);
  bool repeated = false;
  for (size_t i = 0; i < op.labels.size(); ++i)
    for (size_t j = i + 1; j < op.labels.size(); ++j) repeated |= op.labels[i] == op.labels[j];
  *trivial = !repeated && a == b && std::all_of(p.sum_dims.begin(), p.sum_dims.end(),
                                                 [](int64_t d) { return d == 1; });
  return p;
}

inline int64_t Product(const std::vector<int>& labels, const std::vector<int64_t>& size_of) {
  int64_t n = 1;
  for (int l : labels) n *= size_of[l];
  return n;
}

inline std::vector<int> JoinLabels(std::vector<int> a, const std::vector<int>& b,
                               const std::vector<int>& c = {}) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

// The labels of `from` that are in `set`, in `from`'s order, each once.
inline std::vector<int> InOrder(const std::vector<int>& from, const std::vector<int>& set) {
  std::vector<int> out;
  for (int l : from)
    if (std::find(set.begin(), set.end(), l) != set.end() &&
        std::find(out.begin(), out.end(), l) == out.end())
      out.push_back(l);
  return out;
}

}  // namespace einsum_detail

// Works out the plan for inputs of `dims`; false with `error` set (INVALID_ARGUMENT)
// when the shapes do not fit the equation.
inline bool PlanEinsum(const EinsumEquation& eq, const std::vector<std::vector<int64_t>>& dims,
                       EinsumPlan* plan, std::string* error) {
  using namespace einsum_detail;
  const size_t n_in = eq.inputs.size();
  std::vector<Operand> ops(n_in);
  // Expand each "..." into the broadcast labels of the dims it covers, right-aligned.
  int64_t ellipsis_rank = 0;
  for (size_t i = 0; i < n_in; ++i) {
    const std::vector<int>& labels = eq.inputs[i];
    const bool has_ellipsis =
        std::find(labels.begin(), labels.end(), kEllipsisLabel) != labels.end();
    const int64_t named = static_cast<int64_t>(labels.size()) - (has_ellipsis ? 1 : 0);
    const int64_t rank = static_cast<int64_t>(dims[i].size());
    if (has_ellipsis ? rank < named : rank != named) {
      *error = "einsum: input " + std::to_string(i) + " has rank " + std::to_string(rank) +
               " but its subscripts name " + std::to_string(named) + " dimensions" +
               (has_ellipsis ? " (and an ellipsis)" : "");
      return false;
    }
    const int64_t covered = rank - named;
    ellipsis_rank = std::max(ellipsis_rank, covered);
    for (int l : labels) {
      if (l != kEllipsisLabel) {
        ops[i].labels.push_back(l);
        continue;
      }
      for (int64_t e = 0; e < covered; ++e)
        ops[i].labels.push_back(kFirstBroadcastLabel + static_cast<int>(covered - 1 - e));
    }
    ops[i].dims = dims[i];
  }
  if (ellipsis_rank > 0 && !eq.output_ellipsis) {
    *error = "einsum: output contains " + std::to_string(ellipsis_rank) +
             " broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts";
    return false;
  }
  // Label sizes; broadcast labels of size 1 in one operand and more in another are
  // dropped from the first (numpy broadcasting, no data moves).
  const size_t kLabels = kFirstBroadcastLabel + static_cast<size_t>(ellipsis_rank);
  std::vector<int64_t> size_of(kLabels, -1);
  for (size_t i = 0; i < n_in; ++i) {
    for (size_t d = 0; d < ops[i].labels.size(); ++d) {
      const int l = ops[i].labels[d];
      const int64_t sz = ops[i].dims[d];
      if (size_of[l] < 0 || (l >= kFirstBroadcastLabel && size_of[l] == 1)) {
        size_of[l] = sz;
      } else if (sz != size_of[l] && !(l >= kFirstBroadcastLabel && sz == 1)) {
        *error = "einsum: input " + std::to_string(i) + " shaped " + ShapeString(ops[i].dims) +
                 " has dimension " + std::to_string(sz) + " at axis " + std::to_string(d) +
                 " where the equation's label has size " + std::to_string(size_of[l]);
        return false;
      }
    }
  }
  for (Operand& op : ops) {
    Operand kept;
    for (size_t d = 0; d < op.labels.size(); ++d) {
      const int l = op.labels[d];
      if (l >= kFirstBroadcastLabel && op.dims[d] == 1 && size_of[l] != 1) continue;
      kept.labels.push_back(l);
      kept.dims.push_back(op.dims[d]);
    }
    op = kept;
  }
  std::vector<int> out_labels;
  for (int l : eq.output) {
    if (l != kEllipsisLabel) {
      out_labels.push_back(l);
      continue;
    }
    for (int64_t e = ellipsis_rank; e-- > 0;)
      out_labels.push_back(kFirstBroadcastLabel + static_cast<int>(e));
  }
  plan->out_dims.clear();
  for (int l : out_labels) plan->out_dims.push_back(size_of[l]);

  auto has = [](const Operand& op, int l) {
    return std::find(op.labels.begin(), op.labels.end(), l) != op.labels.end();
  };
  auto in_out = [&](int l) {
    return std::find(out_labels.begin(), out_labels.end(), l) != out_labels.end();
  };
  // Labels only one operand has and the output lacks: summed in that operand's pass.
  auto own_sums = [&](size_t i) {
    std::vector<int> sums;
    for (int l : ops[i].labels) {
      bool elsewhere = in_out(l);
      for (size_t j = 0; j < n_in; ++j) elsewhere |= j != i && has(ops[j], l);
      if (!elsewhere && std::find(sums.begin(), sums.end(), l) == sums.end()) sums.push_back(l);
    }
    return sums;
  };

  if (n_in == 1) {
    bool trivial = false;
    plan->gemm = false;
    plan->prepare[0] = false;
    plan->finish_pass = MakePass(ops[0], out_labels, own_sums(0), size_of, &trivial);
    plan->finish = !trivial;
    return true;
  }

  // Two operands: batch labels (both operands and the output), contracted (both, not the
  // output), free (one operand and the output). Orders are chosen among a few candidates
  // for the fewest elements copied.
  std::vector<int> batch, contracted, free0, free1;
  for (int l : out_labels) {
    if (has(ops[0], l) && has(ops[1], l)) batch.push_back(l);
    else if (has(ops[0], l)) free0.push_back(l);
    else free1.push_back(l);
  }
  for (int l : ops[0].labels)
    if (has(ops[1], l) && !in_out(l) &&
        std::find(contracted.begin(), contracted.end(), l) == contracted.end())
      contracted.push_back(l);
  const std::vector<int> sums0 = own_sums(0), sums1 = own_sums(1);
  const int64_t out_count = NumElements(plan->out_dims);

  bool found = false;
  int64_t best_cost = 0;
  for (int swap = 0; swap < 2; ++swap) {
    const int a = swap, b = 1 - swap;
    const std::vector<int>& free_a = swap ? free1 : free0;
    const std::vector<int>& free_b = swap ? free0 : free1;
    const std::vector<std::vector<int>> k_orders = {InOrder(ops[a].labels, contracted),
                                                    InOrder(ops[b].labels, contracted)};
    const std::vector<std::vector<int>> m_orders = {InOrder(ops[a].labels, free_a), free_a};
    const std::vector<std::vector<int>> n_orders = {InOrder(ops[b].labels, free_b), free_b};
    for (const auto& ko : k_orders)
      for (const auto& mo : m_orders)
        for (const auto& no : n_orders) {
          EinsumPlan c;
          c.gemm = true;
          c.first = a;
          c.second = b;
          int64_t cost = 0;
          // Operand a as [batch, m, k] or [batch, k, m], whichever needs no copy.
          bool t0 = false, t1 = false;
          StridedPass pa = MakePass(ops[a], JoinLabels(batch, mo, ko), swap ? sums1 : sums0, size_of, &t0);
          StridedPass pat = MakePass(ops[a], JoinLabels(batch, ko, mo), swap ? sums1 : sums0, size_of, &t1);
          c.ta = !t0 && t1;
          c.prepare[0] = !(t0 || t1);
          c.pass[0] = c.ta ? pat : pa;
          bool u0 = false, u1 = false;
          StridedPass pb = MakePass(ops[b], JoinLabels(batch, ko, no), swap ? sums0 : sums1, size_of, &u0);
          StridedPass pbt = MakePass(ops[b], JoinLabels(batch, no, ko), swap ? sums0 : sums1, size_of, &u1);
          c.tb = !u0 && u1;
          c.prepare[1] = !(u0 || u1);
          c.pass[1] = c.tb ? pbt : pb;
          c.batch = Product(batch, size_of);
          c.m = Product(mo, size_of);
          c.n = Product(no, size_of);
          c.k = Product(ko, size_of);
          for (int s = 0; s < 2; ++s) {
            c.prepared_elements[s] = c.batch * (s == 0 ? c.m : c.n) * c.k;
            if (c.prepare[s]) cost += c.prepared_elements[s] + NumElements(ops[s == 0 ? a : b].dims);
          }
          // The product's labels to the output's order.
          Operand product{JoinLabels(batch, mo, no), {}};
          for (int l : product.labels) product.dims.push_back(size_of[l]);
          bool same = false;
          c.finish_pass = MakePass(product, out_labels, {}, size_of, &same);
          c.finish = !same;
          if (c.finish) cost += 2 * out_count;
          c.out_dims = plan->out_dims;
          if (!found || cost < best_cost) {
            found = true;
            best_cost = cost;
            *plan = c;
          }
        }
  }
  return true;
}

// The kernel's state: the parsed equation and the plan of the last input shapes (a
// model calls one node with the same shapes again and again).
struct EinsumState {
  EinsumEquation equation;
  std::mutex mu;
  std::vector<std::vector<int64_t>> planned_dims;
  EinsumPlan plan;
  bool planned = false;
};

inline void* CreateEinsum(TF_OpKernelConstruction* ctx) {
  TF_Status* s = TF_NewStatus();
  auto* state = new EinsumState;
  const std::string eq = StringAttr(ctx, "equation", s);
  int64_t n = 0;
  if (TF_GetCode(s) == TF_OK) TF_OpKernelConstruction_GetAttrInt64(ctx, "N", &n, s);
  std::string error;
  if (TF_GetCode(s) == TF_OK && !ParseEinsum(eq, static_cast<int>(n), &state->equation, &error))
    TF_SetStatus(s, TF_INVALID_ARGUMENT, error.c_str());
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, s);
    delete state;
    state = nullptr;
  }
  TF_DeleteStatus(s);
  return state;
}
inline void DeleteEinsum(void* state) { delete static_cast<EinsumState*>(state); }

// The plan for this call's inputs (planned anew only when the shapes changed); false
// after reporting the failure.
inline bool EinsumPlanFor(TF_OpKernelContext* ctx, EinsumState* state,
                          const std::vector<std::vector<int64_t>>& dims, EinsumPlan* plan) {
  std::lock_guard<std::mutex> lock(state->mu);
  if (!state->planned || state->planned_dims != dims) {
    std::string error;
    if (!PlanEinsum(state->equation, dims, &state->plan, &error)) {
      Fail(ctx, TF_INVALID_ARGUMENT, error);
      return false;
    }
    state->planned_dims = dims;
    state->planned = true;
  }
  *plan = state->plan;
  return true;
}

}  // namespace kernels
}  // namespace opgen

// The frame-aware executor: static analysis of frames (FrameGraph::Build) and the run,
// a ready queue of nodes tagged with (frame instance, iteration, dead).
#include "frame_executor.h"

#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "device.h"
#include "op_registry.h"

namespace opgen {
namespace {

using Kind = FrameGraph::Kind;

Kind KindOf(const FrameStepView& step) {
  if (step.kernel == nullptr) return Kind::kCopy;
  const std::string& t = step.op->type();
  if (t == "Switch") return Kind::kSwitch;
  if (t == "Merge") return Kind::kMerge;
  if (t == "Enter") return Kind::kEnter;
  if (t == "Exit") return Kind::kExit;
  if (t == "NextIteration") return Kind::kNextIteration;
  if (t == "LoopCond") return Kind::kLoopCond;
  if (t == "ControlTrigger") return Kind::kControlTrigger;
  return Kind::kOther;
}

const AttrValue* FindAttr(const TF_Operation* op, const char* name) {
  auto it = op->attrs.find(name);
  return it == op->attrs.end() ? nullptr : &it->second;
}

std::string FrameLabel(const std::string& name) {
  return name.empty() ? "the root frame" : "frame '" + name + "'";
}

// The most iterations one loop instance may run: OPGEN_MAX_LOOP_ITERATIONS, else 10M.
int64_t MaxLoopIterations() {
  constexpr int64_t kDefault = 10'000'000;
  const char* env = std::getenv("OPGEN_MAX_LOOP_ITERATIONS");
  if (env == nullptr || *env == '\0') return kDefault;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  return (end != nullptr && *end == '\0' && v > 0) ? static_cast<int64_t>(v) : kDefault;
}

}  // namespace

bool IsControlFlowOp(const std::string& t) {
  return t == "Switch" || t == "Merge" || t == "Enter" || t == "Exit" || t == "NextIteration" ||
         t == "LoopCond" || t == "ControlTrigger";
}

FrameGraph::~FrameGraph() = default;

std::unique_ptr<FrameGraph> FrameGraph::Build(std::vector<FrameStepView> steps,
                                              const std::vector<int>& feed_slots,
                                              const std::vector<int>& fetch_slots,
                                              int num_slots, TF_Status* status) {
  std::unique_ptr<FrameGraph> g(new FrameGraph());
  const int n = static_cast<int>(steps.size());
  g->nodes_.resize(n);
  std::vector<std::pair<int, int>> producer(num_slots, {-1, -1});
  std::vector<int> feed_of(num_slots, -1);
  for (size_t i = 0; i < feed_slots.size(); ++i) feed_of[feed_slots[i]] = static_cast<int>(i);
  std::unordered_map<const TF_Operation*, int> main_step;
  for (int s = 0; s < n; ++s) {
    Node& node = g->nodes_[s];
    node.step = std::move(steps[s]);
    node.kind = KindOf(node.step);
    for (int p = 0; p < node.step.num_outputs; ++p) producer[node.step.first_output + p] = {s, p};
    if (node.step.kernel != nullptr) main_step[node.step.op] = s;
  }
  auto fail = [&](const std::string& message) {
    SetStatus(status, TF_INVALID_ARGUMENT, message);
    return nullptr;
  };
  for (int s = 0; s < n; ++s) {
    Node& node = g->nodes_[s];
    for (size_t j = 0; j < node.step.input_slots.size(); ++j) {
      const int slot = node.step.input_slots[j];
      if (feed_of[slot] >= 0) {
        node.fed_inputs.emplace_back(static_cast<int>(j), feed_of[slot]);
        continue;
      }
      const auto [p, port] = producer[slot];
      g->nodes_[p].out.push_back(Edge{s, static_cast<int>(j), port});
      ++node.num_data_edges;
    }
    if (node.kind == Kind::kCopy) continue;  // its consumer's control inputs are the consumer's
    for (const TF_Operation* c : node.step.op->control_inputs) {
      g->nodes_[main_step.at(c)].out.push_back(Edge{s, -1, -1});
      ++node.num_control;
    }
  }

  // Frames, as TensorFlow infers them: from the nodes without inputs (the root frame),
  // along every edge; an Enter's readers are in its child frame, an Exit's in its
  // frame's parent, anyone else's in its own.
  g->frames_.push_back(Frame{});
  std::unordered_map<std::string, int> frame_id;
  std::vector<int> frame_of(n, -1);
  std::deque<int> queue;
  for (int s = 0; s < n; ++s) {
    if (g->nodes_[s].num_data_edges == 0 && g->nodes_[s].num_control == 0) {
      frame_of[s] = 0;
      queue.push_back(s);
    }
  }
  while (!queue.empty()) {
    const int s = queue.front();
    queue.pop_front();
    Node& node = g->nodes_[s];
    int out_frame = frame_of[s];
    if (node.kind == Kind::kEnter) {
      const AttrValue* name = FindAttr(node.step.op, "frame_name");
      const AttrValue* constant = FindAttr(node.step.op, "is_constant");
      const AttrValue* parallel = FindAttr(node.step.op, "parallel_iterations");
      const std::string frame_name = name != nullptr ? name->s : "";
      node.is_constant = constant != nullptr && constant->b;
      auto [it, added] = frame_id.emplace(frame_name, static_cast<int>(g->frames_.size()));
      if (added) {
        Frame f;
        f.name = frame_name;
        f.parent = frame_of[s];
        if (parallel != nullptr && parallel->i > 0) f.parallel_iterations = parallel->i;
        g->frames_.push_back(std::move(f));
      } else if (g->frames_[it->second].parent != frame_of[s]) {
        return fail("Enter node '" + node.step.op->name + "' enters frame '" + frame_name +
                    "' from " + FrameLabel(g->frames_[frame_of[s]].name) +
                    ", but other Enters of that frame come from " +
                    FrameLabel(g->frames_[g->frames_[it->second].parent].name));
      }
      node.child_frame = out_frame = it->second;
      ++g->frames_[out_frame].num_enters;
    } else if (node.kind == Kind::kExit) {
      if (frame_of[s] == 0)
        return fail("Exit node '" + node.step.op->name +
                    "' is not inside a while loop: it has no frame to leave");
      out_frame = g->frames_[frame_of[s]].parent;
      g->frames_[frame_of[s]].exits.push_back(s);
    } else if (node.kind == Kind::kNextIteration) {
      for (const Edge& e : node.out)
        if (e.dst_input >= 0 && g->nodes_[e.dst].kind != Kind::kMerge &&
            g->nodes_[e.dst].kind != Kind::kCopy)  // a device copy on the way to the Merge
          return fail("NextIteration node '" + node.step.op->name + "' feeds '" +
                      g->nodes_[e.dst].step.op->name + "' (" + g->nodes_[e.dst].step.op->type() +
                      "), not a Merge: a loop's next value goes to its Merge");
      if (frame_of[s] == 0)
        return fail("NextIteration node '" + node.step.op->name +
                    "' is not inside a while loop (no Enter leads to it)");
    }
    for (const Edge& e : node.out) {
      if (frame_of[e.dst] < 0) {
        frame_of[e.dst] = out_frame;
        queue.push_back(e.dst);
      } else if (frame_of[e.dst] != out_frame) {
        return fail("Node '" + g->nodes_[e.dst].step.op->name +
                    "' has inputs from different frames: '" + node.step.op->name +
                    "' gives it a value in " + FrameLabel(g->frames_[out_frame].name) +
                    ", another input is in " + FrameLabel(g->frames_[frame_of[e.dst]].name));
      }
    }
  }
  for (int s = 0; s < n; ++s) {
    if (frame_of[s] >= 0) continue;
    // Prefer naming the Merge: a loop whose every Merge input is a NextIteration.
    int culprit = s;
    for (int k = 0; k < n; ++k)
      if (frame_of[k] < 0 && g->nodes_[k].kind == Kind::kMerge) {
        culprit = k;
        break;
      }
    const Node& c = g->nodes_[culprit];
    return fail(c.kind == Kind::kMerge
                    ? "Merge node '" + c.step.op->name +
                          "' has no input from outside its loop (only NextIteration back "
                          "edges): no value can ever reach it"
                    : "Node '" + c.step.op->name +
                          "' can never run: every path into it starts at a NextIteration");
  }

  for (int s = 0; s < n; ++s) {
    Node& node = g->nodes_[s];
    Frame& f = g->frames_[frame_of[s]];
    node.frame = frame_of[s];
    node.local = f.num_nodes++;
    node.input_base = f.num_inputs;
    f.num_inputs += static_cast<int>(node.step.input_slots.size());
    f.nodes.push_back(s);
    // A Merge waits for every control input (2 each) and one live data input (bit 0).
    node.initial_pending = node.kind == Kind::kMerge ? 1 + 2 * node.num_control
                                                      : node.num_data_edges + node.num_control;
    if (node.kind == Kind::kMerge && !node.fed_inputs.empty())
      return fail("Merge node '" + node.step.op->name + "' has a fed input; feed its output instead");
  }

  g->num_fetches_ = static_cast<int>(fetch_slots.size());
  g->fed_fetch_.assign(fetch_slots.size(), -1);
  for (size_t i = 0; i < fetch_slots.size(); ++i) {
    const int slot = fetch_slots[i];
    if (feed_of[slot] >= 0) {  // the run hands the fed value back
      g->fed_fetch_[i] = feed_of[slot];
      continue;
    }
    const auto [p, port] = producer[slot];
    Node& node = g->nodes_[p];
    // The frame of the value: an Exit's leaves the loop, an Enter's is in it.
    const int value_frame = node.kind == Kind::kExit    ? g->frames_[node.frame].parent
                            : node.kind == Kind::kEnter ? node.child_frame
                                                        : node.frame;
    if (value_frame != 0)
      return fail("Cannot fetch '" + node.step.op->name + ":" + std::to_string(port) +
                  "': it is computed inside the while loop frame '" +
                  g->frames_[value_frame].name +
                  "' (once per iteration); fetch the value its Exit passes out of the loop");
    node.fetches.push_back(static_cast<int>(i));
    node.fetch_ports.push_back(port);
  }
  ClearStatus(status);
  return g;
}

// ---- The run ---------------------------------------------------------------------------

namespace {

struct Iteration {
  std::vector<int> pending, dead;
  std::vector<TF_Tensor*> inputs;  // owned; by node input_base + input index
  int outstanding = 0;             // queued nodes of this iteration
  int child_frames = 0;            // loop instances started from it and not finished
  ~Iteration() {
    for (TF_Tensor* t : inputs) delete t;
  }
};

struct FrameInstance {
  int id = 0;
  FrameInstance* parent = nullptr;
  int64_t parent_iter = 0;
  int64_t count = 0;   // the newest iteration
  int64_t oldest = 0;  // the oldest iteration still held
  std::deque<std::unique_ptr<Iteration>> iterations;
  int pending_enters = 0;
  int64_t live_iterations = 1;
  // Constant Enters' values (null: dead), given to every iteration.
  std::vector<std::pair<int, TF_Tensor*>> invariants;
  // NextIteration values waiting for a free iteration (parallel_iterations).
  std::vector<std::pair<int, TF_Tensor*>> deferred;
  std::set<int> live_exits;
  ~FrameInstance() {
    for (auto& [s, t] : invariants) delete t;
    for (auto& [s, t] : deferred) delete t;
  }
};

struct Tagged {
  int step;
  FrameInstance* frame;
  int64_t iter;
  bool dead;
};

class FrameRun {
 public:
  FrameRun(const FrameGraph& g, const std::vector<TF_Tensor*>& feeds, TF_Status* status,
           int64_t step_id)
      : g_(g), nodes_(g.nodes()), feeds_(feeds), status_(status),
        max_iterations_(MaxLoopIterations()), step_id_(step_id),
        fetched_(g.num_fetches(), nullptr), fetch_state_(g.num_fetches(), 0) {}

  ~FrameRun() {
    for (TF_Tensor* t : fetched_) delete t;
  }

  bool Run() {
    root_.id = 0;
    root_.iterations.push_back(NewIterationState(0));
    Iteration* it0 = root_.iterations.front().get();
    for (int s : g_.frames()[0].nodes)
      if (nodes_[s].initial_pending == 0) {
        ++it0->outstanding;
        ready_.push_back(Tagged{s, &root_, 0, false});
      }
    while (!ready_.empty() && !failed_) {
      Tagged t = ready_.front();
      ready_.pop_front();
      Process(t);
    }
    return !failed_;
  }

  // Moves the fetched values out; false with the status set when one is dead or missing.
  bool TakeFetches(const std::vector<int>& fetch_feeds, TF_Tensor** out) {
    for (size_t i = 0; i < fetched_.size(); ++i) {
      if (fetch_feeds[i] >= 0) continue;
      if (fetch_state_[i] == 1) continue;
      const FrameGraph::Node* producer = nullptr;
      int port = 0;
      for (const FrameGraph::Node& n : nodes_)
        for (size_t k = 0; k < n.fetches.size(); ++k)
          if (n.fetches[k] == static_cast<int>(i)) producer = &n, port = n.fetch_ports[k];
      const std::string name =
          producer ? producer->step.op->name + ":" + std::to_string(port) : "fetch " + std::to_string(i);
      SetStatus(status_, TF_INVALID_ARGUMENT,
                fetch_state_[i] == 2
                    ? "Fetched tensor '" + name +
                          "' is dead: it is on a branch that a Switch did not take in this run"
                    : "Fetched tensor '" + name +
                          "' was never computed: its node never got all its inputs (a Merge "
                          "with no live input, or a loop that never finished)");
      return false;
    }
    for (size_t i = 0; i < fetched_.size(); ++i) {
      out[i] = fetch_feeds[i] >= 0 ? feeds_[fetch_feeds[i]]->Share() : fetched_[i];
      fetched_[i] = nullptr;
    }
    return true;
  }

 private:
  std::unique_ptr<Iteration> NewIterationState(int frame) {
    const FrameGraph::Frame& f = g_.frames()[frame];
    auto it = std::make_unique<Iteration>();
    it->pending.resize(f.num_nodes);
    it->dead.assign(f.num_nodes, 0);
    it->inputs.assign(f.num_inputs, nullptr);
    for (int s : f.nodes) {
      const FrameGraph::Node& n = nodes_[s];
      it->pending[n.local] = n.initial_pending;
      for (const auto& [input, feed] : n.fed_inputs)
        it->inputs[n.input_base + input] = feeds_[feed]->Share();
    }
    return it;
  }

  Iteration* IterationOf(FrameInstance* f, int64_t iter) {
    return f->iterations[static_cast<size_t>(iter - f->oldest)].get();
  }

  void Fail(TF_Code code, const std::string& message) {
    if (!failed_) SetStatus(status_, code, message);
    failed_ = true;
  }

  // Starts iteration count + 1 of `f`, with the loop invariants in it.
  bool StartIteration(FrameInstance* f) {
    if (f->count + 1 >= max_iterations_) {
      Fail(TF_RESOURCE_EXHAUSTED,
           "The while loop frame '" + g_.frames()[f->id].name + "' ran " +
               std::to_string(max_iterations_) +
               " iterations, the most OPGEN_MAX_LOOP_ITERATIONS allows (default 10000000): "
               "a loop that does not end?");
      return false;
    }
    ++f->count;
    ++f->live_iterations;
    f->iterations.push_back(NewIterationState(f->id));
    for (const auto& [s, value] : f->invariants) Activate(nodes_[s], &value, value == nullptr, f, f->count);
    return true;
  }

  FrameInstance* ChildFrame(FrameInstance* parent, int64_t iter, int frame) {
    auto key = std::make_tuple(parent, iter, frame);
    auto it = children_.find(key);
    if (it != children_.end()) return it->second.get();
    auto child = std::make_unique<FrameInstance>();
    child->id = frame;
    child->parent = parent;
    child->parent_iter = iter;
    child->pending_enters = g_.frames()[frame].num_enters;
    child->iterations.push_back(NewIterationState(frame));
    ++IterationOf(parent, iter)->child_frames;
    return children_.emplace(key, std::move(child)).first->second.get();
  }

  // Delivers `n`'s outputs (dead: all of them) to its readers in (f, iter).
  void Activate(const FrameGraph::Node& n, TF_Tensor* const* outputs, bool dead, FrameInstance* f,
                int64_t iter) {
    Iteration* it = IterationOf(f, iter);
    for (const FrameGraph::Edge& e : n.out) {
      const FrameGraph::Node& d = nodes_[e.dst];
      int& pending = it->pending[d.local];
      int& dead_count = it->dead[d.local];
      const bool live = !dead && (e.src_port < 0 || outputs[e.src_port] != nullptr);
      bool ready = false, dst_dead = false;
      if (d.kind == Kind::kMerge) {
        if (e.dst_input < 0) {
          pending -= 2;
          dst_dead = dead_count == d.num_data_edges;
          ready = pending == 0 || (pending == 1 && dst_dead);
        } else if (live) {
          if (pending & 1) {  // the first live input wins; later ones are dropped
            it->inputs[d.input_base + e.dst_input] = outputs[e.src_port]->Share();
            pending -= 1;
            ready = pending == 0;
          }
        } else {
          // A dead Enter makes its loop's Merge dead at once: the loop sits on an untaken
          // branch, and its back edge will never bring a value.
          ++dead_count;
          dst_dead = dead_count == d.num_data_edges || n.kind == Kind::kEnter;
          ready = pending == 1 && dst_dead;
        }
      } else {
        if (!live) {
          ++dead_count;
        } else if (e.src_port >= 0) {
          it->inputs[d.input_base + e.dst_input] = outputs[e.src_port]->Share();
        }
        ready = --pending == 0;
        dst_dead = dead_count > 0;
      }
      if (ready) {
        ++it->outstanding;
        ready_.push_back(Tagged{e.dst, f, iter, dst_dead});
      }
    }
  }

  void Process(const Tagged& t) {
    const FrameGraph::Node& n = nodes_[t.step];
    FrameInstance* f = t.frame;
    Iteration* it = IterationOf(f, t.iter);
    const int num_inputs = static_cast<int>(n.step.input_slots.size());
    TF_Tensor** in = it->inputs.data() + n.input_base;
    outputs_.assign(n.step.num_outputs, nullptr);
    bool dead = t.dead;
    TF_Status st;
    if (!dead) {
      switch (n.kind) {
        case Kind::kSwitch: {
          const TF_Tensor* pred = in[1];
          if (pred->dtype != TF_BOOL || !pred->dims.empty() || !DeviceOf(pred)->is_host()) {
            SetStatus(&st, TF_INVALID_ARGUMENT,
                      "The predicate must be a bool scalar in host memory, got shape " +
                          ShapeToString(pred->dims));
            break;
          }
          const bool take = *static_cast<const bool*>(pred->buffer->data());
          std::swap(outputs_[take ? 1 : 0], in[0]);
          break;
        }
        case Kind::kMerge: {
          for (int k = 0; k < num_inputs; ++k) {
            if (in[k] == nullptr) continue;
            std::swap(outputs_[0], in[k]);
            const int64_t none = 0;
            outputs_[1] = TF_AllocateTensor(TF_INT32, &none, 0, sizeof(int32_t));
            *static_cast<int32_t*>(outputs_[1]->buffer->data()) = k;
            break;
          }
          break;
        }
        case Kind::kEnter:
        case Kind::kExit:
        case Kind::kNextIteration:
        case Kind::kLoopCond:
          std::swap(outputs_[0], in[0]);
          break;
        case Kind::kControlTrigger:
          break;
        case Kind::kCopy:
          outputs_[0] = CopyTensorTo(in[0], n.step.copy_to, &st);
          break;
        case Kind::kOther:
          n.step.kernel->Compute(in, num_inputs, outputs_.data(), step_id_, &st,
                                 /*inputs_in_place=*/true);
          break;
      }
    }
    if (n.kind == Kind::kControlTrigger) dead = false;  // its control output is always live
    for (int k = 0; k < num_inputs; ++k) {
      delete in[k];
      in[k] = nullptr;
    }
    if (st.code != TF_OK) {
      for (TF_Tensor*& o : outputs_) delete o, o = nullptr;
      Fail(st.code, st.message + "\n\t [[{{node " + n.step.op->name + "}}]]");
      return;
    }
    // An Exit's value is the parent frame's, recorded where it leaves the loop.
    if (f == &root_ && n.kind != Kind::kExit) RecordFetches(n, outputs_.data(), dead);
    Propagate(n, t, dead);
    for (TF_Tensor*& o : outputs_) delete o, o = nullptr;
    --IterationOf(f, t.iter)->outstanding;
    if (!failed_) Cleanup(f);
  }

  // Keeps the fetched outputs of `n`, a node of the root frame (or an Exit into it).
  void RecordFetches(const FrameGraph::Node& n, TF_Tensor* const* outputs, bool dead) {
    for (size_t k = 0; k < n.fetches.size(); ++k) {
      TF_Tensor* v = dead ? nullptr : outputs[n.fetch_ports[k]];
      const int i = n.fetches[k];
      delete fetched_[i];
      fetched_[i] = v != nullptr ? v->Share() : nullptr;
      fetch_state_[i] = v != nullptr ? 1 : 2;
    }
  }

  void Propagate(const FrameGraph::Node& n, const Tagged& t, bool dead) {
    FrameInstance* f = t.frame;
    switch (n.kind) {
      case Kind::kEnter: {
        FrameInstance* child = ChildFrame(f, t.iter, n.child_frame);
        if (n.is_constant) {
          TF_Tensor* value = dead ? nullptr : outputs_[0]->Share();
          child->invariants.emplace_back(static_cast<int>(&n - nodes_.data()), value);
          for (int64_t k = child->oldest; k <= child->count; ++k)
            Activate(n, &value, dead, child, k);
        } else {
          Activate(n, outputs_.data(), dead, child, 0);
        }
        --child->pending_enters;
        Cleanup(child);
        return;
      }
      case Kind::kExit:
        if (!dead) {
          f->live_exits.insert(static_cast<int>(&n - nodes_.data()));
          if (f->parent == &root_) RecordFetches(n, outputs_.data(), false);
          Activate(n, outputs_.data(), false, f->parent, f->parent_iter);
        }
        return;  // a dead Exit matters only if the frame ends without a live one
      case Kind::kNextIteration:
        if (dead) return;  // the loop has ended on this path
        if (t.iter == f->count) {
          if (f->live_iterations >= g_.frames()[f->id].parallel_iterations) {
            f->deferred.emplace_back(static_cast<int>(&n - nodes_.data()), outputs_[0]);
            outputs_[0] = nullptr;
            return;
          }
          if (!StartIteration(f)) return;
        }
        Activate(n, outputs_.data(), false, f, t.iter + 1);
        return;
      default:
        Activate(n, outputs_.data(), dead, f, t.iter);
    }
  }

  // Frees the finished iterations of `f` (oldest first), starts deferred ones, and
  // finishes `f` itself once nothing in it can run any more.
  void Cleanup(FrameInstance* f) {
    if (f == &root_ || failed_) return;
    while (!f->iterations.empty()) {
      Iteration* oldest = f->iterations.front().get();
      if (oldest->outstanding != 0 || oldest->child_frames != 0 ||
          (f->oldest == 0 && f->pending_enters != 0))
        break;
      // Nothing can reach a finished iteration any more: its NextIterations have run,
      // and so have the iterations before it.
      f->iterations.pop_front();
      ++f->oldest;
      --f->live_iterations;
      if (!f->deferred.empty()) {
        if (!StartIteration(f)) return;
        std::vector<std::pair<int, TF_Tensor*>> deferred;
        deferred.swap(f->deferred);
        for (auto& [s, value] : deferred) {
          Activate(nodes_[s], &value, false, f, f->count);
          delete value;
        }
      }
    }
    if (!f->iterations.empty() || f->pending_enters != 0) return;
    // Done: Exits that never passed a live value out are dead in the parent.
    FrameInstance* parent = f->parent;
    const int64_t parent_iter = f->parent_iter;
    for (int s : g_.frames()[f->id].exits)
      if (!f->live_exits.count(s)) {
        TF_Tensor* none = nullptr;
        if (parent == &root_) RecordFetches(nodes_[s], &none, true);
        Activate(nodes_[s], &none, true, parent, parent_iter);
      }
    --IterationOf(parent, parent_iter)->child_frames;
    children_.erase(std::make_tuple(parent, parent_iter, f->id));
    Cleanup(parent);
  }

  const FrameGraph& g_;
  const std::vector<FrameGraph::Node>& nodes_;
  const std::vector<TF_Tensor*>& feeds_;
  TF_Status* status_;
  const int64_t max_iterations_;
  const int64_t step_id_;
  bool failed_ = false;
  FrameInstance root_;
  std::map<std::tuple<FrameInstance*, int64_t, int>, std::unique_ptr<FrameInstance>> children_;
  std::deque<Tagged> ready_;
  std::vector<TF_Tensor*> outputs_;  // the node being processed
  std::vector<TF_Tensor*> fetched_;
  std::vector<char> fetch_state_;  // 0: not computed, 1: live, 2: dead
};

}  // namespace

void FrameGraph::Run(const std::vector<TF_Tensor*>& feeds, TF_Tensor** fetches,
                     TF_Status* status, int64_t step_id) const {
  FrameRun run(*this, feeds, status, step_id);
  if (!run.Run()) return;
  if (!run.TakeFetches(fed_fetch_, fetches)) return;
  ClearStatus(status);
}

}  // namespace opgen

// Plan building (pruning, ordering, slot assignment, kernels) and the run loop.
#include "executor.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "frame_executor.h"
#include "function_call.h"
#include "logging.h"
#include "op_registry.h"
#include "resource_mgr.h"

namespace opgen {
namespace {

std::string TensorName(const TF_Output& out) {
  return out.oper->name + ":" + std::to_string(out.index);
}

bool CheckOutputOf(const TF_Graph* graph, const TF_Output& out, const char* what,
                   TF_Status* status) {
  if (out.oper == nullptr || out.oper->graph != graph) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              std::string("A ") + what + " is not an operation of the session's graph");
    return false;
  }
  if (out.index < 0 || out.index >= static_cast<int>(out.oper->output_types.size())) {
    SetStatus(status, TF_OUT_OF_RANGE,  // TensorFlow's code and wording
              std::string("Cannot ") + what + " '" + TensorName(out) + "': node '" +
                  out.oper->name + "' (type: '" + out.oper->type() + "', num of outputs: " +
                  std::to_string(out.oper->output_types.size()) + ") does not have output " +
                  std::to_string(out.index));
    return false;
  }
  return true;
}

uint64_t OutputKey(const TF_Operation* op, int index) {
  return (reinterpret_cast<uint64_t>(op) << 8) ^ static_cast<uint64_t>(index);
}

}  // namespace

void SessionKernels::Retire(const TF_Operation* op) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto* map : {&kernels_, &lean_}) {
    auto it = map->find(op);
    if (it == map->end()) continue;
    retired_.push_back(std::move(it->second));
    map->erase(it);
  }
}

const KernelInstance* SessionKernels::Get(const TF_Operation* op, TF_Status* status,
                                          bool lean) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& made = lean ? lean_ : kernels_;
  auto it = made.find(op);
  if (it != made.end()) return it->second.get();
  const Device* device = nullptr;
  const KernelDef* def = nullptr;
  std::unique_ptr<FunctionLibrary> functions;
  if (CallsFunctions(*op)) {  // the kernel instantiates functions of this graph's library
    std::lock_guard<std::mutex> graph_lock(op->graph->mu);
    functions = std::make_unique<FunctionLibrary>(op->graph->functions);
  }
  if (IsFunctionNode(*op)) {
    def = &FunctionCallKernel();
    device = CpuDevice();
  } else {
    def = PlaceKernel(op->device, *op->op_def, op->attrs, &device, status);
  }
  if (def == nullptr) {
    status->message += " (node '" + op->name + "')";
    return nullptr;
  }
  AttrMap lean_attrs;
  if (lean) {
    lean_attrs = op->attrs;
    lean_attrs[kLeanAttr].kind = AttrValue::kBool;
    lean_attrs[kLeanAttr].b = true;
  }
  std::unique_ptr<KernelInstance> kernel =
      KernelInstance::Create(*def, *op->op_def, op->name, lean ? lean_attrs : op->attrs,
                             op->output_types, status, device, resources_, functions.get());
  if (kernel == nullptr) {
    status->message += " (node '" + op->name + "')";
    return nullptr;
  }
  if (LogDevicePlacement())  // once per node, as TensorFlow's placer logs a session's nodes
    Log(LogSeverity::kInfo, op->name + ": (" + op->type() + "): " + device->name());
  return made.emplace(op, std::move(kernel)).first->second.get();
}

std::unique_ptr<ExecutionPlan> ExecutionPlan::Build(TF_Graph* graph, const TF_Output* feeds,
                                                    int num_feeds, const TF_Output* fetches,
                                                    int num_fetches,
                                                    const TF_Operation* const* targets,
                                                    int num_targets, SessionKernels* kernels,
                                                    TF_Status* status) {
  std::unique_ptr<ExecutionPlan> plan(new ExecutionPlan());
  plan->resources_ = kernels->resources();
  // Node fields read below (inputs, control inputs, types, attrs) never change once a node
  // is in the graph, so no graph lock is needed.
  std::unordered_map<uint64_t, int> fed;  // output -> feed index
  for (int i = 0; i < num_feeds; ++i) {
    if (!CheckOutputOf(graph, feeds[i], "feed", status)) return nullptr;
    if (!fed.emplace(OutputKey(feeds[i].oper, feeds[i].index), i).second) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "'" + TensorName(feeds[i]) + "' is fed more than once");
      return nullptr;
    }
  }
  for (int i = 0; i < num_fetches; ++i)
    if (!CheckOutputOf(graph, fetches[i], "fetch", status)) return nullptr;
  for (int i = 0; i < num_targets; ++i) {
    if (targets[i] == nullptr || targets[i]->graph != graph) {
      SetStatus(status, TF_INVALID_ARGUMENT, "A target is not an operation of the session's graph");
      return nullptr;
    }
  }

  // Depth-first post-order from the fetched and target nodes: dependencies come first.
  // Fed outputs cut the edge to their producer. Iterative, so deep chains cannot
  // overflow the stack.
  std::vector<const TF_Operation*> order;
  std::unordered_map<const TF_Operation*, int> state;  // 1: on the stack, 2: done
  std::vector<const TF_Operation*> back_edges;  // NextIterations that Merges read
  auto visit = [&](const TF_Operation* root) -> bool {
    if (state.count(root)) return true;
    std::vector<std::pair<const TF_Operation*, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      const size_t n_data = op->inputs.size();
      const TF_Operation* dep = nullptr;
      while (dep == nullptr && next < n_data + op->control_inputs.size()) {
        size_t i = next++;
        if (i < n_data) {
          const TF_Output& in = op->inputs[i];
          if (fed.count(OutputKey(in.oper, in.index))) {
            // cut by the feed
          } else if (in.oper->type() == "NextIteration" && op->type() == "Merge") {
            // A loop's back edge, not a dependency: the NextIteration runs after the
            // Merge (in the next iteration); it is planned from its own visit.
            back_edges.push_back(in.oper);
          } else {
            dep = in.oper;
          }
        } else {
          dep = op->control_inputs[i - n_data];
        }
        if (dep != nullptr) {
          auto it = state.find(dep);
          if (it != state.end()) {
            if (it->second == 1) {
              SetStatus(status, TF_INVALID_ARGUMENT,
                        "The graph has a cycle through node '" + dep->name + "'");
              return false;
            }
            dep = nullptr;
          }
        }
      }
      if (dep != nullptr) {
        state[dep] = 1;
        stack.emplace_back(dep, 0);
      } else {
        state[op] = 2;
        order.push_back(op);
        stack.pop_back();
      }
    }
    return true;
  };
  for (int i = 0; i < num_fetches; ++i)
    if (!fed.count(OutputKey(fetches[i].oper, fetches[i].index)) && !visit(fetches[i].oper))
      return nullptr;
  for (int i = 0; i < num_targets; ++i)
    if (!visit(targets[i])) return nullptr;
  for (size_t i = 0; i < back_edges.size(); ++i)  // visits may find more
    if (!visit(back_edges[i])) return nullptr;

  // Slots: feeds first, then each node's outputs.
  int slots = 0;
  for (int i = 0; i < num_feeds; ++i) {
    const TF_Output& f = feeds[i];
    Feed feed{slots++, f.oper->output_types[f.index], false, Shape(), TensorName(f)};
    const std::string& type = f.oper->type();
    if (type == "Placeholder" || type == "PlaceholderWithDefault") {
      auto shape = f.oper->attrs.find("shape");
      if (shape != f.oper->attrs.end() && shape->second.kind == AttrValue::kShape &&
          !shape->second.shape.unknown_rank) {
        feed.check_shape = true;
        feed.shape = shape->second.shape;
      }
    }
    plan->feeds_.push_back(std::move(feed));
  }
  std::unordered_map<const TF_Operation*, int> first_output;
  for (const TF_Operation* op : order) {
    first_output[op] = slots;
    slots += static_cast<int>(op->output_types.size());
  }
  auto slot_of = [&](const TF_Output& out) {
    auto f = fed.find(OutputKey(out.oper, out.index));
    if (f != fed.end()) return plan->feeds_[f->second].slot;
    return first_output.at(out.oper) + out.index;
  };
  for (int i = 0; i < num_fetches; ++i) plan->fetch_slots_.push_back(slot_of(fetches[i]));

  // A While carrying its gradient's accumulators runs as the plain loop where nothing
  // planned reads them (a forward pass alone): no lists filled for nobody.
  std::unordered_set<const TF_Operation*> lean;
  for (const TF_Operation* op : order)
    if (OwnLoopVariables(*op) >= 0) lean.insert(op);
  if (!lean.empty()) {
    const auto reads = [&](const TF_Output& t) {
      if (lean.count(t.oper) && t.index >= OwnLoopVariables(*t.oper)) lean.erase(t.oper);
    };
    for (const TF_Operation* op : order)
      for (const TF_Output& in : op->inputs) reads(in);
    for (int i = 0; i < num_fetches; ++i) reads(fetches[i]);
  }

  // Kernels first: they say where each node's outputs live (the node's device, or the
  // host for host-memory outputs). Feeds live on the host.
  std::vector<const KernelInstance*> node_kernels;
  std::vector<const Device*> location(slots, CpuDevice());
  for (const TF_Operation* op : order) {
    const KernelInstance* kernel = kernels->Get(op, status, lean.count(op) > 0);
    if (kernel == nullptr) return nullptr;
    node_kernels.push_back(kernel);
    for (int i = 0; i < kernel->num_outputs(); ++i)
      location[first_output.at(op) + i] = kernel->host_output(i) ? CpuDevice() : kernel->device();
  }
  // Steps, with an explicit copy step wherever a node reads a tensor that lives on
  // another device than the node reads it from (host<->GPU edges). A tensor copied to a
  // device once serves every later reader there.
  std::map<std::pair<int, const Device*>, int> copies;  // (slot, device) -> copy's slot
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const TF_Operation* op = order[pos];
    const KernelInstance* kernel = node_kernels[pos];
    std::vector<int> in_slots;
    for (size_t j = 0; j < op->inputs.size(); ++j) {
      int s = slot_of(op->inputs[j]);
      const Device* want = kernel->host_input(static_cast<int>(j)) ? CpuDevice() : kernel->device();
      if (location[s] != want) {
        auto it = copies.find({s, want});
        if (it == copies.end()) {
          const int copy_slot = slots++;
          location.push_back(want);
          plan->steps_.push_back(Step{op, nullptr, static_cast<int>(plan->input_slots_.size()), 1,
                                      copy_slot, 1, 0, 0, 0, want});
          plan->input_slots_.push_back(s);
          it = copies.emplace(std::make_pair(s, want), copy_slot).first;
        }
        s = it->second;
      }
      in_slots.push_back(s);
    }
    plan->steps_.push_back(Step{op, kernel, static_cast<int>(plan->input_slots_.size()),
                                static_cast<int>(in_slots.size()), first_output.at(op),
                                static_cast<int>(op->output_types.size()), 0, 0, 0, nullptr});
    plan->input_slots_.insert(plan->input_slots_.end(), in_slots.begin(), in_slots.end());
  }
  plan->num_slots_ = slots;
  if (std::any_of(order.begin(), order.end(),
                  [](const TF_Operation* op) { return IsControlFlowOp(op->type()); })) {
    // Control flow: the same steps, scheduled by frame and iteration at run time.
    std::vector<FrameStepView> views;
    for (const Step& st : plan->steps_)
      views.push_back(FrameStepView{
          st.op, st.kernel, st.copy_to,
          std::vector<int>(plan->input_slots_.begin() + st.first_input,
                           plan->input_slots_.begin() + st.first_input + st.num_inputs),
          st.first_output, st.num_outputs});
    std::vector<int> feed_slots;
    for (const Feed& f : plan->feeds_) feed_slots.push_back(f.slot);
    plan->frames_ = FrameGraph::Build(std::move(views), feed_slots, plan->fetch_slots_, slots, status);
    if (plan->frames_ == nullptr) return nullptr;
    return plan;
  }
  plan->slot_is_fetched_.assign(slots, false);
  for (int s : plan->fetch_slots_) plan->slot_is_fetched_[s] = true;
  plan->num_inputs_ = static_cast<int>(plan->input_slots_.size());

  // The step after which each slot is read no more: it is released there. A slot no
  // step reads is released right after the step that makes it (feeds: with the run's
  // leftovers); fetched slots are handed to the caller instead.
  std::vector<int> last_reader(slots, -1), producer(slots, -1);
  for (size_t pos = 0; pos < plan->steps_.size(); ++pos) {
    const Step& st = plan->steps_[pos];
    for (int j = 0; j < st.num_inputs; ++j)
      last_reader[plan->input_slots_[st.first_input + j]] = static_cast<int>(pos);
    for (int j = 0; j < st.num_outputs; ++j) producer[st.first_output + j] = static_cast<int>(pos);
  }
  std::vector<std::vector<int>> releases(plan->steps_.size());
  for (int s = 0; s < slots; ++s) {
    if (plan->slot_is_fetched_[s]) continue;
    const int pos = last_reader[s] >= 0 ? last_reader[s] : producer[s];
    if (pos >= 0) releases[pos].push_back(s);
  }
  // An input a kernel reads last (once among its inputs, not fetched) it may forward.
  for (size_t pos = 0; pos < plan->steps_.size(); ++pos) {
    Step& st = plan->steps_[pos];
    const int* in = plan->input_slots_.data() + st.first_input;
    for (int j = 0; j < st.num_inputs && j < 64 && st.kernel != nullptr; ++j) {
      const int s = in[j];
      if (last_reader[s] != static_cast<int>(pos) || plan->slot_is_fetched_[s] ||
          std::count(in, in + st.num_inputs, s) != 1)
        continue;
      st.forwardable |= uint64_t{1} << j;
    }
  }
  for (size_t pos = 0; pos < plan->steps_.size(); ++pos) {
    plan->steps_[pos].first_release = static_cast<int>(plan->release_slots_.size());
    plan->steps_[pos].num_releases = static_cast<int>(releases[pos].size());
    plan->release_slots_.insert(plan->release_slots_.end(), releases[pos].begin(),
                                releases[pos].end());
  }
  ClearStatus(status);
  return plan;
}

ExecutionPlan::~ExecutionPlan() = default;

std::unique_ptr<ExecutionPlan::RunState> ExecutionPlan::AcquireState() const {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!pool_.empty()) {
      std::unique_ptr<RunState> state = std::move(pool_.back());
      pool_.pop_back();
      return state;
    }
  }
  auto state = std::make_unique<RunState>();
  state->slots.assign(num_slots_, nullptr);
  state->inputs.assign(num_inputs_, nullptr);
  return state;
}

void ExecutionPlan::ReleaseState(std::unique_ptr<RunState> state) const {
  std::lock_guard<std::mutex> lock(pool_mu_);
  pool_.push_back(std::move(state));
}

bool ExecutionPlan::CheckFeed(const Feed& feed, const TF_Tensor* value, TF_Status* status) const {
  if (value == nullptr) {
    SetStatus(status, TF_INVALID_ARGUMENT, "The value fed to '" + feed.name + "' is NULL");
    return false;
  }
  if (value->dtype != feed.dtype) {
    SetStatus(status, TF_INVALID_ARGUMENT,
              std::string("Cannot feed a tensor of dtype ") + DataTypeName(value->dtype) +
                  " to '" + feed.name + "', which has dtype " + DataTypeName(feed.dtype));
    return false;
  }
  if (feed.check_shape) {
    bool ok = value->dims.size() == feed.shape.dims.size();
    for (size_t i = 0; ok && i < value->dims.size(); ++i)
      ok = feed.shape.dims[i] < 0 || feed.shape.dims[i] == value->dims[i];
    if (!ok) {
      SetStatus(status, TF_INVALID_ARGUMENT,
                "Cannot feed a tensor of shape " + ShapeToString(value->dims) + " to '" +
                    feed.name + "', which has shape " + ShapeToString(feed.shape.dims));
      return false;
    }
  }
  return true;
}

void ExecutionPlan::Run(TF_Tensor* const* feed_values, TF_Tensor** fetch_values,
                        TF_Status* status, bool take_feeds) const {
  for (size_t i = 0; i < fetch_slots_.size(); ++i) fetch_values[i] = nullptr;
  auto drop_taken = [&](size_t from) {  // taken feeds not yet in a slot
    if (take_feeds)
      for (size_t k = from; k < feeds_.size(); ++k) delete feed_values[k];
  };
  for (size_t i = 0; i < feeds_.size(); ++i) {
    if (!CheckFeed(feeds_[i], feed_values[i], status)) {
      drop_taken(0);
      return;
    }
  }

  // The resources this run's kernels made for its step alone (TensorArrays) go with it.
  const int64_t step_id = NextStepId();
  struct StepCleanup {
    ResourceMgr* resources;
    int64_t step_id;
    ~StepCleanup() {
      if (resources != nullptr) resources->CleanupStep(step_id);
    }
  } cleanup{resources_, step_id};
  if (frames_ != nullptr) {
    RunWithFrames(feed_values, fetch_values, status, take_feeds, step_id);
    return;
  }
  std::unique_ptr<RunState> state = AcquireState();
  TF_Tensor** slots = state->slots.data();
  TF_Tensor** inputs = state->inputs.data();
  // Feeds are planned in host memory; a tensor fed from a device is copied there.
  for (size_t i = 0; i < feeds_.size(); ++i) {
    TF_Tensor* fed = feed_values[i];
    TF_Tensor*& slot = slots[feeds_[i].slot];
    if (fed->buffer->device() != nullptr) {
      slot = CopyTensorTo(fed, CpuDevice(), status);
      if (take_feeds) delete fed;
    } else {
      slot = take_feeds ? fed : fed->Share();
    }
    if (slot == nullptr) {
      for (size_t k = 0; k < i; ++k) {
        delete slots[feeds_[k].slot];
        slots[feeds_[k].slot] = nullptr;
      }
      drop_taken(i + 1);
      ReleaseState(std::move(state));
      return;
    }
  }

  TF_Status node_status;
  bool failed = false;
  for (const Step& step : steps_) {
    const int* in = input_slots_.data() + step.first_input;
    if (step.kernel == nullptr) {  // a copy between devices, for step.op's input
      slots[step.first_output] = CopyTensorTo(slots[in[0]], step.copy_to, &node_status);
    } else {
      for (int j = 0; j < step.num_inputs; ++j) inputs[step.first_input + j] = slots[in[j]];
      step.kernel->Compute(inputs + step.first_input, step.num_inputs, slots + step.first_output,
                           step_id, &node_status, /*inputs_in_place=*/true, step.forwardable);
    }
    if (node_status.code != TF_OK) {
      SetStatus(status, node_status.code,
                node_status.message + "\n\t [[{{node " + step.op->name + "}}]]");
      failed = true;
      break;
    }
    const int* release = release_slots_.data() + step.first_release;
    for (int j = 0; j < step.num_releases; ++j) {
      delete slots[release[j]];
      slots[release[j]] = nullptr;
    }
  }
  if (!failed) {
    // Fetched tensors are handed over in host memory; a tensor fetched twice is shared.
    for (size_t i = 0; i < fetch_slots_.size() && !failed; ++i) {
      TF_Tensor*& t = slots[fetch_slots_[i]];
      if (!DeviceOf(t)->is_host()) {
        TF_Tensor* host = CopyTensorTo(t, CpuDevice(), &node_status);
        if (host == nullptr) {
          SetStatus(status, node_status.code, "fetching a result: " + node_status.message);
          failed = true;
          break;
        }
        delete t;
        t = host;
      }
    }
    for (size_t i = 0; i < fetch_slots_.size() && !failed; ++i) {
      TF_Tensor*& t = slots[fetch_slots_[i]];
      bool fetched_again = false;
      for (size_t k = i + 1; k < fetch_slots_.size(); ++k)
        fetched_again |= fetch_slots_[k] == fetch_slots_[i];
      if (fetched_again) {
        fetch_values[i] = t->Share();
      } else {
        fetch_values[i] = t;
        t = nullptr;
      }
    }
    if (!failed) ClearStatus(status);
  }
  for (int s = 0; s < num_slots_; ++s) {  // leftovers: unread feeds, or a failed run
    if (slots[s] != nullptr) {
      delete slots[s];
      slots[s] = nullptr;
    }
  }
  ReleaseState(std::move(state));
}

}  // namespace opgen

namespace opgen {

void ExecutionPlan::RunWithFrames(TF_Tensor* const* feed_values, TF_Tensor** fetch_values,
                                  TF_Status* status, bool take_feeds, int64_t step_id) const {
  // Feeds are planned in host memory, as in Run.
  std::vector<TF_Tensor*> feeds;
  bool ok = true;
  for (size_t i = 0; i < feeds_.size(); ++i) {
    TF_Tensor* fed = feed_values[i];
    if (ok) {
      feeds.push_back(fed->buffer->device() == nullptr ? fed->Share()
                                                       : CopyTensorTo(fed, CpuDevice(), status));
      ok = feeds.back() != nullptr;
    }
    if (take_feeds) delete fed;  // the frames hold their own references
  }
  if (ok) frames_->Run(feeds, fetch_values, status, step_id);
  for (TF_Tensor* t : feeds) delete t;
  if (status->code != TF_OK) return;
  // Fetched tensors are handed over in host memory.
  for (size_t i = 0; i < fetch_slots_.size(); ++i) {
    TF_Tensor*& t = fetch_values[i];
    if (DeviceOf(t)->is_host()) continue;
    TF_Status copy_status;
    TF_Tensor* host = CopyTensorTo(t, CpuDevice(), &copy_status);
    if (host == nullptr) {
      for (size_t k = 0; k < fetch_slots_.size(); ++k) {
        delete fetch_values[k];
        fetch_values[k] = nullptr;
      }
      SetStatus(status, copy_status.code, "fetching a result: " + copy_status.message);
      return;
    }
    delete t;
    t = host;
  }
}

}  // namespace opgen

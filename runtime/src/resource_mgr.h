// Per-session and per-eager-context state: resources keyed by (container, name), as
// TensorFlow's ResourceMgr keeps them. Variables are built in; other kinds (lookup
// tables) are KernelResources whose data their kernel family owns. An assignment
// replaces a variable's value, an update writes it in place only when nobody else holds
// its buffer (copy-on-write otherwise), so a value read earlier stays a snapshot, as
// TensorFlow's are.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core_types.h"

namespace opgen {

class Variable {
 public:
  Variable() = default;
  ~Variable() { delete value_; }
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

  // Held while a kernel reads, assigns or updates the value.
  std::mutex& mu() { return mu_; }
  // The value, or nullptr before the first assignment; owned by the variable.
  const TF_Tensor* value() const { return value_; }
  // The same, for an update that writes it in place (under mu(), and only when its
  // buffer is WritableInPlace(): nobody else holds it).
  TF_Tensor* mutable_value() { return value_; }
  // Replaces the value by `value`, whose ownership passes to the variable.
  void set_value(TF_Tensor* value) {
    delete value_;
    value_ = value;
  }

 private:
  std::mutex mu_;
  TF_Tensor* value_ = nullptr;
};

// A resource a kernel family defines (c_api_ext.h, OPGEN_KernelCreateResourceHandle):
// opaque data, its type's name (a handle of another type is refused) and its deleter.
class KernelResource {
 public:
  KernelResource(std::string type_name, void* data, void (*deleter)(void*))
      : type_name_(std::move(type_name)), data_(data), deleter_(deleter) {}
  ~KernelResource() {
    if (deleter_ != nullptr) deleter_(data_);
  }
  KernelResource(const KernelResource&) = delete;
  KernelResource& operator=(const KernelResource&) = delete;

  const std::string& type_name() const { return type_name_; }
  void* data() const { return data_; }

 private:
  std::string type_name_;
  void* data_;
  void (*deleter_)(void*);
};

class ResourceMgr {
 public:
  // The container a handle with an empty one uses, as in TensorFlow.
  static constexpr const char* kDefaultContainer = "localhost";

  // The variable (container, name), or nullptr when none exists.
  std::shared_ptr<Variable> LookupVariable(const std::string& container,
                                           const std::string& name) const;
  // The variable (container, name), made (uninitialized) when none exists.
  std::shared_ptr<Variable> LookupOrCreateVariable(const std::string& container,
                                                   const std::string& name);
  // The kernel resource (container, name), or nullptr when none exists.
  std::shared_ptr<KernelResource> LookupResource(const std::string& container,
                                                 const std::string& name) const;
  // The kernel resource (container, name); `make()` makes it when none exists (under the
  // manager's lock, so two kernels asking at once share one). A null `make()` result is
  // returned and nothing is stored.
  std::shared_ptr<KernelResource> LookupOrCreateResource(
      const std::string& container, const std::string& name,
      const std::function<std::shared_ptr<KernelResource>()>& make);
  // Removes (container, name), a variable or a kernel resource; false when there was none. Kernels running on it keep
  // their reference until they finish.
  bool Delete(const std::string& container, const std::string& name);
  // A VarHandleOp whose shared_name is this makes a new resource on every run, in
  // container kAnonymousContainer under UniqueAnonymousName() (TensorFlow's
  // ResourceHandle::ANONYMOUS_NAME; tf.Variable passes it in eager mode).
  static constexpr const char* kAnonymousName = "cd2c89b7-88b7-44c8-ad83-06c2a9158347";
  static constexpr const char* kAnonymousContainer = "Anonymous";
  // A name no other anonymous resource of this process has ("7").
  static std::string UniqueAnonymousName();

  // The container of resources that live for one step (TensorFlow's per-step container:
  // a TensorArray of one session run). A session run empties its step's container when
  // it ends (CleanupStep); an eager op's step is never cleaned, so an array made by one
  // eager op stays, for the next ops, until it is closed.
  static std::string StepContainer(int64_t step_id);
  // Deletes every resource of step `step_id`'s container; cheap when there are none.
  void CleanupStep(int64_t step_id);

  // Moved on by TFE_ContextClearCaches (tf.random.set_seed clears TensorFlow's cached
  // eager kernels): a stateful random kernel that sees a new value starts its sequence
  // over from its seeds, as a new kernel would.
  uint64_t seed_generation() const { return seed_generation_.load(std::memory_order_acquire); }
  void NextSeedGeneration() { seed_generation_.fetch_add(1, std::memory_order_acq_rel); }

 private:
  std::atomic<uint64_t> seed_generation_{0};
  // Resources in step containers now, so that most runs skip CleanupStep's lock.
  std::atomic<int64_t> step_resources_{0};
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Variable>> variables_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<KernelResource>> resources_;
};

}  // namespace opgen

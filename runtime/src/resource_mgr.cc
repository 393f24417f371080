#include "resource_mgr.h"

#include <vector>

namespace opgen {

namespace {

constexpr char kStepContainerPrefix[] = "__opgen_step_";

bool IsStepContainer(const std::string& container) {
  return container.compare(0, sizeof(kStepContainerPrefix) - 1, kStepContainerPrefix) == 0;
}

}  // namespace

std::shared_ptr<Variable> ResourceMgr::LookupVariable(const std::string& container,
                                                      const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = variables_.find({container, name});
  return it == variables_.end() ? nullptr : it->second;
}

std::shared_ptr<Variable> ResourceMgr::LookupOrCreateVariable(const std::string& container,
                                                              const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Variable>& slot = variables_[{container, name}];
  if (slot == nullptr) slot = std::make_shared<Variable>();
  return slot;
}

std::shared_ptr<KernelResource> ResourceMgr::LookupResource(const std::string& container,
                                                            const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find({container, name});
  return it == resources_.end() ? nullptr : it->second;
}

std::shared_ptr<KernelResource> ResourceMgr::LookupOrCreateResource(
    const std::string& container, const std::string& name,
    const std::function<std::shared_ptr<KernelResource>()>& make) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find({container, name});
  if (it != resources_.end()) return it->second;
  std::shared_ptr<KernelResource> made = make();
  if (made != nullptr) {
    resources_[{container, name}] = made;
    if (IsStepContainer(container)) step_resources_.fetch_add(1, std::memory_order_relaxed);
  }
  return made;
}

bool ResourceMgr::Delete(const std::string& container, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool variable = variables_.erase({container, name}) > 0;
  const bool resource = resources_.erase({container, name}) > 0;
  if (resource && IsStepContainer(container))
    step_resources_.fetch_sub(1, std::memory_order_relaxed);
  return resource || variable;
}

std::string ResourceMgr::StepContainer(int64_t step_id) {
  return kStepContainerPrefix + std::to_string(step_id);
}

void ResourceMgr::CleanupStep(int64_t step_id) {
  if (step_resources_.load(std::memory_order_relaxed) == 0) return;
  const std::string container = StepContainer(step_id);
  std::vector<std::shared_ptr<KernelResource>> dropped;  // freed after the lock
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.lower_bound({container, std::string()});
    while (it != resources_.end() && it->first.first == container) {
      dropped.push_back(std::move(it->second));
      it = resources_.erase(it);
    }
    step_resources_.fetch_sub(static_cast<int64_t>(dropped.size()), std::memory_order_relaxed);
  }
}

std::string ResourceMgr::UniqueAnonymousName() {
  static std::atomic<int64_t> next{0};
  return std::to_string(next.fetch_add(1));
}

}  // namespace opgen

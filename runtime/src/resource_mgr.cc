#include "resource_mgr.h"

namespace opgen {

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
  if (made != nullptr) resources_[{container, name}] = made;
  return made;
}

bool ResourceMgr::Delete(const std::string& container, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool variable = variables_.erase({container, name}) > 0;
  return resources_.erase({container, name}) > 0 || variable;
}

std::string ResourceMgr::UniqueAnonymousName() {
  static std::atomic<int64_t> next{0};
  return std::to_string(next.fetch_add(1));
}

}  // namespace opgen

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

bool ResourceMgr::Delete(const std::string& container, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return variables_.erase({container, name}) > 0;
}

std::string ResourceMgr::UniqueAnonymousName() {
  static std::atomic<int64_t> next{0};
  return std::to_string(next.fetch_add(1));
}

}  // namespace opgen

// StructureCache: preprocessing kept with a matrix (CSR-I starting rows,
// merge-path partitions, ...). Entries depend only on the sparsity structure,
// which a format never lets a user change after construction, so they stay
// valid when values are updated. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace spx::detail {

class StructureCache {
 public:
  /// The entry under `key`, built by `make()` on first use. `D` must be the
  /// same type for every use of one key.
  template <class D, class F>
  const D& get(std::uint64_t key, F&& make) {
    std::lock_guard lock(mutex_);
    for (auto& [k, p] : items_)
      if (k == key) return *static_cast<const D*>(p.get());
    auto p = std::make_shared<D>(std::forward<F>(make)());
    const D& ref = *p;
    items_.emplace_back(key, std::move(p));
    return ref;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    items_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::uint64_t, std::shared_ptr<void>>> items_;
};

}  // namespace spx::detail

// StructureCache: preprocessing kept with a matrix (CSR-I starting rows,
// merge-path partitions, ...). Entries depend only on the sparsity structure,
// which a format never lets a user change after construction, so they stay
// valid when values are updated. Thread-safe.
//
// An entry is found by its type and its parameters: each entry type E
// declares its parameters as `E::Key` (an equality-comparable value: a
// number, an enum, a small struct; `NoKey` when it has none), and the cache
// holds (type of E, key, entry) triples. A lookup matches both the type and
// the key, so two kinds of entries can never be mistaken for one another.
// The backends list their entry types in one header each
// (src/cuda/cache_entries.hpp, src/baselines/cache_entries.hpp).
#pragma once

#include <concepts>
#include <memory>
#include <mutex>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

namespace spx::detail {

/// The key of an entry type without parameters.
struct NoKey {
  friend bool operator==(NoKey, NoKey) = default;
};

/// A type that can be kept in a StructureCache.
template <class E>
concept CacheEntry =
    std::equality_comparable<typename E::Key> && std::copy_constructible<typename E::Key>;

class StructureCache {
 public:
  /// The entry of type E with parameters `key`, built by `make()` (which
  /// returns an E) on first use. `make` runs under the cache's lock, so an
  /// entry is built once even when several threads ask for it together.
  template <CacheEntry E, class F>
  const E& get(const typename E::Key& key, F&& make) {
    std::lock_guard lock(mutex_);
    const std::type_index type(typeid(E));
    for (const Item& item : items_)
      if (item.type == type) {
        // The type matched, so the node holds an E.
        const auto& node = static_cast<const Node<E>&>(*item.node);
        if (node.key == key) return node.value;
      }
    auto node = std::make_unique<Node<E>>(key, std::forward<F>(make));
    const E& ref = node->value;
    items_.push_back(Item{type, std::move(node)});
    return ref;
  }
  /// The entry of a type without parameters (E::Key = NoKey).
  template <CacheEntry E, class F>
  requires std::same_as<typename E::Key, NoKey>
  const E& get(F&& make) { return get<E>(NoKey{}, std::forward<F>(make)); }
  void clear() {
    std::lock_guard lock(mutex_);
    items_.clear();
  }

 private:
  struct NodeBase {
    virtual ~NodeBase() = default;
  };
  template <class E>
  struct Node final : NodeBase {
    template <class F>
    Node(const typename E::Key& k, F&& make) : key(k), value(std::forward<F>(make)()) {}
    typename E::Key key;
    E value;
  };
  struct Item {
    std::type_index type;
    std::unique_ptr<NodeBase> node;
  };

  std::mutex mutex_;
  std::vector<Item> items_;
};

}  // namespace spx::detail

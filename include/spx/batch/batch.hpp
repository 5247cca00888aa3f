// The batch formats as variants: `Batch<T, I>` owns any batch format,
// `BatchRef<T, I>` points at one. The registry, the benchmark and the tests
// work with these; users normally hold a concrete batch format.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "spx/batch/batch_coo.hpp"
#include "spx/batch/batch_csr.hpp"
#include "spx/batch/batch_ell.hpp"

namespace spx {

template <Value T, Index I>
using Batch = std::variant<BatchCsr<T, I>, BatchCoo<T, I>, BatchEll<T, I>>;

template <Value T, Index I>
using BatchRef = std::variant<const BatchCsr<T, I>*, const BatchCoo<T, I>*, const BatchEll<T, I>*>;

/// A batch format of SpX.
template <class B>
concept BatchMatrix = requires(const B& b) {
  typename B::value_type;
  typename B::index_type;
  { B::kFormat } -> std::convertible_to<Format>;
  { b.count() } -> std::convertible_to<std::int64_t>;
  { b.total_rows() } -> std::convertible_to<std::int64_t>;
  { b.total_cols() } -> std::convertible_to<std::int64_t>;
  { b.nnz() } -> std::convertible_to<std::int64_t>;
  { b.bytes() } -> std::convertible_to<std::size_t>;
  { b.space() } -> std::convertible_to<Space>;
  {b.structure_cache()};
};

template <Value T, Index I>
BatchRef<T, I> batch_ref(const Batch<T, I>& b) {
  return std::visit([](const auto& a) { return BatchRef<T, I>{&a}; }, b);
}

/// The shared part (offsets, shape, space) and the format of any batch reference.
template <Value T, Index I>
const detail::BatchBase& batch_base(BatchRef<T, I> b) {
  return std::visit([](auto* a) -> const detail::BatchBase& { return *a; }, b);
}
template <Value T, Index I>
Format batch_format_of(BatchRef<T, I> b) {
  return std::visit([](auto* a) { return std::remove_pointer_t<decltype(a)>::kFormat; }, b);
}
template <Value T, Index I>
std::size_t batch_bytes_of(BatchRef<T, I> b) {
  return std::visit([](auto* a) { return a->bytes(); }, b);
}

}  // namespace spx

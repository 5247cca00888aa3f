// The set of formats as variants: `Matrix<T, I>` owns any format,
// `MatrixRef<T, I>` points at one. Generic code (the registry, the benchmark,
// the CLI) works with these; users normally hold a concrete format.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <variant>

#include "spx/formats/bcsr.hpp"
#include "spx/formats/coo.hpp"
#include "spx/formats/csc.hpp"
#include "spx/formats/csr.hpp"
#include "spx/formats/dia.hpp"
#include "spx/formats/dia_lp.hpp"
#include "spx/formats/ell.hpp"
#include "spx/formats/hdi.hpp"
#include "spx/formats/hll.hpp"
#include "spx/formats/hyb.hpp"
#include "spx/formats/jad.hpp"
#include "spx/formats/sell.hpp"
#include "spx/formats/sell_lp.hpp"
#include "spx/formats/sell_pack.hpp"
#include "spx/formats/sym_csr.hpp"
#include "spx/formats/sym_dia.hpp"

namespace spx {

template <Value T, Index I>
using Matrix = std::variant<Coo<T, I>, Csr<T, I>, Csc<T, I>, Ell<T, I>, Sell<T, I>, Hll<T, I>,
                            Dia<T, I>, Hdi<T, I>, Hyb<T, I>, Jad<T, I>, Bcsr<T, I>, SellPack<T, I>,
                            SellLp<T, I>, SymCsr<T, I>, SymDia<T, I>, DiaLp<T, I>>;

template <Value T, Index I>
using MatrixRef =
    std::variant<const Coo<T, I>*, const Csr<T, I>*, const Csc<T, I>*, const Ell<T, I>*,
                 const Sell<T, I>*, const Hll<T, I>*, const Dia<T, I>*, const Hdi<T, I>*,
                 const Hyb<T, I>*, const Jad<T, I>*, const Bcsr<T, I>*, const SellPack<T, I>*,
                 const SellLp<T, I>*, const SymCsr<T, I>*, const SymDia<T, I>*, const DiaLp<T, I>*>;

/// The type of format F: FormatType<Format::Ell, T, I> is Ell<T, I> (Matrix
/// lists the formats in the order of enum Format).
template <Format F, Value T, Index I>
using FormatType = std::variant_alternative_t<static_cast<std::size_t>(F), Matrix<T, I>>;
static_assert(
    []<std::size_t... k>(std::index_sequence<k...>) {
      return ((std::variant_alternative_t<k, Matrix<float, std::int32_t>>::kFormat ==
               static_cast<Format>(k)) &&
              ...);
    }(std::make_index_sequence<std::variant_size_v<Matrix<float, std::int32_t>>>{}),
    "Matrix must list the formats in the order of enum Format");

/// A format type of SpX.
template <class M>
concept SparseMatrix = requires(const M& m) {
  typename M::value_type;
  typename M::index_type;
  { M::kFormat } -> std::convertible_to<Format>;
  { m.rows() } -> std::convertible_to<std::int64_t>;
  { m.cols() } -> std::convertible_to<std::int64_t>;
  { m.nnz() } -> std::convertible_to<std::int64_t>;
  { m.bytes() } -> std::convertible_to<std::size_t>;
  { m.space() } -> std::convertible_to<Space>;
};

template <Value T, Index I>
MatrixRef<T, I> ref(const Matrix<T, I>& m) {
  return std::visit([](const auto& a) { return MatrixRef<T, I>{&a}; }, m);
}

/// Shape, format and space of any matrix reference.
template <Value T, Index I>
Format format_of(MatrixRef<T, I> m) {
  return std::visit([](auto* a) { return std::remove_pointer_t<decltype(a)>::kFormat; }, m);
}
template <Value T, Index I>
std::int64_t rows_of(MatrixRef<T, I> m) {
  return std::visit([](auto* a) { return static_cast<std::int64_t>(a->rows()); }, m);
}
template <Value T, Index I>
std::int64_t cols_of(MatrixRef<T, I> m) {
  return std::visit([](auto* a) { return static_cast<std::int64_t>(a->cols()); }, m);
}
template <Value T, Index I>
std::int64_t nnz_of(MatrixRef<T, I> m) {
  return std::visit([](auto* a) { return a->nnz(); }, m);
}
template <Value T, Index I>
std::size_t bytes_of(MatrixRef<T, I> m) {
  return std::visit([](auto* a) { return a->bytes(); }, m);
}
template <Value T, Index I>
Space space_of(MatrixRef<T, I> m) {
  return std::visit([](auto* a) { return a->space(); }, m);
}

}  // namespace spx

// Conversions between formats. Every conversion is linear in the number of
// nonzeros, plus a sort where the target format needs one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spx/matrix.hpp"

namespace spx {

/// Parameters of the formats that have them, and the limits that make a
/// conversion refuse (Unsupported, with the size it would have) rather than
/// exhaust memory.
struct ConvertOptions {
  /// Padded formats (ELL, DIA, HDI, BCSR, ...) refuse when their storage would
  /// exceed max(max_bytes_floor, max_expansion × CSR bytes).
  double max_expansion = 20.0;
  std::size_t max_bytes_floor = std::size_t{64} << 20;
  int block_size = 4;            ///< BCSR b (1..32)
  double min_block_fill = 0.05;  ///< BCSR refuses below this fraction of stored block entries
  int slice_size = 32;           ///< SELL C (SELL-pack takes SELL's three parameters)
  int sigma = 1;  ///< SELL σ (rows sorted by length within windows of σ rows; 1 keeps order)
  int threads_per_row = 1;      ///< SELL-P: slice width padded to a multiple of this
  int hack_size = 32;           ///< HLL and HDI hack height
  std::int64_t hyb_width = -1;  ///< HYB ELL width K; -1 applies Bell and Garland's rule
};

namespace detail {
/// The conversion from CSR to format F behind to_coo, to_ell, ... (a
/// function object, so that one definition serves every format). It checks
/// the parameters of `options` that F uses (InvalidInput), then converts a
/// host CSR on the host and a device CSR on the backend that owns its memory
/// (Unsupported where that backend has no conversion to F).
template <Format F>
struct ToFormat {
  template <Value T, Index I>
  FormatType<F, T, I> operator()(const Csr<T, I>& A, const ConvertOptions& options = {}) const;
};
}  // namespace detail

// ---- CSR → format -----------------------------------------------------------
// The padded formats refuse (Unsupported, naming the size they would have)
// when their storage would exceed the budget of ConvertOptions or its offsets
// would not fit the index type ("index overflow"); BCSR also when its fill is
// below min_block_fill.

/// COO sorted by (row, column).
inline constexpr detail::ToFormat<Format::Coo> to_coo{};
/// CSC (host only).
inline constexpr detail::ToFormat<Format::Csc> to_csc{};
/// ELL of width = the longest row.
inline constexpr detail::ToFormat<Format::Ell> to_ell{};
/// SELL-C-σ with C = slice_size, σ = sigma, widths padded to a multiple of
/// threads_per_row.
inline constexpr detail::ToFormat<Format::Sell> to_sell{};
/// SELL-LP: SELL as to_sell, its values rounded to float (T = double) or
/// bfloat16 (T = float); InvalidInput naming the entry for a finite value
/// that overflows the storage type. Reduced precision: see sell_lp.hpp for
/// the error bound.
inline constexpr detail::ToFormat<Format::SellLp> to_sell_lp{};
/// HLL with hacks of hack_size rows.
inline constexpr detail::ToFormat<Format::Hll> to_hll{};
/// HYB with ELL width K = hyb_width (at most the longest row), or Bell and
/// Garland's K when hyb_width = -1.
inline constexpr detail::ToFormat<Format::Hyb> to_hyb{};
/// JAD (no parameters; no padding, so no refusal).
inline constexpr detail::ToFormat<Format::Jad> to_jad{};
/// DIA with every occupied diagonal.
inline constexpr detail::ToFormat<Format::Dia> to_dia{};
/// DIA-LP: DIA as to_dia (same diagonals, padding and refusals), its values
/// rounded to float (T = double) or bfloat16 (T = float); InvalidInput naming
/// the entry for a finite value that overflows the storage type. Reduced
/// precision: see dia_lp.hpp (the bound of sell_lp.hpp).
inline constexpr detail::ToFormat<Format::DiaLp> to_dia_lp{};
/// HDI with hacks of hack_size rows.
inline constexpr detail::ToFormat<Format::Hdi> to_hdi{};
/// BCSR with blocks of block_size (1..32).
inline constexpr detail::ToFormat<Format::Bcsr> to_bcsr{};
/// SELL-C-σ with packed column indices (SellPack): the slices of to_sell
/// (slice_size, sigma, threads_per_row), each slice whose columns span at
/// most 65536 stored as 16-bit offsets from its smallest column.
inline constexpr detail::ToFormat<Format::SellPack> to_sell_pack{};
/// SymCsr: the lower triangle and the diagonal of a symmetric matrix. Refuses
/// (Unsupported) a matrix that is not square, or not symmetric in structure
/// and values (a_ij == a_ji exactly), naming the first asymmetric entry.
inline constexpr detail::ToFormat<Format::SymCsr> to_sym_csr{};
/// SymDia: the diagonals of offset <= 0 of a symmetric matrix (DIA of its
/// lower triangle and diagonal). Refuses (Unsupported) what to_sym_csr
/// refuses, with the same messages, and, as to_dia, storage beyond the
/// budget of ConvertOptions (max_expansion, max_bytes_floor).
inline constexpr detail::ToFormat<Format::SymDia> to_sym_dia{};

// ---- format → CSR -----------------------------------------------------------

/// The formats to_csr takes: every format but CSR itself.
template <class M>
concept ConvertibleToCsr = SparseMatrix<M> && M::kFormat != Format::Csr;

/// Any format → CSR, on the host. From COO: sorted by (row, column),
/// duplicates summed. From the padded formats exact: padding never
/// reappears, and explicit zeros (DIA, HDI, BCSR) stay entries.
template <ConvertibleToCsr M>
Csr<typename M::value_type, typename M::index_type> to_csr(const M& A);

/// Canonical COO: sorted by (row, column), duplicates summed.
template <Value T, Index I>
Coo<T, I> sort_coo(const Coo<T, I>& A);

// ---- generic ----------------------------------------------------------------

/// CSR → any format.
template <Value T, Index I>
Matrix<T, I> convert(const Csr<T, I>& A, Format to, const ConvertOptions& options = {});
/// Any format → CSR (exact: padding never reappears as entries).
template <Value T, Index I>
Csr<T, I> to_csr(MatrixRef<T, I> A);

/// Changes value and/or index type. Throws InvalidInput when a size or an index
/// does not fit the new index type ("index overflow").
template <Value U, Index J, Value T, Index I>
Csr<U, J> cast(const Csr<T, I>& A);

/// Formats whose conversion from CSR is implemented in this build.
bool convertible(Format f) noexcept;

}  // namespace spx

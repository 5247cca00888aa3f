// Conversions between formats, on the host. Every conversion is linear in the
// number of nonzeros, plus a sort where the target format needs one.
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
  int slice_size = 32;           ///< SELL C
  int sigma = 1;  ///< SELL σ (rows sorted by length within windows of σ rows; 1 keeps order)
  int threads_per_row = 1;      ///< SELL-P: slice width padded to a multiple of this
  int hack_size = 32;           ///< HLL and HDI hack height
  std::int64_t hyb_width = -1;  ///< HYB ELL width K; -1 applies Bell and Garland's rule
};

// ---- COO, CSR, CSC ----------------------------------------------------------

/// Sorts by (row, column) and sums duplicates.
template <Value T, Index I>
Csr<T, I> to_csr(const Coo<T, I>& A);
template <Value T, Index I>
Csr<T, I> to_csr(const Csc<T, I>& A);
template <Value T, Index I>
Coo<T, I> to_coo(const Csr<T, I>& A);
template <Value T, Index I>
Csc<T, I> to_csc(const Csr<T, I>& A);

/// Canonical COO: sorted by (row, column), duplicates summed.
template <Value T, Index I>
Coo<T, I> sort_coo(const Coo<T, I>& A);

// ---- ELLPACK family, HYB, JAD ----------------------------------------------
// CSR → format conversions refuse (Unsupported, naming the size) when the
// padded storage would exceed the budget of ConvertOptions or its offsets
// would not fit the index type ("index overflow"); they throw InvalidInput
// for invalid parameters. Format → CSR is exact: padding never reappears.

/// ELL of width = the longest row.
template <Value T, Index I>
Ell<T, I> to_ell(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Ell<T, I>& A);

/// SELL-C-σ with C = slice_size, σ = sigma, widths padded to a multiple of
/// threads_per_row.
template <Value T, Index I>
Sell<T, I> to_sell(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Sell<T, I>& A);

/// HLL with hacks of hack_size rows.
template <Value T, Index I>
Hll<T, I> to_hll(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Hll<T, I>& A);

/// HYB with ELL width K = hyb_width (at most the longest row), or Bell and
/// Garland's K when hyb_width = -1.
template <Value T, Index I>
Hyb<T, I> to_hyb(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Hyb<T, I>& A);

/// JAD (no parameters; no padding, so no refusal).
template <Value T, Index I>
Jad<T, I> to_jad(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Jad<T, I>& A);
// ---- DIA, HDI, BCSR (src/core/convert_{dia,hdi,bcsr}.cpp) -------------------
// CSR → format refuses (Unsupported, with the size it would have) when the
// padded storage exceeds the budget of `options`, and BCSR also when its fill
// is below options.min_block_fill. The way back is exact, explicit zeros
// included (they are kept in the formats' ExplicitZeros list).

template <Value T, Index I>
Dia<T, I> to_dia(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Dia<T, I>& A);
/// Hacks of options.hack_size rows.
template <Value T, Index I>
Hdi<T, I> to_hdi(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Hdi<T, I>& A);
/// Blocks of options.block_size (1..32).
template <Value T, Index I>
Bcsr<T, I> to_bcsr(const Csr<T, I>& A, const ConvertOptions& options = {});
template <Value T, Index I>
Csr<T, I> to_csr(const Bcsr<T, I>& A);

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

// What every conversion checks once, whichever backend fills the result: the
// parameters of ConvertOptions (before anything runs) and the limits on the
// sizes a backend computed (padded storage against the budget, block fill).
// The host conversions (src/core/convert_*.cpp) and the device ones
// registered by a backend (e.g. the CUDA backend's) call the same
// functions, so both refuse the same requests with the same messages.
#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include "core/padded.hpp"
#include "spx/convert.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

/// Checks the parameters of `options` that format `f` uses (InvalidInput):
/// SELL's slice_size, sigma and threads_per_row, the hack_size of HLL and
/// HDI, HYB's width, BCSR's block_size.
void check_options(Format f, const ConvertOptions& options);
/// The checks of the options the advisor may convert with: SELL's, HLL's,
/// HDI's and HYB's, and BCSR's when its block size is given (>= 0; < 0: the
/// advisor chooses it). The advice and a plan that skips it both run them.
void check_advice_options(const ConvertOptions& options);

/// BCSR of `nblocks` blocks of b×b over `block_rows` block rows: refuses
/// (Unsupported) below ConvertOptions::min_block_fill or beyond the budget.
template <Value T, Index I>
void check_bcsr_size(std::int64_t block_rows, std::int64_t nblocks, std::int64_t b,
                     std::int64_t nnz, std::size_t csr_bytes, const ConvertOptions& options) {
  const PaddedSize size = bcsr_size<T, I>(block_rows, nblocks, b);
  const std::string what = fmt::format("{} blocks of {}x{}", nblocks, b, b);
  if (size.values > 0) {
    const double fill = static_cast<double>(nnz) / static_cast<double>(size.values);
    if (fill < options.min_block_fill)
      throw Unsupported(fmt::format(
          "BCSR: block size {} gives fill {:.4f} ({} entries in {} = {} stored values, {} bytes, "
          "{:.1f}x the CSR's {} bytes), below ConvertOptions::min_block_fill = {}",
          b, fill, nnz, what, size.values, size.bytes,
          static_cast<double>(size.bytes) / static_cast<double>(csr_bytes), csr_bytes,
          options.min_block_fill));
  }
  check_padded_budget("BCSR", what, size, nnz, csr_bytes, options);
}

/// The refusals of the symmetric formats (SYM_CSR, SYM_DIA: `format` names
/// the one converted to), alike from the host and the device conversions: a
/// matrix that is not square (Unsupported).
void check_sym_square(std::int64_t rows, std::int64_t cols, std::string_view format = "SYM_CSR");
/// A is not symmetric at (i, j), whose value is `aij`; `aji` is the value at
/// (j, i), or null when (j, i) is not stored. Throws Unsupported naming both.
template <Value T>
[[noreturn]] void throw_not_symmetric(std::int64_t i, std::int64_t j, T aij, const T* aji,
                                      std::string_view format = "SYM_CSR");
/// Throws Unsupported unless host CSR A is square and symmetric in structure
/// and values (naming an asymmetric entry); returns its diagonal entries.
/// What to_sym_csr and to_sym_dia check on the host; the advisor asks it too.
template <Value T, Index I>
std::int64_t check_symmetric(const Csr<T, I>& A, std::string_view format = "SYM_CSR");
/// SYM_CSR's test of a pair: exactly equal values (two NaNs count as equal,
/// so a NaN-poisoned symmetric matrix converts).
template <Value T>
constexpr bool sym_equal(T a, T b) {
  return a == b || (a != a && b != b);
}

/// CSR → M for a CSR outside host memory: the conversion the backend owning
/// that memory registered. Throws Unsupported when it has none.
template <class M, Value T, Index I>
M convert_on_backend(const Csr<T, I>& A, const ConvertOptions& options) {
  const Backend b = backend_of(A.space());
  const Conversion<T, I>* c = Registry<T, I>::instance().find_conversion(M::kFormat, b);
  if (c == nullptr)
    throw Unsupported(fmt::format(
        "CSR to {}: the {} backend has no conversion for a matrix in {} memory (copy it with "
        ".to(Space::Host) first)",
        format_label(M::kFormat), to_string(b), to_string(A.space())));
  return std::get<M>(c->run(A, options));
}

}  // namespace spx::detail

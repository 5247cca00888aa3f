// The column statistics of a CSR in device memory, computed on the GPU
// without copying the matrix to the host (src/cuda/csr_columns.cu): what the
// advisor reads from the column indices (spx::ColumnReader of
// spx/registry.hpp), equal to the host's numbers (core/stats.cpp,
// core/advisor.cpp, core/convert_sym_csr.cpp). Everything runs on the default
// stream with scratch from SpX's stream-ordered pool; each function returns
// after a small synchronous copy of its result. Each requires a CSR in device
// memory (InvalidInput otherwise). No fmt and no CUDA types here: plain C++
// declarations.
#pragma once

#include <cstdint>
#include <string_view>

#include "spx/registry.hpp"

namespace spx::cuda {

/// MatrixStats' counts of the columns: the occupied diagonals, the aligned
/// b×b blocks holding an entry for b = 2..8, the scattered entries (the
/// numerator of MatrixStats::scatter), and the lower and upper bandwidths.
template <Value T, Index I>
ColumnCounts csr_column_counts(const Csr<T, I>& A);

/// The distinct diagonals of each hack of H rows (H ≥ 1, else InvalidInput),
/// summed over the hacks, and those of the last hack (0 without rows).
template <Value T, Index I>
HackDiagonals csr_hack_diagonals(const Csr<T, I>& A, std::int64_t H);

/// The aligned b×b blocks holding an entry, for any b ≥ 1 (else InvalidInput).
template <Value T, Index I>
std::int64_t csr_blocks(const Csr<T, I>& A, std::int64_t b);

/// The stored diagonal entries of a symmetric A (the values compared as
/// SYM_CSR's conversion does); throws Unsupported, its message starting with
/// `format`, when A is not square or not symmetric (naming an entry without
/// its mirror, or whose mirror differs).
template <Value T, Index I>
std::int64_t csr_symmetric_diagonal(const Csr<T, I>& A, std::string_view format);

/// SELL-pack with σ = 1: the stored entries of the slices of C rows (each
/// C × its longest row rounded up to a multiple of tpr) whose columns span
/// at most SellPack's kMaxSpan (C, tpr ≥ 1, else InvalidInput).
template <Value T, Index I>
std::int64_t csr_packed_entries(const Csr<T, I>& A, std::int64_t C, std::int64_t tpr);

/// Each row's first and last column (−1 for an empty row), copied to the host.
template <Value T, Index I>
RowEnds csr_row_ends(const Csr<T, I>& A);

}  // namespace spx::cuda

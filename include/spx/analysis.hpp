// Matrix statistics: the quantities the survey uses to choose a format.
#pragma once

#include <array>
#include <cstdint>

#include "spx/formats/csr.hpp"

namespace spx {

struct MatrixStats {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  double density = 0;  ///< nnz / (rows × cols)

  // nonzeros per row
  double row_mean = 0;
  double row_std = 0;
  std::int64_t row_min = 0;
  std::int64_t row_max = 0;
  std::int64_t empty_rows = 0;

  std::int64_t diagonals = 0;        ///< occupied diagonals (distinct j − i)
  std::int64_t lower_bandwidth = 0;  ///< max(i − j) over entries, ≥ 0
  std::int64_t upper_bandwidth = 0;  ///< max(j − i) over entries, ≥ 0
  std::int64_t bandwidth = 0;        ///< lower + upper + 1 (0 for an empty matrix)

  /// block_fill[b − 2] for b = 2..8: nnz / (b² × number of aligned b×b blocks
  /// holding at least one entry). 1 means the blocks are full.
  std::array<double, 7> block_fill{};
  double fill(int b) const { return block_fill.at(static_cast<std::size_t>(b - 2)); }

  /// Locality of the columns (the accesses to x): the fraction of nonzeros
  /// whose line of x, kScatterLine consecutive columns (64 bytes of doubles),
  /// is neither the line of the row's previous nonzero nor one that the
  /// previous row touched (0 for an empty matrix). At most 0.12 on the
  /// benchmark's stencils, banded and block (FEM) matrices, whose rows reuse
  /// the previous row's lines; 0.7–1.0 where a row's columns are scattered
  /// (random numbering, R-MAT, Chung–Lu). One O(nnz) pass.
  double scatter = 0;
  static constexpr std::int64_t kScatterLine = 8;
};

/// The statistics of A. A CSR in device memory is measured there by its
/// backend (CUDA): its row pointers are copied to the host, its columns and
/// values are not; the numbers are the host's.
template <Value T, Index I>
MatrixStats analyze(const Csr<T, I>& A);

}  // namespace spx

// Helpers shared by the batch formats' definitions (src/core/batch_*.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/validate.hpp"
#include "spx/batch/base.hpp"
#include "spx/core/array.hpp"
#include "spx/formats/csr.hpp"

namespace spx::detail {

/// A copy of a[begin, begin+n) in the same space.
template <class U>
Array<U> slice(const Array<U>& a, std::int64_t begin, std::int64_t n) {
  Array<U> out(static_cast<std::size_t>(n), a.space());
  if (n > 0)
    copy_bytes(out.data(), a.space(), a.data() + begin, a.space(),
               static_cast<std::size_t>(n) * sizeof(U));
  return out;
}

/// Host prefix sums of a batch: matrix i has rows[i+1] − rows[i] rows,
/// cols[i+1] − cols[i] columns and nnz[i+1] − nnz[i] nonzeros (nnz is empty
/// where the format derives it, as ELL does from its row lengths).
struct BatchOffsets {
  std::vector<std::int64_t> rows, cols, nnz;
  std::int64_t count() const { return static_cast<std::int64_t>(rows.size()) - 1; }
};

/// The user offsets of a batch, checked: row_offsets (count + 1 entries),
/// col_offsets and, when given, nnz_offsets of the same length, each from 0
/// and non-decreasing; every matrix's extents fit index type I. Messages name
/// the format, the array and the matrix.
BatchOffsets checked_offsets(std::string_view format, const Array<std::int64_t>& row_offsets,
                             const Array<std::int64_t>& col_offsets,
                             const Array<std::int64_t>* nnz_offsets, std::int64_t index_max);

/// The offsets of the batch made of `matrices` (from_matrices), and their
/// space; throws InvalidInput unless all live in one space.
template <Value T, Index I>
BatchOffsets offsets_of(std::string_view format, std::span<const Csr<T, I>> matrices) {
  BatchOffsets off{{0}, {0}, {0}};
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    const Csr<T, I>& A = matrices[i];
    if (A.space() != matrices.front().space())
      throw InvalidInput(fmt::format("{}::from_matrices: matrix {} is in {} memory, matrix 0 in {}",
                                     format, i, to_string(A.space()),
                                     to_string(matrices.front().space())));
    const std::string total = fmt::format("{}::from_matrices: total", format);
    off.rows.push_back(checked_add(off.rows.back(), A.rows(), total + " rows"));
    off.cols.push_back(checked_add(off.cols.back(), A.cols(), total + " columns"));
    off.nnz.push_back(checked_add(off.nnz.back(), A.nnz(), total + " nonzeros"));
  }
  return off;
}

/// Name for messages: "BatchCsr: matrix 7".
inline std::string matrix_name(std::string_view format, std::int64_t i) {
  return fmt::format("{}: matrix {}", format, i);
}

}  // namespace spx::detail

// Helpers shared by the zero-padded formats DIA, HDI and BCSR: storage sizes
// in 64-bit arithmetic, the memory budget of ConvertOptions, entry counting
// and validation of the explicit-zero side list.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "spx/convert.hpp"
#include "spx/formats/explicit_zeros.hpp"

namespace spx::detail {

/// Conversion loops run in parallel only above this much work (entries plus
/// stored values): below it a parallel region costs more than it saves.
inline constexpr std::int64_t kParallelWork = std::int64_t{1} << 18;

/// Storage of a padded format: stored values (padding included) and the
/// bytes of every array the product reads.
struct PaddedSize {
  std::int64_t values = 0;
  std::int64_t bytes = 0;
};

/// DIA: rows × ndiag values plus ndiag offsets. Throws InvalidInput
/// ("size overflow") past 64 bits.
template <Value T, Index I>
PaddedSize dia_size(std::int64_t rows, std::int64_t ndiag) {
  PaddedSize s;
  s.values = checked_mul(rows, ndiag, "DIA values (rows x diagonals)");
  s.bytes = checked_mul(s.values, sizeof(T), "DIA value bytes") +
            checked_mul(ndiag, sizeof(I), "DIA offset bytes");
  return s;
}

/// HDI with `hacks` hacks of `hack_size` rows (the last has `last_rows`),
/// `diagonals` diagonals in all of which `last_diagonals` in the last hack:
/// hack_size × (diagonals − last_diagonals) + last_rows × last_diagonals
/// values, plus the offsets and hacks + 1 hack pointers.
template <Value T, Index I>
PaddedSize hdi_size(std::int64_t hack_size, std::int64_t hacks, std::int64_t diagonals,
                    std::int64_t last_rows, std::int64_t last_diagonals) {
  PaddedSize s;
  s.values = checked_mul(hack_size, diagonals - last_diagonals, "HDI values") +
             checked_mul(last_rows, last_diagonals, "HDI values of the last hack");
  s.bytes = checked_mul(s.values, sizeof(T), "HDI value bytes") +
            checked_mul(diagonals, sizeof(I), "HDI offset bytes") +
            checked_mul(hacks + 1, sizeof(I), "HDI hack pointer bytes");
  return s;
}

/// BCSR: blocks × b² values, plus the block columns and block_rows + 1 block
/// pointers.
template <Value T, Index I>
PaddedSize bcsr_size(std::int64_t block_rows, std::int64_t blocks, std::int64_t b) {
  PaddedSize s;
  s.values = checked_mul(blocks, b * b, "BCSR values (blocks x b^2)");
  s.bytes = checked_mul(s.values, sizeof(T), "BCSR value bytes") +
            checked_mul(blocks, sizeof(I), "BCSR block column bytes") +
            checked_mul(block_rows + 1, sizeof(I), "BCSR block pointer bytes");
  return s;
}

/// The budget of ConvertOptions: max(max_bytes_floor, max_expansion × CSR bytes).
inline double padded_budget(const ConvertOptions& o, std::size_t csr_bytes) {
  return std::max(static_cast<double>(o.max_bytes_floor),
                  o.max_expansion * static_cast<double>(csr_bytes));
}

/// Throws Unsupported when `size` exceeds the budget; `what` describes the
/// shape ("4800 rows x 1201 diagonals").
void check_padded_budget(std::string_view format, std::string_view what, const PaddedSize& size,
                         std::int64_t nnz, std::size_t csr_bytes, const ConvertOptions& options);

/// Number of values that are not zero (NaN counts as nonzero).
template <Value T>
std::int64_t count_nonzero(const T* v, std::size_t size) {
  std::int64_t n = 0;
#pragma omp parallel for reduction(+ : n) schedule(static) if (static_cast<std::int64_t>(size) > kParallelWork)
  for (std::size_t k = 0; k < size; ++k)
    n += v[k] != T{0} ? 1 : 0;
  return n;
}
/// The same for an array in either space (device arrays are copied).
template <Value T>
std::int64_t count_nonzero(const Array<T>& a) {
  if (a.space() == Space::Host) return count_nonzero(a.data(), a.size());
  const std::vector<T> v = a.to_vector();
  return count_nonzero(v.data(), v.size());
}

/// `zeros` itself, or empty arrays in `space` when it is empty (so that a
/// default-constructed list does not mismatch a device matrix).
template <Index I>
ExplicitZeros<I> adopt_zeros(ExplicitZeros<I> zeros, Space space) {
  if (zeros.rows.size() == 0 && zeros.cols.size() == 0)
    return {Array<I>(0, space), Array<I>(0, space)};
  return zeros;
}

/// Validates the explicit-zero list of a padded format: equal lengths, in
/// range, (row, column) strictly increasing, and each at a stored position
/// whose value is zero. `locate(i, j)` returns the position of A(i, j) in
/// `values`, or −1 when the format stores no slot for it.
template <Value T, Index I, class Locate>
void check_explicit_zeros(std::string_view format, std::int64_t rows, std::int64_t cols,
                          const ExplicitZeros<I>& zeros, const std::vector<T>& values,
                          Locate&& locate) {
  if (zeros.rows.size() != zeros.cols.size())
    throw InvalidInput(fmt::format("{}: explicit zeros: rows has {} entries but cols has {}",
                                   format, zeros.rows.size(), zeros.cols.size()));
  const std::vector<I> zr = zeros.rows.to_vector(), zc = zeros.cols.to_vector();
  for (std::size_t k = 0; k < zr.size(); ++k) {
    const std::int64_t i = zr[k], j = zc[k];
    if (i < 0 || i >= rows || j < 0 || j >= cols)
      throw InvalidInput(
          fmt::format("{}: explicit zero {} at ({}, {}) lies outside the {}x{} matrix", format, k,
                      i, j, rows, cols));
    if (k > 0 && (zr[k - 1] > i || (zr[k - 1] == i && zc[k - 1] >= j)))
      throw InvalidInput(fmt::format(
          "{}: explicit zeros not strictly increasing by (row, column): {} at ({}, {}) after "
          "({}, {})",
          format, k, i, j, zr[k - 1], zc[k - 1]));
    const std::int64_t p = locate(i, j);
    if (p < 0)
      throw InvalidInput(
          fmt::format("{}: explicit zero {} at ({}, {}) is not a stored position of the {} storage",
                      format, k, i, j, format));
    if (values[p] != T{0})
      throw InvalidInput(
          fmt::format("{}: explicit zero {} at ({}, {}) holds values[{}] = {}, "
                      "expected 0",
                      format, k, i, j, p, values[p]));
  }
}

/// The explicit zeros of CSR A: positions of stored entries equal to zero, in
/// (row, column) order. Linear in nnz.
template <Value T, Index I>
ExplicitZeros<I> csr_explicit_zeros(const Csr<T, I>& A) {
  std::vector<I> zr, zc;
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  for (std::int64_t i = 0; i < A.rows(); ++i)
    for (I k = ptr[i]; k < ptr[i + 1]; ++k)
      if (val[k] == T{0}) {
        zr.push_back(static_cast<I>(i));
        zc.push_back(col[k]);
      }
  return {Array<I>(zr), Array<I>(zc)};
}

/// Row i's explicit zeros: indices [first, last) into the sorted side list.
template <Index I>
std::pair<std::size_t, std::size_t> zeros_of_row(const ExplicitZeros<I>& z, std::int64_t i) {
  const I* b = z.rows.data();
  const I* e = b + z.size();
  const I* lo = std::lower_bound(b, e, static_cast<I>(i));
  const I* hi = std::upper_bound(lo, e, static_cast<I>(i));
  return {static_cast<std::size_t>(lo - b), static_cast<std::size_t>(hi - b)};
}

/// Builds CSR from a row visitor: `for_each_entry(i, emit)` calls
/// emit(column, value) for row i's entries in increasing column order. Two
/// passes over the rows (count, then fill), in parallel when `work` (the
/// stored values visited) is large enough.
template <Value T, Index I, class ForEachEntry>
Csr<T, I> csr_from_rows(I rows, I cols, std::string_view format, std::int64_t work,
                        ForEachEntry&& for_each_entry) {
  const std::int64_t m = rows;
  std::vector<std::int64_t> count(static_cast<std::size_t>(m) + 1, 0);
#pragma omp parallel for schedule(dynamic, 1024) if (work > kParallelWork)
  for (std::int64_t i = 0; i < m; ++i) {
    std::int64_t c = 0;
    for_each_entry(i, [&](std::int64_t, T) { ++c; });
    count[i + 1] = c;
  }
  for (std::int64_t i = 0; i < m; ++i)
    count[i + 1] += count[i];
  checked_index<I>(count[m], fmt::format("{} to CSR: number of entries", format));
  std::vector<I> row_ptr(count.begin(), count.end());  // every count ≤ count[m] fits I
  Array<I> col(static_cast<std::size_t>(count[m]));
  Array<T> val(static_cast<std::size_t>(count[m]));
#pragma omp parallel for schedule(dynamic, 1024) if (work > kParallelWork)
  for (std::int64_t i = 0; i < m; ++i) {
    std::int64_t k = count[i];
    for_each_entry(i, [&](std::int64_t j, T x) {
      col[k] = static_cast<I>(j);
      val[k] = x;
      ++k;
    });
  }
  return Csr<T, I>(rows, cols, Array<I>(row_ptr), std::move(col), std::move(val), Check::Trusted);
}

}  // namespace spx::detail

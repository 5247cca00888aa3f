// Helpers shared by the zero-padded formats DIA, HDI and BCSR: storage sizes
// in 64-bit arithmetic, the memory budget of ConvertOptions, entry counting,
// validation of the explicit-zero side list, the diagonal layout of DIA and
// HDI (checked once for both), and the way back to CSR.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/out_of_memory.hpp"
#include "core/padded_size.hpp"
#include "core/validate.hpp"
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

/// check_budget for DIA, HDI and BCSR: `what` describes the shape ("4800
/// rows x 1201 diagonals"), `nnz` the entries.
inline void check_padded_budget(std::string_view format, std::string_view what,
                                const PaddedSize& size, std::int64_t nnz, std::size_t csr_bytes,
                                const ConvertOptions& options) {
  check_budget(format, what, size.values, nnz, static_cast<double>(size.bytes), csr_bytes, options);
}

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
  check_same_length(fmt::format("{}: explicit zeros", format), "rows",
                    static_cast<std::int64_t>(zeros.rows.size()), "cols",
                    static_cast<std::int64_t>(zeros.cols.size()));
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

/// The entries of a padded format: its nonzero values and its explicit
/// zeros. With Check::Full, the explicit zeros are checked first
/// (check_explicit_zeros, `locate` as there); `val` is the host copy of
/// `values` (empty with Check::Trusted, which reads `values` itself).
template <Value T, Index I, class Locate>
std::int64_t padded_entries(std::string_view format, Check check, std::int64_t rows,
                            std::int64_t cols, const ExplicitZeros<I>& zeros,
                            const Array<T>& values, const std::vector<T>& val, Locate&& locate) {
  const auto listed = static_cast<std::int64_t>(zeros.size());
  if (check == Check::Trusted) return count_nonzero(values) + listed;
  check_explicit_zeros<T, I>(format, rows, cols, zeros, val, locate);
  return count_nonzero(val.data(), val.size()) + listed;
}

/// Builds CSR from a row visitor: `for_each_entry(i, emit)` calls
/// emit(column, value) for row i's entries in increasing column order. Two
/// passes over the rows (count, then fill), in parallel when `work` (the
/// stored values visited) is large enough.
template <Value T, Index I, class ForEachEntry>
Csr<T, I> csr_from_rows(I rows, I cols, std::string_view format, std::int64_t work,
                        ForEachEntry&& for_each_entry) {
  const std::int64_t m = rows;
  HostVector<std::int64_t> count(static_cast<std::size_t>(m) + 1, 0);
#pragma omp parallel for schedule(dynamic, 1024) if (work > kParallelWork)
  for (std::int64_t i = 0; i < m; ++i) {
    std::int64_t c = 0;
    for_each_entry(i, [&](std::int64_t, T) { ++c; });
    count[i + 1] = c;
  }
  for (std::int64_t i = 0; i < m; ++i)
    count[i + 1] += count[i];
  checked_index<I>(count[m], fmt::format("{} to CSR: number of entries", format));
  HostVector<I> row_ptr(count.begin(), count.end());  // every count ≤ count[m] fits I
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

/// CSR of a padded format A (DIA, HDI, BCSR) on the host:
/// `for_each_stored(i, f)` calls f(column, position in values) for the
/// stored positions of row i inside the matrix, in increasing column order.
/// The entries are the nonzero values and the explicit zeros; padding never
/// reappears.
template <class M, class ForEachStored>
auto padded_to_csr(const M& A, ForEachStored&& for_each_stored) {
  using T = typename M::value_type;
  using I = typename M::index_type;
  const T* v = A.values().data();
  const ExplicitZeros<I>& z = A.explicit_zeros();
  const I* zc = z.cols.data();
  return csr_from_rows<T, I>(
      A.rows(), A.cols(), format_label(M::kFormat), static_cast<std::int64_t>(A.values().size()),
      [&](std::int64_t i, auto&& emit) {
        // Row i's explicit zeros, walked in column order beside its values.
        const I* zr = z.rows.data();
        const I* first = std::lower_bound(zr, zr + z.size(), static_cast<I>(i));
        const I* last = std::upper_bound(first, zr + z.size(), static_cast<I>(i));
        std::size_t p = static_cast<std::size_t>(first - zr);
        const auto end = static_cast<std::size_t>(last - zr);
        for_each_stored(i, [&](std::int64_t j, std::int64_t pos) {
          while (p < end && zc[p] < j)
            ++p;
          if (v[pos] != T{0} || (p < end && zc[p] == j)) emit(j, v[pos]);
        });
      });
}

/// The layout of DIA and HDI: hacks of `hack` rows (DIA: one hack of all
/// rows); hack h stores the diagonals off[ptr[h]] .. off[ptr[h + 1]] (offsets
/// j − i, strictly increasing), row r of the hack's d-th diagonal at
/// values[hack·ptr[h] + d·rows_h + r], rows_h the rows of hack h.
template <Index I>
struct Diagonals {
  std::int64_t rows = 0, cols = 0, hack = 0;
  std::vector<std::int64_t> ptr;  ///< hacks + 1 entries
  const I* off = nullptr;

  std::int64_t hacks() const { return static_cast<std::int64_t>(ptr.size()) - 1; }
  std::int64_t hack_rows(std::int64_t h) const { return std::min(hack, rows - h * hack); }
  std::int64_t position(std::int64_t h, std::int64_t d, std::int64_t r) const {
    return hack * ptr[h] + d * hack_rows(h) + r;
  }
  /// Calls f(j, position) for row i's diagonals inside the matrix, by column.
  template <class F>
  void for_each_in_row(std::int64_t i, F&& f) const {
    const std::int64_t h = i / hack;
    for (std::int64_t d = 0; d < ptr[h + 1] - ptr[h]; ++d) {
      const std::int64_t j = i + off[ptr[h] + d];
      if (j >= 0 && j < cols) f(j, position(h, d, i - h * hack));
    }
  }
  /// The position of A(i, j) in values, or −1 when no diagonal holds it.
  std::int64_t locate(std::int64_t i, std::int64_t j) const {
    const std::int64_t h = i / hack;
    const I* b = off + ptr[h];
    const I* e = off + ptr[h + 1];
    const I* it = std::lower_bound(b, e, static_cast<I>(j - i));
    return it == e || *it != j - i ? -1 : position(h, it - b, i - h * hack);
  }
};

/// DIA: one hack of all rows.
template <Index I>
Diagonals<I> dia_layout(std::int64_t rows, std::int64_t cols, const I* off, std::int64_t ndiag) {
  return {rows, cols, rows, {0, ndiag}, off};
}
/// HDI: hacks of `hack` rows, `hack_ptr` with hacks + 1 entries.
template <Index I>
Diagonals<I> hdi_layout(std::int64_t rows, std::int64_t cols, std::int64_t hack, const I* hack_ptr,
                        std::int64_t hacks, const I* off) {
  return {rows, cols, hack, std::vector<std::int64_t>(hack_ptr, hack_ptr + hacks + 1), off};
}

/// Checks the diagonals of DIA or HDI (offsets within (−rows, cols) and
/// strictly increasing per hack; values of the expected size, zero wherever
/// a diagonal leaves the matrix; the explicit zeros) and returns the entries.
/// `values_why` explains `expected_values`; hacks are named in messages
/// when `hacked`.
template <Value T, Index I>
std::int64_t check_diagonals(std::string_view format, const Diagonals<I>& D, const Array<T>& values,
                             std::int64_t expected_values, std::string_view values_why,
                             const ExplicitZeros<I>& zeros, bool hacked) {
  const std::int64_t m = D.rows, n = D.cols;
  check_sorted_slices(SliceNames{format, "hack_ptr", "offsets", hacked ? "hack" : "", "offsets"},
                      D.ptr.data(), D.hacks(), D.off, 1 - m, n,
                      fmt::format("({}, {}): the diagonal misses the {}x{} matrix", -m, n, m, n));
  check_length(format, "values", static_cast<std::int64_t>(values.size()), expected_values,
               values_why);
  const std::vector<T> val = values.to_vector();
  for (std::int64_t h = 0; h < D.hacks(); ++h)
    for (std::int64_t d = 0; d < D.ptr[h + 1] - D.ptr[h]; ++d)
      for (std::int64_t r = 0; r < D.hack_rows(h); ++r) {
        const std::int64_t i = h * D.hack + r, o = D.off[D.ptr[h] + d], p = D.position(h, d, r);
        if ((i + o < 0 || i + o >= n) && val[p] != T{0})
          throw InvalidInput(fmt::format(
              "{}: values[{}] = {} (row {}{}, offset {}) lies outside the matrix (column {}) and "
              "must be 0",
              format, p, val[p], i, hacked ? fmt::format(", hack {}", h) : "", o, i + o));
      }
  return padded_entries<T, I>(format, Check::Full, m, n, zeros, values, val,
                              [&](std::int64_t i, std::int64_t j) { return D.locate(i, j); });
}

}  // namespace spx::detail

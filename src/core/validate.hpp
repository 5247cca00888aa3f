// The checks that the format constructors (src/core/format*.cpp) and the
// batch formats (src/core/batch_*.cpp) make on user arrays, written once so
// that every format words a violation the same way: the format (and matrix),
// the array, the position and the value.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "spx/core/array.hpp"
#include "spx/core/enums.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::detail {

/// The name of a format in messages: "CSR", "SELL".
inline std::string format_label(Format f) {
  std::string s(to_string(f));
  for (char& c : s)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// The elements of `a` readable on the host: its own memory for a host
/// array, else a copy made in `copy` (so validation doubles no host array).
template <class U>
const U* host_data(const Array<U>& a, std::vector<U>& copy) {
  if (a.space() == Space::Host) return a.data();
  copy = a.to_vector();
  return copy.data();
}

/// Throws InvalidInput unless `value` >= `min`: "{where}: {name} = {value}
/// must be at least {min}".
inline void check_at_least(std::string_view where, std::string_view name, std::int64_t value,
                           std::int64_t min) {
  if (value < min)
    throw InvalidInput(fmt::format("{}: {} = {} must be at least {}", where, name, value, min));
}

/// BCSR's block size, alike from the constructor and from ConvertOptions.
inline void check_block_size(std::int64_t b, std::int64_t max) {
  if (b < 1 || b > max)
    throw InvalidInput(fmt::format("BCSR: block_size = {} is out of range [1, {}]", b, max));
}

/// Throws InvalidInput unless array `name` has `expected` entries: "{where}:
/// {name} has {got} entries, expected {why} = {expected}".
inline void check_length(std::string_view where, std::string_view name, std::int64_t got,
                         std::int64_t expected, std::string_view why) {
  if (got != expected)
    throw InvalidInput(
        fmt::format("{}: {} has {} entries, expected {} = {}", where, name, got, why, expected));
}

/// Throws InvalidInput unless arrays `a` and `b` have equal lengths.
inline void check_same_length(std::string_view where, std::string_view a_name, std::int64_t a,
                              std::string_view b_name, std::int64_t b) {
  if (a != b)
    throw InvalidInput(
        fmt::format("{}: {} has {} entries but {} has {}", where, a_name, a, b_name, b));
}

/// The padded formats' col_idx and values must both hold `stored` entries,
/// `what` saying where that number comes from ("rows x width = 4 x 3").
inline void check_stored(std::string_view where, std::string_view what, std::int64_t stored,
                         std::int64_t col_size, std::int64_t val_size) {
  if (col_size != stored || val_size != stored)
    throw InvalidInput(
        fmt::format("{}: col_idx and values must hold {} = {} entries (got {} and {})", where, what,
                    stored, col_size, val_size));
}

/// How messages name a compressed structure: array `ptr` cuts array `idx`
/// into slices named `slice` ("row", "block row", "hack", "matrix"; empty for
/// a single slice), whose `entries` ("column indices", "offsets") must
/// increase.
struct SliceNames {
  std::string_view where;    ///< "CSR", or "BatchCsr: matrix 2"
  std::string_view ptr;      ///< "row_ptr"
  std::string_view idx;      ///< "col_idx"
  std::string_view slice;    ///< "row"
  std::string_view entries;  ///< "column indices"
};

/// ptr[0..slices] starts at 0 and never decreases. `base` is ptr[0]'s
/// position in the user's array (for messages).
template <class I>
void check_monotone(const SliceNames& n, const I* ptr, std::int64_t slices, std::int64_t base = 0) {
  if (ptr[0] != 0)
    throw InvalidInput(fmt::format("{}: {}[{}] = {}, expected 0", n.where, n.ptr, base, ptr[0]));
  for (std::int64_t s = 0; s < slices; ++s)
    if (ptr[s + 1] < ptr[s])
      throw InvalidInput(fmt::format("{}: {} decreases at {} {}: {}[{}] = {} < {}[{}] = {}",
                                     n.where, n.ptr, n.slice, s, n.ptr, base + s + 1, ptr[s + 1],
                                     n.ptr, base + s, ptr[s]));
}

/// check_monotone, and ptr[slices] = `entries`, the length of `idx`.
template <class I>
void check_pointers(const SliceNames& n, const I* ptr, std::int64_t slices, std::int64_t entries,
                    std::int64_t base = 0) {
  check_monotone(n, ptr, slices, base);
  if (ptr[slices] != entries)
    throw InvalidInput(fmt::format("{}: {}[{}] = {} but {} has {} entries", n.where, n.ptr,
                                   base + slices, ptr[slices], n.idx, entries));
}

/// The entries of every slice lie in [lo, hi) and increase strictly. `range`
/// shows [lo, hi) in messages ("[0, 5)"), `note` is added to the message on
/// an unsorted slice, `base` is idx[0]'s position in the user's array.
template <class P, class I>
void check_sorted_slices(const SliceNames& n, const P* ptr, std::int64_t slices, const I* idx,
                         std::int64_t lo, std::int64_t hi, std::string_view range,
                         std::string_view note = "", std::int64_t base = 0) {
  const auto in_slice = [&](std::int64_t s) {
    return n.slice.empty() ? std::string() : fmt::format(" in {} {}", n.slice, s);
  };
  for (std::int64_t s = 0; s < slices; ++s)
    for (std::int64_t k = ptr[s]; k < ptr[s + 1]; ++k) {
      if (idx[k] < lo || idx[k] >= hi)
        throw InvalidInput(fmt::format("{}: {}[{}] = {}{} is out of range {}", n.where, n.idx,
                                       base + k, idx[k], in_slice(s), range));
      if (k > ptr[s] && idx[k] <= idx[k - 1])
        throw InvalidInput(fmt::format("{}: {} not strictly increasing{}: {}[{}] = {} after {}{}",
                                       n.where, n.entries, in_slice(s), n.idx, base + k, idx[k],
                                       idx[k - 1], note));
    }
}

/// A compressed structure in full: `ptr` has slices + 1 entries and cuts the
/// `entries` indices of `idx` into slices whose indices lie in [0, hi) and
/// increase strictly (CSR, CSC, the members of BatchCsr). `base_ptr` and
/// `base_idx` are the positions of ptr[0] and idx[0] in the user's arrays.
template <class I>
void check_compressed(const SliceNames& n, const I* ptr, std::int64_t slices, const I* idx,
                      std::int64_t entries, std::int64_t hi, std::int64_t base_ptr = 0,
                      std::int64_t base_idx = 0) {
  check_pointers(n, ptr, slices, entries, base_ptr);
  check_sorted_slices(n, ptr, slices, idx, 0, hi, fmt::format("[0, {})", hi),
                      " (indices must be sorted and unique; convert from COO to sort and sum "
                      "duplicates)",
                      base_idx);
}

/// COO entries [begin, end): rows in [0, m), columns in [0, n).
template <class I>
void check_coo_entries(std::string_view where, const std::vector<I>& row, const std::vector<I>& col,
                       std::int64_t begin, std::int64_t end, std::int64_t m, std::int64_t n) {
  for (std::int64_t k = begin; k < end; ++k) {
    if (row[k] < 0 || row[k] >= m)
      throw InvalidInput(
          fmt::format("{}: row_idx[{}] = {} is out of range [0, {})", where, k, row[k], m));
    if (col[k] < 0 || col[k] >= n)
      throw InvalidInput(
          fmt::format("{}: col_idx[{}] = {} is out of range [0, {})", where, k, col[k], n));
  }
}

/// Whether COO entries [begin, end) strictly increase in (row, column).
template <class I>
bool coo_sorted(const std::vector<I>& row, const std::vector<I>& col, std::int64_t begin,
                std::int64_t end) {
  for (std::int64_t k = begin + 1; k < end; ++k)
    if (row[k - 1] > row[k] || (row[k - 1] == row[k] && col[k - 1] >= col[k])) return false;
  return true;
}

/// Checks that `perm` is a permutation of [0, n); names the first repeat.
template <class I>
void check_permutation(std::string_view where, const std::vector<I>& perm, std::int64_t n) {
  check_length(where, "perm", static_cast<std::int64_t>(perm.size()), n, "rows");
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = perm[i];
    if (p < 0 || p >= n)
      throw InvalidInput(fmt::format("{}: perm[{}] = {} is out of range [0, {})", where, i, p, n));
    if (seen[p])
      throw InvalidInput(fmt::format(
          "{}: perm[{}] = {} repeats an earlier entry (perm must be a permutation of the rows)",
          where, i, p));
    seen[p] = 1;
  }
}

}  // namespace spx::detail

// Device-side conversions CSR → ELL, SELL, SELL-pack, HLL, HYB, JAD, DIA,
// HDI, BCSR, SYM_CSR, COO: a CSR in device memory is converted without travelling to the host,
// and the result is identical, array by array and bit by bit, to the host
// conversion followed by .to(Space::Device) (refusals included: the same size
// checks, on the same numbers, before anything large is allocated).
//
// Two layers:
//   register_cuda_conversions  the conversions (src/cuda/convert_device.cpp):
//                              size checks, allocation, assembly; registered
//                              as the CUDA backend's conversions, which the
//                              core's to_* functions call for a device CSR.
//   spx::cuda::conv::*         the device passes they are built from, declared
//                              here (src/cuda/convert_{scan,ellpack,diag}.cu).
// Everything runs on the default stream; functions that return a size read it
// with a small synchronous copy. Scratch comes from SpX's stream-ordered pool.
// No fmt and no CUDA types here: plain C++ declarations.
#pragma once

#include <cstdint>

#include "spx/core/types.hpp"

namespace spx::cuda::conv {

/// Rows (slots) handled by one warp of the fill kernels, and the entries of a
/// row one warp writes at most (longer rows are split over several warps).
inline constexpr std::int64_t kSlotBlock = 32;
inline constexpr std::int64_t kWidthChunk = 64;

/// Number of bits needed to write x (0 for x = 0).
constexpr int bit_width(std::uint64_t x) {
  int b = 0;
  while (x != 0) {
    ++b;
    x >>= 1;
  }
  return b;
}

/// The largest diagonal key j − i + m − 1 of an m × n matrix, m + n − 2 (0
/// when it has no entries), in unsigned arithmetic: it passes 2⁶³ − 1 for
/// the widest shapes.
constexpr std::uint64_t largest_diagonal_key(std::int64_t m, std::int64_t n) {
  return m > 0 && n > 0 ? static_cast<std::uint64_t>(m - 1) + static_cast<std::uint64_t>(n - 1) : 0;
}

// ---- scans, sorts, reductions (convert_scan.cu) ----------------------------

/// In-place exclusive prefix sum of n values.
void exclusive_sum(std::int64_t* data, std::int64_t n);
/// The same with saturating addition (sums that pass INT64_MAX stay there),
/// so that an overflow is detected rather than wrapped.
void exclusive_sum_saturating(std::int64_t* data, std::int64_t n);
/// Sorts n keys (bits [0, end_bit) significant; stable); returns the buffer
/// that holds the result, `keys` or `alt`.
std::uint64_t* sort_keys(std::uint64_t* keys, std::uint64_t* alt, std::int64_t n, int end_bit);
/// Stable sort of (key, value) pairs; returns the buffer holding the sorted
/// values (`vals` or `vals_alt`) and sets `sorted_keys` to the keys' buffer.
template <Index I>
I* sort_pairs(std::uint64_t* keys, std::uint64_t* keys_alt, I* vals, I* vals_alt, std::int64_t n,
              int end_bit, std::uint64_t** sorted_keys);
/// One value from device memory (synchronous).
std::int64_t read_back(const std::int64_t* p);
std::uint64_t read_back(const std::uint64_t* p);

/// The longest row of a device CSR (0 without rows). Synchronous.
template <Index I>
std::int64_t longest_row(const I* ptr, std::int64_t rows);
/// keys[i] = (i / window) << len_bits | (longest - length of row i), values[i]
/// = i: sorting the pairs orders rows by window, then by decreasing length,
/// stably.
template <Index I>
void length_sort_keys(const I* ptr, std::int64_t rows, std::int64_t window, int len_bits,
                      std::int64_t longest, std::uint64_t* keys, I* values);
/// keys[i] = length of row i.
template <Index I>
void length_keys(const I* ptr, std::int64_t rows, std::uint64_t* keys);
/// out[i] = in[i] for i < n (narrowing; the values are known to fit I).
template <Index I>
void narrow(const std::int64_t* in, std::int64_t n, I* out);

// ---- SELL-LP's and DIA-LP's values (convert_lowp.cu) ---------------------------

/// The position of the first of n values that is finite and overflows
/// the reduced storage type (float for double, bfloat16 for float), or -1.
/// Synchronous.
std::int64_t first_overflow(const double* val, std::int64_t n);
std::int64_t first_overflow(const float* val, std::int64_t n);
/// The position of the first of n values that is nonzero and rounds to a
/// (signed) zero in the reduced storage type, or -1. Synchronous.
std::int64_t first_flushed(const double* val, std::int64_t n);
std::int64_t first_flushed(const float* val, std::int64_t n);
/// out[k] = in[k] rounded to the storage type (as lowp::narrow on the host),
/// k < n; bfloat16 as its bits.
void round_values(const double* in, std::int64_t n, float* out);
void round_values(const float* in, std::int64_t n, std::uint16_t* out);

// ---- ELLPACK family, HYB, JAD (convert_ellpack.cu) ---------------------------

/// Groups of slots: group g holds slots [g·C, min((g+1)·C, total_slots)); slot
/// s < rows holds CSR row order[s] (or s without order), its first
/// min(length, width_g) entries; the rest of the group's width is padding.
/// Each group is cut into units of kSlotBlock slots × kWidthChunk entries,
/// one warp each; unit_ptr (groups + 1, exclusive sums of the units) maps a
/// warp to its group (nullptr: one group, `units` units).
template <Index I>
struct GroupFill {
  std::int64_t groups = 1;
  std::int64_t C = 0;
  std::int64_t total_slots = 0;
  std::int64_t rows = 0;
  const std::int64_t* width = nullptr;  ///< per group; nullptr: width0 for all
  std::int64_t width0 = 0;
  const std::int64_t* offset = nullptr;  ///< per group (ELLPACK layout); nullptr: 0
  const std::int64_t* unit_ptr = nullptr;
  std::int64_t units = 0;
  const I* order = nullptr;   ///< slot → CSR row; nullptr: identity
  const I* jd_ptr = nullptr;  ///< JAD layout: entry j of slot s at jd_ptr[j] + s, no padding
};

/// Units of a group of `slots` slots and width `width`.
constexpr std::int64_t group_units(std::int64_t slots, std::int64_t width) {
  return width <= 0 || slots <= 0
             ? 0
             : ((slots + kSlotBlock - 1) / kSlotBlock) * ((width + kWidthChunk - 1) / kWidthChunk);
}

/// width[g] = the longest of the rows in group g's slots below `rows` (groups
/// of C slots, slot s = row order[s] or s).
template <Index I>
void group_widths(const I* ptr, const I* order, std::int64_t rows, std::int64_t C,
                  std::int64_t groups, std::int64_t* width);
/// Rounds width[g] up to a multiple of `round`, and writes size[g] =
/// slots_g × width[g] (saturating) and units[g] for g < groups, and
/// size[groups] = units[groups] = 0 (ready for exclusive sums).
void group_sizes(std::int64_t* width, std::int64_t groups, std::int64_t C, std::int64_t total_slots,
                 std::int64_t round, std::int64_t* size, std::int64_t* units);
/// out[s] = min(length of row order[s] (or s), cap) for s < rows.
template <Index I>
void slot_lengths(const I* ptr, const I* order, std::int64_t rows, std::int64_t cap, I* out);
/// Writes the ELLPACK (or JAD) arrays of every group. S is T, or SELL-LP's
/// storage type (reduced_value_t<T>): the values are then rounded as
/// round_values does.
template <Value T, Index I, class S>
void fill_groups(const GroupFill<I>& g, const I* ptr, const I* col, const T* val, I* out_col,
                 S* out_val);
/// extra[r] = max(0, length of row r − K) for r < rows, extra[rows] = 0.
template <Index I>
void hyb_extra(const I* ptr, std::int64_t rows, std::int64_t K, std::int64_t* extra);
/// The COO part of HYB: entries beyond the K-th of each row, at
/// coo_begin[r] + (position in the row − K).
template <Value T, Index I>
void hyb_coo(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t K,
             const std::int64_t* coo_begin, std::int64_t coo_nnz, I* out_row, I* out_col,
             T* out_val);
/// COO row indices of a CSR: out[k] = row of entry k.
template <Index I>
void expand_rows(const I* ptr, std::int64_t rows, std::int64_t nnz, I* out);
/// JAD from the keys sorted by length_sort_keys (one window): count[d] =
/// rows longer than d for d < longest, count[longest] = 0; and per group of
/// kSlotBlock stored rows its width (the first row's length) and units.
void jad_counts(const std::uint64_t* sorted_keys, std::int64_t rows, std::int64_t longest,
                std::int64_t* count);
void jad_groups(const std::uint64_t* sorted_keys, std::int64_t rows, std::int64_t longest,
                std::int64_t groups, std::int64_t* width, std::int64_t* units);

// ---- SELL-pack, from a device SELL (convert_sell_pack.cu) -------------------

/// base[s] = the smallest column of slice s's true entries when they span at
/// most 65535 columns (0 for a slice without entries), else −1; count[s] =
/// C × slice_width[s] for a packed slice, else 0; count[slices] = 0.
template <Index I>
void sell_pack_bases(std::int64_t rows, std::int64_t C, std::int64_t slices, const I* slice_ptr,
                     const I* slice_width, const I* row_len, const I* col, I* base,
                     std::int64_t* count);
/// Splits SELL's column indices `col` (stored entries): packed slices'
/// entries go to col16 at pack_ptr[s] + position in the slice, as offsets
/// from base[s] (0 for padding); fallback slices' to col32 at slice_ptr[s] −
/// pack_ptr[s] + position.
template <Index I>
void sell_pack_fill(std::int64_t rows, std::int64_t C, std::int64_t slices, std::int64_t stored,
                    const I* slice_ptr, const I* pack_ptr, const I* base, const I* row_len,
                    const I* col, std::uint16_t* col16, I* col32);

// ---- DIA, HDI, BCSR (convert_diag.cu) ---------------------------------------

/// How entries are grouped and keyed: Diagonal: group = row / H, subkey =
/// column − row + rows − 1 (DIA is H = rows); Block: group = row / b, subkey
/// = column / b. key = group << sub_bits | subkey.
enum class KeyMode { Diagonal, Block };

template <Index I>
void entry_keys(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz, KeyMode mode,
                std::int64_t H, int sub_bits, std::uint64_t* keys);
/// The keys of the entries that start one along its direction (Diagonal:
/// no (i − 1, j − 1) stored in the entry's group; Block: no earlier entry of
/// its row in its block column, nor one in the row above in the same block
/// row), in no particular order; returns their number (at most nnz).
/// Every distinct key of the entries is among them, and a stencil's or a
/// block matrix's few keys a group are found from a few entries each: the
/// sort that follows takes those instead of every entry's key. Synchronous.
template <Index I>
std::int64_t run_keys(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz, KeyMode mode,
                      std::int64_t H, int sub_bits, std::uint64_t* keys);
/// Compacts the distinct values of sorted keys[0, n) into out; returns their
/// number. `flags` is scratch of n + 1 values. Synchronous.
std::int64_t unique_keys(const std::uint64_t* keys, std::int64_t n, std::int64_t* flags,
                         std::uint64_t* out);
/// start[g] = the first unique key of group g (lower bound of g << sub_bits),
/// for g in [0, groups].
void group_starts(const std::uint64_t* uniq, std::int64_t n, std::int64_t groups, int sub_bits,
                  std::int64_t* start);
/// out[k] = (uniq[k] & low mask) + shift.
template <Index I>
void subkeys(const std::uint64_t* uniq, std::int64_t n, int sub_bits, std::int64_t shift, I* out);
/// DIA's diagonals without a sort (KeyMode::Diagonal, one group: H ≥ rows):
/// sets bit j − i + rows − 1 of `bits` for every entry (i, j). `bits` holds
/// `words` = ⌈span / 32⌉ words, span = rows + cols − 1, zeroed here. Only
/// the first entry of each run along a diagonal (no (i − 1, j − 1) stored)
/// sets its bit, so a few diagonals shared by millions of entries cost a
/// few thousand updates. `lower`: only the entries on or below the diagonal
/// (SYM_DIA from the full matrix).
template <Index I>
void mark_diagonals(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz,
                    std::int64_t words, std::uint32_t* bits, bool lower = false);
/// The words of the bits of `span` diagonals (span ≥ 0, no overflow).
constexpr std::int64_t diagonal_words(std::int64_t span) {
  return span / 32 + (span % 32 != 0 ? 1 : 0);
}
/// mark_diagonals, then pos = the exclusive sums of the words' set bits
/// (`pos`: words + 1 values); returns the number of distinct diagonals.
/// Synchronous.
template <Index I>
std::int64_t count_diagonals(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz,
                             std::int64_t words, std::uint32_t* bits, std::int64_t* pos,
                             bool lower = false);
/// count[w] = the set bits of bits[w] for w < words, count[words] = 0.
void bit_counts(const std::uint32_t* bits, std::int64_t words, std::int64_t* count);
/// out[pos[w] + t] = 32·w + the position of the t-th set bit of bits[w]
/// (pos: bit_counts scanned): every set position, in increasing order.
void bit_positions(const std::uint32_t* bits, std::int64_t words, const std::int64_t* pos,
                   std::uint64_t* out);
/// Writes every CSR value at its place (values zeroed beforehand): Diagonal:
/// H·start[g] + d·rows_g + r; Block: (start[g] + d)·H² + (column % H)·H + r,
/// with d the index of the entry's key among its group's unique keys. S is T,
/// or DIA-LP's storage type (reduced_value_t<T>): the value is then rounded
/// as round_values does.
template <Value T, Index I, class S>
void scatter_values(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
                    KeyMode mode, std::int64_t H, int sub_bits, const std::uint64_t* uniq,
                    const std::int64_t* start, S* out);
/// log2 of the rows per block of dia_fill for nd diagonals of
/// `value_bytes` each (3..7), or −1 when nd diagonals of 8 rows do not fit
/// its stage in shared memory (then zero the values and scatter_values).
int dia_fill_log_rows(std::int64_t nd, std::size_t value_bytes);
/// DIA's values of a CSR, one group (H ≥ rows): out[t·rows + r] = the value
/// of row r on the t-th marked diagonal (0 where the row has none), for
/// every t < nd and r < rows, from the diagonals' bits and `pos` of
/// count_diagonals. Writes all of out (no zeroing needed); S as for
/// scatter_values. log_rows from dia_fill_log_rows (≥ 0). `lower`: the
/// entries above the diagonal are left out (SYM_DIA from the full matrix,
/// marked with lower as well).
template <Value T, Index I, class S>
void dia_fill(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
              const std::uint32_t* bits, const std::int64_t* pos, std::int64_t nd, int log_rows,
              bool lower, S* out);
/// The number of values equal to zero among val[0, nnz). Synchronous.
template <Value T>
std::int64_t count_zeros(const T* val, std::int64_t nnz);
/// flags[k] = (val[k] == 0) for k < nnz, flags[nnz] = 0.
template <Value T>
void zero_flags(const T* val, std::int64_t nnz, std::int64_t* flags);
/// Positions of the explicit zeros (flags scanned): rows and columns.
template <Index I>
void scatter_zeros(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz,
                   const std::int64_t* pos, I* out_row, I* out_col);

// ---- SYM_CSR (convert_sym.cu) -------------------------------------------------

/// count[r] = entries of row r with column <= r (the lower triangle and the
/// diagonal), for the n = rows entries of count; every entry above the
/// diagonal looks up its mirror: state[0] (set to UINT64_MAX before) is
/// lowered to the position of any whose mirror is absent or differs, and
/// state[1] (zero before) counts the diagonal entries.
template <Value T, Index I>
void sym_counts(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
                std::int64_t* count, unsigned long long* state);
/// Copies row r's lower part (low_ptr[r + 1] - low_ptr[r] entries) to
/// out_col/out_val at low_ptr[r].
template <Value T, Index I>
void sym_fill(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
              const std::int64_t* low_ptr, I* out_col, T* out_val);

}  // namespace spx::cuda::conv

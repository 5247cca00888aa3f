// Device-side conversions from CSR (see convert_device.hpp): the size checks
// (the host's own functions, on the same numbers, in the same order, before
// anything large is allocated), the allocation of the result, the device
// passes of convert_{scan,ellpack,diag}.cu, and the assembly of the format.
//
// The parameters were checked by the core before it called here
// (core/convert_checks.hpp). The result is assembled without reading its
// arrays back: the counts are known here (every CSR entry lands in the
// result), so the formats' `Known` constructors take them.
#include "cuda/convert_device.hpp"

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/convert_checks.hpp"
#include "core/convert_formats.hpp"
#include "core/convert_lowp.hpp"
#include "core/instantiate.hpp"
#include "core/padded.hpp"
#include "core/padded_size.hpp"
#include "cuda/check.hpp"
#include "cuda/csc.hpp"
#include "cuda/launch.hpp"
#include "cuda/register.hpp"
#include "spx/convert.hpp"

namespace spx::detail {

namespace {

namespace conv = cuda::conv;
constexpr Space kDev = Space::Device;

using cuda::Scratch;

template <class U>
Array<U> device_array(std::int64_t n) {
  return Array<U>(static_cast<std::size_t>(n), kDev);
}

/// n zeros in device memory (set on the conversion's stream); `what` names
/// them in an error.
template <class U>
Array<U> device_zeros(std::int64_t n, const char* what) {
  Array<U> a = device_array<U>(n);
  if (a.size() > 0) cuda::check(cudaMemsetAsync(a.data(), 0, a.bytes(), cudaStreamLegacy), what);
  return a;
}

/// Waits for the conversion's kernels (and reports their errors).
void finish() {
  cuda::check(cudaStreamSynchronize(cudaStreamLegacy), "device conversion");
}

/// The rare shapes whose sort keys would not fit 64 bits: convert on the host.
template <class F, Value T, Index I>
auto via_host(const Csr<T, I>& A, F&& host_convert) {
  return host_convert(A.to(Space::Host)).to(kDev);
}

/// The explicit zeros of a device CSR, as csr_explicit_zeros on the host.
template <Value T, Index I>
ExplicitZeros<I> device_explicit_zeros(const Csr<T, I>& A) {
  const std::int64_t nnz = A.nnz();
  // Counted first: most matrices have none, and a count reads the values
  // once where the positions' scan moves three times their bytes.
  if (nnz == 0 || conv::count_zeros(A.values().data(), nnz) == 0)
    return {device_array<I>(0), device_array<I>(0)};
  Scratch<std::int64_t> pos(nnz + 1);
  conv::zero_flags(A.values().data(), nnz, pos.get());
  conv::exclusive_sum(pos.get(), nnz + 1);
  const std::int64_t count = conv::read_back(pos.get() + nnz);
  ExplicitZeros<I> z{device_array<I>(count), device_array<I>(count)};
  if (count > 0)
    conv::scatter_zeros(A.row_ptr().data(), A.col_idx().data(), A.rows(), nnz, pos.get(),
                        z.rows.data(), z.cols.data());
  return z;
}

/// The sorted distinct keys of a CSR's entries (DIA, HDI, BCSR: see
/// conv::KeyMode), and the passes that use them.
struct GroupKeys {
  conv::KeyMode mode = conv::KeyMode::Diagonal;
  std::int64_t H = 0;
  int sub_bits = 0;
  std::int64_t count = 0;
  std::unique_ptr<Scratch<std::uint64_t>> a, b;
  const std::uint64_t* uniq = nullptr;
  /// One group without the sort: the diagonals' bits and their words'
  /// exclusive bit counts (count_diagonals), kept for dia_values.
  std::unique_ptr<Scratch<std::uint32_t>> bits;
  std::unique_ptr<Scratch<std::int64_t>> pos;
  /// The keys are those of the entries on or below the diagonal only.
  bool lower = false;

  /// start[g] = the first key of group g, for g in [0, groups].
  void group_starts(std::int64_t groups, std::int64_t* start) const {
    conv::group_starts(uniq, count, groups, sub_bits, start);
  }
  /// out[k] = the subkey of key k + shift (the diagonal offsets, block columns).
  template <Index I>
  void subkeys(std::int64_t shift, I* out) const {
    conv::subkeys(uniq, count, sub_bits, shift, out);
  }
  /// Every value of A at its place in `values` (zeroed before), as stored in
  /// an array of S (T, or DIA-LP's reduced type: rounded).
  template <Value T, Index I, class S>
  void scatter(const Csr<T, I>& A, const std::int64_t* start, S* values) const {
    conv::scatter_values(A.row_ptr().data(), A.col_idx().data(), A.values().data(), A.rows(),
                         A.nnz(), mode, H, sub_bits, uniq, start, values);
  }
  /// DIA's `size` values of A (one group: DIA, SYM_DIA's triangle, DIA-LP),
  /// stored as S: staged by row tiles (conv::dia_fill, which writes every
  /// value) when the diagonals were marked and fit its stage, else zeroed
  /// and scattered.
  template <class S, Value T, Index I>
  Array<S> dia_values(const Csr<T, I>& A, std::int64_t size, const char* what) const {
    const int log_rows = bits ? conv::dia_fill_log_rows(count, sizeof(S)) : -1;
    if (log_rows >= 0) {
      Array<S> values = device_array<S>(size);
      conv::dia_fill(A.row_ptr().data(), A.col_idx().data(), A.values().data(), A.rows(), A.nnz(),
                     bits->get(), pos->get(), count, log_rows, lower, values.data());
      return values;
    }
    if (lower) throw InternalError("device dia_values: the lower triangle's values need the stage");
    Array<S> values = device_zeros<S>(size, what);
    if (A.nnz() > 0) {
      Scratch<std::int64_t> start(2);
      group_starts(1, start.get());
      scatter(A, start.get(), values.data());
    }
    return values;
  }
};

/// The bits of DIA's diagonals (one per j − i + rows − 1) replace the sort
/// when their words number at most this many per entry and row, plus this
/// floor: about the memory of the sort's keys and flags (24 B an entry), and
/// far less time (the sort cost about 20 products on the large stencils).
/// Wider and sparser matrices sort.
constexpr std::int64_t kDiagonalWordsPerEntry = 2;
constexpr std::int64_t kDiagonalWordsFloor = std::int64_t{1} << 16;

/// The words of the bits of A's diagonals (one per j − i + rows − 1) when
/// they are few enough to replace the sort, else −1. The span, rows + cols −
/// 1, is counted without overflow (a 1 × 2⁶³−1 matrix is a valid shape).
template <Value T, Index I>
std::int64_t diagonal_bit_words(const Csr<T, I>& A) {
  if (A.cols() - 1 > LLONG_MAX - A.rows()) return -1;
  const std::int64_t words = conv::diagonal_words(A.rows() + A.cols() - 1);
  return words <= kDiagonalWordsPerEntry * (A.nnz() + A.rows()) + kDiagonalWordsFloor ? words : -1;
}

/// The sorted distinct keys of A's entries (of those on or below the
/// diagonal only when `lower`: SYM_DIA from the full matrix, which needs
/// the bits, diagonal_bit_words(A) >= 0).
template <Value T, Index I>
GroupKeys distinct_keys(const Csr<T, I>& A, conv::KeyMode mode, std::int64_t H, int sub_bits,
                        int end_bit, bool lower = false) {
  GroupKeys g;
  g.mode = mode;
  g.H = H;
  g.sub_bits = sub_bits;
  g.lower = lower;
  const std::int64_t nnz = A.nnz();
  if (nnz == 0) return g;
  const std::int64_t words = diagonal_bit_words(A);
  if (mode == conv::KeyMode::Diagonal && H >= A.rows() && words >= 0) {
    // One group (DIA, SYM_DIA's triangle, HDI with a single hack): the keys
    // are the diagonals themselves; mark them, then list the marked ones in
    // order.
    g.bits = std::make_unique<Scratch<std::uint32_t>>(words);
    g.pos = std::make_unique<Scratch<std::int64_t>>(words + 1);
    g.count = conv::count_diagonals(A.row_ptr().data(), A.col_idx().data(), A.rows(), nnz, words,
                                    g.bits->get(), g.pos->get(), lower);
    g.a = std::make_unique<Scratch<std::uint64_t>>(g.count);
    conv::bit_positions(g.bits->get(), words, g.pos->get(), g.a->get());
    g.uniq = g.a->get();
    return g;
  }
  if (lower)
    throw InternalError("device distinct_keys: the lower triangle's keys need the diagonal bits");
  // The keys of the entries that start a run (conv::run_keys), sorted, then
  // the distinct ones.
  g.a = std::make_unique<Scratch<std::uint64_t>>(nnz);
  const std::int64_t n = conv::run_keys(A.row_ptr().data(), A.col_idx().data(), A.rows(), nnz, mode,
                                        H, sub_bits, g.a->get());
  g.b = std::make_unique<Scratch<std::uint64_t>>(n);
  std::uint64_t* sorted = conv::sort_keys(g.a->get(), g.b->get(), n, end_bit);
  std::uint64_t* uniq = sorted == g.a->get() ? g.b->get() : g.a->get();
  Scratch<std::int64_t> flags(n + 1);
  g.count = conv::unique_keys(sorted, n, flags.get(), uniq);
  g.uniq = uniq;
  return g;
}

/// Exact host replay of the padded-size loop of SELL/HLL when the device sum
/// saturated (an overflow to report with the host's message).
std::int64_t replay_sizes(const char* format, const char* group_what,
                          const std::vector<std::int64_t>& slots,
                          const std::vector<std::int64_t>& width) {
  std::int64_t stored = 0;
  for (std::size_t g = 0; g < width.size(); ++g)
    stored = padded_add(format, "stored entries", stored,
                        padded_mul(format, group_what, slots[g], width[g]));
  return stored;
}

/// Group widths, sizes, offsets and warp units of the groups of an ELLPACK
/// layout (SELL slices, HLL hacks).
struct Groups {
  std::int64_t groups = 0, stored = 0, units = 0;
  Scratch<std::int64_t> width, offset, unit_ptr;
  explicit Groups(std::int64_t n) : groups(n), width(n), offset(n + 1), unit_ptr(n + 1) {}

  /// The fill of these groups of C slots, total_slots in all, slot s < rows
  /// holding CSR row order[s] (or s without order).
  template <Index I>
  conv::GroupFill<I> fill(std::int64_t C, std::int64_t total_slots, std::int64_t rows,
                          const I* order) const {
    conv::GroupFill<I> f;
    f.groups = groups;
    f.C = C;
    f.total_slots = total_slots;
    f.rows = rows;
    f.width = width.get();
    f.offset = offset.get();
    f.unit_ptr = unit_ptr.get();
    f.units = units;
    f.order = order;
    return f;
  }
};

/// The ELL arrays of A with `width` slots per row (width ≥ the longest row
/// for ELL; HYB's ELL part keeps the first `width` entries of longer rows):
/// len[r] = min(length of row r, width), col and val column-major.
template <Value T, Index I>
void fill_ell(const Csr<T, I>& A, std::int64_t width, I* len, I* col, T* val) {
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();
  conv::slot_lengths(ptr, static_cast<const I*>(nullptr), rows, width, len);
  conv::GroupFill<I> fill;
  fill.C = fill.total_slots = fill.rows = rows;
  fill.width0 = width;
  fill.units = conv::group_units(rows, width);
  conv::fill_groups(fill, ptr, A.col_idx().data(), A.values().data(), col, val);
}

template <Index I>
void layout_groups(Groups& g, const char* format, const char* group_what, const I* ptr,
                   const I* order, std::int64_t rows, std::int64_t C, std::int64_t total_slots,
                   std::int64_t round) {
  conv::group_widths(ptr, order, rows, C, g.groups, g.width.get());
  conv::group_sizes(g.width.get(), g.groups, C, total_slots, round, g.offset.get(),
                    g.unit_ptr.get());
  conv::exclusive_sum_saturating(g.offset.get(), g.groups + 1);
  conv::exclusive_sum(g.unit_ptr.get(), g.groups + 1);
  g.stored = conv::read_back(g.offset.get() + g.groups);
  if (g.stored == LLONG_MAX) {
    std::vector<std::int64_t> width(static_cast<std::size_t>(g.groups)), slots(width.size());
    cuda::check(cudaMemcpy(width.data(), g.width.get(), width.size() * sizeof(std::int64_t),
                           cudaMemcpyDeviceToHost),
                "cudaMemcpy (group widths)");
    for (std::int64_t k = 0; k < g.groups; ++k)
      slots[k] = std::min(C, total_slots - k * C);
    g.stored = replay_sizes(format, group_what, slots, width);
  }
  g.units = conv::read_back(g.unit_ptr.get() + g.groups);
}

// ---- ELL ----------------------------------------------------------------------

template <Value T, Index I>
Ell<T, I> device_to_ell(const Csr<T, I>& A, const ConvertOptions& options) {
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();
  const std::int64_t width = conv::longest_row(ptr, rows);

  const std::int64_t stored = padded_mul("ELL", "rows x width", rows, width);
  require_index_fits<I>("ELL", "rows x width", stored);
  require_budget("ELL", fmt::format("{} rows x width {} (the longest row)", rows, width), stored,
                 padded_bytes<T, I>(stored, rows), A.bytes(), options);

  Array<I> col = device_array<I>(stored);
  Array<T> val = device_array<T>(stored);
  Array<I> len = device_array<I>(rows);
  fill_ell(A, width, len.data(), col.data(), val.data());
  finish();
  return Ell<T, I>(rows, A.cols(), static_cast<I>(width), std::move(col), std::move(val),
                   std::move(len), Known{.nnz = A.nnz()});
}

// ---- SELL ---------------------------------------------------------------------

/// SELL of A. With `reduced` (SELL-LP), the values are rounded into it as
/// they are placed, and the SELL's own values array is left empty.
template <Value T, Index I>
Sell<T, I> device_sell(const Csr<T, I>& A, const ConvertOptions& options,
                       Array<reduced_value_t<T>>* reduced) {
  const int C = options.slice_size, sigma = options.sigma, tpr = options.threads_per_row;
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();

  // Rows sorted by decreasing length within windows of sigma rows (stable):
  // one radix sort of (window, longest − length) keys.
  std::unique_ptr<Scratch<std::uint64_t>> keys, keys_alt;
  std::unique_ptr<Scratch<I>> vals, vals_alt;
  const I* order = nullptr;
  if (sigma > 1 && rows > 0) {
    const std::int64_t longest = conv::longest_row(ptr, rows);
    const std::int64_t windows = (rows + sigma - 1) / sigma;
    const int len_bits = conv::bit_width(static_cast<std::uint64_t>(longest));
    const int end_bit = conv::bit_width(static_cast<std::uint64_t>(windows - 1)) + len_bits;
    if (end_bit > 64) {
      Sell<T, I> S = via_host(A, [&](const Csr<T, I>& H) { return to_sell(H, options); });
      if (reduced != nullptr) {
        *reduced = device_array<reduced_value_t<T>>(S.stored());
        conv::round_values(S.values().data(), S.stored(), reduced->data());
        finish();  // SellLp drops S's own values
      }
      return S;
    }
    keys = std::make_unique<Scratch<std::uint64_t>>(rows);
    keys_alt = std::make_unique<Scratch<std::uint64_t>>(rows);
    vals = std::make_unique<Scratch<I>>(rows);
    vals_alt = std::make_unique<Scratch<I>>(rows);
    conv::length_sort_keys(ptr, rows, sigma, len_bits, longest, keys->get(), vals->get());
    std::uint64_t* sorted_keys = nullptr;
    order = conv::sort_pairs(keys->get(), keys_alt->get(), vals->get(), vals_alt->get(), rows,
                             end_bit, &sorted_keys);
  }

  // Slice widths (rounded up to a multiple of threads_per_row) and offsets,
  // checked before anything large is allocated.
  const std::int64_t slices = (rows + C - 1) / C;
  Groups g(slices);
  layout_groups(g, "SELL", "slice entries", ptr, order, rows, C, slices * C, tpr);
  const std::int64_t stored = g.stored;
  require_index_fits<I>("SELL", "stored entries", stored);
  const std::int64_t index_entries = 2 * slices + 1 + rows + (sigma > 1 ? rows : 0);
  require_budget("SELL", fmt::format("{} slices of C = {} rows, sigma = {}", slices, C, sigma),
                 stored, padded_bytes<T, I>(stored, index_entries), A.bytes(), options);

  Array<I> slice_ptr = device_array<I>(slices + 1);
  Array<I> slice_width = device_array<I>(slices);
  Array<I> col = device_array<I>(stored);
  Array<T> val = device_array<T>(reduced != nullptr ? 0 : stored);
  if (reduced != nullptr) *reduced = device_array<reduced_value_t<T>>(stored);
  Array<I> len = device_array<I>(rows);
  Array<I> perm = device_array<I>(sigma > 1 ? rows : 0);
  conv::narrow(g.offset.get(), slices + 1, slice_ptr.data());
  conv::narrow(g.width.get(), slices, slice_width.data());
  conv::slot_lengths(ptr, order, rows, LLONG_MAX, len.data());
  const conv::GroupFill<I> fill = g.fill(C, slices * C, rows, order);
  if (reduced != nullptr)
    conv::fill_groups(fill, ptr, A.col_idx().data(), A.values().data(), col.data(),
                      reduced->data());
  else
    conv::fill_groups(fill, ptr, A.col_idx().data(), A.values().data(), col.data(), val.data());
  if (order != nullptr && rows > 0)
    cuda::check(cudaMemcpyAsync(perm.data(), order, perm.bytes(), cudaMemcpyDeviceToDevice,
                                cudaStreamLegacy),
                "cudaMemcpyAsync (SELL permutation)");
  finish();
  return Sell<T, I>(rows, A.cols(), C, sigma, tpr, std::move(slice_ptr), std::move(slice_width),
                    std::move(col), std::move(val), std::move(len), std::move(perm),
                    Known{.nnz = A.nnz()});
}

template <Value T, Index I>
Sell<T, I> device_to_sell(const Csr<T, I>& A, const ConvertOptions& options) {
  return device_sell<T, I>(A, options, nullptr);
}

// ---- SELL-pack --------------------------------------------------------------------

/// SELL (above: its sizes, checks and refusals), then two passes over its
/// column indices: the slices' bases and packed sizes (a warp per slice), an
/// exclusive sum, and the split into 16-bit offsets and full indices (a
/// thread per stored entry). SELL's values move over; its per-slice and
/// per-row arrays are copied.
template <Value T, Index I>
SellPack<T, I> device_to_sell_pack(const Csr<T, I>& A, const ConvertOptions& options) {
  Sell<T, I> S = device_to_sell(A, options);
  const std::int64_t rows = S.rows(), C = S.slice_size(), slices = S.num_slices();
  const std::int64_t stored = S.stored();
  Array<I> base = device_array<I>(slices);
  Array<I> pack_ptr = device_array<I>(slices + 1);
  Scratch<std::int64_t> count(slices + 1);
  conv::sell_pack_bases(rows, C, slices, S.slice_ptr().data(), S.slice_width().data(),
                        S.row_len().data(), S.col_idx().data(), base.data(), count.get());
  conv::exclusive_sum(count.get(), slices + 1);
  conv::narrow(count.get(), slices + 1, pack_ptr.data());
  const std::int64_t packed = conv::read_back(count.get() + slices);
  Array<std::uint16_t> col16 = device_array<std::uint16_t>(packed);
  Array<I> col32 = device_array<I>(stored - packed);
  conv::sell_pack_fill(rows, C, slices, stored, S.slice_ptr().data(), pack_ptr.data(), base.data(),
                       S.row_len().data(), S.col_idx().data(), col16.data(), col32.data());
  finish();
  return SellPack<T, I>(A.rows(), A.cols(), S.slice_size(), S.sigma(), S.threads_per_row(),
                        S.slice_ptr().clone(), S.slice_width().clone(), std::move(base),
                        std::move(pack_ptr), std::move(col16), std::move(col32),
                        std::move(S.values()), S.row_len().clone(), S.perm().clone(),
                        Known{.nnz = A.nnz()});
}

// ---- SELL-LP ------------------------------------------------------------------

/// SELL on the device with its values rounded to the storage type as they
/// are placed. An overflowing value is found on the device; the refusal is
/// then the host check's on a host copy, so that both give the same message.
template <Value T, Index I>
SellLp<T, I> device_to_sell_lp(const Csr<T, I>& A, const ConvertOptions& options) {
  if (conv::first_overflow(A.values().data(), A.nnz()) >= 0)
    check_reduced_range(A.to(Space::Host), Format::SellLp);  // throws
  Array<reduced_value_t<T>> val;
  Sell<T, I> s = device_sell<T, I>(A, options, &val);
  return SellLp<T, I>(std::move(s), std::move(val));
}

// ---- HLL ----------------------------------------------------------------------

template <Value T, Index I>
Hll<T, I> device_to_hll(const Csr<T, I>& A, const ConvertOptions& options) {
  const int H = options.hack_size;
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();
  const std::int64_t hacks = (rows + H - 1) / H;

  Groups g(hacks);
  layout_groups(g, "HLL", "hack entries", ptr, static_cast<const I*>(nullptr), rows, H, rows, 1);
  const std::int64_t stored = g.stored;
  require_index_fits<I>("HLL", "stored entries", stored);
  require_budget("HLL", fmt::format("{} hacks of H = {} rows", hacks, H), stored,
                 padded_bytes<T, I>(stored, hacks + 1 + rows), A.bytes(), options);

  Array<I> hack_ptr = device_array<I>(hacks + 1);
  Array<I> col = device_array<I>(stored);
  Array<T> val = device_array<T>(stored);
  Array<I> len = device_array<I>(rows);
  conv::narrow(g.offset.get(), hacks + 1, hack_ptr.data());
  conv::slot_lengths(ptr, static_cast<const I*>(nullptr), rows, LLONG_MAX, len.data());
  conv::fill_groups(g.fill(H, rows, rows, static_cast<const I*>(nullptr)), ptr, A.col_idx().data(),
                    A.values().data(), col.data(), val.data());
  finish();
  return Hll<T, I>(rows, A.cols(), H, std::move(hack_ptr), std::move(col), std::move(val),
                   std::move(len), Known{.nnz = A.nnz()});
}

// ---- HYB ----------------------------------------------------------------------

template <Value T, Index I>
Hyb<T, I> device_to_hyb(const Csr<T, I>& A, const ConvertOptions& options) {
  const std::int64_t rows = A.rows();
  const I* ptr = A.row_ptr().data();
  const std::int64_t longest = conv::longest_row(ptr, rows);
  std::int64_t K = 0;
  if (options.hyb_width >= 0) {
    K = std::min(options.hyb_width, longest);
  } else if (rows > 0) {
    // Bell and Garland: the largest K that a third of the rows reach, i.e.
    // the ceil(rows/3)-th largest row length.
    Scratch<std::uint64_t> keys(rows), alt(rows);
    conv::length_keys(ptr, rows, keys.get());
    const std::uint64_t* sorted = conv::sort_keys(
        keys.get(), alt.get(), rows, conv::bit_width(static_cast<std::uint64_t>(longest)));
    const std::int64_t third = (rows + 2) / 3;
    K = static_cast<std::int64_t>(conv::read_back(sorted + (rows - third)));
  }

  // COO part: the entries beyond the K-th of each row, in row order.
  Scratch<std::int64_t> coo_begin(rows + 1);
  conv::hyb_extra(ptr, rows, K, coo_begin.get());
  conv::exclusive_sum(coo_begin.get(), rows + 1);
  const std::int64_t coo_nnz = conv::read_back(coo_begin.get() + rows);

  const std::int64_t stored = padded_mul("HYB", "rows x width", rows, K);
  require_index_fits<I>("HYB", "rows x width", stored);
  require_budget(
      "HYB",
      fmt::format("ELL part of {} rows x width {}, COO part of {} entries", rows, K, coo_nnz),
      stored + coo_nnz, padded_bytes<T, I>(stored, rows) + padded_bytes<T, I>(coo_nnz, coo_nnz),
      A.bytes(), options);

  Array<I> ell_col = device_array<I>(stored);
  Array<T> ell_val = device_array<T>(stored);
  Array<I> ell_len = device_array<I>(rows);
  Array<I> coo_row = device_array<I>(coo_nnz);
  Array<I> coo_col = device_array<I>(coo_nnz);
  Array<T> coo_val = device_array<T>(coo_nnz);
  fill_ell(A, K, ell_len.data(), ell_col.data(), ell_val.data());
  conv::hyb_coo(ptr, A.col_idx().data(), A.values().data(), rows, K, coo_begin.get(), coo_nnz,
                coo_row.data(), coo_col.data(), coo_val.data());
  finish();
  Ell<T, I> ell =
      Ell<T, I>(rows, A.cols(), static_cast<I>(K), std::move(ell_col), std::move(ell_val),
                std::move(ell_len), Known{.nnz = A.nnz() - coo_nnz});
  Coo<T, I> coo = Coo<T, I>(rows, A.cols(), std::move(coo_row), std::move(coo_col),
                            std::move(coo_val), Known{.nnz = 0, .sorted = true});
  return Hyb<T, I>(std::move(ell), std::move(coo), Check::Trusted);
}

// ---- JAD ----------------------------------------------------------------------

template <Value T, Index I>
Jad<T, I> device_to_jad(const Csr<T, I>& A, const ConvertOptions&) {
  const std::int64_t rows = A.rows(), nnz = A.nnz();
  const I* ptr = A.row_ptr().data();
  const std::int64_t longest = conv::longest_row(ptr, rows);
  const int len_bits = conv::bit_width(static_cast<std::uint64_t>(longest));

  // Stable sort of the rows by decreasing length: keys longest − length.
  Scratch<std::uint64_t> keys(rows), keys_alt(rows);
  Scratch<I> vals(rows), vals_alt(rows);
  const I* order = nullptr;
  std::uint64_t* sorted_keys = keys.get();
  if (rows > 0) {
    conv::length_sort_keys(ptr, rows, rows, len_bits, longest, keys.get(), vals.get());
    order = conv::sort_pairs(keys.get(), keys_alt.get(), vals.get(), vals_alt.get(), rows, len_bits,
                             &sorted_keys);
  }
  // jd_ptr: exclusive sums of the diagonal lengths (rows longer than d).
  Scratch<std::int64_t> count(longest + 1);
  conv::jad_counts(sorted_keys, rows, longest, count.get());
  conv::exclusive_sum(count.get(), longest + 1);

  Array<I> perm = device_array<I>(rows);
  Array<I> jd_ptr = device_array<I>(longest + 1);
  Array<I> col = device_array<I>(nnz);
  Array<T> val = device_array<T>(nnz);
  conv::narrow(count.get(), longest + 1, jd_ptr.data());
  if (rows > 0) {
    cuda::check(cudaMemcpyAsync(perm.data(), order, perm.bytes(), cudaMemcpyDeviceToDevice,
                                cudaStreamLegacy),
                "cudaMemcpyAsync (JAD permutation)");
    const std::int64_t groups = (rows + conv::kSlotBlock - 1) / conv::kSlotBlock;
    Scratch<std::int64_t> width(groups), unit_ptr(groups + 1);
    conv::jad_groups(sorted_keys, rows, longest, groups, width.get(), unit_ptr.get());
    conv::exclusive_sum(unit_ptr.get(), groups + 1);
    conv::GroupFill<I> fill;
    fill.groups = groups;
    fill.C = conv::kSlotBlock;
    fill.total_slots = fill.rows = rows;
    fill.width = width.get();
    fill.unit_ptr = unit_ptr.get();
    fill.units = conv::read_back(unit_ptr.get() + groups);
    fill.order = order;
    fill.jd_ptr = jd_ptr.data();
    conv::fill_groups(fill, ptr, A.col_idx().data(), A.values().data(), col.data(), val.data());
  }
  finish();
  return Jad<T, I>(A.rows(), A.cols(), std::move(perm), std::move(jd_ptr), std::move(col),
                   std::move(val), Check::Trusted);
}

// ---- SYM_CSR ------------------------------------------------------------------

/// The lower triangle of a symmetric device CSR, as a device CSR (row i's
/// columns <= i), and its diagonal entries. The test of symmetry runs on the
/// device: every entry above the diagonal finds its mirror (same value), and
/// the entries below it are as many (so every one of them is a mirror). A
/// refusal is rare and takes the host's path (the CSR copied back), so that
/// it names the same entry with the same message; `format` (SYM_CSR or
/// SYM_DIA) is the target the messages name.
template <Value T, Index I>
struct Lower {
  Array<I> ptr, col;
  Array<T> val;
  std::int64_t diagonal = 0;
};

/// The device's symmetry test of CSR → SYM_CSR / SYM_DIA, refusing as the
/// host does: count = the lower row lengths, scanned (rows + 1 values),
/// stored = their sum, diagonal = the rows with a diagonal entry.
struct SymCheck {
  std::unique_ptr<Scratch<std::int64_t>> count;
  std::int64_t stored = 0, diagonal = 0;
};

template <Value T, Index I>
SymCheck device_sym_check(const Csr<T, I>& A, std::string_view format) {
  check_sym_square(A.rows(), A.cols(), format);
  const std::int64_t rows = A.rows(), nnz = A.nnz();
  SymCheck c{std::make_unique<Scratch<std::int64_t>>(rows + 1)};
  Scratch<unsigned long long> state(2);
  // state[0] = UINT64_MAX (no asymmetric entry yet), state[1] = 0.
  cuda::check(cudaMemsetAsync(state.get(), 0xFF, sizeof(unsigned long long), cudaStreamLegacy),
              "cudaMemsetAsync (SYM_CSR state)");
  cuda::check(cudaMemsetAsync(state.get() + 1, 0, sizeof(unsigned long long), cudaStreamLegacy),
              "cudaMemsetAsync (SYM_CSR state)");
  conv::sym_counts(A.row_ptr().data(), A.col_idx().data(), A.values().data(), rows, nnz,
                   c.count->get(), state.get());
  conv::exclusive_sum(c.count->get(), rows + 1);
  c.stored = conv::read_back(c.count->get() + rows);
  unsigned long long found[2] = {0, 0};
  cuda::check(cudaMemcpy(found, state.get(), sizeof found, cudaMemcpyDeviceToHost),
              "cudaMemcpy (SYM_CSR state)");
  c.diagonal = static_cast<std::int64_t>(found[1]);
  if (found[0] != ULLONG_MAX || c.stored - c.diagonal != nnz - c.stored) {
    check_symmetric(A.to(Space::Host), format);  // throws the host's refusal
    throw InternalError(fmt::format(
        "CSR to {}: the device found the matrix not symmetric, the host did not", format));
  }
  return c;
}

template <Value T, Index I>
Lower<T, I> device_lower(const Csr<T, I>& A, std::string_view format) {
  const SymCheck sym = device_sym_check(A, format);
  const std::int64_t rows = A.rows(), nnz = A.nnz(), stored = sym.stored, diagonal = sym.diagonal;
  const I* ptr = A.row_ptr().data();
  const std::int64_t* count = sym.count->get();
  Array<I> low_ptr = device_array<I>(rows + 1);
  Array<I> col = device_array<I>(stored);
  Array<T> val = device_array<T>(stored);
  conv::narrow(count, rows + 1, low_ptr.data());
  conv::sym_fill(ptr, A.col_idx().data(), A.values().data(), rows, nnz, count, col.data(),
                 val.data());
  return {std::move(low_ptr), std::move(col), std::move(val), diagonal};
}

template <Value T, Index I>
SymCsr<T, I> device_to_sym_csr(const Csr<T, I>& A, const ConvertOptions&) {
  Lower<T, I> low = device_lower(A, "SYM_CSR");
  finish();
  return SymCsr<T, I>(A.rows(), std::move(low.ptr), std::move(low.col), std::move(low.val),
                      Known{.nnz = A.nnz(), .sorted = true});
}

// ---- DIA ----------------------------------------------------------------------

/// DIA's layout of A with its values stored as S (T for DIA, the reduced
/// type for DIA-LP, rounded on the way): the diagonals, the budget checked,
/// the values placed, the explicit zeros.
template <class S, Index I>
struct DiaParts {
  Array<I> offsets;
  Array<S> values;
  ExplicitZeros<I> zeros;
};

/// Whose DIA layout dia_parts builds: the format a refusal names, the
/// entries and CSR bytes its budget is checked against (DIA, DIA-LP: A's
/// own; SYM_DIA: the lower triangle's entries and the full CSR's bytes, as
/// on the host), and `lower`: only A's entries on or below the diagonal
/// (SYM_DIA from the full CSR, which then holds no explicit zero).
struct DiaOf {
  std::string_view format;
  std::int64_t stored = 0;
  std::size_t csr_bytes = 0;
  bool lower = false;
};

/// DIA's parts, or none with `lower` when the diagonals outnumber
/// dia_fill's stage (the budget checked first, so that a refusal comes
/// first): the values of A's lower entries are only staged, not scattered.
template <class S, Value T, Index I>
std::optional<DiaParts<S, I>> dia_parts(const Csr<T, I>& A, const ConvertOptions& options,
                                        const DiaOf& of) {
  const std::int64_t m = A.rows();
  const int sub_bits = conv::bit_width(conv::largest_diagonal_key(m, A.cols()));
  // One group (H = m): the keys are the diagonals, j − i + m − 1.
  GroupKeys keys = distinct_keys(A, conv::KeyMode::Diagonal, m, sub_bits, sub_bits, of.lower);
  const std::int64_t nd = keys.count;

  const PaddedSize size = dia_size<T, I>(m, nd);
  check_padded_budget(of.format, fmt::format("{} rows x {} diagonals", m, nd), size, of.stored,
                      of.csr_bytes, options);
  if (of.lower && conv::dia_fill_log_rows(nd, sizeof(S)) < 0) return std::nullopt;

  const std::string what = fmt::format("cudaMemsetAsync ({} values)", of.format);
  DiaParts<S, I> d{device_array<I>(nd), keys.dia_values<S>(A, size.values, what.c_str()), {}};
  keys.subkeys(-(m - 1), d.offsets.data());
  d.zeros = of.lower ? ExplicitZeros<I>{device_array<I>(0), device_array<I>(0)}
                     : device_explicit_zeros(A);
  return d;
}

/// DIA's parts of all of A's entries, its budget DIA's.
template <class S, Value T, Index I>
DiaParts<S, I> dia_parts(const Csr<T, I>& A, const ConvertOptions& options) {
  return *dia_parts<S>(A, options, DiaOf{"DIA", A.nnz(), A.bytes()});
}

template <Value T, Index I>
Dia<T, I> device_to_dia(const Csr<T, I>& A, const ConvertOptions& options) {
  DiaParts<T, I> d = dia_parts<T>(A, options);
  finish();
  return Dia<T, I>(A.rows(), A.cols(), std::move(d.offsets), std::move(d.values),
                   std::move(d.zeros), Known{.nnz = A.nnz()});
}

// ---- SYM_DIA ------------------------------------------------------------------

/// The symmetry test (its refusals as the host's), then DIA's passes over
/// the entries of A on or below the diagonal, without copying them out,
/// when the diagonals' bits apply, A holds no explicit zero (whose list is
/// the triangle's, in its order) and the diagonals fit dia_fill's stage;
/// otherwise over the lower triangle copied out (device_lower). The budget
/// is checked against the full CSR's bytes, as on the host. (Copying the
/// triangle cost about 0.4 ms of the 1.2 ms conversion of
/// stencil3d-7pt-n144-sym f64 on the H200, session 24.)
template <Value T, Index I>
SymDia<T, I> device_to_sym_dia(const Csr<T, I>& A, const ConvertOptions& options) {
  const auto sym_dia = [&](DiaParts<T, I>& d, std::int64_t diagonal) {
    finish();
    return SymDia<T, I>(A.rows(), std::move(d.offsets), std::move(d.values), std::move(d.zeros),
                        Known{.nnz = A.nnz()}, diagonal);
  };
  if (A.nnz() > 0 && A.rows() == A.cols() && diagonal_bit_words(A) >= 0 &&
      conv::count_zeros(A.values().data(), A.nnz()) == 0) {
    SymCheck sym = device_sym_check(A, "SYM_DIA");
    sym.count.reset();  // the lower row lengths: not needed here
    if (auto d = dia_parts<T>(A, options, DiaOf{"SYM_DIA", sym.stored, A.bytes(), true}))
      return sym_dia(*d, sym.diagonal);
  }
  Lower<T, I> low = device_lower(A, "SYM_DIA");
  const Csr<T, I> L(A.rows(), A.cols(), std::move(low.ptr), std::move(low.col), std::move(low.val),
                    Check::Trusted);
  auto d = dia_parts<T>(L, options, DiaOf{"SYM_DIA", L.nnz(), A.bytes()});
  return sym_dia(*d, low.diagonal);
}

// ---- DIA-LP -------------------------------------------------------------------

/// DIA's layout on the device with the values rounded to the storage type
/// as they are scattered; the refusal of an overflowing value as SELL-LP's.
/// A nonzero that rounds to zero (below the storage type's subnormals: rare)
/// joins the explicit zeros: that case is the host conversion's, copied to
/// the device.
template <Value T, Index I>
DiaLp<T, I> device_to_dia_lp(const Csr<T, I>& A, const ConvertOptions& options) {
  if (conv::first_overflow(A.values().data(), A.nnz()) >= 0)
    check_reduced_range(A.to(Space::Host), Format::DiaLp);  // throws
  if (conv::first_flushed(A.values().data(), A.nnz()) >= 0)
    return std::get<DiaLp<T, I>>(convert(A.to(Space::Host), Format::DiaLp, options))
        .to(Space::Device);
  DiaParts<reduced_value_t<T>, I> d = dia_parts<reduced_value_t<T>>(A, options);
  finish();
  // DIA's structure with an empty values array: DiaLp keeps the offsets
  // and the explicit zeros, and drops DIA's values anyway.
  Dia<T, I> structure(A.rows(), A.cols(), std::move(d.offsets), device_array<T>(0),
                      std::move(d.zeros), Known{.nnz = A.nnz()});
  return DiaLp<T, I>(std::move(structure), std::move(d.values));
}

// ---- HDI ----------------------------------------------------------------------

template <Value T, Index I>
Hdi<T, I> device_to_hdi(const Csr<T, I>& A, const ConvertOptions& options) {
  const std::int64_t m = A.rows(), n = A.cols(), nnz = A.nnz(), H = options.hack_size;
  const std::int64_t nh = (m + H - 1) / H;
  const I hack = checked_index<I>(H, "HDI hack_size");
  const int sub_bits = conv::bit_width(conv::largest_diagonal_key(m, n));
  const int end_bit = conv::bit_width(static_cast<std::uint64_t>(nh > 0 ? nh - 1 : 0)) + sub_bits;
  if (end_bit > 64) return via_host(A, [&](const Csr<T, I>& h) { return to_hdi(h, options); });

  GroupKeys keys = distinct_keys(A, conv::KeyMode::Diagonal, H, sub_bits, end_bit);
  const std::int64_t total = keys.count;
  Scratch<std::int64_t> start(nh + 1);
  keys.group_starts(nh, start.get());

  const std::int64_t last_rows = nh > 0 ? m - (nh - 1) * H : 0;
  const std::int64_t last_diags = nh > 0 ? total - conv::read_back(start.get() + nh - 1) : 0;
  const PaddedSize size = hdi_size<T, I>(H, nh, total, last_rows, last_diags);
  check_padded_budget("HDI",
                      fmt::format("{} hacks of {} rows (the last {}) with {} diagonals in all", nh,
                                  H, last_rows, total),
                      size, A.nnz(), A.bytes(), options);

  Array<I> hack_ptr = device_array<I>(nh + 1);
  Array<I> offsets = device_array<I>(total);
  Array<T> values = device_zeros<T>(size.values, "cudaMemsetAsync (HDI values)");
  conv::narrow(start.get(), nh + 1, hack_ptr.data());
  keys.subkeys(-(m - 1), offsets.data());
  keys.scatter(A, start.get(), values.data());
  ExplicitZeros<I> zeros = device_explicit_zeros(A);
  finish();
  return Hdi<T, I>(m, n, hack, std::move(hack_ptr), std::move(offsets), std::move(values),
                   std::move(zeros), Known{.nnz = nnz});
}

// ---- BCSR ---------------------------------------------------------------------

template <Value T, Index I>
Bcsr<T, I> device_to_bcsr(const Csr<T, I>& A, const ConvertOptions& options) {
  const std::int64_t m = A.rows(), n = A.cols(), nnz = A.nnz(), b = options.block_size;
  const std::int64_t mb = (m + b - 1) / b, nbc = (n + b - 1) / b;
  const int sub_bits = conv::bit_width(static_cast<std::uint64_t>(nbc > 0 ? nbc - 1 : 0));
  const int end_bit = conv::bit_width(static_cast<std::uint64_t>(mb > 0 ? mb - 1 : 0)) + sub_bits;
  if (end_bit > 64) return via_host(A, [&](const Csr<T, I>& h) { return to_bcsr(h, options); });

  GroupKeys keys = distinct_keys(A, conv::KeyMode::Block, b, sub_bits, end_bit);
  const std::int64_t nblocks = keys.count;

  // Refuse before allocating: low fill, or storage beyond the budget.
  check_bcsr_size<T, I>(mb, nblocks, b, A.nnz(), A.bytes(), options);
  const PaddedSize size = bcsr_size<T, I>(mb, nblocks, b);

  Scratch<std::int64_t> start(mb + 1);
  keys.group_starts(mb, start.get());
  Array<I> block_ptr = device_array<I>(mb + 1);
  Array<I> block_col = device_array<I>(nblocks);
  Array<T> values = device_zeros<T>(size.values, "cudaMemsetAsync (BCSR values)");
  conv::narrow(start.get(), mb + 1, block_ptr.data());
  keys.subkeys(0, block_col.data());
  keys.scatter(A, start.get(), values.data());
  ExplicitZeros<I> zeros = device_explicit_zeros(A);
  finish();
  return Bcsr<T, I>(m, n, static_cast<int>(b), std::move(block_ptr), std::move(block_col),
                    std::move(values), std::move(zeros), Known{.nnz = nnz});
}

// ---- COO ----------------------------------------------------------------------

template <Value T, Index I>
Coo<T, I> device_to_coo(const Csr<T, I>& A) {
  Array<I> rows = device_array<I>(A.nnz());
  conv::expand_rows(A.row_ptr().data(), A.rows(), A.nnz(), rows.data());
  Array<I> col = A.col_idx().clone();
  Array<T> val = A.values().clone();
  finish();
  // CSR columns increase strictly within each row: (row, column) order.
  return Coo<T, I>(A.rows(), A.cols(), std::move(rows), std::move(col), std::move(val),
                   Known{.nnz = 0, .sorted = true});
}

/// CSC: the transposition of the pattern (a stable sort of the entries by
/// column, so rows increase within each column, as on the host), the values
/// gathered through its permutation.
template <Value T, Index I>
Csc<T, I> device_to_csc(const Csr<T, I>& A) {
  cuda::TransposedPattern<I> t = cuda::transpose_pattern<I>(
      A.rows(), A.cols(), A.row_ptr().data(), A.col_idx().data(), A.nnz(), cudaStreamLegacy);
  Array<T> val = device_array<T>(A.nnz());
  cuda::gather(A.values().data(), t.perm.data(), A.nnz(), val.data(), cudaStreamLegacy);
  finish();
  return Csc<T, I>(A.rows(), A.cols(), std::move(t.ptr), std::move(t.idx), std::move(val),
                   Check::Trusted);
}

}  // namespace

template <Value T, Index I>
void register_cuda_conversions(Registry<T, I>& reg) {
  constexpr Backend kCuda = Backend::Cuda;
  reg.template add_conversion<Ell<T, I>>(kCuda, device_to_ell<T, I>);
  reg.template add_conversion<Sell<T, I>>(kCuda, device_to_sell<T, I>);
  reg.template add_conversion<SellPack<T, I>>(kCuda, device_to_sell_pack<T, I>);
  reg.template add_conversion<SellLp<T, I>>(kCuda, device_to_sell_lp<T, I>);
  reg.template add_conversion<Hll<T, I>>(kCuda, device_to_hll<T, I>);
  reg.template add_conversion<Hyb<T, I>>(kCuda, device_to_hyb<T, I>);
  reg.template add_conversion<Jad<T, I>>(kCuda, device_to_jad<T, I>);
  reg.template add_conversion<Dia<T, I>>(kCuda, device_to_dia<T, I>);
  reg.template add_conversion<DiaLp<T, I>>(kCuda, device_to_dia_lp<T, I>);
  reg.template add_conversion<Hdi<T, I>>(kCuda, device_to_hdi<T, I>);
  reg.template add_conversion<Bcsr<T, I>>(kCuda, device_to_bcsr<T, I>);
  reg.template add_conversion<SymCsr<T, I>>(kCuda, device_to_sym_csr<T, I>);
  reg.template add_conversion<SymDia<T, I>>(kCuda, device_to_sym_dia<T, I>);
  reg.template add_conversion<Coo<T, I>>(
      kCuda, [](const Csr<T, I>& A, const ConvertOptions&) { return device_to_coo(A); });
  reg.template add_conversion<Csc<T, I>>(
      kCuda, [](const Csr<T, I>& A, const ConvertOptions&) { return device_to_csc(A); });
}

#define SPX_INST(T, I) template void register_cuda_conversions(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail

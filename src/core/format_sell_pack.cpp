// Construction and validation of SELL-pack (SELL-C-σ with 16-bit column
// offsets in the slices whose columns span at most 65536).
#include "spx/formats/sell_pack.hpp"

#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"

namespace spx {

template <Value T, Index I>
SellPack<T, I>::SellPack(I rows, I cols, int slice_size, int sigma, int threads_per_row,
                         Array<I> slice_ptr, Array<I> slice_width, Array<I> slice_base,
                         Array<I> pack_ptr, Array<std::uint16_t> col16, Array<I> col_idx,
                         Array<T> values, Array<I> row_len, Array<I> perm, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      slice_size_(slice_size),
      sigma_(sigma),
      threads_per_row_(threads_per_row),
      slice_ptr_(std::move(slice_ptr)),
      slice_width_(std::move(slice_width)),
      slice_base_(std::move(slice_base)),
      pack_ptr_(std::move(pack_ptr)),
      col16_(std::move(col16)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)),
      perm_(std::move(perm)),
      nnz_(known.nnz) {}

template <Value T, Index I>
SellPack<T, I>::SellPack(I rows, I cols, int slice_size, int sigma, int threads_per_row,
                         Array<I> slice_ptr, Array<I> slice_width, Array<I> slice_base,
                         Array<I> pack_ptr, Array<std::uint16_t> col16, Array<I> col_idx,
                         Array<T> values, Array<I> row_len, Array<I> perm, Check check) try
    : SellPack(rows, cols, slice_size, sigma, threads_per_row, std::move(slice_ptr),
               std::move(slice_width), std::move(slice_base), std::move(pack_ptr), std::move(col16),
               std::move(col_idx), std::move(values), std::move(row_len), std::move(perm),
               Known{}) {
  if (check == Check::Trusted) {
    nnz_ = detail::sum_of_lengths(row_len_);
    return;
  }
  constexpr std::string_view F = "SELL_PACK";
  detail::check_shape(F, rows, cols);
  detail::check_same_space(
      F, {slice_ptr_.space(), slice_width_.space(), slice_base_.space(), pack_ptr_.space(),
          col16_.space(), col_idx_.space(), values_.space(), row_len_.space()});
  if (!perm_.empty()) detail::check_same_space(F, {values_.space(), perm_.space()});
  detail::check_sell_parameters(slice_size, sigma, threads_per_row);
  const std::int64_t C = slice_size, slices = (std::int64_t{rows} + C - 1) / C;
  const std::vector<I> ptr = slice_ptr_.to_vector();
  const std::vector<I> width = slice_width_.to_vector();
  const std::vector<I> base = slice_base_.to_vector();
  const std::vector<I> pptr = pack_ptr_.to_vector();
  const std::string why = fmt::format("ceil(rows / C) = ceil({} / {})", rows, C);
  detail::check_length(F, "slice_width", static_cast<std::int64_t>(width.size()), slices, why);
  detail::check_length(F, "slice_base", static_cast<std::int64_t>(base.size()), slices, why);
  detail::check_length(F, "slice_ptr", static_cast<std::int64_t>(ptr.size()), slices + 1,
                       "slices + 1");
  detail::check_length(F, "pack_ptr", static_cast<std::int64_t>(pptr.size()), slices + 1,
                       "slices + 1");
  detail::check_monotone({F, "slice_ptr", "values", "slice", ""}, ptr.data(), slices);
  detail::check_monotone({F, "pack_ptr", "col16", "slice", ""}, pptr.data(), slices);
  for (std::int64_t s = 0; s < slices; ++s) {
    if (width[s] < 0 || width[s] % threads_per_row != 0)
      throw InvalidInput(fmt::format(
          "SELL_PACK: slice_width[{}] = {} must be a non-negative multiple of threads_per_row = {}",
          s, width[s], threads_per_row));
    std::int64_t step = 0;
    if (__builtin_mul_overflow(C, std::int64_t{width[s]}, &step) ||
        std::int64_t{ptr[s + 1]} - ptr[s] != step)
      throw InvalidInput(
          fmt::format("SELL_PACK: slice_ptr[{}] - slice_ptr[{}] = {} - {}, expected C x "
                      "slice_width[{}] = {} x {}",
                      s + 1, s, ptr[s + 1], ptr[s], s, C, width[s]));
    if (base[s] < -1 || base[s] >= cols)
      throw InvalidInput(fmt::format(
          "SELL_PACK: slice_base[{}] = {} must be -1 (a fallback slice) or a column in [0, {})", s,
          base[s], cols));
    const std::int64_t packed_step = base[s] >= 0 ? step : 0;
    if (std::int64_t{pptr[s + 1]} - pptr[s] != packed_step)
      throw InvalidInput(fmt::format(
          "SELL_PACK: pack_ptr[{}] - pack_ptr[{}] = {} - {}, expected {} ({} slice of {} entries)",
          s + 1, s, pptr[s + 1], pptr[s], packed_step, base[s] >= 0 ? "a packed" : "a fallback",
          step));
  }
  if (static_cast<std::int64_t>(values_.size()) != ptr[slices])
    throw InvalidInput(fmt::format("SELL_PACK: values has {} entries, expected slice_ptr[{}] = {}",
                                   values_.size(), slices, ptr[slices]));
  if (static_cast<std::int64_t>(col16_.size()) != pptr[slices])
    throw InvalidInput(fmt::format("SELL_PACK: col16 has {} entries, expected pack_ptr[{}] = {}",
                                   col16_.size(), slices, pptr[slices]));
  if (static_cast<std::int64_t>(col_idx_.size()) != std::int64_t{ptr[slices]} - pptr[slices])
    throw InvalidInput(fmt::format(
        "SELL_PACK: col_idx has {} entries, expected slice_ptr[{}] - pack_ptr[{}] = {} - {} (the "
        "entries of the fallback slices)",
        col_idx_.size(), slices, slices, ptr[slices], pptr[slices]));

  // Decode the columns into SELL's layout and check the groups as SELL does.
  const std::vector<std::uint16_t> c16 = col16_.to_vector();
  const std::vector<I> c32 = col_idx_.to_vector();
  Array<I> decoded(static_cast<std::size_t>(ptr[slices]));
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t n = std::int64_t{ptr[s + 1]} - ptr[s];
    if (base[s] >= 0) {
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t c = std::int64_t{base[s]} + c16[pptr[s] + k];
        if (c >= cols)
          throw InvalidInput(fmt::format(
              "SELL_PACK: col16[{}] = {} in slice {} (base {}) decodes to column {}, out of range "
              "[0, {})",
              pptr[s] + k, c16[pptr[s] + k], s, base[s], c, cols));
        decoded[ptr[s] + k] = static_cast<I>(c);
      }
    } else {
      const std::int64_t off = std::int64_t{ptr[s]} - pptr[s];
      for (std::int64_t k = 0; k < n; ++k)
        decoded[ptr[s] + k] = c32[off + k];
    }
  }
  nnz_ = detail::check_ell_groups(F, rows, cols, decoded, values_, row_len_, slices, [&](auto s) {
    return detail::sell_group(rows, C, ptr.data(), width.data(), s);
  });
  if (perm_.empty()) return;
  const std::vector<I> p = perm_.to_vector();
  detail::check_permutation(F, p, rows);
  for (std::int64_t i = 0; i < rows; ++i)
    if (p[i] / sigma != i / sigma)
      throw InvalidInput(fmt::format(
          "SELL_PACK: perm[{}] = {} moves a row out of its window of sigma = {} rows{}", i, p[i],
          sigma, sigma == 1 ? " (with sigma = 1 the permutation must be the identity)" : ""));
} catch (...) {
  detail::rethrow_allocation_failure("SELL_PACK");
}

template <Value T, Index I>
SellPack<T, I> SellPack<T, I>::to(Space space) const {
  return SellPack(this->rows_, this->cols_, slice_size_, sigma_, threads_per_row_,
                  slice_ptr_.to(space), slice_width_.to(space), slice_base_.to(space),
                  pack_ptr_.to(space), col16_.to(space), col_idx_.to(space), values_.to(space),
                  row_len_.to(space), perm_.to(space), Known{.nnz = nnz_});
}

SPX_INSTANTIATE_CLASS(SellPack)

}  // namespace spx

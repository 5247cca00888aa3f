// CSR ↔ HDI (Hacked DIA).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "core/convert_checks.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Hdi<T, I> to_hdi(const Csr<T, I>& A, const ConvertOptions& options) {
  detail::check_hdi_options(options);
  if (A.space() != Space::Host) return detail::convert_on_backend<Hdi<T, I>>(A, options);
  detail::require_host(A.space(), "CSR to HDI");
  const std::int64_t m = A.rows(), H = options.hack_size;
  const std::int64_t nh = (m + H - 1) / H;
  const I hack = detail::checked_index<I>(H, "HDI hack_size");
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const auto first_entry = [&](std::int64_t h) { return ptr[std::min(h * H, m)]; };

  // Each hack's diagonals: the offsets of its entries, sorted and made unique
  // in place in the hack's slice of a scratch array (one sort per hack).
  std::vector<I> scratch(static_cast<std::size_t>(A.nnz()));
  std::vector<std::int64_t> diags(static_cast<std::size_t>(nh) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() > detail::kParallelWork)
  for (std::int64_t h = 0; h < nh; ++h) {
    for (std::int64_t i = h * H; i < std::min((h + 1) * H, m); ++i)
      for (I k = ptr[i]; k < ptr[i + 1]; ++k)
        scratch[k] = static_cast<I>(col[k] - i);
    const auto b = scratch.begin() + first_entry(h), e = scratch.begin() + first_entry(h + 1);
    std::sort(b, e);
    diags[h + 1] = std::unique(b, e) - b;
  }
  std::vector<I> hack_ptr(static_cast<std::size_t>(nh) + 1, I{0});
  for (std::int64_t h = 0; h < nh; ++h) {
    diags[h + 1] += diags[h];
    hack_ptr[h + 1] = static_cast<I>(diags[h + 1]);  // ≤ nnz, so it fits I
  }

  // Refuse before allocating when the padded storage is unreasonable.
  const std::int64_t total = diags[nh];
  const std::int64_t last_rows = nh > 0 ? m - (nh - 1) * H : 0;
  const std::int64_t last_diags = nh > 0 ? total - diags[nh - 1] : 0;
  const detail::PaddedSize size = detail::hdi_size<T, I>(H, nh, total, last_rows, last_diags);
  detail::check_padded_budget(
      "HDI",
      fmt::format("{} hacks of {} rows (the last {}) with {} diagonals in all", nh, H, last_rows,
                  total),
      size, A.nnz(), A.bytes(), options);

  Array<I> offsets(static_cast<std::size_t>(total));
  Array<T> values(static_cast<std::size_t>(size.values));
  T* v = values.data();
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() + size.values > detail::kParallelWork)
  for (std::int64_t h = 0; h < nh; ++h) {
    const std::int64_t r0 = h * H, hr = std::min(H, m - r0), nd = diags[h + 1] - diags[h];
    const I* hoff = scratch.data() + first_entry(h);  // the hack's unique offsets
    std::copy(hoff, hoff + nd, offsets.data() + diags[h]);
    T* hv = v + H * diags[h];
    std::fill(hv, hv + nd * hr, T{0});
    for (std::int64_t r = 0; r < hr; ++r) {
      // Row offsets increase with the column, as do the hack's: one cursor.
      std::int64_t d = 0;
      for (I k = ptr[r0 + r]; k < ptr[r0 + r + 1]; ++k) {
        const std::int64_t o = col[k] - (r0 + r);
        while (hoff[d] != o)
          ++d;
        hv[d * hr + r] = val[k];
      }
    }
  }

  return Hdi<T, I>(A.rows(), A.cols(), hack, Array<I>(hack_ptr), std::move(offsets),
                   std::move(values), detail::csr_explicit_zeros(A), Check::Trusted);
}

template <Value T, Index I>
Csr<T, I> to_csr(const Hdi<T, I>& A) {
  detail::require_host(A.space(), "HDI to CSR");
  const std::int64_t m = A.rows(), n = A.cols(), H = A.hack_size();
  const I* hp = A.hack_ptr().data();
  const I* off = A.offsets().data();
  const T* v = A.values().data();
  const ExplicitZeros<I>& z = A.explicit_zeros();
  const I* zc = z.cols.data();

  // Visits row i's entries in column order: the nonzero values on its hack's
  // diagonals, and the explicit zeros (matched by column).
  const auto for_each_entry = [&](std::int64_t i, auto&& emit) {
    const std::int64_t h = i / H, r = i - h * H, hr = std::min(H, m - h * H);
    auto [zp, ze] = detail::zeros_of_row(z, i);
    const T* hv = v + H * hp[h];
    for (std::int64_t d = 0; d < hp[h + 1] - hp[h]; ++d) {
      const std::int64_t j = i + off[hp[h] + d];
      if (j < 0 || j >= n) continue;
      const T x = hv[d * hr + r];
      while (zp < ze && zc[zp] < j)
        ++zp;
      const bool listed = zp < ze && zc[zp] == j;
      if (x != T{0} || listed) emit(j, x);
    }
  };

  return detail::csr_from_rows<T, I>(A.rows(), A.cols(), "HDI",
                                     static_cast<std::int64_t>(A.values().size()), for_each_entry);
}

#define SPX_INST(T, I)                                                \
  template Hdi<T, I> to_hdi(const Csr<T, I>&, const ConvertOptions&); \
  template Csr<T, I> to_csr(const Hdi<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx

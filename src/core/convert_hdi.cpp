// CSR ↔ HDI (Hacked DIA).
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/convert_host.hpp"
#include "core/padded.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<Hdi<T, I>> {
  static Hdi<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    const std::int64_t m = A.rows(), H = options.hack_size;
    const std::int64_t nh = (m + H - 1) / H;
    const I hack = checked_index<I>(H, "HDI hack_size");
    const I* ptr = A.row_ptr().data();
    const I* col = A.col_idx().data();
    const T* val = A.values().data();
    const auto first_entry = [&](std::int64_t h) { return ptr[std::min(h * H, m)]; };

    // Each hack's diagonals: the offsets of its entries, sorted and made unique
    // in place in the hack's slice of a scratch array (one sort per hack).
    detail::HostVector<I> scratch(static_cast<std::size_t>(A.nnz()));
    detail::HostVector<std::int64_t> diags(static_cast<std::size_t>(nh) + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() > kParallelWork)
    for (std::int64_t h = 0; h < nh; ++h) {
      for (std::int64_t i = h * H; i < std::min((h + 1) * H, m); ++i)
        for (I k = ptr[i]; k < ptr[i + 1]; ++k)
          scratch[k] = static_cast<I>(col[k] - i);
      const auto b = scratch.begin() + first_entry(h), e = scratch.begin() + first_entry(h + 1);
      std::sort(b, e);
      diags[h + 1] = std::unique(b, e) - b;
    }
    detail::HostVector<I> hack_ptr(static_cast<std::size_t>(nh) + 1, I{0});
    for (std::int64_t h = 0; h < nh; ++h) {
      diags[h + 1] += diags[h];
      hack_ptr[h + 1] = static_cast<I>(diags[h + 1]);  // ≤ nnz, so it fits I
    }

    // Refuse before allocating when the padded storage is unreasonable.
    const std::int64_t total = diags[nh];
    const std::int64_t last_rows = nh > 0 ? m - (nh - 1) * H : 0;
    const std::int64_t last_diags = nh > 0 ? total - diags[nh - 1] : 0;
    const PaddedSize size = hdi_size<T, I>(H, nh, total, last_rows, last_diags);
    check_padded_budget("HDI",
                        fmt::format("{} hacks of {} rows (the last {}) with {} diagonals in all",
                                    nh, H, last_rows, total),
                        size, A.nnz(), A.bytes(), options);

    Array<I> offsets(static_cast<std::size_t>(total));
    Array<T> values(static_cast<std::size_t>(size.values));
    T* v = values.data();
#pragma omp parallel for schedule(dynamic, 64) if (A.nnz() + size.values > kParallelWork)
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
                     std::move(values), csr_explicit_zeros(A), Check::Trusted);
  }

  static Csr<T, I> to_csr(const Hdi<T, I>& A) {
    const Diagonals<I> D = hdi_layout<I>(A.rows(), A.cols(), A.hack_size(), A.hack_ptr().data(),
                                         A.hacks(), A.offsets().data());
    return padded_to_csr(A, [&](std::int64_t i, auto&& f) { D.for_each_in_row(i, f); });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Hdi)

}  // namespace spx

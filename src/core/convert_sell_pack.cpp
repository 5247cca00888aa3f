// CSR ↔ SELL-pack. CSR → SELL-pack is CSR → SELL (convert_sell.cpp: the
// same slices, widths, values, row lengths and permutation, and the same
// refusals) followed by one pass over the slices that packs each slice whose
// true entries span at most 65536 columns into 16-bit offsets from its
// smallest column; SELL's column array is released at the end. The device
// conversion (src/cuda/convert_sell_pack.cu) makes the same two steps and the
// same arrays.
#include <algorithm>
#include <vector>

#include "core/convert_host.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
struct HostConversion<SellPack<T, I>> {
  static SellPack<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    // Through convert(), defined once for every format (to_sell's template
    // is instantiated in convert_sell.cpp).
    Sell<T, I> S = std::get<Sell<T, I>>(convert(A, Format::Sell, options));
    const std::int64_t rows = S.rows(), C = S.slice_size(), slices = S.num_slices();
    const I* ptr = S.slice_ptr().data();
    const I* width = S.slice_width().data();
    const I* len = S.row_len().data();
    const I* col = S.col_idx().data();

    // Each slice's smallest and largest column over its true entries.
    Array<I> base(static_cast<std::size_t>(slices));
#pragma omp parallel for schedule(dynamic, 64) if (S.stored() > 65536)
    for (std::int64_t s = 0; s < slices; ++s) {
      std::int64_t lo = -1, hi = -1;
      const std::int64_t n = std::min(C, rows - s * C);
      for (std::int64_t r = 0; r < n; ++r) {
        const std::int64_t l = len[s * C + r];
        if (l == 0) continue;
        // True entries of a row increase: the first is its smallest.
        const std::int64_t first = col[ptr[s] + r], last = col[ptr[s] + (l - 1) * C + r];
        lo = lo < 0 ? first : std::min(lo, first);
        hi = std::max(hi, last);
      }
      base[s] = static_cast<I>(lo < 0 ? 0 : (hi - lo <= SellPack<T, I>::kMaxSpan ? lo : -1));
    }
    Array<I> pack_ptr(static_cast<std::size_t>(slices) + 1);
    pack_ptr[0] = 0;
    for (std::int64_t s = 0; s < slices; ++s)
      pack_ptr[s + 1] = static_cast<I>(pack_ptr[s] + (base[s] >= 0 ? C * width[s] : 0));
    const std::int64_t packed = pack_ptr[slices];
    Array<std::uint16_t> col16(static_cast<std::size_t>(packed));
    Array<I> col32(static_cast<std::size_t>(S.stored() - packed));
#pragma omp parallel for schedule(dynamic, 64) if (S.stored() > 65536)
    for (std::int64_t s = 0; s < slices; ++s) {
      const std::int64_t n = std::int64_t{ptr[s + 1]} - ptr[s];
      if (base[s] >= 0) {
        std::uint16_t* out = col16.data() + pack_ptr[s];
        for (std::int64_t k = 0; k < n; ++k) {
          // Padding (entry j >= the row's length, or an empty slot) gets 0.
          const std::int64_t i = s * C + k % C;
          const bool real = i < rows && k / C < std::int64_t{len[i]};
          out[k] = static_cast<std::uint16_t>(real ? col[ptr[s] + k] - base[s] : 0);
        }
      } else {
        std::copy_n(col + ptr[s], n, col32.data() + (std::int64_t{ptr[s]} - pack_ptr[s]));
      }
    }
    // The values move over (the largest array); the per-slice and per-row
    // arrays are copied.
    return SellPack<T, I>(A.rows(), A.cols(), S.slice_size(), S.sigma(), S.threads_per_row(),
                          S.slice_ptr().clone(), S.slice_width().clone(), std::move(base),
                          std::move(pack_ptr), std::move(col16), std::move(col32),
                          std::move(S.values()), S.row_len().clone(), S.perm().clone(),
                          Known{.nnz = S.nnz()});
  }

  static Csr<T, I> to_csr(const SellPack<T, I>& A) {
    const std::int64_t rows = A.rows(), C = A.slice_size(), slices = A.num_slices();
    const I* perm = A.perm().empty() ? nullptr : A.perm().data();
    const I* len = A.row_len().data();
    const I* sptr = A.slice_ptr().data();
    const I* pptr = A.pack_ptr().data();
    const I* base = A.slice_base().data();
    const std::uint16_t* c16 = A.col16().data();
    const I* c32 = A.col_idx().data();
    const T* v = A.values().data();
    const auto row_of = [perm](std::int64_t i) -> std::int64_t { return perm ? perm[i] : i; };
    return csr_from_lengths<T, I>(
        A.rows(), A.cols(), A.nnz(),
        [&](I* count) {
          for (std::int64_t i = 0; i < rows; ++i)
            count[row_of(i) + 1] = len[i];
        },
        [&](const I* ptr, I* col, T* val) {
#pragma omp parallel for schedule(dynamic, 64) if (A.stored() > 65536)
          for (std::int64_t s = 0; s < slices; ++s) {
            const std::int64_t n = std::min(C, rows - s * C);
            for (std::int64_t r = 0; r < n; ++r) {
              const std::int64_t i = s * C + r, d = ptr[row_of(i)];
              for (std::int64_t j = 0; j < len[i]; ++j) {
                const std::int64_t k = j * C + r;
                val[d + j] = v[sptr[s] + k];
                col[d + j] = base[s] >= 0 ? static_cast<I>(base[s] + c16[pptr[s] + k])
                                          : c32[sptr[s] - pptr[s] + k];
              }
            }
          }
        });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(SellPack)

}  // namespace spx

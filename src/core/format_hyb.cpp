// Construction and validation of HYB (ELL part + COO part).
#include "spx/formats/hyb.hpp"

#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"

namespace spx {

template <Value T, Index I>
Hyb<T, I>::Hyb(Ell<T, I> ell, Coo<T, I> coo, Check check)
    : detail::FormatBase<I>(ell.rows(), ell.cols(), ell.space()),
      ell_(std::move(ell)),
      coo_(std::move(coo)) {
  try {
    if (check == Check::Trusted) return;
    if (ell_.rows() != coo_.rows() || ell_.cols() != coo_.cols())
      throw InvalidInput(fmt::format("HYB: the ELL part is {}x{} but the COO part is {}x{}",
                                     ell_.rows(), ell_.cols(), coo_.rows(), coo_.cols()));
    if (coo_.nnz() > 0 && coo_.space() != ell_.space())
      throw InvalidInput("HYB: the ELL and COO parts live in different memory spaces");
    if (!coo_.sorted())
      throw InvalidInput(
          "HYB: the COO part must be sorted by (row, column) without duplicates (use sort_coo())");
    const std::vector<I> len = ell_.row_len().to_vector();
    const std::vector<I> ell_col = ell_.col_idx().to_vector();
    const std::vector<I> row = coo_.row_idx().to_vector();
    const std::vector<I> col = coo_.col_idx().to_vector();
    const std::int64_t rows = ell_.rows(), K = ell_.width();
    for (std::size_t k = 0; k < row.size(); ++k) {
      const I r = row[k];
      if (len[r] != K)
        throw InvalidInput(fmt::format(
            "HYB: COO entry {} is in row {}, whose ELL part is not full (row_len[{}] = {} < width "
            "{}); entries go to the COO part only beyond the first K of a row",
            k, r, r, len[r], K));
      if (K == 0) continue;  // all entries are in the COO part
      const I last = ell_col[static_cast<std::size_t>((K - 1) * rows + r)];
      if (col[k] <= last)
        throw InvalidInput(fmt::format(
            "HYB: COO entry {} (row {}, column {}) is not right of the row's last ELL column {}", k,
            r, col[k], last));
    }
  } catch (...) {
    detail::rethrow_allocation_failure("HYB");
  }
}

template <Value T, Index I>
Hyb<T, I> Hyb<T, I>::to(Space space) const {
  return Hyb(ell_.to(space), coo_.to(space), Check::Trusted);
}

SPX_INSTANTIATE_CLASS(Hyb)

}  // namespace spx

// Construction and validation of JAD (jagged diagonals).
#include "spx/formats/jad.hpp"

#include <vector>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/validate.hpp"

namespace spx {

template <Value T, Index I>
Jad<T, I>::Jad(I rows, I cols, Array<I> perm, Array<I> jd_ptr, Array<I> col_idx, Array<T> values,
               Check check)
    : detail::FormatBase<I>(rows, cols, values.space()),
      perm_(std::move(perm)),
      jd_ptr_(std::move(jd_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)) {
  try {
    if (check == Check::Trusted) return;
    constexpr std::string_view F = "JAD";
    detail::check_shape(F, rows, cols);
    detail::check_same_space(F, {jd_ptr_.space(), col_idx_.space(), values_.space()});
    if (!perm_.empty()) detail::check_same_space(F, {values_.space(), perm_.space()});
    detail::check_permutation(F, perm_.to_vector(), rows);
    const std::vector<I> ptr = jd_ptr_.to_vector();
    if (ptr.empty() || ptr[0] != 0)
      throw InvalidInput("JAD: jd_ptr must start with 0 (it has diagonals + 1 entries)");
    const std::int64_t diagonals = static_cast<std::int64_t>(ptr.size()) - 1;
    for (std::int64_t d = 0; d < diagonals; ++d) {
      const std::int64_t n = std::int64_t{ptr[d + 1]} - ptr[d];
      const std::int64_t prev = d == 0 ? std::int64_t{rows} : std::int64_t{ptr[d]} - ptr[d - 1];
      if (n < 1 || n > prev)
        throw InvalidInput(fmt::format(
            "JAD: jagged diagonal {} has jd_ptr[{}] - jd_ptr[{}] = {} entries; expected between 1 "
            "and {} ({})",
            d, d + 1, d, n, prev,
            d == 0 ? "the number of rows" : "the previous diagonal's length"));
    }
    detail::check_stored(F, fmt::format("jd_ptr[{}]", diagonals), ptr[diagonals], col_idx_.size(),
                         values_.size());
    const std::vector<I> col = col_idx_.to_vector();
    for (std::int64_t d = 0; d < diagonals; ++d)
      for (std::int64_t i = 0; i < ptr[d + 1] - ptr[d]; ++i) {
        const std::int64_t k = ptr[d] + i;
        if (col[k] < 0 || col[k] >= cols)
          throw InvalidInput(
              fmt::format("JAD: col_idx[{}] = {} (stored row {}, diagonal {}) is out "
                          "of range [0, {})",
                          k, col[k], i, d, cols));
        if (d > 0 && col[k] <= col[ptr[d - 1] + i])
          throw InvalidInput(fmt::format(
              "JAD: column indices not strictly increasing in stored row {} (original row {}): "
              "col_idx[{}] = {} after {}",
              i, perm_.to_vector()[i], k, col[k], col[ptr[d - 1] + i]));
      }
  } catch (...) {
    detail::rethrow_allocation_failure("JAD");
  }
}

template <Value T, Index I>
Jad<T, I> Jad<T, I>::to(Space space) const {
  return Jad(this->rows_, this->cols_, perm_.to(space), jd_ptr_.to(space), col_idx_.to(space),
             values_.to(space), Check::Trusted);
}

SPX_INSTANTIATE_CLASS(Jad)

}  // namespace spx

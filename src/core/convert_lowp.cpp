// The range check of the reduced-precision formats (convert_lowp.hpp).
#include "core/convert_lowp.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/validate.hpp"
#include "spx/formats/lowp.hpp"

namespace spx::detail {

template <Value T, Index I>
void check_reduced_range(const Csr<T, I>& A, Format f) {
  const std::int64_t nnz = A.nnz();
  const T* val = A.values().data();
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel for reduction(min : bad) schedule(static) if (nnz > 65536)
  for (std::int64_t k = 0; k < nnz; ++k)
    if (lowp::overflows<T>(val[k])) bad = std::min(bad, k);
  if (bad == std::numeric_limits<std::int64_t>::max()) return;
  const I* ptr = A.row_ptr().data();
  const std::int64_t row = std::upper_bound(ptr, ptr + A.rows() + 1, static_cast<I>(bad)) - ptr - 1;
  const std::string label = format_label(f);
  throw InvalidInput(fmt::format(
      "CSR to {}: the value {} at row {}, column {} (entry {}) overflows {} (largest finite "
      "{}); {} stores values in reduced precision",
      label, val[bad], row, A.col_idx()[static_cast<std::size_t>(bad)], bad, lowp::kStorageName<T>,
      lowp::kLargest<T>, label));
}

#define SPX_INST(T, I) template void check_reduced_range(const Csr<T, I>&, Format);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail

// CSR ↔ SELL-LP: SELL's conversion, then the values rounded to the storage
// type (sell_lp.hpp) after a range check over the CSR; back to CSR with the
// stored values widened exactly.
#include "core/convert_sell_lp.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/convert_host.hpp"

namespace spx {
namespace detail {

template <Value T, Index I>
void check_reduced_range(const Csr<T, I>& A) {
  const std::int64_t nnz = A.nnz();
  const T* val = A.values().data();
  std::int64_t bad = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel for reduction(min : bad) schedule(static) if (nnz > 65536)
  for (std::int64_t k = 0; k < nnz; ++k)
    if (lowp::overflows<T>(val[k])) bad = std::min(bad, k);
  if (bad == std::numeric_limits<std::int64_t>::max()) return;
  const I* ptr = A.row_ptr().data();
  const std::int64_t row = std::upper_bound(ptr, ptr + A.rows() + 1, static_cast<I>(bad)) - ptr - 1;
  throw InvalidInput(fmt::format(
      "CSR to SELL_LP: the value {} at row {}, column {} (entry {}) overflows {} (largest finite "
      "{}); SELL-LP stores values in reduced precision",
      val[bad], row, A.col_idx()[static_cast<std::size_t>(bad)], bad, lowp::kStorageName<T>,
      lowp::kLargest<T>));
}

/// What ellpack_to_csr reads of an ELLPACK-family matrix, with SELL-LP's
/// values widened to T.
template <Value T, Index I>
struct WidenedSell {
  using value_type = T;
  using index_type = I;
  const SellLp<T, I>& A;
  Array<T> wide;
  I rows() const { return A.rows(); }
  I cols() const { return A.cols(); }
  std::int64_t nnz() const { return A.nnz(); }
  const Array<I>& row_len() const { return A.row_len(); }
  const Array<I>& col_idx() const { return A.col_idx(); }
  const Array<T>& values() const { return wide; }
};

template <Value T, Index I>
struct HostConversion<SellLp<T, I>> {
  static SellLp<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    check_reduced_range(A);
    // SELL's host conversion (through convert(): its ToFormat is instantiated in
    // convert_sell.cpp).
    Sell<T, I> s = std::get<Sell<T, I>>(convert(A, Format::Sell, options));
    const std::int64_t n = s.stored();
    Array<reduced_value_t<T>> v(static_cast<std::size_t>(n));
    const T* w = s.values().data();
    reduced_value_t<T>* out = v.data();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::int64_t k = 0; k < n; ++k)
      out[k] = lowp::narrow<T>(w[k]);
    return SellLp<T, I>(std::move(s), std::move(v));
  }

  static Csr<T, I> to_csr(const SellLp<T, I>& A) {
    const std::int64_t n = A.stored();
    WidenedSell<T, I> W{A, Array<T>(static_cast<std::size_t>(n))};
    const reduced_value_t<T>* v = A.values().data();
    T* out = W.wide.data();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::int64_t k = 0; k < n; ++k)
      out[k] = lowp::widen<T>(v[k]);
    const I* perm = A.perm().empty() ? nullptr : A.perm().data();
    return ellpack_to_csr(
        W, A.num_slices(),
        [&](std::int64_t s) {
          return sell_group(A.rows(), A.slice_size(), A.slice_ptr().data(), A.slice_width().data(),
                            s);
        },
        [&](std::int64_t i) -> std::int64_t { return perm ? perm[i] : i; });
  }
};

#define SPX_INST(T, I) template void check_reduced_range(const Csr<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(SellLp)

}  // namespace spx

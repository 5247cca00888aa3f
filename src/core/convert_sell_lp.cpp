// CSR ↔ SELL-LP: SELL's conversion, then the values rounded to the storage
// type (sell_lp.hpp) after a range check over the CSR; back to CSR with the
// stored values widened exactly.
#include "core/convert_host.hpp"
#include "core/convert_lowp.hpp"

namespace spx {
namespace detail {

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
    check_reduced_range(A, Format::SellLp);
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

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(SellLp)

}  // namespace spx

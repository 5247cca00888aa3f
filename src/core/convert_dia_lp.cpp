// CSR ↔ DIA-LP: a range check over the CSR, DIA's conversion, then the values
// rounded to the storage type (dia_lp.hpp; entries that round to zero join
// the explicit-zero list); back to CSR with the stored values widened exactly.
#include <vector>

#include "core/convert_host.hpp"
#include "core/convert_lowp.hpp"
#include "core/padded.hpp"

namespace spx {
namespace detail {

/// What padded_to_csr reads of a DIA, with DIA-LP's values widened to T.
template <Value T, Index I>
struct WidenedDia {
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::DiaLp;
  const DiaLp<T, I>& A;
  Array<T> wide;
  I rows() const { return A.rows(); }
  I cols() const { return A.cols(); }
  const Array<T>& values() const { return wide; }
  const ExplicitZeros<I>& explicit_zeros() const { return A.explicit_zeros(); }
};

/// True when the nonzero v rounds to a (signed) zero in the storage type.
template <Value T>
bool flushes(T v) {
  return v != T{0} && lowp::widen<T>(lowp::narrow<T>(v)) == T{0};
}

template <Value T, Index I>
struct HostConversion<DiaLp<T, I>> {
  static DiaLp<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions& options) {
    check_reduced_range(A, Format::DiaLp);
    // DIA's host conversion (through convert(): its ToFormat is instantiated
    // in convert_dia.cpp): its diagonals, padding, explicit zeros and refusals.
    Dia<T, I> d = std::get<Dia<T, I>>(convert(A, Format::Dia, options));
    const std::int64_t n = static_cast<std::int64_t>(d.values().size());
    Array<reduced_value_t<T>> v(static_cast<std::size_t>(n));
    const T* w = d.values().data();
    reduced_value_t<T>* out = v.data();
#pragma omp parallel for schedule(static) if (n > kParallelWork)
    for (std::int64_t k = 0; k < n; ++k)
      out[k] = lowp::narrow<T>(w[k]);

    // Nonzeros below the storage type's range became zeros: list them with
    // the explicit zeros, so that every entry is kept.
    const std::int64_t nnz = A.nnz();
    const T* val = A.values().data();
    std::int64_t flushed = 0;
#pragma omp parallel for reduction(+ : flushed) schedule(static) if (nnz > kParallelWork)
    for (std::int64_t k = 0; k < nnz; ++k)
      flushed += flushes(val[k]) ? 1 : 0;
    if (flushed > 0) {
      std::vector<I> zr, zc;
      const I* ptr = A.row_ptr().data();
      const I* col = A.col_idx().data();
      for (std::int64_t i = 0; i < A.rows(); ++i)
        for (I k = ptr[i]; k < ptr[i + 1]; ++k)
          if (val[k] == T{0} || flushes(val[k])) {
            zr.push_back(static_cast<I>(i));
            zc.push_back(col[k]);
          }
      d = Dia<T, I>(A.rows(), A.cols(), d.offsets().clone(), Array<T>(0),
                    ExplicitZeros<I>{Array<I>(zr), Array<I>(zc)}, Known{.nnz = d.nnz()});
    }
    return DiaLp<T, I>(std::move(d), std::move(v));
  }

  static Csr<T, I> to_csr(const DiaLp<T, I>& A) {
    const std::int64_t n = static_cast<std::int64_t>(A.values().size());
    WidenedDia<T, I> W{A, Array<T>(static_cast<std::size_t>(n))};
    const reduced_value_t<T>* v = A.values().data();
    T* out = W.wide.data();
#pragma omp parallel for schedule(static) if (n > kParallelWork)
    for (std::int64_t k = 0; k < n; ++k)
      out[k] = lowp::widen<T>(v[k]);
    const Diagonals<I> D = dia_layout<I>(A.rows(), A.cols(), A.offsets().data(), A.ndiag());
    return padded_to_csr(W, [&](std::int64_t i, auto&& f) { D.for_each_in_row(i, f); });
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(DiaLp)

}  // namespace spx

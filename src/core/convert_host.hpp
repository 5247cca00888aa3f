// The one definition of the conversion entry points over the host
// conversions (HostConversion) and the backends' registered ones, and the
// macro that instantiates them. Included by src/core/convert*.cpp only: each
// instantiates its format's pair where its HostConversion is defined.
#pragma once

#include <fmt/format.h>

#include "core/convert_checks.hpp"
#include "core/convert_ellpack.hpp"
#include "core/convert_formats.hpp"
#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/validate.hpp"

namespace spx {
namespace detail {

/// CSR on the host from row lengths: `lengths(count)` sets count[r + 1] to
/// the length of row r; `fill(ptr, col, val)` then writes row r's entries at
/// [ptr[r], ptr[r + 1]) of col and val, in column order.
template <Value T, Index I, class Lengths, class Fill>
Csr<T, I> csr_from_lengths(I rows, I cols, std::int64_t nnz, Lengths&& lengths, Fill&& fill) {
  Array<I> ptr = Array<I>::filled(static_cast<std::size_t>(rows) + 1, I{0});
  lengths(ptr.data());
  for (std::int64_t r = 0; r < rows; ++r)
    ptr[r + 1] += ptr[r];
  Array<I> col(static_cast<std::size_t>(nnz));
  Array<T> val(static_cast<std::size_t>(nnz));
  fill(ptr.data(), col.data(), val.data());
  return Csr<T, I>(rows, cols, std::move(ptr), std::move(col), std::move(val), Check::Trusted);
}

/// CSR of an ELLPACK-family matrix A on the host: `groups` groups (group(g)
/// gives group g, as for check_ell_group), stored row s holding matrix row
/// row_of(s). Large matrices read their groups in parallel.
template <class M, class Group, class RowOf>
auto ellpack_to_csr(const M& A, std::int64_t groups, Group&& group, RowOf&& row_of) {
  using T = typename M::value_type;
  using I = typename M::index_type;
  const I* len = A.row_len().data();
  return csr_from_lengths<T, I>(
      A.rows(), A.cols(), A.nnz(),
      [&](I* count) {
        for (std::int64_t s = 0; s < A.rows(); ++s)
          count[row_of(s) + 1] = len[s];
      },
      [&](const I* ptr, I* col, T* val) {
#pragma omp parallel for schedule(dynamic, 64) if (A.values().size() > 65536)
        for (std::int64_t g = 0; g < groups; ++g) {
          const EllGroup e = group(g);
          read_ell_group<T, I>(A.col_idx().data() + e.offset, A.values().data() + e.offset,
                               len + e.row0, e.slots, e.rows, col, val, [&](std::int64_t r) {
                                 return std::int64_t{ptr[row_of(e.row0 + r)]};
                               });
        }
      });
}

template <Format F>
template <Value T, Index I>
FormatType<F, T, I> ToFormat<F>::operator()(const Csr<T, I>& A,
                                            const ConvertOptions& options) const {
  check_options(F, options);
  return name_allocation_failures(fmt::format("CSR to {}", format_label(F)), [&] {
    if (A.space() != Space::Host) return convert_on_backend<FormatType<F, T, I>>(A, options);
    return HostConversion<FormatType<F, T, I>>::from_csr(A, options);
  });
}

}  // namespace detail

template <ConvertibleToCsr M>
Csr<typename M::value_type, typename M::index_type> to_csr(const M& A) {
  const std::string op = fmt::format("{} to CSR", detail::format_label(M::kFormat));
  detail::require_host(A.space(), op);
  return detail::name_allocation_failures(op, [&] { return detail::HostConversion<M>::to_csr(A); });
}

}  // namespace spx

/// CSR → F and F → CSR for the four (value, index) pairs.
#define SPX_INSTANTIATE_CONVERSION_PAIR_(F, T, I)                                        \
  template F<T, I> detail::ToFormat<Format::F>::operator()(const Csr<T, I>&,             \
                                                           const ConvertOptions&) const; \
  template Csr<T, I> to_csr(const F<T, I>&);
#define SPX_INSTANTIATE_CONVERSION(F)                       \
  SPX_INSTANTIATE_CONVERSION_PAIR_(F, float, std::int32_t)  \
  SPX_INSTANTIATE_CONVERSION_PAIR_(F, float, std::int64_t)  \
  SPX_INSTANTIATE_CONVERSION_PAIR_(F, double, std::int32_t) \
  SPX_INSTANTIATE_CONVERSION_PAIR_(F, double, std::int64_t)

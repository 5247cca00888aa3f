// Host conversions between COO, CSR and CSC, and type casts.
#include "spx/convert.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "common/first_error.hpp"
#include "core/checked.hpp"
#include "core/convert_host.hpp"
#include "core/out_of_memory.hpp"

namespace spx {
namespace detail {

void require_host(Space s, std::string_view what) {
  if (s != Space::Host)
    throw Unsupported(
        fmt::format("{}: host conversion of a matrix in device memory (copy it with "
                    ".to(Space::Host) first)",
                    what));
}

}  // namespace detail

namespace {

/// Counting sort of (outer, inner, value) triplets by outer index into
/// compressed form, then per-slice sort by inner index and summation of
/// duplicates. O(nnz + outer) plus the per-slice sorts.
template <Value T, Index I>
void compress(I outer, const I* outer_idx, const I* inner_idx, const T* vals, std::int64_t n,
              Array<I>& ptr_out, Array<I>& idx_out, Array<T>& val_out) {
  detail::checked_index<I>(n, "number of entries");
  detail::HostVector<I> count(static_cast<std::size_t>(outer) + 1, 0);
  for (std::int64_t k = 0; k < n; ++k)
    ++count[outer_idx[k] + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  detail::HostVector<I> idx(n);
  detail::HostVector<T> val(n);
  {
    detail::HostVector<I> next(count.begin(), count.end() - 1);
    for (std::int64_t k = 0; k < n; ++k) {
      const I dst = next[outer_idx[k]]++;
      idx[dst] = inner_idx[k];
      val[dst] = vals[k];
    }
  }
  // Sort each slice by inner index (stable, so duplicates keep file order and
  // their sum is reproducible), then count the unique entries per slice.
  detail::HostVector<I> unique(static_cast<std::size_t>(outer) + 1, 0);
  detail::FirstError err;  // buf may fail to grow
#pragma omp parallel
  {
    detail::HostVector<std::pair<I, T>> buf;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t r = 0; r < outer; ++r)
      err.run([&] {
        const I b = count[r], e = count[r + 1];
        bool sorted = true;
        for (I k = b + 1; k < e && sorted; ++k)
          sorted = idx[k - 1] < idx[k];
        if (!sorted) {
          buf.clear();
          for (I k = b; k < e; ++k)
            buf.emplace_back(idx[k], val[k]);
          std::stable_sort(buf.begin(), buf.end(),
                           [](const auto& x, const auto& y) { return x.first < y.first; });
          for (I k = b; k < e; ++k)
            std::tie(idx[k], val[k]) = buf[k - b];
        }
        I u = 0;
        for (I k = b; k < e; ++k)
          u += (k == b || idx[k] != idx[k - 1]) ? 1 : 0;
        unique[r + 1] = u;
      });
  }
  err.rethrow();
  std::partial_sum(unique.begin(), unique.end(), unique.begin());
  const std::int64_t nnz = unique[outer];
  ptr_out = Array<I>(unique);
  idx_out = Array<I>(static_cast<std::size_t>(nnz));
  val_out = Array<T>(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < outer; ++r) {
    I out = unique[r] - 1;
    for (I k = count[r]; k < count[r + 1]; ++k) {
      if (k == count[r] || idx[k] != idx[k - 1]) {
        ++out;
        idx_out[out] = idx[k];
        val_out[out] = val[k];
      } else {
        val_out[out] += val[k];
      }
    }
  }
}

/// The transpose of compressed storage (CSR → CSC, CSC → CSR): the `outer`
/// slices of ptr/idx/val, of indices in [0, inner), become the `inner` slices
/// of the rows × cols matrix M, which come out sorted.
template <class M, Value T, Index I>
M transposed(I rows, I cols, I outer, I inner, const Array<I>& ptr, const Array<I>& idx,
             const Array<T>& val) {
  const std::size_t nnz = idx.size();
  detail::HostVector<I> count(static_cast<std::size_t>(inner) + 1, 0);
  for (std::size_t k = 0; k < nnz; ++k)
    ++count[idx[k] + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  Array<I> tidx(nnz);
  Array<T> tval(nnz);
  detail::HostVector<I> next(count.begin(), count.end() - 1);
  for (I r = 0; r < outer; ++r)
    for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
      const I dst = next[idx[k]]++;
      tidx[dst] = r;
      tval[dst] = val[k];
    }
  return M(rows, cols, Array<I>(count), std::move(tidx), std::move(tval), Check::Trusted);
}

}  // namespace

namespace detail {

template <Value T, Index I>
struct HostConversion<Coo<T, I>> {
  static Coo<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions&) {
    Array<I> rows(static_cast<std::size_t>(A.nnz()));
    const auto& ptr = A.row_ptr();
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t r = 0; r < A.rows(); ++r)
      for (I k = ptr[r]; k < ptr[r + 1]; ++k)
        rows[k] = static_cast<I>(r);
    return Coo<T, I>(A.rows(), A.cols(), std::move(rows), A.col_idx().clone(), A.values().clone(),
                     Check::Trusted);
  }
  static Csr<T, I> to_csr(const Coo<T, I>& A) {
    Array<I> ptr, idx;
    Array<T> val;
    compress<T, I>(A.rows(), A.row_idx().data(), A.col_idx().data(), A.values().data(), A.nnz(),
                   ptr, idx, val);
    return Csr<T, I>(A.rows(), A.cols(), std::move(ptr), std::move(idx), std::move(val),
                     Check::Trusted);
  }
};

/// CSR ↔ CSC: a transposition either way.
template <Value T, Index I>
struct HostConversion<Csc<T, I>> {
  static Csc<T, I> from_csr(const Csr<T, I>& A, const ConvertOptions&) {
    return transposed<Csc<T, I>>(A.rows(), A.cols(), A.rows(), A.cols(), A.row_ptr(), A.col_idx(),
                                 A.values());
  }
  static Csr<T, I> to_csr(const Csc<T, I>& A) {
    return transposed<Csr<T, I>>(A.rows(), A.cols(), A.cols(), A.rows(), A.col_ptr(), A.row_idx(),
                                 A.values());
  }
};

}  // namespace detail

SPX_INSTANTIATE_CONVERSION(Coo)
SPX_INSTANTIATE_CONVERSION(Csc)

template <Value T, Index I>
Coo<T, I> sort_coo(const Coo<T, I>& A) try {
  if (A.sorted()) return A.clone();
  return to_coo(to_csr(A));
} catch (...) {
  detail::rethrow_allocation_failure("sort_coo");
}

template <Value U, Index J, Value T, Index I>
Csr<U, J> cast(const Csr<T, I>& A) try {
  detail::require_host(A.space(), "cast");
  const J rows = detail::checked_index<J>(A.rows(), "rows");
  const J cols = detail::checked_index<J>(A.cols(), "cols");
  detail::checked_index<J>(A.nnz(), "nnz");
  auto convert_array = []<class To, class From>(const Array<From>& a, std::type_identity<To>) {
    Array<To> out(a.size());
    for (std::size_t k = 0; k < a.size(); ++k)
      out[k] = static_cast<To>(a[k]);
    return out;
  };
  return Csr<U, J>(rows, cols, convert_array(A.row_ptr(), std::type_identity<J>{}),
                   convert_array(A.col_idx(), std::type_identity<J>{}),
                   convert_array(A.values(), std::type_identity<U>{}), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("cast");
}

#define SPX_INST(T, I)                                       \
  template Coo<T, I> sort_coo(const Coo<T, I>&);             \
  template Csr<float, std::int32_t> cast(const Csr<T, I>&);  \
  template Csr<float, std::int64_t> cast(const Csr<T, I>&);  \
  template Csr<double, std::int32_t> cast(const Csr<T, I>&); \
  template Csr<double, std::int64_t> cast(const Csr<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx

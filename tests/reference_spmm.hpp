// The reference SpMM for tests: sequential, long-double accumulation,
// straight from CSR. The product P = A*B and its magnitude |A|*|B| are
// computed once per (matrix, B); the reference for any (alpha, beta, C0) and
// its error bound follow entry by entry, with the bound of reference.hpp
// applied to every column: |C − C_ref| ≤ γ·(|β||c0| + |α|·Σ|a||b|),
// γ = (row length + 4)·eps(T), plus a denormal floor.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "reference.hpp"
#include "spx/formats/csr.hpp"

namespace spx::test {

/// A*B and |A|*|B| in long double (row-major m×n), and the row lengths.
struct ProductReference {
  std::int64_t m = 0, n = 0;
  std::vector<long double> prod, mag;
  std::vector<std::int64_t> row_len;
};

/// `B` is the logical k×n matrix, row-major and tight.
template <Value T, Index I>
ProductReference reference_product(const Csr<T, I>& A, const std::vector<T>& B, std::int64_t n) {
  const std::vector<I> ptr = A.row_ptr().to_vector();
  const std::vector<I> col = A.col_idx().to_vector();
  const std::vector<T> val = A.values().to_vector();
  ProductReference ref;
  ref.m = A.rows();
  ref.n = n;
  ref.prod.assign(static_cast<std::size_t>(ref.m * n), 0.0L);
  ref.mag.assign(static_cast<std::size_t>(ref.m * n), 0.0L);
  ref.row_len.resize(static_cast<std::size_t>(ref.m));
  for (std::int64_t r = 0; r < ref.m; ++r) {
    ref.row_len[r] = ptr[r + 1] - ptr[r];
    for (I q = ptr[r]; q < ptr[r + 1]; ++q) {
      const long double a = val[q];
      const T* b = B.data() + static_cast<std::int64_t>(col[q]) * n;
      for (std::int64_t j = 0; j < n; ++j) {
        ref.prod[r * n + j] += a * b[j];
        ref.mag[r * n + j] += std::fabs(a * b[j]);
      }
    }
  }
  return ref;
}

/// The reference C (row-major m×n) and allowed error for alpha, beta and the
/// initial C0 (logical, row-major; ignored when beta = 0).
template <Value T>
Reference<T> reference_spmm(const ProductReference& p, T alpha, T beta, const std::vector<T>& C0) {
  Reference<T> ref{std::vector<T>(p.prod.size()), std::vector<T>(p.prod.size())};
  const long double eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t r = 0; r < p.m; ++r)
    for (std::int64_t j = 0; j < p.n; ++j) {
      const std::size_t e = static_cast<std::size_t>(r * p.n + j);
      long double c = static_cast<long double>(alpha) * p.prod[e];
      long double bound = std::fabs(static_cast<long double>(alpha)) * p.mag[e];
      if (beta != T{0}) {
        c += static_cast<long double>(beta) * C0[e];
        bound += std::fabs(static_cast<long double>(beta) * C0[e]);
      }
      ref.y[e] = static_cast<T>(c);
      ref.bound[e] =
          static_cast<T>((p.row_len[r] + 4) * eps * bound + 4 * std::numeric_limits<T>::min());
    }
  return ref;
}

}  // namespace spx::test

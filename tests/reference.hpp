// The reference product for tests: sequential, long-double accumulation,
// straight from CSR, plus the error bound each kernel result is checked
// against: |y − y_ref| ≤ γ·(|β||y0| + |α|·Σ|a||x|) per row, with
// γ = (row length + 2)·eps(T) (the classical bound for a dot product).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "spx/formats/csr.hpp"

namespace spx::test {

template <Value T>
struct Reference {
  std::vector<T> y;      ///< the exact-as-possible result
  std::vector<T> bound;  ///< allowed absolute error per entry
};

template <Value T, Index I>
Reference<T> reference_spmv(T alpha, const Csr<T, I>& A, const std::vector<T>& x, T beta,
                            const std::vector<T>& y0) {
  const std::vector<I> ptr = A.row_ptr().to_vector();
  const std::vector<I> col = A.col_idx().to_vector();
  const std::vector<T> val = A.values().to_vector();
  Reference<T> ref{std::vector<T>(A.rows()), std::vector<T>(A.rows())};
  const long double eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    long double sum = 0, mag = 0;
    for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
      sum += static_cast<long double>(val[k]) * x[col[k]];
      mag += std::fabs(static_cast<long double>(val[k]) * x[col[k]]);
    }
    long double y = static_cast<long double>(alpha) * sum;
    long double bound = std::fabs(static_cast<long double>(alpha)) * mag;
    if (beta != T{0}) {
      y += static_cast<long double>(beta) * y0[r];
      bound += std::fabs(static_cast<long double>(beta) * y0[r]);
    }
    const auto len = static_cast<long double>(ptr[r + 1] - ptr[r]);
    ref.y[r] = static_cast<T>(y);
    // Summation error, plus one rounding of the result and of each scaling,
    // plus a denormal floor.
    ref.bound[r] = static_cast<T>((len + 4) * eps * bound + 4 * std::numeric_limits<T>::min());
  }
  return ref;
}

/// Expects got[i] within bound of the reference everywhere, and no NaN.
/// Returns the number of mismatches (reports the first few).
template <Value T>
int expect_matches(const std::vector<T>& got, const Reference<T>& ref, const std::string& what) {
  EXPECT_EQ(got.size(), ref.y.size()) << what;
  int bad = 0;
  for (std::size_t i = 0; i < std::min(got.size(), ref.y.size()); ++i) {
    const bool ok = std::isfinite(got[i]) && std::fabs(got[i] - ref.y[i]) <= ref.bound[i];
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << what << ": y[" << i << "] = " << got[i] << ", reference " << ref.y[i]
                    << " (allowed error " << ref.bound[i] << ")";
  }
  return bad;
}

}  // namespace spx::test

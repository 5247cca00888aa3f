// The reference products every kernel is checked against, by the tests and by
// the benchmark alike: straight from a host CSR, each entry summed
// sequentially in long double, with its magnitude Σ|a·b| and the a-priori
// error bound of a dot product of n terms summed in any order,
//
//   |y − y_ref| ≤ (n + 4)·eps(T)·(|α|·Σ|a·b| + |β·c0|) + 4·min(T)
//
// (the classical (n + 2)·eps, plus one rounding of the result and one of each
// scaling, and a denormal floor): every correct kernel meets it. Also the
// random operands both draw.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "spx/formats/csr.hpp"

namespace spx::reference {

/// `n` values uniform in ±[0.5, 1.5] (never zero, mixed signs) from `seed`.
template <class T>
std::vector<T> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& e : v)
    e = static_cast<T>((gen() & 1 ? 1.0 : -1.0) * mag(gen));
  return v;
}

/// A product A·B in long double: `rows` × `cols` entries, row-major.
struct Product {
  std::int64_t rows = 0, cols = 0;
  std::vector<long double> sum;        ///< Σ_k a_ik·b_kj
  std::vector<long double> magnitude;  ///< Σ_k |a_ik·b_kj|
  std::vector<std::int64_t> terms;     ///< per row: its nonzeros, the terms of its sums
};

/// A·B for a CSR A and B of A.cols() × n values, row-major and tight (host
/// memory both; a device A is copied to the host first), on the columns
/// `columns` of B in their order (every column when empty). SpMV: B = x, n = 1.
template <Value T, Index I>
Product product(const Csr<T, I>& A, std::span<const T> B, std::int64_t n = 1,
                std::span<const std::int64_t> columns = {});

/// A batch: matrix i times its slice of x (the matrices' columns one after
/// the other), the rows stacked.
template <Value T, Index I>
Product batch_product(std::span<const Csr<T, I>> matrices, std::span<const T> x);

/// The bound above for an entry of `terms` terms and magnitude
/// |α|·Σ|a·b| + |β·c0|. A format that stores A's values rounded with unit
/// roundoff u_s (SELL-LP, DIA-LP: spx::stored_value_roundoff) adds `rounding` =
/// u_s·|α|·Σ|a·b|, which the sum's own rounding also scales (sell_lp.hpp):
///   (terms + 4)·eps·(magnitude + rounding) + rounding + 4·min(T).
template <Value T>
long double error_bound(std::int64_t terms, long double magnitude, long double rounding = 0) {
  return (terms + 4) * static_cast<long double>(std::numeric_limits<T>::epsilon()) *
             (magnitude + rounding) +
         rounding + 4 * std::numeric_limits<T>::min();
}

/// The expected result of α·P + β·C0 (C0 of P's shape, not read when β = 0)
/// and the allowed error of each entry, rounded to T (the tests' check).
template <Value T>
struct Expected {
  std::vector<T> y;      ///< the exact-as-possible result
  std::vector<T> bound;  ///< allowed absolute error per entry
};
/// `value_roundoff`: u_s of the format's stored values (0: full precision).
template <Value T>
Expected<T> expected(const Product& p, T alpha, T beta, std::span<const T> c0,
                     double value_roundoff = 0);

/// α·A·x + β·y0: expected(product(A, x), α, β, y0).
template <Value T, Index I>
Expected<T> expected_spmv(T alpha, const Csr<T, I>& A, std::span<const T> x, T beta,
                          std::span<const T> y0) {
  return expected<T>(product(A, x), alpha, beta, y0);
}

/// How far y (P's entries, in order) lies from P (α = 1, β = 0), with the
/// reference, its magnitude and its bound rounded to double (the benchmark's
/// check): the largest |y − ref| / magnitude and the largest |y − ref| / bound
/// (≤ 1 passes); both infinite when an entry of y is not finite.
struct Deviation {
  double max_rel = 0;
  double ratio = 0;
};
/// `value_roundoff`: u_s of the format's stored values (0: full precision),
/// which widens the bound as in error_bound.
template <Value T>
Deviation deviation(std::span<const T> y, const Product& p, double value_roundoff = 0);

}  // namespace spx::reference

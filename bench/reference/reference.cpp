#include "reference.hpp"

#include <algorithm>
#include <cmath>

#include "spx/core/error.hpp"

namespace spx::reference {

namespace {

/// Row r of A times the columns of B, into entries [at, at + columns) of p:
/// the terms summed in the row's order.
template <Value T, Index I>
void row_times(const I* ptr, const I* col, const T* val, std::int64_t r, const T* B, std::int64_t n,
               std::span<const std::int64_t> columns, Product& p, std::size_t at) {
  const std::int64_t count = columns.empty() ? n : static_cast<std::int64_t>(columns.size());
  for (std::int64_t c = 0; c < count; ++c) {
    const std::int64_t j = columns.empty() ? c : columns[static_cast<std::size_t>(c)];
    long double sum = 0, mag = 0;
    for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
      const long double t =
          static_cast<long double>(val[k]) * B[static_cast<std::int64_t>(col[k]) * n + j];
      sum += t;
      mag += std::fabs(t);
    }
    p.sum[at + static_cast<std::size_t>(c)] = sum;
    p.magnitude[at + static_cast<std::size_t>(c)] = mag;
  }
}

Product sized(std::int64_t rows, std::int64_t cols) {
  Product p;
  p.rows = rows;
  p.cols = cols;
  p.sum.resize(static_cast<std::size_t>(rows * cols));
  p.magnitude.resize(p.sum.size());
  p.terms.resize(static_cast<std::size_t>(rows));
  return p;
}

}  // namespace

template <Value T, Index I>
Product product(const Csr<T, I>& A, std::span<const T> B, std::int64_t n,
                std::span<const std::int64_t> columns) {
  if (A.space() != Space::Host) return product(A.to(Space::Host), B, n, columns);
  if (static_cast<std::int64_t>(B.size()) < A.cols() * n)
    throw InvalidInput("reference product: B has fewer than cols × n values");
  const std::int64_t m = A.rows();
  const std::int64_t width = columns.empty() ? n : static_cast<std::int64_t>(columns.size());
  Product p = sized(m, width);
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < m; ++r) {
    p.terms[static_cast<std::size_t>(r)] = ptr[r + 1] - ptr[r];
    row_times(ptr, col, val, r, B.data(), n, columns, p, static_cast<std::size_t>(r * width));
  }
  return p;
}

template <Value T, Index I>
Product batch_product(std::span<const Csr<T, I>> matrices, std::span<const T> x) {
  std::vector<std::int64_t> row_at(matrices.size() + 1, 0), col_at(matrices.size() + 1, 0);
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    if (matrices[i].space() != Space::Host)
      throw InvalidInput("reference product: a batch matrix is not in host memory");
    row_at[i + 1] = row_at[i] + matrices[i].rows();
    col_at[i + 1] = col_at[i] + matrices[i].cols();
  }
  if (static_cast<std::int64_t>(x.size()) < col_at.back())
    throw InvalidInput("reference product: x is shorter than the batch's columns");
  Product p = sized(row_at.back(), 1);
  const auto count = static_cast<std::int64_t>(matrices.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto s = static_cast<std::size_t>(i);
    const Csr<T, I>& A = matrices[s];
    const I* ptr = A.row_ptr().data();
    for (std::int64_t r = 0; r < A.rows(); ++r) {
      const auto at = static_cast<std::size_t>(row_at[s] + r);
      p.terms[at] = ptr[r + 1] - ptr[r];
      row_times(ptr, A.col_idx().data(), A.values().data(), r, x.data() + col_at[s], 1, {}, p, at);
    }
  }
  return p;
}

template <Value T>
Expected<T> expected(const Product& p, T alpha, T beta, std::span<const T> c0,
                     double value_roundoff) {
  if (beta != T{0} && c0.size() < p.sum.size())
    throw InvalidInput("reference: the initial values are fewer than the product's entries");
  Expected<T> e{std::vector<T>(p.sum.size()), std::vector<T>(p.sum.size())};
  for (std::int64_t r = 0; r < p.rows; ++r)
    for (std::int64_t j = 0; j < p.cols; ++j) {
      const auto at = static_cast<std::size_t>(r * p.cols + j);
      long double y = static_cast<long double>(alpha) * p.sum[at];
      long double mag = std::fabs(static_cast<long double>(alpha)) * p.magnitude[at];
      const long double rounding = value_roundoff * mag;
      if (beta != T{0}) {
        y += static_cast<long double>(beta) * c0[at];
        mag += std::fabs(static_cast<long double>(beta) * c0[at]);
      }
      e.y[at] = static_cast<T>(y);
      e.bound[at] =
          static_cast<T>(error_bound<T>(p.terms[static_cast<std::size_t>(r)], mag, rounding));
    }
  return e;
}

template <Value T>
Deviation deviation(std::span<const T> y, const Product& p, double value_roundoff) {
  if (y.size() != p.sum.size())
    throw InvalidInput("reference: the result and the product differ in size");
  const double inf = std::numeric_limits<double>::infinity();
  const std::int64_t rows = p.rows, cols = p.cols;
  double max_rel = 0, ratio = 0;
#pragma omp parallel for reduction(max : max_rel, ratio) schedule(static)
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) {
      const auto at = static_cast<std::size_t>(r * cols + j);
      const auto ref = static_cast<double>(p.sum[at]);
      const auto scale = static_cast<double>(p.magnitude[at]);
      const auto bound = static_cast<double>(error_bound<T>(
          p.terms[static_cast<std::size_t>(r)], p.magnitude[at], value_roundoff * p.magnitude[at]));
      // A non-finite y makes both infinite (a NaN difference would compare false).
      const double d = std::isfinite(y[at]) ? std::fabs(static_cast<double>(y[at]) - ref) : inf;
      const double rel = scale > 0 ? d / scale : (d == 0 ? 0.0 : inf);
      max_rel = std::max(max_rel, rel);
      ratio = std::max(ratio, d / bound);
    }
  return {max_rel, ratio};
}

#define SPX_INST_T(T)                                                                 \
  template Expected<T> expected<T>(const Product&, T, T, std::span<const T>, double); \
  template Deviation deviation<T>(std::span<const T>, const Product&, double);
#define SPX_INST(T, I)                                                               \
  template Product product<T, I>(const Csr<T, I>&, std::span<const T>, std::int64_t, \
                                 std::span<const std::int64_t>);                     \
  template Product batch_product<T, I>(std::span<const Csr<T, I>>, std::span<const T>);
SPX_INST_T(float)
SPX_INST_T(double)
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST
#undef SPX_INST_T

}  // namespace spx::reference

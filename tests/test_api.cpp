// API misuse at the library boundary (issue 22): overlapping operands,
// overflowing sizes and leading dimensions, allocation failures, statistics
// of very wide matrices, exceptions inside parallel regions. Each case expects
// the exception type and a fragment of its message. The GPU counterparts of
// the aliasing cases are in test_cuda.cpp.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.hpp"
#include "common/first_error.hpp"
#include "spx/analysis.hpp"
#include "spx/batch/batch_coo.hpp"
#include "spx/batch/batch_csr.hpp"
#include "spx/batch/batch_ell.hpp"
#include "spx/batch/ops.hpp"
#include "spx/convert.hpp"
#include "spx/formats/dia.hpp"
#include "spx/formats/ell.hpp"
#include "spx/ops.hpp"

// AddressSanitizer (SPX_TEST_ASAN, common.hpp): RLIMIT_AS cannot apply (it
// reserves terabytes of address space), and its throwing operator new aborts
// instead of raising std::bad_alloc for an impossible size.

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(ApiMisuse);

/// The cases that need 64-bit indices (shapes beyond 2^31).
template <class P>
class ApiMisuseWide : public ::testing::Test {};
using WidePairs = ::testing::Types<Types<float, std::int64_t>, Types<double, std::int64_t>>;
TYPED_TEST_SUITE(ApiMisuseWide, WidePairs, TypePairNames);

/// The n×n tridiagonal matrix with 2 on the diagonal and -1 beside it.
template <Value T, Index I>
Csr<T, I> tridiagonal(std::int64_t n) {
  std::vector<I> ptr{0}, col;
  std::vector<T> val;
  for (std::int64_t r = 0; r < n; ++r) {
    for (std::int64_t c = std::max<std::int64_t>(0, r - 1); c <= std::min(n - 1, r + 1); ++c) {
      col.push_back(static_cast<I>(c));
      val.push_back(c == r ? T{2} : T{-1});
    }
    ptr.push_back(static_cast<I>(col.size()));
  }
  return Csr<T, I>(static_cast<I>(n), static_cast<I>(n), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// "[0x..., 0x...)": how messages show the byte range of `n` elements at `p`.
template <class T>
std::string range_of(const T* p, std::int64_t n) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return fmt::format("[{:#x}, {:#x})", a, a + static_cast<std::uintptr_t>(n) * sizeof(T));
}

// ---- aliasing: x and y, B and C ---------------------------------------------

/// y overlapping x, identically or in part, is refused with both ranges
/// named; y right after x (adjacent, disjoint) is accepted and right.
TYPED_TEST(ApiMisuse, SpmvRefusesOverlappingXAndY) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::int64_t n = 8;
  const auto A = tridiagonal<T, I>(n);
  std::vector<T> buf(3 * n, T{1});
  T* p = buf.data();
  const auto x = [&](std::int64_t at) { return VectorView<const T>(p + at, n, Space::Host); };
  const auto y = [&](std::int64_t at) { return VectorView<T>(p + at, n, Space::Host); };
  for (const std::int64_t at : {std::int64_t{0}, n / 2, n - 1, -(n - 1)}) {
    SCOPED_TRACE(at);
    const std::int64_t x0 = at < 0 ? n : 0, y0 = x0 + at;
    expect_error(
        [&] { spmv(T{1}, A, x(x0), T{0}, y(y0)); },
        {"spmv: x ", range_of(p + x0, n), "and y ", range_of(p + y0, n), "overlap in memory"});
  }
  // Adjacent on either side: accepted, and the product is right.
  const std::vector<T> want = [&] {
    std::vector<T> xs(n, T{1}), ys(n, T{0});
    spmv(T{1}, A, xs, T{0}, ys);
    return ys;
  }();
  for (const std::int64_t at : {n, -n}) {
    const std::int64_t x0 = at < 0 ? n : 0, y0 = x0 + at;
    std::fill(buf.begin(), buf.end(), T{1});
    EXPECT_NO_THROW(spmv(T{1}, A, x(x0), T{0}, y(y0)));
    EXPECT_EQ(std::vector<T>(p + y0, p + y0 + n), want) << at;
  }
}

TYPED_TEST(ApiMisuse, BatchSpmvRefusesOverlappingXAndY) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::int64_t n = 6;
  const Csr<T, I> members[] = {tridiagonal<T, I>(n), tridiagonal<T, I>(n)};
  const auto batch = BatchCsr<T, I>::from_matrices(std::span<const Csr<T, I>>(members));
  const std::int64_t len = 2 * n;
  std::vector<T> buf(3 * len, T{1});
  T* p = buf.data();
  for (const std::int64_t at : {std::int64_t{0}, std::int64_t{1}, len - 1}) {
    SCOPED_TRACE(at);
    expect_error(
        [&] {
          batch_spmv(T{1}, batch, VectorView<const T>(p, len, Space::Host), T{0},
                     VectorView<T>(p + at, len, Space::Host));
        },
        {"batch_spmv: x ", range_of(p, len), "and y ", range_of(p + at, len), "overlap"});
  }
  EXPECT_NO_THROW(batch_spmv(T{1}, batch, VectorView<const T>(p, len, Space::Host), T{0},
                             VectorView<T>(p + len, len, Space::Host)));
  // Row sums of the tridiagonal matrix: 1 at both ends, 0 inside.
  for (std::int64_t i = 0; i < len; ++i)
    EXPECT_EQ(p[len + i], (i % n == 0 || i % n == n - 1) ? T{1} : T{0}) << i;
}

TYPED_TEST(ApiMisuse, SpmmRefusesOverlappingBAndC) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::int64_t n = 8, k = 3, size = n * k;
  const auto A = tridiagonal<T, I>(n);
  std::vector<T> buf(3 * size, T{1});
  T* p = buf.data();
  const auto B = [&](std::int64_t at) {
    return DenseView<const T>{p + at, n, k, k, Layout::RowMajor, Space::Host};
  };
  const auto C = [&](std::int64_t at) {
    return DenseView<T>{p + at, n, k, k, Layout::RowMajor, Space::Host};
  };
  for (const std::int64_t at : {std::int64_t{0}, std::int64_t{5}, size - 1}) {
    SCOPED_TRACE(at);
    expect_error([&] { spmm(T{1}, A, B(0), T{0}, C(at)); },
                 {"spmm: B ", range_of(p, size), "and C ", range_of(p + at, size), "overlap"});
  }
  // C after B, and B after C: accepted, and right (row sums of the
  // tridiagonal matrix: 1 in the first and last rows, 0 inside).
  const auto expect_row_sums = [&](std::int64_t at) {
    for (std::int64_t i = 0; i < size; ++i)
      EXPECT_EQ(p[at + i], (i / k == 0 || i / k == n - 1) ? T{1} : T{0}) << at << " " << i;
  };
  EXPECT_NO_THROW(spmm(T{1}, A, B(0), T{0}, C(size)));
  expect_row_sums(size);
  std::fill(buf.begin(), buf.end(), T{1});
  EXPECT_NO_THROW(spmm(T{1}, A, B(size), T{0}, C(0)));
  expect_row_sums(0);
}

// ---- sizes that overflow ------------------------------------------------------

constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();

/// An m × n CSR without entries (no storage grows with n).
template <Value T, Index I>
Csr<T, I> empty_csr(std::int64_t m, std::int64_t n) {
  return Csr<T, I>(static_cast<I>(m), static_cast<I>(n),
                   Array<I>::filled(static_cast<std::size_t>(m) + 1, I{0}), Array<I>(), Array<T>());
}

/// The case: ld = INT64_MAX/2 with B 3×2 passed validation and read
/// out of bounds. Every leading dimension whose extent overflows is refused.
TYPED_TEST(ApiMisuse, SpmmRefusesOverflowingLeadingDimensions) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = tridiagonal<T, I>(3);
  std::vector<T> b(64, T{1}), c(64, T{0});
  const auto B = [&](std::int64_t ld, Layout l) {
    return DenseView<const T>{b.data(), 3, 2, ld, l, Space::Host};
  };
  const auto C = [&](std::int64_t ld, Layout l) {
    return DenseView<T>{c.data(), 3, 2, ld, l, Space::Host};
  };
  // (3 − 1) × (INT64_MAX/2) + 2 elements: the sum overflows.
  expect_error(
      [&] { spmm(T{1}, A, B(kMax64 / 2, Layout::RowMajor), T{0}, C(2, Layout::RowMajor)); },
      {"spmm: size overflow: extent of B", "exceeds 64 bits"});
  // Column-major: (2 − 1) × (INT64_MAX/2) + 3 elements fit, their bytes do not.
  expect_error(
      [&] { spmm(T{1}, A, B(kMax64 / 2, Layout::ColMajor), T{0}, C(2, Layout::RowMajor)); },
      {"spmm: size overflow: bytes of B"});
  // The product itself overflows, and the output's too.
  expect_error([&] { spmm(T{1}, A, B(kMax64, Layout::RowMajor), T{0}, C(2, Layout::RowMajor)); },
               {"size overflow: extent of B"});
  expect_error(
      [&] { spmm(T{1}, A, B(2, Layout::RowMajor), T{0}, C(kMax64 / 3, Layout::RowMajor)); },
      {"size overflow", "of C"});
  // An extent that fits 64 bits but runs past the end of the address space.
  const auto top = reinterpret_cast<const T*>(std::numeric_limits<std::uintptr_t>::max() -
                                              std::uintptr_t{4 * sizeof(T) - 1});
  expect_error(
      [&] {
        spmm(T{1}, A, DenseView<const T>{top, 3, 2, 2, Layout::RowMajor, Space::Host}, T{0},
             C(2, Layout::RowMajor));
      },
      {"spmm: B", "runs past the end of the address space"});
  // Nothing was written.
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](T v) { return v == T{0}; }));
}

/// A vector whose byte length overflows (a 1 × 2^62 matrix needs no storage
/// for its columns) is refused before the overlap check wraps around.
TYPED_TEST(ApiMisuseWide, SpmvRefusesVectorsBeyondTheAddressSpace) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  {
    const std::int64_t n = std::int64_t{1} << 62;
    const auto A = empty_csr<T, I>(1, n);
    std::vector<T> buf(4, T{1});
    expect_error(
        [&] {
          spmv(T{1}, A, VectorView<const T>(buf.data(), n, Space::Host), T{0},
               VectorView<T>(buf.data() + 2, 1, Space::Host));
        },
        {"spmv: size overflow: bytes of x"});
  }
}

TYPED_TEST(ApiMisuse, BatchOffsetsThatOverflow) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using A64 = Array<std::int64_t>;
  if constexpr (sizeof(I) == 8) {
    // Total rows + one row pointer per matrix: INT64_MAX + 1.
    expect_error(
        [&] {
          BatchCsr<T, I>(A64{0, kMax64}, A64{0, 1}, A64{0, 0}, Array<I>{0, 0}, Array<I>(),
                         Array<T>());
        },
        {"BatchCsr", "size overflow", "total rows + one per matrix"});
    // Two matrices of INT64_MAX columns each.
    const Csr<T, I> wide[] = {empty_csr<T, I>(1, kMax64), empty_csr<T, I>(1, kMax64)};
    const std::span<const Csr<T, I>> both(wide);
    expect_error([&] { BatchCsr<T, I>::from_matrices(both); },
                 {"BatchCsr::from_matrices: total columns", "size overflow"});
    expect_error([&] { BatchCoo<T, I>::from_matrices(both); },
                 {"BatchCoo::from_matrices: total columns", "size overflow"});
    expect_error([&] { BatchEll<T, I>::from_matrices(both); },
                 {"BatchEll::from_matrices: total columns", "size overflow"});
  }
  // count × nonzeros of a uniform batch, and a BatchEll's rows × width.
  expect_error(
      [&] {
        BatchCsr<T, I>::uniform(kMax64 / 2, 1, 3, Array<I>{0, 3}, Array<I>{0, 1, 2},
                                Array<T>{T{1}, T{1}, T{1}});
      },
      {"size overflow", "count x nonzeros"});
  if constexpr (sizeof(I) == 8)
    expect_error(
        [&] {
          BatchEll<T, I>(A64{0, std::int64_t{1} << 40}, A64{0, 1}, Array<I>{I{1} << 40}, Array<I>(),
                         Array<I>(), Array<T>());
        },
        {"size overflow: rows x width"});
}

/// rows × width, rows × diagonals: constructors refuse products past 64 bits.
TYPED_TEST(ApiMisuseWide, ShapeProductsThatOverflow) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  {
    const I big = I{1} << 62;
    expect_error([&] { Ell<T, I>(big, 4, 4, Array<I>(), Array<T>(), Array<I>()); },
                 {"size overflow", "ELL rows x width"});
    expect_error(
        [&] {
          Dia<T, I>(big, big, Array<I>{0, 1, 2, 3}, Array<T>());
        },
        {"size overflow", "DIA values (rows x diagonals)"});
  }
}

// ---- constructors and entry points given inconsistent arguments -----------------

TYPED_TEST(ApiMisuse, InconsistentArgumentsNameTheProblem) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using A64 = Array<std::int64_t>;
  // Mismatched sizes.
  expect_error(
      [] {
        Csr<T, I>(2, 2, Array<I>{0, 1}, Array<I>{0}, Array<T>{T{1}});
      },
      {"CSR: row_ptr has 2 entries, expected rows + 1 = 3"});
  expect_error(
      [] {
        Coo<T, I>(2, 2, Array<I>{0, 1}, Array<I>{0}, Array<T>{T{1}, T{1}});
      },
      {"COO: row_idx, col_idx and values must have equal length"});
  expect_error(
      [] {
        Ell<T, I>(2, 2, 1, Array<I>{0}, Array<T>{T{1}}, Array<I>{1, 0});
      },
      {"ELL", "rows x width = 2 x 1"});
  expect_error(
      [] {
        BatchCsr<T, I>(A64{0, 2}, A64{0, 2}, A64{0, 1}, Array<I>{0, 1}, Array<I>{0},
                       Array<T>{T{1}});
      },
      {"BatchCsr: row_ptr has 2 entries, expected total rows + one per matrix = 3"});
  expect_error(
      [] {
        BatchCsr<T, I>(A64{0, 2}, A64{0, 2, 4}, A64{0, 0}, Array<I>(), Array<I>(), Array<T>());
      },
      {"BatchCsr: col_offsets has 3 entries, expected count + 1 = 2"});
  const auto A = tridiagonal<T, I>(4);
  std::vector<T> x(4, T{1}), y(4, T{0}), y3(3, T{0});
  expect_error<DimensionMismatch>([&] { spmv(T{1}, A, x, T{0}, y3); },
                                  {"A is 4x4 (csr), so x must have 4 entries and y 4"});
  // Null pointers with nonzero sizes.
  expect_error([&] { spmv(T{1}, A, VectorView<const T>(nullptr, 4, Space::Host), T{0}, y); },
               {"spmv: x (4 entries) has a null data pointer"});
  expect_error([&] { spmv(T{1}, A, x, T{0}, VectorView<T>(nullptr, 4, Space::Host)); },
               {"spmv: y (4 entries) has a null data pointer"});
  expect_error(
      [&] {
        spmm(T{1}, A, DenseView<const T>{nullptr, 4, 1, 1, Layout::RowMajor, Space::Host}, T{0},
             DenseView<T>{y.data(), 4, 1, 1, Layout::RowMajor, Space::Host});
      },
      {"spmm: B (4x1) has a null data pointer"});
  expect_error([] { Array<T>::view(nullptr, 1); }, {"Array::view: null pointer with 1 elements"});
  // Wrong spaces: a vector or an array that claims device memory.
  expect_error([&] { spmv(T{1}, A, VectorView<const T>(x.data(), 4, Space::Device), T{0}, y); },
               {"spmv: the matrix is in host memory but x is in device memory"});
  expect_error(
      [&] {
        Array<I> p{0, 1, 2};
        Csr<T, I>(2, 2, Array<I>::view(p.data(), 3, Space::Device), Array<I>{0, 1},
                  Array<T>{T{1}, T{1}});
      },
      {"CSR: arrays live in different memory spaces"});
  // Negative shapes.
  expect_error([] { Csr<T, I>(-1, 2, Array<I>{0}, Array<I>(), Array<T>()); },
               {"CSR: negative shape -1x2"});
  // Index-type overflow: a 32-bit batch member declared with 2^31 nonzeros,
  // a cast of a matrix with 2^31 columns to 32-bit indices.
  if constexpr (sizeof(I) == 4)
    expect_error(
        [] {
          BatchCsr<T, I>(A64{0, 1}, A64{0, 1}, A64{0, std::int64_t{1} << 31}, Array<I>{0, 0},
                         Array<I>(), Array<T>());
        },
        {"matrix 0 has 2147483648 nonzeros, which does not fit the index type"});
  expect_error(
      [] {
        const auto wide = empty_csr<T, std::int64_t>(1, std::int64_t{1} << 31);
        (void)cast<T, std::int32_t>(wide);
      },
      {"index overflow: cols = 2147483648 does not fit the i32 index type"});
}

// ---- allocation failures -------------------------------------------------------

/// A conversion whose scratch cannot be allocated raises OutOfMemory naming
/// the conversion and the bytes asked for (it used to be std::bad_alloc).
TYPED_TEST(ApiMisuseWide, ConversionOutOfMemoryNamesOperationAndBytes) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  {
    // 1 × 2^50 with one entry: the transpose counts 2^50 + 1 columns.
    const I n = I{1} << 50;
    const Csr<T, I> A(1, n, Array<I>{0, 1}, Array<I>{n - 1}, Array<T>{T{2}});
    const std::size_t bytes = (static_cast<std::size_t>(n) + 1) * sizeof(I);
    try {
      (void)to_csc(A);
      ADD_FAILURE() << "converted a 1 x 2^50 matrix to CSC";
    } catch (const OutOfMemory& e) {
      EXPECT_CONTAINS(e.what(),
                      fmt::format("CSR to CSC: host allocation of {} bytes failed", bytes));
      EXPECT_EQ(e.bytes(), bytes);
    }
    // COO → CSR with 2^50 rows: the row counts.
    const Coo<T, I> C(n, 1, Array<I>{n - 1}, Array<I>{0}, Array<T>{T{2}});
    try {
      (void)to_csr(C);
      ADD_FAILURE() << "converted a 2^50 x 1 COO to CSR";
    } catch (const OutOfMemory& e) {
      EXPECT_CONTAINS(e.what(), "COO to CSR: host allocation of");
      EXPECT_EQ(e.bytes(), bytes);
    }
  }
}

/// A standard container's failure (no size known) is OutOfMemory naming the
/// operation too, never std::bad_alloc.
TYPED_TEST(ApiMisuse, BatchOutOfMemoryIsOutOfMemory) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
#ifdef SPX_TEST_ASAN
  GTEST_SKIP() << "ASan's operator new aborts where std::bad_alloc would be thrown";
#endif
  // 2^50 empty matrices: the offsets alone need 24 PiB.
  expect_error<OutOfMemory>(
      [&] {
        BatchCsr<T, I>::uniform(std::int64_t{1} << 50, 0, 0, Array<I>{0}, Array<I>(), Array<T>());
      },
      {"BatchCsr::uniform: out of host memory"});
}

TEST(ApiMisuseArray, ViewsBeyondTheAddressSpace) {
  std::vector<double> v(4);
  expect_error([&] { Array<double>::view(nullptr, 3); }, {"Array::view: null pointer with 3"});
  expect_error([&] { Array<double>::view(v.data(), std::size_t{1} << 61); },
               {"Array::view", "run past the end of the address space"});
  expect_error(
      [&] {
        Csr<double, std::int64_t>::view(1, 2, std::span<const std::int64_t>(), {}, {}, Space::Host);
      },
      {"CSR"});
}

// ---- statistics of very wide matrices -------------------------------------------

/// Distinct diagonals and aligned b×b blocks, counted the obvious way.
template <Value T, Index I>
void expect_stats_match_brute_force(const Csr<T, I>& A, const std::string& what) {
  SCOPED_TRACE(what);
  const MatrixStats s = analyze(A);
  std::set<std::int64_t> diags;
  std::set<std::pair<std::int64_t, std::int64_t>> blocks[7];
  const auto& ptr = A.row_ptr();
  const auto& col = A.col_idx();
  for (std::int64_t r = 0; r < A.rows(); ++r)
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      diags.insert(std::int64_t{col[k]} - r);
      for (int b = 2; b <= 8; ++b)
        blocks[b - 2].insert({r / b, std::int64_t{col[k]} / b});
    }
  EXPECT_EQ(s.diagonals, static_cast<std::int64_t>(diags.size()));
  // scatter: nonzeros on a line new to the row and to the previous row.
  std::int64_t misses = 0;
  std::set<std::int64_t> previous;
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    std::set<std::int64_t> lines;
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      const std::int64_t l = std::int64_t{col[k]} / MatrixStats::kScatterLine;
      misses += !lines.contains(l) && !previous.contains(l);
      lines.insert(l);
    }
    previous = std::move(lines);
  }
  EXPECT_DOUBLE_EQ(s.scatter, A.nnz() > 0 ? static_cast<double>(misses) / A.nnz() : 0.0);
  for (int b = 2; b <= 8; ++b) {
    const double n = static_cast<double>(blocks[b - 2].size());
    EXPECT_DOUBLE_EQ(s.fill(b), n > 0 ? static_cast<double>(A.nnz()) / (n * b * b) : 0.0) << b;
  }
}

/// 1 × 2,000,000,000 (64-bit indices; 1 × (2^31 - 1) with 32-bit ones)
/// with two entries, in the first and the last column but four.
template <Value T, Index I>
Csr<T, I> very_wide() {
  const std::int64_t n = sizeof(I) == 8 ? std::int64_t{2'000'000'000} : kMax64 >> 32;
  return Csr<T, I>(1, static_cast<I>(n), Array<I>{0, 2}, Array<I>{5, static_cast<I>(n - 1)},
                   Array<T>{T{1}, T{2}});
}

/// The matrix: 1 × 2,000,000,000 with two entries took a stamp array
/// of cols/b entries per thread (and a byte per diagonal) and aborted.
TYPED_TEST(ApiMisuse, AnalyzeVeryWideMatrixQuickly) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = very_wide<T, I>();
  const std::int64_t n = A.cols();
  const auto start = std::chrono::steady_clock::now();
  const MatrixStats s = analyze(A);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0) << "a two-entry matrix took " << seconds << " s";
  EXPECT_EQ(s.rows, 1);
  EXPECT_EQ(s.cols, n);
  EXPECT_EQ(s.nnz, 2);
  EXPECT_EQ(s.diagonals, 2);
  EXPECT_EQ(s.upper_bandwidth, n - 1);
  EXPECT_EQ(s.bandwidth, n);
  for (int b = 2; b <= 8; ++b)
    EXPECT_DOUBLE_EQ(s.fill(b), 2.0 / (2.0 * b * b)) << b;
  expect_stats_match_brute_force(A, "1 x " + std::to_string(n));
}

/// Both ways of counting (a map over the columns, sorting the nonzeros' keys)
/// agree with brute force: square matrices take the map, wide ones the sort.
TYPED_TEST(ApiMisuse, AnalyzeCountsAlikeOnEveryShape) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 gen(seed);
  for (const auto& [m, n, per_row] :
       {std::tuple{300, 300, 7}, std::tuple{37, 10'000'000, 3}, std::tuple{1000, 5'000'000, 1},
        std::tuple{9, 9, 0}, std::tuple{5000, 17, 2}}) {
    std::vector<I> ptr{0}, col;
    for (int r = 0; r < m; ++r) {
      std::set<I> cols;
      for (int k = 0; k < per_row; ++k)
        cols.insert(static_cast<I>(gen() % static_cast<std::uint64_t>(n)));
      col.insert(col.end(), cols.begin(), cols.end());
      ptr.push_back(static_cast<I>(col.size()));
    }
    const Csr<T, I> A(m, static_cast<I>(n), Array<I>(ptr), Array<I>(col),
                      Array<T>::filled(col.size(), T{1}));
    expect_stats_match_brute_force(A, fmt::format("{}x{}", m, n));
  }
}

// ---- exceptions inside parallel regions -----------------------------------------

/// An exception thrown by one iteration of a parallel loop arrives after the
/// region as that exception (type and message), the loop does not hang, and
/// the remaining iterations are skipped.
TEST(ApiMisuseParallel, FirstErrorCarriesTheException) {
  detail::FirstError err;
  std::vector<int> ran(10'000, 0);
#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < 10'000; ++i)
    err.run([&] {
      ran[i] = 1;
      if (i == 4321) throw InvalidInput("iteration 4321 failed");
    });
  EXPECT_TRUE(err.failed());
  expect_error([&] { err.rethrow(); }, {"iteration 4321 failed"});
  EXPECT_EQ(ran[4321], 1);

  // A per-thread setup that fails on one thread only, before a worksharing
  // loop: every thread still reaches the loop's barrier.
  detail::FirstError setup;
  std::vector<int> done(1000, 0);
#pragma omp parallel num_threads(4)
  {
    setup.run([&] {
      if (omp_get_thread_num() == 1) throw std::bad_alloc();
    });
#pragma omp for
    for (int i = 0; i < 1000; ++i)
      setup.run([&] { done[i] = 1; });
  }
  EXPECT_THROW(setup.rethrow(), std::bad_alloc);

  // Nothing thrown: rethrow does nothing.
  detail::FirstError none;
#pragma omp parallel for
  for (int i = 0; i < 100; ++i)
    none.run([] {});
  EXPECT_FALSE(none.failed());
  EXPECT_NO_THROW(none.rethrow());
}

// ---- very wide matrices in conversions ------------------------------------------

/// DIA of a 1 × 2e9 matrix with two entries: two diagonals, found without a
/// map over the 2e9 possible offsets (which took 8 GB).
TYPED_TEST(ApiMisuse, DiaOfVeryWideMatrix) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = very_wide<T, I>();
  const std::int64_t n = A.cols();
  const Dia<T, I> D = to_dia(A);
  EXPECT_EQ(D.ndiag(), 2);
  EXPECT_EQ(D.offsets().to_vector(), (std::vector<I>{5, static_cast<I>(n - 1)}));
  expect_same_csr(to_csr(D), A, "DIA round trip");
  // Entries on three diagonals of a 100 × 1,000,000 matrix, also by sorting.
  std::vector<I> ptr(101, I{0});
  for (std::size_t r = 2; r <= 100; ++r)
    ptr[r] = static_cast<I>(r <= 50 ? 1 : r <= 99 ? 2 : 3);
  const Csr<T, I> S(100, 1'000'000, Array<I>(ptr), Array<I>{999'999, 3, 0},
                    Array<T>{T{1}, T{2}, T{3}});
  const Dia<T, I> DS = to_dia(S);
  EXPECT_EQ(DS.offsets().to_vector(), (std::vector<I>{-99, -47, 999'998}));
  expect_same_csr(to_csr(DS), S, "sparse DIA round trip");
}

// ---- under an address-space limit (a child process) -----------------------------

/// Run by MemoryLimit.ChildProcess in a child process (disabled, so that no
/// other run executes or reports it; skipped if run without the child's
/// environment):
/// under an address-space limit of what the process holds plus 256 MiB, a
/// conversion that needs gigabytes raises OutOfMemory naming it (no
/// std::bad_alloc, no terminate), and the statistics and the DIA of a
/// 1 × 2e9 matrix with two entries fit.
TEST(MemoryLimitChild, DISABLED_UnderLimit) {
  if (std::getenv("SPX_TEST_MEMORY_LIMIT_CHILD") == nullptr)
    GTEST_SKIP() << "runs in the child process of MemoryLimit.ChildProcess";
  // 100000 rows of one entry and one of 4000: ELL of width 4000 stores 4e8
  // values (4.8 GB).
  const std::int64_t m = 100'000, longest = 4000;
  std::vector<std::int32_t> ptr{0}, col;
  for (std::int64_t r = 0; r < m; ++r) {
    const std::int64_t len = r == m / 2 ? longest : 1;
    for (std::int64_t k = 0; k < len; ++k)
      col.push_back(static_cast<std::int32_t>((r + k) % m));
    std::sort(col.end() - len, col.end());
    ptr.push_back(static_cast<std::int32_t>(col.size()));
  }
  const Csr<double, std::int32_t> A(m, m, Array<std::int32_t>(ptr), Array<std::int32_t>(col),
                                    Array<double>::filled(col.size(), 1.0));
  const Csr<double, std::int64_t> wide(1, 2'000'000'000, Array<std::int64_t>{0, 2},
                                       Array<std::int64_t>{5, 1'999'999'999},
                                       Array<double>{1.0, 2.0});
  // Start the OpenMP threads, and the malloc arena each thread gets at its
  // first allocation (64 MiB of address space each with glibc), before the
  // limit: a 16-core machine otherwise ran out of address space in analyze.
#pragma omp parallel
  {
    std::vector<char> first_allocation(std::size_t{1} << 16,
                                       static_cast<char>(omp_get_thread_num()));
    (void)first_allocation;
  }
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  const rlim_t limit =
      pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) + (rlim_t{256} << 20);
  const rlimit rl{limit, limit};
  ASSERT_EQ(setrlimit(RLIMIT_AS, &rl), 0);

  ConvertOptions huge_budget;
  huge_budget.max_expansion = 1e6;
  try {
    (void)to_ell(A, huge_budget);
    ADD_FAILURE() << "converted to a 4.8 GB ELL under a limit of " << limit << " bytes";
  } catch (const OutOfMemory& e) {
    EXPECT_CONTAINS(e.what(), "CSR to ELL: host allocation of");
    EXPECT_GE(e.bytes(), std::size_t{256} << 20) << e.what();
  }
  const MatrixStats s = analyze(wide);
  EXPECT_EQ(s.diagonals, 2);
  EXPECT_EQ(to_dia(wide).ndiag(), 2);
  // The library still works after the failures.
  const auto x = std::vector<double>(static_cast<std::size_t>(m), 1.0);
  std::vector<double> y(static_cast<std::size_t>(m), 0.0);
  spmv(1.0, A, x, 0.0, y);
  EXPECT_EQ(y[m / 2], static_cast<double>(longest));
}

/// Runs MemoryLimitChild.DISABLED_UnderLimit in a child process of this test binary
/// (setrlimit would limit every later test of this process).
TEST(MemoryLimit, ChildProcess) {
#ifdef SPX_TEST_ASAN
  GTEST_SKIP() << "ASan reserves terabytes of address space: RLIMIT_AS cannot apply";
#else
  std::string exe(4096, '\0');
  const ssize_t len = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  ASSERT_GT(len, 0);
  exe.resize(static_cast<std::size_t>(len));
  const std::string cmd = fmt::format(
      "SPX_TEST_MEMORY_LIMIT_CHILD=1 '{}' --gtest_also_run_disabled_tests "
      "--gtest_filter=MemoryLimitChild.DISABLED_UnderLimit 2>&1",
      exe);
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[4096];
  while (const std::size_t got = std::fread(chunk, 1, sizeof chunk, pipe))
    output.append(chunk, got);
  const int status = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_CONTAINS(output, "[  PASSED  ] 1 test");
  EXPECT_EQ(output.find("SKIPPED"), std::string::npos) << output;
#endif
}

}  // namespace
}  // namespace spx::test

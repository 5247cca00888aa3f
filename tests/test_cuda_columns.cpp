// The column statistics of a device CSR computed on the GPU
// (src/cuda/csr_columns.*): on every matrix they must equal the host's numbers
// exactly — analyze's diagonals, block fill, scatter and bandwidths, and
// simple std::set-like references for the blocks of any size, the scattered
// entries, each row's first and last column and the diagonals of each hack —
// and the symmetry test must return the host's diagonal count or refuse as
// the host does (on these matrices, with one defect each, with the host's
// very message; with several, the device may name another entry than the
// one the host's scan meets first). Matrices: the shared hand-made and generated ones,
// random, banded and stencil, block/FEM-like, power-law, empty rows, empty,
// 1×N and N×1, one long row among empty ones, rows of 31/32/33 entries,
// rectangular, hyper-sparse wide (the sort path of the diagonals), with fresh
// random data. Every test needs a GPU: it skips without one (fails with
// SPX_REQUIRE_GPU=1). SPX_TEST_SMALL=1 shrinks the large cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "core/convert_checks.hpp"
#include "cuda_common.hpp"
#if SPX_HAVE_CUDA
#include "cuda/csr_columns.hpp"
#endif
#include "matrices.hpp"
#include "spx/analysis.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaColumns);

#if SPX_HAVE_CUDA

// ---- references on the host -----------------------------------------------------

/// Distinct (group, key) pairs over the entries (group, key = f(row,
/// column)): in all, and in group `last_group`.
template <Value T, Index I, class F>
std::pair<std::int64_t, std::int64_t> distinct_pairs(const Csr<T, I>& A, std::int64_t last_group,
                                                     F&& f) {
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  for (std::int64_t r = 0; r < A.rows(); ++r)
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
      seen.insert(f(r, static_cast<std::int64_t>(col[k])));
  std::int64_t last = 0;
  for (const auto& p : seen)
    last += p.first == last_group;
  return {static_cast<std::int64_t>(seen.size()), last};
}

template <Value T, Index I>
std::int64_t ref_blocks(const Csr<T, I>& A, std::int64_t b) {
  return distinct_pairs(A, -1,
                        [b](std::int64_t r, std::int64_t c) {
                          return std::pair{r / b, c / b};
                        })
      .first;
}

template <Value T, Index I>
std::int64_t ref_diagonals(const Csr<T, I>& A) {
  return distinct_pairs(A, -1,
                        [](std::int64_t r, std::int64_t c) {
                          return std::pair{std::int64_t{0}, c - r};
                        })
      .first;
}

/// {total, last} of the hacks of H rows.
template <Value T, Index I>
std::pair<std::int64_t, std::int64_t> ref_hacks(const Csr<T, I>& A, std::int64_t H) {
  const std::int64_t m = A.rows();
  const std::int64_t last = m > 0 ? (m - 1) / H : -1;
  return distinct_pairs(A, last, [H](std::int64_t r, std::int64_t c) {
    return std::pair{r / H, c - r};
  });
}

/// The scattered entries by their definition: an entry whose line (8
/// columns) differs from the row's previous entry's line and is not among
/// the lines of the previous row.
template <Value T, Index I>
std::int64_t ref_scattered(const Csr<T, I>& A) {
  constexpr std::int64_t L = MatrixStats::kScatterLine;
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  std::int64_t n = 0;
  std::set<std::int64_t> above, here;
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    here.clear();
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      const std::int64_t l = col[k] / L;
      here.insert(l);
      if (k > ptr[r] && col[k - 1] / L == l) continue;
      n += !above.contains(l);
    }
    std::swap(above, here);
  }
  return n;
}

// ---- the comparison ---------------------------------------------------------------

template <Value T, Index I>
void check_counts(const std::string& name, const Csr<T, I>& A) {
  SCOPED_TRACE(fmt::format("{} ({}x{}, nnz {})", name, A.rows(), A.cols(), A.nnz()));
  const Csr<T, I> dA = A.to(Space::Device);
  const std::int64_t m = A.rows(), nnz = A.nnz();
  const MatrixStats s = analyze(A);
  const ColumnCounts c = cuda::csr_column_counts(dA);
  // Under compute-sanitizer (SPX_TEST_SMALL=1) each path once or twice:
  // racecheck runs every launch slowly.
  const bool small = small_tests();

  EXPECT_EQ(c.diagonals, s.diagonals);
  EXPECT_EQ(c.diagonals, ref_diagonals(A));
  for (int b = 2; b <= 8; ++b) {
    const std::int64_t want = ref_blocks(A, b);
    const std::int64_t got = c.blocks[static_cast<std::size_t>(b - 2)];
    EXPECT_EQ(got, want) << "blocks of " << b;
    // analyze's fill, from the same count.
    const double fill =
        got > 0 ? static_cast<double>(nnz) / (static_cast<double>(got) * b * b) : 0.0;
    EXPECT_EQ(fill, s.block_fill[static_cast<std::size_t>(b - 2)]) << "fill of " << b;
  }
  EXPECT_EQ(c.scattered, ref_scattered(A));
  EXPECT_EQ(c.scattered, nnz > 0 ? std::llround(s.scatter * static_cast<double>(nnz)) : 0);

  EXPECT_EQ(c.lower_bandwidth, s.lower_bandwidth);
  EXPECT_EQ(c.upper_bandwidth, s.upper_bandwidth);

  // Each row's first and last column (SELL-pack with σ > 1).
  const RowEnds ends = cuda::csr_row_ends(dA);
  ASSERT_EQ(static_cast<std::int64_t>(ends.first.size()), m);
  ASSERT_EQ(static_cast<std::int64_t>(ends.last.size()), m);
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  for (std::int64_t r = 0; r < m; ++r) {
    const bool empty = ptr[r] == ptr[r + 1];
    ASSERT_EQ(ends.first[r], empty ? -1 : std::int64_t{col[ptr[r]]}) << "row " << r;
    ASSERT_EQ(ends.last[r], empty ? -1 : std::int64_t{col[ptr[r + 1] - 1]}) << "row " << r;
  }

  // SELL-pack's packed entries (σ = 1): slices of C rows, widths rounded up
  // to tpr, packed where their columns span at most kMaxSpan.
  const std::vector<std::pair<std::int64_t, std::int64_t>> slicings =
      small ? std::vector<std::pair<std::int64_t, std::int64_t>>{{7, 2}}
            : std::vector<std::pair<std::int64_t, std::int64_t>>{
                  {32, 1}, {32, 4}, {1, 1}, {7, 2}, {1000, 1}};
  for (const auto& [C, tpr] : slicings) {
    std::int64_t want = 0;
    for (std::int64_t s0 = 0; s0 < m; s0 += C) {
      std::int64_t w = 0, lo = A.cols(), hi = -1;
      for (std::int64_t r = s0; r < std::min(m, s0 + C); ++r) {
        w = std::max<std::int64_t>(w, ptr[r + 1] - ptr[r]);
        if (ptr[r + 1] > ptr[r]) {
          lo = std::min<std::int64_t>(lo, col[ptr[r]]);
          hi = std::max<std::int64_t>(hi, col[ptr[r + 1] - 1]);
        }
      }
      if (hi - lo <= SellPack<T, I>::kMaxSpan) want += C * ((w + tpr - 1) / tpr * tpr);
    }
    EXPECT_EQ(cuda::csr_packed_entries(dA, C, tpr), want) << "C " << C << ", tpr " << tpr;
  }

  // Blocks of any size: searches up to 32, a sort beyond.
  const std::vector<std::int64_t> block_sizes =
      small ? std::vector<std::int64_t>{1, 2, 9, 33}
            : std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 31, 32, 33, 64, 1000};
  for (const std::int64_t b : block_sizes)
    EXPECT_EQ(cuda::csr_blocks(dA, b), ref_blocks(A, b)) << "blocks of " << b;
  EXPECT_EQ(cuda::csr_blocks(dA, std::int64_t{1} << 40), nnz > 0 ? 1 : 0);

  // Hack diagonals: searches up to H = 32, a sort beyond; H = m is one hack.
  const std::int64_t m1 = std::max<std::int64_t>(m, 1);
  const std::vector<std::int64_t> hack_sizes =
      small ? std::vector<std::int64_t>{3, 32, 100}
            : std::vector<std::int64_t>{
                  1, 3, 31, 32, 33, 100, m1, 10 * m1, std::numeric_limits<std::int64_t>::max()};
  for (const std::int64_t H : hack_sizes) {
    const HackDiagonals h = cuda::csr_hack_diagonals(dA, H);
    const auto [total, last] = ref_hacks(A, H);
    EXPECT_EQ(h.total, total) << "hacks of " << H;
    EXPECT_EQ(h.last, last) << "hacks of " << H;
  }
}

// ---- matrices -----------------------------------------------------------------------

/// A rows × cols CSR with row i's columns from `columns(i, gen)` (repeats
/// dropped), random values.
template <Value T, Index I, class Columns>
Csr<T, I> rows_of(std::int64_t rows, std::int64_t cols, std::uint64_t seed, Columns&& columns) {
  std::mt19937_64 gen(seed);
  std::vector<I> ptr{0}, col;
  for (std::int64_t i = 0; i < rows; ++i) {
    std::vector<std::int64_t> row = columns(i, gen);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (const std::int64_t j : row)
      col.push_back(static_cast<I>(j));
    ptr.push_back(static_cast<I>(col.size()));
  }
  const auto val = random_values<T>(static_cast<std::int64_t>(col.size()), seed + 1);
  return Csr<T, I>(static_cast<I>(rows), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// Columns uniform in [0, cols), `count` draws.
inline std::vector<std::int64_t> uniform(std::mt19937_64& gen, std::int64_t cols,
                                         std::int64_t count) {
  std::vector<std::int64_t> out;
  for (std::int64_t k = 0; k < count && cols > 0; ++k)
    out.push_back(static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(cols)));
  return out;
}

/// FEM-like: dense b×b blocks (10% holes) on the block diagonal, beside it
/// and a few far away; every fifth block row empty.
template <Value T, Index I>
Csr<T, I> fem_like(std::int64_t rows, std::int64_t cols, int b, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const std::int64_t mb = (rows + b - 1) / b, nb = (cols + b - 1) / b;
  std::vector<I> r, c;
  for (std::int64_t R = 0; R < mb; ++R) {
    if (R % 5 == 4) continue;
    std::set<std::int64_t> blocks{R * nb / mb};
    if (R * nb / mb + 1 < nb) blocks.insert(R * nb / mb + 1);
    if (R > 0) blocks.insert((R - 1) * nb / mb);
    if (gen() % 4 == 0) blocks.insert(static_cast<std::int64_t>(gen() % nb));
    for (const std::int64_t C : blocks)
      for (int rr = 0; rr < b; ++rr)
        for (int cc = 0; cc < b; ++cc) {
          const std::int64_t i = R * b + rr, j = C * b + cc;
          if (i < rows && j < cols && gen() % 10 != 0) {
            r.push_back(static_cast<I>(i));
            c.push_back(static_cast<I>(j));
          }
        }
  }
  return csr_from_entries<T, I>(rows, cols, r, c, seed + 1);
}

template <Value T, Index I>
std::vector<TestMatrix<T, I>> column_matrices() {
  const std::uint64_t seed = fresh_seed();
  const std::int64_t big = small_tests() ? 3000 : 40000;
  std::vector<TestMatrix<T, I>> v;
  const auto add = [&](std::string name, Csr<T, I> A) {
    v.push_back({std::move(name), std::move(A)});
  };
  auto s = [&] { return seed + 101 * v.size(); };

  add("random 2000x1500", rows_of<T, I>(2000, 1500, s(), [](std::int64_t, auto& g) {
        return uniform(g, 1500, static_cast<std::int64_t>(g() % 21));
      }));
  add("random large", rows_of<T, I>(big, big, s(), [&](std::int64_t i, auto& g) {
        // Mostly near the diagonal, some far.
        std::vector<std::int64_t> c = uniform(g, big, 2);
        for (int k = 0; k < 8; ++k)
          c.push_back(
              std::clamp<std::int64_t>(i + static_cast<std::int64_t>(g() % 41) - 20, 0, big - 1));
        return c;
      }));
  add("empty rows", rows_of<T, I>(3000, 2000, s(), [](std::int64_t i, auto& g) {
        return i % 3 != 0 || g() % 2 == 0
                   ? std::vector<std::int64_t>{}
                   : uniform(g, 2000, 1 + static_cast<std::int64_t>(g() % 9));
      }));
  add("stencil2d", generated<T, I>("stencil2d:n=60,points=5", s()).A);
  add("stencil2d-9", generated<T, I>("stencil2d:n=33,points=9", s()).A);
  add("stencil3d", generated<T, I>("stencil3d:n=14,points=27", s()).A);
  add("banded", generated<T, I>("banded:n=5000,bands=9", s()).A);
  add("fem", generated<T, I>("fem:n=10,block=3", s()).A);
  for (const int b : {2, 3, 4, 5, 8})
    add(fmt::format("fem-like b={}", b), fem_like<T, I>(1001, 997, b, s()));
  add("rmat", generated<T, I>("rmat:scale=12,degree=8", s()).A);
  add("chunglu", generated<T, I>("chunglu:n=3000,degree=4", s()).A);
  add("empty 0x0", Csr<T, I>(0, 0, Array<I>{0}, Array<I>{}, Array<T>{}));
  add("empty 7x9", Csr<T, I>(7, 9, Array<I>(std::vector<I>(8, 0)), Array<I>{}, Array<T>{}));
  add("1xN",
      rows_of<T, I>(1, 5000, s(), [](std::int64_t, auto& g) { return uniform(g, 5000, 700); }));
  add("Nx1", rows_of<T, I>(5000, 1, s(), [](std::int64_t i, auto&) {
        return i % 4 == 1 ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{0};
      }));
  add("one long row", rows_of<T, I>(1000, 50000, s(), [](std::int64_t i, auto& g) {
        return i == 500 ? uniform(g, 50000, 20000) : std::vector<std::int64_t>{};
      }));
  add("long row among short", rows_of<T, I>(700, 9000, s(), [](std::int64_t i, auto& g) {
        return i == 350 ? uniform(g, 9000, 8000)
                        : uniform(g, 9000, static_cast<std::int64_t>(g() % 3));
      }));
  {
    std::vector<std::int64_t> lengths;
    for (int i = 0; i < 600; ++i)
      lengths.push_back(31 + i % 3);  // 31, 32, 33
    add("rows of 31/32/33", csr_with_lengths<T, I>(100, lengths, s()));
    add("rows of 31/32/33 wide", csr_with_lengths<T, I>(4000, lengths, s()));
  }
  add("wide 50x20000",
      rows_of<T, I>(50, 20000, s(), [](std::int64_t, auto& g) { return uniform(g, 20000, 60); }));
  add("tall 20000x50", rows_of<T, I>(20000, 50, s(), [](std::int64_t, auto& g) {
        return uniform(g, 50, static_cast<std::int64_t>(g() % 5));
      }));
  // n > nnz + 64 Ki: the diagonals are sorted instead of marked.
  add("hyper-sparse 300x300000", rows_of<T, I>(300, 300000, s(), [](std::int64_t, auto& g) {
        return uniform(g, 300000, static_cast<std::int64_t>(g() % 4));
      }));
  add("hyper-sparse 1x200000",
      rows_of<T, I>(1, 200000, s(), [](std::int64_t, auto& g) { return uniform(g, 200000, 5); }));
  if constexpr (sizeof(I) == 8) {
    // Columns beyond 32 bits.
    const std::int64_t n = std::int64_t{1} << 40;
    add("2^40 columns", rows_of<T, I>(70, n, s(), [n](std::int64_t i, auto& g) {
          std::vector<std::int64_t> c = uniform(g, n, 3);
          c.push_back(i);
          c.push_back(n - 1 - i);
          return c;
        }));
  }
  return v;
}

TYPED_TEST(CudaColumns, CountsMatchTheHost) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const auto& [name, A] : column_matrices<T, I>())
    check_counts(name, A);
}

TYPED_TEST(CudaColumns, SharedMatricesMatchTheHost) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const auto& [name, A] : handmade_matrices<T, I>())
    check_counts(name, A);
  for (const auto& [name, A] : generated_matrices<T, I>())
    check_counts(name, A);
}

TYPED_TEST(CudaColumns, RefusesBadArguments) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A(2, 2, Array<I>{0, 1, 2}, Array<I>{0, 1}, Array<T>{1, 2});
  // A host matrix, named by the function.
  expect_error([&] { (void)cuda::csr_column_counts(A); }, {"csr_column_counts", "device"});
  expect_error([&] { (void)cuda::csr_hack_diagonals(A, 4); }, {"csr_hack_diagonals"});
  expect_error([&] { (void)cuda::csr_blocks(A, 4); }, {"csr_blocks"});
  expect_error([&] { (void)cuda::csr_symmetric_diagonal(A, "SYM_CSR"); },
               {"csr_symmetric_diagonal"});
  const Csr<T, I> dA = A.to(Space::Device);
  expect_error([&] { (void)cuda::csr_hack_diagonals(dA, 0); }, {"csr_hack_diagonals"});
  expect_error([&] { (void)cuda::csr_blocks(dA, 0); }, {"csr_blocks"});
}

// ---- symmetry -------------------------------------------------------------------------

/// A copy of A without entry (i, j) (which it stores).
template <Value T, Index I>
Csr<T, I> without(const Csr<T, I>& A, std::int64_t i, std::int64_t j) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  const auto val = A.values().to_vector();
  std::vector<I> p{0}, c;
  std::vector<T> v;
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
      if (r != i || col[k] != j) {
        c.push_back(col[k]);
        v.push_back(val[k]);
      }
    p.push_back(static_cast<I>(c.size()));
  }
  EXPECT_EQ(static_cast<std::int64_t>(c.size()), A.nnz() - 1);
  return Csr<T, I>(A.rows(), A.cols(), Array<I>(p), Array<I>(c), Array<T>(v));
}

/// A copy of A with value v at (i, j) (which it stores).
template <Value T, Index I>
Csr<T, I> with_value(const Csr<T, I>& A, std::int64_t i, std::int64_t j, T v) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  auto val = A.values().to_vector();
  for (std::int64_t k = ptr[i]; k < ptr[i + 1]; ++k)
    if (col[k] == j) val[k] = v;
  return Csr<T, I>(A.rows(), A.cols(), A.row_ptr().clone(), A.col_idx().clone(), Array<T>(val));
}

/// The value A stores at (i, j).
template <Value T, Index I>
T value_at(const Csr<T, I>& A, std::int64_t i, std::int64_t j) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  for (std::int64_t k = ptr[i]; k < ptr[i + 1]; ++k)
    if (col[k] == j) return A.values().to_vector()[static_cast<std::size_t>(k)];
  ADD_FAILURE() << "(" << i << ", " << j << ") is not stored";
  return T{0};
}

/// The stored entries (i, j) with i < j (above the diagonal).
template <Value T, Index I>
std::vector<std::pair<std::int64_t, std::int64_t>> upper_entries(const Csr<T, I>& A) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t r = 0; r < A.rows(); ++r)
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
      if (col[k] > r) out.push_back({r, col[k]});
  return out;
}

/// The device test returns the host's diagonal count on a symmetric A.
template <Value T, Index I>
void expect_symmetric(const std::string& name, const Csr<T, I>& A) {
  SCOPED_TRACE(name);
  const Csr<T, I> dA = A.to(Space::Device);
  EXPECT_EQ(cuda::csr_symmetric_diagonal(dA, "SYM_CSR"), detail::check_symmetric(A));
}

/// The device refuses A (one defect) with the host's message, naming `format`.
template <Value T, Index I>
void expect_refused(const std::string& name, const Csr<T, I>& A, const char* format) {
  SCOPED_TRACE(name);
  const Csr<T, I> dA = A.to(Space::Device);
  const std::string host =
      message_of<Unsupported>([&] { (void)detail::check_symmetric(A, format); });
  const std::string device =
      message_of<Unsupported>([&] { (void)cuda::csr_symmetric_diagonal(dA, format); });
  EXPECT_TRUE(device.starts_with(format)) << device;
  EXPECT_EQ(device, host);
}

TYPED_TEST(CudaColumns, SymmetricDiagonal) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const auto& [name, A] : handmade_matrices<T, I>())
    if (name.starts_with("sym-") || name == "0x0" || name == "1x1" || name == "5x5-no-entries" ||
        name == "diag-empty-rows")
      expect_symmetric(name, A);

  std::mt19937_64 gen(fresh_seed());
  const I n = small_tests() ? 800 : 20000;
  std::vector<std::pair<I, I>> lower, strict;
  for (I i = 0; i < n; ++i) {
    if (i % 11 == 5) continue;  // empty rows and columns
    if (i % 3 != 0) lower.push_back({i, i});
    for (int k = 0; k < 5 && i > 0; ++k) {
      const I j = static_cast<I>(gen() % static_cast<std::uint64_t>(i));
      if (j % 11 != 5) {
        lower.push_back({i, j});
        strict.push_back({i, j});
      }
    }
    if (i >= 1 && (i - 1) % 11 != 5) {
      lower.push_back({i, static_cast<I>(i - 1)});
      strict.push_back({i, static_cast<I>(i - 1)});
    }
  }
  const Csr<T, I> sym = symmetric_from_lower<T, I>(n, lower, fresh_seed());
  expect_symmetric("random symmetric", sym);
  expect_symmetric("empty diagonal", symmetric_from_lower<T, I>(n, strict, fresh_seed()));
  expect_symmetric("zero diagonal", symmetric_from_lower<T, I>(n, lower, fresh_seed(), true));
  {
    // NaN mirrors count as equal.
    const auto up = upper_entries(sym);
    const auto [i, j] = up[up.size() / 3];
    const T nan = std::numeric_limits<T>::quiet_NaN();
    expect_symmetric("NaN pair", with_value(with_value(sym, i, j, nan), j, i, nan));
  }

  const auto up = upper_entries(sym);
  ASSERT_GT(up.size(), 10u);
  for (const std::size_t at : {std::size_t{0}, up.size() / 2, up.size() - 1}) {
    const auto [i, j] = up[at];
    // (i, j) kept, (j, i) dropped: an upper entry without its mirror.
    expect_refused(fmt::format("({}, {}) without mirror", i, j), without(sym, j, i), "SYM_CSR");
    // (j, i) kept, (i, j) dropped: a lower entry without its mirror (the
    // triangles' counts differ; every upper entry has its mirror).
    expect_refused(fmt::format("({}, {}) without mirror", j, i), without(sym, i, j), "SYM_DIA");
    // A mirror's value differs, above or below.
    const T v = value_at(sym, i, j) + T{1};
    expect_refused(fmt::format("({}, {}) changed", i, j), with_value(sym, i, j, v), "SYM_CSR");
    expect_refused(fmt::format("({}, {}) changed", j, i), with_value(sym, j, i, v), "SYM_DIA");
  }
  {
    // One lower entry without mirror in a tiny matrix; the message names it.
    const Csr<T, I> lone(3, 3, Array<I>{0, 1, 2, 4}, Array<I>{0, 1, 0, 2}, Array<T>{1, 5, 7, 4});
    expect_refused("lone lower entry", lone, "SYM_CSR");
    const std::string msg = message_of<Unsupported>(
        [&] { (void)cuda::csr_symmetric_diagonal(lone.to(Space::Device), "SYM_CSR"); });
    EXPECT_CONTAINS(msg, "a(2, 0) = 7 is stored but a(0, 2) is not");
  }
  // Not square: the format names itself.
  for (const char* format : {"SYM_CSR", "SYM_DIA"}) {
    const Csr<T, I> rect = rows_of<T, I>(30, 40, fresh_seed(),
                                         [](std::int64_t, auto& g) { return uniform(g, 40, 3); });
    const std::string msg = message_of<Unsupported>(
        [&] { (void)cuda::csr_symmetric_diagonal(rect.to(Space::Device), format); });
    EXPECT_TRUE(msg.starts_with(format)) << msg;
    EXPECT_CONTAINS(msg, "not square");
  }
}

#else

TYPED_TEST(CudaColumns, NeedsTheCudaBackend) {
  SPX_REQUIRE_GPU_OR_SKIP();
}

#endif  // SPX_HAVE_CUDA

}  // namespace
}  // namespace spx::test

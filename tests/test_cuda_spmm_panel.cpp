// The row panel CSR SpMM on CUDA (src/cuda/spmm_panel.cu): its union
// structure against a host computation (ptr, columns, row masks, and the
// totals U_2, U_4, U_8 of the plan); the kernel with R = 2, 4, 8 forced on
// FEM b = 2 and 3, a 27-point stencil, a random matrix, a matrix with empty
// rows (whole empty panels too) and a row count no R divides, and one with a
// long row, for n ∈ {17, 32, 33, 64, 128, 200}, row-major aligned B and C
// (vector path), column-major and odd leading dimensions (one column per
// lane), beta = 0 with C poisoned by NaN and beta ≠ 0, against the
// long-double reference and its bound; Inf in a row of B reaches only the
// rows that hold its column; values changed in place are used (the cache
// holds no values); determinism; and the Auto rule (row panel on FEM b = 3
// at n = 64, not on random rows, not for n ≤ 16).
// GPU tests skip without a GPU (fail with SPX_REQUIRE_GPU=1); the host-side
// checks of the plan and the rule need only the CUDA backend compiled in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "cuda_common.hpp"
#include "dense.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/generate.hpp"
#include "spx/ops.hpp"
#if SPX_HAVE_CUDA
#include "cuda/launch.hpp"
#include "cuda/spmm.hpp"
#endif

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaSpmmPanel);

constexpr int kPanelRows[] = {2, 4, 8};
constexpr std::int64_t kWidths[] = {17, 32, 33, 64, 128, 200};

/// The panels' unions computed on the host, straight from the definition.
struct HostPanels {
  std::vector<std::int64_t> ptr{0}, col;
  std::vector<unsigned> mask;
};

template <Value T, Index I>
HostPanels host_panels(const Csr<T, I>& A, int R) {
  const std::vector<I> ptr = A.row_ptr().to_vector();
  const std::vector<I> col = A.col_idx().to_vector();
  HostPanels h;
  for (std::int64_t first = 0; first < A.rows(); first += R) {
    std::map<std::int64_t, unsigned> u;
    for (std::int64_t r = 0; r < R && first + r < A.rows(); ++r)
      for (I k = ptr[first + r]; k < ptr[first + r + 1]; ++k)
        u[col[k]] |= 1u << r;
    for (const auto& [c, m] : u) {
      h.col.push_back(c);
      h.mask.push_back(m);
    }
    h.ptr.push_back(static_cast<std::int64_t>(h.col.size()));
  }
  return h;
}

/// Rows with columns in a window that moves with the row (consecutive rows
/// share some), each column kept with probability 1/2; `empty` of every 4
/// rows empty (rows 8..15, a whole panel of 8, too), m = 301 (no R divides).
template <Value T, Index I>
Csr<T, I> window_matrix(std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const std::int64_t m = 301, k = 400;
  std::vector<I> ptr{0}, col;
  for (std::int64_t i = 0; i < m; ++i) {
    const bool empty = (i >= 8 && i < 16) || gen() % 4 == 0 || i == m - 1;
    if (!empty)
      for (std::int64_t j = 0; j < 24; ++j)
        if (gen() & 1) col.push_back(static_cast<I>((i / 3 * 4 + j) % k));
    std::sort(col.begin() + ptr.back(), col.end());
    col.erase(std::unique(col.begin() + ptr.back(), col.end()), col.end());
    ptr.push_back(static_cast<I>(col.size()));
  }
  const auto val = random_values<T>(static_cast<std::int64_t>(col.size()), seed + 1);
  return Csr<T, I>(static_cast<I>(m), static_cast<I>(k), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// Rows of 1..6 entries near the diagonal and one row (row 100) of 4000.
template <Value T, Index I>
Csr<T, I> long_row_matrix(std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const std::int64_t m = 203, k = 4500;
  std::vector<I> ptr{0}, col;
  for (std::int64_t i = 0; i < m; ++i) {
    if (i == 100) {
      for (std::int64_t j = 0; j < 4000; ++j)
        col.push_back(static_cast<I>(j + 250));
    } else {
      const std::int64_t len = static_cast<std::int64_t>(gen() % 6) + 1;
      for (std::int64_t j = 0; j < len; ++j)
        col.push_back(static_cast<I>(i + 2 * j));
    }
    ptr.push_back(static_cast<I>(col.size()));
  }
  const auto val = random_values<T>(static_cast<std::int64_t>(col.size()), seed + 1);
  return Csr<T, I>(static_cast<I>(m), static_cast<I>(k), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

template <Value T, Index I>
std::vector<TestMatrix<T, I>> panel_matrices(std::uint64_t seed) {
  std::vector<TestMatrix<T, I>> out;
  out.push_back({"fem-b2-n10", generated<T, I>("fem:n=10,block=2", seed).A});
  out.push_back({"fem-b3-n9", generated<T, I>("fem:n=9,block=3", seed + 1).A});
  out.push_back({"stencil3d-27pt-n7", generated<T, I>("stencil3d:n=7,points=27", seed).A});
  out.push_back({"random-500-d10", generated<T, I>("random:n=500,degree=10", seed).A});
  out.push_back({"window-empty-301", window_matrix<T, I>(seed + 2)});
  out.push_back({"long-row-203", long_row_matrix<T, I>(seed + 3)});
  return out;
}

/// How B and C are stored; row-major tight is the vector path (for n a
/// multiple of the vector), the others one column per lane.
constexpr Storage kStorages[] = {
    {Layout::RowMajor, Layout::RowMajor, 0, 0},
    {Layout::ColMajor, Layout::ColMajor, 3, 1},
    {Layout::RowMajor, Layout::RowMajor, 1, 3},  // odd ld: no vector loads
};

#if SPX_HAVE_CUDA

/// C = alpha*A*B + beta*C0 on the device, with R forced (R > 0, through
/// cuda::spmm_csr_row_panel_with) or through spmm() with row_panel (R = 0);
/// C poisoned with NaN when beta = 0. Returns the logical C; counts the
/// changed entries of C's padding (a sentinel) in `pad_changed`.
template <Value T, Index I>
std::vector<T> run_panel(const Csr<T, I>& dA, const std::vector<T>& B, std::int64_t n,
                         const Storage& st, T alpha, T beta, const std::vector<T>& C0, int R,
                         std::int64_t* pad_changed = nullptr) {
  const std::int64_t m = dA.rows(), k = dA.cols();
  const T nan = std::numeric_limits<T>::quiet_NaN(), sentinel = T{-777};
  const Stored<T> Bs(B, k, n, st.b_layout, st.b_pad, nan);
  const Stored<T> Cs(beta == T{0} ? std::vector<T>(C0.size(), nan) : C0, m, n, st.c_layout,
                     st.c_pad, sentinel);
  const Array<T> dB(Bs.data, Space::Device);
  Array<T> dC(Cs.data, Space::Device);
  const DenseView<const T> bv = Bs.view(dB.data(), Space::Device);
  const DenseView<T> cv = Cs.view(dC.data(), Space::Device);
  if (R > 0) {
    cuda::spmm_csr_row_panel_with(alpha, dA, bv, beta, cv, ExecContext{}, R);
  } else {
    SpmmOptions opts;
    opts.algorithm = Algorithm::RowPanel;
    const RunInfo info = spmm(alpha, dA, bv, beta, cv, opts);
    EXPECT_EQ(info.algorithm, Algorithm::RowPanel);
    EXPECT_EQ(info.backend, Backend::Cuda);
  }
  const std::vector<T> stored = dC.to_vector();
  if (pad_changed != nullptr) *pad_changed = Cs.padding_changed(stored, sentinel);
  return Cs.logical(stored);
}

TYPED_TEST(CudaSpmmPanel, UnionStructureMatchesHost) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  for (const auto& [name, A] : panel_matrices<T, I>(seed)) {
    const Csr<T, I> dA = A.to(Space::Device);
    std::int64_t totals[3] = {0, 0, 0};
    for (int q = 0; q < 3; ++q) {
      const int R = kPanelRows[q];
      const std::string what = fmt::format("{} R={} seed={}", name, R, seed);
      const HostPanels want = host_panels(A, R);
      totals[q] = static_cast<std::int64_t>(want.col.size());
      const ExecContext ctx{};
      const cuda::RowPanels<I>& got = cuda::row_panels(dA, R, ctx);
      EXPECT_EQ(got.rows, R) << what;
      EXPECT_EQ(got.panels, (A.rows() + R - 1) / R) << what;
      EXPECT_EQ(got.total, totals[q]) << what;
      const std::vector<I> ptr = got.ptr.to_vector();
      const std::vector<I> col = got.col.to_vector();
      const std::vector<std::uint8_t> mask = got.mask.to_vector();
      ASSERT_EQ(ptr.size(), want.ptr.size()) << what;
      ASSERT_EQ(col.size(), want.col.size()) << what;
      ASSERT_EQ(mask.size(), want.mask.size()) << what;
      int bad = 0;
      for (std::size_t p = 0; p < ptr.size(); ++p)
        if (ptr[p] != want.ptr[p] && ++bad <= 5)
          ADD_FAILURE() << what << ": ptr[" << p << "] = " << ptr[p] << ", want " << want.ptr[p];
      for (std::size_t u = 0; u < col.size(); ++u)
        if ((col[u] != want.col[u] || mask[u] != want.mask[u]) && ++bad <= 5)
          ADD_FAILURE() << what << ": entry " << u << " = (" << col[u] << ", " << int{mask[u]}
                        << "), want (" << want.col[u] << ", " << want.mask[u] << ")";
      if (bad > 0) return;
      EXPECT_LE(got.total, A.nnz()) << what;
    }
    // The plan's one-pass totals, on the device matrix and on the host one.
    const cuda::PanelPlan dplan = cuda::panel_plan(dA, 64);
    const cuda::PanelPlan hplan = cuda::panel_plan(A, 64);
    for (int q = 0; q < 3; ++q) {
      EXPECT_EQ(dplan.union_total[q], totals[q]) << name << " device plan, R=" << kPanelRows[q];
      EXPECT_EQ(hplan.union_total[q], totals[q]) << name << " host plan, R=" << kPanelRows[q];
    }
  }
}

TYPED_TEST(CudaSpmmPanel, ForcedRowsMatchReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  for (const auto& [name, A] : panel_matrices<T, I>(seed)) {
    const Csr<T, I> dA = A.to(Space::Device);
    const std::int64_t m = A.rows(), k = A.cols();
    for (const std::int64_t n : kWidths) {
      const std::uint64_t s = seed + static_cast<std::uint64_t>(n);
      const auto B = random_values<T>(k * n, s);
      const auto C0 = random_values<T>(m * n, s + 1);
      const Product product = reference::product(A, std::span<const T>(B), n);
      for (const int R : kPanelRows) {
        for (const Storage& st : kStorages) {
          // The full grid with the first storage, two pairs with the others.
          const std::size_t count = &st == kStorages ? 4 : 2;
          for (const auto [a, b] : kScalars.first(count)) {
            const T alpha = static_cast<T>(a), beta = static_cast<T>(b);
            const std::string what =
                fmt::format("{} R={} n={} B {} ldb+{} C {} ldc+{} alpha={} beta={} seed={}", name,
                            R, n, layout_name(st.b_layout), st.b_pad, layout_name(st.c_layout),
                            st.c_pad, alpha, beta, seed);
            std::int64_t pad_changed = 0;
            const auto got = run_panel(dA, B, n, st, alpha, beta, C0, R, &pad_changed);
            EXPECT_EQ(pad_changed, 0) << what << ": padding of C was written";
            if (expect_matches(got, expected<T>(product, alpha, beta, C0), what) > 0 ||
                pad_changed > 0)
              return;
          }
        }
      }
    }
  }
}

/// Through spmm() with Algorithm::RowPanel (R from the plan), also for
/// n ≤ 16 (lanes past n idle), and bitwise equal to the forced run with the
/// plan's R.
TYPED_TEST(CudaSpmmPanel, RegistryEntryRuns) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  for (const auto& [name, A] : panel_matrices<T, I>(seed)) {
    const Csr<T, I> dA = A.to(Space::Device);
    for (const std::int64_t n :
         {std::int64_t{1}, std::int64_t{5}, std::int64_t{16}, std::int64_t{40}, std::int64_t{64}}) {
      const auto B = random_values<T>(A.cols() * n, seed + n);
      const auto C0 = random_values<T>(A.rows() * n, seed + n + 1);
      const Product product = reference::product(A, std::span<const T>(B), n);
      const std::string what = fmt::format("{} n={} seed={}", name, n, seed);
      const auto got = run_panel(dA, B, n, kStorages[0], T{1.5}, T{0}, C0, 0);
      if (expect_matches(got, expected<T>(product, T{1.5}, T{0}, C0), what) > 0) return;
      const int R = cuda::panel_plan(dA, n).rows;
      const auto forced = run_panel(dA, B, n, kStorages[0], T{1.5}, T{0}, C0, R);
      EXPECT_TRUE(bitwise_equal(got, forced)) << what << ": differs from R = " << R << " forced";
    }
  }
}

/// An Inf in row c of B reaches the rows that hold column c and no other
/// row of their panels (a row adds nothing for a column it lacks, not 0·Inf).
TYPED_TEST(CudaSpmmPanel, InfReachesOnlyItsRows) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  const Csr<T, I> A = window_matrix<T, I>(seed);
  const Csr<T, I> dA = A.to(Space::Device);
  const std::int64_t m = A.rows(), k = A.cols(), n = 40;
  const std::vector<I> ptr = A.row_ptr().to_vector();
  const std::vector<I> col = A.col_idx().to_vector();
  // Columns 9 and 130 (held by a few rows each) get Inf in B; the
  // reference of the other rows does not depend on them.
  const std::int64_t inf_cols[] = {9, 130};
  auto B = random_values<T>(k * n, seed + 1);
  auto B0 = B;
  for (const std::int64_t c : inf_cols)
    for (std::int64_t j = 0; j < n; ++j) {
      B[c * n + j] = std::numeric_limits<T>::infinity();
      B0[c * n + j] = T{0};
    }
  const auto C0 = random_values<T>(m * n, seed + 2);
  const Expected<T> ref =
      expected<T>(reference::product(A, std::span<const T>(B0), n), T{1}, T{0}, C0);
  int holders = 0;
  for (const int R : kPanelRows) {
    for (const Storage& st : {kStorages[0], kStorages[1]}) {
      const auto got = run_panel(dA, B, n, st, T{1}, T{0}, C0, R);
      for (std::int64_t i = 0; i < m; ++i) {
        bool holds = false;
        for (I q = ptr[i]; q < ptr[i + 1]; ++q)
          holds = holds || col[q] == inf_cols[0] || col[q] == inf_cols[1];
        holders += holds ? 1 : 0;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::size_t e = static_cast<std::size_t>(i * n + j);
          if (holds) {
            ASSERT_FALSE(std::isfinite(got[e])) << "row " << i << " holds an Inf column, R=" << R;
          } else {
            ASSERT_TRUE(std::isfinite(got[e]) && std::fabs(got[e] - ref.y[e]) <= ref.bound[e])
                << "row " << i << " col " << j << " = " << got[e] << ", reference " << ref.y[e]
                << ", R=" << R << " seed=" << seed;
          }
        }
      }
    }
  }
  EXPECT_GT(holders, 0);
}

/// New values written in place are used (the cached panels hold no values);
/// results are bitwise equal run to run and with a rebuilt cache.
TYPED_TEST(CudaSpmmPanel, ValuesInPlaceAndDeterministic) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  const Csr<T, I> A = generated<T, I>("fem:n=9,block=3", seed).A;
  const std::int64_t m = A.rows(), k = A.cols(), n = 64;
  const auto B = random_values<T>(k * n, seed + 1);
  const auto C0 = random_values<T>(m * n, seed + 2);
  for (const int R : kPanelRows) {
    Csr<T, I> dA = A.to(Space::Device);
    const auto first = run_panel(dA, B, n, kStorages[0], T{1}, T{0.5}, C0, R);
    const auto again = run_panel(dA, B, n, kStorages[0], T{1}, T{0.5}, C0, R);
    const Csr<T, I> fresh = A.to(Space::Device);
    const auto rebuilt = run_panel(fresh, B, n, kStorages[0], T{1}, T{0.5}, C0, R);
    EXPECT_TRUE(bitwise_equal(first, again)) << "R=" << R << ": second run differs";
    EXPECT_TRUE(bitwise_equal(first, rebuilt)) << "R=" << R << ": rebuilt panels differ";
    // New values, same structure, written into the device matrix.
    const auto values = random_values<T>(A.nnz(), seed + 3 + static_cast<std::uint64_t>(R));
    dA.values() = Array<T>(values, Space::Device);
    const Csr<T, I> A2(static_cast<I>(m), static_cast<I>(k), Array<I>(A.row_ptr().to_vector()),
                       Array<I>(A.col_idx().to_vector()), Array<T>(values));
    const auto got = run_panel(dA, B, n, kStorages[0], T{1}, T{0.5}, C0, R);
    const Expected<T> ref =
        expected<T>(reference::product(A2, std::span<const T>(B), n), T{1}, T{0.5}, C0);
    if (expect_matches(got, ref, fmt::format("new values, R={} seed={}", R, seed)) > 0) return;
  }
}

/// The Auto rule on device matrices: row panel on FEM b = 3 at n = 64 (and
/// the run reports it), not on long random rows (30 per row: no reuse, and
/// outside the short-row band of the rule), not for n = 8; row split at any
/// n on a FEM matrix with few rows (rows × 32 within one wave).
TYPED_TEST(CudaSpmmPanel, AutoPicksRowPanelOnDevice) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto& registry = Registry<T, I>::instance();
  const std::uint64_t seed = fresh_seed();
  // 3 * 110^2 = 36300 rows: more than one wave of 32 lanes a row on any GPU
  // up to 4x an H100's resident threads.
  const Csr<T, I> fem = generated<T, I>("fem:n=110,block=3", seed).A.to(Space::Device);
  const Csr<T, I> small = generated<T, I>("fem:n=20,block=3", seed).A.to(Space::Device);
  const Csr<T, I> rnd = generated<T, I>("random:n=20000,degree=30", seed).A.to(Space::Device);
  ASSERT_GT(fem.rows() * 32, cuda::resident_threads());
  ASSERT_LE(small.rows() * 32, cuda::resident_threads());
  EXPECT_EQ(registry.choose_spmm(MatrixRef<T, I>{&fem}, Backend::Cuda, SpmmShape{64}),
            Algorithm::RowPanel);
  EXPECT_NE(registry.choose_spmm(MatrixRef<T, I>{&fem}, Backend::Cuda, SpmmShape{8}),
            Algorithm::RowPanel);
  EXPECT_NE(registry.choose_spmm(MatrixRef<T, I>{&rnd}, Backend::Cuda, SpmmShape{64}),
            Algorithm::RowPanel);
  for (const std::int64_t n : {std::int64_t{8}, std::int64_t{64}})
    EXPECT_EQ(registry.choose_spmm(MatrixRef<T, I>{&small}, Backend::Cuda, SpmmShape{n}),
              Algorithm::RowSplit)
        << "n=" << n;
  const std::int64_t n = 64;
  const auto B = random_values<T>(fem.cols() * n, seed);
  const Array<T> dB(B, Space::Device);
  Array<T> dC(static_cast<std::size_t>(fem.rows() * n), Space::Device);
  const RunInfo info = spmm(
      T{1}, fem, DenseView<const T>{dB.data(), fem.cols(), n, n, Layout::RowMajor, Space::Device},
      T{0}, DenseView<T>{dC.data(), fem.rows(), n, n, Layout::RowMajor, Space::Device});
  EXPECT_EQ(info.algorithm, Algorithm::RowPanel);
}

#endif  // SPX_HAVE_CUDA

/// The plan and the rule on host matrices (no GPU needed): the union
/// totals against the host definition, the estimate as documented, and the
/// choices of the rule.
TYPED_TEST(CudaSpmmPanel, PlanAndRuleOnHost) {
#if SPX_HAVE_CUDA
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  for (const auto& [name, A] : panel_matrices<T, I>(seed)) {
    for (const std::int64_t n : {std::int64_t{17}, std::int64_t{64}, std::int64_t{200}}) {
      const cuda::PanelPlan plan = cuda::panel_plan(A, n);
      const double tile = static_cast<double>(std::min<std::int64_t>(n, 128) * sizeof(T));
      const double csr = static_cast<double>(A.nnz()) * (tile + sizeof(T) + sizeof(I));
      double best = 0;
      int best_r = 0;
      for (int q = 0; q < 3; ++q) {
        const int R = kPanelRows[q];
        const auto total = static_cast<std::int64_t>(host_panels(A, R).col.size());
        EXPECT_EQ(plan.union_total[q], total) << name << " R=" << R;
        if (R * sizeof(T) > cuda::kPanelMaxValueBytes) continue;
        const double est = static_cast<double>(total) * (tile + R * sizeof(T) + sizeof(I));
        if (best_r == 0 || est < best) {
          best = est;
          best_r = R;
        }
      }
      EXPECT_EQ(plan.rows, best_r) << name << " n=" << n;
      EXPECT_NEAR(plan.ratio, best / csr, 1e-12) << name << " n=" << n;
      const double mean = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
      const std::int64_t width = n <= 32 ? 32 : n <= 64 ? 64 : 128;  // a column tile
      const std::int64_t warps = (A.rows() + best_r - 1) / best_r * ((n + width - 1) / width);
      EXPECT_EQ(plan.warps, warps) << name << " n=" << n;
      const bool few = cuda_available() && warps * 32 <= cuda::resident_threads();
      EXPECT_EQ(cuda::few_warps(warps), few) << name << " n=" << n;
      const double r = best / csr;
      const bool near =
          r < cuda::kPanelNearRatio && mean >= cuda::kPanelMinMean && mean <= cuda::kPanelMaxMean;
      const bool short_rows = r < cuda::kPanelShortRatio && mean < cuda::kPanelMinMean;
      EXPECT_EQ(plan.worth_it,
                few ? r < cuda::kPanelFewWarpsRatio : r < cuda::kPanelWorthIt || near || short_rows)
          << name << " n=" << n;
    }
  }
  const auto& registry = Registry<T, I>::instance();
  // Rows enough that the few-rows rule (row split) does not apply on any GPU
  // up to 4x an H100's resident threads.
  const Csr<T, I> fem = generated<T, I>("fem:n=110,block=3", seed).A;
  const Csr<T, I> rnd = generated<T, I>("random:n=2000,degree=30", seed).A;
  EXPECT_EQ(registry.choose_spmm(MatrixRef<T, I>{&fem}, Backend::Cuda, SpmmShape{64}),
            Algorithm::RowPanel);
  EXPECT_TRUE(cuda::panel_plan(fem, 64).worth_it);
  EXPECT_NE(registry.choose_spmm(MatrixRef<T, I>{&fem}, Backend::Cuda, SpmmShape{16}),
            Algorithm::RowPanel);
  EXPECT_EQ(registry.choose_spmm(MatrixRef<T, I>{&rnd}, Backend::Cuda, SpmmShape{64}),
            Algorithm::RowSplit);
  EXPECT_FALSE(cuda::panel_plan(rnd, 64).worth_it);
  // R outside {2, 4, 8} is refused, naming the value.
  std::vector<T> buf(8, T{0});
  try {
    cuda::spmm_csr_row_panel_with(T{1}, fem, DenseView<const T>{buf.data(), 1, 1, 1}, T{0},
                                  DenseView<T>{buf.data() + 4, 1, 1, 1}, ExecContext{}, 3);
    ADD_FAILURE() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("got 3"), std::string::npos) << e.what();
  }
#else
  GTEST_SKIP() << "CUDA backend not compiled";
#endif
}

/// The row panel rule (cuda::panel_worth_it, session 13) on hand-made
/// statistics, each named after the suite member (H100, session 12 runs) it
/// stands for, and the kernel's warps (cuda::row_panel_warps). Host-side.
TEST(CudaSpmmPanelRule, WorthItOnHandmadeStatistics) {
#if SPX_HAVE_CUDA
  // Warps: panels x column tiles of 32 (n <= 32), 64 (n <= 64), else 128.
  EXPECT_EQ(cuda::row_panel_warps(39304, 8, 64), 4913);   // 27-point stencil, f32
  EXPECT_EQ(cuda::row_panel_warps(39304, 4, 128), 9826);  // 27-point stencil, f64
  EXPECT_EQ(cuda::row_panel_warps(10, 4, 8), 3);
  EXPECT_EQ(cuda::row_panel_warps(10, 4, 33), 3);
  EXPECT_EQ(cuda::row_panel_warps(10, 4, 129), 6);
  EXPECT_EQ(cuda::row_panel_warps(10, 2, 200), 10);
  // Enough warps: the estimate's thresholds by mean row length.
  EXPECT_TRUE(cuda::panel_worth_it(0.76, 5.0, false));    // 5-point stencil
  EXPECT_TRUE(cuda::panel_worth_it(0.87, 2.1, false));    // luxembourg
  EXPECT_FALSE(cuda::panel_worth_it(0.947, 3.5, false));  // banded b = 8
  EXPECT_FALSE(cuda::panel_worth_it(1.01, 2.7, false));   // road network
  EXPECT_TRUE(cuda::panel_worth_it(0.85, 6.9, false));    // 7-point stencil
  EXPECT_TRUE(cuda::panel_worth_it(1.03, 10.0, false));   // random, 10 per row
  EXPECT_FALSE(cuda::panel_worth_it(1.03, 17.0, false));  // above kPanelMaxMean
  EXPECT_TRUE(cuda::panel_worth_it(0.51, 25.4, false));   // 27-point stencil, f64
  EXPECT_FALSE(cuda::panel_worth_it(0.65, 25.4, false));
  // The bounds: strict below each threshold, the mean band closed.
  EXPECT_FALSE(cuda::panel_worth_it(cuda::kPanelShortRatio, 5.0, false));
  EXPECT_TRUE(cuda::panel_worth_it(cuda::kPanelNearRatio - 1e-9, cuda::kPanelMinMean, false));
  EXPECT_TRUE(cuda::panel_worth_it(cuda::kPanelNearRatio - 1e-9, cuda::kPanelMaxMean, false));
  EXPECT_FALSE(cuda::panel_worth_it(cuda::kPanelWorthIt, 30.0, false));
  // Few warps: only a large cut in traffic, whatever the rows' length.
  EXPECT_FALSE(cuda::panel_worth_it(0.44, 25.4, true));  // 27-point stencil, f32
  EXPECT_FALSE(cuda::panel_worth_it(0.85, 5.9, true));   // crack
  EXPECT_FALSE(cuda::panel_worth_it(1.03, 10.0, true));
  EXPECT_TRUE(cuda::panel_worth_it(0.30, 17.9, true));  // FEM b = 2, f32
  EXPECT_TRUE(cuda::panel_worth_it(0.18, 52.7, true));  // FEM b = 6, f32
  EXPECT_FALSE(cuda::panel_worth_it(cuda::kPanelFewWarpsRatio, 27.0, true));
  EXPECT_LT(cuda::kPanelFewWarpsRatio, cuda::kPanelWorthIt);
#else
  GTEST_SKIP() << "CUDA backend not compiled";
#endif
}

/// The vector groups of n > 16 (cuda::spmm_vector_groups and
/// spmm_vector_units_doubled, session 15) and the Auto rules they change
/// (choose_spmm's merge_groups, panel_beats_groups), on
/// the statistics of the members they were measured on. Host-side.
TEST(CudaSpmmPanelRule, VectorGroupsOnHandmadeStatistics) {
#if SPX_HAVE_CUDA
  using cuda::spmm_vector_groups;
  // f32: 4 columns per lane; row split.
  EXPECT_EQ(spmm_vector_groups(32, 4, true, false, 140608, 6.9), 8);    // 7-point stencil
  EXPECT_EQ(spmm_vector_groups(32, 4, true, false, 2003, 41.9), 8);     // bcsstk13
  EXPECT_EQ(spmm_vector_groups(20, 4, true, false, 2003, 41.9), 8);     // 5 lanes of 8 hold columns
  EXPECT_EQ(spmm_vector_groups(32, 4, true, false, 114599, 2.09), 0);   // luxembourg: row groups
  EXPECT_EQ(spmm_vector_groups(32, 4, true, false, 9000000, 2.25), 0);  // 4-band
  EXPECT_EQ(spmm_vector_groups(64, 4, true, false, 36300, 26.7), 16);   // FEM b = 3
  EXPECT_EQ(spmm_vector_groups(48, 4, true, false, 8192, 3.0), 16);
  EXPECT_EQ(spmm_vector_groups(64, 4, true, false, 8191, 30.0), 0);    // small: the tiles
  EXPECT_EQ(spmm_vector_groups(64, 4, true, false, 441, 60.9), 0);     // ex2
  EXPECT_EQ(spmm_vector_groups(16, 4, true, false, 140608, 6.9), 0);   // n ≤ 16: narrow kernels
  EXPECT_EQ(spmm_vector_groups(68, 4, true, false, 140608, 6.9), 0);   // n > 64: the tiles
  EXPECT_EQ(spmm_vector_groups(32, 4, false, false, 140608, 6.9), 0);  // B or C not aligned
  // f32, merge-based: groups of 8 only.
  EXPECT_EQ(spmm_vector_groups(32, 4, true, true, 100000, 12.2), 8);  // mixed-n100000
  EXPECT_EQ(spmm_vector_groups(32, 4, true, true, 100, 1.0), 8);
  EXPECT_EQ(spmm_vector_groups(64, 4, true, true, 100000, 12.2), 0);
  // f64: 2 columns per lane, groups of 16, row split only.
  EXPECT_EQ(spmm_vector_groups(32, 2, true, false, 140608, 6.9), 16);
  EXPECT_EQ(spmm_vector_groups(32, 2, true, false, 5242, 5.5), 0);   // ca-grqc
  EXPECT_EQ(spmm_vector_groups(32, 2, true, true, 131072, 7.6), 0);  // rmat-s17 with merge-based
  EXPECT_EQ(spmm_vector_groups(34, 2, true, false, 140608, 6.9), 0);
  EXPECT_FALSE(cuda::spmm_vector_units_doubled(239332));  // luxembourg
  EXPECT_FALSE(cuda::spmm_vector_units_doubled((std::int64_t{1} << 19) - 1));
  EXPECT_TRUE(cuda::spmm_vector_units_doubled(std::int64_t{1} << 19));
  // Merge-based for short rows where its groups apply; not otherwise.
  EXPECT_EQ(cuda::choose_spmm(3.5, 8, 32, false, false, true), Algorithm::MergeBased);  // 8-band
  EXPECT_EQ(cuda::choose_spmm(3.5, 8, 32, false, false, false), Algorithm::RowSplit);
  EXPECT_EQ(cuda::choose_spmm(6.9, 7, 32, false, false, true), Algorithm::RowSplit);
  EXPECT_EQ(cuda::choose_spmm(3.5, 8, 32, true, false, true), Algorithm::RowSplit);  // few rows
  // n ≤ 16: row split where it takes row groups, merge-based on short rows
  // otherwise; irregular rows stay with merge-based either way.
  EXPECT_EQ(cuda::choose_spmm(5.0, 5, 8, false, false, false, true), Algorithm::RowSplit);
  EXPECT_EQ(cuda::choose_spmm(5.0, 5, 8, false, false, false, false), Algorithm::MergeBased);
  EXPECT_EQ(cuda::choose_spmm(7.6, 20000, 8, false, false, false, true), Algorithm::MergeBased);
  // Rule 1b is for n ≤ 16 only: at n = 32 the 8-band matrix stays with
  // merge-based's vector groups.
  EXPECT_EQ(cuda::choose_spmm(3.5, 8, 32, false, false, true, true), Algorithm::MergeBased);
  // Row groups: lanes per row of 16-byte vectors (4 floats or 2 doubles);
  // row-major aligned B and C only, short regular rows, 32 warps per SM; none
  // without a device or past n = 16.
  EXPECT_EQ(cuda::spmm_row_group_lanes(8, 4), 2);
  EXPECT_EQ(cuda::spmm_row_group_lanes(12, 4), 4);
  EXPECT_EQ(cuda::spmm_row_group_lanes(16, 4), 4);
  EXPECT_EQ(cuda::spmm_row_group_lanes(4, 4), 1);
  EXPECT_EQ(cuda::spmm_row_group_lanes(8, 2), 4);
  EXPECT_EQ(cuda::spmm_row_group_lanes(2, 2), 1);
  const auto groups = [](std::int64_t rows, double mean, std::int64_t longest, std::int64_t n,
                         int vec, bool fits, int sms) {
    return cuda::spmm_row_groups(rows, static_cast<std::int64_t>(mean * static_cast<double>(rows)),
                                 longest, n, vec, fits, sms);
  };
  EXPECT_TRUE(groups(4000000, 5.0, 5, 8, 4, true, 132));       // 5-point stencil, f32
  EXPECT_TRUE(groups(4000000, 5.0, 5, 16, 2, true, 132));      // f64
  EXPECT_TRUE(groups(67584, 5.0, 5, 8, 4, true, 132));         // exactly 32 warps an SM
  EXPECT_FALSE(groups(67583, 5.0, 5, 8, 4, true, 132));        // one row short
  EXPECT_TRUE(groups(33792, 5.0, 5, 8, 2, true, 132));         // f64: 4 lanes a row
  EXPECT_FALSE(groups(4000000, 5.0, 5, 8, 4, false, 132));     // column-major or unaligned
  EXPECT_FALSE(groups(4000000, 5.0, 5, 32, 4, true, 132));     // n > 16
  EXPECT_FALSE(groups(4000000, 5.0, 5, 8, 4, true, 0));        // no device
  EXPECT_TRUE(groups(2000000, 10.0, 11, 8, 4, true, 132));     // random-d10
  EXPECT_FALSE(groups(1125000, 18.0, 18, 8, 4, true, 132));    // FEM b = 2: 18 a row
  EXPECT_FALSE(groups(2097152, 7.6, 90000, 8, 4, true, 132));  // rmat: irregular
  EXPECT_FALSE(groups(0, 0.0, 0, 8, 4, true, 132));
  // Row panel against row split's groups: no near-parity test, and at
  // ratio >= 0.4 only on rows of under 20.
  EXPECT_FALSE(cuda::panel_beats_groups(0.85, 6.9, false));   // 7-point stencil
  EXPECT_FALSE(cuda::panel_beats_groups(1.03, 10.0, false));  // random, 10 per row
  EXPECT_FALSE(cuda::panel_beats_groups(0.50, 26.4, false));  // 27-point stencil
  EXPECT_TRUE(cuda::panel_beats_groups(0.50, 9.0, false));    // 9-point stencil
  EXPECT_TRUE(cuda::panel_beats_groups(0.27, 26.9, false));   // FEM b = 3
  EXPECT_TRUE(cuda::panel_beats_groups(0.76, 5.0, false));    // 5-point stencil
  EXPECT_FALSE(cuda::panel_beats_groups(0.45, 9.0, true));    // few warps: below 0.4 only
  EXPECT_TRUE(cuda::panel_beats_groups(0.35, 26.4, true));
  // Without the groups the rule is unchanged.
  EXPECT_TRUE(cuda::panel_worth_it(0.50, 26.4, false));
  EXPECT_TRUE(cuda::panel_worth_it(0.85, 6.9, false));
#else
  GTEST_SKIP() << "CUDA backend not compiled";
#endif
}

/// Auto judges the vector groups from the shape: on rows of fewer than 4
/// nonzeros (random columns, 3 a row on average: no row panel, whose
/// estimate stays above CSR's) f32 at n = 32 takes merge-based only where B
/// and C are row-major with leading dimensions that are multiples of 4; f64
/// never (merge-based has no groups of 16). Host matrices. (An 8-band
/// matrix, whose panel estimate lies near the 0.9 of kPanelShortRatio with
/// 64-bit indices, took row panel for some seeds.)
TYPED_TEST(CudaSpmmPanel, AutoJudgesTheVectorGroupsFromTheShape) {
#if SPX_HAVE_CUDA
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto& registry = Registry<T, I>::instance();
  const Csr<T, I> A = generated<T, I>("random:n=40000,degree=3", fresh_seed()).A;
  const auto pick = [&](SpmmShape shape) {
    return registry.choose_spmm(MatrixRef<T, I>{&A}, Backend::Cuda, shape);
  };
  const Algorithm aligned = sizeof(T) == 4 ? Algorithm::MergeBased : Algorithm::RowSplit;
  EXPECT_EQ(pick(SpmmShape{32}), aligned);
  EXPECT_EQ(pick(SpmmShape{32, Layout::RowMajor, Layout::RowMajor, 32, 36}), aligned);
  EXPECT_EQ(pick(SpmmShape{32, Layout::RowMajor, Layout::RowMajor, 33, 32}), Algorithm::RowSplit);
  EXPECT_EQ(pick(SpmmShape{32, Layout::RowMajor, Layout::ColMajor, 32, 40000}),
            Algorithm::RowSplit);
  EXPECT_EQ(pick(SpmmShape{30}), Algorithm::RowSplit);  // n not a multiple of 4
  // Groups of 16: row split's only (row panel may win here by its own rule).
  EXPECT_NE(pick(SpmmShape{64}), Algorithm::MergeBased);
#else
  GTEST_SKIP() << "CUDA backend not compiled";
#endif
}

/// Row split's warps per row (cuda::row_split_parts, session 14; n > 16:
/// steps of 32 nonzeros, from 2 of them; n <= 16: of 4·32/W, from 4) on the statistics of the real
/// matrices it was measured on (H100 resident warps of the kernel: 3168-6336 by precision and
/// width). Host-side.
TEST(CudaSpmmPanelRule, RowSplitPartsOnHandmadeStatistics) {
#if SPX_HAVE_CUDA
  EXPECT_EQ(cuda::row_split_parts(822, 1, 304, 32, 2, 4752, 4752), 4);  // bp_1600
  EXPECT_EQ(cuda::row_split_parts(822, 1, 304, 32, 2, 3168, 3168),
            2);  // bp_1600, K = 4 a second wave
  EXPECT_EQ(cuda::row_split_parts(66, 1, 66, 32, 2, 3168, 3168), 4);    // bcsstk02: 3 batches
  EXPECT_EQ(cuda::row_split_parts(1651, 1, 62, 32, 2, 3696, 3696), 2);  // fidapex6: 2 batches
  EXPECT_EQ(cuda::row_split_parts(1651, 1, 62, 32, 2, 3168, 3168), 1);
  EXPECT_EQ(cuda::row_split_parts(2003, 1, 95, 32, 2, 3168, 3168), 1);  // bcsstk13, f64 n = 128
  EXPECT_EQ(cuda::row_split_parts(4800, 1, 33, 32, 2, 6336, 6336), 1);  // mhd4800a
  EXPECT_EQ(cuda::row_split_parts(989, 1, 12, 32, 2, 6336, 6336), 1);   // west0989: one batch
  EXPECT_EQ(cuda::row_split_parts(10, 1, 32, 32, 2, 6336, 6336), 1);    // 32 entries: one batch
  EXPECT_EQ(cuda::row_split_parts(10, 1, 33, 32, 2, 6336, 6336), 2);
  EXPECT_EQ(cuda::row_split_parts(10, 1, 65, 32, 2, 6336, 6336), 4);
  EXPECT_EQ(cuda::row_split_parts(10, 1, std::int64_t{1} << 25, 32, 2, 6336, 6336), 4);
  EXPECT_EQ(cuda::row_split_parts(500, 4, 1000, 32, 2, 6336, 6336),
            2);  // column tiles count as warps
  EXPECT_EQ(cuda::row_split_parts(0, 1, 0, 32, 2, 6336, 6336), 1);
  // Each K against its own kernel's resident warps.
  EXPECT_EQ(cuda::row_split_parts(822, 1, 304, 32, 2, 3696, 3168), 2);
  EXPECT_EQ(cuda::row_split_parts(822, 1, 304, 32, 2, 3168, 3696), 4);
  EXPECT_EQ(cuda::row_split_parts(1651, 1, 62, 32, 2, 3168, 9999),
            1);  // 2 batches: K = 4 not considered
  // n <= 16: steps of 4 * 32 / W nonzeros (W = 8 at n = 8: 16 a step), at
  // least 4 of them.
  EXPECT_EQ(cuda::row_split_parts(822, 1, 304, 16, 4, 8448, 8448), 4);   // bp_1600, n = 8
  EXPECT_EQ(cuda::row_split_parts(989, 1, 12, 16, 4, 8448, 8448), 1);    // west0989: one step
  EXPECT_EQ(cuda::row_split_parts(100, 1, 48, 16, 4, 8448, 8448), 1);    // 3 steps
  EXPECT_EQ(cuda::row_split_parts(100, 1, 49, 16, 4, 8448, 8448), 4);    // 4 steps
  EXPECT_EQ(cuda::row_split_parts(3000, 1, 49, 16, 4, 8448, 8448), 2);   // K = 4 a second wave
  EXPECT_EQ(cuda::row_split_parts(100, 1, 300, 128, 4, 8448, 8448), 1);  // W = 1: 3 steps
  EXPECT_EQ(cuda::row_split_parts(100, 1, 513, 128, 4, 8448, 8448), 4);
#else
  GTEST_SKIP() << "CUDA backend not compiled";
#endif
}

/// spmm_csr_can_run (every CSR SpMM kernel): the kernels address a row of B
/// with a 32-bit stride in bytes (LaneB, GroupB), so a row-major B of more
/// than one row with a larger leading dimension is refused, naming it; a B
/// of one row, or a column-major one, is not. Host-side: no GPU needed.
TYPED_TEST(CudaSpmmPanel, CanRunRefusesARowStrideBeyond32Bits) {
#if SPX_HAVE_CUDA
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::int64_t limit = std::numeric_limits<int>::max() / static_cast<std::int64_t>(sizeof(T));
  const Csr<T, I> two(I{2}, I{2}, Array<I>(std::vector<I>{0, 1, 2}), Array<I>(std::vector<I>{0, 1}),
                      Array<T>(std::vector<T>{T{1}, T{2}}));
  const Csr<T, I> one(I{2}, I{1}, Array<I>(std::vector<I>{0, 1, 2}), Array<I>(std::vector<I>{0, 0}),
                      Array<T>(std::vector<T>{T{1}, T{2}}));
  for (const std::int64_t n : {std::int64_t{8}, std::int64_t{64}}) {
    const auto shape = [&](Layout b, std::int64_t ldb) {
      return SpmmShape{n, b, Layout::RowMajor, ldb, n};
    };
    EXPECT_EQ(cuda::spmm_csr_can_run(two, shape(Layout::RowMajor, limit)), "") << n;
    const std::string refused = cuda::spmm_csr_can_run(two, shape(Layout::RowMajor, limit + 1));
    EXPECT_NE(refused.find("leading dimension " + std::to_string(limit + 1)), std::string::npos)
        << refused;
    EXPECT_EQ(cuda::spmm_csr_can_run(one, shape(Layout::RowMajor, limit + 1)), "") << n;
    EXPECT_EQ(cuda::spmm_csr_can_run(two, shape(Layout::ColMajor, limit + 1)), "") << n;
  }
#else
  GTEST_SKIP() << "CUDA backend not compiled";
#endif
}

}  // namespace
}  // namespace spx::test

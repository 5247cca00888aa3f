// CUDA kernels for DIA, HDI and BCSR (src/cuda/{dia,hdi,bcsr}.cu) and the
// cuSPARSE BSR baselines: geometry stress cases against the long-double
// reference over an (alpha, beta) grid with NaN-poisoned y for beta = 0 —
// rows and columns not multiples of the hack or block size, empty rows and
// block rows, a long block row, every block size 1..32 that selects a
// different code path, several hack sizes, wide and tall shapes, diagonals
// that leave the matrix — plus the Auto rule by block size and its report,
// the refusals with their reasons, and bitwise reproducibility; block_sub_warp
// with each lane count forced, on block rows of every length around its group
// and round boundaries, and its knob. Every test that runs a kernel needs a
// GPU (skips without one, fails with SPX_REQUIRE_GPU=1); SPX_TEST_SMALL=1
// shrinks the larger cases.
// (test_spmv.cpp also runs every registered kernel on the shared matrices,
// with the default hack size 32 and block size 4.)
#include <gtest/gtest.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "common.hpp"
#include "cuda_common.hpp"
#if SPX_HAVE_CUDA
#include "cuda/blocked_kernels.hpp"
#endif
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaBlocked);

/// No fill limit and a roomy budget: the tests choose their shapes.
ConvertOptions roomy(int block_size = 4, int hack_size = 32) {
  ConvertOptions o;
  o.max_bytes_floor = std::size_t{256} << 20;
  o.max_expansion = 1000;
  o.min_block_fill = 0.0;
  o.block_size = block_size;
  o.hack_size = hack_size;
  return o;
}

/// FEM-like block structure for block size b: dense b×b blocks (a few holes
/// so that fill < 1) near the block diagonal plus a few far blocks; every
/// seventh block row empty, the middle one long (up to 60 blocks); rows and
/// cols as given (not necessarily multiples of b: the last blocks are cut).
template <Value T, Index I>
Csr<T, I> block_matrix(std::int64_t rows, std::int64_t cols, int b, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const std::int64_t mb = (rows + b - 1) / b, nb = (cols + b - 1) / b;
  std::vector<I> r, c;
  for (std::int64_t R = 0; R < mb; ++R) {
    if (R % 7 == 3) continue;  // empty block row
    std::set<std::int64_t> blocks;
    const std::int64_t centre = R * nb / mb;
    const std::int64_t want =
        R == mb / 2 ? std::min<std::int64_t>(nb, 60) : 1 + static_cast<std::int64_t>(gen() % 6);
    for (std::int64_t d = 0; d < nb && static_cast<std::int64_t>(blocks.size()) < want; ++d) {
      if (centre + d < nb) blocks.insert(centre + d);
      if (centre - d >= 0 && static_cast<std::int64_t>(blocks.size()) < want)
        blocks.insert(centre - d);
    }
    if (gen() % 3 == 0) blocks.insert(static_cast<std::int64_t>(gen() % nb));  // a far block
    for (const std::int64_t C : blocks)
      for (int cc = 0; cc < b; ++cc)
        for (int rr = 0; rr < b; ++rr) {
          const std::int64_t i = R * b + rr, j = C * b + cc;
          if (i < rows && j < cols && gen() % 10 != 0) {  // 10% holes
            r.push_back(static_cast<I>(i));
            c.push_back(static_cast<I>(j));
          }
        }
  }
  return csr_from_entries<T, I>(rows, cols, r, c, seed + 1);
}

/// Entries on the given diagonals (offset = column - row), each position
/// kept with probability `keep`; rows with i % skip == skip - 1 left empty
/// (skip = 0: none).
template <Value T, Index I>
Csr<T, I> diagonal_matrix(std::int64_t rows, std::int64_t cols,
                          const std::vector<std::int64_t>& offs, double keep, std::int64_t skip,
                          std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<I> r, c;
  for (std::int64_t i = 0; i < rows; ++i) {
    if (skip > 0 && i % skip == skip - 1) continue;
    for (const std::int64_t o : offs)
      if (i + o >= 0 && i + o < cols && u(gen) < keep) {
        r.push_back(static_cast<I>(i));
        c.push_back(static_cast<I>(i + o));
      }
  }
  return csr_from_entries<T, I>(rows, cols, r, c, seed + 1);
}

/// 2D five-point and 3D seven-point stencils on a g×g (g×g×g) grid.
template <Value T, Index I>
Csr<T, I> stencil_2d(std::int64_t g, std::uint64_t seed) {
  return generated<T, I>(fmt::format("stencil2d:n={},points=5", g), seed).A;
}
template <Value T, Index I>
Csr<T, I> stencil_3d(std::int64_t g, std::uint64_t seed) {
  return generated<T, I>(fmt::format("stencil3d:n={},points=7", g), seed).A;
}

/// Runs every CUDA kernel of dM's format that accepts dM over the (alpha,
/// beta) grid against the reference of A; returns the algorithms that ran.
template <class M, Value T = typename M::value_type, Index I = typename M::index_type>
std::set<Algorithm> check_all_kernels(const Csr<T, I>& A, const M& dM, const std::string& name) {
  std::set<Algorithm> ran;
  const std::uint64_t seed = fresh_seed();
  const auto x = random_values<T>(A.cols(), seed);
  const auto y0 = random_values<T>(A.rows(), seed + 1);
  const Product product = reference::product(A, std::span<const T>(x));
  for (const auto* k : cuda_kernels<T, I>(M::kFormat)) {
    if (!k->can_run(MatrixRef<T, I>{&dM}).empty()) continue;  // refusals: tested below
    const bool passed =
        matches_over_grid(kScalars.first(3), product, y0,
                          fmt::format("{} {}/{} seed={}", name, to_string(M::kFormat),
                                      to_string(k->info.algorithm), seed),
                          on_device(dM, k->info.algorithm, x), reports_kernel(k->info));
    if (!passed) return ran;
    ran.insert(k->info.algorithm);
  }
  return ran;
}

constexpr int kBlockSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 24, 32};

// ---- BCSR -------------------------------------------------------------------

TYPED_TEST(CudaBlocked, BcsrKernelsMatchReferenceAtEveryBlockSize) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::int64_t mb = small_tests() ? 12 : 30;  // block rows
  for (const int b : kBlockSizes) {
    // A ragged shape (neither dimension a multiple of b when b > 1) and an
    // exact one (cuSPARSE's unpadded path).
    for (const auto& [rows, cols] :
         {std::pair{mb * b - b / 2, (mb + 3) * b - (b + 1) / 3}, std::pair{mb * b, (mb - 2) * b}}) {
      const std::uint64_t seed = fresh_seed();
      const std::string name = fmt::format("block b={} {}x{} seed={}", b, rows, cols, seed);
      const Csr<T, I> A = block_matrix<T, I>(rows, cols, b, seed);
      const Bcsr<T, I> dB = to_bcsr(A, roomy(b)).to(Space::Device);
      ASSERT_EQ(dB.block_size(), b);
      const std::set<Algorithm> ran = check_all_kernels(A, dB, name);
      EXPECT_TRUE(ran.count(Algorithm::BlockByColumn)) << name;
      EXPECT_EQ(ran.count(Algorithm::BlockByBlock), b <= 5 ? 1u : 0u) << name;
      EXPECT_EQ(ran.count(Algorithm::BlockRowShared), b >= 16 ? 1u : 0u) << name;
      EXPECT_EQ(ran.count(Algorithm::BlockSubWarp), b <= 4 ? 1u : 0u) << name;
      EXPECT_EQ(ran.count(spx::baselines::CusparseBsrAlg1), b >= 2 ? 1u : 0u) << name;
      const bool bsrmv = b >= 2 && std::same_as<I, std::int32_t>;
      EXPECT_EQ(ran.count(spx::baselines::CusparseBsrmv), bsrmv ? 1u : 0u) << name;
    }
  }
}

TYPED_TEST(CudaBlocked, BcsrEdgeCases) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  for (const int b : {1, 3, 4, 16, 19, 32}) {
    // One entry in the last row and column, every other block row empty.
    {
      const Csr<T, I> A = csr_from_entries<T, I>(5 * b + 1, 3 * b + 2, std::vector<I>{I(5 * b)},
                                                 std::vector<I>{I(3 * b + 1)}, seed);
      check_all_kernels(A, to_bcsr(A, roomy(b)).to(Space::Device),
                        fmt::format("last-entry b={}", b));
    }
    // A single row and a single column (fewer rows / columns than b).
    {
      std::vector<I> r, c;
      for (int j = 0; j < 3 * b + 1; ++j) {
        r.push_back(0);
        c.push_back(static_cast<I>(j));
      }
      const Csr<T, I> A = csr_from_entries<T, I>(1, 3 * b + 1, r, c, seed + 1);
      check_all_kernels(A, to_bcsr(A, roomy(b)).to(Space::Device), fmt::format("one-row b={}", b));
      const Csr<T, I> At = csr_from_entries<T, I>(3 * b + 1, 1, c, r, seed + 2);
      check_all_kernels(At, to_bcsr(At, roomy(b)).to(Space::Device),
                        fmt::format("one-column b={}", b));
    }
    // Many block rows (a grid of many thread blocks), one long block row.
    {
      const std::int64_t mb = (small_tests() ? 300 : 3000) / b + 40;
      const Csr<T, I> A = block_matrix<T, I>(mb * b - 1, mb * b + 1, b, seed + 3);
      check_all_kernels(A, to_bcsr(A, roomy(b)).to(Space::Device), fmt::format("many b={}", b));
    }
  }
}

TYPED_TEST(CudaBlocked, BcsrAutoFollowsBlockSizeAndReportsIt) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const int b : kBlockSizes) {
    const std::uint64_t seed = fresh_seed();
    const Csr<T, I> A = block_matrix<T, I>(20 * b + 1, 20 * b - 1, b, seed);
    const Bcsr<T, I> dB = to_bcsr(A, roomy(b)).to(Space::Device);
    const Algorithm want = b <= 4   ? Algorithm::BlockSubWarp
                           : b < 24 ? Algorithm::BlockByColumn
                                    : Algorithm::BlockRowShared;
    const auto x = random_values<T>(A.cols(), seed + 5);
    RunInfo info;
    const auto got =
        device_spmv(dB, Algorithm::Auto, T{1}, x, T{0}, nan_vector<T>(A.rows()), &info);
    EXPECT_EQ(info.algorithm, want) << "b = " << b;
    EXPECT_EQ(info.format, Format::Bcsr);
    EXPECT_EQ(info.backend, Backend::Cuda);
    EXPECT_TRUE(info.deterministic);
    const Algorithm chosen =
        Registry<T, I>::instance().choose_spmv(MatrixRef<T, I>{&dB}, Backend::Cuda);
    EXPECT_EQ(chosen, want) << "b = " << b;
    EXPECT_EQ(expect_matches(got, expected_spmv<T, I>(T{1}, A, x, T{0}, got),
                             fmt::format("auto b={} seed={}", b, seed)),
              0);
  }
}

TYPED_TEST(CudaBlocked, BcsrRefusalsGiveReasons) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  if (!cuda_compiled()) GTEST_SKIP() << "CUDA backend not compiled";
  const auto& reg = Registry<T, I>::instance();
  for (const int b : {1, 4, 5, 6, 15, 16, 32}) {
    // can_run reads only the block size: a host matrix is enough.
    const Csr<T, I> A = block_matrix<T, I>(8 * b, 8 * b, b, 11);
    const Bcsr<T, I> B = to_bcsr(A, roomy(b));
    const auto reason = [&](Algorithm a) {
      const auto* k = reg.find_spmv(Format::Bcsr, a, Backend::Cuda);
      EXPECT_NE(k, nullptr) << to_string(a);
      return k == nullptr ? std::string("missing") : k->can_run(MatrixRef<T, I>{&B});
    };
    const std::string has_b = fmt::format("b = {}", b);
    const std::string by_block = reason(Algorithm::BlockByBlock);
    const std::string shared = reason(Algorithm::BlockRowShared);
    EXPECT_EQ(by_block.empty(), b <= 5) << by_block;
    if (b > 5) {
      EXPECT_NE(by_block.find(has_b), std::string::npos) << by_block;
    }
    EXPECT_EQ(shared.empty(), b >= 16) << shared;
    if (b < 16) {
      EXPECT_NE(shared.find(has_b), std::string::npos) << shared;
    }
    const std::string sub_warp = reason(Algorithm::BlockSubWarp);
    EXPECT_EQ(sub_warp.empty(), b <= 4) << sub_warp;
    if (b > 4) {
      EXPECT_NE(sub_warp.find(has_b), std::string::npos) << sub_warp;
      EXPECT_NE(sub_warp.find("block_sub_warp needs b <= 4"), std::string::npos) << sub_warp;
    }
    EXPECT_EQ(reason(Algorithm::BlockByColumn), "");
    EXPECT_EQ(reason(spx::baselines::CusparseBsrAlg1).empty(), b >= 2);
    const std::string bsrmv = reason(spx::baselines::CusparseBsrmv);
    const bool bsrmv_runs = b >= 2 && std::same_as<I, std::int32_t>;
    EXPECT_EQ(bsrmv.empty(), bsrmv_runs) << bsrmv;
    if (!std::same_as<I, std::int32_t>) {
      EXPECT_NE(bsrmv.find("32-bit"), std::string::npos) << bsrmv;
    }
    // Asking the dispatcher for a refused kernel raises Unsupported with the reason.
    if (cuda_available() && b > 5) {
      const Bcsr<T, I> dB = B.to(Space::Device);
      Array<T> dx = Array<T>(random_values<T>(A.cols(), 3)).to(Space::Device);
      Array<T> dy(static_cast<std::size_t>(A.rows()), Space::Device);
      SpmvOptions opts;
      opts.algorithm = Algorithm::BlockByBlock;
      try {
        spmv(T{1}, dB, dx, T{0}, dy, opts);
        ADD_FAILURE() << "block_by_block ran with b = " << b;
      } catch (const Unsupported& e) {
        EXPECT_NE(std::string(e.what()).find(has_b), std::string::npos) << e.what();
      }
    }
  }
}

// ---- BCSR: a sub-warp per block row (block_sub_warp) ------------------------

/// Block rows with the given numbers of blocks (cycled; capped at the block
/// columns), each at distinct random block columns, 10% holes in the blocks,
/// entries cut at rows and cols.
template <Value T, Index I>
Csr<T, I> block_rows_of_lengths(std::int64_t rows, std::int64_t cols, int b,
                                const std::vector<std::int64_t>& lengths, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const std::int64_t mb = (rows + b - 1) / b, nb = (cols + b - 1) / b;
  std::vector<std::int64_t> all(static_cast<std::size_t>(nb));
  for (std::int64_t C = 0; C < nb; ++C)
    all[static_cast<std::size_t>(C)] = C;
  std::vector<I> r, c;
  for (std::int64_t R = 0; R < mb; ++R) {
    const auto len =
        std::min<std::int64_t>(lengths[static_cast<std::size_t>(R) % lengths.size()], nb);
    std::shuffle(all.begin(), all.end(), gen);
    for (std::int64_t k = 0; k < len; ++k) {
      const std::int64_t C = all[static_cast<std::size_t>(k)];
      for (int cc = 0; cc < b; ++cc)
        for (int rr = 0; rr < b; ++rr) {
          const std::int64_t i = R * b + rr, j = C * b + cc;
          if (i < rows && j < cols && gen() % 10 != 0) {
            r.push_back(static_cast<I>(i));
            c.push_back(static_cast<I>(j));
          }
        }
    }
  }
  return csr_from_entries<T, I>(rows, cols, r, c, seed + 1);
}

TEST(CudaBlockedSubWarp, LanesKnob) {
  if (!cuda_compiled()) GTEST_SKIP() << "CUDA backend not compiled";
#if SPX_HAVE_CUDA
  for (const int b : {1, 2, 3, 4}) {
    int last = 0;
    for (double mean = 0.0; mean < 2000.0; mean = mean * 1.3 + 0.25) {
      const int lanes = cuda::bcsr_sub_warp_lanes(mean, b);
      EXPECT_TRUE(lanes == 4 || lanes == 8 || lanes == 16) << "b=" << b << " mean=" << mean;
      EXPECT_GE(lanes, last) << "not monotone: b=" << b << " mean=" << mean;
      last = lanes;
    }
    EXPECT_EQ(cuda::bcsr_sub_warp_lanes(0.0, b), 4) << b;
    EXPECT_EQ(cuda::bcsr_sub_warp_lanes(1.0, b), 4) << b;
    EXPECT_EQ(cuda::bcsr_sub_warp_lanes(1e6, b), 16) << b;
  }
#endif
}

TYPED_TEST(CudaBlocked, BcsrSubWarpRefusesBadLanesAndBlockSizes) {
  if (!cuda_compiled()) GTEST_SKIP() << "CUDA backend not compiled";
#if SPX_HAVE_CUDA
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // Both checks come before any launch: a host matrix is enough.
  const Csr<T, I> A = block_matrix<T, I>(24, 24, 2, 5);
  const Bcsr<T, I> B2 = to_bcsr(A, roomy(2));
  const std::vector<T> x(24, T{1});
  std::vector<T> y(24, T{0});
  for (const int lanes : {0, 2, 5, 32}) {
    try {
      cuda::spmv_bcsr_sub_warp_with(T{1}, B2, x.data(), T{0}, y.data(), ExecContext{}, lanes);
      ADD_FAILURE() << "lanes = " << lanes << " accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("got " + std::to_string(lanes)), std::string::npos)
          << e.what();
    }
  }
  const Bcsr<T, I> B5 = to_bcsr(block_matrix<T, I>(25, 25, 5, 6), roomy(5));
  try {
    cuda::spmv_bcsr_sub_warp_with(T{1}, B5, x.data(), T{0}, y.data(), ExecContext{}, 4);
    ADD_FAILURE() << "b = 5 accepted";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("b = 5"), std::string::npos) << e.what();
  }
#endif
}

/// block_sub_warp with each lane count forced (4, 8, 16), at b = 1..4, on
/// block rows of 0, 1, S - 1, S, S + 1 blocks and every count up to past one
/// round of loads of the widest group, then long rows; rows and cols not
/// multiples of b; the (alpha, beta) grid with NaN-poisoned y for beta = 0.
TYPED_TEST(CudaBlocked, BcsrSubWarpEveryLaneCountMatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
#if SPX_HAVE_CUDA
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  std::vector<std::int64_t> lengths;
  for (std::int64_t n = 0; n <= 34; ++n)
    lengths.push_back(n);
  for (const std::int64_t n : {0, 47, 48, 49, 64, 65, 100, 1, 0, 130})
    lengths.push_back(n);
  for (const int b : {1, 2, 3, 4}) {
    // Twice through the lengths, shifted, so each length meets several
    // positions within a warp's groups.
    const std::int64_t mb = 2 * static_cast<std::int64_t>(lengths.size()) + 7;
    const std::int64_t nb = 140;  // block columns: more than the longest row
    for (const auto& [rows, cols] :
         {std::pair{mb * b - b / 2, nb * b - (b + 1) / 3}, std::pair{mb * b, nb * b}}) {
      const std::uint64_t seed = fresh_seed();
      const Csr<T, I> A = block_rows_of_lengths<T, I>(rows, cols, b, lengths, seed);
      const Bcsr<T, I> dB = to_bcsr(A, roomy(b)).to(Space::Device);
      ASSERT_EQ(dB.block_size(), b);
      const auto x = random_values<T>(A.cols(), seed + 2);
      const auto y0 = random_values<T>(A.rows(), seed + 3);
      const Product product = reference::product(A, std::span<const T>(x));
      const Array<T> dx = Array<T>(x).to(Space::Device);
      for (const int lanes : {4, 8, 16}) {
        const bool passed = matches_over_grid(
            kScalars.first(3), product, y0,
            fmt::format("b={} {}x{} lanes={} seed={}", b, rows, cols, lanes, seed),
            [&](T alpha, T beta, const std::vector<T>& y_init) {
              Array<T> dy = Array<T>(y_init).to(Space::Device);
              cuda::spmv_bcsr_sub_warp_with(alpha, dB, dx.data(), beta, dy.data(), ExecContext{},
                                            lanes);
              return Ran<T>{dy.to_vector(), RunInfo{}};
            },
            [](const RunInfo&, const std::string&) {});
        if (!passed) return;
      }
    }
  }
#endif
}

// ---- DIA and HDI --------------------------------------------------------------

/// Matrices for the diagonal formats: stencils, ragged diagonals, empty rows,
/// wide and tall shapes, far-off diagonals, a lone entry.
template <Value T, Index I>
std::vector<std::pair<std::string, Csr<T, I>>> diagonal_cases() {
  const std::uint64_t seed = fresh_seed();
  const bool small = small_tests();
  std::vector<std::pair<std::string, Csr<T, I>>> out;
  out.emplace_back("stencil-2d-37", stencil_2d<T, I>(37, seed));
  out.emplace_back("stencil-2d-large", stencil_2d<T, I>(small ? 80 : 300, seed + 1));
  out.emplace_back("stencil-3d-11", stencil_3d<T, I>(11, seed + 2));
  out.emplace_back(
      "ragged-diagonals",
      diagonal_matrix<T, I>(1001, 1001, {-600, -33, -1, 0, 1, 2, 40, 999}, 0.7, 0, seed + 3));
  out.emplace_back("empty-rows", diagonal_matrix<T, I>(1000, 1000, {-3, 0, 5}, 1.0, 3, seed + 4));
  out.emplace_back("wide", diagonal_matrix<T, I>(300, 1000, {0, 500, 900}, 0.9, 0, seed + 5));
  out.emplace_back("tall", diagonal_matrix<T, I>(1000, 300, {-700, -10, 0}, 0.9, 0, seed + 6));
  out.emplace_back("many-diagonals", diagonal_matrix<T, I>(
                                         257, 257,
                                         [] {
                                           std::vector<std::int64_t> o;
                                           for (std::int64_t d = -120; d <= 120; d += 7)
                                             o.push_back(d);
                                           return o;
                                         }(),
                                         0.8, 0, seed + 7));
  out.emplace_back("lone-last-entry", csr_from_entries<T, I>(777, 500, std::vector<I>{776},
                                                             std::vector<I>{3}, seed + 8));
  out.emplace_back("one-row", diagonal_matrix<T, I>(1, 50, {0, 7, 49}, 1.0, 0, seed + 9));
  // More rows than a GPU holds threads (H100, H200: 270336): DIA's several-
  // rows-per-thread shape (diag_rows.cuh, DiaShape), a partial last tile;
  // with an even number of rows, float's pairs of adjacent rows
  // (dia_pairs_kernel), here with fewer columns than rows.
  out.emplace_back("many-rows", diagonal_matrix<T, I>(600'001, 600'001, {-1000, -1, 0, 1, 3, 77},
                                                      0.9, 5, seed + 10));
  out.emplace_back("many-rows-even", diagonal_matrix<T, I>(600'002, 599'999, {-77, -2, 0, 1, 900},
                                                           0.9, 7, seed + 11));
  return out;
}

TYPED_TEST(CudaBlocked, DiaKernelMatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : diagonal_cases<T, I>()) {
    const Dia<T, I> dD = to_dia(A, roomy()).to(Space::Device);
    EXPECT_EQ(check_all_kernels(A, dD, name).count(Algorithm::Diagonal), 1u) << name;
  }
}

TYPED_TEST(CudaBlocked, HdiKernelMatchesReferenceForSeveralHackSizes) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : diagonal_cases<T, I>())
    for (const int hack : {1, 5, 32, 33, 100}) {
      const Hdi<T, I> dH = to_hdi(A, roomy(4, hack)).to(Space::Device);
      const std::string what = fmt::format("{} hack={}", name, hack);
      EXPECT_EQ(check_all_kernels(A, dH, what).count(Algorithm::Diagonal), 1u) << what;
    }
}

TYPED_TEST(CudaBlocked, AutoForDiagonalFormats) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = stencil_2d<T, I>(20, fresh_seed());
  const auto x = random_values<T>(A.cols(), fresh_seed());
  RunInfo info;
  device_spmv(to_dia(A, roomy()).to(Space::Device), Algorithm::Auto, T{1}, x, T{0},
              nan_vector<T>(A.rows()), &info);
  EXPECT_EQ(info.algorithm, Algorithm::Diagonal);
  EXPECT_EQ(info.format, Format::Dia);
  device_spmv(to_hdi(A, roomy()).to(Space::Device), Algorithm::Auto, T{1}, x, T{0},
              nan_vector<T>(A.rows()), &info);
  EXPECT_EQ(info.algorithm, Algorithm::Diagonal);
  EXPECT_EQ(info.format, Format::Hdi);
}

// ---- reproducibility ----------------------------------------------------------

template <class M, Value T = typename M::value_type, Index I = typename M::index_type>
void expect_reproducible(const M& dM, std::int64_t cols, std::int64_t rows,
                         const std::string& name) {
  const auto x = random_values<T>(cols, fresh_seed());
  const auto y0 = nan_vector<T>(rows);
  const M other = dM.clone();
  for (const auto* k : cuda_kernels<T, I>(M::kFormat)) {
    if (k->info.baseline || !k->can_run(MatrixRef<T, I>{&dM}).empty()) continue;
    EXPECT_TRUE(k->info.deterministic) << name << " " << to_string(k->info.algorithm);
    const auto first = device_spmv(dM, k->info.algorithm, T{1}, x, T{0}, y0);
    const auto second = device_spmv(dM, k->info.algorithm, T{1}, x, T{0}, y0);
    const auto third = device_spmv(other, k->info.algorithm, T{1}, x, T{0}, y0);
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(T)), 0)
        << name << " " << to_string(k->info.algorithm);
    EXPECT_EQ(std::memcmp(first.data(), third.data(), first.size() * sizeof(T)), 0)
        << name << " " << to_string(k->info.algorithm);
  }
}

TYPED_TEST(CudaBlocked, KernelsAreBitwiseReproducible) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> S = stencil_2d<T, I>(small_tests() ? 40 : 120, fresh_seed());
  expect_reproducible(to_dia(S, roomy()).to(Space::Device), S.cols(), S.rows(), "dia");
  expect_reproducible(to_hdi(S, roomy(4, 33)).to(Space::Device), S.cols(), S.rows(), "hdi");
  for (const int b : {2, 3, 8, 16, 32}) {
    const Csr<T, I> A = block_matrix<T, I>(50 * b + 1, 50 * b + 1, b, fresh_seed());
    expect_reproducible(to_bcsr(A, roomy(b)).to(Space::Device), A.cols(), A.rows(),
                        fmt::format("bcsr b={}", b));
  }
}

}  // namespace
}  // namespace spx::test

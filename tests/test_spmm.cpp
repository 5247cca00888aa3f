// SpMM kernel tests: every registered SpMM kernel, every backend present,
// every format convertible in this build, on the hand-made and generated
// matrices and the three smallest real ones, for n ∈ {1, 3, 32, 33, 64, 200},
// four storage configurations of B and C (both layouts, tight and padded
// leading dimensions, mixed; the mixed ones for CSR, COO and CSC only, the
// other formats get them in CpuFormatOptions), over a grid of (alpha, beta)
// (the full grid with row-major B and C, two pairs with the others), against the
// long-double reference. C is poisoned with NaN before every beta = 0 run,
// B's padding holds NaN (a kernel reading it fails), and C's padding holds a
// sentinel that must survive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "common.hpp"
#include "cuda_common.hpp"
#include "dense.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/generate.hpp"
#include "spx/ops.hpp"
#if SPX_HAVE_CUDA
#include "cuda/launch.hpp"
#include "cuda/spmm.hpp"
#endif

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(SpmmKernels);

constexpr std::int64_t kWidths[] = {1, 3, 32, 33, 64, 200};
/// Products larger than this (nnz × n) are left out to keep the suite fast:
/// 8 Mi multiply-adds, 1 Mi in an ASan build (the `sanitize` preset: there
/// this test ran 4-6 times slower and took 1137 of the run's 1716
/// test-seconds at 8 Mi) and under SPX_TEST_SMALL=1 (compute-sanitizer).
std::int64_t max_work() {
  return kAddressSanitizer || small_tests() ? std::int64_t{1} << 20 : std::int64_t{8} << 20;
}

constexpr Storage kStorages[] = {
    {Layout::RowMajor, Layout::RowMajor, 0, 0},
    {Layout::ColMajor, Layout::ColMajor, 3, 5},
    {Layout::RowMajor, Layout::ColMajor, 7, 0},
    {Layout::ColMajor, Layout::RowMajor, 0, 2},
};

template <Value T, Index I>
std::vector<TestMatrix<T, I>> spmm_test_matrices() {
  auto all = handmade_matrices<T, I>();
  for (auto& m : generated_matrices<T, I>())
    all.push_back(std::move(m));
  auto real = real_matrices<T, I>();
  std::ranges::sort(real, {}, [](const TestMatrix<T, I>& m) { return m.A.nnz(); });
  if (real.empty()) std::printf("[  NOTE    ] no real matrices found\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(3, real.size()); ++i)
    all.push_back(std::move(real[i]));
  return all;
}

/// Runs every SpMM kernel of `backend` on every test matrix; returns how
/// many (matrix, kernel) pairs ran, per format.
template <Value T, Index I>
std::map<Format, int> run_all(Backend backend) {
  const auto& registry = Registry<T, I>::instance();
  const Space space = space_of(backend);
  std::map<Format, int> ran;
  for (auto& [name, A] : spmm_test_matrices<T, I>()) {
    // Every format with an SpMM kernel on this backend, in `space`.
    std::vector<Matrix<T, I>> formats;
    std::map<Format, double> expansion;  // bytes of the format / bytes of CSR
    for (Format f : kAllFormats) {
      if (!convertible(f)) continue;
      const bool any = std::ranges::any_of(registry.spmm_kernels(), [&](const auto& k) {
        return k.info.format == f && k.info.backend == backend;
      });
      if (!any) continue;
      try {
        const Matrix<T, I> host_m = convert(A, f);
        expansion[f] =
            static_cast<double>(std::visit([](const auto& a) { return a.bytes(); }, host_m)) /
            static_cast<double>(std::max<std::size_t>(1, A.bytes()));
        formats.push_back(
            std::visit([&](const auto& a) { return Matrix<T, I>(a.to(space)); }, host_m));
      } catch (const Unsupported& e) {
        std::printf("[  SKIP    ] %s as %s: %s\n", name.c_str(), std::string(to_string(f)).c_str(),
                    e.what());
      }
    }
    for (const std::int64_t n : kWidths) {
      if (A.nnz() * n > max_work()) {
        std::printf("[  SKIP    ] %s with n = %lld: larger than the test budget\n", name.c_str(),
                    static_cast<long long>(n));
        continue;
      }
      const std::uint64_t seed = fresh_seed();
      const std::int64_t m = A.rows(), k = A.cols();
      const auto B = random_values<T>(k * n, seed);
      const auto C0 = random_values<T>(m * n, seed + 1);
      const Product product = reference::product(A, std::span<const T>(B), n);
      for (const auto& mat : formats) {
        const Format f = std::visit([](const auto& a) { return a.kFormat; }, mat);
        for (const auto& kernel : registry.spmm_kernels()) {
          if (kernel.info.format != f || kernel.info.backend != backend) continue;
          // DIA, HDI and BCSR multiply their padding: more work than nnz × n.
          const bool padded = f == Format::Dia || f == Format::Hdi || f == Format::Bcsr;
          if (static_cast<double>(A.nnz() * n) * (padded ? std::max(1.0, expansion[f]) : 1.0) >
              max_work()) {
            std::printf("[  SKIP    ] %s as %s with n = %lld: larger than the test budget\n",
                        name.c_str(), std::string(to_string(f)).c_str(), static_cast<long long>(n));
            continue;
          }
          bool kernel_ran = false;
          for (const Storage& st : kStorages) {
            // Mixed layouts of B and C: here for CSR, COO and CSC; the other
            // formats get them in CpuFormatOptions.
            const bool mixed = st.b_layout != st.c_layout;
            if (mixed && f != Format::Csr && f != Format::Coo && f != Format::Csc) continue;
            const Stored<T> Bs(B, k, n, st.b_layout, st.b_pad, std::numeric_limits<T>::quiet_NaN());
            const SpmmShape shape{n, st.b_layout, st.c_layout, Bs.ld,
                                  (st.c_layout == Layout::RowMajor ? n : m) + st.c_pad};
            const std::string config =
                fmt::format("{} as {}, {} on {}, n={} B {} ld={} C {} ld={}", name, to_string(f),
                            to_string(kernel.info.algorithm), to_string(backend), n,
                            layout_name(st.b_layout), Bs.ld, layout_name(st.c_layout), shape.ldc);
            if (const std::string reason = kernel.can_run(ref(mat), shape); !reason.empty()) {
              if (n == 1 && st.b_pad == 0)
                std::printf("[  SKIP    ] %s: %s\n", config.c_str(), reason.c_str());
              continue;
            }
            const Array<T> dB(Bs.data, space);
            // The full (alpha, beta) grid with the first storage; the other
            // storages with the first two pairs (beta = 0 and a general one).
            const std::size_t scalars = &st == kStorages ? std::size(kScalars) : 2;
            for (std::size_t s = 0; s < scalars; ++s) {
              const auto [a, b] = kScalars[s];
              const T alpha = static_cast<T>(a), beta = static_cast<T>(b);
              const std::string what =
                  fmt::format("{}, alpha={} beta={} seed={}", config, a, b, seed);
              bool passed = false;
              try {
                passed = spmm_matches(
                    product, alpha, beta, C0, st, space, what,
                    [&](DenseView<T> C) {
                      SpmmOptions opts;
                      opts.algorithm = kernel.info.algorithm;
                      const RunInfo info =
                          spmm(alpha, mat, Bs.view(dB.data(), space), beta, C, opts);
                      EXPECT_EQ(info.algorithm, kernel.info.algorithm) << what;
                      EXPECT_EQ(info.backend, backend) << what;
                    },
                    stored_value_roundoff<T>(f));
              } catch (const Unsupported& e) {
                if (kernel.info.baseline) {  // e.g. cuSPARSE refusing a case
                  std::printf("[  SKIP    ] %s: %s\n", what.c_str(), e.what());
                  continue;
                }
                ADD_FAILURE() << what << ": threw " << e.what();
                continue;
              } catch (const std::exception& e) {
                ADD_FAILURE() << what << ": threw " << e.what();
                continue;
              }
              if (!passed) return ran;
              kernel_ran = true;
            }
          }
          if (kernel_ran) ++ran[f];
        }
      }
    }
  }
  return ran;
}

TYPED_TEST(SpmmKernels, CpuMatchesReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  expect_every_convertible_format_ran(run_all<T, I>(Backend::Cpu));
}

/// The CPU kernels of the other formats under non-default layouts: SELL with
/// a permutation (σ > 1), SELL-P and odd slice sizes, partial HLL and HDI
/// hacks, HYB all-COO and narrow, and BCSR with every compiled block size,
/// the runtime path and ragged edges; n around the tile widths (16 and 32
/// values with row-major B, 64 for BCSR, 8 with column-major B).
TYPED_TEST(SpmmKernels, CpuFormatOptions) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  struct Variant {
    Format format;
    ConvertOptions options;
  };
  std::vector<Variant> variants;
  const auto with = [&](Format f, auto&& set) {
    ConvertOptions o;
    o.max_bytes_floor = std::size_t{8} << 20;
    o.min_block_fill = 0.0;
    set(o);
    variants.push_back({f, o});
  };
  with(Format::Sell, [](ConvertOptions& o) { o.slice_size = 4, o.sigma = 8; });
  with(Format::Sell, [](ConvertOptions& o) { o.slice_size = 3, o.threads_per_row = 2; });
  with(Format::Hll, [](ConvertOptions& o) { o.hack_size = 5; });
  with(Format::Hdi, [](ConvertOptions& o) { o.hack_size = 7; });
  with(Format::Hyb, [](ConvertOptions& o) { o.hyb_width = 0; });
  with(Format::Hyb, [](ConvertOptions& o) { o.hyb_width = 1; });
  for (int b : {1, 2, 3, 5, 8, 32})
    with(Format::Bcsr, [b](ConvertOptions& o) { o.block_size = b; });

  auto mats = handmade_matrices<T, I>();
  for (auto& m : generated_matrices<T, I>())
    if (m.name.starts_with("fem") || m.name.starts_with("denserows")) mats.push_back(std::move(m));
  const T nan = std::numeric_limits<T>::quiet_NaN();
  int ran = 0;
  for (const auto& [name, A] : mats) {
    if (A.rows() == 0 || A.nnz() == 0) continue;
    for (const Variant& v : variants) {
      Matrix<T, I> mat;
      try {
        mat = convert(A, v.format, v.options);
      } catch (const Unsupported&) {
        continue;  // storage over the budget (e.g. BCSR b = 32 on a scattered pattern)
      }
      const std::int64_t widths[] = {1, 5, 17, 40, 70};
      for (std::size_t w = 0; w < std::size(widths); ++w) {
        const std::int64_t n = widths[w];
        const std::uint64_t seed = fresh_seed();
        const std::int64_t m = A.rows(), k = A.cols();
        const auto B = random_values<T>(k * n, seed);
        const auto C0 = random_values<T>(m * n, seed + 1);
        const Product product = reference::product(A, std::span<const T>(B), n);
        // Each width with two of the four storages, in turn.
        for (const Storage& st : {kStorages[w % 4], kStorages[(w + 1) % 4]}) {
          const Stored<T> Bs(B, k, n, st.b_layout, st.b_pad, nan);
          for (const T beta : {T{0}, T{-0.5}}) {
            const T alpha = T{1.5};
            const std::string what = fmt::format(
                "{} as {} (b={} C={} sigma={} H={} K={}), n={} B {} C {}, beta={} seed={}", name,
                to_string(v.format), v.options.block_size, v.options.slice_size, v.options.sigma,
                v.options.hack_size, v.options.hyb_width, n, layout_name(st.b_layout),
                layout_name(st.c_layout), beta, seed);
            if (!spmm_matches(product, alpha, beta, C0, st, Space::Host, what, [&](DenseView<T> C) {
                  const RunInfo info =
                      spmm(alpha, mat, Bs.view(Bs.data.data(), Space::Host), beta, C);
                  EXPECT_EQ(info.backend, Backend::Cpu) << what;
                }))
              return;
            ++ran;
          }
        }
      }
    }
  }
  EXPECT_GT(ran, 0);
}

TYPED_TEST(SpmmKernels, CudaMatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto ran = run_all<T, I>(Backend::Cuda);
  EXPECT_GT(ran.count(Format::Csr) ? ran.at(Format::Csr) : 0, 0) << "no CUDA CSR kernel ran";
  const auto& registry = Registry<T, I>::instance();
  for (Algorithm a : {Algorithm::RowSplit, Algorithm::MergeBased})
    EXPECT_NE(registry.find_spmm(Format::Csr, a, Backend::Cuda), nullptr) << to_string(a);
}

/// Row split's row groups (several short rows per warp, n > 16) form only on
/// matrices of tens of thousands of rows (they keep at least 32 warps per
/// SM), larger than the common test matrices: a 5-point stencil of 90,000
/// rows and a random matrix of 40,000 rows of 0-3 entries (empty rows inside
/// groups); a random matrix of about 40 per row takes a warp per row. Both
/// layouts, and row-major with even and odd padding (vector loads of B and C
/// where the leading dimensions allow them, scalar ones where they do not);
/// beta = 0 with C poisoned and beta != 0.
TYPED_TEST(SpmmKernels, CudaRowSplitRowGroups) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::uint64_t mseed = fresh_seed();
  // Under compute-sanitizer (SPX_TEST_SMALL=1): one width and one storage.
  const bool small = small_tests();
  const std::vector<std::int64_t> widths =
      small ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{33, 64, 200};
  const std::vector<Storage> storages =
      small ? std::vector<Storage>{kStorages[0]}
            : std::vector<Storage>{kStorages[0], kStorages[1],
                                   Storage{Layout::RowMajor, Layout::RowMajor, 4, 2},
                                   Storage{Layout::RowMajor, Layout::RowMajor, 1, 0}};
  const std::vector<const char*> matrices = {
      "stencil2d:n=300,points=5", "random:n=40000,degree=1.5", "random:n=6000,degree=40"};
  int ran = 0;
  for (const char* text : matrices) {
    const auto [name, A] = generated<T, I>(text, mseed + ran);
    ASSERT_GT(A.nnz(), 0) << name;
    const Csr<T, I> dA = A.to(Space::Device);
    for (const std::int64_t n : widths) {
      const std::uint64_t seed = fresh_seed();
      const std::int64_t m = A.rows(), k = A.cols();
      const auto B = random_values<T>(k * n, seed);
      const auto C0 = random_values<T>(m * n, seed + 1);
      const Product product = reference::product(A, std::span<const T>(B), n);
      for (const Storage& st : storages) {
        const Stored<T> Bs(B, k, n, st.b_layout, st.b_pad, nan);
        const Array<T> dB(Bs.data, Space::Device);
        for (const T beta : {T{0}, T{-0.5}}) {
          const T alpha = T{1.5};
          const std::string what =
              fmt::format("{}, n={} B {} C {}, beta={} seed={}", name, n, layout_name(st.b_layout),
                          layout_name(st.c_layout), beta, seed);
          if (!spmm_matches(product, alpha, beta, C0, st, Space::Device, what, [&](DenseView<T> C) {
                SpmmOptions opts;
                opts.algorithm = Algorithm::RowSplit;
                const RunInfo info =
                    spmm(alpha, dA, Bs.view(dB.data(), Space::Device), beta, C, opts);
                EXPECT_EQ(info.algorithm, Algorithm::RowSplit) << what;
              }))
            return;
          ++ran;
        }
      }
    }
  }
  EXPECT_EQ(ran, static_cast<int>(matrices.size() * widths.size() * storages.size() * 2));
}

/// Deterministic GPU kernels give bitwise identical results run to run
/// (the merge-based kernel's partition is cached after the first run).
TYPED_TEST(SpmmKernels, CudaDeterministicKernelsRepeat) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto& registry = Registry<T, I>::instance();
  for (auto& [name, A] : handmade_matrices<T, I>()) {
    if (A.nnz() == 0) continue;
    const Csr<T, I> dA = A.to(Space::Device);
    for (const std::int64_t n : {std::int64_t{3}, std::int64_t{40}}) {
      const auto B = random_values<T>(A.cols() * n, fresh_seed());
      const Array<T> dB = Array<T>(B).to(Space::Device);
      for (const auto& kernel : registry.spmm_kernels()) {
        if (kernel.info.backend != Backend::Cuda || kernel.info.format != Format::Csr ||
            !kernel.info.deterministic || kernel.info.baseline)
          continue;
        std::vector<T> first;
        for (int rep = 0; rep < 2; ++rep) {
          Array<T> dC(static_cast<std::size_t>(A.rows() * n), Space::Device);
          SpmmOptions opts;
          opts.algorithm = kernel.info.algorithm;
          spmm(T{1}, dA,
               DenseView<const T>{dB.data(), A.cols(), n, n, Layout::RowMajor, Space::Device}, T{0},
               DenseView<T>{dC.data(), A.rows(), n, n, Layout::RowMajor, Space::Device}, opts);
          if (rep == 0) {
            first = dC.to_vector();
          } else {
            const auto second = dC.to_vector();
            EXPECT_TRUE(first.empty() ||
                        std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) == 0)
                << name << " " << to_string(kernel.info.algorithm) << " n=" << n;
          }
        }
      }
    }
  }
}

/// The CUDA Auto rule (src/cuda/spmm.hpp): row split for few rows (rows ×
/// 32 within one wave of the device, no row over 1024; never without a
/// device), merge-based for irregular rows (longest > 8·mean + 64) and for
/// short rows with n ≤ 16 (mean below 5.5, or below the paper's 9.35 when
/// the matrix does not fit in L2) unless row split takes row groups there
/// (cuda::spmm_row_groups: large matrices, on a device), row panel for n > 16 where its plan finds
/// it worth it, row split otherwise (checked on the host: no GPU needed).
TYPED_TEST(SpmmKernels, CudaAutoRuleFollowsRowLengths) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  if (!cuda_compiled()) GTEST_SKIP() << "CUDA backend not compiled";
  const auto& registry = Registry<T, I>::instance();
  // handmade_matrices has irregular members ("dense-row": one row of 5000).
  auto matrices = handmade_matrices<T, I>();
  int irregular = 0;
  for (auto& [name, A] : matrices) {
    if (A.rows() == 0) continue;
    const double mean = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
    std::int64_t longest = 0;
    for (std::int64_t i = 0; i < A.rows(); ++i)
      longest = std::max<std::int64_t>(
          longest, static_cast<std::int64_t>(A.row_ptr().data()[i + 1] - A.row_ptr().data()[i]));
    const bool irregular_rows = static_cast<double>(longest) > 8 * mean + 64;
    irregular += irregular_rows ? 1 : 0;
    for (const std::int64_t n : {8, 32, 64}) {
      Algorithm want = Algorithm::RowSplit;
#if SPX_HAVE_CUDA
      const bool few = cuda::few_rows(A.rows(), longest);
      const bool cached = cuda::fits_l2(static_cast<std::int64_t>(A.bytes()));
      // SpmmShape{n}: row-major B and C, so the vector groups fit.
      const int vec = sizeof(T) == 4 ? 4 : 2;
      const bool split_groups = cuda::spmm_vector_groups(n, vec, true, false, A.rows(), mean) > 0;
      const bool merge_groups = cuda::spmm_vector_groups(n, vec, true, true, A.rows(), mean) > 0;
      const bool row_groups = cuda::spmm_row_groups(A.rows(), A.nnz(), longest, n, vec,
                                                    n % vec == 0, cuda::auto_device().sms);
      if (!few) {
        if (irregular_rows || (merge_groups && mean < 4.0) ||
            (n <= 16 && !row_groups && (mean < 5.5 || (mean < 9.35 && !cached))))
          want = Algorithm::MergeBased;
        // Row panel where its plan says so (the plan: test_cuda_spmm_panel.cpp),
        // or panel_beats_groups where row split takes vector groups.
        if (!irregular_rows && n > 16) {
          const cuda::PanelPlan plan = cuda::panel_plan(A, n);
          if (split_groups ? cuda::panel_beats_groups(plan.ratio, mean, cuda::few_warps(plan.warps))
                           : plan.worth_it)
            want = Algorithm::RowPanel;
        }
      }
      if (cuda_available()) {
        EXPECT_EQ(few, A.rows() * 32 <= cuda::resident_threads() && longest <= 1024) << name;
      } else {
        EXPECT_FALSE(few) << name << ": no device, no few-rows rule";
      }
#endif
      EXPECT_EQ(registry.choose_spmm(MatrixRef<T, I>{&A}, Backend::Cuda, SpmmShape{n}), want)
          << name << " n=" << n;
    }
  }
  EXPECT_GE(irregular, 1);
}

TYPED_TEST(SpmmKernels, AutoReportsTheKernelThatRan) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : handmade_matrices<T, I>()) {
    const std::int64_t n = 5;
    const auto B = random_values<T>(A.cols() * n, 7);
    std::vector<T> C(static_cast<std::size_t>(std::max<std::int64_t>(1, A.rows() * n)),
                     std::numeric_limits<T>::quiet_NaN());
    const RunInfo info =
        spmm(T{1}, A, DenseView<const T>{B.data(), A.cols(), n, n, Layout::RowMajor, Space::Host},
             T{0}, DenseView<T>{C.data(), A.rows(), n, n, Layout::RowMajor, Space::Host});
    EXPECT_NE(info.algorithm, Algorithm::Auto) << name;
    EXPECT_EQ(info.format, Format::Csr) << name;
    EXPECT_EQ(info.backend, Backend::Cpu) << name;
    EXPECT_EQ(info.trivial, A.rows() == 0 || A.nnz() == 0) << name;
    for (std::int64_t e = 0; e < A.rows() * n; ++e)
      ASSERT_FALSE(std::isnan(C[e])) << name;
  }
}

TYPED_TEST(SpmmKernels, ValidatesOperands) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto mats = handmade_matrices<T, I>();
  const auto it = std::ranges::find(mats, std::string("wide-40x3000"), &TestMatrix<T, I>::name);
  ASSERT_NE(it, mats.end());
  const auto& A = it->A;
  const std::int64_t n = 4;
  std::vector<T> B(3000 * n, T{1}), C(40 * n, T{0});
  const auto bview = [&](std::int64_t rows, std::int64_t cols, std::int64_t ld,
                         Layout l = Layout::RowMajor, Space s = Space::Host) {
    return DenseView<const T>{B.data(), rows, cols, ld, l, s};
  };
  const auto cview = [&](std::int64_t rows, std::int64_t cols, std::int64_t ld,
                         Layout l = Layout::RowMajor, Space s = Space::Host) {
    return DenseView<T>{C.data(), rows, cols, ld, l, s};
  };
  // Shapes: the message names all three.
  try {
    spmm(T{1}, A, bview(2999, n, n), T{0}, cview(40, n, n));
    ADD_FAILURE() << "expected DimensionMismatch";
  } catch (const DimensionMismatch& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("40x3000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2999x4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("40x4"), std::string::npos) << msg;
  }
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, n), T{0}, cview(39, n, n)), DimensionMismatch);
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, n), T{0}, cview(40, n - 1, n)), DimensionMismatch);
  // Leading dimensions.
  try {
    spmm(T{1}, A, bview(3000, n, n - 1), T{0}, cview(40, n, n));
    ADD_FAILURE() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("leading dimension"), std::string::npos) << e.what();
  }
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, 2999, Layout::ColMajor), T{0}, cview(40, n, n)),
               InvalidInput);
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, n), T{0}, cview(40, n, 39, Layout::ColMajor)),
               InvalidInput);
  EXPECT_NO_THROW(spmm(T{1}, A, bview(3000, 1, 3000, Layout::ColMajor), T{0}, cview(40, 1, 1)));
  // Spaces and pointers.
  EXPECT_THROW(
      spmm(T{1}, A, bview(3000, n, n, Layout::RowMajor, Space::Device), T{0}, cview(40, n, n)),
      InvalidInput);
  EXPECT_THROW(
      spmm(T{1}, A, bview(3000, n, n), T{0}, cview(40, n, n, Layout::RowMajor, Space::Device)),
      InvalidInput);
  EXPECT_THROW(spmm(T{1}, A, DenseView<const T>{nullptr, 3000, n, n}, T{0}, cview(40, n, n)),
               InvalidInput);
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, n), T{0}, DenseView<T>{nullptr, 40, n, n}),
               InvalidInput);
  // Overlapping B and C.
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, n), T{0},
                    DenseView<T>{B.data() + 8, 40, n, n, Layout::RowMajor, Space::Host}),
               InvalidInput);
  // A GPU algorithm on a host matrix; an SpMV-only algorithm.
  SpmmOptions bad;
  bad.algorithm = Algorithm::RowSplit;
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, n), T{0}, cview(40, n, n), bad), Unsupported);
  bad.algorithm = Algorithm::Scalar;
  EXPECT_THROW(spmm(T{1}, A, bview(3000, n, n), T{0}, cview(40, n, n), bad), Unsupported);
}

TYPED_TEST(SpmmKernels, TrivialCases) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  auto mats = handmade_matrices<T, I>();
  const auto find = [&](const char* name) -> const Csr<T, I>& {
    const auto it = std::ranges::find(mats, std::string(name), &TestMatrix<T, I>::name);
    EXPECT_NE(it, mats.end()) << name;
    return it->A;
  };
  // n = 0: nothing to do, null pointers allowed.
  const auto& A = find("tall-3000x40");
  RunInfo info =
      spmm(T{1}, A, DenseView<const T>{nullptr, 40, 0, 0}, T{0}, DenseView<T>{nullptr, 3000, 0, 0});
  EXPECT_TRUE(info.trivial);
  // No entries, beta = 0: C becomes zero (NaN does not leak), padding kept.
  const auto& E = find("5x5-no-entries");
  const std::int64_t n = 3, ld = 7;
  std::vector<T> B(5 * n, T{1}), C(5 * ld, nan);
  info =
      spmm(T{2}, E, DenseView<const T>{B.data(), 5, n, n}, T{0}, DenseView<T>{C.data(), 5, n, ld});
  EXPECT_TRUE(info.trivial);
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < ld; ++j) {
      if (j < n) {
        EXPECT_EQ(C[i * ld + j], T{0});
      } else {
        EXPECT_TRUE(std::isnan(C[i * ld + j]));
      }
    }
  // alpha = 0: C = beta*C, column-major with padding.
  const std::int64_t ldc = 3010;
  std::vector<T> B2(40 * n, nan), C2(ldc * n, T{3});
  info = spmm(T{0}, A, DenseView<const T>{B2.data(), 40, n, 40, Layout::ColMajor}, T{-2},
              DenseView<T>{C2.data(), 3000, n, ldc, Layout::ColMajor});
  EXPECT_TRUE(info.trivial);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < ldc; ++i)
      EXPECT_EQ(C2[i + j * ldc], i < 3000 ? T{-6} : T{3});
  // The GEMM baseline refuses a matrix whose dense copy would be too large,
  // naming the size (checked on the host; the kernel exists when CUDA is
  // compiled in).
  if (const auto* gemm = Registry<T, I>::instance().find_spmm(
          Format::Csr, spx::baselines::CublasGemm, Backend::Cuda)) {
    const Csr<T, I> huge(I{1} << 20, I{1} << 20,
                         Array<I>(std::vector<I>((std::size_t{1} << 20) + 1, I{0})), Array<I>(),
                         Array<T>());
    const std::string reason = gemm->can_run(MatrixRef<T, I>{&huge}, SpmmShape{8});
    EXPECT_NE(reason.find("bytes"), std::string::npos) << reason;
  }
}

}  // namespace
}  // namespace spx::test

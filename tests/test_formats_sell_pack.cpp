// SELL-pack (SELL-C-σ with 16-bit column offsets per slice): the layout of a
// small example with packed and fallback slices worked out by hand, the
// 65535 / 65536 span edge, a matrix whose slices all fall back, exact round
// trips through CSR under several (C, σ, threads_per_row), re-validation of
// every conversion's output, validation messages, option refusals, every
// kernel (CPU, and CUDA when a GPU is present) against the reference with
// NaN-poisoned outputs on matrices that mix packed and fallback slices and
// have empty rows and a row count that is no multiple of C, SpMM against
// CSR's, and the advisor's footprint. The generic kernel tests
// (test_spmv.cpp, test_spmm.cpp) run SELL-pack on every test matrix as well.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "cuda_common.hpp"
#include "reference.hpp"
#include "spx/advisor.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(SellPackFormat);

/// A host CSR whose row r holds the columns rows[r] (sorted, distinct), with
/// random values in ±[0.5, 1.5].
template <Value T, Index I>
Csr<T, I> csr_of(std::int64_t cols, const std::vector<std::vector<std::int64_t>>& rows,
                 std::uint64_t seed) {
  std::vector<I> ptr{0}, col;
  for (const auto& r : rows) {
    for (std::int64_t c : r)
      col.push_back(static_cast<I>(c));
    ptr.push_back(static_cast<I>(col.size()));
  }
  const auto val = random_values<T>(static_cast<std::int64_t>(col.size()), seed);
  return Csr<T, I>(static_cast<I>(rows.size()), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// `n` rows over `cols` columns: row r local (a few columns near r·cols/n)
/// except where far(r) adds column 0 and cols − 1, and empty where empty(r).
template <Value T, Index I, class Far, class Empty>
Csr<T, I> mixed(std::int64_t n, std::int64_t cols, std::uint64_t seed, Far far, Empty empty) {
  std::mt19937_64 gen(seed);
  std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) {
    auto& row = rows[static_cast<std::size_t>(r)];
    if (empty(r)) continue;
    const std::int64_t near = r * (cols - 64) / n + 16;
    const std::int64_t len = 1 + static_cast<std::int64_t>(gen() % 9);
    if (far(r)) row.push_back(0);
    for (std::int64_t j = 0; j < len; ++j)
      row.push_back(near + j * 3);
    if (far(r)) row.push_back(cols - 1);
  }
  return csr_of<T, I>(cols, rows, seed + 1);
}

/// Re-builds m through the validating constructor.
template <Value T, Index I>
void revalidate(const SellPack<T, I>& m) {
  SellPack<T, I>(static_cast<I>(m.rows()), static_cast<I>(m.cols()), m.slice_size(), m.sigma(),
                 m.threads_per_row(), m.slice_ptr().clone(), m.slice_width().clone(),
                 m.slice_base().clone(), m.pack_ptr().clone(), m.col16().clone(),
                 m.col_idx().clone(), m.values().clone(), m.row_len().clone(), m.perm().clone());
}

template <Value T, Index I>
std::int64_t fallback_slices(const SellPack<T, I>& m) {
  std::int64_t n = 0;
  for (I b : m.slice_base().to_vector())
    n += b < 0;
  return n;
}

ConvertOptions options(int C, int sigma, int tpr) {
  ConvertOptions o;
  o.slice_size = C;
  o.sigma = sigma;
  o.threads_per_row = tpr;
  return o;
}

// ---- layout --------------------------------------------------------------------

TYPED_TEST(SellPackFormat, LayoutOfPackedAndFallbackSlices) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // C = 2, five rows: slice 0 local around 1000, slice 1 spans 0..199999
  // (fallback), slice 2 a single row (one empty slot) at 150000.
  const Csr<T, I> A = csr_of<T, I>(
      200000, {{1000, 1002, 1010}, {1001}, {0, 5}, {199999}, {150000, 150007}}, fresh_seed());
  const SellPack<T, I> P = to_sell_pack(A, options(2, 1, 1));
  EXPECT_EQ(P.num_slices(), 3);
  EXPECT_EQ(P.slice_base().to_vector(), (std::vector<I>{1000, -1, 150000}));
  EXPECT_EQ(P.slice_ptr().to_vector(), (std::vector<I>{0, 6, 10, 14}));
  EXPECT_EQ(P.pack_ptr().to_vector(), (std::vector<I>{0, 6, 6, 10}));
  // Slice 0 column-major: row 0 (0, 2, 10), row 1 (1, pad 0, pad 0).
  // Slice 2: row 4 (0, 7), empty slot (0, 0).
  EXPECT_EQ(P.col16().to_vector(), (std::vector<std::uint16_t>{0, 1, 2, 0, 10, 0, 0, 0, 7, 0}));
  // Slice 1: row 2 (0, 5), row 3 (199999, pad = its last column).
  EXPECT_EQ(P.col_idx().to_vector(), (std::vector<I>{0, 199999, 5, 199999}));
  EXPECT_EQ(P.packed(), 10);
  EXPECT_EQ(P.stored(), 14);
  EXPECT_EQ(P.nnz(), A.nnz());
  EXPECT_EQ(P.bytes(), 14 * sizeof(T) + 10 * 2 + 4 * sizeof(I) + (4 + 3 + 3 + 4 + 5) * sizeof(I));
  revalidate(P);
  expect_same_csr(to_csr(P), A, "round trip");
  // SELL's arrays are the same, array for array.
  const Sell<T, I> S = to_sell(A, options(2, 1, 1));
  expect_bitwise_equal(P.values(), S.values(), "values");
  EXPECT_EQ(P.row_len().to_vector(), S.row_len().to_vector());
  EXPECT_EQ(P.slice_width().to_vector(), S.slice_width().to_vector());
}

// The example drawn in docs/formats.md.
TYPED_TEST(SellPackFormat, DocsExample) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = csr_of<T, I>(4, {{0, 2}, {}, {0, 1, 2, 3}, {1, 3}}, 5);
  const SellPack<T, I> P = to_sell_pack(A, options(2, 4, 1));
  EXPECT_EQ(P.slice_base().to_vector(), (std::vector<I>{0, 1}));
  EXPECT_EQ(P.pack_ptr().to_vector(), (std::vector<I>{0, 8, 12}));
  EXPECT_EQ(P.col16().to_vector(),
            (std::vector<std::uint16_t>{0, 0, 1, 2, 2, 0, 3, 0, 0, 0, 2, 0}));
  EXPECT_TRUE(P.col_idx().empty());
  EXPECT_EQ(P.perm().to_vector(), (std::vector<I>{2, 0, 3, 1}));
  if (sizeof(T) == 8 && sizeof(I) == 4) {
    EXPECT_EQ(P.bytes(), 192u);
    EXPECT_EQ(to_sell(A, options(2, 4, 1)).bytes(), 196u);
  }
  revalidate(P);
  expect_same_csr(to_csr(P), A, "docs example");
}

TYPED_TEST(SellPackFormat, SpanOf65535PacksAnd65536FallsBack) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  // Slice 0 (rows 0-31): columns 7 and 7 + 65535 in different rows.
  // Slice 1 (rows 32-63): 3 and 3 + 65536 in one row (and row 63 within).
  std::vector<std::vector<std::int64_t>> rows(64);
  rows[5] = {7};
  rows[20] = {100, 7 + 65535};
  rows[40] = {3, 3 + 65536};
  rows[63] = {65536};
  const Csr<T, I> A = csr_of<T, I>(70000 + 1, rows, seed);
  const SellPack<T, I> P = to_sell_pack(A);
  EXPECT_EQ(P.slice_base().to_vector(), (std::vector<I>{7, -1}));
  EXPECT_EQ(P.col16().to_vector()[20 + 32], 65535);  // row 20's second entry
  revalidate(P);
  expect_same_csr(to_csr(P), A, "round trip");
  const auto x = random_values<T>(A.cols(), seed + 2);
  const auto y0 = random_values<T>(A.rows(), seed + 3);
  const Product p = reference::product(A, std::span<const T>(x));
  matches_over_grid(kScalars, p, y0, "span edge", on_host(P, x),
                    reports_kernel(KernelInfo{
                        Op::Spmv,
                        Format::SellPack,
                        Algorithm::CpuRows,
                        Backend::Cpu,
                    }));
}

TYPED_TEST(SellPackFormat, AllSlicesFallBack) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  const Csr<T, I> A = mixed<T, I>(
      100, 300000, seed, [](std::int64_t r) { return r % 32 == 3; },
      [](std::int64_t r) { return r % 7 == 0; });
  const SellPack<T, I> P = to_sell_pack(A);
  EXPECT_EQ(fallback_slices(P), P.num_slices());
  EXPECT_EQ(P.packed(), 0);
  EXPECT_TRUE(P.col16().empty());
  EXPECT_EQ(static_cast<std::int64_t>(P.col_idx().size()), P.stored());
  revalidate(P);
  expect_same_csr(to_csr(P), A, "round trip");
  const auto x = random_values<T>(A.cols(), seed + 2);
  const auto y0 = random_values<T>(A.rows(), seed + 3);
  const Product p = reference::product(A, std::span<const T>(x));
  matches_over_grid(kScalars, p, y0, "all fallback", on_host(P, x), [](const RunInfo&, auto&) {});
}

TYPED_TEST(SellPackFormat, EmptyMatrixAndEmptySlices) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> Z = csr_of<T, I>(10, std::vector<std::vector<std::int64_t>>(40), 1);
  const SellPack<T, I> P = to_sell_pack(Z);
  EXPECT_EQ(P.slice_base().to_vector(), (std::vector<I>{0, 0}));
  EXPECT_EQ(P.stored(), 0);
  revalidate(P);
  expect_same_csr(to_csr(P), Z, "empty");
  const Csr<T, I> none = csr_of<T, I>(5, {}, 1);
  const SellPack<T, I> Q = to_sell_pack(none);
  EXPECT_EQ(Q.num_slices(), 0);
  revalidate(Q);
  expect_same_csr(to_csr(Q), none, "no rows");
}

// ---- round trips and products under many parameters -----------------------------

TYPED_TEST(SellPackFormat, RoundTripsAndProductsMatchTheReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  // 1001 rows (no multiple of any C below), every 5th slice of 32 rows with a
  // far row, empty rows every 11th.
  const Csr<T, I> A = mixed<T, I>(
      1001, 200000, seed, [](std::int64_t r) { return (r / 32) % 5 == 2 && r % 32 == 9; },
      [](std::int64_t r) { return r % 11 == 4; });
  const auto x = random_values<T>(A.cols(), seed + 2);
  const auto y0 = random_values<T>(A.rows(), seed + 3);
  const Product p = reference::product(A, std::span<const T>(x));
  struct Params {
    int C, sigma, tpr;
  };
  for (const Params q : {Params{32, 1, 1}, Params{32, 64, 1}, Params{32, 32, 4}, Params{7, 14, 3},
                         Params{1, 1, 1}, Params{64, 128, 2}, Params{5, 1, 1}}) {
    const std::string what = fmt::format("C={} sigma={} tpr={}", q.C, q.sigma, q.tpr);
    SCOPED_TRACE(what);
    const SellPack<T, I> P = to_sell_pack(A, options(q.C, q.sigma, q.tpr));
    EXPECT_GT(fallback_slices(P), 0);
    EXPECT_LT(fallback_slices(P), P.num_slices());
    revalidate(P);
    expect_same_csr(to_csr(P), A, what);
    EXPECT_TRUE(matches_over_grid(kScalars, p, y0, what, on_host(P, x),
                                  [](const RunInfo& info, const std::string& w) {
                                    EXPECT_EQ(info.format, Format::SellPack) << w;
                                  }));
    // SpMM (row- and column-major B) against CSR's.
    for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
      const std::int64_t n = 5, m = A.rows(), k = A.cols();
      const auto B = random_values<T>(k * n, seed + 4);
      std::vector<T> C1(static_cast<std::size_t>(m * n), std::numeric_limits<T>::quiet_NaN());
      std::vector<T> C2 = C1;
      const std::int64_t ldb = layout == Layout::RowMajor ? n : k;
      const std::int64_t ldc = layout == Layout::RowMajor ? n : m;
      const DenseView<const T> Bv{B.data(), k, n, ldb, layout, Space::Host};
      spmm(T{2}, P, Bv, T{0}, DenseView<T>{C1.data(), m, n, ldc, layout, Space::Host});
      spmm(T{2}, A, Bv, T{0}, DenseView<T>{C2.data(), m, n, ldc, layout, Space::Host});
      const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
      for (std::size_t i = 0; i < C1.size(); ++i)
        ASSERT_LE(std::fabs(C1[i] - C2[i]), tol * (1 + std::fabs(C2[i])))
            << what << " SpMM entry " << i;
    }
  }
}

// ---- validation -------------------------------------------------------------------

TYPED_TEST(SellPackFormat, ValidationNamesTheBrokenArray) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = csr_of<T, I>(200000, {{1000, 1002}, {1001}, {0, 5}, {199999}}, 3);
  const SellPack<T, I> P = to_sell_pack(A, options(2, 1, 1));
  struct Edit {
    std::function<void(std::vector<I>& base, std::vector<I>& pptr, std::vector<std::uint16_t>& c16)>
        f;
    std::vector<std::string_view> parts;
  };
  const std::vector<Edit> edits = {
      {[](auto& base, auto&, auto&) { base[0] = -2; }, {"slice_base[0] = -2"}},
      {[](auto& base, auto&, auto&) { base[1] = 0; }, {"pack_ptr[2] - pack_ptr[1]"}},
      {[](auto& base, auto&, auto&) { base[0] = 199999; }, {"col16[", "out of range"}},
      {[](auto&, auto& pptr, auto&) { pptr[0] = 1; }, {"pack_ptr[0] = 1"}},
      {[](auto&, auto&, auto& c16) { c16[2] = 0; }, {"not strictly increasing"}},
  };
  for (const auto& e : edits) {
    std::vector<I> base = P.slice_base().to_vector(), pptr = P.pack_ptr().to_vector();
    std::vector<std::uint16_t> c16 = P.col16().to_vector();
    e.f(base, pptr, c16);
    const std::string msg = message_of([&] {
      SellPack<T, I>(static_cast<I>(P.rows()), static_cast<I>(P.cols()), 2, 1, 1,
                     P.slice_ptr().clone(), P.slice_width().clone(), Array<I>(base), Array<I>(pptr),
                     Array<std::uint16_t>(c16), P.col_idx().clone(), P.values().clone(),
                     P.row_len().clone(), Array<I>());
    });
    EXPECT_CONTAINS(msg, "SELL_PACK");
    for (auto part : e.parts)
      EXPECT_CONTAINS(msg, part);
  }
  expect_error([&] { to_sell_pack(A, options(0, 1, 1)); }, {"slice_size"});
  expect_error([&] { to_sell_pack(A, options(4, 6, 1)); }, {"sigma = 6"});
}

// ---- the advisor's footprint ------------------------------------------------------

TYPED_TEST(SellPackFormat, AdvisorFootprintIsTheConversionsBytes) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  for (const bool far : {false, true}) {
    const Csr<T, I> A = mixed<T, I>(
        500, 100000, seed, [far](std::int64_t r) { return far && r % 3 == 0; },
        [](std::int64_t r) { return r % 13 == 0; });
    const Advice adv =
        advise(A, Workload{},
               AdvisorOptions{.backend = Backend::Cpu, .bandwidth_gbs = 10, .compute_scale = 1});
    std::int64_t predicted = -1, sell = -1;
    for (const Candidate& c : adv.candidates) {
      if (c.format == Format::SellPack) predicted = c.bytes;
      if (c.format == Format::Sell) sell = c.bytes;
    }
    const SellPack<T, I> P = to_sell_pack(A);
    EXPECT_EQ(predicted, static_cast<std::int64_t>(P.bytes())) << "far rows: " << far;
    if (far)
      EXPECT_GT(predicted, sell);
    else
      EXPECT_LT(predicted, sell);
  }
}

// ---- the GPU ----------------------------------------------------------------------

TYPED_TEST(SellPackFormat, CudaKernelsMatchTheReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  const Csr<T, I> A = mixed<T, I>(
      2001, 300000, seed, [](std::int64_t r) { return (r / 32) % 3 == 1 && r % 32 == 30; },
      [](std::int64_t r) { return r % 9 == 2; });
  const auto x = random_values<T>(A.cols(), seed + 2);
  const auto y0 = random_values<T>(A.rows(), seed + 3);
  const Product p = reference::product(A, std::span<const T>(x));
  const auto kernels = cuda_kernels<T, I>(Format::SellPack);
  ASSERT_EQ(kernels.size(), 2u);
  struct Params {
    int C, sigma, tpr;
  };
  for (const Params q : {Params{32, 1, 1}, Params{32, 128, 4}, Params{7, 7, 3}, Params{16, 1, 32},
                         Params{64, 64, 2}, Params{1, 1, 1}}) {
    const std::string what = fmt::format("C={} sigma={} tpr={}", q.C, q.sigma, q.tpr);
    // The device conversion of a device CSR, which must equal the host's
    // (test_cuda_convert.cpp checks it array by array).
    const SellPack<T, I> dP = to_sell_pack(A.to(Space::Device), options(q.C, q.sigma, q.tpr));
    EXPECT_EQ(dP.space(), Space::Device);
    const SellPack<T, I> hP = dP.to(Space::Host);
    EXPECT_GT(fallback_slices(hP), 0) << what;
    EXPECT_LT(fallback_slices(hP), hP.num_slices()) << what;
    for (const auto* k : kernels) {
      EXPECT_TRUE(matches_over_grid(kScalars, p, y0,
                                    fmt::format("{} {}", what, to_string(k->info.algorithm)),
                                    on_device(dP, k->info.algorithm, x), reports_kernel(k->info)));
    }
  }
}

}  // namespace
}  // namespace spx::test

// CUDA backend tests: device arrays, errors, streams, preprocessing reuse,
// reproducibility, and the kernels on larger matrices that stress the launch
// geometry (many blocks and warps, one row spanning many blocks, long runs of
// empty rows), with cuSPARSE as a second reference. Every test needs a GPU:
// it skips without one, and fails instead when SPX_REQUIRE_GPU=1.
// SPX_TEST_SMALL=1 shrinks the larger matrices (for compute-sanitizer runs).
// (test_spmv.cpp checks every registered kernel on the shared test matrices.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#if SPX_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda/kernels.hpp"
#endif

#include "baselines/baselines.hpp"
#include "common.hpp"
#include "core/backend.hpp"
#include "cuda_common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/batch/batch_csr.hpp"
#include "spx/batch/ops.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaKernels);

/// Matrices that stress the CUDA launch geometry (host CSR).
template <Value T, Index I>
std::vector<TestMatrix<T, I>> stress_matrices() {
  const std::int64_t s = small_tests() ? 10 : 1;  // shrink factor
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 gen(seed);
  std::vector<TestMatrix<T, I>> out;
  const auto add = [&](std::string name, std::int64_t cols, std::vector<std::int64_t> lengths) {
    out.push_back({std::move(name), csr_with_lengths<T, I>(cols, lengths, seed + out.size())});
  };
  {  // power-law rows, a third of them empty
    const std::int64_t n = 30000 / s;
    std::vector<std::int64_t> len(n);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (auto& l : len)
      l = u(gen) < 0.35 ? 0
                        : std::min<std::int64_t>(
                              n / 2, static_cast<std::int64_t>(std::pow(1.0 - u(gen), -1.0 / 1.2)));
    len[n / 3] = n / 2;  // a hub
    add("power-law", n, len);
  }
  {  // one row holding almost every entry, spanning many blocks and warps
    std::vector<std::int64_t> len(2000 / s);
    for (std::size_t i = 0; i < len.size(); ++i)
      len[i] = static_cast<std::int64_t>(gen() % 3);
    len[len.size() / 2] = 250000 / s;
    add("huge-row", 300000 / s, len);
  }
  {  // the same without empty rows
    std::vector<std::int64_t> len(2000 / s);
    for (std::size_t i = 0; i < len.size(); ++i)
      len[i] = 1 + static_cast<std::int64_t>(gen() % 3);
    len[len.size() / 2] = 250000 / s;
    add("huge-row-no-empty", 300000 / s, len);
  }
  // few long rows
  add("long-rows", 50000 / s, std::vector<std::int64_t>(40, 20000 / s));
  {  // long runs of empty rows
    std::vector<std::int64_t> len(200000 / s, 0);
    len.front() = len[len.size() / 2] = len.back() = 100;
    add("empty-runs", 1000, len);
  }
  {  // rows of one or two entries (none empty: nearly every entry starts a row)
    std::vector<std::int64_t> len(100000 / s);
    for (auto& l : len)
      l = 1 + static_cast<std::int64_t>(gen() % 2);
    add("short-rows", 100000 / s, len);
  }
  {  // one giant row among a million empty ones (binned: a split row)
    std::vector<std::int64_t> len(1000000 / s, 0);
    len[len.size() / 3] = 100000 / s;
    add("giant-row-among-empty", 200000 / s, len);
  }
  {  // every row empty but one short one
    std::vector<std::int64_t> len(50000 / s, 0);
    len[len.size() - 7] = 9;
    add("one-nonempty-row", 1000, len);
  }
  {  // lengths at the edges of warps, sub-warp batches and binned chunks
    std::vector<std::int64_t> len;
    for (int rep = 0; rep < 40; ++rep)
      for (const std::int64_t l :
           {31, 32, 33, 7, 8, 15, 16, 63, 64, 511, 512, 513, 1023, 1024, 1025, 0})
        len.push_back(l);
    add("edge-lengths", 3000, len);
    std::erase(len, 0);
    add("edge-lengths-no-empty", 3000, len);
  }
  {  // rows starting exactly at multiples of 1024 and 2048 entries (block
     // edges of nonzero split), empty rows there among them
    std::vector<std::int64_t> len;
    for (int rep = 0; rep < 12; ++rep)
      for (const std::int64_t l : {2048, 1024, 1024, 0, 0, 2048, 5, 2043, 0, 4096, 1, 2047})
        len.push_back(l);
    add("block-edges", 5000, len);
    std::erase(len, 0);  // nonzero split's counted marks
    add("block-edges-no-empty", 5000, len);
  }
  // 2D 5-point stencil (regular, ~5 per row)
  out.push_back(
      {"stencil-5pt",
       generated<T, I>(fmt::format("stencil2d:n={},points=5", small_tests() ? 50 : 150), seed + 99)
           .A});
  return out;
}

// ---- kernels on the stress matrices -------------------------------------------

TYPED_TEST(CudaKernels, StressMatricesMatchReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : stress_matrices<T, I>()) {
    const std::uint64_t seed = fresh_seed();
    const auto x = random_values<T>(A.cols(), seed);
    const auto y0 = random_values<T>(A.rows(), seed + 1);
    const Product product = reference::product(A, std::span<const T>(x));
    const auto check = [&](const auto& dM, Format f) {
      for (const auto* k : cuda_kernels<T, I>(f))
        matches_over_grid(
            kScalars.first(2), product, y0,
            fmt::format("{} {}/{} seed={}", name, to_string(f), to_string(k->info.algorithm), seed),
            on_device(dM, k->info.algorithm, x), reports_kernel(k->info));
    };
    check(A.to(Space::Device), Format::Csr);
    check(to_coo(A).to(Space::Device), Format::Coo);
  }
}

/// Every CUDA CSR kernel on dA gives ref = 1*A*x - 2*y0.
template <Value T, Index I>
void expect_csr_kernels_match(const Csr<T, I>& dA, const std::vector<T>& x,
                              const std::vector<T>& y0, const reference::Expected<T>& ref,
                              const std::string& label) {
  for (const auto* k : cuda_kernels<T, I>(Format::Csr, false))
    EXPECT_EQ(expect_matches(device_spmv(dA, k->info.algorithm, T{1}, x, T{-2}, y0), ref,
                             fmt::format("{} {}", to_string(k->info.algorithm), label)),
              0);
}

// A row longer than 2^24 entries (where a float loses integers and 24-bit
// counters wrap), among short rows, for every CUDA CSR kernel. 2^20 + 3
// entries under SPX_TEST_SMALL=1 (compute-sanitizer runs).
TYPED_TEST(CudaKernels, RowLongerThan2To24) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::int64_t giant =
      small_tests() ? (std::int64_t{1} << 20) + 3 : (std::int64_t{1} << 24) + 3;
  for (const int shortest : {0, 1}) {  // among empty rows, and without any
    std::vector<std::int64_t> len(4096);
    for (std::size_t i = 0; i < len.size(); ++i)
      len[i] = shortest + static_cast<std::int64_t>(i % 5);
    len[1234] = giant;
    const std::uint64_t seed = fresh_seed();
    const Csr<T, I> A = csr_with_lengths<T, I>(giant, len, seed);
    const auto x = random_values<T>(A.cols(), seed + 2);
    const auto y0 = random_values<T>(A.rows(), seed + 3);
    const Csr<T, I> dA = A.to(Space::Device);
    expect_csr_kernels_match(dA, x, y0, expected_spmv<T, I>(T{1}, A, x, T{-2}, y0),
                             fmt::format("shortest={} seed={}", shortest, seed));
  }
}

// A device CSR view whose column indices and values start one entry past an
// allocation (4 or 8 bytes off a 16-byte boundary): kernels that read with
// vector loads must fall back to narrower ones.
TYPED_TEST(CudaKernels, MisalignedViewsMatchReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 gen(seed);
  std::vector<std::int64_t> len(small_tests() ? 3000 : 30000);
  for (auto& l : len)
    l = 1 + static_cast<std::int64_t>(gen() % 40);
  len[len.size() / 3] = 20000;  // a row over several blocks
  const Csr<T, I> A = csr_with_lengths<T, I>(50000, len, seed);
  std::vector<I> col(A.col_idx().data(), A.col_idx().data() + A.nnz());
  std::vector<T> val(A.values().data(), A.values().data() + A.nnz());
  col.insert(col.begin(), I{0});
  val.insert(val.begin(), T{1});
  const Array<I> d_ptr = A.row_ptr().to(Space::Device);
  const Array<I> col_aligned = A.col_idx().to(Space::Device);
  const Array<T> val_aligned = A.values().to(Space::Device);
  const Array<I> col_shifted(col, Space::Device);  // entry 0 a dummy
  const Array<T> val_shifted(val, Space::Device);
  const auto n = static_cast<std::size_t>(A.nnz());
  const auto x = random_values<T>(A.cols(), seed + 2);
  const auto y0 = random_values<T>(A.rows(), seed + 3);
  const auto ref = expected_spmv<T, I>(T{1}, A, x, T{-2}, y0);
  // both arrays off a 16-byte boundary, or only one of them
  for (const auto& [col_off, val_off] : {std::pair{true, true}, {true, false}, {false, true}}) {
    const I* c = col_off ? col_shifted.data() + 1 : col_aligned.data();
    const T* v = val_off ? val_shifted.data() + 1 : val_aligned.data();
    const auto dA =
        Csr<T, I>::view(static_cast<I>(A.rows()), static_cast<I>(A.cols()),
                        std::span<const I>(d_ptr.data(), d_ptr.size()), std::span<const I>(c, n),
                        std::span<const T>(v, n), Space::Device);
    expect_csr_kernels_match(dA, x, y0, ref,
                             fmt::format("col_off={} val_off={} seed={}", col_off, val_off, seed));
  }
}

// An infinite x in a column that no row uses (column 0) must not reach y:
// slots past the matrix's last nonzero (nnz not a multiple of any tile) hold
// 0 (nonzero split reads x[0] there and selects 0). Every CSR kernel, on
// rows with and without empty ones (nonzero split's two forms of marks).
TYPED_TEST(CudaKernels, InfiniteXInAnUnusedColumnStaysOut) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const bool with_empty : {false, true}) {
    const std::uint64_t seed = fresh_seed();
    std::mt19937_64 gen(seed);
    const std::int64_t rows = 3001, cols = 5000;
    std::vector<I> ptr{0}, col;
    std::vector<T> val;
    const auto values = random_values<T>(10 * rows, seed + 1);
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t len = r + 1 == rows ? 3 : 1 + static_cast<std::int64_t>(gen() % 9);
      if (with_empty && r % 17 == 5) len = 0;
      const std::int64_t start = 1 + static_cast<std::int64_t>(gen() % (cols - 20));  // >= 1
      for (std::int64_t j = 0; j < len; ++j) {
        col.push_back(static_cast<I>(start + 2 * j));
        val.push_back(values[col.size() - 1]);
      }
      ptr.push_back(static_cast<I>(col.size()));
    }
    if (col.size() % 2048 == 0) {  // keep a partial last tile
      col.pop_back();
      val.pop_back();
      ptr.back() -= 1;
    }
    const Csr<T, I> A(static_cast<I>(rows), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                      Array<T>(val));
    auto x = random_values<T>(cols, seed + 2);
    x[0] = std::numeric_limits<T>::infinity();
    const auto y0 = random_values<T>(rows, seed + 3);
    expect_csr_kernels_match(A.to(Space::Device), x, y0, expected_spmv<T, I>(T{1}, A, x, T{-2}, y0),
                             fmt::format("empty rows: {}, seed={}", with_empty, seed));
  }
}

TYPED_TEST(CudaKernels, SpxKernelsAgreeWithCusparse) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto mats = all_test_matrices<T, I>();
  for (auto& m : stress_matrices<T, I>())
    mats.push_back(std::move(m));
  int compared = 0;
  for (auto& [name, A] : mats) {
    if (A.rows() == 0 || A.nnz() == 0) continue;
    const std::uint64_t seed = fresh_seed();
    const auto x = random_values<T>(A.cols(), seed);
    const auto y0 = random_values<T>(A.rows(), seed + 1);
    const Csr<T, I> dA = A.to(Space::Device);
    // Both results lie within the reference bound of the exact product, so
    // within twice the bound of each other.
    const auto ref = expected_spmv<T, I>(T{2}, A, x, T{-1}, y0);
    const auto base = device_spmv(dA, spx::baselines::CusparseCsrAlg2, T{2}, x, T{-1}, y0);
    for (const auto* k : cuda_kernels<T, I>(Format::Csr, false)) {
      const auto got = device_spmv(dA, k->info.algorithm, T{2}, x, T{-1}, y0);
      int bad = 0;
      for (std::size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(got[i] - base[i]) <= 2 * ref.bound[i]) && ++bad <= 3)
          ADD_FAILURE() << name << " " << to_string(k->info.algorithm) << ": y[" << i
                        << "] = " << got[i] << ", cuSPARSE CSR ALG2 " << base[i] << " seed "
                        << seed;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

TYPED_TEST(CudaKernels, DeterministicKernelsAreBitwiseReproducible) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : stress_matrices<T, I>()) {
    const auto x = random_values<T>(A.cols(), fresh_seed());
    const auto y0 = nan_vector<T>(A.rows());
    const Csr<T, I> dA = A.to(Space::Device);
    const Csr<T, I> dB = dA.clone();  // a fresh structure cache: plans built again
    for (const auto* k : cuda_kernels<T, I>(Format::Csr)) {
      if (!k->info.deterministic) continue;
      RunInfo info;
      const auto first = device_spmv(dA, k->info.algorithm, T{1}, x, T{0}, y0, &info);
      const auto second = device_spmv(dA, k->info.algorithm, T{1}, x, T{0}, y0);
      const auto other = device_spmv(dB, k->info.algorithm, T{1}, x, T{0}, y0);
      EXPECT_TRUE(info.deterministic) << name << " " << to_string(k->info.algorithm);
      EXPECT_TRUE(bitwise_equal(first, second)) << name << " " << to_string(k->info.algorithm);
      EXPECT_TRUE(bitwise_equal(first, other)) << name << " " << to_string(k->info.algorithm);
    }
  }
}

TYPED_TEST(CudaKernels, PreprocessingIsReusedAndSurvivesNewValues) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto mats = stress_matrices<T, I>();
  auto& A = mats.front().A;  // power-law
  Csr<T, I> dA = A.to(Space::Device);
  const auto x = random_values<T>(A.cols(), fresh_seed());
  const auto y0 = random_values<T>(A.rows(), fresh_seed());
  for (Algorithm a :
       {Algorithm::Balanced, Algorithm::MergePath, Algorithm::Binned, Algorithm::NonzeroSplit,
        spx::baselines::CusparseCsrAlg1, spx::baselines::CusparseCsrAlg2}) {
    const auto first = device_spmv(dA, a, T{1}, x, T{0.5}, y0);
    const auto again = device_spmv(dA, a, T{1}, x, T{0.5}, y0);
    EXPECT_EQ(expect_matches(again, expected_spmv<T, I>(T{1}, A, x, T{0.5}, y0),
                             std::string(to_string(a))),
              0);
    if (a != spx::baselines::CusparseCsrAlg1) {
      EXPECT_TRUE(bitwise_equal(first, again)) << to_string(a);
    }
  }
  // New values, same structure: the cached plans stay valid.
  const auto fresh = random_values<T>(A.nnz(), fresh_seed());
  std::copy(fresh.begin(), fresh.end(), A.values().begin());
  detail::copy_bytes(dA.values().data(), Space::Device, fresh.data(), Space::Host,
                     fresh.size() * sizeof(T));
  const auto ref = expected_spmv<T, I>(T{1}, A, x, T{0.5}, y0);
  for (Algorithm a :
       {Algorithm::Balanced, Algorithm::MergePath, Algorithm::Binned, Algorithm::NonzeroSplit,
        spx::baselines::CusparseCsrAlg1, spx::baselines::CusparseCsrAlg2})
    EXPECT_EQ(expect_matches(device_spmv(dA, a, T{1}, x, T{0.5}, y0), ref,
                             fmt::format("{} after new values", to_string(a))),
              0);
}

TYPED_TEST(CudaKernels, CscKernelsMatchReferenceAndSurviveNewValues) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Algorithm kernels[] = {Algorithm::ColumnScatter, Algorithm::Transposed,
                               spx::baselines::CusparseCsc};
  // Each stress matrix in CSC, and its transpose (the CSR arrays read as
  // CSC): long rows become long columns (huge-row: one column of most entries).
  std::vector<std::pair<std::string, Csc<T, I>>> cases;
  for (auto& [name, A] : stress_matrices<T, I>()) {
    cases.emplace_back(name, to_csc(A));
    cases.emplace_back(name + " transposed", Csc<T, I>(A.cols(), A.rows(), A.row_ptr().clone(),
                                                       A.col_idx().clone(), A.values().clone()));
  }
  for (auto& [name, C] : cases) {
    SCOPED_TRACE(name);
    const Csr<T, I> A = to_csr(C);
    Csc<T, I> dC = C.to(Space::Device);
    const auto x = random_values<T>(A.cols(), fresh_seed());
    const auto y0 = random_values<T>(A.rows(), fresh_seed());
    const auto ref = expected_spmv<T, I>(T{1.5}, A, x, T{-0.5}, y0);
    for (Algorithm a : kernels) {
      RunInfo info;
      const auto y = device_spmv(dC, a, T{1.5}, x, T{-0.5}, y0, &info);
      EXPECT_EQ(info.format, Format::Csc);
      EXPECT_EQ(info.algorithm, a);
      EXPECT_EQ(expect_matches(y, ref, fmt::format("{} {}", name, to_string(a))), 0);
    }
    // Transposed sums every row in a fixed order: the same bits every time.
    const auto once = device_spmv(dC, Algorithm::Transposed, T{1}, x, T{0}, y0);
    EXPECT_TRUE(bitwise_equal(once, device_spmv(dC, Algorithm::Transposed, T{1}, x, T{0}, y0)));
    // Auto on a device CSC reports what it ran.
    RunInfo info;
    (void)device_spmv(dC, Algorithm::Auto, T{1}, x, T{0}, y0, &info);
    EXPECT_EQ(info.algorithm, Algorithm::ColumnScatter);
    // New values, same structure: the cached transposition stays valid.
    const auto fresh = random_values<T>(C.nnz(), fresh_seed());
    std::copy(fresh.begin(), fresh.end(), C.values().begin());
    detail::copy_bytes(dC.values().data(), Space::Device, fresh.data(), Space::Host,
                       fresh.size() * sizeof(T));
    const Csr<T, I> B = to_csr(C);
    const auto ref2 = expected_spmv<T, I>(T{1}, B, x, T{0.5}, y0);
    for (Algorithm a : kernels)
      EXPECT_EQ(expect_matches(device_spmv(dC, a, T{1}, x, T{0.5}, y0), ref2,
                               fmt::format("{} {} after new values", name, to_string(a))),
                0);
  }
}

TYPED_TEST(CudaKernels, UserStreams) {
  SPX_REQUIRE_GPU_OR_SKIP();
#if SPX_HAVE_CUDA
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto mats = stress_matrices<T, I>();
  const auto& A = mats.front().A;
  const Csr<T, I> dA = A.to(Space::Device);
  cudaStream_t streams[2] = {nullptr, nullptr};
  for (auto& s : streams)
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (const auto* k : cuda_kernels<T, I>(Format::Csr, false)) {
    // Two products on two streams at once, on one matrix, different x.
    std::vector<std::vector<T>> xs, ys;
    std::vector<Array<T>> dx, dy;
    for (int i = 0; i < 2; ++i) {
      xs.push_back(random_values<T>(A.cols(), fresh_seed()));
      ys.push_back(random_values<T>(A.rows(), fresh_seed()));
      dx.push_back(Array<T>(xs.back()).to(Space::Device));
      dy.push_back(Array<T>(ys.back()).to(Space::Device));
    }
    for (int i = 0; i < 2; ++i) {
      SpmvOptions opts;
      opts.algorithm = k->info.algorithm;
      opts.stream = streams[i];
      spmv(T{-1}, dA, dx[i], T{2}, dy[i], opts);
    }
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(cudaStreamSynchronize(streams[i]), cudaSuccess);
      const auto ref = expected_spmv<T, I>(T{-1}, A, xs[i], T{2}, ys[i]);
      EXPECT_EQ(expect_matches(dy[i].to_vector(), ref,
                               fmt::format("{} on stream {}", to_string(k->info.algorithm), i)),
                0);
    }
  }
  for (auto s : streams)
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
#endif
}

TYPED_TEST(CudaKernels, UnsortedCooWithDuplicates) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 gen(seed);
  const I rows = 700, cols = 90;
  std::vector<I> r, c;
  for (int k = 0; k < 20000; ++k) {  // random order, many duplicates
    r.push_back(static_cast<I>(gen() % rows));
    c.push_back(static_cast<I>(gen() % cols));
  }
  // Small integers: every product and sum is exact in float and double, so
  // the result must equal the exact one whatever the order of the additions.
  const auto small_ints = [&gen](std::size_t n, int m) {
    std::vector<T> out(n);
    for (auto& e : out)
      e = static_cast<T>((gen() % 2 ? 1 : -1) * static_cast<int>(1 + gen() % m));
    return out;
  };
  const auto v = small_ints(r.size(), 4);
  const Coo<T, I> coo(rows, cols, Array<I>(r), Array<I>(c), Array<T>(v));
  ASSERT_FALSE(coo.sorted());
  const Coo<T, I> dcoo = coo.to(Space::Device);
  const auto x = small_ints(static_cast<std::size_t>(cols), 3);
  const auto y0 = small_ints(static_cast<std::size_t>(rows), 5);
  std::vector<T> exact(y0.size());
  for (std::size_t i = 0; i < exact.size(); ++i)
    exact[i] = -y0[i];
  for (std::size_t k = 0; k < r.size(); ++k)
    exact[static_cast<std::size_t>(r[k])] += 2 * v[k] * x[static_cast<std::size_t>(c[k])];
  const auto got = device_spmv(dcoo, Algorithm::Segmented, T{2}, x, T{-1}, y0);
  EXPECT_EQ(got, exact) << "unsorted COO, seed " << seed;
  EXPECT_TRUE(std::any_of(got.begin(), got.end(), [](T e) { return e != 0; }));
  // The cuSPARSE COO baselines refuse unsorted input with a reason.
  for (const auto* k : cuda_kernels<T, I>(Format::Coo))
    if (k->info.baseline) {
      EXPECT_FALSE(k->can_run(MatrixRef<T, I>{&dcoo}).empty());
    }
}

TYPED_TEST(CudaKernels, AutoChoosesByRowStatisticsAndReportsIt) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : handmade_matrices<T, I>()) {
    if (A.rows() == 0) continue;
    const Csr<T, I> dA = A.to(Space::Device);
    const auto x = random_values<T>(A.cols(), 3);
    RunInfo info;
    const auto got =
        device_spmv(dA, Algorithm::Auto, T{1}, x, T{0}, nan_vector<T>(A.rows()), &info);
    EXPECT_NE(info.algorithm, Algorithm::Auto) << name;
    EXPECT_EQ(info.backend, Backend::Cuda) << name;
    EXPECT_EQ(expect_matches(got, expected_spmv<T, I>(T{1}, A, x, T{0}, got), name), 0);
    if (name == "dense-row") {
      EXPECT_EQ(info.algorithm, Algorithm::Binned);  // irregular, fits in L2
    }
    if (name == "diag-empty-rows") {
      EXPECT_EQ(info.algorithm, Algorithm::Vector);  // few rows: a warp per row
    }
  }
  // One wave of the GPU: rows of up to this many warps get a warp per row.
  int sms = 0, per_sm = 0;
#if SPX_HAVE_CUDA
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0),
            cudaSuccess);
#endif
  const std::int64_t wave_rows = std::int64_t{sms} * per_sm / 32;
  for (auto& [name, A] : stress_matrices<T, I>()) {
    const Csr<T, I> dA = A.to(Space::Device);
    RunInfo info;
    device_spmv(dA, Algorithm::Auto, T{1}, random_values<T>(A.cols(), 4), T{0},
                nan_vector<T>(A.rows()), &info);
    if (name == "power-law" || name == "huge-row" || name == "giant-row-among-empty") {
      EXPECT_EQ(info.algorithm, Algorithm::Binned) << name;  // irregular, fits in L2
    }
    if (name == "long-rows") {
      EXPECT_EQ(info.algorithm, Algorithm::MergePath) << name;  // few rows, all long
    }
    if (name == "stencil-5pt") {  // mean row length < 5
      EXPECT_EQ(info.algorithm, A.rows() <= wave_rows ? Algorithm::Vector : Algorithm::Scalar)
          << name;
    }
  }
}

// The rule for irregular rows too large for the L2 cache, from counts (no
// device needed): nonzero split in f32 when no row is empty (mixed-n2000000's
// counts), else merge path (R-MAT s21's, 59% of its rows empty); in f64 the
// same unless the longest row holds more than 1/64 of the nonzeros
// (denserows-n2000000's counts: merge path).
TEST(CudaBackend, AutoRuleForLargeIrregularRows) {
  const detail::BackendModule* cuda = detail::find_backend(Backend::Cuda);
  if (cuda == nullptr) GTEST_SKIP() << "no CUDA backend in this build";
  ASSERT_NE(cuda->csr_spmv_auto, nullptr);
  const std::int64_t big = std::int64_t{1} << 40;  // bytes: more than any L2
  EXPECT_EQ(cuda->csr_spmv_auto(2000000, 24890939, 59452, 0, big, 4), Algorithm::NonzeroSplit);
  // Rows past 31 bits: nonzero split counts its rows when none is empty,
  // else numbers them in 31 bits, so merge path takes them.
  const std::int64_t huge = std::int64_t{1} << 32;
  EXPECT_EQ(cuda->csr_spmv_auto(huge, 8 * huge, 1 << 20, 0, big, 4), Algorithm::NonzeroSplit);
  EXPECT_EQ(cuda->csr_spmv_auto(huge, 8 * huge, 1 << 20, 1, big, 4), Algorithm::MergePath);
  EXPECT_EQ(cuda->csr_spmv_auto(2000000, 24890939, 59452, 0, big, 8), Algorithm::NonzeroSplit);
  EXPECT_EQ(cuda->csr_spmv_auto(2000000, 23999843, 2000000, 0, big, 8), Algorithm::MergePath);
  EXPECT_EQ(cuda->csr_spmv_auto(2000000, 23999843, 2000000, 0, big, 4), Algorithm::NonzeroSplit);
  EXPECT_EQ(cuda->csr_spmv_auto(2000000, 64 * 100000, 100000, 0, big, 8),
            Algorithm::NonzeroSplit);  // exactly 1/64
  EXPECT_EQ(cuda->csr_spmv_auto(2000000, 64 * 100000 - 1, 100000, 0, big, 8), Algorithm::MergePath);
  EXPECT_EQ(cuda->csr_spmv_auto(2097152, 16429391, 36403, 1243583, big, 4), Algorithm::MergePath);
  EXPECT_EQ(cuda->csr_spmv_auto(2097152, 16429391, 36403, 1243583, big, 8), Algorithm::MergePath);
}

TEST(CudaBackend, AutoRuleForFemRowsOf18) {
  // 16 <= mean < 24 gives the V-lane kernel 8 lanes of 2-3 entries: in f32,
  // beyond the L2 cache and without empty rows, nonzero split is faster.
  const detail::BackendModule* cuda = detail::find_backend(Backend::Cuda);
  if (cuda == nullptr) GTEST_SKIP() << "no CUDA backend in this build";
  const std::int64_t big = std::int64_t{1} << 40;     // bytes: more than any L2
  const std::int64_t rows = 1125000, nnz = 20214016;  // fem-b2-n750, mean 17.97
  EXPECT_EQ(cuda->csr_spmv_auto(rows, nnz, 18, 0, big, 4), Algorithm::NonzeroSplit);
  EXPECT_EQ(cuda->csr_spmv_auto(rows, nnz, 18, 0, big, 8), Algorithm::Adaptive);
  EXPECT_EQ(cuda->csr_spmv_auto(rows, nnz, 18, 1, big, 4), Algorithm::Adaptive);
  // The edge: mean 16 takes it. From mean 24 (V = 8 lanes of 3) the choice
  // depends on the device's memory (AutoRuleForF32RowsOf24To60FollowsTheMemoryPerSm).
  EXPECT_EQ(cuda->csr_spmv_auto(rows, 16 * rows, 16, 0, big, 4), Algorithm::NonzeroSplit);
}

#if SPX_HAVE_CUDA
// f32 rows of 24-60 (V = 8 or 16 lanes) beyond the L2 cache without empty
// rows: nonzero split on a GPU whose peak memory bandwidth is at least 30
// GB/s per SM (the H200's 36.5), V lanes below (the H100's 25). The rule is a
// pure function of the device's figures, so no GPU is needed.
TEST(CudaBackend, AutoRuleForF32RowsOf24To60FollowsTheMemoryPerSm) {
  const cuda::AutoDevice h100{132 * 2048, 50 << 20, 132, 3352.3};
  const cuda::AutoDevice h200{132 * 2048, 60 << 20, 132, 4814.3};
  const cuda::AutoDevice none{};
  const std::int64_t big = std::int64_t{1} << 40;  // bytes: more than any L2
  struct Case {
    std::int64_t rows, nnz, max_len;
  };
  // fem-b3-n500 (mean 26.9, V = 8), fem-b6-n250 (53.7, V = 16), and the
  // edges of the band: 24 (V = 8) and just below 60 (V = 16).
  for (const Case c : {Case{750000, 20196036, 27}, Case{375000, 20142144, 54},
                       Case{1000000, 24000000, 24}, Case{1000000, 59999999, 60}}) {
    SCOPED_TRACE(fmt::format("rows {} nnz {}", c.rows, c.nnz));
    EXPECT_EQ(cuda::choose_csr_on(h200, c.rows, c.nnz, c.max_len, 0, big, 4),
              Algorithm::NonzeroSplit);
    EXPECT_EQ(cuda::choose_csr_on(h100, c.rows, c.nnz, c.max_len, 0, big, 4), Algorithm::Adaptive);
    EXPECT_EQ(cuda::choose_csr_on(none, c.rows, c.nnz, c.max_len, 0, big, 4), Algorithm::Adaptive);
    // f64, an empty row, or a matrix the L2 cache holds keep V lanes.
    EXPECT_EQ(cuda::choose_csr_on(h200, c.rows, c.nnz, c.max_len, 0, big, 8), Algorithm::Adaptive);
    EXPECT_EQ(cuda::choose_csr_on(h200, c.rows, c.nnz, c.max_len, 1, big, 4), Algorithm::Adaptive);
    EXPECT_EQ(cuda::choose_csr_on(h200, c.rows, c.nnz, c.max_len, 0, 40 << 20, 4),
              Algorithm::Adaptive);
  }
  // Rows of 60 or more (V = 32, random-n250000-d64) keep a warp a row, rows
  // of 9.5-16 (V = 4, random-n2000000-d10) their V lanes, and rows of 16-24
  // take nonzero split on either GPU (AutoRuleForFemRowsOf18).
  EXPECT_EQ(cuda::choose_csr_on(h200, 250000, 16000000, 65, 0, big, 4), Algorithm::Vector);
  EXPECT_EQ(cuda::choose_csr_on(h200, 2000000, 20000000, 24, 0, big, 4), Algorithm::Adaptive);
  EXPECT_EQ(cuda::choose_csr_on(h200, 2000000, 2 * 23999999, 24, 0, big, 4),
            Algorithm::NonzeroSplit);
  EXPECT_EQ(cuda::choose_csr_on(h100, 1125000, 20214016, 18, 0, big, 4), Algorithm::NonzeroSplit);
  // At exactly 30 GB/s per SM the memory counts as fast; just below, not.
  const cuda::AutoDevice edge{132 * 2048, 50 << 20, 132, 30.0 * 132};
  const cuda::AutoDevice below{132 * 2048, 50 << 20, 132, 30.0 * 132 - 0.5};
  EXPECT_EQ(cuda::choose_csr_on(edge, 750000, 20196036, 27, 0, big, 4), Algorithm::NonzeroSplit);
  EXPECT_EQ(cuda::choose_csr_on(below, 750000, 20196036, 27, 0, big, 4), Algorithm::Adaptive);
  // A device that does not report its memory (0) is not fast.
  const cuda::AutoDevice unreported{132 * 2048, 50 << 20, 132, 0.0};
  EXPECT_EQ(cuda::choose_csr_on(unreported, 750000, 20196036, 27, 0, big, 4), Algorithm::Adaptive);
}

// The device's figures as the rule reads them: the peak memory bandwidth
// from the memory clock and bus width, at least the copy bandwidth the
// device reaches and at most twice it; and the rule the library and the
// advisor ask (csr_spmv_auto) is choose_csr_on with them.
TEST(CudaBackend, AutoDeviceReadsThePeakMemoryBandwidth) {
  SPX_REQUIRE_GPU_OR_SKIP();
  const cuda::AutoDevice d = cuda::auto_device();
  EXPECT_GT(d.sms, 0);
  EXPECT_GT(d.l2_bytes, 0);
  EXPECT_GE(d.resident_threads, std::int64_t{d.sms} * 32);
  // A copy reads and writes at most at the peak: the attributes' figure is
  // at least what a copy reaches, and not twice it (the H200: 4259 GB/s
  // against 4814).
  const detail::BackendModule* cuda = detail::find_backend(Backend::Cuda);
  ASSERT_NE(cuda, nullptr);
  const double copy_gbs = cuda->copy_bandwidth() / 1e9;
  EXPECT_GE(d.peak_memory_gbs, copy_gbs) << "copy " << copy_gbs << " GB/s";
  EXPECT_LE(d.peak_memory_gbs, 2 * copy_gbs) << "copy " << copy_gbs << " GB/s";
  std::printf("[  INFO    ] peak memory bandwidth %.1f GB/s (copy %.1f), %d SMs: %.1f GB/s an SM\n",
              d.peak_memory_gbs, copy_gbs, d.sms, d.peak_memory_gbs / d.sms);
  // fem-b3-n500's counts in f32 beyond L2: the rule reads this device's
  // memory (nonzero split at 30 GB/s an SM or more, V lanes below).
  const bool fast = d.peak_memory_gbs >= 30.0 * d.sms;
  EXPECT_EQ(cuda->csr_spmv_auto(750000, 20196036, 27, 0, std::int64_t{1} << 40, 4),
            fast ? Algorithm::NonzeroSplit : Algorithm::Adaptive);
}
#endif

TEST(CudaBackend, AutoRuleForShortRowsInF32) {
  // 5 <= mean < 9.5 gives the V-lane kernel 2 lanes a row: in f32 one lane a
  // row (Scalar) is as fast or faster (the stencils of 5, 7 and 9 points)
  // once there are 2^17 rows or more (below, the second lane pays).
  const detail::BackendModule* cuda = detail::find_backend(Backend::Cuda);
  if (cuda == nullptr) GTEST_SKIP() << "no CUDA backend in this build";
  const std::int64_t big = std::int64_t{1} << 40;  // bytes: more than any L2
  const std::int64_t rows = 2985984;               // stencil3d-7pt-n144
  EXPECT_EQ(cuda->csr_spmv_auto(rows, 20777472, 7, 0, big, 4), Algorithm::Scalar);
  EXPECT_EQ(cuda->csr_spmv_auto(rows, 20777472, 7, 0, big, 8), Algorithm::Adaptive);
  // The edges: mean 5 and just below 9.5 take it; 9.5 (V = 4) does not.
  EXPECT_EQ(cuda->csr_spmv_auto(rows, 5 * rows, 5, 0, big, 4), Algorithm::Scalar);
  EXPECT_EQ(cuda->csr_spmv_auto(rows, 9 * rows + rows / 2 - 1, 10, 0, big, 4), Algorithm::Scalar);
  EXPECT_EQ(cuda->csr_spmv_auto(2 * rows, 19 * rows, 10, 0, big, 4), Algorithm::Adaptive);
  // Fewer rows (10^5 of 5: more than a wave of warps on any GPU, so not
  // the small-matrix rule; 2^17 - 1 rows of 7).
  EXPECT_EQ(cuda->csr_spmv_auto(100000, 500000, 8, 0, big / 2, 4), Algorithm::Adaptive);
  const std::int64_t few = (std::int64_t{1} << 17) - 1;
  EXPECT_EQ(cuda->csr_spmv_auto(few, 7 * few, 7, 0, big, 4), Algorithm::Adaptive);
  EXPECT_EQ(cuda->csr_spmv_auto(few + 1, 7 * (few + 1), 7, 0, big, 4), Algorithm::Scalar);
}

// ---- memory and errors ------------------------------------------------------

TEST(CudaBackend, DeviceArraysRoundTripExactly) {
  SPX_REQUIRE_GPU_OR_SKIP();
  for (std::int64_t n : {0, 1, 7, 1 << 20}) {
    const auto d = random_values<double>(n, fresh_seed());
    const auto f = random_values<float>(n, fresh_seed());
    std::vector<std::int64_t> i64(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < i64.size(); ++k)
      i64[k] = static_cast<std::int64_t>(k * 2654435761u) - 7;
    const Array<double> dd = Array<double>(d).to(Space::Device);
    EXPECT_EQ(dd.space(), Space::Device);
    EXPECT_TRUE(bitwise_equal(dd.to_vector(), d));
    EXPECT_TRUE(bitwise_equal(dd.clone().to(Space::Host).to_vector(), d));
    EXPECT_TRUE(bitwise_equal(Array<float>(f).to(Space::Device).to_vector(), f));
    EXPECT_EQ(Array<std::int64_t>(i64).to(Space::Device).to_vector(), i64);
  }
}

TEST(CudaBackend, OutOfMemoryReportsTheSize) {
  SPX_REQUIRE_GPU_OR_SKIP();
  const std::size_t n = std::size_t{1} << 50;
  try {
    Array<double> a(n, Space::Device);
    ADD_FAILURE() << "allocated 8 PiB on the device";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.bytes(), n * sizeof(double));
    EXPECT_NE(std::string(e.what()).find(std::to_string(n * sizeof(double))), std::string::npos)
        << e.what();
  }
  // The failure leaves the device usable.
  const auto handmade = handmade_matrices<double, std::int32_t>();
  const auto& A = handmade.back().A;
  const auto x = random_values<double>(A.cols(), 1);
  const Csr<double, std::int32_t> dA = A.to(Space::Device);
  EXPECT_EQ(expect_matches(
                device_spmv(dA, Algorithm::MergePath, 1.0, x, 0.0, nan_vector<double>(A.rows())),
                expected_spmv<double, std::int32_t>(1.0, A, x, 0.0, x), "after OOM"),
            0);
}

/// x and y (B and C) in device memory that overlap, identically or in part,
/// are refused before any kernel runs, naming both ranges; adjacent ones are
/// accepted and give the host's result (issue 22; the host cases are in
/// test_api.cpp).
TEST(CudaBackend, OverlappingOperandsAreRefused) {
  SPX_REQUIRE_GPU_OR_SKIP();
  const auto handmade = handmade_matrices<double, std::int32_t>();
  const auto it = std::ranges::find(handmade, std::string("diag-empty-rows"),
                                    &TestMatrix<double, std::int32_t>::name);
  ASSERT_NE(it, handmade.end());
  const auto& A = it->A;
  const std::int64_t n = A.rows();
  ASSERT_EQ(A.cols(), n);
  const Csr<double, std::int32_t> dA = A.to(Space::Device);
  Array<double> buf = Array<double>(std::vector<double>(4 * n, 1.0)).to(Space::Device);
  double* p = buf.data();
  const auto dx = [&](std::int64_t at, std::int64_t len) {
    return VectorView<const double>(p + at, len, Space::Device);
  };
  const auto dy = [&](std::int64_t at, std::int64_t len) {
    return VectorView<double>(p + at, len, Space::Device);
  };
  for (const std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
    SCOPED_TRACE(at);
    expect_error([&] { spmv(1.0, dA, dx(0, n), 0.0, dy(at, n)); },
                 {"spmv: x [", "and y [", "overlap in memory"});
  }
  // Adjacent: accepted, and right.
  const std::vector<double> ones(n, 1.0);
  std::vector<double> want(n, 0.0);
  spmv(1.0, A, ones, 0.0, want);
  spmv(1.0, dA, dx(0, n), 0.0, dy(n, n));
  const std::vector<double> all = buf.to_vector();
  EXPECT_EQ(std::vector<double>(all.begin() + n, all.begin() + 2 * n), want);

  // SpMM: B (n x 2) and C (n x 2) sharing memory.
  const auto B = [&](std::int64_t at) {
    return DenseView<const double>{p + at, n, 2, 2, Layout::RowMajor, Space::Device};
  };
  const auto C = [&](std::int64_t at) {
    return DenseView<double>{p + at, n, 2, 2, Layout::RowMajor, Space::Device};
  };
  expect_error([&] { spmm(1.0, dA, B(0), 0.0, C(0)); }, {"spmm: B [", "and C [", "overlap"});
  expect_error([&] { spmm(1.0, dA, B(0), 0.0, C(2 * n - 1)); }, {"overlap"});
  EXPECT_NO_THROW(spmm(1.0, dA, B(0), 0.0, C(2 * n)));

  // Batched: a batch of A twice.
  const Csr<double, std::int32_t> members[] = {A.clone(), A.clone()};
  const auto batch = BatchCsr<double, std::int32_t>::from_matrices(
                         std::span<const Csr<double, std::int32_t>>(members))
                         .to(Space::Device);
  expect_error([&] { batch_spmv(1.0, batch, dx(0, 2 * n), 0.0, dy(1, 2 * n)); },
               {"batch_spmv: x [", "and y [", "overlap"});
  EXPECT_NO_THROW(batch_spmv(1.0, batch, dx(0, 2 * n), 0.0, dy(2 * n, 2 * n)));
}

TEST(CudaBackend, VectorsMustLiveWithTheMatrix) {
  SPX_REQUIRE_GPU_OR_SKIP();
  const auto handmade = handmade_matrices<double, std::int64_t>();
  const auto& A = handmade.back().A;
  const Csr<double, std::int64_t> dA = A.to(Space::Device);
  std::vector<double> hx(A.cols(), 1.0), hy(A.rows(), 0.0);
  Array<double> dx = Array<double>(hx).to(Space::Device), dy = Array<double>(hy).to(Space::Device);
  EXPECT_THROW(spmv(1.0, dA, hx, 0.0, dy), InvalidInput);
  EXPECT_THROW(spmv(1.0, dA, dx, 0.0, hy), InvalidInput);
  EXPECT_THROW(spmv(1.0, A, dx, 0.0, hy), InvalidInput);
  SpmvOptions cpu_kernel;
  cpu_kernel.algorithm = Algorithm::CpuMerge;  // a CPU algorithm on a device matrix
  EXPECT_THROW(spmv(1.0, dA, dx, 0.0, dy, cpu_kernel), Unsupported);
}

}  // namespace
}  // namespace spx::test

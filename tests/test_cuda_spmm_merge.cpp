// The merge-based CSR SpMM on CUDA (src/cuda/spmm_csr.cu) on matrices that
// stress its carry-out fix-up, and row split on the same matrices (few rows
// and long ones: 2 or 4 warps per row meet in shared memory, at every
// width; cuda::row_split_parts): a few rows of 10^4..10^5 nonzeros (runs of
// thousands of units) among short rows, rows whose runs sit just below and
// above the fix-up's short/long boundary (32 units), leading and trailing
// empty rows and runs of them, rows ending exactly at unit ends followed by
// empty rows and rows of 31/32/33 (the row-end bits); for
// n ∈ {1, 3, 8, 32, 33, 48, 64, 200} (every group width; in f32, n = 32
// with aligned row-major B and C takes the vector groups of 8 lanes, with an
// odd leading dimension the tiles; these matrices have fewer than 8192 rows,
// so the groups of 16 run in VectorGroupsOnALargeMatrix), row- and
// column-major B and C with padded leading dimensions, beta = 0 (C poisoned
// with NaN) and beta ≠ 0.
// Two kinds of data: random reals against the long-double reference with
// its magnitude-scaled bound, and small integers, whose sums are exact in
// any order (below 2^24), compared exactly: in float the bound of a row of
// 10^5 nonzeros would hide a lost or doubled carry-out, exactness does not.
// Every test needs a GPU: it skips without one (fails with SPX_REQUIRE_GPU=1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "cuda_common.hpp"
#include "dense.hpp"
#include "reference.hpp"
#include "spx/ops.hpp"
#if SPX_HAVE_CUDA
#include "cuda/launch.hpp"
#include "cuda/spmm.hpp"
#endif

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaSpmmMerge);

constexpr std::int64_t kWidths[] = {1, 3, 8, 32, 33, 48, 64, 200};

/// The longest row for width n: 10^5 up to n = 8, then shorter, so that B
/// (k = longest × n) and the reference stay small.
std::int64_t longest_row(std::int64_t n) {
  const std::int64_t s = small_tests() ? 10 : 1;
  return (n <= 8 ? 100000 : n <= 64 ? 30000 : 10000) / s;
}

/// `count` values: small integers ±{1, 2, 3} (sums exact in float up to
/// 2^24) or random reals ±[0.5, 1.5].
template <Value T>
std::vector<T> values(std::int64_t count, bool integer, std::uint64_t seed) {
  if (!integer) return random_values<T>(count, seed);
  std::mt19937_64 gen(seed);
  std::vector<T> v(static_cast<std::size_t>(count));
  for (auto& e : v)
    e = static_cast<T>(static_cast<int>(gen() % 3) + 1) * (gen() & 1 ? T{1} : T{-1});
  return v;
}

/// A host CSR with the given row lengths (each ≤ cols): a row is a run of
/// consecutive columns (mod cols) from a random start.
template <Value T, Index I>
Csr<T, I> csr_of(std::int64_t cols, const std::vector<std::int64_t>& lengths, bool integer,
                 std::uint64_t seed) {
  const Csr<T, I> shape = csr_with_lengths<T, I>(cols, lengths, seed);
  return Csr<T, I>(static_cast<I>(lengths.size()), static_cast<I>(cols),
                   Array<I>(shape.row_ptr().to_vector()), Array<I>(shape.col_idx().to_vector()),
                   Array<T>(values<T>(shape.nnz(), integer, seed + 7)));
}

struct Shape {
  std::string name;
  std::vector<std::int64_t> lengths;
};

/// Row lengths of the test matrices for longest row L.
std::vector<Shape> shapes(std::int64_t L, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<Shape> out;
  {
    // Short rows (0..16 nonzeros, a quarter empty) with 3 leading and 5
    // trailing empty rows and a run of 40 empty ones; long rows: L first,
    // L/3 and L/10 adjacent in the middle, and rows of about 32 units of 32
    // and of 128 nonzeros (runs of 31..34 units: both sides of the fix-up's
    // short/long boundary) and a few hundred nonzeros at random places.
    std::vector<std::int64_t> len(3, 0);
    len.push_back(L);
    for (int r = 0; r < 3000; ++r) {
      if (r == 1500) {
        len.push_back(L / 3);
        len.push_back(L / 10);
      }
      if (r == 2000) len.insert(len.end(), 40, 0);
      len.push_back(gen() % 4 == 0 ? 0 : static_cast<std::int64_t>(gen() % 16) + 1);
    }
    for (const std::int64_t m : {300, 1000, 1024, 1056, 1090, 4096, 4224, 4300}) {
      const auto at = static_cast<std::ptrdiff_t>(4 + gen() % (len.size() - 4));
      len.insert(len.begin() + at, std::min(m, L));
    }
    len.insert(len.end(), 5, 0);
    out.push_back({"hubs", std::move(len)});
  }
  out.push_back({"lone-hub", {0, 0, L, 0, 0, 0}});
  // A longest row of two batches of 32: row split's two warps per row.
  out.push_back({"two-batches", {33, 0, 64, 1, 32, 63, 0, 40, 31, 0}});
  // Rows that end exactly where a unit ends (32, 64 and 128 nonzeros: the
  // units of every width) with empty rows right after, rows of 31/32/33, a
  // row that covers two whole units of 128, and one that crosses a unit end
  // by one nonzero: the row-end bits of merge-based (n > 16) and the carry
  // runs at unit boundaries.
  out.push_back({"unit-edges",
                 {128, 0, 0, 31, 33, 32, 32, 0, 256, 0, 0, 127, 1, 129, 31, 32, 33, 64, 0, 0, 0}});
  {
    // Long first and last rows, no empty rows.
    std::vector<std::int64_t> len{L / 2};
    for (int r = 0; r < 500; ++r)
      len.push_back(static_cast<std::int64_t>(gen() % 5) + 1);
    len.push_back(L / 2 + 17);
    out.push_back({"hub-ends", std::move(len)});
  }
  return out;
}

constexpr Storage kStorages[] = {
    {Layout::RowMajor, Layout::RowMajor, 0, 0},
    {Layout::ColMajor, Layout::ColMajor, 2, 3},
    {Layout::RowMajor, Layout::ColMajor, 1, 0},
    {Layout::RowMajor, Layout::RowMajor, 4, 8},  // padded, still aligned to 16 bytes
};

/// C = alpha*A*B + beta*C0 with `algorithm` (C poisoned with NaN when
/// beta = 0); returns the stored C, padding included.
template <Value T, Index I>
std::vector<T> run_csr(Algorithm algorithm, const Csr<T, I>& dA, const std::vector<T>& B,
                       std::int64_t n, const Storage& st, T alpha, T beta, const std::vector<T>& C0,
                       T pad_fill) {
  const std::int64_t m = dA.rows(), k = dA.cols();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const Stored<T> Bs(B, k, n, st.b_layout, st.b_pad, nan);
  const Stored<T> Cs(beta == T{0} ? std::vector<T>(C0.size(), nan) : C0, m, n, st.c_layout,
                     st.c_pad, pad_fill);
  const Array<T> dB(Bs.data, Space::Device);
  Array<T> dC(Cs.data, Space::Device);
  SpmmOptions opts;
  opts.algorithm = algorithm;
  const RunInfo info = spmm(alpha, dA, Bs.view(dB.data(), Space::Device), beta,
                            Cs.view(dC.data(), Space::Device), opts);
  EXPECT_EQ(info.algorithm, algorithm);
  EXPECT_EQ(info.backend, Backend::Cuda);
  return dC.to_vector();
}

/// Entries of `got` (rows of n) that differ from `exact`, for integer data
/// whose sums are exact in any order; the first 5 are reported as failures.
template <class T, class U>
int exact_mismatches(const std::vector<T>& got, const std::vector<U>& exact, std::int64_t n,
                     const std::string& what) {
  int bad = 0;
  for (std::size_t e = 0; e < got.size(); ++e)
    if (!(got[e] == exact[e]) && ++bad <= 5)
      ADD_FAILURE() << what << ": C[" << e / n << "," << e % n << "] = " << got[e] << ", exact "
                    << exact[e];
  return bad;
}

/// (storage, beta, algorithm) of LongRowsMatchReference: merge-based in
/// every storage with beta = 0 and `beta`, row split in the first two and
/// the padded aligned one.
template <Value T>
std::vector<std::tuple<Storage, T, Algorithm>> cases(T beta) {
  std::vector<std::tuple<Storage, T, Algorithm>> out;
  for (const Storage& st : kStorages)
    for (const T b : {T{0}, beta})
      out.emplace_back(st, b, Algorithm::MergeBased);
  for (const T b : {T{0}, beta})
    out.emplace_back(kStorages[0], b, Algorithm::RowSplit);
  out.emplace_back(kStorages[1], beta, Algorithm::RowSplit);
  out.emplace_back(kStorages[3], beta, Algorithm::RowSplit);
  return out;
}

TYPED_TEST(CudaSpmmMerge, LongRowsMatchReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const T sentinel = T{-777};
  for (const std::int64_t n : kWidths) {
    const std::int64_t L = longest_row(n);
    const std::uint64_t seed = fresh_seed();
    for (const auto& [name, lengths] : shapes(L, seed)) {
      for (const bool integer : {false, true}) {
        const Csr<T, I> A = csr_of<T, I>(L, lengths, integer, seed + 1);
        const Csr<T, I> dA = A.to(Space::Device);
        const std::int64_t m = A.rows();
        const auto B = values<T>(L * n, integer, seed + 2);
        const auto C0 = values<T>(m * n, integer, seed + 3);
        const Product product = reference::product(A, std::span<const T>(B), n);
        // Integers: alpha and beta keep every value an integer below 2^24.
        const T alpha = integer ? T{2} : T{-1.5}, beta = integer ? T{-1} : T{0.5};
        for (const auto& [st, b, algorithm] : cases(beta)) {
          const T a = b == T{0} ? T{1} : alpha;
          const std::string what =
              fmt::format("{} {} (L={} nnz={}) {} n={} B {} C {} alpha={} beta={} seed={}",
                          to_string(algorithm), name, L, A.nnz(), integer ? "integers" : "reals", n,
                          layout_name(st.b_layout), layout_name(st.c_layout), a, b, seed);
          const std::vector<T> stored = run_csr(algorithm, dA, B, n, st, a, b, C0, sentinel);
          // The padding of C keeps its sentinel.
          const Stored<T> Cs(C0, m, n, st.c_layout, st.c_pad, sentinel);
          const std::vector<T> got = Cs.logical(stored);
          EXPECT_EQ(Cs.padding_changed(stored, sentinel), 0)
              << what << ": padding of C was written";
          const Expected<T> ref = expected<T>(product, a, b, C0);
          if (integer) {
            // Exact: every partial sum is an integer below 2^24.
            if (exact_mismatches(got, ref.y, n, what) > 0) return;
          } else if (expect_matches(got, ref, what) > 0) {
            return;
          }
        }
      }
    }
  }
}

/// Bitwise equal results run to run, and after the partition is rebuilt
/// (a fresh device copy of the matrix has an empty structure cache).
TYPED_TEST(CudaSpmmMerge, Deterministic) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const std::int64_t n :
       {std::int64_t{1}, std::int64_t{8}, std::int64_t{32}, std::int64_t{33}}) {
    const std::int64_t L = longest_row(n);
    const std::uint64_t seed = fresh_seed();
    const Shape shape = shapes(L, seed).front();
    const Csr<T, I> A = csr_of<T, I>(L, shape.lengths, false, seed + 1);
    const auto B = values<T>(L * n, false, seed + 2);
    const auto C0 = values<T>(A.rows() * n, false, seed + 3);
    for (const Storage& st : {kStorages[0], kStorages[1]}) {
      const std::string what =
          fmt::format("{} n={} C {} seed={}", shape.name, n, layout_name(st.c_layout), seed);
      const Csr<T, I> dA = A.to(Space::Device);
      for (const Algorithm algorithm : {Algorithm::MergeBased, Algorithm::RowSplit}) {
        const auto first = run_csr(algorithm, dA, B, n, st, T{1}, T{0.5}, C0, T{0});
        const auto again = run_csr(algorithm, dA, B, n, st, T{1}, T{0.5}, C0, T{0});
        const Csr<T, I> fresh = A.to(Space::Device);
        const auto rebuilt = run_csr(algorithm, fresh, B, n, st, T{1}, T{0.5}, C0, T{0});
        EXPECT_TRUE(bitwise_equal(first, again))
            << to_string(algorithm) << " " << what << ": second run differs";
        EXPECT_TRUE(bitwise_equal(first, rebuilt))
            << to_string(algorithm) << " " << what << ": run with a rebuilt cache differs";
      }
    }
  }
}

/// The vector groups of n > 16 (cuda::spmm_vector_groups) where the rule
/// takes them on a large matrix: 24000 rows (≥ 8192: row split's groups of
/// 16 in f32 at n = 48, 64 and in f64 at n = 32) of 0..60 nonzeros, a
/// quarter empty, three long rows (the carry runs of merge-based) and more
/// than 2^19 nonzeros (merge-based's doubled units, f32 at n ≤ 32: about
/// 6.2·10^5, against 5.2·10^5 for 20000 rows, which fell short of 2^19 in
/// one GPU run); n = 20
/// (in f32, 5 of a group's 8 lanes hold columns), 32, 48, 64; aligned row-major B
/// and C (the groups), padded and aligned (the groups) and with an odd
/// leading dimension (the tiles); integer data compared exactly.
TYPED_TEST(CudaSpmmMerge, VectorGroupsOnALargeMatrix) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 gen(seed);
  const std::int64_t cols = 30000;
  std::vector<std::int64_t> len;
  for (int r = 0; r < 24000; ++r)
    len.push_back(gen() % 4 == 0 ? 0 : static_cast<std::int64_t>(gen() % 60) + 1);
  len[17] = 25000;
  len[9000] = 12000;
  len[23999] = 30000;
  const Csr<T, I> A = csr_of<T, I>(cols, len, true, seed + 1);
  ASSERT_GE(A.nnz(), std::int64_t{1} << 19);
  const Csr<T, I> dA = A.to(Space::Device);
  const T sentinel = T{-777};
  const Storage storages[] = {kStorages[0], kStorages[3], kStorages[2]};
  // Under the sanitizers (small tests) n = 20 and 48 still take every group.
  const std::vector<std::int64_t> widths =
      small_tests() ? std::vector<std::int64_t>{20, 48} : std::vector<std::int64_t>{20, 32, 48, 64};
#if SPX_HAVE_CUDA
  const double mean = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
  constexpr int kVec = sizeof(T) == 4 ? 4 : 2;
#endif
  for (const std::int64_t n : widths) {
#if SPX_HAVE_CUDA
    // Row split takes the groups at every width here (f64: up to n = 32),
    // merge-based in f32 up to n = 32, with units of 64.
    if (n <= 16 * kVec) {
      ASSERT_GT(cuda::spmm_vector_groups(n, kVec, true, false, A.rows(), mean), 0) << "n=" << n;
    }
    if (kVec == 4 && n <= 32) {
      ASSERT_EQ(cuda::spmm_vector_groups(n, kVec, true, true, A.rows(), mean), 8) << "n=" << n;
      ASSERT_TRUE(cuda::spmm_vector_units_doubled(A.nnz()));
    }
#endif
    const auto B = values<T>(cols * n, true, seed + 2);
    const auto C0 = values<T>(A.rows() * n, true, seed + 3);
    const Product product = reference::product(A, std::span<const T>(B), n);
    for (const Storage& st : storages) {
      for (const Algorithm algorithm : {Algorithm::RowSplit, Algorithm::MergeBased}) {
        for (const T b : {T{0}, T{-1}}) {
          const std::string what =
              fmt::format("{} n={} B {} (pad {}) C pad {} beta={} seed={}", to_string(algorithm), n,
                          layout_name(st.b_layout), st.b_pad, st.c_pad, b, seed);
          const std::vector<T> stored = run_csr(algorithm, dA, B, n, st, T{2}, b, C0, sentinel);
          const Stored<T> Cs(C0, A.rows(), n, st.c_layout, st.c_pad, sentinel);
          EXPECT_EQ(Cs.padding_changed(stored, sentinel), 0)
              << what << ": padding of C was written";
          const std::vector<T> got = Cs.logical(stored);
          const Expected<T> ref = expected<T>(product, T{2}, b, C0);
          if (exact_mismatches(got, ref.y, n, what) > 0) return;
        }
      }
    }
  }
}

/// Row split's row groups of n ≤ 16 (cuda::spmm_row_groups: a group of
/// lanes of 16-byte vectors per row on large matrices of short rows with
/// row-major, aligned B and C): 200000 rows of 0..12 nonzeros (a quarter
/// empty, a run of 50 empty rows, a row of 40 and the last row empty),
/// enough for 32 warps per SM on GPUs of up to 195 SMs even with one lane a
/// row; n = 4, 8, 12, 16 (f32: groups of 1, 2, 4 and 4 lanes of 4 floats,
/// n = 12 leaving a lane idle; f64: 2, 4, 8, 8 lanes of 2 doubles) and n =
/// 3 (no vectors: the warp per row). Aligned row-major B and C, padded and
/// aligned (the groups), column-major and mixed layouts (the warp per
/// row); Auto picks row split where the groups apply and merge-based (mean
/// below 5.5) elsewhere. Integer data compared exactly, C poisoned with NaN
/// for beta = 0 and its padding checked.
TYPED_TEST(CudaSpmmMerge, RowGroupsOnALargeMatrix) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 gen(seed);
  const std::int64_t cols = 50000;
  std::vector<std::int64_t> len;
  for (int r = 0; r < 200000; ++r)
    len.push_back(gen() % 4 == 0 ? 0 : static_cast<std::int64_t>(gen() % 12) + 1);
  std::fill(len.begin() + 70000, len.begin() + 70050, 0);
  len[1234] = 40;
  len.back() = 0;
  const Csr<T, I> A = csr_of<T, I>(cols, len, true, seed + 1);
  const Csr<T, I> dA = A.to(Space::Device);
  const T sentinel = T{-777};
  const Storage storages[] = {kStorages[0], kStorages[3], kStorages[1], kStorages[2]};
  // Under the sanitizers (small tests) n = 3 (no vectors) and 8 (vectors).
  const std::vector<std::int64_t> widths =
      small_tests() ? std::vector<std::int64_t>{3, 8} : std::vector<std::int64_t>{3, 4, 8, 12, 16};
  for (const std::int64_t n : widths) {
#if SPX_HAVE_CUDA
    constexpr int kVec = sizeof(T) == 4 ? 4 : 2;
    const bool fits = n % kVec == 0;
    ASSERT_EQ(cuda::spmm_row_groups(A.rows(), A.nnz(), 40, n, kVec, fits, cuda::sm_count()), fits)
        << "n=" << n;
    const Algorithm picked =
        Registry<T, I>::instance().choose_spmm(MatrixRef<T, I>{&dA}, Backend::Cuda, SpmmShape{n});
    EXPECT_EQ(picked, fits ? Algorithm::RowSplit : Algorithm::MergeBased) << "n=" << n;
    // B or C off a 16-byte boundary: no vectors, so no row groups either.
    const Algorithm unaligned = Registry<T, I>::instance().choose_spmm(
        MatrixRef<T, I>{&dA}, Backend::Cuda,
        SpmmShape{n, Layout::RowMajor, Layout::RowMajor, n, n, false});
    EXPECT_EQ(unaligned, Algorithm::MergeBased) << "n=" << n;
#endif
    const auto B = values<T>(cols * n, true, seed + 2);
    const auto C0 = values<T>(A.rows() * n, true, seed + 3);
    const Product product = reference::product(A, std::span<const T>(B), n);
    {
      // spmm() with Auto and B one element off its allocation: merge-based
      // runs (SpmmShape::aligned), and the product is exact.
      std::vector<T> shifted(B.size() + 1, T{0});
      std::copy(B.begin(), B.end(), shifted.begin() + 1);
      const Array<T> dB(shifted, Space::Device);
      Array<T> dC(std::vector<T>(static_cast<std::size_t>(A.rows() * n),
                                 std::numeric_limits<T>::quiet_NaN()),
                  Space::Device);
      const RunInfo info = spmm(
          T{1}, dA, DenseView<const T>{dB.data() + 1, cols, n, n, Layout::RowMajor, Space::Device},
          T{0}, DenseView<T>{dC.data(), A.rows(), n, n, Layout::RowMajor, Space::Device});
      EXPECT_EQ(info.algorithm, Algorithm::MergeBased) << "n=" << n << ", B unaligned";
      const Expected<T> ref = expected<T>(product, T{1}, T{0}, C0);
      if (exact_mismatches(dC.to_vector(), ref.y, n, fmt::format("Auto n={} B unaligned", n)) > 0)
        return;
    }
    for (const Storage& st : storages) {
      for (const T b : {T{0}, T{-1}}) {
        const std::string what = fmt::format(
            "row split n={} B {} (pad {}) C {} (pad {}) beta={} seed={}", n,
            layout_name(st.b_layout), st.b_pad, layout_name(st.c_layout), st.c_pad, b, seed);
        const std::vector<T> stored =
            run_csr(Algorithm::RowSplit, dA, B, n, st, T{2}, b, C0, sentinel);
        const Stored<T> Cs(C0, A.rows(), n, st.c_layout, st.c_pad, sentinel);
        EXPECT_EQ(Cs.padding_changed(stored, sentinel), 0) << what << ": padding of C was written";
        const std::vector<T> got = Cs.logical(stored);
        const Expected<T> ref = expected<T>(product, T{2}, b, C0);
        if (exact_mismatches(got, ref.y, n, what) > 0) return;
      }
    }
  }
}

}  // namespace
}  // namespace spx::test

// Batched SpMV tests: the batch containers (validation errors naming the
// matrix, exact round trips), the host-side planning of the CUDA kernels, and
// every registered batch kernel on every backend present, on batches with
// empty, 1x1, tiny, large and mixed matrices, against the long-double
// reference per matrix over a grid of (alpha, beta), y poisoned with NaN
// before every beta = 0 run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "core/batch_schedule.hpp"
#include "reference.hpp"
#include "spx/batch/ops.hpp"
#include "spx/convert.hpp"

namespace spx::test {
namespace {

// ---- test batches -------------------------------------------------------------

/// rows x cols with about `per_row` entries per row (uniform in [0, 2 per_row],
/// so some rows are empty), sorted unique columns, values in ±[0.5, 1.5].
template <Value T, Index I>
Csr<T, I> random_csr(std::int64_t rows, std::int64_t cols, double per_row, std::mt19937_64& gen) {
  std::vector<I> ptr{0}, col;
  std::uniform_int_distribution<std::int64_t> len_dist(
      0, cols == 0 ? 0 : static_cast<std::int64_t>(2 * per_row));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t k = std::min(len_dist(gen), cols);
    std::set<I> picked;
    std::uniform_int_distribution<std::int64_t> c(0, std::max<std::int64_t>(cols - 1, 0));
    while (static_cast<std::int64_t>(picked.size()) < k)
      picked.insert(static_cast<I>(c(gen)));
    col.insert(col.end(), picked.begin(), picked.end());
    ptr.push_back(static_cast<I>(col.size()));
  }
  const auto val = random_values<T>(static_cast<std::int64_t>(col.size()), gen());
  return Csr<T, I>(static_cast<I>(rows), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// A CSR from explicit rows of column indices, random values.
template <Value T, Index I>
Csr<T, I> from_rows(std::int64_t cols, const std::vector<std::vector<I>>& rows,
                    std::uint64_t seed) {
  std::vector<I> ptr{0}, col;
  for (const auto& r : rows) {
    col.insert(col.end(), r.begin(), r.end());
    ptr.push_back(static_cast<I>(col.size()));
  }
  const auto val = random_values<T>(static_cast<std::int64_t>(col.size()), seed);
  return Csr<T, I>(static_cast<I>(rows.size()), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// Five matrices of 10..14 rows × 12 columns, about 3 entries per row.
template <Value T, Index I>
std::vector<Csr<T, I>> short_rows_batch(std::mt19937_64& gen) {
  std::vector<Csr<T, I>> mats;
  for (int i = 0; i < 5; ++i)
    mats.push_back(random_csr<T, I>(10 + i, 12, 3, gen));
  return mats;
}

template <Value T, Index I>
struct TestBatch {
  std::string name;
  std::vector<Csr<T, I>> matrices;  ///< the reference, one CSR per matrix (host)
  BatchCsr<T, I> csr;
  BatchCoo<T, I> coo;
  BatchCoo<T, I> coo_unsorted;  ///< shuffled entries, some split into two halves
  BatchEll<T, I> ell;
};

/// The same matrices as COO with entries shuffled within each matrix and about
/// one in eight split into two exact halves (duplicates).
template <Value T, Index I>
BatchCoo<T, I> unsorted_coo(const std::vector<Csr<T, I>>& mats, std::mt19937_64& gen) {
  std::vector<std::int64_t> rows{0}, cols{0}, nnz{0};
  std::vector<I> ri, ci;
  std::vector<T> val;
  for (const auto& A : mats) {
    const auto ptr = A.row_ptr().to_vector();
    const auto col = A.col_idx().to_vector();
    const auto v = A.values().to_vector();
    struct E {
      I r, c;
      T v;
    };
    std::vector<E> e;
    for (I r = 0; r < A.rows(); ++r)
      for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
        if (gen() % 8 == 0) {
          e.push_back({r, col[k], v[k] / 2});
          e.push_back({r, col[k], v[k] / 2});
        } else {
          e.push_back({r, col[k], v[k]});
        }
      }
    std::shuffle(e.begin(), e.end(), gen);
    for (const auto& x : e) {
      ri.push_back(x.r);
      ci.push_back(x.c);
      val.push_back(x.v);
    }
    rows.push_back(rows.back() + A.rows());
    cols.push_back(cols.back() + A.cols());
    nnz.push_back(nnz.back() + static_cast<std::int64_t>(e.size()));
  }
  return BatchCoo<T, I>(Array<std::int64_t>(rows), Array<std::int64_t>(cols),
                        Array<std::int64_t>(nnz), Array<I>(ri), Array<I>(ci), Array<T>(val));
}

template <Value T, Index I>
TestBatch<T, I> make_batch(std::string name, std::vector<Csr<T, I>> mats, std::mt19937_64& gen,
                           BatchCsr<T, I> csr = {}) {
  TestBatch<T, I> b;
  b.name = std::move(name);
  b.csr = csr.count() > 0 ? std::move(csr) : BatchCsr<T, I>::from_matrices(mats);
  b.coo = BatchCoo<T, I>::from_matrices(mats);
  b.coo_unsorted = unsorted_coo(mats, gen);
  b.ell = BatchEll<T, I>::from_matrices(mats);
  b.matrices = std::move(mats);
  return b;
}

/// Every batch the kernel tests run on.
template <Value T, Index I>
std::vector<TestBatch<T, I>> test_batches(std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<TestBatch<T, I>> out;
  {
    // Degenerate members: 0x0, 1x1, m x 0, 0 x n, no entries, empty rows.
    std::vector<Csr<T, I>> m;
    m.push_back(from_rows<T, I>(0, {}, gen()));
    m.push_back(from_rows<T, I>(1, {{0}}, gen()));
    m.push_back(from_rows<T, I>(0, {{}, {}, {}}, gen()));
    m.push_back(from_rows<T, I>(4, {}, gen()));
    m.push_back(from_rows<T, I>(5, {{}, {}, {}, {}, {}}, gen()));
    m.push_back(from_rows<T, I>(7, {{0, 3}, {1}, {}, {2, 3, 6}, {4}, {}, {0, 6}}, gen()));
    m.push_back(from_rows<T, I>(1, {{0}}, gen()));
    m.push_back(random_csr<T, I>(37, 29, 3, gen));
    m.push_back(from_rows<T, I>(0, {}, gen()));
    out.push_back(make_batch("edge", std::move(m), gen));
  }
  {
    // Mixed sizes 11..1024, square and rectangular, 0..24 entries per row,
    // plus one matrix with a completely dense row.
    std::vector<Csr<T, I>> m;
    std::uniform_int_distribution<std::int64_t> size(11, 1024);
    std::uniform_real_distribution<double> per_row(0.5, 12);
    for (int i = 0; i < 40; ++i) {
      const std::int64_t r = size(gen);
      const std::int64_t c = i % 3 == 0 ? size(gen) : r;
      m.push_back(random_csr<T, I>(r, c, per_row(gen), gen));
    }
    std::vector<std::vector<I>> rows(200);
    for (I r = 0; r < 200; ++r)
      for (I c = (r * 7) % 5; c < 800; c += r == 5 ? 1 : 97)
        rows[r].push_back(c);
    m.insert(m.begin() + 17, from_rows<T, I>(800, rows, gen()));
    out.push_back(make_batch("mixed", std::move(m), gen));
  }
  {
    // Matrices whose x (or x plus rows) does not fit the shared-memory
    // staging buffer, between small ones.
    std::vector<Csr<T, I>> m;
    m.push_back(random_csr<T, I>(20, 20, 3, gen));
    m.push_back(random_csr<T, I>(20000, 20000, 3, gen));
    m.push_back(from_rows<T, I>(1, {{0}}, gen()));
    m.push_back(random_csr<T, I>(30000, 2, 1, gen));
    m.push_back(random_csr<T, I>(5, 40000, 50, gen));
    m.push_back(random_csr<T, I>(100, 100, 4, gen));
    out.push_back(make_batch("large", std::move(m), gen));
  }
  {
    // Many tiny matrices (the sized kernel packs them, 64 per block at most).
    std::vector<Csr<T, I>> m;
    std::uniform_int_distribution<std::int64_t> size(1, 20);
    for (int i = 0; i < 600; ++i) {
      const std::int64_t r = size(gen);
      m.push_back(random_csr<T, I>(r, r, 3, gen));
    }
    out.push_back(make_batch("tiny", std::move(m), gen));
  }
  {
    // One shape and nonzero count, different patterns (cuSPARSE strided SpMM
    // qualifies).
    std::vector<Csr<T, I>> m;
    for (int i = 0; i < 50; ++i) {
      std::vector<std::vector<I>> rows(64);
      for (auto& r : rows) {
        std::set<I> s;
        while (s.size() < 5)
          s.insert(static_cast<I>(gen() % 48));
        r.assign(s.begin(), s.end());
      }
      m.push_back(from_rows<T, I>(48, rows, gen()));
    }
    out.push_back(make_batch("same-shape", std::move(m), gen));
  }
  {
    // A uniform batch: one pattern, values per matrix.
    const Csr<T, I> pattern = random_csr<T, I>(40, 40, 4, gen);
    const std::int64_t count = 120, nnz = pattern.nnz();
    const auto values = random_values<T>(count * nnz, gen());
    std::vector<Csr<T, I>> m;
    for (std::int64_t i = 0; i < count; ++i)
      m.emplace_back(I{40}, I{40}, pattern.row_ptr().clone(), pattern.col_idx().clone(),
                     Array<T>(std::span<const T>(values.data() + i * nnz, nnz)));
    auto uniform = BatchCsr<T, I>::uniform(count, 40, 40, pattern.row_ptr().clone(),
                                           pattern.col_idx().clone(), Array<T>(values));
    out.push_back(make_batch("uniform", std::move(m), gen, std::move(uniform)));
  }
  return out;
}

/// Runs every `backend` kernel registered for B's format on one batch; counts
/// what ran per algorithm in `ran`.
template <Value T, Index I, class B>
void run_kernels(const TestBatch<T, I>& tb, const B& host_batch, const std::string& label,
                 Backend backend, std::uint64_t seed, std::map<Algorithm, int>& ran) {
  const auto& registry = Registry<T, I>::instance();
  const Space space = space_of(backend);
  const B batch = host_batch.to(space);
  ASSERT_EQ(batch.count(), static_cast<std::int64_t>(tb.matrices.size())) << label;
  const auto x = random_values<T>(batch.total_cols(), seed);
  const auto y0 = random_values<T>(batch.total_rows(), seed + 1);
  const Product product =
      reference::batch_product(std::span<const Csr<T, I>>(tb.matrices), std::span<const T>(x));
  const Array<T> dx = Array<T>(x).to(space);
  for (const auto& kernel : registry.batch_spmv_kernels()) {
    if (kernel.info.format != B::kFormat || kernel.info.backend != backend) continue;
    const std::string name(to_string(kernel.info.algorithm));
    if (const std::string reason = kernel.can_run(BatchRef<T, I>{&batch}); !reason.empty()) {
      std::printf("[  SKIP    ] %s %s: %s\n", label.c_str(), name.c_str(), reason.c_str());
      continue;
    }
    if (kernel.info.baseline && batch.count() > 200) {
      std::printf("[  SKIP    ] %s %s: baseline, batch of %lld matrices (kept fast)\n",
                  label.c_str(), name.c_str(), static_cast<long long>(batch.count()));
      continue;
    }
    const bool passed = matches_over_grid(
        kScalars, product, y0,
        fmt::format("{} with {} on {}, seed={}", label, name, to_string(backend), seed),
        [&](T alpha, T beta, const std::vector<T>& y_init) {
          Array<T> dy = Array<T>(y_init).to(space);
          BatchOptions options;
          options.algorithm = kernel.info.algorithm;
          const RunInfo info = batch_spmv(alpha, batch, dx, beta, dy, options);
          return Ran<T>{dy.to_vector(), info};
        },
        reports_kernel(kernel.info));
    if (!passed) return;
    ++ran[kernel.info.algorithm];
  }
}

template <Value T, Index I>
std::map<Format, std::map<Algorithm, int>> run_all(Backend backend) {
  const std::uint64_t seed = fresh_seed();
  std::map<Format, std::map<Algorithm, int>> ran;
  for (const auto& tb : test_batches<T, I>(seed)) {
    run_kernels(tb, tb.csr, tb.name + " as csr", backend, seed, ran[Format::Csr]);
    run_kernels(tb, tb.coo, tb.name + " as coo", backend, seed, ran[Format::Coo]);
    run_kernels(tb, tb.coo_unsorted, tb.name + " as unsorted coo", backend, seed, ran[Format::Coo]);
    run_kernels(tb, tb.ell, tb.name + " as ell", backend, seed, ran[Format::Ell]);
  }
  return ran;
}

SPX_TYPED_TEST_SUITE(BatchKernels);

TYPED_TEST(BatchKernels, CpuMatchesReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto ran = run_all<T, I>(Backend::Cpu);
  // Guard: the CPU kernel of every format ran on every batch (unsorted COO too).
  EXPECT_EQ(ran.at(Format::Csr).at(Algorithm::CpuRows), 6);
  EXPECT_EQ(ran.at(Format::Coo).at(Algorithm::CpuRows), 12);
  EXPECT_EQ(ran.at(Format::Ell).at(Algorithm::CpuRows), 6);
}

TYPED_TEST(BatchKernels, CudaMatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto ran = run_all<T, I>(Backend::Cuda);
  // Guard: every registered CUDA batch kernel ran on at least one batch.
  for (const auto& k : Registry<T, I>::instance().batch_spmv_kernels()) {
    if (k.info.backend != Backend::Cuda) continue;
    const auto& per_format = ran.at(k.info.format);
    const auto it = per_format.find(k.info.algorithm);
    EXPECT_TRUE(it != per_format.end() && it->second > 0)
        << to_string(k.info.format) << "/" << to_string(k.info.algorithm) << " never ran";
  }
}

TYPED_TEST(BatchKernels, AutoReportsTheKernelThatRan) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  std::mt19937_64 gen(fresh_seed());
  const std::vector<Csr<T, I>> mats = short_rows_batch<T, I>(gen);
  const auto batch = BatchCsr<T, I>::from_matrices(mats);
  const auto x = random_values<T>(batch.total_cols(), gen());
  std::vector<T> y(batch.total_rows(), std::numeric_limits<T>::quiet_NaN());
  const RunInfo info = batch_spmv(T{1}, batch, x, T{0}, y);
  EXPECT_EQ(info.algorithm, Algorithm::CpuRows);
  EXPECT_EQ(info.format, Format::Csr);
  EXPECT_EQ(info.backend, Backend::Cpu);
  EXPECT_FALSE(info.trivial);
  // Through the owning variant too.
  const Batch<T, I> any = BatchEll<T, I>::from_matrices(mats);
  EXPECT_EQ(batch_spmv(T{1}, any, x, T{0}, y).format, Format::Ell);
}

TYPED_TEST(BatchKernels, CudaAutoRules) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  std::mt19937_64 gen(fresh_seed());
  const std::vector<Csr<T, I>> mats = short_rows_batch<T, I>(gen);
  const auto csr = BatchCsr<T, I>::from_matrices(mats).to(Space::Device);
  const auto coo = BatchCoo<T, I>::from_matrices(mats).to(Space::Device);
  const auto ell = BatchEll<T, I>::from_matrices(mats).to(Space::Device);
  const Array<T> x = Array<T>(random_values<T>(csr.total_cols(), gen())).to(Space::Device);
  Array<T> y(static_cast<std::size_t>(csr.total_rows()), Space::Device);
  // Short rows (3 per row): a thread per row.
  EXPECT_EQ(batch_spmv(T{1}, csr, x, T{0}, y).algorithm, Algorithm::Scalar);
  // Long rows (40 per row of 48 columns): sized blocks.
  std::vector<Csr<T, I>> dense;
  for (int i = 0; i < 3; ++i)
    dense.push_back(random_csr<T, I>(20, 48, 40, gen));
  const auto dcsr = BatchCsr<T, I>::from_matrices(dense).to(Space::Device);
  const Array<T> dx = Array<T>(random_values<T>(dcsr.total_cols(), gen())).to(Space::Device);
  Array<T> dy(static_cast<std::size_t>(dcsr.total_rows()), Space::Device);
  EXPECT_EQ(batch_spmv(T{1}, dcsr, dx, T{0}, dy).algorithm, Algorithm::SizedBlocks);
  EXPECT_EQ(batch_spmv(T{1}, coo, x, T{0}, y).algorithm, Algorithm::Segmented);
  EXPECT_EQ(batch_spmv(T{1}, ell, x, T{0}, y).algorithm, Algorithm::ThreadPerRow);
}

TYPED_TEST(BatchKernels, ValidatesOperands) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  std::mt19937_64 gen(fresh_seed());
  std::vector<Csr<T, I>> mats;
  mats.push_back(random_csr<T, I>(6, 4, 2, gen));
  mats.push_back(random_csr<T, I>(3, 9, 2, gen));
  const auto batch = BatchCsr<T, I>::from_matrices(mats);
  ASSERT_EQ(batch.total_rows(), 9);
  ASSERT_EQ(batch.total_cols(), 13);
  std::vector<T> x(13, T{1}), y(9, T{0}), short_x(12, T{1});
  try {
    batch_spmv(T{1}, batch, short_x, T{0}, y);
    ADD_FAILURE() << "expected DimensionMismatch";
  } catch (const DimensionMismatch& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("13 entries"), std::string::npos) << msg;
    EXPECT_NE(msg.find("x of 12"), std::string::npos) << msg;
  }
  EXPECT_THROW(batch_spmv(T{1}, batch, x, T{0}, x), DimensionMismatch);
  BatchOptions gpu_only;
  gpu_only.algorithm = Algorithm::Scalar;  // a GPU algorithm on a host batch
  EXPECT_THROW(batch_spmv(T{1}, batch, x, T{0}, y, gpu_only), Unsupported);
  EXPECT_THROW(batch_spmv(T{1}, batch, VectorView<const T>(x.data(), 13, Space::Device), T{0}, y),
               InvalidInput);
  // The empty batch: nothing to do, nothing read.
  const BatchCsr<T, I> empty;
  std::vector<T> none;
  const RunInfo info = batch_spmv(T{1}, empty, none, T{0}, none);
  EXPECT_EQ(info.algorithm, Algorithm::CpuRows);
}

// ---- containers ---------------------------------------------------------------

template <class T>
Array<T> arr(std::vector<T> v) {
  return Array<T>(v);
}

TYPED_TEST(BatchKernels, CsrValidationNamesTheMatrix) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using Off = std::vector<std::int64_t>;
  // Three matrices 2x3, 1x2, 2x2 with 2, 1, 3 entries.
  const auto make = [](Off rows, Off cols, Off nnz, std::vector<I> ptr, std::vector<I> col) {
    const std::size_t n = col.size();
    return BatchCsr<T, I>(arr(rows), arr(cols), arr(nnz), arr(ptr), arr(col),
                          Array<T>::filled(n, T{1}));
  };
  const Off rows{0, 2, 3, 5}, cols{0, 3, 5, 7}, nnz{0, 2, 3, 6};
  const std::vector<I> ptr{0, 1, 2, 0, 1, 0, 2, 3}, col{0, 2, 1, 0, 1, 1};
  EXPECT_NO_THROW(make(rows, cols, nnz, ptr, col));
  expect_error(
      [&] {
        auto c = col;
        c[5] = 2;  // matrix 2 has 2 columns
        make(rows, cols, nnz, ptr, c);
      },
      {"matrix 2", "col_idx[5] = 2", "[0, 2)"});
  expect_error(
      [&] {
        auto c = col;
        c[4] = 0;  // matrix 2, row 0: 0 after 0
        make(rows, cols, nnz, ptr, c);
      },
      {"matrix 2", "strictly increasing", "col_idx[4]"});
  expect_error(
      [&] {
        auto p = ptr;
        p[4] = 2;  // matrix 1's row pointer ends past its 1 entry
        make(rows, cols, nnz, p, col);
      },
      {"matrix 1", "row_ptr[4] = 2"});
  expect_error(
      [&] {
        make({0, 2, 1, 5}, cols, nnz, ptr, col);
      },
      {"row_offsets decreases at matrix 1"});
  expect_error([&] { make(rows, {0, 3, 5}, nnz, ptr, col); }, {"col_offsets has 3 entries"});
  expect_error(
      [&] {
        make(rows, cols, nnz, {0, 1, 2, 0, 1, 0, 2}, col);
      },
      {"row_ptr has 7 entries"});
  expect_error([&] { make(rows, cols, {1, 2, 3, 6}, ptr, col); }, {"nnz_offsets[0]"});
  // Uniform batches.
  expect_error(
      [] {
        BatchCsr<T, I>::uniform(3, 2, 2, arr(std::vector<I>{0, 1, 2}), arr(std::vector<I>{0, 1}),
                                Array<T>::filled(5, T{1}));
      },
      {"values has 5 entries", "= 6"});
  expect_error(
      [] {
        BatchCsr<T, I>::uniform(3, 2, 2, arr(std::vector<I>{0, 1, 2}), arr(std::vector<I>{0, 2}),
                                Array<T>::filled(6, T{1}));
      },
      {"shared pattern", "col_idx[1] = 2"});
  expect_error(
      [] {
        BatchCsr<T, I>::uniform(-1, 2, 2, arr(std::vector<I>{0, 0, 0}), arr(std::vector<I>{}),
                                Array<T>());
      },
      {"negative matrix count"});
}

TYPED_TEST(BatchKernels, CooAndEllValidationNamesTheMatrix) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using Off = std::vector<std::int64_t>;
  const Off rows{0, 2, 3, 5}, cols{0, 3, 5, 7}, nnz{0, 2, 3, 6};
  // COO: matrix 1 is 1x2, its row index 1 is out of range.
  expect_error(
      [&] {
        BatchCoo<T, I>(arr(rows), arr(cols), arr(nnz), arr(std::vector<I>{0, 1, 1, 0, 1, 1}),
                       arr(std::vector<I>{0, 2, 1, 0, 1, 1}), Array<T>::filled(6, T{1}));
      },
      {"matrix 1", "row_idx[2] = 1", "[0, 1)"});
  expect_error(
      [&] {
        BatchCoo<T, I>(arr(rows), arr(cols), arr(nnz), arr(std::vector<I>{0, 1, 0, 0, 1, 1}),
                       arr(std::vector<I>{0, 3, 1, 0, 1, 1}), Array<T>::filled(6, T{1}));
      },
      {"matrix 0", "col_idx[1] = 3"});
  {
    const BatchCoo<T, I> unsorted(arr(rows), arr(cols), arr(nnz),
                                  arr(std::vector<I>{1, 0, 0, 0, 1, 1}),
                                  arr(std::vector<I>{0, 2, 1, 0, 0, 1}), Array<T>::filled(6, T{1}));
    EXPECT_FALSE(unsorted.sorted());
  }
  // ELL: widths 1, 1, 2; matrix 2's row 1 claims 3 entries.
  const auto ell = [&](std::vector<I> len, std::vector<I> col) {
    return BatchEll<T, I>(arr(rows), arr(cols), arr(std::vector<I>{1, 1, 2}), arr(len), arr(col),
                          Array<T>::filled(7, T{1}));
  };
  EXPECT_NO_THROW(ell({1, 1, 1, 1, 2}, {0, 2, 1, 0, 0, 0, 1}));
  expect_error(
      [&] {
        ell({1, 1, 1, 1, 3}, {0, 2, 1, 0, 1, 0, 1});
      },
      {"matrix 2", "row_len[4] = 3", "width 2"});
  expect_error(
      [&] {
        ell({1, 1, 1, 1, 2}, {0, 2, 1, 0, 1, 0, 1});
      },
      {"matrix 2", "strictly increasing", "col_idx[6] = 1"});
  expect_error(
      [&] {
        ell({1, 1, 1, 1, 2}, {0, 3, 1, 0, 0, 0, 1});
      },
      {"matrix 0", "col_idx[1] = 3"});
  expect_error(
      [&] {
        BatchEll<T, I>(arr(rows), arr(cols), arr(std::vector<I>{1, -1, 2}),
                       arr(std::vector<I>{1, 1, 0, 1, 2}), arr(std::vector<I>{}), Array<T>());
      },
      {"matrix 1", "negative"});
}

TYPED_TEST(BatchKernels, RoundTripsAreExact) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto batches = test_batches<T, I>(fresh_seed());
  for (const auto& tb : batches) {
    const auto& mats = tb.matrices;
    const auto n = static_cast<std::int64_t>(mats.size());
    std::int64_t nnz = 0, rows = 0, cols = 0;
    for (const auto& A : mats) {
      nnz += A.nnz();
      rows += A.rows();
      cols += A.cols();
    }
    for (const auto* base : {static_cast<const detail::BatchBase*>(&tb.csr),
                             static_cast<const detail::BatchBase*>(&tb.coo),
                             static_cast<const detail::BatchBase*>(&tb.ell)}) {
      EXPECT_EQ(base->count(), n) << tb.name;
      EXPECT_EQ(base->total_rows(), rows) << tb.name;
      EXPECT_EQ(base->total_cols(), cols) << tb.name;
      EXPECT_EQ(base->nnz(), nnz) << tb.name;
    }
    EXPECT_EQ(tb.csr.is_uniform(), tb.name == "uniform");
    EXPECT_TRUE(tb.coo.sorted()) << tb.name;
    EXPECT_GT(tb.csr.bytes(), 0u);
    const auto csr_copy = tb.csr.clone();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::string what = fmt::format("{} matrix {}", tb.name, i);
      EXPECT_EQ(tb.csr.rows(i), mats[i].rows()) << what;
      EXPECT_EQ(tb.csr.nnz(i), mats[i].nnz()) << what;
      expect_same_csr(tb.csr.csr(i), mats[i], what + " (csr)");
      expect_same_csr(csr_copy.csr(i), mats[i], what + " (csr clone)");
      expect_same_csr(tb.coo.csr(i), mats[i], what + " (coo)");
      expect_same_csr(tb.ell.csr(i), mats[i], what + " (ell)");
      expect_same_csr(tb.coo_unsorted.csr(i), mats[i], what + " (unsorted coo, duplicates summed)");
    }
  }
  EXPECT_THROW(batches.front().csr.csr(batches.front().csr.count()), InvalidInput);
}

// ---- planning of the CUDA kernels (host code) -----------------------------------

TEST(BatchPlanning, VectorLengthAndShares) {
  EXPECT_EQ(detail::vector_length(0, 5), 1);
  EXPECT_EQ(detail::vector_length(5, 5), 1);
  EXPECT_EQ(detail::vector_length(6, 5), 2);
  EXPECT_EQ(detail::vector_length(40, 5), 8);
  EXPECT_EQ(detail::vector_length(41, 5), 16);
  EXPECT_EQ(detail::vector_length(1000, 1), 32);
  EXPECT_EQ(detail::vector_length(7, 0), 1);
  for (std::int64_t nnz : {0, 1, 7, 31, 32, 1000, 123457})
    for (std::int64_t parts : {1, 3, 8, 32}) {
      EXPECT_EQ(detail::chunk_begin(0, nnz, parts), 0);
      EXPECT_EQ(detail::chunk_begin(parts, nnz, parts), nnz);
      for (std::int64_t p = 0; p < parts; ++p) {
        const std::int64_t len =
            detail::chunk_begin(p + 1, nnz, parts) - detail::chunk_begin(p, nnz, parts);
        EXPECT_GE(len, nnz / parts);
        EXPECT_LE(len, nnz / parts + 1);
      }
    }
}

TEST(BatchPlanning, BalancedStartRowsHoldTheirFirstNonzero) {
  std::mt19937_64 gen(fresh_seed());
  std::vector<Csr<double, std::int32_t>> mats;
  for (int i = 0; i < 30; ++i)
    mats.push_back(random_csr<double, std::int32_t>(gen() % 300, 50, (gen() % 40) / 4.0, gen));
  const auto batch = BatchCsr<double, std::int32_t>::from_matrices(mats);
  const std::vector<std::int32_t> ptr = batch.row_ptr().to_vector();
  for (int warps : {1, 3, 8}) {
    const auto starts = detail::balanced_start_rows<std::int32_t>(
        batch.host_row_offsets(), batch.host_nnz_offsets(), ptr, false, warps);
    ASSERT_EQ(starts.size(), mats.size() * warps);
    for (std::size_t i = 0; i < mats.size(); ++i) {
      const std::int32_t* p = ptr.data() + batch.host_row_offsets()[i] + i;
      const std::int64_t nnz = batch.nnz(static_cast<std::int64_t>(i));
      for (int w = 0; w < warps; ++w) {
        const std::int64_t k = detail::chunk_begin(w, nnz, warps);
        if (k >= nnz) continue;
        const std::int32_t r = starts[i * warps + w];
        EXPECT_LE(p[r], k) << "matrix " << i << " warp " << w;
        EXPECT_LT(k, p[r + 1]) << "matrix " << i << " warp " << w;
      }
    }
  }
}

TEST(BatchPlanning, SizedScheduleCoversEveryRowOnce) {
  std::mt19937_64 gen(fresh_seed());
  for (int trial = 0; trial < 20; ++trial) {
    // Sizes from 0 to 3000 rows, mostly small, some without rows or columns.
    std::vector<Csr<float, std::int32_t>> mats;
    const int count = 1 + static_cast<int>(gen() % 300);
    for (int i = 0; i < count; ++i) {
      const std::int64_t pick = gen() % 10;
      const std::int64_t rows = pick == 0 ? 0 : pick < 8 ? gen() % 40 : gen() % 3000;
      const std::int64_t cols = gen() % 7 == 0 ? 0 : 1 + gen() % 3000;
      mats.push_back(random_csr<float, std::int32_t>(rows, cols, (gen() % 20) / 2.0, gen));
    }
    const auto batch = BatchCsr<float, std::int32_t>::from_matrices(mats);
    detail::SizedParams params;
    params.target_work = 1 + static_cast<std::int64_t>(gen() % 4000);
    params.max_matrices = 1 + static_cast<std::int64_t>(gen() % 64);
    params.stage_capacity = static_cast<std::int64_t>(gen() % 5000);
    const auto rows = batch.host_row_offsets();
    const auto cols = batch.host_col_offsets();
    const auto nnz = batch.host_nnz_offsets();
    int fetched = 0;
    const auto plan = detail::plan_sized_blocks(
        rows, cols, nnz,
        [&](std::int64_t i) {
          ++fetched;
          const auto p = batch.csr(i).row_ptr().to_vector();
          return std::vector<std::int64_t>(p.begin(), p.end());
        },
        params);
    const std::string what =
        fmt::format("trial {}: target {}, max {}, capacity {}", trial, params.target_work,
                    params.max_matrices, params.stage_capacity);
    std::int64_t next_row = 0, staged_max = 0;
    for (const auto& t : plan.tasks) {
      ASSERT_EQ(t.row_begin, next_row) << what;  // in order, no gap, no overlap
      ASSERT_LT(t.row_begin, t.row_end) << what;
      ASSERT_LT(t.first, t.last) << what;
      ASSERT_LE(t.last - t.first, params.max_matrices) << what;
      ASSERT_LE(rows[t.first], t.row_begin) << what;
      ASSERT_GE(rows[t.last], t.row_end) << what;
      ASSERT_TRUE(t.vector_length >= 1 && t.vector_length <= 32 &&
                  (t.vector_length & (t.vector_length - 1)) == 0)
          << what;
      std::int64_t work = 0;
      for (std::int64_t i = t.first; i < t.last; ++i) {
        const std::int64_t r0 = std::max(rows[i], t.row_begin),
                           r1 = std::min(rows[i + 1], t.row_end);
        if (r0 >= r1) continue;
        const auto p = batch.csr(i).row_ptr().to_vector();
        work += (r1 - r0) + p[r1 - rows[i]] - p[r0 - rows[i]];
      }
      if (t.staged) {
        const std::int64_t x = cols[t.last] - cols[t.first];
        EXPECT_LE(x, params.stage_capacity) << what;
        staged_max = std::max(staged_max, x);
        EXPECT_LE(work, params.target_work) << what;
      } else {
        EXPECT_EQ(t.last, t.first + 1) << what << ": a split task holds one matrix";
        EXPECT_TRUE(work <= params.target_work || t.row_end - t.row_begin == 1) << what;
      }
      next_row = t.row_end;
    }
    EXPECT_EQ(next_row, batch.total_rows()) << what;
    EXPECT_EQ(plan.stage_entries, staged_max) << what;
    EXPECT_LE(fetched, count) << what;
  }
}

}  // namespace
}  // namespace spx::test

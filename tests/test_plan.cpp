// Plans and the advisor (include/spx/plan.hpp, advisor.hpp): cases whose
// answer is known (a stencil goes diagonal at large N and stays CSR at N = 1;
// a power-law matrix is never padded), footprints predicted without
// conversion equal the converted formats' bytes, memory limits, products and
// value updates against the CSR product, tuning, bad arguments, and a device
// plan (skipped without a GPU).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "common.hpp"
#include "core/advisor_model.hpp"
#include "core/padded_size.hpp"
#include "core/row_lengths.hpp"
#include "core/stats.hpp"
#include "reference/reference.hpp"
#include "spx/advisor.hpp"
#include "spx/analysis.hpp"
#include "spx/convert.hpp"
#include "spx/generate.hpp"
#include "spx/ops.hpp"
#include "spx/plan.hpp"
#include "spx/registry.hpp"

namespace spx::test {
namespace {

/// The model's bandwidth and compute scale are fixed, so that the answers do
/// not depend on the machine or its load: the copy bandwidth of the machine
/// the CPU table was calibrated on
/// (advisor-cpu-calibration-AMD-EPYC-20261126-s11-idle) and a compute scale of
/// 1, that machine's (its costs per row and per entry are seconds there;
/// docs/advisor.md).
constexpr double kHostGbs = 43.5;

template <Value T, Index I>
Csr<T, I> gen(const char* spec) {
  return generate<T, I>(parse_gen_spec(spec));
}

AdvisorOptions host_options() {
  AdvisorOptions o;
  o.backend = Backend::Cpu;
  o.bandwidth_gbs = kHostGbs;
  o.compute_scale = 1;
  return o;
}

/// Plan options with the host model's bandwidth (the rest as by default).
PlanOptions host_plan_options() {
  PlanOptions o;
  o.bandwidth_gbs = kHostGbs;
  o.compute_scale = 1;
  return o;
}

Workload products(std::int64_t n) {
  Workload w;
  w.products = n;
  return w;
}

template <Value T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(0.5, 1.5);
  std::vector<T> v(n);
  for (auto& x : v)
    x = static_cast<T>((rng() & 1) ? d(rng) : -d(rng));
  return v;
}

template <Value T>
void expect_near_all(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-11;
  int bad = 0;
  for (std::size_t i = 0; i < got.size() && bad < 5; ++i) {
    const double scale = std::max(1.0, std::abs(static_cast<double>(want[i])));
    if (!(std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <= tol * scale)) {
      ADD_FAILURE() << what << ": y[" << i << "] = " << got[i] << ", expected " << want[i];
      ++bad;
    }
  }
}

/// y = A x through spx::spmv on the CSR.
template <Value T, Index I>
std::vector<T> csr_product(const Csr<T, I>& A, const std::vector<T>& x) {
  std::vector<T> y(static_cast<std::size_t>(A.rows()));
  spmv(T{1}, A, x, T{0}, y);
  return y;
}

/// C = A B through the plan equals spx::spmm, for a random row-major B of
/// `cols` columns.
void expect_spmm_plan_matches(const Plan<double, std::int32_t>& plan,
                              const Csr<double, std::int32_t>& A, std::int64_t cols,
                              std::uint64_t seed, const char* what) {
  const auto B = random_vector<double>(static_cast<std::size_t>(A.cols() * cols), seed);
  std::vector<double> C(static_cast<std::size_t>(A.rows() * cols)), want(C.size());
  plan.run(1.0, DenseView<const double>{B.data(), A.cols(), cols, cols}, 0.0,
           DenseView<double>{C.data(), A.rows(), cols, cols});
  spmm(1.0, A, DenseView<const double>{B.data(), A.cols(), cols, cols}, 0.0,
       DenseView<double>{want.data(), A.rows(), cols, cols});
  expect_near_all(C, want, what);
}

bool padded(Format f) {
  return f == Format::Ell || f == Format::Sell || f == Format::Hll || f == Format::Dia ||
         f == Format::Hdi;
}

// ---- known answers ------------------------------------------------------------------

TEST(Advisor, StencilStaysCsrForOneProductAndGoesDiagonalForMany) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=300,points=5");
  const Advice one = advise(A, products(1), host_options());
  EXPECT_EQ(one.chosen().format, Format::Csr) << one.why;
  const Advice many = advise(A, products(10000), host_options());
  EXPECT_TRUE(many.chosen().format == Format::Dia || many.chosen().format == Format::Hdi)
      << many.why;
  EXPECT_EQ(many.regularity, "regular");
  // The pick's break-even against CSR lies between the two workloads.
  EXPECT_GT(many.chosen().break_even, 1.0);
  EXPECT_LT(many.chosen().break_even, 10000.0);
}

TEST(Advisor, PowerLawMatricesAreNeverPadded) {
  for (const char* spec : {"chunglu:n=20000,degree=8", "rmat:scale=14,degree=8"}) {
    const auto A = gen<double, std::int32_t>(spec);
    for (std::int64_t n : {1, 100, 10000, 1000000}) {
      const Advice a = advise(A, products(n), host_options());
      EXPECT_FALSE(padded(a.chosen().format))
          << spec << " N = " << n << ": " << a.why << " (" << a.regularity << ")";
    }
  }
}

// The CPU's compute model (docs/advisor.md, "On the CPU, a compute model"):
// answers measured on the held-out session-11 run
// (bench/results/advisor-cpu-eval-AMD-EPYC-20261126-s11-idle.txt), where the
// bytes model got them wrong.

/// The predicted product of the candidate of format f (its first kernel).
double product_of(const Advice& a, Format f) {
  for (const Candidate& c : a.candidates)
    if (c.format == f) return c.product_s;
  ADD_FAILURE() << "no " << to_string(f) << " candidate";
  return 0;
}

TEST(Advisor, CpuCsrCostsTheSameInBothPrecisionsAndDiaHalves) {
  // CSR's merge path is bound by its rows and nonzeros, not its bytes: in f32
  // it took 0.90 of its f64 time (median of the run), DIA 0.50.
  const char* spec = "stencil2d:n=300,points=5";
  const Advice f64 = advise(gen<double, std::int32_t>(spec), products(1), host_options());
  const Advice f32 = advise(gen<float, std::int32_t>(spec), products(1), host_options());
  EXPECT_NEAR(product_of(f32, Format::Csr) / product_of(f64, Format::Csr), 1.0, 1e-9);
  EXPECT_LT(product_of(f32, Format::Dia) / product_of(f64, Format::Dia), 0.6);
}

TEST(Advisor, CpuBandedMatrixGoesDiagonalInSinglePrecision) {
  // banded-n57000-bands8 in f32: DIA 30 us a product, CSR 73 us (as in f64),
  // the conversion 0.9 ms: DIA is the best at N = 1000, where the bytes model
  // kept CSR (0.43 of the best).
  const auto A = gen<float, std::int32_t>("banded:n=57000,bands=8");
  const Advice a = advise(A, products(1000), host_options());
  EXPECT_TRUE(a.chosen().format == Format::Dia || a.chosen().format == Format::Hdi) << a.why;
}

TEST(Advisor, CpuDenseBlocksGoBcsr) {
  // fem-b6-n25 in f64: BCSR (6 x 6 blocks) 13 us a product, DIA 31, CSR 34,
  // the conversion 1.2 ms: BCSR is the best at N = 1000, where the bytes
  // model picked DIA (0.46 of the best). BCSR's cost is per block.
  const auto A = gen<double, std::int32_t>("fem:n=25,block=6");
  const Advice a = advise(A, products(1000), host_options());
  EXPECT_EQ(a.chosen().format, Format::Bcsr) << a.why;
}

/// A with its columns renumbered by a random permutation (rows, row lengths
/// and nonzeros unchanged; the columns of each row sorted again).
Csr<double, std::int32_t> scatter_columns(const Csr<double, std::int32_t>& A, std::uint64_t seed) {
  std::vector<std::int32_t> perm(static_cast<std::size_t>(A.cols()));
  for (std::size_t j = 0; j < perm.size(); ++j)
    perm[j] = static_cast<std::int32_t>(j);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
  std::vector<std::int32_t> ptr(A.row_ptr().begin(), A.row_ptr().end()), col;
  std::vector<double> val;
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    std::vector<std::int32_t> row;
    for (std::int32_t k = ptr[r]; k < ptr[r + 1]; ++k)
      row.push_back(perm[static_cast<std::size_t>(A.col_idx()[k])]);
    std::sort(row.begin(), row.end());
    col.insert(col.end(), row.begin(), row.end());
    val.insert(val.end(), row.size(), 1.0);
  }
  return Csr<double, std::int32_t>(A.rows(), A.cols(), Array<std::int32_t>(ptr),
                                   Array<std::int32_t>(col), Array<double>(val));
}

TEST(Advisor, CpuScatteredColumnsCostCsrMore) {
  // The same rows and nonzeros, the columns renumbered at random: CSR's
  // gathers of x miss (MatrixStats::scatter, docs/advisor.md, "Scattered
  // columns"), and the model prices them.
  const auto A = gen<double, std::int32_t>("banded:n=57000,bands=8");
  const auto B = scatter_columns(A, 17);
  const Advice a = advise(A, products(1), host_options());
  const Advice b = advise(B, products(1), host_options());
  EXPECT_LT(a.stats.scatter, 0.2);
  EXPECT_GT(b.stats.scatter, 0.9);
  EXPECT_EQ(a.stats.row_max, b.stats.row_max);
  EXPECT_GT(product_of(b, Format::Csr), 1.2 * product_of(a, Format::Csr));
}

TEST(Advisor, CpuRoadNetworkLeavesCsr) {
  // road-n70000 in f64 (a random numbering; scatter 1.0): CSR 166 us a
  // product, JAD 76, the conversion 0.3 ms. Without the scatter term the
  // model kept CSR at every N (0.46 of the best at N = 1000).
  const auto A = gen<double, std::int32_t>("road:n=70000");
  const Advice a = advise(A, products(1000), host_options());
  EXPECT_NE(a.chosen().format, Format::Csr) << a.why;
  EXPECT_GT(a.stats.scatter, 0.9);
}

/// An n x n matrix with every entry stored (bcsstk02 is 66 x 66, dense).
Csr<double, std::int32_t> dense_csr(std::int32_t n) {
  std::vector<std::int32_t> ptr(static_cast<std::size_t>(n) + 1), col;
  std::vector<double> val;
  for (std::int32_t r = 0; r < n; ++r) {
    for (std::int32_t c = 0; c < n; ++c) {
      col.push_back(c);
      val.push_back(1.0 + 0.01 * ((r + c) % 7));
    }
    ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(col.size());
  }
  return Csr<double, std::int32_t>(n, n, Array<std::int32_t>(ptr), Array<std::int32_t>(col),
                                   Array<double>(val));
}

TEST(Advisor, CpuFixedCostIsFittedNotTheSmallestTimes) {
  // bcsstk02 (66 x 66, dense) in f64, held-out run: BCSR 0.84 us a product,
  // DIA 1.71, CSR 1.90, the BCSR conversion 32 us. With the 10th percentile
  // of the cache-resident times as the fixed cost (BCSR 1.64 us, DIA 2.89,
  // CSR 0.90: the time of each kernel's smaller members, work included) the
  // model predicted BCSR 1.87, DIA 3.99, CSR 1.60 and kept CSR at N = 1000
  // (0.46 of the best); the fitted cost per call (ComputeCost::fixed_s,
  // docs/advisor.md) predicts the products within a factor of 2 and picks
  // BCSR.
  const auto A = dense_csr(66);
  const Advice a = advise(A, products(1000), host_options());
  EXPECT_EQ(a.chosen().format, Format::Bcsr) << a.why;
  for (const auto& [f, measured] :
       {std::pair{Format::Bcsr, 0.84e-6}, {Format::Dia, 1.71e-6}, {Format::Csr, 1.90e-6}}) {
    EXPECT_LT(product_of(a, f), 2.0 * measured) << to_string(f);
    EXPECT_GT(product_of(a, f), 0.5 * measured) << to_string(f);
  }
  // A call that does no work costs about what the smallest member took
  // (pivtol, 102 rows: 0.44-0.91 us, the atomic kernels aside; fitted 0.35-1.2
  // us) and less than the 10th percentile it replaces.
  for (const Candidate& c : a.candidates) {
    if (c.algorithm == Algorithm::CpuAtomic) continue;
    const detail::ComputeCost cc = detail::compute_cost(Backend::Cpu, c.format, c.algorithm);
    ASSERT_TRUE(cc.found) << to_string(c.format);
    EXPECT_LT(cc.fixed_s, 1.5e-6) << to_string(c.format);
    EXPECT_LE(cc.fixed_s, detail::product_fixed_s(Backend::Cpu, c.format, c.algorithm))
        << to_string(c.format);
  }
}

/// An n x n tridiagonal matrix (3n - 2 nonzeros), symmetric.
Csr<double, std::int32_t> tridiagonal_csr(std::int32_t n) {
  std::vector<std::int32_t> ptr(static_cast<std::size_t>(n) + 1), col;
  std::vector<double> val;
  for (std::int32_t r = 0; r < n; ++r) {
    for (std::int32_t c = std::max(0, r - 1); c <= std::min(n - 1, r + 1); ++c) {
      col.push_back(c);
      val.push_back(c == r ? 4.0 : -1.0);
    }
    ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(col.size());
  }
  return Csr<double, std::int32_t>(n, n, Array<std::int32_t>(ptr), Array<std::int32_t>(col),
                                   Array<double>(val));
}

TEST(Advisor, CpuSerialPathFollowsEachKernelsWork) {
  // threads_for (src/cpu/common.hpp) gives a kernel one thread below two
  // grains of 4096 units, each kernel counting its own units
  // (detail::cpu_thread_work). On a 2500 x 2500 tridiagonal matrix (7498
  // nonzeros) CSR's merge path (rows + nonzeros: 9998) and SYM_DIA (2 x rows
  // x 2 diagonals: 10000) run on two threads, COO (nonzeros: 7498), DIA (rows
  // x 3 diagonals: 7500) and SYM_CSR (stored entries + rows: 4999 + 2500) on
  // one; the model adds serial_s per entry to those only.
  EXPECT_TRUE(detail::cpu_runs_serial(8191));
  EXPECT_FALSE(detail::cpu_runs_serial(8192));
  const std::int64_t m = 2500, nnz = 3 * m - 2;
  EXPECT_EQ(detail::cpu_thread_work(Format::Csr, m, nnz, 0), 9998);
  EXPECT_EQ(detail::cpu_thread_work(Format::Coo, m, nnz, 0), 7498);
  EXPECT_EQ(detail::cpu_thread_work(Format::Dia, m, nnz, 3 * m), 7500);
  EXPECT_EQ(detail::cpu_thread_work(Format::SymDia, m, nnz, 2 * m), 10000);
  EXPECT_EQ(detail::cpu_thread_work(Format::SymCsr, m, nnz, 4999), 7499);
  EXPECT_EQ(detail::cpu_thread_work(Format::Bcsr, m, nnz, 1250 * 4), 5000);
  EXPECT_EQ(detail::cpu_thread_work(Format::Dia, m, 0, 0), m);  // no diagonal: max(nd, 1)

  const auto A = tridiagonal_csr(static_cast<std::int32_t>(m));
  AdvisorOptions o = host_options();
  o.all_csr_kernels = true;
  const Advice a = advise(A, products(1), o);
  const double bw = o.bandwidth_gbs * 1e9;
  int serial_seen = 0, parallel_seen = 0;
  for (const Candidate& c : a.candidates) {
    const detail::ComputeCost cc = detail::compute_cost(Backend::Cpu, c.format, c.algorithm);
    if (!c.feasible || !cc.found || c.format == Format::Bcsr) continue;  // BCSR: blocks
    const bool serial = c.format == Format::Coo || c.format == Format::Dia ||
                        c.format == Format::SymCsr || c.format == Format::Csc;
    const bool parallel = c.format == Format::Csr || c.format == Format::SymDia;
    if (!serial && !parallel) continue;
    const auto moved = static_cast<double>(c.bytes_moved);
    const double want =
        cc.fixed_s + cc.variable_s(moved, bw, static_cast<double>(m), static_cast<double>(nnz),
                                   a.stats.scatter, serial);
    EXPECT_NEAR(c.product_s, want, 1e-12 * want + 1e-15) << to_string(c.format);
    if (serial && cc.serial_s > 0) {
      EXPECT_GT(c.product_s,
                cc.fixed_s + cc.variable_s(moved, bw, static_cast<double>(m),
                                           static_cast<double>(nnz), a.stats.scatter, false))
          << to_string(c.format);
    }
    (serial ? serial_seen : parallel_seen) += 1;
  }
  EXPECT_GE(serial_seen, 4);  // COO's three kernels, DIA, CSC's, SYM_CSR
  EXPECT_GE(parallel_seen, 2);
}

TEST(Advisor, CudaNonzeroSplitBorrowsMergePathsCalibration) {
  // Auto takes nonzero split where it took merge path (large irregular f32
  // matrices without empty rows): until it has rows of its own, the model
  // prices it as merge path there, not as the median of CSR's kernels. On
  // regular matrices it stands in for the V-lane kernel and keeps that
  // median. Its fixed cost is merge path's (the same two launches).
  using detail::Precision;
  using detail::Regularity;
  for (const Precision p : {Precision::F32, Precision::F64}) {
    const auto eff = [p](Algorithm a, Regularity c) {
      return detail::product_efficiency(Backend::Cuda, Format::Csr, a, c, p);
    };
    for (const Regularity c : {Regularity::Skewed, Regularity::Irregular}) {
      EXPECT_EQ(eff(Algorithm::NonzeroSplit, c).efficiency, eff(Algorithm::MergePath, c).efficiency)
          << detail::to_string(c);
      EXPECT_EQ(eff(Algorithm::NonzeroSplit, c).calibrated, eff(Algorithm::MergePath, c).calibrated)
          << detail::to_string(c);
    }
    EXPECT_FALSE(eff(Algorithm::NonzeroSplit, Regularity::Regular).calibrated);
    EXPECT_NE(eff(Algorithm::NonzeroSplit, Regularity::Regular).efficiency,
              eff(Algorithm::MergePath, Regularity::Regular).efficiency);
  }
  EXPECT_EQ(detail::product_fixed_s(Backend::Cuda, Format::Csr, Algorithm::NonzeroSplit),
            detail::product_fixed_s(Backend::Cuda, Format::Csr, Algorithm::MergePath));
  EXPECT_EQ(detail::calibrated_algorithm(Backend::Cuda, Format::Csr, Algorithm::Adaptive,
                                         Regularity::Skewed),
            "adaptive");
}

// The look-ups of the calibrated tables, on rows made here (not the
// generated table's numbers): a precision's own row is preferred to the
// pooled ("any") one, a row with fewer than kMinRecords records is passed
// over, and the fallbacks (medians over the classes, the format's kernels)
// use the pooled rows only. A fixed cost of a call from too few records
// gives way to the stand-in format's (SYM_DIA: DIA's).
TEST(Advisor, ModelLooksUpPerPrecisionRowsFirst) {
  using detail::Precision;
  using detail::Regularity;
  const Backend b = Backend::Cuda;
  const int enough = detail::kMinRecords, few = detail::kMinRecords - 1;
  const detail::RefRow ref[] = {
      {b, "regular", "any", 0.9, 5e-6, 100},   {b, "regular", "f32", 0.8, 5e-6, enough},
      {b, "regular", "f64", 1.0, 5e-6, few},   {b, "skewed", "any", 0.5, 5e-6, 30},
      {b, "skewed", "f32", 0.1, 5e-6, enough}, {Backend::Cpu, "regular", "any", 1.5, 1e-6, 30},
  };
  EXPECT_EQ(detail::reference_efficiency_in(ref, b, Regularity::Regular, Precision::F32), 0.8);
  EXPECT_EQ(detail::reference_efficiency_in(ref, b, Regularity::Regular, Precision::F64), 0.9);
  EXPECT_EQ(detail::reference_efficiency_in(ref, b, Regularity::Skewed, Precision::F32), 0.1);
  EXPECT_EQ(detail::reference_efficiency_in(ref, b, Regularity::Skewed, Precision::F64), 0.5);
  // No irregular row: the median of the backend's pooled rows, either precision.
  for (const Precision p : {Precision::F32, Precision::F64})
    EXPECT_DOUBLE_EQ(detail::reference_efficiency_in(ref, b, Regularity::Irregular, p), 0.7);
  EXPECT_EQ(detail::reference_efficiency_in({}, b, Regularity::Regular, Precision::F32), 0.5);

  const detail::EffRow rel[] = {
      {b, "hdi", "diagonal", "regular", "any", 0.9, 80},
      {b, "hdi", "diagonal", "regular", "f32", 0.6, enough},
      {b, "hdi", "diagonal", "regular", "f64", 1.2, few},
      {b, "hdi", "diagonal", "skewed", "any", 0.1, 12},
      {b, "hdi", "other", "regular", "f64", 2.0, 40},
  };
  // The look-up of HDI's algorithm `a` in class c and precision p gives
  // `relative`, from a calibrated row or not.
  const auto expect = [&](std::string_view a, Regularity c, Precision p, double relative,
                          bool calibrated) {
    SCOPED_TRACE(fmt::format("{} {} {}", a, detail::to_string(c), detail::to_string(p)));
    const auto r = detail::relative_efficiency_in(rel, b, "hdi", a, c, p);
    ASSERT_TRUE(r);
    EXPECT_DOUBLE_EQ(r->relative, relative);
    EXPECT_EQ(r->calibrated, calibrated);
  };
  expect("diagonal", Regularity::Regular, Precision::F32, 0.6, true);
  expect("diagonal", Regularity::Regular, Precision::F64, 0.9, true);  // f64's row: too few
  // The kernel's pooled median over the classes (0.9 and 0.1), not its f32 row.
  for (const Precision p : {Precision::F32, Precision::F64})
    expect("diagonal", Regularity::Irregular, p, 0.5, false);
  // A kernel without pooled rows: the format's pooled median in the class,
  // also where it has a per-precision row of its own.
  expect("other", Regularity::Regular, Precision::F32, 0.9, false);
  expect("other", Regularity::Regular, Precision::F64, 2.0, true);
  EXPECT_FALSE(detail::relative_efficiency_in(rel, b, "dia", "diagonal", Regularity::Regular,
                                              Precision::F32));

  const detail::FixedRow one[] = {{b, "sym_dia", "diagonal", 30e-6, 1},
                                  {b, "dia", "diagonal", 8e-6, 150}};
  EXPECT_EQ(detail::fixed_cost_in(one, b, "sym_dia", "dia", "diagonal"), 8e-6);
  const detail::FixedRow three[] = {{b, "sym_dia", "diagonal", 30e-6, enough},
                                    {b, "dia", "diagonal", 8e-6, 150}};
  EXPECT_EQ(detail::fixed_cost_in(three, b, "sym_dia", "dia", "diagonal"), 30e-6);
  EXPECT_FALSE(detail::fixed_cost_in(one, b, "sym_dia", "dia", "other"));
  EXPECT_FALSE(detail::fixed_cost_in(one, Backend::Cpu, "sym_dia", "dia", "diagonal"));
}

// The generated table's look-ups agree with each other for both precisions:
// a conversion's efficiency is the reference's of its precision over the
// conversion's cost in reference products.
TEST(Advisor, ModelEfficienciesPerPrecisionAreConsistent) {
  using detail::Precision;
  using detail::Regularity;
  for (const Backend b : {Backend::Cpu, Backend::Cuda})
    for (const Regularity c : {Regularity::Regular, Regularity::Irregular, Regularity::Skewed})
      for (const Precision p : {Precision::F32, Precision::F64}) {
        const double ref = detail::reference_efficiency(b, c, p);
        EXPECT_GT(ref, 0.0);
        for (const Format f : kAllFormats)
          EXPECT_DOUBLE_EQ(
              detail::conversion_efficiency(b, f, c, p) * detail::conversion_products(b, f), ref)
              << to_string(f);
      }
}

TEST(Advisor, CudaModelAnswersWithoutADevice) {
  // The model needs no GPU (only the kernels registered in the build): the
  // CUDA answers can be checked here; a CPU-only build has no CUDA kernel.
  AdvisorOptions o;
  o.backend = Backend::Cuda;
  o.bandwidth_gbs = 3000;
  const auto A = gen<double, std::int32_t>("chunglu:n=20000,degree=8");
  if (!cuda_compiled()) {
    EXPECT_CONTAINS(message_of<Unsupported>([&] { advise(A, products(10), o); }),
                    "no spmv kernel on the cuda backend");
    return;
  }
  for (std::int64_t n : {1, 100, 10000}) {
    const Advice a = advise(A, products(n), o);
    EXPECT_FALSE(padded(a.chosen().format)) << a.why;
    EXPECT_EQ(a.backend, Backend::Cuda);
  }
  const auto S = gen<double, std::int32_t>("stencil2d:n=300,points=5");
  EXPECT_EQ(advise(S, products(1), o).chosen().format, Format::Csr);
}

// The advisor does not offer a CUDA BCSR kernel that refuses the block size
// it converts with (session 27: fem-b6-n250, b = 6, was advised
// block_sub_warp, which needs b <= 4, at 1000 products); no GPU needed.
TEST(Advisor, CudaBcsrKernelsThatRefuseTheBlockSizeAreNotCandidates) {
  AdvisorOptions o;
  o.backend = Backend::Cuda;
  o.bandwidth_gbs = 3000;
  const auto A = gen<double, std::int32_t>("fem:n=12,block=6");
  if (!cuda_compiled()) {
    EXPECT_CONTAINS(message_of<Unsupported>([&] { advise(A, products(1000), o); }),
                    "no spmv kernel on the cuda backend");
    return;
  }
  const auto bcsr = [&](const Advice& a, Algorithm alg) {
    for (const Candidate& c : a.candidates)
      if (c.format == Format::Bcsr && c.algorithm == alg) return c;
    ADD_FAILURE() << "no candidate bcsr/" << to_string(alg);
    return Candidate{};
  };
  o.convert.block_size = 6;
  const Advice a6 = advise(A, products(1000), o);
  EXPECT_FALSE(bcsr(a6, Algorithm::BlockSubWarp).feasible);
  EXPECT_CONTAINS(bcsr(a6, Algorithm::BlockSubWarp).reason, "needs b <= 4");
  EXPECT_FALSE(bcsr(a6, Algorithm::BlockByBlock).feasible);
  EXPECT_CONTAINS(bcsr(a6, Algorithm::BlockByBlock).reason, "needs b <= 5");
  EXPECT_FALSE(bcsr(a6, Algorithm::BlockRowShared).feasible);
  EXPECT_TRUE(bcsr(a6, Algorithm::BlockByColumn).feasible)
      << bcsr(a6, Algorithm::BlockByColumn).reason;
  EXPECT_TRUE(a6.chosen().feasible);
  if (a6.chosen().format == Format::Bcsr) {
    EXPECT_EQ(a6.chosen().algorithm, Algorithm::BlockByColumn);
  }
  // With 2 x 2 blocks (6 x 6 ones split), block_sub_warp runs.
  o.convert.block_size = 2;
  const Advice a2 = advise(A, products(1000), o);
  EXPECT_TRUE(bcsr(a2, Algorithm::BlockSubWarp).feasible)
      << bcsr(a2, Algorithm::BlockSubWarp).reason;
  EXPECT_FALSE(bcsr(a2, Algorithm::BlockRowShared).feasible);
}

TEST(Plan, DeviceBandwidthIsMeasured) {
  SPX_REQUIRE_GPU_OR_SKIP();
  EXPECT_GT(advisor_bandwidth(Backend::Cuda), 50.0);
}

// CUDA: CSR is offered with the kernel its Auto rule picks on the device copy
// (the rule from the counts equals the rule from the matrix), every CSR
// kernel when asked, and a plan that forces another CSR kernel still gets it.
TEST(Plan, DeviceAdvisorOffersCsrWithItsAutoKernel) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = double;
  using I = std::int32_t;
  const auto count_csr = [](const Advice& a) {
    return std::ranges::count_if(a.candidates,
                                 [](const Candidate& c) { return c.format == Format::Csr; });
  };
  for (const char* spec : {"random:n=3000,degree=6", "stencil2d:n=400", "chunglu:n=200000,degree=8",
                           "random:n=300000,degree=40"}) {
    SCOPED_TRACE(spec);
    const auto A = gen<T, I>(spec);
    const Csr<T, I> dA = A.to(Space::Device);
    const Algorithm want =
        Registry<T, I>::instance().choose_spmv(MatrixRef<T, I>{&dA}, Backend::Cuda);
    AdvisorOptions o;
    o.backend = Backend::Cuda;
    const Advice a = advise(A, products(1), o);
    ASSERT_EQ(count_csr(a), 1);
    for (const Candidate& c : a.candidates) {
      if (c.format == Format::Csr) {
        EXPECT_EQ(c.algorithm, want);
      }
    }
    o.all_csr_kernels = true;
    EXPECT_GT(count_csr(advise(A, products(1), o)), 3);
  }
  const auto A = gen<T, I>("stencil2d:n=100");
  PlanOptions po;
  po.format = Format::Csr;
  po.algorithm = Algorithm::MergePath;
  const auto dA = A.to(Space::Device);
  const Plan<T, I> plan(dA, products(1), po);
  EXPECT_EQ(plan.report().algorithm, Algorithm::MergePath);
}

// The row lengths the CUDA backend measures on the device (for the class
// of a plan that skips the advice) equal the host statistics: empty rows, a
// giant row among short ones, rows of 31/32/33, both precisions and index
// types. The CPU registers none (its plans classify nothing).
template <Value T, Index I>
void expect_device_row_lengths_match() {
  const char* specs[] = {"stencil2d:n=90,points=5", "chunglu:n=20000,degree=8",
                         "rmat:scale=14,degree=8", "random:n=5000,degree=32",
                         "denserows:n=30000,degree=4,dense_rows=3"};
  for (const char* spec : specs) {
    const auto A = gen<T, I>(spec);
    const MatrixStats h = analyze(A);
    const Csr<T, I> dA = A.to(Space::Device);
    const std::optional<RowLengths> d =
        Registry<T, I>::instance().csr_row_lengths(dA, Backend::Cuda);
    ASSERT_TRUE(d.has_value()) << spec;
    EXPECT_EQ(d->max, h.row_max) << spec;
    EXPECT_EQ(d->empty, h.empty_rows) << spec;
    EXPECT_DOUBLE_EQ(d->mean, h.row_mean) << spec;
    EXPECT_NEAR(d->stddev, h.row_std, 1e-9 * (1 + h.row_mean)) << spec;
    EXPECT_GT(h.row_std, 0.0) << spec;  // the cases differ from a constant length
  }
}

TEST(Plan, DeviceRowLengthsMatchTheHostStatistics) {
  SPX_REQUIRE_GPU_OR_SKIP();
  expect_device_row_lengths_match<double, std::int32_t>();
  expect_device_row_lengths_match<float, std::int64_t>();
  // Rows of 31, 32, 33 entries (one length each, then mixed), one row of
  // 2^20 among empty ones.
  using T = double;
  using I = std::int32_t;
  for (const std::vector<std::int64_t>& lengths :
       {std::vector<std::int64_t>{31, 32, 33, 32, 31, 33, 0, 0},
        std::vector<std::int64_t>{0, 0, 1 << 20, 0, 0, 0, 0, 0, 0, 0}}) {
    std::vector<I> ptr{0}, col;
    std::vector<T> val;
    for (const std::int64_t len : lengths) {
      for (std::int64_t k = 0; k < len; ++k) {
        col.push_back(static_cast<I>(k));
        val.push_back(1.0);
      }
      ptr.push_back(static_cast<I>(col.size()));
    }
    const Csr<T, I> A(static_cast<I>(lengths.size()), I{1} << 20, Array<I>(ptr), Array<I>(col),
                      Array<T>(val));
    const MatrixStats h = analyze(A);
    const Csr<T, I> dA = A.to(Space::Device);
    const RowLengths d = *Registry<T, I>::instance().csr_row_lengths(dA, Backend::Cuda);
    EXPECT_EQ(d.max, h.row_max);
    EXPECT_EQ(d.empty, h.empty_rows);
    EXPECT_NEAR(d.stddev, h.row_std, 1e-9 * (1 + h.row_mean));
  }
}

TEST(Plan, RowLengthsOnlyWhereTheBackendMeasuresThem) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=20");
  const auto& reg = Registry<double, std::int32_t>::instance();
  EXPECT_FALSE(reg.csr_row_lengths(A, Backend::Cpu).has_value());
  // The classes of the model at their edges (detail::regularity).
  using detail::Regularity;
  EXPECT_EQ(detail::regularity(8 * 10 + 64, 10.0, 5.0), Regularity::Regular);
  EXPECT_EQ(detail::regularity(8 * 10 + 65, 10.0, 0.0), Regularity::Skewed);
  EXPECT_EQ(detail::regularity(20, 10.0, 5.0001), Regularity::Irregular);
}

// The bound of a CUDA plan that keeps CSR without the advice
// (detail::csr_keep_bound), against the model's own prices as `advise`
// computes them: at the bound (rounded down) CSR's products cost at most
// every conversion alone, one product more costs more than the cheapest
// (the bound is tight where the bandwidth is given); without a bandwidth the
// bound holds at every bandwidth and is never above the one with it; the
// plan's early exit (csr_keep_bound_max) is above every bound; the CPU,
// whose products have compute rows, gets none. Every class and precision,
// CSR's CUDA kernels, small and large matrices, SpMV- and SpMM-like bytes moved.
TEST(Plan, CudaKeepBoundAgreesWithTheModel) {
  using detail::Precision;
  using detail::Regularity;
  const Backend b = Backend::Cuda;
  const double most = detail::csr_keep_bound_max(b);
  const auto cheapest_conversion = [&](Regularity c, Precision p, double csr, double gbs) {
    double least = std::numeric_limits<double>::infinity();
    for (const Format f : kAllFormats)
      if (f != Format::Csr)
        least = std::min(least, detail::conversion_fixed_s(b) +
                                    csr / (detail::conversion_efficiency(b, f, c, p) * gbs * 1e9));
    return least;
  };
  int cases = 0, fixed_cost_counted = 0;
  for (const Precision p : {Precision::F32, Precision::F64})
    for (const Regularity c : {Regularity::Regular, Regularity::Irregular, Regularity::Skewed})
      for (const Algorithm a :
           {Algorithm::Scalar, Algorithm::Vector, Algorithm::Adaptive, Algorithm::MergePath,
            Algorithm::NonzeroSplit, Algorithm::Binned, Algorithm::RowSplit})
        for (const double csr : {2e4, 1e6, 2.4e8})
          for (const double spread : {1.1, 1.6, 4.0}) {
            const double moved = csr * spread;
            const std::string what = fmt::format("{} {} {} csr {} moved {}", detail::to_string(p),
                                                 detail::to_string(c), to_string(a), csr, moved);
            const double eff = detail::product_efficiency(b, Format::Csr, a, c, p).efficiency;
            const auto product = [&](double gbs) {
              return detail::product_fixed_s(b, Format::Csr, a) + moved / (eff * gbs * 1e9);
            };
            const double any = detail::csr_keep_bound(b, a, c, p, csr, moved, std::nullopt);
            EXPECT_GE(any, 0.0) << what;
            EXPECT_LE(any, most) << what;
            for (const double gbs : {50.0, 900.0, 3000.0, 20000.0}) {
              ++cases;
              // Without a bandwidth: safe at any.
              EXPECT_LE(std::floor(any) * product(gbs), cheapest_conversion(c, p, csr, gbs))
                  << what << " at " << gbs;
              const double given = detail::csr_keep_bound(b, a, c, p, csr, moved, gbs);
              EXPECT_GE(given, any) << what << " at " << gbs;
              EXPECT_LE(given, most) << what << " at " << gbs;
              EXPECT_LE(std::floor(given) * product(gbs), cheapest_conversion(c, p, csr, gbs))
                  << what << " at " << gbs;
              EXPECT_GT((std::floor(given) + 1) * product(gbs), cheapest_conversion(c, p, csr, gbs))
                  << what << " at " << gbs;
              if (std::floor(given) > std::floor(any)) ++fixed_cost_counted;
            }
          }
  EXPECT_GT(cases, 1000);
  EXPECT_GT(fixed_cost_counted, 0);
  EXPECT_EQ(detail::csr_keep_bound(Backend::Cpu, Algorithm::CpuMerge, Regularity::Regular,
                                   Precision::F64, 1e6, 1.2e6, 40.0),
            0.0);
}

// A device plan for too few products for any conversion to repay itself
// keeps the CSR without the advice and without a host copy (the class from
// the row lengths measured on the device). Checked against the rule's own
// statement with the class from the host statistics (N x CSR's product at
// most the cheapest conversion's fixed cost plus c_min x CSR bytes at the
// reference's efficiency, CSR's product its fixed cost plus its bytes moved
// at rel x the reference's efficiency, rel CSR's Auto kernel's efficiency
// over the reference's in the class, at the bandwidth the plan is given)
// and against the full advice (always_advise): where the plan skips it,
// every converted candidate's conversion alone costs at least CSR's total
// with the Auto kernel. SpMV and SpMM of 2 columns, 1-4, 8, 16 and 1000
// products, regular, irregular and skewed matrices (and a small one, kept
// by the conversion's fixed cost), both precisions.
template <class T>
void expect_device_few_products_keep_csr() {
  using I = std::int32_t;
  double c_min = 1e300;
  for (const Format f : kAllFormats)
    if (f != Format::Csr) c_min = std::min(c_min, detail::conversion_products(Backend::Cuda, f));
  const char* specs[] = {"stencil2d:n=300,points=5", "fem:n=40,block=3", "random:n=20000,degree=40",
                         "chunglu:n=50000,degree=8", "road:n=20000",     "stencil2d:n=30,points=5"};
  constexpr double kGbs = 2000;  // the model's bandwidth, given (not measured)
  PlanOptions given;
  given.bandwidth_gbs = kGbs;
  int skipped_small = 0;
  int skipped_any = 0;
  for (const char* spec : specs) {
    const auto A = gen<T, I>(spec);
    const MatrixStats h = analyze(A);
    const detail::Regularity klass = detail::regularity(h.row_max, h.row_mean, h.row_std);
    const Csr<T, I> dA = A.to(Space::Device);
    const MatrixRef<T, I> m{&dA};
    const Registry<T, I>& reg = Registry<T, I>::instance();
    for (const std::int64_t cols : {1, 2})
      for (const std::int64_t n : {1, 2, 3, 4, 8, 16, 1000}) {
        Workload w = products(n);
        if (cols > 1) {
          w.op = Op::Spmm;
          w.cols = cols;
        }
        const SpmmShape shape{cols, Layout::RowMajor, Layout::RowMajor, cols, cols};
        const Algorithm a = cols == 1 ? reg.choose_spmv(m, Backend::Cuda)
                                      : reg.choose_spmm(m, Backend::Cuda, shape);
        constexpr detail::Precision precision = detail::precision_of<T>();
        const double ref = detail::reference_efficiency(Backend::Cuda, klass, precision);
        const double eff =
            detail::product_efficiency(Backend::Cuda, Format::Csr, a, klass, precision).efficiency;
        const double csr = static_cast<double>(A.bytes());
        const double moved = csr + static_cast<double>((A.rows() + A.cols()) * cols * sizeof(T));
        const double product =
            detail::product_fixed_s(Backend::Cuda, Format::Csr, a) + moved / (eff * kGbs * 1e9);
        const double conversion =
            detail::conversion_fixed_s(Backend::Cuda) + c_min * csr / (ref * kGbs * 1e9);
        const bool expected = static_cast<double>(n) * product <= conversion;
        const std::string what = fmt::format("{} {} x {} cols {} ({})", spec, type_name<T>(), n,
                                             cols, detail::to_string(klass));
        const Plan<T, I> quick(dA, w, given);
        PlanOptions all = given;
        all.always_advise = true;
        const Plan<T, I> full(dA, w, all);
        const Advice& advice = full.report().advice;
        EXPECT_GT(advice.candidates.size(), cols == 1 ? 5u : 2u) << what;  // CUDA SpMM: 4 formats
        const bool skipped = quick.report().advice.candidates.size() == 1;
        EXPECT_EQ(skipped, expected) << what;
        if (!skipped) continue;
        ++skipped_any;
        // The small matrix: its bytes alone would not keep it (the rule
        // without the bandwidth), the conversion's fixed cost does.
        if (static_cast<double>(n) * moved > (eff / ref) * c_min * csr) ++skipped_small;
        EXPECT_TRUE(contains(quick.report().why, "without the advice")) << what;
        EXPECT_EQ(quick.report().format, Format::Csr) << what;
        EXPECT_EQ(quick.report().algorithm, a) << what;
        EXPECT_EQ(quick.report().advice.regularity, detail::to_string(klass)) << what;
        const Csr<T, I>* kept = std::get<const Csr<T, I>*>(quick.matrix());
        EXPECT_EQ(kept, &dA) << what;
        double csr_total = -1;
        for (const Candidate& c : advice.candidates)
          if (c.format == Format::Csr && c.algorithm == a) csr_total = c.total_s;
        ASSERT_GT(csr_total, 0) << what << ": no CSR candidate with the Auto kernel";
        for (const Candidate& c : advice.candidates) {
          if (c.format != Format::Csr && c.feasible) {
            EXPECT_GE(c.convert_s, csr_total) << what << ": " << to_string(c.format);
          }
        }
        EXPECT_EQ(full.report().format, Format::Csr) << what;
      }
  }
  EXPECT_GT(skipped_any, 4);
  EXPECT_GT(skipped_small, 0);
}

TEST(Plan, DeviceFewProductsKeepCsrWithoutTheAdvice) {
  SPX_REQUIRE_GPU_OR_SKIP();
  expect_device_few_products_keep_csr<double>();
  expect_device_few_products_keep_csr<float>();
}

TEST(Plan, DeviceOneProductPlanRuns) {
  SPX_REQUIRE_GPU_OR_SKIP();
  // The plan that skipped the advice multiplies and takes new values.
  const auto A = gen<double, std::int32_t>("chunglu:n=30000,degree=8");
  const auto dA = A.to(Space::Device);
  const auto x = random_vector<double>(static_cast<std::size_t>(A.cols()), 21);
  PlanOptions o;
  o.warm = true;
  Plan<double, std::int32_t> plan(dA, products(1), o);
  ASSERT_EQ(plan.report().advice.candidates.size(), 1u) << plan.report().why;
  Array<double> dx = Array<double>(x).to(Space::Device);
  Array<double> dy = Array<double>::filled(static_cast<std::size_t>(A.rows()),
                                           std::numeric_limits<double>::quiet_NaN())
                         .to(Space::Device);
  plan.run(1.0, dx, 0.0, dy);
  expect_near_all(dy.to_vector(), csr_product(A, x), "device one-product plan");
  const auto v = random_vector<double>(static_cast<std::size_t>(A.nnz()), 22);
  Csr<double, std::int32_t> B = A.clone();
  std::copy(v.begin(), v.end(), B.values().data());
  const Array<double> dv = Array<double>(v).to(Space::Device);
  plan.update_values(std::span<const double>(dv.data(), dv.size()));
  plan.run(1.0, dx, 0.0, dy);
  expect_near_all(dy.to_vector(), csr_product(B, x), "device one-product plan, new values");
}

// ---- statistics measured where the matrix is --------------------------------------

/// The column counts of a host CSR, written plainly (sets), as a backend's
/// ColumnReader must measure them.
template <Value T, Index I>
ColumnCounts plain_column_counts(const Csr<T, I>& A) {
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const std::int64_t m = A.rows();
  ColumnCounts c;
  std::set<std::int64_t> diagonals;
  std::array<std::set<std::pair<std::int64_t, std::int64_t>>, 7> blocks;
  for (std::int64_t r = 0; r < m; ++r) {
    const bool empty = ptr[r + 1] == ptr[r];
    if (!empty) {
      c.lower_bandwidth = std::max<std::int64_t>(c.lower_bandwidth, r - col[ptr[r]]);
      c.upper_bandwidth = std::max<std::int64_t>(c.upper_bandwidth, col[ptr[r + 1] - 1] - r);
    }
    std::set<std::int64_t> previous_lines;
    if (r > 0)
      for (I k = ptr[r - 1]; k < ptr[r]; ++k)
        previous_lines.insert(col[k] / MatrixStats::kScatterLine);
    for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
      diagonals.insert(std::int64_t{col[k]} - r);
      for (int b = 2; b <= 8; ++b)
        blocks[static_cast<std::size_t>(b - 2)].insert({r / b, col[k] / b});
      const std::int64_t line = col[k] / MatrixStats::kScatterLine;
      const bool same = k > ptr[r] && col[k - 1] / MatrixStats::kScatterLine == line;
      c.scattered += !same && !previous_lines.contains(line);
    }
  }
  c.diagonals = static_cast<std::int64_t>(diagonals.size());
  for (std::size_t b = 0; b < blocks.size(); ++b)
    c.blocks[b] = static_cast<std::int64_t>(blocks[b].size());
  return c;
}

void expect_same_stats(const MatrixStats& got, const MatrixStats& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.nnz, want.nnz);
  EXPECT_EQ(got.density, want.density);
  EXPECT_EQ(got.row_mean, want.row_mean);
  EXPECT_NEAR(got.row_std, want.row_std, 1e-12 * (1 + want.row_std));
  EXPECT_EQ(got.row_min, want.row_min);
  EXPECT_EQ(got.row_max, want.row_max);
  EXPECT_EQ(got.empty_rows, want.empty_rows);
  EXPECT_EQ(got.diagonals, want.diagonals);
  EXPECT_EQ(got.lower_bandwidth, want.lower_bandwidth);
  EXPECT_EQ(got.upper_bandwidth, want.upper_bandwidth);
  EXPECT_EQ(got.bandwidth, want.bandwidth);
  for (int b = 2; b <= 8; ++b)
    EXPECT_EQ(got.fill(b), want.fill(b)) << "b = " << b;
  EXPECT_EQ(got.scatter, want.scatter);
}

/// Matrices whose statistics differ in every count: stencils, blocks,
/// power-law rows, empty rows, a giant row, rectangular shapes.
const char* const kStatsSpecs[] = {
    "stencil2d:n=40,points=9", "fem:n=12,block=3",
    "banded:n=3000",           "chunglu:n=3000,degree=6",
    "random:n=2000,degree=5",  "denserows:n=2000",
    "rmat:scale=12,degree=8",  "stencil3d:n=12,points=27,symmetric=1",
    "stencil2d:n=12,points=5"};

// The statistics from a backend's column counts (for a matrix in device
// memory) equal the host's: detail::stats_from_counts on counts written
// plainly against analyze, here on the CPU.
TEST(Advisor, StatsFromColumnCountsEqualAnalyze) {
  using T = double;
  using I = std::int32_t;
  for (const char* spec : kStatsSpecs) {
    SCOPED_TRACE(spec);
    const auto A = gen<T, I>(spec);
    expect_same_stats(
        detail::stats_from_counts(A.row_ptr().data(), A.rows(), A.cols(), plain_column_counts(A)),
        analyze(A));
  }
  // Empty rows at both ends, a rectangular shape, no entries at all.
  const Csr<T, I> B(4, 9, Array<I>(std::vector<I>{0, 0, 3, 3, 3}),
                    Array<I>(std::vector<I>{1, 4, 8}), Array<T>(std::vector<T>{1, 2, 3}));
  expect_same_stats(
      detail::stats_from_counts(B.row_ptr().data(), B.rows(), B.cols(), plain_column_counts(B)),
      analyze(B));
  const Csr<T, I> Z(3, 2, Array<I>(std::vector<I>{0, 0, 0, 0}), Array<I>(), Array<T>());
  expect_same_stats(
      detail::stats_from_counts(Z.row_ptr().data(), Z.rows(), Z.cols(), plain_column_counts(Z)),
      analyze(Z));
}

// The row lengths' one pass (detail::row_lengths: the statistics' row
// counts and the advisor's SELL slices and HLL hacks) equals counts written
// plainly, for group sizes that divide each other or not, rows longer than
// the pass's array of short lengths (denserows, chunglu), empty rows, several
// blocks of rows; and gives the same numbers, the deviation included, on 1,
// 2, 3 and 8 threads.
TEST(Advisor, RowLengthsEqualPlainCounts) {
  using I = std::int32_t;
  struct Plain {
    std::map<std::int64_t, std::int64_t> rows_of_length;
    std::int64_t slice_widths = 0, hack_entries = 0;
  };
  const auto plain = [](const I* ptr, std::int64_t m, const detail::RowGroups& g) {
    Plain p;
    const auto len = [&](std::int64_t r) { return std::int64_t{ptr[r + 1]} - ptr[r]; };
    const auto longest = [&](std::int64_t r0, std::int64_t r1) {
      std::int64_t w = 0;
      for (std::int64_t r = r0; r < std::min(m, r1); ++r)
        w = std::max(w, len(r));
      return w;
    };
    for (std::int64_t r = 0; r < m; ++r)
      ++p.rows_of_length[len(r)];
    for (std::int64_t r = 0; g.slice > 0 && r < m; r += g.slice)
      p.slice_widths += (longest(r, r + g.slice) + g.lanes - 1) / g.lanes * g.lanes;
    for (std::int64_t r = 0; g.hack > 0 && r < m; r += g.hack)
      p.hack_entries += (std::min(m, r + g.hack) - r) * longest(r, r + g.hack);
    return p;
  };
  // The thread count is restored however the test leaves.
  struct Threads {
    int saved = omp_get_max_threads();
    ~Threads() { omp_set_num_threads(saved); }
  } restore;
  const auto same_bins = [](const detail::RowLengthSummary& a, const detail::RowLengthSummary& b) {
    return std::equal(
        a.bins.begin(), a.bins.end(), b.bins.begin(), b.bins.end(),
        [](const auto& x, const auto& y) { return x.length == y.length && x.rows == y.rows; });
  };
  for (const char* spec : {"random:n=100000,degree=5", "chunglu:n=60000,degree=6",
                           "denserows:n=40000", "stencil2d:n=12,points=5"}) {
    const auto A = gen<double, I>(spec);
    const I* ptr = A.row_ptr().data();
    const std::int64_t m = A.rows();
    for (const detail::RowGroups g :
         {detail::RowGroups{}, detail::RowGroups{32, 1, 32}, detail::RowGroups{7, 3, 12},
          detail::RowGroups{0, 1, 5}, detail::RowGroups{64, 2, 0}}) {
      SCOPED_TRACE(fmt::format("{}, slice {}, lanes {}, hack {}", spec, g.slice, g.lanes, g.hack));
      const Plain want = plain(ptr, m, g);
      omp_set_num_threads(1);
      const detail::RowLengthSummary one = detail::row_lengths(ptr, m, g);
      EXPECT_EQ(one.rows, m);
      EXPECT_EQ(one.nnz, A.nnz());
      ASSERT_EQ(one.bins.size(), want.rows_of_length.size());
      auto b = one.bins.begin();
      for (const auto& [length, rows] : want.rows_of_length) {
        EXPECT_EQ(b->length, length);
        EXPECT_EQ(b->rows, rows);
        ++b;
      }
      EXPECT_EQ(one.slice_widths, want.slice_widths);
      EXPECT_EQ(one.hack_entries, want.hack_entries);
      for (const int threads : {2, 3, 8}) {
        omp_set_num_threads(threads);
        const detail::RowLengthSummary many = detail::row_lengths(ptr, m, g);
        EXPECT_EQ(many.slice_widths, one.slice_widths) << threads << " threads";
        EXPECT_EQ(many.hack_entries, one.hack_entries) << threads << " threads";
        EXPECT_EQ(many.squared_deviation(), one.squared_deviation()) << threads << " threads";
        EXPECT_TRUE(same_bins(many, one)) << threads << " threads";
      }
    }
  }
  // Sums past int64 saturate (the advisor then replays the conversion's
  // checked sums, which refuse): rows of 2^62, 2^61 and 2^60 entries.
  {
    omp_set_num_threads(2);
    constexpr std::int64_t p62 = std::int64_t{1} << 62, p61 = p62 / 2, p60 = p61 / 2;
    const std::int64_t big[] = {0, p62, p62 + p61, p62 + p61 + p60};
    const detail::RowLengthSummary one_hack = detail::row_lengths(big, 3, {4, 1, 4});
    EXPECT_EQ(one_hack.hack_entries, detail::kSaturated);  // 3 rows x 2^62
    EXPECT_EQ(one_hack.slice_widths, p62);                 // one slice, its longest row
    EXPECT_EQ(one_hack.longest(), p62);
    const detail::RowLengthSummary pairs = detail::row_lengths(big, 3, {1, 1, 2});
    EXPECT_EQ(pairs.slice_widths, p62 + p61 + p60);     // a slice a row: the nonzeros
    EXPECT_EQ(pairs.hack_entries, detail::kSaturated);  // 2 x 2^62 + 2^60
  }
  // No rows at all.
  const detail::RowLengthSummary none =
      detail::row_lengths(static_cast<const I*>(nullptr), 0, {32, 1, 32});
  EXPECT_TRUE(none.bins.empty());
  EXPECT_EQ(none.longest(), 0);
  EXPECT_EQ(none.bell_garland_width(), 0);
  EXPECT_EQ(none.squared_deviation(), 0.0);
}

// HYB's width and COO part from the row lengths' summary equal the rule
// applied row by row: K the largest width that a third of the rows reach
// (rows with at least K entries: 3 × rows >= m), the COO part the entries
// beyond K.
TEST(Advisor, BellGarlandWidthFromTheRowLengths) {
  using I = std::int32_t;
  for (const char* spec :
       {"chunglu:n=60000,degree=6", "denserows:n=40000", "road:n=5000", "rmat:scale=12,degree=8"}) {
    SCOPED_TRACE(spec);
    const auto A = gen<double, I>(spec);
    const I* ptr = A.row_ptr().data();
    const std::int64_t m = A.rows();
    const detail::RowLengthSummary rl = detail::row_lengths(ptr, m);
    // The rows by length, longest first: K is the length of row ⌈m / 3⌉.
    std::vector<std::int64_t> lengths;
    for (std::int64_t r = 0; r < m; ++r)
      lengths.push_back(ptr[r + 1] - ptr[r]);
    std::sort(lengths.begin(), lengths.end(), std::greater<>());
    const std::int64_t want = lengths[static_cast<std::size_t>((m + 2) / 3 - 1)];
    EXPECT_EQ(rl.bell_garland_width(), want);
    EXPECT_EQ(detail::bell_garland_width(ptr, m), want);
    for (const std::int64_t K : {std::int64_t{0}, want, want + 3}) {
      std::int64_t beyond = 0;
      for (std::int64_t r = 0; r < m; ++r)
        beyond += std::max<std::int64_t>(0, ptr[r + 1] - ptr[r] - K);
      EXPECT_EQ(rl.entries_beyond(K), beyond) << "K = " << K;
    }
  }
}

// A CSR in device memory is analysed and advised on the device (its columns
// never travel): the statistics, footprints, refusals and predictions equal
// the host copy's, in both precisions and index types, symmetric matrices
// (SYM_CSR, SYM_DIA feasible) and asymmetric ones (refused) included; a
// device plan that advises picks what the host advice picks.
template <Value T, Index I>
void expect_device_advice_matches() {
  for (const char* spec : kStatsSpecs) {
    SCOPED_TRACE(spec);
    const auto A = gen<T, I>(spec);
    const Csr<T, I> dA = A.to(Space::Device);
    expect_same_stats(analyze(dA), analyze(A));
    for (const auto& [n, sigma] : {std::pair<std::int64_t, int>{1, 1}, {1000, 1}, {1000, 64}}) {
      const Workload w = products(n);
      AdvisorOptions o;
      o.backend = Backend::Cuda;
      o.bandwidth_gbs = 2000;
      o.allow_reduced_precision = true;
      o.convert.sigma = sigma;  // σ > 1: SELL-pack's slices from the rows' ends
      const Advice h = advise(A, w, o), d = advise(dA, w, o);
      expect_same_stats(d.stats, h.stats);
      EXPECT_EQ(d.regularity, h.regularity);
      ASSERT_EQ(d.candidates.size(), h.candidates.size());
      for (std::size_t i = 0; i < h.candidates.size(); ++i) {
        const Candidate &x = d.candidates[i], &y = h.candidates[i];
        SCOPED_TRACE(fmt::format("{}/{}", to_string(y.format), to_string(y.algorithm)));
        EXPECT_EQ(x.format, y.format);
        EXPECT_EQ(x.algorithm, y.algorithm);
        EXPECT_EQ(x.bytes, y.bytes);
        EXPECT_EQ(x.feasible, y.feasible);
        // The symmetric formats' refusals name the entry each side met first.
        if (y.format != Format::SymCsr && y.format != Format::SymDia) {
          EXPECT_EQ(x.reason, y.reason);
        }
        EXPECT_NEAR(x.product_s, y.product_s, 1e-12 * y.product_s);
        EXPECT_NEAR(x.convert_s, y.convert_s, 1e-12 * y.convert_s);
      }
      EXPECT_EQ(d.chosen().format, h.chosen().format);
    }
    PlanOptions po;
    po.bandwidth_gbs = 2000;
    const Plan<T, I> plan(dA, products(1000), po);
    AdvisorOptions o;
    o.backend = Backend::Cuda;
    o.bandwidth_gbs = 2000;
    const Advice h = advise(A, products(1000), o);
    EXPECT_EQ(plan.report().format, h.chosen().format);
    EXPECT_EQ(plan.report().algorithm, h.chosen().algorithm);
  }
}

TEST(Advisor, DeviceAdviceEqualsTheHostAdvice) {
  SPX_REQUIRE_GPU_OR_SKIP();
  expect_device_advice_matches<double, std::int32_t>();
  expect_device_advice_matches<float, std::int64_t>();
  // A symmetric pattern with one value changed: SYM_CSR and SYM_DIA are
  // refused on the device as on the host, each naming itself.
  using T = double;
  using I = std::int32_t;
  Csr<T, I> A = gen<T, I>("stencil2d:n=30,points=5,symmetric=1");
  // An entry off the diagonal in row 7.
  const I k = A.row_ptr().data()[7] + (A.col_idx().data()[A.row_ptr().data()[7]] == 7 ? 1 : 0);
  ASSERT_NE(A.col_idx().data()[k], 7);
  A.values().data()[k] += 1;
  const Csr<T, I> dA = A.to(Space::Device);
  AdvisorOptions o;
  o.backend = Backend::Cuda;
  o.bandwidth_gbs = 2000;
  const Advice d = advise(dA, products(1000), o);
  int refused = 0;
  for (const Candidate& c : d.candidates)
    if (c.format == Format::SymCsr || c.format == Format::SymDia) {
      EXPECT_FALSE(c.feasible);
      EXPECT_NE(c.reason.find(c.format == Format::SymCsr ? "SYM_CSR" : "SYM_DIA"),
                std::string::npos)
          << c.reason;
      ++refused;
    }
  EXPECT_GT(refused, 0);
}

// ---- footprints without conversion ---------------------------------------------------

template <class P>
class AdvisorTyped : public ::testing::Test {};
TYPED_TEST_SUITE(AdvisorTyped, TypePairs, TypePairNames);

TYPED_TEST(AdvisorTyped, FootprintsEqualTheConvertedFormatsAndRefusalsAgree) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const char* spec :
       {"stencil2d:n=40,points=9", "fem:n=20,block=3", "banded:n=3000", "chunglu:n=3000,degree=6",
        "random:n=2000,degree=5", "denserows:n=2000"}) {
    const auto A = gen<T, I>(spec);
    for (const int sigma : {1, 64}) {  // SELL's rows in place, or sorted in windows
      AdvisorOptions o = host_options();
      o.allow_reduced_precision = true;  // SELL-LP's footprint too
      o.convert.sigma = sigma;
      o.convert.threads_per_row = sigma == 1 ? 1 : 2;
      const Advice a = advise(A, products(100), o);
      for (const Candidate& c : a.candidates) {
        if (!convertible(c.format)) continue;
        SCOPED_TRACE(std::string(spec) + " " + std::string(to_string(c.format)));
        std::optional<Matrix<T, I>> m;
        std::string refused;
        try {
          m = convert(A, c.format, a.convert);
        } catch (const Unsupported& e) {
          refused = e.what();
        }
        if (m) {
          EXPECT_TRUE(c.feasible) << c.reason;
          EXPECT_EQ(c.bytes, static_cast<std::int64_t>(bytes_of<T, I>(spx::ref(*m))));
        } else {
          EXPECT_FALSE(c.feasible);
          EXPECT_EQ(c.reason, refused);
        }
      }
    }
  }
}

// ---- memory limits --------------------------------------------------------------------

TEST(Advisor, MemoryLimitIsRespected) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=200,points=5");
  Workload w = products(100000);
  const Advice free = advise(A, w, host_options());
  ASSERT_NE(free.chosen().format, Format::Csr);
  // Below the pick's footprint: something else, within the limit (or the CSR itself).
  w.memory_limit = free.chosen().bytes - 1;
  const Advice limited = advise(A, w, host_options());
  EXPECT_NE(limited.chosen().format, free.chosen().format);
  for (const Candidate& c : limited.candidates) {
    if (c.feasible && c.format != Format::Csr) {
      EXPECT_LE(c.bytes, w.memory_limit);
    }
  }
  // No memory at all: the matrix as it is.
  w.memory_limit = 0;
  EXPECT_EQ(advise(A, w, host_options()).chosen().format, Format::Csr);
  const Plan<double, std::int32_t> plan(A, w, host_plan_options());
  EXPECT_EQ(plan.report().format, Format::Csr);
}

// ---- bad arguments ------------------------------------------------------------------

TEST(Advisor, BadArgumentsAreNamed) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=10");
  Workload w;
  w.products = 0;
  EXPECT_CONTAINS(message_of([&] { advise(A, w, host_options()); }), "Workload::products: 0");
  w = Workload{};
  w.op = Op::Spmm;
  w.cols = 0;
  EXPECT_CONTAINS(message_of([&] { advise(A, w, host_options()); }), "Workload::cols: 0");
  w = Workload{};
  w.cols = 4;
  EXPECT_CONTAINS(message_of([&] { advise(A, w, host_options()); }), "columns for spmv");
  w = Workload{};
  w.memory_limit = -5;
  EXPECT_CONTAINS(message_of([&] { Plan<double, std::int32_t> p(A, w); }),
                  "Workload::memory_limit: -5");
  EXPECT_CONTAINS(message_of([&] { set_advisor_bandwidth(Backend::Cpu, -1); }),
                  "set_advisor_bandwidth: -1");
  PlanOptions po;
  po.bandwidth_gbs = kHostGbs;
  po.compute_scale = 1;
  po.format = Format::Dia;
  po.algorithm = Algorithm::MergePath;  // no such DIA kernel
  EXPECT_CONTAINS(message_of<Unsupported>([&] { Plan<double, std::int32_t> p(A, Workload{}, po); }),
                  "plan: format dia with algorithm merge_path cannot be used");
  const Plan<double, std::int32_t> plan(A, Workload{}, host_plan_options());
  const std::vector<double> few(3);
  EXPECT_CONTAINS(message_of<DimensionMismatch>(
                      [&] { const_cast<Plan<double, std::int32_t>&>(plan).update_values(few); }),
                  "Plan::update_values: 3 values for a matrix of");
}

TEST(Advisor, BandwidthIsMeasuredOnceAndCanBeOverridden) {
  set_advisor_bandwidth(Backend::Cpu, 12.5);
  EXPECT_EQ(advisor_bandwidth(Backend::Cpu), 12.5);
  set_advisor_bandwidth(Backend::Cpu, 0);
  const double measured = advisor_bandwidth(Backend::Cpu);
  EXPECT_GT(measured, 0.1);
  EXPECT_EQ(advisor_bandwidth(Backend::Cpu), measured);  // cached
}

TEST(Advisor, ComputeScaleIsMeasuredOnceAndCanBeOverridden) {
  set_advisor_compute_scale(Backend::Cpu, 2.5);
  EXPECT_EQ(advisor_compute_scale(Backend::Cpu), 2.5);
  set_advisor_compute_scale(Backend::Cpu, 0);
  const double measured = advisor_compute_scale(Backend::Cpu);  // the probe
  EXPECT_TRUE(std::isfinite(measured));
  EXPECT_GE(measured, 1.0 / 16);
  EXPECT_LE(measured, 16.0);
  EXPECT_EQ(advisor_compute_scale(Backend::Cpu), measured);  // cached
  // CUDA has no compute rows: 1, measured nowhere (no device needed), an
  // override ignored.
  EXPECT_EQ(advisor_compute_scale(Backend::Cuda), 1.0);
  set_advisor_compute_scale(Backend::Cuda, 2.5);
  EXPECT_EQ(advisor_compute_scale(Backend::Cuda), 1.0);
  set_advisor_compute_scale(Backend::Cuda, 0);
  // An advice without a scale given uses the process's.
  const auto A = gen<double, std::int32_t>("stencil2d:n=20");
  AdvisorOptions o = host_options();
  o.compute_scale = 0;
  EXPECT_EQ(advise(A, products(10), o).compute_scale, measured);
  // A plan that keeps CSR without the advice measures nothing for it: its
  // report holds the option (0: none given).
  PlanOptions kept = host_plan_options();
  kept.compute_scale = 0;
  const Plan<double, std::int32_t> one(A, products(1), kept);
  ASSERT_NE(one.report().why.find("without the advice"), std::string::npos) << one.report().why;
  EXPECT_EQ(one.report().advice.compute_scale, 0.0);
  kept.compute_scale = 2;
  const Plan<double, std::int32_t> given(A, products(1), kept);
  EXPECT_EQ(given.report().advice.compute_scale, 2.0);

  EXPECT_CONTAINS(message_of([&] { set_advisor_compute_scale(Backend::Cpu, -1); }),
                  "set_advisor_compute_scale: -1");
  EXPECT_CONTAINS(message_of([&] {
                    set_advisor_compute_scale(Backend::Cpu,
                                              std::numeric_limits<double>::quiet_NaN());
                  }),
                  "set_advisor_compute_scale: nan");
  o.compute_scale = -2;
  EXPECT_CONTAINS(message_of([&] { advise(A, products(10), o); }),
                  "AdvisorOptions::compute_scale is -2");
  PlanOptions po = host_plan_options();
  po.compute_scale = std::numeric_limits<double>::infinity();
  EXPECT_CONTAINS(message_of([&] { Plan<double, std::int32_t> p(A, products(10), po); }),
                  "PlanOptions::compute_scale: inf");
}

TEST(Advisor, CpuComputeScaleMultipliesTheCostsPerRowAndEntry) {
  // The CPU rows' costs per row, entry and scattered entry are the
  // calibration machine's; on a machine k times slower at them (the probe's
  // k) they cost k times more, the bytes term and the cost of a call
  // unchanged, and so do the conversions, priced in the reference's (CSR's)
  // products. On the session-26 CI machine (k 2-5, by the moment) CSR took 79-180 us
  // on this stencil, DIA 31-73: a diagonal format repays itself sooner there.
  const auto A = gen<double, std::int32_t>("stencil2d:n=200,points=5");
  const auto advice = [&](double k, std::int64_t n) {
    AdvisorOptions o = host_options();
    o.compute_scale = k;
    o.all_csr_kernels = true;
    return advise(A, products(n), o);
  };
  const Advice a1 = advice(1, 1), a2 = advice(2, 1), a3 = advice(3, 1);
  EXPECT_EQ(a1.compute_scale, 1.0);
  EXPECT_EQ(a3.compute_scale, 3.0);
  const auto find = [](const Advice& a, Format f, Algorithm al) {
    for (const Candidate& c : a.candidates)
      if (c.format == f && c.algorithm == al) return c;
    ADD_FAILURE() << "no candidate " << to_string(f) << "/" << to_string(al);
    return Candidate{};
  };
  const double bw = kHostGbs * 1e9;
  int checked = 0;
  for (const Candidate& c1 : a1.candidates) {
    const detail::ComputeCost cc = detail::compute_cost(Backend::Cpu, c1.format, c1.algorithm);
    if (!cc.found || !c1.feasible) continue;
    SCOPED_TRACE(fmt::format("{}/{}", to_string(c1.format), to_string(c1.algorithm)));
    const Candidate c2 = find(a2, c1.format, c1.algorithm), c3 = find(a3, c1.format, c1.algorithm);
    // Linear in k: equal steps, and growing where the row has such costs.
    EXPECT_NEAR(c3.product_s - c2.product_s, c2.product_s - c1.product_s, 1e-9 * c3.product_s);
    EXPECT_NEAR(c3.convert_s - c2.convert_s, c2.convert_s - c1.convert_s,
                1e-9 * c3.convert_s + 1e-18);
    if (cc.row_s > 0 || cc.entry_s > 0 || cc.scatter_s > 0) {
      EXPECT_GT(c2.product_s, c1.product_s);
    }
    if (c1.format == Format::Csr) {
      const double want =
          cc.fixed_s + cc.scaled(3).variable_s(static_cast<double>(c3.bytes_moved), bw,
                                               static_cast<double>(A.rows()),
                                               static_cast<double>(A.nnz()), a3.stats.scatter);
      EXPECT_NEAR(c3.product_s, want, 1e-12 * want);
    } else if (c1.convert_s > 0) {
      EXPECT_GT(c2.convert_s, c1.convert_s);
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
  // DIA breaks even against CSR sooner on a machine slower at gathers.
  const double even1 = find(a1, Format::Dia, Algorithm::CpuRows).break_even;
  const double even4 = find(advice(4, 1), Format::Dia, Algorithm::CpuRows).break_even;
  EXPECT_LT(even4, even1);
}

TEST(Advisor, ComputeScaleFromTheProbe) {
  // k = (measured - call - bytes) / compute over the calibration machine's
  // ratio: 1 where the probe reads as it did there, within [1/16, 16], and 1
  // for what is not a number.
  const double ref = detail::compute_probe_reference();
  EXPECT_GT(ref, 0);
  EXPECT_DOUBLE_EQ(detail::compute_scale_of(1e-6 + ref * 50e-6, 1e-6, 0, 50e-6), 1.0);
  EXPECT_DOUBLE_EQ(detail::compute_scale_of(1e-6 + 2e-6 + 3 * ref * 50e-6, 1e-6, 2e-6, 50e-6), 3.0);
  EXPECT_EQ(detail::compute_scale_of(1.0, 0, 0, 1e-6), 16.0);
  EXPECT_EQ(detail::compute_scale_of(1e-9, 0, 0, 1.0), 1.0 / 16);
  EXPECT_EQ(detail::compute_scale_of(1e-6, 2e-6, 0, 1e-6), 1.0);  // faster than its call: no k
  EXPECT_EQ(detail::compute_scale_of(std::numeric_limits<double>::quiet_NaN(), 0, 0, 1e-6), 1.0);
  EXPECT_EQ(detail::compute_scale_of(1e-6, 0, 0, 0), 1.0);
}

// ---- plans: products and value updates ----------------------------------------------

SPX_TYPED_TEST_SUITE(PlanTyped);

TYPED_TEST(PlanTyped, EveryFormatRunsAndUpdatesValuesInPlace) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const auto A = gen<T, I>("fem:n=15,block=2");
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols()), seed);
  const auto v2 = random_vector<T>(static_cast<std::size_t>(A.nnz()), seed + 1);
  Csr<T, I> A2 = A.clone();
  std::copy(v2.begin(), v2.end(), A2.values().data());
  const std::vector<T> want1 = csr_product(A, x), want2 = csr_product(A2, x);
  for (Format f : kAllFormats) {
    if (!convertible(f)) continue;
    // The matrix is not symmetric: SymFormat.PlanUpdatesValues, SymDiaFormat.PlanUpdatesValues.
    if (f == Format::SymCsr || f == Format::SymDia) continue;
    SCOPED_TRACE(std::string(to_string(f)));
    PlanOptions po;
    po.bandwidth_gbs = kHostGbs;
    po.compute_scale = 1;
    po.format = f;
    Plan<T, I> plan(A, products(10), po);
    EXPECT_EQ(plan.report().format, f);
    EXPECT_EQ(format_of(plan.matrix()), f);
    std::vector<T> y(static_cast<std::size_t>(A.rows()));
    const RunInfo ran = plan.run(T{1}, x, T{0}, y);
    EXPECT_EQ(ran.format, f);
    EXPECT_EQ(ran.algorithm, plan.report().algorithm);
    // SELL-LP (reduced-precision values): its documented bound instead.
    const auto check = [&](const Csr<T, I>& M, const std::vector<T>& want, const char* what) {
      if (!reduced_precision(f)) return expect_near_all(y, want, what);
      const auto p = reference::product(M, std::span<const T>(x));
      EXPECT_LE(reference::deviation<T>(y, p, stored_value_roundoff<T>(f)).ratio, 1.0) << what;
    };
    check(A, want1, "before the update");
    plan.update_values(v2);
    plan.run(T{1}, x, T{0}, y);
    check(A2, want2, "after the update");
    plan.update_values(std::vector<T>(A.values().data(), A.values().data() + A.nnz()));
    plan.run(T{1}, x, T{0}, y);
    check(A, want1, "after the second update");
  }
  // The caller's CSR is never written.
  const auto fresh = gen<T, I>("fem:n=15,block=2");
  EXPECT_EQ(A.values().data()[0], fresh.values().data()[0]);
}

TEST(Plan, AdvisedPlanEqualsSpmvAndReportsItsChoice) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=200,points=5");
  const auto x = random_vector<double>(static_cast<std::size_t>(A.cols()), 7);
  for (std::int64_t n : {1, 100000}) {
    const Plan<double, std::int32_t> plan(A, products(n), host_plan_options());
    const PlanReport& r = plan.report();
    EXPECT_EQ(r.format, r.advice.chosen().format);
    EXPECT_NE(r.algorithm, Algorithm::Auto);
    EXPECT_FALSE(r.why.empty());
    EXPECT_GE(r.build_s, r.convert_s);
    // One product keeps the CSR without the advice (no conversion can pay).
    if (n == 1) {
      EXPECT_EQ(r.advice.candidates.size(), 1u);
    } else {
      EXPECT_GT(r.advice.candidates.size(), 5u);
    }
    if (n == 1) {
      EXPECT_EQ(format_of(plan.matrix()), Format::Csr);
      const Csr<double, std::int32_t>* kept =
          std::get<const Csr<double, std::int32_t>*>(plan.matrix());
      EXPECT_EQ(kept, &A);
    }
    std::vector<double> y(static_cast<std::size_t>(A.rows()));
    plan.run(1.0, x, 0.0, y);
    expect_near_all(y, csr_product(A, x), "plan");
  }
}

// A CPU plan for too few products for any conversion to repay itself keeps
// the CSR without the advice. Checked against the rule's own statement (N x
// n SpMVs at most the cheapest conversion's c_min x CSR bytes / bytes
// moved) and against the full advice (always_advise): where the plan skips
// it, every converted candidate's conversion alone costs at least CSR's
// total, so the advice keeps CSR. 1-4 products of SpMV and of SpMM with 2
// columns, around the bound, on matrices whose vectors weigh differently
// against the CSR (short and long rows), both precisions; and 1000
// products, where the advice leaves CSR for some of them.
template <class T>
void expect_few_products_keep_csr() {
  double c_min = 1e300;
  for (const Format f : kAllFormats)
    if (f != Format::Csr) c_min = std::min(c_min, detail::conversion_products(Backend::Cpu, f));
  const char* specs[] = {"stencil2d:n=120,points=5", "fem:n=40,block=3", "road:n=20000",
                         "random:n=3000,degree=40", "chunglu:n=5000,degree=8"};
  int left_csr = 0;
  for (const char* spec : specs) {
    const auto A = gen<T, std::int32_t>(spec);
    const double csr = static_cast<double>(A.bytes());
    const double moved = csr + static_cast<double>((A.rows() + A.cols()) * sizeof(T));
    for (const std::int64_t cols : {1, 2})
      for (const std::int64_t n : {1, 2, 3, 4, 1000}) {
        Workload w = products(n);
        if (cols > 1) {
          w.op = Op::Spmm;
          w.cols = cols;
        }
        const std::string what = fmt::format("{} {} x {} cols {}", spec, type_name<T>(), n, cols);
        const bool expected = static_cast<double>(n * cols) <= c_min * csr / moved;
        if (n == 1 && cols == 1) {
          EXPECT_TRUE(expected) << what;  // one SpMV always skips
        }
        const Plan<T, std::int32_t> quick(A, w, host_plan_options());
        PlanOptions all = host_plan_options();
        all.always_advise = true;
        const Plan<T, std::int32_t> full(A, w, all);
        const Advice& advice = full.report().advice;
        EXPECT_GT(advice.candidates.size(), 5u) << what;
        EXPECT_FALSE(contains(full.report().why, "without the advice")) << what;
        const bool skipped = quick.report().advice.candidates.size() == 1;
        EXPECT_EQ(skipped, expected) << what;
        if (skipped) {
          EXPECT_TRUE(contains(quick.report().why, "without the advice")) << what;
          EXPECT_EQ(quick.report().format, Format::Csr) << what;
          EXPECT_EQ(quick.report().algorithm, Algorithm::CpuMerge) << what;
          EXPECT_TRUE(std::isnan(quick.report().advice.chosen().product_s)) << what;
          const Csr<T, std::int32_t>* kept = std::get<const Csr<T, std::int32_t>*>(quick.matrix());
          EXPECT_EQ(kept, &A) << what;
          EXPECT_EQ(full.report().format, Format::Csr) << what;
          double csr_total = 0;
          for (const Candidate& c : advice.candidates)
            if (c.format == Format::Csr) csr_total = c.total_s;
          for (const Candidate& c : advice.candidates) {
            if (c.format != Format::Csr && c.feasible) {
              EXPECT_GE(c.convert_s, csr_total) << what << ": " << to_string(c.format);
            }
          }
        } else {
          EXPECT_EQ(quick.report().format, full.report().format) << what;
        }
        if (full.report().format != Format::Csr) ++left_csr;
      }
  }
  EXPECT_GT(left_csr, 0);  // the advice left CSR somewhere (1000 products)
}

TEST(Plan, FewProductsKeepCsrWithoutTheAdvice) {
  expect_few_products_keep_csr<double>();
  expect_few_products_keep_csr<float>();
}

TEST(Plan, FewProductsPlanRunsAndUpdates) {
  // The plan that skipped the advice multiplies (SpMV warm, SpMM) and takes
  // new values like any other.
  const auto A = gen<double, std::int32_t>("fem:n=30,block=2");
  const auto x = random_vector<double>(static_cast<std::size_t>(A.cols()), 11);
  PlanOptions o = host_plan_options();
  o.warm = true;
  Plan<double, std::int32_t> plan(A, products(1), o);
  ASSERT_EQ(plan.report().advice.candidates.size(), 1u);
  std::vector<double> y(static_cast<std::size_t>(A.rows()));
  plan.run(1.0, x, 0.0, y);
  expect_near_all(y, csr_product(A, x), "one-product plan");
  const auto v = random_vector<double>(static_cast<std::size_t>(A.nnz()), 12);
  plan.update_values(v);
  Csr<double, std::int32_t> B = A.clone();
  std::copy(v.begin(), v.end(), B.values().data());
  plan.run(1.0, x, 0.0, y);
  expect_near_all(y, csr_product(B, x), "one-product plan, new values");

  Workload w = products(1);
  w.op = Op::Spmm;
  w.cols = 2;
  const Plan<double, std::int32_t> spmm_plan(A, w, host_plan_options());
  ASSERT_EQ(spmm_plan.report().advice.candidates.size(), 1u);
  expect_spmm_plan_matches(spmm_plan, A, 2, 13, "one-product SpMM plan");
}

TEST(Plan, FewProductsStillAdviseWhenAskedOrForced) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=60,points=5");
  const auto candidates = [&](const PlanOptions& o) {
    return Plan<double, std::int32_t>(A, products(1), o).report().advice.candidates.size();
  };
  PlanOptions o = host_plan_options();
  o.format = Format::Csr;  // forcing CSR keeps the shortcut
  EXPECT_EQ(candidates(o), 1u);
  o.algorithm = Algorithm::CpuMerge;  // a forced kernel advises
  EXPECT_GT(candidates(o), 5u);
  o = host_plan_options();
  o.format = Format::Ell;  // a forced other format advises (and converts)
  EXPECT_GT(candidates(o), 5u);
  o = host_plan_options();
  o.tune = true;  // tuning advises
  EXPECT_GT(candidates(o), 5u);
  // The conversion options are checked as the advice checks them.
  o = host_plan_options();
  o.convert.slice_size = 0;
  EXPECT_CONTAINS(message_of([&] { Plan<double, std::int32_t> p(A, products(1), o); }),
                  "slice_size");
}

TEST(Plan, SpmmPlanEqualsSpmm) {
  const auto A = gen<double, std::int32_t>("random:n=500,degree=6");
  Workload w = products(50);
  w.op = Op::Spmm;
  w.cols = 4;
  const Plan<double, std::int32_t> plan(A, w, host_plan_options());
  expect_spmm_plan_matches(plan, A, 4, 3, "spmm plan");
}

TEST(Plan, FromAnotherFormatNeedsNoConversionForOneProduct) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=100,points=5");
  const auto D = to_dia(A);
  const auto x = random_vector<double>(static_cast<std::size_t>(A.cols()), 5);
  const Plan<double, std::int32_t> plan(MatrixRef<double, std::int32_t>{&D}, products(1),
                                        host_plan_options());
  // One product: nothing is converted; the DIA matrix is used in place, or
  // the CSR the statistics needed.
  const PlanReport& r = plan.report();
  EXPECT_TRUE(r.format == Format::Dia || r.format == Format::Csr) << r.why;
  EXPECT_EQ(r.convert_s, 0.0);
  if (r.format == Format::Dia) {
    const Dia<double, std::int32_t>* kept =
        std::get<const Dia<double, std::int32_t>*>(plan.matrix());
    EXPECT_EQ(kept, &D);
  }
  for (const Candidate& c : r.advice.candidates) {
    if (c.format == Format::Dia || c.format == Format::Csr) {
      EXPECT_EQ(c.convert_s, 0.0);
    }
  }
  std::vector<double> y(static_cast<std::size_t>(A.rows()));
  plan.run(1.0, x, 0.0, y);
  expect_near_all(y, csr_product(A, x), "plan over DIA");
  Plan<double, std::int32_t> p2(MatrixRef<double, std::int32_t>{&D}, products(1),
                                host_plan_options());
  const auto v2 = random_vector<double>(static_cast<std::size_t>(A.nnz()), 9);
  Csr<double, std::int32_t> A2 = A.clone();
  std::copy(v2.begin(), v2.end(), A2.values().data());
  p2.update_values(v2);
  p2.run(1.0, x, 0.0, y);
  expect_near_all(y, csr_product(A2, x), "plan over DIA, updated");
}

TEST(Plan, TuningMeasuresCandidatesAndRecordsItsCost) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=100,points=5");
  PlanOptions po;
  po.bandwidth_gbs = kHostGbs;
  po.compute_scale = 1;
  po.tune = true;
  po.warm = true;
  po.tune_within = 1e9;  // measure the 3 best whatever the model expects to gain
  po.tune_budget = 1e9;
  const Plan<double, std::int32_t> plan(A, products(1000), po);
  const PlanReport& r = plan.report();
  EXPECT_TRUE(r.tuned);
  EXPECT_GT(r.tune_s, 0);
  int measured = 0;
  for (const Candidate& c : r.advice.candidates)
    measured += c.measured ? 1 : 0;
  EXPECT_GE(measured, 1);
  EXPECT_LE(measured, 3);
  EXPECT_TRUE(r.advice.chosen().measured);
  // The plan keeps the measured candidate of least product time (the
  // measured candidates' conversions are paid by then).
  for (const Candidate& c : r.advice.candidates) {
    if (c.measured) {
      EXPECT_LE(r.advice.chosen().measured_s, c.measured_s) << to_string(c.format);
    }
  }
  // Below tune_min_products the plan does not tune, nor where measuring
  // would cost more than the budget allows.
  EXPECT_FALSE((Plan<double, std::int32_t>(A, products(10), po).report().tuned));
  po.tune_budget = 0;
  EXPECT_FALSE((Plan<double, std::int32_t>(A, products(1000), po).report().tuned));
  const Advice a = advise(A, products(1000), host_options());
  EXPECT_TRUE(tuning_candidates(a, 3, 1e9, 0).empty());
  const auto some = tuning_candidates(a, 3, 1e9, 1e9);
  ASSERT_EQ(some.size(), 3u);
  EXPECT_EQ(some[0], a.pick);
}

// With a forced format, tuning measures that format's kernels, judged
// against the best of them: COO has three CPU kernels, none among the three
// best candidates of a stencil.
TEST(Plan, TuningAForcedFormatMeasuresItsKernels) {
  const auto A = gen<double, std::int32_t>("stencil2d:n=100,points=5");
  PlanOptions po;
  po.bandwidth_gbs = kHostGbs;
  po.compute_scale = 1;
  po.tune = true;
  po.tune_within = 1e9;
  po.tune_budget = 1e9;
  po.format = Format::Coo;
  const Plan<double, std::int32_t> plan(A, products(1000000), po);
  const PlanReport& r = plan.report();
  EXPECT_TRUE(r.tuned);
  int measured = 0;
  for (const Candidate& c : r.advice.candidates)
    if (c.measured) {
      ++measured;
      EXPECT_EQ(c.format, Format::Coo) << to_string(c.algorithm);
    }
  EXPECT_GE(measured, 2);
  EXPECT_EQ(r.advice.chosen().format, Format::Coo);
  const auto x = random_vector<double>(static_cast<std::size_t>(A.cols()), 3);
  std::vector<double> y(static_cast<std::size_t>(A.rows()));
  plan.run(1.0, x, 0.0, y);
  expect_near_all(y, csr_product(A, x), "tuned COO plan");
}

// Tuning's cost is what it adds to the plan: the pick's conversion is paid
// anyway and a format is converted once however many of its kernels are
// measured (GPU, session 13: counting both skipped tuning fem-b2-n750); a
// candidate past the budget is skipped, not the whole tuning (session 25).
TEST(Plan, TuningBudgetCountsOnlyWhatTuningAdds) {
  const auto candidate = [](Format f, Algorithm a, double convert_s, double product_s) {
    Candidate c;
    c.format = f;
    c.algorithm = a;
    c.convert_s = convert_s;
    c.product_s = product_s;
    c.total_s = convert_s + 1000 * product_s;
    return c;
  };
  Advice a;
  a.work.products = 1000;
  // The pick converts for 30 products' time, as DIA does on the H100.
  a.candidates = {candidate(Format::Dia, Algorithm::Diagonal, 3e-3, 95e-6),
                  candidate(Format::Ell, Algorithm::TwoThreadsPerRow, 1e-3, 101e-6),
                  candidate(Format::Ell, Algorithm::ThreadPerRow, 1e-3, 102e-6),
                  candidate(Format::Csr, Algorithm::Adaptive, 0, 110e-6)};
  a.pick = 0;
  const double best = a.candidates[0].total_s;  // 0.098 s
  // Added: one ELL conversion and 6 products of each of the three: 2.8 ms
  // (counting the pick's conversion and ELL's twice made it 6.8 ms).
  const double added = 1e-3 + 6 * (95e-6 + 101e-6 + 102e-6);
  EXPECT_EQ(tuning_candidates(a, 3, 1.5, 1.01 * added / best), (std::vector<std::size_t>{0, 1, 2}));
  // Just short of it, the third candidate is skipped and the first two kept.
  EXPECT_EQ(tuning_candidates(a, 3, 1.5, 0.99 * added / best), (std::vector<std::size_t>{0, 1}));
  // CSR costs no conversion; only the 6 products of each are added.
  const double with_csr = 1e-3 + 6 * (95e-6 + 101e-6 + 102e-6 + 110e-6);
  EXPECT_EQ(tuning_candidates(a, 4, 1.5, 1.01 * with_csr / best),
            (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(tuning_candidates(a, 4, 1.5, 0.99 * with_csr / best),
            (std::vector<std::size_t>{0, 1, 2}));
  // The default budget, 2% of the pick's total (1.96 ms): the pick's
  // products (0.57 ms), then ELL's conversion with either kernel's products
  // would pass it (2.18 ms), so both are skipped and CSR's products (1.23 ms
  // in all) are taken.
  EXPECT_EQ(tuning_candidates(a), (std::vector<std::size_t>{0, 3}));
  // Not even the pick's own products within the budget: no tuning.
  EXPECT_TRUE(tuning_candidates(a, 3, 1.5, 0.99 * 6 * 95e-6 / best).empty());
  // Only the pick within reach: nothing to compare it with.
  EXPECT_TRUE(tuning_candidates(a, 3, 1.0001, 1e9).empty());
}

// On CUDA the SELL family's ThreadsPerRow SpMV with threads_per_row = 1 runs
// their ThreadPerRow kernel: tuning measures that kernel once and gives the
// place to the next candidate (session 27: SELL's pair took two of the three
// places on random-n250000-d64 in f32 and the faster ELL was not measured).
TEST(Plan, TuningMeasuresEachKernelOnce) {
  const auto candidate = [](Format f, Algorithm a, double product_s) {
    Candidate c;
    c.format = f;
    c.algorithm = a;
    c.convert_s = 1e-4;
    c.product_s = product_s;
    c.total_s = c.convert_s + 1000 * product_s;
    return c;
  };
  Advice a;
  a.work.products = 1000;
  a.backend = Backend::Cuda;
  a.candidates = {candidate(Format::Sell, Algorithm::ThreadPerRow, 41e-6),
                  candidate(Format::Sell, Algorithm::ThreadsPerRow, 41e-6),
                  candidate(Format::Ell, Algorithm::ThreadPerRow, 42e-6),
                  candidate(Format::SellPack, Algorithm::ThreadsPerRow, 43e-6),
                  candidate(Format::SellPack, Algorithm::ThreadPerRow, 43e-6)};
  a.pick = 0;
  using V = std::vector<std::size_t>;
  if (!cuda_compiled()) {  // no CUDA module to tell the pair apart: three kernels
    EXPECT_EQ(tuning_candidates(a, 3, 1.5, 1e9), (V{0, 1, 2}));
    return;
  }
  EXPECT_EQ(tuning_candidates(a, 3, 1.5, 1e9), (V{0, 2, 3}));
  EXPECT_EQ(tuning_candidates(a, 5, 1.5, 1e9), (V{0, 2, 3}));
  // With threads_per_row > 1 the lanes differ: two kernels.
  a.convert.threads_per_row = 4;
  EXPECT_EQ(tuning_candidates(a, 3, 1.5, 1e9), (V{0, 1, 2}));
  // Neither the CPU nor SpMM has the pair.
  a.convert.threads_per_row = 1;
  a.backend = Backend::Cpu;
  EXPECT_EQ(tuning_candidates(a, 3, 1.5, 1e9), (V{0, 1, 2}));
  a.backend = Backend::Cuda;
  a.work.op = Op::Spmm;
  a.work.cols = 8;
  EXPECT_EQ(tuning_candidates(a, 3, 1.5, 1e9), (V{0, 1, 2}));
}

// On the device, tuning measures SELL's one-lane pair once (ThreadsPerRow
// with threads_per_row 1 is the ThreadPerRow kernel), and both where the
// lanes differ: the options' threads_per_row, or the caller's SELL-P
// matrix's own (session 27).
TEST(Plan, DeviceTuningMeasuresSellsOneLanePairOnce) {
  SPX_REQUIRE_GPU_OR_SKIP();
  const auto A = gen<double, std::int32_t>("random:n=20000,degree=12");
  const auto dA = A.to(Space::Device);
  const auto sell_measured = [](const PlanReport& r) {
    int k = 0;
    for (const Candidate& c : r.advice.candidates)
      k += c.measured && c.format == Format::Sell;
    return k;
  };
  PlanOptions po;
  po.tune = true;
  po.tune_within = 1e9;
  po.tune_budget = 1e9;
  po.format = Format::Sell;
  {
    // One kernel: nothing to compare it with, so no tuning.
    const Plan<double, std::int32_t> plan(dA, products(1000000), po);
    EXPECT_FALSE(plan.report().tuned);
    EXPECT_EQ(sell_measured(plan.report()), 0);
  }
  po.convert.threads_per_row = 4;
  {
    const Plan<double, std::int32_t> plan(dA, products(1000000), po);
    EXPECT_TRUE(plan.report().tuned);
    EXPECT_EQ(sell_measured(plan.report()), 2);
  }
  po.convert.threads_per_row = 1;
  const auto S = to_sell(dA, ConvertOptions{.threads_per_row = 4});
  const Plan<double, std::int32_t> plan(MatrixRef<double, std::int32_t>{&S}, products(1000000), po);
  EXPECT_TRUE(plan.report().tuned);
  EXPECT_EQ(sell_measured(plan.report()), 2);
  const auto x = random_vector<double>(static_cast<std::size_t>(A.cols()), 13);
  Array<double> dx = Array<double>(x).to(Space::Device), dy(A.rows(), Space::Device);
  plan.run(1.0, dx, 0.0, dy);
  expect_near_all(dy.to_vector(), csr_product(A, x), "tuned SELL-P plan");
}

TEST(Plan, DevicePlanEqualsSpmv) {
  SPX_REQUIRE_GPU_OR_SKIP();
  const auto A = gen<double, std::int32_t>("stencil2d:n=200,points=5");
  const auto dA = A.to(Space::Device);
  const auto x = random_vector<double>(static_cast<std::size_t>(A.cols()), 11);
  const std::vector<double> want = csr_product(A, x);
  for (std::int64_t n : {1, 100000}) {
    Plan<double, std::int32_t> plan(dA, products(n), [&] {
      PlanOptions o;
      o.tune = n > 1;
      o.warm = true;
      return o;
    }());
    Array<double> dx = Array<double>(x).to(Space::Device), dy(want.size(), Space::Device);
    plan.run(1.0, dx, 0.0, dy);
    expect_near_all(dy.to_vector(), want, "device plan");
    const auto v2 = random_vector<double>(static_cast<std::size_t>(A.nnz()), 12);
    Csr<double, std::int32_t> A2 = A.clone();
    std::copy(v2.begin(), v2.end(), A2.values().data());
    const Array<double> dv = Array<double>(v2).to(Space::Device);
    plan.update_values(std::span<const double>(dv.data(), dv.size()));
    plan.run(1.0, dx, 0.0, dy);
    expect_near_all(dy.to_vector(), csr_product(A2, x), "device plan, updated");
  }
}

}  // namespace
}  // namespace spx::test

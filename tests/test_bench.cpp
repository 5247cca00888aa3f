// The benchmark engine: the JSON it writes follows the documented schema, one
// record per matrix × format × algorithm × precision × backend, errors and
// refusals are recorded, and a kernel with a wrong result is marked (never
// hidden and never chosen as the best). Runs on the CPU with tiny matrices;
// no timing is asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "bench.hpp"
#include "common.hpp"
#include "device.hpp"
#include "spx/convert.hpp"
#include "spx/core/error.hpp"

namespace spx::test {
namespace {

namespace fs = std::filesystem;
using bench::Config;
using bench::MatrixInfo;
using bench::Results;

/// A banded-plus-random pattern with one empty row and one long row.
Csr<double, std::int64_t> handmade(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::int64_t> ptr{0}, col;
  std::vector<double> val;
  for (std::int64_t r = 0; r < n; ++r) {
    std::set<std::int64_t> cols;
    if (r != n / 2) {  // one empty row
      for (std::int64_t d = -2; d <= 2; ++d)
        if (r + d >= 0 && r + d < n) cols.insert(r + d);
      cols.insert(static_cast<std::int64_t>(gen() % n));
    }
    if (r == 3)  // one long row
      for (std::int64_t c = 0; c < n; c += 2)
        cols.insert(c);
    for (auto c : cols) {
      col.push_back(c);
      val.push_back((gen() & 1 ? 1.0 : -1.0) * (0.5 + static_cast<double>(gen() % 1000) / 1000.0));
    }
    ptr.push_back(static_cast<std::int64_t>(col.size()));
  }
  return Csr<double, std::int64_t>(n, n, Array<std::int64_t>(ptr), Array<std::int64_t>(col),
                                   Array<double>(val));
}

Config test_config() {
  Config c;
  c.backend = Backend::Cpu;
  c.reps = 3;
  c.warmup = 1;
  c.max_seconds_per_kernel = 0.05;
  c.seed = fresh_seed() | 1;
  c.suite_name = "test";
  return c;
}

/// A results shell with a described CPU and a nominal copy bandwidth (no
/// measurement: the tests do not time anything that matters).
Results shell(const Config& c) {
  Results res;
  res.config = c;
  res.run.spx_version = "test";
  res.run.commit = std::string(bench::build_commit());
  res.run.date = "2026-01-01T00:00:00Z";
  res.run.host = "test";
  res.run.compiler = "test";
  res.run.device = bench::query_device(Backend::Cpu);
  res.run.copy_gbs = 10.0;
  res.run.seed = c.seed;
  return res;
}

MatrixInfo info_of(const std::string& name, const Csr<double, std::int32_t>& A) {
  MatrixInfo info;
  info.name = name;
  info.group = "handmade";
  info.kind = "custom";
  info.source = "test";
  info.regular = true;
  info.rows = A.rows();
  info.cols = A.cols();
  info.nnz = A.nnz();
  info.csr_bytes_f64 = static_cast<std::int64_t>(A.bytes());
  info.stats = analyze(A);
  return info;
}

// Fake kernels registered under algorithm names no CPU CSR kernel uses.
template <Value T, Index I>
SpmvKernel<T, I> fake_kernel(
    Algorithm a, std::function<std::string(MatrixRef<T, I>)> can_run,
    std::function<void(T, MatrixRef<T, I>, const T*, T, T*, const ExecContext&)> run) {
  return SpmvKernel<T, I>{KernelInfo{Op::Spmv, Format::Csr, a, Backend::Cpu, true, false},
                          std::move(can_run), std::move(run)};
}

/// Correct except that row 1 gets one extra 1: a wrong result.
template <Value T, Index I>
void broken_run(T alpha, MatrixRef<T, I> M, const T* x, T, T* y, const ExecContext&) {
  const auto& A = *std::get<const Csr<T, I>*>(M);
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    T sum = 0;
    for (I k = A.row_ptr()[r]; k < A.row_ptr()[r + 1]; ++k)
      sum += A.values()[k] * x[A.col_idx()[k]];
    y[r] = alpha * sum + (r == 1 ? T{1} : T{0});
  }
}

std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> record_keys(
    const nlohmann::json& doc) {
  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> keys;
  for (const auto& r : doc["records"])
    keys.emplace(r["matrix"], r["format"], r["algorithm"], r["precision"], r["backend"]);
  return keys;
}

TEST(Bench, EveryKernelRecordedAndBrokenKernelMarked) {
  Config config = test_config();
  config.precisions = {bench::Precision::F64};
  Results res = shell(config);
  const auto A64 = handmade(300, config.seed);
  const auto A = cast<double, std::int32_t>(A64);
  const MatrixInfo info = info_of("handmade-300", A);
  res.matrices.push_back(info);

  using T = double;
  using I = std::int32_t;
  auto kernels = bench::select_kernels<T, I>(config);
  const std::size_t registered = kernels.size();
  ASSERT_GT(registered, 0u);
  kernels.push_back(fake_kernel<T, I>(
      Algorithm::Scalar, [](MatrixRef<T, I>) { return std::string(); }, broken_run<T, I>));
  kernels.push_back(fake_kernel<T, I>(
      Algorithm::Vector, [](MatrixRef<T, I>) { return std::string(); },
      [](T, MatrixRef<T, I>, const T*, T, T*, const ExecContext&) {
        throw Unsupported("deliberate failure inside the kernel");
      }));
  kernels.push_back(fake_kernel<T, I>(
      Algorithm::Balanced, [](MatrixRef<T, I>) { return std::string(); },
      [](T alpha, MatrixRef<T, I> M, const T* x, T, T* y, const ExecContext& ctx) {
        // Reads y although beta = 0: the NaN poison leaks into the result.
        const auto rows = rows_of<T, I>(M);
        std::vector<T> tmp(static_cast<std::size_t>(rows));
        broken_run<T, I>(alpha, M, x, T{0}, tmp.data(), ctx);
        for (std::int64_t r = 0; r < rows; ++r)
          y[r] += tmp[r] - (r == 1 ? T{1} : T{0});
      }));
  kernels.push_back(fake_kernel<T, I>(
      Algorithm::Adaptive, [](MatrixRef<T, I>) { return std::string("too wide for this test"); },
      broken_run<T, I>));
  auto timer = bench::make_timer(res.run.device);
  bench::measure_matrix<T, I>(info, A, kernels, config, *timer, res, false);
  bench::summarize(res);

  // One record per kernel whose format converts (all registered CPU kernels do).
  std::size_t expected = 0;
  for (const auto& k : kernels)
    expected += convertible(k.info.format) ? 1 : 0;
  ASSERT_EQ(res.records.size(), expected);

  bool saw_eigen = false;
  for (const auto& r : res.records) {
    const std::string what = fmt::format("{}/{}", to_string(r.format), to_string(r.algorithm));
    if (r.algorithm == Algorithm::Scalar) {
      EXPECT_EQ(r.status, bench::Status::Ok) << what;
      EXPECT_EQ(r.correct, false) << what;
      EXPECT_GT(r.error_ratio.value_or(0), 1.0) << what;
      EXPECT_NE(r.reason.find("check failed"), std::string::npos) << r.reason;
      EXPECT_TRUE(r.time_s.has_value()) << "a failed check is still measured";
    } else if (r.algorithm == Algorithm::Balanced) {
      EXPECT_EQ(r.correct, false) << what << ": NaN in y must fail the check";
      EXPECT_FALSE(r.max_rel_error.has_value()) << "a non-finite error is recorded as null";
    } else if (r.algorithm == Algorithm::Vector) {
      EXPECT_EQ(r.status, bench::Status::Error) << what;
      EXPECT_NE(r.reason.find("deliberate failure"), std::string::npos) << r.reason;
    } else if (r.algorithm == Algorithm::Adaptive) {
      EXPECT_EQ(r.status, bench::Status::Skipped) << what;
      EXPECT_NE(r.reason.find("too wide"), std::string::npos) << r.reason;
    } else if (r.status == bench::Status::Ok) {
      EXPECT_EQ(r.correct, true) << what << ": " << r.reason;
      EXPECT_LE(r.error_ratio.value_or(2), 1.0) << what;
      EXPECT_GT(r.time_s.value_or(0), 0.0) << what;
      EXPECT_GT(r.gflops.value_or(0), 0.0) << what;
      EXPECT_EQ(r.bytes_moved.value_or(0),
                r.format_bytes.value_or(0) + static_cast<std::int64_t>((300 + 300) * sizeof(T)))
          << what;
      if (r.deterministic) {
        EXPECT_EQ(r.repeat_identical, true) << what;
      }
      if (r.format == Format::Csr) {
        EXPECT_EQ(r.break_even, "none-needed") << what;
      }
      saw_eigen = saw_eigen || r.algorithm == spx::baselines::Eigen;
    } else {
      // A refusal by design is fine, but it must say why.
      EXPECT_FALSE(r.reason.empty()) << what;
    }
  }
  EXPECT_TRUE(saw_eigen) << "the Eigen baseline did not run";

  // The broken kernel is counted but never chosen as the best.
  ASSERT_EQ(res.summary.size(), 1u);
  const auto& s = res.summary.front();
  EXPECT_EQ(s.failed, 2);
  EXPECT_EQ(s.errors, 1);
  ASSERT_TRUE(s.best_algorithm.has_value());
  EXPECT_NE(*s.best_algorithm, Algorithm::Scalar);
  EXPECT_NE(*s.best_algorithm, Algorithm::Balanced);
  EXPECT_EQ(s.baseline_algorithm, spx::baselines::Eigen);
  EXPECT_TRUE(s.speedup.has_value());
  EXPECT_NE(bench::format_table(res).find("CHECK FAILED"), std::string::npos);

  const nlohmann::json doc = bench::to_json(res);
  const auto problems = bench::validate_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
  EXPECT_EQ(record_keys(doc).size(), doc["records"].size()) << "records repeat a key";
  // JSON marks the failure the same way.
  int failed = 0;
  for (const auto& r : doc["records"])
    failed += r["correct"] == false;
  EXPECT_EQ(failed, 2);
}

TEST(Bench, RunBenchEndToEndBothPrecisions) {
  Config config = test_config();
  config.precisions = bench::parse_precisions("both");
  bench::Suite suite{"test", {}};
  const std::uint64_t seed = config.seed;
  suite.members.push_back(
      {"tiny-a", "handmade", true, bench::MatrixProducer([seed] { return handmade(120, seed); })});
  suite.members.push_back({"tiny-b", "handmade", false,
                           bench::MatrixProducer([seed] { return handmade(77, seed + 1); })});
  suite.members.push_back({"broken-producer", "handmade", false,
                           bench::MatrixProducer([]() -> Csr<double, std::int64_t> {
                             throw IoError("cannot read the matrix");
                           })});
  suite.members.push_back({"empty", "handmade", false, bench::MatrixProducer([] {
                             return Csr<double, std::int64_t>(
                                 5, 5, Array<std::int64_t>::filled(6, 0), Array<std::int64_t>(),
                                 Array<double>());
                           })});
  std::vector<std::string> lines;
  config.progress = [&lines](const std::string& line, bool) { lines.push_back(line); };
  const Results res = bench::run_bench(suite, config);
  EXPECT_FALSE(lines.empty());
  EXPECT_GT(res.run.copy_gbs, 0.0);

  ASSERT_EQ(res.matrices.size(), 4u);
  EXPECT_TRUE(res.matrices[0].error.empty()) << res.matrices[0].error;
  EXPECT_NE(res.matrices[2].error.find("cannot read the matrix"), std::string::npos);
  EXPECT_NE(res.matrices[3].error.find("no nonzeros"), std::string::npos);

  const auto kernels = bench::select_kernels<double, std::int32_t>(config);
  std::size_t per_matrix = 0;
  for (const auto& k : kernels)
    per_matrix += convertible(k.info.format) ? 1 : 0;
  EXPECT_EQ(res.records.size(), 2 * 2 * per_matrix) << "2 matrices × 2 precisions × kernels";
  for (const auto& r : res.records) {
    EXPECT_TRUE(r.matrix == "tiny-a" || r.matrix == "tiny-b") << r.matrix;
    if (r.status == bench::Status::Ok) {
      EXPECT_EQ(r.correct, true) << r.matrix << " " << r.reason;
      EXPECT_EQ(r.algorithm_ran, r.algorithm) << "through the dispatcher, the kernel asked for ran";
    }
  }
  ASSERT_EQ(res.headline.size(), 2u);
  EXPECT_TRUE(res.headline[0].geomean_speedup.has_value());
  EXPECT_EQ(res.headline[0].speedup_matrices, 2);

  const nlohmann::json doc = bench::to_json(res);
  const auto problems = bench::validate_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
  // Round trip through text.
  const auto again = nlohmann::json::parse(doc.dump(1));
  EXPECT_TRUE(bench::validate_json(again).empty());
  const std::string table = bench::format_table(res);
  EXPECT_NE(table.find("tiny-a"), std::string::npos);
  EXPECT_NE(table.find("not measured: broken-producer"), std::string::npos);

  // The advisor report: every measured matrix, precision and N judged
  // against the oracle of the same run (a ratio in (0, 1]).
  EXPECT_EQ(res.advisor_picks.size(), 2u * 2u * std::size(bench::kAdvisorProducts));
  ASSERT_TRUE(doc.contains("advisor"));
  ASSERT_EQ(doc["advisor"]["precisions"].size(), 2u);
  for (const auto& p : doc["advisor"]["precisions"]) {
    ASSERT_EQ(p["by_products"].size(), std::size(bench::kAdvisorProducts));
    for (const auto& b : p["by_products"]) {
      EXPECT_EQ(b["matrices"].get<int>() + b["unmeasured_picks"].get<int>(), 2);
      if (b["matrices"].get<int>() == 0) continue;
      EXPECT_GT(b["geomean_oracle_over_pick"].get<double>(), 0.0);
      EXPECT_LE(b["geomean_oracle_over_pick"].get<double>(), 1.0 + 1e-12);
      EXPECT_LE(b["worst_oracle_over_pick"].get<double>(),
                b["geomean_oracle_over_pick"].get<double>() + 1e-12);
      // Tuning pays for its measurements, so it may fall below the oracle, never above.
      if (b["geomean_oracle_over_tuned"].is_number()) {
        EXPECT_LE(b["geomean_oracle_over_tuned"].get<double>(), 1.0 + 1e-12);
      }
    }
    EXPECT_EQ(p["entries"].size(), 2u * std::size(bench::kAdvisorProducts));
  }
  EXPECT_NE(table.find("advisor: total time of conversion + N products"), std::string::npos);
}

// The advisor report's tuning, emulated from the run's records, costs what a
// plan pays: each format converted once however many of its kernels are
// measured, the tuning products of each, then N products of the fastest.
TEST(BenchAdvisor, EmulatedTuningConvertsEachFormatOnce) {
  const auto record = [](Format f, Algorithm a, double time_s, std::optional<double> convert_s) {
    bench::Record r;
    r.matrix = "m";
    r.precision = bench::Precision::F64;
    r.format = f;
    r.algorithm = a;
    r.status = bench::Status::Ok;
    r.correct = true;
    r.time_s = time_s;
    r.convert_device_s = convert_s;
    return r;
  };
  const std::vector<bench::Record> records{
      record(Format::Dia, Algorithm::Diagonal, 80e-6, 2e-3),
      record(Format::Ell, Algorithm::ThreadPerRow, 100e-6, 0.5e-3),
      record(Format::Ell, Algorithm::TwoThreadsPerRow, 90e-6, 0.5e-3),
      record(Format::Csr, Algorithm::Adaptive, 95e-6, std::nullopt)};
  bench::AdvisorPick pick;
  pick.matrix = "m";
  pick.precision = bench::Precision::F64;
  pick.products = 1000;
  pick.format = Format::Ell;
  pick.algorithm = Algorithm::ThreadPerRow;
  pick.tune_candidates = {{Format::Ell, Algorithm::ThreadPerRow},
                          {Format::Ell, Algorithm::TwoThreadsPerRow},
                          {Format::Csr, Algorithm::Adaptive}};
  const auto tuned = bench::emulate_tuning(records, pick, 1000);
  ASSERT_TRUE(tuned.has_value());
  EXPECT_EQ(tuned->second, "ell/two_threads_per_row");
  // ELL converted once (not once per kernel), CSR not at all.
  const double tuning = 0.5e-3 + bench::kAdvisorTuneProducts * (100e-6 + 90e-6 + 95e-6);
  EXPECT_NEAR(tuned->first, tuning + 1000 * 90e-6, 1e-12);
  // The fastest product wins although another candidate converts for free:
  // the conversions are paid by the time the plan chooses.
  pick.tune_candidates = {{Format::Dia, Algorithm::Diagonal}, {Format::Csr, Algorithm::Adaptive}};
  const auto dia = bench::emulate_tuning(records, pick, 100);
  ASSERT_TRUE(dia.has_value());
  EXPECT_EQ(dia->second, "dia/diagonal");
  EXPECT_NEAR(dia->first, 2e-3 + bench::kAdvisorTuneProducts * (80e-6 + 95e-6) + 100 * 80e-6,
              1e-12);
  pick.tune_candidates = {{Format::Hdi, Algorithm::Diagonal}};
  EXPECT_FALSE(bench::emulate_tuning(records, pick, 100).has_value());
  // A candidate the run did not time (its format left out): the tuning is
  // not emulated rather than judged on the rest.
  pick.tune_candidates = {{Format::Hdi, Algorithm::Diagonal}, {Format::Dia, Algorithm::Diagonal}};
  EXPECT_FALSE(bench::emulate_tuning(records, pick, 100).has_value());
  // A kernel that refuses the matrix ("cannot run"): the plan converts for
  // it, finds it cannot run and goes on; its conversion is charged.
  auto refusing = record(Format::Bcsr, Algorithm::BlockSubWarp, 0, 0.7e-3);
  refusing.status = bench::Status::Skipped;
  refusing.time_s.reset();
  refusing.reason = "cannot run: block_sub_warp needs b <= 4";
  auto with_refusal = records;
  with_refusal.push_back(refusing);
  pick.tune_candidates = {{Format::Bcsr, Algorithm::BlockSubWarp},
                          {Format::Dia, Algorithm::Diagonal}};
  const auto after_refusal = bench::emulate_tuning(with_refusal, pick, 100);
  ASSERT_TRUE(after_refusal.has_value());
  EXPECT_EQ(after_refusal->second, "dia/diagonal");
  EXPECT_NEAR(after_refusal->first,
              0.7e-3 + 2e-3 + bench::kAdvisorTuneProducts * 80e-6 + 100 * 80e-6, 1e-12);
  // Every candidate refused: nothing to keep.
  pick.tune_candidates = {{Format::Bcsr, Algorithm::BlockSubWarp}};
  EXPECT_FALSE(bench::emulate_tuning(with_refusal, pick, 100).has_value());
}

/// A small valid document to mutate.
nlohmann::json valid_doc() {
  Config config = test_config();
  config.precisions = {bench::Precision::F32};
  Results res = shell(config);
  const auto A = cast<double, std::int32_t>(handmade(40, 3));
  const MatrixInfo info = info_of("m", A);
  res.matrices.push_back(info);
  auto kernels = bench::select_kernels<float, std::int32_t>(config);
  auto timer = bench::make_timer(res.run.device);
  bench::measure_matrix<float, std::int32_t>(info, cast<float, std::int32_t>(A), kernels, config,
                                             *timer, res, true);
  bench::summarize(res);
  return bench::to_json(res);
}

TEST(BenchSchema, ValidatorCatchesViolations) {
  const nlohmann::json good = valid_doc();
  ASSERT_TRUE(bench::validate_json(good).empty());
  ASSERT_GE(good["records"].size(), 2u);
  const auto expect_problem = [](const nlohmann::json& doc, const std::string& needle) {
    const auto problems = bench::validate_json(doc);
    bool found = false;
    for (const auto& p : problems)
      found = found || p.find(needle) != std::string::npos;
    EXPECT_TRUE(found) << "expected a problem mentioning '" << needle << "'; got "
                       << (problems.empty() ? std::string("none") : problems.front());
  };
  auto doc = good;
  doc["records"][0].erase("time_s");
  expect_problem(doc, "missing field 'time_s'");
  doc = good;
  doc["records"][0]["nnz"] = "many";
  expect_problem(doc, "records[0].nnz: expected integer");
  ASSERT_TRUE(good.contains("advisor"));
  doc = good;
  doc["advisor"]["precisions"][0]["by_products"][0].erase("worst_matrix");
  expect_problem(doc, "advisor.precisions[0].by_products[0]: missing field 'worst_matrix'");
  doc = good;
  doc["advisor"]["mode"] = "guess";
  expect_problem(doc, "advisor.mode: unexpected value 'guess'");
  doc = good;
  doc["records"][1]["surprise"] = 1;
  expect_problem(doc, "'surprise' is not in the schema");
  doc = good;
  doc["records"].push_back(doc["records"][0]);
  expect_problem(doc, "a second record");
  doc = good;
  doc["records"][0]["status"] = "fine";
  expect_problem(doc, "unexpected value 'fine'");
  doc = good;
  doc["records"][0]["status"] = "ok";
  doc["records"][0]["time_s"] = nullptr;
  expect_problem(doc, "status ok needs time_s");
  doc = good;
  doc["records"][0]["matrix"] = "unknown";
  expect_problem(doc, "not in 'matrices'");
  doc = good;
  doc["run"]["device"].erase("name");
  expect_problem(doc, "run.device: missing field 'name'");
  doc = good;
  doc["matrices"][0]["stats"]["row_max"] = 1.5;
  expect_problem(doc, "stats.row_max: expected integer");
  doc = good;
  doc["schema"] = "spx-bench/0";
  expect_problem(doc, "schema");
}

TEST(BenchSchema, EveryFieldIsDocumented) {
  const fs::path doc_path = fs::path(SPX_SOURCE_DIR) / "docs" / "benchmarks.md";
  std::ifstream in(doc_path);
  ASSERT_TRUE(in) << "cannot read " << doc_path;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (const char* level :
       {"top", "run", "device", "config", "matrix", "stats", "record", "summary", "headline",
        "advisor", "advisor_precision", "advisor_products", "advisor_entry"}) {
    const auto fields = bench::schema_fields(level);
    EXPECT_FALSE(fields.empty()) << level;
    for (const auto& f : fields)
      EXPECT_NE(text.find(fmt::format("| `{}` |", f)), std::string::npos)
          << "docs/benchmarks.md does not document field '" << f << "' (" << level << ")";
  }
}

TEST(BenchSuite, FilesAndFolders) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("spx_bench_suite_{}", fresh_seed());
  fs::create_directories(dir / "sub");
  for (const char* name : {"b.mtx", "a.mtx.gz", "notes.txt", "sub/c.mtx"})
    std::ofstream(dir / name) << "x";
  const std::vector<std::string> args{dir.string(), (dir / "sub" / "c.mtx").string(),
                                      (dir / "b.mtx").string()};
  const bench::Suite s = bench::files_suite(args);
  ASSERT_EQ(s.members.size(), 4u);
  EXPECT_EQ(s.members[0].name, "a");
  EXPECT_EQ(s.members[1].name, "b");
  EXPECT_EQ(s.members[2].name, "c");
  EXPECT_EQ(s.members[3].name, "b#2") << "a repeated name is made unique";
  EXPECT_EQ(s.members[0].kind(), "file");
  const std::vector<std::string> missing{(dir / "nope.mtx").string()};
  try {
    (void)bench::files_suite(missing);
    ADD_FAILURE() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("nope.mtx"), std::string::npos) << e.what();
  }
  const std::vector<std::string> empty_dir{(dir / "sub2").string()};
  fs::create_directories(dir / "sub2");
  EXPECT_THROW((void)bench::files_suite(empty_dir), InvalidInput);
  fs::remove_all(dir);
}

TEST(BenchSuite, GeneratorSpecsAreMembers) {
  const std::vector<std::string> args{"fem:n=6,block=3", "stencil2d:n=5,points=9"};
  const bench::Suite s = bench::files_suite(args);
  ASSERT_EQ(s.members.size(), 2u);
  EXPECT_EQ(s.members[0].kind(), "generated");
  EXPECT_EQ(s.members[0].group, "fem");
  EXPECT_TRUE(s.members[0].regular);
  EXPECT_EQ(s.members[0].name, describe(parse_gen_spec("fem:n=6,block=3")));
  const auto A = bench::load_member<std::int32_t>(s.members[1]);
  EXPECT_EQ(A.rows(), 25);
  const auto direct = generate<double, std::int32_t>(parse_gen_spec("stencil2d:n=5,points=9"));
  EXPECT_EQ(A.nnz(), direct.nnz());
  for (const char* bad : {"nosuch:n=4", "fem:n=6,colour=2"}) {
    const std::vector<std::string> one{bad};
    EXPECT_THROW((void)bench::files_suite(one), InvalidInput) << bad;
  }
}

TEST(BenchSuite, DefaultSuiteSpansTheClasses) {
  for (Backend b : {Backend::Cpu, Backend::Cuda}) {
    const bench::Suite s = bench::default_suite(b, real_matrix_dir());
    std::map<Generator, int> kinds;
    std::set<int> fem_blocks, stencil3d_points;
    std::set<std::string> names;
    int generated = 0;
    for (const auto& m : s.members) {
      EXPECT_TRUE(names.insert(m.name).second) << "repeated name " << m.name;
      if (const auto* spec = std::get_if<GenSpec>(&m.source)) {
        ++generated;
        ++kinds[spec->kind];
        if (spec->kind == Generator::Fem) fem_blocks.insert(spec->block);
        if (spec->kind == Generator::Stencil3d) stencil3d_points.insert(spec->points);
      }
    }
    EXPECT_GE(generated, 30) << to_string(b);
    EXPECT_EQ(kinds.size(), 10u) << "every generator class";
    EXPECT_EQ(fem_blocks, (std::set<int>{2, 3, 6}));
    EXPECT_EQ(stencil3d_points, (std::set<int>{7, 27}));
  }
  EXPECT_GE(bench::quick_suite().members.size(), 5u);
  EXPECT_LE(bench::quick_suite().members.size(), 10u);
}

TEST(BenchSuite, BcsrBlockSizeFollowsTheFill) {
  MatrixStats stats;
  stats.block_fill = {1.0, 1.0, 0.6, 0.5, 1.0, 0.4, 0.5};  // b = 2..8: full at 2, 3, 6
  EXPECT_EQ(bench::convert_options_for(stats, 8, 4, 0).block_size, 6);
  stats.block_fill = {0.9, 0.3, 0.25, 0.1, 0.1, 0.05, 0.05};
  EXPECT_EQ(bench::convert_options_for(stats, 8, 4, 0).block_size, 2);
  EXPECT_EQ(bench::convert_options_for(stats, 8, 4, 5).block_size, 5) << "forced";
}

TEST(BenchCli, BenchesAFileAndWritesValidJson) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("spx_bench_cli_{}", fresh_seed());
  fs::create_directories(dir);
  {
    std::ofstream mtx(dir / "small.mtx");
    mtx << "%%MatrixMarket matrix coordinate real general\n6 6 10\n";
    for (int i = 1; i <= 6; ++i)
      mtx << i << " " << i << " " << 1.5 + i << "\n";
    mtx << "1 6 -2\n6 1 0.5\n3 4 1.25\n4 2 -0.75\n";
  }
  const fs::path json = dir / "out.json";
  const std::string cmd = fmt::format(
      "\"{}\" bench \"{}\" --backend cpu --precision f64 --reps 2 --warmup 1 --quiet --json \"{}\" "
      "> \"{}\" 2>&1",
      SPX_CLI_PATH, (dir / "small.mtx").string(), json.string(), (dir / "log.txt").string());
  const int rc = std::system(cmd.c_str());
  std::ifstream log_in(dir / "log.txt");
  std::stringstream log;
  log << log_in.rdbuf();
  ASSERT_EQ(rc, 0) << log.str();
  EXPECT_NE(log.str().find("small"), std::string::npos) << log.str();
  std::ifstream in(json);
  ASSERT_TRUE(in);
  const auto doc = nlohmann::json::parse(in);
  const auto problems = bench::validate_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_GT(doc["records"].size(), 0u);

  // A path that does not exist: one error line, exit status 1.
  const std::string bad =
      fmt::format("\"{}\" bench \"{}\" --backend cpu > \"{}\" 2>&1", SPX_CLI_PATH,
                  (dir / "missing.mtx").string(), (dir / "log2.txt").string());
  EXPECT_NE(std::system(bad.c_str()), 0);
  std::ifstream log2(dir / "log2.txt");
  std::stringstream l2;
  l2 << log2.rdbuf();
  EXPECT_NE(l2.str().find("missing.mtx"), std::string::npos) << l2.str();
  fs::remove_all(dir);
}

#if SPX_HAVE_CUDA
// The SpMM bench poisons C on the device (0xFF bytes: NaN in every float and
// double lane) and copies back only the rows' bytes it checks, through a
// small pinned buffer; both against the host, chunks included.
TEST(BenchDevice, NanPoisonAndCheckedColumnsMatchTheHost) {
  SPX_REQUIRE_GPU_OR_SKIP();
  // Finite values first: the pool may hand back memory that held NaN.
  Array<double> d(std::vector<double>(1001, 1.5), Space::Device);
  Array<float> f(std::vector<float>(999, -2.5F), Space::Device);
  bench::detail::cuda_fill_nan(d.data(), d.bytes());
  bench::detail::cuda_fill_nan(f.data(), f.bytes());
  for (const double v : d.to_vector())
    ASSERT_TRUE(std::isnan(v));
  for (const float v : f.to_vector())
    ASSERT_TRUE(std::isnan(v));

  std::mt19937_64 gen(fresh_seed());
  std::uniform_real_distribution<double> U(-1, 1);
  const std::int64_t rows = 1237, n = 19;
  const std::vector<std::int64_t> cols{0, 3, 4, 11, 18};
  const auto nc = static_cast<std::int64_t>(cols.size());
  for (const bool row_major : {true, false}) {
    const std::int64_t ld = row_major ? n + 5 : rows + 7;  // padded leading dimension
    std::vector<double> host(static_cast<std::size_t>(row_major ? rows * ld : n * ld));
    for (auto& v : host)
      v = U(gen);
    const Array<double> C(host, Space::Device);
    // Stages of one row, of 4 rows (row-major: 192-byte rows) or 100 rows
    // (column-major), and the default: partial last chunks either way.
    for (const std::size_t stage : {std::size_t{8}, std::size_t{800}, std::size_t{32} << 20}) {
      std::vector<double> out(static_cast<std::size_t>(rows * nc),
                              std::numeric_limits<double>::quiet_NaN());
      bench::detail::cuda_read_columns(out.data(), C.data(), sizeof(double), rows, ld, row_major,
                                       cols, stage);
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < nc; ++c) {
          const std::int64_t j = cols[static_cast<std::size_t>(c)];
          ASSERT_EQ(out[static_cast<std::size_t>(r * nc + c)],
                    host[static_cast<std::size_t>(row_major ? r * ld + j : r + j * ld)])
              << "row-major " << row_major << ", stage " << stage << ", row " << r << ", col " << j;
        }
    }
  }
}

// The SpMM bench end to end on the GPU: every CSR kernel and baseline checked
// (through the staged copy) at a width checked whole (n = 8) and one checked
// on 8 spread columns (n = 40).
TEST(BenchOps, SpmmOnTheGpuChecksEveryKernel) {
  SPX_REQUIRE_GPU_OR_SKIP();
  Config config = test_config();
  config.backend = Backend::Cuda;
  config.op = bench::BenchOp::Spmm;
  config.precisions = {bench::Precision::F64, bench::Precision::F32};
  config.formats = {Format::Csr};
  config.cols = {8, 40};
  bench::Suite suite{"test", {}};
  const std::uint64_t seed = config.seed;
  suite.members.push_back(
      {"tiny-a", "handmade", true, bench::MatrixProducer([seed] { return handmade(3000, seed); })});
  const Results res = bench::run_spmm_bench(suite, config);
  std::set<std::pair<int, std::int64_t>> checked;  // (precision, n) with an Ok record
  bool col_major = false;                          // cuSPARSE's ALG1 takes column-major B and C
  for (const auto& r : res.records) {
    if (r.status == bench::Status::Skipped) continue;  // e.g. a baseline that refuses the shape
    EXPECT_EQ(r.status, bench::Status::Ok) << to_string(r.algorithm) << ": " << r.reason;
    EXPECT_EQ(r.correct, true) << to_string(r.algorithm) << ": " << r.reason;
    if (r.status == bench::Status::Ok && r.n_cols) {
      checked.emplace(static_cast<int>(r.precision), *r.n_cols);
      col_major = col_major || r.layout == "col-major";
    }
  }
  EXPECT_EQ(checked.size(), 4u) << "an Ok record for each precision and width";
  EXPECT_TRUE(col_major) << "no column-major record: the column-major read-back did not run";
}
#endif

// The time budget is looked at before every SpMM width, not only before a
// member: a member that starts in time but whose loading uses up the budget
// records its widths as skipped, saying why, and the next member is not
// started.
TEST(BenchOps, SpmmWidthsStopWhenTheTimeBudgetIsUsedUp) {
  Config config = test_config();
  config.op = bench::BenchOp::Spmm;
  config.precisions = {bench::Precision::F64};
  config.formats = {Format::Csr};
  config.cols = {1, 8};
  config.time_budget_s = 0.2;
  bench::Suite suite{"test", {}};
  const std::uint64_t seed = config.seed;
  suite.members.push_back({"slow", "handmade", true, bench::MatrixProducer([seed] {
                             std::this_thread::sleep_for(std::chrono::milliseconds(400));
                             return handmade(90, seed);
                           })});
  suite.members.push_back(
      {"next", "handmade", true, bench::MatrixProducer([seed] { return handmade(90, seed); })});
  const Results res = bench::run_spmm_bench(suite, config);
  ASSERT_EQ(res.matrices.size(), 2u);
  EXPECT_TRUE(res.matrices[0].error.empty())
      << "the first member started: " << res.matrices[0].error;
  EXPECT_NE(res.matrices[1].error.find("time budget"), std::string::npos) << res.matrices[1].error;
  ASSERT_FALSE(res.records.empty());
  std::set<std::int64_t> widths;
  for (const auto& r : res.records) {
    EXPECT_EQ(r.matrix, "slow");
    EXPECT_EQ(r.status, bench::Status::Skipped);
    EXPECT_NE(r.reason.find("the time budget of 0.2 s was used up before n = "), std::string::npos)
        << r.reason;
    ASSERT_TRUE(r.n_cols.has_value());
    widths.insert(*r.n_cols);
  }
  EXPECT_EQ(widths, (std::set<std::int64_t>{1, 8}));
  const auto problems = bench::validate_json(bench::to_json(res));
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
}

TEST(BenchOps, SpmmRecordsPerWidthValidate) {
  Config config = test_config();
  config.op = bench::BenchOp::Spmm;
  config.precisions = {bench::Precision::F64};
  config.cols = {1, 8};
  bench::Suite suite{"test", {}};
  const std::uint64_t seed = config.seed;
  suite.members.push_back(
      {"tiny-a", "handmade", true, bench::MatrixProducer([seed] { return handmade(90, seed); })});
  const Results res = bench::run_spmm_bench(suite, config);
  // Every CPU SpMM kernel of every convertible format (config.formats is empty).
  std::size_t kernels = 0;
  std::set<Format> formats;
  for (const auto& k : Registry<double, std::int32_t>::instance().spmm_kernels())
    if (k.info.backend == Backend::Cpu && convertible(k.info.format)) {
      ++kernels;
      formats.insert(k.info.format);
    }
  ASSERT_GT(kernels, 0u);
  EXPECT_EQ(res.records.size(), 2 * kernels) << "one record per kernel and width";
  std::set<std::int64_t> widths;
  std::set<Format> recorded;
  for (const auto& r : res.records) {
    recorded.insert(r.format);
    EXPECT_EQ(r.op, bench::BenchOp::Spmm);
    ASSERT_TRUE(r.n_cols.has_value());
    widths.insert(*r.n_cols);
    if (r.format == Format::SymCsr ||
        r.format == Format::SymDia) {  // the matrix is not symmetric: skipped, saying so
      EXPECT_EQ(r.status, bench::Status::Skipped) << r.reason;
      EXPECT_NE(r.reason.find("not symmetric"), std::string::npos) << r.reason;
      continue;
    }
    EXPECT_EQ(r.status, bench::Status::Ok) << r.reason;
    EXPECT_EQ(r.correct, true) << r.reason;
    EXPECT_EQ(r.layout, "row-major");
    ASSERT_TRUE(r.gflops.has_value());
    // Two flops per nonzero and column.
    EXPECT_NEAR(*r.gflops * *r.time_s * 1e9, 2.0 * r.nnz * *r.n_cols, 1e-6 * r.nnz * *r.n_cols);
  }
  EXPECT_EQ(widths, (std::set<std::int64_t>{1, 8}));
  EXPECT_EQ(recorded, formats);
  const nlohmann::json doc = bench::to_json(res);
  const auto problems = bench::validate_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
  EXPECT_EQ(doc["op"], "spmm");
  ASSERT_TRUE(doc["op_summary"].is_object());
  EXPECT_EQ(doc["op_summary"]["precisions"][0]["entries"].size(), 2u);
  EXPECT_NE(bench::format_table(res).find("tiny-a"), std::string::npos);
  // Two records for one kernel and width are a duplicate; other widths are not.
  auto dup = doc;
  dup["records"].push_back(dup["records"][0]);
  EXPECT_FALSE(bench::validate_json(dup).empty());
  auto missing = doc;
  missing["records"][0]["n_cols"] = nullptr;
  EXPECT_FALSE(bench::validate_json(missing).empty());
}

TEST(BenchOps, BatchRecordsValidate) {
  Config config = test_config();
  config.op = bench::BenchOp::Batch;
  config.precisions = {bench::Precision::F64, bench::Precision::F32};
  BatchSpec spec;
  spec.count = 12;
  spec.min_rows = 11;
  spec.max_rows = 40;
  spec.degree = 4;
  spec.seed = config.seed;
  BatchSpec uspec = spec;
  uspec.uniform = true;
  std::vector<bench::BatchMember> batches{
      {"tiny-hetero", "hetero", "test", false,
       [spec] { return generate_batch<double, std::int64_t>(spec); }},
      {"tiny-uniform", "uniform", "test", true,
       [uspec] { return generate_batch<double, std::int64_t>(uspec); }},
      {"broken", "custom", "test", false,
       []() -> std::vector<Csr<double, std::int64_t>> { throw IoError("no batch here"); }}};
  const Results res = bench::run_batch_bench(batches, config);
  ASSERT_EQ(res.matrices.size(), 3u);
  EXPECT_NE(res.matrices[2].error.find("no batch here"), std::string::npos);
  std::size_t kernels = 0;
  for (const auto& k : Registry<double, std::int32_t>::instance().batch_spmv_kernels())
    kernels += k.info.backend == Backend::Cpu;
  ASSERT_GT(kernels, 0u);
  EXPECT_EQ(res.records.size(), 2 * 2 * kernels) << "2 batches × 2 precisions × kernels";
  for (const auto& r : res.records) {
    EXPECT_EQ(r.op, bench::BenchOp::Batch);
    EXPECT_EQ(r.batch_count, 12);
    EXPECT_EQ(r.status, bench::Status::Ok) << r.reason;
    EXPECT_EQ(r.correct, true) << r.matrix << " " << r.reason;
    ASSERT_TRUE(r.bytes_moved.has_value());
    EXPECT_EQ(*r.bytes_moved,
              *r.format_bytes + (r.rows + r.cols) * (r.precision == bench::Precision::F64 ? 8 : 4));
  }
  const nlohmann::json doc = bench::to_json(res);
  const auto problems = bench::validate_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
  EXPECT_EQ(doc["op_summary"]["precisions"].size(), 2u);
  EXPECT_EQ(doc["op_summary"]["precisions"][0]["entries"].size(), 2u);
  const std::string table = bench::format_table(res);
  EXPECT_NE(table.find("tiny-uniform"), std::string::npos);
}

TEST(BenchOps, DefaultBatchSuiteScales) {
  const auto batches = bench::default_batch_suite("", 0.01);
  ASSERT_GE(batches.size(), 4u);
  EXPECT_NE(batches[0].name.find("c100-"), std::string::npos) << batches[0].name;
  EXPECT_TRUE(batches[2].uniform);
  EXPECT_THROW(bench::default_batch_suite("", 0), InvalidInput);
}

TEST(BenchOps, OldSpmvDocumentsStillValidate) {
  // A document written before the op fields existed: no op, n_cols, layout.
  nlohmann::json doc = valid_doc();
  doc.erase("op");
  doc["config"].erase("op");
  for (auto& r : doc["records"]) {
    r.erase("op");
    r.erase("n_cols");
    r.erase("layout");
    r.erase("batch_count");
  }
  const auto problems = bench::validate_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  doc["records"][0]["op"] = "spmx";
  EXPECT_FALSE(bench::validate_json(doc).empty());
}

TEST(BenchCli, SpmmAndBatchOps) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("spx_bench_ops_{}", fresh_seed());
  fs::create_directories(dir);
  const auto run = [&](const std::string& args, const std::string& name) {
    const std::string cmd = fmt::format(
        "\"{}\" bench {} --backend cpu --reps 2 --warmup 1 --max-seconds 0.01 --quiet --json "
        "\"{}\" > \"{}\" 2>&1",
        SPX_CLI_PATH, args, (dir / (name + ".json")).string(), (dir / (name + ".txt")).string());
    const int rc = std::system(cmd.c_str());
    std::ifstream log_in(dir / (name + ".txt"));
    std::stringstream log;
    log << log_in.rdbuf();
    EXPECT_EQ(rc, 0) << log.str();
    std::ifstream in(dir / (name + ".json"));
    if (!in) return nlohmann::json();
    return nlohmann::json::parse(in);
  };
  const auto spmm = run("--op spmm --suite quick --only stencil2d --cols 1,8", "spmm");
  ASSERT_TRUE(spmm.is_object());
  EXPECT_TRUE(bench::validate_json(spmm).empty());
  EXPECT_EQ(spmm["config"]["cols"], nlohmann::json({1, 8}));
  EXPECT_EQ(spmm["config"]["precisions"], nlohmann::json({"f64"}));
  const auto batch = run("--op batch --batch-scale 0.005 --only c50-r100", "batch");
  ASSERT_TRUE(batch.is_object());
  EXPECT_TRUE(bench::validate_json(batch).empty());
  EXPECT_EQ(batch["matrices"].size(), 1u);
  EXPECT_GT(batch["records"].size(), 0u);
  // --cols only with spmm.
  const std::string bad = fmt::format("\"{}\" bench --op spmv --cols 8 --backend cpu > \"{}\" 2>&1",
                                      SPX_CLI_PATH, (dir / "bad.txt").string());
  EXPECT_NE(std::system(bad.c_str()), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace spx::test

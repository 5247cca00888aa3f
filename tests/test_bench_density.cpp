// The density suite (where dense GEMM overtakes SpMM) and the GEMM crossover
// of the SpMM summary, computed from hand-made records whose times cross at
// known densities. No timing is measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "bench.hpp"
#include "common.hpp"

namespace spx::test {
namespace {

namespace fs = std::filesystem;
using bench::Record;
using bench::Results;

TEST(BenchDensity, SuiteHasTheDensitiesItNames) {
  const std::vector<double> expected{0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 50};
  const auto sweep = bench::density_sweep_percent();
  ASSERT_EQ(std::vector<double>(sweep.begin(), sweep.end()), expected);
  for (Backend b : {Backend::Cpu, Backend::Cuda}) {
    const bench::Suite s = bench::density_suite(b);
    const std::int64_t n = bench::density_suite_rows(b);
    EXPECT_EQ(s.name, "density");
    ASSERT_EQ(s.members.size(), expected.size()) << to_string(b);
    std::set<std::string> names;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const bench::SuiteMember& m = s.members[i];
      EXPECT_TRUE(names.insert(m.name).second) << "repeated name " << m.name;
      EXPECT_EQ(m.name, fmt::format("random-n{}-{}pct", n, expected[i]));
      EXPECT_EQ(m.group, "random");
      EXPECT_FALSE(m.regular);
      const auto* spec = std::get_if<GenSpec>(&m.source);
      ASSERT_NE(spec, nullptr) << m.name;
      EXPECT_EQ(spec->kind, Generator::Random);
      EXPECT_EQ(spec->n, n);
      EXPECT_NEAR(spec->degree / static_cast<double>(n), expected[i] / 100, 1e-15) << m.name;
      EXPECT_NO_THROW(validate(*spec)) << m.name;
    }
  }
  // The GPU size: densified in double well below cuBLAS GEMM's 16 GiB limit
  // (src/baselines/cusparse_spmm.cpp), and at least an H100's L2 many times.
  const std::int64_t gpu = bench::density_suite_rows(Backend::Cuda);
  EXPECT_LE(gpu * gpu * 8, std::int64_t{1} << 30);
  EXPECT_GE(gpu * gpu * 8, std::int64_t{256} << 20);
}

TEST(BenchDensity, GeneratedDensityMatchesTheName) {
  // The CPU suite's sparsest and a denser member (small enough for a test).
  const bench::Suite s = bench::density_suite(Backend::Cpu);
  for (const std::size_t i : {std::size_t{0}, std::size_t{7}}) {
    const bench::SuiteMember& m = s.members[i];
    const Csr<double, std::int32_t> A = bench::load_member<std::int32_t>(m);
    const double want = bench::density_sweep_percent()[i] / 100;
    const double got = static_cast<double>(A.nnz()) /
                       (static_cast<double>(A.rows()) * static_cast<double>(A.cols()));
    EXPECT_EQ(A.rows(), bench::density_suite_rows(Backend::Cpu));
    EXPECT_EQ(A.cols(), A.rows());
    EXPECT_NEAR(got, want, 0.1 * want) << m.name;
  }
}

// ---- the crossover from hand-made records ----------------------------------------

const std::vector<double> kDensities{0.001, 0.01, 0.1, 0.5};

Record spmm_record(const std::string& matrix, std::int64_t n, Algorithm a, bool baseline,
                   double time_s) {
  Record r;
  r.op = bench::BenchOp::Spmm;
  r.matrix = matrix;
  r.group = "random";
  r.precision = bench::Precision::F64;
  r.format = Format::Csr;
  r.algorithm = r.algorithm_ran = a;
  r.baseline = baseline;
  r.n_cols = n;
  r.status = bench::Status::Ok;
  r.correct = true;
  r.time_s = time_s;
  return r;
}

/// Matrices at kDensities; SpX's best takes `density` seconds (linear in the
/// density), cuSPARSE twice that, GEMM `gemm_s(n, density)`.
template <class GemmTime>
Results crossover_results(const std::vector<std::int64_t>& widths, GemmTime gemm_s) {
  Results res;
  res.config.backend = Backend::Cpu;
  res.config.op = bench::BenchOp::Spmm;
  res.config.cols = widths;
  res.config.precisions = {bench::Precision::F64};
  res.config.suite_name = "density";
  for (const double d : kDensities) {
    bench::MatrixInfo info;
    info.name = fmt::format("m{}", d);
    info.group = "random";
    info.rows = info.cols = 1000;
    info.nnz = static_cast<std::int64_t>(d * 1e6);
    info.stats.density = d;
    info.stats.row_mean = d * 1000;
    res.matrices.push_back(info);
    for (const std::int64_t n : widths) {
      res.records.push_back(spmm_record(info.name, n, Algorithm::RowSplit, false, d));
      res.records.push_back(spmm_record(info.name, n, Algorithm::MergeBased, false, 1.5 * d));
      res.records.push_back(
          spmm_record(info.name, n, spx::baselines::CusparseSpmmAlg2, true, 2 * d));
      res.records.push_back(
          spmm_record(info.name, n, spx::baselines::CublasGemm, true, gemm_s(n, d)));
    }
    // A refused GEMM record is no measurement.
    Record refused = spmm_record(info.name, widths.front(), spx::baselines::CublasGemm, true, 0);
    refused.status = bench::Status::Skipped;
    refused.time_s.reset();
    refused.correct.reset();
    refused.format = Format::Coo;  // another key, as the validator wants
    res.records.push_back(refused);
  }
  return res;
}

const nlohmann::json& by_n(const nlohmann::json& precision, std::int64_t n) {
  for (const auto& g : precision["gemm_by_n"])
    if (g["n_cols"] == n) return g;
  static const nlohmann::json none;
  return none;
}

TEST(BenchDensity, CrossoverPerWidthAndOverall) {
  // n = 8: GEMM never faster; n = 64: always; n = 128: faster above 5%
  // (GEMM 0.05 s, SpX d s: the log-log interpolation between 1% and 10% is
  // exact for times linear in the density).
  Results res = crossover_results({8, 64, 128}, [](std::int64_t n, double) {
    return n == 8 ? 10.0 : n == 64 ? 1e-6 : 0.05;
  });
  bench::summarize_spmm(res);
  const auto& p = res.op_summary["precisions"][0];
  ASSERT_EQ(p["gemm_by_n"].size(), 3u);

  const auto& never = by_n(p, 8);
  EXPECT_EQ(never["verdict"], "never");
  EXPECT_TRUE(never["overtakes_density"].is_null());
  EXPECT_EQ(never["gemm_wins"], 0);
  EXPECT_EQ(never["points"], 4);
  EXPECT_DOUBLE_EQ(never["density_min"].get<double>(), 0.001);
  EXPECT_DOUBLE_EQ(never["density_max"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(never["agreement"].get<double>(), 1.0);

  const auto& always = by_n(p, 64);
  EXPECT_EQ(always["verdict"], "always");
  EXPECT_TRUE(always["overtakes_density"].is_null());
  EXPECT_EQ(always["gemm_wins"], 4);
  EXPECT_DOUBLE_EQ(always["agreement"].get<double>(), 1.0);

  const auto& cross = by_n(p, 128);
  EXPECT_EQ(cross["verdict"], "crossover");
  EXPECT_EQ(cross["gemm_wins"], 2);
  EXPECT_NEAR(cross["overtakes_density"].get<double>(), 0.05, 1e-12);
  EXPECT_NEAR(cross["split_density"].get<double>(), std::sqrt(0.01 * 0.1), 1e-12);
  EXPECT_DOUBLE_EQ(cross["below_density"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(cross["above_density"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(cross["agreement"].get<double>(), 1.0);

  // Per entry: whether GEMM beat SpX's best (not cuSPARSE's).
  for (const auto& e : p["entries"]) {
    ASSERT_TRUE(e["gemm_faster"].is_boolean());
    const double d = e["density"].get<double>();
    const std::int64_t n = e["n_cols"].get<std::int64_t>();
    EXPECT_EQ(e["gemm_faster"].get<bool>(), n == 64 || (n == 128 && d > 0.05)) << e.dump();
  }

  // Over all widths: 6 of 12 points GEMM-faster, not separable by density
  // alone; the split of best agreement is reported with its agreement.
  const auto& all = p["gemm"];
  EXPECT_EQ(all["points"], 12);
  EXPECT_EQ(all["gemm_wins"], 6);
  EXPECT_LT(all["agreement"].get<double>(), 1.0);

  const std::string table = bench::format_table(res);
  EXPECT_NE(table.find("n = 8: never faster in the measured densities, 0.1% .. 50%"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("n = 64: faster at every measured density, 0.1% .. 50%"), std::string::npos)
      << table;
  EXPECT_NE(table.find("n = 128: faster above 5% (between the measured densities 1% and 10%"),
            std::string::npos)
      << table;
}

TEST(BenchDensity, CrossoverWithAStrayPoint) {
  // GEMM faster at 10% only: the best split (between 1% and 10%) agrees with
  // 3 of 4 points, and says so.
  Results res =
      crossover_results({32}, [](std::int64_t, double d) { return d == 0.1 ? 0.05 : 1.0; });
  bench::summarize_spmm(res);
  const auto& g = by_n(res.op_summary["precisions"][0], 32);
  EXPECT_EQ(g["verdict"], "crossover");
  EXPECT_DOUBLE_EQ(g["agreement"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(g["below_density"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(g["above_density"].get<double>(), 0.1);
  EXPECT_NE(g["note"].get<std::string>().find("3 of 4 points"), std::string::npos) << g.dump();

  // GEMM slower except at the sparsest matrix: "never", with the exception counted.
  res = crossover_results({32}, [](std::int64_t, double d) { return d == 0.001 ? 1e-6 : 1.0; });
  bench::summarize_spmm(res);
  const auto& h = by_n(res.op_summary["precisions"][0], 32);
  EXPECT_EQ(h["verdict"], "never");
  EXPECT_EQ(h["gemm_wins"], 1);
  EXPECT_DOUBLE_EQ(h["agreement"].get<double>(), 0.75);
  EXPECT_TRUE(h["overtakes_density"].is_null());
}

TEST(BenchDensity, NoGemmMeansNoCrossover) {
  Results res = crossover_results({8}, [](std::int64_t, double) { return 1.0; });
  std::erase_if(res.records,
                [](const Record& r) { return r.algorithm == spx::baselines::CublasGemm; });
  bench::summarize_spmm(res);
  const auto& p = res.op_summary["precisions"][0];
  EXPECT_TRUE(p["gemm"].is_null());
  EXPECT_TRUE(p["gemm_by_n"].empty());
  EXPECT_NE(bench::format_table(res).find("dense GEMM: no measurement"), std::string::npos);
}

TEST(BenchDensity, CliListsAndRunsTheSuite) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("spx_bench_density_{}", fresh_seed());
  fs::create_directories(dir);
  const auto run = [&](const std::string& args, const std::string& name) {
    const std::string cmd =
        fmt::format("\"{}\" bench {} > \"{}\" 2>&1", SPX_CLI_PATH, args, (dir / name).string());
    const int rc = std::system(cmd.c_str());
    std::ifstream in(dir / name);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(rc, 0) << text.str();
    return text.str();
  };
  const std::string list = run("--suite density --backend cpu --list", "list.txt");
  for (const double pct : bench::density_sweep_percent())
    EXPECT_NE(list.find(fmt::format("random-n2048-{}pct ", pct)), std::string::npos) << list;
  EXPECT_NE(run("--help", "help.txt").find("density"), std::string::npos);
  // The sparsest member, SpMM on the CPU: no GEMM there.
  const fs::path json = dir / "run.json";
  const std::string table = run(fmt::format("--suite density --only n2048-0.05pct --op spmm "
                                            "--cols 8 --backend cpu --reps 2 --warmup 1 "
                                            "--max-seconds 0.01 --quiet --json \"{}\"",
                                            json.string()),
                                "run.txt");
  EXPECT_NE(table.find("dense GEMM: no measurement"), std::string::npos) << table;
  std::ifstream in(json);
  ASSERT_TRUE(in);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_TRUE(bench::validate_json(doc).empty());
  EXPECT_EQ(doc["config"]["suite"], "density");
  ASSERT_EQ(doc["matrices"].size(), 1u);
  EXPECT_EQ(doc["matrices"][0]["name"], "random-n2048-0.05pct");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace spx::test

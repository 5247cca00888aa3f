// The spx command-line tool, run as a process: `spx info` and `spx convert`
// on a real matrix and on malformed input (exit codes, the numbers printed,
// one-line errors naming the file and line); abusive command lines (every
// subcommand with absurd arguments: a non-zero exit, never a signal, and a
// message naming the problem); writes that fail or are interrupted (the old
// file kept, no temporary left).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "files.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::test {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  bool signaled = false;  ///< ended by a signal (a crash, unless the test sent it)
  std::string out, err;
};

/// Runs `spx ARGS`, capturing stdout and stderr separately.
/// `prefix` is shell text run before spx in the same shell (limits, traps).
Result run_spx(const std::string& args, const std::string& prefix = "") {
  const fs::path err_file =
      fs::temp_directory_path() / ("spx_cli_err_" + std::to_string(::getpid()) + ".txt");
  const std::string cmd =
      prefix + "'" + SPX_CLI_PATH + "' " + args + " 2>'" + err_file.string() + "'";
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // The shell reports a command killed by a signal as 128 + the signal.
  r.signaled = WIFSIGNALED(status) || r.code >= 128;
  std::ifstream f(err_file);
  std::stringstream ss;
  ss << f.rdbuf();
  r.err = ss.str();
  std::error_code ec;
  fs::remove(err_file, ec);
  return r;
}

std::string quoted(const fs::path& p) {
  std::string q(1, '\'');
  q += p.string();
  q += '\'';
  return q;
}

bool one_line(const std::string& s) {
  return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1;
}

fs::path real(const std::string& name) {
  return fs::path(real_matrix_dir()) / name;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(SPX_CLI_PATH)) GTEST_SKIP() << "spx not built at " << SPX_CLI_PATH;
    dir_ = fs::temp_directory_path() /
           ("spx_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(fresh_seed()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(Cli, InfoOnARealMatrix) {
  const fs::path file = real("mhd4800a.mtx");
  if (!fs::exists(file)) GTEST_SKIP() << file << " missing";
  const io::MmHeader h = io::read_header(file);
  const auto A = io::read_csr<double, std::int32_t>(file);
  const Result r = run_spx("info " + quoted(file));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find(std::to_string(h.entries) + " stored entries"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::to_string(h.rows) + " x " + std::to_string(h.cols)), std::string::npos);
  EXPECT_NE(r.out.find("nonzeros     " + std::to_string(A.nnz())), std::string::npos) << r.out;
  // CSR footprint in bytes, as the library counts it.
  EXPECT_NE(r.out.find(std::to_string(A.bytes())), std::string::npos) << r.out;
  for (Format f : kAllFormats)
    EXPECT_NE(r.out.find("\n  " + std::string(to_string(f)) + " "), std::string::npos)
        << to_string(f) << " missing from:\n"
        << r.out;
}

TEST_F(Cli, InfoJsonOnASymmetricMatrix) {
  const fs::path file = real("bcsstk02.mtx");
  if (!fs::exists(file)) GTEST_SKIP() << file << " missing";
  const io::MmHeader h = io::read_header(file);
  const auto A = io::read_csr<float, std::int64_t>(file);
  const Result r = run_spx("info --json --precision f32 --index i64 " + quoted(file));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["header"]["symmetry"], "symmetric");
  EXPECT_EQ(j["header"]["entries"], h.entries);
  EXPECT_EQ(j["stats"]["nnz"], A.nnz());
  EXPECT_EQ(j["stats"]["rows"], h.rows);
  EXPECT_EQ(j["value_type"], "f32");
  EXPECT_EQ(j["index_type"], "i64");
  ASSERT_EQ(j["formats"].size(), kAllFormats.size());
  for (const auto& f : j["formats"]) {
    const Format format = parse_format(f["format"].get<std::string>());
    EXPECT_EQ(f["available"], convertible(format));
    if (format == Format::Csr) {
      EXPECT_EQ(f["bytes"], A.bytes());
      EXPECT_DOUBLE_EQ(f["bytes_per_nnz"].get<double>(),
                       static_cast<double>(A.bytes()) / static_cast<double>(A.nnz()));
    }
    if (!convertible(format)) {
      EXPECT_EQ(f["reason"], "not available in this build");
    }
  }
}

TEST_F(Cli, InfoOnMalformedInputIsOneLineNamingFileAndLine) {
  const fs::path bad = dir_ / "bad.mtx";
  std::ofstream(bad) << "%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n1 1 1\n1 x 2\n";
  const Result r = run_spx("info " + quoted(bad));
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find(bad.string() + ":5:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("column index"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;

  const Result missing = run_spx("info " + quoted(dir_ / "missing.mtx"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(one_line(missing.err)) << missing.err;
  EXPECT_NE(missing.err.find("missing.mtx"), std::string::npos) << missing.err;
}

TEST_F(Cli, ConvertRoundTripsAndWritesTheMatrix) {
  const fs::path file = real("bcsstk02.mtx");
  if (!fs::exists(file)) GTEST_SKIP() << file << " missing";
  const auto A = io::read_csr<double, std::int32_t>(file);
  for (Format f : kAllFormats) {
    if (!convertible(f)) continue;
    const fs::path out = dir_ / (std::string(to_string(f)) + ".mtx.gz");
    const Result r = run_spx("convert " + quoted(file) + " --to " + std::string(to_string(f)) +
                             " -o " + quoted(out));
    if (r.code != 0) {  // a format may refuse the matrix: then one line saying why
      EXPECT_EQ(r.code, 1);
      EXPECT_TRUE(one_line(r.err)) << r.err;
      continue;
    }
    EXPECT_NE(r.out.find(std::to_string(A.nnz()) + " nonzeros"), std::string::npos) << r.out;
    const auto B = io::read_csr<double, std::int32_t>(out);
    ASSERT_EQ(B.nnz(), A.nnz()) << to_string(f);
    EXPECT_EQ(B.row_ptr().to_vector(), A.row_ptr().to_vector()) << to_string(f);
    EXPECT_EQ(B.col_idx().to_vector(), A.col_idx().to_vector()) << to_string(f);
    // SELL-LP writes what it holds: the values rounded to float.
    std::vector<double> want = A.values().to_vector();
    if (reduced_precision(f))
      for (double& v : want)
        v = lowp::widen<double>(lowp::narrow<double>(v));
    EXPECT_EQ(B.values().to_vector(), want) << to_string(f);
  }
}

TEST_F(Cli, ConvertErrors) {
  const fs::path file = real("bcsstk02.mtx");
  if (!fs::exists(file)) GTEST_SKIP() << file << " missing";
  const Result unknown =
      run_spx("convert " + quoted(file) + " --to nosuch -o " + quoted(dir_ / "x.mtx"));
  EXPECT_EQ(unknown.code, 1);
  EXPECT_TRUE(one_line(unknown.err)) << unknown.err;
  EXPECT_NE(unknown.err.find("nosuch"), std::string::npos) << unknown.err;
  const Result nowhere =
      run_spx("convert " + quoted(file) + " --to csr -o " + quoted(dir_ / "no" / "x.mtx"));
  EXPECT_EQ(nowhere.code, 1);
  EXPECT_TRUE(one_line(nowhere.err)) << nowhere.err;
  EXPECT_NE(nowhere.err.find("x.mtx"), std::string::npos) << nowhere.err;
  for (Format f : kAllFormats)
    if (!convertible(f)) {
      const Result r = run_spx("convert " + quoted(file) + " --to " + std::string(to_string(f)) +
                               " -o " + quoted(dir_ / "x.mtx"));
      EXPECT_EQ(r.code, 1);
      EXPECT_NE(r.err.find("not available in this build"), std::string::npos) << r.err;
      break;
    }
  const Result help = run_spx("convert --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("CSR equivalent"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace spx::test

namespace spx::test {
namespace {

/// A matrix of `n` x `n` with about 5n entries, as Matrix Market (~100 bytes a row).
void write_matrix(const fs::path& file, std::int64_t n) {
  std::vector<std::int32_t> ptr{0}, col;
  std::vector<double> val;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j : {i - 2, i - 1, i, i + 1, i + 2})
      if (j >= 0 && j < n) {
        col.push_back(static_cast<std::int32_t>(j));
        val.push_back(1.0 / static_cast<double>(i + j + 3));
      }
    ptr.push_back(static_cast<std::int32_t>(col.size()));
  }
  const Csr<double, std::int32_t> A(n, n, Array<std::int32_t>(ptr), Array<std::int32_t>(col),
                                    Array<double>(val));
  io::write(file, A);
}

// ---- the command line: unknown options and commands --------------------------------

TEST_F(Cli, UnknownOptionsAndCommandsAreNamed) {
  const Result option = run_spx("--nosuchoption");
  EXPECT_NE(option.code, 0);
  EXPECT_FALSE(option.signaled);
  EXPECT_NE(option.err.find("unknown option '--nosuchoption'"), std::string::npos) << option.err;

  const Result command = run_spx("nosuchcmd");
  EXPECT_NE(command.code, 0);
  EXPECT_NE(command.err.find("unknown command 'nosuchcmd'"), std::string::npos) << command.err;
  EXPECT_NE(command.err.find("info, gen, convert, bench"), std::string::npos) << command.err;

  const Result none = run_spx("");
  EXPECT_NE(none.code, 0);
  EXPECT_NE(none.err.find("a command is required"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("info, gen, convert, bench"), std::string::npos) << none.err;

  const Result sub = run_spx("bench --nosuch");
  EXPECT_NE(sub.code, 0);
  EXPECT_NE(sub.err.find("unknown option '--nosuch' for 'spx bench'"), std::string::npos)
      << sub.err;
  const Result extra = run_spx("info a.mtx b.mtx");
  EXPECT_NE(extra.code, 0);
  EXPECT_NE(extra.err.find("'spx info' takes no argument 'b.mtx'"), std::string::npos) << extra.err;

  const Result version = run_spx("--version");
  EXPECT_EQ(version.code, 0) << version.err;
  const Result help = run_spx("--help");
  EXPECT_EQ(help.code, 0) << help.err;
}

// ---- abusive arguments: every subcommand ---------------------------------------------

/// A command line and a fragment its error message must contain.
struct Abuse {
  std::string args;
  std::string fragment;
};

/// Each case exits non-zero (not by a signal), within 60 s, with `fragment` in
/// its message, and prints nothing on stdout (refused before any work).
void expect_refused(const std::vector<Abuse>& cases, const std::string& command = "") {
  for (const Abuse& c : cases) {
    SCOPED_TRACE("spx " + command + c.args);
    const Result r = run_spx(command + c.args, "timeout 60 ");
    EXPECT_NE(r.code, 0) << r.out;
    EXPECT_NE(r.code, 124) << "timed out";
    EXPECT_FALSE(r.signaled) << "exit " << r.code << "\n" << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST_F(Cli, BenchRefusesAbsurdOptionsNamingThem) {
  const std::string m = "random:n=50,degree=3 --formats csr --no-baselines --quiet ";
  expect_refused(
      {
          {m + "--reps 0", "--reps"},
          {m + "--reps -3", "--reps"},
          {m + "--reps 99999999999", "--reps"},
          {m + "--reps 1.5", "--reps"},
          {m + "--warmup -1", "--warmup"},
          {m + "--warmup 2147483648", "--warmup"},
          {m + "--max-seconds 0", "--max-seconds"},
          {m + "--max-seconds nan", "--max-seconds"},
          {m + "--max-seconds inf", "--max-seconds"},
          {m + "--max-seconds -1", "--max-seconds"},
          {m + "--time-budget nan", "--time-budget"},
          {m + "--time-budget 0", "--time-budget"},
          {m + "--time-budget -5", "--time-budget"},
          {m + "--time-budget 1e999", "--time-budget"},
          {"--op batch --batch-scale 0 --quiet", "--batch-scale"},
          {"--op batch --batch-scale nan --quiet", "--batch-scale"},
          {"--op batch --batch-scale 11 --quiet", "--batch-scale"},
          {m + "--op spmm --cols 1,,2", "--cols"},
          {m + "--op spmm --cols ''", "--cols"},
          {m + "--op spmm --cols 0", "--cols"},
          {m + "--op spmm --cols 65537", "--cols"},
          {m + "--op spmm --cols 8,x", "--cols"},
          {m + "--seed -1", "--seed"},
          {m + "--seed 18446744073709551616", "--seed"},
          {m + "--seed 1.5", "--seed"},
          {m + "--block-size 0", "--block-size"},
          {m + "--block-size 33", "--block-size"},
          {"random:n=50,degree=3 --formats ''", "--formats"},
          {"random:n=50,degree=3 --formats csr,,ell", "--formats"},
          {"random:n=50,degree=3 --formats nosuch", "nosuch"},
          {m + "--algorithms nosuch", "nosuch"},
          {m + "--only ''", "--only"},
          {m + "--json ''", "--json"},
          {m + "--index i16", "--index"},
          {m + "--precision f16", "--precision"},
          {m + "--backend tpu", "--backend"},
          {"--suite nosuch", "--suite"},
          {m + "--reps", "--reps"},
          {"random:n=-5", "n = -5"},
      },
      "bench ");
}

TEST_F(Cli, BenchRefusesMissingFilesAndUnwritableJsonBeforeTheRun) {
  fs::create_directories(dir_ / "empty");
  const std::string m = "random:n=50,degree=3 --formats csr --no-baselines --quiet --reps 1 ";
  expect_refused(
      {
          {quoted(dir_ / "missing.mtx"), "missing.mtx"},
          {quoted(dir_ / "empty"), "empty"},
          // The JSON's folder is missing, or the JSON is a folder: found before the
          // run (nothing on stdout: no table).
          {m + "--json " + quoted(dir_ / "no" / "run.json"), "does not exist"},
          {m + "--json " + quoted(dir_), "it is a folder"},
          // --real-dir must be a folder (refused before --only finds no
          // member), and applies to the default and batch suites only.
          {"--real-dir " + quoted(dir_ / "nowhere") + " --only no-such-member --quiet",
           "--real-dir: '"},
          {"--suite quick --real-dir " + quoted(dir_) + " --quiet", "--real-dir applies"},
          {m + "--real-dir " + quoted(dir_), "--real-dir applies"},
      },
      "bench ");
  // A default folder that is missing is noted, and the suite goes on without it.
  const Result noted = run_spx("bench --only no-such-member --quiet",
                               "SPX_REAL_MATRICES=" + quoted(dir_ / "nowhere") + " timeout 60 ");
  EXPECT_FALSE(noted.signaled) << noted.err;
  EXPECT_TRUE(noted.out.empty()) << noted.out;
  EXPECT_NE(noted.code, 0);
  EXPECT_NE(noted.err.find("no real matrices in the suite"), std::string::npos) << noted.err;
  EXPECT_NE(noted.err.find("--only: no suite member matches"), std::string::npos) << noted.err;
}

TEST_F(Cli, BenchThatMeasuredNothingFails) {
  const fs::path bad = dir_ / "bad.mtx";
  std::ofstream(bad) << "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 3 1\n";
  const Result one = run_spx("bench --quiet --no-baselines " + quoted(bad));
  EXPECT_EQ(one.code, 1) << one.out;
  EXPECT_FALSE(one.signaled);
  EXPECT_NE(one.err.find("nothing was measured"), std::string::npos) << one.err;
  EXPECT_NE(one.err.find("bad.mtx"), std::string::npos) << one.err;
  EXPECT_NE(one.out.find("0 measured"), std::string::npos) << one.out;  // the table still prints

  // A folder of files that do not load; the JSON is still written.
  fs::create_directories(dir_ / "bad");
  std::ofstream(dir_ / "bad" / "a.mtx") << "not a matrix\n";
  std::ofstream(dir_ / "bad" / "b.mtx") << "%%MatrixMarket matrix coordinate real general\n";
  const fs::path json = dir_ / "run.json";
  const Result folder =
      run_spx("bench --quiet --no-baselines --json " + quoted(json) + " " + quoted(dir_ / "bad"));
  EXPECT_EQ(folder.code, 1);
  EXPECT_NE(folder.err.find("nothing was measured (2 matrices"), std::string::npos) << folder.err;
  EXPECT_NE(folder.err.find("a.mtx"), std::string::npos) << folder.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(json))["matrices"].size(), 2u);

  // Every kernel skipped: nothing measured either.
  const Result skipped = run_spx(
      "bench --quiet --no-baselines --formats dia --precision f64 --reps 1 "
      "'random:n=3000,degree=20' --max-seconds 0.01");
  EXPECT_EQ(skipped.code, 1) << skipped.out;
  EXPECT_NE(skipped.err.find("nothing was measured"), std::string::npos) << skipped.err;
  EXPECT_NE(skipped.err.find("dia/"), std::string::npos) << skipped.err;
}

TEST_F(Cli, BenchWarmupsStopAtTheTimeBudget) {
  // 2^31 - 1 warm-ups of a ~10 us product would take hours; the budget and
  // the per-kernel seconds bound them.
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run_spx(
      "bench --quiet --no-baselines --formats csr --precision f64 --reps 3 --warmup 2147483647 "
      "--time-budget 1 --max-seconds 10 'random:n=2000,degree=5' 'random:n=1000,degree=5'",
      "timeout 120 ");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_LT(s, 60.0) << r.err;
  EXPECT_NE(r.out.find("time budget of 1 s was used up"), std::string::npos) << r.out;
}

TEST_F(Cli, ConvertRefusesAbsurdOptionsNamingThem) {
  const fs::path in = dir_ / "in.mtx";
  write_matrix(in, 20);
  const std::string c = "convert " + quoted(in) + " -o " + quoted(dir_ / "out.mtx") + " ";
  fs::create_directories(dir_ / "sub");
  expect_refused({
      {c + "--to ell --max-expansion nan", "--max-expansion"},
      {c + "--to ell --max-expansion inf", "--max-expansion"},
      {c + "--to ell --max-expansion 0", "--max-expansion"},
      {c + "--to ell --max-expansion -1", "--max-expansion"},
      {c + "--to csr --digits 41", "--digits"},
      {c + "--to csr --digits -1", "--digits"},
      {c + "--to sell --slice-size 0", "--slice-size"},
      {c + "--to sell --sigma nan", "--sigma"},
      {c + "--to sell --threads-per-row 99999999999", "--threads-per-row"},
      {c + "--to hll --hack-size -1", "--hack-size"},
      {c + "--to hyb --hyb-width -2", "--hyb-width"},
      {c + "--to bcsr --block-size 33", "--block-size"},
      {c + "--to nosuch", "nosuch"},
      {c + "--to csr --precision f16", "--precision"},
      {"convert " + quoted(in) + " --to csr", "--output"},
      {"convert " + quoted(in) + " --to csr -o ''", "empty name"},
      {"convert " + quoted(in) + " --to csr -o " + quoted(dir_ / "sub"), "it is a folder"},
      {"convert " + quoted(in) + " --to csr -o " + quoted(dir_ / "no" / "x.mtx"), "does not exist"},
      {"convert " + quoted(dir_ / "missing.mtx") + " --to csr -o " + quoted(dir_ / "x.mtx"),
       "missing.mtx"},
      {"convert " + quoted(dir_ / "sub") + " --to csr -o " + quoted(dir_ / "x.mtx"), "sub"},
  });
  // Nothing was written by any of them.
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"in.mtx", "sub"}));
}

TEST_F(Cli, GenAndInfoRefuseAbsurdOptionsNamingThem) {
  const std::string o = " -o " + quoted(dir_ / "g.mtx");
  fs::create_directories(dir_ / "sub");
  expect_refused({
      {"gen random --n -5" + o, "--n"},
      {"gen random --n 99999999999999999999" + o, "--n"},
      {"gen random --n 100 --degree nan" + o, "--degree"},
      {"gen random --n 100 --degree inf" + o, "--degree"},
      {"gen random --n 100 --seed -1" + o, "--seed"},
      {"gen stencil2d --n 10 --points 4" + o, "points = 4"},
      {"gen fem --n 10 --block 0" + o, "block = 0"},
      {"gen rmat --scale 41" + o, "scale = 41"},
      {"gen random:n=10,seed=-1" + o, "seed"},
      {"gen batch --count -1" + o, "--count"},
      {"gen batch --min-rows 0" + o, "--min-rows"},
      {"gen batch --max-rows -7" + o, "--max-rows"},
      {"gen batch --seed -1" + o, "--seed"},
      {"gen batch --degree nan" + o, "--degree"},
      {"gen batch --count 3 --min-rows 10 --max-rows 5" + o, "max_rows = 5"},
      {"gen nosuch" + o, "nosuch"},
      {"gen random --n 100", "--output"},
      {"gen random --n 100 -o " + quoted(dir_ / "sub"), "it is a folder"},
      {"gen random --n 100 -o " + quoted(dir_ / "no" / "g.mtx"), "does not exist"},
      {"info", "file"},
      {"info " + quoted(dir_ / "missing.mtx"), "missing.mtx"},
      {"info " + quoted(dir_ / "sub"), "sub"},
      {"info --precision f128 " + quoted(dir_ / "sub"), "--precision"},
  });
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"sub"}));
}

// ---- writes that fail or are interrupted ---------------------------------------------

/// Shell text that caps the size of files the command writes at 1 or 2 KiB
/// (ulimit counts blocks of 512 or 1024 bytes, by shell; root
/// too is bound by it): writes past it fail with EFBIG ("File too large"), as
/// on a full disk, when SIGXFSZ is ignored; else the signal kills the process
/// in the middle of the write.
std::string file_size_limit(bool kill) {
  return std::string(kill ? "trap - XFSZ; " : "trap '' XFSZ; ") + "ulimit -f 2; ";
}

TEST_F(Cli, FailedWriteKeepsTheOldFileAndLeavesNoTemporary) {
  const fs::path in = dir_ / "in.mtx";
  write_matrix(in, 4000);  // ~100 kB of text
  const std::string input = slurp(in);
  const std::string old = "the old content\n";
  for (const std::string name : {"out.mtx", "out.mtx.gz"}) {
    SCOPED_TRACE(name);
    const fs::path out = dir_ / name;
    std::ofstream(out) << old;
    const Result r =
        run_spx("convert " + quoted(in) + " --to csr -o " + quoted(out), file_size_limit(false));
    EXPECT_EQ(r.code, 1);
    EXPECT_FALSE(r.signaled);
    EXPECT_NE(r.err.find(out.string() + ": write error"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(out), old);
    EXPECT_EQ(listing(dir_), (std::vector<std::string>{"in.mtx", name})) << "a temporary is left";
    fs::remove(out);
  }
  // The case: the output is the input itself.
  const Result self =
      run_spx("convert " + quoted(in) + " --to csr -o " + quoted(in), file_size_limit(false));
  EXPECT_EQ(self.code, 1);
  EXPECT_EQ(slurp(in), input);
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"in.mtx"}));

  // gen -o, and bench --json, the same way.
  const fs::path gen = dir_ / "gen.mtx";
  std::ofstream(gen) << old;
  const Result g =
      run_spx("gen random --n 5000 --degree 4 -o " + quoted(gen), file_size_limit(false));
  EXPECT_EQ(g.code, 1);
  EXPECT_NE(g.err.find("gen.mtx: write error"), std::string::npos) << g.err;
  EXPECT_EQ(slurp(gen), old);
  const fs::path json = dir_ / "run.json";
  std::ofstream(json) << old;
  const Result b =
      run_spx("bench --quiet --no-baselines --formats csr --precision f64 --reps 1 --json " +
                  quoted(json) + " 'random:n=100,degree=3'",
              file_size_limit(false));
  EXPECT_EQ(b.code, 1);
  EXPECT_NE(b.err.find("run.json: write error"), std::string::npos) << b.err;
  EXPECT_EQ(slurp(json), old);
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"gen.mtx", "in.mtx", "run.json"}));
}

TEST_F(Cli, WriteKilledMidwayKeepsTheOldFileAndLeavesNoTemporary) {
  const fs::path in = dir_ / "in.mtx";
  write_matrix(in, 4000);
  const fs::path out = dir_ / "out.mtx";
  const std::string old = "the old content\n";
  std::ofstream(out) << old;
  // SIGXFSZ ends the process in the middle of writing the file.
  const Result r =
      run_spx("convert " + quoted(in) + " --to csr -o " + quoted(out), file_size_limit(true));
  EXPECT_TRUE(r.signaled) << "exit " << r.code << ": " << r.err;
  EXPECT_EQ(slurp(out), old);
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"in.mtx", "out.mtx"}));
}

TEST_F(Cli, WriteTerminatedMidwayKeepsTheOldFileAndLeavesNoTemporary) {
  // A large compressed output takes a second or more to write: SIGTERM is
  // sent once its temporary has grown, and must remove it.
  const fs::path out = dir_ / "big.mtx.gz";
  const std::string old = "the old content\n";
  std::ofstream(out) << old;
  const std::string target = out.string();
  std::vector<std::string> args = {SPX_CLI_PATH, "gen", "random", "--n", "1000000",
                                   "--degree",   "5",   "-o",     target};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, SPX_CLI_PATH, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  bool sent = false;
  int status = 0;
  for (int i = 0; i < 120000 && !sent; ++i) {  // up to about two minutes
    for (const auto& e : fs::directory_iterator(dir_)) {
      std::error_code ec;
      if (e.path().filename().string().find(".spx-tmp-") != std::string::npos &&
          fs::file_size(e.path(), ec) > 0 && !ec) {
        ::kill(pid, SIGTERM);
        sent = true;
        break;
      }
    }
    if (!sent && ::waitpid(pid, &status, WNOHANG) == pid) {
      pid = 0;  // ended by itself
      break;
    }
    ::usleep(1000);
  }
  if (pid != 0) {
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  ASSERT_TRUE(sent) << "the write ended before it could be interrupted";
  EXPECT_EQ(slurp(out), old);
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"big.mtx.gz"}));
}

TEST_F(Cli, WritesToDevicesInPlace) {
  const fs::path in = dir_ / "in.mtx";
  write_matrix(in, 50);
  const Result null = run_spx("convert " + quoted(in) + " --to csr -o /dev/null");
  EXPECT_EQ(null.code, 0) << null.err;
  const Result full = run_spx("convert " + quoted(in) + " --to csr -o /dev/full");
  EXPECT_EQ(full.code, 1);
  EXPECT_NE(full.err.find("/dev/full: write error: No space left on device"), std::string::npos)
      << full.err;
  const Result out = run_spx("convert " + quoted(in) + " --to coo -o /dev/stdout");
  EXPECT_EQ(out.code, 0) << out.err;
  EXPECT_EQ(out.out.substr(0, 14), "%%MatrixMarket") << out.out;
  EXPECT_EQ(listing(dir_), (std::vector<std::string>{"in.mtx"}));
}

// ---- spx advise ---------------------------------------------------------------------

TEST_F(Cli, AdviseRanksTheCandidatesAndMarksThePick) {
  const fs::path file = dir_ / "band.mtx";
  write_matrix(file, 3000);
  const Result a = run_spx("advise " + quoted(file) + " --products 1000 --bandwidth 20");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_CONTAINS(a.out, "1000 x spmv on the cpu backend, copy bandwidth 20.0 GB/s");
  EXPECT_CONTAINS(a.out, "break-even");
  EXPECT_CONTAINS(a.out, "\n  * ");
  EXPECT_CONTAINS(a.out, "pick: ");
  EXPECT_CONTAINS(a.out, "advised in");

  const Result j = run_spx("advise " + quoted(file) +
                           " --products 10 --op spmm --cols 4 --bandwidth 20 --memory-mb 0.1 "
                           "--precision f32 --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["op"], "spmm");
  EXPECT_EQ(doc["cols"], 4);
  EXPECT_EQ(doc["value_type"], "f32");
  int picks = 0;
  for (const auto& c : doc["candidates"]) {
    picks += c["pick"].get<bool>() ? 1 : 0;
    if (c["feasible"].get<bool>() && c["format"] != "csr") {
      EXPECT_LE(c["bytes"].get<double>(), 1e5);
    }
    if (c["pick"].get<bool>()) {
      EXPECT_TRUE(c["feasible"].get<bool>());
    }
  }
  EXPECT_EQ(picks, 1);

  // The CUDA model needs no device, only a bandwidth (and CUDA in the build).
  const Result c = run_spx("advise " + quoted(file) + " --backend cuda --bandwidth 3000");
  if (cuda_compiled()) {
    EXPECT_EQ(c.code, 0) << c.err;
    EXPECT_CONTAINS(c.out, "on the cuda backend");
  } else {
    EXPECT_EQ(c.code, 1);
    EXPECT_CONTAINS(c.err, "built without CUDA");
  }

  // A generator spec, tuned.
  const Result g = run_spx("advise stencil2d:n=60 --products 500 --bandwidth 20 --tune");
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_CONTAINS(g.out, "measured ms");
  EXPECT_CONTAINS(g.out, "tuning");
}

TEST_F(Cli, AdviseHelpsAndRefusesBadArguments) {
  const Result h = run_spx("advise --help");
  EXPECT_EQ(h.code, 0);
  for (const char* part : {"--products", "--op", "--cols", "--backend", "--memory-mb", "--tune",
                           "--json", "break-even", "docs/advisor.md"})
    EXPECT_CONTAINS(h.out, part);
  const fs::path file = dir_ / "band.mtx";
  write_matrix(file, 50);
  const std::vector<std::pair<std::string, std::string>> bad{
      {"--products 0", "--products"},    {"--products -3", "--products"},
      {"--op spmm --cols 0", "--cols"},  {"--cols 4", "--cols"},
      {"--memory-mb -1", "--memory-mb"}, {"--op gemm", "--op"},
      {"--backend tpu", "--backend"},    {"--bandwidth 0", "--bandwidth"}};
  for (const auto& [args, name] : bad) {
    const Result r = run_spx("advise " + quoted(file) + " " + args);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_FALSE(r.signaled) << args;
    EXPECT_CONTAINS(r.err, name) << args;
  }
  const Result missing = run_spx("advise " + quoted(dir_ / "none.mtx"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(one_line(missing.err)) << missing.err;
}

}  // namespace
}  // namespace spx::test

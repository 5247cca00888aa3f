// The spx command-line tool, run as a process: `spx info` and `spx convert`
// on a real matrix and on malformed input (exit codes, the numbers printed,
// one-line errors naming the file and line).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::test {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

/// Runs `spx ARGS`, capturing stdout and stderr separately.
Result run_spx(const std::string& args) {
  const fs::path err_file =
      fs::temp_directory_path() / ("spx_cli_err_" + std::to_string(::getpid()) + ".txt");
  const std::string cmd =
      std::string("'") + SPX_CLI_PATH + "' " + args + " 2>'" + err_file.string() + "'";
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
    EXPECT_EQ(B.values().to_vector(), A.values().to_vector()) << to_string(f);
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

// Matrix Market reader and writer: every field/symmetry/format combination,
// gzip, exact round trips, one test per class of malformed input (exception
// type, file name and line number), the real matrices against an independent
// reader, and a throughput measurement on a ~50 MB file.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common.hpp"
#include "files.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::test {
namespace {

namespace fs = std::filesystem;
using io::MmField;
using io::MmHeader;
using io::MmReadOptions;
using io::MmSymmetry;
using io::MmWriteOptions;

/// A fresh directory for the test's files.
class MmDir : public TempDir {
 public:
  MmDir() : TempDir("spx_mm_test_", fresh_seed()) {}
};

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

std::string read_text(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_gz(const fs::path& file, const std::string& text, const char* mode = "wb") {
  gzFile g = gzopen(file.c_str(), mode);
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(gzwrite(g, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(g), Z_OK);
}

/// (row, col, value) triplets of a COO, in order.
template <Value T, Index I>
std::vector<std::tuple<std::int64_t, std::int64_t, T>> triplets(const Coo<T, I>& A) {
  std::vector<std::tuple<std::int64_t, std::int64_t, T>> out;
  for (std::int64_t k = 0; k < A.nnz(); ++k)
    out.emplace_back(A.row_idx()[k], A.col_idx()[k], A.values()[k]);
  return out;
}
using Triplets = std::vector<std::tuple<std::int64_t, std::int64_t, double>>;

Triplets parse(const std::string& text, const MmReadOptions& o = {}, MmHeader* h = nullptr) {
  return triplets(io::parse_coo<double, std::int32_t>(text, "t.mtx", o, h));
}

template <Value T, Index I>
void expect_same(const Csr<T, I>& a, const Csr<T, I>& b, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  ASSERT_EQ(a.nnz(), b.nnz()) << what;
  EXPECT_EQ(a.row_ptr().to_vector(), b.row_ptr().to_vector()) << what;
  EXPECT_EQ(a.col_idx().to_vector(), b.col_idx().to_vector()) << what;
  const auto va = a.values().to_vector(), vb = b.values().to_vector();
  for (std::size_t k = 0; k < va.size(); ++k)
    if (va[k] != vb[k]) {
      ADD_FAILURE() << what << ": value " << k << " differs: " << va[k] << " vs " << vb[k];
      return;
    }
}

/// Random COO (duplicates and any order) with values spread over many
/// binades, so that a lossy printer cannot pass.
template <Value T, Index I>
Coo<T, I> random_coo(I rows, I cols, std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<I> r(n), c(n);
  std::vector<T> v(n);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> expo(-40, 40);
  for (std::int64_t k = 0; k < n; ++k) {
    r[k] = static_cast<I>(gen() % static_cast<std::uint64_t>(rows));
    c[k] = static_cast<I>(gen() % static_cast<std::uint64_t>(cols));
    v[k] = static_cast<T>((gen() & 1 ? 1 : -1) * std::ldexp(mant(gen), expo(gen)));
  }
  return Coo<T, I>(rows, cols, Array<I>(r), Array<I>(c), Array<T>(v));
}

/// Expects IoError whose message holds "NAME:LINE:" and `part`.
void expect_error(const std::string& text, std::int64_t line, const std::string& part,
                  const MmReadOptions& o = {}) {
  const std::string where = "bad.mtx:" + std::to_string(line) + ":";
  try {
    io::parse_coo<double, std::int32_t>(text, "bad.mtx", o);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const IoError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(where, 0), 0u) << "expected '" << where << "' at the start of: " << msg;
    EXPECT_NE(msg.find(part), std::string::npos) << "expected '" << part << "' in: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
  // Same error, same line, whatever the chunking and threads.
  for (std::size_t chunk : {1, 5, 16}) {
    MmReadOptions small = o;
    small.chunk_bytes = chunk;
    small.threads = 2;
    try {
      io::parse_coo<double, std::int32_t>(text, "bad.mtx", small);
      ADD_FAILURE() << "no error with chunk_bytes=" << chunk;
    } catch (const IoError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u)
          << "chunk_bytes=" << chunk << ": " << e.what();
    }
  }
}

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";
const std::string kSymmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
const std::string kSkew = "%%MatrixMarket matrix coordinate real skew-symmetric\n";

// ---- what is read ------------------------------------------------------------

TEST(MatrixMarketRead, CoordinateRealGeneral) {
  MmHeader h;
  const auto t = parse(kGeneral + "% a comment\n3 4 3\n1 1 1.5\n3 4 -2e-3\n2 1 +7\n", {}, &h);
  EXPECT_EQ(t, (Triplets{{0, 0, 1.5}, {2, 3, -2e-3}, {1, 0, 7.0}}));
  EXPECT_TRUE(h.coordinate);
  EXPECT_EQ(h.field, MmField::Real);
  EXPECT_EQ(h.symmetry, MmSymmetry::General);
  EXPECT_EQ(h.rows, 3);
  EXPECT_EQ(h.cols, 4);
  EXPECT_EQ(h.entries, 3);
}

TEST(MatrixMarketRead, IntegerAndPattern) {
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -5\n2 2 +3\n"),
            (Triplets{{0, 1, -5.0}, {1, 1, 3.0}}));
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n"),
            (Triplets{{0, 2, 1.0}, {1, 0, 1.0}}));
}

TEST(MatrixMarketRead, SymmetricExpandsOrKeepsTheTriangle) {
  const std::string text = kSymmetric + "3 3 3\n1 1 2\n3 1 5\n3 2 -1\n";
  EXPECT_EQ(parse(text),
            (Triplets{{0, 0, 2.0}, {2, 0, 5.0}, {2, 1, -1.0}, {0, 2, 5.0}, {1, 2, -1.0}}));
  MmReadOptions keep;
  keep.expand_symmetry = false;
  MmHeader h;
  EXPECT_EQ(parse(text, keep, &h), (Triplets{{0, 0, 2.0}, {2, 0, 5.0}, {2, 1, -1.0}}));
  EXPECT_EQ(h.symmetry, MmSymmetry::Symmetric);
}

TEST(MatrixMarketRead, SkewSymmetricNegatesTheMirror) {
  const std::string text = kSkew + "3 3 2\n2 1 4\n3 2 -1.5\n";
  EXPECT_EQ(parse(text), (Triplets{{1, 0, 4.0}, {2, 1, -1.5}, {0, 1, -4.0}, {1, 2, 1.5}}));
  MmReadOptions keep;
  keep.expand_symmetry = false;
  EXPECT_EQ(parse(text, keep), (Triplets{{1, 0, 4.0}, {2, 1, -1.5}}));
}

TEST(MatrixMarketRead, PatternAndIntegerSymmetric) {
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n"),
            (Triplets{{0, 0, 1.0}, {1, 0, 1.0}, {0, 1, 1.0}}));
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 -3\n"),
            (Triplets{{1, 0, -3.0}, {0, 1, -3.0}}));
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n"),
            (Triplets{{1, 0, 3.0}, {0, 1, -3.0}}));
}

TEST(MatrixMarketRead, ArrayGeneralIsColumnMajorWithoutZeros) {
  MmHeader h;
  const auto t =
      parse("%%MatrixMarket matrix array real general\n2 3\n1\n0\n0\n4.5\n-2\n0\n", {}, &h);
  EXPECT_EQ(t, (Triplets{{0, 0, 1.0}, {1, 1, 4.5}, {0, 2, -2.0}}));
  EXPECT_FALSE(h.coordinate);
  EXPECT_EQ(h.entries, 6);
  EXPECT_EQ(parse("%%MatrixMarket matrix array integer general\n1 2\n3\n-4\n"),
            (Triplets{{0, 0, 3.0}, {0, 1, -4.0}}));
}

TEST(MatrixMarketRead, ArraySymmetricAndSkew) {
  // Lower triangle by columns: (1,1) (2,1) (3,1) (2,2) (3,2) (3,3).
  const std::string sym = "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n0\n4\n5\n6\n";
  EXPECT_EQ(parse(sym), (Triplets{{0, 0, 1.0},
                                  {1, 0, 2.0},
                                  {1, 1, 4.0},
                                  {2, 1, 5.0},
                                  {2, 2, 6.0},
                                  {0, 1, 2.0},
                                  {1, 2, 5.0}}));
  // Strict lower triangle: (2,1) (3,1) (3,2).
  const std::string skew = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n7\n0\n-8\n";
  EXPECT_EQ(parse(skew), (Triplets{{1, 0, 7.0}, {2, 1, -8.0}, {0, 1, -7.0}, {1, 2, 8.0}}));
  MmReadOptions keep;
  keep.expand_symmetry = false;
  EXPECT_EQ(parse(skew, keep), (Triplets{{1, 0, 7.0}, {2, 1, -8.0}}));
}

TEST(MatrixMarketRead, CommentsBlankLinesCrlfTabsAndCase) {
  const std::string text =
      "%%MatrixMarket MATRIX Coordinate REAL General\r\n"
      "%\r\n"
      "\r\n"
      "   % indented comment\n"
      "\t2 2 2  \r\n"
      "\n"
      "1\t1   0.5\r\n"
      "% a comment between entries\n"
      "   \n"
      "2 2 .25";  // no final newline
  EXPECT_EQ(parse(text), (Triplets{{0, 0, 0.5}, {1, 1, 0.25}}));
}

TEST(MatrixMarketRead, EmptyMatrices) {
  EXPECT_TRUE(parse(kGeneral + "0 0 0\n").empty());
  EXPECT_TRUE(parse(kGeneral + "5 3 0").empty());
  EXPECT_TRUE(parse("%%MatrixMarket matrix array real general\n0 4\n").empty());
  const auto A = io::parse_coo<float, std::int64_t>(kGeneral + "5 3 0\n");
  EXPECT_EQ(A.rows(), 5);
  EXPECT_EQ(A.cols(), 3);
}

TEST(MatrixMarketRead, ValuesReadExactly) {
  // Correct rounding of hard cases, subnormals, underflow to zero (accepted),
  // and values parsed directly in float (no double rounding).
  const auto t = parse(kGeneral +
                       "1 6 6\n1 1 0.1\n1 2 4.9406564584124654e-324\n1 3 1e-400\n"
                       "1 4 2.2250738585072011e-308\n1 5 1.7976931348623157e308\n1 6 -0\n");
  EXPECT_EQ(std::get<2>(t[0]), 0.1);
  EXPECT_EQ(std::get<2>(t[1]), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(std::get<2>(t[2]), 0.0);
  EXPECT_EQ(std::get<2>(t[3]), 2.2250738585072011e-308);
  EXPECT_EQ(std::get<2>(t[4]), std::numeric_limits<double>::max());
  EXPECT_TRUE(std::signbit(std::get<2>(t[5])));
  const auto f = io::parse_coo<float, std::int32_t>(kGeneral + "1 2 2\n1 1 0.1\n1 2 1e-45\n");
  EXPECT_EQ(f.values()[0], 0.1f);
  EXPECT_EQ(f.values()[1], std::numeric_limits<float>::denorm_min());
}

TEST(MatrixMarketRead, NonFiniteValuesWhenAllowed) {
  MmReadOptions any;
  any.finite_only = false;
  const auto A = io::parse_coo<float, std::int32_t>(
      kGeneral + "1 3 3\n1 1 nan\n1 2 -inf\n1 3 1e39\n", "t.mtx", any);
  EXPECT_TRUE(std::isnan(A.values()[0]));
  EXPECT_EQ(A.values()[1], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(A.values()[2], std::numeric_limits<float>::infinity());
}

TEST(MatrixMarketRead, ChunksAndThreadsGiveTheSameResult) {
  const auto A = random_coo<double, std::int32_t>(50, 70, 400, fresh_seed());
  MmDir dir;
  io::write(dir / "a.mtx", A);
  const std::string text = read_text(dir / "a.mtx");
  const auto ref = triplets(io::parse_coo<double, std::int32_t>(text));
  EXPECT_EQ(ref, triplets(A));
  for (std::size_t chunk : {1, 7, 100, 4096})
    for (int threads : {1, 2, 3}) {
      MmReadOptions o;
      o.chunk_bytes = chunk;
      o.threads = threads;
      EXPECT_EQ(triplets(io::parse_coo<double, std::int32_t>(text, "a", o)), ref)
          << "chunk_bytes=" << chunk << " threads=" << threads;
    }
  // Symmetric expansion across chunks keeps file order, mirrors appended.
  const std::string sym = kSymmetric + "4 4 4\n1 1 1\n2 1 2\n4 3 3\n4 4 4\n";
  MmReadOptions o;
  o.chunk_bytes = 3;
  o.threads = 2;
  EXPECT_EQ(parse(sym, o), parse(sym));
}

TEST(MatrixMarketRead, Header) {
  MmDir dir;
  const std::string text = kSymmetric + "% c\n\n 7 7 2\n1 1 1\n2 1 1\n";
  write_text(dir / "h.mtx", text);
  write_gz(dir / "h.mtx.gz", text);
  for (const char* name : {"h.mtx", "h.mtx.gz"}) {
    const MmHeader h = io::read_header(dir / name);
    EXPECT_EQ(h.symmetry, MmSymmetry::Symmetric) << name;
    EXPECT_EQ(h.rows, 7) << name;
    EXPECT_EQ(h.entries, 2) << name;
  }
  EXPECT_EQ(io::to_string(MmSymmetry::SkewSymmetric), "skew-symmetric");
  EXPECT_EQ(io::to_string(MmField::Pattern), "pattern");
}

// ---- gzip ---------------------------------------------------------------------

TEST(MatrixMarketGzip, ReadsGzipWhateverTheNameAndConcatenatedMembers) {
  MmDir dir;
  const std::string head = kGeneral + "3 3 3\n1 1 1\n";
  const std::string tail = "2 2 2\n3 3 3\n";
  write_gz(dir / "m.mtx.gz", head + tail);
  write_gz(dir / "no-suffix.mtx", head + tail);
  write_gz(dir / "two.mtx.gz", head);
  write_gz(dir / "two.mtx.gz", tail, "ab");  // a second gzip member
  const Triplets want{{0, 0, 1.0}, {1, 1, 2.0}, {2, 2, 3.0}};
  for (const char* name : {"m.mtx.gz", "no-suffix.mtx", "two.mtx.gz"})
    EXPECT_EQ(triplets(io::read_coo<double, std::int32_t>(dir / name)), want) << name;
}

TEST(MatrixMarketGzip, CorruptAndTruncatedGzipAreIoErrors) {
  MmDir dir;
  std::string text = kGeneral + "100 100 100\n";
  for (int k = 1; k <= 100; ++k)
    text += std::to_string(k) + " " + std::to_string(k) + " 1.5\n";
  write_gz(dir / "full.mtx.gz", text);
  const std::string gz = read_text(dir / "full.mtx.gz");
  write_text(dir / "truncated.mtx.gz", gz.substr(0, gz.size() / 2));
  std::string corrupt = gz;
  for (std::size_t k = 20; k < corrupt.size() - 10; k += 7)
    corrupt[k] = static_cast<char>(~corrupt[k]);
  write_text(dir / "corrupt.mtx.gz", corrupt);
  for (const char* name : {"truncated.mtx.gz", "corrupt.mtx.gz"}) {
    try {
      io::read_coo<double, std::int32_t>(dir / name);
      ADD_FAILURE() << name << ": no error";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

// ---- round trips ---------------------------------------------------------------

SPX_TYPED_TEST_SUITE(MatrixMarketRoundTrip);

TYPED_TEST(MatrixMarketRoundTrip, CoordinateCooCsrArrayPatternGzip) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  MmDir dir;
  const auto coo = random_coo<T, I>(37, 53, 500, seed);  // unsorted, with duplicates
  const auto csr = to_csr(coo);
  const auto want = triplets(coo);

  // COO, coordinate: the same entries in the same order, duplicates kept.
  for (const char* name : {"coo.mtx", "coo.mtx.gz"}) {
    io::write(dir / name, coo);
    EXPECT_EQ(triplets(io::read_coo<T, I>(dir / name)), want) << name;
  }
  // Shortest exact text.
  MmWriteOptions shortest;
  shortest.precision = 0;
  io::write(dir / "short.mtx", coo, shortest);
  EXPECT_EQ(triplets(io::read_coo<T, I>(dir / "short.mtx")), want);
  // Precision 9 is exact for float only.
  MmWriteOptions nine;
  nine.precision = 9;
  io::write(dir / "nine.mtx", coo, nine);
  if constexpr (std::is_same_v<T, float>)
    EXPECT_EQ(triplets(io::read_coo<T, I>(dir / "nine.mtx")), want);
  else
    EXPECT_NE(triplets(io::read_coo<T, I>(dir / "nine.mtx")), want);

  // CSR: coordinate, gzip and array give the same CSR back.
  MmWriteOptions array;
  array.array = true;
  for (const char* name : {"csr.mtx", "csr.mtx.gz"}) {
    io::write(dir / name, csr);
    expect_same(io::read_csr<T, I>(dir / name), csr, name);
  }
  io::write(dir / "array.mtx", csr, array);
  expect_same(io::read_csr<T, I>(dir / "array.mtx"), csr, "array");
  io::write(dir / "coo-array.mtx.gz", coo, array);
  expect_same(io::read_csr<T, I>(dir / "coo-array.mtx.gz"), csr, "coo array");
  const MmHeader h = io::read_header(dir / "array.mtx");
  EXPECT_FALSE(h.coordinate);
  EXPECT_EQ(h.entries, 37 * 53);

  // Pattern: the structure, values 1.
  MmWriteOptions pattern;
  pattern.pattern = true;
  io::write(dir / "pattern.mtx", csr, pattern);
  const auto p = io::read_csr<T, I>(dir / "pattern.mtx");
  EXPECT_EQ(io::read_header(dir / "pattern.mtx").field, MmField::Pattern);
  EXPECT_EQ(p.row_ptr().to_vector(), csr.row_ptr().to_vector());
  EXPECT_EQ(p.col_idx().to_vector(), csr.col_idx().to_vector());
  for (const T v : p.values())
    EXPECT_EQ(v, T{1});

  // Empty matrices.
  const Csr<T, I> empty;
  io::write(dir / "empty.mtx", empty);
  EXPECT_EQ((io::read_csr<T, I>(dir / "empty.mtx").rows()), 0);
  io::write(dir / "empty-array.mtx", empty, array);
  EXPECT_EQ((io::read_csr<T, I>(dir / "empty-array.mtx").nnz()), 0);
}

TEST(MatrixMarketWrite, Errors) {
  MmDir dir;
  const auto A = random_coo<double, std::int32_t>(3, 3, 4, 1);
  MmWriteOptions bad;
  bad.precision = -1;
  EXPECT_THROW(io::write(dir / "x.mtx", A, bad), InvalidInput);
  bad.precision = 17;
  bad.array = bad.pattern = true;
  EXPECT_THROW(io::write(dir / "x.mtx", A, bad), InvalidInput);
  const fs::path nowhere = dir / "no-such-dir" / "x.mtx";
  try {
    io::write(nowhere, A);
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(nowhere.string()), std::string::npos) << e.what();
  }
  if (fs::exists("/dev/full")) {  // a full disk: the error surfaces on write or close
    EXPECT_THROW(io::write("/dev/full", random_coo<double, std::int32_t>(100, 100, 100000, 2)),
                 IoError);
  }
}

// ---- malformed input: one test per class ----------------------------------------

TEST(MatrixMarketErrors, Banner) {
  expect_error("", 1, "empty file");
  expect_error("%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1, "bad banner");
  expect_error("3 3 1\n1 1 1\n", 1, "bad banner");
  expect_error("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "incomplete banner");
  expect_error("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "'extra'");
  expect_error("%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "object 'vector'");
  expect_error("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "format 'sparse'");
  expect_error("%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1, "field 'double'");
  expect_error("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "symmetry 'upper'");
  expect_error("%%MatrixMarket matrix array pattern general\n1 1\n", 1, "pattern");
  expect_error("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1, "pattern");
}

TEST(MatrixMarketErrors, ComplexAndHermitianAreUnsupported) {
  for (const char* banner : {"%%MatrixMarket matrix coordinate complex general\n",
                             "%%MatrixMarket matrix coordinate complex hermitian\n",
                             "%%MatrixMarket matrix array complex general\n"}) {
    try {
      io::parse_coo<double, std::int32_t>(std::string(banner) + "1 1 1\n1 1 1 0\n", "c.mtx");
      ADD_FAILURE() << banner << ": no error";
    } catch (const Unsupported& e) {
      EXPECT_EQ(std::string(e.what()).rfind("c.mtx:1:", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("complex"), std::string::npos) << e.what();
    }
  }
}

TEST(MatrixMarketErrors, SizeLine) {
  expect_error(kGeneral + "% only comments\n\n", 4, "end of file where the size line");
  expect_error(kGeneral + "%c\n3 3\n1 1 1\n", 3, "expected 'rows columns entries'");
  expect_error(kGeneral + "3 3 1 1\n1 1 1\n", 2, "4 numbers");
  expect_error("%%MatrixMarket matrix array real general\n3 3 9\n", 2, "expected 'rows columns'");
  expect_error(kGeneral + "3 x 1\n1 1 1\n", 2, "not an integer");
  expect_error(kGeneral + "3 3.0 1\n1 1 1\n", 2, "not an integer");
}

TEST(MatrixMarketErrors, NegativeSizes) {
  expect_error(kGeneral + "-3 3 1\n1 1 1\n", 2, "negative rows");
  expect_error(kGeneral + "3 -3 1\n1 1 1\n", 2, "negative columns");
  expect_error(kGeneral + "3 3 -1\n", 2, "negative entries");
}

TEST(MatrixMarketErrors, SizesOverflowingTheIndexType) {
  expect_error(kGeneral + "%\n3000000000 3 1\n1 1 1\n", 3, "index overflow");
  expect_error(kGeneral + "3 3000000000 1\n1 1 1\n", 2, "index overflow");
  expect_error(kGeneral + "3 3 3000000000\n1 1 1\n", 2, "index overflow");
  expect_error(kGeneral + "99999999999999999999 3 1\n1 1 1\n", 2, "index overflow");
  // The same sizes fit int64.
  const auto A = io::parse_coo<double, std::int64_t>(kGeneral + "3000000000 3 1\n2999999999 1 1\n");
  EXPECT_EQ(A.rows(), 3000000000);
  EXPECT_EQ(A.row_idx()[0], 2999999998);
  expect_error("%%MatrixMarket matrix array real general\n4294967296 4294967296\n", 2,
               "index overflow");
  try {
    io::parse_coo<double, std::int64_t>(
        "%%MatrixMarket matrix array real general\n4294967296 4294967296\n", "big.mtx");
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("big.mtx:2: size overflow"), std::string::npos)
        << e.what();
  }
}

TEST(MatrixMarketErrors, TooFewEntriesAndTruncatedFiles) {
  expect_error(kGeneral + "3 3 3\n1 1 1\n2 2 2\n", 5, "after 2 of the 3 entries");
  expect_error(kGeneral + "3 3 3\n1 1 1\n2 2 2", 4, "after 2 of the 3 entries");
  expect_error(kGeneral + "3 3 3\n1 1 1\n2 2 2\n% trailing comment\n\n", 7, "truncated");
  expect_error(kGeneral + "3 3 3\n1 1 1\n2 2", 4, "missing value");
  expect_error(kGeneral + "3 3 3\n1 1 1\n2", 4, "missing column index");
  expect_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 6, "3 of the 4 values");
}

TEST(MatrixMarketErrors, TooManyEntries) {
  expect_error(kGeneral + "3 3 2\n1 1 1\n2 2 2\n3 3 3\n", 5, "more entries than the 2");
  // The extra entry comes first in file order, before a later junk line.
  expect_error(kGeneral + "3 3 1\n1 1 1\n%\n2 2 2\njunk\n", 5, "more entries than the 1");
  expect_error("%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", 5, "more values");
  expect_error(kGeneral + "3 3 0\n1 1 1\n", 3, "more entries than the 0");
}

TEST(MatrixMarketErrors, IndicesOutOfRange) {
  expect_error(kGeneral + "3 4 2\n1 1 1\n0 1 1\n", 4, "row index '0' is out of range");
  expect_error(kGeneral + "3 4 2\n1 1 1\n1 0 1\n", 4, "column index '0'");
  expect_error(kGeneral + "3 4 2\n1 1 1\n4 1 1\n", 4, "row index '4' is out of range");
  expect_error(kGeneral + "3 4 2\n1 5 1\n1 1 1\n", 3, "the matrix has 4 columns");
  expect_error(kGeneral + "3 4 1\n-1 1 1\n", 3, "row index '-1'");
  expect_error(kGeneral + "3 4 1\n99999999999999999999 1 1\n", 3, "out of range");
  expect_error(kGeneral + "0 0 1\n1 1 1\n", 3, "the matrix has 0 rows");
}

TEST(MatrixMarketErrors, JunkTokens) {
  expect_error(kGeneral + "3 3 1\nx 1 1\n", 3, "expected an integer row index, got 'x'");
  expect_error(kGeneral + "3 3 1\n1 1.0 1\n", 3, "expected an integer column index, got '1.0'");
  expect_error(kGeneral + "3 3 1\n1 1 abc\n", 3, "expected a real value, got 'abc'");
  expect_error(kGeneral + "3 3 1\n1 1 1.5x\n", 3, "got '1.5x'");
  expect_error(kGeneral + "3 3 1\n1 1 1e\n", 3, "got '1e'");
  expect_error(kGeneral + "3 3 1\n1 1 1.0D+00\n", 3, "got '1.0D+00'");
  expect_error(kGeneral + "3 3 1\n1 1 0x10\n", 3, "got '0x10'");
  expect_error(kGeneral + "3 3 1\n1 1 ++1\n", 3, "got '++1'");
  expect_error(kGeneral + "3 3 1\n1 1 \x01\xff\n", 3, "got '\\x01\\xff'");
  expect_error("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
               "expected an integer value, got '1.5'");
  expect_error("%%MatrixMarket matrix array real general\n1 1\nfoo\n", 3, "got 'foo'");
}

TEST(MatrixMarketErrors, TrailingGarbage) {
  expect_error(kGeneral + "3 3 2\n1 1 1\n2 2 2 7\n", 4, "unexpected text '7' after the entry");
  expect_error("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
               "a pattern entry is 'row column'");
  expect_error("%%MatrixMarket matrix array real general\n1 2\n1 2\n", 3, "one value per line");
  expect_error(kGeneral + "3 3 1\n1 1 1 % comment\n", 3, "unexpected text '% comment'");
}

TEST(MatrixMarketErrors, NonFiniteValues) {
  expect_error(kGeneral + "3 3 2\n1 1 1\n2 2 nan\n", 4, "'nan' is not finite");
  expect_error(kGeneral + "3 3 2\n1 1 1\n2 2 -Inf\n", 4, "not finite");
  expect_error(kGeneral + "3 3 1\n1 1 1e400\n", 3, "out of the range of f64");
  try {
    io::parse_coo<float, std::int32_t>(kGeneral + "1 1 1\n1 1 -1e39\n", "f.mtx");
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("f.mtx:3: value '-1e39' is out of the range of f32"),
              std::string::npos)
        << e.what();
  }
}

TEST(MatrixMarketErrors, SymmetryViolations) {
  expect_error(kSymmetric + "%\n3 4 1\n1 1 1\n", 3, "must be square");
  expect_error(kSkew + "3 3 2\n2 1 1\n2 2 5\n", 4, "diagonal entry (2, 2) in a skew-symmetric");
  expect_error("%%MatrixMarket matrix array real symmetric\n2 3\n", 2, "must be square");
  // The strict reading refuses entries above the diagonal.
  MmReadOptions strict;
  strict.lower_triangle_only = true;
  expect_error(kSymmetric + "3 3 2\n1 1 1\n1 2 5\n", 4,
               "entry (1, 2) lies above the diagonal: a symmetric file stores the lower triangle",
               strict);
  expect_error(kSkew + "3 3 1\n1 3 1\n", 3, "above the diagonal", strict);
  expect_error("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 3\n", 3,
               "lower_triangle_only", strict);
}

// ---- symmetric files storing the upper triangle or both ----------------------

TEST(MatrixMarketSymmetric, UpperTriangleIsMirrored) {
  const std::string upper = kSymmetric + "3 3 3\n1 1 2\n1 3 5\n2 3 -1\n";
  EXPECT_EQ(parse(upper),
            (Triplets{{0, 0, 2.0}, {0, 2, 5.0}, {1, 2, -1.0}, {2, 0, 5.0}, {2, 1, -1.0}}));
  // The same matrix as its lower-triangle file.
  EXPECT_EQ(
      to_csr(io::parse_coo<double, std::int32_t>(upper)).col_idx().to_vector(),
      to_csr(io::parse_coo<double, std::int32_t>(kSymmetric + "3 3 3\n1 1 2\n3 1 5\n3 2 -1\n"))
          .col_idx()
          .to_vector());
  MmReadOptions keep;
  keep.expand_symmetry = false;
  EXPECT_EQ(parse(upper, keep), (Triplets{{0, 0, 2.0}, {2, 0, 5.0}, {2, 1, -1.0}}));
  // Skew-symmetric: (i, j) = v above the diagonal is (j, i) = -v below it.
  const std::string skew = kSkew + "3 3 2\n1 2 4\n2 3 -1.5\n";
  EXPECT_EQ(parse(skew), (Triplets{{0, 1, 4.0}, {1, 2, -1.5}, {1, 0, -4.0}, {2, 1, 1.5}}));
  EXPECT_EQ(parse(skew, keep), (Triplets{{1, 0, -4.0}, {2, 1, 1.5}}));
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 2\n2 2\n"),
            (Triplets{{0, 1, 1.0}, {1, 1, 1.0}, {1, 0, 1.0}}));
}

TEST(MatrixMarketSymmetric, BothTrianglesMixed) {
  // (2,1) and (1,2) are one pair stored twice with the same value: read once.
  // (1,4) is stored above, (4,3) below: each mirrored.
  const std::string mixed = kSymmetric + "4 4 5\n1 1 1\n2 1 2\n1 4 3\n1 2 2\n4 3 7\n";
  const Triplets want{{0, 0, 1.0}, {1, 0, 2.0}, {0, 3, 3.0}, {3, 2, 7.0},
                      {0, 1, 2.0}, {3, 0, 3.0}, {2, 3, 7.0}};
  EXPECT_EQ(parse(mixed), want);
  for (std::size_t chunk : {1, 4, 9})
    for (int threads : {1, 2}) {
      MmReadOptions o;
      o.chunk_bytes = chunk;
      o.threads = threads;
      EXPECT_EQ(parse(mixed, o), want) << chunk << " " << threads;
    }
  MmReadOptions keep;
  keep.expand_symmetry = false;
  EXPECT_EQ(parse(mixed, keep), (Triplets{{0, 0, 1.0}, {1, 0, 2.0}, {3, 0, 3.0}, {3, 2, 7.0}}));
  // A file holding both full triangles gives the same matrix as the lower one.
  const auto both = to_csr(io::parse_coo<double, std::int32_t>(
      kSymmetric + "3 3 7\n1 1 4\n2 1 -1\n1 2 -1\n2 2 4\n3 2 -1\n2 3 -1\n3 3 4\n"));
  const auto lower = to_csr(io::parse_coo<double, std::int32_t>(
      kSymmetric + "3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n"));
  expect_same(both, lower, "both triangles");
  // Skew-symmetric: opposite values are one pair.
  EXPECT_EQ(parse(kSkew + "3 3 2\n2 1 4\n1 2 -4\n"), (Triplets{{1, 0, 4.0}, {0, 1, -4.0}}));
  // Pattern: always equal; the copy below the diagonal is the one kept.
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 2\n2 1\n"),
            (Triplets{{1, 0, 1.0}, {0, 1, 1.0}}));
  // A duplicate within one triangle stays a duplicate (summed by to_csr).
  EXPECT_EQ(parse(kSymmetric + "2 2 3\n2 1 1\n2 1 2\n1 1 1\n").size(), 5u);
}

TEST(MatrixMarketSymmetric, PairsInBothTrianglesWithDifferentValues) {
  expect_error(kSymmetric + "3 3 3\n2 1 4\n3 3 1\n1 2 5\n", 5,
               "entry (1, 2) = 5 and entry (2, 1) = 4 on line 3 store the same pair of a "
               "symmetric matrix with different values");
  expect_error(kSkew + "3 3 2\n1 2 4\n2 1 4\n", 4,
               "entry (2, 1) = 4 and entry (1, 2) = 4 on line 3 store the same pair of a "
               "skew-symmetric matrix with values that are not opposite");
  expect_error(kSymmetric + "3 3 4\n2 1 4\n%\n1 2 4\n3 3 1\n2 1 4\n", 5,
               "the pair (2, 1) / (1, 2) is stored 3 times in both triangles (lines 3, 5 and 7)");
  // The first conflict in file order is reported, whatever the chunking.
  expect_error(kSymmetric + "3 3 4\n3 1 1\n2 1 1\n1 2 2\n1 3 3\n", 5, "on line 4");
}

TEST(MatrixMarketErrors, FilesNamedInMessages) {
  MmDir dir;
  const fs::path missing = dir / "missing.mtx";
  try {
    io::read_coo<double, std::int32_t>(missing);
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(io::read_header(missing), IoError);
  EXPECT_THROW((io::read_coo<double, std::int32_t>(dir / "")), IoError);  // a directory
  // A file's errors name the file and the line, also when gzipped.
  const std::string bad = kGeneral + "3 3 2\n1 1 1\n\n2 x 1\n";
  write_text(dir / "bad.mtx", bad);
  write_gz(dir / "bad.mtx.gz", bad);
  for (const char* name : {"bad.mtx", "bad.mtx.gz"}) {
    try {
      io::read_csr<float, std::int64_t>(dir / name);
      ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find((dir / name).string() + ":5: "), std::string::npos)
          << e.what();
    }
  }
}

// ---- fuzzer regressions (tests/fuzz) ------------------------------------------
// Inputs that crashed tests/fuzz/fuzz_matrix_market go here, inline. The
// long indices overflowed a signed accumulator in the fast entry reader
// while it was written (UBSan, found by the fuzzer); the rest are edge cases
// of the array layout it explores.

TEST(MatrixMarketFuzzRegressions, Cases) {
  const std::vector<std::pair<std::string, std::int64_t>> cases = {
      // (input, nonzeros read, or -1 for an IoError)
      {"%%MatrixMarket matrix array real skew-symmetric\n1 1\n", 0},
      {"%%MatrixMarket matrix array real skew-symmetric\n0 0\n", 0},
      {"%%MatrixMarket matrix array real skew-symmetric\n2 2\n5\n", 2},
      {"%%MatrixMarket matrix array real skew-symmetric\n2 2\n5\n6\n", -1},
      {"%%MatrixMarket matrix array real symmetric\n1 1\n\n", -1},
      {"%%MatrixMarket matrix array real general\n0 3\n1\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n1 1 1\n99999999999999999999999 1 1\n", -1},
      {"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 000000000000000000000001 1\n", 1},
      {"%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -99999999999999999999\n", -1},
  };
  for (const auto& [text, nnz] : cases) {
    for (std::size_t chunk : {0, 1, 3}) {
      MmReadOptions o;
      o.chunk_bytes = chunk;
      try {
        const auto A = io::parse_coo<double, std::int32_t>(text, "t.mtx", o);
        EXPECT_EQ(A.nnz(), nnz) << text;
      } catch (const IoError& e) {
        EXPECT_EQ(nnz, -1) << text << ": " << e.what();
      }
    }
  }
}

// ---- the real matrices ----------------------------------------------------------

/// A deliberately simple, independent reader (strtod, sscanf) for the check.
struct Plain {
  std::int64_t rows = 0, cols = 0, entries = 0;
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> t;
};
Plain plain_read(const fs::path& file) {
  std::ifstream f(file);
  std::string line;
  Plain p;
  std::getline(f, line);
  const bool pattern = line.find("pattern") != std::string::npos;
  while (std::getline(f, line) && (line.empty() || line[0] == '%')) {
  }
  std::istringstream(line) >> p.rows >> p.cols >> p.entries;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '%') continue;
    const char* s = line.c_str();
    char* e = nullptr;
    const std::int64_t i = std::strtoll(s, &e, 10);
    const std::int64_t j = std::strtoll(e, &e, 10);
    const double v = pattern ? 1.0 : std::strtod(e, &e);
    p.t.emplace_back(i - 1, j - 1, v);
  }
  return p;
}

TEST(MatrixMarketReal, EveryFileMatchesItsHeaderAndAnIndependentReader) {
  const fs::path dir = real_matrix_dir();
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " does not exist";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".mtx") continue;
    ++files;
    const fs::path& file = entry.path();
    SCOPED_TRACE(file.string());
    const MmHeader h = io::read_header(file);
    MmHeader h2;
    MmReadOptions keep;
    keep.expand_symmetry = false;
    const auto stored = io::read_coo<double, std::int32_t>(file, keep, &h2);
    EXPECT_EQ(h2.entries, h.entries);
    ASSERT_EQ(stored.nnz(), h.entries);
    std::int64_t diagonal = 0;
    for (std::int64_t k = 0; k < stored.nnz(); ++k)
      diagonal += stored.row_idx()[k] == stored.col_idx()[k];
    const auto full = io::read_coo<double, std::int64_t>(file);
    const std::int64_t want =
        h.symmetry == MmSymmetry::General ? h.entries : 2 * h.entries - diagonal;
    EXPECT_EQ(full.nnz(), want);
    EXPECT_EQ(full.rows(), h.rows);
    EXPECT_EQ(full.cols(), h.cols);
    const Plain p = plain_read(file);
    EXPECT_EQ(p.entries, h.entries);
    EXPECT_EQ(triplets(stored), p.t);
    const auto csr = io::read_csr<float, std::int32_t>(file);
    EXPECT_LE(csr.nnz(), want);
    EXPECT_GT(csr.nnz(), 0);
  }
  EXPECT_GT(files, 0);
}

// ---- throughput -----------------------------------------------------------------

TEST(MatrixMarketSpeed, ReadsA50MBFile) {
  using clock = std::chrono::steady_clock;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // 1.5 M entries with full-precision values: about 50 MB of text.
  const std::int32_t n = 200000;
  const auto A = to_csr(random_coo<double, std::int32_t>(n, n, 1500000, seed));
  MmDir dir;
  const fs::path file = dir / "big.mtx";
  const auto t0 = clock::now();
  io::write(file, A);
  const double write_s = std::chrono::duration<double>(clock::now() - t0).count();
  const double mb = static_cast<double>(fs::file_size(file)) / 1e6;
  const auto t1 = clock::now();
  const auto B = io::read_coo<double, std::int32_t>(file);
  const double read_s = std::chrono::duration<double>(clock::now() - t1).count();
  std::printf(
      "[  INFO    ] %.1f MB, %lld entries: read %.3f s (%.0f MB/s), write %.3f s (%.0f MB/s)\n", mb,
      static_cast<long long>(B.nnz()), read_s, mb / read_s, write_s, mb / write_s);
  EXPECT_GT(mb, 40.0);
  ASSERT_EQ(B.nnz(), A.nnz());
  // Entries come back in CSR order: compare directly.
  const auto rp = A.row_ptr().to_vector();
  for (std::int64_t r = 0, k = 0; r < n; ++r)
    for (; k < rp[r + 1]; ++k)
      if (B.row_idx()[k] != r || B.col_idx()[k] != A.col_idx()[k] ||
          B.values()[k] != A.values()[k]) {
        FAIL() << "entry " << k << " differs";
      }
}

}  // namespace
}  // namespace spx::test

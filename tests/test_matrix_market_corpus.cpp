// The malformed-file corpus of the Matrix Market reader (issue 22): small
// files an adversarial user would try, one table row each. Every row states
// its outcome exactly: the error (its line and a fragment of its message) or
// the matrix read (its size and its entries in order). Every row is also read
// with tiny parse chunks on two threads, which must give the same outcome.
// Files that need the file system (gzip, names ending in .gz) are at the end.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "common.hpp"
#include "files.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::test {
namespace {

namespace fs = std::filesystem;
using io::MmReadOptions;
using Triplets = std::vector<std::tuple<std::int64_t, std::int64_t, double>>;

/// The types a row is read with.
enum class As { D32, D64, F32, F64 };

struct Case {
  std::string text;
  As as = As::D32;
  // An error: the line its message names (0: not "NAME:LINE:", e.g. a file
  // error) and a fragment of it.
  std::int64_t line = 0;
  std::string error;
  // Or the matrix.
  std::int64_t rows = -1, cols = -1;
  Triplets entries;
  MmReadOptions options{};
};

Case err(std::string text, std::int64_t line, std::string fragment, As as = As::D32) {
  Case c;
  c.text = std::move(text);
  c.as = as;
  c.line = line;
  c.error = std::move(fragment);
  return c;
}

Case ok(std::string text, std::int64_t rows, std::int64_t cols, Triplets entries, As as = As::D32) {
  Case c;
  c.text = std::move(text);
  c.as = as;
  c.rows = rows;
  c.cols = cols;
  c.entries = std::move(entries);
  return c;
}

/// What reading gave: "rows x cols: entries" or the error message.
struct Outcome {
  bool read = false;
  std::int64_t rows = 0, cols = 0;
  Triplets entries;
  std::string error;
};

template <Value T, Index I>
Outcome read_as(const std::string& text, const MmReadOptions& o) {
  Outcome out;
  try {
    const auto A = io::parse_coo<T, I>(text, "c.mtx", o);
    out.read = true;
    out.rows = A.rows();
    out.cols = A.cols();
    for (std::int64_t k = 0; k < A.nnz(); ++k)
      out.entries.emplace_back(A.row_idx()[k], A.col_idx()[k], static_cast<double>(A.values()[k]));
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

Outcome read(const std::string& text, As as, const MmReadOptions& o) {
  switch (as) {
    case As::D32:
      return read_as<double, std::int32_t>(text, o);
    case As::D64:
      return read_as<double, std::int64_t>(text, o);
    case As::F32:
      return read_as<float, std::int32_t>(text, o);
    case As::F64:
      return read_as<float, std::int64_t>(text, o);
  }
  return {};
}

void check(const Case& c, std::size_t row) {
  SCOPED_TRACE("corpus row " + std::to_string(row) + ": " + c.text.substr(0, 120));
  const Outcome o = read(c.text, c.as, c.options);
  if (c.error.empty()) {
    ASSERT_TRUE(o.read) << "error: " << o.error;
    EXPECT_EQ(o.rows, c.rows);
    EXPECT_EQ(o.cols, c.cols);
    EXPECT_EQ(o.entries, c.entries);
  } else {
    ASSERT_FALSE(o.read) << "read without error";
    if (c.line > 0) {
      const std::string where = "c.mtx:" + std::to_string(c.line) + ": ";
      EXPECT_EQ(o.error.rfind(where, 0), 0u) << "expected '" << where << "' in: " << o.error;
    }
    EXPECT_NE(o.error.find(c.error), std::string::npos)
        << "expected '" << c.error << "' in: " << o.error;
    EXPECT_EQ(o.error.find('\n'), std::string::npos) << "not one line: " << o.error;
  }
  for (std::size_t chunk : {1, 4}) {
    MmReadOptions small = c.options;
    small.chunk_bytes = chunk;
    small.threads = 2;
    const Outcome s = read(c.text, c.as, small);
    EXPECT_EQ(s.read, o.read) << "chunk_bytes=" << chunk;
    EXPECT_EQ(s.entries, o.entries) << "chunk_bytes=" << chunk;
    EXPECT_EQ(s.error, o.error) << "chunk_bytes=" << chunk;
  }
}

const std::string H = "%%MatrixMarket matrix coordinate real general\n";
const std::string HI = "%%MatrixMarket matrix coordinate integer general\n";
const std::string HP = "%%MatrixMarket matrix coordinate pattern general\n";
const std::string HS = "%%MatrixMarket matrix coordinate real symmetric\n";
const std::string HK = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
const std::string HA = "%%MatrixMarket matrix array real general\n";

std::vector<Case> corpus() {
  std::vector<Case> v;
  // ---- the banner: every field wrong -----------------------------------------
  v.push_back(err("", 1, "empty file"));
  v.push_back(err("\n1 1 0\n", 1, "bad banner ''"));
  v.push_back(err("%%MatrixMarket\n1 1 0\n", 1, "incomplete banner"));
  v.push_back(err("%%MatrixMarket matrix\n1 1 0\n", 1, "incomplete banner"));
  v.push_back(err("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "incomplete banner"));
  v.push_back(err("%%matrixmarket matrix coordinate real general\n1 1 0\n", 1, "bad banner"));
  v.push_back(err("%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "bad banner"));
  v.push_back(err("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
                  "unexpected text 'extra' after the banner"));
  v.push_back(err("%%MatrixMarket vector coordinate real general\n1 1 0\n", 1,
                  "unsupported object 'vector'"));
  v.push_back(
      err("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "unknown format 'sparse'"));
  v.push_back(
      err("%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1, "unknown field 'double'"));
  v.push_back(
      err("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "unknown symmetry 'upper'"));
  v.push_back(err("%%MatrixMarket matrix array pattern general\n1 1\n", 1,
                  "only valid in coordinate files"));
  v.push_back(err("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1,
                  "cannot be skew-symmetric"));
  v.push_back(err("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
                  "complex general matrices are not supported"));
  v.push_back(err("%%MatrixMarket matrix array complex general\n1 1\n1 0\n", 1,
                  "complex general matrices are not supported"));
  v.push_back(err("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
                  "real hermitian matrices are not supported"));
  v.push_back(err("\xEF\xBB\xBF" + H + "1 1 0\n", 1, "byte order mark"));
  v.push_back(err(std::string("\xFF\xFE%\0%\0M\0", 8), 1, "bad banner '\\xff\\xfe%\\x00"));
  v.push_back(err(std::string(5000, 'x'), 1, "bad banner 'xxxx"));
  v.push_back(err("%%MatrixMarket matrix coordinate real general\r3 3 1\r1 1 1\r", 1,
                  "carriage return (CR) alone"));
  v.push_back(ok(" %%MatrixMarket MATRIX Coordinate REAL General\n1 1 0\n", 1, 1, {}));
  v.push_back(ok("%%MatrixMarket\tmatrix\tcoordinate\treal\tgeneral\n1 1 1\n1\t1\t2\n", 1, 1,
                 {{0, 0, 2.0}}));

  // ---- the size line -----------------------------------------------------------
  v.push_back(err(H + "% only a comment\n", 3, "end of file where the size line"));
  v.push_back(err(H, 2, "end of file where the size line"));
  v.push_back(err(H + "3 3\n", 2, "expected 'rows columns entries'"));
  v.push_back(err(H + "3 3 1 1\n1 1 1\n", 2, "4 numbers"));
  v.push_back(err(H + "3 3 1 % comment\n1 1 1\n", 2, "5 numbers"));
  v.push_back(err(HA + "3 3 9\n", 2, "expected 'rows columns'"));
  v.push_back(err(H + "3 x 1\n", 2, "not an integer"));
  v.push_back(err(H + "3 3.0 1\n", 2, "not an integer"));
  v.push_back(err(H + "0x3 3 1\n", 2, "not an integer"));
  v.push_back(err(H + "3 3 1e2\n", 2, "not an integer"));
  v.push_back(err(H + "-1 3 1\n", 2, "negative rows"));
  v.push_back(err(H + "3 -1 1\n", 2, "negative columns"));
  v.push_back(err(H + "3 3 -1\n", 2, "negative entries"));
  v.push_back(ok(H + "+3 +2 +1\n1 1 1\n", 3, 2, {{0, 0, 1.0}}));

  // ---- sizes that overflow the index type (int32 and int64) -----------------------
  v.push_back(err(H + "2147483648 1 0\n", 2,
                  "index overflow: rows = 2147483648 does not fit the i32 index type"));
  v.push_back(err(H + "1 2147483648 0\n", 2, "columns = 2147483648 does not fit the i32"));
  v.push_back(err(H + "1 1 2147483648\n", 2, "entries = 2147483648 does not fit the i32"));
  v.push_back(ok(H + "2147483647 2147483647 1\n2147483647 2147483647 1\n", 2147483647, 2147483647,
                 {{2147483646, 2147483646, 1.0}}));
  v.push_back(
      ok(H + "2147483648 1 1\n2147483648 1 1\n", 2147483648, 1, {{2147483647, 0, 1.0}}, As::D64));
  v.push_back(err(H + "9223372036854775808 1 0\n", 2, "does not fit a 64-bit integer", As::D64));
  v.push_back(err(H + "99999999999999999999 1 1\n", 2, "does not fit a 64-bit integer"));
  v.push_back(ok(H + "9223372036854775807 1 1\n9223372036854775807 1 1\n", 9223372036854775807, 1,
                 {{9223372036854775806, 0, 1.0}}, As::D64));
  v.push_back(err(HA + "4294967296 4294967296\n", 2, "size overflow", As::D64));
  v.push_back(err(HA + "65536 65536\n", 3, "after 0 of the 4294967296 values"));

  // ---- huge declared sizes with tiny bodies ----------------------------------------
  v.push_back(
      err(H + "1000000000 1000000000 1000000000\n1 1 1\n", 4, "after 1 of the 1000000000 entries"));
  v.push_back(err(H + "10 10 9000000000000000000\n1 1 1\n", 4,
                  "after 1 of the 9000000000000000000 entries", As::D64));
  v.push_back(err(HA + "40000 50000\n1\n", 4, "after 1 of the 2000000000 values"));

  // ---- counts off by one either way --------------------------------------------------
  v.push_back(err(H + "3 3 3\n1 1 1\n2 2 2\n", 5, "after 2 of the 3 entries"));
  v.push_back(err(H + "3 3 1\n1 1 1\n2 2 2\n", 4, "more entries than the 1 declared"));
  v.push_back(err(H + "3 3 0\n1 1 1\n", 3, "more entries than the 0 declared"));
  v.push_back(err(HA + "2 2\n1\n2\n3\n", 6, "after 3 of the 4 values"));
  v.push_back(err(HA + "2 2\n1\n2\n3\n4\n5\n", 7, "more values than the 4 declared"));
  v.push_back(err("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n", 5,
                  "after 2 of the 3 values"));
  v.push_back(err("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", 6,
                  "more values than the 3 declared"));
  v.push_back(ok(H + "2 2 0\n% nothing\n\n", 2, 2, {}));
  v.push_back(ok(H + "0 0 0\n", 0, 0, {}));
  v.push_back(err(H + "0 0 1\n1 1 1\n", 3, "the matrix has 0 rows"));

  // ---- indices -------------------------------------------------------------------
  v.push_back(err(H + "3 4 1\n0 1 1\n", 3, "row index '0' is out of range"));
  v.push_back(err(H + "3 4 1\n1 0 1\n", 3, "column index '0' is out of range"));
  v.push_back(err(H + "3 4 1\n4 1 1\n", 3, "row index '4' is out of range (the matrix has 3"));
  v.push_back(err(H + "3 4 1\n1 5 1\n", 3, "column index '5' is out of range"));
  v.push_back(err(H + "3 4 1\n-1 1 1\n", 3, "row index '-1' is out of range"));
  v.push_back(err(H + "3 4 1\n2147483648 1 1\n", 3, "row index '2147483648' is out of range"));
  v.push_back(err(H + "3 4 1\n4294967297 1 1\n", 3, "out of range"));  // 1 modulo 2^32
  v.push_back(err(H + "3 4 1\n99999999999999999999 1 1\n", 3, "out of range"));
  v.push_back(err(H + "3 4 1\n1.0 1 1\n", 3, "expected an integer row index, got '1.0'"));
  v.push_back(err(H + "3 4 1\n1e0 1 1\n", 3, "expected an integer row index, got '1e0'"));
  v.push_back(err(H + "3 4 1\n1 x 1\n", 3, "expected an integer column index, got 'x'"));
  v.push_back(err(H + "3 4 1\n1\n", 3, "missing column index"));
  v.push_back(err(H + "3 4 1\n1 1\n", 3, "missing value (the field is real)"));
  v.push_back(err(H + "3 4 1\n1 1 1 1\n", 3, "unexpected text '1' after the entry"));
  v.push_back(err(H + "3 4 1\n1 1 1 % c\n", 3, "unexpected text '% c' after the entry"));
  v.push_back(ok(H + "3 4 1\n+2 +3 1\n", 3, 4, {{1, 2, 1.0}}));
  v.push_back(
      ok(H + "3000000000 3 1\n2999999999 3 -1\n", 3000000000, 3, {{2999999998, 2, -1.0}}, As::F64));

  // ---- values: NaN, Inf, out of range, odd spellings -------------------------------------
  v.push_back(err(H + "1 1 1\n1 1 nan\n", 3, "'nan' is not finite"));
  v.push_back(err(H + "1 1 1\n1 1 NaN\n", 3, "not finite"));
  v.push_back(err(H + "1 1 1\n1 1 inf\n", 3, "not finite"));
  v.push_back(err(H + "1 1 1\n1 1 -Infinity\n", 3, "not finite"));
  v.push_back(err(H + "1 1 1\n1 1 1e309\n", 3, "out of the range of f64"));
  v.push_back(err(H + "1 1 1\n1 1 -1e309\n", 3, "out of the range of f64"));
  v.push_back(err(H + "1 1 1\n1 1 3.5e38\n", 3, "out of the range of f32", As::F32));
  v.push_back(ok(H + "1 1 1\n1 1 1e-400\n", 1, 1, {{0, 0, 0.0}}));
  v.push_back(ok(H + "1 1 1\n1 1 1e-50\n", 1, 1, {{0, 0, 0.0}}, As::F64));
  v.push_back(err(H + "1 1 1\n1 1 0x1p3\n", 3, "expected a real value, got '0x1p3'"));
  v.push_back(err(H + "1 1 1\n1 1 1.0D+00\n", 3, "got '1.0D+00'"));
  v.push_back(err(H + "1 1 1\n1 1 1,5\n", 3, "got '1,5'"));
  v.push_back(err(H + "1 1 1\n1 1 ++1\n", 3, "got '++1'"));
  v.push_back(err(H + "1 1 1\n1 1 +-1\n", 3, "got '+-1'"));
  v.push_back(err(H + "1 1 1\n1 1 1.5x\n", 3, "got '1.5x'"));
  v.push_back(err(H + "1 1 1\n1 1 1e\n", 3, "got '1e'"));
  v.push_back(err(H + "1 1 1\n1 1 .\n", 3, "got '.'"));
  v.push_back(err(H + "1 1 1\n1 1 -\n", 3, "got '-'"));
  v.push_back(err(H + std::string("1 1 1\n1 1 1\0", 12), 3, "got '1\\x00'"));
  v.push_back(ok(H + "1 5 5\n1 1 .5\n1 2 5.\n1 3 -0\n1 4 1e+2\n1 5 +2.5E-1\n", 1, 5,
                 {{0, 0, 0.5}, {0, 1, 5.0}, {0, 2, -0.0}, {0, 3, 100.0}, {0, 4, 0.25}}));
  v.push_back(ok(H + "1 1 1\n1 1 0.1000000000000000055511151231257827\n", 1, 1, {{0, 0, 0.1}}));
  v.push_back(ok(HI + "1 1 1\n1 1 16777217\n", 1, 1, {{0, 0, 16777216.0}}, As::F32));

  // ---- integer and pattern fields --------------------------------------------------
  v.push_back(err(HI + "1 1 1\n1 1 1.5\n", 3, "expected an integer value, got '1.5'"));
  v.push_back(err(HI + "1 1 1\n1 1 1e3\n", 3, "expected an integer value"));
  v.push_back(err(HI + "1 1 1\n1 1 9223372036854775808\n", 3, "does not fit 64 bits"));
  v.push_back(ok(HI + "1 2 2\n1 1 -9223372036854775808\n1 2 +5\n", 1, 2,
                 {{0, 0, -9223372036854775808.0}, {0, 1, 5.0}}));
  v.push_back(err(HP + "2 2 1\n1 1 1\n", 3, "a pattern entry is 'row column'"));
  v.push_back(ok(HP + "2 2 2\n2 1\n1 2\n", 2, 2, {{1, 0, 1.0}, {0, 1, 1.0}}));
  v.push_back(ok("%%MatrixMarket matrix array integer general\n1 2\n3\n0\n", 1, 2, {{0, 0, 3.0}}));

  // ---- layout: CRLF, tabs, blank lines, comments, no final newline ----------------------
  v.push_back(
      ok("%%MatrixMarket matrix coordinate real general\r\n%c\r\n\r\n2 2 2\r\n1 1 1\r\n"
         "2 2 2\r\n",
         2, 2, {{0, 0, 1.0}, {1, 1, 2.0}}));
  v.push_back(ok(H + "2 2 2\n1\t1\t1\n \t2  2 \t 2 \t\n", 2, 2, {{0, 0, 1.0}, {1, 1, 2.0}}));
  v.push_back(ok(H + "2 2 1\n2 2 7", 2, 2, {{1, 1, 7.0}}));
  v.push_back(err(H + "2 2 1\n2 2", 3, "missing value"));
  v.push_back(ok(H + "2 2 2\n1 1 1\n% between\n   % indented\n\t\n2 2 2\n%end", 2, 2,
                 {{0, 0, 1.0}, {1, 1, 2.0}}));
  v.push_back(ok(H + "2 2 1\n\v1 1 3\f\n", 2, 2, {{0, 0, 3.0}}));
  v.push_back(err(H + "2 2 2\n1 1 1\r2 2 2\n", 3, "unexpected text '2 2 2'"));

  // ---- duplicates and symmetry -------------------------------------------------------
  v.push_back(
      ok(H + "2 2 3\n1 1 1\n1 1 2\n1 1 1\n", 2, 2, {{0, 0, 1.0}, {0, 0, 2.0}, {0, 0, 1.0}}));
  v.push_back(
      ok(HS + "2 2 2\n2 1 1\n2 1 1\n", 2, 2, {{1, 0, 1.0}, {1, 0, 1.0}, {0, 1, 1.0}, {0, 1, 1.0}}));
  v.push_back(ok(HS + "2 2 2\n2 1 3\n1 2 3\n", 2, 2, {{1, 0, 3.0}, {0, 1, 3.0}}));
  v.push_back(err(HS + "2 2 2\n2 1 3\n1 2 4\n", 4, "on line 3 store the same pair"));
  v.push_back(err(HS + "2 2 3\n2 1 3\n1 2 3\n1 2 3\n", 4, "stored 3 times in both triangles"));
  v.push_back(
      ok(HS + "3 3 2\n1 2 5\n1 3 6\n", 3, 3, {{0, 1, 5.0}, {0, 2, 6.0}, {1, 0, 5.0}, {2, 0, 6.0}}));
  v.push_back(ok(HK + "2 2 2\n2 1 3\n1 2 -3\n", 2, 2, {{1, 0, 3.0}, {0, 1, -3.0}}));
  v.push_back(err(HK + "2 2 2\n2 1 3\n1 2 3\n", 4, "values that are not opposite"));
  v.push_back(err(HK + "2 2 1\n1 1 3\n", 3, "diagonal entry (1, 1) in a skew-symmetric"));
  v.push_back(ok(HK + "2 2 1\n1 2 3\n", 2, 2, {{0, 1, 3.0}, {1, 0, -3.0}}));
  v.push_back(err(HS + "2 3 0\n", 2, "must be square"));
  v.push_back(err(HK + "3 2 0\n", 2, "must be square"));
  v.push_back(ok("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n1 2\n", 2, 2,
                 {{0, 0, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}}));
  v.push_back(ok("%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n1 2 -4\n", 2, 2,
                 {{0, 1, -4.0}, {1, 0, -4.0}}));
  v.push_back(ok("%%MatrixMarket matrix array real skew-symmetric\n2 2\n5\n", 2, 2,
                 {{1, 0, 5.0}, {0, 1, -5.0}}));
  {
    Case strict = err(HS + "2 2 1\n1 2 5\n", 3, "lies above the diagonal");
    strict.options.lower_triangle_only = true;
    v.push_back(strict);
    Case loose = ok(H + "1 1 1\n1 1 nan\n", 1, 1, {});
    loose.options.finite_only = false;
    loose.error = "";
    v.push_back(loose);  // NaN compares unequal: checked below by count only
  }
  return v;
}

TEST(MatrixMarketCorpus, EveryCaseHasItsExactOutcome) {
  auto cases = corpus();
  // The NaN row: its entry is checked here (NaN != NaN in the table).
  const Case nan_case = cases.back();
  cases.pop_back();
  EXPECT_GE(cases.size() + 1, 100u);
  for (std::size_t k = 0; k < cases.size(); ++k)
    check(cases[k], k);
  const Outcome o = read(nan_case.text, As::D32, nan_case.options);
  ASSERT_TRUE(o.read) << o.error;
  ASSERT_EQ(o.entries.size(), 1u);
  EXPECT_TRUE(std::isnan(std::get<2>(o.entries[0])));
}

// ---- files: gzip and names ------------------------------------------------------------

/// A fresh directory for the test's files.
class CorpusDir : public TempDir {
 public:
  CorpusDir() : TempDir("spx_mm_corpus_", fresh_seed()) {}
};

std::string gzip_bytes(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

void put(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

/// The message of the IoError reading `file` raises ("" and a failure if none).
std::string error_of(const fs::path& file) {
  try {
    io::read_coo<double, std::int32_t>(file);
    ADD_FAILURE() << file << ": no error";
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

TEST(MatrixMarketCorpus, GzipFiles) {
  CorpusDir dir;
  std::string good = H + "100 100 100\n";
  for (int k = 1; k <= 100; ++k)
    good += std::to_string(k) + " " + std::to_string(k) + " 1.5\n";
  const std::string gz = gzip_bytes(good);

  put(dir / "good.mtx.gz", gz);
  EXPECT_EQ((io::read_coo<double, std::int32_t>(dir / "good.mtx.gz").nnz()), 100);

  // Truncated: in the body, in the header, after the magic bytes only.
  put(dir / "cut.mtx.gz", gz.substr(0, gz.size() / 2));
  EXPECT_NE(error_of(dir / "cut.mtx.gz").find("truncated gzip data"), std::string::npos);
  put(dir / "cut8.mtx.gz", gz.substr(0, 12));
  EXPECT_NE(error_of(dir / "cut8.mtx.gz").find("truncated gzip data"), std::string::npos);
  put(dir / "magic.mtx.gz", gz.substr(0, 2));
  EXPECT_NE(error_of(dir / "magic.mtx.gz").find("gzip"), std::string::npos);
  // Missing trailer (CRC and size): the stream has no end.
  put(dir / "notrailer.mtx.gz", gz.substr(0, gz.size() - 8));
  EXPECT_NE(error_of(dir / "notrailer.mtx.gz").find("truncated gzip data"), std::string::npos);

  // Corrupt bytes in the middle.
  std::string corrupt = gz;
  for (std::size_t k = 30; k < corrupt.size() - 10; k += 5)
    corrupt[k] = static_cast<char>(~corrupt[k]);
  put(dir / "corrupt.mtx.gz", corrupt);
  const std::string c = error_of(dir / "corrupt.mtx.gz");
  EXPECT_TRUE(c.find("corrupt gzip data") != std::string::npos ||
              c.find("truncated gzip data") != std::string::npos ||
              c.find(":") != std::string::npos)
      << c;

  // Garbage after the gzip stream.
  put(dir / "trailing.mtx.gz", gz + "junk");
  EXPECT_NE(error_of(dir / "trailing.mtx.gz").find("unexpected data after the end of the gzip"),
            std::string::npos);

  // Not gzip, though named .gz: said so; a plain Matrix Market file so named is read.
  put(dir / "plain.mtx.gz", "hello world\n");
  const std::string p = error_of(dir / "plain.mtx.gz");
  EXPECT_NE(p.find("bad banner"), std::string::npos) << p;
  EXPECT_NE(p.find("not gzip data"), std::string::npos) << p;
  put(dir / "empty.mtx.gz", "");
  EXPECT_NE(error_of(dir / "empty.mtx.gz").find("not gzip data"), std::string::npos);
  put(dir / "text.mtx.gz", good);
  EXPECT_EQ((io::read_coo<double, std::int32_t>(dir / "text.mtx.gz").nnz()), 100);

  // The line numbers of a gzipped file are those of its text.
  put(dir / "bad.mtx.gz", gzip_bytes(H + "2 2 1\n%\n1 x 1\n"));
  EXPECT_NE(error_of(dir / "bad.mtx.gz").find("bad.mtx.gz:4: expected an integer column index"),
            std::string::npos);
  // CR-only line endings, gzipped.
  put(dir / "cr.mtx.gz",
      gzip_bytes("%%MatrixMarket matrix coordinate real general\r1 1 1\r1 1 1\r"));
  EXPECT_NE(error_of(dir / "cr.mtx.gz").find(":1: the lines end with a carriage return (CR) alone"),
            std::string::npos);
}

TEST(MatrixMarketCorpus, GzipHeaderIsCheckedBeforeTheBodyIsInflated) {
  // A wrong header followed by a long body cut short: the header error comes
  // first, so the reader did not inflate the body to find the header wrong.
  CorpusDir dir;
  std::string body;
  for (int k = 0; k < 200000; ++k)
    body += std::to_string(k) + " " + std::to_string(k * 7 % 1000) + " 0.25\n";
  for (const auto& [head, part] : std::vector<std::pair<std::string, std::string>>{
           {"this is not a Matrix Market file\n", ":1: bad banner 'this is not"},
           {"%%MatrixMarket matrix coordinate real upper\n", ":1: unknown symmetry 'upper'"},
           {H + "-3 3 1\n", ":2: size line: negative rows"},
           {H + "1 1 1 1\n", ":2: size line:"}}) {
    const std::string gz = gzip_bytes(head + body);
    put(dir / "m.mtx.gz", gz.substr(0, gz.size() * 3 / 4));
    const std::string e = error_of(dir / "m.mtx.gz");
    EXPECT_NE(e.find(part), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace spx::test

// Matrix Market reader: the header is parsed serially, the body in parallel
// chunks split at line boundaries. Each chunk records its own line count and
// stops at its first error, so the error reported is the first one in file
// order and carries the right line number. File loading (plain or gzip) is in
// matrix_market_load.cpp.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <omp.h>
#if SPX_HAVE_FAST_FLOAT
#include <fast_float/fast_float.h>
#endif

#include "core/instantiate.hpp"
#include "core/matrix_market_text.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::io {

namespace {

/// The banner words of each header field, as to_string prints them.
template <class E, std::size_t N>
using WordTable = std::pair<E, std::string_view>[N];
constexpr std::pair<MmField, std::string_view> kFieldWords[]{{MmField::Real, "real"},
                                                             {MmField::Integer, "integer"},
                                                             {MmField::Pattern, "pattern"},
                                                             {MmField::Complex, "complex"}};
constexpr std::pair<MmSymmetry, std::string_view> kSymmetryWords[]{
    {MmSymmetry::General, "general"},
    {MmSymmetry::Symmetric, "symmetric"},
    {MmSymmetry::SkewSymmetric, "skew-symmetric"},
    {MmSymmetry::Hermitian, "hermitian"}};
constexpr std::pair<bool, std::string_view> kLayoutWords[]{{true, "coordinate"}, {false, "array"}};

template <class E, std::size_t N>
std::string_view word_of(const WordTable<E, N>& table, E e) noexcept {
  for (const auto& [value, word] : table)
    if (value == e) return word;
  return "?";
}

}  // namespace

std::string_view to_string(MmField f) noexcept {
  return word_of(kFieldWords, f);
}

std::string_view to_string(MmSymmetry s) noexcept {
  return word_of(kSymmetryWords, s);
}

namespace detail {

std::string quote(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < std::min(s.size(), kMax); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  if (s.size() > kMax) out += "...";
  return out + "'";
}

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x) ==
                  (y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
         });
}

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  const char* p = line.data();
  const char* e = p + line.size();
  while (true) {
    p = skip_blank(p, e);
    if (p == e) break;
    const char* t = token_end(p, e);
    out.emplace_back(p, static_cast<std::size_t>(t - p));
    p = t;
  }
  return out;
}

/// Iterates over the lines of a text, counting them (1-based).
struct LineReader {
  std::string_view text;
  std::size_t pos = 0;
  std::int64_t line = 0;

  bool next(std::string_view& out) {
    if (pos >= text.size()) return false;
    const std::size_t eol = text.find('\n', pos);
    const std::size_t stop = eol == std::string_view::npos ? text.size() : eol;
    out = text.substr(pos, stop - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    ++line;
    return true;
  }
};

constexpr std::string_view kBannerHelp =
    "'%%MatrixMarket matrix coordinate|array real|integer|pattern "
    "general|symmetric|skew-symmetric'";

/// The value whose word in `table` is `word` (case-insensitive); fails at
/// line 1 naming the header field `what` and the words it accepts.
template <class E, std::size_t N>
E banner_word(std::string_view name, std::string_view word, std::string_view what,
              const WordTable<E, N>& table) {
  std::string accepted;
  for (const auto& [value, w] : table) {
    if (iequals(word, w)) return value;
    accepted += fmt::format("{}{}", accepted.empty() ? "" : ", ", w);
  }
  fail(name, 1,
       fmt::format("unknown {} {} in the banner (expected one of: {})", what, quote(word),
                   accepted));
}

bool skippable(std::string_view line) {
  const char* p = skip_blank(line.data(), line.data() + line.size());
  return p == line.data() + line.size() || *p == '%';
}

}  // namespace

std::int64_t eof_line(std::string_view text) {
  const auto newlines = std::count(text.begin(), text.end(), '\n');
  // The position after the last byte: on a new (empty) line when the text
  // ends with a newline, else on the last line; either way newlines + 1.
  return static_cast<std::int64_t>(newlines) + 1;
}

void parse_banner(std::string_view line, std::string_view name, MmHeader& h) {
  // A carriage return inside line 1 (not only at its end, as in CRLF files):
  // the lines end with CR alone, and the whole file reads as one line.
  const auto cr = line.find('\r');
  if (cr != std::string_view::npos &&
      skip_blank(line.data() + cr, line.data() + line.size()) != line.data() + line.size())
    fail(name, 1,
         "the lines end with a carriage return (CR) alone (old Mac OS line endings): a Matrix "
         "Market file needs LF or CRLF line endings (convert with: tr '\\r' '\\n')");
  if (line.substr(0, 3) == "\xEF\xBB\xBF")
    fail(name, 1,
         "the file starts with a UTF-8 byte order mark (BOM, bytes EF BB BF) before the banner: "
         "save it without the BOM");
  const auto tok = tokens(line);
  if (tok.empty() || tok[0] != "%%MatrixMarket")
    fail(name, 1,
         fmt::format("bad banner {}: a Matrix Market file starts with {}", quote(line),
                     kBannerHelp));
  if (tok.size() < 5)
    fail(name, 1, fmt::format("incomplete banner {}: expected {}", quote(line), kBannerHelp));
  if (tok.size() > 5)
    fail(name, 1, fmt::format("unexpected text {} after the banner", quote(tok[5])));
  if (!iequals(tok[1], "matrix"))
    fail(name, 1,
         fmt::format("unsupported object {} in the banner (expected 'matrix')", quote(tok[1])));
  h.coordinate = banner_word(name, tok[2], "format", kLayoutWords);
  h.field = banner_word(name, tok[3], "field", kFieldWords);
  h.symmetry = banner_word(name, tok[4], "symmetry", kSymmetryWords);
  if (h.field == MmField::Complex || h.symmetry == MmSymmetry::Hermitian)
    throw Unsupported(
        fmt::format("{}:1: {} {} matrices are not supported: SpX computes in real arithmetic", name,
                    to_string(h.field), to_string(h.symmetry)));
  if (h.field == MmField::Pattern && !h.coordinate)
    fail(name, 1, "the field 'pattern' is only valid in coordinate files, not in array files");
  if (h.field == MmField::Pattern && h.symmetry == MmSymmetry::SkewSymmetric)
    fail(name, 1, "a pattern file cannot be skew-symmetric (it has no values to negate)");
}

bool is_size_line(std::string_view line) {
  return !skippable(line);
}

Header parse_header(std::string_view text, std::string_view name, std::int64_t index_max,
                    std::string_view index_type) {
  Header out;
  LineReader lr{text};
  std::string_view line;
  if (!lr.next(line)) fail(name, 1, fmt::format("empty file: expected the banner {}", kBannerHelp));
  MmHeader& h = out.header;
  parse_banner(line, name, h);

  // Comments and blank lines, then the size line.
  bool found = false;
  while (lr.next(line)) {
    if (skippable(line)) continue;
    found = true;
    break;
  }
  const std::string_view expected = h.coordinate ? "'rows columns entries'" : "'rows columns'";
  if (!found)
    fail(name, eof_line(text),
         fmt::format("end of file where the size line {} was expected", expected));
  out.size_line = lr.line;
  const auto sizes = tokens(line);
  const std::size_t want = h.coordinate ? 3 : 2;
  constexpr const char* kWhat[] = {"rows", "columns", "entries"};
  std::int64_t v[3] = {0, 0, 0};
  for (std::size_t k = 0; k < std::min(want, sizes.size()); ++k) {
    const char* b = sizes[k].data();
    const char* e = b + sizes[k].size();
    if (*b == '+' && e - b > 1) ++b;
    const auto [ptr, ec] = std::from_chars(b, e, v[k]);
    if (ec == std::errc::result_out_of_range && ptr == e)
      fail(name, lr.line,
           fmt::format("index overflow: {} = {} does not fit a 64-bit integer", kWhat[k],
                       quote(sizes[k])));
    if (ec != std::errc() || ptr != e)
      fail(name, lr.line,
           fmt::format("size line: expected {}, got {} (not an integer)", expected, quote(line)));
  }
  if (sizes.size() != want)
    fail(name, lr.line,
         fmt::format("size line: expected {}, got {} ({} numbers)", expected, quote(line),
                     sizes.size()));
  for (std::size_t k = 0; k < want; ++k) {
    if (v[k] < 0) fail(name, lr.line, fmt::format("size line: negative {} ({})", kWhat[k], v[k]));
    if (v[k] > index_max)
      fail(name, lr.line,
           fmt::format("index overflow: {} = {} does not fit the {} index type", kWhat[k], v[k],
                       index_type));
  }
  h.rows = v[0];
  h.cols = v[1];
  if (h.symmetry != MmSymmetry::General && h.rows != h.cols)
    fail(name, lr.line,
         fmt::format("a {} matrix must be square, the size line says {} x {}",
                     to_string(h.symmetry), h.rows, h.cols));
  if (h.coordinate) {
    h.entries = v[2];
  } else {
    const std::int64_t n = h.rows;
    std::int64_t count = 0;
    bool overflow = false;
    if (h.symmetry == MmSymmetry::General)
      overflow = __builtin_mul_overflow(h.rows, h.cols, &count);
    else if (h.symmetry == MmSymmetry::Symmetric)
      overflow = __builtin_mul_overflow(n, n + 1, &count), count /= 2;
    else
      overflow = n > 0 && __builtin_mul_overflow(n, n - 1, &count), count /= 2;
    if (overflow)
      fail(name, lr.line,
           fmt::format("size overflow: {} x {} array entries exceed 64 bits", h.rows, h.cols));
    h.entries = count;
  }
  out.body = lr.pos;
  out.body_line = lr.line + 1;
  return out;
}

}  // namespace detail

namespace {

using detail::fail;
using detail::quote;
using detail::skip_blank;
using detail::token_end;

/// What a chunk of the body parses to.
template <Value T, Index I>
struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::vector<I> row, col;  // 0-based (coordinate)
  std::vector<T> val;       // values (coordinate real/integer, array)
  std::int64_t lines = 0;   // lines started in this chunk
  std::int64_t entries = 0;
  std::int64_t off_diagonal = 0;
  std::int64_t upper = 0;  // entries stored above the diagonal (symmetric files)
  bool failed = false;
  std::int64_t error_line = 0;  // 0-based, within the chunk
  std::string error;
  std::exception_ptr exception;  // anything else (bad_alloc)
};

struct Context {
  MmHeader h;
  bool finite_only = true;
  bool lower_only = false;
};

/// Parses an integer index token in [1, bound]; returns the 0-based index.
bool parse_index(const char*& q, const char* eol, std::int64_t bound, const char* what,
                 const char* dimension, std::int64_t& out, std::string& error) {
  q = skip_blank(q, eol);
  if (q == eol) {
    error = fmt::format("missing {}", what);
    return false;
  }
  const char* te = token_end(q, eol);
  const char* s = q;
  if (*s == '+' && te - s > 1) ++s;
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s, te, v);
  if (ptr != te || ec == std::errc::invalid_argument) {
    error = fmt::format("expected an integer {}, got {}", what,
                        quote(std::string_view(q, static_cast<std::size_t>(te - q))));
    return false;
  }
  if (ec == std::errc::result_out_of_range || v < 1 || v > bound) {
    error =
        fmt::format("{} {} is out of range (the matrix has {} {}; indices start at 1)", what,
                    quote(std::string_view(q, static_cast<std::size_t>(te - q))), bound, dimension);
    return false;
  }
  out = v - 1;
  q = te;
  return true;
}

template <Value T>
T parse_fallback(const std::string& s, char** end) {
  if constexpr (std::is_same_v<T, float>)
    return std::strtof(s.c_str(), end);
  else
    return std::strtod(s.c_str(), end);
}

/// Parses a value token of the given field.
template <Value T>
bool parse_value(const char*& q, const char* eol, MmField field, bool finite_only, T& out,
                 std::string& error) {
  q = skip_blank(q, eol);
  if (q == eol) {
    error = fmt::format("missing value (the field is {})", to_string(field));
    return false;
  }
  const char* te = token_end(q, eol);
  const std::string_view token(q, static_cast<std::size_t>(te - q));
  const char* s = q;
  if (*s == '+' && te - s > 1 && s[1] != '-' && s[1] != '+') ++s;
  if (field == MmField::Integer) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s, te, v);
    if (ptr != te || ec == std::errc::invalid_argument) {
      error = fmt::format("expected an integer value, got {}", quote(token));
      return false;
    }
    if (ec == std::errc::result_out_of_range) {
      error = fmt::format("integer value {} does not fit 64 bits", quote(token));
      return false;
    }
    out = static_cast<T>(v);
  } else {
    const auto [ptr, ec] = std::from_chars(s, te, out, std::chars_format::general);
    if (ptr != te || ec == std::errc::invalid_argument) {
      error = fmt::format("expected a real value, got {}", quote(token));
      return false;
    }
    bool overflow = false;
    if (ec == std::errc::result_out_of_range) {
      // Underflow (a subnormal or zero result) is fine; overflow gives ±inf.
      const std::string copy(s, te);
      char* end = nullptr;
      out = parse_fallback<T>(copy, &end);
      overflow = std::isinf(out);
    }
    if (finite_only && !std::isfinite(out)) {
      error = overflow
                  ? fmt::format("value {} is out of the range of {}", quote(token), type_name<T>())
                  : fmt::format(
                        "value {} is not finite (NaN and Inf are rejected; "
                        "MmReadOptions::finite_only)",
                        quote(token));
      return false;
    }
  }
  q = te;
  return true;
}

/// Calls entry(q, eol) for each data line of the chunk (blank lines and
/// comments skipped; q at the line's first non-blank character, eol at its
/// end) until one returns false, the failure: that line is recorded as the
/// chunk's error line (entry has set ch.error).
template <Value T, Index I, class Entry>
void for_each_data_line(Chunk<T, I>& ch, Entry&& entry) {
  const char* p = ch.begin;
  while (p < ch.end) {
    const char* nl =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(ch.end - p)));
    const char* eol = nl ? nl : ch.end;
    const char* q = skip_blank(p, eol);
    if (q != eol && *q != '%' && !entry(q, eol)) {
      ch.failed = true;
      ch.error_line = ch.lines;
      return;
    }
    ++ch.lines;
    p = nl ? nl + 1 : ch.end;
  }
}

/// The fast reading of the common entry line: unsigned indices of at most 18
/// digits, a value that std::from_chars (fast_float when found) reads whole
/// and finite, separated by spaces or tabs, ending in '\n', "\r\n" or the
/// end of the chunk. Anything else returns false, and the line is read again
/// by the strict reader, which accepts it the same or names the problem.
/// On success `q` is past the line.
constexpr bool is_digit(char c) noexcept {
  return static_cast<unsigned char>(c - '0') < 10;
}
inline bool fast_digits(const char*& q, const char* e, std::int64_t& out) noexcept {
  const char* s = q;
  std::uint64_t v = 0;  // unsigned: wraps (defined) on long tokens, refused below
  while (q < e && is_digit(*q))
    v = 10 * v + static_cast<unsigned>(*q++ - '0');
  if (q == s || q - s > 18) return false;
  out = static_cast<std::int64_t>(v);
  return true;
}
inline bool fast_index(const char*& q, const char* e, std::int64_t bound,
                       std::int64_t& out) noexcept {
  if (!fast_digits(q, e, out) || out < 1 || out > bound) return false;
  --out;
  return true;
}
inline bool fast_gap(const char*& q, const char* e) noexcept {
  if (q == e || (*q != ' ' && *q != '\t')) return false;
  do
    ++q;
  while (q < e && (*q == ' ' || *q == '\t'));
  return true;
}
template <Value T>
std::from_chars_result parse_real(const char* b, const char* e, T& v) noexcept {
#if SPX_HAVE_FAST_FLOAT
  const auto r = fast_float::from_chars(b, e, v);
  return {r.ptr, r.ec};
#else
  return std::from_chars(b, e, v, std::chars_format::general);
#endif
}
template <Value T>
bool fast_entry(const char*& q, const char* e, const MmHeader& h, std::int64_t& i, std::int64_t& j,
                T& v) noexcept {
  while (q < e && (*q == ' ' || *q == '\t'))
    ++q;
  if (!fast_index(q, e, h.rows, i) || !fast_gap(q, e) || !fast_index(q, e, h.cols, j)) return false;
  if (h.field != MmField::Pattern) {
    if (!fast_gap(q, e)) return false;
    if (h.field == MmField::Integer) {
      const bool negative = q < e && *q == '-';
      q += negative;
      std::int64_t x = 0;
      if (!fast_digits(q, e, x)) return false;
      v = static_cast<T>(negative ? -x : x);
    } else {
      const auto [ptr, ec] = parse_real(q, e, v);
      if (ec != std::errc() || ptr == q || !std::isfinite(v)) return false;
      q = ptr;
    }
  }
  while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
    ++q;
  if (q == e) return true;
  if (*q != '\n') return false;
  ++q;
  return true;
}

/// Parses one chunk of a coordinate body; stops at the first error.
template <Value T, Index I>
void parse_coordinate(Chunk<T, I>& ch, const Context& ctx) {
  const MmHeader& h = ctx.h;
  const bool values = h.field != MmField::Pattern;
  // At most one entry per line: reserve once instead of growing.
  const auto lines = static_cast<std::size_t>(std::count(ch.begin, ch.end, '\n')) + 1;
  ch.row.reserve(lines);
  ch.col.reserve(lines);
  if (values) ch.val.reserve(lines);
  // The symmetry rules, then storage.
  const auto store = [&](std::int64_t i, std::int64_t j, T v) {
    if (h.symmetry == MmSymmetry::SkewSymmetric && j == i) {
      ch.error = fmt::format(
          "diagonal entry ({}, {}) in a skew-symmetric file (its diagonal is zero and not stored)",
          i + 1, j + 1);
      return false;
    }
    if (h.symmetry != MmSymmetry::General && j > i) {
      if (ctx.lower_only) {
        ch.error = fmt::format(
            "entry ({}, {}) lies above the diagonal: a {} file stores the {}lower triangle "
            "(strict reading, MmReadOptions::lower_triangle_only)",
            i + 1, j + 1, to_string(h.symmetry),
            h.symmetry == MmSymmetry::SkewSymmetric ? "strict " : "");
        return false;
      }
      ++ch.upper;
    }
    ch.row.push_back(static_cast<I>(i));
    ch.col.push_back(static_cast<I>(j));
    if (values) ch.val.push_back(v);
    ++ch.entries;
    ch.off_diagonal += i != j;
    return true;
  };
  // The strict reading of one line, with its messages.
  const auto strict = [&](const char* q, const char* eol) {
    std::int64_t i = 0, j = 0;
    T v = T{1};
    if (!parse_index(q, eol, h.rows, "row index", "rows", i, ch.error) ||
        !parse_index(q, eol, h.cols, "column index", "columns", j, ch.error) ||
        (values && !parse_value(q, eol, h.field, ctx.finite_only, v, ch.error)))
      return false;
    if (q = skip_blank(q, eol); q != eol) {
      ch.error = fmt::format("unexpected text {} after the entry (a {} entry is 'row column{}')",
                             quote(std::string_view(q, static_cast<std::size_t>(eol - q))),
                             to_string(h.field), values ? " value" : "");
      return false;
    }
    return store(i, j, v);
  };
  const char* p = ch.begin;
  while (p < ch.end) {
    std::int64_t i = 0, j = 0;
    T v = T{1};
    const char* q = p;
    bool good;
    if (fast_entry(q, ch.end, h, i, j, v)) {
      good = store(i, j, v);
    } else {  // a comment, a blank line, or anything unusual
      const char* nl =
          static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(ch.end - p)));
      const char* eol = nl ? nl : ch.end;
      q = skip_blank(p, eol);
      good = q == eol || *q == '%' || strict(q, eol);
      q = nl ? nl + 1 : ch.end;
    }
    if (!good) {
      ch.failed = true;
      ch.error_line = ch.lines;
      return;
    }
    ++ch.lines;
    p = q;
  }
}

/// Parses one chunk of an array body (one value per line).
template <Value T, Index I>
void parse_array(Chunk<T, I>& ch, const Context& ctx) {
  ch.val.reserve(static_cast<std::size_t>(std::count(ch.begin, ch.end, '\n')) + 1);
  for_each_data_line(ch, [&](const char* q, const char* eol) {
    T v{};
    if (!parse_value(q, eol, ctx.h.field, ctx.finite_only, v, ch.error)) return false;
    if (q = skip_blank(q, eol); q != eol) {
      ch.error =
          fmt::format("unexpected text {} after the value (an array file has one value per line)",
                      quote(std::string_view(q, static_cast<std::size_t>(eol - q))));
      return false;
    }
    ch.val.push_back(v);
    ++ch.entries;
    return true;
  });
}

/// Line numbers of data lines: `k` holds 0-based entry numbers in increasing
/// order and receives their line numbers (one pass over the body).
void lines_of_entries(std::string_view body, std::int64_t body_line, std::vector<std::int64_t>& k) {
  detail::LineReader lr{body};
  std::string_view line;
  std::int64_t seen = 0;
  std::size_t next = 0;
  while (next < k.size() && lr.next(line)) {
    const char* q = skip_blank(line.data(), line.data() + line.size());
    if (q == line.data() + line.size() || *q == '%') continue;
    while (next < k.size() && k[next] == seen)
      k[next++] = body_line + lr.line - 1;
    ++seen;
  }
}

/// Line number of the `k`-th (1-based) data line of the body.
std::int64_t line_of_entry(std::string_view body, std::int64_t body_line, std::int64_t k) {
  std::vector<std::int64_t> one{k - 1};
  lines_of_entries(body, body_line, one);
  return one[0];
}

/// Where a file stores entries in both triangles of a symmetric or
/// skew-symmetric matrix, finds the pairs stored in both: a pair stored once
/// in each triangle with equal values (skew: opposite values) is kept once
/// (its copy above the diagonal is removed from its chunk); different values,
/// or more than one copy on either side, raise an IoError naming the lines.
/// Positions are entry numbers in file order (0-based), so the outcome does
/// not depend on the chunking.
template <Value T, Index I>
void resolve_both_triangles(std::vector<Chunk<T, I>>& chunks, const MmHeader& h,
                            std::string_view body, std::int64_t body_line, std::string_view name) {
  struct Stored {
    I row, col;        // the pair as (larger index, smaller index)
    std::int64_t pos;  // entry number in file order
    bool operator<(const Stored& o) const {
      return std::tie(row, col, pos) < std::tie(o.row, o.col, o.pos);
    }
  };
  const auto key_less = [](const Stored& a, const Stored& b) {
    return std::tie(a.row, a.col) < std::tie(b.row, b.col);
  };
  std::vector<std::int64_t> first(chunks.size() + 1, 0);  // first entry number of each chunk
  for (std::size_t k = 0; k < chunks.size(); ++k)
    first[k + 1] = first[k] + chunks[k].entries;

  // The copies above the diagonal, sorted by pair.
  std::vector<Stored> upper;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const auto& ch = chunks[k];
    for (std::size_t e = 0; e < ch.row.size(); ++e)
      if (ch.col[e] > ch.row[e])
        upper.push_back({ch.col[e], ch.row[e], first[k] + static_cast<std::int64_t>(e)});
  }
  std::sort(upper.begin(), upper.end());

  // The copies below the diagonal of those pairs.
  std::vector<Stored> lower;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const auto& ch = chunks[k];
    for (std::size_t e = 0; e < ch.row.size(); ++e) {
      if (ch.row[e] <= ch.col[e]) continue;
      const Stored s{ch.row[e], ch.col[e], first[k] + static_cast<std::int64_t>(e)};
      if (std::binary_search(upper.begin(), upper.end(), s, key_less)) lower.push_back(s);
    }
  }
  if (lower.empty()) return;  // no pair is stored in both triangles
  std::sort(lower.begin(), lower.end());

  const auto value_at = [&](std::int64_t pos) -> T {
    if (h.field == MmField::Pattern) return T{1};
    const auto k = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), pos) -
                                            first.begin() - 1);
    return chunks[k].val[static_cast<std::size_t>(pos - first[k])];
  };
  const bool skew = h.symmetry == MmSymmetry::SkewSymmetric;
  const auto same = [](T a, T b) { return a == b || (std::isnan(a) && std::isnan(b)); };

  // Each pair in both triangles: its copies in file order. The problem
  // reported is the one whose second copy comes first in the file.
  std::vector<std::int64_t> drop;
  std::int64_t bad_at = -1;  // the second copy of the first bad pair
  std::vector<std::int64_t> bad_copies;
  std::size_t lo = 0;
  for (std::size_t a = 0; a < lower.size();) {
    std::size_t b = a;
    while (b < lower.size() && !key_less(lower[a], lower[b]))
      ++b;
    while (lo < upper.size() && key_less(upper[lo], lower[a]))
      ++lo;
    std::size_t hi = lo;
    while (hi < upper.size() && !key_less(lower[a], upper[hi]))
      ++hi;
    const std::int64_t l = lower[a].pos, u = upper[lo].pos;
    if (b - a == 1 && hi - lo == 1 && same(value_at(l), skew ? -value_at(u) : value_at(u))) {
      drop.push_back(u);
    } else {
      std::vector<std::int64_t> copies;
      for (std::size_t k = a; k < b; ++k)
        copies.push_back(lower[k].pos);
      for (std::size_t k = lo; k < hi; ++k)
        copies.push_back(upper[k].pos);
      std::sort(copies.begin(), copies.end());
      if (bad_at < 0 || copies[1] < bad_at) {
        bad_at = copies[1];
        bad_copies = std::move(copies);
      }
    }
    a = b;
  }

  if (bad_at >= 0) {
    // The pair: every copy holds it as (i, j) or (j, i).
    const auto k0 = static_cast<std::size_t>(
        std::upper_bound(first.begin(), first.end(), bad_copies[0]) - first.begin() - 1);
    const auto e0 = static_cast<std::size_t>(bad_copies[0] - first[k0]);
    const std::int64_t hi_idx = std::max<std::int64_t>(chunks[k0].row[e0], chunks[k0].col[e0]);
    const std::int64_t lo_idx = std::min<std::int64_t>(chunks[k0].row[e0], chunks[k0].col[e0]);
    const auto written = [&](std::int64_t pos) {
      const auto k = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), pos) -
                                              first.begin() - 1);
      const auto e = static_cast<std::size_t>(pos - first[k]);
      return fmt::format("({}, {})", chunks[k].row[e] + std::int64_t{1},
                         chunks[k].col[e] + std::int64_t{1});
    };
    std::vector<std::int64_t> lines(
        bad_copies.begin(), bad_copies.begin() + std::min<std::size_t>(bad_copies.size(), 4));
    lines_of_entries(body, body_line, lines);
    if (bad_copies.size() == 2) {
      const T v0 = value_at(bad_copies[0]), v1 = value_at(bad_copies[1]);
      fail(name, lines[1],
           fmt::format("entry {} = {} and entry {} = {} on line {} store the same pair of a {} "
                       "matrix with {} (a pair may be stored in both triangles only "
                       "with {} values)",
                       written(bad_copies[1]), v1, written(bad_copies[0]), v0, lines[0],
                       to_string(h.symmetry),
                       skew ? "values that are not opposite" : "different values",
                       skew ? "opposite" : "equal"));
    }
    std::string where;
    for (std::size_t k = 0; k < lines.size(); ++k)
      where += fmt::format("{}{}", k == 0 ? "" : k + 1 == lines.size() ? " and " : ", ", lines[k]);
    fail(name, lines[1],
         fmt::format("the pair ({}, {}) / ({}, {}) is stored {} times in both triangles (lines "
                     "{}{}): a pair stored in both triangles must be stored once in each",
                     hi_idx + 1, lo_idx + 1, lo_idx + 1, hi_idx + 1, bad_copies.size(), where,
                     bad_copies.size() > lines.size() ? ", ..." : ""));
  }

  // Remove the copies above the diagonal of the pairs kept once.
  std::sort(drop.begin(), drop.end());
  for (std::size_t k = 0, d = 0; k < chunks.size() && d < drop.size(); ++k) {
    auto& ch = chunks[k];
    if (drop[d] >= first[k + 1]) continue;
    std::size_t out = 0;
    for (std::size_t e = 0; e < ch.row.size(); ++e) {
      if (d < drop.size() && drop[d] == first[k] + static_cast<std::int64_t>(e)) {
        ++d;
        --ch.entries;
        --ch.off_diagonal;
        --ch.upper;
        continue;
      }
      ch.row[out] = ch.row[e];
      ch.col[out] = ch.col[e];
      if (!ch.val.empty()) ch.val[out] = ch.val[e];
      ++out;
    }
    ch.row.resize(out);
    ch.col.resize(out);
    if (!ch.val.empty()) ch.val.resize(out);
  }
}

}  // namespace

template <Value T, Index I>
Coo<T, I> parse_coo(std::string_view text, std::string_view name, const MmReadOptions& options,
                    MmHeader* header) {
  if (options.threads < 0)
    throw InvalidInput(fmt::format("MmReadOptions::threads = {} (expected >= 0)", options.threads));
  const auto parsed =
      detail::parse_header(text, name, std::numeric_limits<I>::max(), index_name<I>());
  const MmHeader& h = parsed.header;
  if (header) *header = h;
  const Context ctx{h, options.finite_only, options.lower_triangle_only};
  const std::string_view body = text.substr(parsed.body);

  // Split the body into chunks at line boundaries.
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  std::size_t chunk = options.chunk_bytes;
  if (chunk == 0)
    chunk = std::clamp<std::size_t>(body.size() / (8 * static_cast<std::size_t>(threads)),
                                    std::size_t{256} << 10, std::size_t{16} << 20);
  std::vector<Chunk<T, I>> chunks;
  {
    const char* p = body.data();
    const char* const e = body.data() + body.size();
    while (p < e) {
      const char* stop = p + std::min<std::size_t>(chunk, static_cast<std::size_t>(e - p));
      if (stop < e) {
        // Extend to the end of the line holding the last byte.
        const char* nl = static_cast<const char*>(
            std::memchr(stop - 1, '\n', static_cast<std::size_t>(e - stop + 1)));
        stop = nl ? nl + 1 : e;
      }
      chunks.emplace_back();
      chunks.back().begin = p;
      chunks.back().end = stop;
      p = stop;
    }
  }
  const auto nchunks = static_cast<std::int64_t>(chunks.size());
  // No parallel region for a single chunk: waking a team costs more than a
  // small file takes to parse, especially on a busy machine.
  const int team = static_cast<int>(std::clamp<std::int64_t>(nchunks, 1, threads));
#pragma omp parallel for num_threads(team) schedule(dynamic, 1) if (team > 1)
  for (std::int64_t k = 0; k < nchunks; ++k) {
    auto& ch = chunks[static_cast<std::size_t>(k)];
    try {
      if (h.coordinate)
        parse_coordinate(ch, ctx);
      else
        parse_array(ch, ctx);
    } catch (...) {
      ch.failed = true;
      ch.exception = std::current_exception();
    }
  }

  // The first problem in file order: an entry beyond the declared count, a
  // parse error, or too few entries.
  std::int64_t seen = 0, lines_before = 0;
  for (const auto& ch : chunks) {
    seen += ch.entries;
    if (ch.failed) break;
    lines_before += ch.lines;
  }
  const std::string what = h.coordinate ? "entries" : "values";
  if (seen > h.entries)
    fail(name, line_of_entry(body, parsed.body_line, h.entries + 1),
         fmt::format("more {} than the {} declared on the size line (line {})", what, h.entries,
                     parsed.size_line));
  for (const auto& ch : chunks) {
    if (!ch.failed) continue;
    if (ch.exception) std::rethrow_exception(ch.exception);
    fail(name, parsed.body_line + lines_before + ch.error_line, ch.error);
  }
  if (seen < h.entries)
    fail(name, detail::eof_line(text),
         fmt::format("unexpected end of file after {} of the {} {} declared on the size line "
                     "(line {}): truncated file?",
                     seen, h.entries, what, parsed.size_line));

  const I rows = static_cast<I>(h.rows), cols = static_cast<I>(h.cols);
  if (h.coordinate) {
    std::int64_t upper = 0, off_diagonal = 0;
    for (const auto& ch : chunks) {
      upper += ch.upper;
      off_diagonal += ch.off_diagonal;
    }
    // Entries from both triangles: a pair may be stored twice.
    if (upper > 0 && upper < off_diagonal)
      resolve_both_triangles(chunks, h, body, parsed.body_line, name);
    const bool mirror = options.expand_symmetry && h.symmetry != MmSymmetry::General;
    const bool fold = !options.expand_symmetry && upper > 0;
    std::vector<std::int64_t> offset(chunks.size() + 1, 0), mirror_offset(chunks.size() + 1, 0);
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      offset[k + 1] = offset[k] + chunks[k].entries;
      mirror_offset[k + 1] = mirror_offset[k] + (mirror ? chunks[k].off_diagonal : 0);
    }
    const std::int64_t n = offset.back() + mirror_offset.back();
    if (n > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
      fail(name, parsed.size_line,
           fmt::format("index overflow: {} entries after symmetric expansion do not fit the {} "
                       "index type",
                       n, index_name<I>()));
    Array<I> r(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n));
    Array<T> v(static_cast<std::size_t>(n));
    const T sign = h.symmetry == MmSymmetry::SkewSymmetric ? T{-1} : T{1};
    const bool pattern = h.field == MmField::Pattern;
    const std::int64_t mirror_base = offset.back();
#pragma omp parallel for num_threads(team) schedule(dynamic, 1) if (team > 1)
    for (std::int64_t k = 0; k < nchunks; ++k) {
      auto& ch = chunks[static_cast<std::size_t>(k)];
      std::int64_t o = offset[static_cast<std::size_t>(k)];
      std::int64_t m = mirror_base + mirror_offset[static_cast<std::size_t>(k)];
      for (std::int64_t e = 0; e < ch.entries; ++e, ++o) {
        const auto ue = static_cast<std::size_t>(e);
        const T val = pattern ? T{1} : ch.val[ue];
        if (fold && ch.col[ue] > ch.row[ue]) {  // kept as stored: into the lower triangle
          r[o] = ch.col[ue];
          c[o] = ch.row[ue];
          v[o] = sign * val;
          continue;
        }
        r[o] = ch.row[ue];
        c[o] = ch.col[ue];
        v[o] = val;
        if (mirror && ch.row[ue] != ch.col[ue]) {
          r[m] = ch.col[ue];
          c[m] = ch.row[ue];
          v[m] = sign * val;
          ++m;
        }
      }
      std::vector<I>().swap(ch.row);
      std::vector<I>().swap(ch.col);
      std::vector<T>().swap(ch.val);
    }
    return Coo<T, I>(rows, cols, std::move(r), std::move(c), std::move(v), Check::Trusted);
  }

  // Array: positions follow from the column-major order; zeros are dropped.
  std::vector<I> r, c, mr, mc;
  std::vector<T> v, mv;
  const bool mirror = options.expand_symmetry && h.symmetry != MmSymmetry::General;
  const T sign = h.symmetry == MmSymmetry::SkewSymmetric ? T{-1} : T{1};
  // Column j starts at row 0 (general), j (symmetric: with the diagonal) or
  // j + 1 (skew-symmetric).
  const auto start_of = [&](std::int64_t col) -> std::int64_t {
    if (h.symmetry == MmSymmetry::General) return 0;
    return h.symmetry == MmSymmetry::SkewSymmetric ? col + 1 : col;
  };
  std::int64_t j = 0, i = start_of(0);
  for (auto& ch : chunks) {
    for (const T val : ch.val) {
      while (i >= h.rows)
        i = start_of(++j);
      if (val != T{0}) {
        r.push_back(static_cast<I>(i));
        c.push_back(static_cast<I>(j));
        v.push_back(val);
        if (mirror && i != j) {
          mr.push_back(static_cast<I>(j));
          mc.push_back(static_cast<I>(i));
          mv.push_back(sign * val);
        }
      }
      ++i;
    }
    std::vector<T>().swap(ch.val);
  }
  r.insert(r.end(), mr.begin(), mr.end());
  c.insert(c.end(), mc.begin(), mc.end());
  v.insert(v.end(), mv.begin(), mv.end());
  if (r.size() > static_cast<std::size_t>(std::numeric_limits<I>::max()))
    fail(name, parsed.size_line,
         fmt::format("index overflow: {} nonzeros do not fit the {} index type", r.size(),
                     index_name<I>()));
  return Coo<T, I>(rows, cols, Array<I>(r), Array<I>(c), Array<T>(v), Check::Trusted);
}

template <Value T, Index I>
Coo<T, I> read_coo(const std::filesystem::path& file, const MmReadOptions& options,
                   MmHeader* header) {
  const detail::Text text = detail::load_text(file);
  return parse_coo<T, I>(text.view(), file.string(), options, header);
}

template <Value T, Index I>
Csr<T, I> read_csr(const std::filesystem::path& file, const MmReadOptions& options) {
  return to_csr(read_coo<T, I>(file, options));
}

MmHeader read_header(const std::filesystem::path& file) {
  const std::string text = detail::load_header_text(file);
  // Sizes are checked against int64 only here: the header says nothing about
  // the index type the caller will use.
  return detail::parse_header(text, file.string(), std::numeric_limits<std::int64_t>::max(), "i64")
      .header;
}

#define SPX_INST(T, I)                                                                         \
  template Coo<T, I> read_coo<T, I>(const std::filesystem::path&, const MmReadOptions&,        \
                                    MmHeader*);                                                \
  template Coo<T, I> parse_coo<T, I>(std::string_view, std::string_view, const MmReadOptions&, \
                                     MmHeader*);                                               \
  template Csr<T, I> read_csr<T, I>(const std::filesystem::path&, const MmReadOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::io

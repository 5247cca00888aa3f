// Internals of the Matrix Market reader shared by its source files: lexing
// helpers, the header parser and file loading.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "spx/core/error.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::io::detail {

constexpr bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
inline const char* skip_blank(const char* p, const char* e) noexcept {
  while (p < e && is_blank(*p))
    ++p;
  return p;
}
inline const char* token_end(const char* p, const char* e) noexcept {
  while (p < e && !is_blank(*p))
    ++p;
  return p;
}

/// `s` in single quotes for a message: at most 40 characters, control and
/// non-ASCII bytes escaped as \xNN so that the message stays on one line.
std::string quote(std::string_view s);

/// Throws IoError "NAME:LINE: what".
[[noreturn]] inline void fail(std::string_view name, std::int64_t line, std::string_view what) {
  throw IoError(fmt::format("{}:{}: {}", name, line, what));
}

struct Header {
  MmHeader header;
  std::size_t body = 0;        ///< offset of the first byte after the size line
  std::int64_t body_line = 0;  ///< line number of the first body line
  std::int64_t size_line = 0;  ///< line number of the size line
};

/// Parses line 1, the banner (without its newline), into `h`: IoError (or
/// Unsupported for complex and hermitian files) at line 1 when it is not a
/// Matrix Market banner, naming CR-only line endings when it holds a CR.
void parse_banner(std::string_view line, std::string_view name, MmHeader& h);

/// Whether a line after the banner is the size line (neither blank nor a comment).
bool is_size_line(std::string_view line);

/// Parses the banner, comments and the size line. Sizes above `index_max`
/// raise "index overflow" naming `index_type`.
Header parse_header(std::string_view text, std::string_view name, std::int64_t index_max,
                    std::string_view index_type);

/// Line number of the end of `text` (for "unexpected end of file").
std::int64_t eof_line(std::string_view text);

/// A file's text, in a buffer read into or inflated into.
class Text {
 public:
  explicit Text(std::string s) : str_(std::move(s)) {}
  Text(std::unique_ptr<char[]> buf, std::size_t size) : buf_(std::move(buf)), size_(size) {}
  std::string_view view() const noexcept {
    return buf_ ? std::string_view(buf_.get(), size_) : std::string_view(str_);
  }

 private:
  std::string str_;
  std::unique_ptr<char[]> buf_;
  std::size_t size_ = 0;
};

/// The whole file, decompressed when it is gzip (detected by its magic bytes).
/// Its header is checked as soon as it is in (parse_header with 64-bit
/// sizes), before the rest is read or inflated: a file that is not Matrix
/// Market fails fast, with the error parse_header gives.
Text load_text(const std::filesystem::path& file);
/// The file (decompressed) up to and including its size line, or all of it
/// when it has none.
std::string load_header_text(const std::filesystem::path& file);

}  // namespace spx::io::detail

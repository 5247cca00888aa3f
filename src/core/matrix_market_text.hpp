// Internals of the Matrix Market reader shared by its source files: lexing
// helpers, the header parser and file loading.
#pragma once

#include <cstdint>
#include <filesystem>
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

/// Parses the banner, comments and the size line. Sizes above `index_max`
/// raise "index overflow" naming `index_type`.
Header parse_header(std::string_view text, std::string_view name, std::int64_t index_max,
                    std::string_view index_type);

/// Line number of the end of `text` (for "unexpected end of file").
std::int64_t eof_line(std::string_view text);

/// The whole file, decompressed when it is gzip (detected by its magic bytes).
std::string load_text(const std::filesystem::path& file);
/// The file (decompressed) up to and including its size line, or all of it
/// when it has none.
std::string load_header_text(const std::filesystem::path& file);

}  // namespace spx::io::detail

// Loading Matrix Market files into memory: plain text, or gzip inflated with
// zlib (detected by the gzip magic bytes, whatever the file name).
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/matrix_market_text.hpp"

namespace spx::io::detail {
namespace {

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

void require_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw IoError(fmt::format("{}: is a directory, not a Matrix Market file", file.string()));
}

std::string read_raw(const std::filesystem::path& file) {
  require_file(file);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!f) throw IoError(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  std::string data(ec ? std::size_t{1} << 20 : static_cast<std::size_t>(size) + 1, '\0');
  std::size_t have = 0;
  while (true) {
    if (have == data.size()) data.resize(2 * data.size());
    const std::size_t n = std::fread(data.data() + have, 1, data.size() - have, f.get());
    have += n;
    if (n == 0) break;
  }
  if (std::ferror(f.get()))
    throw IoError(fmt::format("{}: read error: {}", file.string(), std::strerror(errno)));
  data.resize(have);
  return data;
}

/// Inflates one or more concatenated gzip members.
std::string gunzip(std::string_view in, const std::string& name) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK)
    throw IoError(fmt::format("{}: cannot initialize zlib", name));
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, &inflateEnd);
  constexpr std::size_t kStep = std::size_t{1} << 30;  // zlib counts in 32-bit units
  std::string out(std::max<std::size_t>(4 * in.size(), std::size_t{1} << 16), '\0');
  std::size_t consumed = 0, produced = 0;
  while (true) {
    if (produced == out.size()) out.resize(2 * out.size());
    if (zs.avail_in == 0 && consumed < in.size()) {
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
      zs.avail_in = static_cast<uInt>(std::min(kStep, in.size() - consumed));
      consumed += zs.avail_in;
    }
    const auto room = static_cast<uInt>(std::min(kStep, out.size() - produced));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = room;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (rc == Z_STREAM_END) {
      const std::size_t rest = in.size() - consumed + zs.avail_in;
      const std::string_view tail = in.substr(in.size() - rest);
      if (is_gzip(tail)) {  // another member follows
        inflateReset(&zs);
        continue;
      }
      if (std::any_of(tail.begin(), tail.end(), [](char c) { return c != '\0'; }))
        throw IoError(fmt::format("{}: unexpected data after the end of the gzip stream", name));
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && consumed == in.size())
      throw IoError(
          fmt::format("{}: truncated gzip data (the stream ends before its end marker)", name));
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw IoError(fmt::format("{}: corrupt gzip data ({})", name, zs.msg ? zs.msg : zError(rc)));
  }
  out.resize(produced);
  return out;
}

}  // namespace

std::string load_text(const std::filesystem::path& file) {
  std::string raw = read_raw(file);
  if (!is_gzip(raw)) return raw;
  return gunzip(raw, file.string());
}

std::string load_header_text(const std::filesystem::path& file) {
  require_file(file);
  gzFile g = gzopen(file.c_str(), "rb");  // reads plain files unchanged
  if (!g) throw IoError(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(g, &gzclose);
  std::string text;
  std::size_t scanned = 0;  // start of the first line not yet looked at
  bool banner = true;
  std::vector<char> buf(std::size_t{1} << 16);
  while (true) {
    const int n = gzread(g, buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) {
      int code = 0;
      const char* msg = gzerror(g, &code);
      throw IoError(fmt::format("{}: read error: {}", file.string(), msg ? msg : "?"));
    }
    if (n == 0) return text;
    text.append(buf.data(), static_cast<std::size_t>(n));
    // Stop once a complete size line (the first line after the banner that
    // is neither blank nor a comment) is in.
    std::size_t nl;
    while ((nl = text.find('\n', scanned)) != std::string::npos) {
      const std::string_view line(text.data() + scanned, nl - scanned);
      scanned = nl + 1;
      if (banner) {
        banner = false;
        continue;
      }
      const char* p = skip_blank(line.data(), line.data() + line.size());
      if (p != line.data() + line.size() && *p != '%') return text;
    }
  }
}

}  // namespace spx::io::detail

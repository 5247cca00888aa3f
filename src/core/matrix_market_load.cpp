// Loading Matrix Market files into memory: plain text, or gzip inflated with
// zlib (detected by the gzip magic bytes, whatever the file name).
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

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

/// Checks the header of a file while it is read, block by block: the banner
/// once line 1 is complete (or kBannerMax bytes are in without a newline),
/// then the whole header once the size line is complete (or the file ends).
class HeaderCheck {
 public:
  explicit HeaderCheck(std::string_view name) : name_(name) {}

  /// `text`: all the bytes read so far; `at_end`: the file is complete.
  void operator()(std::string_view text, bool at_end) {
    static constexpr std::size_t kBannerMax = 4096;
    if (done_) return;
    std::size_t nl;
    while ((nl = text.find('\n', scanned_)) != std::string_view::npos) {
      const std::string_view line = text.substr(scanned_, nl - scanned_);
      scanned_ = nl + 1;
      if (!banner_) {
        MmHeader h;
        parse_banner(line, name_, h);
        banner_ = true;
      } else if (is_size_line(line)) {
        finish(text.substr(0, nl + 1));
        return;
      }
    }
    if (at_end) {
      finish(text);
    } else if (!banner_ && !long_banner_ && text.size() >= kBannerMax) {
      // No newline in the first kBannerMax bytes: check what there is (a
      // file with CR-only line endings, binary data, a long first line).
      MmHeader h;
      parse_banner(text, name_, h);
      long_banner_ = true;
    }
  }
  bool done() const { return done_; }

 private:
  void finish(std::string_view header) {
    parse_header(header, name_, std::numeric_limits<std::int64_t>::max(), "i64");
    done_ = true;
  }
  std::string_view name_;
  std::size_t scanned_ = 0;  // start of the first line not looked at
  bool banner_ = false, long_banner_ = false, done_ = false;
};

/// Reads up to `n` bytes at `offset` (sequentially with read(2) when
/// `offset` is negative: pipes); fewer only at the end of the file. Sets
/// `err` (errno) on failure.
std::size_t read_at(int fd, char* dst, std::int64_t offset, std::size_t n, int& err) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = offset < 0 ? ::read(fd, dst + done, n - done)
                                 : ::pread(fd, dst + done, n - done,
                                           static_cast<off_t>(offset) + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      err = errno;
      return done;
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

/// Reads a file: its first block, whose header is checked, then the rest
/// (the whole file at once without a check: gzip data). The buffer is not
/// zero-filled, and a large regular file is read in parallel pieces, which
/// spreads the copy and the page faults over the threads.
Text read_plain(int fd, const std::string& name, std::size_t size_hint, HeaderCheck* check) {
  constexpr std::size_t kFirst = std::size_t{1} << 16;
  constexpr std::size_t kPiece = std::size_t{8} << 20;
  std::size_t cap = std::max(size_hint, kFirst) + 1;
  auto buf = std::make_unique_for_overwrite<char[]>(cap);
  std::size_t have = 0;
  bool eof = false;
  const auto failed = [&](int err) {
    return IoError(fmt::format("{}: read error: {}", name, std::strerror(err)));
  };
  while (!eof) {
    if (have == cap) {
      auto bigger = std::make_unique_for_overwrite<char[]>(2 * cap);
      std::memcpy(bigger.get(), buf.get(), have);
      buf = std::move(bigger);
      cap *= 2;
    }
    const std::size_t want = !check || check->done() ? cap - have : std::min(kFirst, cap - have);
    std::size_t n = 0;
    int err = 0;
    if (size_hint > 0 && want >= 2 * kPiece) {  // a regular file: pread at offsets
      const std::size_t pieces = (want + kPiece - 1) / kPiece;
      std::vector<std::size_t> got(pieces);
      std::vector<int> errs(pieces, 0);
#pragma omp parallel for schedule(dynamic, 1)
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(pieces); ++k) {
        const std::size_t off = have + static_cast<std::size_t>(k) * kPiece;
        const std::size_t len = std::min(kPiece, have + want - off);
        const auto uk = static_cast<std::size_t>(k);
        got[uk] = read_at(fd, buf.get() + off, static_cast<std::int64_t>(off), len, errs[uk]);
      }
      for (std::size_t k = 0; k < pieces; ++k) {
        if (errs[k] != 0) throw failed(errs[k]);
        n += got[k];
        if (got[k] < std::min(kPiece, want - k * kPiece)) break;  // the end of the file
      }
      if (::lseek(fd, static_cast<off_t>(have + n), SEEK_SET) < 0) throw failed(errno);
    } else {
      n = read_at(fd, buf.get() + have, -1, want, err);
      if (err != 0) throw failed(err);
    }
    have += n;
    eof = n < want;
    if (check) (*check)(std::string_view(buf.get(), have), eof);
  }
  return Text(std::move(buf), have);
}

/// Inflates one or more concatenated gzip members, checking the header as
/// soon as it is in: until then, output comes in small steps.
std::string gunzip(std::string_view in, const std::string& name, HeaderCheck& check) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK)
    throw IoError(fmt::format("{}: cannot initialize zlib", name));
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, &inflateEnd);
  constexpr std::size_t kStep = std::size_t{1} << 30;  // zlib counts in 32-bit units
  constexpr std::size_t kHeaderStep = std::size_t{1} << 16;
  // The size the gzip trailer records (modulo 2^32, of the last member): a
  // hint for the buffer, used once the header is known to be right.
  // Deflate expands at most 1032-fold: a larger claim is not believed.
  std::size_t hint = 0;
  if (in.size() >= 18)
    for (int k = 0; k < 4; ++k)
      hint |= std::size_t{static_cast<unsigned char>(in[in.size() - 4 + k])} << (8 * k);
  hint = std::min(hint, 1032 * in.size());
  std::string out(kHeaderStep, '\0');
  std::size_t consumed = 0, produced = 0;
  bool sized = false;
  while (true) {
    if (check.done() && !sized) {
      sized = true;
      if (hint + 1 > out.size()) out.resize(hint + 1);
    }
    if (produced == out.size()) out.resize(2 * out.size());
    if (zs.avail_in == 0 && consumed < in.size()) {
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
      zs.avail_in = static_cast<uInt>(std::min(kStep, in.size() - consumed));
      consumed += zs.avail_in;
    }
    const auto room =
        static_cast<uInt>(std::min(check.done() ? kStep : kHeaderStep, out.size() - produced));
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
      throw IoError(fmt::format(
          "{}: truncated gzip data (the stream ends before its end marker, after {} bytes of "
          "text)",
          name, produced));
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw IoError(fmt::format("{}: corrupt gzip data ({})", name, zs.msg ? zs.msg : zError(rc)));
    check(std::string_view(out.data(), produced), false);
  }
  out.resize(produced);
  check(out, true);
  return out;
}

bool ends_with_gz(const std::string& name) {
  return name.size() >= 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
}

}  // namespace

Text load_text(const std::filesystem::path& file) {
  require_file(file);
  const std::string name = file.string();
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!f) throw IoError(fmt::format("{}: cannot open: {}", name, std::strerror(errno)));
  const int fd = ::fileno(f.get());
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  const std::size_t size_hint = ec ? 0 : static_cast<std::size_t>(size);
  HeaderCheck check(name);
  // The gzip magic bytes decide, whatever the name.
  char magic[2] = {0, 0};
  int err = 0;
  const std::size_t m = read_at(fd, magic, -1, 2, err);
  if (err != 0) throw IoError(fmt::format("{}: read error: {}", name, std::strerror(err)));
  const bool gzip = is_gzip(std::string_view(magic, m));
  if (m > 0 && ::lseek(fd, 0, SEEK_SET) < 0) {
    // Not seekable (a pipe): read it on, the two bytes in front.
    Text rest = read_plain(fd, name, 0, nullptr);
    std::string all(magic, m);
    all += rest.view();
    if (!gzip) {
      check(all, true);
      return Text(std::move(all));
    }
    return Text(gunzip(all, name, check));
  }
  if (!gzip) {
    try {
      return read_plain(fd, name, size_hint, &check);
    } catch (const IoError& e) {
      if (!ends_with_gz(name) || check.done()) throw;
      throw IoError(fmt::format(
          "{} (the name ends in .gz, but the file is not gzip data: it does not start with the "
          "gzip magic bytes 1f 8b)",
          e.what()));
    }
  }
  const Text raw = read_plain(fd, name, size_hint, nullptr);
  return Text(gunzip(raw.view(), name, check));
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

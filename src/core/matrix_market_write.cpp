// Matrix Market writer: text is produced in parallel blocks with
// std::to_chars and written in order, plain or through zlib.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <omp.h>

#include "common/first_error.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::io {
namespace {

/// A file being written, plain or gzip. Errors raise IoError naming the file;
/// a file that was not closed successfully is removed.
class Sink {
 public:
  explicit Sink(const std::filesystem::path& file) : path_(file), name_(file.string()) {
    const std::string ext = file.extension().string();
    gz_ = ext == ".gz" || ext == ".GZ";
    if (gz_) {
      gz_file_ = gzopen(file.c_str(), "wb6");
      if (gz_file_) gzbuffer(gz_file_, 1 << 18);
    } else {
      file_ = std::fopen(file.c_str(), "wb");
    }
    if (!gz_file_ && !file_)
      throw IoError(fmt::format("{}: cannot open for writing: {}", name_, std::strerror(errno)));
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    if (gz_file_ || file_) {  // not closed: an exception is propagating
      if (gz_file_) gzclose(gz_file_);
      if (file_) std::fclose(file_);
      remove_partial();
    }
  }

  void put(std::string_view s) {
    while (!s.empty()) {
      const std::size_t n = std::min<std::size_t>(s.size(), std::size_t{1} << 30);
      bool ok;
      if (gz_)
        ok = gzwrite(gz_file_, s.data(), static_cast<unsigned>(n)) == static_cast<int>(n);
      else
        ok = std::fwrite(s.data(), 1, n, file_) == n;
      if (!ok) throw IoError(fmt::format("{}: write error: {}", name_, error_text()));
      s.remove_prefix(n);
    }
  }

  void close() {
    int rc;
    if (gz_) {
      rc = gzclose(gz_file_) == Z_OK ? 0 : -1;
      gz_file_ = nullptr;
    } else {
      rc = std::fclose(file_);
      file_ = nullptr;
    }
    if (rc != 0) {
      const std::string why = std::strerror(errno);
      remove_partial();
      throw IoError(fmt::format("{}: write error on close: {}", name_, why));
    }
  }

 private:
  /// Removes what was written, if it is a regular file (never a device).
  void remove_partial() noexcept {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path_, ec)) std::filesystem::remove(path_, ec);
  }
  std::string error_text() {
    if (gz_) {
      int code = 0;
      const char* msg = gzerror(gz_file_, &code);
      return code == Z_ERRNO ? std::strerror(errno) : (msg ? msg : "?");
    }
    return std::strerror(errno);
  }

  std::filesystem::path path_;
  std::string name_;
  bool gz_ = false;
  gzFile gz_file_ = nullptr;
  FILE* file_ = nullptr;
};

template <Value T>
char* put_value(char* p, char* e, T v, int precision) {
  const auto r = precision > 0 ? std::to_chars(p, e, v, std::chars_format::general, precision)
                               : std::to_chars(p, e, v);
  return r.ptr;
}

/// Appends the text of entries [0, n) produced by `line(k, buffer) -> end`
/// to the sink, formatting blocks in parallel and writing them in order.
void write_blocks(Sink& sink, std::int64_t n,
                  const std::function<void(std::int64_t, std::int64_t, std::string&)>& block) {
  constexpr std::int64_t kBlock = 1 << 16;
  const int threads = omp_get_max_threads();
  const std::int64_t batch = 4 * static_cast<std::int64_t>(threads);
  std::vector<std::string> text(static_cast<std::size_t>(batch));
  for (std::int64_t b0 = 0; b0 * kBlock < n; b0 += batch) {
    const std::int64_t b1 = std::min(b0 + batch, (n + kBlock - 1) / kBlock);
    detail::FirstError err;  // a block's text may fail to grow
#pragma omp parallel for schedule(dynamic, 1) if (b1 - b0 > 1)
    for (std::int64_t b = b0; b < b1; ++b)
      err.run([&] {
        auto& out = text[static_cast<std::size_t>(b - b0)];
        out.clear();
        block(b * kBlock, std::min(n, (b + 1) * kBlock), out);
      });
    err.rethrow();
    for (std::int64_t b = b0; b < b1; ++b)
      sink.put(text[static_cast<std::size_t>(b - b0)]);
  }
}

void check_options(const MmWriteOptions& o) {
  if (o.precision < 0 || o.precision > 40)
    throw InvalidInput(fmt::format(
        "MmWriteOptions::precision = {} (expected 0..40 significant digits; 0: shortest exact)",
        o.precision));
  if (o.array && o.pattern)
    throw InvalidInput(
        "MmWriteOptions: 'pattern' and 'array' cannot be combined (the array "
        "format stores values)");
}

constexpr std::size_t kLine = 128;  // longest line: two int64 and one value

template <Value T, Index I>
void write_array(Sink& sink, const Csr<T, I>& A, const MmWriteOptions& o) {
  sink.put(fmt::format("%%MatrixMarket matrix array real general\n{} {}\n", A.rows(), A.cols()));
  const Csc<T, I> C = to_csc(A);
  const I* ptr = C.col_ptr().data();
  const I* idx = C.row_idx().data();
  const T* val = C.values().data();
  const std::int64_t rows = A.rows();
  std::int64_t total = 0;
  if (__builtin_mul_overflow(rows, static_cast<std::int64_t>(A.cols()), &total))
    throw InvalidInput(
        fmt::format("array output of a {} x {} matrix exceeds 64 bits", rows, A.cols()));
  // Entry k of the column-major order is (k % rows, k / rows).
  write_blocks(sink, total, [&](std::int64_t k0, std::int64_t k1, std::string& out) {
    out.reserve(static_cast<std::size_t>(k1 - k0) * 8);
    std::int64_t j = k0 / rows, i = k0 % rows;
    I p = std::lower_bound(idx + ptr[j], idx + ptr[j + 1], static_cast<I>(i)) - idx;
    char buf[kLine];
    for (std::int64_t k = k0; k < k1; ++k) {
      char* e = buf;
      if (p < ptr[j + 1] && idx[p] == i)
        e = put_value(buf, buf + kLine, val[p++], o.precision);
      else
        *e++ = '0';
      *e++ = '\n';
      out.append(buf, e);
      if (++i == rows) {
        i = 0;
        if (++j < A.cols()) p = ptr[j];
      }
    }
  });
}

void write_coordinate_header(Sink& sink, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                             const MmWriteOptions& o) {
  sink.put(fmt::format("%%MatrixMarket matrix coordinate {} general\n{} {} {}\n",
                       o.pattern ? "pattern" : "real", rows, cols, nnz));
}

/// One coordinate line: "i j [value]\n" (1-based).
template <Value T>
char* entry_line(char* buf, std::int64_t i, std::int64_t j, T v, const MmWriteOptions& o) {
  char* const end = buf + kLine;
  char* p = std::to_chars(buf, end, i + 1).ptr;
  *p++ = ' ';
  p = std::to_chars(p, end, j + 1).ptr;
  if (!o.pattern) {
    *p++ = ' ';
    p = put_value(p, end, v, o.precision);
  }
  *p++ = '\n';
  return p;
}

void write_file(const std::filesystem::path& file, const MmWriteOptions& o,
                const std::function<void(Sink&)>& body) {
  check_options(o);
  Sink sink(file);
  body(sink);
  sink.close();
}

}  // namespace

template <Value T, Index I>
void write(const std::filesystem::path& file, const Coo<T, I>& A, const MmWriteOptions& o) {
  spx::detail::require_host(A.space(), "Matrix Market write");
  check_options(o);
  if (o.array) {
    write(file, to_csr(A), o);
    return;
  }
  write_file(file, o, [&](Sink& sink) {
    write_coordinate_header(sink, A.rows(), A.cols(), A.nnz(), o);
    const I* r = A.row_idx().data();
    const I* c = A.col_idx().data();
    const T* v = A.values().data();
    write_blocks(sink, A.nnz(), [&](std::int64_t k0, std::int64_t k1, std::string& out) {
      out.reserve(static_cast<std::size_t>(k1 - k0) * 32);
      char buf[kLine];
      for (std::int64_t k = k0; k < k1; ++k)
        out.append(buf, entry_line(buf, r[k], c[k], v[k], o));
    });
  });
}

template <Value T, Index I>
void write(const std::filesystem::path& file, const Csr<T, I>& A, const MmWriteOptions& o) {
  spx::detail::require_host(A.space(), "Matrix Market write");
  write_file(file, o, [&](Sink& sink) {
    if (o.array) {
      write_array(sink, A, o);
      return;
    }
    write_coordinate_header(sink, A.rows(), A.cols(), A.nnz(), o);
    const I* ptr = A.row_ptr().data();
    const I* col = A.col_idx().data();
    const T* val = A.values().data();
    write_blocks(sink, A.nnz(), [&](std::int64_t k0, std::int64_t k1, std::string& out) {
      out.reserve(static_cast<std::size_t>(k1 - k0) * 32);
      // The row holding entry k0: the last row starting at or before it.
      std::int64_t row = std::upper_bound(ptr, ptr + A.rows() + 1, static_cast<I>(k0)) - ptr - 1;
      char buf[kLine];
      for (std::int64_t k = k0; k < k1; ++k) {
        while (ptr[row + 1] <= k)
          ++row;
        out.append(buf, entry_line(buf, row, col[k], val[k], o));
      }
    });
  });
}

#define SPX_INST(T, I)                                                      \
  template void write<T, I>(const std::filesystem::path&, const Coo<T, I>&, \
                            const MmWriteOptions&);                         \
  template void write<T, I>(const std::filesystem::path&, const Csr<T, I>&, const MmWriteOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::io

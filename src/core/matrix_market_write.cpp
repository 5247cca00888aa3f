// Matrix Market writer: text is produced in parallel blocks with
// std::to_chars and written in order, plain or through zlib.
#include <unistd.h>
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
#include "core/atomic_file.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::io {
namespace {

/// A file being written, plain or gzip, through an AtomicFile: the target is
/// replaced only when the whole file was written and closed without error.
/// Errors raise IoError naming the file; the temporary is then removed.
class Sink {
 public:
  explicit Sink(const std::filesystem::path& file) : file_(file) {
    const std::string ext = file.extension().string();
    if (ext == ".gz" || ext == ".GZ") {
      // zlib writes to a duplicate of the descriptor and closes it in gzclose;
      // the AtomicFile then flushes its own and renames.
      const int fd = ::dup(file_.fd());
      gz_ = fd >= 0 ? gzdopen(fd, "wb6") : nullptr;
      if (!gz_) {
        const int error = errno;
        if (fd >= 0) ::close(fd);
        throw IoError(fmt::format("{}: cannot open for writing: {}", file_.name(),
                                  error != 0 ? std::strerror(error) : "zlib cannot start"));
      }
      gzbuffer(gz_, 1 << 18);
    }
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    if (gz_) gzclose(gz_);  // not closed: an exception is propagating; file_ removes the rest
  }

  void put(std::string_view s) {
    if (!gz_) {
      file_.write(s);
      return;
    }
    while (!s.empty()) {
      const std::size_t n = std::min<std::size_t>(s.size(), std::size_t{1} << 30);
      if (gzwrite(gz_, s.data(), static_cast<unsigned>(n)) != static_cast<int>(n))
        throw IoError(fmt::format("{}: write error: {}", file_.name(), gz_error_text()));
      s.remove_prefix(n);
    }
  }

  /// Finishes the file and puts it in place of the target.
  void close() {
    if (gz_) {
      errno = 0;
      const int rc = gzclose(gz_);
      gz_ = nullptr;
      if (rc != Z_OK)
        throw IoError(fmt::format(
            "{}: write error on close: {}", file_.name(),
            rc == Z_ERRNO && errno != 0 ? std::strerror(errno) : "zlib could not finish the file"));
    }
    file_.commit();
  }

 private:
  std::string gz_error_text() {
    int code = 0;
    const char* msg = gzerror(gz_, &code);
    return code == Z_ERRNO ? std::strerror(errno) : (msg ? msg : "?");
  }

  spx::detail::AtomicFile file_;
  gzFile gz_ = nullptr;
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

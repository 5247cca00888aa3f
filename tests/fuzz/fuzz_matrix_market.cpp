// libFuzzer harness for the Matrix Market reader (and, on what it accepts,
// the writer). Any spx::Error is an accepted answer to bad input; anything
// else (a crash, a sanitizer report, another exception, or an inconsistency
// checked below) is a bug.
//
// Checks per input:
//  1. parse_coo<double, int32_t> with default options;
//  2. the same with tiny parse chunks on two threads: the same matrix, or the
//     same error message (chunking must not change the result or the line);
//  3. parse_coo<float, int64_t>, symmetry kept, non-finite values allowed;
//     and the strict reading (lower_triangle_only), which must accept a
//     subset of what (1) accepts and read it the same;
//  4. when (1) succeeds: write + read back gives the same entries exactly;
//  5. an input starting with the gzip magic bytes is also read from a file,
//     which runs the inflate path on corrupt and truncated streams.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "spx/core/error.hpp"
#include "spx/io/matrix_market.hpp"

namespace {

using Entries = std::vector<std::tuple<std::int64_t, std::int64_t, double>>;

template <spx::Value T, spx::Index I>
Entries entries_of(const spx::Coo<T, I>& A) {
  Entries out;
  out.reserve(static_cast<std::size_t>(A.nnz()));
  for (std::int64_t k = 0; k < A.nnz(); ++k)
    out.emplace_back(A.row_idx()[k], A.col_idx()[k], static_cast<double>(A.values()[k]));
  return out;
}

/// The matrix (rows, cols, entries), or the error message.
struct Outcome {
  bool ok = false;
  std::int64_t rows = 0, cols = 0;
  Entries entries;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

template <spx::Value T, spx::Index I>
Outcome run(std::string_view text, const spx::io::MmReadOptions& options) {
  Outcome o;
  try {
    const auto A = spx::io::parse_coo<T, I>(text, "fuzz.mtx", options);
    o.ok = true;
    o.rows = A.rows();
    o.cols = A.cols();
    o.entries = entries_of(A);
  } catch (const spx::Error& e) {
    o.error = e.what();
  }
  return o;
}

/// A scratch file, removed when the fuzzer exits.
struct TempFile {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("spx_fuzz_" + std::to_string(::getpid()) + ".mtx");
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  spx::io::MmReadOptions defaults;
  defaults.threads = 1;
  const Outcome a = run<double, std::int32_t>(text, defaults);

  spx::io::MmReadOptions chunked;
  chunked.threads = 2;
  chunked.chunk_bytes = 1 + size % 13;
  const Outcome b = run<double, std::int32_t>(text, chunked);
  if (!(a == b)) {
    std::fprintf(stderr, "chunked parse differs:\n  default: %s\n  chunked: %s\n",
                 a.ok ? "ok" : a.error.c_str(), b.ok ? "ok" : b.error.c_str());
    __builtin_trap();
  }

  // The strict reading (lower triangle only) accepts a subset of what the
  // default reading accepts, and reads it the same.
  spx::io::MmReadOptions strict = defaults;
  strict.lower_triangle_only = true;
  const Outcome s = run<double, std::int32_t>(text, strict);
  if (s.ok && !(s == a)) {
    std::fprintf(stderr, "strict reading differs: default %s\n", a.ok ? "ok" : a.error.c_str());
    __builtin_trap();
  }

  spx::io::MmReadOptions loose;
  loose.threads = 1;
  loose.expand_symmetry = false;
  loose.finite_only = false;
  run<float, std::int64_t>(text, loose);

  static const TempFile scratch;
  const std::filesystem::path& file = scratch.path;
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    if (FILE* f = std::fopen(file.c_str(), "wb")) {
      std::fwrite(data, 1, size, f);
      std::fclose(f);
      try {
        spx::io::read_coo<double, std::int32_t>(file, defaults);
      } catch (const spx::Error&) {
      }
    }
  }

  if (a.ok) {
    const auto A = spx::io::parse_coo<double, std::int32_t>(text, "fuzz.mtx", defaults);
    spx::io::write(file, A);
    const auto B = spx::io::read_coo<double, std::int32_t>(file, defaults);
    if (B.rows() != A.rows() || B.cols() != A.cols() || entries_of(B) != a.entries) {
      std::fprintf(stderr, "write + read changed the matrix\n");
      __builtin_trap();
    }
  }
  return 0;
}

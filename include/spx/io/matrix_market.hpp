// Matrix Market files: `coordinate` and `array`; real, integer, pattern;
// general, symmetric, skew-symmetric. `.gz` files are read and written
// directly. Complex (and hermitian) files raise Unsupported. Every malformed
// input raises IoError naming the file and the line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "spx/formats/coo.hpp"
#include "spx/formats/csr.hpp"

namespace spx::io {

enum class MmField : std::uint8_t { Real, Integer, Pattern, Complex };
enum class MmSymmetry : std::uint8_t { General, Symmetric, SkewSymmetric, Hermitian };

struct MmHeader {
  bool coordinate = true;  ///< false: `array` (dense, column-major)
  MmField field = MmField::Real;
  MmSymmetry symmetry = MmSymmetry::General;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;  ///< entries stored in the file
};

struct MmReadOptions {
  /// Symmetric and skew-symmetric files: mirror the stored triangle (true) or
  /// return it as stored (false; the header says which symmetry it had).
  bool expand_symmetry = true;
  /// Reject NaN and infinite values (IoError naming the line).
  bool finite_only = true;
  /// Worker threads for parsing (0: OpenMP's default).
  int threads = 0;
};

struct MmWriteOptions {
  /// Write the `array` format (dense) instead of `coordinate`.
  bool array = false;
  /// Write `pattern` (no values).
  bool pattern = false;
  /// Significant digits of values (17 round-trips double).
  int precision = 17;
};

/// Reads the banner and size line only.
MmHeader read_header(const std::filesystem::path& file);

/// Reads a file (`.gz` decompressed on the fly) into COO, entries in file
/// order (symmetric mirrors appended). `header`, when given, receives the header.
template <Value T, Index I>
Coo<T, I> read_coo(const std::filesystem::path& file, const MmReadOptions& options = {},
                   MmHeader* header = nullptr);
/// The same from text in memory; `name` is used in error messages.
template <Value T, Index I>
Coo<T, I> parse_coo(std::string_view text, std::string_view name = "<memory>",
                    const MmReadOptions& options = {}, MmHeader* header = nullptr);
/// read_coo followed by to_csr (sorted, duplicates summed).
template <Value T, Index I>
Csr<T, I> read_csr(const std::filesystem::path& file, const MmReadOptions& options = {});

/// Writes `general` files; a name ending in `.gz` is compressed.
template <Value T, Index I>
void write(const std::filesystem::path& file, const Coo<T, I>& A, const MmWriteOptions& options = {});
template <Value T, Index I>
void write(const std::filesystem::path& file, const Csr<T, I>& A, const MmWriteOptions& options = {});

}  // namespace spx::io

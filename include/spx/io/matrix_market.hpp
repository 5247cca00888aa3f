// Matrix Market files: `coordinate` and `array`; real, integer, pattern;
// general, symmetric, skew-symmetric. `.gz` files are read and written
// directly. Complex (and hermitian) files raise Unsupported. Every malformed
// input raises IoError whose message starts with "FILE:LINE: ".
//
// What the reader accepts (NIST Matrix Market format, strictly):
// - line 1 is the banner `%%MatrixMarket matrix FORMAT FIELD SYMMETRY`
//   (keywords case-insensitive); the field `pattern` is valid only in
//   `coordinate` files and never skew-symmetric;
// - after the banner, lines whose first non-blank character is `%` are
//   comments and blank lines are skipped, anywhere in the file;
// - the size line is `rows cols entries` (coordinate) or `rows cols` (array);
//   then one entry per line: `i j [value]` with 1-based indices, or one value
//   per line in column-major order (array). Anything else on a line, a
//   missing or extra entry, an index outside the matrix, a size that does not
//   fit the index type ("index overflow") is an IoError;
// - symmetric and skew-symmetric files store the lower triangle: an entry
//   above the diagonal is an error (it is not mirrored, because a file holding
//   both (i, j) and (j, i) would be double-counted); a skew-symmetric file
//   may not store a diagonal entry. Symmetric files must be square;
// - `array` files: the column-major values of the full matrix (general) or of
//   the lower triangle (symmetric: with the diagonal; skew: without); zero
//   values are not stored in the resulting sparse matrix;
// - values are parsed with std::from_chars (a leading '+' is accepted); with
//   `finite_only`, NaN, Inf and values out of the range of T are errors.
#pragma once

#include <cstddef>
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
  /// Bytes per parse chunk (0: automatic). Small values only serve tests and
  /// the fuzzer, to exercise the chunk boundaries on small inputs.
  std::size_t chunk_bytes = 0;
};

struct MmWriteOptions {
  /// Write the `array` format (dense) instead of `coordinate`.
  bool array = false;
  /// Write `pattern` (no values).
  bool pattern = false;
  /// Significant digits of values, 1..40 (17 round-trips double, 9 float);
  /// 0 writes the shortest text that reads back exactly.
  int precision = 17;
};

/// Keywords as written in the banner ("real", "skew-symmetric", ...).
std::string_view to_string(MmField f) noexcept;
std::string_view to_string(MmSymmetry s) noexcept;

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

/// Writes `general` files (`real`, or `pattern`), host matrices only; a name
/// ending in `.gz` is compressed. Coo entries are written in their order,
/// duplicates included; `array` writes the dense matrix column by column
/// (duplicates summed, absent entries as 0). The text goes to a temporary
/// file beside `file`, renamed over it only once written whole and flushed;
/// errors (a full disk, a missing folder, `file` a folder) raise IoError naming
/// the file, and leave an existing file as it was and no temporary. A device
/// (/dev/stdout) is written in place.
template <Value T, Index I>
void write(const std::filesystem::path& file, const Coo<T, I>& A,
           const MmWriteOptions& options = {});
template <Value T, Index I>
void write(const std::filesystem::path& file, const Csr<T, I>& A,
           const MmWriteOptions& options = {});

}  // namespace spx::io

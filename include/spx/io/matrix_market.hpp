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
// - symmetric and skew-symmetric files: the NIST format stores the lower
//   triangle, but many collections (networks, graphs) store the upper one or
//   both. SpX reads an off-diagonal entry from either triangle: (i, j) stands
//   for a(i, j) and its mirror a(j, i) (negated in a skew-symmetric file).
//   A pair stored in both triangles, (i, j) and (j, i), once each, is read
//   once when the two values are equal (skew-symmetric: opposite, a and -a);
//   different values, or more copies than one on either side, raise an
//   IoError naming the lines of the copies. (Other duplicates, within one
//   triangle, are kept as in a general file: to_csr sums them.) With
//   MmReadOptions::lower_triangle_only an entry above the diagonal is an
//   error instead (the strict reading). A skew-symmetric file may not store a
//   diagonal entry. Symmetric files must be square;
// - `array` files: the column-major values of the full matrix (general) or of
//   the lower triangle (symmetric: with the diagonal; skew: without); zero
//   values are not stored in the resulting sparse matrix;
// - values are parsed correctly rounded (fast_float when SpX was built with
//   it, else std::from_chars; a leading '+' is accepted); with
//   `finite_only`, NaN, Inf and values out of the range of T are errors;
// - line 1 holding a carriage return followed by text (CR-only line endings)
//   and a UTF-8 byte order mark are errors that say so;
// - the header (banner, then size line) is checked as soon as it is read,
//   before the rest of the file is read or inflated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "spx/formats/coo.hpp"
#include "spx/formats/csr.hpp"
#include "spx/formats/sym_csr.hpp"

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
  /// Symmetric and skew-symmetric files: mirror the stored entries (true) or
  /// return the lower triangle they define (false; entries stored above the
  /// diagonal are transposed into it, negated when skew-symmetric; the header
  /// says which symmetry the file had).
  bool expand_symmetry = true;
  /// Symmetric and skew-symmetric files: refuse an entry above the diagonal
  /// (IoError naming the line), as the NIST format defines them. Off by
  /// default: entries are read from either triangle (see above).
  bool lower_triangle_only = false;
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
/// order (symmetric mirrors appended; the copy above the diagonal of a pair
/// stored in both triangles left out). `header`, when given, receives the header.
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

/// The options read_sym_csr takes by default: lower_triangle_only, the NIST
/// reading of a symmetric file (an entry above the diagonal is an IoError
/// naming its line).
MmReadOptions sym_read_options();
/// Reads a file into SYM_CSR without expanding it (expand_symmetry is
/// ignored): a `symmetric` file's lower triangle and diagonal as stored
/// (duplicates summed; with lower_triangle_only false, entries above the
/// diagonal are read as their mirrors, see above); a `general` file through
/// to_sym_csr, which refuses (Unsupported) a matrix that is not symmetric. A
/// skew-symmetric file is Unsupported.
template <Value T, Index I>
SymCsr<T, I> read_sym_csr(const std::filesystem::path& file,
                          const MmReadOptions& options = sym_read_options());
/// The same from text in memory; `name` is used in error messages.
template <Value T, Index I>
SymCsr<T, I> parse_sym_csr(std::string_view text, std::string_view name = "<memory>",
                           const MmReadOptions& options = sym_read_options());

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

// Deterministic generators for the structural classes of the survey's test
// set. The same spec and seed give the same matrix on every machine and every
// thread count: every row (or tree node, or batch member) draws from its own
// counter-based random stream, and the decisions use IEEE arithmetic only
// (no libm transcendental functions, which differ between libm versions).
// Values are random and never zero: ±U[0.5, 1.5], or for stencils and FEM
// off-diagonal −U[0.5, 1.5] with a diagonal that dominates the row.
//
// Generators build CSR directly (count per row, prefix sum, fill), in parallel,
// in time linear in rows + nonzeros (plus the per-row sorts of the random
// classes). Sizes are checked against the index type before the large arrays
// are allocated ("index overflow" InvalidInput).
//
//   kind        parameters             rows      structure
//   stencil2d   n, points (5, 9)       n²        grid stencil, natural ordering
//   stencil3d   n, points (7, 27)      n³        grid stencil, natural ordering
//   fem         n, block (1..32)       n²·b      9-point node coupling, dense b×b blocks
//   random      n, degree              n         floor/ceil(degree) ± 1 distinct uniform columns
//   rmat        scale, degree          2^scale   R-MAT (.57,.19,.19,.05), degree·2^scale edges,
//                                                duplicates merged, labels scrambled
//   chunglu     n, degree              n         Chung–Lu, power-law row weights (capped at
//                                                n/4), over 25% empty rows
//   road        n                      n         perturbed planar grid, degree 2..4 (n ≥ 4),
//                                                symmetric, random numbering
//   banded      n, bands               n         diagonal + `bands` diagonals of short segments
//                                                within ±min(n−1, 4·bands)
//   denserows   n, degree, dense_rows  n         random background + completely dense rows
//   mixed       n                      n         economics-like: small blocks, medium runs,
//                                                about log2(n) long rows, scattered entries
//
// Stencils and FEM take symmetric=1 for symmetric values (the pattern is
// symmetric already), e.g. for the symmetric storage formats.
//
// Spec strings (CLI, benchmarks): "stencil3d:n=64,points=27,seed=3".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spx/formats/csr.hpp"

namespace spx {

enum class Generator : std::uint8_t {
  Stencil2d,  ///< n×n grid, 5 or 9 points
  Stencil3d,  ///< n×n×n grid, 7 or 27 points
  Fem,        ///< n×n node grid, 9-point node coupling, each coupling a dense b×b block
  Random,     ///< n rows, `degree` uniformly random columns per row
  Rmat,       ///< R-MAT / Kronecker, Graph500 parameters (a,b,c) = (.57,.19,.19), 2^scale rows
  ChungLu,    ///< power-law expected degrees: a few huge rows, many empty rows
  Road,       ///< planar road-network-like graph (degree 2..4), random numbering
  Banded,     ///< short diagonal segments within a band
  DenseRows,  ///< sparse background plus a few completely dense rows
  Mixed,      ///< economics-like: rows of very different lengths and structure
};

/// Every generator, in declaration order.
std::span<const Generator> all_generators() noexcept;

struct GenSpec {
  Generator kind = Generator::Stencil2d;
  std::int64_t n = 64;  ///< grid side (stencils, FEM) or number of rows
  int points = 5;       ///< stencil points: 5 or 9 (2D), 7 or 27 (3D)
  int block = 2;        ///< FEM block size b, 1..32
  double degree = 8;    ///< mean nonzeros per row (Random, ChungLu, Rmat edge factor, ...)
  int scale = 12;       ///< R-MAT: 2^scale rows, 0..40
  int bands = 8;        ///< Banded: number of segmented diagonals besides the main one
  int dense_rows = 4;   ///< DenseRows: number of completely dense rows
  std::uint64_t seed = 1;
  /// Stencils and FEM: symmetric values (a_ij = a_ji, still diagonally
  /// dominant with a positive diagonal); spec key symmetric=1, name suffix -sym.
  bool symmetric = false;
};

/// Defaults that suit `kind` (e.g. 7 points for Stencil3d, 10000 rows for the
/// row-count generators).
GenSpec default_gen_spec(Generator kind);

/// Throws InvalidInput, naming the parameter, when `spec` is out of range.
/// (generate() calls it; index-type overflow is checked there.)
void validate(const GenSpec& spec);

/// Generates a CSR matrix (sorted, no duplicates). Throws InvalidInput for
/// parameters out of range and for sizes that overflow I.
template <Value T, Index I>
Csr<T, I> generate(const GenSpec& spec);

/// A short stable name, e.g. "stencil3d-27pt-n64", "fem-b3-n100",
/// "rmat-s16-d16"; "-seed<k>" is appended when the seed is not 1.
std::string describe(const GenSpec& spec);
std::string_view to_string(Generator g) noexcept;
/// One line for people, e.g. for `spx gen --help`.
std::string_view description(Generator g) noexcept;
/// Case-insensitive; InvalidInput listing the kinds for an unknown name.
Generator parse_generator(std::string_view name);

/// Parses "KIND" or "KIND:key=value,key=value", e.g.
/// "stencil3d:n=64,points=27,seed=3". Unset keys take default_gen_spec(KIND).
/// Keys per kind: the parameters of the table above, plus `seed`. An unknown
/// or repeated key, or a malformed value, raises InvalidInput (listing the
/// accepted keys); the result is validated.
GenSpec parse_gen_spec(std::string_view text);
/// The keys parse_gen_spec accepts for `kind`, e.g. {"n", "points", "seed"}.
std::vector<std::string_view> gen_spec_keys(Generator kind);

/// A batch of small matrices of mixed size (rows uniform in [min_rows,
/// max_rows]) and pattern (stencil, random, banded members mixed).
///
/// Mixed (uniform = false): matrix k draws its row count and its pattern from
/// {5- and 9-point stencil on a (truncated) grid, random, banded, road}.
/// Uniform: one row count (drawn once from the range) and one pattern for all
/// matrices; only the values differ between matrices.
struct BatchSpec {
  std::int64_t count = 1000;
  std::int64_t min_rows = 11;
  std::int64_t max_rows = 1024;
  double degree = 8;     ///< mean nonzeros per row
  bool uniform = false;  ///< true: every matrix has one size and one pattern
  std::uint64_t seed = 1;
};
template <Value T, Index I>
std::vector<Csr<T, I>> generate_batch(const BatchSpec& spec);

/// Throws InvalidInput, naming the parameter, when `spec` is out of range.
void validate(const BatchSpec& spec);
/// E.g. "batch-c1000-r11-1024-d8", "ubatch-c1000-r11-1024-d8" (uniform).
std::string describe(const BatchSpec& spec);

}  // namespace spx

// Deterministic generators for the structural classes of the survey's test
// set. The same spec and seed give the same matrix on every machine; values
// are drawn at random (never all zero).
#pragma once

#include <cstdint>
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

struct GenSpec {
  Generator kind = Generator::Stencil2d;
  std::int64_t n = 64;   ///< grid side (stencils, FEM) or number of rows
  int points = 5;        ///< stencil points: 5 or 9 (2D), 7 or 27 (3D)
  int block = 2;         ///< FEM block size b
  double degree = 8;     ///< mean nonzeros per row (Random, ChungLu, Rmat edge factor, ...)
  int scale = 12;        ///< R-MAT: 2^scale rows
  int bands = 8;         ///< Banded: number of segmented diagonals
  std::uint64_t seed = 1;
};

/// Generates a CSR matrix (sorted, no duplicates). Throws InvalidInput for
/// parameters out of range and for sizes that overflow I.
template <Value T, Index I>
Csr<T, I> generate(const GenSpec& spec);

/// A short stable name, e.g. "stencil3d-27pt-n64".
std::string describe(const GenSpec& spec);
std::string_view to_string(Generator g) noexcept;
Generator parse_generator(std::string_view name);

/// A batch of small matrices of mixed size (rows uniform in [min_rows,
/// max_rows]) and pattern (stencil, random, banded members mixed).
struct BatchSpec {
  std::int64_t count = 1000;
  std::int64_t min_rows = 11;
  std::int64_t max_rows = 1024;
  double degree = 8;  ///< mean nonzeros per row
  bool uniform = false;  ///< true: every matrix has one size and one pattern
  std::uint64_t seed = 1;
};
template <Value T, Index I>
std::vector<Csr<T, I>> generate_batch(const BatchSpec& spec);

}  // namespace spx

// Formats, algorithms and operations as enums with name functions. Strings are
// for people (CLI, JSON); code compares enums.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace spx {

/// Storage formats (survey §2 and §4; BCSR paper).
enum class Format : std::uint8_t {
  Coo,
  Csr,
  Csc,
  Ell,       ///< ELLPACK-R: column-major, padded to the longest row, with row lengths
  Sell,      ///< SELL-C-σ / SELL-P: slices of C rows sorted within windows of σ rows
  Hll,       ///< Hacked ELLPACK: one ELL per hack of H rows
  Dia,       ///< diagonals with offsets
  Hdi,       ///< Hacked DIA: one DIA per hack of rows
  Hyb,       ///< ELL part plus COO remainder
  Jad,       ///< jagged diagonals
  Bcsr,      ///< square b×b blocks, column-major inside each block
  SellPack,  ///< SELL-C-σ with 16-bit column offsets per slice (32-bit fallback slices)
  /// SELL with its values in reduced precision (float for f64, bfloat16 for
  /// f32): opt-in (sell_lp.hpp)
  SellLp,
  /// symmetric: CSR of the lower triangle and the diagonal, applied twice
  SymCsr,
  /// symmetric: the diagonals of offset <= 0 (DIA of the lower triangle and
  /// the diagonal), each value applied twice
  SymDia,
  /// DIA with its values in reduced precision (float for f64, bfloat16 for
  /// f32): opt-in (dia_lp.hpp)
  DiaLp,
};

inline constexpr std::array kAllFormats{
    Format::Coo,    Format::Csr,    Format::Csc,    Format::Ell,  Format::Sell, Format::Hll,
    Format::Dia,    Format::Hdi,    Format::Hyb,    Format::Jad,  Format::Bcsr, Format::SellPack,
    Format::SellLp, Format::SymCsr, Format::SymDia, Format::DiaLp};

/// Kernel variants. One enum for all formats; each kernel is registered with
/// the (format, algorithm, backend) it implements, so names repeat meaningfully
/// across formats (e.g. `ThreadPerRow` for ELL and HLL).
enum class Algorithm : std::uint8_t {
  Auto,  ///< let SpX choose from the matrix statistics; the choice is reported

  // ---- CPU (OpenMP) ----
  CpuMerge,     ///< CSR: equal shares of rows + nonzeros per thread (merge path)
  CpuRows,      ///< thread per block of rows (formats with row structure)
  CpuSegments,  ///< sorted COO: equal nonzeros per thread, carry-out fix-up
  CpuPrivate,   ///< CSC, unsorted COO: scatter into per-thread copies of y, then sum
  CpuAtomic,    ///< CSC, unsorted COO: scatter with atomic updates (no extra memory)

  // ---- GPU CSR (batched paper §3.3–3.5, SpMM paper §4) ----
  Scalar,        ///< thread per row
  Vector,        ///< warp per row
  Adaptive,      ///< "smart": threads per row = next power of two of mean row length
  Balanced,      ///< CSR-I: equal nonzeros per warp, precomputed starting rows
  MergePath,     ///< Merrill–Garland merge path with carry-out fix-up
  Binned,        ///< short rows in place, longer rows listed per warp, giant rows split
  NonzeroSplit,  ///< equal nonzeros per thread (16-byte loads), row starts marked in shared memory
  SizedBlocks,   ///< batched CSR: work sized per matrix (small ones packed per block, large split)

  // ---- GPU COO ----
  Segmented,  ///< nonzeros split evenly, warp segmented reduction

  // ---- ELL / HLL / SELL / DIA / HDI / JAD / HYB ----
  ThreadPerRow,
  TwoThreadsPerRow,
  ThreadsPerRow,  ///< SELL-P: several threads per row
  Diagonal,       ///< DIA / HDI: diagonals streamed
  Jagged,         ///< JAD: thread per permuted row
  Hybrid,         ///< HYB: ELL kernel + COO kernel

  // ---- BCSR (BCSR paper) ----
  BlockByBlock,    ///< block row per warp, by block (b ≤ 5)
  BlockByColumn,   ///< block row per warp, by column (b ≤ 32)
  BlockRowShared,  ///< row per thread, x staged in shared memory (b ≥ 16)
  BlockSubWarp,    ///< a sub-warp (4, 8 or 16 lanes) per block row (b ≤ 4)
  CpuBlockRows,    ///< CPU: thread per block row, compile-time block size

  // ---- SpMM (Yang, Buluç, Owens) ----
  RowSplit,
  MergeBased,
  RowPanel,  ///< CSR, n > 16: a warp per panel of R rows over the union of their columns

  // ---- GPU CSC ----
  ColumnScatter,  ///< lanes per column scatter its products into y with atomics
  Transposed,     ///< rows gathered through a cached transposition of the pattern (deterministic)
};

/// Algorithm values from kFirstExternalAlgorithm up are not SpX's: they name
/// kernels registered from outside the library through Registry::extend (the
/// benchmark's cuSPARSE, cuBLAS and Eigen baselines, target spx_baselines),
/// which names them with name_external_algorithm. Auto never resolves to one.
inline constexpr std::uint8_t kFirstExternalAlgorithm = 128;
constexpr Algorithm external_algorithm(std::uint8_t i) noexcept {
  return static_cast<Algorithm>(kFirstExternalAlgorithm + i);
}
constexpr bool is_external(Algorithm a) noexcept {
  return static_cast<std::uint8_t>(a) >= kFirstExternalAlgorithm;
}
/// Gives an external algorithm the name to_string prints and parse_algorithm
/// accepts. Throws InvalidInput for a built-in value or a name in use by
/// another algorithm; naming the same value again with the same name is a
/// no-op.
void name_external_algorithm(Algorithm a, std::string_view name);

/// Operations a kernel can implement.
enum class Op : std::uint8_t { Spmv, Spmm, BatchSpmv };

std::string_view to_string(Format f) noexcept;
std::string_view to_string(Algorithm a) noexcept;
std::string_view to_string(Op o) noexcept;

/// Parse a name as printed by to_string (case-insensitive). Throws
/// InvalidInput listing the accepted names.
Format parse_format(std::string_view name);
Algorithm parse_algorithm(std::string_view name);
Op parse_op(std::string_view name);

/// Every built-in algorithm, in declaration order (for help texts and
/// enumeration); external ones are not listed.
std::span<const Algorithm> all_algorithms() noexcept;

}  // namespace spx

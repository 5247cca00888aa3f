// CUDA SpMV for the diagonal and blocked formats: DIA and HDI (dia.cu,
// hdi.cu), BCSR with the BCSR paper's three GPU algorithms (bcsr.cu), and
// their registration (register_blocked.cu).
// A launcher sees a device matrix with rows > 0, nnz > 0 and alpha != 0,
// enqueues its kernel on ctx.stream and returns without synchronizing; with
// beta == 0 it never reads y. Every kernel here is deterministic (fixed
// summation order, no atomics). No fmt here: .cu files include this header.
#pragma once

#include <string>

#include "spx/matrix.hpp"
#include "spx/registry.hpp"

namespace spx::cuda {

// ---- DIA (dia.cu) -------------------------------------------------------------

/// Thread per row; the row's diagonals are streamed 8 at a time with
/// independent loads (values and x through the read-only path).
template <Value T, Index I>
void spmv_dia(T alpha, const Dia<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// DIA-LP: DIA's kernel over the reduced-precision values, widened in registers.
template <Value T, Index I>
void spmv_dia_lp(T alpha, const DiaLp<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// ---- SYM_DIA (sym_dia.cu) -----------------------------------------------------

/// Thread per row over the diagonals of offset <= 0, each read for its
/// stored and its mirrored part, 4 diagonals at a time with independent
/// loads (values cached: the mirrored read hits the L2). No atomics.
template <Value T, Index I>
void spmv_sym_dia(T alpha, const SymDia<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// ---- HDI (hdi.cu) -------------------------------------------------------------

/// Thread per row, the rows of a hack consecutive (a warp per hack for the
/// default hack of 32 rows); each thread streams its hack's diagonals.
template <Value T, Index I>
void spmv_hdi(T alpha, const Hdi<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// ---- BCSR (bcsr.cu) -----------------------------------------------------------

/// Block row per warp, by block: lane = (slot, c, r) within 32 / b² whole
/// blocks (b ≤ 5). Compile-time b for 2, 3, 4; runtime b for 1 and 5.
template <Value T, Index I>
void spmv_bcsr_by_block(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// Block row per warp, by column: lane = (column, r) within floor(32 / b)
/// whole block columns (any b ≤ 32). Compile-time b for 2, 3, 4, 6, 8, 16, 32.
template <Value T, Index I>
void spmv_bcsr_by_column(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext&);
/// Row per thread, a group of 16 (b = 16) or 32 lanes per block row, the
/// x entries of each block staged in shared memory (b ≥ 16). Compile-time b
/// for 16 and 32.
template <Value T, Index I>
void spmv_bcsr_row_shared(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                          const ExecContext&);

/// A group of S = 4, 8 or 16 lanes per block row (b ≤ 4), S rounded down to
/// a multiple of b and the groups packed in the warp; compile-time b = 1..4.
/// S from bcsr_sub_warp_lanes (the mean blocks per block row).
template <Value T, Index I>
void spmv_bcsr_sub_warp(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// spmv_bcsr_sub_warp with S = `lanes` given (4, 8 or 16; else InvalidInput):
/// for tests and measurements of each S.
template <Value T, Index I>
void spmv_bcsr_sub_warp_with(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                             const ExecContext&, int lanes);

/// The knob of block_sub_warp: lanes per block row (4, 8 or 16) for block
/// size b (1..4) and a mean of `mean_blocks_per_row` blocks per block row
/// (documented in bcsr.cu).
int bcsr_sub_warp_lanes(double mean_blocks_per_row, int b);

/// Why `algorithm` (BlockByBlock, BlockByColumn, BlockRowShared or
/// BlockSubWarp) cannot run with block size b; empty when it can.
std::string bcsr_refusal(Algorithm algorithm, int b);

/// The Auto rule for device BCSR, by block size (documented in bcsr.cu and
/// docs/architecture.md): b ≤ 3 → BlockSubWarp; b = 4 → BlockByBlock;
/// 5 ≤ b < 24 → BlockByColumn; b ≥ 24 → BlockRowShared.
Algorithm choose_bcsr(int b);

}  // namespace spx::cuda

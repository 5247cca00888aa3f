// The CUDA SpMM kernels as the registry and the baselines see them: host
// functions that validate nothing (the dispatcher did), launch on the
// context's stream and check every launch. No fmt here (nvcc includes it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/kernels.hpp"
#include "spx/core/array.hpp"
#include "spx/core/view.hpp"
#include "spx/formats/csr.hpp"
#include "spx/registry.hpp"

namespace spx::cuda {

/// Mean row length below which Auto picks the merge-based kernel for n ≤ 16.
/// The paper measured 9.35 on a K40c (Yang, Buluç, Owens, §5.4); on the H100
/// (f64, n = 8) merge-based was faster on the regular members with 3.5-9
/// nonzeros per row, row split on those with 10 and ≥ 26 (FEM b = 2, 18 per
/// row, is the one regular member that no mean-length threshold places
/// right), so the paper's value stands for narrow B when the matrix is larger
/// than the L2 cache. Below kSpmmMergeCachedThreshold it holds for every size.
inline constexpr double kSpmmMergeThreshold = 9.35;

/// Mean row length below which merge-based wins at n ≤ 16 also on matrices
/// that fit in the L2 cache: on the H100 suite (session 11) the cache-resident
/// 7- and 9-point stencils (7 and 9 per row) were 1.09-1.27x faster with row
/// split, the 5-point ones and the road networks (2.7-5) with merge-based.
inline constexpr double kSpmmMergeCachedThreshold = 5.5;

/// Mean row length below which merge-based's vector groups (f32, n ≤ 32)
/// beat row split: H100, session 15 (spmm-groups-*-s15-*), at n = 32 the
/// 4- and 8-band matrices (2.2 and 3.5 per row) and the road network (2.7)
/// ran 1.03-1.14× faster with merge-based than with row split's row groups;
/// luxembourg (2.1) goes to row panel before this rule.
inline constexpr double kSpmmMergeGroupsMean = 4.0;

/// The CUDA Auto rule for SpMM, from the H100 benchmark over the whole
/// default suite (session 11, bench/results/spmm-suite-*):
///  0. few rows (rows × 32 lanes within one wave of the GPU) and none over
///     1024 entries: row split. Such products are latency bound, and a warp
///     per row has the shortest chain of dependent loads: on the real
///     matrices of up to ~7000 rows row split was 2-4.6x faster than
///     merge-based at n = 8 and 1.1-1.95x faster than row panel at n ≥ 32
///     (the same rule as CSR SpMV's first);
///  1. irregular rows (irregular_rows, the CSR SpMV test): merge-based,
///     whose equal shares of nonzeros are the only balanced split;
///  1b. n ≤ 16 where row split takes row groups (`row_groups`:
///     spmm_row_groups, a group of lanes per row): row split, 1.26-3.85×
///     faster than merge-based on every regular member measured (H200,
///     session 30; kRowGroupsMean);
///  2. merge_groups (merge-based takes vector groups at this n,
///     spmm_vector_groups) and mean < kSpmmMergeGroupsMean: merge-based;
///     n ≤ 16 and mean < kSpmmMergeCachedThreshold, or mean <
///     kSpmmMergeThreshold on a matrix larger than the L2 cache:
///     merge-based (the narrow row split leaves most of a warp's slots idle
///     on short rows);
///  3. otherwise row split, which for n > 16 takes short rows in groups
///     (row_block_tile32) and was faster than merge-based on every regular
///     member at n = 64.
/// The registered rule (register_spmm.cu) puts the row panel kernel between
/// 1 and 2: for n > 16 and rows not irregular, row panel where
/// panel_plan(A, n).worth_it (panel_worth_it: consecutive rows sharing most
/// columns, as FEM and 27-point stencils, or short rows sharing some, as the
/// 5-point stencil; a large share when the panels are too few to fill the
/// GPU). few_rows is rule 0's test, few_rows(rows, longest) of kernels.hpp
/// (CSR SpMV's first rule), taken by the caller.
inline Algorithm choose_spmm(double mean_row, std::int64_t max_row, std::int64_t n, bool few_rows,
                             bool fits_l2, bool merge_groups = false, bool row_groups = false) {
  if (few_rows) return Algorithm::RowSplit;
  if (irregular_rows(mean_row, max_row)) return Algorithm::MergeBased;
  if (n <= 16 && row_groups) return Algorithm::RowSplit;
  if (merge_groups && mean_row < kSpmmMergeGroupsMean) return Algorithm::MergeBased;
  if (n <= 16 &&
      (mean_row < kSpmmMergeCachedThreshold || (mean_row < kSpmmMergeThreshold && !fits_l2)))
    return Algorithm::MergeBased;
  return Algorithm::RowSplit;
}

/// Row split (paper §4.1): a warp per row. n > 16: each warp covers a tile
/// of 32, 64 or 128 columns of B (gridDim.y tiles; 8- or 16-byte vectors per
/// lane when B and C are row-major and aligned), the row's column indices and values are
/// broadcast by warp shuffle, B rows are read and C rows written coalesced
/// (row-major); rows of at most 20 nonzeros on average are taken in groups
/// of consecutive rows per warp (about 64-128 nonzeros a group). n ≤ 16:
/// the warp splits into 32/W slots of W = next power of two ≥ n lanes;
/// slots stride over the row's nonzeros and are summed by shuffles, so lanes
/// are not left idle; so do slots of W = 8 or 16 lanes of 16-byte vectors
/// where spmm_vector_groups says so (f32 n ≤ 64, f64 n ≤ 32). n ≤ 16 on a
/// large matrix of short rows with row-major, aligned B and C
/// (spmm_row_groups): a group of W lanes of 16-byte vectors per row instead
/// (f32 n = 8: two lanes of 4 floats a row, 16 rows a warp).
template <Value T, Index I>
void spmm_csr_row_split(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                        const ExecContext& ctx);

/// Merge-based (paper §4.2): equal nonzeros per unit (a warp, or a group of W
/// lanes when n ≤ 16 or with vector groups), the first row of every unit found once by a partition
/// kernel and kept in A.structure_cache(); a unit writes the rows that start
/// in its range and saves the partial row it starts inside as a carry-out,
/// added by a fix-up kernel.
template <Value T, Index I>
void spmm_csr_merge_based(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                          const ExecContext& ctx);

/// Empty when the kernels can launch for this shape: the grid limits, and a
/// row-major B's row stride within 2^31 - 1 bytes when B has more than one
/// row (the kernels address row i as a per-lane pointer + i × an int stride).
template <Value T, Index I>
std::string spmm_csr_can_run(const Csr<T, I>& A, const SpmmShape& shape);

// ---- row panel (spmm_panel.cu) ----------------------------------------------

/// The cached row panels of A (RowPanels, cache_entries.hpp) for R ∈ {2, 4,
/// 8} (InvalidInput otherwise); A in device memory. Built on ctx.stream on
/// first use (and waited for).
template <Value T, Index I>
const RowPanels<I>& row_panels(const Csr<T, I>& A, int R, const ExecContext& ctx);

/// The row panel rule (panel_worth_it), from the H200 benchmark at n = 64
/// (session 5, bench/results/), extended on the H100 in session 13: the
/// panel kernel is worth it when its estimated traffic is below
/// kPanelWorthIt of CSR's (FEM, 9- and 27-point stencils: 1.2-2.0× row
/// split), or below kPanelNearRatio of it on rows of kPanelMinMean to
/// kPanelMaxMean nonzeros on average, where R rows per warp keep more loads
/// of B in flight even without reuse (7-point stencil and random-d10: 3-23%
/// faster than row split). Below kPanelMinMean session 5 found the 5-point
/// stencil and banded (3.5-5 per row) up to 48% slower on the H200; the
/// H100 runs of session 12 separate them by the estimate (kPanelShortRatio).
/// Every test but kPanelFewWarpsRatio's assumes the kernel fills the GPU.
inline constexpr double kPanelWorthIt = 0.6;
inline constexpr double kPanelNearRatio = 1.1;
inline constexpr double kPanelMinMean = 6.0;
inline constexpr double kPanelMaxMean = 16.0;

/// Rows shorter than kPanelMinMean on average: row panel when its estimate
/// is below kPanelShortRatio of CSR's: there the kernel paid only where the
/// union saved rows of B, not at parity (why was not profiled; row split
/// takes such rows in groups of about 64-128 nonzeros a warp, spmm_csr.cu,
/// and the estimate leaves out the masks and the staged values, which weigh
/// most on short rows). H100, session 12 suite runs
/// (bench/results/spmm-suite-NVIDIA-H100-20261127-s12-9a0f020-*-rest.json.gz),
/// replayed in session 13 (bench/profile/spmm_rule_replay.py with
/// bench/results/spmm-rule-stats-H100-20261127-s13-2befcc2.csv), n = 32-128,
/// both precisions: the 5-point stencil (5 per row, estimate 0.69-0.76 of
/// CSR's) and luxembourg (2.1 per row, 0.74-0.87) ran at 0.76-1.01× row
/// split's time; banded b = 8 (3.5 per row, 0.95-1.03), the road network
/// (2.7, ≥ 1.0) and banded-n9000000 (2.2, 0.97-1.01) at 0.88-1.70×. Every
/// value from 0.875 to 0.945 picks the same kernels on that suite (0.85 to
/// 1.0 as many within 5% of the fastest). With the rule in place (H100,
/// session 13, bench/results/spmm-rule-*-s13-2146cab.json.gz) the changed
/// picks ran 0.996-1.32x faster than the old ones in the same run.
inline constexpr double kPanelShortRatio = 0.9;

/// When the kernel's warps fit one wave of the device (few_warps of
/// row_panel_warps: panels × column tiles × 32 lanes within the resident
/// threads), row panel only when its estimate is below kPanelFewWarpsRatio of
/// CSR's, whatever the rows' length. A hypothesis, not profiled: with fewer
/// warps than the GPU holds the SMs keep fewer loads of B in flight than row
/// split, which keeps at least 32 warps per SM where the rows allow
/// (spmm_csr.cu; a warp per row on the 27-point stencil: 39304 warps), and
/// only a large cut in traffic pays for that. H100, session 12 suite runs,
/// replayed in session 13 (the files of kPanelShortRatio): the 27-point
/// stencil in f32 (R = 8: 4913 panels of 39304 rows, estimate 0.44-0.51) ran
/// at 1.05-1.20× row split's time for n = 32-128 (in f64, R = 4, 9826 panels,
/// more than a wave: 0.87-0.97×), and crack in f32 at n = 64, 128 (R = 8:
/// 1280 panels, 0.85-0.89) at 1.22-1.42×; FEM b = 2, 3, 6 in f32 (R = 8,
/// 2269-7225 panels, 0.18-0.30) and b = 6 in f64 (R = 4, 4538 panels,
/// 0.29-0.30) at 0.47-0.90×. Every value from 0.31 to 0.44 picks the same
/// kernels on that suite. Crack with R = 4 (2560 panels, 0.87-0.93) ran at
/// 0.81-1.05× and is left to row split by this test (measured with the rule
/// in place: see kPanelShortRatio).
inline constexpr double kPanelFewWarpsRatio = 0.4;

/// The largest R·sizeof(T) the plan takes: a union entry's R values are
/// staged and held per lane, and f64 at R = 8 (64 bytes) needed up to 128
/// registers and ran 8-25% slower than R = 4 on FEM b = 2, 3 and the 9- and
/// 27-point stencils (4% faster only on FEM b = 6).
inline constexpr std::size_t kPanelMaxValueBytes = 32;

/// Warps of the row panel kernel: ⌈rows / R⌉ panels × the column tiles of
/// width n (with_lane_tile, spmm_tile.cuh: tiles of 32 columns up to n = 32,
/// of 64 up to 64, else of 128).
inline std::int64_t row_panel_warps(std::int64_t rows, int R, std::int64_t n) {
  const std::int64_t tile = n <= 32 ? 32 : n <= 64 ? 64 : 128;
  return (rows + R - 1) / R * ((n + tile - 1) / tile);
}

/// The row panel rule from the plan's numbers: `ratio` the estimate of the
/// best R over CSR's, `mean_row` the mean row length, `few_warps` whether
/// the kernel's warps (row_panel_warps) fit one wave of the device.
///  - few warps: ratio < kPanelFewWarpsRatio;
///  - else: ratio < kPanelWorthIt, or ratio < kPanelNearRatio with mean_row
///    in [kPanelMinMean, kPanelMaxMean], or ratio < kPanelShortRatio with
///    mean_row < kPanelMinMean.
inline bool panel_worth_it(double ratio, double mean_row, bool few_warps) {
  if (few_warps) return ratio < kPanelFewWarpsRatio;
  return ratio < kPanelWorthIt ||
         (ratio < kPanelNearRatio && mean_row >= kPanelMinMean && mean_row <= kPanelMaxMean) ||
         (ratio < kPanelShortRatio && mean_row < kPanelMinMean);
}

/// Where row split takes vector groups (spmm_vector_groups) the panels must
/// save more: the near-parity test goes (the groups keep as many loads of B
/// in flight as R rows a warp), and at ratio ≥ kPanelGroupsRatio the
/// reuse test holds only on rows of fewer than kPanelGroupsMean nonzeros on
/// average. H100, session 15 (spmm-rest-*-s15-4ec2e3f, spmm-large-*-s15-*):
/// row split's groups over row panel's time, f32 at n = 32 and 64, 7-point
/// stencil (estimate 0.82-0.85) 1.01-1.07, random-d10 (≈ 1.0) 0.70-0.98,
/// 27-point stencil (0.46-0.51, 26 a row) 0.61-0.86; 9-point stencil (0.46-
/// 0.50, 9 a row) 1.06-1.28 and FEM (0.25-0.30) 0.88-1.56 stay with the
/// panels; f64 at n = 32 the 27-point stencils 0.97-1.03.
inline constexpr double kPanelGroupsRatio = 0.4;
inline constexpr double kPanelGroupsMean = 20.0;

inline bool panel_beats_groups(double ratio, double mean_row, bool few_warps) {
  if (few_warps) return ratio < kPanelFewWarpsRatio;
  return (ratio < kPanelWorthIt && (ratio < kPanelGroupsRatio || mean_row < kPanelGroupsMean)) ||
         (ratio < kPanelShortRatio && mean_row < kPanelMinMean);
}

/// Warps per (row, column tile) of CSR SpMM's row split: K warps of a
/// block share a row, each taking a contiguous chunk of its steps (a warp's
/// nonzeros per step: `step`, 32 for the tiles of n > 16, 4·32/W for groups
/// of W lanes, n ≤ 16 or vector groups), and meet in shared memory. For matrices too small to fill
/// the GPU the product is latency bound: its time is about the longest
/// row's chain of dependent steps, and K warps cut that chain K times at no
/// cost in waves. So, when the longest row has at least `min_steps` steps,
/// K is the smallest power of two ≥ its steps, at most 4, while rows × tiles
/// × K warps fit the warps of the K-warp kernel the GPU holds at once
/// (`resident2`, `resident4`); else 1. H100, session 14
/// (bench/results/spmm-parts-*-s14-*, spmm-narrow-*-s14-*), on small real
/// matrices:
///  - n > 16 (min_steps 2): where rows are longer than 32 (bp_1600, ex2,
///    usair97, bcsstk02, fs_183_3) K = 4 ran 1.2-2.3× faster than one warp
///    a row, fidapex6 (1651 rows, longest 62) 1.1-1.2× with K = 2; where K
///    warps a row would overflow a wave (mhd4800a, 4800 rows of up to 33:
///    1.3× slower; bcsstk13 at n = 128 in f64: 1.1× slower) or rows fit one
///    step (west0989, cell1, crack) they did not pay;
///  - n ≤ 16 (min_steps 4): K = 4 ran 1.04-2.8× faster where the longest row
///    had 4 or more steps (bp_1600 at n = 8: 27.6 → 10.3 µs in f64), but
///    0.89-1.28× at 3 steps (f32 the losses, f64 the gains) and 0.85-1.10×
///    with K = 2 at 2 steps.
inline int row_split_parts(std::int64_t rows, std::int64_t tiles, std::int64_t max_len,
                           std::int64_t step, std::int64_t min_steps, std::int64_t resident2,
                           std::int64_t resident4) {
  const std::int64_t steps = (max_len + step - 1) / step;
  if (steps < min_steps) return 1;
  if (steps >= 3 && rows * tiles * 4 <= resident4) return 4;
  if (steps >= 2 && rows * tiles * 2 <= resident2) return 2;
  return 1;
}

/// Lanes per group where CSR SpMM's row split or merge-based kernel takes
/// n > 16 in groups of W < 32 lanes, each lane a vector of `vec` columns
/// (16 bytes: 4 floats or 2 doubles), so that the 32/W groups of a warp take
/// different nonzeros, as the groups of n ≤ 16 do, instead of a warp's 32
/// lanes spreading one nonzero over a tile of 32 columns; 0 for the tiles.
/// `fits`: B and C take the vectors (vector_fits: row-major, n and the
/// leading dimensions multiples of vec, aligned pointers). W = 8 up to
/// n = 8·vec (f32 n ≤ 32), else 16 up to n = 16·vec (f32 n ≤ 64, f64
/// n ≤ 32). H100, session 15 (bench/results/spmm-groups-*-s15-*: each
/// kernel with and without the groups in the same binary, the 48 members
/// below the suite's large ones):
///  - row split, W = 8: 0.97-2.4× as fast on the members whose rows hold 3
///    or more nonzeros on average (42 of 45 at 1.05× or more; stencils
///    1.4-1.6×, FEM 1.45-2.0×), 0.66-0.88× on the three with fewer (road
///    network, luxembourg, the 4-band matrix: row groups of
///    row_block_tile32 read those better);
///  - row split, W = 16, on members of ≥ 8192 rows and mean ≥ 3: f32 at
///    n = 64 1.05-1.7×, f64 at n = 32 1.0-1.53× but 0.86-0.87× on the two
///    irregular ones (dense rows, mixed; Auto gives those to merge-based);
///    0.42-1.2× on smaller members (the tiles' longer steps suit K warps per
///    row there);
///  - merge-based, W = 8: 1.1-2.0× faster on all but one member (the
///    dense-row one, 0.82×, with units of 32 nonzeros: see
///    spmm_vector_units_doubled); W = 16: 0.67-0.94× on the ≥ 10^5-row
///    irregular members merge-based is picked for, so it keeps the tiles.
inline int spmm_vector_groups(std::int64_t n, int vec, bool fits, bool merge, std::int64_t rows,
                              double mean_row) {
  if (n <= 16 || n > 16 * vec || !fits) return 0;
  const int w = n <= 8 * vec ? 8 : 16;
  if (merge) return w == 8 ? w : 0;
  return mean_row >= 3 && (w == 8 || rows >= 8192) ? w : 0;
}

/// Longest mean row length for which row split takes n ≤ 16 in row groups
/// (spmm_row_groups). H200, session 30 (bench/results/spmm-groups-*-s30-*),
/// at n = 8 and 16 on every regular member measured, f32 and f64 (road
/// networks, 2.7 per row; banded, 3.5; 5-, 7- and 9-point stencils;
/// random-d10): 1.26-3.85× faster than merge-based, Auto's pick there
/// below 5.5 (or 9.35) nonzeros a row, and 1.3-7.2× faster than the warp
/// per row it replaces in row split, Auto's pick above (n = 8; random-d10
/// 1.3-1.6×, the cache-resident 7-point stencil 2.0-2.6×). No member with a
/// mean between 10 and 18 was measured, and FEM b = 2 (18 per row) was not:
/// the bound sits above the longest one measured, and longer rows keep a
/// warp per row.
inline constexpr double kRowGroupsMean = 12.0;

/// Lanes per row of row split's row groups at width n ≤ 16 with vectors of
/// `vec` columns (n a multiple of vec): the next power of two ≥ n / vec.
inline int spmm_row_group_lanes(std::int64_t n, int vec) {
  int w = 1;
  while (w * vec < n)
    w *= 2;
  return w;
}

/// Whether row split takes n ≤ 16 in groups of lanes per row (one row a
/// group of spmm_row_group_lanes(n, vec) lanes, each a 16-byte vector of
/// `vec` columns: spmm_csr.cu's row_group_narrow) instead of a warp per
/// row: B and C take the vectors (`fits`: vector_fits, row-major and
/// aligned, n a multiple of vec; only those were measured, so column-major
/// operands keep the warp per row), rows of at most kRowGroupsMean nonzeros
/// on average and not irregular (irregular_rows: a group would walk a long
/// row alone), and enough groups for 32 warps per SM of the device's `sms`
/// (false for sms = 0, no device). On smaller matrices the product is
/// latency bound, and the warp per row with K warps a row
/// (row_split_parts) shortens the chain of dependent loads.
inline bool spmm_row_groups(std::int64_t rows, std::int64_t nnz, std::int64_t max_row,
                            std::int64_t n, int vec, bool fits, int sms) {
  if (n > 16 || !fits || rows <= 0 || sms <= 0) return false;
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  return mean <= kRowGroupsMean && !irregular_rows(mean, max_row) &&
         rows * spmm_row_group_lanes(n, vec) / 32 >= std::int64_t{32} * sms;
}

/// Whether merge-based's vector groups (W = 8) take units of 64 nonzeros
/// instead of 32: from 2^19 nonzeros. Same runs as spmm_vector_groups: on
/// the members of ≥ 10^5 rows units of 64 ran 1.03-1.35× faster than the
/// tiles (geomean 1.23; units of 32: 0.85-1.43×, 1.20), the dense-row member
/// 0.82× → 1.19×; on the smaller ones units of 32 were faster (geomean 1.34×
/// the tiles against 1.08×), as was luxembourg (2.4·10^5 nonzeros); units of
/// 128 lost nearly everywhere.
inline bool spmm_vector_units_doubled(std::int64_t nnz) {
  return nnz >= (std::int64_t{1} << 19);
}

/// The choice of R for the row panel kernel at width n. The union totals
/// U_2, U_4, U_8 are counted once per matrix (on the device for a device
/// matrix, on the host for a host one) and cached in A.structure_cache();
/// the rest is arithmetic. The estimate of the bytes moved per tile of
/// t = min(n, 128)·sizeof(T) bytes of a row of B is
///   panel R: U_R · (t + R·sizeof(T) + sizeof(I)),
///   CSR:     nnz · (t + sizeof(T) + sizeof(I));
/// the R·sizeof(T) term stands for the R values each union entry brings
/// (read from A and broadcast to the warp, R accumulators updated). The
/// best R, among those with R·sizeof(T) ≤ kPanelMaxValueBytes, has the
/// smallest estimate (ties: the smaller R); the kernel is "worth it" by
/// panel_worth_it(ratio, mean row, few_warps(row_panel_warps(rows, R, n)))
/// (few_warps is false without a device).
struct PanelPlan {
  int rows = 2;                      ///< the best R
  std::int64_t union_total[3] = {};  ///< U_2, U_4, U_8
  double ratio = 1.0;                ///< estimate of the best R / estimate of CSR
  std::int64_t warps = 0;            ///< row_panel_warps(A.rows(), rows, n)
  bool worth_it = false;             ///< see panel_worth_it
};
template <Value T, Index I>
PanelPlan panel_plan(const Csr<T, I>& A, std::int64_t n);

/// Row panel SpMM: C = alpha*A*B + beta*C with a warp per (panel of R rows,
/// column tile), R from panel_plan; the warp walks the union of the panel's
/// columns, loading each distinct row of B once for the R rows (R
/// accumulators per column of the lane). Same tiles, vector loads and
/// BLAS semantics as row split; deterministic. Any n (for n ≤ 16 lanes past
/// n idle; Auto picks it only for n > 16).
template <Value T, Index I>
void spmm_csr_row_panel(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                        const ExecContext& ctx);

/// As spmm_csr_row_panel with R forced (2, 4 or 8; InvalidInput otherwise),
/// for experiments and tests. The caller validates the operands as spmm()
/// does (this entry bypasses the dispatcher); rows = 0 or n = 0 do nothing.
template <Value T, Index I>
void spmm_csr_row_panel_with(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta,
                             DenseView<T> C, const ExecContext& ctx, int R);

/// D = A as a dense column-major m×k matrix (ld = m) in device memory,
/// zeros included; enqueued on ctx.stream. For the cuBLAS GEMM baseline.
template <Value T, Index I>
void csr_to_dense_col_major(const Csr<T, I>& A, T* D, const ExecContext& ctx);

}  // namespace spx::cuda

// BCSR SpMV on the GPU: the three algorithms of the BCSR paper (Eberhardt and
// Hoemmen 2016, §III-D), adapted to keep many loads in flight, and a
// sub-warp kernel of SpX's own for small blocks.
//
// Layout (include/spx/formats/bcsr.hpp): block k of block row R is b×b,
// column-major, at values[k·b² + c·b + r]. A block row is thus a dense
// column-major b × (blocks·b) strip: its column positions p = k·b + c are
// consecutive, and entry r of position p sits at values[p·b + r].
//
//   block-by-block  (b ≤ 5)  a warp per block row; lane = s·b² + c·b + r covers
//                            entry (r, c) of the s-th of 32/b² whole blocks; the
//                            warp steps 32/b² blocks at a time, so c never
//                            changes and x needs no division.
//   block-by-column (b ≤ 32) a warp per block row; lane = j·b + r covers entry r
//                            of the j-th of floor(32/b) whole columns; the warp
//                            steps floor(32/b) column positions at a time, each
//                            lane carrying its (block, column) pair along.
//   row-shared      (b ≥ 16) a group of 16 (b = 16) or 32 lanes per block row,
//                            a lane per row; for each block the group stages the
//                            block's b entries of x in shared memory (one
//                            coalesced load) and every lane runs down its row of
//                            the block (paper Algorithm 5, a warp's groups
//                            instead of a thread block, so only __syncwarp).
//   sub-warp        (b ≤ 4)  a group of S = 4, 8 or 16 lanes per block row,
//                            rounded down to J·b lanes (J = S / b column slots,
//                            lane = j·b + r), the groups packed in the warp
//                            (b = 3: 10, 5 or 2 groups of 3, 6 or 15 lanes,
//                            lanes 30-31 idle); a sweep of a group covers J
//                            consecutive column positions (J·b consecutive
//                            values), each lane carrying its (block, column)
//                            pair as by column. Short block rows (FEM: ~9
//                            blocks) leave most of a whole warp idle in the
//                            two warp algorithms and pay a warp's row pointer
//                            and reduction latency per block row; here a warp
//                            serves 32 / (J·b) block rows at once.
//
// The two warp algorithms load U sweeps before any multiply (U = 8 for a
// compile-time b ≥ 3, else 4: at b ≤ 2 one sweep already covers 8+ blocks),
// so a lane has U value loads and U x loads in flight; a sweep reads
// consecutive values (the warp's lanes cover consecutive positions of the
// strip: coalesced). Their partial sums are reduced over the lanes of equal r
// with shuffles in a fixed tree order. Sub-warp does the same per group
// (U = kSubWarpSweeps = 8 sweeps; the block column is read by each lane that
// needs it, one broadcast load per block and sweep) and reduces the J slots of
// equal r inside the group with down-shuffles by multiples of b in a fixed
// tree order (J = 5 at b = 3 is not a power of two, so no xor butterfly).
// Row-shared unrolls the b loads of a lane's row of a block. Values are read
// with the streaming hint (read once), x and the indices through the
// read-only path.
//
// Ragged edges: rows and columns past the matrix are zero padding. x is read
// only below cols (the padded columns' x is taken as 0), y written only below
// rows. Every kernel is deterministic (fixed order, no atomics).
//
// Compile-time block sizes (the loops over a block have fixed trip counts):
// block-by-block 2, 3, 4; block-by-column 2, 3, 4, 6, 8, 16, 32; row-shared
// 16, 32; every other b in each algorithm's range takes the same kernel with
// a runtime b. Sub-warp: every b = 1..4 and S = 4, 8, 16 compile-time.
//
// Sub-warp knob (bcsr_sub_warp_lanes): the smallest S whose group loads a
// mean block row (mean blocks per block row × b² values) in at most
// kSubWarpMaxRounds = 2 rounds of 8 sweeps, else 16; the smaller the group,
// the more block rows a warp overlaps, the more rounds a long row costs (the
// warp waits for its slowest group). FEM with ~9 blocks per block row gets
// S = 4 at b = 2, 8 at b = 3, 16 at b = 4. Not yet tuned on a GPU.
//
// Auto rule (choose_bcsr), from the benchmark (bench/results/): b ≤ 4 →
// sub-warp (H100, session 4: 1.6× and 1.9× block-by-block at b = 2 and 3;
// H200, session 5, FEM of about 20M nonzeros: 67.8 µs against 80.5 for
// block-by-block at b = 4); 5 ≤ b < 24 → block-by-column (2.3× faster than
// row-shared at b = 16, the paper's Fig. 9 would pick row-shared there);
// b ≥ 24 → row-shared (1.34× faster than by-column at b = 32 on the H100,
// 1.26× on the H200).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {
namespace {

constexpr int kWarpsPerBlock = kBlock / kWarpSize;
constexpr int kStage = 4;             ///< row-shared: blocks whose x is staged at once
constexpr int kSubWarpSweeps = 8;     ///< sub-warp: sweeps loaded before multiplying
constexpr int kSubWarpMaxRounds = 2;  ///< sub-warp knob: rounds a mean block row may take

template <class T, class I>
struct BcsrArgs {
  std::int64_t block_rows, rows, cols;
  int b;
  const I* block_ptr;
  const I* block_col;
  const T* values;
  const T* x;
  T alpha, beta;
  T* y;
};

template <Value T, Index I>
BcsrArgs<T, I> args_of(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y) {
  return {A.block_rows(),
          std::int64_t{A.rows()},
          std::int64_t{A.cols()},
          A.block_size(),
          A.block_ptr().data(),
          A.block_col().data(),
          A.values().data(),
          x,
          alpha,
          beta,
          y};
}

/// x[col] for a column below cols, 0 otherwise (padding columns, or col < 0
/// for an idle slot).
template <class T>
__device__ __forceinline__ T x_at(const T* __restrict__ x, std::int64_t col, std::int64_t cols) {
  return col >= 0 && col < cols ? __ldg(x + col) : T{0};
}

/// sum += v[u] * x[col[u]] for u = 0 .. U-1 in order, the U loads of x
/// (x_at: 0 outside the matrix) issued before the first product.
template <int U, class T>
__device__ __forceinline__ void add_products(T& sum, const T (&v)[U], const std::int64_t (&col)[U],
                                             const T* __restrict__ x, std::int64_t cols) {
  T xv[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    xv[u] = x_at(x, col[u], cols);
#pragma unroll
  for (int u = 0; u < U; ++u)
    sum += v[u] * xv[u];
}

/// For each r, the sum of v over the lanes j·b + r with j < nj; the result
/// is valid in lanes 0..b-1 (j = 0). A tree in a fixed order (deterministic);
/// every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T sum_over_columns(T v, int j, int b, int nj) {
  int stride = 1;
  while (stride < nj)
    stride <<= 1;
  for (stride >>= 1; stride >= 1; stride >>= 1) {
    const T other = __shfl_down_sync(kFullMask, v, stride * b);
    if (j < stride && j + stride < nj) v += other;
  }
  return v;
}

// ---- block row per warp: by block and by column -----------------------------

/// B > 0: compile-time block size; B = 0: a.b. ByBlock: the warp covers whole
/// blocks (nj = (32 / b²)·b column slots); else whole columns (nj = 32 / b).
template <int B, bool ByBlock, class T, class I>
__global__ void __launch_bounds__(kBlock) bcsr_warp_kernel(BcsrArgs<T, I> a) {
  constexpr int U = B >= 3 ? 8 : 4;  // sweeps loaded before multiplying
  const std::int64_t R = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (R >= a.block_rows) return;  // warp-uniform
  const int b = B > 0 ? B : a.b;
  const int bb = b * b;
  const int nj = ByBlock ? (kWarpSize / bb) * b : kWarpSize / b;  // column slots per sweep
  const int j = lane / b, r = lane - j * b;
  const bool active = j < nj;
  // A sweep advances every lane by nj column positions: `step` blocks and
  // `rem` columns (rem = 0 by block: the lane's column c never changes).
  const int step = nj / b, rem = ByBlock ? 0 : nj - (nj / b) * b;
  const std::int64_t k0 = a.block_ptr[R], k1 = a.block_ptr[R + 1];
  std::int64_t blk = k0 + j / b;  // this lane's block and column within it
  int c = j - (j / b) * b;
  T sum = 0;
  while (__any_sync(kFullMask, active && blk < k1)) {
    // Phase 1: U sweeps of values and block columns (independent loads).
    T v[U];
    std::int64_t col[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const bool ok = active && blk < k1;
      v[u] = ok ? __ldcs(a.values + blk * bb + c * b + r) : T{0};
      col[u] = ok ? static_cast<std::int64_t>(__ldg(a.block_col + blk)) * b + c : -1;
      blk += step;
      if (!ByBlock) {
        c += rem;
        if (c >= b) {
          c -= b;
          ++blk;
        }
      }
    }
    // Phase 2: the x entries (independent loads), then the products.
    add_products(sum, v, col, a.x, a.cols);
  }
  // Phase 3: reduce over the lanes of equal r; lanes 0..b-1 store real rows.
  sum = sum_over_columns(sum, j, b, nj);
  if (lane < b) {
    const std::int64_t row = R * b + lane;
    if (row < a.rows) store_axpby(a.y, row, a.alpha, sum, a.beta);
  }
}

// ---- row per thread, x staged in shared memory ------------------------------

/// B > 0: compile-time block size; B = 0: a.b (16 ≤ b ≤ 32).
template <int B, class T, class I>
__global__ void __launch_bounds__(kBlock) bcsr_row_shared_kernel(BcsrArgs<T, I> a) {
  // Per warp: kStage blocks of x per group, plus one slot of padding between
  // the two groups (b = 16) so their broadcast reads fall in different banks.
  __shared__ T staged[kWarpsPerBlock][kStage * kWarpSize + 2];
  const int b = B > 0 ? B : a.b;
  const int bb = b * b;
  const int width = b <= 16 ? 16 : 32;  // lanes per block row
  const int groups = kWarpSize / width;
  const int lane = threadIdx.x % kWarpSize;
  const std::int64_t warp = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  if (warp * groups >= a.block_rows) return;  // warp-uniform
  const int g = lane / width, r = lane - g * width;
  const std::int64_t R = warp * groups + g;
  const bool row_ok = R < a.block_rows;
  const bool lane_ok = r < b;  // a row of the block
  const std::int64_t k0 = row_ok ? std::int64_t{a.block_ptr[R]} : 0;
  const std::int64_t k1 = row_ok ? std::int64_t{a.block_ptr[R + 1]} : 0;
  T* sx = staged[threadIdx.x / kWarpSize] + g * (kStage * width + 1);
  T sum = 0;
  for (std::int64_t base = k0; __any_sync(kFullMask, base < k1); base += kStage) {
    // Phase 1: stage x of the next kStage blocks (lane r loads entry r of
    // each: coalesced, kStage independent loads).
#pragma unroll
    for (int s = 0; s < kStage; ++s) {
      const std::int64_t k = base + s;
      const std::int64_t col =
          lane_ok && k < k1 ? static_cast<std::int64_t>(__ldg(a.block_col + k)) * b + r : -1;
      sx[s * width + r] = x_at(a.x, col, a.cols);
    }
    __syncwarp();
    // Phase 2: each lane runs down its row of each staged block.
#pragma unroll 1
    for (int s = 0; s < kStage; ++s) {
      const std::int64_t k = base + s;
      if (lane_ok && k < k1) {
        const T* row = a.values + k * bb + r;
        const T* xs = sx + s * width;
        if constexpr (B > 0) {
          // All B loads first (B in flight), then the multiply-adds.
          T v[B];
#pragma unroll
          for (int c = 0; c < B; ++c)
            v[c] = __ldcs(row + c * B);
#pragma unroll
          for (int c = 0; c < B; ++c)
            sum += v[c] * xs[c];
        } else {
          // Runtime b: 8 loads at a time.
          for (int c0 = 0; c0 < b; c0 += 8) {
            T v[8];
#pragma unroll
            for (int u = 0; u < 8; ++u)
              v[u] = c0 + u < b ? __ldcs(row + (c0 + u) * b) : T{0};
#pragma unroll
            for (int u = 0; u < 8; ++u)
              if (c0 + u < b) sum += v[u] * xs[c0 + u];
          }
        }
      }
    }
    __syncwarp();  // the staged x is overwritten next round
  }
  if (row_ok && lane_ok) {
    const std::int64_t row = R * b + r;
    if (row < a.rows) store_axpby(a.y, row, a.alpha, sum, a.beta);
  }
}

// ---- block row per sub-warp (b ≤ 4) -----------------------------------------

/// Sub-warp: S lanes nominal (4, 8 or 16), rounded down to J·B lanes (J =
/// S / B column slots, lane = j·B + r); the groups are packed in the warp
/// (B = 3: 10, 5 or 2 groups of 3, 6 or 15 lanes, lanes 30 and 31 idle).
/// Each sweep a group covers J consecutive column positions of its block row
/// (J·B consecutive values); kSubWarpSweeps sweeps are loaded before any
/// multiply.
template <int B, int S, class T, class I>
__global__ void __launch_bounds__(kBlock) bcsr_sub_warp_kernel(BcsrArgs<T, I> a) {
  static_assert(B >= 1 && B <= 4 && (S == 4 || S == 8 || S == 16));
  constexpr int J = S / B;                        // column slots per group
  constexpr int G = J * B;                        // lanes per group
  constexpr int kGroups = kWarpSize / G;          // block rows per warp
  constexpr int U = kSubWarpSweeps;               // sweeps loaded before multiplying
  constexpr int kStepBlocks = J / B;              // a sweep advances a lane by J columns:
  constexpr int kStepCols = J - kStepBlocks * B;  // whole blocks, then columns
  const std::int64_t warp = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  if (warp * kGroups >= a.block_rows) return;  // warp-uniform
  const int lane = threadIdx.x % kWarpSize;
  const int g = lane / G, l = lane - g * G;
  const int j = l / B, r = l - j * B;
  const std::int64_t R = warp * kGroups + g;
  const bool row_ok = g < kGroups && R < a.block_rows;
  const std::int64_t k0 = row_ok ? std::int64_t{a.block_ptr[R]} : 0;
  const std::int64_t k1 = row_ok ? std::int64_t{a.block_ptr[R + 1]} : 0;
  std::int64_t blk = k0 + j / B;  // this lane's block and column within it
  int c = j - (j / B) * B;
  // This lane's value: entry l of the group's sweep, G entries per sweep.
  const T* vp = a.values + k0 * (B * B) + l;
  T sum = 0;
  while (__any_sync(kFullMask, blk < k1)) {
    // Phase 1: U sweeps of values and block columns (independent loads; the
    // group's lanes read consecutive values, the lanes of a block one index).
    T v[U];
    std::int64_t col[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const bool ok = blk < k1;
      v[u] = ok ? __ldcs(vp + u * G) : T{0};
      col[u] = ok ? static_cast<std::int64_t>(__ldg(a.block_col + blk)) * B + c : -1;
      blk += kStepBlocks;
      if constexpr (kStepCols != 0) {
        c += kStepCols;
        if (c >= B) {
          c -= B;
          ++blk;
        }
      }
    }
    vp += U * G;
    // Phase 2: the x entries (independent loads), then the products.
    add_products(sum, v, col, a.x, a.cols);
  }
  // Phase 3: within the group, sum the J slots of equal r into slot 0, the
  // tree of the warp kernels with compile-time B and J (strides: powers of
  // two below J, largest first); the condition keeps every read inside the
  // group.
  sum = sum_over_columns(sum, j, B, J);
  if (row_ok && j == 0) {
    const std::int64_t row = R * B + r;
    if (row < a.rows) store_axpby(a.y, row, a.alpha, sum, a.beta);
  }
}

// ---- launchers --------------------------------------------------------------

template <int B, bool ByBlock, class T, class I>
void launch_warp(const BcsrArgs<T, I>& a, cudaStream_t stream) {
  const char* name = ByBlock ? "bcsr_by_block_kernel" : "bcsr_by_column_kernel";
  const unsigned grid = grid_size(a.block_rows * kWarpSize, kBlock, name);
  bcsr_warp_kernel<B, ByBlock><<<grid, kBlock, 0, stream>>>(a);
  check_launch(name);
}

template <int B, class T, class I>
void launch_row_shared(const BcsrArgs<T, I>& a, cudaStream_t stream) {
  const std::int64_t groups = a.b <= 16 ? 2 : 1;
  const std::int64_t warps = (a.block_rows + groups - 1) / groups;
  const unsigned grid = grid_size(warps * kWarpSize, kBlock, "bcsr_row_shared_kernel");
  bcsr_row_shared_kernel<B><<<grid, kBlock, 0, stream>>>(a);
  check_launch("bcsr_row_shared_kernel");
}

template <int B, int S, class T, class I>
void launch_sub_warp(const BcsrArgs<T, I>& a, cudaStream_t stream) {
  constexpr std::int64_t groups = kWarpSize / ((S / B) * B);
  const std::int64_t warps = (a.block_rows + groups - 1) / groups;
  const unsigned grid = grid_size(warps * kWarpSize, kBlock, "bcsr_sub_warp_kernel");
  bcsr_sub_warp_kernel<B, S><<<grid, kBlock, 0, stream>>>(a);
  check_launch("bcsr_sub_warp_kernel");
}

/// Raised when a launcher is called outside its range (the dispatcher checks
/// can_run first, so only a direct call gets here).
void require(Algorithm algorithm, int b) {
  if (std::string reason = bcsr_refusal(algorithm, b); !reason.empty()) throw Unsupported(reason);
}

}  // namespace

std::string bcsr_refusal(Algorithm algorithm, int b) {
  const std::string has = "; this matrix has b = " + std::to_string(b);
  switch (algorithm) {
    case Algorithm::BlockByBlock:
      return b <= 5 ? std::string()
                    : "block_by_block needs b <= 5 (a warp's 32 lanes cover whole b x b blocks)" +
                          has + " (use block_by_column)";
    case Algorithm::BlockByColumn:
      return b >= 1 && b <= 32 ? std::string()
                               : "block_by_column needs b <= 32 (a warp's 32 lanes cover whole "
                                 "block columns)" +
                                     has;
    case Algorithm::BlockRowShared:
      return b >= 16 && b <= 32
                 ? std::string()
                 : "block_row_shared needs 16 <= b <= 32 (a lane per row of a block row; smaller "
                   "blocks leave most lanes idle)" +
                       has + " (use block_by_block or block_by_column)";
    case Algorithm::BlockSubWarp:
      return b >= 1 && b <= 4 ? std::string()
                              : "block_sub_warp needs b <= 4 (a group of 4 to 16 lanes per block "
                                "row; larger blocks fill a warp on their own)" +
                                    has + " (use block_by_block or block_by_column)";
    default:
      return "not a GPU BCSR algorithm: " + std::string(to_string(algorithm));
  }
}

Algorithm choose_bcsr(int b) {
  if (b <= 4) return Algorithm::BlockSubWarp;
  if (b < 24) return Algorithm::BlockByColumn;
  return Algorithm::BlockRowShared;
}

int bcsr_sub_warp_lanes(double mean_blocks_per_row, int b) {
  // Entries of a mean block row against what a group of S lanes loads in
  // kSubWarpMaxRounds rounds of kSubWarpSweeps sweeps: the smallest S that
  // covers it (more block rows per warp, so more rows' latency overlapped);
  // 16 when none does.
  const double entries = mean_blocks_per_row * b * b;
  for (const int lanes : {4, 8}) {
    const int group = (lanes / b) * b;  // lanes that hold entries
    if (entries <= double{kSubWarpMaxRounds} * kSubWarpSweeps * group) return lanes;
  }
  return 16;
}

template <Value T, Index I>
void spmv_bcsr_by_block(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                        const ExecContext& ctx) {
  require(Algorithm::BlockByBlock, A.block_size());
  const BcsrArgs<T, I> a = args_of(alpha, A, x, beta, y);
  // Compiled for b = 2, 3, 4; b = 1, 5 take the runtime b (0).
  with_constant<0, 2, 3, 4>(a.b, [&]<int B>() { launch_warp<B, true>(a, ctx.stream); });
}

template <Value T, Index I>
void spmv_bcsr_by_column(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx) {
  require(Algorithm::BlockByColumn, A.block_size());
  const BcsrArgs<T, I> a = args_of(alpha, A, x, beta, y);
  with_constant<0, 2, 3, 4, 6, 8, 16, 32>(a.b,
                                          [&]<int B>() { launch_warp<B, false>(a, ctx.stream); });
}

template <Value T, Index I>
void spmv_bcsr_row_shared(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                          const ExecContext& ctx) {
  require(Algorithm::BlockRowShared, A.block_size());
  const BcsrArgs<T, I> a = args_of(alpha, A, x, beta, y);
  // Compiled for b = 16, 32; b = 17..31 take the runtime b (0).
  with_constant<0, 16, 32>(a.b, [&]<int B>() { launch_row_shared<B>(a, ctx.stream); });
}

template <Value T, Index I>
void spmv_bcsr_sub_warp_with(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                             const ExecContext& ctx, int lanes) {
  require(Algorithm::BlockSubWarp, A.block_size());
  if (lanes != 4 && lanes != 8 && lanes != 16)
    throw InvalidInput("block_sub_warp: lanes per block row must be 4, 8 or 16, got " +
                       std::to_string(lanes));
  const BcsrArgs<T, I> a = args_of(alpha, A, x, beta, y);
  // Every b = 1..4 and S = 4, 8, 16 compiled.
  with_constant<4, 1, 2, 3>(a.b, [&]<int B>() {
    with_constant<16, 4, 8>(lanes, [&]<int S>() { launch_sub_warp<B, S>(a, ctx.stream); });
  });
}

template <Value T, Index I>
void spmv_bcsr_sub_warp(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                        const ExecContext& ctx) {
  const double mean = static_cast<double>(A.blocks()) / static_cast<double>(A.block_rows());
  spmv_bcsr_sub_warp_with(alpha, A, x, beta, y, ctx, bcsr_sub_warp_lanes(mean, A.block_size()));
}

#define SPX_INST(T, I)                                                                             \
  template void spmv_bcsr_by_block(T, const Bcsr<T, I>&, const T*, T, T*, const ExecContext&);     \
  template void spmv_bcsr_by_column(T, const Bcsr<T, I>&, const T*, T, T*, const ExecContext&);    \
  template void spmv_bcsr_row_shared(T, const Bcsr<T, I>&, const T*, T, T*, const ExecContext&);   \
  template void spmv_bcsr_sub_warp(T, const Bcsr<T, I>&, const T*, T, T*, const ExecContext&);     \
  template void spmv_bcsr_sub_warp_with(T, const Bcsr<T, I>&, const T*, T, T*, const ExecContext&, \
                                        int);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda

// Binned CSR SpMV for irregular rows (issue 16): one launch, three kinds of
// blocks, from a cached pass over the row lengths.
//
//   split blocks   rows longer than one warp chunk (kChunk entries), cut into
//                  chunks of kChunk, a warp each; the partial sums of a row go
//                  to per-call scratch, and the warp that finishes the row's
//                  last chunk (a ticket counter per row) adds them up in an
//                  order fixed by the chunk count (lane-strided sums, then a
//                  shuffle tree): deterministic, no atomics on y.
//   warp blocks    rows of (short_max, kChunk] entries, a warp each, listed.
//   short blocks   every other row (at most short_max = 8V - 1 entries, empty
//                  rows included) in place, V lanes per row as in the
//                  adaptive kernel, V from the mean length of the short rows.
//
// The split blocks come first in the grid, so the longest work starts first.
// Compared with merge path (csr.cu): no shared-memory staging, no search, no
// second kernel; scratch only when rows exceed a chunk. Measured on an H100
// (issue 16): 1.1-1.3x merge path on power-law and mixed matrices of about
// 1 M nonzeros, but 1.1-1.3x slower than it on those of 16-25 M nonzeros,
// whose listed rows it reads out of order; the Auto rule (csr.cu) picks it
// only for matrices that fit in the L2 cache. (Taking the longer rows in
// place, by the whole warp after its short rows, was tried: faster on the
// large ones, still slower than merge path there, and 1.1-1.4x slower than
// this on the small ones.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/csr_rows.cuh"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {
namespace {

constexpr int kWarpsPerBlock = kBlock / kWarpSize;
constexpr int kUnroll = 4;  ///< entries per lane per batch
/// Entries per warp chunk: four batches of kUnroll entries per lane.
constexpr std::int64_t kChunk = std::int64_t{kWarpSize} * kUnroll * 4;

// ---- the plan -----------------------------------------------------------------

/// is_warp[r] = 1 for rows of (short_max, kChunk] entries, is_split[r] = 1 for
/// longer ones; entry `rows` of both is 0 (the exclusive sums then end in the
/// counts).
template <class I>
__global__ void __launch_bounds__(kBlock)
    binned_classes_kernel(std::int64_t rows, const I* __restrict__ row_ptr, std::int64_t short_max,
                          std::int64_t* __restrict__ is_warp, std::int64_t* __restrict__ is_split) {
  const std::int64_t r = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (r > rows) return;
  const std::int64_t len = r < rows ? std::int64_t{row_ptr[r + 1]} - row_ptr[r] : 0;
  is_warp[r] = len > short_max && len <= kChunk ? 1 : 0;
  is_split[r] = len > kChunk ? 1 : 0;
}

/// Scatters the listed rows to their positions (the exclusive sums of the
/// classes), with the chunk count of every split row.
template <class I>
__global__ void __launch_bounds__(kBlock)
    binned_lists_kernel(std::int64_t rows, const I* __restrict__ row_ptr, std::int64_t short_max,
                        const std::int64_t* __restrict__ warp_pos,
                        const std::int64_t* __restrict__ split_pos, I* __restrict__ warp_row,
                        I* __restrict__ split_row, std::int64_t* __restrict__ split_chunks) {
  const std::int64_t r = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (r >= rows) return;
  const std::int64_t len = std::int64_t{row_ptr[r + 1]} - row_ptr[r];
  if (len > kChunk) {
    split_row[split_pos[r]] = static_cast<I>(r);
    split_chunks[split_pos[r]] = ceil_div(len, kChunk);
  } else if (len > short_max) {
    warp_row[warp_pos[r]] = static_cast<I>(r);
  }
}

/// chunk_owner[c] = j for the chunks c of split row j.
template <class I>
__global__ void __launch_bounds__(kBlock)
    binned_owners_kernel(std::int64_t split_rows, const std::int64_t* __restrict__ split_first,
                         I* __restrict__ chunk_owner) {
  const std::int64_t j = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (j >= split_rows) return;
  for (std::int64_t c = split_first[j]; c < split_first[j + 1]; ++c)
    chunk_owner[c] = static_cast<I>(j);
}

std::int64_t last_of(const Array<std::int64_t>& a) {
  std::int64_t v = 0;
  detail::copy_bytes(&v, Space::Host, a.data() + (a.size() - 1), Space::Device, sizeof v);
  return v;
}

/// Device array of max(n, 1) elements (an empty list still has a pointer).
template <class I>
Array<I> device_list(std::int64_t n) {
  return Array<I>(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), Space::Device);
}

/// Lanes per short row: the adaptive kernel's width for the mean length of
/// the rows of fewer than 64 entries, at most 8 (short rows have fewer than
/// 8V entries; longer ones go to the lists).
int short_lanes(const CsrRowStats& s) {
  std::int64_t rows = 0, nnz = 0;
  for (int k = 0; k + 1 < CsrRowStats::kLengthClasses; ++k) {
    rows += s.class_rows[k];
    nnz += s.class_nnz[k];
  }
  const double mean = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
  return std::min(8, adaptive_width(mean));
}

template <class T, class I>
const BinnedPlan<I>& binned_plan(const Csr<T, I>& A, int lanes) {
  return A.structure_cache().template get<BinnedPlan<I>>(lanes, [&] {
    // Built on the legacy default stream (as the conversions' passes), which
    // the synchronous copies wait for; finished before any stream uses it.
    // First every stream's earlier work, so that a matrix written on a
    // non-blocking stream is complete before its rows are read (once per
    // matrix).
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize(before the binned plan)");
    const std::int64_t rows = A.rows();
    const I* row_ptr = A.row_ptr().data();
    BinnedPlan<I> plan;
    plan.lanes = lanes;
    plan.short_max = std::int64_t{8} * lanes - 1;
    Array<std::int64_t> warp_pos(static_cast<std::size_t>(rows + 1), Space::Device);
    Array<std::int64_t> split_pos(static_cast<std::size_t>(rows + 1), Space::Device);
    const unsigned grid = grid_size(rows + 1, kBlock, "binned_classes_kernel");
    binned_classes_kernel<<<grid, kBlock>>>(rows, row_ptr, plan.short_max, warp_pos.data(),
                                            split_pos.data());
    check_launch("binned_classes_kernel");
    conv::exclusive_sum(warp_pos.data(), rows + 1);
    conv::exclusive_sum(split_pos.data(), rows + 1);
    plan.warp_rows = last_of(warp_pos);
    plan.split_rows = last_of(split_pos);
    plan.warp_row = device_list<I>(plan.warp_rows);
    plan.split_row = device_list<I>(plan.split_rows);
    plan.split_first =
        Array<std::int64_t>(static_cast<std::size_t>(plan.split_rows + 1), Space::Device);
    check(cudaMemset(plan.split_first.data(), 0, plan.split_first.bytes()),
          "cudaMemset(binned plan)");
    binned_lists_kernel<<<grid, kBlock>>>(rows, row_ptr, plan.short_max, warp_pos.data(),
                                          split_pos.data(), plan.warp_row.data(),
                                          plan.split_row.data(), plan.split_first.data());
    check_launch("binned_lists_kernel");
    conv::exclusive_sum(plan.split_first.data(), plan.split_rows + 1);
    plan.chunks = last_of(plan.split_first);
    plan.chunk_owner = device_list<I>(plan.chunks);
    if (plan.split_rows > 0) {
      binned_owners_kernel<<<grid_size(plan.split_rows, kBlock, "binned_owners_kernel"), kBlock>>>(
          plan.split_rows, plan.split_first.data(), plan.chunk_owner.data());
      check_launch("binned_owners_kernel");
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize(binned plan)");
    return plan;
  });
}

// ---- the product --------------------------------------------------------------

/// What the kernel reads of the plan, and the scratch of the split rows.
template <class T, class I>
struct BinnedArgs {
  std::int64_t short_max;
  const I* warp_row;
  std::int64_t warp_rows;
  const I* split_row;
  const std::int64_t* split_first;
  const I* chunk_owner;
  std::int64_t chunks;
  T* partial;                 ///< chunks partial sums
  unsigned* tickets;          ///< split_rows counters, zero on entry
  std::int64_t split_blocks;  ///< blocks of the chunks, first in the grid
  std::int64_t warp_blocks;   ///< blocks of the warp rows, next
};

template <int V, class T, class I>
__global__ void __launch_bounds__(kBlock)
    csr_binned_kernel(std::int64_t rows, const I* __restrict__ row_ptr, const I* __restrict__ col,
                      const T* __restrict__ val, const T* __restrict__ x, T alpha, T beta,
                      T* __restrict__ y, BinnedArgs<T, I> p) {
  const int lane = threadIdx.x % kWarpSize;
  std::int64_t b = blockIdx.x;

  // Split rows: a warp per chunk; the last warp of a row adds the partials.
  if (b < p.split_blocks) {
    const std::int64_t c = b * kWarpsPerBlock + threadIdx.x / kWarpSize;
    if (c >= p.chunks) return;  // warp-uniform
    const std::int64_t j = p.chunk_owner[c];
    const std::int64_t row = p.split_row[j];
    const std::int64_t first = p.split_first[j], count = p.split_first[j + 1] - first;
    const std::int64_t begin = std::int64_t{row_ptr[row]} + (c - first) * kChunk;
    const std::int64_t end = min(begin + kChunk, std::int64_t{row_ptr[row + 1]});
    const T sum = group_sum<kWarpSize>(
        lanes_row_sum<kWarpSize, kUnroll, true>(begin, end, lane, col, val, x));
    unsigned ticket = 0;
    if (lane == 0) {
      p.partial[c] = sum;
      __threadfence();  // the partial is visible before the ticket is taken
      ticket = atomicAdd(p.tickets + j, 1u);
      __threadfence();  // the other chunks' partials are read after the ticket
    }
    __syncwarp();  // orders lane 0's accesses before the other lanes' reads
    ticket = __shfl_sync(kFullMask, ticket, 0);
    if (ticket + 1 != count) return;  // warp-uniform: not the row's last chunk
    T total = 0;
    for (std::int64_t k = lane; k < count; k += kWarpSize)
      total += __ldcg(p.partial + first + k);
    total = group_sum<kWarpSize>(total);
    if (lane == 0) store_axpby(y, row, alpha, total, beta);
    return;
  }
  b -= p.split_blocks;

  // Warp rows: a warp each.
  if (b < p.warp_blocks) {
    const std::int64_t w = b * kWarpsPerBlock + threadIdx.x / kWarpSize;
    if (w >= p.warp_rows) return;  // warp-uniform
    const std::int64_t row = p.warp_row[w];
    const T sum = group_sum<kWarpSize>(
        lanes_row_sum<kWarpSize, kUnroll, true>(row_ptr[row], row_ptr[row + 1], lane, col, val, x));
    if (lane == 0) store_axpby(y, row, alpha, sum, beta);
    return;
  }
  b -= p.warp_blocks;

  // Short rows in place, V lanes each; the lanes of listed rows only take
  // part in the shuffles.
  const std::int64_t row = b * (kBlock / V) + threadIdx.x / V;
  const int sub = static_cast<int>(threadIdx.x % V);
  std::int64_t begin = 0, end = 0;
  if (row < rows) {
    begin = row_ptr[row];
    end = row_ptr[row + 1];
  }
  const bool mine = row < rows && end - begin <= p.short_max;
  const T sum =
      group_sum<V>(mine ? lanes_row_sum<V, kUnroll, (V >= 8)>(begin, end, sub, col, val, x) : T{0});
  if (mine && sub == 0) store_axpby(y, row, alpha, sum, beta);
}

}  // namespace

template <Value T, Index I>
void spmv_csr_binned(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y,
                     const ExecContext& ctx) {
  const int lanes = short_lanes(csr_row_stats(A));
  const BinnedPlan<I>& plan = binned_plan(A, lanes);
  // Scratch only when rows exceed a chunk: the partials, then the tickets.
  const std::size_t partial_bytes =
      (static_cast<std::size_t>(plan.chunks) * sizeof(T) + 255) / 256 * 256;
  const std::size_t ticket_bytes = static_cast<std::size_t>(plan.split_rows) * sizeof(unsigned);
  const StreamScratch scratch(plan.split_rows > 0 ? partial_bytes + ticket_bytes : 1, ctx.stream);
  BinnedArgs<T, I> p{};
  p.short_max = plan.short_max;
  p.warp_row = plan.warp_row.data();
  p.warp_rows = plan.warp_rows;
  p.split_row = plan.split_row.data();
  p.split_first = plan.split_first.data();
  p.chunk_owner = plan.chunk_owner.data();
  p.chunks = plan.chunks;
  if (plan.split_rows > 0) {
    p.partial = scratch.as<T>();
    p.tickets = reinterpret_cast<unsigned*>(scratch.as<unsigned char>() + partial_bytes);
    check(cudaMemsetAsync(p.tickets, 0, ticket_bytes, ctx.stream), "cudaMemsetAsync(tickets)");
  }
  p.split_blocks = ceil_div(plan.chunks, kWarpsPerBlock);
  p.warp_blocks = ceil_div(plan.warp_rows, kWarpsPerBlock);
  with_constant<8, 1, 2, 4>(lanes, [&]<int V>() {
    const std::int64_t short_blocks = ceil_div(A.rows() * V, kBlock);
    const unsigned grid = grid_size((p.split_blocks + p.warp_blocks + short_blocks) * kBlock,
                                    kBlock, "csr_binned_kernel");
    csr_binned_kernel<V><<<grid, kBlock, 0, ctx.stream>>>(
        A.rows(), A.row_ptr().data(), A.col_idx().data(), A.values().data(), x, alpha, beta, y, p);
    check_launch("csr_binned_kernel");
  });
}

#define SPX_INST(T, I) \
  template void spmv_csr_binned(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda

// SELL-C-σ / SELL-P SpMV on the GPU (survey §4.3; Anzt et al.'s SELL-P): the
// shared ELLPACK row kernel (ellpack_rows.cuh) with the SELL layout, entry j
// of stored row i at slice_ptr[i / C] + j*C + i % C, and the result of stored
// row i written to y[perm[i]] (the permutation is applied on the output, so
// callers never see permuted vectors).
//
//   ThreadPerRow   one thread per stored row (any C, σ and threads_per_row);
//   ThreadsPerRow  SELL-P: V lanes per row, V = threads_per_row of the format
//                  when it is a power of two up to 32, else the next power
//                  of two (at most 32). Lanes take alternate entries of the
//                  row up to its length, so neither the slice padding nor the
//                  rounding of widths to a multiple of threads_per_row is
//                  ever read; a warp's loads of one entry index fall on
//                  consecutive rows of a slice (coalesced when C >= 32/V).
//
// Auto: ThreadsPerRow when the format was built for several threads per row
// (threads_per_row > 1: the user chose SELL-P), ThreadPerRow otherwise.
//
// Also here: the column copy with padding marked -1 that the cuSPARSE SELL
// baseline (src/baselines/cusparse_sell.cpp) hands to cuSPARSE.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/ellpack_rows.cuh"
#include "cuda/launch.hpp"

namespace spx::cuda {

namespace {

/// rows_kernel<V> with the SELL layout of A; `name` is rows_kernel<V>'s name
/// in errors.
template <int V, Value T, Index I>
void launch_sell(const char* name, T alpha, const Sell<T, I>& A, const T* x, T beta, T* y,
                 cudaStream_t stream) {
  const ellpack::SellLayout<I> layout{A.slice_ptr().data(),
                                      A.perm().empty() ? nullptr : A.perm().data(),
                                      ellpack::RowDivisor(A.slice_size())};
  ellpack::launch_rows<V>(name, A, layout, x, alpha, beta, y, stream);
}

/// out[k] = col[k] for true entries, -1 for padding. Thread per slot of a
/// slice (num_slices × C slots; slots past the last row hold padding only).
template <class I>
__global__ void __launch_bounds__(kBlock)
    sell_padding_kernel(std::int64_t rows, std::int64_t slots, std::int64_t C,
                        const I* __restrict__ slice_ptr, const I* __restrict__ slice_width,
                        const I* __restrict__ row_len, const I* __restrict__ col,
                        I* __restrict__ out) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i >= slots) return;
  const std::int64_t s = i / C;
  const std::int64_t base = static_cast<std::int64_t>(slice_ptr[s]) + (i - s * C);
  const std::int64_t width = slice_width[s];
  const std::int64_t len = i < rows ? static_cast<std::int64_t>(row_len[i]) : 0;
  for (std::int64_t j = 0; j < width; ++j) {
    const std::int64_t k = base + j * C;
    out[k] = j < len ? col[k] : I{-1};
  }
}

}  // namespace

int sell_lanes(int threads_per_row) {
  int v = 1;
  while (v < kWarpSize && v < threads_per_row)
    v *= 2;
  return v;
}

Algorithm sell_family_runs_as(Format format, Algorithm algorithm, const ConvertOptions& options) {
  const bool sell_family =
      format == Format::Sell || format == Format::SellLp || format == Format::SellPack;
  return sell_family && algorithm == Algorithm::ThreadsPerRow &&
                 sell_lanes(options.threads_per_row) == 1
             ? Algorithm::ThreadPerRow
             : algorithm;
}

template <Value T, Index I>
void spmv_sell_thread(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y,
                      const ExecContext& ctx) {
  launch_sell<1>("sell_rows_kernel<1>", alpha, A, x, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_sell_threads(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext& ctx) {
  switch (sell_lanes(A.threads_per_row())) {
    case 1:
      return launch_sell<1>("sell_rows_kernel<1>", alpha, A, x, beta, y, ctx.stream);
    case 2:
      return launch_sell<2>("sell_rows_kernel<2>", alpha, A, x, beta, y, ctx.stream);
    case 4:
      return launch_sell<4>("sell_rows_kernel<4>", alpha, A, x, beta, y, ctx.stream);
    case 8:
      return launch_sell<8>("sell_rows_kernel<8>", alpha, A, x, beta, y, ctx.stream);
    case 16:
      return launch_sell<16>("sell_rows_kernel<16>", alpha, A, x, beta, y, ctx.stream);
    default:
      return launch_sell<32>("sell_rows_kernel<32>", alpha, A, x, beta, y, ctx.stream);
  }
}

template <Value T, Index I>
Algorithm choose_sell(const Sell<T, I>& A) {
  return A.threads_per_row() > 1 ? Algorithm::ThreadsPerRow : Algorithm::ThreadPerRow;
}

template <Value T, Index I>
void sell_cusparse_columns(const Sell<T, I>& A, I* out, CUstream_st* stream) {
  const std::int64_t slots = A.num_slices() * A.slice_size();
  if (slots == 0 || A.stored() == 0) return;
  const unsigned grid = grid_size(slots, kBlock, "sell_padding_kernel");
  sell_padding_kernel<<<grid, kBlock, 0, stream>>>(A.rows(), slots, A.slice_size(),
                                                   A.slice_ptr().data(), A.slice_width().data(),
                                                   A.row_len().data(), A.col_idx().data(), out);
  check_launch("sell_padding_kernel");
}

#define SPX_INST(T, I)                                                                        \
  template void spmv_sell_thread(T, const Sell<T, I>&, const T*, T, T*, const ExecContext&);  \
  template void spmv_sell_threads(T, const Sell<T, I>&, const T*, T, T*, const ExecContext&); \
  template Algorithm choose_sell(const Sell<T, I>&);                                          \
  template void sell_cusparse_columns(const Sell<T, I>&, I*, CUstream_st*);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda

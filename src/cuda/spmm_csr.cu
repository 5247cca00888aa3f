// CSR SpMM on the GPU (Yang, Buluç, Owens, "Design principles for sparse
// matrix multiplication on the GPU", 2018): row split (§4.1) and merge-based
// (§4.2). C = alpha*A*B + beta*C, B and C dense with any layout; row-major is
// the fast path (a warp reads a row of B and writes a row of C in one
// coalesced access); column-major B or C use the same kernels with strided,
// uncoalesced accesses (correct, slower).
//
// Widths: a group of W lanes works on W consecutive columns of B and C, with
// W = 32 when n > 16 (column tiles of 32 over gridDim.y) and W = the next
// power of two ≥ n otherwise, so that narrow products do not leave lanes
// idle.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/spmm.hpp"

namespace spx::cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kBlock = 128;  ///< 4 warps per block, as in the paper
constexpr int kWarpsPerBlock = kBlock / kWarp;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr std::int64_t kMaxGridY = 65535;
constexpr std::int64_t kMaxGridX = std::numeric_limits<std::int32_t>::max();

/// A dense matrix as (pointer, row stride, column stride): element (i, j) at
/// data[i*rs + j*cs]. Row-major: (ld, 1); column-major: (1, ld).
template <class T>
struct Strided {
  T* data;
  std::int64_t rs;
  std::int64_t cs;
};

template <class T>
Strided<T> strided(DenseView<T> v) {
  return v.layout == Layout::RowMajor ? Strided<T>{v.data, v.ld, 1} : Strided<T>{v.data, 1, v.ld};
}

/// Read-only loads through the non-coherent cache.
template <class T>
__device__ __forceinline__ T load(const T* p) {
  return __ldg(p);
}

template <class T>
__device__ __forceinline__ T load_b(const Strided<const T>& B, std::int64_t i, std::int64_t j) {
  return __ldg(B.data + i * B.rs + j * B.cs);
}

/// C(i, j) = alpha*acc + beta*C(i, j), not reading C when beta = 0.
template <class T>
__device__ __forceinline__ void store_c(const Strided<T>& C, std::int64_t i, std::int64_t j,
                                        T alpha, T acc, T beta) {
  T* c = C.data + i * C.rs + j * C.cs;
  *c = beta == T{0} ? alpha * acc : alpha * acc + beta * *c;
}

/// Columns per lane group: 32 for n > 16, else the next power of two ≥ n.
int group_width(std::int64_t n) {
  if (n > 16) return 32;
  int w = 1;
  while (w < n)
    w *= 2;
  return w;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// ---- row split --------------------------------------------------------------

/// The nonzeros [begin, end) of A, for one warp and one tile of 32·CPL
/// columns (n > 16): each batch of up to 32 is loaded one per lane, then
/// broadcast by shuffle in groups of kGroup: a group first issues its
/// kGroup·CPL independent loads of B (the last group of a batch predicated),
/// then calls step(k, v_k, B row c_k's columns of this lane) in order of k.
/// All lanes take part in every shuffle; step runs under a warp-uniform
/// condition, so it may shuffle too.
template <int CPL, class T, class I, class Step>
__device__ __forceinline__ void for_each_nonzero(std::int64_t begin, std::int64_t end,
                                                 const I* __restrict__ col,
                                                 const T* __restrict__ val,
                                                 const Strided<const T>& B, std::int64_t j0,
                                                 const bool (&active)[CPL], Step&& step) {
  constexpr int kGroup = CPL >= 4 ? 4 : 8;  // at most 16 loads of B per lane per group
  const int lane = threadIdx.x % kWarp;
  for (std::int64_t base = begin; base < end; base += kWarp) {
    // Load a batch: one nonzero per lane (lanes past the range hold zeros).
    const int count = static_cast<int>(min(std::int64_t{kWarp}, end - base));
    I c = 0;
    T v = 0;
    if (lane < count) {
      c = load(col + base + lane);
      v = load(val + base + lane);
    }
    for (int t0 = 0; t0 < count; t0 += kGroup) {
      T b[kGroup][CPL];
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        const int t = t0 + u;
        const I ct = __shfl_sync(kFullMask, c, t % kWarp);
#pragma unroll
        for (int q = 0; q < CPL; ++q)
          b[u][q] = t < count && active[q] ? load_b(B, ct, j0 + q * kWarp) : T{0};
      }
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        const T vt = __shfl_sync(kFullMask, v, (t0 + u) % kWarp);
        if (t0 + u < count) step(base + t0 + u, vt, b[u]);
      }
    }
  }
}

/// n > 16: warp per (row, tile of 32·CPL columns); lane l owns columns
/// l, l + 32, ..., l + 32·(CPL-1) of the tile; the row's nonzeros go through
/// for_each_nonzero, so a lane keeps kGroup·CPL loads of B in flight whatever
/// the row length, and a row of A is read once per tile.
template <int CPL, class T, class I>
__global__ void __launch_bounds__(kBlock, 4)  // ≤ 128 registers: 16 warps per SM at least
    row_split_tile32(std::int64_t m, std::int64_t n, const I* __restrict__ ptr,
                     const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B,
                     T alpha, T beta, Strided<T> C) {
  const int lane = threadIdx.x % kWarp;
  const std::int64_t row = blockIdx.x * std::int64_t{kWarpsPerBlock} + threadIdx.x / kWarp;
  if (row >= m) return;  // the whole warp leaves together
  const std::int64_t j0 = blockIdx.y * std::int64_t{kWarp * CPL} + lane;
  bool active[CPL];  // the tail tile has lanes past the last column
#pragma unroll
  for (int q = 0; q < CPL; ++q)
    active[q] = j0 + q * kWarp < n;
  const std::int64_t begin = load(ptr + row), end = load(ptr + row + 1);
  T acc[CPL];
#pragma unroll
  for (int q = 0; q < CPL; ++q)
    acc[q] = T{0};
  for_each_nonzero<CPL>(begin, end, col, val, B, j0, active,
                        [&](std::int64_t, T vt, const T(&b)[CPL]) {
#pragma unroll
                          for (int q = 0; q < CPL; ++q)
                            acc[q] += vt * b[q];
                        });
  // Store: CPL coalesced segments of a row of C (row-major).
#pragma unroll
  for (int q = 0; q < CPL; ++q)
    if (active[q]) store_c(C, row, j0 + q * kWarp, alpha, acc[q], beta);
}

/// n > 16 and short rows: as row_split_tile32, but a warp sums a group of
/// R consecutive rows (1 < R < 32). The group's nonzeros are contiguous, so
/// each batch of 32 covers several rows: the sum stores a row of C whenever
/// it crosses the end of a row. The R + 1 row pointers are loaded once, one
/// per lane, and broadcast by shuffle. R rows of a few nonzeros (stencils)
/// thus keep as many loads of B in flight as one long row, and pay the
/// latency of the row pointers and of the column indices once per group
/// instead of once per row.
template <int CPL, class T, class I>
__global__ void __launch_bounds__(kBlock, 4)  // ≤ 128 registers: 16 warps per SM at least
    row_block_tile32(std::int64_t m, std::int64_t n, int rows_per_warp, const I* __restrict__ ptr,
                     const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B,
                     T alpha, T beta, Strided<T> C) {
  const int lane = threadIdx.x % kWarp;
  const std::int64_t first =
      (blockIdx.x * std::int64_t{kWarpsPerBlock} + threadIdx.x / kWarp) * rows_per_warp;
  if (first >= m) return;  // the whole warp leaves together
  const int rows = static_cast<int>(min(std::int64_t{rows_per_warp}, m - first));
  // Lane r ≤ rows holds ptr[first + r].
  const std::int64_t p = lane <= rows ? static_cast<std::int64_t>(load(ptr + first + lane)) : 0;
  const std::int64_t begin = __shfl_sync(kFullMask, p, 0), end = __shfl_sync(kFullMask, p, rows);
  const std::int64_t j0 = blockIdx.y * std::int64_t{kWarp * CPL} + lane;
  bool active[CPL];  // the tail tile has lanes past the last column
#pragma unroll
  for (int q = 0; q < CPL; ++q)
    active[q] = j0 + q * kWarp < n;
  T acc[CPL];
#pragma unroll
  for (int q = 0; q < CPL; ++q)
    acc[q] = T{0};
  // The row being summed (r-th of the group) and where it ends; uniform
  // across the warp, so the shuffles in close_row see every lane.
  int r = 0;
  std::int64_t row_end = __shfl_sync(kFullMask, p, 1);
  const auto close_row = [&] {
#pragma unroll
    for (int q = 0; q < CPL; ++q) {
      if (active[q]) store_c(C, first + r, j0 + q * kWarp, alpha, acc[q], beta);
      acc[q] = T{0};
    }
    ++r;
    row_end = __shfl_sync(kFullMask, p, min(r + 1, rows));
  };
  for_each_nonzero<CPL>(begin, end, col, val, B, j0, active,
                        [&](std::int64_t k, T vt, const T(&b)[CPL]) {
                          while (k >= row_end)  // rows ending here (empty ones too)
                            close_row();
#pragma unroll
                          for (int q = 0; q < CPL; ++q)
                            acc[q] += vt * b[q];
                        });
  // The last row, and empty rows at the end of the group.
  while (r < rows)
    close_row();
}

/// n ≤ 16: warp per row, split into 32/W slots of W lanes; slot s takes the
/// row's nonzeros s, s + 32/W, ...; lane (s, j) accumulates column j; the
/// slots are then summed with xor shuffles.
template <int W, class T, class I>
__global__ void __launch_bounds__(kBlock)
    row_split_narrow(std::int64_t m, std::int64_t n, const I* __restrict__ ptr,
                     const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B,
                     T alpha, T beta, Strided<T> C) {
  constexpr int kSlots = kWarp / W;
  const int lane = threadIdx.x % kWarp;
  const int slot = lane / W;
  const int j = lane % W;
  const bool active = j < n;
  const std::int64_t row = blockIdx.x * std::int64_t{kWarpsPerBlock} + threadIdx.x / kWarp;
  if (row >= m) return;  // the whole warp leaves together
  const std::int64_t begin = load(ptr + row), end = load(ptr + row + 1);
  // Accumulate this slot's share of the row.
  // Batches of kU nonzeros per lane, all loads of a batch issued before its
  // first product (the last batch predicated).
  constexpr int kU = 4;
  T acc = 0;
  if (active) {
    for (std::int64_t k = begin + slot; k < end; k += kU * kSlots) {
      I c[kU];
      T v[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const bool in = k + u * kSlots < end;
        c[u] = in ? load(col + k + u * kSlots) : I{0};
        v[u] = in ? load(val + k + u * kSlots) : T{0};
      }
      T b[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u)
        b[u] = k + u * kSlots < end ? load_b(B, c[u], j) : T{0};
#pragma unroll
      for (int u = 0; u < kU; ++u)
        if (k + u * kSlots < end) acc += v[u] * b[u];
    }
  }
  // Reduce across slots (lanes j, j + W, j + 2W, ... hold the same column).
#pragma unroll
  for (int offset = kWarp / 2; offset >= W; offset /= 2)
    acc += __shfl_xor_sync(kFullMask, acc, offset);
  if (slot == 0 && active) store_c(C, row, j, alpha, acc, beta);
}

// ---- merge-based ------------------------------------------------------------

/// Nonzeros per unit (a group of W lanes): four batches of W, at least 32.
template <int W>
constexpr std::int64_t unit_nnz() {
  return W * 4 < 32 ? 32 : W * 4;
}

/// part[u] = the first row that starts at or after nonzero u*unit_nnz (the
/// first row unit u owns); part[units] = m.
template <class I>
__global__ void merge_partition(std::int64_t m, std::int64_t units, std::int64_t per_unit,
                                const I* __restrict__ ptr, I* __restrict__ part) {
  const std::int64_t u = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (u > units) return;
  if (u == units) {
    part[u] = static_cast<I>(m);
    return;
  }
  // Lower bound of k0 in ptr[0..m].
  const std::int64_t k0 = u * per_unit;
  std::int64_t lo = 0, hi = m;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (load(ptr + mid) < k0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  part[u] = static_cast<I>(lo);
}

/// The row whose tail unit u starts inside (its carry-out row), or -1 when
/// the unit starts at a row boundary.
template <class I>
__device__ __forceinline__ std::int64_t carry_row(std::int64_t u, std::int64_t per_unit,
                                                  const I* ptr, const I* part) {
  const std::int64_t first = load(part + u);
  return load(ptr + first) > u * per_unit ? first - 1 : -1;
}

/// Unit u (a group of W lanes; a whole warp and one column tile when W = 32)
/// takes nonzeros [u*unit_nnz, (u+1)*unit_nnz). Rows that start in the range
/// are the unit's own: it writes them to C (the last one possibly partial;
/// later units' carry-outs complete it). Nonzeros before the first own row
/// belong to the row the range starts inside: their sum is the unit's
/// carry-out, saved in carry[u*n + j].
template <int W, class T, class I>
__global__ void __launch_bounds__(kBlock)
    merge_based(std::int64_t n, std::int64_t nnz, std::int64_t units, const I* __restrict__ ptr,
                const I* __restrict__ col, const T* __restrict__ val, const I* __restrict__ part,
                Strided<const T> B, T alpha, T beta, Strided<T> C, T* __restrict__ carry) {
  constexpr std::int64_t kUnitNnz = unit_nnz<W>();
  constexpr int kBatches = static_cast<int>(kUnitNnz / W);
  const int sub = threadIdx.x % W;  // lane within the group
  const std::int64_t unit = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / W;
  const std::int64_t j = (W == kWarp ? blockIdx.y * std::int64_t{kWarp} : 0) + sub;
  const bool active = j < n;
  const bool valid = unit < units;  // groups past the end only join the shuffles
  const std::int64_t k0 = valid ? unit * kUnitNnz : nnz;
  const std::int64_t k1 = valid ? min(k0 + kUnitNnz, nnz) : nnz;

  // Where the range starts: inside a row begun earlier (head: carry-out) or
  // at the start of the first own row.
  std::int64_t row = 0, row_end = 0;
  bool head = false;
  if (valid) {
    const std::int64_t first = load(part + unit);
    head = load(ptr + first) > k0;
    row = head ? first - 1 : first;
    row_end = load(ptr + row + 1);
  }
  // Close the current row: the head goes to the carry-out, own rows to C.
  T acc = 0;
  const auto close_row = [&] {
    if (active) {
      if (head) {
        carry[unit * n + j] = acc;
      } else {
        store_c(C, row, j, alpha, acc, beta);
      }
    }
    head = false;
    acc = 0;
  };

  // The same number of batches for every group of the warp (the shuffles
  // need all 32 lanes); loads past k1 are skipped.
  for (int batch = 0; batch < kBatches; ++batch) {
    const std::int64_t base = k0 + std::int64_t{batch} * W;
    // Load a batch: one nonzero per lane of the group.
    I c = 0;
    T v = 0;
    if (base + sub < k1) {
      c = load(col + base + sub);
      v = load(val + base + sub);
    }
    // Products: broadcast each nonzero within the group; independent loads
    // of B (ILP W).
    T p[W];
#pragma unroll
    for (int t = 0; t < W; ++t) {
      const I ct = __shfl_sync(kFullMask, c, t, W);
      const T vt = __shfl_sync(kFullMask, v, t, W);
      p[t] = active && base + t < k1 ? vt * load_b(B, ct, j) : T{0};
    }
    // Segmented sum: before a nonzero, close every row that ends before it
    // (empty rows included: they get beta*C).
#pragma unroll
    for (int t = 0; t < W; ++t) {
      const std::int64_t k = base + t;
      if (k < k1) {
        while (k >= row_end) {
          close_row();
          ++row;
          row_end = load(ptr + row + 1);
        }
        acc += p[t];
      }
    }
  }
  if (!valid) return;
  // Close the row the range ends in, then the empty rows after it that this
  // unit owns (only the last unit has any: the trailing empty rows).
  close_row();
  const std::int64_t last_owned = load(part + unit + 1);
  for (++row; row < last_owned; ++row)
    close_row();
}

/// Adds the carry-outs: thread (u, j) acts when unit u is the first of a run
/// of units with the same carry-out row, summing the run in order
/// (deterministic, no atomics).
template <class T, class I>
__global__ void merge_fixup(std::int64_t n, std::int64_t units, std::int64_t per_unit,
                            const I* __restrict__ ptr, const I* __restrict__ part,
                            const T* __restrict__ carry, T alpha, Strided<T> C) {
  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (t >= units * n) return;
  const std::int64_t u = t / n, j = t % n;
  const std::int64_t row = carry_row(u, per_unit, ptr, part);
  if (row < 0 || (u > 0 && carry_row(u - 1, per_unit, ptr, part) == row)) return;
  T sum = 0;
  for (std::int64_t w = u; w < units && carry_row(w, per_unit, ptr, part) == row; ++w)
    sum += carry[w * n + j];
  C.data[row * C.rs + j * C.cs] += alpha * sum;
}

/// The cached partition of one matrix for one unit size.
template <class I>
struct MergePartition {
  std::int64_t units = 0;
  Array<I> part;  ///< units + 1 first rows, in device memory
};

template <class T, class I>
const MergePartition<I>& merge_partition_of(const Csr<T, I>& A, std::int64_t per_unit,
                                            const ExecContext& ctx) {
  // Key: "SPMM" and the unit size.
  const std::uint64_t key = 0x53504d4d00000000ull | static_cast<std::uint64_t>(per_unit);
  return A.structure_cache().template get<MergePartition<I>>(key, [&] {
    MergePartition<I> p;
    p.units = ceil_div(A.nnz(), per_unit);
    p.part = Array<I>(static_cast<std::size_t>(p.units + 1), Space::Device);
    constexpr int kThreads = 256;
    merge_partition<I>
        <<<static_cast<unsigned>(ceil_div(p.units + 1, kThreads)), kThreads, 0, ctx.stream>>>(
            A.rows(), p.units, per_unit, A.row_ptr().data(), p.part.data());
    check_launch("merge_partition");
    // Later calls may use other streams: finish before the entry is shared.
    check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (merge partition)");
    return p;
  });
}

/// A stream-ordered scratch buffer, released on the same stream.
class StreamBuffer {
 public:
  StreamBuffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    const cudaError_t err = cudaMallocAsync(&data_, bytes, stream);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw OutOfMemory("merge-based SpMM: device allocation of " + std::to_string(bytes) +
                            " bytes for carry-outs failed",
                        bytes);
    }
    check(err, "cudaMallocAsync (SpMM carry-outs)");
  }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  ~StreamBuffer() {
    if (data_ != nullptr) cudaFreeAsync(data_, stream_);
  }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

template <int W, class T, class I>
void launch_merge(T alpha, const Csr<T, I>& A, Strided<const T> B, T beta, Strided<T> C,
                  std::int64_t n, const ExecContext& ctx) {
  constexpr std::int64_t kUnitNnz = unit_nnz<W>();
  const MergePartition<I>& p = merge_partition_of(A, kUnitNnz, ctx);
  const StreamBuffer carry(static_cast<std::size_t>(p.units * n) * sizeof(T), ctx.stream);
  auto* carry_data = static_cast<T*>(carry.data());
  const dim3 grid(static_cast<unsigned>(ceil_div(p.units * W, kBlock)),
                  static_cast<unsigned>(W == kWarp ? ceil_div(n, kWarp) : 1));
  merge_based<W, T, I><<<grid, kBlock, 0, ctx.stream>>>(
      n, A.nnz(), p.units, A.row_ptr().data(), A.col_idx().data(), A.values().data(), p.part.data(),
      B, alpha, beta, C, carry_data);
  check_launch("merge_based");
  constexpr int kThreads = 256;
  merge_fixup<T, I>
      <<<static_cast<unsigned>(ceil_div(p.units * n, kThreads)), kThreads, 0, ctx.stream>>>(
          n, p.units, kUnitNnz, A.row_ptr().data(), p.part.data(), carry_data, alpha, C);
  check_launch("merge_fixup");
}

/// Row groups for n > 16: rows with a mean of at most kRowBlockMean
/// nonzeros go to row_block_tile32 in groups of R rows, R the largest power
/// of two ≤ 16 with R·mean ≤ kRowBlockNnz / 2; longer rows to
/// row_split_tile32, a warp per row. From the H100 at n = 64 (f64): groups
/// of ~64-128 nonzeros were 10-48% faster than a warp per row on the 2-D/3-D
/// stencils with 5-9 nonzeros per row and the 8-band matrix, about equal on
/// the random matrix of 10 per row, and 16-21% slower on the 27-point stencil
/// and FEM b = 6 (26 and 54 per row).
constexpr double kRowBlockMean = 20;
constexpr double kRowBlockNnz = 128;

/// R also stays small enough to leave at least kMinWarpsPerSm warps per SM:
/// on a matrix of a few thousand rows (the density suite's 8192) groups would
/// leave most of the GPU idle.
constexpr std::int64_t kMinWarpsPerSm = 32;

int rows_per_warp(std::int64_t rows, std::int64_t nnz) {
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  if (mean > kRowBlockMean) return 1;
  const std::int64_t min_warps = kMinWarpsPerSm * sm_count();
  int r = 1;
  while (r < 16 && 2 * r * mean <= kRowBlockNnz && rows / (2 * r) >= min_warps)
    r *= 2;
  return r;
}

template <int W, class T, class I>
void launch_row_split(T alpha, const Csr<T, I>& A, Strided<const T> B, T beta, Strided<T> C,
                      std::int64_t n, const ExecContext& ctx) {
  if constexpr (W == kWarp) {
    const int rpw = rows_per_warp(A.rows(), A.nnz());
    const auto blocks = static_cast<unsigned>(ceil_div(A.rows(), kWarpsPerBlock * rpw));
    // Columns per lane: 1 up to n = 32, 2 up to 64, else 4 (tiles of 128).
    const auto launch = [&]<int CPL>() {
      const dim3 grid(blocks, static_cast<unsigned>(ceil_div(n, kWarp * CPL)));
      if (rpw > 1) {
        row_block_tile32<CPL, T, I><<<grid, kBlock, 0, ctx.stream>>>(
            A.rows(), n, rpw, A.row_ptr().data(), A.col_idx().data(), A.values().data(), B, alpha,
            beta, C);
        check_launch("row_block_tile32");
      } else {
        row_split_tile32<CPL, T, I>
            <<<grid, kBlock, 0, ctx.stream>>>(A.rows(), n, A.row_ptr().data(), A.col_idx().data(),
                                              A.values().data(), B, alpha, beta, C);
        check_launch("row_split_tile32");
      }
    };
    if (n <= kWarp) {
      launch.template operator()<1>();
    } else if (n <= 2 * kWarp) {
      launch.template operator()<2>();
    } else {
      launch.template operator()<4>();
    }
  } else {
    const auto blocks = static_cast<unsigned>(ceil_div(A.rows(), kWarpsPerBlock));
    row_split_narrow<W, T, I><<<blocks, kBlock, 0, ctx.stream>>>(
        A.rows(), n, A.row_ptr().data(), A.col_idx().data(), A.values().data(), B, alpha, beta, C);
    check_launch("row_split_narrow");
  }
}

/// Calls f.template operator()<W>() with W = group_width(n) as a constant.
template <class F>
void with_width(std::int64_t n, F&& f) {
  switch (group_width(n)) {
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    case 4:
      return f.template operator()<4>();
    case 8:
      return f.template operator()<8>();
    case 16:
      return f.template operator()<16>();
    default:
      return f.template operator()<32>();
  }
}

}  // namespace

template <Value T, Index I>
void spmm_csr_row_split(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                        const ExecContext& ctx) {
  with_width(B.cols, [&]<int W>() {
    launch_row_split<W>(alpha, A, strided(B), beta, strided(C), B.cols, ctx);
  });
}

template <Value T, Index I>
void spmm_csr_merge_based(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                          const ExecContext& ctx) {
  with_width(B.cols, [&]<int W>() {
    launch_merge<W>(alpha, A, strided(B), beta, strided(C), B.cols, ctx);
  });
}

template <Value T, Index I>
std::string spmm_csr_can_run(const Csr<T, I>& A, const SpmmShape& shape) {
  if (ceil_div(shape.n, kWarp) > kMaxGridY)
    return "n = " + std::to_string(shape.n) + " columns exceed the grid's " +
           std::to_string(kMaxGridY) + " tiles of 32";
  if (ceil_div(A.rows(), kWarpsPerBlock) > kMaxGridX)
    return "too many rows for one launch: " + std::to_string(A.rows());
  if (ceil_div(A.nnz(), 32) * 32 / kBlock > kMaxGridX)
    return "too many nonzeros for one launch: " + std::to_string(A.nnz());
  return {};
}

#define SPX_INST(T, I)                                                                         \
  template void spmm_csr_row_split(T, const Csr<T, I>&, DenseView<const T>, T, DenseView<T>,   \
                                   const ExecContext&);                                        \
  template void spmm_csr_merge_based(T, const Csr<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                     const ExecContext&);                                      \
  template std::string spmm_csr_can_run(const Csr<T, I>&, const SpmmShape&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda

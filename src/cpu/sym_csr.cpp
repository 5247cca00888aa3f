// SYM_CSR SpMV and SpMM on the CPU: y = alpha·(L + D + Lᵀ)·x + beta·y from the
// lower triangle L + D alone, without atomics and deterministically.
//
// Threads own contiguous row ranges [r0, r1), balanced by stored entries +
// rows. Row i gathers its stored entries into y_i and scatters the mirrors
// a_ij·x_i of its strictly lower entries to y_j (j < i). A mirror whose j lies
// in the thread's own range goes to y_j directly (no other thread writes
// there); one with j < r0 goes to a thread-private buffer covering only
// [lo, r0), lo being the smallest column the range touches (for a banded
// matrix, the bandwidth). After a barrier each thread adds to its own rows the
// buffers of the threads after it, in thread order: a fixed order of
// additions for a given thread count. Columns of a row are sorted, so the
// entries going to the buffer (j < r0), those staying in the range
// (r0 <= j < i) and the diagonal are three consecutive runs, each a loop
// without a branch.
//
// The partition (row ranges, lo, buffer offsets) depends on the structure and
// the thread count only and is kept in the matrix's structure cache. The
// buffers take at most kPrivateBytesLimit bytes (common.hpp): beyond, the
// thread count is halved until they fit (one thread needs none). Rows are
// taken in increasing order, so y_i is stored (alpha·sum + beta·y_i, y not
// read when beta = 0) before the first mirror reaches it: no separate pass
// scales y.
//
// SpMM is the same scheme with a row of n accumulators per row of C
// (buffers of (r0 - lo)·n values), reading B and C through their layout.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::cpu {

namespace {

/// Row ranges of a SYM_CSR for `threads` threads (structure-cache entry).
struct SymPartition {
  using Key = int;                   // threads
  std::vector<std::int64_t> begin;   ///< thread t owns rows [begin[t], begin[t+1])
  std::vector<std::int64_t> lo;      ///< smallest column its rows touch (<= begin[t])
  std::vector<std::int64_t> offset;  ///< its buffer: [offset[t], offset[t+1]) of (begin - lo) rows
};

template <Value T, Index I>
SymPartition make_partition(const SymCsr<T, I>& A, int threads) {
  const std::int64_t n = A.rows(), stored = A.stored();
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  SymPartition p;
  p.begin.resize(static_cast<std::size_t>(threads) + 1);
  p.lo.resize(static_cast<std::size_t>(threads));
  p.offset.resize(static_cast<std::size_t>(threads) + 1);
  // Work of rows [0, r) is ptr[r] + r: the first r whose work reaches t/threads of the total.
  const std::int64_t total = stored + n;
  for (int t = 0; t <= threads; ++t) {
    const std::int64_t goal = total * t / threads;
    std::int64_t a = 0, b = n;
    while (a < b) {
      const std::int64_t r = (a + b) / 2;
      if (std::int64_t{ptr[r]} + r < goal)
        a = r + 1;
      else
        b = r;
    }
    p.begin[t] = t == threads ? n : a;
  }
  p.offset[0] = 0;
  for (int t = 0; t < threads; ++t) {
    std::int64_t lo = p.begin[t];
    for (std::int64_t i = p.begin[t]; i < p.begin[t + 1]; ++i)
      if (ptr[i + 1] > ptr[i]) lo = std::min<std::int64_t>(lo, col[ptr[i]]);
    p.lo[t] = lo;
    p.offset[t + 1] = p.offset[t] + (p.begin[t] - lo);
  }
  return p;
}

template <Value T, Index I>
const SymPartition& partition(const SymCsr<T, I>& A, int threads) {
  return A.structure_cache().template get<SymPartition>(threads,
                                                        [&] { return make_partition(A, threads); });
}

/// Where the product reads x and writes y: column c of row i at
/// x[i·xr + c·xc], y[i·yr + c·yc], n columns (SpMV: n = 1).
template <Value T>
struct Operands {
  const T* x;
  std::int64_t xr, xc;
  T* y;
  std::int64_t yr, yc;
  std::int64_t n;
};

/// The product over `n` columns (N > 0: N at compile time, else ops.n).
template <int N, Value T, Index I>
void sym_product(T alpha, const SymCsr<T, I>& A, T beta, const Operands<T>& ops) {
  const std::int64_t n = N > 0 ? N : ops.n;
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  // Buffers reaching far back (an arrow matrix: every range back to row 0)
  // take fewer threads rather than more than kPrivateBytesLimit bytes.
  int threads = threads_for((A.stored() + A.rows()) * n);
  const SymPartition* pp = &partition(A, threads);
  while (threads > 1 &&
         pp->offset[threads] * n * static_cast<std::int64_t>(sizeof(T)) > kPrivateBytesLimit) {
    threads /= 2;
    pp = &partition(A, threads);
  }
  const SymPartition& p = *pp;
  // Zeroed by the threads that own the parts (no serial pass over it).
  const auto buffer =
      std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(p.offset[threads] * n));
  const T* x = ops.x;
  T* y = ops.y;
  // SpMV: unit strides known at compile time.
  const std::int64_t xr = N == 1 ? 1 : ops.xr, xc = N == 1 ? 0 : ops.xc;
  const std::int64_t yr = N == 1 ? 1 : ops.yr, yc = N == 1 ? 0 : ops.yc;

  // Range t: scale its y, gather its rows, scatter the mirrors.
  const auto own = [&](int t) {
    const std::int64_t r0 = p.begin[t], r1 = p.begin[t + 1], lo = p.lo[t];
    T* buf = buffer.get() + p.offset[t] * n;  // row j < r0 at buf[(j - lo)·n + c]
    std::fill(buf, buf + (r0 - lo) * n, T{0});
    // Row i's own sum is stored (with beta·y_i) before any mirror reaches
    // y_i: mirrors to i come from the rows after it.
    for (std::int64_t i = r0; i < r1; ++i) {
      const std::int64_t b = ptr[i], e = ptr[i + 1];
      if (b == e) {
        for (std::int64_t c = 0; c < n; ++c) {
          T& out = y[i * yr + c * yc];
          out = beta == T{0} ? T{0} : beta * out;
        }
        continue;
      }
      const bool diagonal = col[e - 1] == i;
      const std::int64_t lower_end = diagonal ? e - 1 : e;
      // First entry whose mirror stays in the range: columns are sorted.
      const std::int64_t mid =
          col[b] >= r0 ? b : std::lower_bound(col + b, col + lower_end, static_cast<I>(r0)) - col;
      for (std::int64_t c = 0; c < n; ++c) {
        const T xi = x[i * xr + c * xc];
        const T ax = alpha * xi;
        T sum = diagonal ? val[e - 1] * xi : T{0};
        for (std::int64_t k = b; k < mid; ++k) {
          const std::int64_t j = col[k];
          sum += val[k] * x[j * xr + c * xc];
          buf[(j - lo) * n + c] += val[k] * ax;
        }
        for (std::int64_t k = mid; k < lower_end; ++k) {
          const std::int64_t j = col[k];
          sum += val[k] * x[j * xr + c * xc];
          y[j * yr + c * yc] += val[k] * ax;
        }
        axpby_store(y, i * yr + c * yc, alpha, sum, beta);
      }
    }
  };
  // Range t: the buffers of the later ranges that reach into it, in order.
  const auto reduce = [&](int t) {
    const std::int64_t r0 = p.begin[t], r1 = p.begin[t + 1];
    for (int u = t + 1; u < threads; ++u) {
      const std::int64_t from = std::max(r0, p.lo[u]), to = std::min(r1, p.begin[u]);
      const T* ub = buffer.get() + p.offset[u] * n;
      for (std::int64_t i = from; i < to; ++i)
        for (std::int64_t c = 0; c < n; ++c)
          y[i * yr + c * yc] += ub[(i - p.lo[u]) * n + c];
    }
  };
  // A team smaller than asked for (nested parallelism, OMP_DYNAMIC) takes
  // several ranges per thread: the result is the same.
#pragma omp parallel num_threads(threads)
  {
    const int team = omp_get_num_threads();
    for (int t = omp_get_thread_num(); t < threads; t += team)
      own(t);
#pragma omp barrier
    for (int t = omp_get_thread_num(); t < threads; t += team)
      reduce(t);
  }
}

}  // namespace

template <Value T, Index I>
void spmv_sym_csr_rows(T alpha, const SymCsr<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext&) {
  sym_product<1>(alpha, A, beta, Operands<T>{x, 1, 0, y, 1, 0, 1});
}

template <Value T, Index I>
void spmm_sym_csr_rows(T alpha, const SymCsr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                       const ExecContext&) {
  const bool b_rows = B.layout == Layout::RowMajor, c_rows = C.layout == Layout::RowMajor;
  const Operands<T> ops{B.data, b_rows ? B.ld : 1, b_rows ? 1 : B.ld,
                        C.data, c_rows ? C.ld : 1, c_rows ? 1 : C.ld,
                        B.cols};
  sym_product<0>(alpha, A, beta, ops);
}

#define SPX_INST(T, I)                                                                          \
  template void spmv_sym_csr_rows(T, const SymCsr<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmm_sym_csr_rows(T, const SymCsr<T, I>&, DenseView<const T>, T, DenseView<T>,  \
                                  const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu

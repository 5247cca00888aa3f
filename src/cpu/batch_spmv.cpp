// Batched SpMV on the CPU. The matrices are independent, so the parallel loop
// runs over matrices with a dynamic schedule (sizes may differ by orders of
// magnitude: static shares would leave threads idle). Each matrix is
// multiplied by one thread, rows in order, so results are reproducible.
#include <algorithm>
#include <optional>
#include <vector>

#include "common/first_error.hpp"
#include "core/instantiate.hpp"
#include "cpu/batch_kernels.hpp"
#include "cpu/common.hpp"

namespace spx::cpu {

namespace {

/// Matrices per dynamic chunk: about 16 chunks per thread, at least 1.
int chunk_for(std::int64_t count) {
  const std::int64_t per = count / (std::int64_t{omp_get_max_threads()} * 16);
  return static_cast<int>(std::clamp<std::int64_t>(per, 1, 64));
}

/// Threads worth using for a batch of `nnz` nonzeros in `count` matrices.
int batch_threads(std::int64_t count, std::int64_t nnz) {
  return static_cast<int>(
      std::min<std::int64_t>(threads_for(nnz), std::max<std::int64_t>(count, 1)));
}

/// Where matrix b lies in the batch: rows [row0, row0 + m) of y, x from
/// col0, stored entries [val0, val1).
struct Slice {
  std::int64_t b, row0, m, col0, val0, val1;
};

/// Runs every matrix of the batch, each by one thread, with a dynamic
/// schedule. make_body() is called once per thread and returns body(slice),
/// which computes one matrix (and may keep scratch between the matrices of
/// its thread).
template <class Batch, class MakeBody>
void for_each_matrix(const Batch& A, MakeBody&& make_body) {
  const std::int64_t count = A.count();
  const std::int64_t* row_off = A.row_offsets().data();
  const std::int64_t* col_off = A.col_offsets().data();
  const std::int64_t* val_off = A.value_offsets().data();
  const int chunk = chunk_for(count);
  detail::FirstError err;  // make_body may allocate scratch
#pragma omp parallel num_threads(batch_threads(count, A.nnz()))
  {
    std::optional<decltype(make_body())> body;
    err.run([&] { body.emplace(make_body()); });
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t b = 0; b < count; ++b)
      err.run([&] {
        (*body)(Slice{b, row_off[b], row_off[b + 1] - row_off[b], col_off[b], val_off[b],
                      val_off[b + 1]});
      });
  }
  err.rethrow();
}

}  // namespace

template <Value T, Index I>
void batch_spmv_csr(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext&) {
  const bool uniform = A.is_uniform();
  const I* row_ptr = A.row_ptr().data();
  const I* col_idx = A.col_idx().data();
  const T* values = A.values().data();
  for_each_matrix(A, [&] {
    return [&](const Slice& s) {
      // Matrix b's slices: its own row pointer, entries and vectors.
      const I* ptr = uniform ? row_ptr : row_ptr + s.row0 + s.b;
      const I* col = uniform ? col_idx : col_idx + s.val0;
      const T* val = values + s.val0;
      const T* xb = x + s.col0;
      T* yb = y + s.row0;
      for (std::int64_t r = 0; r < s.m; ++r) {
        T sum = 0;
        for (I k = ptr[r]; k < ptr[r + 1]; ++k)
          sum += val[k] * xb[col[k]];
        axpby_store(yb, r, alpha, sum, beta);
      }
    };
  });
}

template <Value T, Index I>
void batch_spmv_coo(T alpha, const BatchCoo<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext&) {
  const I* row_idx = A.row_idx().data();
  const I* col_idx = A.col_idx().data();
  const T* values = A.values().data();
  for_each_matrix(A, [&] {
    // Entries may come in any order: sum each matrix into a per-thread row
    // accumulator, then write y once per row (beta = 0: y is not read).
    return [&, acc = std::vector<T>()](const Slice& s) mutable {
      acc.assign(static_cast<std::size_t>(s.m), T{0});
      const T* xb = x + s.col0;
      for (std::int64_t k = s.val0; k < s.val1; ++k)
        acc[row_idx[k]] += values[k] * xb[col_idx[k]];
      T* yb = y + s.row0;
      for (std::int64_t r = 0; r < s.m; ++r)
        axpby_store(yb, r, alpha, acc[r], beta);
    };
  });
}

template <Value T, Index I>
void batch_spmv_ell(T alpha, const BatchEll<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext&) {
  const I* row_len = A.row_len().data();
  const I* col_idx = A.col_idx().data();
  const T* values = A.values().data();
  for_each_matrix(A, [&] {
    return [&](const Slice& s) {
      // Slot (r, j) of the matrix is at val0 + j*m + r (column major).
      const std::int64_t m = s.m;
      const I* len = row_len + s.row0;
      const I* col = col_idx + s.val0;
      const T* val = values + s.val0;
      const T* xb = x + s.col0;
      T* yb = y + s.row0;
      for (std::int64_t r = 0; r < m; ++r) {
        T sum = 0;
        for (std::int64_t j = 0; j < len[r]; ++j)
          sum += val[j * m + r] * xb[col[j * m + r]];
        axpby_store(yb, r, alpha, sum, beta);
      }
    };
  });
}

template <Value T, Index I>
void register_batch_kernels(Registry<T, I>& reg) {
  const KernelInfo info{Op::BatchSpmv, Format::Csr, Algorithm::CpuRows, Backend::Cpu, true, false};
  reg.template add_batch_spmv<BatchCsr<T, I>>(info, always<BatchCsr<T, I>>, batch_spmv_csr<T, I>);
  reg.template add_batch_spmv<BatchCoo<T, I>>(info, always<BatchCoo<T, I>>, batch_spmv_coo<T, I>);
  reg.template add_batch_spmv<BatchEll<T, I>>(info, always<BatchEll<T, I>>, batch_spmv_ell<T, I>);
  // One CPU algorithm per format: Auto is it.
  reg.template set_batch_spmv_auto<BatchCsr<T, I>>(
      Backend::Cpu, [](const BatchCsr<T, I>&) { return Algorithm::CpuRows; });
  reg.template set_batch_spmv_auto<BatchCoo<T, I>>(
      Backend::Cpu, [](const BatchCoo<T, I>&) { return Algorithm::CpuRows; });
  reg.template set_batch_spmv_auto<BatchEll<T, I>>(
      Backend::Cpu, [](const BatchEll<T, I>&) { return Algorithm::CpuRows; });
}

#define SPX_INST(T, I) template void register_batch_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu

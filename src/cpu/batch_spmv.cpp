// Batched SpMV on the CPU. The matrices are independent, so the parallel loop
// runs over matrices with a dynamic schedule (sizes may differ by orders of
// magnitude: static shares would leave threads idle). Each matrix is
// multiplied by one thread, rows in order, so results are reproducible.
#include <algorithm>
#include <vector>

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

}  // namespace

template <Value T, Index I>
void batch_spmv_csr(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext&) {
  const std::int64_t count = A.count();
  const std::int64_t* row_off = A.row_offsets().data();
  const std::int64_t* col_off = A.col_offsets().data();
  const std::int64_t* val_off = A.value_offsets().data();
  const bool uniform = A.is_uniform();
  const I* row_ptr = A.row_ptr().data();
  const I* col_idx = A.col_idx().data();
  const T* values = A.values().data();
  const int chunk = chunk_for(count);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(batch_threads(count, A.nnz()))
  for (std::int64_t b = 0; b < count; ++b) {
    // Matrix b's slices: its own row pointer, entries and vectors.
    const std::int64_t m = row_off[b + 1] - row_off[b];
    const I* ptr = uniform ? row_ptr : row_ptr + row_off[b] + b;
    const I* col = uniform ? col_idx : col_idx + val_off[b];
    const T* val = values + val_off[b];
    const T* xb = x + col_off[b];
    T* yb = y + row_off[b];
    for (std::int64_t r = 0; r < m; ++r) {
      T sum = 0;
      for (I k = ptr[r]; k < ptr[r + 1]; ++k)
        sum += val[k] * xb[col[k]];
      axpby_store(yb, r, alpha, sum, beta);
    }
  }
}

template <Value T, Index I>
void batch_spmv_coo(T alpha, const BatchCoo<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext&) {
  const std::int64_t count = A.count();
  const std::int64_t* row_off = A.row_offsets().data();
  const std::int64_t* col_off = A.col_offsets().data();
  const std::int64_t* val_off = A.value_offsets().data();
  const I* row_idx = A.row_idx().data();
  const I* col_idx = A.col_idx().data();
  const T* values = A.values().data();
  const int chunk = chunk_for(count);
#pragma omp parallel num_threads(batch_threads(count, A.nnz()))
  {
    // Entries may come in any order: sum each matrix into a per-thread row
    // accumulator, then write y once per row (beta = 0: y is not read).
    std::vector<T> acc;
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t b = 0; b < count; ++b) {
      const std::int64_t m = row_off[b + 1] - row_off[b];
      acc.assign(static_cast<std::size_t>(m), T{0});
      const T* xb = x + col_off[b];
      for (std::int64_t k = val_off[b]; k < val_off[b + 1]; ++k)
        acc[row_idx[k]] += values[k] * xb[col_idx[k]];
      T* yb = y + row_off[b];
      for (std::int64_t r = 0; r < m; ++r)
        axpby_store(yb, r, alpha, acc[r], beta);
    }
  }
}

template <Value T, Index I>
void batch_spmv_ell(T alpha, const BatchEll<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext&) {
  const std::int64_t count = A.count();
  const std::int64_t* row_off = A.row_offsets().data();
  const std::int64_t* col_off = A.col_offsets().data();
  const std::int64_t* val_off = A.value_offsets().data();
  const I* row_len = A.row_len().data();
  const I* col_idx = A.col_idx().data();
  const T* values = A.values().data();
  const int chunk = chunk_for(count);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(batch_threads(count, A.nnz()))
  for (std::int64_t b = 0; b < count; ++b) {
    // Slot (r, j) of matrix b is at val_off[b] + j*m + r (column major).
    const std::int64_t m = row_off[b + 1] - row_off[b];
    const I* len = row_len + row_off[b];
    const I* col = col_idx + val_off[b];
    const T* val = values + val_off[b];
    const T* xb = x + col_off[b];
    T* yb = y + row_off[b];
    for (std::int64_t r = 0; r < m; ++r) {
      T sum = 0;
      for (std::int64_t j = 0; j < len[r]; ++j)
        sum += val[j * m + r] * xb[col[j * m + r]];
      axpby_store(yb, r, alpha, sum, beta);
    }
  }
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

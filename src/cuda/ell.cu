// ELL (ELLPACK-R) SpMV on the GPU (survey §4.2, PSBLAS's ELL): one or two
// threads per row over the column-major arrays, each row read only up to its
// stored length (row_len), so padding costs no memory traffic. The kernel is
// the shared ELLPACK row kernel (ellpack_rows.cuh) with the ELL layout.
//
// Auto rule (choose_ellpack_threads, used by ELL, HLL and HYB): PSBLAS gives
// each row one or two threads depending on the mean row length. SpX uses two
// threads per row when
//   - the mean row length nnz/rows exceeds 24 (a single thread's chain of
//     loads gets long; two lanes halve it and still read whole segments), or
//   - the mean exceeds 8 and the matrix has fewer rows than the GPU holds
//     resident threads (SMs × max threads per SM): one thread per row would
//     leave part of the GPU idle, two double the threads at work;
// otherwise one thread per row, which keeps the most independent loads in
// flight per thread (the lesson of the CSR kernels on the H200). The
// thresholds are a first choice, to be revisited with the benchmark.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/ellpack_rows.cuh"
#include "cuda/launch.hpp"

namespace spx::cuda {

template <int V, Value T, Index I>
void spmv_ell_rows(T alpha, const Ell<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  static_assert(V == 1 || V == 2);
  ellpack::launch_rows<V>(V == 1 ? "ell_rows_kernel<1>" : "ell_rows_kernel<2>", A,
                          ellpack::EllLayout{A.rows()}, x, alpha, beta, y, ctx.stream);
}

Algorithm choose_ellpack_threads(std::int64_t rows, std::int64_t nnz) {
  if (rows <= 0) return Algorithm::ThreadPerRow;
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  if (mean > 24.0) return Algorithm::TwoThreadsPerRow;
  if (mean > 8.0 && rows < resident_threads()) return Algorithm::TwoThreadsPerRow;
  return Algorithm::ThreadPerRow;
}

#define SPX_INST(T, I)                                                                      \
  template void spmv_ell_rows<1>(T, const Ell<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_ell_rows<2>(T, const Ell<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda

// The merge-path search (Merrill and Garland), shared by the CPU kernels
// (src/cpu/csr.cpp, src/cpu/spmm_csr.cpp) and the CUDA ones (through
// src/cuda/primitives.cuh). Plain C++ for a host compiler; host and device
// code under nvcc. Includes no backend header.
#pragma once

#include <cstdint>

/// A function for host and device code (nvcc), or a plain inline one.
#ifndef SPX_HOST_DEVICE
#if defined(__CUDACC__)
#define SPX_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SPX_HOST_DEVICE inline
#endif
#endif

namespace spx::detail {

/// Merge-path search. The path merges the row ends `row_end(0..rows)`
/// (absolute nonzero offsets, non-decreasing) with the nonzero indices
/// first_nz, first_nz+1, ..., first_nz+nnz-1; a row end is taken as soon as
/// every nonzero before it is taken. Returns, for the point on diagonal d
/// (0 <= d <= rows + nnz), the number of rows consumed; the number of
/// nonzeros consumed is d minus that.
template <class RowEnd>
SPX_HOST_DEVICE std::int64_t merge_path_rows(std::int64_t d, RowEnd row_end, std::int64_t rows,
                                             std::int64_t first_nz, std::int64_t nnz) {
  std::int64_t lo = d > nnz ? d - nnz : 0;
  std::int64_t hi = d < rows ? d : rows;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    // Row `mid` ends before nonzero first_nz + (d - mid - 1) would be taken.
    if (static_cast<std::int64_t>(row_end(mid)) <= first_nz + (d - mid - 1)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace spx::detail

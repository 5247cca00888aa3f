// The merge-path search (Merrill and Garland), shared by the CPU kernels
// (src/cpu/csr.cpp, src/cpu/spmm_csr.cpp) and the CUDA ones (through
// src/cuda/primitives.cuh). Plain C++ for a host compiler; host and device
// code under nvcc. Includes no backend header.
#pragma once

#include <cstdint>
#include <type_traits>

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
/// nonzeros consumed is d minus that. N is the arithmetic: 64-bit over a
/// whole matrix, int inside a CUDA block's tile (where every quantity fits).
template <class N = std::int64_t, class RowEnd>
SPX_HOST_DEVICE N merge_path_rows(std::type_identity_t<N> d, RowEnd row_end,
                                  std::type_identity_t<N> rows, std::type_identity_t<N> first_nz,
                                  std::type_identity_t<N> nnz) {
  N lo = d > nnz ? d - nnz : 0;
  N hi = d < rows ? d : rows;
  while (lo < hi) {
    const N mid = (lo + hi) >> 1;  // 0 <= lo < hi <= rows: no overflow, no sign
    // Row `mid` ends before nonzero first_nz + (d - mid - 1) would be taken.
    if (static_cast<N>(row_end(mid)) <= first_nz + (d - mid - 1)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace spx::detail

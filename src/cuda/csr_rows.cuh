// The row walk of the CSR kernels that give each row V consecutive lanes
// (csr.cu: scalar, vector, adaptive; csr_binned.cu: the short rows of the
// binned kernel). No fmt here: .cu files include this.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace spx::cuda {

/// This lane's share of sum(val[k] * x[col[k]]) over k in [begin, end): the
/// row's V lanes (this one at position `sub`) stride over its entries in
/// batches of U entries per lane (the last one predicated), all loads of a
/// batch issued before its first product: U independent loads in flight per
/// lane. Stream: column indices and values read with evict-first loads.
template <int V, int U, bool Stream, class T, class I>
__device__ __forceinline__ T lanes_row_sum(std::int64_t begin, std::int64_t end, int sub,
                                           const I* __restrict__ col, const T* __restrict__ val,
                                           const T* __restrict__ x) {
  T sum = 0;
  for (std::int64_t k = begin + sub; k < end; k += U * V) {
    I c[U];
    T v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const bool in = k + u * V < end;
      if constexpr (Stream) {
        c[u] = in ? __ldcs(col + k + u * V) : I{0};
        v[u] = in ? __ldcs(val + k + u * V) : T{0};
      } else {
        c[u] = in ? col[k + u * V] : I{0};
        v[u] = in ? val[k + u * V] : T{0};
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u * V < end) sum += v[u] * __ldg(x + c[u]);
  }
  return sum;
}

}  // namespace spx::cuda

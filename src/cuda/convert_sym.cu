// The device passes of CSR → SYM_CSR (convert_device.hpp): the lower row
// lengths with the symmetry test, and the copy of the lower triangle. V
// consecutive lanes per row (V from the mean row length, as CSR's adaptive
// SpMV).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/convert_passes.cuh"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda::conv {
namespace {

template <class T>
__device__ __forceinline__ bool same_value(T a, T b) {
  return a == b || (a != a && b != b);  // sym_equal of convert_checks.hpp
}

/// count[r] = entries of row r with column <= r; every entry (r, j) above the
/// diagonal looks up (j, r) and, when it is absent or differs, lowers
/// state[0] to its position; state[1] counts the rows with a diagonal entry.
template <int V, class T, class I>
__global__ void __launch_bounds__(kBlock)
    sym_counts_kernel(std::int64_t rows, const I* __restrict__ ptr, const I* __restrict__ col,
                      const T* __restrict__ val, std::int64_t* __restrict__ count,
                      unsigned long long* __restrict__ state) {
  const std::int64_t thread = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  const std::int64_t row = thread / V;
  const int sub = static_cast<int>(threadIdx.x % V);
  const bool active = row < rows;
  bool diagonal = false;
  if (active) {
    const std::int64_t b = ptr[row], e = ptr[row + 1];
    const std::int64_t split = upper_bound_index(col, b, e, std::int64_t{row});
    diagonal = split > b && static_cast<std::int64_t>(col[split - 1]) == row;
    if (sub == 0) count[row] = split - b;
    for (std::int64_t k = split + sub; k < e; k += V) {
      const std::int64_t j = col[k];
      const std::int64_t jb = ptr[j], je = ptr[j + 1];
      const std::int64_t at =
          upper_bound_index(col, jb, je, std::int64_t{row}) - 1;  // last column <= row
      if (at < jb || static_cast<std::int64_t>(col[at]) != row || !same_value(val[k], val[at]))
        atomicMin(state, static_cast<unsigned long long>(k));
    }
  }
  const unsigned diagonals = __ballot_sync(kFullMask, active && sub == 0 && diagonal);
  if (threadIdx.x % kWarpSize == 0 && diagonals != 0)
    atomicAdd(state + 1, static_cast<unsigned long long>(__popc(diagonals)));
}

/// Row r's first low_ptr[r + 1] - low_ptr[r] entries to out at low_ptr[r].
template <int V, class T, class I>
__global__ void __launch_bounds__(kBlock)
    sym_fill_kernel(std::int64_t rows, const I* __restrict__ ptr, const I* __restrict__ col,
                    const T* __restrict__ val, const std::int64_t* __restrict__ low_ptr,
                    I* __restrict__ out_col, T* __restrict__ out_val) {
  const std::int64_t thread = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  const std::int64_t row = thread / V;
  const int sub = static_cast<int>(threadIdx.x % V);
  if (row >= rows) return;
  const std::int64_t b = ptr[row], to = low_ptr[row], len = low_ptr[row + 1] - to;
  for (std::int64_t k = sub; k < len; k += V) {
    out_col[to + k] = col[b + k];
    out_val[to + k] = val[b + k];
  }
}

int lanes_for(std::int64_t nnz, std::int64_t rows) {
  return adaptive_width(static_cast<double>(nnz) / static_cast<double>(rows));
}

}  // namespace

template <Value T, Index I>
void sym_counts(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
                std::int64_t* count, unsigned long long* state) {
  if (rows <= 0) return;
  with_constant<32, 1, 2, 4, 8, 16>(lanes_for(nnz, rows), [&]<int V>() {
    sym_counts_kernel<V><<<grid_size(rows * V, kBlock, "sym_counts"), kBlock, 0, kStream>>>(
        rows, ptr, col, val, count, state);
  });
  check_launch("sym_counts");
}

template <Value T, Index I>
void sym_fill(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
              const std::int64_t* low_ptr, I* out_col, T* out_val) {
  if (rows <= 0) return;
  with_constant<32, 1, 2, 4, 8, 16>(lanes_for(nnz / 2 + 1, rows), [&]<int V>() {
    sym_fill_kernel<V><<<grid_size(rows * V, kBlock, "sym_fill"), kBlock, 0, kStream>>>(
        rows, ptr, col, val, low_ptr, out_col, out_val);
  });
  check_launch("sym_fill");
}

#define SPX_INST(T, I)                                                               \
  template void sym_counts(const I*, const I*, const T*, std::int64_t, std::int64_t, \
                           std::int64_t*, unsigned long long*);                      \
  template void sym_fill(const I*, const I*, const T*, std::int64_t, std::int64_t,   \
                         const std::int64_t*, I*, T*);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda::conv

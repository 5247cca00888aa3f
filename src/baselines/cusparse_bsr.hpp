// cuSPARSE BSR SpMV behind the registry interface, marked as baselines for
// the BCSR kernels: used by the tests and the benchmark, never chosen by Auto.
// No fmt here: src/cuda/register_blocked.cu (nvcc) includes this header.
#pragma once

#include "spx/registry.hpp"

namespace spx::baselines {

/// Registers CusparseBsrAlg1 (generic cusparseSpMV, CUSPARSE_SPMV_BSR_ALG1)
/// and CusparseBsrmv (legacy cusparse<S|D>bsrmv) for BCSR.
template <Value T, Index I>
void register_cusparse_bsr(Registry<T, I>& registry);

}  // namespace spx::baselines

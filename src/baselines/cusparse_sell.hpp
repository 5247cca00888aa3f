// cuSPARSE sliced ELL SpMV (CUSPARSE_SPMV_SELL_ALG1) behind the registry
// interface, as the baseline of SpX's SELL kernels. No fmt here:
// src/cuda/register_ellpack.cu (nvcc) includes this header.
#pragma once

#include "spx/registry.hpp"

namespace spx::baselines {

/// Registers CusparseSellAlg1 for Format::Sell (baseline = true).
template <Value T, Index I>
void register_cusparse_sell(Registry<T, I>& registry);

}  // namespace spx::baselines

// cuSPARSE SpMV behind the registry interface, marked as baselines: used by
// the tests (a second reference) and by the benchmark, never chosen by Auto.
// No fmt here: src/cuda/register.cu (nvcc) includes this header.
#pragma once

#include "spx/registry.hpp"

namespace spx::baselines {

/// Registers cuSPARSE's generic SpMV: CSR ALG1 and ALG2, COO ALG1 and ALG2.
template <Value T, Index I>
void register_cusparse(Registry<T, I>& registry);

}  // namespace spx::baselines

// The CPU backend's registration functions (the module is in register.cpp).
#pragma once

#include "spx/registry.hpp"

namespace spx::detail {

/// Adds every CPU kernel, Auto rule and vector operation to `registry`.
template <Value T, Index I>
void register_cpu_kernels(Registry<T, I>& registry);
/// The SpMM part (src/cpu/spmm_register.cpp).
template <Value T, Index I>
void register_cpu_spmm_kernels(Registry<T, I>& registry);

}  // namespace spx::detail

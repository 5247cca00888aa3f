// The device runtime as the host code sees it: implemented in src/cuda when
// the CUDA backend is built, and by stubs that throw Unsupported otherwise.
#pragma once

#include <cstddef>

#include "spx/core/types.hpp"

namespace spx::detail {

void* device_malloc(std::size_t bytes);
void device_free(void* p) noexcept;
/// cudaMemcpy with cudaMemcpyDefault; synchronous.
void device_copy(void* dst, const void* src, std::size_t bytes);

}  // namespace spx::detail

// What the cuSPARSE baselines share (host code only; not for nvcc-compiled
// files): status checks, the per-thread handle and the type codes.
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <concepts>
#include <cstdint>
#include <string_view>

#include "spx/core/types.hpp"

namespace spx::baselines {

/// Throws CudaError "call (what) failed: message (cuSPARSE status n)"; `what`
/// (the format and algorithm) may be empty.
void check_cusparse(cusparseStatus_t status, std::string_view call, std::string_view what = {});

/// The calling thread's handle for the current device, created on first use
/// and destroyed when the thread ends. Callers bind it to their stream.
cusparseHandle_t cusparse_handle();

template <Value T>
constexpr cudaDataType cuda_value_type() {
  return std::same_as<T, float> ? CUDA_R_32F : CUDA_R_64F;
}
template <Index I>
constexpr cusparseIndexType_t cusparse_index_type() {
  return std::same_as<I, std::int32_t> ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

}  // namespace spx::baselines

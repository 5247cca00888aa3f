// What the cuSPARSE baselines share (host code only; not for nvcc-compiled
// files): their KernelInfo, status checks, the per-thread handle, the type
// codes, and the cached cusparseSpMV call of the SpMV baselines (CSR, COO,
// SELL, BSR).
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "baselines/cache_entries.hpp"
#include "cuda/check.hpp"
#include "spx/core/array.hpp"
#include "spx/core/types.hpp"
#include "spx/registry.hpp"

namespace spx::baselines {

/// The KernelInfo of a CUDA baseline (KernelInfo::baseline = true).
inline KernelInfo cuda_baseline(Op op, Format format, Algorithm algorithm, bool deterministic) {
  return KernelInfo{op, format, algorithm, Backend::Cuda, deterministic, true};
}

/// Throws "call (what) failed: message (cuSPARSE status n)" as CudaError, or
/// as Unsupported when cuSPARSE answers CUSPARSE_STATUS_NOT_SUPPORTED; `what`
/// (the format and algorithm) may be empty.
void check_cusparse(cusparseStatus_t status, std::string_view call, std::string_view what = {});

/// The calling thread's handle for the current device, created on first use
/// and destroyed when the thread ends, bound to `stream` (cusparseSetStream).
cusparseHandle_t cusparse_handle(cudaStream_t stream);

template <Value T>
constexpr cudaDataType cuda_value_type() {
  return std::same_as<T, float> ? CUDA_R_32F : CUDA_R_64F;
}
template <Index I>
constexpr cusparseIndexType_t cusparse_index_type() {
  return std::same_as<I, std::int32_t> ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

/// y = alpha*A*x + beta*y by cusparseSpMV with algorithm `alg` on `stream`,
/// x and y of nx and ny entries (the lengths cuSPARSE sees). The plan
/// (SpmvPlan<Extra>, cache_entries.hpp) is made on the first call for (A,
/// alg) and kept in A's structure cache: `describe(plan)` creates plan.mat
/// (and fills plan.extra; when it enqueues work on the stream, it waits for
/// it), the work buffer is sized, and with `preprocess` the optional
/// cusparseSpMV_preprocess runs once, after which the stream is synchronized
/// (later calls may come on other streams). `name` (the format and
/// algorithm) goes into every error message.
template <class Extra = NoExtra, Value T, class M, class Describe>
void cusparse_spmv(const M& A, cusparseSpMVAlg_t alg, std::string_view name, bool preprocess,
                   T alpha, const T* x, std::int64_t nx, T beta, T* y, std::int64_t ny,
                   cudaStream_t stream, Describe&& describe) {
  constexpr cudaDataType type = cuda_value_type<T>();
  cusparseHandle_t h = cusparse_handle(stream);
  ConstDnVec vx;
  check_cusparse(cusparseCreateConstDnVec(vx.out(), nx, x, type), "cusparseCreateConstDnVec(x)",
                 name);
  DnVec vy;
  check_cusparse(cusparseCreateDnVec(vy.out(), ny, y, type), "cusparseCreateDnVec(y)", name);

  const SpmvPlan<Extra>& plan = A.structure_cache().template get<SpmvPlan<Extra>>(alg, [&] {
    SpmvPlan<Extra> p;
    describe(p);
    std::size_t bytes = 0;
    check_cusparse(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p.mat, vx,
                                           &beta, vy, type, alg, &bytes),
                   "cusparseSpMV_bufferSize", name);
    p.buffer = Array<std::byte>(bytes, Space::Device);
    if (preprocess) {
      // Optional in cuSPARSE: an algorithm without a preprocessing step
      // may answer NOT_SUPPORTED, and then runs without one.
      const cusparseStatus_t status =
          cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p.mat, vx, &beta, vy,
                                  type, alg, p.buffer.data());
      if (status != CUSPARSE_STATUS_NOT_SUPPORTED)
        check_cusparse(status, "cusparseSpMV_preprocess", name);
      // Later calls may come on other streams: finish before sharing.
      cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(cuSPARSE plan)");
    }
    return p;
  });
  check_cusparse(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, plan.mat, vx, &beta, vy,
                              type, alg, plan.buffer.data()),
                 "cusparseSpMV", name);
}

}  // namespace spx::baselines

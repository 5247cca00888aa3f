// The benchmark's and tests' baselines: third-party products (cuSPARSE,
// cuBLAS, Eigen) registered as kernels of their own, outside the library
// (target spx_baselines; SpX itself never links them). `install()` adds them
// to the registries; each is identified by an external Algorithm value
// (enums.hpp) and reports KernelInfo::baseline = true. Auto never picks one.
#pragma once

#include "spx/core/enums.hpp"
#include "spx/registry.hpp"

namespace spx::baselines {

inline constexpr Algorithm CusparseCsrAlg1 = external_algorithm(0);
inline constexpr Algorithm CusparseCsrAlg2 = external_algorithm(1);
inline constexpr Algorithm CusparseCooAlg1 = external_algorithm(2);
inline constexpr Algorithm CusparseCooAlg2 = external_algorithm(3);
inline constexpr Algorithm CusparseSellAlg1 = external_algorithm(4);
inline constexpr Algorithm CusparseBsrAlg1 = external_algorithm(5);
inline constexpr Algorithm CusparseBsrmv = external_algorithm(6);
inline constexpr Algorithm Eigen = external_algorithm(7);
inline constexpr Algorithm CusparseSpmmAlg1 = external_algorithm(8);
inline constexpr Algorithm CusparseSpmmAlg2 = external_algorithm(9);
inline constexpr Algorithm CusparseSpmmAlg3 = external_algorithm(10);
inline constexpr Algorithm CublasGemm = external_algorithm(11);
inline constexpr Algorithm CusparseLoop = external_algorithm(12);  ///< batched: one call per matrix
inline constexpr Algorithm CusparseCsc =
    external_algorithm(13);  ///< CSC, CUSPARSE_SPMV_ALG_DEFAULT

/// Names the algorithms above and adds every baseline of this build to the
/// registries of the four (value, index) pairs. Idempotent and thread-safe;
/// call it at start-up, before products run (the benchmark and the tests do).
void install();

}  // namespace spx::baselines

// ---- per-family registration (src/baselines/*.cpp) ----
namespace spx::baselines {
template <Value T, Index I>
void register_cusparse(Registry<T, I>& registry);  // CSR, COO, CSC (cusparse.cpp)
template <Value T, Index I>
void register_cusparse_sell(Registry<T, I>& registry);  // SELL (cusparse_sell.cpp)
template <Value T, Index I>
void register_cusparse_bsr(Registry<T, I>& registry);  // BSR (cusparse_bsr.cpp)
template <Value T, Index I>
void register_cusparse_batch(Registry<T, I>& registry);  // batched (cusparse_batch.cpp)
template <Value T, Index I>
void register_spmm_baselines(Registry<T, I>& registry);  // SpMM, GEMM (cusparse_spmm.cpp)
}  // namespace spx::baselines
namespace spx::detail {
template <Value T, Index I>
void register_eigen_baseline(Registry<T, I>& registry);  // CPU (eigen.cpp)
}  // namespace spx::detail

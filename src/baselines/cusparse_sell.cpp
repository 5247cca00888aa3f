// cuSPARSE sliced ELL SpMV (cusparseCreateConstSlicedEll +
// CUSPARSE_SPMV_SELL_ALG1) as the baseline of the SELL kernels.
//
// cuSPARSE's sliced ELL is SpX's SELL-C with σ = 1: slices of C rows, each
// column-major, slice offsets in entries (our slice_ptr, used as is), values
// used as is (padding values are zero). Two differences:
//   - cuSPARSE marks padding by the column index -1, where SpX stores a valid
//     column and skips padding by row length: the first call builds a copy of
//     the column indices with -1 in the padding (a device kernel,
//     sell_cusparse_columns in src/cuda/sell.cu) and keeps it, with the
//     descriptor and the work buffer, in the matrix's structure cache under
//     cache_key(CacheTag::Cusparse, CUSPARSE_SPMV_SELL_ALG1);
//   - cuSPARSE has no row permutation: can_run refuses a SELL built with
//     σ > 1 (rows sorted within windows), with the reason.
// SpX's threads_per_row only pads widths further; cuSPARSE ignores it.
// Handles: one per host thread and device, as in cusparse.cpp (a separate set
// of handles; the two files do not share internals). As for the other
// baselines, the cached work buffer means concurrent calls on one matrix from
// several streams are not supported.
#include "baselines/baselines.hpp"
#include "baselines/cusparse_sell.hpp"
#include "baselines/cusparse_common.hpp"

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/kernels.hpp"
#include "spx/core/array.hpp"

namespace spx::baselines {
namespace {

constexpr std::string_view kName = "SELL, CUSPARSE_SPMV_SELL_ALG1";

/// Throws CudaError naming the call and the algorithm.
void check(cusparseStatus_t status, std::string_view call) {
  check_cusparse(status, call, kName);
}

/// Dense-vector descriptor of one call.
template <class D>
struct Vec {
  D d = nullptr;
  Vec() = default;
  Vec(const Vec&) = delete;
  Vec& operator=(const Vec&) = delete;
  ~Vec() {
    if (d != nullptr) cusparseDestroyDnVec(d);
  }
};

/// What one SELL matrix keeps for cuSPARSE: the column copy with -1 padding,
/// the descriptor over it, and the work buffer.
template <Index I>
struct SellPlan {
  Array<I> col;
  cusparseConstSpMatDescr_t mat = nullptr;
  mutable Array<std::byte> buffer;  ///< device; cuSPARSE writes it during calls

  SellPlan() = default;
  SellPlan(SellPlan&& o) noexcept
      : col(std::move(o.col)), mat(std::exchange(o.mat, nullptr)), buffer(std::move(o.buffer)) {}
  SellPlan& operator=(SellPlan&&) = delete;
  ~SellPlan() {
    if (mat != nullptr) cusparseDestroySpMat(mat);
  }
};

template <Value T, Index I>
std::string can_run_sell(const Sell<T, I>& A) {
  if (A.sigma() > 1 && !A.perm().empty())
    return fmt::format(
        "cuSPARSE sliced ELL has no row permutation, and this SELL was built with sigma = {} "
        "(rows sorted within windows); convert with sigma = 1",
        A.sigma());
  return {};
}

template <Value T, Index I>
void spmv_sell(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  constexpr cudaDataType type = cuda_value_type<T>();
  constexpr cusparseSpMVAlg_t alg = CUSPARSE_SPMV_SELL_ALG1;
  cusparseHandle_t h = cusparse_handle();
  check(cusparseSetStream(h, ctx.stream), "cusparseSetStream");
  Vec<cusparseConstDnVecDescr_t> vx;
  check(cusparseCreateConstDnVec(&vx.d, A.cols(), x, type), "cusparseCreateConstDnVec(x)");
  Vec<cusparseDnVecDescr_t> vy;
  check(cusparseCreateDnVec(&vy.d, A.rows(), y, type), "cusparseCreateDnVec(y)");

  const SellPlan<I>& plan = A.structure_cache().template get<SellPlan<I>>(
      cuda::cache_key(cuda::CacheTag::Cusparse, static_cast<std::uint64_t>(alg)), [&] {
        SellPlan<I> p;
        p.col = Array<I>(static_cast<std::size_t>(A.stored()), Space::Device);
        cuda::sell_cusparse_columns(A, p.col.data(), ctx.stream);
        check(cusparseCreateConstSlicedEll(
                  &p.mat, A.rows(), A.cols(), A.nnz(), A.stored(), A.slice_size(),
                  A.slice_ptr().data(), p.col.data(), A.values().data(), cusparse_index_type<I>(),
                  cusparse_index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, type),
              "cusparseCreateConstSlicedEll");
        std::size_t bytes = 0;
        check(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p.mat, vx.d,
                                      &beta, vy.d, type, alg, &bytes),
              "cusparseSpMV_bufferSize");
        p.buffer = Array<std::byte>(bytes, Space::Device);
        // Later calls may come on other streams: finish the copy before sharing.
        cuda::check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize(cuSPARSE SELL plan)");
        return p;
      });
  check(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, plan.mat, vx.d, &beta, vy.d, type,
                     alg, plan.buffer.data()),
        "cusparseSpMV");
}

}  // namespace

template <Value T, Index I>
void register_cusparse_sell(Registry<T, I>& reg) {
  using SellM = Sell<T, I>;
  // cuSPARSE documents CUSPARSE_SPMV_SELL_ALG1 as bitwise reproducible.
  reg.template add_spmv<SellM>(
      KernelInfo{Op::Spmv, Format::Sell, baselines::CusparseSellAlg1, Backend::Cuda, true, true},
      can_run_sell<T, I>, spmv_sell<T, I>);
}

#define SPX_INST(T, I) template void register_cusparse_sell(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::baselines

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
//     descriptor and the work buffer, in the matrix's structure cache (a
//     SpmvPlan<Array<I>>, src/baselines/cache_entries.hpp);
//   - cuSPARSE has no row permutation: can_run refuses a SELL built with
//     σ > 1 (rows sorted within windows), with the reason.
// SpX's threads_per_row only pads widths further; cuSPARSE ignores it.
// The call itself is the SpMV baselines' cusparse_spmv (cusparse_common.hpp):
// handles per host thread and device; as for the other baselines, the cached
// work buffer means concurrent calls on one matrix from several streams are
// not supported.
#include "baselines/cusparse_sell.hpp"
#include "baselines/baselines.hpp"
#include "baselines/cusparse_common.hpp"

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "spx/core/array.hpp"

namespace spx::baselines {
namespace {

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
  constexpr std::string_view kName = "SELL, CUSPARSE_SPMV_SELL_ALG1";
  cusparse_spmv<Array<I>>(
      A, CUSPARSE_SPMV_SELL_ALG1, kName, false, alpha, x, A.cols(), beta, y, A.rows(), ctx.stream,
      [&](SpmvPlan<Array<I>>& p) {
        Array<I>& col = p.extra;
        col = Array<I>(static_cast<std::size_t>(A.stored()), Space::Device);
        cuda::sell_cusparse_columns(A, col.data(), ctx.stream);
        check_cusparse(
            cusparseCreateConstSlicedEll(
                p.mat.out(), A.rows(), A.cols(), A.nnz(), A.stored(), A.slice_size(),
                A.slice_ptr().data(), col.data(), A.values().data(), cusparse_index_type<I>(),
                cusparse_index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
            "cusparseCreateConstSlicedEll", kName);
        // Later calls may come on other streams: finish the copy before sharing.
        cuda::check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize(cuSPARSE SELL plan)");
      });
}

}  // namespace

template <Value T, Index I>
void register_cusparse_sell(Registry<T, I>& reg) {
  using SellM = Sell<T, I>;
  // cuSPARSE documents CUSPARSE_SPMV_SELL_ALG1 as bitwise reproducible.
  reg.template add_spmv<SellM>(cuda_baseline(Op::Spmv, Format::Sell, CusparseSellAlg1, true),
                               can_run_sell<T, I>, spmv_sell<T, I>);
}

#define SPX_INST(T, I) template void register_cusparse_sell(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::baselines

// cuSPARSE BSR SpMV as registry baselines for BCSR:
//
//   CusparseBsrAlg1  generic API: cusparseCreateConstBsr (column-major blocks,
//                    CUSPARSE_ORDER_COL; 32- or 64-bit indices) and
//                    cusparseSpMV with CUSPARSE_SPMV_BSR_ALG1.
//   CusparseBsrmv    legacy cusparseSbsrmv / cusparseDbsrmv (still declared,
//                    not deprecated, in CUDA 13's cusparse.h) with
//                    CUSPARSE_DIRECTION_COLUMN; 32-bit indices only.
//
// Both take SpX's BCSR arrays as they are (square b×b column-major blocks,
// zero-based block row pointers and block columns). Refusals (can_run): b = 1
// (bsrmv documents blockDim > 1; for both, b = 1 is plain CSR, which the CSR
// baselines cover) and, for bsrmv, 64-bit indices.
//
// Shapes: cuSPARSE sees an (mb·b) × (nb·b) matrix and reads x / writes y over
// those padded lengths. When rows or cols is not a multiple of b, x is copied
// into zero-padded scratch and y goes through scratch of mb·b entries
// (stream-ordered copies; the padded rows are dropped, the scratch is zeroed
// first). When no padding is needed, x and y are passed as they are, also
// with beta = 0: as for the CSR baselines, cuSPARSE does not read y then (the
// GPU tests poison y with NaN to check it), so the timed call is cuSPARSE's
// alone.
//
// Handles: one per host thread and device (cusparse_common.hpp), bound to
// each call's stream. The generic descriptor and work buffer (the SpMV
// baselines' cusparse_spmv), and the legacy matrix descriptor, are created on
// the first call and kept in the matrix's structure cache (SpmvPlan and
// BsrmvDescr, src/baselines/cache_entries.hpp). The cached work buffer is
// shared by every call on that matrix, so concurrent calls on one matrix from
// several streams are not supported for these baselines.
#include "baselines/cusparse_bsr.hpp"
#include "baselines/baselines.hpp"
#include "baselines/cusparse_common.hpp"

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/launch.hpp"

namespace spx::baselines {
namespace {

std::int64_t block_cols(std::int64_t cols, std::int64_t b) {
  return (cols + b - 1) / b;
}

/// Runs product(px, py) with px holding nb·b entries of x and py mb·b entries
/// of y (zero padding past cols and rows), and y left with the result.
template <Value T, Index I, class Product>
void on_padded_vectors(const Bcsr<T, I>& A, const T* x, T beta, T* y, cudaStream_t stream,
                       Product&& product) {
  const std::int64_t b = A.block_size(), m = A.rows(), n = A.cols();
  const std::int64_t pm = A.block_rows() * b, pn = block_cols(n, b) * b;
  const auto bytes = [](std::int64_t count) { return static_cast<std::size_t>(count) * sizeof(T); };
  if (pm == m && pn == n) {
    product(x, y);
    return;
  }
  const std::size_t y_offset = (bytes(pn) + 255) / 256 * 256;
  const cuda::StreamScratch scratch(y_offset + bytes(pm), stream);
  T* px = scratch.as<T>();
  T* py = reinterpret_cast<T*>(scratch.as<unsigned char>() + y_offset);
  cuda::check(cudaMemcpyAsync(px, x, bytes(n), cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpyAsync(padded x)");
  if (pn > n)
    cuda::check(cudaMemsetAsync(px + n, 0, bytes(pn - n), stream), "cudaMemsetAsync(padded x)");
  cuda::check(cudaMemsetAsync(py, 0, bytes(pm), stream), "cudaMemsetAsync(padded y)");
  if (beta != T{0})
    cuda::check(cudaMemcpyAsync(py, y, bytes(m), cudaMemcpyDeviceToDevice, stream),
                "cudaMemcpyAsync(padded y)");
  product(static_cast<const T*>(px), py);
  cuda::check(cudaMemcpyAsync(y, py, bytes(m), cudaMemcpyDeviceToDevice, stream),
              "cudaMemcpyAsync(y from padded y)");
}

// ---- generic API: CUSPARSE_SPMV_BSR_ALG1 -------------------------------------

constexpr std::string_view kAlg1 = "BSR, CUSPARSE_SPMV_BSR_ALG1";

template <Value T, Index I>
void spmv_bsr_alg1(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  const std::int64_t b = A.block_size();
  const std::int64_t mb = A.block_rows(), nb = block_cols(A.cols(), b);
  on_padded_vectors(A, x, beta, y, ctx.stream, [&](const T* px, T* py) {
    cusparse_spmv(A, CUSPARSE_SPMV_BSR_ALG1, kAlg1, false, alpha, px, nb * b, beta, py, mb * b,
                  ctx.stream, [&](SpmvPlan<>& p) {
                    check_cusparse(
                        cusparseCreateConstBsr(p.mat.out(), mb, nb, A.blocks(), b, b,
                                               A.block_ptr().data(), A.block_col().data(),
                                               A.values().data(), cusparse_index_type<I>(),
                                               cusparse_index_type<I>(), CUSPARSE_INDEX_BASE_ZERO,
                                               cuda_value_type<T>(), CUSPARSE_ORDER_COL),
                        "cusparseCreateConstBsr", kAlg1);
                  });
  });
}

// ---- legacy API: cusparse<t>bsrmv -------------------------------------------

constexpr std::string_view kBsrmv = "BSR, cusparse<t>bsrmv";

template <Value T, Index I>
void spmv_bsrmv(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  if constexpr (!std::same_as<I, std::int32_t>) {
    throw Unsupported("cuSPARSE bsrmv takes 32-bit indices");  // can_run refuses first
  } else {
    const int b = A.block_size();
    const int mb = static_cast<int>(A.block_rows());
    const int nb = static_cast<int>(block_cols(A.cols(), b));
    const int nnzb = static_cast<int>(A.blocks());
    cusparseHandle_t h = cusparse_handle(ctx.stream);
    const BsrmvDescr& d = A.structure_cache().template get<BsrmvDescr>([] {
      BsrmvDescr l;
      check_cusparse(cusparseCreateMatDescr(l.descr.out()), "cusparseCreateMatDescr", kBsrmv);
      check_cusparse(cusparseSetMatType(l.descr, CUSPARSE_MATRIX_TYPE_GENERAL),
                     "cusparseSetMatType", kBsrmv);
      check_cusparse(cusparseSetMatIndexBase(l.descr, CUSPARSE_INDEX_BASE_ZERO),
                     "cusparseSetMatIndexBase", kBsrmv);
      return l;
    });
    on_padded_vectors(A, x, beta, y, ctx.stream, [&](const T* px, T* py) {
      cusparseStatus_t status;
      if constexpr (std::same_as<T, float>) {
        status = cusparseSbsrmv(h, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, mb,
                                nb, nnzb, &alpha, d.descr, A.values().data(), A.block_ptr().data(),
                                A.block_col().data(), b, px, &beta, py);
      } else {
        status = cusparseDbsrmv(h, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, mb,
                                nb, nnzb, &alpha, d.descr, A.values().data(), A.block_ptr().data(),
                                A.block_col().data(), b, px, &beta, py);
      }
      check_cusparse(status, "cusparse<t>bsrmv", kBsrmv);
    });
  }
}

}  // namespace

template <Value T, Index I>
void register_cusparse_bsr(Registry<T, I>& reg) {
  using M = Bcsr<T, I>;
  // Neither is documented as bitwise reproducible.
  const auto info = [](Algorithm a) { return cuda_baseline(Op::Spmv, Format::Bcsr, a, false); };
  const auto not_csr = [](const M& A) -> std::string {
    return A.block_size() >= 2 ? std::string()
                               : "cuSPARSE BSR needs b >= 2 (b = 1 is plain CSR: compare with "
                                 "the cuSPARSE CSR baselines)";
  };
  reg.template add_spmv<M>(info(baselines::CusparseBsrAlg1), not_csr, spmv_bsr_alg1<T, I>);
  reg.template add_spmv<M>(
      info(baselines::CusparseBsrmv),
      [not_csr](const M& A) -> std::string {
        if (!std::same_as<I, std::int32_t>)
          return "cuSPARSE bsrmv takes 32-bit indices (int); this matrix has 64-bit indices "
                 "(use cusparse_bsr_alg1 or an int32 matrix)";
        return not_csr(A);
      },
      spmv_bsrmv<T, I>);
}

#define SPX_INST(T, I) template void register_cusparse_bsr(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::baselines

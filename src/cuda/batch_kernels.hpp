// The CUDA backend's batched SpMV: host-side launchers (one per kernel, defined
// in src/cuda/batch_*.cu), the cuSPARSE baselines (src/baselines/
// cusparse_batch.cpp) and their registration (src/cuda/register_batch.cu).
// No fmt here: .cu files include this header.
#pragma once

#include <cstdint>

#include "spx/batch/batch.hpp"
#include "spx/registry.hpp"

namespace spx::cuda {

// ---- one thread block per matrix (Anzt et al. §3), x staged in shared memory
// when it fits, read through the cache otherwise ----

/// CSR (batch_csr.cu), the block's threads taking its matrix's rows by
/// Kind: Scalar, a thread per row; Vector, a warp per row; Adaptive (the
/// paper's CSR smart), per matrix a vector of threads per row, the next
/// power of two of its mean row length.
template <Algorithm Kind, Value T, Index I>
void batch_csr_rows(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext& ctx);
/// CSR-I: equal nonzero shares per warp, starting rows precomputed once per
/// batch (structure cache); segment sums added atomically.
template <Value T, Index I>
void batch_csr_balanced(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                        const ExecContext& ctx);
/// COO: equal entry shares per warp, warp segmented reduction, atomics only
/// at segment heads (batch_coo.cu).
template <Value T, Index I>
void batch_coo_segmented(T alpha, const BatchCoo<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx);
/// ELL: thread per row (batch_ell.cu).
template <Value T, Index I>
void batch_ell_rows(T alpha, const BatchEll<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext& ctx);

// ---- beyond the paper: work sized to each matrix (batch_sized.cu) ----

/// CSR with a per-batch schedule: small matrices packed several per block,
/// large ones split over several blocks, threads per row chosen per block.
template <Value T, Index I>
void batch_csr_sized(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                     const ExecContext& ctx);

// ---- registration ----

/// Adds the kernels above to the registry, with the Auto rules.
template <Value T, Index I>
void register_batch_kernels(Registry<T, I>& registry);

/// Most dynamic shared memory one block may use without opting in, in bytes,
/// for the current device (queried once per device; batch_device.cpp).
int shared_bytes_per_block();

/// Largest grid of one-block-per-matrix kernels (gridDim.x limit).
inline constexpr std::int64_t kMaxBlocks = 2147483647;

}  // namespace spx::cuda

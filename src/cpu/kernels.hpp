// Declarations of the OpenMP kernels, one group per format. Each is defined
// in src/cpu/<format>.cpp (the ELLPACK family: ellpack.cpp) and registered
// in src/cpu/register.cpp.
#pragma once

#include "spx/matrix.hpp"
#include "spx/registry.hpp"

namespace spx::cpu {

// CSR (csr.cpp)
template <Value T, Index I>
void spmv_csr_merge(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// COO (coo.cpp)
template <Value T, Index I>
void spmv_coo_segments(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void spmv_coo_private(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void spmv_coo_atomic(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// CSC (csc.cpp)
template <Value T, Index I>
void spmv_csc_private(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void spmv_csc_atomic(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// ELL, SELL, HLL, HYB (ellpack.cpp), JAD (jad.cpp)
template <Value T, Index I>
void spmv_ell_rows(T alpha, const Ell<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void spmv_sell_rows(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void spmv_hll_rows(T alpha, const Hll<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void spmv_hyb_rows(T alpha, const Hyb<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
// SELL-LP (sell_lp.cpp): SELL's slices, values widened to T
template <Value T, Index I>
void spmv_sell_lp_rows(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext&);
template <Value T, Index I>
void spmv_jad_rows(T alpha, const Jad<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
// SELL-pack (sell_pack.cpp): thread per slice, packed or fallback indices
template <Value T, Index I>
void spmv_sell_pack_rows(T alpha, const SellPack<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext&);
// DIA (dia.cpp), HDI (hdi.cpp): thread per block of rows, diagonals streamed
template <Value T, Index I>
void spmv_dia_rows(T alpha, const Dia<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void spmv_hdi_rows(T alpha, const Hdi<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
// DIA-LP (dia.cpp): DIA's loop, values widened to T
template <Value T, Index I>
void spmv_dia_lp_rows(T alpha, const DiaLp<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
// SYM_CSR (sym_csr.cpp): row ranges per thread, mirrors to private buffers
// SYM_DIA (sym_dia.cpp): thread per block of rows, each lower diagonal read
// for its stored and its mirrored part
template <Value T, Index I>
void spmv_sym_dia_rows(T alpha, const SymDia<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext&);
template <Value T, Index I>
void spmv_sym_csr_rows(T alpha, const SymCsr<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext&);

// BCSR (bcsr.cpp): thread per block row, block size compiled in for common b
template <Value T, Index I>
void spmv_bcsr_block_rows(T alpha, const Bcsr<T, I>& A, const T* x, T beta, T* y,
                          const ExecContext&);

}  // namespace spx::cpu

// DIA, HDI and JAD SpMM on the CPU: the row driver of spmm_rows.hpp. A DIA or
// HDI row visits the diagonals of its hack whose column lies inside the
// matrix (padding zeros included, as in SpMV); a JAD row visits the jagged
// diagonals that reach it (no padding) and goes to row perm[i] of C. A DIA-LP
// row is a DIA row with its values widened to T as they are visited.
#include "core/instantiate.hpp"
#include "cpu/spmm_rows.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmm_dia_rows(T alpha, const Dia<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&) {
  const DiagonalRows<T, I> rows{A.values().data(), A.offsets().data(), nullptr,  A.rows(),
                                A.cols(),          A.rows(),           A.ndiag()};
  spmm_rows(alpha, rows, static_cast<std::int64_t>(A.values().size()), B, beta, C);
}

template <Value T, Index I>
void spmm_dia_lp_rows(T alpha, const DiaLp<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                      const ExecContext&) {
  const DiagonalRows<T, I, reduced_value_t<T>> rows{
      A.values().data(), A.offsets().data(), nullptr, A.rows(), A.cols(), A.rows(), A.ndiag()};
  spmm_rows(alpha, rows, static_cast<std::int64_t>(A.values().size()), B, beta, C);
}

template <Value T, Index I>
void spmm_hdi_rows(T alpha, const Hdi<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&) {
  const DiagonalRows<T, I> rows{A.values().data(),
                                A.offsets().data(),
                                A.hack_ptr().data(),
                                A.rows(),
                                A.cols(),
                                A.hack_size(),
                                0};
  spmm_rows(alpha, rows, static_cast<std::int64_t>(A.values().size()), B, beta, C);
}

template <Value T, Index I>
void spmm_jad_rows(T alpha, const Jad<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&) {
  const JadRows<T, I> rows{A.values().data(), A.col_idx().data(), A.jd_ptr().data(),
                           A.perm().data(),   A.rows(),           A.num_diagonals()};
  spmm_rows(alpha, rows, A.nnz(), B, beta, C);
}

#define SPX_INST(T, I)                                                                       \
  template void spmm_dia_rows(T, const Dia<T, I>&, DenseView<const T>, T, DenseView<T>,      \
                              const ExecContext&);                                           \
  template void spmm_dia_lp_rows(T, const DiaLp<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                 const ExecContext&);                                        \
  template void spmm_hdi_rows(T, const Hdi<T, I>&, DenseView<const T>, T, DenseView<T>,      \
                              const ExecContext&);                                           \
  template void spmm_jad_rows(T, const Jad<T, I>&, DenseView<const T>, T, DenseView<T>,      \
                              const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu

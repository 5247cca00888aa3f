// The kernel registry. Every kernel is registered once with the operation,
// format, algorithm and backend it implements, whether it is bitwise
// reproducible, a `can_run` query that returns the reason it cannot run on a
// matrix (empty when it can), and its launch function. Tests, the benchmark
// and the advisor enumerate the registry, so a registered kernel is tested and
// benchmarked without further wiring.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spx/batch/batch.hpp"
#include "spx/convert.hpp"
#include "spx/core/enums.hpp"
#include "spx/core/types.hpp"
#include "spx/core/view.hpp"
#include "spx/matrix.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace spx {

/// Where and how a kernel runs. `stream` is a cudaStream_t (nullptr: the
/// default stream); CPU kernels ignore it.
struct ExecContext {
  CUstream_st* stream = nullptr;
};

struct KernelInfo {
  Op op = Op::Spmv;
  Format format = Format::Csr;
  Algorithm algorithm = Algorithm::Auto;
  Backend backend = Backend::Cpu;
  bool deterministic = true;  ///< bitwise identical results run to run
  bool baseline = false;      ///< a third-party implementation (cuSPARSE, Eigen)
};

/// y = alpha*A*x + beta*y for A a single matrix (Ref = MatrixRef<T, I>, the
/// kernels of spmv) or a batch (Ref = BatchRef<T, I>, the kernels of
/// batch_spmv: y_i = alpha*A_i*x_i + beta*y_i for every matrix i, x and y
/// concatenated by the batch's column and row offsets). The dispatcher has
/// validated shapes and spaces and handled the trivial cases (no rows, no
/// nonzeros, alpha = 0): a kernel sees rows > 0, nnz > 0, alpha != 0 (the
/// single matrices of a batch may still be empty: 0 rows, 0 columns, no
/// entries, empty rows). With beta = 0 it must not read y.
template <Value T, class Ref>
struct VectorKernel {
  KernelInfo info;
  std::function<std::string(Ref)> can_run;
  std::function<void(T alpha, Ref A, const T* x, T beta, T* y, const ExecContext&)> run;
};
template <Value T, Index I>
using SpmvKernel = VectorKernel<T, MatrixRef<T, I>>;
template <Value T, Index I>
using BatchSpmvKernel = VectorKernel<T, BatchRef<T, I>>;

/// What an SpMM kernel may depend on besides the matrix: the width of B and
/// C and their storage.
struct SpmmShape {
  std::int64_t n = 0;  ///< columns of B and C
  Layout b_layout = Layout::RowMajor;
  Layout c_layout = Layout::RowMajor;
  std::int64_t ldb = 0;
  std::int64_t ldc = 0;
  /// B's and C's data start on 16-byte boundaries (the kernels' vector
  /// loads and stores need it; spmm() sets it from the pointers, a plan made
  /// before the data exists assumes it).
  bool aligned = true;
};

/// C = alpha*A*B + beta*C. The dispatcher has validated shapes, leading
/// dimensions and spaces and handled the trivial cases (no rows, n = 0, no
/// nonzeros, alpha = 0): a kernel sees rows > 0, n > 0, nnz > 0, alpha != 0.
/// With beta = 0 it must not read C.
template <Value T, Index I>
struct SpmmKernel {
  KernelInfo info;
  std::function<std::string(MatrixRef<T, I>, const SpmmShape&)> can_run;
  std::function<void(T alpha, MatrixRef<T, I> A, DenseView<const T> B, T beta, DenseView<T> C,
                     const ExecContext&)>
      run;
};

/// What every backend provides besides kernels: y = beta*y over n entries and
/// C = beta*C over a dense matrix (beta = 0 writes zeros without reading).
template <Value T>
struct VectorOps {
  std::function<void(T beta, T* y, std::int64_t n, const ExecContext&)> scale;
  std::function<void(T beta, DenseView<T> C, const ExecContext&)> scale_dense;
};

/// Row lengths of a CSR, computed by a backend where the matrix lives: the
/// counts the advisor's model classifies a matrix by (plans that skip the
/// advice, src/core/plan.cpp).
struct RowLengths {
  std::int64_t max = 0;    ///< longest row
  std::int64_t empty = 0;  ///< rows without entries
  double mean = 0;         ///< nnz / rows
  /// Population standard deviation (MatrixStats::row_std); NaN where the
  /// backend could not compute it exactly.
  double stddev = 0;
};

/// The statistics of a CSR that read its column indices (the advisor's,
/// src/core/advisor.cpp), measured by a backend where the matrix lives, so
/// that a matrix in device memory is advised without a host copy of its
/// columns and values. Each count equals the host's (`analyze` and the
/// advisor's footprints), exactly.
struct ColumnCounts {
  std::int64_t diagonals = 0;            ///< distinct column − row (MatrixStats::diagonals)
  std::array<std::int64_t, 7> blocks{};  ///< aligned b×b blocks holding an entry, b = 2..8
  /// Entries whose line of x is neither the row's previous entry's nor one of
  /// the previous row's lines: MatrixStats::scatter × nnz.
  std::int64_t scattered = 0;
  std::int64_t lower_bandwidth = 0;  ///< max(row − column, 0) (MatrixStats)
  std::int64_t upper_bandwidth = 0;  ///< max(column − row, 0)
};

/// Each row's first and last column; −1 in both for an empty row.
struct RowEnds {
  std::vector<std::int64_t> first, last;
};

/// Distinct diagonals of the hacks of H rows (HDI's footprint): in all, and
/// in the last hack.
struct HackDiagonals {
  std::int64_t total = 0;
  std::int64_t last = 0;
};

/// How a backend measures the column statistics of a CSR in its memory.
/// `symmetric_diagonal` returns the number of stored diagonal entries of a
/// symmetric matrix (values compared as SYM_CSR's conversion does) and throws
/// Unsupported, naming `format`, for one that is not (or not square).
template <Value T, Index I>
struct ColumnReader {
  std::function<ColumnCounts(const Csr<T, I>&)> counts;
  std::function<HackDiagonals(const Csr<T, I>&, std::int64_t H)> hack_diagonals;
  /// Aligned b×b blocks holding an entry, for any b ≥ 1.
  std::function<std::int64_t(const Csr<T, I>&, std::int64_t b)> blocks;
  std::function<std::int64_t(const Csr<T, I>&, std::string_view format)> symmetric_diagonal;
  /// SELL-pack with σ = 1: the stored entries (C × each slice's longest row,
  /// rounded up to a multiple of tpr) of the slices of C rows whose columns
  /// span at most SellPack's kMaxSpan.
  std::function<std::int64_t(const Csr<T, I>&, std::int64_t C, std::int64_t tpr)> packed_entries;
  /// Each row's first and last column (SELL-pack with σ > 1, whose slices
  /// the host orders).
  std::function<RowEnds(const Csr<T, I>&)> row_ends;
};

/// A conversion from CSR executed by one backend where the matrix lives; the
/// core has checked the options before it runs (src/core/convert_*.cpp).
template <Value T, Index I>
struct Conversion {
  Format to = Format::Csr;
  Backend backend = Backend::Cpu;
  std::function<Matrix<T, I>(const Csr<T, I>&, const ConvertOptions&)> run;
};

template <Value T, Index I>
class Registry {
 public:
  /// The registry with every kernel of the backends compiled into this build
  /// (and those added by `extend`).
  static const Registry& instance();
  /// Adds kernels from outside the library, such as the benchmark's
  /// baselines (target spx_baselines): `add` runs once on the registry. Call
  /// it at start-up, before any product or enumeration runs.
  static void extend(void (*add)(Registry&));

  std::span<const SpmvKernel<T, I>> spmv_kernels() const { return spmv_; }
  /// nullptr when no kernel is registered for the triple.
  const SpmvKernel<T, I>* find_spmv(Format f, Algorithm a, Backend b) const;
  /// The algorithm `Auto` resolves to for this matrix on backend `b`.
  /// Throws Unsupported when no rule is registered.
  Algorithm choose_spmv(MatrixRef<T, I> A, Backend b) const;

  // ---- batched SpMV ----

  std::span<const BatchSpmvKernel<T, I>> batch_spmv_kernels() const { return batch_spmv_; }
  /// nullptr when no batch kernel is registered for the triple.
  const BatchSpmvKernel<T, I>* find_batch_spmv(Format f, Algorithm a, Backend b) const;
  /// The algorithm `Auto` resolves to for this batch on backend `b`. Throws
  /// Unsupported when no rule is registered.
  Algorithm choose_batch_spmv(BatchRef<T, I> A, Backend b) const;

  std::span<const SpmmKernel<T, I>> spmm_kernels() const { return spmm_; }
  /// nullptr when no SpMM kernel is registered for the triple.
  const SpmmKernel<T, I>* find_spmm(Format f, Algorithm a, Backend b) const;
  /// The SpMM algorithm `Auto` resolves to for this matrix and shape on
  /// backend `b`. Throws Unsupported when no rule is registered.
  Algorithm choose_spmm(MatrixRef<T, I> A, Backend b, const SpmmShape& shape) const;

  /// The vector operations of backend `b`. Throws Unsupported when this build
  /// has no such backend.
  const VectorOps<T>& vector_ops(Backend b) const;
  /// The conversion from CSR to `to` on backend `b`, or nullptr.
  const Conversion<T, I>* find_conversion(Format to, Backend b) const;
  /// The row lengths of `A`, in backend `b`'s memory, computed there; nullopt
  /// when `b` registers no such function (the CPU: the host statistics,
  /// `analyze`, have them).
  std::optional<RowLengths> csr_row_lengths(const Csr<T, I>& A, Backend b) const;
  /// How backend `b` measures the column statistics of a CSR in its memory;
  /// nullptr when it registers none (the CPU: the host statistics read the
  /// columns directly).
  const ColumnReader<T, I>* column_reader(Backend b) const;

  // ---- registration (used by the backends while the registry is built) ----

  void set_vector_ops(Backend b, VectorOps<T> ops) { vector_ops_.push_back({b, std::move(ops)}); }
  /// Sets how backend `b` measures the row lengths of a CSR in its memory.
  void set_csr_row_lengths(Backend b, std::function<RowLengths(const Csr<T, I>&)> f) {
    row_lengths_.push_back({b, std::move(f)});
  }
  /// Sets how backend `b` measures the column statistics of a CSR in its memory.
  void set_column_reader(Backend b, ColumnReader<T, I> r) {
    column_readers_.push_back({b, std::move(r)});
  }
  /// Registers the conversion CSR → M on `backend`.
  template <class M>
  void add_conversion(Backend backend,
                      std::function<M(const Csr<T, I>&, const ConvertOptions&)> run) {
    conversions_.push_back(Conversion<T, I>{
        M::kFormat, backend,
        [run](const Csr<T, I>& A, const ConvertOptions& o) { return Matrix<T, I>{run(A, o)}; }});
  }

  /// Registers a kernel written for one concrete format `M`.
  template <class M>
  void add_spmv(KernelInfo info, std::function<std::string(const M&)> can_run,
                std::function<void(T, const M&, const T*, T, T*, const ExecContext&)> run) {
    spmv_.push_back(vector_kernel<MatrixRef<T, I>>(Op::Spmv, info, can_run, run));
  }
  /// Sets the rule that resolves `Auto` for format `M` on `backend`.
  template <class M>
  void set_spmv_auto(Backend backend, std::function<Algorithm(const M&)> rule) {
    spmv_rules_.push_back(auto_rule<MatrixRef<T, I>>(backend, rule));
  }

  /// Registers a batch kernel written for one concrete batch format `B`.
  template <class B>
  void add_batch_spmv(KernelInfo info, std::function<std::string(const B&)> can_run,
                      std::function<void(T, const B&, const T*, T, T*, const ExecContext&)> run) {
    batch_spmv_.push_back(vector_kernel<BatchRef<T, I>>(Op::BatchSpmv, info, can_run, run));
  }
  /// Sets the rule that resolves `Auto` for batch format `B` on `backend`.
  template <class B>
  void set_batch_spmv_auto(Backend backend, std::function<Algorithm(const B&)> rule) {
    batch_spmv_rules_.push_back(auto_rule<BatchRef<T, I>>(backend, rule));
  }

  /// Registers an SpMM kernel written for one concrete format `M`.
  template <class M>
  void add_spmm(
      KernelInfo info, std::function<std::string(const M&, const SpmmShape&)> can_run,
      std::function<void(T, const M&, DenseView<const T>, T, DenseView<T>, const ExecContext&)>
          run) {
    info.op = Op::Spmm;
    info.format = M::kFormat;
    spmm_.push_back(SpmmKernel<T, I>{
        info,
        [can_run](MatrixRef<T, I> A, const SpmmShape& shape) { return can_run(as<M>(A), shape); },
        [run](T alpha, MatrixRef<T, I> A, DenseView<const T> B, T beta, DenseView<T> C,
              const ExecContext& ctx) { run(alpha, as<M>(A), B, beta, C, ctx); }});
  }
  /// Sets the rule that resolves `Auto` for SpMM with format `M` on `backend`.
  template <class M>
  void set_spmm_auto(Backend backend, std::function<Algorithm(const M&, const SpmmShape&)> rule) {
    spmm_rules_.push_back(auto_rule<MatrixRef<T, I>>(backend, rule));
  }

 private:
  Registry();
  static Registry& mutable_instance();

  /// The rule that resolves `Auto` for one format on one backend, taking the
  /// operand (MatrixRef or BatchRef) and what else the operation passes.
  template <class Ref, class... Args>
  struct AutoRule {
    Format format;
    Backend backend;
    std::function<Algorithm(Ref, Args...)> rule;
  };

  /// The concrete format M behind a MatrixRef or BatchRef.
  template <class M, class Ref>
  static const M& as(Ref A) {
    return *std::get<const M*>(A);
  }
  /// A kernel written for format M, as one taking Ref.
  template <class Ref, class M>
  static VectorKernel<T, Ref> vector_kernel(
      Op op, KernelInfo info, std::function<std::string(const M&)> can_run,
      std::function<void(T, const M&, const T*, T, T*, const ExecContext&)> run) {
    info.op = op;
    info.format = M::kFormat;
    return {info, [can_run](Ref A) { return can_run(as<M>(A)); },
            [run](T alpha, Ref A, const T* x, T beta, T* y, const ExecContext& ctx) {
              run(alpha, as<M>(A), x, beta, y, ctx);
            }};
  }
  /// A rule written for format M, as one taking Ref.
  template <class Ref, class M, class... Args>
  static AutoRule<Ref, Args...> auto_rule(Backend backend,
                                          std::function<Algorithm(const M&, Args...)> rule) {
    return {M::kFormat, backend, [rule](Ref A, Args... args) { return rule(as<M>(A), args...); }};
  }

  std::vector<std::pair<Backend, VectorOps<T>>> vector_ops_;
  std::vector<std::pair<Backend, std::function<RowLengths(const Csr<T, I>&)>>> row_lengths_;
  std::vector<std::pair<Backend, ColumnReader<T, I>>> column_readers_;
  std::vector<Conversion<T, I>> conversions_;
  std::vector<SpmvKernel<T, I>> spmv_;
  std::vector<AutoRule<MatrixRef<T, I>>> spmv_rules_;
  std::vector<BatchSpmvKernel<T, I>> batch_spmv_;
  std::vector<AutoRule<BatchRef<T, I>>> batch_spmv_rules_;
  std::vector<SpmmKernel<T, I>> spmm_;
  std::vector<AutoRule<MatrixRef<T, I>, const SpmmShape&>> spmm_rules_;
};

/// A `can_run` that always accepts.
template <class M>
std::string always(const M&) {
  return {};
}
/// The same for SpMM kernels.
template <class M>
std::string always_spmm(const M&, const SpmmShape&) {
  return {};
}

}  // namespace spx

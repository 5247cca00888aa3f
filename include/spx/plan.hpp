// Plans: the setup of a product done once, the product many times. A plan is
// built from a matrix (CSR or any SpX format, host or device, owned or a view)
// and a Workload; the advisor (advisor.hpp) chooses the format and kernel,
// the plan converts the matrix once (on the device when it is there), keeps
// the converted copy and the kernel's preprocessing (the structure cache),
// and `run` does only the product. The free functions spx::spmv and
// spx::spmm are the plan "keep the format, Auto kernel" without the advice.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "spx/advisor.hpp"
#include "spx/matrix.hpp"
#include "spx/ops.hpp"

namespace spx {

struct PlanOptions {
  /// Measure the few best candidates (a handful of products each) and pick
  /// by measurement. Only when work.products ≥ tune_min_products, and with
  /// the default tune_budget from about 300 products on (6 products of the
  /// pick alone are 2% of 300).
  bool tune = false;
  std::int64_t tune_min_products = 100;
  /// Candidates measured when tuning: at most this many of the best
  /// predicted, within tune_within × the pick's predicted total, while what
  /// measuring them adds (their products, the other formats' conversions)
  /// is predicted to cost at most tune_budget × the pick's total; a
  /// candidate past it is skipped (advisor.hpp, tuning_candidates), and
  /// with fewer than two the plan does not tune. After measuring, the plan
  /// keeps the candidate of least measured product time: every measured
  /// candidate's conversion is paid by then. While tuning, the converted
  /// copies of the measured formats exist at once (each within the memory
  /// limit of the workload, together up to tune_candidates copies); the
  /// plan keeps only its pick's.
  int tune_candidates = 3;
  double tune_within = 1.5;
  double tune_budget = 0.02;
  /// Run one product at build (after the choice) so that the kernel's
  /// preprocessing is in the structure cache before the first `run`.
  bool warm = false;
  /// Advise even when no conversion can repay itself. By default a plan
  /// for a CSR matrix (host or device), with the format left to it (or CSR)
  /// and the kernel to Auto and no tuning, keeps the CSR without the advice
  /// (its O(nnz) statistics, measured on the device for a device matrix) when the
  /// products are too few for any conversion to pay: when CSR's N products
  /// cost less than the cheapest conversion in the model (about 2 CSR
  /// products on the CPU; on CUDA 1-3 on large matrices and up to about 9
  /// on small ones, whose products are mostly fixed cost, the matrix's
  /// class from the row lengths the CSR Auto rule measures on the device;
  /// docs/advisor.md, "Few products"). Its report then holds the CSR
  /// candidate alone, not predicted. Set this for the ranking of every
  /// candidate.
  bool always_advise = false;
  /// Force the format and/or kernel instead of the advisor's choice.
  std::optional<Format> format;
  Algorithm algorithm = Algorithm::Auto;
  /// Copy bandwidth (GB/s) for the model; 0: advisor_bandwidth() (a plan
  /// that keeps CSR without the advice never measures it: it uses the one
  /// set or measured earlier in the process, if any).
  double bandwidth_gbs = 0;
  /// The CPU compute model's machine factor (AdvisorOptions::compute_scale);
  /// 0: advisor_compute_scale() (a plan that keeps CSR without the advice
  /// never measures it: its bound does not depend on it).
  double compute_scale = 0;
  /// Conversion parameters (block_size < 0: BCSR's b chosen by the advisor).
  ConvertOptions convert{.block_size = -1};
  /// Let the advisor pick a format with reduced-precision values (SELL-LP,
  /// see sell_lp.hpp for its error bound). Off by default; forcing such a
  /// format through `format` allows it too.
  bool allow_reduced_precision = false;
};

/// What the plan chose and what building it cost.
struct PlanReport {
  /// Every candidate with its predicted costs, and the pick; only the CSR
  /// candidate, its predictions NaN, when the plan kept CSR without the
  /// advice (PlanOptions::always_advise).
  Advice advice;
  Format format = Format::Csr;
  Algorithm algorithm = Algorithm::Auto;  ///< resolved (never Auto)
  std::string why;
  double predicted_build_s = 0;  ///< the model's conversion time of the pick
  double build_s = 0;            ///< measured: statistics, advice, conversion, tuning
  double convert_s = 0;          ///< measured conversion time
  bool tuned = false;
  double tune_s = 0;  ///< seconds spent measuring candidates
};

template <Value T, Index I>
class Plan {
 public:
  /// Plans products with `A`. When the plan keeps A's format it uses A's
  /// arrays in place (no copy): keep A alive and its structure unchanged
  /// while the plan is used, as for a view. Throws InvalidInput for a bad
  /// workload, Unsupported when the forced format or kernel cannot be used.
  Plan(const Csr<T, I>& A, const Workload& work, const PlanOptions& options = {});
  /// The same for a matrix in any format (converted to CSR on the host for
  /// the statistics; other candidates are converted from that CSR).
  Plan(MatrixRef<T, I> A, const Workload& work, const PlanOptions& options = {});
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  /// y = alpha·A·x + beta·y with the chosen format and kernel.
  RunInfo run(T alpha, VectorView<const T> x, T beta, VectorView<T> y,
              CUstream_st* stream = nullptr) const;
  /// C = alpha·A·B + beta·C with the chosen format and kernel.
  RunInfo run(T alpha, DenseView<const T> B, T beta, DenseView<T> C,
              CUstream_st* stream = nullptr) const;

  /// New values, same structure: `values` holds the nnz values of the CSR of
  /// the matrix (for a CSR matrix, in its own order), in the matrix's space.
  /// Only the value part of the conversion runs (host: a scatter through a
  /// map built on the first update; device: the conversion again). For a
  /// plan that keeps the caller's CSR the values are copied into the plan,
  /// which then multiplies with them (the caller's arrays are not written).
  void update_values(std::span<const T> values);

  /// The matrix the products use.
  MatrixRef<T, I> matrix() const;
  const PlanReport& report() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace spx

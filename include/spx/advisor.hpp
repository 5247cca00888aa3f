// The advisor: which format and kernel to use for a matrix and a workload,
// counting the cost of the conversion (survey §5, Table 10: conversion cost in
// products, break-even counts). A cost model predicts, from the statistics of
// the matrix (analysis.hpp) and the device's measured copy bandwidth, the time
// of one product of every registered kernel in every format and the time of
// each conversion from CSR, and ranks the candidates by
// conversion + products × product. The model and its calibration are
// documented in docs/advisor.md.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spx/analysis.hpp"
#include "spx/convert.hpp"
#include "spx/core/enums.hpp"
#include "spx/core/types.hpp"

namespace spx {

/// What the caller says about the work a matrix will do.
struct Workload {
  static constexpr std::int64_t kNoMemoryLimit = std::numeric_limits<std::int64_t>::max();
  /// Products expected (≥ 1).
  std::int64_t products = 1;
  /// Op::Spmv or Op::Spmm.
  Op op = Op::Spmv;
  /// SpMM: columns n of B and C (≥ 1); SpMV: 1.
  std::int64_t cols = 1;
  /// Bytes the converted copy may take (≥ 0); a format whose footprint is
  /// larger is not a candidate. kNoMemoryLimit: no limit.
  std::int64_t memory_limit = kNoMemoryLimit;
};

/// Checks a workload: InvalidInput naming the field for products < 1, cols
/// < 1 (SpMM), cols != 1 (SpMV), a negative memory limit, or an op other
/// than SpMV and SpMM.
void check_workload(const Workload& work);

/// Where the products run and what the advisor may do to choose.
struct AdvisorOptions {
  /// The backend of the products: Cpu (host matrix) or Cuda (device matrix).
  Backend backend = Backend::Cpu;
  /// Copy bandwidth of the backend in GB/s (10⁹ bytes read + written per
  /// second); 0: measured once per process (advisor_bandwidth).
  double bandwidth_gbs = 0;
  /// The machine's factor on the CPU compute model's costs per row, entry
  /// and scattered entry (> 0; docs/advisor.md, "The machine's compute
  /// scale"); 0: measured once per process (advisor_compute_scale). Ignored
  /// by backends without compute rows (CUDA).
  double compute_scale = 0;
  /// Parameters of the conversions (block size, slice size, budget of the
  /// padded formats: a candidate the conversion would refuse is not one).
  /// A negative block_size chooses BCSR's b in 2..8 by bytes per nonzero.
  ConvertOptions convert{.block_size = -1};
  /// Whether formats that store the values in reduced precision (SELL-LP:
  /// float values for f64 vectors, bfloat16 for f32; sell_lp.hpp gives the
  /// error bound) may be candidates. Off: they are listed as not feasible,
  /// unless the matrix is already in one (`current`).
  bool allow_reduced_precision = false;
  /// SpMV: offer every CSR kernel. Off (the default), CSR is offered with the
  /// one kernel its Auto rule picks where the backend can tell it from the
  /// matrix's counts (CUDA; docs/advisor.md, "CSR's kernel"). A plan that
  /// forces a CSR kernel turns this on.
  bool all_csr_kernels = false;
};

/// One (format, kernel) the advisor considered.
struct Candidate {
  Format format = Format::Csr;
  Algorithm algorithm = Algorithm::Auto;
  /// Predicted bytes of the format's arrays (its footprint, from statistics).
  std::int64_t bytes = 0;
  /// Bytes one product moves: the format, x (or B) read, y (or C) written.
  std::int64_t bytes_moved = 0;
  /// Predicted seconds of one product, and of the conversion from CSR (0 for
  /// the format the matrix is in).
  double product_s = 0;
  double convert_s = 0;
  /// convert_s + products × product_s (the measured product time when tuned).
  double total_s = 0;
  /// Products after which this candidate beats the best predicted CSR kernel:
  /// 0 for CSR, +inf when it never does.
  double break_even = 0;
  /// The efficiency of the model used (fraction of the copy bandwidth): with
  /// the CPU's compute model, the effective one, bytes_moved / ((product time
  /// − fixed cost) × bandwidth).
  double efficiency = 0;
  /// False: not a candidate (memory limit, padding budget, no kernel); `reason` says why.
  bool feasible = true;
  std::string reason;
  /// Tuning measured this candidate: its median product time (seconds).
  bool measured = false;
  double measured_s = 0;
};

/// The advisor's answer.
struct Advice {
  Workload work;
  Backend backend = Backend::Cpu;
  double bandwidth_gbs = 0;
  /// The compute model's machine factor used (1 where the backend has no
  /// compute rows; a plan that kept CSR without the advice reports its
  /// option, 0 when none was given: nothing was measured for it).
  double compute_scale = 1;
  MatrixStats stats;
  /// Structural class used by the model: "regular", "irregular" or "skewed".
  std::string regularity;
  /// Options the chosen conversion uses (BCSR block size resolved).
  ConvertOptions convert;
  /// Every candidate, feasible ones first, by total_s.
  std::vector<Candidate> candidates;
  /// Index of the pick in `candidates`.
  std::size_t pick = 0;
  /// One line: why the pick.
  std::string why;
  /// Seconds the advice took (statistics and model; tuning not included).
  double advise_s = 0;

  const Candidate& chosen() const { return candidates.at(pick); }
};

/// The advice for a CSR matrix (statistics are O(nnz); no conversion is
/// run). A matrix in device memory is measured there by its backend: only
/// its row pointers are copied to the host (analyze). `current` is the
/// format the caller's matrix is in (its conversion costs nothing); every
/// other candidate is converted from CSR.
template <Value T, Index I>
Advice advise(const Csr<T, I>& A, const Workload& work, const AdvisorOptions& options = {},
              Format current = Format::Csr);

/// The candidates worth measuring (indices into advice.candidates, best
/// first): up to `count` feasible ones whose predicted total is within
/// `within` × the pick's, taken best first while what measuring them adds
/// to the plan (as predicted: `runs` products of each, and the conversion of
/// each format other than the pick's, once per format) stays within `budget`
/// × the pick's predicted total; a candidate that would pass it is skipped,
/// and a cheaper one after it may still be taken. The pick's own conversion
/// is not counted, as the plan pays it anyway. Empty when fewer than two
/// are taken (or the pick's own products pass the budget): then tuning
/// cannot pay for itself. The default budget, 2%, is about what the model
/// alone misses on average at 100 and 1000 products (docs/advisor.md,
/// "Tuning's budget"). A candidate that runs the same kernel as one already
/// taken is passed over, as its backend tells (on CUDA, the SELL family's
/// ThreadsPerRow SpMV with one lane a row: its ThreadPerRow kernel).
std::vector<std::size_t> tuning_candidates(const Advice& advice, int count = 3, double within = 1.5,
                                           double budget = 0.02, int runs = 6);

/// Copy bandwidth of a backend in GB/s: measured once per process (CPU: a
/// STREAM-like OpenMP copy; CUDA: a device-to-device copy) through the
/// backend's module, or the override. Throws Unsupported when the backend is
/// not in this build or cannot run here.
double advisor_bandwidth(Backend backend);
/// Replaces the measured bandwidth of `backend` (GB/s > 0), e.g. for tests;
/// 0 removes the override. InvalidInput for a negative or non-finite value.
void set_advisor_bandwidth(Backend backend, double gbs);

/// The factor by which this machine's CPU products take longer than the CPU
/// compute model's costs per row, entry and scattered entry predict, as
/// calibrated (docs/advisor.md, "The machine's compute scale"): measured
/// once per process by timing CSR's kernel on a 5-point stencil of 200 × 200
/// (about 2 × 10⁵ nonzeros, f64), against the same ratio on the calibration
/// machine, within [1/16, 16]; or the override. 1 for a backend without
/// compute rows (CUDA), which it never measures and whose override it
/// ignores. One measurement, on every thread of the machine, serves the
/// whole process: a loaded machine measures a larger one (docs/advisor.md).
double advisor_compute_scale(Backend backend);
/// Replaces the measured compute scale of `backend` (> 0), e.g. for tests or
/// to reuse a measurement; 0 removes the override. InvalidInput for a
/// negative or non-finite value.
void set_advisor_compute_scale(Backend backend, double scale);

}  // namespace spx

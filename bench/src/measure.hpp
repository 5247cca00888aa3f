// The measuring loop shared by the benchmarks of every operation (SpMV in
// engine.cpp, SpMM in spmm_bench.cpp, batched SpMV in batch_bench.cpp): the
// run (results, timer, index type, summary), the loop over suite members,
// the precisions, the record every kernel starts from, and the measurement of
// one kernel: the check against the long-double reference
// (bench/reference), budgeted timing, and the timing fields. Each operation
// plugs in its parts: its operands, one checked product, the comparison, the
// timed product, and its flops and bytes (a KernelTrial).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench.hpp"
#include "device.hpp"
#include "reference/reference.hpp"

namespace spx::bench::detail {

/// A run of one operation: start_results(config, suite_name), a timer for the
/// device, `members(I{}, timer, results)` with the configured index type I,
/// then `summarize(results)`.
template <class Members>
Results run_measured(const Config& config, const std::string& suite_name, Members&& members,
                     void (*summarize)(Results&)) {
  Results res = start_results(config, suite_name);
  const auto timer = make_timer(res.run.device);
  if (config.index64) {
    members(std::int64_t{}, *timer, res);
  } else {
    members(std::int32_t{}, *timer, res);
  }
  summarize(res);
  return res;
}

/// Sets the op_summary of an SpMM or batch run: {"op": op, "precisions":
/// [summary(p) for each precision of the run]}.
template <class PerPrecision>
void set_op_summary(Results& res, const std::string& op, PerPrecision&& summary) {
  nlohmann::json precisions = nlohmann::json::array();
  for (Precision p : res.config.precisions)
    precisions.push_back(summary(p));
  nlohmann::json out = nlohmann::json::object();
  out["op"] = op;
  out["precisions"] = std::move(precisions);
  res.op_summary = std::move(out);
}

/// `config` for member i of `count`: its progress lines prefixed "[i/count] ",
/// after a first line "<name>: <doing>" (nothing without a progress callback).
Config member_config(const Config& config, std::size_t i, std::size_t count,
                     const std::string& name, const std::string& doing);

/// Seconds left of the run's time budget (Config::time_budget_s, counted from
/// RunContext::started); infinite when there is no budget.
double budget_left_s(const Config& config, const RunContext& run);
/// Why a member was not started: "the time budget of S s was used up before
/// this member".
std::string budget_used_up(const Config& config);

/// The MatrixInfo of a suite member before it is loaded (name, group, kind,
/// source, regular).
MatrixInfo member_info(const SuiteMember& member);

/// Loads every member of `suite` in turn (progress "[i/count] name: loading"),
/// records its MatrixInfo (sizes, statistics, BCSR block size, or the reason
/// it could not be loaded) in `res.matrices`, and calls
/// `measure(info, A, cfg)` for each member that loaded and has nonzeros;
/// `cfg` is `config` with the member's progress prefix.
template <Index I, class Measure>
void for_each_member(const Suite& suite, const Config& config, Results& res, Measure&& measure) {
  using Clock = std::chrono::steady_clock;
  const std::size_t count = suite.members.size();
  for (std::size_t i = 0; i < count; ++i) {
    const SuiteMember& member = suite.members[i];
    if (budget_left_s(config, res.run) <= 0) {
      MatrixInfo skipped = member_info(member);
      skipped.error = budget_used_up(config);
      res.matrices.push_back(skipped);
      continue;
    }
    const Config cfg = member_config(config, i, count, member.name, "loading");
    MatrixInfo info = member_info(member);
    Csr<double, I> A;
    try {
      const auto t0 = Clock::now();
      A = load_member<I>(member);
      info.load_s = std::chrono::duration<double>(Clock::now() - t0).count();
      info.rows = A.rows();
      info.cols = A.cols();
      info.nnz = A.nnz();
      info.csr_bytes_f64 = static_cast<std::int64_t>(A.bytes());
      info.large = info.csr_bytes_f64 >= 2 * res.run.device.cache_bytes;
      info.stats = analyze(A);
      info.bcsr_block_size =
          convert_options_for(info.stats, sizeof(double), sizeof(I), config.block_size).block_size;
      if (info.nnz == 0) info.error = "the matrix has no nonzeros: nothing to measure";
    } catch (const std::exception& e) {
      info.error = fmt::format("cannot load: {}", e.what());
    }
    res.matrices.push_back(info);
    if (info.error.empty()) measure(info, A, cfg);
  }
}

/// The operands in single precision: A, or each matrix of a batch, cast to float.
template <Index I>
Csr<float, I> to_float(const Csr<double, I>& A) {
  return cast<float, I>(A);
}
template <Index I>
std::vector<Csr<float, I>> to_float(const std::vector<Csr<double, I>>& matrices) {
  std::vector<Csr<float, I>> out;
  out.reserve(matrices.size());
  for (const auto& A : matrices)
    out.push_back(cast<float, I>(A));
  return out;
}

/// Calls `measure(operands)` for each precision of the config in turn: the
/// operands as given (double precision) for F64, to_float(operands) for F32.
template <class Operands, class Measure>
void for_each_precision(const Config& config, const Operands& operands, Measure&& measure) {
  for (Precision p : config.precisions) {
    if (p == Precision::F64) {
      measure(operands);
    } else {
      measure(to_float(operands));
    }
  }
}

template <Value T>
constexpr Precision precision_of() {
  return std::same_as<T, float> ? Precision::F32 : Precision::F64;
}

/// The progress callback of one matrix in one precision: "<matrix> <precision>: <what>".
template <Value T>
std::function<void(const std::string&)> progress_of(const Config& config,
                                                    const std::string& matrix) {
  return [&config, prefix = fmt::format("{} {}: ", matrix, to_string(precision_of<T>()))](
             const std::string& what) {
    if (config.progress) config.progress(prefix + what, true);
  };
}

/// The record every measurement of `kernel` starts from: the operation, the
/// matrix (name, group, rows × cols, nnz), precision, index type, backend,
/// format and the kernel's declarations.
template <Value T, Index I>
Record kernel_record(BenchOp op, const MatrixInfo& info, Backend backend, Format format,
                     const KernelInfo& kernel, std::int64_t rows, std::int64_t cols,
                     std::int64_t nnz) {
  Record r;
  r.op = op;
  r.matrix = info.name;
  r.group = info.group;
  r.precision = precision_of<T>();
  r.index64 = std::same_as<I, std::int64_t>;
  r.backend = backend;
  r.format = format;
  r.algorithm = r.algorithm_ran = kernel.algorithm;
  r.baseline = kernel.baseline;
  r.deterministic = kernel.deterministic;
  r.rows = rows;
  r.cols = cols;
  r.nnz = nnz;
  return r;
}

/// `r` marked with `status` and `reason` (a kernel that could not be measured).
Record not_measured(Record r, Status status, std::string reason);

/// What an operation plugs into the measuring loop for one kernel.
struct KernelTrial {
  /// Why the kernel cannot run the operands ("" when it can): then nothing runs.
  std::string why_not;
  /// Prepares the operands: fills the output with NaN (β = 0 must not read
  /// it), and whatever else the kernel needs (SpMM: B column-major).
  std::function<void()> prepare;
  /// One product as users run it (normally through the dispatcher); returns
  /// the algorithm that ran.
  std::function<Algorithm()> run_checked;
  /// Reads the output back and compares it with the reference.
  std::function<reference::Deviation()> check;
  /// One product as timed (the kernel's launch function).
  std::function<void()> product;
  double flops = 0;  ///< of one product
  double bytes = 0;  ///< moved by one product (the L2 is flushed when 4× the cache exceeds them)
  /// Whether the output after the timed products equals the checked one bit
  /// for bit; null: not recorded.
  std::function<bool()> repeat_identical;
  /// The warm-up runs before the probe that sizes the repetitions (SpMV),
  /// instead of after it (SpMM, batches: see time_budgeted).
  bool warmup_before_probe = false;
};

/// The parts of a trial whose output is a vector y (SpMV, batched SpMV): y
/// filled with `nan` (as many NaN as y has entries) before the checked
/// product, read back into `checked` and compared with `ref`, and compared
/// bit for bit with `checked` after the timed products. `value_roundoff`:
/// the unit roundoff of the format's stored values (stored_value_roundoff:
/// SELL-LP's documented bound, 0 for the full-precision formats).
template <Value T>
void vector_output(KernelTrial& trial, Array<T>& y, const std::vector<T>& nan,
                   const reference::Product& ref, std::vector<T>& checked,
                   double value_roundoff = 0) {
  trial.prepare = [&y, &nan] {
    spx::detail::copy_bytes(y.data(), y.space(), nan.data(), Space::Host, y.bytes());
  };
  trial.check = [&y, &ref, &checked, value_roundoff] {
    checked = y.to_vector();
    return reference::deviation<T>(checked, ref, value_roundoff);
  };
  trial.repeat_identical = [&y, &checked] {
    const std::vector<T> after = y.to_vector();
    return after.size() == checked.size() &&
           (after.empty() ||
            std::memcmp(after.data(), checked.data(), after.size() * sizeof(T)) == 0);
  };
}

/// Measures one kernel into `r` and appends it to `records`: skipped when
/// trial.why_not says so; else the operands prepared, the checked product, its
/// comparison with the reference (max_rel_error, error_ratio, correct), the
/// timed products (time_budgeted, the L2 flushed on CUDA when the product
/// moves less than 4× the cache), the timing fields (fill_timing) and
/// repeat_identical; any exception makes it an error record with the message.
void measure_kernel(Record r, const KernelTrial& trial, const Config& config, Timer& timer,
                    const RunContext& run, std::vector<Record>& records);

/// One probe, then as many timed repetitions as the per-kernel budget allows
/// (at most --reps). With `warmup_before_probe`, the warm-up runs first and
/// the repetitions are at least 5; else the probe runs cold, the warm-up
/// follows, and the repetitions are at least 5, or 3 for products over 0.2 s
/// (a loop of 100,000 cuSPARSE calls). The warm-up (warm_up) stops after half
/// the per-kernel seconds or when `budget_left_s` are used up, whichever
/// comes first, whatever the number of runs asked for.
std::vector<double> time_budgeted(Timer& timer, const std::function<void()>& f,
                                  const Config& config, bool flush, bool warmup_before_probe,
                                  double budget_left_s = std::numeric_limits<double>::infinity());

/// Runs `f` up to `count` times untimed, stopping once the runs have taken
/// `limit_s` seconds (the last may end past it by about one run); returns
/// the runs made. None when limit_s <= 0.
int warm_up(Timer& timer, const std::function<void()>& f, int count, double limit_s);

/// Median, extremes, GFLOPS, GB/s and fraction of the copy bandwidth.
void fill_timing(Record& r, const std::vector<double>& t, bool flushed, double flops, double bytes,
                 double copy_gbs);

}  // namespace spx::bench::detail

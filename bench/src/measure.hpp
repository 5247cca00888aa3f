// Helpers shared by the benchmarks (run.cpp, spmm_bench.cpp,
// batch_bench.cpp): the loop over suite members, random operands, the
// reference comparison, budgeted timing and the timing fields of a record.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "bench.hpp"
#include "device.hpp"

namespace spx::bench::detail {

/// Loads every member of `suite` in turn (progress "[i/count] name: loading"),
/// records its MatrixInfo (sizes, statistics, BCSR block size, or the reason
/// it could not be loaded) in `res.matrices`, and calls
/// `measure(info, A, cfg)` for each member that loaded and has nonzeros;
/// `cfg` is `config` with the member's progress prefix.
template <Index I, class Measure>
void for_each_member(const Suite& suite, const Config& config, Results& res, Measure&& measure) {
  using Clock = std::chrono::steady_clock;
  const std::size_t count = suite.members.size();
  const auto start = Clock::now();
  for (std::size_t i = 0; i < count; ++i) {
    const SuiteMember& member = suite.members[i];
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (config.time_budget_s > 0 && elapsed > config.time_budget_s) {
      MatrixInfo skipped;
      skipped.name = member.name;
      skipped.group = member.group;
      skipped.kind = std::string(member.kind());
      skipped.source = member.describe_source();
      skipped.regular = member.regular;
      skipped.error = fmt::format("the time budget of {} s was used up before this member",
                                  config.time_budget_s);
      res.matrices.push_back(skipped);
      continue;
    }
    Config cfg = config;
    if (config.progress) {
      const std::string prefix = fmt::format("[{}/{}] ", i + 1, count);
      cfg.progress = [&config, prefix](const std::string& s, bool detail) {
        config.progress(prefix + s, detail);
      };
      cfg.progress(fmt::format("{}: loading", member.name), false);
    }
    MatrixInfo info;
    info.name = member.name;
    info.group = member.group;
    info.kind = std::string(member.kind());
    info.source = member.describe_source();
    info.regular = member.regular;
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

/// Values uniform in ±[0.5, 1.5] (never zero, mixed signs) from `seed`.
template <Value T>
std::vector<T> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::vector<T> x(static_cast<std::size_t>(n));
  for (auto& v : x)
    v = static_cast<T>((gen() & 1 ? 1.0 : -1.0) * mag(gen));
  return x;
}

/// A reference result in long double: value, magnitude Σ|a·b| and the
/// a-priori bound (terms + 4)·eps·magnitude of each entry.
struct Reference {
  std::vector<double> y, scale, bound;
};

struct CheckResult {
  double max_rel = 0;  ///< inf when a value is not finite
  double ratio = 0;    ///< max error / bound (≤ 1 passes)
};

template <Value T>
CheckResult compare(const std::vector<T>& y, const Reference& ref) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto n = static_cast<std::int64_t>(y.size());
  double max_rel = 0, ratio = 0;
#pragma omp parallel for reduction(max : max_rel, ratio) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = std::isfinite(y[i]) ? std::fabs(static_cast<double>(y[i]) - ref.y[i]) : inf;
    const double rel = ref.scale[i] > 0 ? d / ref.scale[i] : (d == 0 ? 0.0 : inf);
    max_rel = std::max(max_rel, rel);
    ratio = std::max(ratio, d / ref.bound[i]);
  }
  return {max_rel, ratio};
}

inline std::optional<double> finite_or_null(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

/// One probe, then as many timed repetitions as the per-kernel budget allows
/// (at most --reps; at least 5, or 3 for products over 0.2 s such as a loop
/// of 100,000 cuSPARSE calls, whose warm-up is skipped too).
inline std::vector<double> time_budgeted(Timer& timer, const std::function<void()>& f,
                                         const Config& config, bool flush) {
  const int wanted = config.effective_reps();
  const double max_s = config.effective_max_seconds();
  const double probe = std::max(timer.time(f, 0, 1, flush).front(), 1e-9);
  int warmup = config.effective_warmup();
  if (probe * warmup > 0.5 * max_s) warmup = 0;
  const int floor = std::min(probe > 0.2 ? 3 : 5, wanted);
  int reps = wanted;
  if (probe * reps > max_s) reps = std::max(floor, static_cast<int>(max_s / probe));
  return timer.time(f, warmup, reps, flush);
}

/// Median, extremes, GFLOPS, GB/s and fraction of the copy bandwidth.
inline void fill_timing(Record& r, const std::vector<double>& t, bool flushed, double flops,
                        double bytes, double copy_gbs) {
  r.reps = static_cast<int>(t.size());
  r.cache_flushed = flushed;
  r.time_s = median(t);
  r.time_min_s = *std::min_element(t.begin(), t.end());
  r.time_max_s = *std::max_element(t.begin(), t.end());
  r.gflops = flops / *r.time_s * 1e-9;
  r.gbs = bytes / *r.time_s * 1e-9;
  if (copy_gbs > 0) r.bw_fraction = *r.gbs / copy_gbs;
}

}  // namespace spx::bench::detail

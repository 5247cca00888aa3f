// The non-template parts of the measuring loop (measure.hpp).
#include "measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace spx::bench::detail {

namespace {

std::optional<double> finite_or_null(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

}  // namespace

double budget_left_s(const Config& config, const RunContext& run) {
  if (config.time_budget_s <= 0 || !run.started) return std::numeric_limits<double>::infinity();
  const double used =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - *run.started).count();
  return config.time_budget_s - used;
}

std::string budget_used_up(const Config& config) {
  return fmt::format("the time budget of {} s was used up before this member",
                     config.time_budget_s);
}

Config member_config(const Config& config, std::size_t i, std::size_t count,
                     const std::string& name, const std::string& doing) {
  Config cfg = config;
  if (config.progress) {
    const std::string prefix = fmt::format("[{}/{}] ", i + 1, count);
    cfg.progress = [&config, prefix](const std::string& s, bool detail) {
      config.progress(prefix + s, detail);
    };
    cfg.progress(fmt::format("{}: {}", name, doing), false);
  }
  return cfg;
}

MatrixInfo member_info(const SuiteMember& member) {
  MatrixInfo info;
  info.name = member.name;
  info.group = member.group;
  info.kind = std::string(member.kind());
  info.source = member.describe_source();
  info.regular = member.regular;
  return info;
}

Record not_measured(Record r, Status status, std::string reason) {
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

void measure_kernel(Record r, const KernelTrial& trial, const Config& config, Timer& timer,
                    const RunContext& run, std::vector<Record>& records) {
  if (!trial.why_not.empty()) {
    records.push_back(not_measured(std::move(r), Status::Skipped, "cannot run: " + trial.why_not));
    return;
  }
  try {
    trial.prepare();
    r.algorithm_ran = trial.run_checked();
    timer.synchronize();
    const reference::Deviation c = trial.check();
    r.max_rel_error = finite_or_null(c.max_rel);
    r.error_ratio = finite_or_null(c.ratio);
    r.correct = std::isfinite(c.ratio) && c.ratio <= 1.0;
    const bool flush =
        config.backend == Backend::Cuda && trial.bytes < 4.0 * run.device.cache_bytes;
    const std::vector<double> t = time_budgeted(
        timer, trial.product, config, flush, trial.warmup_before_probe, budget_left_s(config, run));
    fill_timing(r, t, flush, trial.flops, trial.bytes, run.copy_gbs);
    if (trial.repeat_identical) r.repeat_identical = trial.repeat_identical();
    if (!*r.correct)
      r.reason =
          fmt::format("result check failed: error {} times the bound (max relative error {})",
                      c.ratio, c.max_rel);
  } catch (const std::exception& e) {
    r.status = Status::Error;
    r.reason = e.what();
  }
  records.push_back(std::move(r));
}

int warm_up(Timer& timer, const std::function<void()>& f, int count, double limit_s) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  int done = 0;
  int chunk = 1;
  while (done < count && limit_s > 0) {
    const int n = std::min(chunk, count - done);
    timer.time(f, n, 0, false);  // returns once the runs have finished
    done += n;
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (elapsed >= limit_s) break;
    // The next chunk: what fits in the time left at the pace so far, at most
    // twice the runs made (the first runs may be slower than the rest).
    const double per_run = std::max(elapsed / done, 1e-9);
    chunk = static_cast<int>(
        std::clamp((limit_s - elapsed) / per_run, 1.0, 2.0 * static_cast<double>(done)));
  }
  return done;
}

std::vector<double> time_budgeted(Timer& timer, const std::function<void()>& f,
                                  const Config& config, bool flush, bool warmup_before_probe,
                                  double budget_left_s) {
  const int wanted = config.effective_reps();
  const double max_s = config.effective_max_seconds();
  const int warmup = config.effective_warmup();
  const double warmup_limit = std::min(0.5 * max_s, budget_left_s);
  if (warmup_before_probe) warm_up(timer, f, warmup, warmup_limit);
  const double probe = std::max(timer.time(f, 0, 1, flush).front(), 1e-9);
  // After a cold probe, no warm-up when it would take half the per-kernel time.
  if (!warmup_before_probe && probe * warmup <= 0.5 * max_s)
    warm_up(timer, f, warmup, warmup_limit);
  const int floor = std::min(!warmup_before_probe && probe > 0.2 ? 3 : 5, wanted);
  int reps = wanted;
  if (probe * reps > max_s) reps = std::max(floor, static_cast<int>(max_s / probe));
  return timer.time(f, 0, reps, flush);
}

void fill_timing(Record& r, const std::vector<double>& t, bool flushed, double flops, double bytes,
                 double copy_gbs) {
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

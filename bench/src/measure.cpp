// The non-template parts of the measuring loop (measure.hpp).
#include "measure.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace spx::bench::detail {

namespace {

std::optional<double> finite_or_null(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

}  // namespace

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
    const std::vector<double> t =
        time_budgeted(timer, trial.product, config, flush, trial.warmup_before_probe);
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

std::vector<double> time_budgeted(Timer& timer, const std::function<void()>& f,
                                  const Config& config, bool flush, bool warmup_before_probe) {
  const int wanted = config.effective_reps();
  const double max_s = config.effective_max_seconds();
  int warmup = config.effective_warmup();
  const double probe =
      std::max(timer.time(f, warmup_before_probe ? warmup : 0, 1, flush).front(), 1e-9);
  if (warmup_before_probe || probe * warmup > 0.5 * max_s) warmup = 0;
  const int floor = std::min(!warmup_before_probe && probe > 0.2 ? 3 : 5, wanted);
  int reps = wanted;
  if (probe * reps > max_s) reps = std::max(floor, static_cast<int>(max_s / probe));
  return timer.time(f, warmup, reps, flush);
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

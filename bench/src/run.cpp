// The whole run: the machine, its copy bandwidth, every suite member in every
// precision, and the summaries the table and the headline are made of.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <random>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "bench.hpp"
#include "measure.hpp"
#include "spx/core/error.hpp"

namespace spx::bench {

std::string_view to_string(Precision p) noexcept {
  return p == Precision::F32 ? "f32" : "f64";
}

std::vector<Precision> parse_precisions(std::string_view s) {
  if (s == "f32") return {Precision::F32};
  if (s == "f64") return {Precision::F64};
  if (s == "both") return {Precision::F64, Precision::F32};
  throw InvalidInput(fmt::format("unknown precision '{}': expected f32, f64 or both", s));
}

std::string_view to_string(BenchOp op) noexcept {
  switch (op) {
    case BenchOp::Spmm:
      return "spmm";
    case BenchOp::Batch:
      return "batch";
    default:
      return "spmv";
  }
}

BenchOp parse_bench_op(std::string_view s) {
  if (s == "spmv") return BenchOp::Spmv;
  if (s == "spmm") return BenchOp::Spmm;
  if (s == "batch") return BenchOp::Batch;
  throw InvalidInput(fmt::format("unknown operation '{}': expected spmv, spmm or batch", s));
}

std::string_view to_string(Status s) noexcept {
  switch (s) {
    case Status::Ok:
      return "ok";
    case Status::Skipped:
      return "skipped";
    default:
      return "error";
  }
}

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string compiler() {
#if defined(__clang__)
  return fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  return fmt::format("gcc {}", __VERSION__);
#else
  return "unknown";
#endif
}

template <Index I>
void run_members(const Suite& suite, const Config& config, Timer& timer, Results& res) {
  const auto kernels_f64 = select_kernels<double, I>(config);
  const auto kernels_f32 = select_kernels<float, I>(config);
  detail::for_each_member<I>(
      suite, config, res, [&](const MatrixInfo& info, const Csr<double, I>& A, const Config& cfg) {
        detail::for_each_precision(config, A, [&]<Value T>(const Csr<T, I>& typed) {
          if constexpr (std::same_as<T, double>) {
            measure_matrix<T, I>(info, typed, kernels_f64, cfg, timer, res, true);
          } else {
            measure_matrix<T, I>(info, typed, kernels_f32, cfg, timer, res, true);
          }
        });
      });
}

}  // namespace

RunContext start_run(const Config& config) {
  baselines::install();  // cuSPARSE / cuBLAS / Eigen, registered beside SpX's kernels
  RunContext run;
  run.spx_version = SPX_VERSION;
  run.commit = std::string(build_commit());
  run.commit_dirty = build_dirty();
  run.date = utc_now();
  run.host = host_name();
  run.compiler = compiler();
  run.seed = config.seed != 0
                 ? config.seed
                 : (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
  if (run.seed == 0) run.seed = 1;
  if (config.progress) config.progress("querying the device", false);
  run.device = query_device(config.backend);
  if (config.progress) config.progress("measuring the copy bandwidth", false);
  run.copy_gbs = measure_copy_bandwidth(run.device) * 1e-9;
  run.started = std::chrono::steady_clock::now();
  return run;
}

Results start_results(const Config& config, const std::string& suite_name) {
  if (config.precisions.empty()) throw InvalidInput("no precision to measure");
  Results res;
  res.config = config;
  res.config.progress = nullptr;
  if (res.config.suite_name == "custom" || res.config.suite_name.empty())
    res.config.suite_name = suite_name;
  res.run = start_run(config);
  return res;
}

Results run_bench(const Suite& suite, const Config& config) {
  return detail::run_measured(
      config, suite.name,
      [&]<Index I>(I, Timer& timer, Results& res) { run_members<I>(suite, config, timer, res); },
      summarize);
}

std::string nothing_measured(const Results& res) {
  for (const Record& r : res.records)
    if (r.status == Status::Ok) return {};
  std::vector<std::string> reasons;
  for (const MatrixInfo& m : res.matrices)
    if (!m.error.empty()) reasons.push_back(fmt::format("{}: {}", m.name, m.error));
  for (const Record& r : res.records)
    if (!r.reason.empty())
      reasons.push_back(fmt::format("{} {}/{}: {}", r.matrix, to_string(r.format),
                                    to_string(r.algorithm), r.reason));
  std::string s = fmt::format("nothing was measured ({} matrices, {} kernel records)",
                              res.matrices.size(), res.records.size());
  if (reasons.empty())
    return s + (res.matrices.empty() ? ": the suite is empty"
                                     : ": no kernel of the backend matches the options");
  s += ": " + reasons.front();
  if (reasons.size() > 1) s += fmt::format(" (and {} more; see the table)", reasons.size() - 1);
  return s;
}

void summarize(Results& res) {
  res.summary.clear();
  res.headline.clear();
  for (Precision p : res.config.precisions) {
    Headline h;
    h.precision = p;
    double log_sum = 0;
    std::vector<double> regular_all, regular_large;
    for (const MatrixInfo& info : res.matrices) {
      if (!info.error.empty()) continue;
      Summary s;
      s.matrix = info.name;
      s.precision = p;
      s.regular = info.regular;
      s.large = info.large;
      const Record* best = nullptr;
      const Record* base = nullptr;
      for (const Record& r : res.records) {
        if (r.matrix != info.name || r.precision != p) continue;
        if (r.status == Status::Error) ++s.errors;
        if (r.correct == false) ++s.failed;
        if (r.status != Status::Ok || r.correct != true || !r.time_s) continue;
        // The headline compares full precision with full precision: SELL-LP's
        // records (reduced-precision values) are in the table, not the best.
        if (reduced_precision(r.format)) continue;
        const Record*& slot = r.baseline ? base : best;
        if (slot == nullptr || *r.time_s < *slot->time_s) slot = &r;
      }
      if (best != nullptr) {
        s.best_format = best->format;
        s.best_algorithm = best->algorithm;
        s.best_time_s = best->time_s;
        s.best_gflops = best->gflops;
        s.best_bw_fraction = best->bw_fraction;
      }
      if (base != nullptr) {
        s.baseline_algorithm = base->algorithm;
        s.baseline_time_s = base->time_s;
      }
      if (best != nullptr && base != nullptr) {
        s.speedup = *base->time_s / *best->time_s;
        log_sum += std::log(*s.speedup);
        ++h.speedup_matrices;
      }
      if (s.regular && s.best_bw_fraction) {
        regular_all.push_back(*s.best_bw_fraction);
        if (s.large) regular_large.push_back(*s.best_bw_fraction);
      }
      res.summary.push_back(std::move(s));
    }
    if (h.speedup_matrices > 0) h.geomean_speedup = std::exp(log_sum / h.speedup_matrices);
    const bool have_large = !regular_large.empty();
    const auto& set = have_large ? regular_large : regular_all;
    h.regular_set = have_large ? "large regular" : "regular (none larger than the cache)";
    h.regular_matrices = static_cast<int>(set.size());
    if (!set.empty()) {
      double sum = 0;
      for (double v : set)
        sum += v;
      h.regular_bw_fraction = sum / static_cast<double>(set.size());
    }
    res.headline.push_back(std::move(h));
  }
  summarize_advisor(res);
}

}  // namespace spx::bench

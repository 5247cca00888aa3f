// The table `spx bench` prints at the end: per matrix the best SpX kernel,
// its fraction of the copy bandwidth and its speed-up over the best baseline;
// then the headline.
#include <fmt/format.h>

#include "bench.hpp"

namespace spx::bench {

namespace {

std::string baseline_name(Backend b) {
  return b == Backend::Cuda ? "cuSPARSE" : "Eigen";
}

std::string fit(std::string s, std::size_t width) {
  if (s.size() > width) s = s.substr(0, width - 1) + "~";
  return s;
}

std::string num(const nlohmann::json& v, std::string_view spec, double scale = 1) {
  if (!v.is_number()) return v.is_string() ? v.get<std::string>() : "-";
  return fmt::format(fmt::runtime(spec), v.get<double>() * scale);
}

std::string str(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : "-";
}

std::string percent(const nlohmann::json& v) {
  return v.is_number() ? fmt::format("{:.3g}%", v.get<double>() * 100) : "-";
}

/// One line of the GEMM crossover (an entry of `gemm` / `gemm_by_n`).
std::string gemm_line(const nlohmann::json& g) {
  const std::string verdict = str(g["verdict"]);
  const std::string range =
      fmt::format("{} .. {}", percent(g["density_min"]), percent(g["density_max"]));
  std::string line;
  if (verdict == "crossover") {
    line = fmt::format("faster above {} (between the measured densities {} and {}; split {})",
                       percent(g["overtakes_density"]), percent(g["below_density"]),
                       percent(g["above_density"]), percent(g["split_density"]));
  } else if (verdict == "always") {
    line = fmt::format("faster at every measured density, {}", range);
  } else {
    line = fmt::format("never faster in the measured densities, {}", range);
  }
  return line + fmt::format("; agreement {} over {} points", num(g["agreement"], "{:.1f}%", 100),
                            g["points"].dump());
}

std::string spmm_table(const Results& res) {
  std::string out;
  const std::string base = baseline_name(res.run.device.backend);
  for (const auto& p : res.op_summary.value("precisions", nlohmann::json::array())) {
    out += fmt::format("\nSpMM, {} ({}-bit indices), B and C row-major unless noted\n",
                       str(p["precision"]), res.config.index64 ? 64 : 32);
    out += fmt::format("{:<28} {:>5} {:>8}  {:<20} {:>9} {:>6}  {:<18} {:>8} {:>9} {:>5}\n",
                       "matrix", "n", "nnz/row", "best SpX", "GFLOPS", "BW %",
                       fmt::format("best {}", base), "speed-up", "GEMM [x]", "auto");
    for (const auto& e : p["entries"]) {
      std::string gemm = "-";
      if (e["gemm_time_s"].is_number() && e["best_time_s"].is_number())
        gemm =
            fmt::format("{:.2f}", e["best_time_s"].get<double>() / e["gemm_time_s"].get<double>());
      std::string line = fmt::format(
          "{:<28} {:>5} {:>8.2f}  {:<20} {:>9} {:>6}  {:<18} {:>8} {:>9} {:>5}",
          fit(str(e["matrix"]), 28), e["n_cols"].get<std::int64_t>(), e["mean_row"].get<double>(),
          fit(e.contains("best_format") && e["best_format"].is_string()
                  ? str(e["best_format"]) + " " + str(e["best_algorithm"])
                  : str(e["best_algorithm"]),
              20),
          num(e["best_gflops"], "{:.1f}"), num(e["best_bw_fraction"], "{:.1f}", 100),
          fit(str(e["baseline_algorithm"]), 18), num(e["speedup"], "{:.2f}x"), gemm,
          e["auto_right"].is_boolean() ? (e["auto_right"].get<bool>() ? "ok" : "MISS") : "-");
      if (e["failed"].get<int>() > 0)
        line += fmt::format("  CHECK FAILED x{}", e["failed"].get<int>());
      if (e["errors"].get<int>() > 0) line += fmt::format("  ERRORS x{}", e["errors"].get<int>());
      out += line + "\n";
    }
    out += fmt::format(
        "geomean speed-up of SpX's best SpMM kernel over {}'s best (GEMM apart): {} "
        "over {} (matrix, n) pairs\n",
        base, num(p["geomean_speedup"], "{:.3f}x"), p["speedup_pairs"].dump());
    out += fmt::format("Auto rule picked the faster SpX kernel: {} of {} decisions\n",
                       num(p["rule_accuracy"], "{:.1f}%", 100), p["rule_decisions"].dump());
    out += fmt::format(
        "mean row length best separating MergeBased (below) from RowSplit (above): {} "
        "(agrees on {} of {} points)\n",
        num(p["suggested_merge_threshold"], "{:.2f}"),
        num(p["suggested_threshold_accuracy"], "{:.1f}%", 100), p["threshold_points"].dump());
    const auto& g = p["gemm"];
    if (g.is_object()) {
      out += "dense GEMM against SpX's best, by density (nnz / (rows x cols)):\n";
      out += fmt::format("  all n: {}\n", gemm_line(g));
      for (const auto& gn : p["gemm_by_n"])
        out += fmt::format("  n = {}: {}\n", gn["n_cols"].dump(), gemm_line(gn));
    } else {
      out += "dense GEMM: no measurement (not run, or refused on every matrix)\n";
    }
  }
  return out;
}

std::string batch_table(const Results& res) {
  std::string out;
  for (const auto& p : res.op_summary.value("precisions", nlohmann::json::array())) {
    out += fmt::format("\nbatched SpMV, {} ({}-bit indices)\n", str(p["precision"]),
                       res.config.index64 ? 64 : 32);
    out += fmt::format("{:<30} {:>7} {:>10}  {:<22} {:>10} {:>8} {:>6} {:>10} {:>10}\n", "batch",
                       "count", "nnz", "best kernel", "time [us]", "GFLOPS", "BW %", "vs loop",
                       "vs strided");
    for (const auto& e : p["entries"]) {
      std::string line = fmt::format(
          "{:<30} {:>7} {:>10}  {:<22} {:>10} {:>8} {:>6} {:>10} {:>10}", fit(str(e["batch"]), 30),
          e["count"].is_number() ? e["count"].dump() : "-", e["nnz"].dump(),
          fit(str(e["best_kernel"]), 22), num(e["best_time_s"], "{:.1f}", 1e6),
          num(e["best_gflops"], "{:.2f}"), num(e["best_bw_fraction"], "{:.1f}", 100),
          num(e["speedup_over_loop"], "{:.1f}x"), num(e["speedup_over_strided"], "{:.2f}x"));
      if (e["failed"].get<int>() > 0)
        line += fmt::format("  CHECK FAILED x{}", e["failed"].get<int>());
      if (e["errors"].get<int>() > 0) line += fmt::format("  ERRORS x{}", e["errors"].get<int>());
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace

std::string format_table(const Results& res) {
  const DeviceInfo& d = res.run.device;
  std::string out;
  out += fmt::format(
      "SpX bench: {} backend, {}; copy bandwidth {:.1f} GB/s; suite '{}'; commit {}{}\n",
      to_string(d.backend), d.name, res.run.copy_gbs, res.config.suite_name,
      res.run.commit.substr(0, 12), res.run.commit_dirty ? " (modified)" : "");
  if (res.config.op == BenchOp::Spmm) out += spmm_table(res);
  if (res.config.op == BenchOp::Batch) out += batch_table(res);
  for (const Headline& h : res.headline) {
    out += fmt::format("\n{} ({}-bit indices)\n", to_string(h.precision),
                       res.config.index64 ? 64 : 32);
    out += fmt::format("{:<30} {:>9} {:>10}  {:<30} {:>10} {:>8} {:>6}  {:<20} {:>8}\n", "matrix",
                       "rows", "nnz", "best SpX kernel", "time [us]", "GFLOPS", "BW %",
                       fmt::format("best {}", baseline_name(d.backend)), "speed-up");
    for (const Summary& s : res.summary) {
      if (s.precision != h.precision) continue;
      const MatrixInfo* info = nullptr;
      for (const auto& m : res.matrices)
        if (m.name == s.matrix) info = &m;
      const std::string kernel = s.best_format ? fmt::format("{}/{}", to_string(*s.best_format),
                                                             to_string(*s.best_algorithm))
                                               : "-";
      std::string line = fmt::format(
          "{:<30} {:>9} {:>10}  {:<30} {:>10} {:>8} {:>6}  {:<20} {:>8}", fit(s.matrix, 30),
          info ? info->rows : 0, info ? info->nnz : 0, fit(kernel, 30),
          s.best_time_s ? fmt::format("{:.1f}", *s.best_time_s * 1e6) : "-",
          s.best_gflops ? fmt::format("{:.2f}", *s.best_gflops) : "-",
          s.best_bw_fraction ? fmt::format("{:.1f}", *s.best_bw_fraction * 100) : "-",
          s.baseline_algorithm ? fit(std::string(to_string(*s.baseline_algorithm)), 20) : "-",
          s.speedup ? fmt::format("{:.2f}x", *s.speedup) : "-");
      if (s.failed > 0) line += fmt::format("  CHECK FAILED x{}", s.failed);
      if (s.errors > 0) line += fmt::format("  ERRORS x{}", s.errors);
      out += line + "\n";
    }
    out += fmt::format(
        "geomean speed-up of SpX's best kernel over {}'s best: {} over {} matrices\n",
        baseline_name(d.backend),
        h.geomean_speedup ? fmt::format("{:.3f}x", *h.geomean_speedup) : "n/a", h.speedup_matrices);
    out += fmt::format(
        "mean fraction of copy bandwidth of the best kernel, {} matrices: {} over {}\n",
        h.regular_set,
        h.regular_bw_fraction ? fmt::format("{:.1f}%", *h.regular_bw_fraction * 100) : "n/a",
        h.regular_matrices);
  }
  out += advisor_table(res);
  int ok = 0, skipped = 0, errors = 0, failed = 0;
  for (const Record& r : res.records) {
    ok += r.status == Status::Ok;
    skipped += r.status == Status::Skipped;
    errors += r.status == Status::Error;
    failed += r.correct == false;
  }
  out += fmt::format("\nrecords: {} measured, {} skipped, {} errors, {} failed their check\n", ok,
                     skipped, errors, failed);
  for (const MatrixInfo& m : res.matrices)
    if (!m.error.empty()) out += fmt::format("not measured: {}: {}\n", m.name, m.error);
  return out;
}

}  // namespace spx::bench

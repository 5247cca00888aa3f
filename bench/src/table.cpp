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

}  // namespace

std::string format_table(const Results& res) {
  const DeviceInfo& d = res.run.device;
  std::string out;
  out += fmt::format(
      "SpX bench: {} backend, {}; copy bandwidth {:.1f} GB/s; suite '{}'; commit {}{}\n",
      to_string(d.backend), d.name, res.run.copy_gbs, res.config.suite_name,
      res.run.commit.substr(0, 12), res.run.commit_dirty ? " (modified)" : "");
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

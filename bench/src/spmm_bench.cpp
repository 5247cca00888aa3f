// `spx bench --op spmm`: every SpMM kernel of the backend (every format that
// has one, or those of --formats) and its baselines, for several widths n of
// B and C, on every suite member; then the
// SpMM summary (best SpX kernel against cuSPARSE's best, the accuracy of the
// Auto rule and the mean row length that best separates the two GPU kernels,
// the density above which dense GEMM wins).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "bench.hpp"
#include "device.hpp"
#include "measure.hpp"
#include "spx/convert.hpp"
#include "spx/core/error.hpp"
#include "spx/ops.hpp"

namespace spx::bench {

namespace {

using Clock = std::chrono::steady_clock;

std::string_view layout_name(Layout l) {
  return l == Layout::RowMajor ? "row-major" : "col-major";
}

/// B and C together larger than this are not allocated: the width is
/// recorded as skipped for that matrix (the largest suite members at n = 128
/// would need tens of GB of host and device memory and minutes of set-up).
constexpr std::int64_t kDenseLimitBytes = std::int64_t{8} << 30;

/// Dense operand values, ±[0.5, 1.5], generated in parallel by chunks (each
/// chunk seeded from `seed` and its position).
template <Value T>
std::vector<T> dense_values(std::int64_t count, std::uint64_t seed) {
  constexpr std::int64_t kChunk = std::int64_t{1} << 20;
  std::vector<T> out(static_cast<std::size_t>(count));
  const std::int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t first = c * kChunk, len = std::min(kChunk, count - first);
    const std::vector<T> part = reference::random_values<T>(
        len, seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(c) + 1);
    std::copy(part.begin(), part.end(), out.begin() + first);
  }
  return out;
}

/// Fills `count` values of `dst` (in `space`) with NaN: on the device a
/// memset of 0xFF bytes (cuda_fill_nan), on the host std::fill_n. (Device
/// memory exists only in a build with the CUDA backend.)
template <Value T>
void poison(T* dst, [[maybe_unused]] Space space, std::size_t count) {
#if SPX_HAVE_CUDA
  if (space == Space::Device) return detail::cuda_fill_nan(dst, count * sizeof(T));
#endif
  std::fill_n(dst, count, std::numeric_limits<T>::quiet_NaN());
}

/// The columns of C checked against the reference: all when n ≤ 8, else 8
/// spread over [0, n) including the first and the last.
std::vector<std::int64_t> checked_columns(std::int64_t n) {
  std::vector<std::int64_t> out;
  if (n <= 8) {
    for (std::int64_t j = 0; j < n; ++j)
      out.push_back(j);
    return out;
  }
  for (int i = 0; i < 8; ++i)
    out.push_back(i * (n - 1) / 7);
  return out;
}

/// The checked columns of C (m × n, leading dimension ld, in `space`),
/// row-major for the reference, in `cols` order. On the device only what the
/// check needs is copied back (cuda_read_columns), not a host copy of C.
template <Value T>
std::vector<T> checked_entries(const T* C, [[maybe_unused]] Space space, std::int64_t m,
                               std::int64_t ld, Layout layout,
                               const std::vector<std::int64_t>& cols) {
  const auto nc = static_cast<std::int64_t>(cols.size());
  std::vector<T> picked(static_cast<std::size_t>(m * nc));
#if SPX_HAVE_CUDA
  if (space == Space::Device) {
    detail::cuda_read_columns(picked.data(), C, sizeof(T), m, ld, layout == Layout::RowMajor, cols);
    return picked;
  }
#endif
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < nc; ++c) {
      const std::int64_t j = cols[static_cast<std::size_t>(c)];
      picked[static_cast<std::size_t>(r * nc + c)] =
          C[static_cast<std::size_t>(layout == Layout::RowMajor ? r * ld + j : r + j * ld)];
    }
  return picked;
}

template <Value T, Index I>
void measure_spmm(const MatrixInfo& info, const Csr<T, I>& A, const Config& config, Timer& timer,
                  Results& results) {
  const Backend backend = config.backend;
  const Space space = space_of(backend);
  const std::int64_t m = A.rows(), k = A.cols(), nnz = A.nnz();
  const auto& registry = Registry<T, I>::instance();
  const auto say = detail::progress_of<T>(config, info.name);
  // Every format with SpMM kernels on the backend (CUDA: CSR), each converted
  // from A with the benchmark's options (BCSR block size per matrix).
  struct Candidate {
    Format format;
    std::vector<const SpmmKernel<T, I>*> kernels;
    std::optional<Matrix<T, I>> matrix;  ///< in `space`, unless it is A itself (CSR on the host)
    std::string error;                   ///< why the conversion failed (empty: it did not)
  };
  std::vector<Candidate> candidates;
  const std::vector<Format> wanted =
      config.formats.empty() ? std::vector<Format>(kAllFormats.begin(), kAllFormats.end())
                             : config.formats;
  for (const Format f : wanted) {
    if (!convertible(f)) continue;
    Candidate c{f, {}, std::nullopt, {}};
    for (const auto& kernel : registry.spmm_kernels()) {
      if (kernel.info.backend != backend || kernel.info.format != f) continue;
      if (kernel.info.baseline && !config.baselines) continue;
      if (!kernel.info.baseline && !config.algorithms.empty() &&
          std::ranges::find(config.algorithms, kernel.info.algorithm) == config.algorithms.end())
        continue;
      c.kernels.push_back(&kernel);
    }
    if (c.kernels.empty()) continue;
    try {
      if (f == Format::Csr) {
        if (space == Space::Device) c.matrix.emplace(A.to(Space::Device));
      } else {
        say(fmt::format("converting to {}", to_string(f)));
        const Matrix<T, I> host =
            convert(A, f, convert_options_for(info.stats, sizeof(T), sizeof(I), config.block_size));
        c.matrix.emplace(
            std::visit([&](const auto& a) { return Matrix<T, I>(a.to(space)); }, host));
      }
    } catch (const std::exception& e) {
      c.error = e.what();
    }
    candidates.push_back(std::move(c));
  }
  if (candidates.empty()) return;
  const auto matrix_of = [&](const Candidate& c) {
    return c.matrix ? ref(*c.matrix) : MatrixRef<T, I>(&A);
  };

  for (const std::int64_t n : config.effective_cols()) {
    // The format of the candidate being measured (set before base_record).
    Format format = Format::Csr;
    std::int64_t format_bytes = 0;
    const auto base_record = [&](const SpmmKernel<T, I>& kernel) {
      Record r =
          detail::kernel_record<T, I>(BenchOp::Spmm, info, backend, format, kernel.info, m, k, nnz);
      r.n_cols = n;
      r.format_bytes = format_bytes;
      r.bytes_per_nnz = static_cast<double>(format_bytes) / static_cast<double>(nnz);
      r.convert_device_note = "";
      r.break_even = "none-needed";
      return r;
    };
    say(fmt::format("n = {}: reference", n));
    std::vector<T> hB;
    std::optional<Array<T>> dB_row, dB_col;
    std::optional<Array<T>> dC;
    reference::Product ref;
    const std::vector<std::int64_t> cols = checked_columns(n);
    const std::int64_t dense_bytes = (k + m) * n * static_cast<std::int64_t>(sizeof(T));
    const auto skip_all = [&](const std::string& reason) {
      for (const Candidate& c : candidates)
        for (const auto* kernel : c.kernels) {
          format = c.format;
          format_bytes =
              c.error.empty() ? static_cast<std::int64_t>(bytes_of<T, I>(matrix_of(c))) : 0;
          results.records.push_back(
              detail::not_measured(base_record(*kernel), Status::Skipped, reason));
        }
    };
    // The run's time budget is looked at before every width, not only before
    // every member: one large member takes seconds per width (H200, session
    // 29: a run stopped 12 s past its budget in a member's widths).
    if (detail::budget_left_s(config, results.run) <= 0) {
      skip_all(fmt::format("the time budget of {} s was used up before n = {}",
                           config.time_budget_s, n));
      continue;
    }
    if (dense_bytes > kDenseLimitBytes) {
      skip_all(
          fmt::format("B and C for n = {} would take {:.1f} GiB (the benchmark's limit is {} GiB)",
                      n, static_cast<double>(dense_bytes) / (1 << 30), kDenseLimitBytes >> 30));
      continue;
    }
    try {
      hB = dense_values<T>(k * n, results.run.seed ^ static_cast<std::uint64_t>(n));
      ref = reference::product(A, std::span<const T>(hB), n, std::span<const std::int64_t>(cols));
      dB_row.emplace(hB, space);
      dC.emplace(static_cast<std::size_t>(m * n), space);
    } catch (const std::exception& e) {
      skip_all(fmt::format("cannot allocate B and C for n = {}: {}", n, e.what()));
      continue;
    }
    const SpmmShape row_shape{n, Layout::RowMajor, Layout::RowMajor, n, n};
    const SpmmShape col_shape{n, Layout::ColMajor, Layout::ColMajor, k, m};

    for (const Candidate& cand : candidates) {
      format = cand.format;
      if (!cand.error.empty()) {
        format_bytes = 0;
        for (const auto* kernel : cand.kernels)
          results.records.push_back(detail::not_measured(base_record(*kernel), Status::Skipped,
                                                         "conversion failed: " + cand.error));
        continue;
      }
      const MatrixRef<T, I> M = matrix_of(cand);
      format_bytes = static_cast<std::int64_t>(bytes_of<T, I>(M));
      std::optional<Algorithm> auto_algorithm;
      try {
        auto_algorithm = registry.choose_spmm(M, backend, row_shape);
      } catch (const Error&) {
      }
      const SpmmWork work = spmm_work<T, I>(M, n, false);
      const auto& kernels = cand.kernels;

      for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
        const SpmmKernel<T, I>& kernel = *kernels[ki];
        Record r = base_record(kernel);
        r.bytes_moved = work.bytes;
        r.auto_choice = !kernel.info.baseline && auto_algorithm == kernel.info.algorithm;
        say(fmt::format("n = {}: {} {} ({}/{})", n, to_string(cand.format),
                        to_string(kernel.info.algorithm), ki + 1, kernels.size()));
        SpmmShape shape = row_shape;
        std::string why = kernel.can_run(M, shape);
        if (!why.empty()) {
          const std::string why_col = kernel.can_run(M, col_shape);
          if (why_col.empty()) {
            shape = col_shape;
            why.clear();
          } else if (why_col != why) {
            why += "; column-major: " + why_col;
          }
        }
        r.layout = std::string(layout_name(shape.b_layout));
        DenseView<const T> Bv{dB_row->data(), k, n, shape.ldb, shape.b_layout, space};
        const DenseView<T> Cv{dC->data(), m, n, shape.ldc, shape.c_layout, space};
        const ExecContext ctx{timer.stream()};
        detail::KernelTrial trial;
        trial.why_not = why;
        trial.prepare = [&] {
          if (shape.b_layout == Layout::ColMajor) {
            if (!dB_col) {
              std::vector<T> t(hB.size());
              for (std::int64_t i = 0; i < k; ++i)
                for (std::int64_t j = 0; j < n; ++j)
                  t[static_cast<std::size_t>(i + j * k)] = hB[static_cast<std::size_t>(i * n + j)];
              dB_col.emplace(t, space);
            }
            Bv.data = dB_col->data();
          }
          poison(dC->data(), space, dC->size());
        };
        trial.run_checked = [&] {
          SpmmOptions so;
          so.algorithm = kernel.info.algorithm;
          so.stream = timer.stream();
          return spx::detail::spmm<T, I>(T{1}, M, Bv, T{0}, Cv, so).algorithm;
        };
        trial.check = [&] {
          return reference::deviation<T>(
              checked_entries(dC->data(), space, m, shape.ldc, shape.c_layout, cols), ref,
              stored_value_roundoff<T>(cand.format));
        };
        trial.product = [&] { kernel.run(T{1}, M, Bv, T{0}, Cv, ctx); };
        trial.flops = static_cast<double>(work.flops);
        trial.bytes = static_cast<double>(work.bytes);
        detail::measure_kernel(std::move(r), trial, config, timer, results.run, results.records);
      }
    }
  }
}

template <Index I>
void spmm_members(const Suite& suite, const Config& config, Timer& timer, Results& res) {
  detail::for_each_member<I>(
      suite, config, res, [&](const MatrixInfo& info, const Csr<double, I>& A, const Config& cfg) {
        detail::for_each_precision(config, A, [&]<Value T>(const Csr<T, I>& typed) {
          measure_spmm<T, I>(info, typed, cfg, timer, res);
        });
      });
}

/// The threshold t maximising the agreement of "positive iff x ≥ t" (above =
/// true) or "positive iff x < t" (above = false) with the labels; t is a
/// midpoint between neighbouring x (geometric when both are positive).
/// Returns {t, agreeing points}; t is ±inf when one side is best left empty.
std::pair<double, int> best_threshold(std::vector<std::pair<double, bool>> points, bool above) {
  std::sort(points.begin(), points.end());
  const int total = static_cast<int>(points.size());
  int positives = 0;
  for (const auto& p : points)
    positives += p.second;
  // Threshold below everything: all points predicted positive when `above`.
  int agree = above ? positives : total - positives;
  double best_t = -std::numeric_limits<double>::infinity();
  int best = agree;
  for (int i = 0; i < total; ++i) {
    // Moving the threshold past point i flips its prediction.
    const bool label = points[static_cast<std::size_t>(i)].second;
    agree += (above ? !label : label) ? 1 : -1;
    if (i + 1 < total &&
        points[static_cast<std::size_t>(i + 1)].first == points[static_cast<std::size_t>(i)].first)
      continue;
    if (agree > best) {
      best = agree;
      const double a = points[static_cast<std::size_t>(i)].first;
      if (i + 1 < total) {
        const double b = points[static_cast<std::size_t>(i + 1)].first;
        best_t = a > 0 && b > 0 ? std::sqrt(a * b) : 0.5 * (a + b);
      } else {
        best_t = std::numeric_limits<double>::infinity();
      }
    }
  }
  return {best_t, best};
}

nlohmann::json threshold_json(double t) {
  if (std::isfinite(t)) return t;
  return t > 0 ? nlohmann::json("+inf") : nlohmann::json("-inf");
}

/// One (matrix, n) where both dense GEMM and SpX's best were measured.
struct GemmPoint {
  double density;  ///< nnz / (rows · cols)
  double gemm_s;   ///< cuBLAS GEMM's median time
  double spx_s;    ///< SpX's best kernel's median time
  bool gemm_faster() const { return gemm_s < spx_s; }
};

/// Where dense GEMM overtakes SpX's best along the density (docs/benchmarks.md,
/// "SpMM"): the 1-D split of best agreement with "GEMM faster iff density ≥
/// t", classified as never / always / crossover, with the measured densities
/// either side of the split and the density where log(t_gemm / t_spx),
/// interpolated linearly in log(density) between them, crosses zero.
nlohmann::json gemm_entry(const std::vector<GemmPoint>& pts) {
  using nlohmann::json;
  json g = {{"points", pts.size()}};
  int wins = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::vector<std::pair<double, bool>> labelled;
  for (const GemmPoint& p : pts) {
    wins += p.gemm_faster();
    lo = std::min(lo, p.density);
    hi = std::max(hi, p.density);
    labelled.emplace_back(p.density, p.gemm_faster());
  }
  g["gemm_wins"] = wins;
  g["density_min"] = pts.empty() ? json() : json(lo);
  g["density_max"] = pts.empty() ? json() : json(hi);
  g["overtakes_density"] = json();
  g["split_density"] = json();
  g["below_density"] = json();
  g["above_density"] = json();
  const auto range = fmt::format("the measured densities, {:.4g} to {:.4g}", lo, hi);
  if (pts.empty() || wins == 0) {
    g["verdict"] = "never";
    g["agreement"] = 1.0;
    g["note"] = pts.empty() ? std::string("no point has both GEMM and SpX measured")
                            : "dense GEMM is slower than SpX's best at all " + range;
    return g;
  }
  const auto [t, agree] = best_threshold(labelled, true);
  const int total = static_cast<int>(pts.size());
  g["agreement"] = static_cast<double>(agree) / total;
  if (!std::isfinite(t)) {
    // The best split leaves one side empty: GEMM faster everywhere (t = −inf)
    // or slower everywhere but at scattered points (t = +inf).
    const bool always = t < 0;
    g["verdict"] = always ? "always" : "never";
    g["note"] = agree == total
                    ? "dense GEMM is faster than SpX's best at all " + range
                    : fmt::format(
                          "dense GEMM is {} than SpX's best at {} of {} points, with no density "
                          "split fitting better, over {}",
                          always ? "faster" : "slower", agree, total, range);
    return g;
  }
  g["verdict"] = "crossover";
  g["split_density"] = t;
  // The measured densities either side of the split, and the mean log time
  // ratio of the points at each.
  double below = -std::numeric_limits<double>::infinity();
  double above = std::numeric_limits<double>::infinity();
  for (const GemmPoint& p : pts) {
    if (p.density < t) below = std::max(below, p.density);
    if (p.density >= t) above = std::min(above, p.density);
  }
  const auto log_ratio_at = [&](double d) {
    double sum = 0;
    int count = 0;
    for (const GemmPoint& p : pts)
      if (p.density == d) {
        sum += std::log(p.gemm_s / p.spx_s);
        ++count;
      }
    return sum / count;
  };
  g["below_density"] = below;
  g["above_density"] = above;
  const double r_below = log_ratio_at(below), r_above = log_ratio_at(above);
  double at = t;
  std::string how = "the split between them (geometric midpoint)";
  // SpX faster below (ratio > 1), GEMM faster above (ratio < 1): interpolate.
  if (r_below > 0 && r_above < 0 && below > 0 && above > 0) {
    const double f = r_below / (r_below - r_above);
    at = std::exp(std::log(below) + f * (std::log(above) - std::log(below)));
    how = "log-log interpolation of the time ratio";
  }
  g["overtakes_density"] = at;
  g["note"] = fmt::format(
      "dense GEMM is faster than SpX's best above density {:.4g} (between the measured densities "
      "{:.4g} and {:.4g}; {}){}",
      at, below, above, how,
      agree == total ? std::string()
                     : fmt::format("; the split agrees with {} of {} points", agree, total));
  return g;
}

}  // namespace

Results run_spmm_bench(const Suite& suite, const Config& config) {
  for (const std::int64_t n : config.effective_cols())
    if (n < 1 || n > 65536)
      throw InvalidInput(fmt::format("--cols: {} is not a width in 1..65536", n));
  return detail::run_measured(
      config, suite.name,
      [&]<Index I>(I, Timer& timer, Results& res) { spmm_members<I>(suite, config, timer, res); },
      summarize_spmm);
}

void summarize_spmm(Results& res) {
  using nlohmann::json;
  detail::set_op_summary(res, "spmm", [&](Precision p) {
    json entries = json::array();
    double log_sum = 0;
    int speedups = 0, rule_total = 0, rule_right = 0;
    std::vector<std::pair<double, bool>> merge_wins;  // mean row length → MergeBased faster
    std::map<std::int64_t, std::vector<GemmPoint>> gemm_wins;  // per n
    std::vector<GemmPoint> gemm_all;
    for (const MatrixInfo& info : res.matrices) {
      if (!info.error.empty()) continue;
      for (const std::int64_t n : res.config.effective_cols()) {
        const Record *best = nullptr, *base = nullptr, *gemm = nullptr, *autop = nullptr,
                     *best_csr = nullptr;
        std::map<Algorithm, const Record*> spx_ok;
        int failed = 0, errors = 0;
        for (const Record& r : res.records) {
          if (r.op != BenchOp::Spmm || r.matrix != info.name || r.precision != p || r.n_cols != n)
            continue;
          failed += r.correct == false;
          errors += r.status == Status::Error;
          if (r.status != Status::Ok || r.correct != true || !r.time_s) continue;
          if (r.algorithm == spx::baselines::CublasGemm) {
            gemm = &r;
            continue;
          }
          const Record*& slot = r.baseline ? base : best;
          if (slot == nullptr || *r.time_s < *slot->time_s) slot = &r;
          // The Auto rule and the merge threshold are about CSR's kernels.
          if (!r.baseline && r.format == Format::Csr) {
            spx_ok[r.algorithm] = &r;
            if (r.auto_choice) autop = &r;
            if (best_csr == nullptr || *r.time_s < *best_csr->time_s) best_csr = &r;
          }
        }
        json e = {
            {"matrix", info.name},           {"n_cols", n},      {"mean_row", info.stats.row_mean},
            {"density", info.stats.density}, {"failed", failed}, {"errors", errors}};
        e["best_format"] = best ? json(std::string(to_string(best->format))) : json();
        e["best_algorithm"] = best ? json(std::string(to_string(best->algorithm))) : json();
        e["best_time_s"] = best ? json(*best->time_s) : json();
        e["best_gflops"] = best && best->gflops ? json(*best->gflops) : json();
        e["best_gbs"] = best && best->gbs ? json(*best->gbs) : json();
        e["best_bw_fraction"] = best && best->bw_fraction ? json(*best->bw_fraction) : json();
        e["baseline_algorithm"] = base ? json(std::string(to_string(base->algorithm))) : json();
        e["baseline_time_s"] = base ? json(*base->time_s) : json();
        e["speedup"] = json();
        if (best && base) {
          const double s = *base->time_s / *best->time_s;
          e["speedup"] = s;
          log_sum += std::log(s);
          ++speedups;
        }
        e["gemm_time_s"] = gemm ? json(*gemm->time_s) : json();
        e["gemm_faster"] = json();
        if (gemm && best) {
          const bool faster = *gemm->time_s < *best->time_s;
          e["gemm_faster"] = faster;
          const GemmPoint pt{info.stats.density, *gemm->time_s, *best->time_s};
          gemm_wins[n].push_back(pt);
          gemm_all.push_back(pt);
        }
        // The Auto rule: right when its pick is the fastest SpX CSR kernel.
        e["auto_algorithm"] = autop ? json(std::string(to_string(autop->algorithm))) : json();
        e["auto_right"] = json();
        if (autop && best_csr && spx_ok.size() >= 2) {
          const bool right = *autop->time_s <= *best_csr->time_s;
          e["auto_right"] = right;
          ++rule_total;
          rule_right += right;
        }
        const auto rs = spx_ok.find(Algorithm::RowSplit);
        const auto mb = spx_ok.find(Algorithm::MergeBased);
        if (rs != spx_ok.end() && mb != spx_ok.end())
          merge_wins.emplace_back(info.stats.row_mean, *mb->second->time_s < *rs->second->time_s);
        if (best || base || gemm) entries.push_back(std::move(e));
      }
    }
    json h = {{"precision", std::string(to_string(p))}, {"pairs", entries.size()}};
    h["geomean_speedup"] = speedups > 0 ? json(std::exp(log_sum / speedups)) : json();
    h["speedup_pairs"] = speedups;
    h["rule_decisions"] = rule_total;
    h["rule_accuracy"] =
        rule_total > 0 ? json(static_cast<double>(rule_right) / rule_total) : json();
    if (!merge_wins.empty()) {
      const auto [t, agree] = best_threshold(merge_wins, false);
      h["suggested_merge_threshold"] = threshold_json(t);
      h["suggested_threshold_accuracy"] = static_cast<double>(agree) / merge_wins.size();
      h["threshold_points"] = merge_wins.size();
    } else {
      h["suggested_merge_threshold"] = json();
      h["suggested_threshold_accuracy"] = json();
      h["threshold_points"] = 0;
    }
    json gemm_json = json::array();
    for (const auto& [n, pts] : gemm_wins) {
      json g = gemm_entry(pts);
      g["n_cols"] = n;
      gemm_json.push_back(std::move(g));
    }
    h["gemm_by_n"] = std::move(gemm_json);
    h["gemm"] = gemm_all.empty() ? json() : gemm_entry(gemm_all);
    h["entries"] = std::move(entries);
    return h;
  });
}

}  // namespace spx::bench

// `spx bench --op batch`: every batched SpMV kernel of the backend (CSR, COO
// and ELL batches, and the cuSPARSE baselines) on a suite of batches; then
// the per-batch summary (best kernel, speed-up over a loop of cuSPARSE SpMV
// calls and over cuSPARSE's strided-batch SpMM, fraction of copy bandwidth).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "bench.hpp"
#include "device.hpp"
#include "measure.hpp"
#include "spx/batch/ops.hpp"
#include "spx/core/error.hpp"

namespace spx::bench {

namespace {

using Clock = std::chrono::steady_clock;

/// The CSR batch: uniform (one shared pattern) when the member says so and
/// every matrix indeed shares matrix 0's pattern, else concatenated.
template <Value T, Index I>
BatchCsr<T, I> csr_batch(const std::vector<Csr<T, I>>& mats, bool uniform) {
  if (uniform && !mats.empty()) {
    const Csr<T, I>& first = mats.front();
    bool same = true;
    for (const auto& A : mats)
      same = same && A.rows() == first.rows() && A.cols() == first.cols() &&
             A.nnz() == first.nnz() &&
             std::equal(A.row_ptr().begin(), A.row_ptr().end(), first.row_ptr().begin()) &&
             std::equal(A.col_idx().begin(), A.col_idx().end(), first.col_idx().begin());
    if (same) {
      std::vector<T> values;
      values.reserve(mats.size() * static_cast<std::size_t>(first.nnz()));
      for (const auto& A : mats)
        values.insert(values.end(), A.values().begin(), A.values().end());
      return BatchCsr<T, I>::uniform(static_cast<std::int64_t>(mats.size()),
                                     static_cast<I>(first.rows()), static_cast<I>(first.cols()),
                                     first.row_ptr().clone(), first.col_idx().clone(),
                                     Array<T>(values));
    }
  }
  return BatchCsr<T, I>::from_matrices(mats);
}

template <Value T, Index I>
Batch<T, I> build_batch(Format f, const std::vector<Csr<T, I>>& mats, bool uniform) {
  switch (f) {
    case Format::Csr:
      return csr_batch(mats, uniform);
    case Format::Coo:
      return BatchCoo<T, I>::from_matrices(mats);
    case Format::Ell:
      return BatchEll<T, I>::from_matrices(mats);
    default:
      throw Unsupported(fmt::format("no batch container for {}", to_string(f)));
  }
}

template <Value T, Index I>
void measure_batch(const MatrixInfo& info, const std::vector<Csr<T, I>>& mats, bool uniform,
                   const Config& config, Timer& timer, Results& results) {
  const Backend backend = config.backend;
  const Space space = space_of(backend);
  const auto say = detail::progress_of<T>(config, info.name);
  std::vector<const BatchSpmvKernel<T, I>*> kernels;
  for (const auto& k : Registry<T, I>::instance().batch_spmv_kernels()) {
    if (k.info.backend != backend) continue;
    if (k.info.baseline && !config.baselines) continue;
    if (!k.info.baseline && !config.formats.empty() &&
        std::ranges::find(config.formats, k.info.format) == config.formats.end())
      continue;
    if (!k.info.baseline && !config.algorithms.empty() &&
        std::ranges::find(config.algorithms, k.info.algorithm) == config.algorithms.end())
      continue;
    kernels.push_back(&k);
  }
  if (kernels.empty()) return;

  say("reference");
  const std::vector<T> x = reference::random_values<T>(info.cols, results.run.seed);
  const reference::Product ref =
      reference::batch_product(std::span<const Csr<T, I>>(mats), std::span<const T>(x));
  const Array<T> dx(x, space);
  Array<T> dy(static_cast<std::size_t>(info.rows), space);
  const std::vector<T> poison(static_cast<std::size_t>(info.rows),
                              std::numeric_limits<T>::quiet_NaN());
  const double vector_bytes = static_cast<double>((info.rows + info.cols) * sizeof(T));

  for (Format f : {Format::Csr, Format::Coo, Format::Ell}) {
    std::vector<const BatchSpmvKernel<T, I>*> mine;
    for (const auto* k : kernels)
      if (k->info.format == f) mine.push_back(k);
    if (mine.empty()) continue;
    const auto base_record = [&](const BatchSpmvKernel<T, I>& k) {
      Record r = detail::kernel_record<T, I>(BenchOp::Batch, info, backend, f, k.info, info.rows,
                                             info.cols, info.nnz);
      r.batch_count = static_cast<std::int64_t>(mats.size());
      r.break_even = "none-needed";
      return r;
    };
    say(fmt::format("building the {} batch", to_string(f)));
    std::optional<Batch<T, I>> batch;
    std::optional<double> convert_s, upload_s;
    try {
      auto t0 = Clock::now();
      Batch<T, I> host = build_batch(f, mats, uniform);
      convert_s = std::chrono::duration<double>(Clock::now() - t0).count();
      if (space == Space::Device) {
        t0 = Clock::now();
        batch = std::visit([](const auto& b) { return Batch<T, I>(b.to(Space::Device)); }, host);
        upload_s = std::chrono::duration<double>(Clock::now() - t0).count();
      } else {
        batch = std::move(host);
      }
    } catch (const std::exception& e) {
      for (const auto* k : mine)
        results.records.push_back(detail::not_measured(
            base_record(*k), Status::Skipped,
            fmt::format("cannot build the {} batch: {}", to_string(f), e.what())));
      continue;
    }
    const BatchRef<T, I> B = batch_ref(*batch);
    const auto format_bytes = static_cast<std::int64_t>(batch_bytes_of<T, I>(B));
    const double moved = static_cast<double>(format_bytes) + vector_bytes;
    std::optional<Algorithm> auto_algorithm;
    try {
      auto_algorithm = Registry<T, I>::instance().choose_batch_spmv(B, backend);
    } catch (const Error&) {
    }
    for (std::size_t ki = 0; ki < mine.size(); ++ki) {
      const BatchSpmvKernel<T, I>& kernel = *mine[ki];
      Record r = base_record(kernel);
      r.format_bytes = format_bytes;
      r.bytes_per_nnz = static_cast<double>(format_bytes) / static_cast<double>(info.nnz);
      r.bytes_moved = static_cast<std::int64_t>(moved);
      r.convert_host_s = convert_s;
      r.upload_s = upload_s;
      r.auto_choice = !kernel.info.baseline && auto_algorithm == kernel.info.algorithm;
      r.convert_device_note = "built on the host from the CSR list, then uploaded";
      say(fmt::format("{}/{} ({}/{})", to_string(f), to_string(kernel.info.algorithm), ki + 1,
                      mine.size()));
      const ExecContext ctx{timer.stream()};
      std::vector<T> y_checked;
      detail::KernelTrial trial;
      trial.why_not = kernel.can_run(B);
      detail::vector_output(trial, dy, poison, ref, y_checked);
      trial.run_checked = [&] {
        BatchOptions bo;
        bo.algorithm = kernel.info.algorithm;
        bo.stream = timer.stream();
        return spx::detail::batch_spmv<T, I>(T{1}, B, VectorView<const T>(dx), T{0},
                                             VectorView<T>(dy), bo)
            .algorithm;
      };
      trial.product = [&] { kernel.run(T{1}, B, dx.data(), T{0}, dy.data(), ctx); };
      trial.flops = 2.0 * static_cast<double>(info.nnz);
      trial.bytes = moved;
      detail::measure_kernel(std::move(r), trial, config, timer, results.run, results.records);
    }
  }
}

template <Index I>
void batch_members(std::span<const BatchMember> batches, const Config& config, Timer& timer,
                   Results& res) {
  const std::size_t count = batches.size();
  for (std::size_t i = 0; i < count; ++i) {
    const BatchMember& member = batches[i];
    MatrixInfo info;
    info.name = member.name;
    info.group = member.group;
    info.kind = "batch";
    info.source = member.source;
    info.regular = member.uniform;
    if (detail::budget_left_s(config, res.run) <= 0) {
      info.error = detail::budget_used_up(config);
      res.matrices.push_back(info);
      continue;
    }
    const Config cfg = detail::member_config(config, i, count, member.name, "generating");
    std::vector<Csr<double, I>> mats;
    try {
      const auto t0 = Clock::now();
      std::vector<Csr<double, std::int64_t>> wide = member.produce();
      if constexpr (std::same_as<I, std::int64_t>) {
        mats = std::move(wide);
      } else {
        mats.reserve(wide.size());
        for (auto& A : wide) {
          mats.push_back(cast<double, I>(A));
          A = Csr<double, std::int64_t>();
        }
      }
      info.load_s = std::chrono::duration<double>(Clock::now() - t0).count();
      std::int64_t max_rows = 0;
      for (const auto& A : mats) {
        info.rows += A.rows();
        info.cols += A.cols();
        info.nnz += A.nnz();
        info.csr_bytes_f64 += static_cast<std::int64_t>(A.bytes());
        max_rows = std::max<std::int64_t>(max_rows, A.rows());
      }
      info.large = info.csr_bytes_f64 >= 2 * res.run.device.cache_bytes;
      info.stats.row_mean =
          info.rows > 0 ? static_cast<double>(info.nnz) / static_cast<double>(info.rows) : 0.0;
      info.stats.row_max = max_rows;  // the largest matrix's rows (batches only)
      if (mats.empty())
        info.error = "the batch has no matrices";
      else if (info.nnz == 0)
        info.error = "the batch has no nonzeros: nothing to measure";
    } catch (const std::exception& e) {
      info.error = fmt::format("cannot build: {}", e.what());
    }
    res.matrices.push_back(info);
    if (!info.error.empty()) continue;
    detail::for_each_precision(config, mats, [&]<Value T>(const std::vector<Csr<T, I>>& typed) {
      measure_batch<T, I>(info, typed, member.uniform, cfg, timer, res);
    });
  }
}

}  // namespace

std::vector<BatchMember> default_batch_suite(const std::filesystem::path& real_dir, double scale) {
  if (!(scale > 0)) throw InvalidInput("the batch suite's scale must be positive");
  const auto count = [scale](std::int64_t c) {
    return std::max<std::int64_t>(1, std::llround(static_cast<double>(c) * scale));
  };
  std::vector<BatchMember> out;
  const auto add = [&](BatchSpec spec, std::string group) {
    spec.count = count(spec.count);
    out.push_back(BatchMember{describe(spec), std::move(group),
                              fmt::format("generate_batch({})", describe(spec)), spec.uniform,
                              [spec] { return generate_batch<double, std::int64_t>(spec); }});
  };
  add(BatchSpec{10000, 100, 1024, 8, false, 11}, "hetero");  // the target batch
  add(BatchSpec{1000, 11, 1024, 8, false, 12}, "hetero");
  add(BatchSpec{10000, 256, 256, 8, true, 13}, "uniform");
  add(BatchSpec{100000, 11, 128, 8, false, 14}, "hetero");

  // The small real matrices (≤ 1024 rows), repeated to about 1000 members.
  std::error_code ec;
  if (!real_dir.empty() && std::filesystem::is_directory(real_dir, ec)) {
    const std::string folder = real_dir.string();
    Suite real;
    try {
      real = files_suite(std::span<const std::string>(&folder, 1));
    } catch (const Error&) {
      return out;
    }
    const std::int64_t members = count(1000);
    out.push_back(
        BatchMember{fmt::format("real-small-c{}", members), "real",
                    fmt::format("the real matrices of {} with at most 1024 rows, repeated", folder),
                    false, [real, members] {
                      std::vector<Csr<double, std::int64_t>> small;
                      for (const auto& m : real.members) {
                        try {
                          Csr<double, std::int64_t> A = load_member<std::int64_t>(m);
                          if (A.rows() <= 1024 && A.nnz() > 0) small.push_back(std::move(A));
                        } catch (const Error&) {
                        }
                      }
                      if (small.empty())
                        throw InvalidInput("no real matrix with at most 1024 rows and a nonzero");
                      std::vector<Csr<double, std::int64_t>> batch;
                      batch.reserve(static_cast<std::size_t>(members));
                      for (std::int64_t i = 0; i < members; ++i)
                        batch.push_back(small[static_cast<std::size_t>(i) % small.size()].clone());
                      return batch;
                    }});
  }
  return out;
}

Results run_batch_bench(std::span<const BatchMember> batches, const Config& config) {
  return detail::run_measured(
      config, "batch",
      [&]<Index I>(I, Timer& timer, Results& res) {
        batch_members<I>(batches, config, timer, res);
      },
      summarize_batch);
}

void summarize_batch(Results& res) {
  using nlohmann::json;
  detail::set_op_summary(res, "batch", [&](Precision p) {
    json entries = json::array();
    for (const MatrixInfo& info : res.matrices) {
      if (!info.error.empty()) continue;
      const Record *best = nullptr, *loop = nullptr, *strided = nullptr;
      int failed = 0, errors = 0;
      for (const Record& r : res.records) {
        if (r.op != BenchOp::Batch || r.matrix != info.name || r.precision != p) continue;
        failed += r.correct == false;
        errors += r.status == Status::Error;
        if (r.status != Status::Ok || r.correct != true || !r.time_s) continue;
        if (r.baseline) {
          if (r.algorithm == spx::baselines::CusparseLoop) {
            loop = &r;
          } else if (strided == nullptr || *r.time_s < *strided->time_s) {
            strided = &r;
          }
          continue;
        }
        if (best == nullptr || *r.time_s < *best->time_s) best = &r;
      }
      json e = {{"batch", info.name}, {"group", info.group}, {"count", json()}, {"rows", info.rows},
                {"nnz", info.nnz},    {"failed", failed},    {"errors", errors}};
      if (best) e["count"] = best->batch_count ? json(*best->batch_count) : json();
      e["best_kernel"] =
          best ? json(fmt::format("{}/{}", to_string(best->format), to_string(best->algorithm)))
               : json();
      e["best_time_s"] = best ? json(*best->time_s) : json();
      e["best_gflops"] = best && best->gflops ? json(*best->gflops) : json();
      e["best_gbs"] = best && best->gbs ? json(*best->gbs) : json();
      e["best_bw_fraction"] = best && best->bw_fraction ? json(*best->bw_fraction) : json();
      e["loop_time_s"] = loop ? json(*loop->time_s) : json();
      e["speedup_over_loop"] = best && loop ? json(*loop->time_s / *best->time_s) : json();
      e["strided_algorithm"] = strided ? json(std::string(to_string(strided->algorithm))) : json();
      e["strided_time_s"] = strided ? json(*strided->time_s) : json();
      e["speedup_over_strided"] = best && strided ? json(*strided->time_s / *best->time_s) : json();
      entries.push_back(std::move(e));
    }
    return json{{"precision", std::string(to_string(p))}, {"entries", std::move(entries)}};
  });
}

}  // namespace spx::bench

// Measuring one matrix in one precision: reference, every format's
// conversion, every kernel's check and timing, and the conversion economics
// against the best CSR kernel. Nothing here names a format or an algorithm:
// the kernels come from the registry (or from the caller) and the formats
// from kAllFormats / convertible().
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "bench.hpp"
#include "device.hpp"
#include "measure.hpp"
#include "spx/advisor.hpp"
#include "spx/core/error.hpp"
#include "spx/ops.hpp"
#include "spx/plan.hpp"

namespace spx::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Conversion timed once, and repeated (median of up to 5) while the
/// repetitions stay short. A device CSR converts on the device, and convert()
/// returns once the device has finished (it synchronizes), so the steady
/// clock measures the whole conversion, allocation and size read-backs
/// included.
template <Value T, Index I>
std::pair<Matrix<T, I>, double> timed_convert(const Csr<T, I>& A, Format f,
                                              const ConvertOptions& opts) {
  auto t0 = Clock::now();
  Matrix<T, I> m = convert(A, f, opts);
  std::vector<double> times{seconds_since(t0)};
  double total = times.back();
  while (times.size() < 5 && total < 0.1) {
    t0 = Clock::now();
    Matrix<T, I> again = convert(A, f, opts);
    times.push_back(seconds_since(t0));
    total += times.back();
  }
  return {std::move(m), detail::median(times)};
}

}  // namespace

template <Value T, Index I>
void measure_matrix(const MatrixInfo& info, const Csr<T, I>& A,
                    std::span<const SpmvKernel<T, I>> kernels, const Config& config, Timer& timer,
                    Results& results, bool through_dispatcher) {
  const Backend backend = config.backend;
  const Space space = space_of(backend);
  const std::int64_t m = A.rows(), n = A.cols(), nnz = A.nnz();
  const auto& registry = Registry<T, I>::instance();
  const auto say = detail::progress_of<T>(config, info.name);
  const std::size_t first_record = results.records.size();
  std::optional<Csr<T, I>> device_A;  // uploaded once, for the device conversions
  std::optional<double> host_copy_s;  // its copy back to the host, timed once

  // x from the run's seed, so every matrix with n columns sees the same x.
  say("reference");
  const std::vector<T> x = reference::random_values<T>(n, results.run.seed);
  const reference::Product expected = reference::product(A, std::span<const T>(x));
  const Array<T> dx(x, space);
  Array<T> dy(static_cast<std::size_t>(m), space);
  const std::vector<T> poison(static_cast<std::size_t>(m), std::numeric_limits<T>::quiet_NaN());
  const ConvertOptions opts =
      convert_options_for(info.stats, sizeof(T), sizeof(I), config.block_size);

  // The advisor's picks for the report, from the model only (no conversion,
  // no product), with the bandwidth and conversion options of this run.
  if (through_dispatcher) {
    say("advisor");
    AdvisorOptions ao;
    ao.backend = backend;
    ao.bandwidth_gbs = results.run.copy_gbs;
    ao.convert = opts;
    for (std::int64_t products : kAdvisorProducts) {
      Workload work;
      work.products = products;
      try {
        const Advice a = advise(A, work, ao);
        AdvisorPick pick;
        pick.matrix = info.name;
        pick.precision = detail::precision_of<T>();
        pick.products = products;
        pick.format = a.chosen().format;
        pick.algorithm = a.chosen().algorithm;
        pick.predicted_total_s = a.chosen().total_s;
        pick.advise_s = a.advise_s;
        pick.compute_scale = a.compute_scale;
        for (std::size_t i : tuning_candidates(a, kAdvisorTuneCandidates))
          pick.tune_candidates.emplace_back(a.candidates[i].format, a.candidates[i].algorithm);
        if (space == Space::Device) {
          // The advice where the matrix is, against a host copy and the
          // host's advice (what a device plan did before). A failure here
          // leaves the host's pick without these fields.
          try {
            if (!device_A) device_A = A.to(Space::Device);
            if (!host_copy_s) {
              timer.synchronize();
              const auto t0 = std::chrono::steady_clock::now();
              const Csr<T, I> copy = device_A->to(Space::Host);
              host_copy_s =
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            double least = std::numeric_limits<double>::infinity();
            bool agrees = true;
            for (int rep = 0; rep < 2; ++rep) {
              const Advice d = advise(*device_A, work, ao);
              least = std::min(least, d.advise_s);
              agrees = agrees && d.chosen().format == a.chosen().format &&
                       d.chosen().algorithm == a.chosen().algorithm;
            }
            pick.host_copy_s = host_copy_s;
            pick.device_advise_s = least;
            pick.device_agrees = agrees;
          } catch (const Error&) {
          }
        }
        results.advisor_picks.push_back(std::move(pick));
      } catch (const Error&) {
        // No pick (no kernel on the backend): the report counts the matrix as unadvised.
        continue;
      }
      // A plan for one product: its build time, the least of three builds
      // (a single one right after the advice's parallel passes measured
      // mostly the OpenMP threads still spinning: 19 us against 0.5 us in a
      // loop, session 19's review). On the device, the plan over the
      // uploaded CSR; its first build, on a fresh upload, computes the row
      // statistics the CSR Auto rule needs anyway, and is compared with the
      // first product on another fresh upload (its preprocessing included).
      if (products == 1) {
        try {
          PlanOptions po;
          po.bandwidth_gbs = results.run.copy_gbs;
          po.convert = opts;
          AdvisorPick& ap = results.advisor_picks.back();
          std::optional<Csr<T, I>> fresh;
          if (space == Space::Device) {
            if (!device_A) device_A = A.to(Space::Device);
            fresh = A.to(Space::Device);
            timer.synchronize();
            const auto t0 = std::chrono::steady_clock::now();
            spmv(T{1}, *fresh, VectorView<const T>(dx), T{0}, VectorView<T>(dy));
            timer.synchronize();
            ap.first_product_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          }
          const Csr<T, I>& P = space == Space::Device ? *device_A : A;
          double least = std::numeric_limits<double>::infinity();
          const int builds = space == Space::Device ? 4 : 3;  // the first on the device apart
          for (int rep = 0; rep < builds; ++rep) {
            const Plan<T, I> plan(P, work, po);
            if (rep == 0 && space == Space::Device) {
              ap.plan_first_build_s = plan.report().build_s;
              continue;
            }
            least = std::min(least, plan.report().build_s);
            ap.plan_format = plan.report().format;
          }
          ap.plan_build_s = least;
        } catch (const Error&) {
          // No plan: the pick stands, without a build time.
        }
      }
    }
  }

  for (Format f : kAllFormats) {
    std::vector<const SpmvKernel<T, I>*> mine;
    for (const auto& k : kernels)
      if (k.info.format == f && k.info.backend == backend && k.info.op == Op::Spmv)
        mine.push_back(&k);
    if (mine.empty()) continue;

    // Records start from what every kernel of this format shares.
    const auto base_record = [&](const SpmvKernel<T, I>& k) {
      Record r = detail::kernel_record<T, I>(BenchOp::Spmv, info, backend, f, k.info, m, n, nnz);
      r.convert_device_note =
          space == Space::Device ? "" : "no device-side conversion on this backend (host memory)";
      return r;
    };
    const auto skip_all = [&](Status status, const std::string& reason) {
      for (const auto* k : mine) {
        Record r = base_record(*k);
        if (space == Space::Device) r.convert_device_note = "not converted (see reason)";
        results.records.push_back(detail::not_measured(std::move(r), status, reason));
      }
    };
    // Convert on the host (CSR needs nothing), then place in the backend's space.
    say(fmt::format("converting to {}", to_string(f)));
    std::optional<Matrix<T, I>> converted;
    std::optional<Matrix<T, I>> placed;
    std::optional<double> convert_s, upload_s;
    try {
      if (f == Format::Csr) {
        convert_s = 0.0;
      } else {
        if (!convertible(f)) {
          skip_all(Status::Skipped,
                   fmt::format("conversion from CSR to {} is not implemented in this build",
                               to_string(f)));
          continue;
        }
        auto [mat, secs] = timed_convert(A, f, opts);
        converted = std::move(mat);
        convert_s = secs;
      }
      if (space == Space::Device) {
        const auto t0 = Clock::now();
        placed = converted
                     ? std::visit([](const auto& a) { return Matrix<T, I>(a.to(Space::Device)); },
                                  *converted)
                     : Matrix<T, I>(A.to(Space::Device));
        upload_s = seconds_since(t0);
        converted.reset();  // the host copy is no longer needed
      }
    } catch (const Unsupported& e) {
      skip_all(Status::Skipped,
               fmt::format("conversion to {} refused: {}", to_string(f), e.what()));
      continue;
    } catch (const std::exception& e) {
      skip_all(Status::Error, fmt::format("conversion to {} failed: {}", to_string(f), e.what()));
      continue;
    }
    // On the device, the conversion is timed again from a device CSR
    // (src/cuda/convert_*), and the kernels run on its result, which equals
    // the uploaded host conversion bit for bit (tests/test_cuda_convert.cpp).
    std::optional<double> convert_device_s;
    std::string device_note;
    if (space == Space::Device && f != Format::Csr) {
      say(fmt::format("converting to {} on the device", to_string(f)));
      try {
        if (!device_A) device_A = A.to(Space::Device);
        auto [mat, secs] = timed_convert(*device_A, f, opts);
        placed = std::move(mat);
        convert_device_s = secs;
      } catch (const std::exception& e) {
        device_note = fmt::format(
            "device conversion failed ({}); the kernels ran on the "
            "host conversion, uploaded",
            e.what());
      }
    }
    const MatrixRef<T, I> M = placed      ? spx::ref(*placed)
                              : converted ? spx::ref(*converted)
                                          : MatrixRef<T, I>(&A);
    const auto format_bytes = static_cast<std::int64_t>(bytes_of<T, I>(M));
    const std::int64_t moved = format_bytes + static_cast<std::int64_t>((n + m) * sizeof(T));
    std::optional<Algorithm> auto_algorithm;
    try {
      auto_algorithm = registry.choose_spmv(M, backend);
    } catch (const Error&) {
    }

    for (std::size_t ki = 0; ki < mine.size(); ++ki) {
      const SpmvKernel<T, I>& kernel = *mine[ki];
      Record r = base_record(kernel);
      r.format_bytes = format_bytes;
      r.bytes_per_nnz = static_cast<double>(format_bytes) / static_cast<double>(nnz);
      r.bytes_moved = moved;
      r.convert_host_s = convert_s;
      r.convert_device_s = f == Format::Csr && space == Space::Device ? 0.0 : convert_device_s;
      if (!device_note.empty()) r.convert_device_note = device_note;
      r.upload_s = upload_s;
      r.auto_choice = !kernel.info.baseline && auto_algorithm == kernel.info.algorithm;
      say(fmt::format("{}/{} ({}/{})", to_string(f), to_string(kernel.info.algorithm), ki + 1,
                      mine.size()));
      const ExecContext ctx{timer.stream()};
      std::vector<T> y_checked;
      detail::KernelTrial trial;
      trial.why_not = kernel.can_run(M);
      // Checked against the format's documented bound (SELL-LP: its rounded values).
      detail::vector_output(trial, dy, poison, expected, y_checked, stored_value_roundoff<T>(f));
      trial.run_checked = [&] {
        if (!through_dispatcher) {
          kernel.run(T{1}, M, dx.data(), T{0}, dy.data(), ctx);
          return kernel.info.algorithm;
        }
        SpmvOptions so;
        so.algorithm = kernel.info.algorithm;
        so.stream = timer.stream();
        return spx::detail::spmv<T, I>(T{1}, M, VectorView<const T>(dx), T{0}, VectorView<T>(dy),
                                       so)
            .algorithm;
      };
      trial.product = [&] { kernel.run(T{1}, M, dx.data(), T{0}, dy.data(), ctx); };
      trial.flops = 2.0 * static_cast<double>(nnz);
      trial.bytes = static_cast<double>(moved);
      trial.warmup_before_probe = true;
      detail::measure_kernel(std::move(r), trial, config, timer, results.run, results.records);
    }
  }

  // Conversion economics against the best CSR kernel that passed its check.
  std::optional<double> best_csr;
  for (std::size_t i = first_record; i < results.records.size(); ++i) {
    const Record& r = results.records[i];
    if (r.format == Format::Csr && r.status == Status::Ok && r.correct == true && r.time_s)
      best_csr = best_csr ? std::min(*best_csr, *r.time_s) : *r.time_s;
  }
  for (std::size_t i = first_record; i < results.records.size(); ++i) {
    Record& r = results.records[i];
    if (r.format == Format::Csr) {
      r.break_even = "none-needed";
      r.break_even_products = 0.0;
      r.convert_host_spmv = 0.0;
      if (r.convert_device_s) r.convert_device_spmv = 0.0;
      continue;
    }
    if (best_csr && r.convert_host_s) r.convert_host_spmv = *r.convert_host_s / *best_csr;
    if (best_csr && r.convert_device_s) r.convert_device_spmv = *r.convert_device_s / *best_csr;
    // The conversion the kernel's matrix needs: on the device when it was
    // measured there (the matrix never leaves the GPU), else on the host.
    const std::optional<double> convert_s =
        r.convert_device_s ? r.convert_device_s : r.convert_host_s;
    if (!best_csr || !convert_s || !r.time_s || r.correct != true) {
      r.break_even = "unknown";
    } else if (*r.time_s < *best_csr) {
      r.break_even = "finite";
      r.break_even_products = *convert_s / (*best_csr - *r.time_s);
    } else {
      r.break_even = "never";
    }
  }
}

template <Value T, Index I>
std::vector<SpmvKernel<T, I>> select_kernels(const Config& config) {
  std::vector<SpmvKernel<T, I>> out;
  for (const auto& k : Registry<T, I>::instance().spmv_kernels()) {
    if (k.info.backend != config.backend || k.info.op != Op::Spmv) continue;
    if (k.info.baseline) {
      if (config.baselines) out.push_back(k);
      continue;
    }
    if (!config.formats.empty() &&
        std::ranges::find(config.formats, k.info.format) == config.formats.end())
      continue;
    if (!config.algorithms.empty() &&
        std::ranges::find(config.algorithms, k.info.algorithm) == config.algorithms.end())
      continue;
    out.push_back(k);
  }
  return out;
}

ConvertOptions convert_options_for(const MatrixStats& stats, std::size_t value_bytes,
                                   std::size_t index_bytes, int forced_block) {
  ConvertOptions o;
  if (forced_block > 0) {
    o.block_size = forced_block;
    return o;
  }
  // Bytes per true nonzero of BCSR with b×b blocks: (value + index/b²) / fill.
  double best = std::numeric_limits<double>::infinity();
  for (int b = 2; b <= 8; ++b) {
    const double fill = stats.fill(b);
    if (fill <= 0) continue;
    const double per_nnz =
        (static_cast<double>(value_bytes) + static_cast<double>(index_bytes) / (b * b)) / fill;
    if (per_nnz < best * (1 - 1e-9)) {
      best = per_nnz;
      o.block_size = b;
    }
  }
  return o;
}

#define SPX_INST(T, I)                                                                         \
  template void measure_matrix<T, I>(const MatrixInfo&, const Csr<T, I>&,                      \
                                     std::span<const SpmvKernel<T, I>>, const Config&, Timer&, \
                                     Results&, bool);                                          \
  template std::vector<SpmvKernel<T, I>> select_kernels<T, I>(const Config&);
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST

}  // namespace spx::bench

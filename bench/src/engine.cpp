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
#include <random>

#include <fmt/format.h>

#include "bench.hpp"
#include "device.hpp"
#include "spx/core/error.hpp"
#include "spx/ops.hpp"

namespace spx::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// x: values uniform in ±[0.5, 1.5] (never zero, mixed signs), from the run's
/// seed, so every matrix with n columns sees the same x.
template <Value T>
std::vector<T> random_x(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::vector<T> x(static_cast<std::size_t>(n));
  for (auto& v : x)
    v = static_cast<T>((gen() & 1 ? 1.0 : -1.0) * mag(gen));
  return x;
}

/// The reference product y = A·x in long double, sequentially per row, with
/// each row's magnitude s_i = Σ_j |a_ij x_j| and the a-priori error bound of a
/// dot product of length n_i summed in any order, (n_i + 4)·eps(T)·s_i (plus a
/// denormal floor): every correct kernel meets it.
struct Reference {
  std::vector<double> y, scale, bound;
};

template <Value T, Index I>
Reference reference_product(const Csr<T, I>& A, const std::vector<T>& x) {
  const std::int64_t m = A.rows();
  Reference ref{std::vector<double>(m), std::vector<double>(m), std::vector<double>(m)};
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const long double eps = std::numeric_limits<T>::epsilon();
#pragma omp parallel for schedule(dynamic, 1024)
  for (std::int64_t r = 0; r < m; ++r) {
    long double sum = 0, mag = 0;
    for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
      const long double p = static_cast<long double>(val[k]) * x[col[k]];
      sum += p;
      mag += std::fabs(p);
    }
    ref.y[r] = static_cast<double>(sum);
    ref.scale[r] = static_cast<double>(mag);
    ref.bound[r] = static_cast<double>((ptr[r + 1] - ptr[r] + 4) * eps * mag +
                                       4 * std::numeric_limits<T>::min());
  }
  return ref;
}

struct CheckResult {
  double max_rel = 0;  ///< inf when a value is not finite
  double ratio = 0;
};

template <Value T>
CheckResult compare(const std::vector<T>& y, const Reference& ref) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto n = static_cast<std::int64_t>(y.size());
  double max_rel = 0, ratio = 0;
#pragma omp parallel for reduction(max : max_rel, ratio) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    // A non-finite y_i makes both infinite (a NaN difference would compare false).
    const double d = std::isfinite(y[i]) ? std::fabs(static_cast<double>(y[i]) - ref.y[i]) : inf;
    const double rel = ref.scale[i] > 0 ? d / ref.scale[i] : (d == 0 ? 0.0 : inf);
    max_rel = std::max(max_rel, rel);
    ratio = std::max(ratio, d / ref.bound[i]);
  }
  return {max_rel, ratio};
}

std::optional<double> finite_or_null(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
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
  const Precision precision = std::same_as<T, float> ? Precision::F32 : Precision::F64;
  const std::int64_t m = A.rows(), n = A.cols(), nnz = A.nnz();
  const auto& registry = Registry<T, I>::instance();
  const auto say = [&](const std::string& what) {
    if (config.progress)
      config.progress(fmt::format("{} {}: {}", info.name, to_string(precision), what), true);
  };
  const std::size_t first_record = results.records.size();
  std::optional<Csr<T, I>> device_A;  // uploaded once, for the device conversions

  say("reference");
  const std::vector<T> x = random_x<T>(n, results.run.seed);
  const Reference expected = reference_product(A, x);
  const Array<T> dx(x, space);
  Array<T> dy(static_cast<std::size_t>(m), space);
  const std::vector<T> poison(static_cast<std::size_t>(m), std::numeric_limits<T>::quiet_NaN());
  const ConvertOptions opts =
      convert_options_for(info.stats, sizeof(T), sizeof(I), config.block_size);
  const int reps_wanted = config.effective_reps();
  const int warmup = config.effective_warmup();
  const double max_s = config.effective_max_seconds();
  const double copy_bps = results.run.copy_gbs * 1e9;
  const std::int64_t cache = results.run.device.cache_bytes;

  for (Format f : kAllFormats) {
    std::vector<const SpmvKernel<T, I>*> mine;
    for (const auto& k : kernels)
      if (k.info.format == f && k.info.backend == backend && k.info.op == Op::Spmv)
        mine.push_back(&k);
    if (mine.empty()) continue;

    // Records start from what every kernel of this format shares.
    const auto base_record = [&](const SpmvKernel<T, I>& k) {
      Record r;
      r.matrix = info.name;
      r.group = info.group;
      r.precision = precision;
      r.index64 = std::same_as<I, std::int64_t>;
      r.backend = backend;
      r.format = f;
      r.algorithm = r.algorithm_ran = k.info.algorithm;
      r.baseline = k.info.baseline;
      r.deterministic = k.info.deterministic;
      r.rows = m;
      r.cols = n;
      r.nnz = nnz;
      r.convert_device_note =
          space == Space::Device ? "" : "no device-side conversion on this backend (host memory)";
      return r;
    };
    const auto skip_all = [&](Status status, const std::string& reason) {
      for (const auto* k : mine) {
        Record r = base_record(*k);
        r.status = status;
        r.reason = reason;
        if (space == Space::Device) r.convert_device_note = "not converted (see reason)";
        results.records.push_back(std::move(r));
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
      if (std::string why = kernel.can_run(M); !why.empty()) {
        r.status = Status::Skipped;
        r.reason = "cannot run: " + why;
        results.records.push_back(std::move(r));
        continue;
      }
      try {
        const ExecContext ctx{timer.stream()};
        // Check: y poisoned with NaN (beta = 0 must not read it).
        spx::detail::copy_bytes(dy.data(), space, poison.data(), Space::Host, dy.bytes());
        if (through_dispatcher) {
          SpmvOptions so;
          so.algorithm = kernel.info.algorithm;
          so.stream = timer.stream();
          const RunInfo ran = spx::detail::spmv<T, I>(T{1}, M, VectorView<const T>(dx), T{0},
                                                      VectorView<T>(dy), so);
          r.algorithm_ran = ran.algorithm;
        } else {
          kernel.run(T{1}, M, dx.data(), T{0}, dy.data(), ctx);
        }
        timer.synchronize();
        const std::vector<T> y_checked = dy.to_vector();
        const CheckResult c = compare(y_checked, expected);
        r.max_rel_error = finite_or_null(c.max_rel);
        r.error_ratio = finite_or_null(c.ratio);
        r.correct = std::isfinite(c.ratio) && c.ratio <= 1.0;

        // Time: warm-up plus one probe run, then as many repetitions as the
        // time budget allows (at least 5, at most --reps).
        const auto product = [&] { kernel.run(T{1}, M, dx.data(), T{0}, dy.data(), ctx); };
        const bool flush = backend == Backend::Cuda && moved < 4 * cache;
        const double probe = timer.time(product, warmup, 1, flush).front();
        int reps = reps_wanted;
        if (probe * reps > max_s)
          reps =
              std::max(std::min(5, reps_wanted), static_cast<int>(max_s / std::max(probe, 1e-9)));
        const std::vector<double> t = timer.time(product, 0, reps, flush);
        const std::vector<T> y_after = dy.to_vector();
        r.repeat_identical = (y_after.empty() || std::memcmp(y_after.data(), y_checked.data(),
                                                             y_after.size() * sizeof(T)) == 0);
        r.reps = reps;
        r.cache_flushed = flush;
        r.time_s = detail::median(t);
        r.time_min_s = *std::min_element(t.begin(), t.end());
        r.time_max_s = *std::max_element(t.begin(), t.end());
        r.gflops = 2.0 * static_cast<double>(nnz) / *r.time_s * 1e-9;
        r.gbs = static_cast<double>(moved) / *r.time_s * 1e-9;
        if (copy_bps > 0) r.bw_fraction = static_cast<double>(moved) / *r.time_s / copy_bps;
        if (!*r.correct)
          r.reason =
              fmt::format("result check failed: error {} times the bound (max relative error {})",
                          c.ratio, c.max_rel);
      } catch (const std::exception& e) {
        r.status = Status::Error;
        r.reason = e.what();
      }
      results.records.push_back(std::move(r));
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

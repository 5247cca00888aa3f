// Plans (include/spx/plan.hpp): the advice, the conversion done once, the
// optional tuning, and the products through the ordinary pipeline with the
// chosen format and kernel.
#include "spx/plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/advisor_model.hpp"
#include "core/backend.hpp"
#include "core/convert_checks.hpp"
#include "core/instantiate.hpp"
#include "spx/convert.hpp"
#include "spx/core/error.hpp"
#include "spx/ops.hpp"
#include "spx/registry.hpp"

namespace spx {
namespace {

/// The columns of one product: n for SpMM, 1 for SpMV.
std::int64_t columns(const Workload& w) {
  return w.op == Op::Spmm ? w.cols : 1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The value arrays of a format, in a fixed order (HYB: ELL part, COO part).
template <class M>
auto value_arrays(M& m) {
  using T = typename M::value_type;
  if constexpr (M::kFormat == Format::Hyb)
    return std::vector<Array<T>*>{&m.ell().values(), &m.coo().values()};
  else if constexpr (reduced_precision(M::kFormat))
    return std::vector<Array<T>*>{};  // not scattered into: update_values converts again
  else
    return std::vector<Array<T>*>{&m.values()};
}

/// What a plan that keeps CSR without the advice knows of the matrix: its
/// counts and, on CUDA, the row lengths measured on the device.
struct Kept {
  std::string why;
  std::optional<RowLengths> lengths;
  std::optional<detail::Regularity> klass;
  double gbs = 0;  ///< the model's bandwidth the bound used (0: none)
};

/// Why a plan may keep the caller's CSR (`C`, in backend `b`'s memory, with
/// its Auto kernel `a`) without the advice and its O(nnz) statistics, or
/// nullopt. In the model every conversion costs at least its fixed cost plus
/// c_f reference products per byte of the CSR (and of the format), c_f ≥
/// c_min (the cheapest in the calibration). So when CSR's N products cost
/// less than c_min reference products per byte of the CSR, and their fixed
/// costs stay within a conversion's, every converted candidate's conversion
/// alone costs more than CSR's N products, and the advice would keep CSR
/// whatever the converted products cost.
/// - CPU: the reference is CSR's own product (its one kernel, cpu_merge),
///   and N products of n columns cost at most N × n SpMVs' work: the bound
///   is N × n ≤ c_min × CSR bytes / SpMV bytes moved.
/// - CUDA: CSR's kernel moves its bytes at `rel` times the reference's
///   efficiency, which depends on the matrix's class (row lengths), taken
///   from the row lengths the CUDA Auto rule measures on the device anyway
///   (one small kernel, cached with the matrix); the bound is
///   detail::csr_keep_bound, with the model's bandwidth where it is known
///   without measuring it (`gbs_option`, or set or measured earlier).
template <Value T, Index I>
std::optional<Kept> keep_csr_without_advice(Backend b, const Workload& w, const Csr<T, I>& C,
                                            Algorithm a, double gbs_option) {
  const std::int64_t rows = C.rows(), cols = C.cols(), nnz = C.nnz();
  const auto csr_bytes = static_cast<std::int64_t>(C.bytes());
  const std::int64_t n = columns(w);
  const double products = static_cast<double>(w.products);
  if (csr_bytes <= 0) return std::nullopt;
  if (b == Backend::Cpu) {
    // CSR's product in the advice and the conversions' reference must be
    // the same compute row for the bound to hold (then the machine's compute
    // scale, which multiplies both alike, cancels: it is not needed here).
    const detail::ComputeCost csr = detail::compute_cost(b, Format::Csr, Algorithm::CpuMerge);
    const detail::ComputeCost ref = detail::reference_compute(b);
    if (!csr.found || !ref.found || csr.bytes_factor != ref.bytes_factor ||
        csr.row_s != ref.row_s || csr.entry_s != ref.entry_s || csr.scatter_s != ref.scatter_s)
      return std::nullopt;
    static const std::pair<double, Format> cheapest = detail::cheapest_conversion(Backend::Cpu);
    const auto [c_min, f_min] = cheapest;
    // One SpMV's bytes (the CSR, x read, y written): the conversions' unit.
    const double moved = static_cast<double>(csr_bytes + (rows + cols) * sizeof(T));
    const bool serial =
        n == 1 && detail::cpu_runs_serial(detail::cpu_thread_work(Format::Csr, rows, nnz, nnz));
    const double fixed =
        products * (csr.fixed_s + (serial ? csr.serial_s * static_cast<double>(nnz) : 0.0));
    const double spmvs = products * static_cast<double>(n);
    const double bound = c_min * static_cast<double>(csr_bytes) / moved;
    if (spmvs > bound || fixed > detail::conversion_fixed_s(b)) return std::nullopt;
    return Kept{fmt::format("{} product{} of {} column{} ({:.3g} SpMVs) cost less than the "
                            "cheapest conversion ({}, at least {:.3g} SpMVs of this matrix), so "
                            "none can repay itself; CSR kept without the advice "
                            "(PlanOptions::always_advise for the ranking)",
                            w.products, w.products == 1 ? "" : "s", n, n == 1 ? "" : "s", spmvs,
                            to_string(f_min), bound),
                std::nullopt, std::nullopt, gbs_option};
  }
  if (b != Backend::Cuda || C.space() == Space::Host) return std::nullopt;
  const std::optional<RowLengths> lengths = Registry<T, I>::instance().csr_row_lengths(C, b);
  if (!lengths || !(lengths->stddev >= 0)) return std::nullopt;  // NaN: no class
  // At the regular/irregular edge (deviation = mean / 2) the host's two-pass
  // deviation may round to the other class than the device's sum of
  // squares: advise there, so that the plan and the advice price alike.
  if (std::abs(lengths->stddev - 0.5 * lengths->mean) <= 1e-9 * (1 + lengths->mean))
    return std::nullopt;
  const detail::Regularity klass = detail::regularity(lengths->max, lengths->mean, lengths->stddev);
  // The model's bandwidth when known without measuring it (given, set, or
  // measured earlier in this process): the conversion's fixed cost then
  // also counts, which keeps small matrices (products mostly fixed cost).
  const std::optional<double> gbs =
      gbs_option > 0 ? std::optional<double>(gbs_option) : detail::known_advisor_bandwidth(b);
  const double moved = static_cast<double>(csr_bytes + (rows + cols) * n * sizeof(T));
  const double bound = detail::csr_keep_bound(b, a, klass, detail::precision_of<T>(),
                                              static_cast<double>(csr_bytes), moved, gbs);
  if (!(products <= bound)) return std::nullopt;
  static const std::pair<double, Format> cheapest = detail::cheapest_conversion(Backend::Cuda);
  return Kept{
      fmt::format("{} product{} of {} column{} cost less than the cheapest conversion ({}, "
                  "at least {:.3g} products of this {} matrix with csr/{}{}), so none can "
                  "repay itself; CSR kept without the advice "
                  "(PlanOptions::always_advise for the ranking)",
                  w.products, w.products == 1 ? "" : "s", n, n == 1 ? "" : "s",
                  to_string(cheapest.second), bound, detail::to_string(klass), to_string(a),
                  gbs ? fmt::format(" at {:.0f} GB/s", *gbs) : std::string(" at any bandwidth")),
      lengths, klass, gbs.value_or(0.0)};
}

/// Waits for the products enqueued on `backend`.
void synchronize(Backend backend) {
  const detail::BackendModule* m = detail::find_backend(backend);
  if (m != nullptr && m->synchronize != nullptr) m->synchronize();
}

}  // namespace

template <Value T, Index I>
struct Plan<T, I>::State {
  PlanReport report;
  Workload work;
  PlanOptions options;
  Backend backend = Backend::Cpu;
  Space space = Space::Host;
  /// The caller's matrix and the CSR the plan knows it by (the caller's, or
  /// `csr_own` made from another format).
  MatrixRef<T, I> input;
  const Csr<T, I>* csr = nullptr;
  std::optional<Csr<T, I>> csr_own;
  /// The CSR in the matrix's space (the caller's, or uploaded).
  const Csr<T, I>* csr_here = nullptr;
  std::optional<Csr<T, I>> csr_upload;
  /// The format the products use when it is not the caller's matrix.
  std::optional<Matrix<T, I>> converted;
  /// What the products use.
  MatrixRef<T, I> use;
  /// Host value map of `converted`: slot → CSR position (−1: padding).
  std::vector<std::int64_t> value_map;

  Matrix<T, I> convert_from_csr(Format f) const {
    if (f == Format::Csr) return Matrix<T, I>{csr_here->clone()};
    return convert(*csr_here, f, report.advice.convert);
  }
};

template <Value T, Index I>
Plan<T, I>::Plan(const Csr<T, I>& A, const Workload& work, const PlanOptions& options)
    : Plan(MatrixRef<T, I>{&A}, work, options) {}

template <Value T, Index I>
Plan<T, I>::~Plan() = default;
template <Value T, Index I>
Plan<T, I>::Plan(Plan&&) noexcept = default;
template <Value T, Index I>
Plan<T, I>& Plan<T, I>::operator=(Plan&&) noexcept = default;

template <Value T, Index I>
Plan<T, I>::Plan(MatrixRef<T, I> A, const Workload& work, const PlanOptions& options)
    : s_(std::make_unique<State>()) {
  const auto t_build = std::chrono::steady_clock::now();
  check_workload(work);
  if (options.tune_candidates < 1)
    throw InvalidInput(fmt::format("PlanOptions::tune_candidates: {}; expected at least 1",
                                   options.tune_candidates));
  if (!(options.tune_within >= 1) || !(options.tune_budget >= 0))
    throw InvalidInput(fmt::format(
        "PlanOptions::tune_within = {}, tune_budget = {}; expected within >= 1, budget >= 0",
        options.tune_within, options.tune_budget));
  if (!std::isfinite(options.compute_scale) || options.compute_scale < 0)
    throw InvalidInput(
        fmt::format("PlanOptions::compute_scale: {}; expected a finite scale > 0 (0: measured)",
                    options.compute_scale));
  State& s = *s_;
  s.work = work;
  s.options = options;
  s.input = A;
  s.space = space_of(A);
  s.backend = backend_of(s.space);
  const Format current = format_of(A);

  // The CSR: the caller's, or made from the caller's format (on the host).
  if (current == Format::Csr) {
    s.csr = std::get<const Csr<T, I>*>(A);
  } else {
    s.csr_own = std::visit(
        [](auto* m) -> Csr<T, I> {
          using M = std::remove_cvref_t<decltype(*m)>;
          if constexpr (M::kFormat == Format::Csr)
            return m->to(Space::Host);
          else
            return m->space() == Space::Host ? to_csr(*m) : to_csr(m->to(Space::Host));
        },
        A);
    s.csr = &*s.csr_own;
  }
  if (s.csr->space() == s.space) {
    s.csr_here = s.csr;
  } else {
    s.csr_upload = s.csr->to(s.space);
    s.csr_here = &*s.csr_upload;
  }

  PlanReport& r = s.report;
  // One product on zero operands, so that the kernel's preprocessing is in
  // the structure cache before the first `run`.
  const auto warm_up = [&] {
    const std::int64_t n = columns(work);
    Array<T> x = Array<T>::filled(static_cast<std::size_t>(cols_of(s.use) * n), T{0}).to(s.space);
    Array<T> y = Array<T>::filled(static_cast<std::size_t>(rows_of(s.use) * n), T{0}).to(s.space);
    if (work.op == Op::Spmv)
      run(T{1}, VectorView<const T>(x), T{0}, VectorView<T>(y));
    else
      run(T{1}, DenseView<const T>{x.data(), cols_of(s.use), n, n, Layout::RowMajor, s.space}, T{0},
          DenseView<T>{y.data(), rows_of(s.use), n, n, Layout::RowMajor, s.space});
    synchronize(s.backend);
  };
  // Few products: keep the caller's CSR without the advice when no
  // conversion can repay itself (keep_csr_without_advice).
  const bool free_choice = !options.tune && !options.always_advise &&
                           (!options.format || *options.format == Format::Csr) &&
                           options.algorithm == Algorithm::Auto;
  if (current == Format::Csr && free_choice) {
    detail::check_advice_options(options.convert);  // as the advice checks them
    const Csr<T, I>& C = *s.csr_here;
    const Registry<T, I>& reg = Registry<T, I>::instance();
    const MatrixRef<T, I> m{s.csr_here};
    const SpmmShape shape{work.cols, Layout::RowMajor, Layout::RowMajor, work.cols, work.cols};
    // The Auto kernel first (on CUDA its rule measures the row lengths the
    // bound needs), unless no kernel could keep this many products: then its
    // preprocessing (SpMM's panels, say) would be done for nothing.
    static const double cuda_most = detail::csr_keep_bound_max(Backend::Cuda);
    const bool may_keep =
        s.backend != Backend::Cuda || static_cast<double>(work.products) <= cuda_most;
    const Algorithm auto_kernel = !may_keep             ? Algorithm::Auto
                                  : work.op == Op::Spmv ? reg.choose_spmv(m, s.backend)
                                                        : reg.choose_spmm(m, s.backend, shape);
    if (std::optional<Kept> kept =
            may_keep
                ? keep_csr_without_advice(s.backend, work, C, auto_kernel, options.bandwidth_gbs)
                : std::nullopt) {
      r.format = Format::Csr;
      r.algorithm = auto_kernel;
      r.why = fmt::format("csr/{}: {}", to_string(r.algorithm), kept->why);
      Advice& a = r.advice;
      a.work = work;
      a.backend = s.backend;
      a.bandwidth_gbs = kept->gbs;              // the bound's (0: none, never measured for it)
      a.compute_scale = options.compute_scale;  // the bound needs none (0: not measured)
      a.convert = options.convert;
      // Only the counts (and the row lengths where the backend measured
      // them): the other statistics are what the plan skipped.
      a.stats.rows = C.rows();
      a.stats.cols = C.cols();
      a.stats.nnz = C.nnz();
      a.stats.row_mean = C.rows() > 0 ? static_cast<double>(C.nnz()) / C.rows() : 0.0;
      if (kept->lengths) {
        a.stats.row_max = kept->lengths->max;
        a.stats.empty_rows = kept->lengths->empty;
        a.stats.row_std = kept->lengths->stddev;
      }
      if (kept->klass) a.regularity = std::string(detail::to_string(*kept->klass));
      Candidate c;
      c.format = Format::Csr;
      c.algorithm = r.algorithm;
      c.bytes = static_cast<std::int64_t>(C.bytes());
      const std::int64_t n = columns(work);
      c.bytes_moved = c.bytes + (C.rows() + C.cols()) * n * static_cast<std::int64_t>(sizeof(T));
      c.product_s = c.total_s = c.efficiency = std::numeric_limits<double>::quiet_NaN();
      c.reason = "not predicted: the plan kept CSR without the advice";
      a.candidates = {c};
      a.pick = 0;
      a.why = r.why;
      s.use = A;
      if (options.warm) warm_up();
      r.build_s = seconds_since(t_build);
      return;
    }
  }

  // The advice, where the CSR is: a device CSR's statistics are measured on
  // the device (only its row pointers come to the host).
  AdvisorOptions ao;
  ao.backend = s.backend;
  ao.bandwidth_gbs = options.bandwidth_gbs;
  ao.compute_scale = options.compute_scale;
  ao.convert = options.convert;
  ao.all_csr_kernels = options.algorithm != Algorithm::Auto;
  ao.allow_reduced_precision =
      options.allow_reduced_precision || (options.format && reduced_precision(*options.format));
  r.advice = advise(*s.csr, work, ao, current);
  std::vector<Candidate>& cands = r.advice.candidates;

  // Forced format or kernel: the best feasible candidate that matches.
  const auto matches = [&](const Candidate& c) {
    return (!options.format || c.format == *options.format) &&
           (options.algorithm == Algorithm::Auto || c.algorithm == options.algorithm);
  };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < cands.size(); ++i)
    if (matches(cands[i]) && cands[i].feasible) order.push_back(i);
  if (order.empty()) {
    std::string why = "no registered kernel";
    for (const Candidate& c : cands)
      if (matches(c) && !c.feasible) why = c.reason;
    throw Unsupported(fmt::format("plan: format {} with algorithm {} cannot be used: {}",
                                  options.format ? to_string(*options.format) : "any",
                                  to_string(options.algorithm), why));
  }

  // Matrices converted while choosing, by format, so the pick is not converted twice.
  std::map<Format, std::pair<Matrix<T, I>, double>> made;
  const auto obtain = [&](Format f) -> std::optional<MatrixRef<T, I>> {
    if (f == current) return A;
    if (f == Format::Csr) return MatrixRef<T, I>{s.csr_here};
    if (auto it = made.find(f); it != made.end()) return spx::ref(it->second.first);
    const auto t0 = std::chrono::steady_clock::now();
    Matrix<T, I> m = s.convert_from_csr(f);
    const double sec = seconds_since(t0);
    auto it = made.emplace(f, std::make_pair(std::move(m), sec)).first;
    return spx::ref(it->second.first);
  };
  const auto can_run = [&](const Candidate& c, MatrixRef<T, I> m) -> std::string {
    const Registry<T, I>& reg = Registry<T, I>::instance();
    if (work.op == Op::Spmv) {
      const auto* k = reg.find_spmv(c.format, c.algorithm, s.backend);
      return k == nullptr ? "not registered" : k->can_run(m);
    }
    const auto* k = reg.find_spmm(c.format, c.algorithm, s.backend);
    const SpmmShape shape{work.cols, Layout::RowMajor, Layout::RowMajor, work.cols, work.cols};
    return k == nullptr ? "not registered" : k->can_run(m, shape);
  };
  /// Makes candidate i usable, or says why it is not (kept in its reason).
  const auto usable = [&](std::size_t i) -> std::optional<MatrixRef<T, I>> {
    Candidate& c = cands[i];
    try {
      auto m = obtain(c.format);
      const std::string why = can_run(c, *m);
      if (why.empty()) return m;
      c.reason = why;
    } catch (const Unsupported& e) {
      c.reason = e.what();
    }
    c.feasible = false;
    return std::nullopt;
  };

  // Tuning: measure the best predicted candidates.
  std::size_t pick = order.front();
  std::vector<std::size_t> to_measure;
  if (options.tune && work.products >= options.tune_min_products) {
    // The candidates worth measuring among those the options allow, judged
    // against the best of them (a forced format or kernel: its own pick and
    // budget, not the unforced pick's).
    Advice allowed;  // tuning_candidates reads these, the candidates and the pick
    allowed.work = r.advice.work;
    allowed.backend = r.advice.backend;
    allowed.convert = r.advice.convert;
    // A SELL-family matrix the caller holds runs its own lanes, not the
    // options': its ThreadsPerRow is another kernel than ThreadPerRow when
    // it was built with threads_per_row > 1.
    std::visit(
        [&](const auto* m) {
          if constexpr (requires { m->threads_per_row(); })
            allowed.convert.threads_per_row =
                std::max(allowed.convert.threads_per_row, m->threads_per_row());
        },
        A);
    allowed.candidates.reserve(order.size());
    for (std::size_t i : order)
      allowed.candidates.push_back(cands[i]);
    allowed.pick = 0;
    for (std::size_t j : tuning_candidates(allowed, options.tune_candidates, options.tune_within,
                                           options.tune_budget))
      to_measure.push_back(order[j]);
  }
  if (!to_measure.empty()) {
    const auto t_tune = std::chrono::steady_clock::now();
    std::optional<std::size_t> best;
    for (std::size_t i : to_measure) {
      const auto m = usable(i);
      if (!m) continue;
      Candidate& c = cands[i];
      // A handful of products on zero operands (values do not change the time).
      const std::int64_t rows = rows_of(*m), cols = cols_of(*m);
      const std::int64_t n = columns(work);
      Array<T> x = Array<T>::filled(static_cast<std::size_t>(cols * n), T{0}).to(s.space);
      Array<T> y = Array<T>::filled(static_cast<std::size_t>(rows * n), T{0}).to(s.space);
      const ProductOptions po{c.algorithm, nullptr};
      const auto product = [&] {
        if (work.op == Op::Spmv)
          detail::spmv<T, I>(T{1}, *m, VectorView<const T>(x), T{0}, VectorView<T>(y), po);
        else
          detail::spmm<T, I>(
              T{1}, *m, DenseView<const T>{x.data(), cols, n, n, Layout::RowMajor, s.space}, T{0},
              DenseView<T>{y.data(), rows, n, n, Layout::RowMajor, s.space}, po);
      };
      std::vector<double> times;
      product();
      synchronize(s.backend);
      for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        product();
        synchronize(s.backend);
        times.push_back(seconds_since(t0));
      }
      std::sort(times.begin(), times.end());
      c.measured = true;
      c.measured_s = times[times.size() / 2];
      auto it = made.find(c.format);
      if (it != made.end()) c.convert_s = it->second.second;
      c.total_s = c.convert_s + static_cast<double>(work.products) * c.measured_s;
      // By the products still to run: the conversions of the candidates
      // measured are paid by now, so one that is cheaper to convert is no
      // reason to keep a slower kernel (the benchmark's emulation, too).
      if (!best || c.measured_s < cands[*best].measured_s) best = i;
    }
    r.tuned = true;
    r.tune_s = seconds_since(t_tune);
    if (best) pick = *best;
  }

  // The pick, or the next usable candidate when the model missed a refusal.
  std::optional<MatrixRef<T, I>> chosen = cands[pick].feasible ? usable(pick) : std::nullopt;
  if (!chosen) {
    for (std::size_t i : order)
      if (cands[i].feasible && (chosen = usable(i))) {
        pick = i;
        break;
      }
  }
  if (!chosen)
    throw Unsupported(fmt::format("plan: no candidate could be used; the best predicted: {}",
                                  cands[order.front()].reason));
  const Candidate& c = cands[pick];
  r.format = c.format;
  r.algorithm = c.algorithm;
  r.predicted_build_s = c.convert_s;
  if (c.format == current) {
    s.use = A;
  } else if (c.format == Format::Csr) {
    s.use = MatrixRef<T, I>{s.csr_here};
  } else {
    auto it = made.find(c.format);
    r.convert_s = it->second.second;
    s.converted = std::move(it->second.first);
    s.use = spx::ref(*s.converted);
  }
  made.clear();
  // Keep the advice's order but point at the pick.
  r.advice.pick = pick;
  r.why = r.tuned ? fmt::format(
                        "{}/{}: least measured product time for {} products after tuning {} "
                        "candidates in {:.3g} s",
                        to_string(c.format), to_string(c.algorithm), work.products,
                        to_measure.size(), r.tune_s)
                  : (pick == order.front()
                         ? r.advice.why
                         : fmt::format("{}/{}: the best usable candidate ({})", to_string(c.format),
                                       to_string(c.algorithm), r.advice.why));
  r.advice.why = r.why;

  if (options.warm) warm_up();
  r.build_s = seconds_since(t_build);
}

template <Value T, Index I>
RunInfo Plan<T, I>::run(T alpha, VectorView<const T> x, T beta, VectorView<T> y,
                        CUstream_st* stream) const {
  const ProductOptions po{s_->work.op == Op::Spmv ? s_->report.algorithm : Algorithm::Auto, stream};
  return detail::spmv<T, I>(alpha, s_->use, x, beta, y, po);
}

template <Value T, Index I>
RunInfo Plan<T, I>::run(T alpha, DenseView<const T> B, T beta, DenseView<T> C,
                        CUstream_st* stream) const {
  const ProductOptions po{s_->work.op == Op::Spmm ? s_->report.algorithm : Algorithm::Auto, stream};
  return detail::spmm<T, I>(alpha, s_->use, B, beta, C, po);
}

template <Value T, Index I>
void Plan<T, I>::update_values(std::span<const T> values) {
  State& s = *s_;
  const std::int64_t nnz = s.csr->nnz();
  if (static_cast<std::int64_t>(values.size()) != nnz)
    throw DimensionMismatch(fmt::format(
        "Plan::update_values: {} values for a matrix of {} nonzeros", values.size(), nnz));
  if (nnz == 0) return;
  // `values` lives in the matrix's space, as `dst` does.
  const auto copy_in = [&](Array<T>& dst) {
    if (s.space == Space::Host)
      std::copy(values.begin(), values.end(), dst.data());
    else
      dst = Array<T>::view(const_cast<T*>(values.data()), values.size(), s.space).to(s.space);
  };
  const Format used = format_of(s.use);

  // The CSR the plan uses is the caller's: multiply with a copy of the new values.
  if (used == Format::Csr && !s.converted) {
    {
      const Csr<T, I>& C = *s.csr_here;
      Array<T> v(values.size(), s.space);
      copy_in(v);
      // Structure viewed in place, values owned by the plan.
      s.converted = Matrix<T, I>{
          Csr<T, I>(static_cast<I>(C.rows()), static_cast<I>(C.cols()),
                    Array<I>::view(const_cast<I*>(C.row_ptr().data()), C.row_ptr().size(), s.space),
                    Array<I>::view(const_cast<I*>(C.col_idx().data()), C.col_idx().size(), s.space),
                    std::move(v), Check::Trusted)};
      s.use = spx::ref(*s.converted);
    }
    return;
  }
  if (used == Format::Csr) {
    copy_in(std::get<Csr<T, I>>(*s.converted).values());
    return;
  }

  // A converted (or caller's non-CSR) format on the device, or one with
  // reduced-precision values (which must round them): convert again from a
  // CSR over the new values.
  if (s.space != Space::Host || reduced_precision(used)) {
    const Csr<T, I>& C = *s.csr_here;
    const Csr<T, I> V(
        static_cast<I>(C.rows()), static_cast<I>(C.cols()),
        Array<I>::view(const_cast<I*>(C.row_ptr().data()), C.row_ptr().size(), s.space),
        Array<I>::view(const_cast<I*>(C.col_idx().data()), C.col_idx().size(), s.space),
        Array<T>::view(const_cast<T*>(values.data()), values.size(), s.space), Check::Trusted);
    s.converted = convert(V, used, s.report.advice.convert);
    s.use = spx::ref(*s.converted);
    return;
  }

  // Host: scatter through a map from the format's slots to CSR positions,
  // made once by converting a CSR whose values are the positions + 1.
  if (!s.converted) s.converted = s.convert_from_csr(used);
  if (s.value_map.empty() && used == Format::SymCsr) {
    // SYM_CSR keeps the prefix of each CSR row with columns <= row (a CSR of
    // positions would not be symmetric): slot k of row i is CSR position
    // row_ptr[i] + k - low_ptr[i]. The new values' lower triangle is taken.
    const SymCsr<T, I>& S = std::get<SymCsr<T, I>>(*s.converted);
    const I* ptr = s.csr->row_ptr().data();
    const I* low = S.row_ptr().data();
    s.value_map.reserve(static_cast<std::size_t>(S.stored()));
    for (std::int64_t i = 0; i < S.rows(); ++i)
      for (std::int64_t k = low[i]; k < low[i + 1]; ++k)
        s.value_map.push_back(std::int64_t{ptr[i]} + k - low[i]);
  }
  if (s.value_map.empty() && used == Format::SymDia) {
    // SYM_DIA: slot d·n + i holds A(i, i + offsets[d]) (offset <= 0), the
    // CSR entry of row i at that column; padding slots map to nothing (-1).
    const SymDia<T, I>& S = std::get<SymDia<T, I>>(*s.converted);
    const I* ptr = s.csr->row_ptr().data();
    const I* col = s.csr->col_idx().data();
    const I* off = S.offsets().data();
    const std::int64_t n = S.rows(), nd = S.ndiag();
    s.value_map.assign(S.values().size(), -1);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t k = ptr[i]; k < ptr[i + 1] && col[k] <= i; ++k) {
        const I o = static_cast<I>(col[k] - i);
        const std::int64_t d = std::lower_bound(off, off + nd, o) - off;
        s.value_map[static_cast<std::size_t>(d * n + i)] = k;
      }
  }
  if (s.value_map.empty()) {
    const Csr<T, I>& C = *s.csr;
    Array<double> pos(static_cast<std::size_t>(nnz));
    for (std::int64_t k = 0; k < nnz; ++k)
      pos.data()[k] = static_cast<double>(k + 1);
    const Csr<double, I> P(static_cast<I>(C.rows()), static_cast<I>(C.cols()),
                           Array<I>::view(const_cast<I*>(C.row_ptr().data()), C.row_ptr().size()),
                           Array<I>::view(const_cast<I*>(C.col_idx().data()), C.col_idx().size()),
                           std::move(pos), Check::Trusted);
    Matrix<double, I> M = convert(P, used, s.report.advice.convert);
    std::visit(
        [&](auto& m) {
          for (Array<double>* a : value_arrays(m))
            for (std::size_t k = 0; k < a->size(); ++k)
              s.value_map.push_back(static_cast<std::int64_t>(a->data()[k]) - 1);
        },
        M);
  }
  std::visit(
      [&](auto& m) {
        std::size_t slot = 0;
        for (Array<T>* a : value_arrays(m)) {
          T* v = a->data();
          const std::int64_t size = static_cast<std::int64_t>(a->size());
          const std::int64_t* map = s.value_map.data() + slot;
#pragma omp parallel for schedule(static) if (size > (std::int64_t{1} << 16))
          for (std::int64_t k = 0; k < size; ++k)
            v[k] = map[k] >= 0 ? values[static_cast<std::size_t>(map[k])] : T{0};
          slot += a->size();
        }
      },
      *s.converted);
  s.use = spx::ref(*s.converted);
}

template <Value T, Index I>
MatrixRef<T, I> Plan<T, I>::matrix() const {
  return s_->use;
}

template <Value T, Index I>
const PlanReport& Plan<T, I>::report() const {
  return s_->report;
}

SPX_INSTANTIATE_CLASS(Plan)

}  // namespace spx

// The advisor (include/spx/advisor.hpp, docs/advisor.md): footprints of every
// format from O(nnz) statistics (no conversion runs), the cost model, the
// ranking, and the copy bandwidth measured once per process.
#include "spx/advisor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "common/first_error.hpp"
#include "core/advisor_model.hpp"
#include "core/backend.hpp"
#include "core/convert_checks.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/padded.hpp"
#include "core/padded_size.hpp"
#include "core/row_lengths.hpp"
#include "core/stats.hpp"
#include "spx/analysis.hpp"
#include "spx/core/error.hpp"
#include "spx/generate.hpp"
#include "spx/ops.hpp"
#include "spx/registry.hpp"

namespace spx {

void check_workload(const Workload& work) {
  if (work.op != Op::Spmv && work.op != Op::Spmm)
    throw InvalidInput(fmt::format("Workload::op: {} is not spmv or spmm", to_string(work.op)));
  if (work.products < 1)
    throw InvalidInput(
        fmt::format("Workload::products: {} products; expected at least 1", work.products));
  if (work.op == Op::Spmm && work.cols < 1)
    throw InvalidInput(
        fmt::format("Workload::cols: {} columns for spmm; expected at least 1", work.cols));
  if (work.op == Op::Spmv && work.cols != 1)
    throw InvalidInput(fmt::format("Workload::cols: {} columns for spmv; expected 1", work.cols));
  if (work.memory_limit < 0)
    throw InvalidInput(fmt::format(
        "Workload::memory_limit: {} bytes is negative; expected >= 0 bytes (or kNoMemoryLimit)",
        work.memory_limit));
}

// ---- bandwidth ----------------------------------------------------------------

namespace {
/// A property of each backend's machine, measured once per process or
/// given (the override wins): the copy bandwidth, the compute scale.
class MachineValues {
 public:
  /// The override, else the measured value, else nullopt.
  std::optional<double> known(Backend b) {
    std::lock_guard guard(lock_);
    if (auto it = overridden_.find(b); it != overridden_.end()) return it->second;
    if (auto it = measured_.find(b); it != measured_.end()) return it->second;
    return std::nullopt;
  }
  /// known(b), else measure() recorded: one measurement at a time (two
  /// at once would disturb each other), none once one is recorded.
  template <class F>
  double get(Backend b, F&& measure) {
    if (const auto v = known(b)) return *v;
    std::lock_guard one_at_a_time(measuring_);
    if (const auto v = known(b)) return *v;
    const double v = measure();
    std::lock_guard guard(lock_);
    measured_[b] = v;
    return v;
  }
  /// Sets the override of b (0 removes it): InvalidInput naming `who` for a
  /// negative or non-finite value, described as `what`.
  void set(Backend b, double v, const char* who, const char* what) {
    if (!std::isfinite(v) || v < 0)
      throw InvalidInput(
          fmt::format("{}: {}; expected a finite {} > 0 (0 removes it)", who, v, what));
    std::lock_guard guard(lock_);
    if (v == 0)
      overridden_.erase(b);
    else
      overridden_[b] = v;
  }

 private:
  std::mutex lock_, measuring_;
  std::map<Backend, double> measured_, overridden_;
};
MachineValues& bandwidths() {
  static MachineValues values;
  return values;
}
MachineValues& compute_scales() {
  static MachineValues values;
  return values;
}
}  // namespace

double advisor_bandwidth(Backend backend) {
  return bandwidths().get(backend, [&] {
    const detail::BackendModule* m = detail::find_backend(backend);
    if (m == nullptr)
      throw Unsupported(fmt::format("advisor: no {} backend in this build", to_string(backend)));
    if (!m->available())
      throw Unsupported(
          fmt::format("advisor: the {} backend cannot run here (no device)", to_string(backend)));
    if (m->copy_bandwidth == nullptr)
      throw Unsupported(
          fmt::format("advisor: the {} backend cannot measure its bandwidth", to_string(backend)));
    return m->copy_bandwidth() * 1e-9;
  });
}

std::optional<double> detail::known_advisor_bandwidth(Backend backend) {
  return bandwidths().known(backend);
}

void set_advisor_bandwidth(Backend backend, double gbs) {
  bandwidths().set(backend, gbs, "set_advisor_bandwidth", "bandwidth in GB/s");
}

// ---- the machine's compute scale ----------------------------------------------------

namespace {
/// Whether the model prices `backend`'s kernels with compute rows (the CPU).
bool has_compute_rows(Backend backend) {
  return detail::reference_compute(backend).found;
}

/// The probe (docs/advisor.md, "The machine's compute scale"): CSR's SpMV on
/// a 5-point stencil of 200 × 200 in f64, the median of 15 timed products
/// after 3 warm-ups (about 2 ms on the CI machine), less the row's cost of a
/// call and its bytes term (none in the committed table: then the bandwidth
/// is not measured), over the row's predicted compute time, over the same
/// ratio on the calibration machine (detail::compute_scale_of).
double measure_compute_scale(Backend backend) {
  GenSpec spec = default_gen_spec(Generator::Stencil2d);
  spec.n = 200;
  spec.points = 5;
  const Csr<double, std::int32_t> A = generate<double, std::int32_t>(spec);
  const MatrixStats stats = analyze(A);
  const detail::ComputeCost cc = detail::reference_compute(backend);
  const double bytes_s =
      cc.bytes_factor > 0
          ? cc.bytes_factor *
                (static_cast<double>(A.bytes()) +
                 static_cast<double>(A.rows() + A.cols()) * static_cast<double>(sizeof(double))) /
                (advisor_bandwidth(backend) * 1e9)
          : 0.0;
  const double compute_s =
      cc.compute_s(static_cast<double>(A.rows()), static_cast<double>(A.nnz()), stats.scatter);
  std::vector<double> x(static_cast<std::size_t>(A.cols()), 1.0);
  std::vector<double> y(static_cast<std::size_t>(A.rows()), 0.0);
  std::vector<double> seconds;
  constexpr int kWarmups = 3, kTimed = 15;
  for (int rep = 0; rep < kWarmups + kTimed; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    spmv(1.0, A, VectorView<const double>(x), 0.0, VectorView<double>(y));
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep >= kWarmups) seconds.push_back(t);
  }
  const auto median = seconds.begin() + kTimed / 2;
  std::nth_element(seconds.begin(), median, seconds.end());
  return detail::compute_scale_of(*median, cc.fixed_s, bytes_s, compute_s);
}
}  // namespace

double advisor_compute_scale(Backend backend) {
  if (!has_compute_rows(backend)) return 1.0;  // nothing to scale: no override either
  return compute_scales().get(backend, [&] { return measure_compute_scale(backend); });
}

void set_advisor_compute_scale(Backend backend, double scale) {
  compute_scales().set(backend, scale, "set_advisor_compute_scale", "scale");
}

// ---- footprints from statistics --------------------------------------------------

namespace {

using detail::Regularity;

/// The structural class of the model (detail::regularity).
Regularity regularity_of(const MatrixStats& s) {
  return detail::regularity(s.row_max, s.row_mean, s.row_std);
}

/// Why a BCSR SpMV kernel of the backend would refuse the block size b the
/// conversion uses ("" when it runs, or the candidate is not one): CUDA's
/// block_sub_warp needs b <= 4, block_by_block b <= 5 and block_row_shared
/// 16 <= b <= 32 (bcsr_refusal, src/cuda/bcsr.cu). Session 27: on
/// fem-b6-n250 (b = 6) the model picked block_sub_warp at 1000 products, a
/// kernel the plan would have converted for and then found it cannot run.
/// A BCSR matrix the caller holds (`kept`) has its own b: its kernels are
/// checked when a plan uses them.
std::string bcsr_kernel_refusal(const detail::BackendModule* module, Op op, Format f, Algorithm a,
                                bool kept, int b) {
  if (f != Format::Bcsr || kept || op != Op::Spmv || module == nullptr ||
      module->bcsr_refusal == nullptr)
    return {};
  return module->bcsr_refusal(a, b);
}

/// Footprint of one format, or why it is not a candidate.
struct Footprint {
  std::int64_t bytes = 0;
  /// The entries a product walks, for the compute model: the nonzeros; BCSR's blocks.
  std::int64_t entries = 0;
  /// The values the format stores where its kernel's threads_for counts them
  /// (DIA, DIA-LP, SYM_DIA, BCSR, HDI, SYM_CSR; detail::cpu_thread_work).
  std::int64_t stored = 0;
  std::string refused;  ///< the conversion's refusal ("" when it would convert)
};

/// What the footprints need beyond MatrixStats, in one O(nnz) pass.
struct Profile {
  MatrixStats stats;
  std::size_t csr_bytes = 0;
  std::vector<Footprint> footprints;  ///< indexed by Format
  int block_size = 4;                 ///< BCSR b used
};

/// Distinct diagonals of each hack of H rows: marks in a per-thread array
/// over the hack's offset range where it is small; else marks over every
/// diagonal (m + n − 1 slots per thread) where that costs no more than a few
/// words per nonzero and row; else a sort of the hack's offsets.
template <Index I>
HackDiagonals hack_diagonals(const I* ptr, const I* col, std::int64_t m, std::int64_t n,
                             std::int64_t H) {
  const std::int64_t nh = (m + H - 1) / H;
  const std::int64_t nnz = ptr[m];
  const bool global_marks = m + n <= 2 * (nnz + m) + (std::int64_t{1} << 16);
  std::vector<std::int64_t> diags(static_cast<std::size_t>(nh), 0);
  detail::FirstError first;
#pragma omp parallel
  {
    std::vector<std::int64_t> stamp, all;
    std::vector<std::int64_t> keys;
#pragma omp for schedule(dynamic, 64)
    for (std::int64_t h = 0; h < nh; ++h) {
      first.run([&] {
        const std::int64_t r0 = h * H, r1 = std::min(m, r0 + H);
        if (ptr[r1] == ptr[r0]) return;
        std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -lo;
        for (std::int64_t i = r0; i < r1; ++i)
          if (ptr[i + 1] > ptr[i]) {
            lo = std::min<std::int64_t>(lo, col[ptr[i]] - i);
            hi = std::max<std::int64_t>(hi, col[ptr[i + 1] - 1] - i);
          }
        const std::int64_t range = hi - lo + 1, entries = ptr[r1] - ptr[r0];
        std::int64_t d = 0;
        const auto mark = [&](std::vector<std::int64_t>& marks, std::int64_t base) {
          for (std::int64_t i = r0; i < r1; ++i)
            for (I k = ptr[i]; k < ptr[i + 1]; ++k) {
              std::int64_t& s = marks[static_cast<std::size_t>(col[k] - i - base)];
              if (s != h) {
                s = h;
                ++d;
              }
            }
        };
        if (range <= std::max<std::int64_t>(4 * entries, 4096)) {
          if (static_cast<std::int64_t>(stamp.size()) < range)
            stamp.assign(static_cast<std::size_t>(range), -1);
          mark(stamp, lo);
        } else if (global_marks) {
          if (all.empty()) all.assign(static_cast<std::size_t>(m + n), -1);
          mark(all, -(m - 1));
        } else {
          keys.clear();
          for (std::int64_t i = r0; i < r1; ++i)
            for (I k = ptr[i]; k < ptr[i + 1]; ++k)
              keys.push_back(col[k] - i);
          std::sort(keys.begin(), keys.end());
          d = std::unique(keys.begin(), keys.end()) - keys.begin();
        }
        diags[static_cast<std::size_t>(h)] = d;
      });
    }
  }
  first.rethrow();
  HackDiagonals out;
  for (std::int64_t x : diags)
    out.total += x;
  out.last = nh > 0 ? diags.back() : 0;
  return out;
}

/// Aligned b×b blocks holding an entry (for b > 8, which analyze does not count).
template <Index I>
std::int64_t count_blocks(const I* ptr, const I* col, std::int64_t m, std::int64_t n,
                          std::int64_t b) {
  const std::int64_t block_rows = (m + b - 1) / b, block_cols = (n + b - 1) / b;
  std::int64_t blocks = 0;
#pragma omp parallel reduction(+ : blocks)
  {
    std::vector<std::int64_t> stamp;
    std::vector<std::int64_t> keys;
#pragma omp for schedule(dynamic, 64)
    for (std::int64_t br = 0; br < block_rows; ++br) {
      const std::int64_t r0 = br * b, r1 = std::min(m, r0 + b);
      const std::int64_t entries = ptr[r1] - ptr[r0];
      if (block_cols <= 4 * entries + 4096) {
        if (static_cast<std::int64_t>(stamp.size()) < block_cols)
          stamp.assign(static_cast<std::size_t>(block_cols), -1);
        for (I k = ptr[r0]; k < ptr[r1]; ++k) {
          std::int64_t& s = stamp[static_cast<std::size_t>(col[k] / b)];
          if (s != br) {
            s = br;
            ++blocks;
          }
        }
      } else {
        keys.clear();
        for (I k = ptr[r0]; k < ptr[r1]; ++k)
          keys.push_back(col[k] / b);
        std::sort(keys.begin(), keys.end());
        blocks += std::unique(keys.begin(), keys.end()) - keys.begin();
      }
    }
  }
  return blocks;
}

/// BCSR's b in 2..8 with the fewest bytes per true nonzero, (value + index /
/// b²) / fill(b), as the benchmark chooses it.
int best_block_size(const MatrixStats& s, std::size_t value_bytes, std::size_t index_bytes) {
  double best = std::numeric_limits<double>::infinity();
  int pick = 4;
  for (int b = 2; b <= 8; ++b) {
    const double fill = s.fill(b);
    if (fill <= 0) continue;
    const double per_nnz = (static_cast<double>(value_bytes) +
                            static_cast<double>(index_bytes) / static_cast<double>(b * b)) /
                           fill;
    if (per_nnz < best) {
      best = per_nnz;
      pick = b;
    }
  }
  return pick;
}

/// Runs a size check of the conversions and keeps its refusal as a reason.
template <class F>
std::string refusal(F&& check) {
  try {
    check();
  } catch (const Unsupported& e) {
    return e.what();
  }
  return {};
}

/// SELL's rows for σ > 1: stably sorted by length, longest first, within
/// windows of σ rows (SELL-pack's order too). The windows sort in parallel.
template <Index I>
std::unique_ptr<std::int64_t[]> rows_by_length(const I* ptr, std::int64_t m, std::int64_t sigma) {
  auto order = std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(m));
  const auto len = [&](std::int64_t r) { return static_cast<std::int64_t>(ptr[r + 1] - ptr[r]); };
  const std::int64_t windows = (m + sigma - 1) / sigma;
  detail::FirstError err;
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t w = 0; w < windows; ++w)
    err.run([&] {
      std::int64_t* first = order.get() + w * sigma;
      std::int64_t* last = order.get() + std::min(m, (w + 1) * sigma);
      std::iota(first, last, w * sigma);
      std::stable_sort(first, last,
                       [&](std::int64_t a, std::int64_t b) { return len(a) > len(b); });
    });
  err.rethrow();
  return order;
}

/// SELL's slices: C rows each, in place (σ = 1, `order` empty) or taken in
/// `order` (σ > 1), each as wide as its longest row rounded up to tpr.
template <Index I>
struct SellSlices {
  const I* ptr;
  std::int64_t m, C, tpr;
  std::span<const std::int64_t> order;

  std::int64_t count() const { return (m + C - 1) / C; }
  /// The row at position i of SELL's order.
  std::int64_t row(std::int64_t i) const {
    return order.empty() ? i : order[static_cast<std::size_t>(i)];
  }
  /// Slice sl's longest row rounded up to tpr.
  std::int64_t width(std::int64_t sl) const {
    std::int64_t w = 0;
    for (std::int64_t i = sl * C; i < std::min(m, sl * C + C); ++i)
      w = std::max(w, static_cast<std::int64_t>(ptr[row(i) + 1] - ptr[row(i)]));
    return (w + tpr - 1) / tpr * tpr;
  }
  /// SELL-pack's packed entries: the stored entries of the slices whose
  /// columns span at most `max_span`, row r's from first(r) to last(r) (of
  /// the n columns), counted in parallel.
  template <class First, class Last>
  std::int64_t packed_entries(std::int64_t n, std::int64_t max_span, First first, Last last) const {
    std::int64_t packed = 0;  // an integer sum: the same in any order
#pragma omp parallel for reduction(+ : packed) schedule(static)
    for (std::int64_t sl = 0; sl < count(); ++sl) {
      std::int64_t lo = n, hi = -1;
      for (std::int64_t i = sl * C; i < std::min(m, sl * C + C); ++i) {
        const std::int64_t r = row(i);
        if (ptr[r + 1] > ptr[r]) {
          lo = std::min(lo, first(r));
          hi = std::max(hi, last(r));
        }
      }
      if (hi - lo <= max_span) packed += C * width(sl);
    }
    return packed;
  }
  /// Σ of the widths, kSaturated past int64, summed in parallel (a
  /// saturating sum is the same in any order).
  std::int64_t width_sum() const {
    std::int64_t sum = 0;
#pragma omp parallel
    {
      std::int64_t part = 0;
#pragma omp for schedule(static) nowait
      for (std::int64_t sl = 0; sl < count(); ++sl)
        part = detail::saturating_add(part, width(sl));
#pragma omp critical(spx_sell_width_sum)
      sum = detail::saturating_add(sum, part);
    }
    return sum;
  }
};

/// SELL's stored entries, C × `width_sum` (the slices' widths). Where that
/// passes int64, the slices are added again one by one as the conversion
/// adds them, and refused with its message, which names the sum that
/// overflowed.
template <Index I>
std::int64_t sell_padded_entries(const SellSlices<I>& slices, std::int64_t width_sum) {
  const std::int64_t stored = detail::saturating_mul(slices.C, width_sum);
  if (stored != detail::kSaturated) return stored;  // no partial sum overflowed either
  std::int64_t checked = 0;
  for (std::int64_t sl = 0; sl < slices.count(); ++sl)
    checked =
        detail::padded_add("SELL", "stored entries", checked,
                           detail::padded_mul("SELL", "slice entries", slices.C, slices.width(sl)));
  return checked;
}

/// HLL's stored entries into `checked`: `hack_entries` (detail::RowLengthSummary'),
/// or, where that passed int64, the hacks of H rows added one by one as the
/// conversion adds them, refused with its message (`checked` then holds the
/// sum reached, a lower bound that HDI's refusal reads, as before the one
/// pass).
template <Index I>
void hll_padded_entries(const I* ptr, std::int64_t m, std::int64_t H, std::int64_t hack_entries,
                        std::int64_t& checked) {
  checked = 0;
  if (hack_entries != detail::kSaturated) {
    checked = hack_entries;
    return;
  }
  for (std::int64_t r0 = 0; r0 < m; r0 += H) {
    const std::int64_t r1 = std::min(m, r0 + H);
    std::int64_t w = 0;
    for (std::int64_t r = r0; r < r1; ++r)
      w = std::max(w, static_cast<std::int64_t>(ptr[r + 1] - ptr[r]));
    checked = detail::padded_add("HLL", "stored entries", checked,
                                 detail::padded_mul("HLL", "hack entries", r1 - r0, w));
  }
}

/// The column indices as the profile reads them: a host CSR's own, or, for
/// a CSR in device memory, what its backend measures there (ColumnReader),
/// with a host copy of the row pointers only.
template <Value T, Index I>
class Columns {
 public:
  Columns(const Columns&) = delete;  // its pointers point into its own buffers
  Columns& operator=(const Columns&) = delete;

  /// Reads A's row pointers once, summarizing its row lengths with the
  /// slices and hacks of `groups` (detail::row_lengths).
  Columns(const Csr<T, I>& A, const detail::RowGroups& groups) : A_(A) {
    if (A.space() != Space::Host && A.nnz() < detail::kDeviceStatsMinEntries)
      copy_ = A.to(Space::Host);
    if (A.space() == Space::Host || copy_) {
      ptr_ = host().row_ptr().data();
      col_ = host().col_idx().data();
      lengths_ = detail::row_lengths(ptr_, A.rows(), groups);
      stats_ = detail::analyze_host(host(), lengths_);
      return;
    }
    reader_ = &detail::column_reader_of(A, "advise");
    ptr_copy_ = A.row_ptr().to(Space::Host);
    ptr_ = ptr_copy_.data();
    lengths_ = detail::row_lengths(ptr_, A.rows(), groups);
    stats_ = detail::stats_from_counts(lengths_, A.cols(), reader_->counts(A));
  }
  /// Host row pointers (rows + 1).
  const I* ptr() const { return ptr_; }
  const detail::RowLengthSummary& lengths() const { return lengths_; }
  const MatrixStats& stats() const { return stats_; }
  /// SELL-pack's packed entries in SELL's slices: with σ = 1 (rows in
  /// place) a backend counts them where the columns are.
  std::int64_t packed_entries(const SellSlices<I>& slices) {
    if (reader_ && slices.order.empty()) return reader_->packed_entries(A_, slices.C, slices.tpr);
    if (reader_ && ends_.first.empty()) ends_ = reader_->row_ends(A_);
    // Row r's first and last column (r holds an entry).
    const auto first = [&](std::int64_t r) {
      return reader_ ? ends_.first[static_cast<std::size_t>(r)] : std::int64_t{col_[ptr_[r]]};
    };
    const auto last = [&](std::int64_t r) {
      return reader_ ? ends_.last[static_cast<std::size_t>(r)]
                     : std::int64_t{col_[ptr_[r + 1] - 1]};
    };
    return slices.packed_entries(A_.cols(), SellPack<T, I>::kMaxSpan, first, last);
  }
  HackDiagonals hack_diagonals(std::int64_t H) const {
    return reader_ ? reader_->hack_diagonals(A_, H)
                   : spx::hack_diagonals(ptr_, col_, A_.rows(), A_.cols(), H);
  }
  std::int64_t blocks(std::int64_t b) const {
    return reader_ ? reader_->blocks(A_, b) : count_blocks(ptr_, col_, A_.rows(), A_.cols(), b);
  }
  /// The diagonal entries of a symmetric A; throws Unsupported, naming
  /// `format`, where A is not symmetric.
  std::int64_t symmetric_diagonal(std::string_view format) const {
    return reader_ ? reader_->symmetric_diagonal(A_, format)
                   : detail::check_symmetric(host(), format);
  }

 private:
  /// The CSR the host reads: the caller's, or the copy of a small device one.
  const Csr<T, I>& host() const { return copy_ ? *copy_ : A_; }

  const Csr<T, I>& A_;
  std::optional<Csr<T, I>> copy_;
  const ColumnReader<T, I>* reader_ = nullptr;  // a device CSR's backend's
  Array<I> ptr_copy_;
  RowEnds ends_;  // the backend's, fetched for SELL-pack with σ > 1
  const I* ptr_ = nullptr;
  const I* col_ = nullptr;  // host only
  detail::RowLengthSummary lengths_;
  MatrixStats stats_;
};

template <Value T, Index I>
Profile profile(const Csr<T, I>& A, ConvertOptions& o) {
  using detail::padded_bytes;
  Profile p;
  // SELL's slices (in place for σ = 1) and HLL's hacks are sized in the
  // same pass over the row pointers as the statistics.
  const std::int64_t C = o.slice_size, sigma = o.sigma, tpr = o.threads_per_row;
  Columns<T, I> columns(A, {.slice = sigma == 1 ? C : 0, .lanes = tpr, .hack = o.hack_size});
  p.stats = columns.stats();
  const MatrixStats& s = p.stats;
  const detail::RowLengthSummary& lengths = columns.lengths();
  p.csr_bytes = A.bytes();
  const std::int64_t m = A.rows(), n = A.cols(), nnz = A.nnz();
  const I* ptr = columns.ptr();
  constexpr auto SI = static_cast<std::int64_t>(sizeof(I));
  constexpr auto ST = static_cast<std::int64_t>(sizeof(T));
  p.footprints.resize(kAllFormats.size());
  for (Footprint& f : p.footprints)
    f.entries = nnz;
  const auto at = [&](Format f) -> Footprint& { return p.footprints[static_cast<std::size_t>(f)]; };

  at(Format::Csr).bytes = (m + 1) * SI + nnz * (SI + ST);
  at(Format::Coo).bytes = nnz * (2 * SI + ST);
  at(Format::Csc).bytes = (n + 1) * SI + nnz * (SI + ST);
  at(Format::Jad).bytes = m * SI + (s.row_max + 1) * SI + nnz * (SI + ST);

  // ELL: every row padded to the longest.
  {
    Footprint& f = at(Format::Ell);
    f.refused = refusal([&] {
      const std::int64_t stored = detail::padded_mul("ELL", "rows x width", m, s.row_max);
      detail::require_index_fits<I>("ELL", "rows x width", stored);
      f.bytes = static_cast<std::int64_t>(padded_bytes<T, I>(stored, m));
      detail::require_budget("ELL",
                             fmt::format("{} rows x width {} (the longest row)", m, s.row_max),
                             stored, static_cast<double>(f.bytes), p.csr_bytes, o);
    });
  }
  // SELL-C-σ: slices of C rows (sorted by length within windows of σ), each
  // padded to its longest row rounded up to threads_per_row.
  std::unique_ptr<std::int64_t[]> sorted;  // σ > 1: SELL's row order, SELL-pack's too
  if (sigma > 1) sorted = rows_by_length(ptr, m, sigma);
  const SellSlices<I> slices{
      ptr, m, C, tpr,
      sigma > 1 ? std::span<const std::int64_t>(sorted.get(), m) : std::span<const std::int64_t>()};
  std::int64_t sell_stored = 0, sell_index = 0;  // also SELL-LP's
  {
    Footprint& f = at(Format::Sell);
    f.refused = refusal([&] {
      const std::int64_t stored =
          sell_padded_entries(slices, sigma > 1 ? slices.width_sum() : lengths.slice_widths);
      detail::require_index_fits<I>("SELL", "stored entries", stored);
      const std::int64_t index_entries = 2 * slices.count() + 1 + m + (sigma > 1 ? m : 0);
      sell_stored = stored;
      sell_index = index_entries;
      f.bytes = static_cast<std::int64_t>(padded_bytes<T, I>(stored, index_entries));
      detail::require_budget(
          "SELL", fmt::format("{} slices of C = {} rows, sigma = {}", slices.count(), C, sigma),
          stored, static_cast<double>(f.bytes), p.csr_bytes, o);
    });
  }
  // SELL-LP: SELL's layout and refusals, sizeof(reduced_value_t<T>) per stored value.
  {
    const Footprint& sell = at(Format::Sell);
    Footprint& f = at(Format::SellLp);
    f.refused = sell.refused;  // the conversion goes through SELL's
    constexpr auto SS = static_cast<std::int64_t>(sizeof(reduced_value_t<T>));
    f.bytes = sell_stored * (SS + SI) + sell_index * SI;
  }
  // SELL-pack: SELL's slices (and refusals); the entries of a slice whose
  // true columns span at most 65535 keep 2-byte offsets instead of indices.
  {
    Footprint& f = at(Format::SellPack);
    f.refused = at(Format::Sell).refused;
    f.bytes = at(Format::Sell).bytes;
    if (f.refused.empty()) {
      const std::int64_t stored = sell_stored;  // the same slices as SELL's
      const std::int64_t packed = columns.packed_entries(slices);
      f.bytes = stored * ST + packed * 2 + (stored - packed) * SI +
                (4 * slices.count() + 2 + m + (sigma > 1 ? m : 0)) * SI;
    }
  }
  // HLL: hacks of H rows, each padded to its longest row.
  std::int64_t hll_stored = 0;  // also a lower bound of HDI's stored values
  {
    Footprint& f = at(Format::Hll);
    f.refused = refusal([&] {
      const std::int64_t H = o.hack_size, hacks = (m + H - 1) / H;
      std::int64_t& stored = hll_stored;
      hll_padded_entries(ptr, m, H, lengths.hack_entries, stored);
      detail::require_index_fits<I>("HLL", "stored entries", stored);
      f.bytes = static_cast<std::int64_t>(padded_bytes<T, I>(stored, hacks + 1 + m));
      detail::require_budget("HLL", fmt::format("{} hacks of H = {} rows", hacks, H), stored,
                             static_cast<double>(f.bytes), p.csr_bytes, o);
    });
  }
  // HYB: ELL part of width K, COO part for the rest.
  {
    Footprint& f = at(Format::Hyb);
    f.refused = refusal([&] {
      const std::int64_t K = o.hyb_width < 0 ? lengths.bell_garland_width()
                                             : std::min<std::int64_t>(o.hyb_width, s.row_max);
      const std::int64_t coo = lengths.entries_beyond(K);
      const std::int64_t stored = detail::padded_mul("HYB", "rows x width", m, K);
      detail::require_index_fits<I>("HYB", "rows x width", stored);
      f.bytes = static_cast<std::int64_t>(padded_bytes<T, I>(stored, m)) + coo * (2 * SI + ST);
      detail::require_budget(
          "HYB", fmt::format("ELL part of {} rows x width {}, COO part of {} entries", m, K, coo),
          stored + coo, static_cast<double>(f.bytes), p.csr_bytes, o);
    });
  }
  // DIA: every occupied diagonal over all rows.
  {
    Footprint& f = at(Format::Dia);
    f.refused = refusal([&] {
      const detail::PaddedSize size = detail::dia_size<T, I>(m, s.diagonals);
      f.bytes = size.bytes;
      f.stored = size.values;
      detail::require_index_fits<I>("DIA", "rows x diagonals", size.values);
      detail::check_padded_budget("DIA", fmt::format("{} rows x {} diagonals", m, s.diagonals),
                                  size, nnz, p.csr_bytes, o);
    });
  }
  // DIA-LP: DIA's diagonals and refusals, sizeof(reduced_value_t<T>) per stored value.
  {
    const Footprint& dia = at(Format::Dia);
    Footprint& f = at(Format::DiaLp);
    f.refused = dia.refused;  // the conversion goes through DIA's
    constexpr auto SS = static_cast<std::int64_t>(sizeof(reduced_value_t<T>));
    f.bytes = dia.bytes;
    f.stored = dia.stored;
    if (f.refused.empty())
      f.bytes = detail::dia_size<T, I>(m, s.diagonals).values * SS + s.diagonals * SI;
  }
  // HDI: each hack's own diagonals.
  {
    Footprint& f = at(Format::Hdi);
    f.refused = refusal([&] {
      const std::int64_t H = o.hack_size, nh = (m + H - 1) / H;
      // A row's entries lie on distinct diagonals, so a hack holds at least
      // as many diagonals as its longest row: HDI stores at least what HLL
      // stores. When that alone is over the budget, the count is not needed.
      const double limit = std::max(static_cast<double>(o.max_bytes_floor),
                                    o.max_expansion * static_cast<double>(p.csr_bytes));
      if (static_cast<double>(hll_stored) * static_cast<double>(sizeof(T)) > limit) {
        f.bytes = hll_stored * ST;
        throw Unsupported(fmt::format(
            "HDI: {} hacks of {} rows would store at least {} values ({} bytes, as many as HLL "
            "pads to), above the limit of {:.0f} bytes = max(ConvertOptions::max_bytes_floor = "
            "{}, max_expansion = {} x CSR bytes); raise the budget or use a format with less "
            "padding",
            nh, H, hll_stored, f.bytes, limit, o.max_bytes_floor, o.max_expansion));
      }
      const auto [total, last] = columns.hack_diagonals(H);
      const std::int64_t last_rows = nh > 0 ? m - (nh - 1) * H : 0;
      const detail::PaddedSize size = detail::hdi_size<T, I>(H, nh, total, last_rows, last);
      f.bytes = size.bytes;
      f.stored = size.values;
      detail::check_padded_budget(
          "HDI",
          fmt::format("{} hacks of {} rows (the last {}) with {} diagonals in all", nh, H,
                      last_rows, total),
          size, nnz, p.csr_bytes, o);
    });
  }
  // SYM_CSR: the lower triangle and the diagonal, (nnz + diagonal entries) / 2
  // entries; refused (and never a candidate) unless A is symmetric.
  // The symmetry test (one O(nnz log) pass over a symmetric matrix) runs once
  // for both symmetric formats; SYM_DIA repeats it only on a refusal, to name
  // itself (the test stops at the first entry without its mirror).
  std::int64_t diagonal = -1;
  {
    Footprint& f = at(Format::SymCsr);
    f.refused = refusal([&] {
      diagonal = columns.symmetric_diagonal("SYM_CSR");
      f.bytes = (m + 1) * SI + (nnz + diagonal) / 2 * (SI + ST);
      f.stored = (nnz + diagonal) / 2;
    });
  }
  // SYM_DIA: the occupied diagonals of offset <= 0 over all rows (a symmetric
  // matrix's occupied diagonals come in pairs, plus the main one when any
  // diagonal entry is stored); refused unless A is symmetric, or, as DIA,
  // beyond the budget.
  {
    Footprint& f = at(Format::SymDia);
    f.refused = refusal([&] {
      if (diagonal < 0) (void)columns.symmetric_diagonal("SYM_DIA");  // throws, naming SYM_DIA
      const std::int64_t lower = (s.diagonals + (diagonal > 0 ? 1 : 0)) / 2;
      const detail::PaddedSize size = detail::dia_size<T, I>(m, lower);
      f.bytes = size.bytes;
      f.stored = size.values;
      detail::require_index_fits<I>("SYM_DIA", "rows x diagonals", size.values);
      detail::check_padded_budget("SYM_DIA", fmt::format("{} rows x {} diagonals", m, lower), size,
                                  (nnz + diagonal) / 2, p.csr_bytes, o);
    });
  }
  // BCSR: blocks from the block fill of analyze (b ≤ 8) or counted.
  {
    Footprint& f = at(Format::Bcsr);
    if (o.block_size < 0) o.block_size = best_block_size(s, sizeof(T), sizeof(I));
    p.block_size = o.block_size;
    const std::int64_t b = o.block_size;
    f.refused = refusal([&] {
      std::int64_t blocks = 0;
      if (b >= 2 && b <= 8 && s.fill(static_cast<int>(b)) > 0)
        blocks = std::llround(static_cast<double>(nnz) /
                              (static_cast<double>(b * b) * s.fill(static_cast<int>(b))));
      else
        blocks = columns.blocks(b);
      const std::int64_t block_rows = (m + b - 1) / b;
      f.entries = blocks;
      f.stored = blocks * b * b;
      f.bytes = detail::bcsr_size<T, I>(block_rows, blocks, b).bytes;
      detail::check_bcsr_size<T, I>(block_rows, blocks, b, nnz, p.csr_bytes, o);
    });
  }
  return p;
}

/// The reference of the conversions, CSR's SpMV product on the matrix: its
/// bytes moved and, where the backend's CSR has a compute row (the CPU), the
/// compute model's time of it less the fixed cost. Computed once per advice.
struct Reference {
  double bytes_moved = 0;  ///< CSR bytes + x read + y written
  bool compute = false;    ///< the backend's CSR has a compute row
  double product_s = 0;    ///< its variable time, when `compute`
};

Reference reference_of(Backend b, std::int64_t bytes_moved, std::int64_t rows, std::int64_t nnz,
                       double scatter, double gbs, double compute_scale) {
  const detail::ComputeCost rc = detail::reference_compute(b).scaled(compute_scale);
  Reference ref{static_cast<double>(bytes_moved), rc.found, 0.0};
  // Without the serial path's term (the conversions were calibrated in units
  // of the product without it, calibrate.py).
  if (rc.found)
    ref.product_s = rc.variable_s(ref.bytes_moved, gbs * 1e9, static_cast<double>(rows),
                                  static_cast<double>(nnz), scatter);
  return ref;
}

/// The conversion's time in the model: a fixed cost plus the calibrated
/// number of reference products per byte (CSR bytes + the format's). Where
/// the backend's CSR has a compute row (the CPU), a reference product is the
/// compute model's (less its fixed cost) over the reference's bytes moved;
/// otherwise the bytes at the reference's calibrated efficiency for the
/// values' precision `p`.
double conversion_s(Backend b, Format f, Regularity c, detail::Precision p, std::int64_t csr_bytes,
                    std::int64_t bytes, double gbs, const Reference& ref) {
  const auto converted = static_cast<double>(csr_bytes + bytes);
  if (!ref.compute)
    return detail::conversion_fixed_s(b) +
           converted / (detail::conversion_efficiency(b, f, c, p) * gbs * 1e9);
  return detail::conversion_fixed_s(b) +
         detail::conversion_products(b, f) * converted / ref.bytes_moved * ref.product_s;
}

}  // namespace

// ---- advice -----------------------------------------------------------------------

template <Value T, Index I>
Advice advise(const Csr<T, I>& A, const Workload& work, const AdvisorOptions& options,
              Format current) {
  return detail::name_allocation_failures("advise", [&] {
    check_workload(work);
    const auto t0 = std::chrono::steady_clock::now();
    Advice adv;
    adv.work = work;
    adv.backend = options.backend;
    if (!std::isfinite(options.compute_scale) || options.compute_scale < 0)
      throw InvalidInput(
          fmt::format("advise: AdvisorOptions::compute_scale is {}; expected a finite scale > 0 "
                      "(0: measured, advisor_compute_scale)",
                      options.compute_scale));
    adv.bandwidth_gbs =
        options.bandwidth_gbs > 0 ? options.bandwidth_gbs : advisor_bandwidth(options.backend);
    adv.compute_scale = !has_compute_rows(options.backend) ? 1.0
                        : options.compute_scale > 0        ? options.compute_scale
                                                           : advisor_compute_scale(options.backend);
    adv.convert = options.convert;
    detail::check_advice_options(adv.convert);
    Profile p = profile(A, adv.convert);
    adv.stats = p.stats;
    const Regularity klass = regularity_of(p.stats);
    adv.regularity = std::string(detail::to_string(klass));

    const Registry<T, I>& reg = Registry<T, I>::instance();
    const Backend backend = options.backend;
    // The bytes model's efficiencies have rows per precision where calibrated.
    constexpr detail::Precision precision = detail::precision_of<T>();
    const std::int64_t n = work.op == Op::Spmm ? work.cols : 1;
    const std::int64_t dense =
        (A.rows() + A.cols()) * n * static_cast<std::int64_t>(sizeof(T));  // x read, y written
    const auto csr_bytes = static_cast<std::int64_t>(p.csr_bytes);
    // The conversions' reference: CSR's SpMV (a conversion does not depend on n).
    const Reference ref = reference_of(
        backend, csr_bytes + (A.rows() + A.cols()) * static_cast<std::int64_t>(sizeof(T)), A.rows(),
        A.nnz(), p.stats.scatter, adv.bandwidth_gbs, adv.compute_scale);

    // One candidate per registered kernel of the backend and operation.
    std::vector<std::pair<Format, Algorithm>> kernels;
    if (work.op == Op::Spmv) {
      for (const auto& k : reg.spmv_kernels())
        if (k.info.backend == backend && !k.info.baseline)
          kernels.emplace_back(k.info.format, k.info.algorithm);
    } else {
      for (const auto& k : reg.spmm_kernels())
        if (k.info.backend == backend && !k.info.baseline)
          kernels.emplace_back(k.info.format, k.info.algorithm);
    }
    if (kernels.empty())
      throw Unsupported(fmt::format("advise: no {} kernel on the {} backend in this build",
                                    to_string(work.op), to_string(backend)));
    // CSR SpMV: only the kernel the backend's Auto rule picks, where the
    // backend can tell it from the counts. On the H100 the model alone picked
    // the adaptive kernel on small real matrices whose products are latency-
    // bound (ca-grqc: 11.6 us against the vector kernel's 5.9 us that Auto
    // picks; docs/advisor.md, "CSR's kernel").
    const detail::BackendModule* module = detail::find_backend(backend);
    if (work.op == Op::Spmv && !options.all_csr_kernels) {
      if (module != nullptr && module->csr_spmv_auto != nullptr && module->available()) {
        const Algorithm a =
            module->csr_spmv_auto(p.stats.rows, p.stats.nnz, p.stats.row_max, p.stats.empty_rows,
                                  static_cast<std::int64_t>(p.csr_bytes), sizeof(T));
        std::erase_if(kernels,
                      [&](const auto& k) { return k.first == Format::Csr && k.second != a; });
      }
    }

    for (const auto& [f, a] : kernels) {
      Candidate c;
      c.format = f;
      c.algorithm = a;
      const Footprint& fp = p.footprints[static_cast<std::size_t>(f)];
      c.bytes = fp.bytes;
      c.bytes_moved = fp.bytes + dense;
      const double bw = adv.bandwidth_gbs * 1e9, moved = static_cast<double>(c.bytes_moved);
      if (const detail::ComputeCost cc =
              detail::compute_cost(backend, f, a).scaled(adv.compute_scale);
          cc.found) {
        // The compute model (the CPU): a fitted cost per call, and costs per
        // byte, row, entry and scattered entry (MatrixStats::scatter), and
        // per entry more where the SpMV kernel runs on one thread (its
        // threads_for work below two grains, detail::cpu_thread_work). No
        // SpMM was measured on the CPU: an SpMM of n columns costs n SpMVs'
        // work (one call); the serial rule is SpMV's, applied for n = 1 only
        // (the SpMM kernels count n times the work).
        const double fixed = cc.fixed_s;
        const double spmv_moved = static_cast<double>(fp.bytes + dense / n);
        const bool serial = n == 1 && detail::cpu_runs_serial(
                                          detail::cpu_thread_work(f, A.rows(), A.nnz(), fp.stored));
        const double variable =
            static_cast<double>(n) * cc.variable_s(spmv_moved, bw, static_cast<double>(A.rows()),
                                                   static_cast<double>(fp.entries), p.stats.scatter,
                                                   serial);
        c.product_s = fixed + variable;
        c.efficiency = variable > 0 ? moved / (variable * bw) : 0.0;
      } else {
        c.efficiency = detail::product_efficiency(backend, f, a, klass, precision).efficiency;
        c.product_s = detail::product_fixed_s(backend, f, a) + moved / (c.efficiency * bw);
      }
      // The caller's format and the CSR (which the statistics needed) are there already.
      const bool kept = f == current || f == Format::Csr;
      c.convert_s = kept ? 0.0
                         : conversion_s(backend, f, klass, precision, csr_bytes, fp.bytes,
                                        adv.bandwidth_gbs, ref);
      if (f != current && reduced_precision(f) && !options.allow_reduced_precision) {
        c.feasible = false;
        c.reason = fmt::format(
            "its values are stored in reduced precision (unit roundoff {:.3g}); allowed only with "
            "allow_reduced_precision",
            stored_value_roundoff<T>(f));
      } else if (!kept && !fp.refused.empty()) {
        c.feasible = false;
        c.reason = fp.refused;
      } else if (const std::string why =
                     bcsr_kernel_refusal(module, work.op, f, a, kept, p.block_size);
                 !why.empty()) {
        c.feasible = false;
        c.reason = why;
      } else if (!kept && !convertible(f)) {
        c.feasible = false;
        c.reason = fmt::format("no conversion to {} in this build", to_string(f));
      } else if (!kept && backend != Backend::Cpu && reg.find_conversion(f, backend) == nullptr) {
        c.feasible = false;
        c.reason = fmt::format("CSR to {}: no conversion on the {} backend", to_string(f),
                               to_string(backend));
      } else if (!kept && c.bytes > work.memory_limit) {
        c.feasible = false;
        c.reason = fmt::format("its {} bytes exceed the memory limit of {} bytes", c.bytes,
                               work.memory_limit);
      }
      c.total_s = c.convert_s + static_cast<double>(work.products) * c.product_s;
      adv.candidates.push_back(std::move(c));
    }

    // Break-even against CSR's best predicted kernel (the reference the
    // benchmark's break_even uses).
    double csr_s = std::numeric_limits<double>::infinity();
    for (const Candidate& c : adv.candidates)
      if (c.format == Format::Csr) csr_s = std::min(csr_s, c.product_s);
    for (Candidate& c : adv.candidates) {
      if (c.convert_s == 0)
        c.break_even = 0;
      else if (c.product_s < csr_s)
        c.break_even = c.convert_s / (csr_s - c.product_s);
      else
        c.break_even = std::numeric_limits<double>::infinity();
    }
    std::stable_sort(adv.candidates.begin(), adv.candidates.end(),
                     [](const Candidate& x, const Candidate& y) {
                       if (x.feasible != y.feasible) return x.feasible;
                       return x.total_s < y.total_s;
                     });
    if (adv.candidates.empty() || !adv.candidates.front().feasible)
      throw Unsupported(fmt::format(
          "advise: no format fits the memory limit of {} bytes (the matrix in {} takes {})",
          work.memory_limit, to_string(current),
          p.footprints[static_cast<std::size_t>(current)].bytes));
    adv.pick = 0;
    const Candidate& pick = adv.candidates.front();
    adv.why = fmt::format(
        "{}/{}: least predicted total for {} products ({:.3g} s = conversion {:.3g} s + {} x "
        "{:.3g} s); {} matrix, {:.1f} GB/s",
        to_string(pick.format), to_string(pick.algorithm), work.products, pick.total_s,
        pick.convert_s, work.products, pick.product_s, adv.regularity, adv.bandwidth_gbs);
    adv.advise_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return adv;
  });
}

namespace {

/// The algorithm whose kernel candidate c runs once converted with the
/// advice's options (BackendModule::spmv_runs_as; c's own without that
/// hook, and for SpMM). The model predicts two such candidates alike, so
/// tuning would spend a place on a second timing of one kernel (session 27:
/// random-n250000-d64, f32, where SELL's one-lane pair took two of the three
/// places and the faster ELL was left out).
Algorithm runs_as(const detail::BackendModule* module, const Advice& advice, const Candidate& c) {
  if (module == nullptr || module->spmv_runs_as == nullptr || advice.work.op != Op::Spmv)
    return c.algorithm;
  return module->spmv_runs_as(c.format, c.algorithm, advice.convert);
}

}  // namespace

std::vector<std::size_t> tuning_candidates(const Advice& advice, int count, double within,
                                           double budget, int runs) {
  std::vector<std::size_t> out;
  if (advice.candidates.empty()) return out;
  const Candidate& pick = advice.chosen();
  const double best = pick.total_s;
  // What tuning adds to the plan: the products it runs on each candidate, and
  // the conversion of each other format measured, once per format (a plan
  // converts a format once, whatever number of its kernels it measures). The
  // pick's own conversion is not counted: the plan pays it with or without
  // tuning. The candidates are taken best first; one whose addition would
  // take the cost past the budget is passed over, and a later, cheaper one
  // (another kernel of a format already taken, CSR) may still fit.
  std::vector<Format> converted{pick.format};
  const detail::BackendModule* module = detail::find_backend(advice.backend);
  double cost = 0;
  for (std::size_t i = 0; i < advice.candidates.size(); ++i) {
    const Candidate& c = advice.candidates[i];
    if (static_cast<int>(out.size()) == count) break;
    if (!c.feasible || c.total_s > within * best) continue;
    const Algorithm kernel = runs_as(module, advice, c);
    if (std::any_of(out.begin(), out.end(), [&](std::size_t j) {
          const Candidate& o = advice.candidates[j];
          return o.format == c.format && runs_as(module, advice, o) == kernel;
        }))
      continue;
    const bool convert = std::find(converted.begin(), converted.end(), c.format) == converted.end();
    const double add = runs * c.product_s + (convert ? c.convert_s : 0.0);
    if (cost + add > budget * best) {
      if (i == advice.pick) return {};  // not even the pick's products fit
      continue;
    }
    out.push_back(i);
    cost += add;
    if (convert) converted.push_back(c.format);
  }
  if (out.size() < 2) out.clear();
  return out;
}

#define SPX_INST(T, I) \
  template Advice advise<T, I>(const Csr<T, I>&, const Workload&, const AdvisorOptions&, Format);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx

// Look-ups in the advisor's calibrated tables (advisor_table.inc, generated
// by bench/advisor/calibrate.py) with the fallbacks of advisor_model.hpp.
#include "core/advisor_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace spx::detail {
namespace {

struct ConvRow {
  Backend backend;
  std::string_view format;
  double reference_products;
  int records;
};
struct ComputeRow {
  Backend backend;
  std::string_view format, algorithm;
  double bytes_factor, row_s, entry_s, scatter_s, fixed_s, serial_s;
  int records;
  double rms_log_error;
};

#include "core/advisor_table.inc"

/// Fewer records than this and a kernel has no compute model (up to six
/// constants are fitted; calibrate.py emits no row below it either).
constexpr int kMinComputeRecords = 6;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The format whose calibration stands in for `f` until f has its own rows:
/// on CUDA, SELL-pack runs SELL's kernel on fewer bytes, so SELL's
/// efficiencies and fixed costs apply to its byte count (its conversion is
/// SELL's plus one pass over the column indices). On the CPU it does not
/// (SELL-pack's kernel measured 1-24% slower than SELL's on the quick suite,
/// bench/results/README.md): it has rows of its own there, from the idle
/// calibration run.
std::string_view calibrated_name(Backend b, Format f) {
  const std::string_view fn = to_string(f);
  // SELL-LP runs SELL's kernels over narrower values, DIA-LP DIA's: SELL's
  // (DIA's) calibrated efficiency (of the bytes each moves) until it has
  // records of its own, on either backend.
  if (f == Format::SellLp || f == Format::DiaLp) {
    for (const EffRow& r : kRelative)
      if (r.backend == b && r.format == fn && r.records >= kMinRecords) return fn;
    return to_string(f == Format::SellLp ? Format::Sell : Format::Dia);
  }
  // SYM_DIA runs DIA's scheme (a thread per row streaming diagonals), each
  // stored value read twice, the second time from cache: DIA's calibrated
  // efficiency and costs, applied to SYM_DIA's own (about halved) byte count,
  // on either backend, until it has records of its own.
  if (f == Format::SymDia) {
    for (const EffRow& r : kRelative)
      if (r.backend == b && r.format == fn && r.records >= kMinRecords) return fn;
    return to_string(Format::Dia);
  }
  if (f == Format::SellPack && b == Backend::Cuda) {
    for (const ConvRow& r : kConversion)
      if (r.backend == b && r.format == fn) return fn;
    return to_string(Format::Sell);
  }
  return fn;
}

/// The format whose kernel `f` runs, whose fixed cost of a call stands in
/// for f's until f has kMinRecords cache-resident records of its own
/// (calibrate.py's FIXED_STAND_IN): SYM_DIA and DIA-LP run DIA's scheme,
/// SELL-LP and SELL-pack SELL's. On CUDA SYM_DIA's own row came from one
/// record, a 46.7 MB member (stencil3d-27pt-n90-sym, f32: 30.8 µs) that
/// passed the cache test: its whole product, not a cost of a call.
Format fixed_stand_in(Format f) {
  switch (f) {
    case Format::SymDia:
    case Format::DiaLp:
      return Format::Dia;
    case Format::SellLp:
    case Format::SellPack:
      return Format::Sell;
    default:
      return f;
  }
}

}  // namespace

std::string_view to_string(Precision p) noexcept {
  return p == Precision::F32 ? "f32" : "f64";
}

std::string_view to_string(Regularity r) noexcept {
  switch (r) {
    case Regularity::Regular:
      return "regular";
    case Regularity::Irregular:
      return "irregular";
    case Regularity::Skewed:
      return "skewed";
  }
  return "?";
}

Regularity regularity(std::int64_t row_max, double row_mean, double row_std) noexcept {
  if (static_cast<double>(row_max) > 8 * row_mean + 64) return Regularity::Skewed;
  if (row_std <= 0.5 * row_mean) return Regularity::Regular;
  return Regularity::Irregular;
}

double reference_efficiency_in(std::span<const RefRow> rows, Backend b, Regularity c, Precision p) {
  const std::string_view cn = to_string(c), pn = to_string(p);
  std::optional<double> pooled;
  std::vector<double> all;
  for (const RefRow& r : rows) {
    if (r.backend != b) continue;
    if (r.klass == cn && r.records >= kMinRecords) {
      if (r.precision == pn) return r.efficiency;
      if (r.precision == "any") pooled = r.efficiency;
    }
    if (r.precision == "any") all.push_back(r.efficiency);
  }
  if (pooled) return *pooled;
  return all.empty() ? 0.5 : median(all);
}

std::optional<RelativeEfficiency> relative_efficiency_in(std::span<const EffRow> rows, Backend b,
                                                         std::string_view f, std::string_view a,
                                                         Regularity c, Precision p) {
  const std::string_view cn = to_string(c), pn = to_string(p);
  std::optional<double> pooled;
  std::vector<double> kernel, format;
  for (const EffRow& r : rows) {
    if (r.backend != b || r.format != f || r.records < kMinRecords) continue;
    if (r.algorithm == a && r.klass == cn && r.precision == pn) return {{r.relative, true}};
    if (r.precision != "any") continue;
    if (r.algorithm == a && r.klass == cn) pooled = r.relative;
    if (r.algorithm == a) kernel.push_back(r.relative);
    if (r.klass == cn) format.push_back(r.relative);
  }
  if (pooled) return {{*pooled, true}};
  if (!kernel.empty()) return {{median(kernel), false}};
  if (!format.empty()) return {{median(format), false}};
  return std::nullopt;
}

std::optional<double> fixed_cost_in(std::span<const FixedRow> rows, Backend b, std::string_view f,
                                    std::string_view stand_in, std::string_view a) {
  for (const std::string_view fn : {f, stand_in})
    for (const FixedRow& r : rows)
      if (r.backend == b && r.format == fn && r.algorithm == a && r.records >= kMinRecords)
        return r.seconds;
  return std::nullopt;
}

double reference_efficiency(Backend b, Regularity c, Precision p) {
  return reference_efficiency_in(kReference, b, c, p);
}

std::string_view calibrated_algorithm(Backend b, Format f, Algorithm a,
                                      std::optional<Regularity> c) {
  const std::string_view an = to_string(a);
  if (b == Backend::Cuda && f == Format::Csr && a == Algorithm::NonzeroSplit &&
      c != Regularity::Regular) {
    for (const EffRow& r : kRelative)
      if (r.backend == b && r.format == "csr" && r.algorithm == an && r.records >= kMinRecords)
        return an;
    return to_string(Algorithm::MergePath);
  }
  return an;
}

ModelEfficiency product_efficiency(Backend b, Format f, Algorithm a, Regularity c, Precision p) {
  const double ref = reference_efficiency(b, c, p);
  if (const std::optional<RelativeEfficiency> r = relative_efficiency_in(
          kRelative, b, calibrated_name(b, f), calibrated_algorithm(b, f, a, c), c, p))
    return {ref * r->relative, r->calibrated};
  // SYM_CSR before calibration: a bytes-based entry, its (about halved) bytes
  // moved at the reference's efficiency (docs/advisor.md).
  if (f == Format::SymCsr) return {ref, false};
  return {ref * 0.5, false};
}

double product_fixed_s(Backend b, Format f, Algorithm a) {
  return fixed_cost_in(kFixed, b, calibrated_name(b, f), to_string(fixed_stand_in(f)),
                       calibrated_algorithm(b, f, a, std::nullopt))
      .value_or(b == Backend::Cuda ? 8e-6 : 2e-6);
}

std::int64_t cpu_thread_work(Format f, std::int64_t rows, std::int64_t nnz, std::int64_t stored) {
  switch (f) {
    case Format::Coo:  // coo.cpp: threads_for(nnz)
    case Format::Csc:  // csc.cpp: threads_for(nnz)
      return nnz;
    case Format::Dia:    // dia.cpp: threads_for(m * max(nd, 1))
    case Format::DiaLp:  // DIA's kernel over narrower values
      return std::max(stored, rows);
    case Format::SymDia:  // sym_dia.cpp: threads_for(2 * n * max(nd, 1))
      return 2 * std::max(stored, rows);
    case Format::Bcsr:  // bcsr.cpp: threads_for(values().size())
      return stored;
    case Format::Hdi:     // hdi.cpp: threads_for(values().size() + m)
    case Format::SymCsr:  // sym_csr.cpp: threads_for((stored() + rows()) * n), n = 1
      return stored + rows;
    case Format::Csr:       // csr.cpp: threads_for(m + nnz)
    case Format::Ell:       // ellpack.cpp: threads_for(nnz() + rows)
    case Format::Sell:      // ellpack.hpp (spmv_groups): threads_for(nnz + rows)
    case Format::Hll:       // ellpack.hpp (spmv_groups)
    case Format::Hyb:       // its ELL part (ellpack.cpp; counted with all nonzeros here)
    case Format::Jad:       // jad.cpp: threads_for(nnz() + rows)
    case Format::SellPack:  // sell_pack.cpp: threads_for(nnz() + rows)
    case Format::SellLp:    // sell_lp.cpp: threads_for(nnz() + rows)
      return nnz + rows;
  }
  return nnz + rows;
}

bool cpu_runs_serial(std::int64_t work) {
  // threads_for(work) = min(threads, max(1, work / grain)), grain 4096.
  constexpr std::int64_t kGrain = 4096;
  return work / kGrain < 2;
}

ComputeCost compute_cost(Backend b, Format f, Algorithm a) {
  const std::string_view fn = calibrated_name(b, f), an = to_string(a);
  for (const ComputeRow& r : kCompute)
    if (r.backend == b && r.format == fn && r.algorithm == an && r.records >= kMinComputeRecords)
      return {r.bytes_factor, r.row_s, r.entry_s, r.scatter_s, r.fixed_s, r.serial_s, true};
  return {};
}

ComputeCost reference_compute(Backend b) {
  for (const ComputeRow& r : kCompute)
    if (r.backend == b && r.format == "csr" && r.records >= kMinComputeRecords)
      return {r.bytes_factor, r.row_s, r.entry_s, r.scatter_s, r.fixed_s, r.serial_s, true};
  return {};
}

double compute_probe_reference() {
  return kComputeProbeReference;
}

double compute_scale_of(double measured_s, double fixed_s, double bytes_s, double compute_s) {
  const double k = (measured_s - fixed_s - bytes_s) / compute_s / kComputeProbeReference;
  if (!(compute_s > 0) || !std::isfinite(k) || !(k > 0)) return 1.0;
  return std::clamp(k, 1.0 / 16, 16.0);
}

double conversion_products(Backend b, Format f) {
  const std::string_view fn = calibrated_name(b, f);
  double products = b == Backend::Cuda ? 15.0 : 5.0;
  for (const ConvRow& r : kConversion)
    if (r.backend == b && r.format == fn) products = r.reference_products;
  return products;
}

double conversion_efficiency(Backend b, Format f, Regularity c, Precision p) {
  return reference_efficiency(b, c, p) / conversion_products(b, f);
}

double conversion_fixed_s(Backend b) {
  return b == Backend::Cuda ? 50e-6 : 20e-6;
}

std::pair<double, Format> cheapest_conversion(Backend b) {
  std::pair<double, Format> least{1e300, Format::Csr};
  for (const Format f : kAllFormats)
    if (f != Format::Csr && conversion_products(b, f) < least.first)
      least = {conversion_products(b, f), f};
  return least;
}

double csr_keep_bound(Backend b, Algorithm a, Regularity c, Precision p, double csr_bytes,
                      double moved, std::optional<double> gbs) {
  if (reference_compute(b).found || compute_cost(b, Format::Csr, a).found) return 0;
  const double ref = reference_efficiency(b, c, p);
  const double rel = product_efficiency(b, Format::Csr, a, c, p).efficiency / ref;
  if (!(rel > 0) || !(moved > 0) || !(csr_bytes > 0)) return 0;
  const double conv_fixed = conversion_fixed_s(b), csr_fixed = product_fixed_s(b, Format::Csr, a);
  const double conv_bytes = cheapest_conversion(b).first * csr_bytes;
  if (!gbs || !(*gbs > 0)) return std::min(rel * conv_bytes / moved, conv_fixed / csr_fixed);
  const double unit = ref * *gbs * 1e9;  // bytes per second at the reference's efficiency
  return (conv_fixed + conv_bytes / unit) / (csr_fixed + moved / (rel * unit));
}

double csr_keep_bound_max(Backend b) {
  // product_efficiency's fallbacks are medians of these rows (of either
  // precision), or 0.5 or 1 times the reference; product_fixed_s's fallback
  // is 8 us on CUDA (rows with too few records only lower the minimum).
  double fixed = b == Backend::Cuda ? 8e-6 : 2e-6, rel = 1.0;
  for (const FixedRow& r : kFixed)
    if (r.backend == b && r.format == "csr") fixed = std::min(fixed, r.seconds);
  for (const EffRow& r : kRelative)
    if (r.backend == b && r.format == "csr") rel = std::max(rel, r.relative);
  return conversion_fixed_s(b) / fixed + rel * cheapest_conversion(b).first;
}

}  // namespace spx::detail

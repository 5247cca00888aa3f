// Look-ups in the advisor's calibrated tables (advisor_table.inc, generated
// by bench/advisor/calibrate.py) with the fallbacks of advisor_model.hpp.
#include "core/advisor_model.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

namespace spx::detail {
namespace {

struct EffRow {
  Backend backend;
  std::string_view format, algorithm, klass;
  double efficiency;
  int records;
};
struct FixedRow {
  Backend backend;
  std::string_view format, algorithm;
  double seconds;
};
struct ConvRow {
  Backend backend;
  std::string_view format;
  double efficiency;
  int records;
};

#include "core/advisor_table.inc"

/// Fewer records than this for a (kernel, class) and the fallback is used.
constexpr int kMinRecords = 3;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

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

ModelEfficiency product_efficiency(Backend b, Format f, Algorithm a, Regularity c) {
  const std::string_view fn = to_string(f), an = to_string(a), cn = to_string(c);
  std::vector<double> kernel, format;
  for (const EffRow& r : kEfficiency) {
    if (r.backend != b || r.format != fn || r.records < kMinRecords) continue;
    if (r.algorithm == an && r.klass == cn) return {r.efficiency, true};
    if (r.algorithm == an) kernel.push_back(r.efficiency);
    if (r.klass == cn) format.push_back(r.efficiency);
  }
  if (!kernel.empty()) return {median(kernel), false};
  if (!format.empty()) return {median(format), false};
  return {0.3, false};
}

double product_fixed_s(Backend b, Format f, Algorithm a) {
  const std::string_view fn = to_string(f), an = to_string(a);
  for (const FixedRow& r : kFixed)
    if (r.backend == b && r.format == fn && r.algorithm == an) return r.seconds;
  return b == Backend::Cuda ? 8e-6 : 5e-6;
}

double conversion_efficiency(Backend b, Format f) {
  const std::string_view fn = to_string(f);
  for (const ConvRow& r : kConversion)
    if (r.backend == b && r.format == fn) return r.efficiency;
  return b == Backend::Cuda ? 0.02 : 0.05;
}

double conversion_fixed_s(Backend b) {
  return b == Backend::Cuda ? 50e-6 : 20e-6;
}

}  // namespace spx::detail

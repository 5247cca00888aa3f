// The advisor report of an SpMV run: the advisor's picks (made from the model
// only while each matrix was measured) judged by the run's own measurements.
// For N products a (format, kernel) costs conversion + N × median time, the
// conversion being the one the break-even uses (device when measured, else
// host; 0 for CSR). The oracle is the least such total over the correct SpX
// records of the matrix; the pick's total is that of its record.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "bench.hpp"

namespace spx::bench {

using nlohmann::json;

namespace {

/// The conversion time of a record (0 for CSR: no conversion), or nothing.
std::optional<double> conversion_of(const Record& r) {
  if (r.format == Format::Csr) return 0.0;
  if (r.convert_device_s) return *r.convert_device_s;
  if (r.convert_host_s) return *r.convert_host_s;
  return {};
}

/// Conversion + n products of a measured record, or nothing.
std::optional<double> total_of(const Record& r, std::int64_t n) {
  if (r.status != Status::Ok || r.correct != true || !r.time_s || r.baseline) return {};
  const auto convert = conversion_of(r);
  if (!convert) return {};
  return *convert + static_cast<double>(n) * *r.time_s;
}

json kernel_name(const Record* r) {
  if (r == nullptr) return nullptr;
  return fmt::format("{}/{}", to_string(r->format), to_string(r->algorithm));
}

json number(std::optional<double> v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

std::optional<std::pair<double, std::string>> emulate_tuning(const std::vector<Record>& records,
                                                             const AdvisorPick& pick,
                                                             std::int64_t n) {
  double tuning = 0, best_product = std::numeric_limits<double>::infinity();
  std::string best_name;
  std::vector<Format> converted;
  const auto convert_once = [&](Format f, double seconds) {
    if (std::find(converted.begin(), converted.end(), f) != converted.end()) return;
    converted.push_back(f);
    tuning += seconds;
  };
  for (const auto& [f, a] : pick.tune_candidates) {
    const Record* measured = nullptr;
    const Record* refused = nullptr;  // the kernel refused this matrix
    for (const Record& r : records) {
      if (r.matrix != pick.matrix || r.precision != pick.precision || r.op != BenchOp::Spmv ||
          r.format != f || r.algorithm != a || r.baseline)
        continue;
      if (total_of(r, 0)) {
        measured = &r;
        break;
      }
      if (r.status == Status::Skipped && r.reason.starts_with("cannot run")) refused = &r;
    }
    if (measured == nullptr) {
      // A kernel that refuses the matrix: the plan converts for it, finds
      // it cannot run (its can_run) and goes on with the other candidates.
      if (const auto c = refused != nullptr ? conversion_of(*refused) : std::nullopt) {
        convert_once(f, *c);
        continue;
      }
      // A candidate the run did not time (its format left out, the time
      // budget spent): what tuning would find is unknown.
      return std::nullopt;
    }
    convert_once(f, *conversion_of(*measured));
    tuning += kAdvisorTuneProducts * *measured->time_s;
    if (*measured->time_s < best_product) {
      best_product = *measured->time_s;
      best_name = fmt::format("{}/{}", to_string(f), to_string(a));
    }
  }
  if (best_name.empty()) return std::nullopt;
  return std::make_pair(tuning + static_cast<double>(n) * best_product, best_name);
}

void summarize_advisor(Results& res) {
  res.advisor = nullptr;
  if (res.advisor_picks.empty()) return;
  json precisions = json::array();
  for (Precision p : res.config.precisions) {
    json entries = json::array();
    json by_n = json::array();
    for (std::int64_t n : kAdvisorProducts) {
      double log_pick = 0, log_csr = 0, log_tuned = 0,
             worst_pick = std::numeric_limits<double>::infinity(), worst_csr = worst_pick,
             worst_tuned = worst_pick;
      int tuned_judged = 0;
      // Plans built (CPU): their build time in CSR Auto products.
      double log_build = 0, worst_build = 0;
      int builds = 0;
      std::string worst_build_matrix;
      double worst_first = 0;
      int first_builds = 0;
      std::string worst_first_matrix;
      double log_device_speedup = 0, worst_device = 0;
      int device_advices = 0, device_disagreements = 0;
      std::string worst_device_matrix;
      std::string worst_matrix;
      int judged = 0, csr_judged = 0, unmeasured = 0, unemulated = 0;
      for (const AdvisorPick& pick : res.advisor_picks) {
        if (pick.precision != p || pick.products != n) continue;
        const Record* oracle = nullptr;
        const Record* chosen = nullptr;
        const Record* csr_auto = nullptr;
        double best = std::numeric_limits<double>::infinity();
        for (const Record& r : res.records) {
          if (r.matrix != pick.matrix || r.precision != p || r.op != BenchOp::Spmv) continue;
          // The advisor's default never picks reduced-precision values (SELL-LP): not an oracle.
          if (reduced_precision(r.format)) continue;
          const auto t = total_of(r, n);
          if (!t) continue;
          if (*t < best) {
            best = *t;
            oracle = &r;
          }
          if (r.format == pick.format && r.algorithm == pick.algorithm) chosen = &r;
          if (r.format == Format::Csr && r.auto_choice) csr_auto = &r;
        }
        if (oracle == nullptr) continue;
        // Tuning, emulated with this run's measurements: the plan converts
        // each format of its candidates once (Plan's `made`), runs the
        // products of every candidate, then the N products of the one of
        // least measured product time (the conversions are paid by then).
        std::optional<double> tuned_total;
        std::string tuned_name;
        if (n >= kAdvisorTuneMinProducts && !pick.tune_candidates.empty()) {
          const auto tuned = emulate_tuning(res.records, pick, n);
          if (tuned) {
            tuned_total = tuned->first;
            tuned_name = tuned->second;
          } else {
            ++unemulated;
          }
        } else {
          tuned_total = chosen != nullptr ? total_of(*chosen, n) : std::nullopt;
          tuned_name = fmt::format("{}/{}", to_string(pick.format), to_string(pick.algorithm));
        }
        const std::optional<double> pick_total =
            chosen != nullptr ? total_of(*chosen, n) : std::nullopt;
        const std::optional<double> csr_total =
            csr_auto != nullptr ? total_of(*csr_auto, n) : std::nullopt;
        std::optional<double> ratio, csr_ratio;
        if (pick_total) {
          ratio = best / *pick_total;
          log_pick += std::log(*ratio);
          ++judged;
          if (*ratio < worst_pick) {
            worst_pick = *ratio;
            worst_matrix = pick.matrix;
          }
        } else {
          ++unmeasured;
        }
        std::optional<double> tuned_ratio;
        if (tuned_total) {
          tuned_ratio = best / *tuned_total;
          log_tuned += std::log(*tuned_ratio);
          ++tuned_judged;
          worst_tuned = std::min(worst_tuned, *tuned_ratio);
        }
        if (csr_total) {
          csr_ratio = best / *csr_total;
          log_csr += std::log(*csr_ratio);
          ++csr_judged;
          worst_csr = std::min(worst_csr, *csr_ratio);
        }
        std::optional<double> build_products;
        if (pick.plan_build_s && csr_auto != nullptr && csr_auto->time_s && *csr_auto->time_s > 0) {
          build_products = *pick.plan_build_s / *csr_auto->time_s;
          log_build += std::log(std::max(*build_products, 1e-9));
          ++builds;
          if (*build_products > worst_build) {
            worst_build = *build_products;
            worst_build_matrix = pick.matrix;
          }
        }
        // Device runs: the first build (row statistics included) against
        // the first product on a fresh upload (its preprocessing included).
        std::optional<double> first_ratio;
        if (pick.plan_first_build_s && pick.first_product_s && *pick.first_product_s > 0) {
          first_ratio = *pick.plan_first_build_s / *pick.first_product_s;
          ++first_builds;
          if (*first_ratio > worst_first) {
            worst_first = *first_ratio;
            worst_first_matrix = pick.matrix;
          }
        }
        // Device runs: the advice on the device against a host copy and
        // the host's advice, and in CSR-Auto products.
        std::optional<double> device_speedup, device_products;
        if (pick.device_advise_s && pick.host_copy_s && *pick.device_advise_s > 0) {
          device_speedup = (*pick.host_copy_s + pick.advise_s) / *pick.device_advise_s;
          log_device_speedup += std::log(*device_speedup);
          ++device_advices;
          device_disagreements += pick.device_agrees == false;
          if (csr_auto != nullptr && csr_auto->time_s && *csr_auto->time_s > 0) {
            device_products = *pick.device_advise_s / *csr_auto->time_s;
            if (*device_products > worst_device) {
              worst_device = *device_products;
              worst_device_matrix = pick.matrix;
            }
          }
        }
        entries.push_back(
            {{"matrix", pick.matrix},
             {"products", n},
             {"pick", fmt::format("{}/{}", to_string(pick.format), to_string(pick.algorithm))},
             {"predicted_total_s", pick.predicted_total_s},
             {"pick_total_s", number(pick_total)},
             {"oracle", kernel_name(oracle)},
             {"oracle_total_s", best},
             {"csr_auto_total_s", number(csr_total)},
             {"oracle_over_pick", number(ratio)},
             {"oracle_over_csr_auto", number(csr_ratio)},
             {"tuned", tuned_name.empty() ? json() : json(tuned_name)},
             {"tuned_total_s", number(tuned_total)},
             {"oracle_over_tuned", number(tuned_ratio)},
             {"advise_s", pick.advise_s},
             {"plan_build_s", number(pick.plan_build_s)},
             {"plan_format",
              pick.plan_build_s ? json(std::string(to_string(pick.plan_format))) : json()},
             {"plan_build_over_csr_auto_product", number(build_products)},
             {"plan_first_build_s", number(pick.plan_first_build_s)},
             {"first_product_s", number(pick.first_product_s)},
             {"plan_first_build_over_first_product", number(first_ratio)},
             {"device_advise_s", number(pick.device_advise_s)},
             {"host_copy_s", number(pick.host_copy_s)},
             {"host_over_device_advice", number(device_speedup)},
             {"device_advise_products", number(device_products)},
             {"device_agrees", pick.device_agrees ? json(*pick.device_agrees) : json()}});
      }
      by_n.push_back(
          {{"products", n},
           {"matrices", judged},
           {"unmeasured_picks", unmeasured},
           {"unemulated_tunings", unemulated},
           {"geomean_oracle_over_pick", judged > 0 ? json(std::exp(log_pick / judged)) : json()},
           {"worst_oracle_over_pick", judged > 0 ? json(worst_pick) : json()},
           {"worst_matrix", worst_matrix},
           {"geomean_oracle_over_csr_auto",
            csr_judged > 0 ? json(std::exp(log_csr / csr_judged)) : json()},
           {"worst_oracle_over_csr_auto", csr_judged > 0 ? json(worst_csr) : json()},
           {"geomean_oracle_over_tuned",
            tuned_judged > 0 ? json(std::exp(log_tuned / tuned_judged)) : json()},
           {"worst_oracle_over_tuned", tuned_judged > 0 ? json(worst_tuned) : json()},
           {"plans_built", builds},
           {"geomean_plan_build_products",
            builds > 0 ? json(std::exp(log_build / builds)) : json()},
           {"max_plan_build_products", builds > 0 ? json(worst_build) : json()},
           {"max_plan_build_matrix", worst_build_matrix},
           {"first_builds", first_builds},
           {"max_plan_first_build_over_first_product",
            first_builds > 0 ? json(worst_first) : json()},
           {"max_plan_first_build_matrix", worst_first_matrix},
           {"device_advices", device_advices},
           {"geomean_host_over_device_advice",
            device_advices > 0 ? json(std::exp(log_device_speedup / device_advices)) : json()},
           {"max_device_advise_products", worst_device > 0 ? json(worst_device) : json()},
           {"max_device_advise_matrix", worst_device_matrix},
           {"device_disagreements", device_disagreements}});
    }
    precisions.push_back(
        {{"precision", to_string(p)}, {"by_products", by_n}, {"entries", entries}});
  }
  // One scale per process: the first pick's (replay.py reads it).
  res.advisor = {{"mode", "model"},
                 {"compute_scale", res.advisor_picks.front().compute_scale},
                 {"precisions", precisions}};
}

/// The advisor report lines of the table ("" without a report).
std::string advisor_table(const Results& res) {
  if (res.advisor.is_null()) return {};
  std::string out =
      "\nadvisor: total time of conversion + N products, oracle / pick (1 = the best any "
      "measured format and kernel reaches); pick from the model only; tuned: the best "
      "of the candidates tuning_candidates takes (up to 3, within its budget), their "
      "conversions and 6 products each charged (N >= 100)\n";
  if (const double k = res.advisor.value("compute_scale", 1.0); k != 1.0)
    out += fmt::format("  (the CPU compute model scaled by this machine's compute scale, {:.2f})\n",
                       k);
  const auto num = [](const json& v) {
    return v.is_number() ? fmt::format("{:.3f}", v.get<double>()) : std::string("-");
  };
  // What the row could not judge: picks the run did not measure, tunings
  // with a candidate it did not measure.
  const auto unjudged = [](const json& b) {
    std::string s;
    if (const int k = b.value("unmeasured_picks", 0); k > 0)
      s = fmt::format("{} picks not measured", k);
    if (const int k = b.value("unemulated_tunings", 0); k > 0)
      s += fmt::format("{}{} tunings not emulated", s.empty() ? "" : "; ", k);
    return s.empty() ? s : "  (" + s + ")";
  };
  for (const json& p : res.advisor["precisions"]) {
    out += fmt::format("  {:<4} {:>6} {:>9} {:>10} {:>10}  {:<28} {:>14} {:>12} {:>11} {:>11}\n",
                       p["precision"].get<std::string>(), "N", "matrices", "geomean", "worst",
                       "worst matrix", "CSR-Auto geo", "CSR-Auto min", "tuned geo", "tuned min");
    for (const json& b : p["by_products"])
      out += fmt::format(
          "  {:<4} {:>6} {:>9} {:>10} {:>10}  {:<28} {:>14} {:>12} {:>11} {:>11}{}\n", "",
          b["products"].get<std::int64_t>(), b["matrices"].get<int>(),
          num(b["geomean_oracle_over_pick"]), num(b["worst_oracle_over_pick"]),
          b["worst_matrix"].get<std::string>().substr(0, 28),
          num(b["geomean_oracle_over_csr_auto"]), num(b["worst_oracle_over_csr_auto"]),
          num(b["geomean_oracle_over_tuned"]), num(b["worst_oracle_over_tuned"]), unjudged(b));
    for (const json& b : p["by_products"])
      if (b.value("plans_built", 0) > 0)
        out += fmt::format(
            "  {:<4} plan for {} product{}: built in {} CSR-Auto products (geomean over {}), "
            "{} at most ({})\n",
            p["precision"].get<std::string>(), b["products"].get<std::int64_t>(),
            b["products"].get<std::int64_t>() == 1 ? "" : "s",
            num(b["geomean_plan_build_products"]), b["plans_built"].get<int>(),
            num(b["max_plan_build_products"]), b["max_plan_build_matrix"].get<std::string>());
    for (const json& b : p["by_products"])
      if (b.value("first_builds", 0) > 0)
        out += fmt::format(
            "  {:<4} plan for {} product{} on a fresh device matrix: first build / first product "
            "(preprocessing included) {} at most ({}, {} matrices)\n",
            p["precision"].get<std::string>(), b["products"].get<std::int64_t>(),
            b["products"].get<std::int64_t>() == 1 ? "" : "s",
            num(b["max_plan_first_build_over_first_product"]),
            b["max_plan_first_build_matrix"].get<std::string>(), b["first_builds"].get<int>());
    for (const json& b : p["by_products"])
      if (b.value("device_advices", 0) > 0)
        out += fmt::format(
            "  {:<4} advice for {} product{} on the device matrix: {}x faster than a host copy "
            "and the host's advice (geomean over {}), {} CSR-Auto products at most ({}); "
            "{} picks differ from the host's\n",
            p["precision"].get<std::string>(), b["products"].get<std::int64_t>(),
            b["products"].get<std::int64_t>() == 1 ? "" : "s",
            num(b["geomean_host_over_device_advice"]), b["device_advices"].get<int>(),
            num(b["max_device_advise_products"]), b["max_device_advise_matrix"].get<std::string>(),
            b["device_disagreements"].get<int>());
  }
  return out;
}

}  // namespace spx::bench

// The JSON file of a run, its schema (the tables of docs/benchmarks.md in
// code form) and the validator that tests and `spx bench` apply to it.
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "bench.hpp"

namespace spx::bench {

using nlohmann::json;

namespace {

enum class Kind : std::uint8_t {
  String,
  Number,
  Integer,
  Bool,
  NumberOrNull,
  IntegerOrNull,
  StringOrNull,
  BoolOrNull,
  StringArray,
  NumberArray,
  Object,
  ObjectArray,
};

struct Field {
  std::string_view name;
  Kind kind;
  /// May be absent (fields added after spx-bench/1 first shipped: files
  /// written before them stay valid). When present, the kind is checked.
  bool optional = false;
};
constexpr bool kOpt = true;

using K = Kind;

// One table per level; the order is the order of the documentation.
constexpr Field kTop[] = {{"schema", K::String},           {"run", K::Object},
                          {"config", K::Object},           {"matrices", K::ObjectArray},
                          {"records", K::ObjectArray},     {"summary", K::ObjectArray},
                          {"headline", K::ObjectArray},    {"op", K::String, kOpt},
                          {"op_summary", K::Object, kOpt}, {"advisor", K::Object, kOpt}};
constexpr Field kAdvisor[] = {
    {"mode", K::String}, {"compute_scale", K::Number, kOpt}, {"precisions", K::ObjectArray}};
constexpr Field kAdvisorPrecision[] = {
    {"precision", K::String}, {"by_products", K::ObjectArray}, {"entries", K::ObjectArray}};
constexpr Field kAdvisorProducts[] = {
    {"products", K::Integer},
    {"matrices", K::Integer},
    {"unmeasured_picks", K::Integer},
    {"unemulated_tunings", K::Integer, kOpt},
    {"geomean_oracle_over_pick", K::NumberOrNull},
    {"worst_oracle_over_pick", K::NumberOrNull},
    {"worst_matrix", K::String},
    {"geomean_oracle_over_csr_auto", K::NumberOrNull},
    {"worst_oracle_over_csr_auto", K::NumberOrNull},
    {"geomean_oracle_over_tuned", K::NumberOrNull},
    {"worst_oracle_over_tuned", K::NumberOrNull},
    {"plans_built", K::Integer, kOpt},
    {"geomean_plan_build_products", K::NumberOrNull, kOpt},
    {"max_plan_build_products", K::NumberOrNull, kOpt},
    {"max_plan_build_matrix", K::String, kOpt},
    {"first_builds", K::Integer, kOpt},
    {"max_plan_first_build_over_first_product", K::NumberOrNull, kOpt},
    {"max_plan_first_build_matrix", K::String, kOpt},
    {"device_advices", K::Integer, kOpt},
    {"geomean_host_over_device_advice", K::NumberOrNull, kOpt},
    {"max_device_advise_products", K::NumberOrNull, kOpt},
    {"max_device_advise_matrix", K::String, kOpt},
    {"device_disagreements", K::Integer, kOpt}};
constexpr Field kAdvisorEntry[] = {{"matrix", K::String},
                                   {"products", K::Integer},
                                   {"pick", K::String},
                                   {"predicted_total_s", K::Number},
                                   {"pick_total_s", K::NumberOrNull},
                                   {"oracle", K::StringOrNull},
                                   {"oracle_total_s", K::Number},
                                   {"csr_auto_total_s", K::NumberOrNull},
                                   {"oracle_over_pick", K::NumberOrNull},
                                   {"oracle_over_csr_auto", K::NumberOrNull},
                                   {"tuned", K::StringOrNull},
                                   {"tuned_total_s", K::NumberOrNull},
                                   {"oracle_over_tuned", K::NumberOrNull},
                                   {"advise_s", K::Number},
                                   {"plan_build_s", K::NumberOrNull, kOpt},
                                   {"plan_format", K::StringOrNull, kOpt},
                                   {"plan_build_over_csr_auto_product", K::NumberOrNull, kOpt},
                                   {"plan_first_build_s", K::NumberOrNull, kOpt},
                                   {"first_product_s", K::NumberOrNull, kOpt},
                                   {"plan_first_build_over_first_product", K::NumberOrNull, kOpt},
                                   {"device_advise_s", K::NumberOrNull, kOpt},
                                   {"host_copy_s", K::NumberOrNull, kOpt},
                                   {"host_over_device_advice", K::NumberOrNull, kOpt},
                                   {"device_advise_products", K::NumberOrNull, kOpt},
                                   {"device_agrees", K::BoolOrNull, kOpt}};
constexpr Field kRun[] = {
    {"spx_version", K::String}, {"commit", K::String},   {"commit_dirty", K::Bool},
    {"date", K::String},        {"host", K::String},     {"compiler", K::String},
    {"backend", K::String},     {"copy_gbs", K::Number}, {"seed", K::Integer},
    {"alpha", K::Number},       {"beta", K::Number},     {"device", K::Object}};
constexpr Field kDevice[] = {{"name", K::String},
                             {"driver_version", K::String},
                             {"cuda_driver", K::String},
                             {"cuda_runtime", K::String},
                             {"cusparse_version", K::String},
                             {"eigen_version", K::String},
                             {"compute_capability", K::String},
                             {"multiprocessors", K::Integer},
                             {"memory_bytes", K::Integer},
                             {"cache_bytes", K::Integer},
                             {"peak_memory_gbs", K::Number, kOpt}};
constexpr Field kConfig[] = {{"suite", K::String},
                             {"precisions", K::StringArray},
                             {"index", K::String},
                             {"reps", K::Integer},
                             {"warmup", K::Integer},
                             {"max_seconds_per_kernel", K::Number},
                             {"formats", K::StringArray},
                             {"algorithms", K::StringArray},
                             {"baselines", K::Bool},
                             {"block_size", K::Integer},
                             {"flush_below_bytes", K::Integer},
                             {"op", K::String, kOpt},
                             {"cols", K::NumberArray, kOpt},
                             {"batch_scale", K::Number, kOpt}};
constexpr Field kMatrix[] = {{"name", K::String},
                             {"group", K::String},
                             {"kind", K::String},
                             {"source", K::String},
                             {"regular", K::Bool},
                             {"large", K::Bool},
                             {"error", K::String},
                             {"load_s", K::Number},
                             {"rows", K::Integer},
                             {"cols", K::Integer},
                             {"nnz", K::Integer},
                             {"csr_bytes_f64", K::Integer},
                             {"bcsr_block_size", K::Integer},
                             {"stats", K::Object}};
constexpr Field kStats[] = {
    {"density", K::Number},    {"row_mean", K::Number},         {"row_std", K::Number},
    {"row_min", K::Integer},   {"row_max", K::Integer},         {"empty_rows", K::Integer},
    {"diagonals", K::Integer}, {"lower_bandwidth", K::Integer}, {"upper_bandwidth", K::Integer},
    {"bandwidth", K::Integer}, {"block_fill", K::NumberArray},  {"scatter", K::Number, kOpt}};
constexpr Field kRecord[] = {{"matrix", K::String},
                             {"group", K::String},
                             {"precision", K::String},
                             {"index", K::String},
                             {"backend", K::String},
                             {"format", K::String},
                             {"algorithm", K::String},
                             {"algorithm_ran", K::String},
                             {"baseline", K::Bool},
                             {"deterministic", K::Bool},
                             {"auto_choice", K::Bool},
                             {"status", K::String},
                             {"reason", K::String},
                             {"rows", K::Integer},
                             {"cols", K::Integer},
                             {"nnz", K::Integer},
                             {"format_bytes", K::IntegerOrNull},
                             {"bytes_per_nnz", K::NumberOrNull},
                             {"bytes_moved", K::IntegerOrNull},
                             {"time_s", K::NumberOrNull},
                             {"time_min_s", K::NumberOrNull},
                             {"time_max_s", K::NumberOrNull},
                             {"reps", K::Integer},
                             {"cache_flushed", K::Bool},
                             {"gflops", K::NumberOrNull},
                             {"gbs", K::NumberOrNull},
                             {"bw_fraction", K::NumberOrNull},
                             {"max_rel_error", K::NumberOrNull},
                             {"error_ratio", K::NumberOrNull},
                             {"correct", K::BoolOrNull},
                             {"repeat_identical", K::BoolOrNull},
                             {"convert_host_s", K::NumberOrNull},
                             {"convert_host_spmv", K::NumberOrNull},
                             {"convert_device_s", K::NumberOrNull},
                             {"convert_device_note", K::String},
                             {"convert_device_spmv", K::NumberOrNull, kOpt},
                             {"upload_s", K::NumberOrNull},
                             {"break_even_products", K::NumberOrNull},
                             {"break_even", K::String},
                             {"op", K::String, kOpt},
                             {"n_cols", K::IntegerOrNull, kOpt},
                             {"layout", K::StringOrNull, kOpt},
                             {"batch_count", K::IntegerOrNull, kOpt}};
constexpr Field kSummary[] = {{"matrix", K::String},
                              {"precision", K::String},
                              {"regular", K::Bool},
                              {"large", K::Bool},
                              {"best_format", K::StringOrNull},
                              {"best_algorithm", K::StringOrNull},
                              {"best_time_s", K::NumberOrNull},
                              {"best_gflops", K::NumberOrNull},
                              {"best_bw_fraction", K::NumberOrNull},
                              {"baseline_algorithm", K::StringOrNull},
                              {"baseline_time_s", K::NumberOrNull},
                              {"speedup", K::NumberOrNull},
                              {"failed", K::Integer},
                              {"errors", K::Integer}};
constexpr Field kHeadline[] = {
    {"precision", K::String},         {"geomean_speedup", K::NumberOrNull},
    {"speedup_matrices", K::Integer}, {"regular_bw_fraction", K::NumberOrNull},
    {"regular_matrices", K::Integer}, {"regular_set", K::String}};

std::span<const Field> level_fields(std::string_view level) {
  if (level == "top") return kTop;
  if (level == "run") return kRun;
  if (level == "device") return kDevice;
  if (level == "config") return kConfig;
  if (level == "matrix") return kMatrix;
  if (level == "stats") return kStats;
  if (level == "record") return kRecord;
  if (level == "summary") return kSummary;
  if (level == "headline") return kHeadline;
  if (level == "advisor") return kAdvisor;
  if (level == "advisor_precision") return kAdvisorPrecision;
  if (level == "advisor_products") return kAdvisorProducts;
  if (level == "advisor_entry") return kAdvisorEntry;
  return {};
}

bool has_kind(const json& v, Kind k) {
  switch (k) {
    case K::String:
      return v.is_string();
    case K::Number:
      return v.is_number();
    case K::Integer:
      return v.is_number_integer();
    case K::Bool:
      return v.is_boolean();
    case K::NumberOrNull:
      return v.is_null() || v.is_number();
    case K::IntegerOrNull:
      return v.is_null() || v.is_number_integer();
    case K::StringOrNull:
      return v.is_null() || v.is_string();
    case K::BoolOrNull:
      return v.is_null() || v.is_boolean();
    case K::StringArray:
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!e.is_string()) return false;
      return true;
    case K::NumberArray:
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!e.is_number()) return false;
      return true;
    case K::Object:
      return v.is_object();
    case K::ObjectArray:
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!e.is_object()) return false;
      return true;
  }
  return false;
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case K::String:
      return "string";
    case K::Number:
      return "number";
    case K::Integer:
      return "integer";
    case K::Bool:
      return "boolean";
    case K::NumberOrNull:
      return "number or null";
    case K::IntegerOrNull:
      return "integer or null";
    case K::StringOrNull:
      return "string or null";
    case K::BoolOrNull:
      return "boolean or null";
    case K::StringArray:
      return "array of strings";
    case K::NumberArray:
      return "array of numbers";
    case K::Object:
      return "object";
    case K::ObjectArray:
      return "array of objects";
  }
  return "?";
}

/// Checks one object against its level: every field present with its kind,
/// nothing else.
void check_object(const json& obj, std::string_view level, const std::string& where,
                  std::vector<std::string>& out) {
  if (!obj.is_object()) {
    out.push_back(fmt::format("{}: expected an object", where));
    return;
  }
  const auto fields = level_fields(level);
  for (const Field& f : fields) {
    const auto it = obj.find(std::string(f.name));
    if (it == obj.end()) {
      if (f.optional) continue;
      out.push_back(fmt::format("{}: missing field '{}'", where, f.name));
    } else if (!has_kind(*it, f.kind)) {
      out.push_back(fmt::format("{}.{}: expected {}, got {}", where, f.name, kind_name(f.kind),
                                it->type_name()));
    }
  }
  for (const auto& [key, value] : obj.items()) {
    bool known = false;
    for (const Field& f : fields)
      known = known || f.name == key;
    if (!known) out.push_back(fmt::format("{}: field '{}' is not in the schema", where, key));
  }
}

void check_enum(const json& obj, std::string_view field,
                std::initializer_list<std::string_view> allowed, const std::string& where,
                std::vector<std::string>& out) {
  const auto it = obj.find(std::string(field));
  if (it == obj.end() || !it->is_string()) return;  // reported by check_object
  const auto value = it->get<std::string>();
  for (auto a : allowed)
    if (a == value) return;
  out.push_back(fmt::format("{}.{}: unexpected value '{}'", where, field, value));
}

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string index_name(bool index64) {
  return index64 ? "i64" : "i32";
}

json to_json(const MatrixStats& s) {
  json fill = json::array();
  for (double v : s.block_fill)
    fill.push_back(v);
  return {{"density", s.density},
          {"row_mean", s.row_mean},
          {"row_std", s.row_std},
          {"row_min", s.row_min},
          {"row_max", s.row_max},
          {"empty_rows", s.empty_rows},
          {"diagonals", s.diagonals},
          {"lower_bandwidth", s.lower_bandwidth},
          {"upper_bandwidth", s.upper_bandwidth},
          {"bandwidth", s.bandwidth},
          {"block_fill", fill},
          {"scatter", s.scatter}};
}

json to_json(const Record& r) {
  return {{"matrix", r.matrix},
          {"group", r.group},
          {"precision", to_string(r.precision)},
          {"index", index_name(r.index64)},
          {"backend", to_string(r.backend)},
          {"format", to_string(r.format)},
          {"algorithm", to_string(r.algorithm)},
          {"algorithm_ran", to_string(r.algorithm_ran)},
          {"baseline", r.baseline},
          {"deterministic", r.deterministic},
          {"auto_choice", r.auto_choice},
          {"status", to_string(r.status)},
          {"reason", r.reason},
          {"rows", r.rows},
          {"cols", r.cols},
          {"nnz", r.nnz},
          {"format_bytes", opt(r.format_bytes)},
          {"bytes_per_nnz", opt(r.bytes_per_nnz)},
          {"bytes_moved", opt(r.bytes_moved)},
          {"time_s", opt(r.time_s)},
          {"time_min_s", opt(r.time_min_s)},
          {"time_max_s", opt(r.time_max_s)},
          {"reps", r.reps},
          {"cache_flushed", r.cache_flushed},
          {"gflops", opt(r.gflops)},
          {"gbs", opt(r.gbs)},
          {"bw_fraction", opt(r.bw_fraction)},
          {"max_rel_error", opt(r.max_rel_error)},
          {"error_ratio", opt(r.error_ratio)},
          {"correct", opt(r.correct)},
          {"repeat_identical", opt(r.repeat_identical)},
          {"convert_host_s", opt(r.convert_host_s)},
          {"convert_host_spmv", opt(r.convert_host_spmv)},
          {"convert_device_s", opt(r.convert_device_s)},
          {"convert_device_note", r.convert_device_note},
          {"convert_device_spmv", opt(r.convert_device_spmv)},
          {"upload_s", opt(r.upload_s)},
          {"break_even_products", opt(r.break_even_products)},
          {"break_even", r.break_even},
          {"op", std::string(to_string(r.op))},
          {"n_cols", opt(r.n_cols)},
          {"layout", r.layout.empty() ? json(nullptr) : json(r.layout)},
          {"batch_count", opt(r.batch_count)}};
}

template <class E>
json opt_name(const std::optional<E>& v) {
  return v ? json(std::string(to_string(*v))) : json(nullptr);
}

}  // namespace

std::vector<std::string> schema_fields(std::string_view level) {
  std::vector<std::string> out;
  for (const Field& f : level_fields(level))
    out.emplace_back(f.name);
  return out;
}

json to_json(const Results& res) {
  const RunContext& run = res.run;
  const DeviceInfo& d = run.device;
  json doc;
  doc["schema"] = "spx-bench/1";
  doc["run"] = {{"spx_version", run.spx_version},
                {"commit", run.commit},
                {"commit_dirty", run.commit_dirty},
                {"date", run.date},
                {"host", run.host},
                {"compiler", run.compiler},
                {"backend", to_string(d.backend)},
                {"copy_gbs", run.copy_gbs},
                {"seed", run.seed},
                {"alpha", run.alpha},
                {"beta", run.beta},
                {"device",
                 {{"name", d.name},
                  {"driver_version", d.driver_version},
                  {"cuda_driver", d.cuda_driver},
                  {"cuda_runtime", d.cuda_runtime},
                  {"cusparse_version", d.cusparse_version},
                  {"eigen_version", d.eigen_version},
                  {"compute_capability", d.compute_capability},
                  {"multiprocessors", d.multiprocessors},
                  {"memory_bytes", d.memory_bytes},
                  {"cache_bytes", d.cache_bytes},
                  {"peak_memory_gbs", d.peak_memory_gbs}}}};
  const Config& c = res.config;
  json precisions = json::array(), formats = json::array(), algorithms = json::array();
  for (Precision p : c.precisions)
    precisions.push_back(std::string(to_string(p)));
  for (Format f : c.formats)
    formats.push_back(std::string(to_string(f)));
  for (Algorithm a : c.algorithms)
    algorithms.push_back(std::string(to_string(a)));
  doc["config"] = {{"suite", c.suite_name},
                   {"precisions", precisions},
                   {"index", index_name(c.index64)},
                   {"reps", c.effective_reps()},
                   {"warmup", c.effective_warmup()},
                   {"max_seconds_per_kernel", c.effective_max_seconds()},
                   {"formats", formats},
                   {"algorithms", algorithms},
                   {"baselines", c.baselines},
                   {"block_size", c.block_size},
                   {"flush_below_bytes", d.backend == Backend::Cuda ? 4 * d.cache_bytes : 0},
                   {"op", std::string(to_string(c.op))}};
  if (c.op == BenchOp::Spmm) doc["config"]["cols"] = c.effective_cols();
  if (c.op == BenchOp::Batch) doc["config"]["batch_scale"] = c.effective_batch_scale();
  doc["op"] = std::string(to_string(c.op));
  if (!res.op_summary.is_null()) doc["op_summary"] = res.op_summary;
  if (!res.advisor.is_null()) doc["advisor"] = res.advisor;
  json matrices = json::array();
  for (const MatrixInfo& m : res.matrices)
    matrices.push_back({{"name", m.name},
                        {"group", m.group},
                        {"kind", m.kind},
                        {"source", m.source},
                        {"regular", m.regular},
                        {"large", m.large},
                        {"error", m.error},
                        {"load_s", m.load_s},
                        {"rows", m.rows},
                        {"cols", m.cols},
                        {"nnz", m.nnz},
                        {"csr_bytes_f64", m.csr_bytes_f64},
                        {"bcsr_block_size", m.bcsr_block_size},
                        {"stats", to_json(m.stats)}});
  doc["matrices"] = std::move(matrices);
  json records = json::array();
  for (const Record& r : res.records)
    records.push_back(to_json(r));
  doc["records"] = std::move(records);
  json summary = json::array();
  for (const Summary& s : res.summary)
    summary.push_back({{"matrix", s.matrix},
                       {"precision", to_string(s.precision)},
                       {"regular", s.regular},
                       {"large", s.large},
                       {"best_format", opt_name(s.best_format)},
                       {"best_algorithm", opt_name(s.best_algorithm)},
                       {"best_time_s", opt(s.best_time_s)},
                       {"best_gflops", opt(s.best_gflops)},
                       {"best_bw_fraction", opt(s.best_bw_fraction)},
                       {"baseline_algorithm", opt_name(s.baseline_algorithm)},
                       {"baseline_time_s", opt(s.baseline_time_s)},
                       {"speedup", opt(s.speedup)},
                       {"failed", s.failed},
                       {"errors", s.errors}});
  doc["summary"] = std::move(summary);
  json headline = json::array();
  for (const Headline& h : res.headline)
    headline.push_back({{"precision", to_string(h.precision)},
                        {"geomean_speedup", opt(h.geomean_speedup)},
                        {"speedup_matrices", h.speedup_matrices},
                        {"regular_bw_fraction", opt(h.regular_bw_fraction)},
                        {"regular_matrices", h.regular_matrices},
                        {"regular_set", h.regular_set}});
  doc["headline"] = std::move(headline);
  return doc;
}

std::vector<std::string> validate_json(const json& doc) {
  std::vector<std::string> out;
  check_object(doc, "top", "document", out);
  if (!out.empty()) return out;
  if (doc["schema"] != "spx-bench/1")
    out.push_back(fmt::format("schema: expected 'spx-bench/1', got {}", doc["schema"].dump()));
  check_object(doc["run"], "run", "run", out);
  if (doc["run"].contains("device"))
    check_object(doc["run"]["device"], "device", "run.device", out);
  check_enum(doc["run"], "backend", {"cpu", "cuda"}, "run", out);
  check_enum(doc, "op", {"spmv", "spmm", "batch"}, "document", out);
  check_enum(doc["config"], "op", {"spmv", "spmm", "batch"}, "config", out);
  if (doc.contains("op_summary") && doc["op_summary"].is_object()) {
    const json& s = doc["op_summary"];
    if (!s.contains("op") || s["op"] != doc.value("op", std::string("spmv")))
      out.push_back("op_summary.op: expected the document's op");
    if (!s.contains("precisions") || !s["precisions"].is_array())
      out.push_back("op_summary: missing array 'precisions'");
    else
      for (std::size_t i = 0; i < s["precisions"].size(); ++i) {
        const json& p = s["precisions"][i];
        if (!p.is_object() || !p.contains("precision") || !p.contains("entries") ||
            !p["entries"].is_array())
          out.push_back(fmt::format(
              "op_summary.precisions[{}]: expected an object with precision and entries", i));
      }
  }
  check_object(doc["config"], "config", "config", out);
  if (doc.contains("advisor")) {
    const json& a = doc["advisor"];
    check_object(a, "advisor", "advisor", out);
    check_enum(a, "mode", {"model", "tuned"}, "advisor", out);
    if (a.contains("precisions") && a["precisions"].is_array())
      for (std::size_t i = 0; i < a["precisions"].size(); ++i) {
        const json& p = a["precisions"][i];
        const std::string where = fmt::format("advisor.precisions[{}]", i);
        check_object(p, "advisor_precision", where, out);
        if (p.contains("by_products") && p["by_products"].is_array())
          for (std::size_t k = 0; k < p["by_products"].size(); ++k)
            check_object(p["by_products"][k], "advisor_products",
                         fmt::format("{}.by_products[{}]", where, k), out);
        if (p.contains("entries") && p["entries"].is_array())
          for (std::size_t k = 0; k < p["entries"].size(); ++k)
            check_object(p["entries"][k], "advisor_entry", fmt::format("{}.entries[{}]", where, k),
                         out);
      }
  }

  std::set<std::string> names;
  for (std::size_t i = 0; i < doc["matrices"].size(); ++i) {
    const json& m = doc["matrices"][i];
    const std::string where = fmt::format("matrices[{}]", i);
    check_object(m, "matrix", where, out);
    if (m.contains("stats")) check_object(m["stats"], "stats", where + ".stats", out);
    if (m.contains("name") && m["name"].is_string() &&
        !names.insert(m["name"].get<std::string>()).second)
      out.push_back(
          fmt::format("{}: matrix name '{}' repeats", where, m["name"].get<std::string>()));
  }

  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>>
      keys;
  for (std::size_t i = 0; i < doc["records"].size(); ++i) {
    const json& r = doc["records"][i];
    const std::string where = fmt::format("records[{}]", i);
    const std::size_t before = out.size();
    check_object(r, "record", where, out);
    if (out.size() != before) continue;
    check_enum(r, "status", {"ok", "skipped", "error"}, where, out);
    check_enum(r, "precision", {"f32", "f64"}, where, out);
    check_enum(r, "index", {"i32", "i64"}, where, out);
    check_enum(r, "backend", {"cpu", "cuda"}, where, out);
    check_enum(r, "break_even", {"none-needed", "finite", "never", "unknown"}, where, out);
    check_enum(r, "op", {"spmv", "spmm", "batch"}, where, out);
    check_enum(r, "layout", {"row-major", "col-major"}, where, out);
    // SpMM records are per width n; the operation and width join the key.
    std::string op_key = r.value("op", std::string("spmv"));
    if (r.contains("n_cols") && r["n_cols"].is_number_integer())
      op_key += fmt::format(" n={}", r["n_cols"].get<std::int64_t>());
    if (op_key.starts_with("spmm") && (!r.contains("n_cols") || r["n_cols"].is_null()))
      out.push_back(fmt::format("{}: an spmm record needs n_cols", where));
    const auto key =
        std::make_tuple(r["matrix"].get<std::string>(), r["format"].get<std::string>(),
                        r["algorithm"].get<std::string>(), r["precision"].get<std::string>(),
                        r["backend"].get<std::string>(), op_key);
    if (!keys.insert(key).second)
      out.push_back(fmt::format("{}: a second record for {}/{}/{}/{}/{} ({})", where,
                                std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                std::get<3>(key), std::get<4>(key), std::get<5>(key)));
    if (!names.contains(r["matrix"].get<std::string>()))
      out.push_back(fmt::format("{}: matrix '{}' is not in 'matrices'", where,
                                r["matrix"].get<std::string>()));
    const std::string status = r["status"].get<std::string>();
    if (status == "ok") {
      if (r["time_s"].is_null() || r["correct"].is_null())
        out.push_back(fmt::format("{}: status ok needs time_s and correct", where));
      if (r["correct"] == false && r["reason"].get<std::string>().empty())
        out.push_back(fmt::format("{}: a failed check needs a reason", where));
    } else if (r["reason"].get<std::string>().empty()) {
      out.push_back(fmt::format("{}: status {} needs a reason", where, status));
    }
  }
  for (std::size_t i = 0; i < doc["summary"].size(); ++i)
    check_object(doc["summary"][i], "summary", fmt::format("summary[{}]", i), out);
  for (std::size_t i = 0; i < doc["headline"].size(); ++i)
    check_object(doc["headline"][i], "headline", fmt::format("headline[{}]", i), out);
  return out;
}

}  // namespace spx::bench

// spx advise: which format and kernel to use for a matrix and a number of
// products, counting the conversion (include/spx/advisor.hpp, docs/advisor.md).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#if defined(__GLIBC__)  // defined by the C library headers above
#include <malloc.h>
#endif

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "spx/advisor.hpp"
#include "spx/core/error.hpp"
#include "spx/generate.hpp"
#include "spx/io/matrix_market.hpp"
#include "spx/plan.hpp"

namespace spx::cli {
namespace {

struct AdviseArgs {
  std::string file;
  std::int64_t products = 1;
  std::string op = "spmv";
  std::int64_t cols = 1;
  std::string backend = "cpu";
  double memory_mb = -1;
  double bandwidth = 0;
  double compute_scale = 0;
  bool tune = false;
  bool json = false;
  bool allow_reduced_precision = false;
  TypeOptions types;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Large buffers from the heap, not from mmap, so that memory freed on the
/// way (the file's text once parsed, the reader's chunks once in CSR) is
/// reused by the next allocations instead of being unmapped and faulted in
/// again 4 KiB at a time. On a 20M-nonzero file (676 MB of text, 2 cores)
/// `spx advise` answered in 1.7-1.95 s instead of 2.1-2.3 s, its peak
/// memory 1.48 GB instead of 1.32 (session 20). glibc only.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
#endif
}

std::string number_or_never(double v) {
  if (std::isinf(v)) return "never";
  return fmt::format("{:.3g}", v);
}

template <Value T, Index I>
void advise_file(const AdviseArgs& args) {
  const auto t_load = std::chrono::steady_clock::now();
  Csr<T, I> A;
  if (std::filesystem::exists(args.file) || args.file.find(':') == std::string::npos)
    A = io::read_csr<T, I>(args.file);
  else
    A = generate<T, I>(parse_gen_spec(args.file));
  const double load_s = seconds_since(t_load);

  Workload work;
  work.products = args.products;
  work.op = args.op == "spmm" ? Op::Spmm : Op::Spmv;
  work.cols = work.op == Op::Spmm ? args.cols : 1;
  if (args.memory_mb >= 0) work.memory_limit = static_cast<std::int64_t>(args.memory_mb * 1e6);
  const Backend backend = args.backend == "cuda" ? Backend::Cuda : Backend::Cpu;
  // The model needs no device, only CUDA's kernels in the build and a bandwidth.
  if (backend == Backend::Cuda && !cuda_compiled())
    throw Unsupported("--backend cuda: SpX was built without CUDA");
  if (backend == Backend::Cuda && !cuda_available() && (args.tune || args.bandwidth <= 0))
    throw Unsupported(
        "--backend cuda: no usable CUDA device to measure the bandwidth or tune (give "
        "--bandwidth GBS for the model alone)");

  Advice adv;
  PlanReport report;
  double plan_s = 0;
  const auto t_advise = std::chrono::steady_clock::now();
  if (args.tune) {
    // Tuning measures products: build a plan where the products run.
    PlanOptions po;
    po.tune = true;
    po.tune_min_products = 1;
    // Asked for: measure the best candidates whatever the model expects to gain.
    po.tune_within = 1e300;
    po.tune_budget = 1e300;
    po.bandwidth_gbs = args.bandwidth;
    po.compute_scale = args.compute_scale;
    po.allow_reduced_precision = args.allow_reduced_precision;
    std::optional<Csr<T, I>> device;
    if (backend == Backend::Cuda) device = A.to(Space::Device);
    const Plan<T, I> plan(device ? *device : A, work, po);
    report = plan.report();
    adv = report.advice;
    plan_s = report.build_s;
  } else {
    AdvisorOptions ao;
    ao.backend = backend;
    ao.bandwidth_gbs = args.bandwidth;
    ao.compute_scale = args.compute_scale;
    ao.allow_reduced_precision = args.allow_reduced_precision;
    adv = advise(A, work, ao);
  }
  const double advise_s = seconds_since(t_advise);

  if (args.json) {
    using nlohmann::json;
    json cands = json::array();
    for (std::size_t i = 0; i < adv.candidates.size(); ++i) {
      const Candidate& c = adv.candidates[i];
      json e = {{"format", to_string(c.format)},
                {"algorithm", to_string(c.algorithm)},
                {"pick", i == adv.pick},
                {"feasible", c.feasible},
                {"bytes", c.bytes},
                {"bytes_moved", c.bytes_moved},
                {"efficiency", c.efficiency},
                {"product_s", c.product_s},
                {"convert_s", c.convert_s},
                {"total_s", c.total_s},
                {"break_even", std::isinf(c.break_even) ? json("never") : json(c.break_even)},
                {"measured_s", c.measured ? json(c.measured_s) : json(nullptr)},
                {"reason", c.reason}};
      cands.push_back(std::move(e));
    }
    const json j = {{"file", args.file},
                    {"value_type", type_name<T>()},
                    {"index_type", index_name<I>()},
                    {"backend", to_string(backend)},
                    {"op", to_string(work.op)},
                    {"cols", work.cols},
                    {"products", work.products},
                    {"bandwidth_gbs", adv.bandwidth_gbs},
                    {"compute_scale", adv.compute_scale},
                    {"regularity", adv.regularity},
                    {"rows", adv.stats.rows},
                    {"nnz", adv.stats.nnz},
                    {"scatter", adv.stats.scatter},
                    {"load_s", load_s},
                    {"advise_s", advise_s},
                    {"tuned", report.tuned},
                    {"tune_s", report.tune_s},
                    {"plan_build_s", plan_s},
                    {"why", adv.why},
                    {"candidates", std::move(cands)}};
    fmt::print("{}\n", j.dump(2));
    return;
  }

  fmt::print("{}: {} x {}, {} nonzeros ({} values, {} indices), {} rows\n", args.file,
             adv.stats.rows, adv.stats.cols, adv.stats.nnz, type_name<T>(), index_name<I>(),
             adv.regularity);
  fmt::print(
      "{} x {}{} on the {} backend, copy bandwidth {:.1f} GB/s{}\n", work.products,
      to_string(work.op), work.op == Op::Spmm ? fmt::format(" (n = {})", work.cols) : "",
      to_string(backend), adv.bandwidth_gbs,
      backend == Backend::Cpu ? fmt::format(", compute scale {:.2f}", adv.compute_scale) : "");
  fmt::print("\n  {:<1} {:<6} {:<20} {:>12} {:>11} {:>11} {:>11} {:>10}  {}\n", "", "format",
             "kernel", "bytes", "product ms", "convert ms", "total ms", "break-even",
             args.tune ? "measured ms" : "");
  for (std::size_t i = 0; i < adv.candidates.size(); ++i) {
    const Candidate& c = adv.candidates[i];
    if (!c.feasible) continue;
    fmt::print("  {:<1} {:<6} {:<20} {:>12} {:>11.4f} {:>11.4f} {:>11.4f} {:>10}  {}\n",
               i == adv.pick ? "*" : "", to_string(c.format), to_string(c.algorithm), c.bytes,
               c.product_s * 1e3, c.convert_s * 1e3, c.total_s * 1e3, number_or_never(c.break_even),
               c.measured ? fmt::format("{:.4f}", c.measured_s * 1e3) : "");
  }
  bool header = false;
  for (const Candidate& c : adv.candidates) {
    if (c.feasible) continue;
    if (!header) fmt::print("\nnot candidates:\n");
    header = true;
    fmt::print("  {:<6} {:<20} {}\n", to_string(c.format), to_string(c.algorithm), c.reason);
  }
  fmt::print("\npick: {}\n", adv.why);
  fmt::print("read in {:.3f} s; advised in {:.3f} s{}\n", load_s, advise_s,
             args.tune ? fmt::format(" (tuning {:.3f} s)", report.tune_s) : "");
}

}  // namespace

void add_advise(CLI::App& app) {
  auto args = std::make_shared<AdviseArgs>();
  auto* cmd = app.add_subcommand(
      "advise", "Which format and kernel to use for N products, conversion cost included");
  cmd->add_option("file", args->file,
                  "Matrix Market file (.mtx or .mtx.gz), or a generator spec as spx gen and "
                  "spx bench take it (KIND:key=value,...)")
      ->required();
  cmd->add_option("--products", args->products, "Products expected (default 1)")
      ->check(integer_in(1, std::int64_t{1} << 50));
  cmd->add_option("--op", args->op, "spmv or spmm")
      ->check(CLI::IsMember({"spmv", "spmm"}))
      ->capture_default_str();
  cmd->add_option("--cols", args->cols, "spmm: columns n of B and C (default 1)")
      ->check(integer_in(1, 65536));
  cmd->add_option("--backend", args->backend, "cpu or cuda (the products' backend)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--memory-mb", args->memory_mb,
                  "Most MB (10^6 bytes) the converted copy may take (default: no limit)")
      ->check(number_in(0, 1e15));
  cmd->add_option("--bandwidth", args->bandwidth,
                  "Copy bandwidth in GB/s for the model (default: measured once)")
      ->check(positive_number());
  cmd->add_option("--compute-scale", args->compute_scale,
                  "CPU: how many times slower than the calibration machine this machine's "
                  "per-row and per-entry costs are (default: measured once, docs/advisor.md)")
      ->check(positive_number());
  cmd->add_flag("--tune", args->tune,
                "Measure the best predicted candidates (converts them and runs a few products)");
  cmd->add_flag("--json", args->json, "Print the advice as JSON");
  cmd->add_flag("--allow-reduced-precision", args->allow_reduced_precision,
                "Let formats with reduced-precision values (sell_lp, dia_lp: float values for "
                "f64, bfloat16 for f32; docs/formats.md gives the error bound) be candidates");
  args->types.add_to(cmd, "Value type: f32 or f64");
  cmd->footer(
      "Ranks every (format, kernel) of the backend by the predicted total time of N\n"
      "products: conversion from CSR + N x one product. One product's time is the bytes\n"
      "it moves (the format's footprint, from O(nnz) statistics: nothing is converted\n"
      "unless --tune) over the copy bandwidth times an efficiency calibrated per\n"
      "(format, kernel, structural class) against CSR's Auto kernel from the committed\n"
      "benchmark results; on the CPU, a cost per row and per entry plus a cost per\n"
      "byte calibrated per (format, kernel), the per-row and per-entry costs scaled by\n"
      "this machine's compute scale (a CSR product timed once against the model). A\n"
      "conversion costs its bytes in calibrated CSR products.\n"
      "Formats over the memory limit or the conversions' padding budget are listed\n"
      "as not candidates, with the reason. The break-even column: the products after\n"
      "which the candidate beats CSR, conversion included. The pick is marked *. The\n"
      "model is described in docs/advisor.md.\n"
      "\n"
      "Examples:\n"
      "  spx advise matrices/mhd4800a.mtx --products 1000\n"
      "  spx advise big.mtx.gz --op spmm --cols 32 --products 100 --backend cuda --json\n"
      "  spx advise stencil2d:n=2000,points=5 --products 500 --tune\n");
  cmd->callback([args] {
    if (args->op == "spmv" && args->cols != 1)
      throw CLI::ValidationError("--cols", "only with --op spmm (spmv has one column)");
    keep_freed_memory();
    args->types.run([&]<class T, class I>() { advise_file<T, I>(*args); });
  });
}

}  // namespace spx::cli

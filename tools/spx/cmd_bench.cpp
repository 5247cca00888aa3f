// spx bench: options only; the engine is bench/src (spx_bench).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench.hpp"
#include "commands.hpp"
#include "core/atomic_file.hpp"
#include "spx/convert.hpp"
#include "spx/core/error.hpp"

namespace spx::cli {

namespace {

struct BenchOptions {
  std::vector<std::string> paths;
  std::string suite;
  std::string backend = "auto";
  std::string precision;  ///< "": both for spmv, f64 for spmm and batch
  std::string op = "spmv";
  std::string cols;
  double batch_scale = 0;  ///< 0: not given (the default of the backend)
  std::string index = "i32";
  std::string formats;
  std::string algorithms;
  int reps = 0;            ///< 0: not given
  int warmup = -1;         ///< negative: not given
  double max_seconds = 0;  ///< 0: not given
  double time_budget = 0;  ///< 0: not given (no budget)
  bool no_baselines = false;
  std::uint64_t seed = 0;  ///< 0: drawn fresh
  int block_size = 0;      ///< 0: chosen per matrix
  std::string json;
  std::string real_dir;
  std::vector<std::string> only;
  bool list = false;
  bool quiet = false;
};

/// The real-matrix folder of the default suite: --real-dir, which must be a
/// folder, or bench::default_real_dir(), whose absence is noted on stderr
/// (the suite then holds the generated members only).
std::string real_dir_of(const BenchOptions& o) {
  std::error_code ec;
  if (!o.real_dir.empty()) {
    if (!std::filesystem::is_directory(o.real_dir, ec))
      throw InvalidInput(fmt::format("--real-dir: '{}' is not a folder", o.real_dir));
    return o.real_dir;
  }
  const std::string dir = bench::default_real_dir().string();
  if (!std::filesystem::is_directory(dir, ec))
    fmt::print(stderr,
               "spx bench: no real matrices in the suite: '{}' is not a folder (name one with "
               "--real-dir or $SPX_REAL_MATRICES)\n",
               dir);
  return dir;
}

/// Progress on stderr: one line rewritten in place on a terminal, otherwise
/// one plain line per matrix (the steps inside a matrix are left out).
std::function<void(const std::string&, bool)> progress_printer() {
  const bool tty = isatty(fileno(stderr)) != 0;
  return [tty](const std::string& line, bool detail) {
    if (tty) {
      std::string shown = line.size() > 118 ? line.substr(0, 117) + "~" : line;
      fmt::print(stderr, "\r{}\033[K", shown);
      std::fflush(stderr);
    } else if (!detail) {
      fmt::print(stderr, "{}\n", line);
    }
  };
}

void finish(const BenchOptions& o, const bench::Results& results);

void run(const BenchOptions& o) {
  // Where the records go is checked before the run, not after it.
  if (!o.json.empty() && !o.list) spx::detail::check_writable(o.json);
  bench::Config config;
  if (o.backend == "auto") {
    config.backend = cuda_available() ? Backend::Cuda : Backend::Cpu;
  } else {
    config.backend = o.backend == "cuda" ? Backend::Cuda : Backend::Cpu;
  }
  config.op = bench::parse_bench_op(o.op);
  config.precisions = bench::parse_precisions(
      !o.precision.empty() ? o.precision : (config.op == bench::BenchOp::Spmv ? "both" : "f64"));
  for (const auto& c : split_list(o.cols))  // each checked by the option's validator
    config.cols.push_back(std::stoll(c));
  if (!config.cols.empty() && config.op != bench::BenchOp::Spmm)
    throw InvalidInput("--cols applies to --op spmm only");
  config.batch_scale = o.batch_scale;
  config.index64 = o.index == "i64";
  for (const auto& f : split_list(o.formats)) {
    const Format format = parse_format(f);
    if (!convertible(format))
      fmt::print(stderr, "spx bench: note: {} is not convertible from CSR in this build\n", f);
    config.formats.push_back(format);
  }
  for (const auto& a : split_list(o.algorithms))
    config.algorithms.push_back(parse_algorithm(a));
  config.reps = o.reps;
  config.warmup = o.warmup;
  config.max_seconds_per_kernel = o.max_seconds;
  config.time_budget_s = o.time_budget;
  config.baselines = !o.no_baselines;
  config.seed = o.seed;
  config.block_size = o.block_size;

  if (config.op == bench::BenchOp::Batch) {
    if (!o.paths.empty() || !o.suite.empty())
      throw InvalidInput(
          "--op batch runs the built-in batch suite: give no matrices and no --suite");
    std::vector<bench::BatchMember> batches =
        bench::default_batch_suite(real_dir_of(o), config.effective_batch_scale());
    if (!o.only.empty()) {
      std::erase_if(batches, [&](const bench::BatchMember& m) {
        for (const auto& s : o.only)
          if (m.name.find(s) != std::string::npos) return false;
        return true;
      });
      if (batches.empty()) throw InvalidInput("--only: no batch matches");
    }
    config.suite_name = "batch";
    if (o.list) {
      for (const auto& m : batches)
        fmt::print("{:<32} {:<10} {}\n", m.name, m.group, m.source);
      return;
    }
    if (!o.quiet) config.progress = progress_printer();
    const bench::Results results = bench::run_batch_bench(batches, config);
    finish(o, results);
    return;
  }

  if (!o.real_dir.empty() && (!o.paths.empty() || (!o.suite.empty() && o.suite != "default")))
    throw InvalidInput("--real-dir applies to the default suite and --op batch only");
  bench::Suite suite;
  if (!o.paths.empty()) {
    if (!o.suite.empty())
      throw InvalidInput("give either matrix files/folders or --suite, not both");
    suite = bench::files_suite(o.paths);
  } else if (o.suite == "quick") {
    suite = bench::quick_suite();
  } else if (o.suite == "density") {
    suite = bench::density_suite(config.backend);
  } else {
    suite = bench::default_suite(config.backend, real_dir_of(o));
  }
  if (!o.only.empty()) {
    std::erase_if(suite.members, [&](const bench::SuiteMember& m) {
      for (const auto& s : o.only)
        if (m.name.find(s) != std::string::npos) return false;
      return true;
    });
    if (suite.members.empty()) throw InvalidInput("--only: no suite member matches");
  }
  config.suite_name = suite.name;

  if (o.list) {
    for (const auto& m : suite.members)
      fmt::print("{:<32} {:<10} {:<9} {}\n", m.name, m.group, m.kind(), m.describe_source());
    return;
  }
  if (!o.quiet) config.progress = progress_printer();
  const bench::Results results = config.op == bench::BenchOp::Spmm
                                     ? bench::run_spmm_bench(suite, config)
                                     : bench::run_bench(suite, config);
  finish(o, results);
}

void finish(const BenchOptions& o, const bench::Results& results) {
  if (!o.quiet && isatty(fileno(stderr)) != 0) fmt::print(stderr, "\r\033[K");
  fmt::print("{}", bench::format_table(results));

  if (!o.json.empty()) {
    const nlohmann::json doc = bench::to_json(results);
    spx::detail::write_file_atomically(o.json, doc.dump(1) + "\n");
    fmt::print(stderr, "spx bench: wrote {} records to {}\n", results.records.size(), o.json);
    if (const auto problems = bench::validate_json(doc); !problems.empty())
      throw InternalError(
          fmt::format("the JSON written does not follow its schema ({} problems; "
                      "first: {})",
                      problems.size(), problems.front()));
  }
  // A run that measured nothing failed, whatever the reason (files that do
  // not load, kernels that all refuse): the table and the JSON say why.
  if (const std::string why = bench::nothing_measured(results); !why.empty()) throw Error(why);
}

}  // namespace

void add_bench(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Benchmark every registered SpMV kernel in every format on a suite of matrices\n"
      "(--op spmm: SpMM kernels; --op batch: batched SpMV on a suite of batches)\n"
      "(default: the built-in suite on the GPU when there is one, else on the CPU)");
  cmd->add_option("matrices", o->paths,
                  "Matrix Market files (.mtx, .mtx.gz), folders of them, or generator specs as "
                  "`spx gen` takes them (e.g. fem:n=400,block=4), instead of a suite");
  cmd->add_option("--suite", o->suite,
                  "Built-in suite: default (30+ generated + real), quick (a smoke run) or density "
                  "(random n x n at 0.05-50% density: with --op spmm, where dense GEMM overtakes "
                  "SpMM)")
      ->check(CLI::IsMember({"default", "quick", "density"}));
  cmd->add_option("--backend", o->backend, "auto (cuda when a GPU is usable), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--op", o->op,
                  "What to measure: spmv (default), spmm (SpMM over the suite for --cols widths) "
                  "or batch (batched SpMV over the built-in batch suite)")
      ->check(CLI::IsMember({"spmv", "spmm", "batch"}));
  cmd->add_option("--cols", o->cols,
                  "SpMM: comma list of widths n of B and C, each in 1..65536 (default: "
                  "8,32,64,128 on CUDA, 1,8,32 on the CPU)")
      ->check(list_of(integer_in(1, 65536), "widths in 1..65536"));
  cmd->add_option("--batch-scale", o->batch_scale,
                  "Batches: multiply the batch suite's matrix counts, in (0, 10] (default: 1 on "
                  "CUDA, 0.1 on the CPU)")
      ->check(number_in(0, 10, true));
  cmd->add_option("--precision", o->precision,
                  "f32, f64 or both (default: both for spmv, f64 for spmm and batch)")
      ->check(CLI::IsMember({"f32", "f64", "both"}));
  cmd->add_option("--index", o->index, "Index type: i32 (default) or i64")
      ->check(CLI::IsMember({"i32", "i64"}));
  const auto named = [](const std::string& what, auto parse) {
    return CLI::Validator(
        [what, parse](std::string& name) -> std::string {
          try {
            (void)parse(name);
          } catch (const Error& e) {
            return e.what();
          }
          return {};
        },
        what);
  };
  cmd->add_option("--formats", o->formats, "Comma list of formats (default: every convertible one)")
      ->check(list_of(named("FORMAT", [](const std::string& f) { return parse_format(f); }),
                      "format names"));
  cmd->add_option(
         "--algorithms", o->algorithms,
         "Comma list of SpX algorithms (default: all; baselines run unless --no-baselines)")
      ->check(list_of(named("ALGORITHM", [](const std::string& a) { return parse_algorithm(a); }),
                      "algorithm names"));
  cmd->add_option("--reps", o->reps,
                  "Timed repetitions per kernel, 1..1000000 (default: 30 on CUDA, 20 on CPU)")
      ->check(integer_in(1, 1000000));
  cmd->add_option("--warmup", o->warmup,
                  "Untimed runs before timing, 0 for none (default: 5 on CUDA, 2 on CPU); "
                  "they stop after half of --max-seconds and when --time-budget is used up")
      ->check(integer_in(0, std::numeric_limits<int>::max()));
  cmd->add_option("--max-seconds", o->max_seconds,
                  "Cap on timed seconds per kernel, > 0; fewer reps (≥ 5) beyond it (default: "
                  "2 on CUDA, 0.25 on CPU)")
      ->check(positive_number());
  cmd->add_option("--time-budget", o->time_budget,
                  "Seconds for the whole run, > 0 (default: none); members not started in time "
                  "are listed as not measured (--op spmm: widths too, as skipped records), "
                  "warm-ups stop when it is used up, and the JSON and table are still written")
      ->check(positive_number());
  cmd->add_flag("--no-baselines", o->no_baselines, "Do not run cuSPARSE / Eigen");
  cmd->add_option("--seed", o->seed,
                  "Seed of the vector x, 0..2^64-1; 0 (the default) draws a fresh one, recorded "
                  "in the JSON")
      ->check(seed_value());
  cmd->add_option("--block-size", o->block_size,
                  "BCSR block size, 1..32 (default: per matrix, the b in 2..8 with the fewest "
                  "bytes/nnz)")
      ->check(integer_in(1, 32));
  cmd->add_option("--json", o->json,
                  "Write the records to this JSON file (docs/benchmarks.md); checked before the "
                  "run, replaced only once complete")
      ->check(CLI::Validator(
          [](std::string& f) { return f.empty() ? std::string("empty file name") : ""; }, ""));
  cmd->add_option("--real-dir", o->real_dir,
                  "Folder of real matrices for the default and batch suites (default: "
                  "$SPX_REAL_MATRICES, else shared/matrices/real in the source tree, else "
                  "../shared/matrices/real beside it; a missing default is noted on stderr and "
                  "the suite keeps its generated members)");
  cmd->add_option("--only", o->only, "Keep only members whose name contains this (repeatable)")
      ->check(CLI::Validator(
          [](std::string& f) { return f.empty() ? std::string("empty name") : ""; }, ""));
  cmd->add_flag("--list", o->list, "List the suite's members and exit");
  cmd->add_flag("--quiet", o->quiet, "No progress lines");
  cmd->callback([o] { run(*o); });
}

}  // namespace spx::cli

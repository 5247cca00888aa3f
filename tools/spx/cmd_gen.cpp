// spx gen: writes a generated matrix (or a batch of them) as Matrix Market.
//
//   spx gen stencil3d --n 64 --points 27 -o cube.mtx
//   spx gen "rmat:scale=16,degree=16,seed=3" -o rmat.mtx.gz
//   spx gen batch --count 1000 --min-rows 11 --max-rows 1024 -o batch/
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "core/atomic_file.hpp"
#include "spx/core/error.hpp"
#include "spx/generate.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::cli {
namespace {

struct GenOptions {
  std::string kind;
  std::string output;
  std::string precision = "f64";
  std::string index = "auto";
  /// (spec key, CLI option): --n → n, --dense-rows → dense_rows, ...
  std::vector<std::pair<std::string, CLI::Option*>> keys;
  std::vector<std::string> values;  // parallel to keys
  // batch
  std::int64_t count = 1000, min_rows = 11, max_rows = 1024;
  bool uniform = false;
  CLI::Option *count_opt = nullptr, *min_opt = nullptr, *max_opt = nullptr, *uniform_opt = nullptr;
};

io::MmWriteOptions write_options() {
  io::MmWriteOptions o;
  o.precision = 0;  // the shortest text that reads back exactly
  return o;
}

template <Value T, Index I>
void write_one(const GenSpec& spec, const std::filesystem::path& out) {
  const Csr<T, I> A = generate<T, I>(spec);
  io::write(out, A, write_options());
  fmt::print("wrote {}: {}, {} x {}, {} nonzeros ({}, {})\n", out.string(), describe(spec),
             A.rows(), A.cols(), A.nnz(), type_name<T>(), index_name<I>());
}

template <Value T>
void write_one_any_index(const GenSpec& spec, const std::filesystem::path& out,
                         const std::string& index) {
  if (index == "i64") return write_one<T, std::int64_t>(spec, out);
  if (index == "i32") {
    try {
      return write_one<T, std::int32_t>(spec, out);
    } catch (const InvalidInput& e) {
      if (std::string_view(e.what()).substr(0, 14) != "index overflow") throw;
      throw InvalidInput(fmt::format("{} (use --index i64 or auto)", e.what()));
    }
  }
  // auto: 32-bit indices when the sizes fit (the generators check before
  // allocating the large arrays), else 64-bit.
  try {
    write_one<T, std::int32_t>(spec, out);
  } catch (const InvalidInput& e) {
    if (std::string_view(e.what()).substr(0, 14) != "index overflow") throw;
    write_one<T, std::int64_t>(spec, out);
  }
}

template <Value T>
void write_batch(const BatchSpec& spec, const std::filesystem::path& dir) {
  const auto batch = generate_batch<T, std::int32_t>(spec);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw IoError(fmt::format("{}: cannot create the folder: {}", dir.string(), ec.message()));
  const std::size_t width =
      std::max<std::size_t>(5, std::to_string(std::max<std::int64_t>(spec.count - 1, 0)).size());
  std::int64_t nnz = 0;
  for (std::size_t k = 0; k < batch.size(); ++k) {
    io::write(dir / fmt::format("m{:0{}}.mtx", k, width), batch[k], write_options());
    nnz += batch[k].nnz();
  }
  fmt::print("wrote {} matrices to {}: {}, {} nonzeros in all ({})\n", batch.size(), dir.string(),
             describe(spec), nnz, type_name<T>());
}

/// A number from an option's text; InvalidInput naming the option otherwise.
template <class N>
N parse_option(const std::string& text, const CLI::Option* opt) {
  N v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw InvalidInput(fmt::format("spx gen: {} {} is not a valid number", opt->get_name(), text));
  return v;
}

std::string option_list(const std::vector<std::string_view>& keys) {
  std::string s;
  for (auto k : keys) {
    std::string opt(k);
    std::replace(opt.begin(), opt.end(), '_', '-');
    s += (s.empty() ? "--" : ", --") + opt;
  }
  return s;
}

void run(const GenOptions& o) {
  const bool single = o.precision == "f32";
  if (o.kind == "batch") {
    BatchSpec spec;
    for (std::size_t k = 0; k < o.keys.size(); ++k) {
      const auto& [key, opt] = o.keys[k];
      if (opt->count() == 0) continue;
      if (key == "degree") {
        spec.degree = parse_option<double>(o.values[k], opt);
      } else if (key == "seed") {
        spec.seed = parse_option<std::uint64_t>(o.values[k], opt);
      } else {
        throw InvalidInput(
            fmt::format("spx gen batch: {} does not apply to a batch (accepted: "
                        "--count, --min-rows, --max-rows, --uniform, --degree, --seed)",
                        opt->get_name()));
      }
    }
    spec.count = o.count;
    spec.min_rows = o.min_rows;
    spec.max_rows = o.max_rows;
    spec.uniform = o.uniform;
    validate(spec);
    if (single)
      write_batch<float>(spec, o.output);
    else
      write_batch<double>(spec, o.output);
    return;
  }
  for (const CLI::Option* opt : {o.count_opt, o.min_opt, o.max_opt, o.uniform_opt})
    if (opt->count() > 0)
      throw InvalidInput(fmt::format("spx gen: {} applies to 'batch' only", opt->get_name()));
  // Options become key=value pairs of the spec string, so that the command
  // line and spec strings share one parser (and its errors).
  std::string text = o.kind;
  bool first = text.find(':') == std::string::npos;
  const Generator kind = parse_generator(text.substr(0, text.find(':')));
  const auto accepted = gen_spec_keys(kind);
  for (std::size_t k = 0; k < o.keys.size(); ++k) {
    const auto& [key, opt] = o.keys[k];
    if (opt->count() == 0) continue;
    if (std::ranges::find(accepted, key) == accepted.end())
      throw InvalidInput(fmt::format("spx gen {}: {} does not apply (accepted: {})",
                                     to_string(kind), opt->get_name(), option_list(accepted)));
    text += (first ? ":" : ",") + key + "=" + o.values[k];
    first = false;
  }
  const GenSpec spec = parse_gen_spec(text);
  spx::detail::check_writable(o.output);  // before generating, not after
  if (single)
    write_one_any_index<float>(spec, o.output, o.index);
  else
    write_one_any_index<double>(spec, o.output, o.index);
}

std::string footer() {
  std::string s = "Kinds (options in brackets):\n";
  for (Generator g : all_generators())
    s += fmt::format("  {:<10} {}\n  {:<10} [{}]\n", to_string(g), description(g), "",
                     option_list(gen_spec_keys(g)));
  s += fmt::format("  {:<10} {}\n  {:<10} [{}]\n", "batch",
                   "numbered files DIR/m00000.mtx, ... of mixed size and pattern", "",
                   "--count, --min-rows, --max-rows, --uniform, --degree, --seed");
  s += "\nKIND may carry its parameters: KIND:key=value,... (e.g. stencil3d:n=64,points=27).\n"
       "Examples:\n"
       "  spx gen stencil3d --n 64 --points 27 -o cube.mtx\n"
       "  spx gen rmat:scale=16,degree=16,seed=3 -o rmat.mtx.gz\n"
       "  spx gen fem:n=200,block=3,symmetric=1 -o stiffness.mtx\n"
       "  spx gen batch --count 1000 --min-rows 11 --max-rows 1024 -o batch\n";
  return s;
}

}  // namespace

void add_gen(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "gen", "Generate a test matrix of one of the survey's structural classes (Matrix Market)");
  auto o = std::make_shared<GenOptions>();
  cmd->add_option("kind", o->kind, "generator (see below), KIND:key=value,..., or 'batch'")
      ->required();
  cmd->add_option("-o,--output", o->output, "output file (.mtx, .mtx.gz); a folder for 'batch'")
      ->required();
  const std::pair<const char*, const char*> keys[] = {
      {"n", "grid side (stencils, fem) or number of rows"},
      {"points", "stencil points: 5, 9 (2D); 7, 27 (3D)"},
      {"block", "fem block size b, 1..32"},
      {"degree", "mean nonzeros per row (rmat: edge factor)"},
      {"scale", "rmat: 2^scale rows, 0..40"},
      {"bands", "banded: number of segmented diagonals"},
      {"dense_rows", "denserows: number of dense rows"},
      {"symmetric", "stencils, fem: 1 for symmetric values (a_ij = a_ji), 0 (default) not"},
      {"seed", "random seed (default 1)"},
  };
  o->values.resize(std::size(keys));
  for (std::size_t k = 0; k < std::size(keys); ++k) {
    std::string flag = std::string("--") + keys[k].first;
    std::replace(flag.begin(), flag.end(), '_', '-');
    // The type of each value is checked here, naming the option; the
    // generator checks what each kind accepts (points 5 or 9, ...).
    const std::string key = keys[k].first;
    const CLI::Validator check =
        key == "seed"        ? seed_value()
        : key == "degree"    ? number_in(0, std::numeric_limits<double>::max())
        : key == "n"         ? integer_in(0, std::numeric_limits<std::int64_t>::max())
        : key == "symmetric" ? integer_in(0, 1)
                             : integer_in(0, std::numeric_limits<int>::max());
    auto* opt = cmd->add_option(flag, o->values[k], keys[k].second)->check(check);
    o->keys.emplace_back(keys[k].first, opt);
  }
  cmd->add_option("--precision", o->precision, "value type: f32 or f64 (default f64)")
      ->check(CLI::IsMember({"f32", "f64"}));
  cmd->add_option("--index", o->index,
                  "index type while generating: auto (i32 when it fits), i32, i64")
      ->check(CLI::IsMember({"auto", "i32", "i64"}));
  o->count_opt = cmd->add_option("--count", o->count, "batch: number of matrices (default 1000)")
                     ->check(integer_in(0, std::numeric_limits<std::int64_t>::max()));
  o->min_opt = cmd->add_option("--min-rows", o->min_rows, "batch: fewest rows (default 11)")
                   ->check(integer_in(1, std::numeric_limits<std::int64_t>::max()));
  o->max_opt = cmd->add_option("--max-rows", o->max_rows, "batch: most rows (default 1024)")
                   ->check(integer_in(1, std::numeric_limits<std::int64_t>::max()));
  o->uniform_opt =
      cmd->add_flag("--uniform", o->uniform, "batch: one size and pattern, different values");
  cmd->footer(footer());
  cmd->callback([o] { run(*o); });
}

}  // namespace spx::cli

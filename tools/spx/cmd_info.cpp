// spx info: what a Matrix Market file holds, its statistics, and what it
// would cost in every storage format.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "spx/analysis.hpp"
#include "spx/convert.hpp"
#include "spx/core/error.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::cli {
namespace {

struct InfoArgs {
  std::string file;
  bool json = false;
  TypeOptions types;
};

/// Footprint of one format: its bytes, or why there are none.
struct Footprint {
  Format format = Format::Csr;
  bool available = false;  ///< convertible in this build
  bool converted = false;
  std::size_t bytes = 0;
  double seconds = 0;
  std::string reason;  ///< why not (unavailable or refused)
};

template <Value T, Index I>
void info(const InfoArgs& args) {
  io::MmHeader header;
  const Csr<T, I> A = to_csr(io::read_coo<T, I>(args.file, {}, &header));
  const MatrixStats s = analyze(A);

  std::vector<Footprint> footprints;
  for (Format f : kAllFormats) {
    Footprint fp;
    fp.format = f;
    fp.available = convertible(f);
    if (!fp.available) {
      fp.reason = "not available in this build";
    } else {
      try {
        const auto t0 = std::chrono::steady_clock::now();
        const Matrix<T, I> m = convert(A, f);
        fp.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fp.bytes = bytes_of(ref(m));
        fp.converted = true;
      } catch (const Unsupported& e) {
        fp.reason = e.what();
      } catch (const InvalidInput& e) {  // SELL-LP, DIA-LP: a value past the storage type's range
        fp.reason = e.what();
      }
    }
    footprints.push_back(std::move(fp));
  }
  const auto per_nnz = [&](std::size_t bytes) {
    return s.nnz > 0 ? static_cast<double>(bytes) / static_cast<double>(s.nnz) : 0.0;
  };

  if (args.json) {
    using nlohmann::json;
    json j;
    j["file"] = args.file;
    j["header"] = {{"format", header.coordinate ? "coordinate" : "array"},
                   {"field", io::to_string(header.field)},
                   {"symmetry", io::to_string(header.symmetry)},
                   {"rows", header.rows},
                   {"cols", header.cols},
                   {"entries", header.entries}};
    j["value_type"] = type_name<T>();
    j["index_type"] = index_name<I>();
    json fill = json::array();
    for (int b = 2; b <= 8; ++b)
      fill.push_back({{"b", b}, {"fill", s.fill(b)}});
    j["stats"] = {
        {"rows", s.rows},
        {"cols", s.cols},
        {"nnz", s.nnz},
        {"density", s.density},
        {"row_length",
         {{"mean", s.row_mean}, {"std", s.row_std}, {"min", s.row_min}, {"max", s.row_max}}},
        {"empty_rows", s.empty_rows},
        {"diagonals", s.diagonals},
        {"lower_bandwidth", s.lower_bandwidth},
        {"upper_bandwidth", s.upper_bandwidth},
        {"bandwidth", s.bandwidth},
        {"block_fill", fill},
        {"scatter", s.scatter}};
    json formats = json::array();
    for (const auto& fp : footprints) {
      json e = {{"format", to_string(fp.format)}, {"available", fp.available}};
      if (fp.converted) {
        e["bytes"] = fp.bytes;
        e["bytes_per_nnz"] = s.nnz > 0 ? json(per_nnz(fp.bytes)) : json(nullptr);
        e["convert_seconds"] = fp.seconds;
      } else {
        e["reason"] = fp.reason;
      }
      formats.push_back(std::move(e));
    }
    j["formats"] = std::move(formats);
    fmt::print("{}\n", j.dump(2));
    return;
  }

  fmt::print("{}\n", args.file);
  fmt::print("  header       {} {} {}, {} x {}, {} stored {}\n",
             header.coordinate ? "coordinate" : "array", io::to_string(header.field),
             io::to_string(header.symmetry), header.rows, header.cols, header.entries,
             header.coordinate ? "entries" : "values");
  fmt::print("\nmatrix ({} values, {} indices{})\n", type_name<T>(), index_name<I>(),
             header.symmetry != io::MmSymmetry::General ? ", symmetry expanded" : "");
  fmt::print("  size         {} x {}\n", s.rows, s.cols);
  fmt::print("  nonzeros     {}\n", s.nnz);
  fmt::print("  density      {:.4e}\n", s.density);
  fmt::print("  row length   mean {:.2f}, std {:.2f}, min {}, max {}\n", s.row_mean, s.row_std,
             s.row_min, s.row_max);
  fmt::print("  empty rows   {}\n", s.empty_rows);
  fmt::print("  diagonals    {} occupied\n", s.diagonals);
  fmt::print("  bandwidth    {} (lower {}, upper {})\n", s.bandwidth, s.lower_bandwidth,
             s.upper_bandwidth);
  std::string fill;
  for (int b = 2; b <= 8; ++b)
    fill += fmt::format("{}b={} {:.3f}", b > 2 ? "  " : "", b, s.fill(b));
  fmt::print("  block fill   {}\n", fill);
  fmt::print(
      "  scatter      {:.3f} of the nonzeros on a line of x new to the row and its previous\n",
      s.scatter);
  fmt::print("\nfootprint ({} values, {} indices)\n", type_name<T>(), index_name<I>());
  fmt::print("  {:<9} {:>14} {:>10} {:>12}\n", "format", "bytes", "bytes/nnz", "convert ms");
  for (const auto& fp : footprints) {
    if (fp.converted)
      fmt::print("  {:<9} {:>14} {:>10} {:>12.3f}\n", to_string(fp.format), fp.bytes,
                 s.nnz > 0 ? fmt::format("{:.2f}", per_nnz(fp.bytes)) : std::string("-"),
                 fp.seconds * 1e3);
    else
      fmt::print("  {:<9} {}\n", to_string(fp.format), fp.reason);
  }
}

}  // namespace

void add_info(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  auto* cmd = app.add_subcommand(
      "info", "Header, statistics and footprint in every format of a Matrix Market file");
  cmd->add_option("file", args->file, "Matrix Market file (.mtx or .mtx.gz)")->required();
  cmd->add_flag("--json", args->json, "Print the same as JSON");
  args->types.add_to(cmd, "Value type: f32 or f64 (footprints differ)");
  cmd->footer(
      "Reads a Matrix Market file (.mtx, or .mtx.gz read directly; symmetric files are\n"
      "expanded, duplicates summed) and prints:\n"
      "  - the header: format, field, symmetry, size and stored entries;\n"
      "  - the statistics the formats depend on: nonzeros, density, row lengths,\n"
      "    empty rows, occupied diagonals, bandwidth, fill of aligned b x b blocks\n"
      "    (nonzeros / stored block entries, b = 2..8);\n"
      "  - for every storage format: the bytes the product reads (values, indices,\n"
      "    padding), bytes per nonzero and conversion time; or why the format\n"
      "    refuses this matrix, or that it is not available in this build.\n"
      "\n"
      "Example:\n"
      "  spx info matrices/mhd4800a.mtx\n"
      "  spx info big.mtx.gz --precision f32 --index i64 --json\n");
  cmd->callback([args] { args->types.run([&]<class T, class I>() { info<T, I>(*args); }); });
}

}  // namespace spx::cli

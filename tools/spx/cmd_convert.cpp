// spx convert: read a Matrix Market file, convert it to a storage format,
// check the conversion by converting back, and write the result.
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "core/atomic_file.hpp"
#include "spx/convert.hpp"
#include "spx/core/error.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::cli {
namespace {

struct ConvertArgs {
  std::string file;
  std::string to;
  std::string output;
  TypeOptions types;
  int digits = 17;
  ConvertOptions options;
};

/// Exact equality of two CSR matrices (with `rounded`, b holds a's values
/// rounded to the storage type of SELL-LP / DIA-LP); returns where they differ, or "".
template <Value T, Index I>
std::string difference(const Csr<T, I>& a, const Csr<T, I>& b, bool rounded) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    return fmt::format("shape {} x {} became {} x {}", a.rows(), a.cols(), b.rows(), b.cols());
  if (a.nnz() != b.nnz()) return fmt::format("{} nonzeros became {}", a.nnz(), b.nnz());
  for (std::int64_t r = 0; r < a.rows(); ++r) {
    if (a.row_ptr()[r + 1] != b.row_ptr()[r + 1])
      return fmt::format("row {} changed its length", r);
    for (I k = a.row_ptr()[r]; k < a.row_ptr()[r + 1]; ++k)
      if (a.col_idx()[k] != b.col_idx()[k] ||
          !((rounded ? lowp::widen<T>(lowp::narrow<T>(a.values()[k])) : a.values()[k]) ==
            b.values()[k]))
        return fmt::format("entry ({}, {}) changed", r, a.col_idx()[k]);
  }
  return {};
}

template <Value T, Index I>
void run_convert(const ConvertArgs& args) {
  using clock = std::chrono::steady_clock;
  const Format to = parse_format(args.to);
  if (!convertible(to))
    throw Unsupported(fmt::format("format {} is not available in this build", to_string(to)));
  // An output that cannot be written is found before the work; the file is
  // replaced only once written whole (the input itself may be the output).
  spx::detail::check_writable(args.output);
  const Csr<T, I> A = io::read_csr<T, I>(args.file);

  const auto t0 = clock::now();
  const Matrix<T, I> m = convert(A, to, args.options);
  const double seconds = std::chrono::duration<double>(clock::now() - t0).count();
  const std::size_t bytes = bytes_of(ref(m));

  // Convert back and check that the format holds exactly the same matrix.
  const Csr<T, I> back = to_csr(ref(m));
  // SELL-LP, DIA-LP: exactly the values rounded to their storage type.
  if (const std::string diff = difference(A, back, reduced_precision(to)); !diff.empty())
    throw InternalError(
        fmt::format("the conversion to {} does not reproduce the matrix: {}", to_string(to), diff));

  io::MmWriteOptions w;
  w.precision = args.digits;
  if (to == Format::Coo)
    io::write(args.output, std::get<Coo<T, I>>(m), w);
  else
    io::write(args.output, back, w);

  const double per_nnz = A.nnz() > 0 ? static_cast<double>(bytes) / A.nnz() : 0.0;
  fmt::print("{}: {} x {}, {} nonzeros ({} values, {} indices)\n", args.file, A.rows(), A.cols(),
             A.nnz(), type_name<T>(), index_name<I>());
  fmt::print("{}: {} bytes ({:.2f} bytes/nonzero; csr {} bytes), converted in {:.3f} ms\n",
             to_string(to), bytes, per_nnz, A.bytes(), seconds * 1e3);
  fmt::print("wrote {}{}\n", args.output,
             to == Format::Coo || to == Format::Csr
                 ? std::string()
                 : fmt::format(" (the {} matrix as its CSR equivalent: Matrix Market has no {} "
                               "layout)",
                               to_string(to), to_string(to)));
}

}  // namespace

void add_convert(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  auto* cmd = app.add_subcommand(
      "convert", "Convert a Matrix Market file to a storage format and write the result");
  cmd->add_option("file", args->file, "Matrix Market file to read")->required();
  cmd->add_option("--to", args->to,
                  "Target format: coo csr csc ell sell hll dia hdi hyb jad bcsr sell_pack sell_lp "
                  "sym_csr sym_dia dia_lp")
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "Matrix Market file to write (.mtx or .mtx.gz); replaced only once written "
                  "whole")
      ->required();
  args->types.add_to(cmd, "Value type: f32 or f64");
  cmd->add_option("--digits", args->digits,
                  "Significant digits of the written values (17 is exact for f64, 9 for f32; "
                  "0: shortest exact text)")
      ->check(integer_in(0, 40))
      ->capture_default_str();
  auto& o = args->options;
  cmd->add_option("--block-size", o.block_size, "BCSR block size b (b x b blocks), 1..32")
      ->check(integer_in(1, 32))
      ->capture_default_str();
  const auto positive = [cmd](const std::string& name, int& value, const std::string& help) {
    cmd->add_option(name, value, help)
        ->check(integer_in(1, std::numeric_limits<int>::max()))
        ->capture_default_str();
  };
  positive("--slice-size", o.slice_size, "SELL slice height C (rows per slice)");
  positive("--sigma", o.sigma,
           "SELL sorting window: rows sorted by length within windows of sigma rows (1: no "
           "sorting)");
  positive("--threads-per-row", o.threads_per_row,
           "SELL-P: slice width padded to a multiple of this");
  positive("--hack-size", o.hack_size, "HLL and HDI hack height (rows per hack)");
  cmd->add_option("--hyb-width", o.hyb_width,
                  "HYB ELL width K (-1: Bell and Garland's rule, K such that a third of the rows "
                  "have K or more entries)")
      ->check(integer_in(-1, std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  cmd->add_option("--max-expansion", o.max_expansion,
                  "Padded formats refuse when their storage would exceed max(64 MiB, this factor "
                  "x the CSR bytes); a finite number > 0")
      ->check(positive_number())
      ->capture_default_str();
  cmd->footer(
      "Reads a Matrix Market file (.mtx or .mtx.gz), converts it to FORMAT with the\n"
      "given parameters, converts it back and checks that the matrix is unchanged,\n"
      "then writes it as Matrix Market (a name ending in .gz is compressed) and\n"
      "reports the format's footprint and conversion time. Matrix Market stores\n"
      "coordinates only: a COO result is written in COO order; every other format\n"
      "(CSC, ELL, SELL, BCSR, ...) is written as its CSR equivalent, which is the\n"
      "matrix after the round trip through the format. Padding never appears as\n"
      "entries. A format that refuses the matrix (e.g. too much padding) is an error.\n"
      "\n"
      "Examples:\n"
      "  spx convert mhd4800a.mtx --to bcsr --block-size 4 -o mhd4800a-bcsr.mtx\n"
      "  spx convert big.mtx.gz --to sell --slice-size 32 --sigma 256 -o out.mtx.gz\n");
  cmd->callback([args] { args->types.run([&]<class T, class I>() { run_convert<T, I>(*args); }); });
}

}  // namespace spx::cli

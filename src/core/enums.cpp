#include "spx/core/enums.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "spx/core/error.hpp"

namespace spx {
namespace {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Format, 16> kFormatNames{{
    {Format::Coo, "coo"},
    {Format::Csr, "csr"},
    {Format::Csc, "csc"},
    {Format::Ell, "ell"},
    {Format::Sell, "sell"},
    {Format::Hll, "hll"},
    {Format::Dia, "dia"},
    {Format::Hdi, "hdi"},
    {Format::Hyb, "hyb"},
    {Format::Jad, "jad"},
    {Format::Bcsr, "bcsr"},
    {Format::SellPack, "sell_pack"},
    {Format::SellLp, "sell_lp"},
    {Format::SymCsr, "sym_csr"},
    {Format::SymDia, "sym_dia"},
    {Format::DiaLp, "dia_lp"},
}};

constexpr NameTable<Algorithm, 31> kAlgorithmNames{{
    {Algorithm::Auto, "auto"},
    {Algorithm::CpuMerge, "cpu_merge"},
    {Algorithm::CpuRows, "cpu_rows"},
    {Algorithm::CpuSegments, "cpu_segments"},
    {Algorithm::CpuPrivate, "cpu_private"},
    {Algorithm::CpuAtomic, "cpu_atomic"},
    {Algorithm::Scalar, "scalar"},
    {Algorithm::Vector, "vector"},
    {Algorithm::Adaptive, "adaptive"},
    {Algorithm::Balanced, "balanced"},
    {Algorithm::MergePath, "merge_path"},
    {Algorithm::Binned, "binned"},
    {Algorithm::NonzeroSplit, "nonzero_split"},
    {Algorithm::SizedBlocks, "sized_blocks"},
    {Algorithm::Segmented, "segmented"},
    {Algorithm::ThreadPerRow, "thread_per_row"},
    {Algorithm::TwoThreadsPerRow, "two_threads_per_row"},
    {Algorithm::ThreadsPerRow, "threads_per_row"},
    {Algorithm::Diagonal, "diagonal"},
    {Algorithm::Jagged, "jagged"},
    {Algorithm::Hybrid, "hybrid"},
    {Algorithm::BlockByBlock, "block_by_block"},
    {Algorithm::BlockByColumn, "block_by_column"},
    {Algorithm::BlockRowShared, "block_row_shared"},
    {Algorithm::BlockSubWarp, "block_sub_warp"},
    {Algorithm::CpuBlockRows, "cpu_block_rows"},
    {Algorithm::RowSplit, "row_split"},
    {Algorithm::MergeBased, "merge_based"},
    {Algorithm::RowPanel, "row_panel"},
    {Algorithm::ColumnScatter, "column_scatter"},
    {Algorithm::Transposed, "transposed"},
}};

constexpr NameTable<Op, 3> kOpNames{{
    {Op::Spmv, "spmv"},
    {Op::Spmm, "spmm"},
    {Op::BatchSpmv, "batch"},
}};

template <class E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& table, E e) noexcept {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "unknown";
}

bool iequal(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

template <class E, std::size_t N>
E parse_name(const NameTable<E, N>& table, std::string_view what, std::string_view name) {
  for (const auto& [value, n] : table)
    if (iequal(n, name)) return value;
  std::string accepted;
  for (const auto& [value, n] : table) {
    if (!accepted.empty()) accepted += ", ";
    accepted += n;
  }
  throw InvalidInput(fmt::format("unknown {} '{}' (expected one of: {})", what, name, accepted));
}

/// Names of external algorithms (Registry::extend), set at start-up.
struct ExternalNames {
  std::mutex mutex;
  std::deque<std::pair<Algorithm, std::string>> names;  // deque: stable string addresses
};
ExternalNames& external_names() {
  static ExternalNames table;
  return table;
}

}  // namespace

void name_external_algorithm(Algorithm a, std::string_view name) {
  if (!is_external(a))
    throw InvalidInput(fmt::format("name_external_algorithm: value {} is a built-in algorithm",
                                   static_cast<int>(a)));
  for (const auto& [value, n] : kAlgorithmNames)
    if (iequal(n, name))
      throw InvalidInput(
          fmt::format("name_external_algorithm: '{}' is a built-in algorithm", name));
  ExternalNames& t = external_names();
  std::lock_guard lock(t.mutex);
  for (const auto& [value, n] : t.names) {
    if (value == a && n == name) return;
    if (value == a || iequal(n, name))
      throw InvalidInput(
          fmt::format("name_external_algorithm: '{}' (value {}) clashes with '{}' (value {})", name,
                      static_cast<int>(a), n, static_cast<int>(value)));
  }
  t.names.emplace_back(a, std::string(name));
}

std::string_view to_string(Format f) noexcept {
  return name_of(kFormatNames, f);
}
std::string_view to_string(Algorithm a) noexcept {
  if (!is_external(a)) return name_of(kAlgorithmNames, a);
  ExternalNames& t = external_names();
  std::lock_guard lock(t.mutex);
  for (const auto& [value, n] : t.names)
    if (value == a) return n;
  return "unknown";
}
std::string_view to_string(Op o) noexcept {
  return name_of(kOpNames, o);
}
Format parse_format(std::string_view name) {
  return parse_name(kFormatNames, "format", name);
}
Algorithm parse_algorithm(std::string_view name) {
  {
    ExternalNames& t = external_names();
    std::lock_guard lock(t.mutex);
    for (const auto& [value, n] : t.names)
      if (iequal(n, name)) return value;
  }
  return parse_name(kAlgorithmNames, "algorithm", name);
}
Op parse_op(std::string_view name) {
  return parse_name(kOpNames, "operation", name);
}

std::span<const Algorithm> all_algorithms() noexcept {
  static const auto all = [] {
    std::array<Algorithm, kAlgorithmNames.size()> a{};
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] = kAlgorithmNames[i].first;
    return a;
  }();
  return all;
}

}  // namespace spx

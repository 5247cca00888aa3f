// The generator API: names, defaults, validation, spec strings, dispatch to
// the generators (generate_grid.cpp, generate_random.cpp) and batches.
#include "spx/generate.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "core/generate_common.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"

namespace spx {
namespace {

struct KindInfo {
  Generator kind;
  std::string_view name;
  std::string_view description;
};

constexpr std::array<KindInfo, 10> kKinds{{
    {Generator::Stencil2d, "stencil2d", "n x n grid, 5- or 9-point stencil (rows n^2)"},
    {Generator::Stencil3d, "stencil3d", "n x n x n grid, 7- or 27-point stencil (rows n^3)"},
    {Generator::Fem, "fem", "n x n node grid, 9-point coupling of dense b x b blocks (rows n^2 b)"},
    {Generator::Random, "random", "n rows of about `degree` distinct uniformly random columns"},
    {Generator::Rmat, "rmat",
     "R-MAT/Kronecker (.57,.19,.19,.05), 2^scale rows, edge factor `degree`"},
    {Generator::ChungLu, "chunglu",
     "power-law Chung-Lu: a few huge rows (up to n/4), over 25% empty rows"},
    {Generator::Road, "road", "road-network-like planar graph, degree 2..4, random numbering"},
    {Generator::Banded, "banded", "diagonal plus `bands` diagonals made of short segments"},
    {Generator::DenseRows, "denserows",
     "about `degree` random entries per row plus `dense_rows` completely dense rows"},
    {Generator::Mixed, "mixed",
     "economics-like: small blocks, medium runs, long rows, scattered entries"},
}};

constexpr std::array<Generator, 10> kAll{
    Generator::Stencil2d, Generator::Stencil3d, Generator::Fem,  Generator::Random,
    Generator::Rmat,      Generator::ChungLu,   Generator::Road, Generator::Banded,
    Generator::DenseRows, Generator::Mixed};

const KindInfo& info(Generator g) {
  for (const auto& k : kKinds)
    if (k.kind == g) return k;
  throw InvalidInput(fmt::format("unknown generator {}", static_cast<int>(g)));
}

std::string where(const GenSpec& spec) {
  return fmt::format("generator {}", to_string(spec.kind));
}

/// "8" for 8.0, "7.5" for 7.5.
std::string number(double d) {
  if (d == std::floor(d) && std::abs(d) < 1e15)
    return fmt::format("{}", static_cast<std::int64_t>(d));
  return fmt::format("{}", d);
}

bool iequal(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

template <class N>
N parse_number(std::string_view text, std::string_view key, std::string_view spec) {
  N v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw InvalidInput(fmt::format("generator spec '{}': {} = '{}' is not {}", spec, key, text,
                                   std::is_integral_v<N> ? "an integer in range" : "a number"));
  return v;
}

}  // namespace

std::span<const Generator> all_generators() noexcept {
  return kAll;
}

std::string_view to_string(Generator g) noexcept {
  for (const auto& k : kKinds)
    if (k.kind == g) return k.name;
  return "unknown";
}

std::string_view description(Generator g) noexcept {
  for (const auto& k : kKinds)
    if (k.kind == g) return k.description;
  return "";
}

Generator parse_generator(std::string_view name) {
  for (const auto& k : kKinds)
    if (iequal(k.name, name)) return k.kind;
  std::string accepted;
  for (const auto& k : kKinds)
    accepted += (accepted.empty() ? "" : ", ") + std::string(k.name);
  throw InvalidInput(fmt::format("unknown generator '{}' (expected one of: {})", name, accepted));
}

GenSpec default_gen_spec(Generator kind) {
  GenSpec s;
  s.kind = kind;
  switch (kind) {
    case Generator::Stencil2d:
      s.n = 64, s.points = 5;
      break;
    case Generator::Stencil3d:
      s.n = 32, s.points = 7;
      break;
    case Generator::Fem:
      s.n = 32, s.block = 3;
      break;
    case Generator::Rmat:
      s.scale = 14, s.degree = 16;
      break;
    case Generator::DenseRows:
      s.n = 10000, s.degree = 4, s.dense_rows = 4;
      break;
    default:
      s.n = 10000;
      break;
  }
  return s;
}

std::vector<std::string_view> gen_spec_keys(Generator kind) {
  switch (kind) {
    case Generator::Stencil2d:
    case Generator::Stencil3d:
      return {"n", "points", "symmetric", "seed"};
    case Generator::Fem:
      return {"n", "block", "symmetric", "seed"};
    case Generator::Random:
    case Generator::ChungLu:
      return {"n", "degree", "seed"};
    case Generator::Rmat:
      return {"scale", "degree", "seed"};
    case Generator::Road:
    case Generator::Mixed:
      return {"n", "seed"};
    case Generator::Banded:
      return {"n", "bands", "seed"};
    case Generator::DenseRows:
      return {"n", "degree", "dense_rows", "seed"};
  }
  return {};
}

void validate(const GenSpec& spec) {
  const std::string w = where(spec);
  (void)info(spec.kind);
  const auto keys = gen_spec_keys(spec.kind);
  const auto uses = [&](std::string_view key) {
    return std::ranges::find(keys, key) != keys.end();
  };
  if (spec.symmetric && !uses("symmetric"))
    throw InvalidInput(fmt::format(
        "{}: symmetric = 1 is only for stencil2d, stencil3d and fem (their patterns are "
        "symmetric)",
        w));
  if (uses("n") && spec.n < 0) throw InvalidInput(fmt::format("{}: n = {} is negative", w, spec.n));
  if (spec.kind == Generator::Stencil2d && spec.points != 5 && spec.points != 9)
    throw InvalidInput(
        fmt::format("{}: points = {} (a 2D stencil has 5 or 9 points)", w, spec.points));
  if (spec.kind == Generator::Stencil3d && spec.points != 7 && spec.points != 27)
    throw InvalidInput(
        fmt::format("{}: points = {} (a 3D stencil has 7 or 27 points)", w, spec.points));
  if (uses("block") && (spec.block < 1 || spec.block > 32))
    throw InvalidInput(fmt::format("{}: block = {} is outside 1..32", w, spec.block));
  if (uses("degree")) {
    if (!std::isfinite(spec.degree) || spec.degree < 0)
      throw InvalidInput(
          fmt::format("{}: degree = {} must be a finite number >= 0", w, spec.degree));
    if (spec.kind != Generator::Rmat && spec.n > 0 && spec.degree > static_cast<double>(spec.n))
      throw InvalidInput(fmt::format("{}: degree = {} exceeds the n = {} columns", w,
                                     number(spec.degree), spec.n));
  }
  if (uses("scale")) {
    if (spec.scale < 0 || spec.scale > 40)
      throw InvalidInput(fmt::format("{}: scale = {} is outside 0..40", w, spec.scale));
    if (spec.degree * std::ldexp(1.0, spec.scale) > 0x1.0p62)
      throw InvalidInput(fmt::format("{}: degree x 2^scale = {} x 2^{} edges is too many", w,
                                     number(spec.degree), spec.scale));
  }
  if (uses("bands")) {
    if (spec.bands < 0)
      throw InvalidInput(fmt::format("{}: bands = {} is negative", w, spec.bands));
    if (spec.n > 0 && spec.bands > 2 * (spec.n - 1))
      throw InvalidInput(
          fmt::format("{}: bands = {} exceeds the {} off-diagonals of an {}x{} matrix", w,
                      spec.bands, 2 * (spec.n - 1), spec.n, spec.n));
  }
  if (uses("dense_rows") &&
      (spec.dense_rows < 0 || spec.dense_rows > std::max<std::int64_t>(spec.n, 0)))
    throw InvalidInput(
        fmt::format("{}: dense_rows = {} is outside 0..n = {}", w, spec.dense_rows, spec.n));
}

std::string describe(const GenSpec& spec) {
  std::string s;
  const auto deg = number(spec.degree);
  switch (spec.kind) {
    case Generator::Stencil2d:
    case Generator::Stencil3d:
      s = fmt::format("{}-{}pt-n{}", to_string(spec.kind), spec.points, spec.n);
      break;
    case Generator::Fem:
      s = fmt::format("fem-b{}-n{}", spec.block, spec.n);
      break;
    case Generator::Random:
      s = fmt::format("random-n{}-d{}", spec.n, deg);
      break;
    case Generator::Rmat:
      s = fmt::format("rmat-s{}-d{}", spec.scale, deg);
      break;
    case Generator::ChungLu:
      s = fmt::format("chunglu-n{}-d{}", spec.n, deg);
      break;
    case Generator::Road:
      s = fmt::format("road-n{}", spec.n);
      break;
    case Generator::Banded:
      s = fmt::format("banded-n{}-bands{}", spec.n, spec.bands);
      break;
    case Generator::DenseRows:
      s = fmt::format("denserows-n{}-d{}-r{}", spec.n, deg, spec.dense_rows);
      break;
    case Generator::Mixed:
      s = fmt::format("mixed-n{}", spec.n);
      break;
  }
  if (spec.symmetric) s += "-sym";
  if (spec.seed != 1) s += fmt::format("-seed{}", spec.seed);
  return s;
}

GenSpec parse_gen_spec(std::string_view text) {
  const std::string_view all = trim(text);
  const auto colon = all.find(':');
  const std::string_view kind_name = trim(all.substr(0, colon));
  GenSpec spec = default_gen_spec(parse_generator(kind_name));
  if (colon == std::string_view::npos) {
    validate(spec);
    return spec;
  }
  const auto keys = gen_spec_keys(spec.kind);
  const auto accepted = [&] {
    std::string a;
    for (auto k : keys)
      a += (a.empty() ? "" : ", ") + std::string(k);
    return a;
  };
  std::vector<std::string_view> seen;
  std::string_view rest = all.substr(colon + 1);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      throw InvalidInput(fmt::format("generator spec '{}': '{}' is not key=value (keys for {}: {})",
                                     all, item, kind_name, accepted()));
    const std::string_view key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    if (std::ranges::find(keys, key) == keys.end())
      throw InvalidInput(fmt::format("generator spec '{}': unknown key '{}' for {} (accepted: {})",
                                     all, key, to_string(spec.kind), accepted()));
    if (std::ranges::find(seen, key) != seen.end())
      throw InvalidInput(fmt::format("generator spec '{}': key '{}' given twice", all, key));
    seen.push_back(key);
    if (key == "n")
      spec.n = parse_number<std::int64_t>(value, key, all);
    else if (key == "points")
      spec.points = parse_number<int>(value, key, all);
    else if (key == "block")
      spec.block = parse_number<int>(value, key, all);
    else if (key == "degree")
      spec.degree = parse_number<double>(value, key, all);
    else if (key == "scale")
      spec.scale = parse_number<int>(value, key, all);
    else if (key == "bands")
      spec.bands = parse_number<int>(value, key, all);
    else if (key == "dense_rows")
      spec.dense_rows = parse_number<int>(value, key, all);
    else if (key == "symmetric") {
      const int flag = parse_number<int>(value, key, all);
      if (flag != 0 && flag != 1)
        throw InvalidInput(
            fmt::format("generator spec '{}': symmetric = {} (expected 0 or 1)", all, value));
      spec.symmetric = flag == 1;
    } else if (key == "seed")
      spec.seed = parse_number<std::uint64_t>(value, key, all);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  validate(spec);
  return spec;
}

template <Value T, Index I>
Csr<T, I> generate(const GenSpec& spec) try {
  validate(spec);
  const auto seeds = gen::Seeds::from(spec.seed);
  const std::int64_t n = spec.n;
  // Sizes that are known in advance are checked before anything is allocated.
  const auto check_exact = [](std::int64_t rows, std::int64_t nnz) {
    detail::checked_index<I>(rows, "rows");
    detail::checked_index<I>(nnz, "nnz");
  };
  using detail::checked_mul;
  switch (spec.kind) {
    case Generator::Stencil2d: {
      const std::int64_t rows = checked_mul(n, n, "rows");
      const std::int64_t side = n > 0 ? 3 * n - 2 : 0;
      check_exact(rows, spec.points == 5 ? checked_mul(5, rows, "nnz") - 4 * n
                                         : checked_mul(side, side, "nnz"));
      return gen::stencil2d<T, I>(n, rows, spec.points, seeds, spec.symmetric);
    }
    case Generator::Stencil3d: {
      const std::int64_t plane = checked_mul(n, n, "rows"), rows = checked_mul(plane, n, "rows");
      const std::int64_t side = n > 0 ? 3 * n - 2 : 0;
      check_exact(rows, spec.points == 7
                            ? checked_mul(7, rows, "nnz") - 6 * plane
                            : checked_mul(checked_mul(side, side, "nnz"), side, "nnz"));
      return gen::stencil3d<T, I>(n, spec.points, seeds, spec.symmetric);
    }
    case Generator::Fem: {
      const std::int64_t b = spec.block, side = n > 0 ? 3 * n - 2 : 0;
      check_exact(checked_mul(checked_mul(n, n, "rows"), b, "rows"),
                  checked_mul(checked_mul(side, side, "nnz"), b * b, "nnz"));
      return gen::fem<T, I>(n, spec.block, seeds, spec.symmetric);
    }
    case Generator::Random:
      return gen::random_uniform<T, I>(n, spec.degree, seeds);
    case Generator::Rmat:
      return gen::rmat<T, I>(spec.scale, spec.degree, seeds);
    case Generator::ChungLu:
      return gen::chung_lu<T, I>(n, spec.degree, seeds);
    case Generator::Road:
      return gen::road<T, I>(n, seeds);
    case Generator::Banded:
      return gen::banded<T, I>(n, spec.bands, seeds);
    case Generator::DenseRows:
      detail::checked_index<I>(checked_mul(spec.dense_rows, n, "nnz"), "nnz");
      return gen::dense_rows<T, I>(n, spec.degree, spec.dense_rows, seeds);
    case Generator::Mixed:
      return gen::mixed<T, I>(n, seeds);
  }
  throw InternalError("generate: unhandled generator");
} catch (...) {
  detail::rethrow_allocation_failure("generate");
}

// ---- batches -------------------------------------------------------------------

void validate(const BatchSpec& spec) {
  if (spec.count < 0) throw InvalidInput(fmt::format("batch: count = {} is negative", spec.count));
  if (spec.min_rows < 1)
    throw InvalidInput(fmt::format("batch: min_rows = {} must be at least 1", spec.min_rows));
  if (spec.max_rows < spec.min_rows)
    throw InvalidInput(
        fmt::format("batch: max_rows = {} is below min_rows = {}", spec.max_rows, spec.min_rows));
  if (!std::isfinite(spec.degree) || spec.degree < 0)
    throw InvalidInput(fmt::format("batch: degree = {} must be a finite number >= 0", spec.degree));
}

std::string describe(const BatchSpec& spec) {
  std::string s = fmt::format("{}batch-c{}-r{}-{}-d{}", spec.uniform ? "u" : "", spec.count,
                              spec.min_rows, spec.max_rows, number(spec.degree));
  if (spec.seed != 1) s += fmt::format("-seed{}", spec.seed);
  return s;
}

namespace {

/// One batch member: `rows` rows of pattern `kind` (0..4).
template <Value T, Index I>
Csr<T, I> batch_member(std::int64_t rows, int kind, double degree, gen::Seeds seeds) {
  switch (kind) {
    case 0:
    case 1: {
      std::int64_t w = static_cast<std::int64_t>(std::sqrt(static_cast<double>(rows)));
      while (w * w < rows)
        ++w;  // ceil(√rows)
      while (w > 1 && (w - 1) * (w - 1) >= rows)
        --w;
      return gen::stencil2d<T, I>(w, rows, kind == 0 ? 5 : 9, seeds);
    }
    case 2:
      return gen::random_uniform<T, I>(rows, std::min(degree, static_cast<double>(rows)), seeds);
    case 3: {
      // Banded rows hold 1 + about 0.4 per band.
      const double bands = std::round(2.5 * std::max(0.0, degree - 1));
      const auto b = static_cast<int>(std::min(bands, static_cast<double>(2 * (rows - 1))));
      return gen::banded<T, I>(rows, b, seeds);
    }
    default:
      return gen::road<T, I>(rows, seeds);
  }
}

}  // namespace

template <Value T, Index I>
std::vector<Csr<T, I>> generate_batch(const BatchSpec& spec) try {
  validate(spec);
  detail::checked_index<I>(spec.max_rows, "max_rows");
  constexpr int kKinds = 5;
  std::vector<Csr<T, I>> out(static_cast<std::size_t>(spec.count));
  gen::Rng once(gen::hash(spec.seed, 0x554e49));
  const std::int64_t uniform_rows = once.between(spec.min_rows, spec.max_rows);
  const int uniform_kind = static_cast<int>(once.below(kKinds));
  const std::uint64_t uniform_structure = once.next();
  detail::FirstError err;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t k = 0; k < spec.count; ++k)
    err.run([&] {
      gen::Rng rng(gen::hash(spec.seed, 0x4241544348, static_cast<std::uint64_t>(k)));
      std::int64_t rows = rng.between(spec.min_rows, spec.max_rows);
      int kind = static_cast<int>(rng.below(kKinds));
      gen::Seeds seeds{rng.next(), rng.next()};
      if (spec.uniform) {
        rows = uniform_rows;
        kind = uniform_kind;
        seeds.structure = uniform_structure;
      }
      out[static_cast<std::size_t>(k)] = batch_member<T, I>(rows, kind, spec.degree, seeds);
    });
  err.rethrow();
  return out;
} catch (...) {
  detail::rethrow_allocation_failure("generate_batch");
}

#define SPX_INST(T, I)                               \
  template Csr<T, I> generate<T, I>(const GenSpec&); \
  template std::vector<Csr<T, I>> generate_batch<T, I>(const BatchSpec&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx

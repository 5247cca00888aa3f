// Random generators: uniform random columns, R-MAT, Chung–Lu, dense rows on a
// sparse background, and the economics-like mixed structure.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/generate_common.hpp"
#include "core/instantiate.hpp"

namespace spx::gen {
namespace {

/// A row length with mean `degree` ≤ n: floor or ceil of degree, then −1, 0
/// or +1 with equal probability unless that would leave [0, n].
std::int64_t random_length(Rng& rng, double degree, std::int64_t n) {
  auto len = static_cast<std::int64_t>(degree);
  if (rng.uniform() < degree - static_cast<double>(len)) ++len;
  const std::int64_t step = rng.below(3) - 1;
  if (len >= 1 && len + 1 <= n) len += step;
  return len;
}

}  // namespace

template <Value T, Index I>
Csr<T, I> random_uniform(std::int64_t n, double degree, Seeds seeds) {
  const std::uint64_t sseed = seeds.structure;
  const auto count = [=](std::int64_t i, std::vector<std::int64_t>&) {
    Rng rng(hash(sseed, static_cast<std::uint64_t>(i)));
    return random_length(rng, degree, n);
  };
  const auto pattern = [=](std::int64_t i, std::vector<std::int64_t>& out) {
    Rng rng(hash(sseed, static_cast<std::uint64_t>(i)));
    sample_distinct(rng, n, random_length(rng, degree, n), out);
  };
  return build_csr<T, I>(
      n, n, [](std::int64_t i) { return i; }, count, pattern, random_values<T>(seeds.values));
}

template <Value T, Index I>
Csr<T, I> dense_rows(std::int64_t n, double degree, std::int64_t count, Seeds seeds) {
  const std::uint64_t sseed = seeds.structure;
  const Bijection pick(n, hash(sseed, 0x44454e5345));  // dense rows: pick(0 .. count−1)
  const auto length = [=, &pick](std::int64_t i, std::vector<std::int64_t>&) {
    if (pick.inverse_of(i) < count) return n;
    Rng rng(hash(sseed, static_cast<std::uint64_t>(i)));
    return random_length(rng, degree, n);
  };
  const auto pattern = [=, &pick](std::int64_t i, std::vector<std::int64_t>& out) {
    if (pick.inverse_of(i) < count) {
      for (std::int64_t j = 0; j < n; ++j)
        out.push_back(j);
      return;
    }
    Rng rng(hash(sseed, static_cast<std::uint64_t>(i)));
    sample_distinct(rng, n, random_length(rng, degree, n), out);
  };
  return build_csr<T, I>(
      n, n, [](std::int64_t i) { return i; }, length, pattern, random_values<T>(seeds.values));
}

/// R-MAT with m = round(degree·2^scale) edges: each edge picks one quadrant
/// per level with probabilities (a, b, c, d) = (.57, .19, .19, .05). The row
/// bits of an edge are independent Bernoulli(c + d) draws, and its column bit
/// at a level depends only on the row bit there (P(1 | 0) = b/(a+b),
/// P(1 | 1) = d/(c+d)). So the edges per row are multinomial, drawn here by
/// splitting m down the binary tree of row prefixes (a binomial per node), and
/// each row then draws its own columns from its own stream: no atomics, no
/// edge list, every row independent. Vertex labels are scrambled by a random
/// bijection (as Graph500 does); duplicate edges are merged.
template <Value T, Index I>
Csr<T, I> rmat(int scale, double degree, Seeds seeds) {
  const std::int64_t n = std::int64_t{1} << scale;
  detail::checked_index<I>(n, "rows");
  const auto m = static_cast<std::int64_t>(std::llround(degree * static_cast<double>(n)));
  constexpr double kRowOne = 0.19 + 0.05;         // c + d
  constexpr std::uint64_t kColGivenRow1 = 13653;  // d/(c+d) = .2083, ·2^16
  const std::uint64_t sseed = seeds.structure;

  // Edges per row prefix, level by level: node j of level l holds the edges
  // whose top l row bits spell j.
  Array<std::int64_t> edges = Array<std::int64_t>::filled(static_cast<std::size_t>(n), 0);
  Array<std::int64_t> next(static_cast<std::size_t>(n));
  edges[0] = m;
  for (int level = 0; level < scale; ++level) {
    const std::int64_t nodes = std::int64_t{1} << level;
    const std::int64_t* cur = edges.data();
    std::int64_t* out = next.data();
#pragma omp parallel for schedule(static, 4096) if (nodes >= kParallelRows)
    for (std::int64_t j = 0; j < nodes; ++j) {
      Rng rng(hash(sseed, static_cast<std::uint64_t>(level), static_cast<std::uint64_t>(j)));
      const std::int64_t ones = binomial(rng, cur[j], kRowOne);
      out[2 * j] = cur[j] - ones;
      out[2 * j + 1] = ones;
    }
    std::swap(edges, next);
  }
  const std::int64_t* per_row = edges.data();

  // Row r's columns, one draw per edge. Bit k of the column is drawn given
  // bit k of the row: where the row bit is 0, P(1) = 1/4 exactly, the AND of
  // two random words sets all those bits at once; where it is 1, a 16-bit
  // comparison per bit.
  const std::uint64_t all_bits = scale == 0 ? 0 : ~std::uint64_t{0} >> (64 - scale);
  const auto draw = [=](std::int64_t r, std::vector<std::int64_t>& out) {
    Rng rng(hash(sseed, 0x434f4c, static_cast<std::uint64_t>(r)));
    const auto row = static_cast<std::uint64_t>(r);
    for (std::int64_t e = 0; e < per_row[r]; ++e) {
      std::uint64_t col = rng.next() & rng.next() & ~row & all_bits;
      std::uint64_t word = 0;
      int left = 0;
      for (std::uint64_t ones = row; ones != 0; ones &= ones - 1) {
        if (left == 0) {
          word = rng.next();
          left = 4;
        }
        const std::uint64_t bit = static_cast<std::uint64_t>((word & 0xffff) < kColGivenRow1);
        col |= bit << std::countr_zero(ones);
        word >>= 16;
        --left;
      }
      out.push_back(static_cast<std::int64_t>(col));
    }
  };
  const Bijection perm(n, hash(sseed, 0x524d4154));
  const auto count = [&](std::int64_t r, std::vector<std::int64_t>& buf) {
    draw(r, buf);  // distinct columns: the bijection does not change how many
    sort_unique(buf);
    return static_cast<std::int64_t>(buf.size());
  };
  const auto pattern = [&](std::int64_t r, std::vector<std::int64_t>& out) {
    draw(r, out);
    for (auto& c : out)
      c = perm(c);
    sort_unique(out);
  };
  return build_csr<T, I>(n, n, perm, count, pattern, random_values<T>(seeds.values));
}

/// Directed Chung–Lu: P(i → j) = min(1, w_i·c_j / S) independently.
/// Row weights follow a power law w ∝ 1/rank (degree exponent 2), capped at
/// n/4 and scaled to a total of degree·n; the last quarter of the ranks has
/// weight 0 (empty rows). Column weights ∝ rank^-0.5. Each row is drawn in
/// expected O(1 + length) by geometric skipping over the columns in
/// decreasing weight order (Miller & Hagberg 2011); rows and columns are then
/// numbered by random bijections. The mean row length is somewhat below
/// `degree` because probabilities are capped at 1. Only IEEE arithmetic,
/// sqrt and det_log enter the decisions, so every machine gives the same bits.
template <Value T, Index I>
Csr<T, I> chung_lu(std::int64_t n, double degree, Seeds seeds) {
  detail::checked_index<I>(n, "rows");
  const std::int64_t active = n >= 4 ? n - n / 4 : n;
  const double cap = std::max(1.0, static_cast<double>(n) / 4);
  const auto raw = [](std::int64_t v) { return 1 / static_cast<double>(v + 1); };
  // Scale s and number of capped ranks k: weights min(cap, s·raw) sum to degree·n.
  double total = 0;
  for (std::int64_t v = active - 1; v >= 0; --v)
    total += raw(v);  // small terms first
  const double target = degree * static_cast<double>(n);
  std::int64_t capped = 0;
  double head = 0, s = 0;
  while (capped < active) {
    s = (target - static_cast<double>(capped) * cap) / (total - head);
    if (s * raw(capped) <= cap) break;
    head += raw(capped);
    ++capped;
  }
  const auto row_weight = [=](std::int64_t u) {
    return u < capped ? cap : (u < active ? s * raw(u) : 0.0);
  };
  double col_total = 0;
  for (std::int64_t v = n - 1; v >= 0; --v)
    col_total += 1 / std::sqrt(static_cast<double>(v + 1));
  const std::uint64_t sseed = seeds.structure;
  const Bijection row_perm(n, hash(sseed, 0x524f5753)), col_perm(n, hash(sseed, 0x434f4c53));
  // Source row u (weight rank) visits the columns in decreasing weight order
  // and calls emit(v) for each column rank v it keeps.
  const auto draw = [&, n, sseed, col_total](std::int64_t u, auto&& emit) {
    const double wu = row_weight(u) / col_total;
    if (wu <= 0) return;
    const auto prob = [wu](std::int64_t v) {
      return std::min(1.0, wu / std::sqrt(static_cast<double>(v + 1)));
    };
    Rng rng(hash(sseed, static_cast<std::uint64_t>(u)));
    std::int64_t v = 0;
    double p = prob(0);
    while (v < n) {
      if (p < 1) {  // skip the columns a trial at probability p would reject
        const double skip = std::floor(det_log(rng.uniform_open0()) / det_log1m(p));
        if (skip >= static_cast<double>(n - v)) break;
        v += static_cast<std::int64_t>(skip);
      }
      const double q = prob(v);  // ≤ p: weights decrease with v
      if (rng.uniform() * p < q) emit(v);
      p = q;
      ++v;
    }
  };
  // Rows in output order: sequential writes, and the draws need no arrays.
  const auto count = [&](std::int64_t r, std::vector<std::int64_t>&) {
    std::int64_t len = 0;
    draw(row_perm.inverse_of(r), [&](std::int64_t) { ++len; });
    return len;
  };
  const auto pattern = [&](std::int64_t r, std::vector<std::int64_t>& out) {
    draw(row_perm.inverse_of(r), [&](std::int64_t v) { out.push_back(col_perm(v)); });
    std::sort(out.begin(), out.end());
  };
  return build_csr<T, I>(
      n, n, [](std::int64_t r) { return r; }, count, pattern, random_values<T>(seeds.values));
}

/// Economics-like: rows in groups of 64 of three kinds — small dense diagonal
/// blocks (2..8), medium rows (a run of 8..48 consecutive columns plus the
/// diagonal and scattered entries), near-empty rows (diagonal plus 0..2
/// scattered entries) — plus ⌊log2 n⌋ + 1 long rows at random positions holding
/// n/256 .. n/32 (at least 32) random columns.
template <Value T, Index I>
Csr<T, I> mixed(std::int64_t n, Seeds seeds) {
  constexpr std::int64_t kGroup = 64;
  const std::uint64_t sseed = seeds.structure;
  const std::int64_t long_rows =
      n > 0 ? std::min<std::int64_t>(n, std::bit_width(static_cast<std::uint64_t>(n))) : 0;
  const Bijection pick(n, hash(sseed, 0x4c4f4e47));  // long rows: pick(0 .. long_rows−1)
  const auto pattern = [=, &pick](std::int64_t i, std::vector<std::int64_t>& out) {
    Rng rng(hash(sseed, static_cast<std::uint64_t>(i)));
    out.push_back(i);
    if (pick.inverse_of(i) < long_rows) {
      const std::int64_t lo = std::max<std::int64_t>(32, n / 256);
      const std::int64_t hi = std::max<std::int64_t>(32, n / 32);
      sample_distinct(rng, n, std::min(n, rng.between(lo, hi)), out);
      sort_unique(out);
      return;
    }
    const std::int64_t g0 = i / kGroup * kGroup;
    const std::uint64_t hg = hash(sseed, 0x475250, static_cast<std::uint64_t>(g0));
    const std::uint64_t kind = hg % 100;
    int scattered = 0;
    if (kind < 45) {  // a small dense block on the diagonal
      const std::int64_t bs = 2 + static_cast<std::int64_t>((hg >> 8) % 7);
      const std::int64_t b0 = g0 + (i - g0) / bs * bs;
      const std::int64_t b1 = std::min({b0 + bs, g0 + kGroup, n});
      for (std::int64_t j = b0; j < b1; ++j)
        out.push_back(j);
      scattered = rng.uniform() < 0.25 ? 1 : 0;
    } else if (kind < 75) {  // medium: a run of consecutive columns
      const std::int64_t len =
          std::min<std::int64_t>(n, 8 + static_cast<std::int64_t>((hg >> 8) % 41));
      const std::int64_t c0 =
          static_cast<std::int64_t>((hg >> 16) % static_cast<std::uint64_t>(n - len + 1));
      const std::int64_t shift = std::min<std::int64_t>(i % 4, n - len - c0);
      for (std::int64_t j = c0 + shift; j < c0 + shift + len; ++j)
        out.push_back(j);
      scattered = 2;
    } else {  // near-empty
      scattered = static_cast<int>(rng.below(3));
    }
    for (int k = 0; k < scattered; ++k)
      out.push_back(rng.below(n));
    sort_unique(out);
  };
  return build_csr<T, I>(n, n, pattern, random_values<T>(seeds.values));
}

#define SPX_INST(T, I)                                                            \
  template Csr<T, I> random_uniform<T, I>(std::int64_t, double, Seeds);           \
  template Csr<T, I> dense_rows<T, I>(std::int64_t, double, std::int64_t, Seeds); \
  template Csr<T, I> rmat<T, I>(int, double, Seeds);                              \
  template Csr<T, I> chung_lu<T, I>(std::int64_t, double, Seeds);                 \
  template Csr<T, I> mixed<T, I>(std::int64_t, Seeds);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::gen

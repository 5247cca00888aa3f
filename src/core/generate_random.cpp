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
  const auto pattern = [=](std::int64_t i, std::vector<std::int64_t>& out) {
    Rng rng(hash(sseed, static_cast<std::uint64_t>(i)));
    sample_distinct(rng, n, random_length(rng, degree, n), out);
  };
  return build_csr<T, I>(n, n, pattern, random_values<T>(seeds.values));
}

template <Value T, Index I>
Csr<T, I> dense_rows(std::int64_t n, double degree, std::int64_t count, Seeds seeds) {
  const std::uint64_t sseed = seeds.structure;
  const Bijection pick(n, hash(sseed, 0x44454e5345));  // dense rows: pick(0 .. count−1)
  const auto pattern = [=, &pick](std::int64_t i, std::vector<std::int64_t>& out) {
    if (pick.inverse_of(i) < count) {
      for (std::int64_t j = 0; j < n; ++j)
        out.push_back(j);
      return;
    }
    Rng rng(hash(sseed, static_cast<std::uint64_t>(i)));
    sample_distinct(rng, n, random_length(rng, degree, n), out);
  };
  return build_csr<T, I>(n, n, pattern, random_values<T>(seeds.values));
}

/// R-MAT: m = round(degree·2^scale) edges, each edge descending `scale` levels
/// of the quadrant recursion with probabilities (.57, .19, .19, .05) from its
/// own stream; vertex labels are then scrambled by a random bijection (as
/// Graph500 does) and duplicate edges merged. Edges are generated twice
/// (count, then scatter) rather than stored as pairs; each row is then sorted.
template <Value T, Index I>
Csr<T, I> rmat(int scale, double degree, Seeds seeds) {
  const std::int64_t n = std::int64_t{1} << scale;
  const I rows = detail::checked_index<I>(n, "rows");
  const auto m = static_cast<std::int64_t>(std::llround(degree * static_cast<double>(n)));
  constexpr std::uint64_t kA = 37356, kAB = 49807, kABC = 62259;  // ·2^-16: .57, .76, .95
  const std::uint64_t sseed = seeds.structure;
  const Bijection perm(n, hash(sseed, 0x524d4154));
  const auto edge = [&, scale, sseed](std::int64_t e, std::int64_t& r, std::int64_t& c) {
    Rng rng(hash(sseed, static_cast<std::uint64_t>(e)));
    std::uint64_t word = 0, rr = 0, cc = 0;
    for (int level = 0; level < scale; ++level) {
      if (level % 4 == 0) word = rng.next();
      const std::uint64_t u = word & 0xffff;
      word >>= 16;
      rr <<= 1;
      cc <<= 1;
      if (u >= kABC) {
        rr |= 1;
        cc |= 1;
      } else if (u >= kAB) {
        rr |= 1;
      } else if (u >= kA) {
        cc |= 1;
      }
    }
    r = perm(static_cast<std::int64_t>(rr));
    c = perm(static_cast<std::int64_t>(cc));
  };

  // Count edges per row, scatter their columns into row buckets.
  std::vector<std::int64_t> start(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static, 8192) if (m >= kParallelRows)
  for (std::int64_t e = 0; e < m; ++e) {
    std::int64_t r, c;
    edge(e, r, c);
#pragma omp atomic
    ++start[r + 1];
  }
  for (std::int64_t i = 0; i < n; ++i)
    start[i + 1] += start[i];
  std::vector<std::int64_t> next(start.begin(), start.end() - 1);
  Array<I> bucket(static_cast<std::size_t>(m));
  I* bk = bucket.data();
#pragma omp parallel for schedule(static, 8192) if (m >= kParallelRows)
  for (std::int64_t e = 0; e < m; ++e) {
    std::int64_t r, c, pos;
    edge(e, r, c);
#pragma omp atomic capture
    pos = next[r]++;
    bk[pos] = static_cast<I>(c);
  }
  // Sort each bucket and merge duplicates; the order the atomics gave is gone
  // after the sort, so the result is deterministic.
  Array<I> row_ptr(static_cast<std::size_t>(n) + 1);
  I* ptr = row_ptr.data();
  ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelRows)
  for (std::int64_t i = 0; i < n; ++i) {
    I* b = bk + start[i];
    I* e = bk + start[i + 1];
    std::sort(b, e);
    ptr[i + 1] = static_cast<I>(std::unique(b, e) - b);
  }
  std::int64_t nnz = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    nnz += ptr[i + 1];
    ptr[i + 1] = detail::checked_index<I>(nnz, "nnz");
  }
  Array<I> col_idx(static_cast<std::size_t>(nnz));
  Array<T> vals(static_cast<std::size_t>(nnz));
  I* col = col_idx.data();
  T* val = vals.data();
  const std::uint64_t vseed = seeds.values;
#pragma omp parallel for schedule(dynamic, 1024) if (n >= kParallelRows)
  for (std::int64_t i = 0; i < n; ++i) {
    std::copy(bk + start[i], bk + start[i] + (ptr[i + 1] - ptr[i]), col + ptr[i]);
    Rng rng(hash(vseed, static_cast<std::uint64_t>(i)));
    for (I k = ptr[i]; k < ptr[i + 1]; ++k)
      val[k] = static_cast<T>(rng.value());
  }
  return Csr<T, I>(rows, rows, std::move(row_ptr), std::move(col_idx), std::move(vals),
                   Check::Trusted);
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
  const auto pattern = [&, n, sseed, col_total](std::int64_t r, std::vector<std::int64_t>& out) {
    const std::int64_t u = row_perm.inverse_of(r);
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
      if (rng.uniform() * p < q) out.push_back(col_perm(v));
      p = q;
      ++v;
    }
    std::sort(out.begin(), out.end());
  };
  return build_csr<T, I>(n, n, pattern, random_values<T>(seeds.values));
}

/// Economics-like: rows in groups of 64 of three kinds — small dense diagonal
/// blocks (2..8), medium rows (a run of 8..48 consecutive columns plus the
/// diagonal and scattered entries), near-empty rows (diagonal plus 0..2
/// scattered entries) — plus ⌈log2 n⌉ long rows at random positions holding
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

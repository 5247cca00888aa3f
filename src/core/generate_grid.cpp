// Generators on grids: 2D and 3D stencils, FEM-like block stencils, banded
// matrices of short diagonal segments, and road-network-like planar graphs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/generate_common.hpp"
#include "core/instantiate.hpp"

namespace spx::gen {

/// A square grid matrix of `rows` rows with the (structurally symmetric)
/// pattern `pattern` and diagonally dominant values, symmetric ones when asked.
template <Value T, Index I, class Pattern>
Csr<T, I> grid_csr(std::int64_t rows, const Pattern& pattern, Seeds seeds, bool symmetric) {
  if (symmetric)
    return build_csr<T, I>(rows, rows, pattern, symmetric_dominant_values<T>(seeds.values));
  return build_csr<T, I>(rows, rows, pattern, dominant_values<T>(seeds.values));
}

/// Stencil on a grid of `width` columns whose first `rows` nodes (natural
/// ordering, x fastest) are kept: rows = width² is the full n×n grid; fewer
/// rows give a truncated last grid row (batch members of any size).
template <Value T, Index I>
Csr<T, I> stencil2d(std::int64_t width, std::int64_t rows, int points, Seeds seeds,
                    bool symmetric) {
  const bool box = points == 9;
  const auto pattern = [=](std::int64_t i, std::vector<std::int64_t>& out) {
    const std::int64_t y = i / width, x = i % width;
    for (int dy = -1; dy <= 1; ++dy) {
      if (y + dy < 0) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        if (!box && dx != 0 && dy != 0) continue;
        if (x + dx < 0 || x + dx >= width) continue;
        const std::int64_t j = (y + dy) * width + x + dx;
        if (j < rows) out.push_back(j);
      }
    }
  };
  return grid_csr<T, I>(rows, pattern, seeds, symmetric);
}

template <Value T, Index I>
Csr<T, I> stencil3d(std::int64_t n, int points, Seeds seeds, bool symmetric) {
  const bool box = points == 27;
  const std::int64_t plane = n * n;
  const auto pattern = [=](std::int64_t i, std::vector<std::int64_t>& out) {
    const std::int64_t z = i / plane, y = (i / n) % n, x = i % n;
    for (int dz = -1; dz <= 1; ++dz) {
      if (z + dz < 0 || z + dz >= n) continue;
      for (int dy = -1; dy <= 1; ++dy) {
        if (y + dy < 0 || y + dy >= n) continue;
        for (int dx = -1; dx <= 1; ++dx) {
          if (!box && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
          if (x + dx < 0 || x + dx >= n) continue;
          out.push_back(i + dz * plane + dy * n + dx);
        }
      }
    }
  };
  return grid_csr<T, I>(plane * n, pattern, seeds, symmetric);
}

/// Node (y, x) of the n×n grid couples with its 3×3 neighbourhood; each
/// coupling is a dense b×b block, rows p·b .. p·b+b−1 belong to node p.
template <Value T, Index I>
Csr<T, I> fem(std::int64_t n, int block, Seeds seeds, bool symmetric) {
  const std::int64_t b = block;
  const auto pattern = [=](std::int64_t i, std::vector<std::int64_t>& out) {
    const std::int64_t p = i / b, y = p / n, x = p % n;
    for (int dy = -1; dy <= 1; ++dy) {
      if (y + dy < 0 || y + dy >= n) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        if (x + dx < 0 || x + dx >= n) continue;
        const std::int64_t q = (y + dy) * n + x + dx;
        for (std::int64_t c = 0; c < b; ++c)
          out.push_back(q * b + c);
      }
    }
  };
  const std::int64_t rows = n * n * b;
  return grid_csr<T, I>(rows, pattern, seeds, symmetric);
}

/// The main diagonal plus `bands` other diagonals at distinct offsets within
/// ±min(n − 1, 4·bands). Each off-diagonal is cut into chunks of 32 positions;
/// about 70% of the chunks hold one segment (length 4..32, random start), the
/// rest are gaps.
template <Value T, Index I>
Csr<T, I> banded(std::int64_t n, int bands, Seeds seeds) {
  constexpr std::int64_t kChunk = 32;
  std::vector<std::int64_t> offsets;
  if (n > 1 && bands > 0) {
    const std::int64_t half = std::min<std::int64_t>(n - 1, 4 * std::int64_t{bands});
    Rng rng(hash(seeds.structure, 0x4f4646));
    std::vector<std::int64_t> picks;
    sample_distinct(rng, 2 * half, bands, picks);  // bands ≤ 2(n−1) was validated
    for (std::int64_t t : picks)
      offsets.push_back(t < half ? t - half : t - half + 1);
  }
  // Insert the main diagonal in order.
  offsets.insert(std::lower_bound(offsets.begin(), offsets.end(), 0), 0);
  std::vector<std::int64_t> phase(offsets.size());
  for (std::size_t k = 0; k < offsets.size(); ++k)
    phase[k] = static_cast<std::int64_t>(
        hash(seeds.structure, 0x504841, static_cast<std::uint64_t>(offsets[k])) % kChunk);
  const std::uint64_t sseed = seeds.structure;
  const auto pattern = [&, n, sseed](std::int64_t i, std::vector<std::int64_t>& out) {
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      const std::int64_t d = offsets[k], j = i + d;
      if (j < 0 || j >= n) continue;
      if (d != 0) {
        const std::int64_t t = i + phase[k];
        const std::uint64_t h =
            hash(sseed, static_cast<std::uint64_t>(d), static_cast<std::uint64_t>(t / kChunk));
        if ((h & 1023) >= 717) continue;  // a gap chunk
        const std::int64_t start = static_cast<std::int64_t>((h >> 10) % 16);
        const std::int64_t len = 4 + static_cast<std::int64_t>((h >> 20) % (kChunk - start - 3));
        const std::int64_t pos = t % kChunk;
        if (pos < start || pos >= start + len) continue;
      }
      out.push_back(j);
    }
  };
  return build_csr<T, I>(n, n, pattern, random_values<T>(seeds.values));
}

/// Road-network-like graph: the first n vertices of a grid of width
/// floor(√n) with 4-neighbour edges, about a third of the edges removed at
/// random while both ends keep degree ≥ 2, vertices numbered by a random
/// bijection. Symmetric pattern and values, no diagonal. (When the last grid
/// row holds one vertex, it is also tied to the row above's second vertex so
/// that it keeps two neighbours: every degree is 2..4 for n ≥ 4.)
template <Value T, Index I>
Csr<T, I> road(std::int64_t n, Seeds seeds) {
  detail::checked_index<I>(n, "rows");  // before the edge arrays are allocated
  // Width floor(√n), so that h ≥ 3 when n ≥ 5 and not square: every vertex of
  // the last full grid row has a neighbour above.
  std::int64_t w = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
  while (w * w > n)
    --w;
  while ((w + 1) * (w + 1) <= n)
    ++w;
  const std::int64_t h = w > 0 ? (n + w - 1) / w : 0;
  const bool extra = h >= 2 && w >= 2 && n - (h - 1) * w == 1;
  const std::int64_t extra_a = n - 1, extra_b = extra ? (h - 2) * w + 1 : -1;
  // Edge flags: bit 0 = edge to the right neighbour, bit 1 = edge down.
  std::vector<std::uint8_t> edges(static_cast<std::size_t>(n)), degree(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static, 4096) if (n >= kParallelRows)
  for (std::int64_t v = 0; v < n; ++v) {
    const std::int64_t x = v % w;
    edges[v] = static_cast<std::uint8_t>((x + 1 < w && v + 1 < n ? 1 : 0) | (v + w < n ? 2 : 0));
    const bool left = x > 0, right = x + 1 < w && v + 1 < n, up = v >= w, down = v + w < n;
    degree[v] = static_cast<std::uint8_t>(left + right + up + down +
                                          (extra && (v == extra_a || v == extra_b)));
  }
  // Removal in four rounds whose edges form matchings (right edges from even x,
  // from odd x, down edges from even y, from odd y), so that each round runs
  // in parallel and the result does not depend on the thread count.
  constexpr std::uint64_t kRemove = 0x6666666666666666ULL;  // probability 0.4
  const std::uint64_t sseed = seeds.structure;
  for (int round = 0; round < 4; ++round) {
    const int bit = round < 2 ? 1 : 2;
    const int parity = round % 2;
#pragma omp parallel for schedule(static, 4096) if (n >= kParallelRows)
    for (std::int64_t v = 0; v < n; ++v) {
      if (!(edges[v] & bit)) continue;
      const std::int64_t coord = bit == 1 ? v % w : v / w;
      if (coord % 2 != parity) continue;
      const std::int64_t u = bit == 1 ? v + 1 : v + w;
      if (degree[v] <= 2 || degree[u] <= 2) continue;
      if (hash(sseed, static_cast<std::uint64_t>(2 * v + bit - 1)) >= kRemove) continue;
      edges[v] = static_cast<std::uint8_t>(edges[v] & ~bit);
      --degree[v];
      --degree[u];
    }
  }
  const Bijection perm(n, hash(sseed, 0x524f4144));
  // Rows in output order (sequential writes); the vertex arrays read at
  // random are 2 bytes per vertex and mostly stay in cache.
  const auto count = [&](std::int64_t r, std::vector<std::int64_t>&) {
    return static_cast<std::int64_t>(degree[perm.inverse_of(r)]);
  };
  const auto pattern = [&, w](std::int64_t r, std::vector<std::int64_t>& out) {
    const std::int64_t v = perm.inverse_of(r), x = v % w;
    if (x > 0 && (edges[v - 1] & 1)) out.push_back(perm(v - 1));
    if (edges[v] & 1) out.push_back(perm(v + 1));
    if (v >= w && (edges[v - w] & 2)) out.push_back(perm(v - w));
    if (edges[v] & 2) out.push_back(perm(v + w));
    if (extra && v == extra_a) out.push_back(perm(extra_b));
    if (extra && v == extra_b) out.push_back(perm(extra_a));
    std::sort(out.begin(), out.end());
  };
  const std::uint64_t vseed = seeds.values;
  const auto values = [vseed](std::int64_t i, const std::int64_t* cols, std::int64_t len, T* out) {
    for (std::int64_t k = 0; k < len; ++k) {
      const auto a = static_cast<std::uint64_t>(std::min(i, cols[k]));
      const auto b = static_cast<std::uint64_t>(std::max(i, cols[k]));
      out[k] = static_cast<T>(Rng(hash(vseed, a, b)).value());
    }
  };
  return build_csr<T, I>(
      n, n, [](std::int64_t r) { return r; }, count, pattern, values);
}

#define SPX_INST(T, I)                                                              \
  template Csr<T, I> stencil2d<T, I>(std::int64_t, std::int64_t, int, Seeds, bool); \
  template Csr<T, I> stencil3d<T, I>(std::int64_t, int, Seeds, bool);               \
  template Csr<T, I> fem<T, I>(std::int64_t, int, Seeds, bool);                     \
  template Csr<T, I> banded<T, I>(std::int64_t, int, Seeds);                        \
  template Csr<T, I> road<T, I>(std::int64_t, Seeds);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::gen

#include "matrices.hpp"

#include <cstdint>
#include <tuple>

#include "common.hpp"
#include "spx/convert.hpp"
#include "spx/formats/coo.hpp"

namespace spx::test {
namespace {

/// A CSR from (row, col) pairs with random nonzero values.
template <Value T, Index I>
Csr<T, I> from_pattern(I rows, I cols, const std::vector<std::pair<I, I>>& entries,
                       std::uint64_t seed) {
  std::vector<I> r, c;
  for (auto [i, j] : entries) {
    r.push_back(i);
    c.push_back(j);
  }
  auto v = random_vector<T>(static_cast<std::int64_t>(entries.size()), seed);
  Coo<T, I> coo(rows, cols, Array<I>(r), Array<I>(c), Array<T>(v));
  return to_csr(coo);
}

}  // namespace

template <Value T, Index I>
std::vector<TestMatrix<T, I>> handmade_matrices() {
  std::vector<TestMatrix<T, I>> out;
  const std::uint64_t seed = fresh_seed();
  const auto add = [&](std::string name, I rows, I cols, std::vector<std::pair<I, I>> entries) {
    out.push_back({std::move(name), from_pattern<T, I>(rows, cols, entries, seed + out.size())});
  };
  add("0x0", 0, 0, {});
  add("1x1", 1, 1, {{0, 0}});
  add("5x5-no-entries", 5, 5, {});
  add("3x0", 3, 0, {});
  add("0x3", 0, 3, {});
  {
    // Diagonal with every third row empty.
    std::vector<std::pair<I, I>> e;
    for (I i = 0; i < 300; ++i)
      if (i % 3 != 1) e.push_back({i, i});
    add("diag-empty-rows", 300, 300, e);
  }
  {
    // One dense row holding most entries, plus a sparse diagonal.
    const I n = 5000;
    std::vector<std::pair<I, I>> e;
    for (I j = 0; j < n; ++j)
      e.push_back({7, j});
    for (I i = 0; i < n; i += 2)
      if (i != 7) e.push_back({i, i});
    add("dense-row", n, n, e);
  }
  {
    // A single column.
    std::vector<std::pair<I, I>> e;
    for (I i = 0; i < 777; i += 1)
      e.push_back({i, 0});
    add("one-column", 777, 1, e);
  }
  {
    // Wide and tall rectangles with a pseudo-random pattern.
    std::vector<std::pair<I, I>> wide, tall;
    for (I i = 0; i < 40; ++i)
      for (I k = 0; k < 30; ++k)
        wide.push_back({i, static_cast<I>((i * 131 + k * 977) % 3000)});
    for (I i = 0; i < 3000; ++i)
      for (I k = 0; k < 3; ++k)
        tall.push_back({i, static_cast<I>((i * 7 + k * 13) % 40)});
    add("wide-40x3000", 40, 3000, wide);
    add("tall-3000x40", 3000, 40, tall);
  }
  return out;
}

#define SPX_INST(T, I) template std::vector<TestMatrix<T, I>> handmade_matrices<T, I>();
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST

}  // namespace spx::test

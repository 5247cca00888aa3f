// The shared test matrices (matrices.hpp). Seeds are fresh each run; the
// names of the generated ones (describe) carry them for reproduction.
#include "matrices.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "bench.hpp"
#include "common.hpp"
#include "spx/convert.hpp"
#include "spx/formats/coo.hpp"
#include "spx/generate.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::test {

std::string real_matrix_dir() {
  return bench::default_real_dir().string();
}

template <Value T, Index I>
Csr<T, I> csr_from_entries(std::int64_t rows, std::int64_t cols, const std::vector<I>& r,
                           const std::vector<I>& c, std::uint64_t seed) {
  const auto v = random_values<T>(static_cast<std::int64_t>(r.size()), seed);
  return to_csr(
      Coo<T, I>(static_cast<I>(rows), static_cast<I>(cols), Array<I>(r), Array<I>(c), Array<T>(v)));
}

template <Value T, Index I>
Csr<T, I> symmetric_from_lower(std::int64_t n, std::vector<std::pair<I, I>> lower,
                               std::uint64_t seed, bool zero_diagonal) {
  std::sort(lower.begin(), lower.end());
  lower.erase(std::unique(lower.begin(), lower.end()), lower.end());
  const auto v = random_values<T>(static_cast<std::int64_t>(lower.size()), seed);
  std::vector<I> r, c;
  std::vector<T> val;
  for (std::size_t k = 0; k < lower.size(); ++k) {
    const auto [i, j] = lower[k];
    const T x = i == j && zero_diagonal ? T{0} : v[k];
    r.push_back(i);
    c.push_back(j);
    val.push_back(x);
    if (i != j) {
      r.push_back(j);
      c.push_back(i);
      val.push_back(x);
    }
  }
  return to_csr(
      Coo<T, I>(static_cast<I>(n), static_cast<I>(n), Array<I>(r), Array<I>(c), Array<T>(val)));
}

/// Symmetric matrices (for SYM_CSR; the other formats run on them too).
template <Value T, Index I>
void add_symmetric_matrices(std::vector<TestMatrix<T, I>>& out, std::uint64_t seed) {
  using Lower = std::vector<std::pair<I, I>>;
  const auto add = [&](std::string name, I n, const Lower& lower, bool zero_diagonal = false) {
    out.push_back(
        {std::move(name), symmetric_from_lower<T, I>(n, lower, seed + out.size(), zero_diagonal)});
  };
  {
    // 2D Laplacian, 5 points on a 30×30 grid: 4 on the diagonal, -1 beside.
    const I g = 30;
    std::vector<I> r, c;
    std::vector<T> v;
    for (I y = 0; y < g; ++y)
      for (I x = 0; x < g; ++x) {
        const I i = y * g + x;
        const auto put = [&](I j, T a) {
          r.push_back(i);
          c.push_back(j);
          v.push_back(a);
        };
        if (y > 0) put(i - g, T{-1});
        if (x > 0) put(i - 1, T{-1});
        put(i, T{4});
        if (x + 1 < g) put(i + 1, T{-1});
        if (y + 1 < g) put(i + g, T{-1});
      }
    out.push_back({"sym-laplace2d-30x30",
                   to_csr(Coo<T, I>(g * g, g * g, Array<I>(r), Array<I>(c), Array<T>(v)))});
  }
  {
    // Random lower entries; every fifth row and column empty, every seventh
    // diagonal entry absent, row 3 coupled to a third of the matrix.
    const I n = 1200;
    Lower e;
    std::uint64_t s = seed * 2654435761u + 17;
    const auto next = [&s] {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return s >> 33;
    };
    for (I i = 0; i < n; ++i) {
      if (i % 5 == 2) continue;
      for (int k = 0; k < 4 && i > 0; ++k) {
        const I j = static_cast<I>(next() % static_cast<std::uint64_t>(i));
        if (j % 5 != 2) e.push_back({i, j});
      }
      if (i % 7 != 0) e.push_back({i, i});
      if (i > 3 && i % 3 == 0) e.push_back({i, 3});
    }
    add("sym-random-empty-rows", n, e);
  }
  {
    // No diagonal entry at all; a band below it.
    const I n = 500;
    Lower e;
    for (I i = 0; i < n; ++i)
      for (I d = 1; d <= 3 && d <= i; ++d)
        e.push_back({i, i - d});
    add("sym-empty-diagonal", n, e);
  }
  {
    // Every diagonal entry an explicit zero, plus a wide band.
    const I n = 400;
    Lower e;
    for (I i = 0; i < n; ++i) {
      e.push_back({i, i});
      if (i >= 37) e.push_back({i, i - 37});
      if (i >= 1) e.push_back({i, i - 1});
    }
    add("sym-zero-diagonal", n, e, true);
  }
  {
    // Arrow: a dense first row and column, and the diagonal: every row's
    // mirror reaches row 0.
    const I n = 3000;
    Lower e;
    for (I i = 0; i < n; ++i) {
      if (i > 0) e.push_back({i, 0});
      e.push_back({i, i});
    }
    add("sym-arrow", n, e);
  }
}

template <Value T, Index I>
std::vector<TestMatrix<T, I>> handmade_matrices() {
  std::vector<TestMatrix<T, I>> out;
  const std::uint64_t seed = fresh_seed();
  const auto add = [&](std::string name, I rows, I cols, std::vector<std::pair<I, I>> entries) {
    std::vector<I> r, c;
    for (auto [i, j] : entries) {
      r.push_back(i);
      c.push_back(j);
    }
    out.push_back({std::move(name), csr_from_entries<T, I>(rows, cols, r, c, seed + out.size())});
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
  add_symmetric_matrices<T, I>(out, seed + out.size());
  return out;
}

template <Value T, Index I>
TestMatrix<T, I> generated(std::string_view spec, std::uint64_t seed) {
  GenSpec s = parse_gen_spec(spec);
  s.seed = seed;
  return {describe(s), generate<T, I>(s)};
}

/// One small member of every generator class (at most 1000 rows and about
/// 2–3 k nonzeros each, so that the registry-wide SpMV and SpMM kernel tests
/// stay fast), plus two batch members.
template <Value T, Index I>
std::vector<TestMatrix<T, I>> generated_matrices() {
  const std::uint64_t seed = fresh_seed();
  std::vector<TestMatrix<T, I>> out;
  for (const char* text :
       {"stencil2d:n=16,points=5", "stencil2d:n=14,points=9", "stencil3d:n=7,points=7",
        "stencil3d:n=5,points=27", "fem:n=6,block=3", "random:n=500,degree=5",
        "rmat:scale=8,degree=8", "chunglu:n=1000,degree=3", "road:n=900", "banded:n=800,bands=6",
        "denserows:n=600,degree=2,dense_rows=2", "mixed:n=300"})
    out.push_back(generated<T, I>(text, seed + out.size()));
  BatchSpec batch;
  batch.count = 2;
  batch.min_rows = 11;
  batch.max_rows = 200;
  batch.seed = seed;
  auto members = generate_batch<T, I>(batch);
  for (std::size_t k = 0; k < members.size(); ++k)
    out.push_back({describe(batch) + "-m" + std::to_string(k), std::move(members[k])});
  return out;
}

/// Every `.mtx` and `.mtx.gz` file of the real-matrix folder, in name order,
/// as CSR (symmetry expanded, duplicates summed); named by the file stem. The
/// folder is real_matrix_dir() ($SPX_REAL_MATRICES when set, else where
/// `spx bench` looks). With SPX_TEST_SMALL=1 (sanitizer
/// runs) only the five smallest files are read.
template <Value T, Index I>
std::vector<TestMatrix<T, I>> real_matrices() {
  namespace fs = std::filesystem;
  const fs::path dir = real_matrix_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::printf("[  INFO    ] no real matrices: %s does not exist\n", dir.c_str());
    return {};
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".mtx") || name.ends_with(".mtx.gz")) files.push_back(entry.path());
  }
  if (const char* small = std::getenv("SPX_TEST_SMALL"); small != nullptr && small[0] == '1') {
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
      return fs::file_size(a) < fs::file_size(b);
    });
    files.resize(std::min<std::size_t>(files.size(), 5));
  }
  std::sort(files.begin(), files.end());
  std::vector<TestMatrix<T, I>> out;
  for (const auto& file : files) {
    std::string name = file.filename().string();
    name = name.substr(0, name.find(".mtx"));
    out.push_back({name, io::read_csr<T, I>(file)});
  }
  return out;
}

#define SPX_INST(T, I)                                                                         \
  template std::vector<TestMatrix<T, I>> handmade_matrices<T, I>();                            \
  template std::vector<TestMatrix<T, I>> generated_matrices<T, I>();                           \
  template std::vector<TestMatrix<T, I>> real_matrices<T, I>();                                \
  template TestMatrix<T, I> generated<T, I>(std::string_view, std::uint64_t);                  \
  template Csr<T, I> csr_from_entries<T, I>(std::int64_t, std::int64_t, const std::vector<I>&, \
                                            const std::vector<I>&, std::uint64_t);             \
  template Csr<T, I> symmetric_from_lower<T, I>(std::int64_t, std::vector<std::pair<I, I>>,    \
                                                std::uint64_t, bool);
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST

}  // namespace spx::test

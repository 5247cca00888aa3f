// One small member of every generator class (a few thousand rows, so that the
// registry-wide kernel tests stay fast), plus two batch members. Seeds are
// fresh each run; the names (describe) carry them for reproduction.
#include <cstdint>

#include "common.hpp"
#include "matrices.hpp"
#include "spx/generate.hpp"

namespace spx::test {

template <Value T, Index I>
std::vector<TestMatrix<T, I>> generated_matrices() {
  const std::uint64_t seed = fresh_seed();
  std::vector<TestMatrix<T, I>> out;
  for (const char* text :
       {"stencil2d:n=40,points=5", "stencil2d:n=30,points=9", "stencil3d:n=12,points=7",
        "stencil3d:n=10,points=27", "fem:n=14,block=3", "random:n=2000,degree=7",
        "rmat:scale=11,degree=8", "chunglu:n=3000,degree=6", "road:n=2500", "banded:n=2000,bands=8",
        "denserows:n=2000,degree=3,dense_rows=3", "mixed:n=3000"}) {
    GenSpec spec = parse_gen_spec(text);
    spec.seed = seed + out.size();
    out.push_back({describe(spec), generate<T, I>(spec)});
  }
  BatchSpec batch;
  batch.count = 2;
  batch.min_rows = 11;
  batch.max_rows = 1024;
  batch.seed = seed;
  auto members = generate_batch<T, I>(batch);
  for (std::size_t k = 0; k < members.size(); ++k)
    out.push_back({describe(batch) + "-m" + std::to_string(k), std::move(members[k])});
  return out;
}

#define SPX_INST(T, I) template std::vector<TestMatrix<T, I>> generated_matrices<T, I>();
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST

}  // namespace spx::test

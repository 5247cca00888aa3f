// One small member of every generator class (at most 1000 rows and about
// 2–3 k nonzeros each, so that the registry-wide SpMV and SpMM kernel tests
// stay fast), plus two batch members. Seeds are
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
       {"stencil2d:n=16,points=5", "stencil2d:n=14,points=9", "stencil3d:n=7,points=7",
        "stencil3d:n=5,points=27", "fem:n=6,block=3", "random:n=500,degree=5",
        "rmat:scale=8,degree=8", "chunglu:n=1000,degree=3", "road:n=900", "banded:n=800,bands=6",
        "denserows:n=600,degree=2,dense_rows=2", "mixed:n=300"}) {
    GenSpec spec = parse_gen_spec(text);
    spec.seed = seed + out.size();
    out.push_back({describe(spec), generate<T, I>(spec)});
  }
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

#define SPX_INST(T, I) template std::vector<TestMatrix<T, I>> generated_matrices<T, I>();
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST

}  // namespace spx::test

// Locality statistics of the column pattern (the accesses to x) for the CPU
// default suite's members (bench/src/suite.cpp) named on the command line
// (all of them when none is), as CSV on stdout, one line per member. The
// advisor's CPU compute model reads `scatter` (MatrixStats::scatter, computed
// by spx::analyze); the other columns are the candidates it was chosen
// against (docs/advisor.md, "Scattered columns"), for the runs that predate
// the statistic in the bench JSON:
//   scatter       MatrixStats::scatter: nonzeros whose 8-column line of x is
//                 neither the row's previous nonzero's nor one of the previous
//                 row's lines, over nnz (from spx::analyze)
//   scatter16     the same with 16-column lines (64 bytes of floats)
//   gap8          nonzeros more than 8 columns after the row's previous one
//                 (a row's first: from the previous row's first), over nnz
//   lines         distinct 8-column lines per row, summed, over nnz
//   far           nonzeros more than 64 columns from the diagonal, over nnz
// (bench/results/locality-stats-cpu-default-s13.csv; docs/advisor.md says why
// scatter was kept: the others count the stencils' far but reused columns.)
// Not part of the build: it links the CPU tree's libraries:
//
//   cmake --preset cpu && cmake --build build/cpu --target spx
//   c++ -O2 -std=c++20 -fopenmp -Isrc -Iinclude -Ibench/src
//       bench/profile/locality-stats.cpp -o /tmp/locality-stats
//       build/cpu/bench/libspx_bench.a build/cpu/libspx_baselines.a
//       build/cpu/bench/libspx_reference.a build/cpu/libspx.a -lfmt -lz
//   (one command, from the repository's root)
//   /tmp/locality-stats /work/shared/matrices/real > STATS.csv
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "bench.hpp"
#include "spx/analysis.hpp"

namespace {

using Csr = spx::Csr<double, std::int32_t>;

double scatter_lines(const Csr& A, std::int64_t line) {
  const std::int32_t* ptr = A.row_ptr().data();
  const std::int32_t* col = A.col_idx().data();
  std::int64_t misses = 0;
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    std::int64_t p = r > 0 ? ptr[r - 1] : 0;
    const std::int64_t p_end = r > 0 ? ptr[r] : 0;
    std::int64_t last = -1;
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      const std::int64_t l = col[k] / line;
      if (l == last) continue;
      last = l;
      while (p < p_end && col[p] / line < l)
        ++p;
      misses += p == p_end || col[p] / line != l;
    }
  }
  return A.nnz() > 0 ? static_cast<double>(misses) / static_cast<double>(A.nnz()) : 0.0;
}

void print(const std::string& name, const Csr& A) {
  const std::int32_t* ptr = A.row_ptr().data();
  const std::int32_t* col = A.col_idx().data();
  std::int64_t gap = 0, lines = 0, far = 0, prev_first = -1;
  for (std::int64_t r = 0; r < A.rows(); ++r) {
    std::int64_t prev = prev_first, last_line = -1;
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      gap += prev < 0 || col[k] - prev > 8 || col[k] < prev;
      prev = col[k];
      lines += col[k] / 8 != last_line;
      last_line = col[k] / 8;
      far += std::abs(static_cast<std::int64_t>(col[k]) - r) > 64;
    }
    if (ptr[r + 1] > ptr[r]) prev_first = col[ptr[r]];
  }
  const spx::MatrixStats s = spx::analyze(A);
  const double nnz = std::max<double>(1.0, static_cast<double>(A.nnz()));
  std::printf("%s,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%.6f\n", name.c_str(),
              static_cast<long long>(A.rows()), static_cast<long long>(A.nnz()), s.scatter,
              scatter_lines(A, 16), gap / nnz, lines / nnz, far / nnz);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s REAL_DIR [MEMBER ...]\n", argv[0]);
    return 2;
  }
  const std::set<std::string> names(argv + 2, argv + argc);
  const spx::bench::Suite suite = spx::bench::default_suite(spx::Backend::Cpu, argv[1]);
  std::printf("matrix,rows,nnz,scatter,scatter16,gap8,lines,far\n");
  for (const auto& m : suite.members) {
    if (!names.empty() && !names.contains(m.name)) continue;
    print(m.name, spx::bench::load_member<std::int32_t>(m));
    std::fflush(stdout);
  }
  return 0;
}

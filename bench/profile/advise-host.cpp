// The host's share of the advice of a CSR in device memory (issue 17): what
// spx::advise does with the row pointers alone once they are on the host.
// Times, per generated matrix (f32 values, 32-bit indices, in host memory),
// the best of `reps` runs of
//
//   copy   a memcpy of the row pointers (a stand-in: the device's copy to
//          the host runs at the PCIe or NVLink rate instead)
//   pass   detail::row_lengths with the advisor's default slices and hacks
//          (C = 32, threads_per_row = 1, H = 32; σ = 1): the statistics' row
//          counts, SELL's and HLL's stored entries, the length histogram
//   stats  detail::stats_from_counts from that pass (column counts zero)
//   hyb    HYB's width and COO part from it
//
// and prints the numbers they give, so that runs on different thread counts
// can be compared. Set OMP_NUM_THREADS to choose the threads. Not part of
// the build (the compiler's arguments are one line):
//
//   g++ -O3 -std=c++20 -fopenmp -Iinclude -Isrc bench/profile/advise-host.cpp
//       build/cpu/libspx.a -lfmt -lz -o /tmp/advise-host
//   OMP_NUM_THREADS=2 /tmp/advise-host banded:n=9000000,bands=4 road:n=7000000
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <omp.h>

#include "core/row_lengths.hpp"
#include "core/stats.hpp"
#include "spx/generate.hpp"

namespace {

constexpr int kReps = 7;

/// The least of kReps runs of f, in milliseconds.
template <class F>
double best_ms(F&& f) {
  double best = 1e300;
  for (int i = 0; i < kReps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

void profile(const char* spec) {
  using I = std::int32_t;
  const auto A = spx::generate<float, I>(spx::parse_gen_spec(spec));
  const I* ptr = A.row_ptr().data();
  const std::int64_t m = A.rows();
  std::vector<I> copy(static_cast<std::size_t>(m + 1));
  const double t_copy = best_ms([&] { std::memcpy(copy.data(), ptr, copy.size() * sizeof(I)); });
  spx::detail::RowLengthSummary rl;
  const double t_pass = best_ms([&] { rl = spx::detail::row_lengths(ptr, m, {32, 1, 32}); });
  spx::MatrixStats s;
  const double t_stats =
      best_ms([&] { s = spx::detail::stats_from_counts(rl, A.cols(), spx::ColumnCounts{}); });
  std::int64_t K = 0, coo = 0;
  const double t_hyb = best_ms([&] {
    K = rl.bell_garland_width();
    coo = rl.entries_beyond(K);
  });
  std::printf(
      "%s rows %lld nnz %lld threads %d: copy %.2f pass %.2f stats %.4f hyb %.4f ms | longest "
      "%lld empty %lld std %.17g sell %lld hll %lld K %lld coo %lld\n",
      spec, static_cast<long long>(m), static_cast<long long>(A.nnz()), omp_get_max_threads(),
      t_copy, t_pass, t_stats, t_hyb, static_cast<long long>(s.row_max),
      static_cast<long long>(s.empty_rows), s.row_std, static_cast<long long>(32 * rl.slice_widths),
      static_cast<long long>(rl.hack_entries), static_cast<long long>(K),
      static_cast<long long>(coo));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s GENERATOR_SPEC...\n", argv[0]);
    return 2;
  }
  for (int a = 1; a < argc; ++a)
    profile(argv[a]);
}

// How many SELL-C-σ slices compress to 16-bit column offsets, per-slice base
// (the smallest column of the slice: SellPack's choice) against per-row base
// (each row's first column), on the CUDA default suite's generated members
// (large and medium, bench/src/suite.cpp) and on the real matrices. Prints,
// per matrix and (C, σ), the slices and the share of stored entries that
// pack under either base, and the bytes per nonzero of SELL and of SELL-pack
// (f64, 32-bit indices). Not part of the build:
//
//   g++ -O2 -std=c++20 -fopenmp -Iinclude bench/profile/sell-pack-slices.cpp \
//       -Lbuild/cpu -lspx -lfmt -Wl,-rpath,$PWD/build/cpu -o /tmp/sell-pack-slices
//   /tmp/sell-pack-slices /work/shared/matrices/real
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "spx/convert.hpp"
#include "spx/generate.hpp"
#include "spx/io/matrix_market.hpp"

namespace {

using Csr = spx::Csr<double, std::int32_t>;

void count(const std::string& name, const Csr& A, int C, int sigma) {
  const std::int64_t m = A.rows();
  const std::int32_t* ptr = A.row_ptr().data();
  const std::int32_t* col = A.col_idx().data();
  const auto len = [&](std::int64_t r) { return std::int64_t{ptr[r + 1]} - ptr[r]; };
  std::vector<std::int64_t> order(static_cast<std::size_t>(m));
  for (std::int64_t r = 0; r < m; ++r)
    order[r] = r;
  if (sigma > 1)
    for (std::int64_t w = 0; w < m; w += sigma)
      std::stable_sort(order.begin() + w, order.begin() + std::min(m, w + sigma),
                       [&](std::int64_t a, std::int64_t b) { return len(a) > len(b); });
  const std::int64_t slices = (m + C - 1) / C;
  std::int64_t slice_ok = 0, row_ok = 0, stored = 0, slice_stored = 0, row_stored = 0;
  for (std::int64_t s = 0; s < slices; ++s) {
    std::int64_t w = 0, lo = A.cols(), hi = -1;
    bool rows_fit = true;
    for (std::int64_t i = s * C; i < std::min(m, s * C + C); ++i) {
      const std::int64_t r = order[i];
      w = std::max(w, len(r));
      if (len(r) == 0) continue;
      lo = std::min<std::int64_t>(lo, col[ptr[r]]);
      hi = std::max<std::int64_t>(hi, col[ptr[r + 1] - 1]);
      rows_fit = rows_fit && col[ptr[r + 1] - 1] - col[ptr[r]] <= 65535;
    }
    stored += C * w;
    if (hi - lo <= 65535) {
      ++slice_ok;
      slice_stored += C * w;
    }
    if (rows_fit) {
      ++row_ok;
      row_stored += C * w;
    }
  }
  const double nnz = static_cast<double>(A.nnz());
  const double sell = (12.0 * stored + 4.0 * (2 * slices + 1 + m + (sigma > 1 ? m : 0))) / nnz;
  const double pack = (8.0 * stored + 2.0 * slice_stored + 4.0 * (stored - slice_stored) +
                       4.0 * (4 * slices + 2 + m + (sigma > 1 ? m : 0))) /
                      nnz;
  std::printf(
      "%-40s C=%d sigma=%-4d slices %9lld  per-slice %6.1f%% (%6.1f%% of entries)  "
      "per-row %6.1f%% (%6.1f%%)  B/nnz SELL %.2f pack %.2f\n",
      name.c_str(), C, sigma, static_cast<long long>(slices),
      100.0 * static_cast<double>(slice_ok) /
          static_cast<double>(std::max<std::int64_t>(1, slices)),
      100.0 * static_cast<double>(slice_stored) /
          static_cast<double>(std::max<std::int64_t>(1, stored)),
      100.0 * static_cast<double>(row_ok) / static_cast<double>(std::max<std::int64_t>(1, slices)),
      100.0 * static_cast<double>(row_stored) /
          static_cast<double>(std::max<std::int64_t>(1, stored)),
      sell, pack);
}

void both(const std::string& name, const Csr& A) {
  count(name, A, 32, 1);
  count(name, A, 32, 256);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> large = {"stencil3d:n=144,points=7",
                                          "stencil3d:n=90,points=27",
                                          "stencil2d:n=2000,points=5",
                                          "stencil2d:n=1500,points=9",
                                          "fem:n=750,block=2",
                                          "fem:n=500,block=3",
                                          "fem:n=250,block=6",
                                          "banded:n=5700000,bands=8",
                                          "random:n=2000000,degree=10",
                                          "rmat:scale=21,degree=8",
                                          "chunglu:n=2500000,degree=8",
                                          "road:n=7000000",
                                          "denserows:n=2000000,degree=8",
                                          "mixed:n=2000000",
                                          "random:n=250000,degree=64",
                                          "banded:n=9000000,bands=4",
                                          "stencil3d:n=52,points=7",
                                          "stencil3d:n=34,points=27",
                                          "stencil2d:n=450,points=5",
                                          "stencil2d:n=330,points=9",
                                          "fem:n=170,block=2",
                                          "fem:n=110,block=3",
                                          "fem:n=55,block=6",
                                          "banded:n=285000,bands=8",
                                          "random:n=100000,degree=10",
                                          "rmat:scale=17,degree=8",
                                          "chunglu:n=125000,degree=8",
                                          "road:n=350000",
                                          "denserows:n=100000,degree=8",
                                          "mixed:n=100000"};
  for (const auto& spec : large) {
    try {
      both(spec, spx::generate<double, std::int32_t>(spx::parse_gen_spec(spec)));
    } catch (const std::exception& e) {
      std::printf("%-40s skipped: %s\n", spec.c_str(), e.what());
    }
  }
  if (argc > 1)
    for (const auto& f : std::filesystem::directory_iterator(argv[1]))
      if (f.path().extension() == ".mtx")
        both(f.path().stem().string(), spx::io::read_csr<double, std::int32_t>(f.path()));
  return 0;
}

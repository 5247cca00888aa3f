// The statistics the CUDA SpMM Auto rule (register_spmm.cu, cuda/spmm.hpp)
// reads, for the CUDA default suite's members (bench/src/suite.cpp) named
// on the command line (all of them when none is), as CSV on stdout: one
// line per (matrix, precision, n) for n = 8, 32, 64, 128. panel_worth_it is
// panel_plan()'s answer without a device, under the rule of the commit that
// ran the program.
// Joined with measured times by bench/profile/spmm_rule_replay.py (issue 16).
//
// The counts are the rule's own: panel_plan() on the host matrix (the host
// union passes give the same U_2, U_4, U_8 as the device pass),
// irregular_rows() and the matrix's bytes. few_rows and fits_l2 ask the
// current device, and there may be none here, so they are computed for the
// H100 the runs were measured on: 132 SMs × 2048 resident threads, 50 MB
// (52428800 bytes) of L2 (the runs' "device" record). Not part of the build:
// it links the release tree's libraries (CUDA on, no GPU needed):
//
//   cmake --build build/release --target spx_bench
//   cd build/release
//   c++ -O2 -std=c++20 -fopenmp -DSPX_HAVE_CUDA=1 -I../../src -I../../include
//       -I../../bench/src -isystem /usr/local/cuda/include
//       ../../bench/profile/spmm-rule-stats.cpp -o /tmp/spmm-rule-stats
//       -Wl,-rpath,/usr/local/cuda/lib bench/libspx_bench.a libspx_baselines.a
//       bench/libspx_reference.a libspx.a /usr/local/cuda/lib/libcublas.so
//       /usr/local/cuda/lib/libcublasLt.so /usr/local/cuda/lib/libculibos.a -lfmt -lz
//       /usr/local/cuda/lib/libcudart.so /usr/local/cuda/lib/libcusparse.so -lcudadevrt
//       -lcudart_static -lrt -lpthread -ldl
//   (one command; the libraries as tests/spx_tests links them, build.ninja)
//   /tmp/spmm-rule-stats /work/shared/matrices/real NAME... > STATS.csv
//
// bench/profile/spmm_rule_replay.py --names RUN.json.gz prints the names a
// run measured.
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

#include "bench.hpp"
#include "cuda/kernels.hpp"
#include "cuda/spmm.hpp"
#include "spx/convert.hpp"

namespace {

constexpr std::int64_t kH100ResidentThreads = std::int64_t{132} * 2048;
constexpr std::int64_t kH100L2Bytes = 52428800;

template <class T>
void print(const std::string& name, const spx::Csr<T, std::int32_t>& A, const char* precision) {
  const std::int32_t* ptr = A.row_ptr().data();
  std::int64_t max_row = 0;
  for (std::int64_t i = 0; i < A.rows(); ++i)
    max_row = std::max<std::int64_t>(max_row, ptr[i + 1] - ptr[i]);
  const double mean = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
  const auto bytes = static_cast<std::int64_t>(A.bytes());
  const bool few = A.rows() * 32 <= kH100ResidentThreads && max_row <= 1024;
  const bool irregular = spx::cuda::irregular_rows(mean, max_row);
  const bool fits = bytes <= kH100L2Bytes;
  for (const std::int64_t n : {8, 32, 64, 128}) {
    const spx::cuda::PanelPlan p = spx::cuda::panel_plan(A, n);
    std::printf("%s,%s,%lld,%lld,%lld,%.6f,%lld,%lld,%d,%d,%d,%lld,%lld,%lld,%d,%.6f,%d\n",
                name.c_str(), precision, static_cast<long long>(n),
                static_cast<long long>(A.rows()), static_cast<long long>(A.nnz()), mean,
                static_cast<long long>(max_row), static_cast<long long>(bytes), few ? 1 : 0,
                irregular ? 1 : 0, fits ? 1 : 0, static_cast<long long>(p.union_total[0]),
                static_cast<long long>(p.union_total[1]), static_cast<long long>(p.union_total[2]),
                p.rows, p.ratio, p.worth_it ? 1 : 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s REAL_DIR [MEMBER ...]\n", argv[0]);
    return 2;
  }
  const std::set<std::string> names(argv + 2, argv + argc);
  const spx::bench::Suite suite = spx::bench::default_suite(spx::Backend::Cuda, argv[1]);
  std::printf(
      "matrix,precision,n,rows,nnz,mean_row,max_row,bytes,few_rows,irregular_rows,fits_l2,"
      "u2,u4,u8,panel_rows,panel_ratio,panel_worth_it\n");
  for (const auto& m : suite.members) {
    if (!names.empty() && !names.contains(m.name)) continue;
    const auto A = spx::bench::load_member<std::int32_t>(m);
    print(m.name, A, "f64");
    print(m.name, spx::cast<float, std::int32_t>(A), "f32");
    std::fflush(stdout);
  }
  return 0;
}

// Session 30 (issue 16): how far do CSR SpMM's row groups reach? Session 30
// gave row split, for n ≤ 16 on large matrices of short regular rows, a
// group of W lanes per row (row_group_narrow in spmm_csr.cu: 1.26-3.85× the
// merge-based kernel Auto picked there before, H200). Three questions for
// the next GPU run, in one binary:
//  1. n = 32 and 64: do row groups (f32: 8 or 16 lanes of 4 floats a row;
//     f64: 16 or 32 lanes of 2 doubles) beat the library's row split
//     (vector groups, row blocks), row panel and merge-based on the regular
//     members?
//  2. Rows of 10-30 nonzeros (FEM b = 2 and 3, the 27-point stencil), which
//     the library leaves to a warp per row (kRowGroupsMean = 12): is the
//     bound too low?
//  3. Irregular members (mixed, rmat, chunglu, dense rows), where merge-based
//     loses to cuSPARSE at n = 8-64 on mixed (0.59-0.87): row groups over
//     the rows of at most L nonzeros plus a block of 128 threads per longer
//     row (listed once on the host), L = 8·mean + 64 (the library's
//     irregular_rows bound) or 2·mean + 16.
// Kernels: the library's row split, merge-based and row panel through
// spx::spmm (Algorithm forced), a verbatim copy of row_group_narrow (any
// n ≤ W·VEC; with kSkip it leaves the rows longer than L), and long_rows.
// B and C row-major, ld = n, 16-byte aligned; B random ±U[0.5, 1.5]. Every
// kernel is checked first against a host reference in double (C poisoned
// with NaN; |C - ref| ≤ tol · Σ|a||b| per entry), then timed in interleaved
// rounds with the L2 flushed before each launch (a 256 MiB memset outside
// the timed events), median of the rounds.
// Not part of the build (link against a CUDA build of libspx):
//   nvcc -O3 -arch=sm_90 -std=c++20 --expt-relaxed-constexpr -Iinclude -Isrc \
//       -Xcompiler -fopenmp bench/profile/s30-row-groups.cu build/release/libspx.a \
//       -lcublas -lcusparse -lfmt -lz -lgomp -o /tmp/row-groups
//   /tmp/row-groups [rounds] [SPEC...]   (spx gen specs; default: the list in main)
// Output: one line per (member, precision, n, kernel): median and minimum in
// µs, and lib/this, the library's fastest CSR kernel over this one.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "cuda/spmm_tile.cuh"
#include "profile_check.cuh"
#include "spx/generate.hpp"
#include "spx/ops.hpp"

namespace {

using namespace spx::cuda::spmm_tile;  // NOLINT(google-build-using-namespace)

constexpr int kUnroll = 4;

/// strided_step (spmm_csr.cu) verbatim: one step of a lane's walk over a
/// row, the nonzeros k, k + stride, ... below end, all loads first.
template <int kU, int VEC, class T, class I>
__device__ __forceinline__ void strided_step(std::int64_t k, std::int64_t stride, std::int64_t end,
                                             const I* __restrict__ col, const T* __restrict__ val,
                                             const GroupB<T, VEC>& bj, T (&acc)[VEC]) {
  I c[kU];
  T v[kU];
#pragma unroll
  for (int u = 0; u < kU; ++u) {
    const bool in = k + u * stride < end;
    c[u] = in ? load(col + k + u * stride) : I{0};
    v[u] = in ? load(val + k + u * stride) : T{0};
  }
  T b[kU][VEC];
#pragma unroll
  for (int u = 0; u < kU; ++u) {
    if (k + u * stride < end) {
      bj(c[u], b[u]);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        b[u][e] = T{0};
    }
  }
#pragma unroll
  for (int u = 0; u < kU; ++u)
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] += v[u] * b[u][e];
}

/// row_group_narrow (spmm_csr.cu) verbatim but for kSkip: rows of more than
/// long_len nonzeros are left to long_rows.
template <int W, int VEC, bool kSkip, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock)
    row_groups(std::int64_t m, std::int64_t n, const I* __restrict__ ptr, const I* __restrict__ col,
               const T* __restrict__ val, Strided<const T> B, T alpha, T beta, Strided<T> C,
               std::int64_t long_len) {
  constexpr int kU = kUnroll;
  const std::int64_t row = (blockIdx.x * std::int64_t{kSpmmBlock} + threadIdx.x) / W;
  const int j = static_cast<int>(threadIdx.x % W) * VEC;
  if (row >= m || j >= n) return;
  T acc[VEC];
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    acc[e] = T{0};
  const std::int64_t begin = load(ptr + row), end = load(ptr + row + 1);
  if constexpr (kSkip) {
    if (end - begin > long_len) return;
  }
  const GroupB<T, VEC> bj(B, j);
  for (std::int64_t k = begin; k < end; k += kU)
    strided_step<kU>(k, 1, end, col, val, bj, acc);
  store_c_vec<VEC>(C, row, j, alpha, acc, beta);
}

/// A block of kSpmmBlock threads per listed row: 128/W slots of W lanes
/// (lane j of a slot holds columns j·VEC ..), slot s takes the row's
/// nonzeros s, s + slots, ... in steps of kUnroll; slots meet by xor
/// shuffles in the warp, the 4 warps in shared memory (fixed order).
template <int W, int VEC, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock)
    long_rows(const I* __restrict__ list, std::int64_t n, const I* __restrict__ ptr,
              const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B, T alpha,
              T beta, Strided<T> C) {
  constexpr int kSlots = kSpmmBlock / W;
  constexpr int kU = kUnroll;
  __shared__ T part[kWarpsPerBlock][W][VEC];
  const std::int64_t row = load(list + blockIdx.x);
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  const int slot = static_cast<int>(threadIdx.x / W);
  const int j = (lane % W) * VEC;
  const bool active = j < n;
  T acc[VEC];
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    acc[e] = T{0};
  const std::int64_t begin = load(ptr + row), end = load(ptr + row + 1);
  const GroupB<T, VEC> bj(B, active ? j : 0);
  if (active) {
    for (std::int64_t k = begin + slot; k < end; k += kU * kSlots)
      strided_step<kU>(k, kSlots, end, col, val, bj, acc);
  }
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    acc[e] = spx::cuda::across_groups_sum<W>(acc[e]);
  if (lane < W) {
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      part[warp][lane][e] = acc[e];
  }
  __syncthreads();
  if (warp != 0 || lane >= W || !active) return;
#pragma unroll
  for (int w = 1; w < kWarpsPerBlock; ++w)
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] += part[w][lane][e];
  store_c_vec<VEC>(C, row, j, alpha, acc, beta);
}

struct Kernel {
  std::string name;
  std::function<void()> launch;
  bool library = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 != 0 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

template <class T>
T* upload(const T* h, std::size_t count) {
  T* d = nullptr;
  CK(cudaMalloc(&d, std::max<std::size_t>(count, 1) * sizeof(T)));
  if (count > 0) CK(cudaMemcpy(d, h, count * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

/// W = the next power of two ≥ n / VEC.
int lanes_for(std::int64_t n, int vec) {
  int w = 1;
  while (w * vec < n)
    w *= 2;
  return w;
}

/// Calls f.template operator()<W>() for W in {1, ..., 32}.
template <class F>
void with_w(int w, F&& f) {
  switch (w) {
    case 1:
      f.template operator()<1>();
      break;
    case 2:
      f.template operator()<2>();
      break;
    case 4:
      f.template operator()<4>();
      break;
    case 8:
      f.template operator()<8>();
      break;
    case 16:
      f.template operator()<16>();
      break;
    default:
      f.template operator()<32>();
      break;
  }
}

template <class T>
void member(const std::string& spec, const std::vector<std::int64_t>& widths, int rounds,
            void* flush, std::size_t flush_bytes) {
  using I = int;
  constexpr int kVec = sizeof(T) == 4 ? 4 : 2;
  const spx::GenSpec g = spx::parse_gen_spec(spec);
  const auto A = spx::generate<T, I>(g);
  const std::string name = spx::describe(g);
  const char* prec = sizeof(T) == 4 ? "f32" : "f64";
  const std::int64_t m = A.rows(), k = A.cols(), nnz = A.nnz();
  const I* rp = A.row_ptr().data();
  const I* ci = A.col_idx().data();
  const T* va = A.values().data();
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < m; ++i)
    longest = std::max<std::int64_t>(longest, rp[i + 1] - rp[i]);
  const double mean = static_cast<double>(nnz) / static_cast<double>(m);
  const bool irregular = static_cast<double>(longest) > 8.0 * mean + 64.0;
  std::printf("# %s %s: %lld rows, %lld nnz, mean %.2f, longest %lld%s\n", name.c_str(), prec,
              static_cast<long long>(m), static_cast<long long>(nnz), mean,
              static_cast<long long>(longest), irregular ? " (irregular)" : "");
  const spx::Csr<T, I> dA = A.to(spx::Space::Device);
  const I* dptr = dA.row_ptr().data();
  const I* dcol = dA.col_idx().data();
  const T* dval = dA.values().data();
  // Long-row lists for the split variants.
  const std::int64_t bounds[2] = {static_cast<std::int64_t>(8.0 * mean + 64.0),
                                  static_cast<std::int64_t>(2.0 * mean + 16.0)};
  I* dlist[2] = {nullptr, nullptr};
  std::int64_t listed[2] = {0, 0};
  if (irregular) {
    for (int b = 0; b < 2; ++b) {
      std::vector<I> list;
      for (std::int64_t i = 0; i < m; ++i)
        if (rp[i + 1] - rp[i] > bounds[b]) list.push_back(static_cast<I>(i));
      listed[b] = static_cast<std::int64_t>(list.size());
      dlist[b] = upload(list.data(), list.size());
    }
  }
  std::mt19937_64 rng(30);
  std::uniform_real_distribution<double> U(0.5, 1.5);
  for (const std::int64_t n : widths) {
    std::vector<T> hB(static_cast<std::size_t>(k * n));
    for (auto& b : hB)
      b = static_cast<T>(rng() & 1 ? U(rng) : -U(rng));
    std::vector<double> ref(static_cast<std::size_t>(m * n)), mag(ref.size());
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < m; ++i)
      for (I p = rp[i]; p < rp[i + 1]; ++p)
        for (std::int64_t c = 0; c < n; ++c) {
          const double t = static_cast<double>(va[p]) * static_cast<double>(hB[ci[p] * n + c]);
          ref[i * n + c] += t;
          mag[i * n + c] += std::abs(t);
        }
    const T* dB = upload(hB.data(), hB.size());
    T* dC = nullptr;
    CK(cudaMalloc(&dC, static_cast<std::size_t>(m * n) * sizeof(T)));
    const Strided<const T> sB{dB, n, 1};
    const Strided<T> sC{dC, n, 1};
    const spx::DenseView<const T> vB{dB, k, n, n, spx::Layout::RowMajor, spx::Space::Device};
    const spx::DenseView<T> vC{dC, m, n, n, spx::Layout::RowMajor, spx::Space::Device};
    std::vector<Kernel> ks;
    for (const spx::Algorithm a :
         {spx::Algorithm::RowSplit, spx::Algorithm::MergeBased, spx::Algorithm::RowPanel}) {
      ks.push_back({"lib-" + std::string(spx::to_string(a)),
                    [=, &dA] {
                      spx::SpmmOptions o;
                      o.algorithm = a;
                      spx::spmm(T{1}, dA, vB, T{0}, vC, o);
                    },
                    true});
    }
    const int w = lanes_for(n, kVec);
    if (w <= 32) {
      with_w(w, [&]<int W>() {
        ks.push_back({"groups-w" + std::to_string(W), [=] {
                        row_groups<W, kVec, false, T, I>
                            <<<spx::cuda::grid_size(m * W, kSpmmBlock, "k"), kSpmmBlock>>>(
                                m, n, dptr, dcol, dval, sB, T{1}, T{0}, sC, 0);
                      }});
        for (int b = 0; b < 2 && irregular; ++b) {
          const std::int64_t L = bounds[b], count = listed[b];
          const I* list = dlist[b];
          ks.push_back({"split-L" + std::to_string(L), [=] {
                          row_groups<W, kVec, true, T, I>
                              <<<spx::cuda::grid_size(m * W, kSpmmBlock, "k"), kSpmmBlock>>>(
                                  m, n, dptr, dcol, dval, sB, T{1}, T{0}, sC, L);
                          if (count > 0)
                            long_rows<W, kVec, T, I><<<static_cast<unsigned>(count), kSpmmBlock>>>(
                                list, n, dptr, dcol, dval, sB, T{1}, T{0}, sC);
                        }});
        }
      });
    }
    // Check: C poisoned with NaN before each kernel.
    std::vector<T> hC(ref.size());
    std::vector<bool> ok(ks.size(), true);
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-13;
    for (std::size_t q = 0; q < ks.size(); ++q) {
      CK(cudaMemset(dC, 0xFF, hC.size() * sizeof(T)));
      try {
        ks[q].launch();
      } catch (const std::exception& e) {
        std::printf("%-26s %s n=%-3lld %-22s refused: %s\n", name.c_str(), prec,
                    static_cast<long long>(n), ks[q].name.c_str(), e.what());
        ok[q] = false;
        continue;
      }
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(T), cudaMemcpyDeviceToHost));
      std::int64_t bad = 0;
      for (std::size_t e = 0; e < hC.size(); ++e)
        if (!(std::abs(static_cast<double>(hC[e]) - ref[e]) <= tol * mag[e] + 1e-300)) ++bad;
      if (bad > 0) {
        ok[q] = false;
        std::printf("%-26s %s n=%-3lld %-22s FAILED: %lld entries wrong\n", name.c_str(), prec,
                    static_cast<long long>(n), ks[q].name.c_str(), static_cast<long long>(bad));
      }
    }
    cudaEvent_t ea, eb;
    CK(cudaEventCreate(&ea));
    CK(cudaEventCreate(&eb));
    std::vector<std::vector<double>> t(ks.size());
    for (int r = 0; r < rounds; ++r)
      for (std::size_t q = 0; q < ks.size(); ++q) {
        if (!ok[q]) continue;
        CK(cudaMemsetAsync(flush, r + 1, flush_bytes));
        CK(cudaEventRecord(ea));
        ks[q].launch();
        CK(cudaEventRecord(eb));
        CK(cudaEventSynchronize(eb));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ea, eb));
        t[q].push_back(ms * 1e3);
      }
    double lib = std::numeric_limits<double>::infinity();
    for (std::size_t q = 0; q < ks.size(); ++q)
      if (ok[q] && ks[q].library) lib = std::min(lib, median(t[q]));
    for (std::size_t q = 0; q < ks.size(); ++q) {
      if (!ok[q]) continue;
      const double med = median(t[q]);
      std::printf("%-26s %s n=%-3lld %-22s median %9.2f us  min %9.2f  lib/this %.3f\n",
                  name.c_str(), prec, static_cast<long long>(n), ks[q].name.c_str(), med,
                  *std::min_element(t[q].begin(), t[q].end()), lib / med);
    }
    std::fflush(stdout);
    CK(cudaEventDestroy(ea));
    CK(cudaEventDestroy(eb));
    CK(cudaFree(const_cast<T*>(dB)));
    CK(cudaFree(dC));
  }
  for (I* l : dlist)
    if (l != nullptr) CK(cudaFree(l));
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  std::vector<std::string> specs;
  for (int i = 2; i < argc; ++i)
    specs.emplace_back(argv[i]);
  if (specs.empty())
    specs = {// regular, short rows (Auto's row groups at n ≤ 16)
             "stencil2d:n=2000,points=5", "banded:n=5700000,bands=8", "stencil3d:n=144,points=7",
             "random:n=2000000,degree=10",
             // rows of 18-27: beyond kRowGroupsMean
             "fem:n=750,block=2", "stencil3d:n=90,points=27", "fem:n=500,block=3",
             // smaller ones (inside the L2, flushed)
             "stencil3d:n=52,points=7", "fem:n=170,block=2",
             // irregular
             "mixed:n=100000", "rmat:scale=17,degree=8", "chunglu:n=125000,degree=8",
             "denserows:n=100000,degree=8,dense_rows=4", "mixed:n=2000000"};
  const std::vector<std::int64_t> widths = {8, 16, 32, 64};
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# device %s, %d SMs; %d rounds, L2 flushed before each launch\n", p.name,
              p.multiProcessorCount, rounds);
  constexpr std::size_t kFlush = std::size_t{256} << 20;
  void* flush = nullptr;
  CK(cudaMalloc(&flush, kFlush));
  for (const auto& s : specs) {
    member<float>(s, widths, rounds, flush, kFlush);
    member<double>(s, widths, rounds, flush, kFlush);
  }
  CK(cudaFree(flush));
}

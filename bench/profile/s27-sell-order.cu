// Session 27: does the order of the loads in SELL's predicated rounds decide
// why SELL-pack's fallback path (the same rounds over the same bytes) ran
// 1.28x faster than SELL on random-n250000-d64 in f32 and 0.84x in f64
// (sessions 22-26, bench/profile/s26-sell-ncu.sh)? One binary: the
// library's own SELL kernel (ellpack::rows_kernel with SellLayout),
// sell_pack_kernel copied verbatim, a shorter replica of its fallback path,
// and lane sums that order the loads differently, timed on synthetic SELL
// matrices (C = 32, no sorting, sorted columns in each row as CSR's) and on
// Matrix Market files, in both precisions; every kernel is checked against
// a host reference (NaN-filled y) before it is timed.
// Found (H200, bench/results/sell-order-NVIDIA-H200-20261129-s27-*.txt,
// docs/formats.md "SELL's and SELL-pack's load order"): the verbatim copy
// reproduces the gap on synthetic data (f32 65.6 against 88.2 us, f64 123.6
// against 103.0), the replica compiles to SELL's schedule and runs as SELL
// does; no order is faster everywhere (each loses 8-20% somewhere).
// Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++20 --expt-relaxed-constexpr -Iinclude -Isrc \
//       bench/profile/s27-sell-order.cu -o /tmp/sell-order
//   /tmp/sell-order [reps [FILE.mtx...]]   (one line per matrix, precision and kernel)
// Session 29 added sell-lib-v2 and sell-lib-v4 (not yet run).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cuda/ellpack_rows.cuh"
#include "profile_check.cuh"

namespace {

constexpr int C = 32;

/// Lane sums for one thread per row (V = 1); entry j at v[j*stride].
/// K = 1: columns, then the gathers of x as soon as each column is there,
///        then the values (the values are needed only at the multiply).
/// K = 2: values first, then columns, then x.
/// K = 3: rounds of eight.
/// K = 4: software pipelined: the next round's columns and values are
///        loaded before this round's gathers are used.
/// K = 5: rounds of two.
template <int K, class T>
__device__ __forceinline__ T lane_sum(int n, int stride, const T* __restrict__ v,
                                      const int* __restrict__ c, const T* __restrict__ x) {
  T sum = 0;
  if constexpr (K == 1 || K == 2) {
    for (int j = 0; j < n; j += 4) {
      int cu[4];
      T vu[4], xu[4];
      if constexpr (K == 2) {
#pragma unroll
        for (int u = 0; u < 4; ++u)
          vu[u] = j + u < n ? __ldcs(v + (j + u) * stride) : T{0};
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
        cu[u] = j + u < n ? __ldcs(c + (j + u) * stride) : 0;
#pragma unroll
      for (int u = 0; u < 4; ++u)
        xu[u] = j + u < n ? __ldg(x + cu[u]) : T{0};
      if constexpr (K == 1) {
#pragma unroll
        for (int u = 0; u < 4; ++u)
          vu[u] = j + u < n ? __ldcs(v + (j + u) * stride) : T{0};
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (j + u < n) sum += vu[u] * xu[u];
    }
  } else if constexpr (K == 3 || K == 5) {
    constexpr int U = K == 3 ? 8 : 2;
    for (int j = 0; j < n; j += U) {
      int cu[U];
      T vu[U], xu[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        cu[u] = j + u < n ? __ldcs(c + (j + u) * stride) : 0;
        vu[u] = j + u < n ? __ldcs(v + (j + u) * stride) : T{0};
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        xu[u] = j + u < n ? __ldg(x + cu[u]) : T{0};
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (j + u < n) sum += vu[u] * xu[u];
    }
  } else if constexpr (K == 4) {
    int cu[4];
    T vu[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      cu[u] = u < n ? __ldcs(c + u * stride) : 0;
      vu[u] = u < n ? __ldcs(v + u * stride) : T{0};
    }
    for (int j = 0; j < n; j += 4) {
      T xu[4];
#pragma unroll
      for (int u = 0; u < 4; ++u)
        xu[u] = j + u < n ? __ldg(x + cu[u]) : T{0};
      T vn[4];
      int cn[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const bool in = j + 4 + u < n;
        cn[u] = in ? __ldcs(c + (j + 4 + u) * stride) : 0;
        vn[u] = in ? __ldcs(v + (j + 4 + u) * stride) : T{0};
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (j + u < n) sum += vu[u] * xu[u];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        cu[u] = cn[u];
        vu[u] = vn[u];
      }
    }
  }
  return sum;
}

/// SELL, one thread per row, with lane sum K (rows_kernel's geometry).
template <int K, class T>
__global__ void __launch_bounds__(256)
    sell_variant(int rows, const int* __restrict__ slice_ptr, const int* __restrict__ row_len,
                 const int* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x,
                 T* __restrict__ y) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= rows) return;
  const int s = i / C, r = i % C;
  const int first = slice_ptr[s] + r;
  y[i] = lane_sum<K>(row_len[i], C, val + first, col + first, x);
}

/// sell_pack_kernel's fallback path (sell_pack.cu, V = 1), as it reads.
template <class T>
__global__ void __launch_bounds__(256)
    pack_replica(std::int64_t rows, spx::cuda::ellpack::RowDivisor Cd,
                 const int* __restrict__ slice_ptr, const int* __restrict__ pack_ptr,
                 const int* __restrict__ slice_base, const int* __restrict__ row_len,
                 const std::uint16_t* __restrict__ col16, const int* __restrict__ col32,
                 const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y) {
  using Off = int;
  const std::int64_t i = blockIdx.x * std::int64_t{256} + threadIdx.x;
  T sum = 0;
  if (i < rows) {
    const Off n = static_cast<Off>(row_len[i]);
    const std::int64_t s = Cd.div(i);
    const Off r = static_cast<Off>(i - s * Cd.d);
    const Off stride = static_cast<Off>(Cd.d);
    const Off first = static_cast<Off>(slice_ptr[s]);
    const Off packed_before = static_cast<Off>(pack_ptr[s]);
    const std::int64_t base = slice_base[s];
    const T* __restrict__ v = val + first + r;
    if (base >= 0)
      sum = spx::cuda::ellpack::predicated_lane_sum<1, Off>(n, 0, stride, v,
                                                            col16 + packed_before + r, x + base);
    else
      sum = spx::cuda::ellpack::predicated_lane_sum<1, Off>(n, 0, stride, v,
                                                            col32 + (first - packed_before) + r, x);
  }
  if (i < rows) y[i] = sum;
}

/// sell_pack_kernel (sell_pack.cu) verbatim for V = 1: perm, alpha, beta and
/// store_axpby included.
template <int V, class Off, class T, class I>
__global__ void __launch_bounds__(256)
    pack_verbatim(std::int64_t rows, spx::cuda::ellpack::RowDivisor C,
                  const I* __restrict__ slice_ptr, const I* __restrict__ pack_ptr,
                  const I* __restrict__ slice_base, const I* __restrict__ perm,
                  const I* __restrict__ row_len, const std::uint16_t* __restrict__ col16,
                  const I* __restrict__ col32, const T* __restrict__ val, const T* __restrict__ x,
                  T alpha, T beta, T* __restrict__ y) {
  constexpr int R = 256 / V;
  const int rr = static_cast<int>(threadIdx.x) % R;
  const int sub = static_cast<int>(threadIdx.x) / R;
  const std::int64_t i = blockIdx.x * std::int64_t{R} + rr;
  T sum = 0;
  if (i < rows) {
    const Off n = static_cast<Off>(row_len[i]);
    const std::int64_t s = C.div(i);
    const Off r = static_cast<Off>(i - s * C.d);
    const Off stride = static_cast<Off>(C.d);
    const Off first = static_cast<Off>(slice_ptr[s]);
    const Off packed_before = static_cast<Off>(pack_ptr[s]);
    const std::int64_t base = slice_base[s];
    const T* __restrict__ v = val + first + r;
    if (base >= 0)
      sum = spx::cuda::ellpack::predicated_lane_sum<V, Off>(n, sub, stride, v,
                                                            col16 + packed_before + r, x + base);
    else
      sum = spx::cuda::ellpack::predicated_lane_sum<V, Off>(n, sub, stride, v,
                                                            col32 + (first - packed_before) + r, x);
  }
  if (i < rows && sub == 0)
    spx::cuda::store_axpby(y, perm != nullptr ? static_cast<std::int64_t>(perm[i]) : i, alpha, sum,
                           beta);
}

struct Sell {
  std::string name;
  int rows = 0;
  std::vector<int> slice_ptr, row_len, col;
  std::vector<double> val;  // converted per precision
};

/// rows of `deg_lo..deg_hi` entries; columns uniform in [0, rows) when
/// `band` is 0, else within +-band of the row.
Sell make(const std::string& name, int rows, int deg_lo, int deg_hi, int band, std::mt19937_64& g) {
  Sell m;
  m.name = name;
  m.rows = rows;
  std::uniform_int_distribution<int> deg(deg_lo, deg_hi);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  m.row_len.resize(rows);
  for (auto& l : m.row_len)
    l = deg(g);
  const int slices = (rows + C - 1) / C;
  m.slice_ptr.assign(slices + 1, 0);
  for (int s = 0; s < slices; ++s) {
    int w = 0;
    for (int r = s * C; r < std::min(rows, (s + 1) * C); ++r)
      w = std::max(w, m.row_len[r]);
    m.slice_ptr[s + 1] = m.slice_ptr[s] + w * C;
  }
  m.col.assign(m.slice_ptr[slices], 0);
  m.val.assign(m.slice_ptr[slices], 0.0);
  std::vector<int> cols;
  for (int i = 0; i < rows; ++i) {
    const int s = i / C, r = i % C;
    cols.clear();
    for (int j = 0; j < m.row_len[i]; ++j) {
      cols.push_back(band == 0 ? std::uniform_int_distribution<int>(0, rows - 1)(g)
                               : std::clamp(i + std::uniform_int_distribution<int>(-band, band)(g),
                                            0, rows - 1));
    }
    std::sort(cols.begin(), cols.end());  // as CSR's rows: sorted columns
    for (int j = 0; j < m.row_len[i]; ++j) {
      m.col[m.slice_ptr[s] + j * C + r] = cols[j];
      m.val[m.slice_ptr[s] + j * C + r] = val(g);
    }
  }
  return m;
}

/// A square Matrix Market file (coordinate, general, 1-based; `spx gen`'s)
/// in SELL (C = 32, no sorting), each row's columns sorted, values as given.
Sell read_mtx(const char* path) {
  Sell m;
  m.name = path;
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot open %s\n", path);
    std::exit(1);
  }
  char line[512];
  long rows = 0, cols = 0, nnz = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (line[0] == '%') continue;
    std::sscanf(line, "%ld %ld %ld", &rows, &cols, &nnz);
    break;
  }
  std::vector<std::vector<std::pair<int, double>>> r(rows);
  for (long k = 0; k < nnz; ++k) {
    long i, j;
    double v;
    if (std::fscanf(f, "%ld %ld %lf", &i, &j, &v) != 3) {
      std::fprintf(stderr, "%s: short file\n", path);
      std::exit(1);
    }
    r[i - 1].push_back({static_cast<int>(j - 1), v});
  }
  std::fclose(f);
  m.rows = static_cast<int>(rows);
  m.row_len.resize(rows);
  for (long i = 0; i < rows; ++i) {
    std::sort(r[i].begin(), r[i].end());
    m.row_len[i] = static_cast<int>(r[i].size());
  }
  const int slices = (m.rows + C - 1) / C;
  m.slice_ptr.assign(slices + 1, 0);
  for (int s = 0; s < slices; ++s) {
    int w = 0;
    for (int i = s * C; i < std::min(m.rows, (s + 1) * C); ++i)
      w = std::max(w, m.row_len[i]);
    m.slice_ptr[s + 1] = m.slice_ptr[s] + w * C;
  }
  m.col.assign(m.slice_ptr[slices], 0);
  m.val.assign(m.slice_ptr[slices], 0.0);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.row_len[i]; ++j) {
      const std::size_t o = m.slice_ptr[i / C] + std::size_t(j) * C + i % C;
      m.col[o] = r[i][j].first;
      m.val[o] = r[i][j].second;
    }
  return m;
}

template <class T>
void run(const Sell& m, int reps, std::mt19937_64& g) {
  const int rows = m.rows;
  const std::size_t stored = m.col.size();
  std::vector<T> hv(stored), hx(rows);
  for (std::size_t k = 0; k < stored; ++k)
    hv[k] = static_cast<T>(m.val[k]);
  std::uniform_real_distribution<double> dx(-1.0, 1.0);
  for (auto& e : hx)
    e = static_cast<T>(dx(g));
  std::vector<double> ref(rows), mag(rows);
  for (int i = 0; i < rows; ++i) {
    const int s = i / C, r = i % C;
    double acc = 0, a = 0;
    for (int j = 0; j < m.row_len[i]; ++j) {
      const std::size_t o = m.slice_ptr[s] + std::size_t(j) * C + r;
      acc += double(hv[o]) * double(hx[m.col[o]]);
      a += std::fabs(double(hv[o]) * double(hx[m.col[o]]));
    }
    ref[i] = acc;
    mag[i] = a;
  }
  int *d_sp, *d_len, *d_col, *d_pack, *d_base;
  T *d_val, *d_x, *d_y;
  std::uint16_t* d_col16;
  const int slices = static_cast<int>(m.slice_ptr.size()) - 1;
  CK(cudaMalloc(&d_sp, m.slice_ptr.size() * 4));
  CK(cudaMalloc(&d_len, rows * 4));
  CK(cudaMalloc(&d_col, stored * 4));
  CK(cudaMalloc(&d_val, stored * sizeof(T)));
  CK(cudaMalloc(&d_x, rows * sizeof(T)));
  CK(cudaMalloc(&d_y, rows * sizeof(T)));
  CK(cudaMalloc(&d_pack, (slices + 1) * 4));
  CK(cudaMalloc(&d_base, slices * 4));
  CK(cudaMalloc(&d_col16, 2));
  CK(cudaMemcpy(d_sp, m.slice_ptr.data(), m.slice_ptr.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_len, m.row_len.data(), rows * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_col, m.col.data(), stored * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_val, hv.data(), stored * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_x, hx.data(), rows * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_pack, 0, (slices + 1) * 4));
  CK(cudaMemset(d_base, 0xff, slices * 4));  // -1: every slice a fallback

  const unsigned grid = (rows + 255) / 256;
  const spx::cuda::ellpack::SellLayout<int> layout{d_sp, nullptr,
                                                   spx::cuda::ellpack::RowDivisor(C)};
  const spx::cuda::ellpack::RowDivisor Cd(C);
  struct K {
    const char* name;
    int id;
  };
  // Session 29 added the library's own kernel with 2 and 4 lanes a row
  // (SELL-P's rows_kernel<V> over the same one-lane slices: lanes take
  // alternate entries, so a warp's load of entry j covers 32/V rows and V
  // of their entries), not yet run.
  const K kernels[] = {{"sell-lib", -1},   {"pack-replica", 0}, {"pack-verbatim", 6},
                       {"cols-x-vals", 1}, {"vals-cols-x", 2},  {"rounds-of-8", 3},
                       {"pipelined", 4},   {"rounds-of-2", 5},  {"sell-lib-v2", 7},
                       {"sell-lib-v4", 8}};
  auto launch = [&](int id) {
    switch (id) {
      case -1:
        spx::cuda::ellpack::rows_kernel<1, std::int32_t>
            <<<grid, 256>>>(rows, layout, d_len, d_col, d_val, d_x, T{1}, T{0}, d_y);
        break;
      case 0:
        pack_replica<T>
            <<<grid, 256>>>(rows, Cd, d_sp, d_pack, d_base, d_len, d_col16, d_col, d_val, d_x, d_y);
        break;
      case 6:
        pack_verbatim<1, int, T, int><<<grid, 256>>>(rows, Cd, d_sp, d_pack, d_base, nullptr, d_len,
                                                     d_col16, d_col, d_val, d_x, T{1}, T{0}, d_y);
        break;
      case 1:
        sell_variant<1, T><<<grid, 256>>>(rows, d_sp, d_len, d_col, d_val, d_x, d_y);
        break;
      case 2:
        sell_variant<2, T><<<grid, 256>>>(rows, d_sp, d_len, d_col, d_val, d_x, d_y);
        break;
      case 3:
        sell_variant<3, T><<<grid, 256>>>(rows, d_sp, d_len, d_col, d_val, d_x, d_y);
        break;
      case 4:
        sell_variant<4, T><<<grid, 256>>>(rows, d_sp, d_len, d_col, d_val, d_x, d_y);
        break;
      case 5:
        sell_variant<5, T><<<grid, 256>>>(rows, d_sp, d_len, d_col, d_val, d_x, d_y);
        break;
      case 7:
        spx::cuda::ellpack::rows_kernel<2, std::int32_t><<<(2 * rows + 255) / 256, 256>>>(
            rows, layout, d_len, d_col, d_val, d_x, T{1}, T{0}, d_y);
        break;
      case 8:
        spx::cuda::ellpack::rows_kernel<4, std::int32_t><<<(4 * rows + 255) / 256, 256>>>(
            rows, layout, d_len, d_col, d_val, d_x, T{1}, T{0}, d_y);
        break;
    }
  };
  const double eps = sizeof(T) == 4 ? 6e-8 : 1.1e-16;
  std::vector<T> hy(rows);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> best(std::size(kernels), 1e30);
  // Check each, then time in interleaved rounds so drift hits all alike.
  for (std::size_t k = 0; k < std::size(kernels); ++k) {
    std::vector<T> nan(rows, std::numeric_limits<T>::quiet_NaN());
    CK(cudaMemcpy(d_y, nan.data(), rows * sizeof(T), cudaMemcpyHostToDevice));
    launch(kernels[k].id);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hy.data(), d_y, rows * sizeof(T), cudaMemcpyDeviceToHost));
    for (int i = 0; i < rows; ++i) {
      const double tol = 4 * 70 * eps * mag[i] + 1e-300;
      if (!(std::fabs(double(hy[i]) - ref[i]) <= tol)) {
        std::printf("WRONG %s %s row %d: %g vs %g\n", m.name.c_str(), kernels[k].name, i,
                    double(hy[i]), ref[i]);
        std::exit(2);
      }
    }
  }
  std::vector<std::vector<float>> times(std::size(kernels));
  for (int round = 0; round < 7; ++round) {
    for (std::size_t k = 0; k < std::size(kernels); ++k) {
      for (int w = 0; w < 3; ++w)
        launch(kernels[k].id);
      CK(cudaEventRecord(a));
      for (int r = 0; r < reps; ++r)
        launch(kernels[k].id);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      times[k].push_back(ms * 1000.f / reps);
    }
  }
  const char* prec = sizeof(T) == 4 ? "f32" : "f64";
  std::vector<double> med(std::size(kernels));
  for (std::size_t k = 0; k < std::size(kernels); ++k) {
    auto t = times[k];
    std::sort(t.begin(), t.end());
    med[k] = t[t.size() / 2];
  }
  for (std::size_t k = 0; k < std::size(kernels); ++k) {
    std::printf("%-22s %s %-13s median %8.2f us  min %8.2f  lib/this %.3f\n", m.name.c_str(), prec,
                kernels[k].name, med[k], *std::min_element(times[k].begin(), times[k].end()),
                med[0] / med[k]);
  }
  std::fflush(stdout);
  cudaFree(d_sp);
  cudaFree(d_len);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_pack);
  cudaFree(d_base);
  cudaFree(d_col16);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  std::mt19937_64 g(std::random_device{}());
  for (int a = 2; a < argc; ++a) {  // Matrix Market files first
    const Sell m = read_mtx(argv[a]);
    run<float>(m, reps, g);
    run<double>(m, reps, g);
  }
  // With files, the first synthetic member only (the files' twin).
  std::vector<Sell> mats;
  mats.push_back(make("random-n250000-d63..65", 250000, 63, 65, 0, g));
  if (argc <= 2) {
    mats.push_back(make("random-n250000-d56..72", 250000, 56, 72, 0, g));
    mats.push_back(make("random-n1000000-d8..24", 1000000, 8, 24, 0, g));
    mats.push_back(make("band-n4000000-d7", 4000000, 7, 7, 50, g));
    mats.push_back(make("local-n7000000-d2..4", 7000000, 2, 4, 1000, g));
  }
  for (const auto& m : mats) {
    run<float>(m, reps, g);
    run<double>(m, reps, g);
  }
  return 0;
}

// Helpers shared by the GPU test files (test_cuda*.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common.hpp"
#include "reference.hpp"
#include "spx/ops.hpp"
#include "spx/registry.hpp"

namespace spx::test {

/// SPX_TEST_SMALL=1 shrinks the larger matrices (compute-sanitizer runs).
inline bool small_tests() {
  const char* v = std::getenv("SPX_TEST_SMALL");
  return v != nullptr && std::string(v) == "1";
}

/// A host CSR with the given row lengths (each at most cols): each row a run
/// of consecutive columns (mod cols) from a random start, sorted; random values.
template <Value T, Index I>
Csr<T, I> csr_with_lengths(std::int64_t cols, const std::vector<std::int64_t>& lengths,
                           std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<I> ptr{0}, col;
  for (const std::int64_t len : lengths) {
    const auto start = static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(cols));
    std::vector<I> row;
    for (std::int64_t j = 0; j < len; ++j)
      row.push_back(static_cast<I>((start + j) % cols));
    std::sort(row.begin(), row.end());
    col.insert(col.end(), row.begin(), row.end());
    ptr.push_back(static_cast<I>(col.size()));
  }
  const auto val = random_values<T>(static_cast<std::int64_t>(col.size()), seed + 1);
  return Csr<T, I>(static_cast<I>(lengths.size()), static_cast<I>(cols), Array<I>(ptr),
                   Array<I>(col), Array<T>(val));
}

/// The registered CUDA SpMV kernels of a format.
template <Value T, Index I>
std::vector<const SpmvKernel<T, I>*> cuda_kernels(Format f, bool with_baselines = true) {
  std::vector<const SpmvKernel<T, I>*> out;
  for (const auto& k : Registry<T, I>::instance().spmv_kernels())
    if (k.info.backend == Backend::Cuda && k.info.format == f &&
        (with_baselines || !k.info.baseline))
      out.push_back(&k);
  return out;
}

/// y = alpha*A*x + beta*y0 on the device with algorithm `a` (A a device
/// matrix of any format, or a Matrix holding one); host result.
template <class M, Value T>
std::vector<T> device_spmv(const M& dA, Algorithm a, T alpha, const std::vector<T>& x, T beta,
                           const std::vector<T>& y0, RunInfo* info = nullptr) {
  const Array<T> dx = Array<T>(x).to(Space::Device);
  Array<T> dy = Array<T>(y0).to(Space::Device);
  SpmvOptions opts;
  opts.algorithm = a;
  const RunInfo ran = spmv(alpha, dA, dx, beta, dy, opts);
  if (info != nullptr) *info = ran;
  return dy.to_vector();
}

/// The run of matches_over_grid (reference.hpp) for the device matrix dM and
/// algorithm a: device_spmv with the grid's scalars and initial y.
template <class M, Value T>
auto on_device(const M& dM, Algorithm a, const std::vector<T>& x) {
  return [&dM, a, &x](T alpha, T beta, const std::vector<T>& y_init) {
    Ran<T> r;
    r.y = device_spmv(dM, a, alpha, x, beta, y_init, &r.info);
    return r;
  };
}

template <Value T>
std::vector<T> nan_vector(std::int64_t n) {
  return std::vector<T>(static_cast<std::size_t>(n), std::numeric_limits<T>::quiet_NaN());
}

template <Value T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace spx::test

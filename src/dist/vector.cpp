// Distributed vectors: local operations (OpenMP on the host, the layer's
// CUDA kernels on the device) and reductions through MPI_Allreduce.
#include "spx/dist/vector.hpp"

#include <cmath>

#include <fmt/format.h>

#include "dist/device.hpp"
#include "dist/mpi_util.hpp"

namespace spx::dist {

namespace {

template <Value T>
void check_pair(const char* op, const DistVector<T>& x, const DistVector<T>& y) {
  if (x.local_size() != y.local_size() || x.global_size() != y.global_size())
    throw DimensionMismatch(fmt::format("{}: x has {} local entries of {}, y {} of {}", op,
                                        x.local_size(), x.global_size(), y.local_size(),
                                        y.global_size()));
  if (x.space() != y.space())
    throw InvalidInput(
        fmt::format("{}: x in {} memory, y in {}", op, to_string(x.space()), to_string(y.space())));
}

}  // namespace

template <Value T>
DistVector<T>::DistVector(MPI_Comm comm, GlobalIndex global_size, std::int64_t local_size,
                          Space space)
    : comm_(comm), global_(global_size) {
  const auto [me, P] = detail::comm_info(comm);
  std::int64_t mine[2] = {global_size, local_size}, sum[2] = {0, 0}, lo[2] = {0, 0};
  detail::check_mpi(MPI_Allreduce(mine, sum, 2, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  detail::check_mpi(MPI_Allreduce(mine, lo, 2, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce");
  if (sum[0] != global_size * P)
    throw InvalidInput(
        fmt::format("DistVector: ranks disagree on the global size (rank {} "
                    "passed {})",
                    me, global_size));
  if (sum[1] != global_size || lo[1] < 0)
    throw InvalidInput(fmt::format("DistVector: the local sizes sum to {}, the global size is {}",
                                   sum[1], global_size));
  local_ = Array<T>(static_cast<std::size_t>(local_size), space);
}

template <Value T>
void fill(DistVector<T>& x, T value) {
  T* p = x.local().data();
  const std::int64_t n = x.local_size();
  if (x.space() == Space::Device) return detail::device_fill(p, n, value);
#pragma omp parallel for schedule(static) if (n > 50000)
  for (std::int64_t i = 0; i < n; ++i)
    p[i] = value;
}

template <Value T>
void copy(const DistVector<T>& x, DistVector<T>& y) {
  check_pair("copy", x, y);
  if (x.local_size() > 0)
    spx::detail::copy_bytes(y.local().data(), y.space(), x.local().data(), x.space(),
                            x.local().bytes());
}

template <Value T>
void axpy(T alpha, const DistVector<T>& x, DistVector<T>& y) {
  check_pair("axpy", x, y);
  const T* a = x.local().data();
  T* b = y.local().data();
  const std::int64_t n = x.local_size();
  if (x.space() == Space::Device) return detail::device_axpy(n, alpha, a, b);
#pragma omp parallel for schedule(static) if (n > 50000)
  for (std::int64_t i = 0; i < n; ++i)
    b[i] += alpha * a[i];
}

template <Value T>
void xpby(const DistVector<T>& x, T beta, DistVector<T>& y) {
  check_pair("xpby", x, y);
  const T* a = x.local().data();
  T* b = y.local().data();
  const std::int64_t n = x.local_size();
  if (x.space() == Space::Device) return detail::device_xpby(n, a, beta, b);
#pragma omp parallel for schedule(static) if (n > 50000)
  for (std::int64_t i = 0; i < n; ++i)
    b[i] = a[i] + beta * b[i];
}

template <Value T>
T dot(const DistVector<T>& x, const DistVector<T>& y) {
  check_pair("dot", x, y);
  const T* a = x.local().data();
  const T* b = y.local().data();
  const std::int64_t n = x.local_size();
  double local = 0;
  if (x.space() == Space::Device) {
    local = detail::device_dot(n, a, b);
  } else {
#pragma omp parallel for schedule(static) reduction(+ : local) if (n > 50000)
    for (std::int64_t i = 0; i < n; ++i)
      local += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  }
  double global = 0;
  detail::check_mpi(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, x.comm()),
                    "MPI_Allreduce");
  return static_cast<T>(global);
}

template <Value T>
T norm2(const DistVector<T>& x) {
  return std::sqrt(dot(x, x));
}

#define SPX_INST(T)                                            \
  template class DistVector<T>;                                \
  template void fill(DistVector<T>&, T);                       \
  template void copy(const DistVector<T>&, DistVector<T>&);    \
  template void axpy(T, const DistVector<T>&, DistVector<T>&); \
  template void xpby(const DistVector<T>&, T, DistVector<T>&); \
  template T dot(const DistVector<T>&, const DistVector<T>&);  \
  template T norm2(const DistVector<T>&);
SPX_INST(float)
SPX_INST(double)
#undef SPX_INST

}  // namespace spx::dist

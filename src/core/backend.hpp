// What a backend gives the core. A backend is a library of its own (src/cpu,
// src/cuda; a HIP backend would be src/hip) that describes itself with one
// BackendModule: its memory (allocate, free, copy) and the function that adds
// its kernels, Auto rules, conversions and vector operations to the registry
// of each (value, index) pair. The library target lists the modules it is
// built with in a generated file (CMakeLists.txt: SPX_BACKENDS); the core
// reaches backends only through these tables and never includes their
// headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "spx/core/types.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

template <Value T, Index I>
using Registrar = void (*)(Registry<T, I>&);

struct BackendModule {
  Backend backend = Backend::Cpu;
  /// The memory its kernels read and write.
  Space space = Space::Host;
  /// True when the backend can run here (a device is present).
  bool (*available)() noexcept = nullptr;
  /// Memory of `space`. `allocate` throws OutOfMemory with the bytes asked
  /// for; `copy` moves bytes between this space and the host or within this
  /// space, synchronously. Host backends leave these null: host memory is the
  /// core's.
  void* (*allocate)(std::size_t bytes) = nullptr;
  void (*deallocate)(void* p) noexcept = nullptr;
  void (*copy)(void* dst, const void* src, std::size_t bytes) = nullptr;
  /// Copy bandwidth of the backend's memory in bytes per second (read +
  /// written), measured when called (CPU: a STREAM-like OpenMP copy; CUDA: a
  /// device-to-device copy); the advisor calls it once per process.
  double (*copy_bandwidth)() = nullptr;
  /// Waits until every product enqueued on the backend has finished (null:
  /// products are synchronous). The advisor's tuning times through it.
  void (*synchronize)() = nullptr;
  /// The algorithm the backend's CSR SpMV Auto rule picks for a matrix of
  /// these counts (rows, nonzeros, longest row, empty rows, bytes of its CSR
  /// arrays, bytes of one value), or null when the rule needs the matrix itself. The
  /// advisor offers only that CSR kernel: Auto's rule knows the latency-bound
  /// cases (few rows, long dependent chains) that the bandwidth model does not.
  Algorithm (*csr_spmv_auto)(std::int64_t rows, std::int64_t nnz, std::int64_t max_len,
                             std::int64_t empty_rows, std::int64_t bytes,
                             int value_bytes) = nullptr;
  /// Why the backend's BCSR SpMV kernel `algorithm` cannot run on blocks of
  /// b x b ("" when it can), or null when every block size runs. The advisor
  /// does not offer a kernel that refuses the block size it converts with.
  std::string (*bcsr_refusal)(Algorithm algorithm, int b) = nullptr;
  /// The algorithm whose kernel the SpMV `algorithm` of `format` runs once
  /// converted with `options`, or null when each runs its own: tuning
  /// measures a kernel once (tuning_candidates).
  Algorithm (*spmv_runs_as)(Format format, Algorithm algorithm,
                            const ConvertOptions& options) = nullptr;
  /// Adds the backend's kernels, Auto rules, conversions and vector
  /// operations to a registry.
  Registrar<float, std::int32_t> register_f32_i32 = nullptr;
  Registrar<float, std::int64_t> register_f32_i64 = nullptr;
  Registrar<double, std::int32_t> register_f64_i32 = nullptr;
  Registrar<double, std::int64_t> register_f64_i64 = nullptr;

  template <Value T, Index I>
  Registrar<T, I> registrar() const noexcept {
    if constexpr (std::is_same_v<T, float>) {
      if constexpr (std::is_same_v<I, std::int32_t>)
        return register_f32_i32;
      else
        return register_f32_i64;
    } else {
      if constexpr (std::is_same_v<I, std::int32_t>)
        return register_f64_i32;
      else
        return register_f64_i64;
    }
  }
};

/// The modules this library was built with, in registration order (defined in
/// the generated backends.cpp of the library target, not in the core).
std::span<const BackendModule* const> builtin_backends() noexcept;

/// The module of `b`, or nullptr when this build does not have it.
const BackendModule* find_backend(Backend b) noexcept;
/// The module that owns memory of `space` (not Host). Throws Unsupported when
/// no backend of this build has it.
const BackendModule& device_backend(std::string_view what);

}  // namespace spx::detail

// The CUDA side of the benchmark's machine layer (device_cuda.cpp), compiled
// only when the CUDA backend is built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bench.hpp"

namespace spx::bench::detail {

#if SPX_HAVE_CUDA
DeviceInfo cuda_device_info();
double cuda_copy_bandwidth(const DeviceInfo& device);
std::unique_ptr<Timer> make_cuda_timer(const DeviceInfo& device);

/// Fills `bytes` of device memory with 0xFF bytes, a NaN in every lane of a
/// float or double array (sign set, exponent and mantissa all ones), and
/// waits: the poison an output gets before a checked product, written on the
/// device instead of copied from the host (SpMM's C at n = 128 on the
/// largest members is gigabytes).
void cuda_fill_nan(void* data, std::size_t bytes);

/// The entries C(r, cols[c]) of a device matrix of `rows` rows with leading
/// dimension `ld` (row-major: row r at r·ld; column-major: column j at j·ld),
/// entries of `elem` bytes, into out[(r·cols.size() + c)·elem], copied back
/// through a pinned staging buffer of at most `stage_bytes` (at least one
/// row), in chunks, so that no host array of C's size is allocated. Row-major,
/// the rows cross the bus whole (up to the last checked column), all of C
/// when the columns are spread; column-major, only the checked columns.
/// Waits for the copies.
void cuda_read_columns(void* out, const void* C, std::size_t elem, std::int64_t rows,
                       std::int64_t ld, bool row_major, std::span<const std::int64_t> cols,
                       std::size_t stage_bytes = std::size_t{32} << 20);
#endif

/// Median of a non-empty sample.
double median(std::vector<double> v);

}  // namespace spx::bench::detail

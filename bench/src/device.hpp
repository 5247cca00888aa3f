// The CUDA side of the benchmark's machine layer (device_cuda.cpp), compiled
// only when the CUDA backend is built.
#pragma once

#include <memory>

#include "bench.hpp"

namespace spx::bench::detail {

#if SPX_HAVE_CUDA
DeviceInfo cuda_device_info();
double cuda_copy_bandwidth(const DeviceInfo& device);
std::unique_ptr<Timer> make_cuda_timer(const DeviceInfo& device);
#endif

/// Median of a non-empty sample.
double median(std::vector<double> v);

}  // namespace spx::bench::detail

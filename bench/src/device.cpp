// The machine: what it is, its copy bandwidth, and how products are timed on
// the CPU. The CUDA versions live in device_cuda.cpp.
#include <omp.h>
#include <unistd.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "device.hpp"
#include "spx/core/array.hpp"
#include "spx/core/error.hpp"

namespace spx::bench {

namespace detail {

double median(std::vector<double> v) {
  if (v.empty()) throw InternalError("median of an empty sample");
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace detail

namespace {

using Clock = std::chrono::steady_clock;

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        return name;
      }
    }
  }
  return "unknown CPU";
}

/// Size of the last-level cache: sysfs (what this CPU's cores share), else
/// sysconf (which on virtual machines may report the whole host's L3), else
/// 32 MiB.
std::int64_t last_level_cache() {
  for (const char* index : {"index3", "index2"}) {
    std::ifstream in(fmt::format("/sys/devices/system/cpu/cpu0/cache/{}/size", index));
    std::string s;
    if (in >> s && !s.empty()) {
      std::int64_t v = std::atoll(s.c_str());
      if (s.back() == 'K') v <<= 10;
      if (s.back() == 'M') v <<= 20;
      if (v > 0) return v;
    }
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (const long v = sysconf(_SC_LEVEL3_CACHE_SIZE); v > 0) return v;
#endif
  return std::int64_t{32} << 20;
}

DeviceInfo cpu_device_info() {
  DeviceInfo d;
  d.backend = Backend::Cpu;
  d.name = cpu_model();
  d.multiprocessors = omp_get_max_threads();
  d.memory_bytes = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  d.cache_bytes = last_level_cache();
  d.eigen_version =
      fmt::format("{}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
  return d;
}

/// STREAM "copy" (b[i] = a[i]) with OpenMP over arrays of max(4 × LLC,
/// 64 MiB) each (at most 1 GiB), first touched by the threads that copy them;
/// median of 5 after one warm-up.
double cpu_copy_bandwidth(const DeviceInfo& d) {
  const std::size_t bytes = std::min<std::size_t>(
      std::size_t{1} << 30, std::max<std::size_t>(4 * d.cache_bytes, std::size_t{64} << 20));
  const std::int64_t n = static_cast<std::int64_t>(bytes / sizeof(double));
  Array<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  double* pa = a.data();
  double* pb = b.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    pa[i] = 1.0 + static_cast<double>(i & 7);
    pb[i] = 0.0;
  }
  std::vector<double> times;
  for (int rep = 0; rep < 6; ++rep) {
    const auto t0 = Clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      pb[i] = pa[i];
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (rep > 0) times.push_back(t);  // the first run is the warm-up
    std::swap(pa, pb);
  }
  return 2.0 * static_cast<double>(bytes) / detail::median(times);
}

class CpuTimer final : public Timer {
 public:
  std::vector<double> time(const std::function<void()>& f, int warmup, int reps,
                           bool /*flush_cache*/) override {
    for (int i = 0; i < warmup; ++i)
      f();
    std::vector<double> t;
    t.reserve(static_cast<std::size_t>(reps));
    for (int i = 0; i < reps; ++i) {
      const auto t0 = Clock::now();
      f();
      t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return t;
  }
  void synchronize() override {}
  CUstream_st* stream() const override { return nullptr; }
};

}  // namespace

DeviceInfo query_device(Backend backend) {
  if (backend == Backend::Cpu) return cpu_device_info();
#if SPX_HAVE_CUDA
  if (!cuda_available()) throw Unsupported("--backend cuda: no usable CUDA device");
  DeviceInfo d = detail::cuda_device_info();
  d.eigen_version =
      fmt::format("{}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
  return d;
#else
  throw Unsupported("--backend cuda: SpX was built without the CUDA backend");
#endif
}

double measure_copy_bandwidth(const DeviceInfo& device) {
  if (device.backend == Backend::Cpu) return cpu_copy_bandwidth(device);
#if SPX_HAVE_CUDA
  return detail::cuda_copy_bandwidth(device);
#else
  throw Unsupported("SpX was built without the CUDA backend");
#endif
}

std::unique_ptr<Timer> make_timer(const DeviceInfo& device) {
  if (device.backend == Backend::Cpu) return std::make_unique<CpuTimer>();
#if SPX_HAVE_CUDA
  return detail::make_cuda_timer(device);
#else
  throw Unsupported("SpX was built without the CUDA backend");
#endif
}

}  // namespace spx::bench

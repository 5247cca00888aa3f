// The GPU as the benchmark sees it: properties and versions, copy bandwidth,
// and event timing on one stream with an optional L2 flush. Host code calling
// the CUDA runtime API; compiled only when the CUDA backend is built.
#include "device.hpp"

#if SPX_HAVE_CUDA

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cuda/check.hpp"
#include "cuda/launch.hpp"

namespace spx::bench::detail {

namespace {

using spx::cuda::check;

std::string cuda_version_string(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

/// The NVIDIA kernel-module version from /proc ("" when it cannot be read).
std::string nvidia_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  const std::string key = "Kernel Module";
  auto pos = line.find(key);
  if (pos == std::string::npos) return "";
  // "... Kernel Module [for x86_64]  580.159.04  Release Build ...": the first
  // token after the key that is made of digits and dots.
  std::istringstream rest(line.substr(pos + key.size()));
  for (std::string token; rest >> token;)
    if (!token.empty() && token.find_first_not_of("0123456789.") == std::string::npos) return token;
  return "";
}

class CudaTimer final : public Timer {
 public:
  explicit CudaTimer(std::int64_t l2_bytes)
      : flush_bytes_(static_cast<std::size_t>(2 * std::max<std::int64_t>(l2_bytes, 1 << 20))) {
    // A blocking stream: it waits for the synchronous copies SpX makes on the
    // legacy default stream (e.g. the NaN poison written into y before a check).
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    check(cudaMalloc(&flush_, flush_bytes_), "cudaMalloc (L2 flush buffer)");
  }
  CudaTimer(const CudaTimer&) = delete;
  CudaTimer& operator=(const CudaTimer&) = delete;
  ~CudaTimer() override {
    for (cudaEvent_t e : events_)
      cudaEventDestroy(e);
    cudaFree(flush_);
    cudaStreamDestroy(stream_);
  }

  /// Enqueues every repetition between its own pair of events, the flush (a
  /// memset of twice the L2) before each start event, and waits once at the
  /// end, so that the host's enqueueing overlaps the device's work.
  std::vector<double> time(const std::function<void()>& f, int warmup, int reps,
                           bool flush_cache) override {
    for (int i = 0; i < warmup; ++i)
      f();
    ensure_events(2 * static_cast<std::size_t>(reps));
    for (int i = 0; i < reps; ++i) {
      if (flush_cache)
        check(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_, stream_), "cudaMemsetAsync (flush)");
      check(cudaEventRecord(events_[2 * i], stream_), "cudaEventRecord");
      f();
      check(cudaEventRecord(events_[2 * i + 1], stream_), "cudaEventRecord");
    }
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (after the timed products)");
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]), "cudaEventElapsedTime");
      t.push_back(static_cast<double>(ms) * 1e-3);
    }
    return t;
  }
  /// The whole device: products a caller enqueues on the default stream, and
  /// pending uploads, too.
  void synchronize() override { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
  CUstream_st* stream() const override { return stream_; }

 private:
  void ensure_events(std::size_t n) {
    while (events_.size() < n) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "cudaEventCreate");
      events_.push_back(e);
    }
  }

  cudaStream_t stream_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_;
  std::vector<cudaEvent_t> events_;
};

}  // namespace

DeviceInfo cuda_device_info() {
  DeviceInfo d;
  d.backend = Backend::Cuda;
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  d.name = p.name;
  d.compute_capability = fmt::format("{}.{}", p.major, p.minor);
  d.multiprocessors = p.multiProcessorCount;
  d.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  d.cache_bytes = p.l2CacheSize;
  d.peak_memory_gbs = spx::cuda::peak_memory_gbs();  // what CSR's Auto rule reads (0: not reported)
  int v = 0;
  check(cudaDriverGetVersion(&v), "cudaDriverGetVersion");
  d.cuda_driver = cuda_version_string(v);
  check(cudaRuntimeGetVersion(&v), "cudaRuntimeGetVersion");
  d.cuda_runtime = cuda_version_string(v);
  d.driver_version = nvidia_driver_version();
  int major = 0, minor = 0, patch = 0;
  if (cusparseGetProperty(MAJOR_VERSION, &major) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(MINOR_VERSION, &minor) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(PATCH_LEVEL, &patch) == CUSPARSE_STATUS_SUCCESS)
    d.cusparse_version = fmt::format("{}.{}.{}", major, minor, patch);
  return d;
}

/// Device-to-device cudaMemcpyAsync of 1 GiB (less when memory is short),
/// median of 10 after 2 warm-ups; read + written bytes per second.
double cuda_copy_bandwidth(const DeviceInfo&) {
  std::size_t free_bytes = 0, total = 0;
  check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  const std::size_t bytes =
      std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4) & ~std::size_t{255};
  void* src = nullptr;
  void* dst = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc (copy bandwidth)");
  check(cudaMalloc(&dst, bytes), "cudaMalloc (copy bandwidth)");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  double seconds = 0;
  {
    CudaTimer timer(0);
    const auto t = timer.time(
        [&] {
          check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, timer.stream()),
                "cudaMemcpyAsync");
        },
        2, 10, false);
    seconds = median(t);
  }
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * static_cast<double>(bytes) / seconds;
}

std::unique_ptr<Timer> make_cuda_timer(const DeviceInfo& device) {
  return std::make_unique<CudaTimer>(device.cache_bytes);
}

void cuda_fill_nan(void* data, std::size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemset(data, 0xFF, bytes), "cudaMemset (NaN poison)");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (NaN poison)");
}

void cuda_read_columns(void* out, const void* C, std::size_t elem, std::int64_t rows,
                       std::int64_t ld, bool row_major, std::span<const std::int64_t> cols,
                       std::size_t stage_bytes) {
  if (rows <= 0 || cols.empty()) return;
  const auto nc = static_cast<std::int64_t>(cols.size());
  // Row-major: whole rows [r0, r0 + count) are contiguous. Column-major: one
  // column's rows [r0, r0 + count) are.
  const std::size_t row_bytes = row_major ? static_cast<std::size_t>(ld) * elem : elem;
  // No larger than what one pass needs (a small C takes a small buffer), and
  // at least one row.
  stage_bytes =
      std::max(row_bytes, std::min(stage_bytes, static_cast<std::size_t>(rows) * row_bytes));
  void* stage = nullptr;
  check(cudaMallocHost(&stage, stage_bytes), "cudaMallocHost (checked columns)");
  const auto* src = static_cast<const unsigned char*>(C);
  auto* dst = static_cast<unsigned char*>(out);
  const auto* staged = static_cast<const unsigned char*>(stage);
  const auto chunk = static_cast<std::int64_t>(stage_bytes / row_bytes);
  const std::size_t span =
      static_cast<std::size_t>(*std::max_element(cols.begin(), cols.end()) + 1) * elem;
  try {
    if (row_major) {
      for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
        const std::int64_t count = std::min(chunk, rows - r0);
        // The chunk's rows up to the last checked column of its last row
        // (C need not hold a whole last row of ld entries).
        check(cudaMemcpy(stage, src + static_cast<std::size_t>(r0) * row_bytes,
                         static_cast<std::size_t>(count - 1) * row_bytes + span,
                         cudaMemcpyDeviceToHost),
              "cudaMemcpy (checked columns)");
        for (std::int64_t r = 0; r < count; ++r)
          for (std::int64_t c = 0; c < nc; ++c)
            std::memcpy(dst + static_cast<std::size_t>((r0 + r) * nc + c) * elem,
                        staged + static_cast<std::size_t>(r) * row_bytes +
                            static_cast<std::size_t>(cols[static_cast<std::size_t>(c)]) * elem,
                        elem);
      }
    } else {
      for (std::int64_t c = 0; c < nc; ++c) {
        const unsigned char* column =
            src + static_cast<std::size_t>(cols[static_cast<std::size_t>(c)] * ld) * elem;
        for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
          const std::int64_t count = std::min(chunk, rows - r0);
          check(cudaMemcpy(stage, column + static_cast<std::size_t>(r0) * elem,
                           static_cast<std::size_t>(count) * elem, cudaMemcpyDeviceToHost),
                "cudaMemcpy (checked columns)");
          for (std::int64_t r = 0; r < count; ++r)
            std::memcpy(dst + static_cast<std::size_t>((r0 + r) * nc + c) * elem,
                        staged + static_cast<std::size_t>(r) * elem, elem);
        }
      }
    }
  } catch (...) {
    cudaFreeHost(stage);
    throw;
  }
  check(cudaFreeHost(stage), "cudaFreeHost (checked columns)");
}

}  // namespace spx::bench::detail

#endif  // SPX_HAVE_CUDA

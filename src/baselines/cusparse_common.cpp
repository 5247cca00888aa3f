// The status check and the per-thread handles of the cuSPARSE baselines
// (cusparse_common.hpp).
#include "baselines/cusparse_common.hpp"

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cuda/check.hpp"
#include "spx/core/error.hpp"

namespace spx::baselines {

void check_cusparse(cusparseStatus_t status, std::string_view call, std::string_view what) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  const std::string where =
      fmt::format("{}{}{}{}", call, what.empty() ? "" : " (", what, what.empty() ? "" : ")");
  if (status == CUSPARSE_STATUS_NOT_SUPPORTED)
    throw Unsupported(fmt::format("{}: cuSPARSE does not support this case ({})", where,
                                  cusparseGetErrorString(status)));
  throw CudaError(fmt::format("{} failed: {} (cuSPARSE status {})", where,
                              cusparseGetErrorString(status), static_cast<int>(status)));
}

cusparseHandle_t cusparse_handle(cudaStream_t stream) {
  struct Handles {
    std::vector<cusparseHandle_t> by_device;
    Handles() = default;
    Handles(const Handles&) = delete;
    Handles& operator=(const Handles&) = delete;
    ~Handles() {
      for (cusparseHandle_t h : by_device)
        if (h != nullptr) cusparseDestroy(h);
    }
  };
  thread_local Handles handles;
  int device = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  const auto d = static_cast<std::size_t>(device);
  if (handles.by_device.size() <= d) handles.by_device.resize(d + 1, nullptr);
  cusparseHandle_t& h = handles.by_device[d];
  if (h == nullptr) check_cusparse(cusparseCreate(&h), "cusparseCreate");
  check_cusparse(cusparseSetStream(h, stream), "cusparseSetStream");
  return h;
}

}  // namespace spx::baselines

// The GPU-to-GPU halo exchange through NCCL (one rank per GPU): the
// communicator is made from the MPI communicator (rank 0's unique id sent
// with MPI_Bcast); each exchange is one ncclGroupStart/End of ncclSend and
// ncclRecv per neighbour, on a stream of its own (of the highest priority)
// that waits for the pack and that the product's stream waits for before the
// nonlocal block.
#include <cuda_runtime.h>

#include <string>

#include "cuda/check.hpp"
#include "dist/device.hpp"
#include "dist/mpi_util.hpp"

#if SPX_HAVE_NCCL
#include <nccl.h>
#endif

namespace spx::dist::detail {

#if SPX_HAVE_NCCL

namespace {

void check_nccl(ncclResult_t rc, const char* call) {
  if (rc != ncclSuccess) throw CudaError(std::string(call) + " failed: " + ncclGetErrorString(rc));
}

class NcclExchange final : public DeviceExchange {
 public:
  explicit NcclExchange(MPI_Comm comm) {
    const CommInfo c = comm_info(comm);
    ncclUniqueId id;
    if (c.rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm), "MPI_Bcast");
    check_nccl(ncclCommInitRank(&comm_, c.size, id, c.rank), "ncclCommInitRank");
    try {
      // The highest priority: the exchange's kernels take SMs as soon as
      // blocks of the local product (enqueued before them) retire, rather
      // than after the whole product's grid was scheduled.
      int least = 0, greatest = 0;
      cuda::check(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                  "cudaDeviceGetStreamPriorityRange");
      cuda::check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest),
                  "cudaStreamCreateWithPriority");
      cuda::check(cudaEventCreateWithFlags(&packed_, cudaEventDisableTiming), "cudaEventCreate");
      cuda::check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
    } catch (...) {
      release();
      throw;
    }
  }
  ~NcclExchange() override { release(); }

  void packed(CUstream_st* stream) override {
    cuda::check(cudaEventRecord(packed_, stream), "cudaEventRecord");
  }

  void start(const void* send, void* recv, const HaloPlan& plan, std::int64_t n,
             bool f64) override {
    const ncclDataType_t type = f64 ? ncclDouble : ncclFloat;
    const std::size_t size = f64 ? sizeof(double) : sizeof(float);
    // The exchange starts once the pack (marked by packed()) is done.
    cuda::check(cudaStreamWaitEvent(stream_, packed_, 0), "cudaStreamWaitEvent");
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t k = 0; k < plan.send_ranks->size(); ++k) {
      const std::int64_t at = (*plan.send_offsets)[k] * n;
      const std::int64_t count = ((*plan.send_offsets)[k + 1] - (*plan.send_offsets)[k]) * n;
      check_nccl(
          ncclSend(static_cast<const char*>(send) + static_cast<std::size_t>(at) * size,
                   static_cast<std::size_t>(count), type, (*plan.send_ranks)[k], comm_, stream_),
          "ncclSend");
    }
    for (std::size_t k = 0; k < plan.recv_ranks->size(); ++k) {
      const std::int64_t at = (*plan.recv_offsets)[k] * n;
      const std::int64_t count = ((*plan.recv_offsets)[k + 1] - (*plan.recv_offsets)[k]) * n;
      check_nccl(
          ncclRecv(static_cast<char*>(recv) + static_cast<std::size_t>(at) * size,
                   static_cast<std::size_t>(count), type, (*plan.recv_ranks)[k], comm_, stream_),
          "ncclRecv");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    cuda::check(cudaEventRecord(done_, stream_), "cudaEventRecord");
  }

  void finish(CUstream_st* stream) override {
    cuda::check(cudaStreamWaitEvent(stream, done_, 0), "cudaStreamWaitEvent");
  }

 private:
  void release() noexcept {
    if (done_) cudaEventDestroy(done_);
    if (packed_) cudaEventDestroy(packed_);
    if (stream_) cudaStreamDestroy(stream_);
    if (comm_) ncclCommDestroy(comm_);
    done_ = packed_ = nullptr;
    stream_ = nullptr;
    comm_ = nullptr;
  }

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t packed_ = nullptr, done_ = nullptr;
};

}  // namespace

bool nccl_built() noexcept {
  return true;
}
std::unique_ptr<DeviceExchange> make_nccl_exchange(MPI_Comm comm) {
  return std::make_unique<NcclExchange>(comm);
}

#else

bool nccl_built() noexcept {
  return false;
}
std::unique_ptr<DeviceExchange> make_nccl_exchange(MPI_Comm) {
  throw Unsupported(
      "NCCL exchange: this build of SpX has no NCCL (install it with the CUDA "
      "toolkit and reconfigure); Exchange::Mpi stages device halos through the host");
}

#endif

}  // namespace spx::dist::detail

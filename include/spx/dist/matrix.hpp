// DistMatrix: a square sparse matrix whose rows are partitioned over the
// ranks of an MPI communicator.
//
// Each rank holds its rows as two blocks, each in any SpX format, on the host
// or on its device:
//   local     rows × (its own columns), column j = the rank's j-th row;
//   nonlocal  the rows that touch other ranks' columns × ghosts, those
//             columns compressed and numbered by (owner rank, global index);
//             nonlocal_rows() maps its rows to the local ones (all rows, in
//             order, when more than half of them touch a ghost).
// The product y = αAx + βy posts the halo exchange (the x values other ranks
// need, packed per neighbour), multiplies the local block while the values
// travel, completes the exchange and adds the nonlocal block (β = 1). Host
// ranks exchange through MPI_Isend/MPI_Irecv; device ranks through NCCL when
// the build has it (one rank per GPU), else through MPI with host staging.
//
// Construction and the product are collective: every rank of the
// communicator calls them, with the same global arguments. The matrix keeps
// the communicator it was given (not a duplicate): the halo messages use tag
// 0x5b7 on it, so other point-to-point traffic on that communicator must not
// be pending with that tag during a product.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include <mpi.h>

#include "spx/convert.hpp"
#include "spx/core/view.hpp"
#include "spx/dist/partition.hpp"
#include "spx/matrix.hpp"
#include "spx/ops.hpp"

namespace spx::dist {

/// How halo values travel.
enum class Exchange : std::uint8_t {
  Auto,  ///< NCCL for device matrices when the build has it, else MPI
  Mpi,   ///< MPI_Isend/MPI_Irecv (device matrices: staged through host memory)
  Nccl,  ///< NCCL send/recv between GPUs (Unsupported without NCCL or on the host)
};

/// The default contiguous rows balanced by nonzeros, or a METIS graph
/// partition.
enum class PartitionKind : std::uint8_t { Nnz, Metis };

/// How a distributed matrix is laid out on each rank.
struct DistOptions {
  Format local_format = Format::Csr;
  Format nonlocal_format = Format::Csr;
  ConvertOptions convert{};  ///< parameters of the formats
  Space space = Space::Host;
  Exchange exchange = Exchange::Auto;
  /// Used when the builder computes the partition itself.
  PartitionKind partition = PartitionKind::Nnz;
};

/// Where the time of the last product went, on this rank (seconds).
struct ApplyTimes {
  double pack = 0;      ///< gathering the values other ranks need into the send buffer
  double local = 0;     ///< the local block's product (while the exchange travels)
  double wait = 0;      ///< completing the exchange after the local product
  double nonlocal = 0;  ///< the nonlocal block's product (beta = 1)
  double total = 0;     ///< the whole call
  std::int64_t send_bytes = 0;
  std::int64_t recv_bytes = 0;
};

/// The rows of one rank, with global column indices (host memory): row k is
/// the rank's k-th row of the partition, its entries at
/// [row_ptr[k], row_ptr[k+1]) of cols and values, in any order; duplicates
/// are summed.
template <Value T>
struct LocalRows {
  std::vector<std::int64_t> row_ptr{0};
  std::vector<GlobalIndex> cols;
  std::vector<T> values;
};

/// How read_matrix_market reads the file.
enum class ReadMode : std::uint8_t {
  /// Every rank reads and parses 1/P of the file's bytes, the entries are
  /// sent to their owners (MPI_Alltoallv). Plain `coordinate` files only.
  EachRank,
  /// Rank 0 reads the whole file and sends each rank its rows.
  RootDistributes,
};

namespace detail {
struct DeviceExchange;  // NCCL communicator and streams (src/dist)
}

template <Value T, Index I = std::int32_t>
class DistMatrix {
 public:
  using value_type = T;
  using index_type = I;

  DistMatrix(DistMatrix&&) noexcept;
  DistMatrix& operator=(DistMatrix&&) noexcept;
  ~DistMatrix();

  /// Builds from each rank's rows under `partition` (collective). Throws
  /// InvalidInput when the partition's ranks differ from the communicator's,
  /// when ranks disagree on the global size or the partition, when `rows`
  /// does not have this rank's row count or holds a column outside
  /// [0, size), and Unsupported when a block does not fit index type I.
  static DistMatrix from_local_rows(MPI_Comm comm, const Partition& partition,
                                    const LocalRows<T>& rows, const DistOptions& options = {});
  /// The same with contiguous rows in rank order: each rank passes its own
  /// rows, the partition follows from the row counts. Throws InvalidInput
  /// naming the ranks when they disagree on global_size or the counts do
  /// not sum to it.
  static DistMatrix from_local_rows(MPI_Comm comm, GlobalIndex global_size,
                                    const LocalRows<T>& rows, const DistOptions& options = {});
  /// Rank `root` holds the global CSR A (the other ranks pass an empty
  /// matrix); it computes the partition of options.partition and sends every
  /// rank its rows.
  template <Index J>
  static DistMatrix from_global(MPI_Comm comm, int root, const Csr<T, J>& A,
                                const DistOptions& options = {});
  /// The same with a given partition (every rank passes the same one).
  template <Index J>
  static DistMatrix from_global(MPI_Comm comm, int root, const Csr<T, J>& A,
                                const Partition& partition, const DistOptions& options = {});

  /// y = alpha*A*x + beta*y on this rank's rows: x and y hold the rank's
  /// entries (local_rows() each, in the matrix's space). beta = 0 never reads
  /// y. Collective. Throws DimensionMismatch naming both lengths.
  void apply(T alpha, VectorView<const T> x, T beta, VectorView<T> y) const;
  /// Y = alpha*A*X + beta*Y with X, Y local_rows() × n (any layout).
  void apply(T alpha, DenseView<const T> X, T beta, DenseView<T> Y) const;
  /// Only the halo exchange: after it halo() holds the ghost values of x
  /// (ghosts() × n row-major). For measurements.
  void exchange(DenseView<const T> X) const;

  MPI_Comm comm() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int ranks() const noexcept { return partition_->ranks(); }
  const Partition& partition() const noexcept { return *partition_; }
  GlobalIndex global_size() const noexcept { return partition_->size(); }
  std::int64_t local_rows() const noexcept { return local_rows_; }
  /// Distinct off-rank columns this rank's rows touch (values received per
  /// product and column of x).
  std::int64_t ghosts() const noexcept { return static_cast<std::int64_t>(ghost_global_.size()); }
  /// Values this rank sends per product and column of x.
  std::int64_t sends() const noexcept { return static_cast<std::int64_t>(send_idx_.size()); }
  /// The global index of each ghost (the nonlocal block's columns).
  const std::vector<GlobalIndex>& ghost_globals() const noexcept { return ghost_global_; }
  /// The ranks this rank receives from and sends to.
  const std::vector<int>& recv_ranks() const noexcept { return recv_ranks_; }
  const std::vector<int>& send_ranks() const noexcept { return send_ranks_; }
  const Matrix<T, I>& local_block() const noexcept { return local_; }
  const Matrix<T, I>& nonlocal_block() const noexcept { return nonlocal_; }
  /// The local row of each row of nonlocal_block(); empty when the block
  /// has all local_rows() rows (more than half of them touch a ghost).
  const std::vector<I>& nonlocal_rows() const noexcept { return nonlocal_rows_; }
  /// Y += alpha * (nonlocal block) * H, H holding ghosts() rows of ghost
  /// values (row-major, as halo() after an exchange) and Y local_rows() rows:
  /// the last step of apply, public for measurements. Enqueued on the
  /// device's default stream for device matrices (not waited for).
  void add_nonlocal(T alpha, DenseView<const T> H, DenseView<T> Y) const;
  /// The received ghost values of the last product or exchange.
  const Array<T>& halo() const noexcept { return recv_buf_; }
  Space space() const noexcept { return options_.space; }
  /// The exchange in use (Auto resolved).
  Exchange exchange_kind() const noexcept { return exchange_; }
  /// Times of the last apply on this rank.
  const ApplyTimes& last_times() const noexcept { return times_; }

 private:
  DistMatrix() = default;
  static DistMatrix build(MPI_Comm comm, std::shared_ptr<const Partition> partition,
                          const LocalRows<T>& rows, const DistOptions& options);
  void pack(DenseView<const T> X, std::int64_t n) const;
  void start_exchange(std::int64_t n) const;
  void finish_exchange(std::int64_t n) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::shared_ptr<const Partition> partition_ = std::make_shared<Partition>();
  DistOptions options_{};
  Exchange exchange_ = Exchange::Mpi;
  std::int64_t local_rows_ = 0;
  Matrix<T, I> local_;
  Matrix<T, I> nonlocal_;
  std::vector<I> nonlocal_rows_;   ///< see nonlocal_rows()
  Array<I> nonlocal_rows_space_;   ///< nonlocal_rows_ in the matrix's space
  mutable Array<T> nonlocal_out_;  ///< the compact block's product
  std::vector<GlobalIndex> ghost_global_;
  // The halo plan: values from recv_ranks_[k] land at
  // [recv_offsets_[k], recv_offsets_[k+1]) of the halo (times n); the send
  // buffer's [send_offsets_[k], send_offsets_[k+1]) goes to send_ranks_[k],
  // gathered from the local rows send_idx_.
  std::vector<int> recv_ranks_, send_ranks_;
  std::vector<std::int64_t> recv_offsets_{0}, send_offsets_{0};
  std::vector<I> send_idx_;
  Array<I> send_idx_space_;  ///< send_idx_ in the matrix's space
  mutable Array<T> send_buf_, recv_buf_;
  mutable Array<T> send_host_, recv_host_;  ///< host staging (device + MPI)
  mutable std::vector<MPI_Request> requests_;
  mutable ApplyTimes times_{};
  std::unique_ptr<detail::DeviceExchange> device_;
};

/// Reads a Matrix Market file into a distributed matrix (collective; every
/// rank passes the same path and options). EachRank needs a plain
/// (uncompressed) `coordinate` file and the Nnz partition (Unsupported
/// otherwise, naming the reason). A symmetric entry pair stored in both
/// triangles and split between two ranks' byte ranges is summed there, not
/// read once (files normally store one triangle).
template <Value T, Index I = std::int32_t>
DistMatrix<T, I> read_matrix_market(MPI_Comm comm, const std::filesystem::path& file,
                                    ReadMode mode = ReadMode::EachRank,
                                    const DistOptions& options = {});

}  // namespace spx::dist

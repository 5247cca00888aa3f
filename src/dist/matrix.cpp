// DistMatrix: building the local and nonlocal blocks and the halo plan, and
// the product with the exchange overlapped with the local block's product.
#include "spx/dist/matrix.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "dist/device.hpp"
#include "dist/mpi_util.hpp"

namespace spx::dist {

namespace {

using detail::agree;
using detail::check_mpi;
using detail::mpi_count;
using detail::mpi_type;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr int kHaloTag = 0x5b7;

/// A checksum of the partition, to find ranks that were given different ones.
std::uint64_t fingerprint(const Partition& p) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<std::uint64_t>(p.size()));
  mix(static_cast<std::uint64_t>(p.ranks()));
  for (GlobalIndex o : p.offsets())
    mix(static_cast<std::uint64_t>(o));
  for (int o : p.owners())
    mix(static_cast<std::uint64_t>(o));
  return h;
}

/// Rows (local index) → sorted, duplicate-summed CSR<T, I> with `cols`
/// columns; entries given as (row, column, value) triples.
template <Value T, Index I>
Csr<T, I> assemble(std::int64_t rows, std::int64_t cols,
                   std::vector<std::tuple<std::int64_t, std::int64_t, T>>& entries) {
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                            : std::get<1>(a) < std::get<1>(b);
  });
  std::vector<I> rp(static_cast<std::size_t>(rows) + 1, 0), ci;
  std::vector<T> v;
  ci.reserve(entries.size());
  v.reserve(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const auto& [r, c, x] = entries[k];
    if (k > 0 && std::get<0>(entries[k - 1]) == r && std::get<1>(entries[k - 1]) == c) {
      v.back() += x;
      continue;
    }
    ci.push_back(static_cast<I>(c));
    v.push_back(x);
    ++rp[static_cast<std::size_t>(r) + 1];
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i)
    rp[i + 1] += rp[i];
  return Csr<T, I>(static_cast<I>(rows), static_cast<I>(cols), Array<I>(rp), Array<I>(ci),
                   Array<T>(v), Check::Trusted);
}

/// The block in `format` and `space`.
template <Value T, Index I>
Matrix<T, I> place(Csr<T, I> csr, Format format, const ConvertOptions& options, Space space) {
  Matrix<T, I> m =
      format == Format::Csr ? Matrix<T, I>(std::move(csr)) : convert(csr, format, options);
  if (space == Space::Host) return m;
  return std::visit([space](const auto& a) { return Matrix<T, I>(a.to(space)); }, m);
}

template <Value T>
T element(const DenseView<const T>& X, std::int64_t i, std::int64_t j) {
  return X.layout == Layout::RowMajor ? X.data[i * X.ld + j] : X.data[i + j * X.ld];
}

}  // namespace

template <Value T, Index I>
DistMatrix<T, I>::DistMatrix(DistMatrix&&) noexcept = default;
template <Value T, Index I>
DistMatrix<T, I>& DistMatrix<T, I>::operator=(DistMatrix&&) noexcept = default;
template <Value T, Index I>
DistMatrix<T, I>::~DistMatrix() = default;

template <Value T, Index I>
DistMatrix<T, I> DistMatrix<T, I>::build(MPI_Comm comm, std::shared_ptr<const Partition> partition,
                                         const LocalRows<T>& rows, const DistOptions& options) {
  const auto [me, P] = detail::comm_info(comm);
  const Partition& part = *partition;

  // ---- agree on the partition, then check this rank's rows ------------------
  struct Head {
    std::int64_t size;
    std::int64_t ranks;
    std::uint64_t print;
  } head{part.size(), part.ranks(), fingerprint(part)};
  std::vector<Head> heads(static_cast<std::size_t>(P));
  check_mpi(
      MPI_Allgather(&head, sizeof(Head), MPI_BYTE, heads.data(), sizeof(Head), MPI_BYTE, comm),
      "MPI_Allgather");
  std::string error;
  for (int r = 1; r < P && error.empty(); ++r)
    if (heads[static_cast<std::size_t>(r)].size != heads[0].size ||
        heads[static_cast<std::size_t>(r)].ranks != heads[0].ranks)
      error = fmt::format(
          "ranks disagree on the matrix: rank 0 has {} global rows over {} ranks, rank {} has {} "
          "over {}",
          heads[0].size, heads[0].ranks, r, heads[static_cast<std::size_t>(r)].size,
          heads[static_cast<std::size_t>(r)].ranks);
    else if (heads[static_cast<std::size_t>(r)].print != heads[0].print)
      error = fmt::format(
          "ranks disagree on the partition of the {} rows: rank {}'s differs from "
          "rank 0's",
          heads[0].size, r);
  if (error.empty() && part.ranks() != P)
    error = fmt::format("the partition is over {} ranks, the communicator has {}", part.ranks(), P);
  agree(comm, error);

  const std::int64_t n_local = part.local_size(me);
  if (rows.row_ptr.size() != static_cast<std::size_t>(n_local) + 1)
    error = fmt::format("local rows: row_ptr has {} entries, this rank owns {} rows (expected {})",
                        rows.row_ptr.size(), n_local, n_local + 1);
  else if (rows.row_ptr.front() != 0 || rows.cols.size() != rows.values.size() ||
           rows.row_ptr.back() != static_cast<std::int64_t>(rows.cols.size()))
    error = fmt::format("local rows: row_ptr runs from {} to {}, cols has {} entries, values {}",
                        rows.row_ptr.front(), rows.row_ptr.back(), rows.cols.size(),
                        rows.values.size());
  for (std::size_t k = 0; error.empty() && k < static_cast<std::size_t>(n_local); ++k)
    if (rows.row_ptr[k + 1] < rows.row_ptr[k])
      error = fmt::format("local rows: row_ptr[{}] = {} is below row_ptr[{}] = {}", k + 1,
                          rows.row_ptr[k + 1], k, rows.row_ptr[k]);
  for (std::size_t k = 0; error.empty() && k < rows.cols.size(); ++k)
    if (rows.cols[k] < 0 || rows.cols[k] >= part.size())
      error =
          fmt::format("local rows: cols[{}] = {} is outside [0, {})", k, rows.cols[k], part.size());
  agree(comm, error);
  if (options.exchange == Exchange::Nccl && options.space != Space::Device)
    error = "Exchange::Nccl needs a device matrix (DistOptions::space = Device)";
  else if (options.exchange == Exchange::Nccl && !detail::nccl_built())
    error = "Exchange::Nccl: this build of SpX has no NCCL";
  agree(comm, error, detail::ErrorKind::Unsupported);

  // ---- split the entries into the local block and the ghosts ----------------
  std::vector<std::pair<int, GlobalIndex>> ghosts;  // (owner, global column)
  for (GlobalIndex g : rows.cols) {
    const int o = part.owner(g);
    if (o != me) ghosts.emplace_back(o, g);
  }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  const auto limit = static_cast<std::int64_t>(std::numeric_limits<I>::max());
  if (n_local > limit || static_cast<std::int64_t>(ghosts.size()) > limit ||
      static_cast<std::int64_t>(rows.cols.size()) > limit)
    error = fmt::format(
        "this rank's blocks ({} rows, {} ghost columns, {} entries) do not fit "
        "the {} local index; use a 64-bit index or more ranks",
        n_local, ghosts.size(), rows.cols.size(), index_name<I>());
  agree(comm, error, detail::ErrorKind::Unsupported);

  DistMatrix A;
  A.comm_ = comm;
  A.rank_ = me;
  A.partition_ = std::move(partition);
  A.options_ = options;
  A.local_rows_ = n_local;
  A.ghost_global_.resize(ghosts.size());
  for (std::size_t k = 0; k < ghosts.size(); ++k)
    A.ghost_global_[k] = ghosts[k].second;

  // Ghost k's position: ghosts are sorted by (owner, global), so find the
  // owner's range, then the column in it.
  std::vector<std::tuple<std::int64_t, std::int64_t, T>> own, other;
  for (std::int64_t i = 0; i < n_local; ++i)
    for (auto k = rows.row_ptr[static_cast<std::size_t>(i)];
         k < rows.row_ptr[static_cast<std::size_t>(i) + 1]; ++k) {
      const GlobalIndex g = rows.cols[static_cast<std::size_t>(k)];
      const T v = rows.values[static_cast<std::size_t>(k)];
      const int o = part.owner(g);
      if (o == me) {
        own.emplace_back(i, part.local_index(g), v);
      } else {
        const auto it = std::lower_bound(ghosts.begin(), ghosts.end(), std::make_pair(o, g));
        other.emplace_back(i, it - ghosts.begin(), v);
      }
    }
  A.local_ = place(assemble<T, I>(n_local, n_local, own), options.local_format, options.convert,
                   options.space);
  // The nonlocal block keeps only the rows that touch a ghost, unless most
  // rows do: its product then writes a short vector that one scatter adds
  // into y, instead of reading and writing all of y (measured on 2 H100s:
  // the full-height block cost 0.1 ms of a 0.5 ms product on the 160M-entry
  // stencil, for 80k ghost rows of 11M).
  // compact[i]: row i's row in the compact block, -1 for a row without ghosts.
  std::vector<std::int64_t> compact(static_cast<std::size_t>(n_local), -1);
  for (const auto& e : other)
    compact[static_cast<std::size_t>(std::get<0>(e))] = 0;
  std::int64_t touching = 0;
  for (auto& c : compact)
    if (c >= 0) c = touching++;
  std::int64_t nonlocal_height = n_local;
  if (touching <= n_local / 2) {
    nonlocal_height = touching;
    A.nonlocal_rows_.reserve(static_cast<std::size_t>(touching));
    for (std::int64_t i = 0; i < n_local; ++i)
      if (compact[static_cast<std::size_t>(i)] >= 0) A.nonlocal_rows_.push_back(static_cast<I>(i));
    for (auto& e : other)
      std::get<0>(e) = compact[static_cast<std::size_t>(std::get<0>(e))];
    A.nonlocal_rows_space_ = Array<I>(std::vector<I>(A.nonlocal_rows_)).to(options.space);
  }
  A.nonlocal_ =
      place(assemble<T, I>(nonlocal_height, static_cast<std::int64_t>(ghosts.size()), other),
            options.nonlocal_format, options.convert, options.space);

  // ---- the halo plan: tell each owner which of its values this rank needs ---
  std::vector<std::int64_t> need(static_cast<std::size_t>(P), 0), give(static_cast<std::size_t>(P));
  for (const auto& [o, g] : ghosts)
    ++need[static_cast<std::size_t>(o)];
  check_mpi(MPI_Alltoall(need.data(), 1, MPI_INT64_T, give.data(), 1, MPI_INT64_T, comm),
            "MPI_Alltoall");
  std::vector<int> scount(static_cast<std::size_t>(P)), sdispl(static_cast<std::size_t>(P), 0),
      rcount(static_cast<std::size_t>(P)), rdispl(static_cast<std::size_t>(P), 0);
  for (int r = 0; r < P; ++r) {
    const auto rs = static_cast<std::size_t>(r);
    scount[rs] = mpi_count(need[rs], "halo plan");
    rcount[rs] = mpi_count(give[rs], "halo plan");
    if (r > 0) {
      sdispl[rs] = sdispl[rs - 1] + scount[rs - 1];
      rdispl[rs] = rdispl[rs - 1] + rcount[rs - 1];
    }
    if (need[rs] > 0) {
      A.recv_ranks_.push_back(r);
      A.recv_offsets_.push_back(A.recv_offsets_.back() + need[rs]);
    }
    if (give[rs] > 0) {
      A.send_ranks_.push_back(r);
      A.send_offsets_.push_back(A.send_offsets_.back() + give[rs]);
    }
  }
  std::vector<GlobalIndex> wanted(static_cast<std::size_t>(A.send_offsets_.back()));
  check_mpi(MPI_Alltoallv(A.ghost_global_.data(), scount.data(), sdispl.data(), MPI_INT64_T,
                          wanted.data(), rcount.data(), rdispl.data(), MPI_INT64_T, comm),
            "MPI_Alltoallv");
  A.send_idx_.resize(wanted.size());
  for (std::size_t k = 0; k < wanted.size(); ++k)
    A.send_idx_[k] = static_cast<I>(part.local_index(wanted[k]));

  // ---- the exchange ---------------------------------------------------------
  A.exchange_ = options.exchange;
  if (A.exchange_ == Exchange::Auto)
    A.exchange_ =
        options.space == Space::Device && detail::nccl_built() ? Exchange::Nccl : Exchange::Mpi;
  if (options.space == Space::Device) A.send_idx_space_ = Array<I>(A.send_idx_, Space::Device);
  if (A.exchange_ == Exchange::Nccl) A.device_ = detail::make_nccl_exchange(comm);
  return A;
}

template <Value T, Index I>
DistMatrix<T, I> DistMatrix<T, I>::from_local_rows(MPI_Comm comm, const Partition& partition,
                                                   const LocalRows<T>& rows,
                                                   const DistOptions& options) {
  return build(comm, std::make_shared<const Partition>(partition), rows, options);
}

template <Value T, Index I>
DistMatrix<T, I> DistMatrix<T, I>::from_local_rows(MPI_Comm comm, GlobalIndex global_size,
                                                   const LocalRows<T>& rows,
                                                   const DistOptions& options) {
  const int P = detail::comm_info(comm).size;
  std::int64_t mine[2] = {global_size, static_cast<std::int64_t>(rows.row_ptr.size()) - 1};
  std::vector<std::int64_t> all(2 * static_cast<std::size_t>(P));
  check_mpi(MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm), "MPI_Allgather");
  std::string error;
  std::vector<GlobalIndex> offsets(static_cast<std::size_t>(P) + 1, 0);
  for (int r = 0; r < P; ++r) {
    const auto rs = static_cast<std::size_t>(r);
    if (error.empty() && all[2 * rs] != all[0])
      error = fmt::format("ranks disagree on the global size: rank 0 passed {}, rank {} passed {}",
                          all[0], r, all[2 * rs]);
    if (error.empty() && all[2 * rs + 1] < 0)
      error = fmt::format("rank {}'s local rows have an empty row_ptr", r);
    offsets[rs + 1] = offsets[rs] + std::max<std::int64_t>(all[2 * rs + 1], 0);
  }
  if (error.empty() && offsets.back() != global_size)
    error = fmt::format("the ranks' row counts sum to {}, the global size is {}", offsets.back(),
                        global_size);
  // Every rank computed the same error from the same gathered data.
  if (!error.empty()) throw InvalidInput(error);
  return build(comm, std::make_shared<const Partition>(Partition::contiguous(std::move(offsets))),
               rows, options);
}

template <Value T, Index I>
template <Index J>
DistMatrix<T, I> DistMatrix<T, I>::from_global(MPI_Comm comm, int root, const Csr<T, J>& A,
                                               const DistOptions& options) {
  const auto [me, P] = detail::comm_info(comm);
  std::string error;
  Partition p;
  if (me == root) {
    try {
      if (A.rows() != A.cols())
        throw InvalidInput(fmt::format("the matrix is {}x{}; distributed matrices are square",
                                       A.rows(), A.cols()));
      p = options.partition == PartitionKind::Metis ? partition_metis(A, P)
                                                    : partition_by_nnz(A, P);
    } catch (const Error& e) {
      error = e.what();
    }
  }
  // Send the partition from the root: kind, size, then offsets or owners.
  std::int64_t head[3] = {p.is_contiguous() ? 0 : 1, p.size(), error.empty() ? 0 : 1};
  check_mpi(MPI_Bcast(head, 3, MPI_INT64_T, root, comm), "MPI_Bcast");
  if (head[2] != 0)
    agree(comm, me == root ? error : std::string(), detail::ErrorKind::InvalidInput);
  if (head[0] == 0) {
    std::vector<GlobalIndex> offsets = p.offsets();
    offsets.resize(static_cast<std::size_t>(P) + 1);
    check_mpi(MPI_Bcast(offsets.data(), P + 1, MPI_INT64_T, root, comm), "MPI_Bcast");
    p = Partition::contiguous(std::move(offsets));
  } else {
    std::vector<int> owners = p.owners();
    owners.resize(static_cast<std::size_t>(head[1]));
    check_mpi(MPI_Bcast(owners.data(), mpi_count(head[1], "partition"), MPI_INT, root, comm),
              "MPI_Bcast");
    p = Partition::from_owners(std::move(owners), P);
  }
  return from_global(comm, root, A, p, options);
}

template <Value T, Index I>
template <Index J>
DistMatrix<T, I> DistMatrix<T, I>::from_global(MPI_Comm comm, int root, const Csr<T, J>& A,
                                               const Partition& partition,
                                               const DistOptions& options) {
  const auto [me, P] = detail::comm_info(comm);
  std::string error;
  if (me == root) {
    if (A.space() != Space::Host)
      error = "from_global: the global matrix must be in host memory";
    else if (A.rows() != A.cols())
      error =
          fmt::format("the matrix is {}x{}; distributed matrices are square", A.rows(), A.cols());
    else if (partition.size() != static_cast<GlobalIndex>(A.rows()) || partition.ranks() != P)
      error = fmt::format(
          "partition of {} rows over {} ranks given for a matrix of {} rows on {} "
          "ranks",
          partition.size(), partition.ranks(), A.rows(), P);
  }
  agree(comm, error);

  // The root packs every rank's rows (row lengths, global columns, values)
  // in rank order and scatters them.
  std::vector<int> len_count(static_cast<std::size_t>(P)), len_displ(static_cast<std::size_t>(P)),
      nz_count(static_cast<std::size_t>(P)), nz_displ(static_cast<std::size_t>(P));
  std::vector<std::int64_t> lens;
  std::vector<GlobalIndex> cols;
  std::vector<T> vals;
  if (me == root) {
    const auto rp = A.row_ptr().host_span();
    const auto ci = A.col_idx().host_span();
    const auto va = A.values().host_span();
    lens.reserve(static_cast<std::size_t>(A.rows()));
    cols.reserve(ci.size());
    vals.reserve(va.size());
    for (int r = 0; r < P; ++r) {
      const auto rs = static_cast<std::size_t>(r);
      len_displ[rs] = mpi_count(static_cast<std::int64_t>(lens.size()), "from_global");
      nz_displ[rs] = mpi_count(static_cast<std::int64_t>(cols.size()), "from_global");
      for (GlobalIndex g : partition.rows_of(r)) {
        const auto gs = static_cast<std::size_t>(g);
        lens.push_back(static_cast<std::int64_t>(rp[gs + 1] - rp[gs]));
        for (auto k = rp[gs]; k < rp[gs + 1]; ++k) {
          cols.push_back(static_cast<GlobalIndex>(ci[static_cast<std::size_t>(k)]));
          vals.push_back(va[static_cast<std::size_t>(k)]);
        }
      }
      len_count[rs] = static_cast<int>(lens.size()) - len_displ[rs];
      nz_count[rs] =
          mpi_count(static_cast<std::int64_t>(cols.size()), "from_global") - nz_displ[rs];
    }
  }
  int mine[2] = {0, 0};
  std::vector<int> both(2 * static_cast<std::size_t>(P));
  for (int r = 0; me == root && r < P; ++r) {
    both[2 * static_cast<std::size_t>(r)] = len_count[static_cast<std::size_t>(r)];
    both[2 * static_cast<std::size_t>(r) + 1] = nz_count[static_cast<std::size_t>(r)];
  }
  check_mpi(MPI_Scatter(both.data(), 2, MPI_INT, mine, 2, MPI_INT, root, comm), "MPI_Scatter");
  LocalRows<T> rows;
  std::vector<std::int64_t> my_lens(static_cast<std::size_t>(mine[0]));
  rows.cols.resize(static_cast<std::size_t>(mine[1]));
  rows.values.resize(static_cast<std::size_t>(mine[1]));
  check_mpi(MPI_Scatterv(lens.data(), len_count.data(), len_displ.data(), MPI_INT64_T,
                         my_lens.data(), mine[0], MPI_INT64_T, root, comm),
            "MPI_Scatterv");
  check_mpi(MPI_Scatterv(cols.data(), nz_count.data(), nz_displ.data(), MPI_INT64_T,
                         rows.cols.data(), mine[1], MPI_INT64_T, root, comm),
            "MPI_Scatterv");
  check_mpi(MPI_Scatterv(vals.data(), nz_count.data(), nz_displ.data(), mpi_type<T>(),
                         rows.values.data(), mine[1], mpi_type<T>(), root, comm),
            "MPI_Scatterv");
  rows.row_ptr.resize(my_lens.size() + 1);
  for (std::size_t i = 0; i < my_lens.size(); ++i)
    rows.row_ptr[i + 1] = rows.row_ptr[i] + my_lens[i];
  return build(comm, std::make_shared<const Partition>(partition), rows, options);
}

// ---- the product ------------------------------------------------------------

template <Value T, Index I>
void DistMatrix<T, I>::pack(DenseView<const T> X, std::int64_t n) const {
  const std::int64_t count = sends();
  if (send_buf_.size() < static_cast<std::size_t>(count * n))
    send_buf_ = Array<T>(static_cast<std::size_t>(count * n), options_.space);
  if (recv_buf_.size() != static_cast<std::size_t>(ghosts() * n))
    recv_buf_ = Array<T>(static_cast<std::size_t>(ghosts() * n), options_.space);
  const bool device = options_.space == Space::Device;
  if (device && count > 0)
    detail::device_pack<T, I>(X.data, X.ld, X.layout == Layout::RowMajor, n, send_idx_space_.data(),
                              count, send_buf_.data(), nullptr);
  if (exchange_ == Exchange::Nccl) device_->packed(nullptr);  // what the exchange waits for
  if (device || count == 0) return;
  T* buf = send_buf_.data();
  const I* idx = send_idx_.data();
#pragma omp parallel for schedule(static) if (count * n > 20000)
  for (std::int64_t k = 0; k < count; ++k)
    for (std::int64_t j = 0; j < n; ++j)
      buf[k * n + j] = element(X, static_cast<std::int64_t>(idx[k]), j);
}

template <Value T, Index I>
void DistMatrix<T, I>::start_exchange(std::int64_t n) const {
  const bool f64 = std::same_as<T, double>;
  if (exchange_ == Exchange::Nccl) {
    device_->start(send_buf_.data(), recv_buf_.data(),
                   detail::HaloPlan{&send_ranks_, &send_offsets_, &recv_ranks_, &recv_offsets_}, n,
                   f64);
    return;
  }
  const T* send = send_buf_.data();
  T* recv = recv_buf_.data();
  if (options_.space == Space::Device) {
    // MPI without GPU-aware transport: stage through host memory.
    if (send_host_.size() < send_buf_.size()) send_host_ = Array<T>(send_buf_.size());
    if (recv_host_.size() < recv_buf_.size()) recv_host_ = Array<T>(recv_buf_.size());
    if (sends() > 0)
      detail::device_copy_sync(send_host_.data(), send_buf_.data(),
                               static_cast<std::size_t>(sends() * n) * sizeof(T), nullptr);
    send = send_host_.data();
    recv = recv_host_.data();
  }
  requests_.assign(recv_ranks_.size() + send_ranks_.size(), MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < recv_ranks_.size(); ++k)
    check_mpi(MPI_Irecv(recv + recv_offsets_[k] * n,
                        mpi_count((recv_offsets_[k + 1] - recv_offsets_[k]) * n, "halo"),
                        mpi_type<T>(), recv_ranks_[k], kHaloTag, comm_, &requests_[k]),
              "MPI_Irecv");
  for (std::size_t k = 0; k < send_ranks_.size(); ++k)
    check_mpi(
        MPI_Isend(send + send_offsets_[k] * n,
                  mpi_count((send_offsets_[k + 1] - send_offsets_[k]) * n, "halo"), mpi_type<T>(),
                  send_ranks_[k], kHaloTag, comm_, &requests_[recv_ranks_.size() + k]),
        "MPI_Isend");
}

template <Value T, Index I>
void DistMatrix<T, I>::finish_exchange(std::int64_t n) const {
  if (exchange_ == Exchange::Nccl) {
    device_->finish(nullptr);
    return;
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  if (options_.space == Space::Device && ghosts() > 0)
    detail::device_copy_sync(recv_buf_.data(), recv_host_.data(),
                             static_cast<std::size_t>(ghosts() * n) * sizeof(T), nullptr);
}

template <Value T, Index I>
void DistMatrix<T, I>::exchange(DenseView<const T> X) const {
  if (X.rows != local_rows_ || X.space != options_.space)
    throw DimensionMismatch(
        fmt::format("DistMatrix::exchange: X is {}x{} in {} memory, the rank "
                    "owns {} rows in {} memory",
                    X.rows, X.cols, to_string(X.space), local_rows_, to_string(options_.space)));
  pack(X, X.cols);
  start_exchange(X.cols);
  finish_exchange(X.cols);
  if (options_.space == Space::Device) detail::device_sync(nullptr);
}

template <Value T, Index I>
void DistMatrix<T, I>::add_nonlocal(T alpha, DenseView<const T> H, DenseView<T> Y) const {
  if (H.rows != ghosts() || Y.rows != local_rows_ || H.cols != Y.cols ||
      H.space != options_.space || Y.space != options_.space)
    throw DimensionMismatch(fmt::format(
        "DistMatrix::add_nonlocal: H is {}x{} in {} memory and Y {}x{} in {}; the rank has {} "
        "ghosts and {} rows in {} memory",
        H.rows, H.cols, to_string(H.space), Y.rows, Y.cols, to_string(Y.space), ghosts(),
        local_rows_, to_string(options_.space)));
  if (ghosts() == 0) return;  // no nonlocal block
  const std::int64_t n = H.cols;
  // out = alpha * (nonlocal block) * H + beta * out: SpMV for one contiguous
  // column (H, the halo, always is), SpMM otherwise.
  const auto product = [&](T beta, DenseView<T> out) {
    if (n == 1 && (out.layout == Layout::ColMajor || out.ld == 1))
      spmv(alpha, nonlocal_, VectorView<const T>(H.data, H.rows, H.space), beta,
           VectorView<T>(out.data, out.rows, out.space));
    else
      spmm(alpha, nonlocal_, H, beta, out);
  };
  if (nonlocal_rows_.empty()) return product(T{1}, Y);  // the block has every row
  // A compact block: its rows into a scratch block, then added to theirs in
  // Y. (A fused CSR kernel, 8 lanes per row adding into y, was measured on
  // 4 H200s: no gain on the stencils, whose nonlocal time is launch and
  // synchronization, and 5-12x slower on R-MAT's long rows; not kept.)
  const auto m = static_cast<std::int64_t>(nonlocal_rows_.size());
  if (nonlocal_out_.size() < static_cast<std::size_t>(m * n))
    nonlocal_out_ = Array<T>(static_cast<std::size_t>(m * n), options_.space);
  T* out = nonlocal_out_.data();
  product(T{0}, DenseView<T>{out, m, n, n, Layout::RowMajor, options_.space});
  const bool row_major = Y.layout == Layout::RowMajor;
  if (options_.space == Space::Device) {
    detail::device_scatter_add<T, I>(out, n, nonlocal_rows_space_.data(), m, Y.data, Y.ld,
                                     row_major, nullptr);
    return;
  }
  const I* rows = nonlocal_rows_.data();
  T* y = Y.data;
  const std::int64_t ld = Y.ld;
#pragma omp parallel for schedule(static) if (m * n > 20000)
  for (std::int64_t k = 0; k < m; ++k) {
    const auto i = static_cast<std::int64_t>(rows[k]);
    for (std::int64_t j = 0; j < n; ++j)
      (row_major ? y[i * ld + j] : y[i + j * ld]) += out[k * n + j];
  }
}

template <Value T, Index I>
void DistMatrix<T, I>::apply(T alpha, VectorView<const T> x, T beta, VectorView<T> y) const {
  if (x.size != local_rows_ || y.size != local_rows_)
    throw DimensionMismatch(
        fmt::format("DistMatrix::apply: x has {} entries and y {} on rank {}, which owns {} rows",
                    x.size, y.size, rank_, local_rows_));
  if (x.space != options_.space || y.space != options_.space)
    throw InvalidInput(fmt::format("DistMatrix::apply: x in {} memory, y in {}, the matrix in {}",
                                   to_string(x.space), to_string(y.space),
                                   to_string(options_.space)));
  const double t0 = now();
  times_ = {};
  pack(DenseView<const T>{x.data, x.size, 1, 1, Layout::RowMajor, x.space}, 1);
  const double t1 = now();
  // NCCL: the local product is enqueued first, so that the GPU starts it
  // while the host posts the exchange (which waits only for the pack).
  const bool nccl = exchange_ == Exchange::Nccl;
  if (!nccl) start_exchange(1);
  spmv(alpha, local_, x, beta, y);
  if (nccl) start_exchange(1);
  const double t2 = now();
  finish_exchange(1);
  const double t3 = now();
  if (ghosts() > 0)
    add_nonlocal(
        alpha,
        DenseView<const T>{recv_buf_.data(), ghosts(), 1, 1, Layout::RowMajor, options_.space},
        DenseView<T>{y.data, y.size, 1, 1, Layout::RowMajor, y.space});
  if (options_.space == Space::Device) detail::device_sync(nullptr);
  const double t4 = now();
  times_ = {t1 - t0,
            t2 - t1,
            t3 - t2,
            t4 - t3,
            t4 - t0,
            sends() * static_cast<std::int64_t>(sizeof(T)),
            ghosts() * static_cast<std::int64_t>(sizeof(T))};
}

template <Value T, Index I>
void DistMatrix<T, I>::apply(T alpha, DenseView<const T> X, T beta, DenseView<T> Y) const {
  if (X.rows != local_rows_ || Y.rows != local_rows_ || X.cols != Y.cols)
    throw DimensionMismatch(
        fmt::format("DistMatrix::apply: X is {}x{} and Y {}x{} on rank {}, "
                    "which owns {} rows",
                    X.rows, X.cols, Y.rows, Y.cols, rank_, local_rows_));
  if (X.space != options_.space || Y.space != options_.space)
    throw InvalidInput(fmt::format("DistMatrix::apply: X in {} memory, Y in {}, the matrix in {}",
                                   to_string(X.space), to_string(Y.space),
                                   to_string(options_.space)));
  const std::int64_t n = X.cols;
  const double t0 = now();
  times_ = {};
  pack(X, n);
  const double t1 = now();
  const bool nccl = exchange_ == Exchange::Nccl;  // as in the SpMV above
  if (!nccl) start_exchange(n);
  spmm(alpha, local_, X, beta, Y);
  if (nccl) start_exchange(n);
  const double t2 = now();
  finish_exchange(n);
  const double t3 = now();
  if (ghosts() > 0)
    add_nonlocal(
        alpha,
        DenseView<const T>{recv_buf_.data(), ghosts(), n, n, Layout::RowMajor, options_.space}, Y);
  if (options_.space == Space::Device) detail::device_sync(nullptr);
  const double t4 = now();
  times_ = {t1 - t0,
            t2 - t1,
            t3 - t2,
            t4 - t3,
            t4 - t0,
            sends() * n * static_cast<std::int64_t>(sizeof(T)),
            ghosts() * n * static_cast<std::int64_t>(sizeof(T))};
}

#define SPX_INST(T, I)                                                                   \
  template class DistMatrix<T, I>;                                                       \
  template DistMatrix<T, I> DistMatrix<T, I>::from_global(                               \
      MPI_Comm, int, const Csr<T, std::int32_t>&, const DistOptions&);                   \
  template DistMatrix<T, I> DistMatrix<T, I>::from_global(                               \
      MPI_Comm, int, const Csr<T, std::int64_t>&, const DistOptions&);                   \
  template DistMatrix<T, I> DistMatrix<T, I>::from_global(                               \
      MPI_Comm, int, const Csr<T, std::int32_t>&, const Partition&, const DistOptions&); \
  template DistMatrix<T, I> DistMatrix<T, I>::from_global(                               \
      MPI_Comm, int, const Csr<T, std::int64_t>&, const Partition&, const DistOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::dist

// Row partitions: contiguous (balanced by nonzeros) and general (METIS).
#include "spx/dist/partition.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/instantiate.hpp"

#if SPX_HAVE_METIS
#include <metis.h>
#endif

namespace spx::dist {

Partition Partition::contiguous(std::vector<GlobalIndex> offsets) {
  if (offsets.size() < 2)
    throw InvalidInput(fmt::format("partition: {} offsets given; a partition over P ranks has P+1",
                                   offsets.size()));
  if (offsets.front() != 0)
    throw InvalidInput(fmt::format("partition: offsets[0] = {}, must be 0", offsets.front()));
  for (std::size_t r = 1; r < offsets.size(); ++r)
    if (offsets[r] < offsets[r - 1])
      throw InvalidInput(fmt::format("partition: offsets[{}] = {} is below offsets[{}] = {}", r,
                                     offsets[r], r - 1, offsets[r - 1]));
  Partition p;
  p.ranks_ = static_cast<int>(offsets.size() - 1);
  p.size_ = offsets.back();
  p.counts_.resize(offsets.size() - 1);
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r)
    p.counts_[r] = offsets[r + 1] - offsets[r];
  p.offsets_ = std::move(offsets);
  return p;
}

Partition Partition::from_owners(std::vector<int> owner, int ranks) {
  if (ranks < 1) throw InvalidInput(fmt::format("partition: {} ranks, need at least 1", ranks));
  Partition p;
  p.ranks_ = ranks;
  p.size_ = static_cast<GlobalIndex>(owner.size());
  p.counts_.assign(static_cast<std::size_t>(ranks), 0);
  p.local_.resize(owner.size());
  for (std::size_t i = 0; i < owner.size(); ++i) {
    const int r = owner[i];
    if (r < 0 || r >= ranks)
      throw InvalidInput(
          fmt::format("partition: row {} is assigned to rank {}, outside [0, {})", i, r, ranks));
    p.local_[i] = p.counts_[static_cast<std::size_t>(r)]++;
  }
  p.offsets_.clear();
  p.owner_ = std::move(owner);
  return p;
}

int Partition::owner(GlobalIndex g) const {
  if (!owner_.empty()) return owner_[static_cast<std::size_t>(g)];
  // The last rank whose offset is <= g (empty ranks share offsets).
  const auto it = std::upper_bound(offsets_.begin(), offsets_.end(), g);
  return static_cast<int>(it - offsets_.begin()) - 1;
}

std::int64_t Partition::local_index(GlobalIndex g) const {
  if (!owner_.empty()) return local_[static_cast<std::size_t>(g)];
  return g - offsets_[static_cast<std::size_t>(owner(g))];
}

std::vector<GlobalIndex> Partition::rows_of(int r) const {
  std::vector<GlobalIndex> rows;
  rows.reserve(static_cast<std::size_t>(local_size(r)));
  if (owner_.empty()) {
    for (GlobalIndex g = offsets_[static_cast<std::size_t>(r)];
         g < offsets_[static_cast<std::size_t>(r) + 1]; ++g)
      rows.push_back(g);
  } else {
    for (std::size_t i = 0; i < owner_.size(); ++i)
      if (owner_[i] == r) rows.push_back(static_cast<GlobalIndex>(i));
  }
  return rows;
}

void Partition::check(GlobalIndex rows, int ranks) const {
  if (rows != size_ || ranks != ranks_)
    throw InvalidInput(
        fmt::format("partition of {} rows over {} ranks given for a matrix of {} rows on {} ranks",
                    size_, ranks_, rows, ranks));
}

Partition partition_by_nnz(std::span<const std::int64_t> row_nnz, int ranks) {
  if (ranks < 1) throw InvalidInput(fmt::format("partition: {} ranks, need at least 1", ranks));
  const auto n = static_cast<GlobalIndex>(row_nnz.size());
  // prefix[i] = weight of rows [0, i); a row weighs its nonzeros + 1.
  std::vector<std::int64_t> prefix(row_nnz.size() + 1, 0);
  for (std::size_t i = 0; i < row_nnz.size(); ++i)
    prefix[i + 1] = prefix[i] + row_nnz[i] + 1;
  const double total = static_cast<double>(prefix.back());
  std::vector<GlobalIndex> offsets(static_cast<std::size_t>(ranks) + 1, 0);
  offsets.back() = n;
  for (int r = 1; r < ranks; ++r) {
    const double target = total * r / ranks;
    // The first row boundary whose prefix reaches the target, or the one
    // before it when that is closer.
    auto it = std::lower_bound(prefix.begin(), prefix.end(), target,
                               [](std::int64_t a, double t) { return static_cast<double>(a) < t; });
    auto b = static_cast<GlobalIndex>(it - prefix.begin());
    if (b > 0 && target - static_cast<double>(prefix[static_cast<std::size_t>(b) - 1]) <
                     static_cast<double>(prefix[static_cast<std::size_t>(b)]) - target)
      --b;
    offsets[static_cast<std::size_t>(r)] =
        std::clamp(b, offsets[static_cast<std::size_t>(r) - 1], n);
  }
  return Partition::contiguous(std::move(offsets));
}

template <Value T, Index I>
Partition partition_by_nnz(const Csr<T, I>& A, int ranks) {
  if (A.space() != Space::Host)
    throw Unsupported("partition_by_nnz: the matrix must be in host memory");
  const auto rp = A.row_ptr().host_span();
  std::vector<std::int64_t> nnz(static_cast<std::size_t>(A.rows()));
  for (std::size_t i = 0; i < nnz.size(); ++i)
    nnz[i] = static_cast<std::int64_t>(rp[i + 1] - rp[i]);
  return partition_by_nnz(nnz, ranks);
}

bool metis_available() noexcept {
  return SPX_HAVE_METIS != 0;
}

template <Value T, Index I>
Partition partition_metis([[maybe_unused]] const Csr<T, I>& A, [[maybe_unused]] int ranks) {
#if SPX_HAVE_METIS
  if (ranks < 1) throw InvalidInput(fmt::format("partition: {} ranks, need at least 1", ranks));
  if (A.rows() != A.cols())
    throw InvalidInput(
        fmt::format("partition_metis: the matrix is {}x{}; it must be square", A.rows(), A.cols()));
  if (A.space() != Space::Host)
    throw Unsupported("partition_metis: the matrix must be in host memory");
  const auto n = static_cast<std::int64_t>(A.rows());
  if (ranks == 1)
    return Partition::from_owners(std::vector<int>(static_cast<std::size_t>(n), 0), 1);
  if (ranks >= n) {
    std::vector<int> owner(static_cast<std::size_t>(n));
    std::iota(owner.begin(), owner.end(), 0);
    return Partition::from_owners(std::move(owner), ranks);
  }
  if (n > std::numeric_limits<idx_t>::max())
    throw Unsupported(
        fmt::format("partition_metis: {} rows exceed METIS's {}-bit index", n, IDXTYPEWIDTH));
  // The graph of A + Aᵀ without the diagonal, as METIS wants it (each edge in
  // both directions, no self loops).
  const auto rp = A.row_ptr().host_span();
  const auto ci = A.col_idx().host_span();
  std::vector<std::vector<idx_t>> adj(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    for (auto k = rp[static_cast<std::size_t>(i)]; k < rp[static_cast<std::size_t>(i) + 1]; ++k) {
      const auto j = static_cast<std::int64_t>(ci[static_cast<std::size_t>(k)]);
      if (j == i) continue;
      adj[static_cast<std::size_t>(i)].push_back(static_cast<idx_t>(j));
      adj[static_cast<std::size_t>(j)].push_back(static_cast<idx_t>(i));
    }
  std::vector<idx_t> xadj(static_cast<std::size_t>(n) + 1, 0), adjncy;
  for (std::int64_t i = 0; i < n; ++i) {
    auto& a = adj[static_cast<std::size_t>(i)];
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    adjncy.insert(adjncy.end(), a.begin(), a.end());
    if (adjncy.size() > static_cast<std::size_t>(std::numeric_limits<idx_t>::max()))
      throw Unsupported(fmt::format(
          "partition_metis: the graph's edges exceed METIS's {}-bit index", IDXTYPEWIDTH));
    xadj[static_cast<std::size_t>(i) + 1] = static_cast<idx_t>(adjncy.size());
    a = {};
  }
  idx_t nv = static_cast<idx_t>(n), ncon = 1, nparts = ranks, cut = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
  idx_t opts[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opts);
  opts[METIS_OPTION_SEED] = 1;  // the same partition on every run
  const int rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(),
                                     adjncy.empty() ? nullptr : adjncy.data(), nullptr, nullptr,
                                     nullptr, &nparts, nullptr, nullptr, opts, &cut, part.data());
  if (rc != METIS_OK)
    throw Error(
        fmt::format("partition_metis: METIS_PartGraphKway failed (return code {}) on {} "
                    "rows and {} edges into {} parts",
                    rc, n, adjncy.size() / 2, ranks));
  return Partition::from_owners(std::vector<int>(part.begin(), part.end()), ranks);
#else
  throw Unsupported(
      "partition_metis: this build of SpX has no METIS (install libmetis-dev and "
      "reconfigure)");
#endif
}

template <Value T, Index I>
std::int64_t halo_volume(const Csr<T, I>& A, const Partition& p) {
  p.check(A.rows(), p.ranks());
  if (A.space() != Space::Host) throw Unsupported("halo_volume: the matrix must be in host memory");
  const auto rp = A.row_ptr().host_span();
  const auto ci = A.col_idx().host_span();
  // Distinct (rank, column) pairs with the column owned elsewhere.
  std::vector<std::pair<int, std::int64_t>> pairs;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(A.rows()); ++i) {
    const int r = p.owner(i);
    for (auto k = rp[static_cast<std::size_t>(i)]; k < rp[static_cast<std::size_t>(i) + 1]; ++k) {
      const auto j = static_cast<std::int64_t>(ci[static_cast<std::size_t>(k)]);
      if (p.owner(j) != r) pairs.emplace_back(r, j);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return static_cast<std::int64_t>(std::unique(pairs.begin(), pairs.end()) - pairs.begin());
}

#define SPX_INST(T, I)                                        \
  template Partition partition_by_nnz(const Csr<T, I>&, int); \
  template Partition partition_metis(const Csr<T, I>&, int);  \
  template std::int64_t halo_volume(const Csr<T, I>&, const Partition&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::dist

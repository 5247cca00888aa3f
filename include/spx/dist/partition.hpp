// Row partitions of a square matrix over the ranks of a communicator.
//
// A partition says which rank owns each global row (and, since distributed
// matrices are square, each column and each vector entry). A rank numbers
// the rows it owns 0, 1, ... in increasing global order: that is the order
// of its local vector entries and of its local block's rows and columns.
//
// Two kinds: contiguous (rank r owns rows [offsets[r], offsets[r+1]); O(P)
// memory, the default, balanced by nonzeros) and general (an owner per row,
// as a graph partitioner gives; O(n) memory, replicated on every rank).
// Global indices are 64-bit whatever index type the local blocks use.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "spx/formats/csr.hpp"

namespace spx::dist {

/// Global row and column indices: 64-bit, independent of the local blocks'
/// index type (which stays 32-bit when the local sizes allow).
using GlobalIndex = std::int64_t;

class Partition {
 public:
  /// One rank owning 0 rows.
  Partition() = default;
  /// Rank r owns rows [offsets[r], offsets[r+1]). Throws InvalidInput unless
  /// offsets has ranks+1 >= 2 entries, starts at 0 and does not decrease.
  static Partition contiguous(std::vector<GlobalIndex> offsets);
  /// Row i is owned by rank owner[i]. Throws InvalidInput naming the first
  /// row whose rank is outside [0, ranks), or for ranks < 1.
  static Partition from_owners(std::vector<int> owner, int ranks);

  int ranks() const noexcept { return ranks_; }
  /// Global rows (= columns).
  GlobalIndex size() const noexcept { return size_; }
  bool is_contiguous() const noexcept { return owner_.empty(); }
  /// The contiguous offsets (ranks+1 entries); empty for a general partition.
  const std::vector<GlobalIndex>& offsets() const noexcept { return offsets_; }
  /// The owner of every row (general partitions; empty when contiguous).
  const std::vector<int>& owners() const noexcept { return owner_; }

  /// The rank owning global row g (0 <= g < size()).
  int owner(GlobalIndex g) const;
  /// The position of global row g among its owner's rows.
  std::int64_t local_index(GlobalIndex g) const;
  /// How many rows rank r owns.
  std::int64_t local_size(int r) const { return counts_[static_cast<std::size_t>(r)]; }
  /// The global rows rank r owns, increasing.
  std::vector<GlobalIndex> rows_of(int r) const;

  /// Throws InvalidInput unless this partition is of `rows` rows over
  /// `ranks` ranks (the message names both pairs).
  void check(GlobalIndex rows, int ranks) const;

 private:
  int ranks_ = 1;
  GlobalIndex size_ = 0;
  std::vector<GlobalIndex> offsets_{0, 0};
  std::vector<int> owner_;
  std::vector<std::int64_t> local_;
  std::vector<std::int64_t> counts_{0};
};

/// Contiguous rows balanced by nonzeros: rank r's share of
/// sum(row_nnz[i] + 1) is as close to 1/ranks as whole rows allow (the +1
/// spreads empty rows). More ranks than rows leaves ranks empty.
Partition partition_by_nnz(std::span<const std::int64_t> row_nnz, int ranks);
template <Value T, Index I>
Partition partition_by_nnz(const Csr<T, I>& A, int ranks);

/// True when the build has METIS (graph partitions).
bool metis_available() noexcept;
/// A METIS k-way partition of the graph of A + Aᵀ (diagonal left out),
/// minimizing the edges cut, i.e. the halo. Host CSR, square. With
/// ranks >= rows each row gets its own rank (rows 0..n-1 on ranks 0..n-1).
/// Throws Unsupported when the build has no METIS, InvalidInput for a
/// non-square matrix, Error when METIS fails (with its return code).
template <Value T, Index I>
Partition partition_metis(const Csr<T, I>& A, int ranks);

/// The halo volume of A under p: the number of vector values all ranks
/// receive in one product (per rank, the distinct columns of its rows owned
/// by other ranks, summed over the ranks).
template <Value T, Index I>
std::int64_t halo_volume(const Csr<T, I>& A, const Partition& p);

}  // namespace spx::dist

// Reading a Matrix Market file into a distributed matrix: every rank parses
// its share of the bytes and sends the entries to their owners, or rank 0
// reads the file and distributes the rows.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "dist/mpi_util.hpp"
#include "spx/dist/matrix.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::dist {

namespace {

using detail::agree;
using detail::check_mpi;
using detail::mpi_count;
using detail::mpi_type;

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

/// Data lines of a chunk of the body as the reader counts them: not blank,
/// not a comment.
std::int64_t data_lines(const std::string& text) {
  std::int64_t lines = 0;
  std::size_t p = 0;
  while (p < text.size()) {
    std::size_t nl = text.find('\n', p);
    if (nl == std::string::npos) nl = text.size();
    std::size_t q = p;
    while (q < nl && blank(text[q]))
      ++q;
    if (q < nl && text[q] != '%') ++lines;
    p = nl + 1;
  }
  return lines;
}

struct Body {
  std::string banner;        ///< the first line
  std::uint64_t offset = 0;  ///< first byte after the size line
  std::uint64_t end = 0;     ///< file size
};

/// Finds the banner and where the entries start (after the comments and
/// the size line).
Body locate_body(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError(fmt::format("{}: cannot open", file.string()));
  Body b;
  std::string line;
  std::getline(in, b.banner);
  while (std::getline(in, line)) {
    const auto q = line.find_first_not_of(" \t\r");
    if (q != std::string::npos && line[q] != '%') break;  // the size line
  }
  b.offset = static_cast<std::uint64_t>(in.tellg());
  in.clear();
  in.seekg(0, std::ios::end);
  b.end = static_cast<std::uint64_t>(in.tellg());
  return b;
}

/// This rank's bytes of the body: from the first line starting at or after
/// its nominal start to the end of the line holding its nominal end.
std::string read_share(const std::filesystem::path& file, const Body& b, int rank, int ranks) {
  const std::uint64_t len = b.end - b.offset;
  std::uint64_t lo =
      b.offset + len * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(ranks);
  std::uint64_t hi =
      b.offset + len * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(ranks);
  std::ifstream in(file, std::ios::binary);
  // Move both ends to line starts: a line belongs to the rank whose range
  // holds its first byte.
  const auto line_start = [&](std::uint64_t pos) {
    if (pos <= b.offset) return b.offset;
    if (pos >= b.end) return b.end;
    in.seekg(static_cast<std::streamoff>(pos - 1));
    std::string rest;
    std::getline(in, rest);  // up to the newline at or after pos-1
    return in ? static_cast<std::uint64_t>(in.tellg()) : b.end;
  };
  lo = line_start(lo);
  hi = line_start(hi);
  std::string text(hi > lo ? hi - lo : 0, '\0');
  in.clear();
  in.seekg(static_cast<std::streamoff>(lo));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (static_cast<std::uint64_t>(in.gcount()) != text.size())
    throw IoError(fmt::format("{}: read {} of {} bytes at offset {}", file.string(), in.gcount(),
                              text.size(), lo));
  return text;
}

template <Value T, Index I>
DistMatrix<T, I> read_each_rank(MPI_Comm comm, const std::filesystem::path& file,
                                const DistOptions& options) {
  const auto [me, P] = detail::comm_info(comm);
  std::string error;
  auto kind = detail::ErrorKind::InvalidInput;
  io::MmHeader h;
  Coo<T, std::int64_t> mine;
  try {
    if (file.extension() == ".gz")
      throw Unsupported(
          fmt::format("{}: ReadMode::EachRank reads plain files; a compressed file "
                      "is read with ReadMode::RootDistributes",
                      file.string()));
    if (options.partition != PartitionKind::Nnz)
      throw Unsupported(
          "ReadMode::EachRank partitions by nonzeros; a METIS partition needs "
          "ReadMode::RootDistributes");
    h = io::read_header(file);
    if (!h.coordinate)
      throw Unsupported(
          fmt::format("{}: ReadMode::EachRank reads coordinate files; an array file "
                      "is read with ReadMode::RootDistributes",
                      file.string()));
    if (h.rows != h.cols)
      throw InvalidInput(fmt::format("{}: the matrix is {}x{}; distributed matrices are square",
                                     file.string(), h.rows, h.cols));
    const Body b = locate_body(file);
    std::string share = read_share(file, b, me, P);
    // Parse the share as a file of its own: the banner, a size line with its
    // entry count, the entries (line numbers in messages count from there).
    const std::string text =
        fmt::format("{}\n{} {} {}\n", b.banner, h.rows, h.cols, data_lines(share)) + share;
    share = {};
    mine = io::parse_coo<T, std::int64_t>(
        text, fmt::format("{} (rank {}'s share, from its first entry)", file.string(), me));
  } catch (const Unsupported& e) {
    error = e.what();
    kind = detail::ErrorKind::Unsupported;
  } catch (const Error& e) {
    error = e.what();
  }
  agree(comm, error, kind);

  // Nonzeros per row over all ranks, then the partition (the same on every
  // rank), then every entry to its owner.
  const std::int64_t n = h.rows;
  std::vector<std::int64_t> row_nnz(static_cast<std::size_t>(n), 0);
  const auto ri = mine.row_idx().host_span();
  const auto ci = mine.col_idx().host_span();
  const auto va = mine.values().host_span();
  for (auto r : ri)
    ++row_nnz[static_cast<std::size_t>(r)];
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, row_nnz.data(), mpi_count(n, "row counts"), MPI_INT64_T,
                          MPI_SUM, comm),
            "MPI_Allreduce");
  const Partition p = partition_by_nnz(row_nnz, P);
  row_nnz = {};

  std::vector<int> scount(static_cast<std::size_t>(P), 0), sdispl(static_cast<std::size_t>(P), 0),
      rcount(static_cast<std::size_t>(P)), rdispl(static_cast<std::size_t>(P), 0);
  for (auto r : ri)
    ++scount[static_cast<std::size_t>(p.owner(r))];
  for (int r = 1; r < P; ++r)
    sdispl[static_cast<std::size_t>(r)] =
        sdispl[static_cast<std::size_t>(r) - 1] + scount[static_cast<std::size_t>(r) - 1];
  std::vector<std::int64_t> srow(ri.size()), scol(ri.size());
  std::vector<T> sval(ri.size());
  {
    std::vector<int> at = sdispl;
    for (std::size_t k = 0; k < ri.size(); ++k) {
      const auto o = static_cast<std::size_t>(p.owner(ri[k]));
      const auto d = static_cast<std::size_t>(at[o]++);
      srow[d] = p.local_index(ri[k]);
      scol[d] = ci[k];
      sval[d] = va[k];
    }
  }
  mine = {};
  check_mpi(MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, comm),
            "MPI_Alltoall");
  std::int64_t total = rcount[0];
  for (int r = 1; r < P; ++r) {
    rdispl[static_cast<std::size_t>(r)] =
        rdispl[static_cast<std::size_t>(r) - 1] + rcount[static_cast<std::size_t>(r) - 1];
    total += rcount[static_cast<std::size_t>(r)];
  }
  mpi_count(total, "read_matrix_market: entries received by one rank");
  std::vector<std::int64_t> rrow(static_cast<std::size_t>(total)), rcol(rrow.size());
  std::vector<T> rval(rrow.size());
  check_mpi(MPI_Alltoallv(srow.data(), scount.data(), sdispl.data(), MPI_INT64_T, rrow.data(),
                          rcount.data(), rdispl.data(), MPI_INT64_T, comm),
            "MPI_Alltoallv");
  check_mpi(MPI_Alltoallv(scol.data(), scount.data(), sdispl.data(), MPI_INT64_T, rcol.data(),
                          rcount.data(), rdispl.data(), MPI_INT64_T, comm),
            "MPI_Alltoallv");
  check_mpi(MPI_Alltoallv(sval.data(), scount.data(), sdispl.data(), mpi_type<T>(), rval.data(),
                          rcount.data(), rdispl.data(), mpi_type<T>(), comm),
            "MPI_Alltoallv");

  // The received entries as this rank's rows (the builder sorts and sums).
  LocalRows<T> rows;
  const std::int64_t n_local = p.local_size(me);
  rows.row_ptr.assign(static_cast<std::size_t>(n_local) + 1, 0);
  for (auto r : rrow)
    ++rows.row_ptr[static_cast<std::size_t>(r) + 1];
  for (std::size_t i = 0; i < static_cast<std::size_t>(n_local); ++i)
    rows.row_ptr[i + 1] += rows.row_ptr[i];
  rows.cols.resize(rrow.size());
  rows.values.resize(rrow.size());
  std::vector<std::int64_t> at(rows.row_ptr.begin(), rows.row_ptr.end() - 1);
  for (std::size_t k = 0; k < rrow.size(); ++k) {
    const auto d = static_cast<std::size_t>(at[static_cast<std::size_t>(rrow[k])]++);
    rows.cols[d] = rcol[k];
    rows.values[d] = rval[k];
  }
  return DistMatrix<T, I>::from_local_rows(comm, p, rows, options);
}

}  // namespace

template <Value T, Index I>
DistMatrix<T, I> read_matrix_market(MPI_Comm comm, const std::filesystem::path& file, ReadMode mode,
                                    const DistOptions& options) {
  if (mode == ReadMode::EachRank) return read_each_rank<T, I>(comm, file, options);
  const auto [me, P] = detail::comm_info(comm);
  (void)P;
  std::string error;
  Csr<T, std::int64_t> A;
  if (me == 0) {
    try {
      A = io::read_csr<T, std::int64_t>(file);
    } catch (const Error& e) {
      error = e.what();
    }
  }
  agree(comm, error);
  return DistMatrix<T, I>::from_global(comm, 0, A, options);
}

#define SPX_INST(T, I)                                                                           \
  template DistMatrix<T, I> read_matrix_market(MPI_Comm, const std::filesystem::path&, ReadMode, \
                                               const DistOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::dist

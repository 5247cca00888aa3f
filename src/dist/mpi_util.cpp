// MPI helpers of the distributed layer.
#include "dist/mpi_util.hpp"

#include <vector>

#include <fmt/format.h>

namespace spx::dist::detail {

void check_mpi(int rc, std::string_view call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(
      fmt::format("{} failed: {}", call, std::string_view(text, static_cast<std::size_t>(len))));
}

int mpi_count(std::int64_t n, std::string_view what) {
  if (n > INT_MAX)
    throw Unsupported(
        fmt::format("{}: {} elements in one MPI message exceed the {} an int count "
                    "allows",
                    what, n, INT_MAX));
  return static_cast<int>(n);
}

CommInfo comm_info(MPI_Comm comm) {
  CommInfo c;
  check_mpi(MPI_Comm_rank(comm, &c.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &c.size), "MPI_Comm_size");
  return c;
}

void agree(MPI_Comm comm, const std::string& error, ErrorKind kind) {
  const CommInfo c = comm_info(comm);
  int mine = error.empty() ? c.size : c.rank, first = c.size;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == c.size) return;
  int head[2] = {static_cast<int>(kind), static_cast<int>(error.size())};
  check_mpi(MPI_Bcast(head, 2, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = c.rank == first ? error : std::string(static_cast<std::size_t>(head[1]), ' ');
  check_mpi(MPI_Bcast(text.data(), head[1], MPI_CHAR, first, comm), "MPI_Bcast");
  const std::string message = fmt::format("rank {}: {}", first, text);
  switch (static_cast<ErrorKind>(head[0])) {
    case ErrorKind::DimensionMismatch:
      throw DimensionMismatch(message);
    case ErrorKind::Unsupported:
      throw Unsupported(message);
    default:
      throw InvalidInput(message);
  }
}

}  // namespace spx::dist::detail

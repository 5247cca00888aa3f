// MPI helpers of the distributed layer: checked calls, datatypes, counts
// that must fit an int, and errors raised on every rank together.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <string_view>

#include <mpi.h>

#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::dist::detail {

/// Throws Error naming the MPI call and MPI's message when rc is not
/// MPI_SUCCESS (communicators here return errors: MPI_ERRORS_RETURN is not
/// set by SpX, so with MPI's default handler a failure aborts first).
void check_mpi(int rc, std::string_view call);

template <Value T>
MPI_Datatype mpi_type() {
  return std::same_as<T, float> ? MPI_FLOAT : MPI_DOUBLE;
}

/// n as an MPI count; Unsupported naming `what` when it exceeds INT_MAX.
int mpi_count(std::int64_t n, std::string_view what);

/// The kinds of error agree() raises.
enum class ErrorKind : int { InvalidInput, DimensionMismatch, Unsupported };

/// Collective: every rank passes its own error ("" when it has none). When
/// any rank has one, every rank throws the error of the lowest such rank,
/// prefixed with "rank k: ", so that no rank is left waiting in a later
/// collective call.
void agree(MPI_Comm comm, const std::string& error, ErrorKind kind = ErrorKind::InvalidInput);

struct CommInfo {
  int rank = 0;
  int size = 1;
};
CommInfo comm_info(MPI_Comm comm);

}  // namespace spx::dist::detail

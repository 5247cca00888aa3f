// Uses the installed SpX's distributed layer (spx::dist): rank 0 generates a
// stencil, every rank gets its rows, and the distributed product of every
// rank's rows is checked against a plain loop over the whole matrix.
// Run under mpirun (.ci/run: 2 ranks).
#include <cmath>
#include <cstdio>
#include <vector>

#include <mpi.h>

#include <spx/dist/dist.hpp>
#include <spx/spx.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank generates the same matrix for the check; only rank 0's is read.
  const auto A = spx::generate<double, int>(spx::parse_gen_spec("stencil2d:n=48,points=9"));
  const auto D = spx::dist::DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A);
  const auto rows = D.partition().rows_of(rank);
  std::vector<double> x(static_cast<std::size_t>(A.cols())), want(x.size(), 0.0);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = 1.0 + 0.25 * static_cast<double>(j % 7);
  for (std::size_t i = 0; i < want.size(); ++i)
    for (int k = A.row_ptr()[i]; k < A.row_ptr()[i + 1]; ++k)
      want[i] += A.values()[k] * x[static_cast<std::size_t>(A.col_idx()[k])];
  std::vector<double> xl(rows.size()), yl(rows.size(), std::nan(""));
  for (std::size_t k = 0; k < rows.size(); ++k)
    xl[k] = x[static_cast<std::size_t>(rows[k])];
  D.apply(1.0, spx::VectorView<const double>(xl), 0.0, spx::VectorView<double>(yl));
  int bad = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const double w = want[static_cast<std::size_t>(rows[k])];
    if (!(std::abs(yl[k] - w) <= 1e-12 * (1.0 + std::abs(w)))) {
      if (bad == 0)
        std::printf("FAIL rank %d: y[%lld] = %g, expected %g\n", rank,
                    static_cast<long long>(rows[k]), yl[k], w);
      ++bad;
    }
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s (%d ranks, %lld ghosts on rank 0)\n",
                total == 0 ? "spx_consumer_dist: all checks passed" : "spx_consumer_dist: FAILED",
                size, static_cast<long long>(D.ghosts()));
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

// The distributed layer against the single-process library: every rank
// builds the same global matrix and vectors (same generator, same seed from
// rank 0), runs the distributed operation and compares its own rows with
// spx::spmv / spx::spmm / a single-process CG on the global matrix.
// Tolerances are scaled by magnitudes: |y - y_ref| <= c·eps·(|β||y0| + |α|Σ|a||x|).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include "spx/dist/dist.hpp"
#include "spx/generate.hpp"
#include "spx/io/matrix_market.hpp"
#include "spx/spx.hpp"

#if SPX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace spx::dist {
namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

/// A seed drawn on rank 0 for this run, the same on every rank.
std::uint64_t shared_seed() {
  std::uint64_t s = std::random_device{}();
  MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return s;
}

/// Values ±U[0.5, 1.5]: never zero, mixed signs.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<T> v(n);
  for (auto& x : v)
    x = static_cast<T>((g() & 1) ? u(g) : -u(g));
  return v;
}

/// A CSR from (row, column, value) triples, columns sorted.
template <class T, class I>
Csr<T, I> csr_of(std::int64_t n, std::vector<std::tuple<std::int64_t, std::int64_t, T>> e) {
  std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<I> rp(static_cast<std::size_t>(n) + 1, 0), ci;
  std::vector<T> v;
  for (const auto& [r, c, x] : e) {
    ++rp[static_cast<std::size_t>(r) + 1];
    ci.push_back(static_cast<I>(c));
    v.push_back(x);
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
    rp[i + 1] += rp[i];
  return Csr<T, I>(static_cast<I>(n), static_cast<I>(n), Array<I>(rp), Array<I>(ci), Array<T>(v));
}

/// The test matrices, the same on every rank.
enum class Kind { Stencil, Random, DiagonalHalf, Diagonal, Tiny };
const char* name(Kind k) {
  switch (k) {
    case Kind::Stencil:
      return "stencil2d";
    case Kind::Random:
      return "random (all-to-all halos)";
    case Kind::DiagonalHalf:
      return "first half diagonal";
    case Kind::Diagonal:
      return "diagonal";
    default:
      return "tiny (more ranks than rows)";
  }
}

template <class T, class I>
Csr<T, I> matrix(Kind k, std::uint64_t seed) {
  GenSpec s;
  s.seed = seed % 1000 + 1;
  switch (k) {
    case Kind::Stencil:
      s.kind = Generator::Stencil2d;
      s.n = 17;
      s.points = 9;
      return generate<T, I>(s);
    case Kind::Random:
      s.kind = Generator::Random;
      s.n = 240;
      s.degree = 8;
      return generate<T, I>(s);
    case Kind::Tiny: {
      std::vector<std::tuple<std::int64_t, std::int64_t, T>> e;
      const auto v = random_values<T>(4, seed);
      e.emplace_back(0, 0, v[0]);
      e.emplace_back(0, 1, v[1]);
      e.emplace_back(1, 0, v[2]);
      e.emplace_back(1, 1, v[3]);
      return csr_of<T, I>(2, std::move(e));
    }
    default: {
      // Diagonal: every rank's rows touch only its own columns. DiagonalHalf:
      // the first half of the rows is diagonal, the second half random over
      // all columns (with the equal-rows partition of the tests, rank 0 has
      // no off-rank columns and still sends to the others).
      const std::int64_t n = 120;
      const auto v = random_values<T>(static_cast<std::size_t>(n) * 6, seed);
      std::mt19937_64 g(seed + 7);
      std::vector<std::tuple<std::int64_t, std::int64_t, T>> e;
      std::size_t at = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        e.emplace_back(i, i, v[at++]);
        if (k == Kind::Diagonal || i < n / 2) continue;
        for (int d = 0; d < 4; ++d) {
          const auto j = static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(n));
          bool seen = false;
          for (const auto& t : e)
            seen = seen || (std::get<0>(t) == i && std::get<1>(t) == j);
          if (!seen) e.emplace_back(i, j, v[at++]);
        }
      }
      return csr_of<T, I>(n, std::move(e));
    }
  }
}

/// Equal row counts (the remainder on the last ranks).
Partition equal_rows(std::int64_t n, int P) {
  std::vector<GlobalIndex> off(static_cast<std::size_t>(P) + 1);
  for (int r = 0; r <= P; ++r)
    off[static_cast<std::size_t>(r)] = n * r / P;
  return Partition::contiguous(std::move(off));
}

/// Σ|a_ij||x_j| per row, for the tolerance.
template <class T, class I>
std::vector<double> magnitudes(const Csr<T, I>& A, const std::vector<T>& x, std::int64_t n = 1,
                               std::int64_t col = 0) {
  const auto rp = A.row_ptr().host_span();
  const auto ci = A.col_idx().host_span();
  const auto va = A.values().host_span();
  std::vector<double> m(static_cast<std::size_t>(A.rows()), 0);
  for (std::size_t i = 0; i < m.size(); ++i)
    for (auto k = rp[i]; k < rp[i + 1]; ++k)
      m[i] += std::abs(static_cast<double>(va[static_cast<std::size_t>(k)])) *
              std::abs(static_cast<double>(
                  x[static_cast<std::size_t>(ci[static_cast<std::size_t>(k)]) * n + col]));
  return m;
}

template <class T>
double tolerance(double magnitude, double beta_y) {
  return 32 * std::numeric_limits<T>::epsilon() * (beta_y + magnitude) +
         std::numeric_limits<T>::min();
}

/// Runs y = αAx + βy distributed and compares this rank's rows with the
/// single-process product.
template <class T, class I, class J>
void check_spmv(const DistMatrix<T, I>& D, const Csr<T, J>& A, std::uint64_t seed,
                const std::string& what) {
  SCOPED_TRACE(fmt::format("{}, seed {}", what, seed));
  const auto n = static_cast<std::size_t>(A.rows());
  const auto x = random_values<T>(n, seed + 1);
  const auto y0 = random_values<T>(n, seed + 2);
  const auto rows = D.partition().rows_of(D.rank());
  ASSERT_EQ(static_cast<std::int64_t>(rows.size()), D.local_rows());
  std::vector<T> xl(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k)
    xl[k] = x[static_cast<std::size_t>(rows[k])];
  const auto mag = magnitudes(A, x);
  for (const auto& [alpha, beta] : {std::pair<T, T>{1, 0}, {T(-0.75), T(2)}, {T(0.5), T(1)}}) {
    std::vector<T> yref = y0, yl(rows.size());
    spmv(alpha, A, x, beta, yref);
    for (std::size_t k = 0; k < rows.size(); ++k)
      yl[k] = beta == T(0) ? std::numeric_limits<T>::quiet_NaN()
                           : y0[static_cast<std::size_t>(rows[k])];
    D.apply(alpha, VectorView<const T>(xl), beta, VectorView<T>(yl));
    bool nonzero = false;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto g = static_cast<std::size_t>(rows[k]);
      const double tol = tolerance<T>(std::abs(alpha) * mag[g], std::abs(beta * y0[g]));
      ASSERT_LE(std::abs(static_cast<double>(yl[k]) - static_cast<double>(yref[g])), tol)
          << "row " << g << " (local " << k << "): " << yl[k] << " vs " << yref[g] << ", alpha "
          << alpha << " beta " << beta;
      nonzero = nonzero || yl[k] != T(0);
    }
    if (!rows.empty()) {
      EXPECT_TRUE(nonzero) << "all-zero result";
    }
  }
}

struct Layout2 {
  Format local, nonlocal;
};
const std::vector<Layout2> kLayouts = {{Format::Csr, Format::Csr},  {Format::Coo, Format::Csr},
                                       {Format::Sell, Format::Coo}, {Format::Ell, Format::Hyb},
                                       {Format::Hyb, Format::Jad},  {Format::Csc, Format::Csc},
                                       {Format::Jad, Format::Sell}};

TEST(DistSpmv, MatchesSingleProcessForFormatsAndPartitions) {
  const std::uint64_t seed = shared_seed();
  for (Kind k : {Kind::Stencil, Kind::Random, Kind::DiagonalHalf, Kind::Diagonal, Kind::Tiny}) {
    const auto A = matrix<double, std::int32_t>(k, seed);
    std::vector<PartitionKind> parts{PartitionKind::Nnz};
    if (metis_available()) parts.push_back(PartitionKind::Metis);
    for (PartitionKind pk : parts)
      for (const auto& l : kLayouts) {
        DistOptions o;
        o.local_format = l.local;
        o.nonlocal_format = l.nonlocal;
        o.partition = pk;
        // Only the root's matrix is read; the others may pass an empty one.
        const Csr<double, std::int32_t> none;
        const auto D =
            DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, rank() == 0 ? A : none, o);
        check_spmv(D, A, seed,
                   fmt::format("{}, {} partition, local {} / nonlocal {}", name(k),
                               pk == PartitionKind::Nnz ? "nnz" : "metis", to_string(l.local),
                               to_string(l.nonlocal)));
      }
  }
}

TEST(DistSpmv, OtherTypesAndAGlobal64BitMatrix) {
  const std::uint64_t seed = shared_seed();
  // f32 blocks with 32-bit local indices from a global CSR with 64-bit ones,
  // and f64 with 64-bit local indices.
  const auto A = matrix<float, std::int64_t>(Kind::Random, seed);
  const auto D = DistMatrix<float, std::int32_t>::from_global(MPI_COMM_WORLD, 0, A);
  check_spmv(D, A, seed, "f32, i64 global, i32 local");
  const auto B = matrix<double, std::int64_t>(Kind::Stencil, seed);
  const auto E = DistMatrix<double, std::int64_t>::from_global(MPI_COMM_WORLD, 0, B);
  check_spmv(E, B, seed, "f64, i64 local");
}

TEST(DistSpmv, ExplicitPartitionsGiveTheRankWithoutOffRankColumns) {
  const std::uint64_t seed = shared_seed();
  const auto A = matrix<double, std::int32_t>(Kind::DiagonalHalf, seed);
  const Partition p = equal_rows(A.rows(), ranks());
  const auto D = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A, p);
  if (rank() == 0) {
    EXPECT_EQ(D.ghosts(), 0);
    if (ranks() > 1) {
      EXPECT_GT(D.sends(), 0);
    }
  }
  check_spmv(D, A, seed, "first half diagonal, equal rows");
  // All-to-all: with random columns every rank needs values of every other.
  const auto R = matrix<double, std::int32_t>(Kind::Random, seed);
  const auto E =
      DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, R, equal_rows(R.rows(), ranks()));
  EXPECT_EQ(static_cast<int>(E.recv_ranks().size()), ranks() - 1);
  EXPECT_EQ(static_cast<int>(E.send_ranks().size()), ranks() - 1);
  // The reported halo volume is what the ranks receive.
  std::int64_t ghosts = E.ghosts(), total = 0;
  MPI_Allreduce(&ghosts, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, halo_volume(R, E.partition()));
  // A general partition (round robin) through from_owners.
  std::vector<int> owner(static_cast<std::size_t>(R.rows()));
  for (std::size_t i = 0; i < owner.size(); ++i)
    owner[i] = static_cast<int>(i % static_cast<std::size_t>(ranks()));
  const auto F =
      DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, R, Partition::from_owners(owner, ranks()));
  check_spmv(F, R, seed, "random, round-robin owners");
}

TEST(DistSpmv, NonlocalBlockKeepsOnlyTheRowsThatTouchGhosts) {
  const std::uint64_t seed = shared_seed();
  // A stencil cut in contiguous rows: only the rows next to a cut touch a
  // ghost, so the nonlocal block is compact and its product is scattered.
  // (60×60 grid: at most 4 ranks keep ≥ 15 grid rows each, 4 of them next to a cut.)
  GenSpec spec;
  spec.kind = Generator::Stencil2d;
  spec.n = 60;
  spec.points = 9;
  spec.seed = seed % 1000 + 1;
  const auto A = generate<double, std::int32_t>(spec);
  const auto D = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A);
  const auto height = [](const Matrix<double, std::int32_t>& M) {
    return std::visit([](const auto& B) { return static_cast<std::int64_t>(B.rows()); }, M);
  };
  if (D.ghosts() > 0) {
    EXPECT_FALSE(D.nonlocal_rows().empty());
    EXPECT_LE(static_cast<std::int64_t>(D.nonlocal_rows().size()), D.local_rows() / 2);
    EXPECT_EQ(height(D.nonlocal_block()), static_cast<std::int64_t>(D.nonlocal_rows().size()));
    EXPECT_TRUE(std::is_sorted(D.nonlocal_rows().begin(), D.nonlocal_rows().end()));
  }
  check_spmv(D, A, seed, "stencil, compact nonlocal block");
  // Random columns: every row touches a ghost, the block keeps every row.
  const auto R = matrix<double, std::int32_t>(Kind::Random, seed);
  const auto E = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, R);
  if (E.ghosts() > 0) {
    EXPECT_TRUE(E.nonlocal_rows().empty());
    EXPECT_EQ(height(E.nonlocal_block()), E.local_rows());
  }
  // add_nonlocal checks its operands' shapes.
  std::vector<double> h(static_cast<std::size_t>(D.ghosts()) + 1, 1.0),
      y(static_cast<std::size_t>(D.local_rows()), 0.0);
  EXPECT_THROW(D.add_nonlocal(1.0, DenseView<const double>{h.data(), D.ghosts() + 1, 1, 1},
                              DenseView<double>{y.data(), D.local_rows(), 1, 1}),
               DimensionMismatch);
}

TEST(DistSpmv, FromEachRanksOwnRows) {
  const std::uint64_t seed = shared_seed();
  const auto A = matrix<double, std::int32_t>(Kind::Stencil, seed);
  const Partition p = partition_by_nnz(A, ranks());
  LocalRows<double> rows;
  const auto rp = A.row_ptr().host_span();
  const auto ci = A.col_idx().host_span();
  const auto va = A.values().host_span();
  // Entries of each row given in reverse order: the builder sorts them.
  for (GlobalIndex g : p.rows_of(rank())) {
    for (auto k = rp[static_cast<std::size_t>(g) + 1]; k-- > rp[static_cast<std::size_t>(g)];) {
      rows.cols.push_back(ci[static_cast<std::size_t>(k)]);
      rows.values.push_back(va[static_cast<std::size_t>(k)]);
    }
    rows.row_ptr.push_back(static_cast<std::int64_t>(rows.cols.size()));
  }
  const auto D = DistMatrix<double>::from_local_rows(MPI_COMM_WORLD, A.rows(), rows);
  check_spmv(D, A, seed, "from local rows");
}

TEST(DistSpmv, ReadsMatrixMarketBothWays) {
  const std::uint64_t seed = shared_seed();
  const auto A = matrix<double, std::int32_t>(Kind::Random, seed);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / fmt::format("spx_dist_test_{}.mtx", seed);
  if (rank() == 0) io::write(file, A);
  MPI_Barrier(MPI_COMM_WORLD);
  for (ReadMode mode : {ReadMode::EachRank, ReadMode::RootDistributes}) {
    const auto D = read_matrix_market<double>(MPI_COMM_WORLD, file, mode);
    check_spmv(D, A, seed, mode == ReadMode::EachRank ? "each rank reads" : "rank 0 reads");
  }
  // EachRank reads plain files: a compressed one is refused on every rank,
  // naming the other mode.
  EXPECT_THROW(
      {
        try {
          read_matrix_market<double>(MPI_COMM_WORLD, file.string() + ".gz", ReadMode::EachRank);
        } catch (const Unsupported& e) {
          EXPECT_NE(std::string(e.what()).find("RootDistributes"), std::string::npos) << e.what();
          throw;
        }
      },
      Unsupported);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) std::filesystem::remove(file);
}

TEST(DistSpmm, MatchesSingleProcess) {
  const std::uint64_t seed = shared_seed();
  for (Kind k : {Kind::Stencil, Kind::Random, Kind::Tiny}) {
    const auto A = matrix<double, std::int32_t>(k, seed);
    for (const auto& l : {kLayouts[0], kLayouts[2], kLayouts[3]}) {
      DistOptions o;
      o.local_format = l.local;
      o.nonlocal_format = l.nonlocal;
      const auto D = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A, o);
      SCOPED_TRACE(fmt::format("{}, {} / {}, seed {}", name(k), to_string(l.local),
                               to_string(l.nonlocal), seed));
      const std::int64_t n = 3, m = A.rows();
      const auto B = random_values<double>(static_cast<std::size_t>(m * n), seed + 3);  // row-major
      const auto C0 = random_values<double>(static_cast<std::size_t>(m * n), seed + 4);
      const auto rows = D.partition().rows_of(D.rank());
      const auto ml = static_cast<std::int64_t>(rows.size());
      for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (const auto& [alpha, beta] : {std::pair<double, double>{1, 0}, {-0.5, 1.5}}) {
          std::vector<double> Cref = C0;
          spmm(alpha, A, DenseView<const double>{B.data(), m, n, n, Layout::RowMajor, Space::Host},
               beta, DenseView<double>{Cref.data(), m, n, n, Layout::RowMajor, Space::Host});
          std::vector<double> Bl(static_cast<std::size_t>(ml * n)), Cl(Bl.size());
          const auto at = [&](std::int64_t i, std::int64_t j) {
            return static_cast<std::size_t>(layout == Layout::RowMajor ? i * n + j : i + j * ml);
          };
          for (std::int64_t i = 0; i < ml; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
              const auto g = static_cast<std::size_t>(rows[static_cast<std::size_t>(i)]);
              Bl[at(i, j)] = B[g * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)];
              Cl[at(i, j)] =
                  beta == 0 ? std::numeric_limits<double>::quiet_NaN()
                            : C0[g * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)];
            }
          const std::int64_t ld = layout == Layout::RowMajor ? n : std::max<std::int64_t>(ml, 1);
          D.apply(alpha, DenseView<const double>{Bl.data(), ml, n, ld, layout, Space::Host}, beta,
                  DenseView<double>{Cl.data(), ml, n, ld, layout, Space::Host});
          for (std::int64_t j = 0; j < n; ++j) {
            const auto mag = magnitudes(A, B, n, j);
            for (std::int64_t i = 0; i < ml; ++i) {
              const auto g = static_cast<std::size_t>(rows[static_cast<std::size_t>(i)]);
              const auto gj = g * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
              ASSERT_LE(std::abs(Cl[at(i, j)] - Cref[gj]),
                        tolerance<double>(std::abs(alpha) * mag[g], std::abs(beta * C0[gj])))
                  << "row " << g << " column " << j;
            }
          }
        }
    }
  }
}

/// A symmetric positive definite matrix: a 2D grid Laplacian with random
/// symmetric edge weights and a diagonal of the row sum plus 0.1.
Csr<double, std::int32_t> spd(std::int64_t side, std::uint64_t seed) {
  const std::int64_t n = side * side;
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> e;
  std::vector<double> diag(static_cast<std::size_t>(n), 0.1);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (std::int64_t i = 0; i < side; ++i)
    for (std::int64_t j = 0; j < side; ++j) {
      const std::int64_t a = i * side + j;
      for (std::int64_t b : {j + 1 < side ? a + 1 : -1, i + 1 < side ? a + side : -1}) {
        if (b < 0) continue;
        const double w = u(g);
        e.emplace_back(a, b, -w);
        e.emplace_back(b, a, -w);
        diag[static_cast<std::size_t>(a)] += w;
        diag[static_cast<std::size_t>(b)] += w;
      }
    }
  for (std::int64_t a = 0; a < n; ++a)
    e.emplace_back(a, a, diag[static_cast<std::size_t>(a)]);
  return csr_of<double, std::int32_t>(n, std::move(e));
}

TEST(DistCg, ConvergesToTheSingleProcessSolution) {
  const std::uint64_t seed = shared_seed();
  const auto A = spd(24, seed);
  const auto n = static_cast<std::size_t>(A.rows());
  const auto b = random_values<double>(n, seed + 5);
  const double tol = 1e-10;
  // Single-process CG with SpX's own product.
  std::vector<double> x(n, 0.0), r = b, p = b, q(n);
  const auto dotp = [](const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (std::size_t i = 0; i < u.size(); ++i)
      s += u[i] * v[i];
    return s;
  };
  const double bnorm = std::sqrt(dotp(b, b));
  double rr = dotp(r, r);
  int serial_iterations = 0;
  while (std::sqrt(rr) > tol * bnorm && serial_iterations < 1000) {
    spmv(1.0, A, p, 0.0, q);
    const double alpha = rr / dotp(p, q);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    const double next = dotp(r, r);
    for (std::size_t i = 0; i < n; ++i)
      p[i] = r[i] + next / rr * p[i];
    rr = next;
    ++serial_iterations;
  }
  ASSERT_LE(std::sqrt(rr), tol * bnorm);

  for (PartitionKind pk : {PartitionKind::Nnz, PartitionKind::Metis}) {
    if (pk == PartitionKind::Metis && !metis_available()) continue;
    DistOptions o;
    o.partition = pk;
    const auto D = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A, o);
    DistVector<double> bd(D), xd(D);
    const auto rows = D.partition().rows_of(D.rank());
    for (std::size_t k = 0; k < rows.size(); ++k)
      bd.local()[k] = b[static_cast<std::size_t>(rows[k])];
    fill(xd, 0.0);
    const CgResult res = cg(D, bd, xd, CgOptions{tol, 1000});
    SCOPED_TRACE(
        fmt::format("{} partition, seed {}", pk == PartitionKind::Nnz ? "nnz" : "metis", seed));
    EXPECT_TRUE(res.converged) << res.relative_residual;
    EXPECT_NEAR(res.iterations, serial_iterations, 2);
    double err = 0, xmax = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      err = std::max(err, std::abs(xd.local()[k] - x[static_cast<std::size_t>(rows[k])]));
      xmax = std::max(xmax, std::abs(x[static_cast<std::size_t>(rows[k])]));
    }
    EXPECT_LE(err, 1e-7 * std::max(xmax, 1.0));
    // The vector operations agree with the serial ones.
    EXPECT_NEAR(dot(bd, bd), dotp(b, b), 1e-12 * dotp(b, b));
  }
}

TEST(DistSpmv, ReadsASymmetricFileBothWays) {
  // The lower triangle of a symmetric matrix; every rank's share mirrors its
  // own entries. The reference is SpX's single-process reader.
  const std::uint64_t seed = shared_seed();
  const auto S = spd(12, seed);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / fmt::format("spx_dist_sym_{}.mtx", seed);
  if (rank() == 0) {
    std::string text;
    std::int64_t lower = 0;
    const auto rp = S.row_ptr().host_span();
    const auto ci = S.col_idx().host_span();
    const auto va = S.values().host_span();
    for (std::int64_t i = 0; i < S.rows(); ++i)
      for (auto k = rp[static_cast<std::size_t>(i)]; k < rp[static_cast<std::size_t>(i) + 1]; ++k)
        if (ci[static_cast<std::size_t>(k)] <= i) {
          text += fmt::format("{} {} {:.17g}\n", i + 1, ci[static_cast<std::size_t>(k)] + 1,
                              va[static_cast<std::size_t>(k)]);
          ++lower;
        }
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(
        f, "%%%%MatrixMarket matrix coordinate real symmetric\n%% a comment\n%lld %lld %lld\n",
        static_cast<long long>(S.rows()), static_cast<long long>(S.rows()),
        static_cast<long long>(lower));
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const auto A = io::read_csr<double, std::int32_t>(file);
  EXPECT_EQ(A.nnz(), S.nnz());
  for (ReadMode mode : {ReadMode::EachRank, ReadMode::RootDistributes}) {
    const auto D = read_matrix_market<double>(MPI_COMM_WORLD, file, mode);
    check_spmv(
        D, A, seed,
        mode == ReadMode::EachRank ? "symmetric, each rank reads" : "symmetric, rank 0 reads");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) std::filesystem::remove(file);
}

TEST(DistErrors, BadInputIsNamedOnEveryRank) {
  const auto A = matrix<double, std::int32_t>(Kind::Stencil, 1);
  const int P = ranks();
  // A partition of the wrong length.
  EXPECT_THROW(
      {
        try {
          DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A, equal_rows(A.rows() + 1, P));
        } catch (const InvalidInput& e) {
          EXPECT_NE(std::string(e.what()).find("partition of 290 rows"), std::string::npos)
              << e.what();
          throw;
        }
      },
      InvalidInput);
  // A partition over another number of ranks.
  EXPECT_THROW(DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A, equal_rows(A.rows(), P + 1)),
               InvalidInput);
  // A rank outside [0, P).
  std::vector<int> owner(static_cast<std::size_t>(A.rows()), 0);
  owner[5] = P;
  EXPECT_THROW(
      {
        try {
          Partition::from_owners(owner, P);
        } catch (const InvalidInput& e) {
          EXPECT_NE(std::string(e.what()).find("row 5 is assigned to rank"), std::string::npos)
              << e.what();
          throw;
        }
      },
      InvalidInput);
  EXPECT_THROW(Partition::contiguous({0, 5, 3}), InvalidInput);
  // Ranks that disagree on the global size.
  if (P > 1) {
    LocalRows<double> none;
    EXPECT_THROW(
        {
          try {
            DistMatrix<double>::from_local_rows(MPI_COMM_WORLD, rank() == 1 ? 7 : 0, none);
          } catch (const InvalidInput& e) {
            EXPECT_NE(std::string(e.what()).find("disagree on the global size"), std::string::npos)
                << e.what();
            throw;
          }
        },
        InvalidInput);
  }
  // Local rows whose count is not the partition's, and a column out of range.
  {
    LocalRows<double> rows;
    rows.row_ptr.assign(static_cast<std::size_t>(A.rows()) + 2, 0);
    EXPECT_THROW(DistMatrix<double>::from_local_rows(MPI_COMM_WORLD, equal_rows(A.rows(), P), rows),
                 InvalidInput);
    const Partition p = equal_rows(A.rows(), P);
    LocalRows<double> bad;
    bad.row_ptr.assign(static_cast<std::size_t>(p.local_size(rank())) + 1, 0);
    if (rank() == P - 1) {
      bad.cols.push_back(A.rows());
      bad.values.push_back(1.0);
      bad.row_ptr.back() = 1;
    }
    EXPECT_THROW(
        {
          try {
            DistMatrix<double>::from_local_rows(MPI_COMM_WORLD, p, bad);
          } catch (const InvalidInput& e) {
            EXPECT_NE(std::string(e.what()).find("outside [0, 289)"), std::string::npos)
                << e.what();
            throw;
          }
        },
        InvalidInput);
  }
  // NCCL is for device matrices.
  DistOptions nccl;
  nccl.exchange = Exchange::Nccl;
  EXPECT_THROW(DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A, nccl), Unsupported);
  // Vectors of the wrong local length.
  const auto D = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A);
  std::vector<double> x(static_cast<std::size_t>(D.local_rows()) + 1, 1.0), y(x.size());
  EXPECT_THROW(D.apply(1.0, VectorView<const double>(x), 0.0, VectorView<double>(y)),
               DimensionMismatch);
  EXPECT_THROW(DistVector<double>(MPI_COMM_WORLD, A.rows(), D.local_rows() + 1), InvalidInput);
  DistVector<double> u(D);
  DistVector<double> w(MPI_COMM_WORLD, A.rows(), rank() == 0 ? A.rows() : 0);
  if (P > 1) {
    EXPECT_THROW(axpy(1.0, u, w), DimensionMismatch);
  }
}

bool gpu_required() {
  const char* v = std::getenv("SPX_REQUIRE_GPU");
  return v != nullptr && std::string(v) == "1";
}

TEST(DistGpu, DeviceMatchesHost) {
  if (!cuda_available()) {
    if (gpu_required()) FAIL() << "SPX_REQUIRE_GPU=1 but no usable GPU";
    GTEST_SKIP() << "no usable GPU";
  }
  // One rank per GPU where there are enough (NCCL refuses two ranks on one
  // device); with fewer GPUs than ranks only the MPI exchange runs.
  int devices = 0;
#if SPX_HAVE_CUDA
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(rank() % devices), cudaSuccess);
#endif
  std::vector<Exchange> exchanges{Exchange::Mpi};
  if (devices >= ranks()) exchanges.push_back(Exchange::Auto);
  const std::uint64_t seed = shared_seed();
  // Random columns (every row touches a ghost: full-height nonlocal block)
  // and a stencil (a compact block, whose product is scattered into y; in
  // CSR and in CSC, the other format with a CUDA SpMM), each with both
  // exchanges.
  GenSpec grid;
  grid.kind = Generator::Stencil2d;
  grid.n = 60;
  grid.points = 9;
  grid.seed = seed % 1000 + 1;
  const auto random = matrix<double, std::int32_t>(Kind::Random, seed);
  const auto stencil = generate<double, std::int32_t>(grid);
  const std::vector<std::pair<const Csr<double, std::int32_t>*, Format>> cases{
      {&random, Format::Csr}, {&stencil, Format::Csr}, {&stencil, Format::Csc}};
  for (const auto& [Ap, nonlocal] : cases)
    for (Exchange ex : exchanges) {
      const auto& A = *Ap;
      SCOPED_TRACE(fmt::format("{} rows, nonlocal {}, exchange {}", A.rows(), to_string(nonlocal),
                               ex == Exchange::Mpi ? "mpi" : "auto"));
      DistOptions o;
      o.space = Space::Device;
      o.exchange = ex;
      o.nonlocal_format = nonlocal;
      const auto D = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A, o);
      const auto H = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, A);
      const auto x = random_values<double>(static_cast<std::size_t>(D.local_rows()), seed + 9);
      std::vector<double> yh(x.size());
      H.apply(1.0, VectorView<const double>(x), 0.0, VectorView<double>(yh));
      Array<double> dx = Array<double>(x).to(Space::Device), dy(x.size(), Space::Device);
      D.apply(1.0, VectorView<const double>(dx), 0.0, VectorView<double>(dy));
      const auto yd = dy.to_vector();
      for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(yd[i], yh[i], 1e-12 * (std::abs(yh[i]) + 10)) << "row " << i;
      // SpMM with two row-major columns.
      const std::int64_t m = D.local_rows();
      const auto X2 = random_values<double>(static_cast<std::size_t>(m * 2), seed + 10);
      std::vector<double> Y2h(X2.size());
      H.apply(1.0, DenseView<const double>{X2.data(), m, 2, 2, Layout::RowMajor, Space::Host}, 0.0,
              DenseView<double>{Y2h.data(), m, 2, 2, Layout::RowMajor, Space::Host});
      Array<double> dX2 = Array<double>(X2).to(Space::Device), dY2(X2.size(), Space::Device);
      D.apply(1.0, DenseView<const double>{dX2.data(), m, 2, 2, Layout::RowMajor, Space::Device},
              0.0, DenseView<double>{dY2.data(), m, 2, 2, Layout::RowMajor, Space::Device});
      const auto Y2d = dY2.to_vector();
      for (std::size_t i = 0; i < Y2h.size(); ++i)
        EXPECT_NEAR(Y2d[i], Y2h[i], 1e-12 * (std::abs(Y2h[i]) + 10)) << "entry " << i;
      // And column-major, into Y with beta = 1 (the scatter adds to what is there).
      std::vector<double> Y3h(X2.size(), 0.5);
      Array<double> dY3 = Array<double>(Y3h).to(Space::Device);
      H.apply(1.0, DenseView<const double>{X2.data(), m, 2, m, Layout::ColMajor, Space::Host}, 1.0,
              DenseView<double>{Y3h.data(), m, 2, m, Layout::ColMajor, Space::Host});
      D.apply(1.0, DenseView<const double>{dX2.data(), m, 2, m, Layout::ColMajor, Space::Device},
              1.0, DenseView<double>{dY3.data(), m, 2, m, Layout::ColMajor, Space::Device});
      const auto Y3d = dY3.to_vector();
      for (std::size_t i = 0; i < Y3h.size(); ++i)
        EXPECT_NEAR(Y3d[i], Y3h[i], 1e-12 * (std::abs(Y3h[i]) + 10)) << "entry " << i;
    }
  // CG on the device (vectors in device memory).
  const auto S = spd(16, seed);
  DistOptions o;
  o.space = Space::Device;
  o.exchange = exchanges.back();
  const auto D = DistMatrix<double>::from_global(MPI_COMM_WORLD, 0, S, o);
  DistVector<double> b(D), x(D);
  fill(b, 1.0);
  fill(x, 0.0);
  EXPECT_TRUE(cg(D, b, x, CgOptions{1e-10, 1000}).converged);
}

}  // namespace
}  // namespace spx::dist

// spx-dist: measurements of the distributed layer, run under mpirun.
//
//   mpirun -np P spx-dist bench [--gen SPEC | --mtx FILE] [--weak] [--n COLS] ...
//   mpirun -np P spx-dist read FILE          (each rank reads vs rank 0 distributes)
//
// A separate tool from `spx`, so that the main tool does not depend on MPI.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#if SPX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "spx/dist/dist.hpp"
#include "spx/generate.hpp"
#include "spx/spx.hpp"

namespace {

using namespace spx;
using namespace spx::dist;

int comm_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int comm_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Times f() `reps` times, every rank starting together; the median.
template <class F>
double timed(int reps, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < reps; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    t.push_back(MPI_Wtime() - t0);
  }
  return median(t);
}

struct BenchOptions {
  std::string gen = "stencil3d:n=48,points=27";
  std::string mtx;
  bool weak = false;
  int reps = 20;
  std::int64_t cols = 1;
  std::string local_format = "csr", nonlocal_format = "csr", partition = "nnz", precision = "f64";
  bool device = false;            ///< blocks and vectors on the rank's GPU (rank % GPUs)
  std::string exchange = "auto";  ///< auto, mpi or nccl
};

/// Waits for the device work of this rank (a no-op on the host).
void finish(bool device) {
#if SPX_HAVE_CUDA
  if (device && cudaDeviceSynchronize() != cudaSuccess)
    throw Error("spx-dist: cudaDeviceSynchronize failed");
#else
  (void)device;
#endif
}

/// One GPU per rank: rank r takes device r % (number of GPUs).
void pick_device(int rank) {
#if SPX_HAVE_CUDA
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 ||
      cudaSetDevice(rank % devices) != cudaSuccess)
    throw Unsupported("spx-dist bench --device: no usable GPU");
#else
  (void)rank;
  throw Unsupported("spx-dist bench --device: this build has no CUDA backend");
#endif
}

/// The generator spec scaled for weak scaling: about P times the rows.
GenSpec weak_spec(GenSpec s, int P) {
  switch (s.kind) {
    case Generator::Stencil3d:
      s.n = std::llround(static_cast<double>(s.n) * std::cbrt(P));
      break;
    case Generator::Stencil2d:
    case Generator::Fem:
    case Generator::Road:
      s.n = std::llround(static_cast<double>(s.n) * std::sqrt(P));
      break;
    case Generator::Rmat:
      s.scale += static_cast<int>(std::lround(std::log2(P)));
      break;
    default:
      s.n *= P;
  }
  return s;
}

template <Value T>
void bench(const BenchOptions& o) {
  const int me = comm_rank(), P = comm_size();
  DistOptions d;
  d.local_format = parse_format(o.local_format);
  d.nonlocal_format = parse_format(o.nonlocal_format);
  d.partition = o.partition == "metis" ? PartitionKind::Metis : PartitionKind::Nnz;
  const Space space = o.device ? Space::Device : Space::Host;
  if (o.device) pick_device(me);
  d.space = space;
  d.exchange = o.exchange == "mpi"    ? Exchange::Mpi
               : o.exchange == "nccl" ? Exchange::Nccl
                                      : Exchange::Auto;
  std::string what;
  Csr<T, std::int64_t> A;
  if (o.mtx.empty()) {
    GenSpec s = parse_gen_spec(o.gen);
    if (o.weak) s = weak_spec(s, P);
    what = describe(s);
    if (me == 0) A = generate<T, std::int64_t>(s);
  } else {
    what = o.mtx;
    if (me == 0) A = io::read_csr<T, std::int64_t>(o.mtx);
  }
  const double tb = MPI_Wtime();
  const auto D = DistMatrix<T>::from_global(MPI_COMM_WORLD, 0, A, d);
  const double build = MPI_Wtime() - tb;
  std::int64_t volume = 0;
  if (me == 0) volume = halo_volume(A, D.partition());
  std::int64_t global_nnz = me == 0 ? A.nnz() : 0;
  MPI_Bcast(&global_nnz, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  A = {};

  const std::int64_t m = D.local_rows(), n = o.cols, g = D.ghosts();
  const auto filled = [&](std::int64_t count, T v) {
    return Array<T>(std::vector<T>(static_cast<std::size_t>(std::max<std::int64_t>(count, 1)), v))
        .to(space);
  };
  Array<T> x = filled(m * n, T(1)), y = filled(m * n, T(0)), h = filled(g * n, T(1));
  const DenseView<const T> X{x.data(), m, n, n, Layout::RowMajor, space};
  const DenseView<T> Y{y.data(), m, n, n, Layout::RowMajor, space};
  const DenseView<const T> H{h.data(), g, n, n, Layout::RowMajor, space};
  const auto product = [&](const Matrix<T, std::int32_t>& M, const DenseView<const T>& B, T beta) {
    if (n == 1)
      spmv(T(1), M, VectorView<const T>(B.data, B.rows, space), beta,
           VectorView<T>(Y.data, Y.rows, space));
    else
      spmm(T(1), M, B, beta, Y);
    finish(o.device);
  };
  for (int k = 0; k < 3; ++k)
    D.apply(T(1), X, T(0), Y);  // warm-up
  const double t_local = timed(o.reps, [&] { product(D.local_block(), X, T(0)); });
  const double t_exchange = timed(o.reps, [&] {
    D.exchange(X);
    finish(o.device);
  });
  const double t_nonlocal = timed(o.reps, [&] {
    D.add_nonlocal(T(1), H, Y);
    finish(o.device);
  });
  std::vector<double> parts[4];
  const double t_total = timed(o.reps, [&] {
    if (n == 1)
      D.apply(T(1), VectorView<const T>(x.data(), m, space), T(0),
              VectorView<T>(y.data(), m, space));
    else
      D.apply(T(1), X, T(0), Y);
    const ApplyTimes& a = D.last_times();
    parts[0].push_back(a.local);
    parts[1].push_back(a.pack + a.wait);
    parts[2].push_back(a.nonlocal);
  });
  const auto& last = D.last_times();
  std::int64_t local_nnz = 0, nonlocal_nnz = 0;
  std::visit([&](const auto& M) { local_nnz = M.nnz(); }, D.local_block());
  std::visit([&](const auto& M) { nonlocal_nnz = M.nnz(); }, D.nonlocal_block());
  // One row per rank, gathered on rank 0.
  std::vector<double> row{static_cast<double>(m),
                          static_cast<double>(local_nnz),
                          static_cast<double>(nonlocal_nnz),
                          static_cast<double>(g),
                          static_cast<double>(last.send_bytes),
                          static_cast<double>(last.recv_bytes),
                          t_local,
                          t_nonlocal,
                          t_exchange,
                          t_total,
                          median(parts[0]),
                          median(parts[1]),
                          static_cast<double>(D.recv_ranks().size())};
  std::vector<double> all(row.size() * static_cast<std::size_t>(P));
  MPI_Gather(row.data(), static_cast<int>(row.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(row.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double build_max = 0;
  MPI_Reduce(&build, &build_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me != 0) return;
  fmt::print(
      "# spx-dist bench: {} ({}), P = {}, {} column(s), local {} / nonlocal {}, {} "
      "partition, halo volume {} values, {} reps (medians), build {:.3f} s, {}, exchange {}\n",
      what, o.precision, P, n, o.local_format, o.nonlocal_format, o.partition, volume, o.reps,
      build_max, o.device ? "device (one GPU per rank, rank % GPUs)" : "host",
      D.exchange_kind() == Exchange::Nccl ? "nccl" : "mpi");
  fmt::print(
      "{:>4} {:>9} {:>10} {:>9} {:>7} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} "
      "{:>8}\n",
      "rank", "rows", "nnz_loc", "nnz_nonl", "ghosts", "nbrs", "halo_B", "local_ms", "exch_ms",
      "nonl_ms", "total_ms", "seq_ms", "overlap");
  double worst = 0;
  for (int r = 0; r < P; ++r) {
    const double* v = all.data() + row.size() * static_cast<std::size_t>(r);
    const double overlap = v[9] / std::max(v[6], v[8]);
    worst = std::max(worst, v[9]);
    fmt::print(
        "{:>4} {:>9.0f} {:>10.0f} {:>9.0f} {:>7.0f} {:>5.0f} {:>10.0f} {:>10.4f} {:>10.4f} "
        "{:>10.4f} {:>10.4f} {:>10.4f} {:>8.2f}\n",
        r, v[0], v[1], v[2], v[3], v[12], v[4] + v[5], 1e3 * v[6], 1e3 * v[8], 1e3 * v[7],
        1e3 * v[9], 1e3 * (v[6] + v[8] + v[7]), overlap);
  }
  fmt::print(
      "# slowest rank's product {:.4f} ms: {:.3f} GFLOP/s over the {} nonzeros\n", 1e3 * worst,
      2.0 * static_cast<double>(global_nnz) * static_cast<double>(n) / worst / 1e9, global_nnz);
}

/// Each rank reads its share vs rank 0 reads and distributes, alternating.
void read_compare(const std::string& file, int reps) {
  std::vector<double> each, root;
  for (int k = 0; k < reps; ++k) {
    each.push_back(timed(
        1, [&] { (void)read_matrix_market<double>(MPI_COMM_WORLD, file, ReadMode::EachRank); }));
    root.push_back(timed(1, [&] {
      (void)read_matrix_market<double>(MPI_COMM_WORLD, file, ReadMode::RootDistributes);
    }));
  }
  if (comm_rank() != 0) return;
  fmt::print("# spx-dist read {}: P = {}, {} alternating runs each (wall, every rank done)\n", file,
             comm_size(), reps);
  fmt::print("each rank reads its share: median {:.3f} s, best {:.3f} s\n", median(each),
             *std::min_element(each.begin(), each.end()));
  fmt::print("rank 0 reads, distributes: median {:.3f} s, best {:.3f} s\n", median(root),
             *std::min_element(root.begin(), root.end()));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CLI::App app{"spx-dist: the distributed layer's measurements (run under mpirun)"};
  app.require_subcommand(1);
  BenchOptions o;
  CLI::App* b = app.add_subcommand("bench", "Per-rank times of the distributed product");
  b->add_option("--gen", o.gen, "Generator spec of the global matrix")->capture_default_str();
  b->add_option("--mtx", o.mtx, "Matrix Market file instead of --gen");
  b->add_flag("--weak", o.weak, "Scale --gen to about P times the rows (weak scaling)");
  b->add_option("--reps", o.reps, "Timed repetitions (medians)")->check(CLI::Range(1, 100000));
  b->add_option("--n", o.cols, "Columns of X (1: SpMV, more: SpMM)")->check(CLI::Range(1, 1024));
  b->add_option("--format", o.local_format, "Local block's format")->capture_default_str();
  b->add_option("--nonlocal-format", o.nonlocal_format, "Nonlocal block's format")
      ->capture_default_str();
  b->add_option("--partition", o.partition, "nnz or metis")
      ->check(CLI::IsMember({"nnz", "metis"}))
      ->capture_default_str();
  b->add_option("--precision", o.precision, "f32 or f64")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  b->add_flag("--device", o.device,
              "Blocks and vectors on the GPU, rank r on GPU r % GPUs (CUDA builds)");
  b->add_option("--exchange", o.exchange,
                "Halo exchange: auto (NCCL for device matrices when built with it), mpi or nccl")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}))
      ->capture_default_str();
  std::string file;
  int reps = 3;
  CLI::App* r = app.add_subcommand("read", "Each rank reads its share vs rank 0 distributes");
  r->add_option("file", file, "Matrix Market file")->required();
  r->add_option("--reps", reps, "Runs of each mode")->check(CLI::Range(1, 100));
  int rc = 0;
  try {
    app.parse(argc, argv);
    if (b->parsed()) {
      if (o.precision == "f32")
        bench<float>(o);
      else
        bench<double>(o);
    } else {
      read_compare(file, reps);
    }
  } catch (const CLI::ParseError& e) {
    rc = comm_rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spx-dist: error on rank %d: %s\n", comm_rank(), e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}

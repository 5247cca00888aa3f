// The benchmark suites: `quick`, `default` (generated members over the
// survey's structural classes, plus the real matrices), `density` (one
// uniformly random size at densities spanning the SpMM/GEMM crossover) and
// lists of Matrix Market files and generator specs. Only this file calls the generators and the
// reader.
#include <algorithm>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "bench.hpp"
#include "spx/core/error.hpp"
#include "spx/io/matrix_market.hpp"

namespace spx::bench {

namespace fs = std::filesystem;

std::string_view SuiteMember::kind() const noexcept {
  switch (source.index()) {
    case 0:
      return "generated";
    case 1:
      return "file";
    default:
      return "custom";
  }
}

std::string SuiteMember::describe_source() const {
  if (const auto* spec = std::get_if<GenSpec>(&source))
    return fmt::format("{} (seed {})", describe(*spec), spec->seed);
  if (const auto* path = std::get_if<fs::path>(&source)) return path->string();
  return "custom producer";
}

template <Index I>
Csr<double, I> load_member(const SuiteMember& member) {
  if (const auto* spec = std::get_if<GenSpec>(&member.source)) return generate<double, I>(*spec);
  if (const auto* path = std::get_if<fs::path>(&member.source))
    return io::read_csr<double, I>(*path);
  const auto& produce = std::get<MatrixProducer>(member.source);
  if (!produce) throw InvalidInput(fmt::format("suite member '{}' has no producer", member.name));
  Csr<double, std::int64_t> A = produce();
  if constexpr (std::same_as<I, std::int64_t>) {
    return A;
  } else {
    return cast<double, I>(A);
  }
}
template Csr<double, std::int32_t> load_member<std::int32_t>(const SuiteMember&);
template Csr<double, std::int64_t> load_member<std::int64_t>(const SuiteMember&);

namespace {

// ---- generator specs, one per structural class -----------------------------

// Seed 1; the parameters a kind does not use keep GenSpec's defaults.
GenSpec stencil2d(std::int64_t n, int points) {
  return {.kind = Generator::Stencil2d, .n = n, .points = points};
}
GenSpec stencil3d(std::int64_t n, int points) {
  return {.kind = Generator::Stencil3d, .n = n, .points = points};
}
GenSpec fem(std::int64_t n, int block) {
  return {.kind = Generator::Fem, .n = n, .block = block};
}
GenSpec banded(std::int64_t n, int bands) {
  return {.kind = Generator::Banded, .n = n, .bands = bands};
}
GenSpec rows_degree(Generator kind, std::int64_t n, double degree) {
  return {.kind = kind, .n = n, .degree = degree};
}
GenSpec rmat(int scale, double degree) {
  return {.kind = Generator::Rmat, .degree = degree, .scale = scale};
}

bool is_regular(Generator g) {
  return g == Generator::Stencil2d || g == Generator::Stencil3d || g == Generator::Fem ||
         g == Generator::Banded;
}

SuiteMember member(const GenSpec& s) {
  return SuiteMember{describe(s),
                     s.symmetric ? std::string("symmetric") : std::string(to_string(s.kind)),
                     is_regular(s.kind), s};
}

GenSpec symmetric(GenSpec s) {
  s.symmetric = true;
  return s;
}

/// One size class of the default suite: each structural class once.
/// Grid sides (stencils, FEM), rows (the others) and the R-MAT scale.
struct Sizes {
  std::int64_t s3d7, s3d27, s2d5, s2d9, fem2, fem3, fem6, band_n, rand_n, chung_n, road_n, dense_n,
      mixed_n;
  int rmat_scale;
};

void add_classes(std::vector<SuiteMember>& out, const Sizes& z) {
  out.push_back(member(stencil3d(z.s3d7, 7)));
  out.push_back(member(stencil3d(z.s3d27, 27)));
  out.push_back(member(stencil2d(z.s2d5, 5)));
  out.push_back(member(stencil2d(z.s2d9, 9)));
  out.push_back(member(fem(z.fem2, 2)));
  out.push_back(member(fem(z.fem3, 3)));
  out.push_back(member(fem(z.fem6, 6)));
  out.push_back(member(banded(z.band_n, 8)));
  out.push_back(member(rows_degree(Generator::Random, z.rand_n, 10)));
  out.push_back(member(rmat(z.rmat_scale, 8)));
  out.push_back(member(rows_degree(Generator::ChungLu, z.chung_n, 8)));
  out.push_back(member(rows_degree(Generator::Road, z.road_n, 3)));
  out.push_back(member(rows_degree(Generator::DenseRows, z.dense_n, 8)));
  out.push_back(member(rows_degree(Generator::Mixed, z.mixed_n, 10)));
  // Symmetric values on three of the grid patterns (group "symmetric"): the
  // problems that symmetric storage serves (Laplacians, FEM stiffness).
  out.push_back(member(symmetric(stencil3d(z.s3d7, 7))));
  out.push_back(member(symmetric(stencil3d(z.s3d27, 27))));
  out.push_back(member(symmetric(fem(z.fem3, 3))));
}

void add_real(std::vector<SuiteMember>& out, const fs::path& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return;
  const std::string folder = dir.string();
  Suite real;
  try {
    real = files_suite(std::span<const std::string>(&folder, 1));
  } catch (const InvalidInput&) {
    return;  // a folder without matrices adds nothing
  }
  for (auto& m : real.members) {
    m.group = "real";
    out.push_back(std::move(m));
  }
}

bool is_matrix_file(const fs::path& p) {
  const std::string name = p.filename().string();
  const auto ends = [&](std::string_view s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".mtx") || ends(".mtx.gz");
}

std::string stem_of(const fs::path& p) {
  std::string name = p.filename().string();
  for (std::string_view ext : {".gz", ".mtx"})
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
      name.resize(name.size() - ext.size());
  return name;
}

}  // namespace

Suite quick_suite() {
  Suite s{"quick", {}};
  auto& m = s.members;
  m.push_back(member(stencil2d(100, 5)));                           // 10 k rows, 50 k nnz
  m.push_back(member(stencil3d(12, 27)));                           // 1.7 k rows, 40 k nnz
  m.push_back(member(fem(20, 3)));                                  // 1.2 k rows, 30 k nnz
  m.push_back(member(symmetric(fem(20, 3))));                       // the same, symmetric
  m.push_back(member(banded(5000, 8)));                             // 5 k rows
  m.push_back(member(rmat(12, 8)));                                 // 4 k rows, 30 k nnz
  m.push_back(member(rows_degree(Generator::ChungLu, 5000, 8)));    // huge + empty rows
  m.push_back(member(rows_degree(Generator::DenseRows, 3000, 8)));  // a few dense rows
  return s;
}

fs::path default_real_dir() {
  if (const char* env = std::getenv("SPX_REAL_MATRICES"); env != nullptr && *env != '\0')
    return env;
  std::error_code ec;
  if (fs::is_directory(SPX_CHECKOUT_MATRICES, ec)) return SPX_CHECKOUT_MATRICES;
  return SPX_SHARED_MATRICES;
}

Suite default_suite(Backend backend, const fs::path& real_dir) {
  Suite s{"default", {}};
  auto& m = s.members;
  if (backend == Backend::Cuda) {
    // Large: 16–25 M nonzeros, 190–310 MB in double with 32-bit indices
    // (4–6× the H100's 50 MB L2, 3–5× the H200's 60 MB).
    add_classes(m, Sizes{144, 90, 2000, 1500, 750, 500, 250, 5700000, 2000000, 2500000, 7000000,
                         2000000, 2000000, 21});
    m.push_back(member(rows_degree(Generator::Random, 250000, 64)));  // long rows, 16 M nnz
    m.push_back(member(banded(9000000, 4)));                          // thin band, 20 M nnz
    // Medium: about 1 M nonzeros (12 MB), inside the L2: flushed between runs.
    add_classes(m, Sizes{52, 34, 450, 330, 170, 110, 55, 285000, 100000, 125000, 350000, 100000,
                         100000, 17});
  } else {
    // The same classes scaled to the CPU: about 2 M and 0.2 M nonzeros.
    add_classes(m, Sizes{66, 42, 630, 470, 235, 157, 78, 570000, 200000, 250000, 700000, 200000,
                         200000, 18});
    m.push_back(member(rows_degree(Generator::Random, 32000, 64)));
    m.push_back(member(banded(900000, 4)));
    add_classes(m,
                Sizes{30, 20, 200, 150, 75, 50, 25, 57000, 20000, 25000, 70000, 20000, 20000, 15});
  }
  add_real(m, real_dir);
  return s;
}

std::span<const double> density_sweep_percent() noexcept {
  static constexpr double kPercent[] = {0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 50};
  return kPercent;
}

std::int64_t density_suite_rows(Backend backend) noexcept {
  // CUDA: the dense copy of A for cuBLAS GEMM takes 8192² · 8 B = 512 MiB in
  // double (the baseline refuses above 16 GiB); 34 k to 34 M nonzeros, and a
  // GEMM of 17 GFLOP at n = 128. CPU: 2048 (4 k to 2 M nonzeros), so that
  // every format's kernels finish in about a minute on two cores.
  return backend == Backend::Cuda ? 8192 : 2048;
}

Suite density_suite(Backend backend) {
  Suite s{"density", {}};
  const std::int64_t n = density_suite_rows(backend);
  for (const double pct : density_sweep_percent()) {
    // `random` draws floor/ceil(degree) ± 1 distinct uniform columns per
    // row: the expected density is degree / n.
    GenSpec g = rows_degree(Generator::Random, n, pct / 100 * static_cast<double>(n));
    s.members.push_back(SuiteMember{fmt::format("random-n{}-{}pct", n, pct), "random", false, g});
  }
  return s;
}

Suite files_suite(std::span<const std::string> paths) {
  Suite s{"files", {}};
  for (const std::string& arg : paths) {
    const fs::path p(arg);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::directory_iterator(p, ec))
        if (entry.is_regular_file() && is_matrix_file(entry.path())) found.push_back(entry.path());
      if (ec) throw IoError(fmt::format("cannot list folder '{}': {}", arg, ec.message()));
      if (found.empty())
        throw InvalidInput(
            fmt::format("folder '{}' holds no Matrix Market files (*.mtx, *.mtx.gz)", arg));
      std::sort(found.begin(), found.end());
      for (const auto& f : found)
        s.members.push_back(SuiteMember{stem_of(f), "file", false, f});
    } else if (fs::is_regular_file(p, ec)) {
      s.members.push_back(SuiteMember{stem_of(p), "file", false, p});
    } else if (arg.find(':') != std::string::npos) {
      // KIND:key=value,... (as `spx gen` takes): a generated member, so that
      // sizes outside the built-in suites need no file.
      s.members.push_back(member(parse_gen_spec(arg)));
    } else {
      throw InvalidInput(
          fmt::format("'{}' is neither a Matrix Market file, a folder nor a generator spec "
                      "(KIND:key=value,...)",
                      arg));
    }
  }
  // Names must identify records: suffix repeats with their position.
  for (std::size_t i = 0; i < s.members.size(); ++i) {
    int repeat = 1;
    for (std::size_t j = 0; j < i; ++j)
      if (s.members[j].name == s.members[i].name) ++repeat;
    if (repeat > 1) s.members[i].name += fmt::format("#{}", repeat);
  }
  return s;
}

}  // namespace spx::bench

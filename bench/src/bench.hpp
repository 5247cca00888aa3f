// The benchmark engine behind `spx bench` (survey §5): for every matrix of a
// suite, every registered SpMV kernel of the chosen backend in every format
// convertible from CSR, and both precisions, it measures the median time,
// GFLOPS, effective bandwidth against the copy bandwidth measured in the same
// run, footprint, the error against a long-double reference, and the
// conversion cost from CSR with its break-even number of products. Results are
// records (one per matrix × format × algorithm × precision × backend), written
// as JSON (schema: docs/benchmarks.md, checked by validate_json) and
// summarised in a table.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "spx/analysis.hpp"
#include "spx/convert.hpp"
#include "spx/generate.hpp"
#include "spx/registry.hpp"

namespace spx::bench {

// ---- suites ------------------------------------------------------------------

enum class Precision : std::uint8_t { F32, F64 };
std::string_view to_string(Precision p) noexcept;
/// "f32", "f64" or "both" (→ f64, f32). Throws InvalidInput otherwise.
std::vector<Precision> parse_precisions(std::string_view s);

/// Produces a matrix in double precision with 64-bit indices; the engine
/// casts it to the precision and index type measured. Used for matrices that
/// are neither generated nor read from a file (tests build them by hand).
using MatrixProducer = std::function<Csr<double, std::int64_t>()>;

struct SuiteMember {
  std::string name;
  /// Structural class: "stencil2d", "stencil3d", "fem", "banded", "random",
  /// "rmat", "chunglu", "road", "denserows", "mixed", "real", "file", ...
  std::string group;
  /// Regular structure (stencils, FEM, banded): these members, when larger
  /// than the cache, make the headline's fraction of bandwidth.
  bool regular = false;
  std::variant<GenSpec, std::filesystem::path, MatrixProducer> source;

  /// "generated", "file" or "custom".
  std::string_view kind() const noexcept;
  /// The generator spec or the file path, for people and the JSON.
  std::string describe_source() const;
};

struct Suite {
  std::string name;
  std::vector<SuiteMember> members;
};

/// A handful of small generated matrices (smoke runs, CI).
Suite quick_suite();
/// At least 30 generated matrices over the survey's structural classes, sized
/// for `backend` (CUDA: the large members are several times the L2; CPU: scaled
/// down to finish in minutes on two cores), plus every Matrix Market file in
/// `real_dir` (skipped when the folder does not exist).
Suite default_suite(Backend backend, const std::filesystem::path& real_dir);

/// The folder of real matrices when none is named: $SPX_REAL_MATRICES when
/// set, else the checkout's shared/matrices/real when it exists (a copy of
/// the tree may carry shared/ inside it), else ../shared/matrices/real
/// beside the source tree. `spx bench` and the tests read it.
std::filesystem::path default_real_dir();
/// The densities of the density suite, in percent (0.05 to 50).
std::span<const double> density_sweep_percent() noexcept;
/// Rows (and columns) of the density suite's matrices: 8192 on CUDA, 2048 on
/// the CPU.
std::int64_t density_suite_rows(Backend backend) noexcept;
/// Where dense GEMM overtakes SpMM (Yang et al. 2018, Figure 7): one square
/// uniformly random matrix (generator `random`) per density of
/// density_sweep_percent(), of density_suite_rows(backend) rows, named
/// "random-n<rows>-<percent>pct" (e.g. "random-n8192-0.05pct").
Suite density_suite(Backend backend);
/// Matrix Market files (`.mtx`, `.mtx.gz`), folders of them (not
/// recursive) and generator specs as `spx gen` takes them (`KIND:key=value,
/// ...`, for an argument that is not an existing path), in the order given,
/// each folder sorted by name. Throws InvalidInput naming a path that does
/// not exist, a folder without matrices or a bad generator spec.
Suite files_suite(std::span<const std::string> paths);

/// Loads a member: generates it, reads the file, or calls the producer.
template <Index I>
Csr<double, I> load_member(const SuiteMember& member);

// ---- configuration -------------------------------------------------------------

/// What `spx bench` measures: SpMV over a suite (the default), SpMM over a
/// suite for several widths of B, or batched SpMV over a suite of batches.
enum class BenchOp : std::uint8_t { Spmv, Spmm, Batch };
std::string_view to_string(BenchOp op) noexcept;
/// "spmv", "spmm" or "batch". Throws InvalidInput otherwise.
BenchOp parse_bench_op(std::string_view s);

struct Config {
  Backend backend = Backend::Cpu;
  BenchOp op = BenchOp::Spmv;
  /// SpMM: the widths n of B and C; empty: 8, 32, 64, 128 on CUDA, 1, 8, 32 on the CPU.
  std::vector<std::int64_t> cols;
  /// Batches: scale of the matrix counts of the default batch suite; 0: 1 on
  /// CUDA, 0.1 on the CPU.
  double batch_scale = 0;
  std::vector<Precision> precisions{Precision::F64, Precision::F32};
  bool index64 = false;  ///< 64-bit indices (default: 32-bit)
  int reps = 0;          ///< timed repetitions; 0: 30 on CUDA, 20 on the CPU
  /// Untimed runs first (0: none); negative: 5 on CUDA, 2 on the CPU. They stop
  /// early once they have taken half of the per-kernel seconds or the rest of
  /// the time budget.
  int warmup = -1;
  /// Upper bound on the timed seconds per kernel: fewer repetitions (at least
  /// 5) when `reps` would exceed it. 0: 2 s on CUDA, 0.25 s on the CPU.
  double max_seconds_per_kernel = 0;
  /// Wall-clock seconds for the whole run (0: none), counted from the end of
  /// start_run: members not started when it is used up are listed with an
  /// error saying so, warm-ups stop when it is used up, and the run still ends
  /// with its JSON and table.
  double time_budget_s = 0;
  std::vector<Format> formats;        ///< empty: every convertible format
  std::vector<Algorithm> algorithms;  ///< empty: every algorithm (filters SpX kernels)
  bool baselines = true;              ///< run the baselines (cuSPARSE, Eigen)
  std::uint64_t seed = 0;             ///< seed of x; 0: drawn fresh (and recorded)
  int block_size = 0;                 ///< BCSR block size; 0: chosen per matrix
  std::string suite_name = "custom";
  /// Called with a one-line status before each step (nullptr: silent);
  /// `detail` is true for the steps inside a matrix (formats, kernels).
  std::function<void(const std::string& line, bool detail)> progress;

  std::vector<std::int64_t> effective_cols() const {
    if (!cols.empty()) return cols;
    if (backend == Backend::Cuda) return {8, 32, 64, 128};
    return {1, 8, 32};
  }
  double effective_batch_scale() const {
    return batch_scale > 0 ? batch_scale : (backend == Backend::Cuda ? 1.0 : 0.1);
  }
  int effective_reps() const { return reps > 0 ? reps : (backend == Backend::Cuda ? 30 : 20); }
  int effective_warmup() const { return warmup >= 0 ? warmup : (backend == Backend::Cuda ? 5 : 2); }
  double effective_max_seconds() const {
    return max_seconds_per_kernel > 0 ? max_seconds_per_kernel
                                      : (backend == Backend::Cuda ? 2.0 : 0.25);
  }
};

// ---- the machine ---------------------------------------------------------------

struct DeviceInfo {
  Backend backend = Backend::Cpu;
  std::string name;            ///< GPU name or CPU model
  std::string driver_version;  ///< NVIDIA driver (e.g. "580.65.06"); "" on the CPU
  std::string cuda_driver;     ///< CUDA version the driver supports, e.g. "13.0"
  std::string cuda_runtime;    ///< CUDA runtime SpX was built with
  std::string cusparse_version;
  std::string eigen_version;
  std::string compute_capability;
  int multiprocessors = 0;  ///< SMs, or OpenMP threads on the CPU
  std::int64_t memory_bytes = 0;
  /// L2 (GPU) or last-level cache (CPU) size; the L2 flush and the "large
  /// matrix" threshold are multiples of it.
  std::int64_t cache_bytes = 0;
  /// Peak DRAM bandwidth from the GPU's attributes (2 × memory clock × bus
  /// width), GB/s; 0 on the CPU. CSR's Auto rule reads it per SM.
  double peak_memory_gbs = 0;
};

/// Describes the device of `backend`. Throws Unsupported for CUDA when no GPU
/// is usable.
DeviceInfo query_device(Backend backend);

/// Copy bandwidth (bytes read + bytes written per second): a device-to-device
/// cudaMemcpyAsync of 1 GiB, or a STREAM-like OpenMP copy over arrays well past
/// the last-level cache; median of several repetitions.
double measure_copy_bandwidth(const DeviceInfo& device);

/// Times products on one backend. CPU: steady_clock around each call. CUDA:
/// events on one stream around each call, the L2 optionally flushed (a
/// memset of twice its size) before each repetition, outside the timed span.
class Timer {
 public:
  virtual ~Timer() = default;
  /// Runs `f` `warmup` times, then `reps` times, each timed; returns the
  /// seconds of each timed run.
  virtual std::vector<double> time(const std::function<void()>& f, int warmup, int reps,
                                   bool flush_cache) = 0;
  /// Waits until everything enqueued has finished.
  virtual void synchronize() = 0;
  /// The stream the products must be enqueued on (nullptr on the CPU).
  virtual CUstream_st* stream() const = 0;
};
std::unique_ptr<Timer> make_timer(const DeviceInfo& device);

// ---- results ---------------------------------------------------------------------

enum class Status : std::uint8_t { Ok, Skipped, Error };
std::string_view to_string(Status s) noexcept;

/// One matrix × format × algorithm × precision × backend. Optional fields are
/// absent (null in JSON) when they do not apply or could not be measured.
struct Record {
  BenchOp op = BenchOp::Spmv;
  std::string matrix;  ///< the matrix, or the batch for op = batch
  std::string group;
  Precision precision = Precision::F64;
  bool index64 = false;
  Backend backend = Backend::Cpu;
  Format format = Format::Csr;
  Algorithm algorithm = Algorithm::Auto;      ///< the kernel asked for
  Algorithm algorithm_ran = Algorithm::Auto;  ///< the kernel the product reported
  bool baseline = false;
  bool deterministic = true;  ///< as the kernel declares
  bool auto_choice = false;   ///< what `Algorithm::Auto` picks for this matrix in this format
  Status status = Status::Ok;
  std::string reason;  ///< why it was skipped or failed ("" when ok)

  std::optional<std::int64_t> n_cols;       ///< SpMM: columns of B and C
  std::string layout;                       ///< SpMM: "row-major" or "col-major" (B and C)
  std::optional<std::int64_t> batch_count;  ///< batches: matrices in the batch

  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::optional<std::int64_t> format_bytes;  ///< the format's arrays (bytes())
  std::optional<double> bytes_per_nnz;
  std::optional<std::int64_t> bytes_moved;  ///< format + x read once + y written once

  std::optional<double> time_s;  ///< median
  std::optional<double> time_min_s, time_max_s;
  int reps = 0;
  bool cache_flushed = false;
  std::optional<double> gflops;       ///< 2·nnz / time
  std::optional<double> gbs;          ///< bytes_moved / time
  std::optional<double> bw_fraction;  ///< gbs / copy bandwidth

  std::optional<double> max_rel_error;  ///< max_i |y_i − ref_i| / Σ_j |a_ij x_j|
  std::optional<double> error_ratio;    ///< max_i |y_i − ref_i| / bound_i (≤ 1 passes)
  std::optional<bool> correct;
  std::optional<bool> repeat_identical;  ///< last timed y equals the checked y bit for bit

  std::optional<double> convert_host_s;       ///< CSR → format on the host
  std::optional<double> convert_host_spmv;    ///< convert_host_s / best CSR time
  std::optional<double> convert_device_s;     ///< CSR → format on the device
  std::optional<double> convert_device_spmv;  ///< convert_device_s / best CSR time
  std::string convert_device_note;
  std::optional<double> upload_s;  ///< host → device copy of the format (CUDA)
  /// Products after which conversion + this kernel beats the best CSR kernel.
  std::optional<double> break_even_products;
  /// "none-needed" (CSR), "finite", "never" (not faster than CSR), "unknown".
  std::string break_even = "unknown";
};

/// One matrix of the suite as loaded (shared by its precisions).
struct MatrixInfo {
  std::string name;
  std::string group;
  std::string kind;
  std::string source;
  bool regular = false;
  bool large = false;  ///< CSR (double) bytes ≥ cache_bytes
  std::string error;   ///< why it could not be loaded ("" when it was)
  double load_s = 0;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t csr_bytes_f64 = 0;
  MatrixStats stats;
  int bcsr_block_size = 0;  ///< the BCSR block size the conversion used
};

/// Per matrix and precision: the best SpX kernel and the best baseline.
struct Summary {
  std::string matrix;
  Precision precision = Precision::F64;
  bool regular = false, large = false;
  std::optional<Format> best_format;
  std::optional<Algorithm> best_algorithm;
  std::optional<double> best_time_s, best_gflops, best_bw_fraction;
  std::optional<Algorithm> baseline_algorithm;
  std::optional<double> baseline_time_s;
  std::optional<double> speedup;  ///< baseline time / best SpX time
  int failed = 0;                 ///< records whose check failed
  int errors = 0;                 ///< records that threw
};

/// Per precision: geomean speed-up over the best baseline, and the mean
/// fraction of bandwidth of the best kernel on the large regular matrices.
struct Headline {
  Precision precision = Precision::F64;
  std::optional<double> geomean_speedup;
  int speedup_matrices = 0;
  std::optional<double> regular_bw_fraction;
  int regular_matrices = 0;
  /// "large regular" or "regular (none larger than the cache)".
  std::string regular_set;
};

/// The advisor's pick (model only, spx::advise) for one matrix, precision
/// and number of products, made while the matrix was measured.
struct AdvisorPick {
  std::string matrix;
  Precision precision = Precision::F64;
  std::int64_t products = 1;
  Format format = Format::Csr;
  Algorithm algorithm = Algorithm::Auto;
  double predicted_total_s = 0;
  double advise_s = 0;       ///< seconds the advice took
  double compute_scale = 1;  ///< Advice::compute_scale (the CPU model's machine factor)
  /// The candidates a tuning plan measures (spx::tuning_candidates; empty:
  /// it would not tune).
  std::vector<std::pair<Format, Algorithm>> tune_candidates;
  /// Seconds to build a plan for one product (PlanReport::build_s, the
  /// least of three builds); the report compares it with CSR Auto's product
  /// (issue 17: a plan that keeps CSR should cost less than one product plus
  /// the kernel's preprocessing).
  std::optional<double> plan_build_s;
  Format plan_format = Format::Csr;
  /// Device runs: the first plan build over a freshly uploaded CSR (the
  /// CSR Auto rule's row statistics included), and the first `spx::spmv`
  /// over another fresh upload (its preprocessing included), synchronized.
  std::optional<double> plan_first_build_s;
  std::optional<double> first_product_s;
  /// Device runs: the same advice over the uploaded CSR, its statistics
  /// measured on the device (the least of two, so that the kernels' lazy
  /// loading is not counted), and the copy of that CSR to the host, which a
  /// device plan paid before its advice until session 21.
  std::optional<double> device_advise_s;
  std::optional<double> host_copy_s;
  /// Whether the device's advice picked what the host's did (it must).
  std::optional<bool> device_agrees;
};

/// Candidates a tuning plan measures (PlanOptions::tune_candidates), from
/// this many products on (PlanOptions::tune_min_products), and the products
/// it runs on each (one warm-up and five timed).
inline constexpr int kAdvisorTuneCandidates = 3;
inline constexpr std::int64_t kAdvisorTuneMinProducts = 100;
inline constexpr int kAdvisorTuneProducts = 6;

/// The numbers of products the advisor report covers.
inline constexpr std::int64_t kAdvisorProducts[] = {1, 10, 100, 1000};

struct RunContext {
  std::string spx_version;
  std::string commit;
  bool commit_dirty = false;
  std::string date;  ///< UTC, ISO 8601
  std::string host;
  std::string compiler;
  DeviceInfo device;
  double copy_gbs = 0;
  std::uint64_t seed = 0;
  double alpha = 1, beta = 0;
  /// When the measurements began (the end of start_run), from which
  /// Config::time_budget_s counts; unset: no budget applies.
  std::optional<std::chrono::steady_clock::time_point> started;
};

struct Results {
  RunContext run;
  Config config;
  std::vector<MatrixInfo> matrices;
  std::vector<Record> records;
  std::vector<Summary> summary;    ///< SpMV only
  std::vector<Headline> headline;  ///< SpMV only
  /// SpMV: the advisor's picks (made by measure_matrix with registry kernels)
  /// and their report against the oracle (summarize_advisor; null without picks).
  std::vector<AdvisorPick> advisor_picks;
  nlohmann::json advisor;
  /// SpMM and batch runs: their per-matrix (per-batch) summary and headline,
  /// as documented in docs/benchmarks.md; null for SpMV runs.
  nlohmann::json op_summary;
};

// ---- running -------------------------------------------------------------------

/// The whole run: device, copy bandwidth, every member, summaries.
Results run_bench(const Suite& suite, const Config& config);

/// Measures one matrix in one precision with the given kernels (normally the
/// registry's; tests pass their own). Appends records to `results.records`;
/// uses results.run (seed, copy bandwidth, device) and, for the progress
/// lines, info.name. With `through_dispatcher`, the checked product goes
/// through spx::spmv (validation, dispatch; the algorithm it reports is
/// recorded as `algorithm_ran`): only for kernels taken from the registry.
/// Timed products call the kernel's launch function directly.
template <Value T, Index I>
void measure_matrix(const MatrixInfo& info, const Csr<T, I>& A,
                    std::span<const SpmvKernel<T, I>> kernels, const Config& config, Timer& timer,
                    Results& results, bool through_dispatcher = false);

/// The kernels of `Registry<T, I>` for the config's backend, formats,
/// algorithms and baseline choice.
template <Value T, Index I>
std::vector<SpmvKernel<T, I>> select_kernels(const Config& config);

/// Conversion options for a matrix: defaults, with the BCSR block size chosen
/// to minimise the bytes per nonzero among b = 2..8 (or `forced_block` > 0).
ConvertOptions convert_options_for(const MatrixStats& stats, std::size_t value_bytes,
                                   std::size_t index_bytes, int forced_block);

/// Fills results.summary and results.headline from the records, and
/// results.advisor (summarize_advisor).
void summarize(Results& results);

/// The advisor report (docs/benchmarks.md, "Advisor report"): for every
/// matrix, precision and N of kAdvisorProducts, the measured total time
/// (conversion + N products) of the advisor's pick against the best total of
/// any measured format and kernel (the oracle) and against CSR with Auto;
/// per precision and N the geometric mean and the worst of oracle / pick.
void summarize_advisor(Results& results);
/// A tuning plan emulated with a run's measurements (the advisor report's
/// `tuned`): each format of `pick.tune_candidates` converted once, the
/// tuning products of every candidate, then `n` products of the candidate of
/// least measured product time. A candidate whose kernel refused the matrix
/// ("cannot run") is converted for and passed over, as a plan does. Its
/// total time and `format/algorithm`; nothing when no candidate ran or one
/// was not timed at all (the report then does not judge the tuning:
/// `unemulated_tunings`).
std::optional<std::pair<double, std::string>> emulate_tuning(const std::vector<Record>& records,
                                                             const AdvisorPick& pick,
                                                             std::int64_t n);

/// "" when at least one record was measured (status ok); else one line saying
/// that nothing was and why (the first reason: a matrix that did not load, a
/// kernel that was skipped or failed, or that no kernel was selected), for
/// `spx bench` to exit with.
std::string nothing_measured(const Results& results);

// ---- SpMM and batched SpMV ---------------------------------------------------------

/// The run's context (device, copy bandwidth, seed, build) as run_bench sets it.
RunContext start_run(const Config& config);
/// Results of a new run: the configuration (without its progress callback,
/// the suite named `suite_name` unless the caller named it) and start_run's
/// context. Throws InvalidInput when no precision is selected.
Results start_results(const Config& config, const std::string& suite_name);

/// `spx bench --op spmm`: every CSR SpMM kernel of the backend (and the
/// baselines) on every member, for every width in config.effective_cols().
/// B and C row-major; a kernel that refuses row-major (cuSPARSE ALG1) runs
/// column-major, recorded in `layout`.
Results run_spmm_bench(const Suite& suite, const Config& config);
/// Fills results.op_summary of an SpMM run from its records and matrices.
void summarize_spmm(Results& results);

/// One batch of the batch suite: a list of CSR matrices.
struct BatchMember {
  std::string name;
  std::string group;  ///< "hetero", "uniform", "real", "custom"
  std::string source;
  /// Every matrix has one shape and one pattern: the CSR batch is built as a
  /// uniform batch (one shared pattern).
  bool uniform = false;
  std::function<std::vector<Csr<double, std::int64_t>>()> produce;
};
/// Heterogeneous (1k to 100k matrices of 11 to 1024 rows), uniform, and made
/// of the real matrices in `real_dir` with at most 1024 rows (skipped when
/// there are none), the counts multiplied by `scale`.
std::vector<BatchMember> default_batch_suite(const std::filesystem::path& real_dir, double scale);
/// `spx bench --op batch`: every batch kernel of the backend, each batch
/// built as CSR, COO and ELL batches.
Results run_batch_bench(std::span<const BatchMember> batches, const Config& config);
/// Fills results.op_summary of a batch run.
void summarize_batch(Results& results);

// ---- output ----------------------------------------------------------------------

nlohmann::json to_json(const Results& results);
/// Checks a JSON document against the schema of docs/benchmarks.md; returns
/// one message per violation (empty: valid).
std::vector<std::string> validate_json(const nlohmann::json& doc);
/// The field names the schema defines at each level ("run", "device",
/// "config", "matrix", "record", "summary", "headline"), for documentation tests.
std::vector<std::string> schema_fields(std::string_view level);

/// The readable table printed at the end of `spx bench`.
std::string format_table(const Results& results);
/// Its advisor report lines ("" when the run has no advisor report).
std::string advisor_table(const Results& results);

/// Commit of the source tree the binary was built from (generated at build time).
std::string_view build_commit() noexcept;
bool build_dirty() noexcept;

}  // namespace spx::bench

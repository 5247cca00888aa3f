// Device-side conversions (src/cuda/convert_*): for every test matrix and
// every format and option variant, converting a device CSR on the device must
// give exactly — array by array, bit by bit, padding, permutations, explicit
// zeros and the HYB split included — what the host conversion followed by
// .to(Space::Device) gives; and a conversion the host refuses must be refused
// on the device with the same error type and message. Besides the shared
// test matrices, random matrices stress the launch geometry: rows that span
// many warps and width chunks, long runs of empty rows, explicit zeros (+0
// and -0), NaN payloads, rows counts that are not multiples of the slice,
// hack or block size. Every test needs a GPU: it skips without one (fails
// with SPX_REQUIRE_GPU=1). SPX_TEST_SMALL=1 shrinks the large cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "cuda_common.hpp"
#include "matrices.hpp"
#include "spx/convert.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaConvert);

// ---- comparing two matrices bit by bit ----------------------------------------

struct Part {
  std::string name;
  Space space = Space::Host;
  std::vector<unsigned char> bytes;
};

template <class U>
Part part(std::string name, const Array<U>& a) {
  const std::vector<U> v = a.to_vector();
  Part p{std::move(name), a.space(), std::vector<unsigned char>(v.size() * sizeof(U))};
  if (!v.empty()) std::memcpy(p.bytes.data(), v.data(), p.bytes.size());
  return p;
}

/// Every array of a format, and its scalars as one line.
template <Value T, Index I>
std::pair<std::string, std::vector<Part>> describe(const Matrix<T, I>& M) {
  return std::visit(
      [](const auto& m) -> std::pair<std::string, std::vector<Part>> {
        using F = std::remove_cvref_t<decltype(m)>;
        std::string s = fmt::format("{} {}x{} space={} ", to_string(F::kFormat), m.rows(), m.cols(),
                                    m.space() == Space::Device ? "device" : "host");
        std::vector<Part> p;
        if constexpr (std::is_same_v<F, Csr<T, I>>) {
          p = {part("row_ptr", m.row_ptr()), part("col_idx", m.col_idx()),
               part("values", m.values())};
        } else if constexpr (std::is_same_v<F, Coo<T, I>>) {
          s += fmt::format("sorted={}", m.sorted());
          p = {part("row_idx", m.row_idx()), part("col_idx", m.col_idx()),
               part("values", m.values())};
        } else if constexpr (std::is_same_v<F, Csc<T, I>>) {
          p = {part("col_ptr", m.col_ptr()), part("row_idx", m.row_idx()),
               part("values", m.values())};
        } else if constexpr (std::is_same_v<F, Ell<T, I>>) {
          s += fmt::format("nnz={} width={}", m.nnz(), m.width());
          p = {part("col_idx", m.col_idx()), part("values", m.values()),
               part("row_len", m.row_len())};
        } else if constexpr (std::is_same_v<F, Sell<T, I>>) {
          s += fmt::format("nnz={} C={} sigma={} tpr={}", m.nnz(), m.slice_size(), m.sigma(),
                           m.threads_per_row());
          p = {part("slice_ptr", m.slice_ptr()), part("slice_width", m.slice_width()),
               part("col_idx", m.col_idx()),     part("values", m.values()),
               part("row_len", m.row_len()),     part("perm", m.perm())};
        } else if constexpr (std::is_same_v<F, SellPack<T, I>>) {
          s += fmt::format("nnz={} C={} sigma={} tpr={}", m.nnz(), m.slice_size(), m.sigma(),
                           m.threads_per_row());
          p = {part("slice_ptr", m.slice_ptr()),
               part("slice_width", m.slice_width()),
               part("slice_base", m.slice_base()),
               part("pack_ptr", m.pack_ptr()),
               part("col16", m.col16()),
               part("col_idx", m.col_idx()),
               part("values", m.values()),
               part("row_len", m.row_len()),
               part("perm", m.perm())};
        } else if constexpr (std::is_same_v<F, SellLp<T, I>>) {
          s += fmt::format("nnz={} C={} sigma={} tpr={}", m.nnz(), m.slice_size(), m.sigma(),
                           m.threads_per_row());
          p = {part("slice_ptr", m.slice_ptr()), part("slice_width", m.slice_width()),
               part("col_idx", m.col_idx()),     part("values", m.values()),
               part("row_len", m.row_len()),     part("perm", m.perm())};
        } else if constexpr (std::is_same_v<F, Hll<T, I>>) {
          s += fmt::format("nnz={} H={}", m.nnz(), m.hack_size());
          p = {part("hack_ptr", m.hack_ptr()), part("col_idx", m.col_idx()),
               part("values", m.values()), part("row_len", m.row_len())};
        } else if constexpr (std::is_same_v<F, Hyb<T, I>>) {
          s += fmt::format("nnz={} K={} ell.nnz={} coo.nnz={} coo.sorted={} coo.space={}", m.nnz(),
                           m.width(), m.ell().nnz(), m.coo().nnz(), m.coo().sorted(),
                           m.coo().space() == Space::Device ? "device" : "host");
          p = {part("ell.col_idx", m.ell().col_idx()), part("ell.values", m.ell().values()),
               part("ell.row_len", m.ell().row_len()), part("coo.row_idx", m.coo().row_idx()),
               part("coo.col_idx", m.coo().col_idx()), part("coo.values", m.coo().values())};
        } else if constexpr (std::is_same_v<F, Jad<T, I>>) {
          s += fmt::format("nnz={} diagonals={}", m.nnz(), m.num_diagonals());
          p = {part("perm", m.perm()), part("jd_ptr", m.jd_ptr()), part("col_idx", m.col_idx()),
               part("values", m.values())};
        } else if constexpr (std::is_same_v<F, Dia<T, I>>) {
          s += fmt::format("nnz={} ndiag={}", m.nnz(), m.ndiag());
          p = {part("offsets", m.offsets()), part("values", m.values()),
               part("zeros.rows", m.explicit_zeros().rows),
               part("zeros.cols", m.explicit_zeros().cols)};
        } else if constexpr (std::is_same_v<F, DiaLp<T, I>>) {
          s += fmt::format("nnz={} ndiag={}", m.nnz(), m.ndiag());
          p = {part("offsets", m.offsets()), part("values", m.values()),
               part("zeros.rows", m.explicit_zeros().rows),
               part("zeros.cols", m.explicit_zeros().cols)};
        } else if constexpr (std::is_same_v<F, Hdi<T, I>>) {
          s += fmt::format("nnz={} H={}", m.nnz(), m.hack_size());
          p = {part("hack_ptr", m.hack_ptr()), part("offsets", m.offsets()),
               part("values", m.values()), part("zeros.rows", m.explicit_zeros().rows),
               part("zeros.cols", m.explicit_zeros().cols)};
        } else if constexpr (std::is_same_v<F, Bcsr<T, I>>) {
          s += fmt::format("nnz={} b={} blocks={}", m.nnz(), m.block_size(), m.blocks());
          p = {part("block_ptr", m.block_ptr()), part("block_col", m.block_col()),
               part("values", m.values()), part("zeros.rows", m.explicit_zeros().rows),
               part("zeros.cols", m.explicit_zeros().cols)};
        } else if constexpr (std::is_same_v<F, SymCsr<T, I>>) {
          s += fmt::format("nnz={} stored={}", m.nnz(), m.stored());
          p = {part("row_ptr", m.row_ptr()), part("col_idx", m.col_idx()),
               part("values", m.values())};
        } else if constexpr (std::is_same_v<F, SymDia<T, I>>) {
          s += fmt::format("nnz={} ndiag={} diagonal={}", m.nnz(), m.ndiag(), m.diagonal_entries());
          p = {part("offsets", m.offsets()), part("values", m.values()),
               part("zeros.rows", m.explicit_zeros().rows),
               part("zeros.cols", m.explicit_zeros().cols)};
        } else {
          static_assert(sizeof(F) == 0, "a format without a description");
        }
        return {s, std::move(p)};
      },
      M);
}

/// The outcome of one conversion: the matrix, or the error it raised.
template <Value T, Index I>
struct Outcome {
  std::optional<Matrix<T, I>> matrix;
  std::string error_type, message;
};

template <Value T, Index I>
Outcome<T, I> attempt(const std::function<Matrix<T, I>()>& f) {
  Outcome<T, I> o;
  try {
    o.matrix = f();
  } catch (const OutOfMemory& e) {
    o.error_type = "OutOfMemory";
    o.message = e.what();
  } catch (const InvalidInput& e) {
    o.error_type = "InvalidInput";
    o.message = e.what();
  } catch (const Unsupported& e) {
    o.error_type = "Unsupported";
    o.message = e.what();
  } catch (const std::exception& e) {
    o.error_type = "other";
    o.message = e.what();
  }
  return o;
}

/// Host conversion then upload vs. conversion on the device: equal outcomes.
template <Value T, Index I>
void expect_same(const Csr<T, I>& host_A, const Csr<T, I>& dev_A, Format f, const ConvertOptions& o,
                 const std::string& what) {
  SCOPED_TRACE(what);
  const Outcome<T, I> h = attempt<T, I>([&] {
    return std::visit([](const auto& m) { return Matrix<T, I>(m.to(Space::Device)); },
                      convert(host_A, f, o));
  });
  const Outcome<T, I> d = attempt<T, I>([&] { return convert(dev_A, f, o); });
  ASSERT_EQ(h.error_type, d.error_type) << "host: " << h.message << "\ndevice: " << d.message;
  if (!h.matrix) {
    EXPECT_EQ(h.message, d.message);
    return;
  }
  ASSERT_TRUE(d.matrix.has_value());
  EXPECT_EQ(h.matrix->index(), d.matrix->index());
  const auto [hs, hp] = describe(*h.matrix);
  const auto [ds, dp] = describe(*d.matrix);
  EXPECT_EQ(hs, ds);
  ASSERT_EQ(hp.size(), dp.size());
  for (std::size_t k = 0; k < hp.size(); ++k) {
    SCOPED_TRACE(hp[k].name);
    EXPECT_EQ(dp[k].space, Space::Device);
    EXPECT_EQ(hp[k].space, dp[k].space);
    ASSERT_EQ(hp[k].bytes.size(), dp[k].bytes.size());
    if (hp[k].bytes != dp[k].bytes) {
      std::size_t first = 0;
      while (hp[k].bytes[first] == dp[k].bytes[first])
        ++first;
      ADD_FAILURE() << "arrays differ from byte " << first << " of " << hp[k].bytes.size();
    }
  }
}

using Variants = std::vector<std::pair<std::string, std::pair<Format, ConvertOptions>>>;

/// Adds the variant `name`: format f with the options `tweak` sets.
void add(Variants& v, std::string name, Format f,
         const std::function<void(ConvertOptions&)>& tweak) {
  ConvertOptions o;
  tweak(o);
  v.push_back({std::move(name), {f, o}});
}
const auto none = [](ConvertOptions&) {};

/// One variant per format: the defaults, with a few parameters that change
/// the code path (SELL sorting and SELL-P widths, BCSR without fill limit).
Variants core_variants() {
  Variants v;
  for (Format f : {Format::Coo, Format::Csc, Format::Ell, Format::Hll, Format::Hyb, Format::Jad,
                   Format::Dia, Format::Hdi})
    add(v, std::string(to_string(f)), f, none);
  add(v, "SELL C=32 sigma=128 tpr=4", Format::Sell, [](ConvertOptions& o) {
    o.sigma = 128;
    o.threads_per_row = 4;
  });
  add(v, "SELL_PACK", Format::SellPack, none);
  add(v, "SELL_PACK C=32 sigma=128 tpr=4", Format::SellPack, [](ConvertOptions& o) {
    o.sigma = 128;
    o.threads_per_row = 4;
  });
  add(v, "BCSR b=3", Format::Bcsr, [](ConvertOptions& o) {
    o.block_size = 3;
    o.min_block_fill = 0;
  });
  add(v, "SELL_LP C=32 sigma=128 tpr=4", Format::SellLp, [](ConvertOptions& o) {
    o.sigma = 128;
    o.threads_per_row = 4;
  });
  add(v, "SYM_CSR", Format::SymCsr, none);  // a refusal on matrices that are not symmetric
  add(v, "SYM_DIA", Format::SymDia, none);
  return v;
}

/// Every format with the option variants worth telling apart, refusals
/// (bad parameters, tight budgets, low block fill) included.
Variants all_variants() {
  Variants v;
  add(v, "CSR", Format::Csr, none);
  add(v, "COO", Format::Coo, none);
  add(v, "CSC", Format::Csc, none);
  add(v, "ELL", Format::Ell, none);
  add(v, "ELL tight budget", Format::Ell, [](ConvertOptions& o) {
    o.max_bytes_floor = 0;
    o.max_expansion = 1.2;
  });
  for (auto [C, sigma, tpr] : std::vector<std::tuple<int, int, int>>{{32, 1, 1},
                                                                     {32, 64, 1},
                                                                     {32, 32, 4},
                                                                     {8, 256, 2},
                                                                     {1, 1, 1},
                                                                     {1, 7, 3},
                                                                     {5, 10, 1},
                                                                     {64, 1, 8},
                                                                     {0, 1, 1},
                                                                     {4, 6, 1},
                                                                     {4, 1, 0}})
    add(v, fmt::format("SELL C={} sigma={} tpr={}", C, sigma, tpr), Format::Sell,
        [=](ConvertOptions& o) {
          o.slice_size = C;
          o.sigma = sigma;
          o.threads_per_row = tpr;
        });
  add(v, "SELL tight budget", Format::Sell, [](ConvertOptions& o) {
    o.sigma = 64;
    o.max_bytes_floor = 0;
    o.max_expansion = 1.2;
  });
  for (auto [C, sigma, tpr] :
       std::vector<std::tuple<int, int, int>>{{32, 1, 1}, {8, 256, 2}, {5, 10, 1}, {0, 1, 1}})
    add(v, fmt::format("SELL_LP C={} sigma={} tpr={}", C, sigma, tpr), Format::SellLp,
        [=](ConvertOptions& o) {
          o.slice_size = C;
          o.sigma = sigma;
          o.threads_per_row = tpr;
        });
  add(v, "SELL_LP tight budget", Format::SellLp, [](ConvertOptions& o) {
    o.sigma = 64;
    o.max_bytes_floor = 0;
    o.max_expansion = 1.2;
  });
  for (int H : {32, 1, 7, 100, 0})
    add(v, fmt::format("HLL H={}", H), Format::Hll, [=](ConvertOptions& o) { o.hack_size = H; });
  for (auto [C, sigma, tpr] :
       std::vector<std::tuple<int, int, int>>{{32, 1, 1}, {32, 64, 4}, {5, 10, 1}, {0, 1, 1}})
    add(v, fmt::format("SELL_PACK C={} sigma={} tpr={}", C, sigma, tpr), Format::SellPack,
        [=](ConvertOptions& o) {
          o.slice_size = C;
          o.sigma = sigma;
          o.threads_per_row = tpr;
        });
  add(v, "SELL_PACK tight budget", Format::SellPack, [](ConvertOptions& o) {
    o.sigma = 64;
    o.max_bytes_floor = 0;
    o.max_expansion = 1.2;
  });
  add(v, "HLL tight budget", Format::Hll, [](ConvertOptions& o) {
    o.max_bytes_floor = 0;
    o.max_expansion = 1.1;
  });
  for (std::int64_t K : {-1, 0, 1, 3, 1000000, -2})
    add(v, fmt::format("HYB K={}", K), Format::Hyb, [=](ConvertOptions& o) { o.hyb_width = K; });
  add(v, "HYB tight budget", Format::Hyb, [](ConvertOptions& o) {
    o.hyb_width = 1000000;
    o.max_bytes_floor = 0;
    o.max_expansion = 1.2;
  });
  add(v, "JAD", Format::Jad, none);
  add(v, "SYM_CSR", Format::SymCsr, none);
  add(v, "SYM_DIA", Format::SymDia, none);
  add(v, "SYM_DIA tight budget", Format::SymDia, [](ConvertOptions& o) {
    o.max_bytes_floor = 0;
    o.max_expansion = 2;
  });
  add(v, "DIA", Format::Dia, none);
  add(v, "DIA tight budget", Format::Dia, [](ConvertOptions& o) {
    o.max_bytes_floor = 0;
    o.max_expansion = 2;
  });
  add(v, "DIA_LP", Format::DiaLp, none);
  add(v, "DIA_LP tight budget", Format::DiaLp, [](ConvertOptions& o) {
    o.max_bytes_floor = 0;
    o.max_expansion = 2;
  });
  for (int H : {32, 1, 5, 0})
    add(v, fmt::format("HDI H={}", H), Format::Hdi, [=](ConvertOptions& o) { o.hack_size = H; });
  add(v, "HDI tight budget", Format::Hdi, [](ConvertOptions& o) {
    o.max_bytes_floor = 0;
    o.max_expansion = 2;
  });
  for (int b : {1, 2, 3, 4, 6, 8, 16, 32, 0, 33})
    add(v, fmt::format("BCSR b={}", b), Format::Bcsr, [=](ConvertOptions& o) {
      o.block_size = b;
      o.min_block_fill = 0;
    });
  add(v, "BCSR fill", Format::Bcsr, [](ConvertOptions& o) {
    o.block_size = 4;
    o.min_block_fill = 0.5;
  });
  add(v, "BCSR tight budget", Format::Bcsr, [](ConvertOptions& o) {
    o.block_size = 8;
    o.min_block_fill = 0;
    o.max_bytes_floor = 0;
    o.max_expansion = 3;
  });
  return v;
}

template <Value T, Index I>
void check_variants(const Csr<T, I>& A, const std::string& name, const Variants& variants) {
  const Csr<T, I> dA = A.to(Space::Device);
  for (const auto& [vname, fo] : variants)
    expect_same(A, dA, fo.first, fo.second, name + " / " + vname);
}

/// A random CSR: row lengths from `length(i, gen)`, distinct sorted columns,
/// values in ±[0.5, 1.5] with some +0, -0 and NaN (payload kept) entries.
template <Value T, Index I, class Length>
Csr<T, I> random_csr(std::int64_t rows, std::int64_t cols, std::uint64_t seed, Length&& length) {
  std::mt19937_64 gen(seed);
  std::vector<I> ptr{0}, col;
  std::vector<T> val;
  std::vector<I> row_cols;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t n = std::min<std::int64_t>(cols, length(i, gen));
    row_cols.clear();
    if (n * 4 > cols) {  // dense-ish: pick by reservoir over all columns
      for (std::int64_t j = 0; j < cols; ++j)
        if (static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(cols - j)) <
            n - static_cast<std::int64_t>(row_cols.size()))
          row_cols.push_back(static_cast<I>(j));
    } else {
      while (static_cast<std::int64_t>(row_cols.size()) < n) {
        // Mostly near the diagonal (so DIA/HDI/BCSR stay within budget), some far.
        const std::int64_t near = i * cols / std::max<std::int64_t>(rows, 1);
        const std::int64_t j =
            gen() % 8 == 0 ? static_cast<std::int64_t>(gen() % cols)
                           : std::clamp<std::int64_t>(
                                 near + static_cast<std::int64_t>(gen() % 33) - 16, 0, cols - 1);
        if (std::find(row_cols.begin(), row_cols.end(), static_cast<I>(j)) == row_cols.end())
          row_cols.push_back(static_cast<I>(j));
      }
      std::sort(row_cols.begin(), row_cols.end());
    }
    for (I j : row_cols) {
      col.push_back(j);
      const std::uint64_t kind = gen() % 64;
      T x;
      if (kind == 0) {
        x = T{0};
      } else if (kind == 1) {
        x = -T{0};
      } else if (kind == 2) {
        x = std::numeric_limits<T>::quiet_NaN();
      } else {
        x = static_cast<T>((gen() & 1 ? 1.0 : -1.0) *
                           (0.5 + static_cast<double>(gen() % 1000) / 1000.0));
      }
      val.push_back(x);
    }
    ptr.push_back(static_cast<I>(col.size()));
  }
  return Csr<T, I>(static_cast<I>(rows), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

// ---- tests ----------------------------------------------------------------------

// Hand-made matrices: every variant; generated and real ones: one per format
// (they are larger, and the variants' code paths are covered already).
TYPED_TEST(CudaConvert, SharedMatricesMatchHostConversion) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Variants all = all_variants(), core = core_variants();
  for (const auto& m : handmade_matrices<T, I>())
    check_variants(m.A, m.name, all);
  for (auto* more : {&generated_matrices<T, I>, &real_matrices<T, I>})
    for (const auto& m : more())
      check_variants(m.A, m.name, core);
}

TYPED_TEST(CudaConvert, StressGeometryMatchesHostConversion) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  const std::int64_t scale = small_tests() ? 1 : 4;
  const Variants variants = small_tests() ? core_variants() : all_variants();
  struct Case {
    std::string name;
    std::int64_t rows, cols;
    std::function<std::int64_t(std::int64_t, std::mt19937_64&)> length;
  };
  const std::vector<Case> cases = {
      // Short rows, a row count that is no multiple of 32, 7, 5 or any b.
      {"uniform", 1237 * scale, 1301 * scale, [](std::int64_t, auto& g) { return 3 + g() % 6; }},
      // One very long row (many width chunks of one warp's slots), the rest short.
      {"one-long-row", 997 * scale, 4000 * scale,
       [](std::int64_t i, auto& g) -> std::int64_t { return i == 500 ? 3000 : g() % 4; }},
      // Long runs of empty rows between a few non-empty ones.
      {"sparse-rows", 3001 * scale, 700,
       [](std::int64_t i, auto& g) -> std::int64_t { return i % 211 == 5 ? 1 + g() % 40 : 0; }},
      // Every row empty except the last.
      {"last-row-only", 513 * scale, 90,
       [r = 513 * scale](std::int64_t i, auto&) -> std::int64_t { return i == r - 1 ? 90 : 0; }},
      // Power-law lengths: a HYB split with a large COO part.
      {"power-law", 2049 * scale, 2049 * scale,
       [](std::int64_t, auto& g) -> std::int64_t {
         const double u = static_cast<double>(g() % 100000 + 1) / 100000.0;
         return static_cast<std::int64_t>(std::min(400.0, 1.0 / (u * u)));
       }},
      // SELL-pack: the far entries (1 in 8) make some slices span more than
      // 65535 columns (fallback) and leave others within it (packed).
      {"packed-and-fallback", 1000, 70000 * scale,
       [](std::int64_t, auto& g) -> std::int64_t { return 1 + g() % 9; }},
      // Wide and short.
      {"wide", 40, 50000 * scale, [](std::int64_t, auto& g) -> std::int64_t { return g() % 200; }},
      // Diagonals over a span of millions with a few dozen entries: DIA's
      // distinct diagonals come from the sort, not from the bits over the
      // span (convert_device.cpp, kDiagonalWordsFloor).
      {"hypersparse-wide", 8, 3000000,
       [](std::int64_t, auto& g) -> std::int64_t { return 1 + g() % 5; }},
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const Case& k = cases[c];
    const Csr<T, I> A = random_csr<T, I>(k.rows, k.cols, seed + c, k.length);
    check_variants(A, k.name, variants);
  }
}

/// A CSR whose row i holds column i + o for each offset o that falls in
/// [0, cols), each entry kept with probability `keep` (so that runs along a
/// diagonal break and rows differ in shape), values in ±[0.5, 1.5] with an
/// explicit zero now and then.
template <Value T, Index I>
Csr<T, I> band_csr(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& offsets,
                   double keep, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> sorted = offsets;
  std::sort(sorted.begin(), sorted.end());
  std::vector<I> ptr{0}, col;
  std::vector<T> val;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t o : sorted) {
      const std::int64_t j = i + o;
      if (j < 0 || j >= cols || u(gen) >= keep) continue;
      col.push_back(static_cast<I>(j));
      val.push_back(gen() % 97 == 0 ? T{0}
                                    : static_cast<T>((gen() & 1 ? 1.0 : -1.0) * (0.5 + u(gen))));
    }
    ptr.push_back(static_cast<I>(col.size()));
  }
  return Csr<T, I>(static_cast<I>(rows), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// DIA's values on the device are staged in shared memory by tiles of 8 to
/// 128 rows, as many as the diagonals leave room for, and scattered entry by
/// entry past 682 diagonals of 8 bytes (f64), 1365 of 4 (f32, DIA-LP's
/// float) or 2730 of 2 (DIA-LP's bfloat16); a diagonal's bit is set only by
/// the first entry of each of its runs. Bands on both sides of those limits,
/// a stencil with holes (runs that break, rows of other shapes), tall and
/// wide shapes, and symmetric bands for SYM_DIA (in place, and from the
/// copied triangle past the stage or with explicit zeros): DIA, DIA-LP,
/// single-hack HDI and SYM_DIA equal the host's conversions.
TYPED_TEST(CudaConvert, DiaStagesMatchHostConversion) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  auto offsets_from = [](std::int64_t first, std::int64_t last) {
    std::vector<std::int64_t> o;
    for (std::int64_t d = first; d <= last; ++d)
      o.push_back(d);
    return o;
  };
  auto band = [&](std::int64_t half) { return offsets_from(-half, half); };
  Variants v;
  add(v, "DIA", Format::Dia, none);
  add(v, "DIA_LP", Format::DiaLp, none);
  add(v, "HDI one hack", Format::Hdi, [](ConvertOptions& o) { o.hack_size = 1 << 20; });
  add(v, "SYM_DIA", Format::SymDia, none);  // refused where not symmetric
  struct Case {
    std::string name;
    std::int64_t rows, cols;
    std::vector<std::int64_t> offsets;
    double keep;
  };
  const std::vector<Case> cases = {
      {"7-point stencil with holes",
       23 * 19 * 11,
       23 * 19 * 11,
       {-437, -23, -1, 0, 1, 23, 437},
       0.97},
      {"full 7-point stencil", 4099, 4099, {-437, -23, -1, 0, 1, 23, 437}, 1.0},
      {"band of 129 diagonals", 2000, 2000, band(64), 0.95},
      {"band of 601 diagonals", 1000, 1000, band(300), 0.9},
      {"band of 1401 diagonals", 1500, 1500, band(700), 0.9},
      // Past the stage of every value type (bfloat16: 2730 diagonals).
      {"sparse band of 2801 diagonals", 1500, 1500, band(1400), 0.05},
      // f64's last stage of 8 rows, and one diagonal past it.
      {"682 diagonals", 800, 800, offsets_from(-340, 341), 0.5},
      {"683 diagonals", 800, 800, offsets_from(-341, 341), 0.5},
      {"tall", 5000, 300, {-4700, -2000, -1, 0, 5, 299}, 0.9},
      {"wide", 300, 5000, {-5, 0, 1000, 4000}, 0.9},
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const Case& k = cases[c];
    check_variants(band_csr<T, I>(k.rows, k.cols, k.offsets, k.keep, seed + c), k.name, v);
  }
  // SYM_DIA reads the full CSR's lower entries in place; past the stage
  // (701 lower diagonals in f64, 1401 in f32) and with explicit zeros it
  // copies the lower triangle out first.
  for (std::int64_t half : {3, 300, 700, 1400}) {
    for (bool zeros : {false, true}) {
      if (zeros && half != 300) continue;
      std::vector<std::pair<I, I>> lower;
      std::mt19937_64 gen(seed + 100 + static_cast<std::uint64_t>(half));
      const I n = 1500;
      for (I i = 0; i < n; ++i)
        for (I d = 0; d <= half && d <= i; ++d)
          if (d == 0 || gen() % 10 != 0) lower.push_back({i, static_cast<I>(i - d)});
      check_variants(
          symmetric_from_lower<T, I>(n, lower, seed + static_cast<std::uint64_t>(half), zeros),
          fmt::format("symmetric band of {} diagonals{}", 2 * half + 1,
                      zeros ? ", explicit zeros on the diagonal" : ""),
          v);
    }
  }
}

/// The widest shape there is, 1 × (2⁶³ − 1) with int64 indices: the span of
/// its diagonals, rows + cols − 1, leaves no room for the bits' rounding up,
/// so DIA's (DIA-LP's, single-hack HDI's) diagonals come from the sort, as
/// on the host. The host's result is checked first, without a GPU.
TEST(CudaConvertWide, DiagonalsOfTheWidestShape) {
  using I = std::int64_t;
  constexpr I wide = std::numeric_limits<I>::max();
  const Csr<double, I> A(1, wide, Array<I>{0, 3}, Array<I>{0, 7, wide - 1},
                         Array<double>{1.5, -2.0, 0.0});
  const auto H = std::get<Dia<double, I>>(convert(A, Format::Dia, ConvertOptions{}));
  EXPECT_EQ(H.ndiag(), 3);
  EXPECT_EQ(H.nnz(), 3);  // the explicit zero counted
  EXPECT_EQ(H.offsets().to_vector(), (std::vector<I>{0, 7, wide - 1}));
  for (Format f : {Format::DiaLp, Format::Hdi})
    EXPECT_EQ(std::visit([](const auto& M) { return M.nnz(); }, convert(A, f, ConvertOptions{})), 3)
        << to_string(f);
  SPX_REQUIRE_GPU_OR_SKIP();
  Variants v;
  for (Format f : {Format::Dia, Format::DiaLp, Format::Hdi})
    add(v, std::string(to_string(f)), f, none);
  check_variants(A, "1 x (2^63 - 1)", v);
}

TYPED_TEST(CudaConvert, ConvertKeepsTheDevice) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A =
      random_csr<T, I>(100, 120, fresh_seed(), [](std::int64_t, auto& g) { return 1 + g() % 5; });
  const Csr<T, I> dA = A.to(Space::Device);
  for (Format f : kAllFormats) {
    if (f == Format::SymCsr || f == Format::SymDia) continue;  // symmetric: SymCsrOnTheDevice
    SCOPED_TRACE(to_string(f));
    ConvertOptions o;
    o.min_block_fill = 0;
    const Matrix<T, I> M = convert(dA, f, o);
    std::visit([](const auto& m) { EXPECT_EQ(m.space(), Space::Device); }, M);
  }
}

TYPED_TEST(CudaConvert, RoundTripThroughTheDeviceIsExact) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = random_csr<T, I>(
      777, 800, fresh_seed(),
      [](std::int64_t i, auto& g) -> std::int64_t { return i % 50 == 0 ? 0 : 1 + g() % 12; });
  const Csr<T, I> dA = A.to(Space::Device);
  ConvertOptions o;
  o.min_block_fill = 0;
  o.sigma = 64;
  for (Format f : {Format::Ell, Format::Sell, Format::Hll, Format::Hyb, Format::Jad, Format::Dia,
                   Format::Hdi, Format::Bcsr, Format::Coo, Format::SellPack}) {
    SCOPED_TRACE(to_string(f));
    const Matrix<T, I> host = std::visit(
        [](const auto& m) { return Matrix<T, I>(m.to(Space::Host)); }, convert(dA, f, o));
    const Csr<T, I> back = to_csr(spx::ref(host));
    EXPECT_EQ(back.row_ptr().to_vector(), A.row_ptr().to_vector());
    EXPECT_EQ(back.col_idx().to_vector(), A.col_idx().to_vector());
    const auto bv = back.values().to_vector(), av = A.values().to_vector();
    ASSERT_EQ(bv.size(), av.size());
    EXPECT_EQ(std::memcmp(bv.data(), av.data(), av.size() * sizeof(T)), 0);
  }
}

/// CSR → SYM_CSR on the device equals the host conversion uploaded, array by
/// array, on every symmetric test matrix and a larger one with empty rows and
/// long rows; the round trip is exact; the device copy stays on the device;
/// a matrix made asymmetric by one value, by one missing mirror, or not
/// square, is refused with the host's message.
TYPED_TEST(CudaConvert, SymCsrOnTheDevice) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  Variants sym;
  add(sym, "SYM_CSR", Format::SymCsr, none);
  add(sym, "SYM_DIA", Format::SymDia, none);  // the same test of symmetry, then DIA's passes
  for (auto& [name, A] : handmade_matrices<T, I>())
    if (name.starts_with("sym-") || name == "1x1" || name == "0x0" || name == "diag-empty-rows")
      check_variants(A, name, sym);
  std::vector<std::pair<I, I>> lower;
  const I n = small_tests() ? 3000 : 200000;
  for (I i = 0; i < n; ++i) {
    if (i % 9 == 4) continue;
    lower.push_back({i, i});
    for (I d : {1, 2, 17, 300})
      if (i >= d && (i - d) % 9 != 4) lower.push_back({i, static_cast<I>(i - d)});
    if (i % 5000 == 7)
      for (I j = 0; j < i; j += 13)
        if (j % 9 != 4) lower.push_back({i, j});
  }
  const Csr<T, I> big = symmetric_from_lower<T, I>(n, lower, fresh_seed());
  check_variants(big, "large symmetric", sym);
  const Csr<T, I> dbig = big.to(Space::Device);
  const SymCsr<T, I> dS = to_sym_csr(dbig);
  EXPECT_EQ(dS.space(), Space::Device);
  EXPECT_EQ(dS.nnz(), big.nnz());
  expect_same_csr(to_csr(dS.to(Space::Host)), big, "round trip");
  // One value changed, one mirror missing, not square.
  auto values = big.values().to_vector();
  values[big.row_ptr()[n / 2] + 1] += T{1};
  const Csr<T, I> changed(big.rows(), big.cols(), big.row_ptr().clone(), big.col_idx().clone(),
                          Array<T>(values));
  check_variants(changed, "one value changed", sym);
  check_variants(
      random_csr<T, I>(300, 300, fresh_seed(), [](std::int64_t, auto& g) { return 1 + g() % 4; }),
      "random square", sym);
  check_variants(
      random_csr<T, I>(30, 40, fresh_seed(), [](std::int64_t, auto& g) { return 1 + g() % 4; }),
      "rectangular", sym);
  const Csr<T, I> lone(3, 3, Array<I>{0, 1, 2, 4}, Array<I>{0, 1, 0, 2}, Array<T>{1, 5, 7, 4});
  check_variants(lone, "a lower entry without mirror", sym);
}

}  // namespace
}  // namespace spx::test
